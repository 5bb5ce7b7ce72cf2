"""One parsed COLLADA document and the addressing rules of collada-dom, as OpenRAVE uses them.

* :meth:`Document.url` resolves ``#id`` references (``url=``, ``target=``, ``source=``,
  ``parent=``); ids are looked up document-wide and a repeated id keeps its first element
  (the katana file repeats ``<vertices id="vertices">``). External references
  (``other.dae#id``, ``file:``, ``openrave:``) are never fetched: they are errors.
* :meth:`Document.resolve_sid` resolves SID paths exactly as collada-dom's ``daeSidRef``:
  first as if the path began with ``./`` (every token a SID, starting at the context
  element), then with the first token as a document-wide ID; one SID token is found by a
  breadth-first search of the container and all its descendants (the container itself
  first; an ``instance_*`` container searches its ``url`` target first); a result that is a
  ``<newparam>`` holding a ``<SIDREF>`` is resolved again from the newparam's parent (ID form
  first, then ``./``), recursively.
* :meth:`Document.expand_instance_nodes` replaces every ``<instance_node>`` of the visual
  scene by a copy of the node it names, at the same place (ids kept, or suffixed by an
  ``<extra type="idsuffix" name=...>``), before any binding is resolved, as OpenRAVE does.
* :meth:`Document.unit` is the length unit in metres that applies to an element (the nearest
  ``<asset><unit meter>`` or ``<extra><asset><unit>`` on the element or an ancestor, times the
  reader's ``scalegeometry``); :meth:`Document.transform` the product of an element's
  transform children in document order (translations scaled by their unit, angles in
  degrees, ``<matrix>`` row-major).

Elements are lxml elements; their names are compared by local name (namespace ignored).
"""
from __future__ import annotations

import copy
import math
import re
from typing import Iterable, Optional

import numpy as np

from ....errors import FormatError
from ...xmlutil import local_name, where
from ....transforms import compose, vector_dot

__all__ = ["Document", "ln", "kids", "child", "text", "elpath", "TRANSFORM_TAGS"]

TRANSFORM_TAGS = frozenset(("translate", "rotate", "matrix", "scale", "lookat", "skew"))
_MAX_SIDREF_CHAIN = 64


def ln(el) -> str:
    """Local name of an element ('' for comments and processing instructions)."""
    return local_name(el)


def kids(el, name: Optional[str] = None) -> list:
    """Element children (optionally only those with local name ``name``), in order."""
    if name is None:
        return [c for c in el if isinstance(c.tag, str)]
    return list(el.iterchildren("{*}" + name))


def child(el, name: str):
    """The first element child named ``name`` (or None)."""
    if el is None:
        return None
    return next(el.iterchildren("{*}" + name), None)


def text(el) -> str:
    """Character data of an element (None element -> '')."""
    if el is None:
        return ""
    return el.text or ""


def elpath(el) -> str:
    """A readable path of an element for messages: tag names from the root, each with its
    id (``#id``) or sid (``@sid``) when it has one, e.g.
    ``COLLADA/library_kinematics_models/kinematics_model#kmodel1/technique_common/link@link0``."""
    parts = []
    e = el
    while e is not None:
        name = local_name(e)
        if e.get("id"):
            name += "#" + e.get("id")
        elif e.get("sid"):
            name += "@" + e.get("sid")
        parts.append(name)
        e = e.getparent()
    return "/".join(reversed(parts))


def _axis_angle(axis, angle_rad) -> np.ndarray:
    """3x3 rotation about ``axis`` (normalised; zero -> identity) by ``angle_rad``."""
    a = np.asarray(axis, dtype=float)
    n = math.sqrt(vector_dot(a, a))
    if n == 0.0:
        return np.eye(3)
    x, y, z = a / n
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    t = 1.0 - c
    return np.array([[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, t * z * z + c]])


class Document:
    """A COLLADA document (see the module docstring).

    ``path`` names the document in messages (``x.zae!/x.dae`` for an archive member);
    ``geom_scale`` is OpenRAVE's ``scalegeometry`` factor, which multiplies every length.
    """

    def __init__(self, root, path: str, ctx, geom_scale: float = 1.0):
        self.root = root
        self.path = path
        self.ctx = ctx
        self.geom_scale = float(geom_scale)
        if local_name(root) != "COLLADA":
            raise self.error(f"not a COLLADA document (root element <{local_name(root)}>)", root)
        self._ids: dict = {}
        self._cloned: set = set()           # elements created by instance_node expansion
        self._original_id: dict = {}        # copied element -> id of the element it copies
        self._unit_cache: dict = {}
        self._sid_index: Optional[dict] = None
        self._order: dict = {}
        for el in root.iter():
            if isinstance(el.tag, str):
                i = el.get("id")
                if i is not None and i not in self._ids:
                    self._ids[i] = el

    # -- messages -----------------------------------------------------------------------
    def error(self, message: str, el=None) -> FormatError:
        """A FormatError at ``el``'s line, naming its element path."""
        if el is not None:
            message = f"{message} (at {elpath(el)})"
        return FormatError(self.path, where(el) if el is not None else None, None, message)

    def warn(self, message: str, el=None, **kind) -> None:
        if el is not None:
            message = f"{message} (at {elpath(el)})"
        self.ctx.warn(message, where(el) if el is not None else None, path=self.path, **kind)

    # -- numbers ------------------------------------------------------------------------
    def floats(self, el, count: Optional[int] = None, minimum: Optional[int] = None) -> list:
        """The whitespace-separated numbers of ``el``'s text."""
        toks = text(el).split()
        try:
            vals = [float(t) for t in toks]
        except ValueError:
            bad = next(t for t in toks if not _is_float(t))
            raise self.error(f"<{ln(el)}>: {bad!r} is not a number", el) from None
        if count is not None and len(vals) != count:
            raise self.error(f"<{ln(el)}>: expected {count} numbers, got {len(vals)}", el)
        if minimum is not None and len(vals) < minimum:
            raise self.error(f"<{ln(el)}>: expected at least {minimum} numbers, got {len(vals)}", el)
        return vals

    def float1(self, el) -> float:
        return self.floats(el, count=1)[0]

    def array(self, el, what: str = "numbers") -> np.ndarray:
        """A float64 array of ``el``'s text (large arrays: float_array)."""
        toks = text(el).split()
        self.ctx.check_claim("alloc_bytes", 8 * len(toks), where(el), what=f"<{ln(el)}> {what}")
        try:
            return np.array(toks, dtype=float) if toks else np.zeros(0)
        except ValueError:
            bad = next(t for t in toks if not _is_float(t))
            raise self.error(f"<{ln(el)}>: {bad!r} is not a number", el) from None

    def int_array(self, el, what: str = "indices") -> np.ndarray:
        toks = text(el).split()
        self.ctx.check_claim("alloc_bytes", 8 * len(toks), where(el), what=f"<{ln(el)}> {what}")
        try:
            return np.array([int(t) for t in toks], dtype=np.int64) if toks else np.zeros(0, np.int64)
        except (ValueError, OverflowError):
            bad = next(t for t in toks if not _is_int(t))
            raise self.error(f"<{ln(el)}>: {bad!r} is not an integer", el) from None

    def boolean(self, el) -> bool:
        t = text(el).strip()
        if t in ("true", "1"):
            return True
        if t in ("false", "0"):
            return False
        raise self.error(f"<{ln(el)}>: {t!r} is not a boolean (true/false)", el)

    # -- URLs and ids -------------------------------------------------------------------
    def by_id(self, id_: str):
        return self._ids.get(id_)

    def url(self, el, attr: str = "url", required: bool = True):
        """The element ``el``'s ``attr`` (``#id``) points at. Missing attribute -> None (or an
        error if ``required``); an id that names nothing, or an external reference, is an
        error naming the attribute and its value."""
        ref = el.get(attr)
        if ref is None:
            if required:
                raise self.error(f"<{ln(el)}> has no {attr}= attribute", el)
            return None
        ref = ref.strip()
        if not ref.startswith("#"):
            raise self.error(f"<{ln(el)} {attr}=\"{ref}\">: external COLLADA reference not supported "
                             "(roboio never fetches other documents)", el)
        target = self._ids.get(ref[1:])
        if target is None:
            raise self.error(f"<{ln(el)} {attr}=\"{ref}\">: no element has id {ref[1:]!r}", el)
        return target

    def url_or_none(self, el, attr: str = "url"):
        """Like :meth:`url` but a dangling or missing reference gives None (external ones
        are still errors)."""
        ref = (el.get(attr) or "").strip()
        if not ref:
            return None
        if not ref.startswith("#"):
            raise self.error(f"<{ln(el)} {attr}=\"{ref}\">: external COLLADA reference not supported "
                             "(roboio never fetches other documents)", el)
        return self._ids.get(ref[1:])

    # -- instance_node expansion --------------------------------------------------------
    def expand_instance_nodes(self, scene) -> None:
        """Replace every ``<instance_node>`` under the nodes of visual scene ``scene`` by a copy
        of the node it references (recursively, cycles are errors), as OpenRAVE does right
        after opening a document."""
        def visit(node, chain, depth):
            self.ctx.check_depth(depth, where(node), what="COLLADA <node> nesting")
            for inst in kids(node, "instance_node"):
                self._instantiate(inst, chain)
            for sub in kids(node, "node"):
                visit(sub, chain + (self._origin(sub),), depth + 1)

        for top in kids(scene, "node"):
            visit(top, (self._origin(top),), 1)
        self._sid_index = None

    def _origin(self, node):
        """The id of the node a (possibly copied) node stands for, for cycle detection."""
        return self._original_id.get(node) or node.get("id") or id(node)

    def _instantiate(self, inst, chain) -> None:
        target = self.url(inst, "url")
        if ln(target) != "node":
            raise self.error(f"<instance_node url=\"{inst.get('url')}\"> names a <{ln(target)}>, not a <node>", inst)
        key = target.get("id")
        if key in chain:
            raise self.error(f"cyclic <instance_node>: node {key!r} instances itself "
                             f"(through {' -> '.join(str(c) for c in chain)})", inst)
        suffix = ""
        for ex in kids(inst, "extra"):
            if ex.get("type") == "idsuffix" and ex.get("name"):
                suffix = ex.get("name")
        count = sum(1 for _ in target.iter())
        self.ctx.charge("nodes", count, where(inst), what="COLLADA <instance_node> expansion")
        clone = copy.deepcopy(target)
        parent = inst.getparent()
        parent.replace(inst, clone)
        for el in clone.iter():
            if not isinstance(el.tag, str):
                continue
            self._cloned.add(el)
            i = el.get("id")
            if i is None:
                continue
            self._original_id[el] = i
            if suffix:
                el.set("id", i + suffix)
                self._ids.setdefault(i + suffix, el)
            else:
                cur = self._ids.get(i)
                if cur is None or cur not in self._cloned or cur is el:
                    self._ids[i] = el
        # the copy is expanded in turn when the walk reaches it (its own instance_nodes)

    # -- SID paths ----------------------------------------------------------------------
    def _index(self):
        if self._sid_index is None:
            index: dict = {}
            order: dict = {}
            for n, el in enumerate(self.root.iter()):
                if isinstance(el.tag, str):
                    s = el.get("sid")
                    if s is not None:
                        index.setdefault(s, []).append(el)
                        order[el] = n
            self._sid_index, self._order = index, order
        return self._sid_index

    def _find_sid_below(self, container, sid: str):
        """Breadth-first search of ``container`` and its descendants for ``sid`` (the
        shallowest match; among equally deep ones the first in document order)."""
        best, best_key = None, None
        for el in self._index().get(sid, ()):
            depth = 0
            e = el
            while e is not None and e is not container:
                e = e.getparent()
                depth += 1
            if e is None:
                continue
            key = (depth, self._order[el])
            if best_key is None or key < best_key:
                best, best_key = el, key
        return best

    def _find_sid(self, container, sid: str, depth: int = 0):
        if depth > 16:
            return None
        if ln(container).startswith("instance_") and container.get("url") is not None:
            target = self.url(container, "url")
            if target is not None:
                found = self._find_sid(target, sid, depth + 1)
                if found is not None:
                    return found
        return self._find_sid_below(container, sid)

    _TOKENS = re.compile(r"[/()]")

    def _resolve_impl(self, ref: str, context, chain: int):
        parts = ref.split("/")
        if any(p == "" for p in parts) or self._TOKENS.search(ref.replace("/", "")):
            return None
        first, rest = parts[0], parts[1:]
        if first == ".":
            el = context
        else:
            el = self._ids.get(first)
        if el is None:
            return None
        for tok in rest:
            el = self._find_sid(el, tok)
            if el is None:
                return None
        if ln(el) == "newparam":
            sidref = child(el, "SIDREF")
            if sidref is not None:
                return self._follow_sidref(el, sidref, chain)
        return el

    def _follow_sidref(self, newparam, sidref, chain: int):
        if chain >= _MAX_SIDREF_CHAIN:
            raise self.error(f"<SIDREF>{text(sidref).strip()}</SIDREF>: chain of newparam SIDREFs "
                             f"longer than {_MAX_SIDREF_CHAIN} (cyclic?)", sidref)
        ref = text(sidref).strip()
        parent = newparam.getparent()
        found = self._resolve_impl(ref, parent, chain + 1)
        if found is None:
            found = self._resolve_impl("./" + ref, parent, chain + 1)
        return found if found is not None else newparam

    def resolve_sid(self, ref: Optional[str], context):
        """The element SID path ``ref`` names relative to ``context`` (None if nothing)."""
        if not ref or context is None:
            return None
        ref = ref.strip()
        if not ref:
            return None
        found = self._resolve_impl("./" + ref if not ref.startswith("./") else ref, context, 0)
        if found is None and not ref.startswith("./"):
            found = self._resolve_impl(ref, context, 0)
        return found

    # -- units and transforms -----------------------------------------------------------
    def unit(self, el) -> float:
        """Metres per length unit at ``el`` (nearest asset/unit), times ``geom_scale``."""
        chain = []
        e = el
        value = None
        while e is not None:
            cached = self._unit_cache.get(e)
            if cached is not None:
                value = cached
                break
            u = self._own_unit(e)
            chain.append(e)
            if u is not None:
                value = u * self.geom_scale
                break
            e = e.getparent()
        if value is None:
            value = self.geom_scale
        for c in chain:
            self._unit_cache[c] = value
        return value

    def _own_unit(self, el) -> Optional[float]:
        ex = child(el, "extra")
        if ex is not None:
            u = child(child(ex, "asset"), "unit")
            if u is not None:
                return self._meter(u)
        u = child(child(el, "asset"), "unit")
        if u is not None:
            return self._meter(u)
        return None

    def _meter(self, unit_el) -> float:
        m = unit_el.get("meter")
        if m is None or not m.strip():
            return 1.0
        try:
            v = float(m)
        except ValueError:
            raise self.error(f"<unit meter=\"{m}\">: not a number", unit_el) from None
        if not math.isfinite(v) or v <= 0:
            raise self.error(f"<unit meter=\"{m}\">: must be a positive number", unit_el)
        return v

    def transform_of(self, el) -> np.ndarray:
        """4x4 transform of one transform element (identity for non-transform elements)."""
        name = ln(el)
        T = np.eye(4)
        if name == "translate":
            v = self.floats(el, count=3)
            T[:3, 3] = np.array(v) * self.unit(el)
        elif name == "rotate":
            v = self.floats(el, count=4)
            if not all(map(math.isfinite, v)):
                raise self.error("<rotate>: a number out of range (inf or nan)", el)
            T[:3, :3] = _axis_angle(v[:3], v[3] * (math.pi / 180.0))
        elif name == "matrix":
            v = self.floats(el, count=16)
            M = np.array(v).reshape(4, 4)
            with np.errstate(all="ignore"):
                R = M[:3, :3]
                bad = not (np.all(np.isfinite(M[:3])) and np.all(np.isfinite(compose(R, R.T))))
            if bad:
                raise self.error("<matrix>: a number out of range (inf or nan, or so large that "
                                 "the rotation's products overflow)", el)
            T[:3, :3] = M[:3, :3]
            T[:3, 3] = M[:3, 3] * self.unit(el)
        elif name == "scale":
            v = self.floats(el, count=3)
            T[0, 0], T[1, 1], T[2, 2] = v
        elif name == "lookat":
            v = np.array(self.floats(el, count=9))
            u = self.unit(el)
            eye, target, up = v[0:3] * u, v[3:6] * u, v[6:9]
            T = _lookat(eye, target, up)
        elif name == "skew":
            self.warn("<skew> transforms are not supported (identity used, as OpenRAVE does)", el, kind="dropped")
        with np.errstate(all="ignore"):
            finite = bool(np.all(np.isfinite(T)))
        if not finite:
            raise self.error(f"<{name}>: a number out of range (inf or nan, or so large that "
                             "the transform overflows)", el)
        return T

    def transform(self, el, children: Optional[Iterable] = None) -> np.ndarray:
        """Product, in document order, of the transform children of ``el``."""
        T = np.eye(4)
        for c in (kids(el) if children is None else children):
            if ln(c) in TRANSFORM_TAGS:
                with np.errstate(all="ignore"):
                    T = compose(T, self.transform_of(c))
                if not np.all(np.isfinite(T)):
                    raise self.error(f"<{ln(c)}>: the transform overflows (a number out of range)", c)
        return T

    def parent_nodes_transform(self, node) -> np.ndarray:
        """Product of the transforms of every ``<node>`` ancestor of ``node`` (outermost
        first), not including ``node`` itself (OpenRAVE's ``getNodeParentTransform``)."""
        chain = []
        p = node.getparent()
        while p is not None and ln(p) == "node":
            chain.append(p)
            p = p.getparent()
        T = np.eye(4)
        for n in reversed(chain):
            T = compose(T, self.transform(n))
        return T

    def node_world(self, node) -> np.ndarray:
        return compose(self.parent_nodes_transform(node), self.transform(node))


def _lookat(eye, target, up) -> np.ndarray:
    """OpenRAVE's ``transformLookat``: origin at ``eye``, z towards ``target`` (z axis when
    they coincide), y = ``up`` made orthogonal to z (then world y, then world x if ``up`` is
    parallel to z), x = y x z."""
    z = target - eye
    n = math.sqrt(vector_dot(z, z))
    z = z / n if n > 1e-6 else np.array([0.0, 0.0, 1.0])
    y = None
    for cand in (np.asarray(up, float), np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0])):
        y = cand - z * vector_dot(z, cand)
        if vector_dot(y, y) >= 1e-8:
            break
    y = y / math.sqrt(vector_dot(y, y))
    x = np.cross(y, z)
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = x, y, z, eye
    return T


def _is_float(t: str) -> bool:
    try:
        float(t)
        return True
    except ValueError:
        return False


def _is_int(t: str) -> bool:
    try:
        return -2 ** 63 <= int(t) < 2 ** 63
    except ValueError:
        return False
