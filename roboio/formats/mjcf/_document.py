"""An MJCF document as MuJoCo's parser assembles it: ``<include>`` expanded in place,
``<compiler>`` settings, ``<default>`` classes, assets.

Elements are handled as :class:`Node` (the lxml element and the file it came from), so
that every message names the file and line it concerns, included files too. Attribute
values are resolved through the default classes: an element's own attributes, else those
of its ``class``, else of the enclosing ``childclass`` (body or frame), else of ``main``;
a class inherits every attribute of the class it is nested in.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Optional

from ...context import LoadContext
from ..fileio import read_bytes
from ..xmlutil import local_name, parse_bytes, where
from ._unread import Unread

__all__ = ["Node", "Document", "Compiler", "ACTUATOR_KINDS", "ORIENTATIONS"]

# actuator elements (<actuator> children and default-class members)
ACTUATOR_KINDS = ("general", "motor", "position", "velocity", "damper", "intvelocity",
                  "orientation", "pid", "cylinder", "muscle", "adhesion", "dcmotor")
# element types a default class holds
_DEFAULTABLE = ("mesh", "material", "joint", "geom", "site", "camera", "light", "pair",
                "equality", "tendon") + ACTUATOR_KINDS
ORIENTATIONS = {"axisangle": 4, "xyaxes": 6, "zaxis": 3, "euler": 3}


@dataclass
class Node:
    """An element and the file that holds it."""

    el: object
    path: str

    @property
    def tag(self) -> str:
        return local_name(self.el)

    @property
    def line(self) -> Optional[int]:
        return where(self.el)

    def get(self, name: str, default=None):
        return self.el.get(name, default)


@dataclass
class Compiler:
    """``<compiler>`` settings (MuJoCo's defaults for MJCF)."""

    degree: bool = True
    eulerseq: str = "xyz"
    meshdir: Optional[str] = None
    texturedir: Optional[str] = None
    assetdir: Optional[str] = None
    autolimits: bool = True
    inertiafromgeom: str = "auto"
    inertiagrouprange: tuple = (0, 5)
    boundmass: float = 0.0
    boundinertia: float = 0.0
    balanceinertia: bool = False
    settotalmass: float = -1.0
    fusestatic: bool = False
    discardvisual: bool = False
    alignfree: bool = False
    strippath: bool = False
    lines: dict = field(default_factory=dict)   # attribute -> (path, line) where set


_BOOL = {"true": True, "false": False}


class Document:
    """The assembled document of one MJCF file (see the module docstring)."""

    def __init__(self, data: bytes, ctx: LoadContext):
        self.ctx = ctx
        self.path = ctx.path or "<mjcf>"
        self.dir = os.path.dirname(os.path.abspath(self.path)) if ctx.path else os.getcwd()
        root = parse_bytes(data, self.path, ctx)
        self.root = Node(root, self.path)
        if self.root.tag != "mujoco":
            raise ctx.error(f"root element is <{self.root.tag}>, not <mujoco>", self.root.line)
        self.model = root.get("model") or "MuJoCo Model"
        self.included: set = set()
        self._expanded: dict = {}         # <include> element -> the Nodes it stands for
        self.compiler = Compiler()
        self.classes: dict = {"main": {t: {} for t in _DEFAULTABLE}}
        self.class_lines: dict = {}
        self.sections: dict = {}          # top-level section tag -> [Node]
        self._nodes = 0
        self.unread = Unread()            # what the reading leaves out, warned at its end
        for n in self.kids(self.root, depth=1):
            self.sections.setdefault(n.tag, []).append(n)
        for n in self.sections.get("compiler", []):
            self._compiler(n)
        for n in self.sections.get("default", []):
            self._default(n, None, 2)

    # -- elements ---------------------------------------------------------------------
    def error(self, node: Optional[Node], message: str):
        if node is None:
            return self.ctx.error(message)
        return self.ctx.error(message, node.line, path=node.path)

    def warn(self, node: Optional[Node], message: str, **kind) -> None:
        if node is None:
            self.ctx.warn(message, **kind)
        else:
            self.ctx.warn(message, node.line, path=node.path, **kind)

    def kids(self, node: Node, depth: int):
        """Child elements of ``node`` with every ``<include>`` replaced by the children of
        the included file's top element (recursively)."""
        self.ctx.check_depth(depth, node.line, what="MJCF element nesting")
        for c in node.el.iterchildren():
            if not isinstance(c.tag, str):
                continue
            child = Node(c, node.path)
            if child.tag == "include":
                yield from self._include(child, depth)
            else:
                self._nodes += 1
                yield child

    def _include(self, node: Node, depth: int):
        """The elements an ``<include>`` stands for. A section is walked by several readers
        (meshes, materials, height fields...), so one ``<include>`` is expanded once and
        its elements handed out again on every later walk: the file is included once."""
        done = self._expanded.get(node.el)
        if done is None:
            done = self._expanded[node.el] = list(self._include_file(node, depth))
        return done

    def _include_file(self, node: Node, depth: int):
        ref = node.get("file")
        if not ref:
            raise self.error(node, "<include> needs a file attribute")
        path = ref if os.path.isabs(ref) else os.path.join(self.dir, ref)
        key = os.path.realpath(path)
        if key in self.included or key == os.path.realpath(self.path):
            raise self.error(node, f"file {ref!r} is included more than once (MuJoCo includes a "
                                   "file at most once)")
        self.included.add(key)
        if not os.path.isfile(path):
            raise self.error(node, f"included file {ref!r} not found (looked for {path})")
        ctx = self.ctx
        ctx.check_depth(len(ctx.stack) + 1, node.line, what=f"files including files, at {path}")
        ctx.charge("files", 1, node.line, what=f"opening {path}")
        data = read_bytes(path, ctx)
        root = parse_bytes(data, path, ctx)
        top = Node(root, path)
        got = False
        for c in self.kids(top, depth):
            got = True
            yield c
        if not got:
            raise self.error(node, f"included file {ref!r} adds no element")

    # -- compiler ---------------------------------------------------------------------
    def _compiler(self, node: Node) -> None:
        c = self.compiler
        for k, v in node.el.attrib.items():
            c.lines[k] = node
            if k == "angle":
                if v not in ("degree", "radian"):
                    raise self.error(node, f"<compiler angle=\"{v}\">: degree or radian")
                c.degree = v == "degree"
            elif k == "eulerseq":
                if len(v) != 3 or any(ch not in "xyzXYZ" for ch in v):
                    raise self.error(node, f"<compiler eulerseq=\"{v}\">: three of x, y, z, X, Y, Z")
                c.eulerseq = v
            elif k in ("meshdir", "texturedir", "assetdir"):
                setattr(c, k, v)
            elif k in ("autolimits", "balanceinertia", "fusestatic", "discardvisual", "alignfree",
                       "strippath"):
                setattr(c, k, self.boolean(node, k))
            elif k == "inertiafromgeom":
                if v not in ("true", "false", "auto"):
                    raise self.error(node, f"<compiler inertiafromgeom=\"{v}\">: true, false or auto")
                c.inertiafromgeom = v
            elif k in ("boundmass", "boundinertia", "settotalmass"):
                setattr(c, k, self.floats(node, k, 1)[0])
            elif k == "inertiagrouprange":
                c.inertiagrouprange = tuple(int(x) for x in self.ints(node, k, 2))
            elif k == "coordinate" and v == "global":
                raise self.error(node, "<compiler coordinate=\"global\"> is no longer supported by MuJoCo")

    # -- default classes --------------------------------------------------------------
    def _default(self, node: Node, parent: Optional[str], depth: int) -> None:
        name = node.get("class")
        if parent is None:
            if name not in (None, "", "main"):
                raise self.error(node, "top-level default class 'main' cannot be renamed")
            name = "main"
        else:
            if not name:
                raise self.error(node, "empty class name")
            if name in self.classes:
                raise self.error(node, f"repeated default class name {name!r}")
            self.classes[name] = {t: dict(a) for t, a in self.classes[parent].items()}
            self.class_lines[name] = node
        table = self.classes[name]
        nested = []
        for c in self.kids(node, depth):
            if c.tag == "default":
                nested.append(c)
            elif c.tag in ACTUATOR_KINDS:
                # MuJoCo keeps one actuator default per class, set by any actuator element
                table["actuator"] = {**table.get("actuator", {}), **_attrs(c), "_kind": c.tag}
            elif c.tag in table:
                attrs = _attrs(c)
                if c.tag in ("geom", "site", "camera") and any(k in attrs for k in ORIENTATIONS):
                    for k in list(table[c.tag]):
                        if k in ORIENTATIONS:
                            del table[c.tag][k]
                table[c.tag].update(attrs)
        for c in nested:
            self._default(c, name, depth + 1)

    def class_of(self, node: Node, inherited: str) -> str:
        """The default class of an element: its ``class`` attribute, else ``inherited``."""
        name = node.get("class")
        if name is None:
            return inherited
        if name not in self.classes:
            raise self.error(node, f"unknown default class name {name!r}")
        return name

    def child_class(self, node: Node, inherited: str) -> str:
        """The class a body or frame hands down (its ``childclass``, else ``inherited``)."""
        name = node.get("childclass")
        if name is None:
            return inherited
        if name not in self.classes:
            raise self.error(node, f"unknown default childclass {name!r}")
        return name

    def attrs(self, node: Node, cls: str, kind: Optional[str] = None) -> "Attrs":
        """The element's attributes over its class's defaults for element type ``kind``
        (default: the tag)."""
        kind = kind or node.tag
        if kind in ACTUATOR_KINDS:
            kind = "actuator"
        base = self.classes[cls].get(kind, {})
        own = _attrs(node)
        merged = dict(base)
        if any(k in own for k in ORIENTATIONS) or "quat" in own:
            # an element's own orientation replaces quat from the defaults, but an
            # alternative form from the defaults still wins over an own quat (as in MuJoCo)
            if any(k in own for k in ORIENTATIONS):
                for k in ORIENTATIONS:
                    merged.pop(k, None)
                merged.pop("quat", None)
        merged.update(own)
        return Attrs(self, node, merged, own)

    # -- values -----------------------------------------------------------------------
    def floats(self, node: Node, name: str, count: Optional[int] = None, text: Optional[str] = None,
               at_most: Optional[int] = None) -> list:
        text = node.get(name) if text is None else text
        try:
            vals = [float(x) for x in text.split()]
        except ValueError:
            raise self.error(node, f"<{node.tag} {name}=\"{_short(text)}\">: expected numbers") from None
        if count is not None and len(vals) != count:
            raise self.error(node, f"<{node.tag} {name}>: expected {count} numbers, got {len(vals)}")
        if at_most is not None and len(vals) > at_most:
            raise self.error(node, f"<{node.tag} {name}>: expected at most {at_most} numbers, got {len(vals)}")
        if not all(math.isfinite(v) for v in vals):
            raise self.error(node, f"<{node.tag} {name}=\"{_short(text)}\">: numbers must be finite")
        return vals

    def ints(self, node: Node, name: str, count: Optional[int] = None, text: Optional[str] = None) -> list:
        vals = self.floats(node, name, count, text)
        if any(v != int(v) for v in vals):
            raise self.error(node, f"<{node.tag} {name}>: expected integers")
        return [int(v) for v in vals]

    def boolean(self, node: Node, name: str, text: Optional[str] = None) -> bool:
        text = node.get(name) if text is None else text
        v = _BOOL.get(text.strip()) if text is not None else None
        if v is None:
            raise self.error(node, f"<{node.tag} {name}=\"{_short(text)}\">: expected true or false")
        return v

    # -- files ------------------------------------------------------------------------
    def asset_path(self, file: str, kind: str = "mesh") -> str:
        """The path MuJoCo reads an asset file from (``strippath``, ``meshdir``/``texturedir``,
        ``assetdir``: absolute as given, else relative to the main file's directory)."""
        c = self.compiler
        if c.strippath:
            file = os.path.basename(file.replace("\\", "/"))
        if os.path.isabs(file):
            return file
        d = (c.meshdir if kind == "mesh" else c.texturedir)
        if d is None:
            d = c.assetdir
        if d and os.path.isabs(d):
            return os.path.join(d, file)
        return os.path.join(self.dir, d or "", file)


class Attrs:
    """Resolved attributes of one element (own over class defaults), with typed readers
    whose errors name the element."""

    def __init__(self, doc: Document, node: Node, values: dict, own: dict):
        self.doc, self.node, self.values, self.own = doc, node, values, own

    def __contains__(self, name) -> bool:
        return name in self.values

    def text(self, name: str, default=None):
        return self.values.get(name, default)

    def floats(self, name: str, default=None, count: Optional[int] = None, at_most: Optional[int] = None):
        v = self.values.get(name)
        if v is None:
            return default
        return self.doc.floats(self.node, name, count, v, at_most)

    def float(self, name: str, default=None):
        v = self.floats(name, None, 1)
        return default if v is None else v[0]

    def int(self, name: str, default=None):
        v = self.values.get(name)
        if v is None:
            return default
        return self.doc.ints(self.node, name, 1, v)[0]

    def bool(self, name: str, default=None):
        v = self.values.get(name)
        if v is None:
            return default
        return self.doc.boolean(self.node, name, v)

    def choice(self, name: str, options: tuple, default=None):
        v = self.values.get(name)
        if v is None:
            return default
        if v not in options:
            raise self.doc.error(self.node, f"<{self.node.tag} {name}=\"{_short(v)}\">: expected one of "
                                            f"{', '.join(options)}")
        return v

    def limited(self, name: str, has_range: bool) -> bool:
        """A ``limited``-style attribute (``true``/``false``/``auto``) resolved as MuJoCo does
        with ``autolimits``: ``auto`` means "limited when a range is given"; without
        ``autolimits`` a range needs ``limited="true"`` (an error otherwise)."""
        v = self.choice(name, ("true", "false", "auto"), "auto")
        if v != "auto":
            return v == "true"
        if self.doc.compiler.autolimits:
            return has_range
        if has_range:
            raise self.doc.error(self.node, f"<{self.node.tag}>: a range without {name}=\"true\" "
                                            "(compiler autolimits is false)")
        return False


def _attrs(node: Node) -> dict:
    return {k: v for k, v in node.el.attrib.items() if isinstance(k, str) and not k.startswith("{")}


def _short(text, n: int = 40) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= n else text[:n] + "..."
