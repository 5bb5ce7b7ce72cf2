"""OpenRAVE XML -> records, element by element as OpenRAVE's readers process them
(``openrave.md``; OpenRAVE's ``xmlreaders-core.cpp``).

Every ``<KinBody>``/``<Robot>`` element works on one :class:`~._records.BodyRecord`: its
``file=`` is read into that record first, then its children in document order, then at its end
the name, the prefix (links and joints created inside the element) and the element's
transform (every link created inside it, the included ones too). A ``<Body>`` naming an
existing link re-opens it; a ``<Joint>`` is frozen when it ends. An include is read as a
nested element of the including one; include cycles, unresolved files and COLLADA files
(until the COLLADA reader exists) are errors naming the file, the element and the chain.
"""
from __future__ import annotations

import importlib
import math
import os

import numpy as np

from ...errors import FormatError
from .. import fileio, xmlutil
from ._geometry import load_mesh
from ._lex import Element, first_token, is_false, is_true, scan_numbers
from ._math import TRANSFORM_TAGS, apply_transform_tag, inv, normalize3
from ...transforms import compose, matrix_vector, vector_dot
from ._mass import (GEOM_DENSITY_TOTAL, Mass, box, box_density, cylinder_density, sphere,
                    sphere_density)
from ._records import (BodyRecord, CameraRecord, EnvironmentRecord, GeomRecord,
                       InterfaceRecord, JointRecord, LinkRecord, ManipulatorRecord, MassRecord,
                       MimicRecord, SensorRecord, Source, XmlData, JOINT_DOFS)

__all__ = ["Reader", "data_roots", "COLLADA_EXTENSIONS", "MESH_EXTENSIONS"]

COLLADA_EXTENSIONS = (".dae", ".zae")
#: suffixes OpenRAVE reads as "a rigid body made from a mesh file" (not ending in .xml)
MESH_EXTENSIONS = ("iv", "vrml", "wrl", "stl", "blend", "3ds", "ase", "obj", "ply", "dxf", "lwo",
                   "lxo", "ac", "ms3d", "x", "mesh.xml", "irrmesh", "irr", "nff", "off", "raw")
#: interface tags of an <Environment> (OpenRAVE's interface names)
INTERFACES = ("planner", "robot", "sensorsystem", "controller", "module", "iksolver",
              "kinbody", "physicsengine", "sensor", "collisionchecker", "trajectory", "viewer",
              "spacesampler")
DEG = math.pi / 180.0
# OpenRAVE's libxml2 SAX parse stops at the first well-formedness error and the load fails;
# roboio reads on past errors that change no element ("--" in a comment, blanks before the
# XML declaration) and says so; any other error stays one
_RECOVER_NOTE = " (OpenRAVE itself stops at this error)"


def data_roots(ctx) -> list:
    """The OpenRAVE data path: ``search_paths`` given to roboio (``--data-path``), then the
    entries of ``$OPENRAVE_DATA`` (``:``-separated; ``;`` on Windows)."""
    roots = list(ctx.search_paths)
    sep = ";" if os.name == "nt" else ":"
    for r in os.environ.get("OPENRAVE_DATA", "").split(sep):
        if r and r not in roots:
            roots.append(r)
    return roots


def _atoi(text: str) -> int:
    """C ``atoi``: optional sign and leading digits after whitespace, else 0."""
    s = text.lstrip()
    sign = 1
    if s[:1] in "+-" and s:
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    digits = ""
    for ch in s:
        if not ch.isdigit():
            break
        digits += ch
    return sign * int(digits) if digits else 0


def _xmldata(el: Element, depth: int = 0) -> XmlData:
    kids = [_xmldata(c, depth + 1) for c in el.children] if depth < 64 else []
    text = (el.el.text or "").strip()
    return XmlData(el.tag, dict(el.attrs), text, kids, el.line)


class Scope:
    """The file being read: its path and the context naming it in messages."""

    def __init__(self, path: str, ctx, chain: tuple):
        self.path = path
        self.ctx = ctx
        self.chain = chain

    def src(self, el: Element) -> Source:
        return Source(self.path, el.line)

    def error(self, el, message):
        return self.ctx.error(message, el.line if el is not None else None)

    def warn(self, el, message, **kind):
        self.ctx.warn(message, el.line if el is not None else None, **kind)


class _KinBodyState:
    """Per-element state of OpenRAVE's KinBody reader."""

    def __init__(self):
        self.masstype = None            # None, sphere, spheremass, box, boxmass, mimicgeom
        self.massvalue = 1.0
        self.massextents = np.ones(3)
        self.trans = np.eye(4)
        self.modelsdir = ""
        self.transparency = None
        self.jointvalues = None


class Reader:
    """Reads one top-level OpenRAVE XML file (and everything it includes) into records."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.roots = data_roots(ctx)
        self.pending_links: list = []   # links whose mass waits for the end of the document
        self.pending_mass: dict = {}    # id(link) -> the arguments of its last </Body>
        self.included: dict = {}        # real path -> elements of an included file (read once)

    # -- entry points ----------------------------------------------------------------
    def read_document(self, path: str, data: bytes):
        """``BodyRecord`` for a ``<KinBody>``/``<Robot>`` root, ``EnvironmentRecord`` for an
        ``<Environment>`` (or a stand-alone sensor / interface) root."""
        rec = self._read_document(path, data)
        for link in self.pending_links:
            args = self.pending_mass.pop(id(link), None)
            if args is not None:
                link.mass = self.compute_mass(link, *args)
        self.pending_links.clear()
        return rec

    def _read_document(self, path: str, data: bytes):
        scope = Scope(path, self.ctx, (os.path.realpath(path),))
        root = Element(xmlutil.parse_bytes(data, path, self.ctx, charge_nodes=False, recover=True,
                                           recover_note=_RECOVER_NOTE,
                                           recover_only=xmlutil.LEXICAL_ERRORS))
        tag = root.tag
        if tag == "environment":
            env = EnvironmentRecord(source=scope.src(root))
            self.environment(root, env, scope, 1)
            return env
        if tag in ("kinbody", "robot"):
            body = BodyRecord(kind=tag, source=scope.src(root), files=[path])
            if tag == "kinbody":
                jv = self.kinbody(root, body, root.attrs, scope, 1, 0)
            else:
                jv = self.robot(root, body, root.attrs, scope, 1, 0)
            body.jointvalues = jv
            return body
        if tag in INTERFACES:
            env = EnvironmentRecord(source=scope.src(root))
            self.env_interface(root, env, scope, 1)
            return env
        raise scope.error(root, f"root element <{root.tag}> is not an OpenRAVE environment, "
                                "robot, kinbody or interface")

    # -- numbers ---------------------------------------------------------------------
    def nums(self, scope, el, count, defaults=None):
        """``count`` numbers of ``el``'s text (C++ extraction); missing ones keep ``defaults``
        (a warning); a token that is not a number is an error."""
        text = el.text
        values, stop = scan_numbers(text, count)
        if len(values) < count:
            if stop:
                raise scope.error(el, f"<{el.tag}>: {stop.split()[0]!r} is not a number")
            if text.strip() or defaults is None:
                scope.warn(el, f"<{el.tag}> expects {count} numbers, got {len(values)}; "
                               "the others keep their defaults, as in OpenRAVE", kind="invalid value")
        elif stop:
            scope.warn(el, f"<{el.tag}>: text after the {count} numbers ignored: {stop[:40]!r}", kind="ignored")
        out = list(defaults) if defaults is not None else [0.0] * count
        out[:len(values)] = values
        return out

    def all_nums(self, scope, el):
        values, stop = scan_numbers(el.text)
        if stop:
            raise scope.error(el, f"<{el.tag}>: {stop.split()[0]!r} is not a number")
        return values

    def transform_tag(self, scope, el, T, raw=None):
        """Apply a transform tag to ``T``; ``raw`` (a list) collects ``(tag, values)`` as
        read, which the writer re-emits to keep its output stable."""
        defaults = {"translation": [0.0] * 3, "rotationaxis": [0.0] * 4,
                    "rotationmat": [0.0] * 9, "quat": [0.0] * 4}[el.tag]
        values = self.nums(scope, el, len(defaults), defaults)
        if not np.all(np.isfinite(values)) or (el.tag == "rotationaxis" and
                                                not math.isfinite(values[3] * math.pi / 180.0)):
            raise scope.error(el, f"<{el.tag}>: a number out of range (inf or nan; OpenRAVE's "
                                  "stream reading fails on it)")
        if el.tag == "quat" and not any(values):
            scope.warn(el, "<quat> is zero (OpenRAVE normalises it to NaN); identity used", kind="invalid value")
        if raw is not None:
            raw.append((el.tag, list(values)))
        return apply_transform_tag(T, el.tag, np.array(values))

    def check(self, scope, el, depth):
        scope.ctx.check_depth(depth, el.line, what="XML element nesting")
        scope.ctx.charge("nodes", 1, el.line)

    def unknown(self, scope, el, owner: str, store: list):
        scope.warn(el, f"unknown element <{el.tag}> in <{owner}> skipped (OpenRAVE ignores it); "
                       "kept as data", kind="ignored")
        store.append(_xmldata(el))

    # -- includes --------------------------------------------------------------------
    def resolve(self, scope, el, name: str, what: str) -> str:
        from .. import loading
        res = loading.resolve_reference(name, scope.path, scope.ctx, self.roots)
        if not res:
            raise scope.error(el, f"<{el.tag} {what}=\"{name}\">: file not found (looked for: "
                                  f"{', '.join(dict.fromkeys(res.tried))}); OpenRAVE would skip "
                                  "it silently and leave the element empty. Give the OpenRAVE "
                                  "data directory with --data-path DIR (Python: "
                                  "search_paths=[DIR]) or $OPENRAVE_DATA")
        if res.note:
            scope.warn(el, res.note, kind="guessed")
        return res.path

    def open_file(self, scope, el, path):
        """Child scope and root element of an included XML file (cycle and budget checks)."""
        real = os.path.realpath(path)
        if real in scope.chain:
            chain = " -> ".join(list(scope.chain) + [real])
            raise scope.error(el, f"include cycle: {chain}")
        scope.ctx.check_depth(len(scope.chain) + 1, el.line, what="include nesting")
        scope.ctx.charge("files", 1, el.line, what=f"opening {path}")
        ctx = scope.ctx.child(path)
        data = fileio.read_bytes(path, ctx)
        root = Element(xmlutil.parse_bytes(data, path, ctx, charge_nodes=False, recover=True,
                                           recover_note=_RECOVER_NOTE,
                                           recover_only=xmlutil.LEXICAL_ERRORS))
        return Scope(path, ctx, scope.chain + (real,)), root

    def charge_repeat(self, scope, el, path) -> str:
        """An include of a file this load has already included makes again everything it
        holds: charged to the ``copies`` budget (its element count, known from the first
        time) before it is read, so that a fan-out of one file is refused within the budget
        of copies, not after hundreds of re-reads. Returns the file's real path."""
        real = os.path.realpath(path)
        size = self.included.get(real)
        if size is not None:
            scope.ctx.charge("copies", size, el.line,
                             what=f"elements made again by including {path} once more")
        return real

    def include(self, scope, el, ref, body, kind, atts, depth):
        """``file=`` of a KinBody/Robot element: read ``ref`` into ``body`` (OpenRAVE's
        ``ReadKinBodyURI``/``ReadRobotURI`` with the element's other attributes)."""
        path = self.resolve(scope, el, ref, "file")
        body.files.append(path)
        low = path.lower()
        if low.endswith(COLLADA_EXTENSIONS):
            return self.include_collada(scope, el, path, body, atts, kind)
        if not low.endswith(".xml") and low.endswith(MESH_EXTENSIONS):
            return self.include_mesh(scope, el, ref, path, body)
        real = self.charge_repeat(scope, el, path)
        sub, root = self.open_file(scope, el, path)
        if real not in self.included:
            self.included[real] = sum(1 for _ in root.el.iter())
        # the file's root element is read as a child of a wrapper element carrying the
        # including element's attributes (OpenRAVE creates the reader with them)
        wrapper = Element(el.el)
        wrapper.attrs = list(atts)
        if kind == "kinbody":
            if root.tag != "kinbody":
                raise sub.error(root, f"root element <{root.tag}> included by <{el.tag} file=...> "
                                      f"({scope.path}:{el.line}): OpenRAVE reads only a "
                                      "<KinBody> root there and would ignore the whole file")
            self._kinbody_body(wrapper, body, atts, sub, depth, len(body.links), [root])
        else:
            if root.tag not in ("kinbody", "robot"):
                raise sub.error(root, f"root element <{root.tag}> included by <{el.tag} file=...> "
                                      f"({scope.path}:{el.line}): OpenRAVE reads only a "
                                      "<Robot> or <KinBody> root there")
            self._robot_body(wrapper, body, atts, sub, depth, len(body.links), [root])

    def include_collada(self, scope, el, path, body, atts, kind="robot"):
        try:
            module = importlib.import_module("roboio.formats.openrave.collada")
            append = getattr(module, "append_collada")
        except (ImportError, AttributeError):
            raise scope.error(el, f"<{el.tag} file=\"{os.path.basename(path)}\"> includes the "
                                  f"COLLADA file {path}: COLLADA includes are not supported yet "
                                  "(roboio has no COLLADA robot reader), so this "
                                  f"{el.tag} cannot be read") from None
        ctx = scope.ctx.child(path)
        real = self.charge_repeat(scope, el, path)
        scope.ctx.charge("files", 1, el.line, what=f"opening {path}")
        try:
            append(body, path, ctx, {k: v for k, v in atts}, element=kind)
        except FormatError as e:
            # keep the COLLADA location, say which XML element included the file
            raise FormatError(e.path, e.line, e.column,
                              f"{e.message} (COLLADA file included by {scope.path}:{el.line} "
                              f"<{el.tag} file=\"{el.get('file')}\">)") from None
        if real not in self.included:     # (the COLLADA reader counted its document's elements)
            self.included[real] = ctx.cache.get(("collada-elements", path), 0)

    def include_mesh(self, scope, el, ref, path, body):
        if body.links:
            raise scope.error(el, f"<{el.tag} file=\"{ref}\"> loads a mesh as a new body, which "
                                  f"in OpenRAVE discards the {len(body.links)} links already read")
        link = body.new_link("base", scope.src(el))
        scope.ctx.charge("links", 1, el.line)
        g, found = load_mesh(path, np.ones(3), scope.ctx, scope.path, self.roots, line=el.line)
        rec = GeomRecord(type="trimesh", collision_file=ref, render_file=ref, collision=g,
                         loaded=found, source=scope.src(el))
        link.geoms.append(rec)
        body.name = os.path.splitext(os.path.basename(path))[0]

    # -- environment -----------------------------------------------------------------
    def environment(self, el, env, scope, depth):
        self.check(scope, el, depth)
        ref = el.get("file")
        if ref:
            path = self.resolve(scope, el, ref, "file")
            sub, root = self.open_file(scope, el, path)
            if root.tag == "environment":
                self.environment(root, env, sub, depth + 1)
            elif root.tag in ("kinbody", "robot"):
                self.env_interface(root, env, sub, depth + 1)
            else:
                raise sub.error(root, f"<Environment file=...> loads <{root.tag}>, not a scene")
        cam = env.camera
        if not cam.specified:
            cam.transform = np.eye(4)
            cam.transform[:3, 3] = (0.0, 1.5, 0.8)
            from ._math import axis_angle
            cam.transform[:3, :3] = axis_angle((1, 0, 0), -0.5)
        for c in el.children:
            self.check(scope, c, depth + 1)
            tag = c.tag
            if tag in INTERFACES:
                self.env_interface(c, env, scope, depth + 1)
            elif tag == "environment":
                self.environment(c, env, scope, depth + 1)
            elif tag == "bkgndcolor":
                env.bkgndcolor = tuple(self.nums(scope, c, 3, [1.0, 1.0, 1.0]))
            elif tag in ("camtrans", "camrotationaxis", "camrotaxis", "camrotmat", "camfocal"):
                self.camera(scope, c, cam)
            elif tag == "plugin":
                env.plugins.append(first_token(c.text))
            elif tag == "unit":
                parts = c.text.split()
                value = scan_numbers(" ".join(parts[1:2]), 1)[0]
                env.unit = (parts[0] if parts else "", value[0] if value else None)
            else:
                if tag in ("bkgndcol", "probleminstance"):
                    scope.warn(c, f"<{tag}> is not recognised by OpenRAVE (old name) and is "
                                  "ignored", kind="ignored")
                    env.unknown.append(_xmldata(c))
                else:
                    self.unknown(scope, c, "environment", env.unknown)

    def camera(self, scope, el, cam: CameraRecord):
        cam.specified = True
        n = {"camtrans": 3, "camrotationaxis": 4, "camrotaxis": 4, "camrotmat": 9, "camfocal": 1}
        values = self.nums(scope, el, n[el.tag], [0.0] * n[el.tag] if el.tag != "camtrans"
                           else list(cam.transform[:3, 3]))
        cam.raw.append((el.tag, list(values)))
        apply_camera_tag(cam, el.tag, values)

    def env_interface(self, el, env, scope, depth):
        tag = el.tag
        if tag in ("kinbody", "robot"):
            body = BodyRecord(kind=tag, source=scope.src(el), files=[scope.path])
            if tag == "kinbody":
                jv = self.kinbody(el, body, el.attrs, scope, depth, 0)
            else:
                jv = self.robot(el, body, el.attrs, scope, depth, 0)
            body.jointvalues = jv
            for other in env.bodies:
                if other.name == body.name:
                    raise scope.error(el, f"two bodies named {body.name!r} in one environment "
                                          f"(the other from {other.source}); OpenRAVE refuses "
                                          "the second")
            env.bodies.append(body)
        elif tag == "sensor":
            env.sensors.append(self.sensor(el, SensorRecord(name=el.get("name", "")), scope,
                                           depth, standalone=True))
        else:
            env.interfaces.append(InterfaceRecord(tag, el.get("type", ""), el.get("name", ""),
                                                  el.get("file", ""), _xmldata(el),
                                                  scope.src(el)))

    # -- KinBody ---------------------------------------------------------------------
    def kinbody(self, el, body, atts, scope, depth, roottransoffset):
        """OpenRAVE's KinBody reader over ``el`` (attributes ``atts``). Returns its
        ``<jointvalues>`` (None if absent)."""
        self.check(scope, el, depth)
        for k, v in atts:
            if k == "file":
                self.include(scope, el, v, body, "kinbody",
                             [(a, b) for a, b in atts if a != "file"], depth + 1)
        return self._kinbody_body(el, body, atts, scope, depth, roottransoffset, el.children)

    def _kinbody_body(self, el, body, atts, scope, depth, roottransoffset, children):
        st = _KinBodyState()
        prefix = name = ""
        skip = False
        for k, v in atts:
            if k == "prefix":
                prefix = v
            elif k == "name":
                name = v
            elif k == "makejoinedlinksadjacent":
                st.mjla = _atoi(v) != 0
            elif k == "skipgeometry":
                skip = is_true(v)
            elif k == "scalegeometry":
                if any(float(x) != 1.0 for x in scan_numbers(v)[0] or [1.0]):
                    scope.warn(el, "scalegeometry is not supported by roboio (OpenRAVE does not "
                                   "scale joint anchors either); ignored", kind="unsupported")
            elif k == "type":
                body.interface_type = v
            elif k != "file":
                scope.warn(el, f"unknown kinbody attribute {k!r} ignored", kind="ignored")
        body.make_joined_links_adjacent = getattr(st, "mjla", True)
        rootoffset = len(body.links)
        rootjoint = len(body.joints)
        inherited = [("skipgeometry", "1" if skip else "0")]
        for c in children:
            self.check(scope, c, depth + 1)
            tag = c.tag
            if tag == "kinbody":
                self.kinbody(c, body, c.attrs + inherited, scope, depth + 1, len(body.links))
            elif tag == "body":
                self.link(c, body, st, skip, scope, depth + 1)
            elif tag == "joint":
                self.joint(c, body, scope, depth + 1)
            elif tag == "mass":
                self.kinbody_mass(c, st, scope, depth + 1)
            elif tag in TRANSFORM_TAGS:
                st.trans = self.transform_tag(scope, c, st.trans)
            elif tag == "jointvalues":
                st.jointvalues = self.all_nums(scope, c)
            elif tag == "adjacent":
                self.adjacent(c, body, scope)
            elif tag == "modelsdir":
                st.modelsdir = c.text.strip() + "/"
            elif tag == "transparency":
                st.transparency = self.nums(scope, c, 1, [0.0])[0]
            elif tag in ("diffusecolor", "ambientcolor"):
                self.nums(scope, c, 3, [0.0, 0.0, 0.0])
                scope.warn(c, f"KinBody-level <{tag}> has no effect in OpenRAVE (set colours per "
                              "<Geom>); ignored", kind="ignored")
                body.unknown.append(_xmldata(c))
            else:
                self.unknown(scope, c, "kinbody", body.unknown)
        if name:
            body.name = name
        if prefix:
            for link in body.links[rootoffset:]:
                link.name = prefix + link.name
            for joint in body.joints[rootjoint:]:
                joint.name = prefix + joint.name
        if st.transparency is not None:
            for link in body.links:
                for g in link.geoms:
                    g.transparency = st.transparency
        self.move_links(body, roottransoffset, st.trans)
        return st.jointvalues

    @staticmethod
    def move_links(body, start, T):
        if np.array_equal(T, np.eye(4)):
            return
        for link in body.links[start:]:
            link.transform = compose(T, link.transform)
            link.extras.pop("raw_pose", None)

    def kinbody_mass(self, el, st, scope, depth):
        st.masstype = "sphere"
        for k, v in el.attrs:
            if k == "type":
                low = v.lower()
                if low in ("mimicgeom", "box", "sphere"):
                    st.masstype = low
                break
        box_at_start = st.masstype == "box"
        for c in el.children:
            self.check(scope, c, depth + 1)
            if c.tag == "density":
                st.masstype = {"boxmass": "box", "spheremass": "sphere"}.get(st.masstype,
                                                                            st.masstype)
                st.massvalue = self.nums(scope, c, 1, [st.massvalue])[0]
            elif c.tag == "total":
                st.masstype = {"box": "boxmass", "sphere": "spheremass"}.get(st.masstype,
                                                                            st.masstype)
                st.massvalue = self.nums(scope, c, 1, [st.massvalue])[0]
            elif c.tag == "radius":
                st.massextents[0] = self.nums(scope, c, 1, [st.massextents[0]])[0]
            elif c.tag == "extents" and box_at_start and st.masstype == "box":
                st.massextents = np.array(self.nums(scope, c, 3, list(st.massextents)))
            else:
                scope.warn(c, f"<{c.tag}> in a KinBody-level <mass> is ignored by OpenRAVE", kind="ignored")

    def adjacent(self, el, body, scope):
        parts = el.text.split()
        names = (parts + ["", ""])[:2]
        l0 = body.link(names[0])
        l1 = body.link(names[1])
        if l0 is None or l1 is None:
            missing = names[0] if l0 is None else names[1]
            scope.warn(el, f"<adjacent>: no link named {missing!r} (yet); ignored, as OpenRAVE "
                           "does", kind="invalid value")
            return
        body.forced_adjacent.append((l0.index, l1.index))

    # -- Body (link) -----------------------------------------------------------------
    def link(self, el, body, st, skip, scope, depth, nested_in=None):
        """OpenRAVE's link reader. ``nested_in``: the link a nested ``<body>`` re-reads."""
        name = ""
        static = None
        enabled = True
        link = nested_in
        lfile = ""
        for k, v in el.attrs:
            if k == "name":
                name = v
                existing = body.link(v)
                if existing is not None:
                    link = existing
            elif k == "type":
                static = v.lower() == "static"
            elif k == "file":
                lfile = v
            elif k == "skipgeometry":
                skip = is_true(v)
            elif k == "enable":
                enabled = not is_false(v)
            elif k == "scalegeometry":
                if any(float(x) != 1.0 for x in scan_numbers(v)[0] or [1.0]):
                    scope.warn(el, "scalegeometry is not supported by roboio; ignored", kind="unsupported")
        new = link is None
        if new:
            link = LinkRecord(name=name, index=-1, declared_name=name, source=scope.src(el))
        if lfile:
            path = self.resolve(scope, el, lfile, "file")
            sub, root = self.open_file(scope, el, path)
            if root.tag != "body":
                raise sub.error(root, f"<Body file=...> reads a <Body> element, not <{root.tag}>")
            self.link(root, body, st, skip, sub, depth + 1, nested_in=link)
        if name:
            link.name = name
        if static is not None:
            link.static = static
        link.enabled = enabled

        # the mass type the KinBody element set, else what this element says
        masstype = st.masstype
        density = total = st.massvalue
        extents = np.array(st.massextents, dtype=float)
        custom = None
        offsetfrom = None
        T = np.array(link.transform, dtype=float)
        raw = []
        for c in el.children:
            self.check(scope, c, depth + 1)
            tag = c.tag
            if tag in TRANSFORM_TAGS:
                T = self.transform_tag(scope, c, T, raw)
            elif tag == "offsetfrom":
                ref = first_token(c.text)
                offsetfrom = body.link(ref)
                if offsetfrom is None:
                    scope.warn(c, f"<offsetfrom>: no link named {ref!r} (yet); the pose stays "
                                  "relative to the KinBody, as in OpenRAVE", kind="invalid value")
            elif tag == "mass":
                masstype, density, total, extents, custom = self.link_mass(
                    c, scope, depth + 1, density, total, extents, custom)
            elif tag in ("geom", "geometry"):
                if skip:
                    continue
                rec = self.geom(c, scope, st.modelsdir, depth + 1)
                if rec.group != "self":
                    link.extra_groups.setdefault(rec.group, []).append(rec)
                else:
                    link.geoms.append(rec)
            elif tag == "body":
                # re-read the same link in a temporary frame; its transform is baked into
                # every geometry of the link (OpenRAVE applies it to all of them)
                saved = T
                link.transform = np.eye(4)
                self.link(c, body, st, skip, scope, depth + 1, nested_in=link)
                tnew = link.transform
                for g in link.geoms:
                    g.transform = compose(tnew, g.transform)
                    g.raw_pose = []
                    _move_geometry(g, tnew)
                link.transform = saved
                T = saved
            else:
                self.unknown(scope, c, "body", link.extras.setdefault("unknown", []))
        # OpenRAVE recomputes the mass at every </Body>; only the last one of a link counts
        # and nothing moves a link's geometry after it, so it is computed once, at the end of
        # the document (a file repeating one body n times stays linear, not n^2)
        if id(link) not in self.pending_mass:
            self.pending_links.append(link)
        self.pending_mass[id(link)] = (masstype, density, total, extents, custom, scope.src(el))
        if offsetfrom is not None:
            T = compose(offsetfrom.transform, T)
        link.transform = T
        if new and offsetfrom is None and nested_in is None:
            link.extras["raw_pose"] = raw
        else:
            link.extras.pop("raw_pose", None)
        if nested_in is None and new:
            scope.ctx.charge("links", 1, el.line)
            link.index = len(body.links)
            body.links.append(link)
        return link

    def link_mass(self, el, scope, depth, density, total, extents, custom):
        masstype = "sphere"
        for k, v in el.attrs:
            if k == "type":
                low = v.lower()
                if low in ("mimicgeom", "box", "sphere", "custom"):
                    masstype = low
                break
        custom = dict(custom or {})
        for c in el.children:
            self.check(scope, c, depth + 1)
            tag = c.tag
            if tag == "density":
                masstype = {"boxmass": "box", "spheremass": "sphere",
                            "mimicgeommass": "mimicgeom"}.get(masstype, masstype)
                density = self.nums(scope, c, 1, [density])[0]
            elif tag == "total":
                masstype = {"box": "boxmass", "sphere": "spheremass",
                            "mimicgeom": "mimicgeommass"}.get(masstype, masstype)
                total = self.nums(scope, c, 1, [total])[0]
                custom["total"] = total
            elif tag == "radius":
                extents = np.array(extents)
                extents[0] = self.nums(scope, c, 1, [extents[0]])[0]
            elif tag == "extents" and masstype in ("box", "boxmass"):
                scope.warn(c, "<extents> of a Body-level <mass type=\"box\"> is ignored by "
                              "OpenRAVE's reader (half extents 1 1 1 are used)", kind="quirk")
            elif tag == "com" and masstype == "custom":
                custom["com"] = self.nums(scope, c, 3, [0.0] * 3)
            elif tag == "inertia" and masstype == "custom":
                custom["inertia"] = self.nums(scope, c, 9, [0.0] * 9)
            elif tag in ("com", "inertia", "extents"):
                scope.warn(c, f"<{tag}> is read only for <mass type=\"custom\">; ignored, as in "
                              "OpenRAVE", kind="ignored")
            else:
                scope.warn(c, f"<{tag}> in <mass> is ignored by OpenRAVE", kind="ignored")
        return masstype, density, total, extents, custom

    def compute_mass(self, link, masstype, density, total, extents, custom, src):
        """OpenRAVE's mass at ``</Body>`` (``openrave.md`` §9)."""
        if masstype in ("mimicgeom", "mimicgeommass"):
            rho = density if masstype == "mimicgeom" else GEOM_DENSITY_TOTAL
            pieces = []
            for g in link.geoms:
                if not g.loaded:
                    continue
                m = _geom_mass(g, rho)
                pieces.append(m.transformed(_internal_transform(g)))
            if masstype == "mimicgeommass":
                dummy = sum(p.mass for p in pieces)
                with np.errstate(invalid="ignore", divide="ignore"):
                    ratio = np.float64(total) / np.float64(dummy)
                pieces = [p.scaled(ratio) for p in pieces]
            m = Mass()
            for p in pieces:
                m = _add_nan(m, p)
            kind = "mimicgeom"
        elif masstype == "box":
            m, kind = box_density(np.ones(3), density), "box"
        elif masstype == "boxmass":
            m, kind = box(np.ones(3), total), "box"
        elif masstype == "sphere":
            m, kind = sphere_density(extents[0], density), "sphere"
        elif masstype == "custom":
            c = custom or {}
            I = np.array(c.get("inertia", [0.4, 0, 0, 0, 0.4, 0, 0, 0, 0.4]), dtype=float)
            m = Mass(c.get("total", 1.0), c.get("com", [0.0] * 3), I.reshape(3, 3))
            kind = "custom"
        else:       # no <mass> (or a total only): a sphere of radius extents[0]
            m, kind = sphere(extents[0], total), ("default" if masstype is None else "sphere")
        return MassRecord(float(m.mass), m.com, m.inertia, kind, src)

    # -- Geom ------------------------------------------------------------------------
    def geom(self, el, scope, modelsdir, depth) -> GeomRecord:
        rec = GeomRecord(source=scope.src(el))
        gtype = ""
        for k, v in el.attrs:
            if k == "type":
                gtype = v
            elif k == "render":
                rec.visible = not (v.lower() == "false" or v == "0")
            elif k == "modifiable":
                rec.modifiable = not is_false(v)
            elif k == "group" and v:
                rec.group = v
            elif k == "name" and v:
                rec.name = v
        low = gtype.lower() if gtype else "box"
        if low not in ("none", "box", "sphere", "cylinder", "trimesh", "container", "cage",
                       "prism", "capsule"):
            scope.warn(el, f"geometry type {gtype!r} is not supported by OpenRAVE (the geometry "
                           "has no shape)", kind="ignored")
            low = "none"
        rec.type = low
        T = np.eye(4)
        for c in el.children:
            self.check(scope, c, depth + 1)
            tag = c.tag
            if tag in TRANSFORM_TAGS:
                T = self.transform_tag(scope, c, T, rec.raw_pose)
            elif tag == "render":
                f, s = c.get("file"), c.get("scale")
                if f is not None:
                    rec.render_file = f
                if s is not None:
                    rec.render_scale = _scale(s)
                if not rec.render_file and f is None:
                    rec.render_file, rec.render_scale = self.mesh_ref(scope, c)
            elif tag == "collision" and low == "trimesh":
                f, s = c.get("file"), c.get("scale")
                if f is not None:
                    rec.collision_file = f
                if s is not None:
                    rec.collision_scale = _scale(s)
                if not rec.collision_file and f is None:
                    rec.collision_file, rec.collision_scale = self.mesh_ref(scope, c)
            elif tag == "data" and low == "trimesh":
                if not rec.collision_file:
                    rec.collision_file, rec.collision_scale = self.mesh_ref(scope, c)
            elif tag == "vertices" and low == "trimesh":
                values = self.all_nums(scope, c)
                if len(values) % 9:
                    scope.warn(c, f"<vertices> holds {len(values)} numbers, not a multiple of 9; "
                                  "ignored, as in OpenRAVE", kind="invalid value")
                else:
                    scope.ctx.check_claim("vertices", len(values) // 3, c.line)
                    rec.vertices = np.array(values).reshape(-1, 3)
            elif tag == "diffusecolor":
                rec.diffuse = tuple(self.nums(scope, c, 3, [1.0, 1.0, 1.0]))
            elif tag == "ambientcolor":
                rec.ambient = tuple(self.nums(scope, c, 3, [0.0, 0.0, 0.0]))
            elif tag == "transparency":
                rec.transparency = self.nums(scope, c, 1, [0.0])[0]
            elif tag == "name":
                rec.name = first_token(c.text)
            elif tag in ("extents", "halfextents") and low == "box":
                rec.extents = np.array(self.nums(scope, c, 3, list(rec.extents)))
            elif tag == "fullextents" and low == "box":
                rec.extents = 0.5 * np.array(self.nums(scope, c, 3, list(2 * rec.extents)))
            elif tag == "radius" and low in ("sphere", "cylinder", "capsule"):
                rec.radius = self.nums(scope, c, 1, [rec.radius])[0]
            elif tag == "height" and low in ("cylinder", "capsule", "prism"):
                rec.height = self.nums(scope, c, 1, [rec.height])[0]
            elif tag == "crosssection" and low == "prism":
                values = self.all_nums(scope, c)
                rec.params["crosssection"] = values
            elif low in ("container", "cage") and tag in (
                    "outer_extents", "inner_extents", "bottom_cross", "bottom", "sidewall",
                    "transf", "vextents", "type"):
                rec.params.setdefault(tag, []).append(c.text.strip())
            elif tag in ("extents", "halfextents", "fullextents", "radius", "height", "data",
                         "collision", "vertices", "crosssection"):
                scope.warn(c, f"<{tag}> does not apply to a {low} geometry; ignored, as in "
                              "OpenRAVE", kind="ignored")
            else:
                self.unknown(scope, c, "geom", rec.params.setdefault("unknown", []))
        rec.transform = T
        if low == "prism":
            pts = rec.params.get("crosssection", [])
            if len(pts) >= 2 and len(pts) % 2 == 0:
                v = []
                for i in range(0, len(pts), 2):
                    for z in (-0.5 * rec.height, 0.5 * rec.height):
                        v.append((pts[i], pts[i + 1], z))
                rec.vertices = np.array(v)
        if low in ("container", "cage"):
            scope.warn(el, f"{low} geometry is kept as data; roboio has no shape for it", kind="unsupported")
        self.load_geom_meshes(rec, scope, modelsdir, el)
        return rec

    def mesh_ref(self, scope, el):
        """``file [s | sx sy sz]`` text of <data>/<collision>/<render>."""
        parts = el.text.split()
        if not parts:
            return "", np.ones(3)
        values, stop = scan_numbers(" ".join(parts[1:]), 3)
        if stop and len(values) < 3 and len(values) not in (1,):
            scope.warn(el, f"<{el.tag}>: {stop!r} after the file name is not a scale; ignored", kind="ignored")
        scale = np.ones(3)
        if values:
            scale[:] = values[0]
            scale[1:1 + len(values[1:])] = values[1:]
        return parts[0], scale

    def load_geom_meshes(self, rec: GeomRecord, scope, modelsdir, el):
        """Load the collision/render meshes of ``rec`` as OpenRAVE does at ``</geom>``."""
        if rec.type == "trimesh":
            coll = None
            from_data = False
            if rec.collision_file:
                coll, found = load_mesh(rec.collision_file, rec.collision_scale, scope.ctx,
                                        scope.path, self.roots, modelsdir, el.line)
                from_data = found
                if not found and rec.render_file and rec.render_file != rec.collision_file:
                    coll = None
            if coll is None and rec.render_file:
                coll, found = load_mesh(rec.render_file, rec.render_scale, scope.ctx, scope.path,
                                        self.roots, modelsdir, el.line)
            if coll is None and rec.vertices is not None:
                from ...model import TriangleMesh
                v = np.asarray(rec.vertices, dtype=float)
                coll = TriangleMesh(v, np.arange(len(v)).reshape(-1, 3))
                found = True
            if coll is None:
                scope.warn(el, "trimesh geometry without <data>, <render> or <vertices>; "
                               "OpenRAVE keeps an empty mesh", kind="empty")
                from ...model import TriangleMesh
                coll, found = TriangleMesh(), True
            coll.apply_transform(rec.transform)
            rec.collision = coll
            rec.loaded = found
            render_differs = rec.render_file and (
                rec.render_file != rec.collision_file
                or not np.array_equal(rec.render_scale, rec.collision_scale))
            if render_differs and from_data:
                r, _ = load_mesh(rec.render_file, rec.render_scale, scope.ctx, scope.path,
                                 self.roots, modelsdir, el.line)
                r.apply_transform(rec.transform)
                rec.render = r
        elif rec.render_file:
            r, _ = load_mesh(rec.render_file, rec.render_scale, scope.ctx, scope.path,
                             self.roots, modelsdir, el.line)
            r.apply_transform(_internal_transform(rec) if rec.type == "cylinder"
                              else rec.transform)
            rec.render = r

    # -- Joint -----------------------------------------------------------------------
    def joint(self, el, body, scope, depth):
        """OpenRAVE's joint reader; the joint is frozen and appended at its end."""
        src = scope.src(el)
        jtype = "hinge"
        name = ""
        active = True
        circular = [False]
        mimic = None
        for k, v in el.attrs:
            if k == "name":
                name = v
            elif k == "type":
                low = v.lower()
                if low in JOINT_DOFS:
                    jtype = low
                else:
                    raise scope.error(el, f"unknown joint type {v!r} (OpenRAVE knows hinge, "
                                          "slider, universal, hinge2, spherical; it would read "
                                          "this one as a hinge)")
            elif k == "enable":
                active = not is_false(v)
            elif k == "mimic":
                scope.warn(el, "the mimic attribute is deprecated; read as "
                               "mimic_pos=\"J*a+b\"", kind="deprecated")
                parts = v.split()
                jname = parts[0] if parts else ""
                ab = scan_numbers(" ".join(parts[1:]), 2)[0]
                a = ab[0] if len(ab) > 0 else 1.0
                b = ab[1] if len(ab) > 1 else 0.0
                if len(ab) < 2:
                    scope.warn(el, f"mimic=\"{v}\": expected 'joint a b'", kind="invalid value")
                mimic = mimic or MimicRecord(source=src)
                mimic.pos = "%s*%f+%f" % (jname, a, b)
                mimic.vel = "|%s %f" % (jname, a)
                mimic.accel = "|%s %f" % (jname, a)
            elif k.startswith("mimic_pos"):
                mimic = mimic or MimicRecord(source=src)
                mimic.pos = v
            elif k.startswith("mimic_vel"):
                mimic = mimic or MimicRecord(source=src)
                mimic.vel = v
            elif k.startswith("mimic_accel"):
                mimic = mimic or MimicRecord(source=src)
                mimic.accel = v
            elif k == "circular":
                flag = not is_false(v)
                circular = [flag] * JOINT_DOFS[jtype]
            elif k == "scalegeometry":
                pass
        ndof = JOINT_DOFS[jtype]
        circular = (circular + [False] * ndof)[:ndof]
        if jtype == "slider":
            lower, upper = [-10.0] * ndof, [10.0] * ndof
        elif jtype == "spherical":
            lower, upper = [-100.0] * ndof, [100.0] * ndof
        else:
            lower, upper = [-math.pi] * ndof, [math.pi] * ndof
        axes = [np.zeros(3) for _ in range(ndof)]
        if jtype == "spherical":
            axes = [np.eye(3)[i].copy() for i in range(3)]
        anchor = np.zeros(3)
        ratio = 1.0 if jtype == "slider" else DEG
        j = JointRecord(name=name, type=jtype, link0=-1, link1=-1, declared_name=name,
                        active=active, source=src)
        j.maxvel = [10.0] * ndof
        j.hardmaxvel = [0.0] * ndof
        j.maxaccel = [50.0] * ndof
        j.maxtorque = [0.0] * ndof
        j.maxinertia = [0.0] * ndof
        j.weight = [1.0] * ndof
        j.resolution = [0.02] * ndof
        j.offsets = [0.0] * ndof
        attached = [None, None]
        offsetfrom = None
        negate = False
        limits_given = False
        for c in el.children:
            self.check(scope, c, depth + 1)
            tag = c.tag
            if tag == "body":
                index = 0 if attached[0] is None else 1
                ref = first_token(c.text)
                found = body.link_ci(ref)
                if found is None:
                    raise scope.error(c, f"joint {name!r}: no link named {ref!r} (links must be "
                                         "declared before the joint that uses them)")
                attached[index] = found
            elif tag == "offsetfrom":
                ref = first_token(c.text)
                offsetfrom = body.link(ref)
                if offsetfrom is None:
                    scope.warn(c, f"<offsetfrom>: no link named {ref!r}; the joint is given in "
                                  "KinBody coordinates, as OpenRAVE does", kind="invalid value")
            elif tag in ("limits", "limitsrad", "limitsdeg"):
                if negate:
                    raise scope.error(c, "cannot combine <limits> with <lostop>/<histop> "
                                         "(OpenRAVE refuses it)")
                values = self.all_nums(scope, c)
                mult = ratio if tag == "limitsdeg" else 1.0
                if len(values) == 2 * ndof:
                    for i in range(ndof):
                        lower[i] = mult * min(values[2 * i], values[2 * i + 1])
                        upper[i] = mult * max(values[2 * i], values[2 * i + 1])
                    limits_given = True
                else:
                    scope.warn(c, f"<{tag}> has {len(values)} values, expected {2 * ndof}; "
                                  "ignored, as in OpenRAVE", kind="invalid value")
            elif tag in ("lostop", "histop"):
                if limits_given:
                    raise scope.error(c, "cannot combine <lostop>/<histop> with <limits> "
                                         "(OpenRAVE refuses it)")
                negate = True
                scope.warn(c, f"<{tag}> is deprecated (degrees, and it negates the joint axes)", kind="deprecated")
                target = lower if tag == "lostop" else upper
                values = self.nums(scope, c, ndof, [v / ratio for v in target])
                target[:] = [v * ratio for v in values]
            elif tag in ("weight", "maxvel", "hardmaxvel", "maxaccel", "maxtorque",
                         "maxinertia"):
                field_ = getattr(j, tag)
                field_[:] = self.nums(scope, c, ndof, field_)
            elif tag in ("maxveldeg", "maxacceldeg"):
                field_ = j.maxvel if tag == "maxveldeg" else j.maxaccel
                values = self.nums(scope, c, ndof, [v / DEG for v in field_])
                field_[:] = [v * DEG for v in values]
            elif tag == "resolution":
                res = self.nums(scope, c, 1, [0.02])[0] * ratio
                j.resolution = [res] * ndof
            elif tag == "initial":
                j.initial = self.all_nums(scope, c)
            elif tag == "anchor":
                if jtype != "slider":
                    anchor = np.array(self.nums(scope, c, 3, [0.0] * 3))
                    j.extras["raw_anchor"] = list(anchor)
            elif tag == "axis" and jtype in ("hinge", "slider"):
                raw = self.nums(scope, c, 3, [0.0] * 3)
                axes[0] = normalize3(raw)
                j.extras["raw_axes"] = [list(raw)]
            elif tag in ("axis1", "axis2") and jtype in ("universal", "hinge2"):
                v = np.array(self.nums(scope, c, 3, [0.0] * 3))
                if tag == "axis1":
                    axes[0] = normalize3(v)
                else:
                    axes[1] = v          # OpenRAVE normalises axis1 again, not axis2
                    axes[0] = normalize3(axes[0]) if np.any(axes[0]) else axes[0]
            elif tag in ("axis", "axis1", "axis2"):
                scope.warn(c, f"<{tag}> does not apply to a {jtype} joint; ignored, as in "
                              "OpenRAVE", kind="ignored")
            elif tag == "actuator":
                j.extras["actuator"] = _xmldata(c)
            elif tag in ("mode", "axis3", "maxforce"):
                j.extras.setdefault("ignored", []).append(_xmldata(c))
            else:
                self.unknown(scope, c, "joint", j.extras.setdefault("unknown", []))
        if not body.links:
            raise scope.error(el, f"joint {name!r} before any link")
        if attached[0] is None or attached[1] is None:
            raise scope.error(el, f"joint {name!r} needs two <body> links")
        for i, a in enumerate(axes):
            if not np.all(np.isfinite(a)):
                raise scope.error(el, f"joint {name!r}: axis {i} is zero (OpenRAVE normalises it "
                                      "to NaN)")
        if negate:
            axes = [-a for a in axes]
        if jtype in ("hinge", "universal", "hinge2"):
            for i in range(ndof):
                if lower[i] < -math.pi or upper[i] > math.pi:
                    j.offsets[i] = 0.5 * (lower[i] + upper[i])
        T0 = attached[0].transform
        T1 = attached[1].transform
        F = offsetfrom.transform if offsetfrom is not None else np.eye(4)
        if offsetfrom is not None:
            j.extras.pop("raw_anchor", None)
            j.extras.pop("raw_axes", None)
        toff = compose(inv(T0), F)
        j.axes = [matrix_vector(toff[:3, :3], a) for a in axes]
        j.anchor = matrix_vector(toff[:3, :3], anchor) + toff[:3, 3]
        j.trel = compose(inv(T0), T1)
        j.link0, j.link1 = attached[0].index, attached[1].index
        if attached[0].index < 0 or attached[1].index < 0:
            raise scope.error(el, f"joint {name!r} names a link that is still being read")
        j.lower, j.upper, j.circular = lower, upper, circular
        j.mimic = [mimic] + [None] * (ndof - 1)
        if mimic is not None and not mimic.pos:
            # only velocity/acceleration equations: OpenRAVE still makes it passive
            j.extras["mimic_without_pos"] = True
        j.order = len(body.joints)
        body.joints.append(j)

    # -- Robot -----------------------------------------------------------------------
    def robot(self, el, body, atts, scope, depth, roottransoffset):
        self.check(scope, el, depth)
        for k, v in atts:
            if k == "file":
                self.include(scope, el, v, body, "robot",
                             [(a, b) for a, b in atts if a != "file"], depth + 1)
        return self._robot_body(el, body, atts, scope, depth, roottransoffset, el.children)

    def _robot_body(self, el, body, atts, scope, depth, roottransoffset, children):
        body.kind = "robot"
        name = prefix = ""
        skip = False
        for k, v in atts:
            if k == "name":
                name = v
            elif k == "prefix":
                prefix = v
            elif k == "skipgeometry":
                skip = is_true(v)
            elif k == "type":
                body.interface_type = v
            elif k == "scalegeometry":
                if any(float(x) != 1.0 for x in scan_numbers(v)[0] or [1.0]):
                    scope.warn(el, "scalegeometry is not supported by roboio; ignored", kind="unsupported")
        rootoffset = len(body.links)
        rootjoint = len(body.joints)
        initial_manips = {id(m) for m in body.manipulators}
        initial_sensors = {id(s) for s in body.sensors}
        trans = np.eye(4)
        jointvalues = None
        inherited = [("skipgeometry", "1" if skip else "0")]
        for c in children:
            self.check(scope, c, depth + 1)
            tag = c.tag
            if tag == "robot":
                self.robot(c, body, c.attrs + inherited, scope, depth + 1, len(body.links))
            elif tag == "kinbody":
                jv = self.kinbody(c, body, c.attrs + inherited, scope, depth + 1,
                                  len(body.links))
                if jointvalues is None:
                    jointvalues = jv
            elif tag == "manipulator":
                body.manipulators.append(self.manipulator(c, body, scope, depth + 1))
            elif tag == "attachedsensor":
                self.attached_sensor(c, body, scope, depth + 1)
            elif tag == "controller":
                body.controllers.append(_xmldata(c))
            elif tag in TRANSFORM_TAGS:
                trans = self.transform_tag(scope, c, trans)
            elif tag == "jointvalues":
                jointvalues = self.all_nums(scope, c)
            else:
                self.unknown(scope, c, "robot", body.extras.setdefault("robot_unknown", []))
        if name:
            body.name = name
        if initial_manips:
            new = [m for m in body.manipulators if id(m) not in initial_manips]
            old = [m for m in body.manipulators if id(m) in initial_manips]
            body.manipulators[:] = new[::-1] + old
        if initial_sensors:
            new = [s for s in body.sensors if id(s) not in initial_sensors]
            old = [s for s in body.sensors if id(s) in initial_sensors]
            body.sensors[:] = new[::-1] + old
        if prefix:
            for link in body.links[rootoffset:]:
                link.name = prefix + link.name
            renamed = body.joints[rootjoint:]
            active = [jj for jj in renamed if jj.active]
            passive = [jj for jj in renamed if not jj.active]
            pairs = [(jj.name, prefix + jj.name) for jj in active + passive]
            for jj in renamed:
                jj.name = prefix + jj.name
            from ._mimic import search_and_replace
            for jj in renamed:
                for m in jj.mimic:
                    if m is not None:
                        m.pos = search_and_replace(m.pos, pairs)
                        m.vel = search_and_replace(m.vel, pairs)
                        m.accel = search_and_replace(m.accel, pairs)
            for s in body.sensors:
                if id(s) not in initial_sensors:
                    s.name = prefix + s.name
            for m in body.manipulators:
                if id(m) not in initial_manips:
                    m.name = prefix + m.name
                    m.base = prefix + m.base
                    m.effector = prefix + m.effector
                    m.ik_chain_end = prefix + m.ik_chain_end
                    m.gripper_joints = [prefix + g for g in m.gripper_joints]
        self.move_links(body, roottransoffset, trans)
        return jointvalues

    def manipulator(self, el, body, scope, depth) -> ManipulatorRecord:
        m = ManipulatorRecord(name=el.get("name", ""), source=scope.src(el))
        for c in el.children:
            self.check(scope, c, depth + 1)
            tag = c.tag
            if tag in ("effector", "base"):
                ref = first_token(c.text)
                if body.link(ref) is None:
                    scope.warn(c, f"manipulator {m.name!r}: no link named {ref!r}", kind="invalid value")
                if tag == "effector":
                    m.effector = ref
                else:
                    m.base = ref
            elif tag in ("joints", "gripperjoints"):
                m.gripper_joints = c.text.split()
            elif tag == "armjoints":
                scope.warn(c, "<armjoints> is not used by OpenRAVE (arm joints are the joints "
                              "between base and effector); ignored", kind="ignored")
                m.extras["armjoints"] = c.text.split()
            elif tag in ("direction", "palmdirection"):
                if tag == "palmdirection":
                    scope.warn(c, "<palmdirection> is deprecated; read as <direction>", kind="deprecated")
                d = np.array(self.nums(scope, c, 3, list(m.direction)))
                n = vector_dot(d, d)
                if n == 0:
                    scope.warn(c, "manipulator direction is zero; (0, 0, 1) used, as in OpenRAVE", kind="invalid value")
                    d = np.array([0.0, 0.0, 1.0])
                else:
                    d = d / math.sqrt(n)
                m.direction = d
            elif tag == "iksolver":
                m.ik_solver = c.text.strip()
            elif tag in ("closingdirection", "closingdir", "chuckingdirection"):
                m.closing_direction = [int(np.sign(v)) for v in self.all_nums(scope, c)]
            elif tag in TRANSFORM_TAGS:
                m.tool = self.transform_tag(scope, c, m.tool, m.extras.setdefault("raw_tool", []))
            elif tag == "ikchainend":
                scope.warn(c, "<ikchainend> is ignored by OpenRAVE's XML reader; kept as data", kind="ignored")
                m.ik_chain_end = first_token(c.text)
                m.extras["ikchainend_ignored"] = True
            else:
                self.unknown(scope, c, "manipulator", m.extras.setdefault("unknown", []))
        return m

    def attached_sensor(self, el, body, scope, depth):
        name = el.get("name", "")
        sensor = None
        if name:
            for s in body.sensors:
                if s.name == name:
                    sensor = s
                    break
        if sensor is None:
            sensor = SensorRecord(name=name, source=scope.src(el))
            body.sensors.append(sensor)
        sensor.name = name
        for c in el.children:
            self.check(scope, c, depth + 1)
            tag = c.tag
            if tag == "link":
                ref = first_token(c.text)
                sensor.link = ref
                found = body.link(ref)
                sensor.attrib["link_index"] = found.index if found is not None else None
                if found is None:
                    scope.warn(c, f"attached sensor {name!r}: no link named {ref!r}", kind="invalid value")
            elif tag in TRANSFORM_TAGS:
                sensor.transform = self.transform_tag(scope, c, sensor.transform,
                                                      sensor.attrib.setdefault("raw_pose", []))
            elif tag == "sensor":
                self.sensor(c, sensor, scope, depth + 1, standalone=False)
            else:
                self.unknown(scope, c, "attachedsensor", sensor.params)

    def sensor(self, el, sensor: SensorRecord, scope, depth, standalone: bool) -> SensorRecord:
        """A ``<sensor>`` interface: type, file and parameters (kept as data); for a
        stand-alone sensor also its pose."""
        ref = el.get("file")
        if ref:
            path = self.resolve(scope, el, ref, "file")
            sub, root = self.open_file(scope, el, path)
            if root.tag != "sensor":
                raise sub.error(root, f"<sensor file=...> reads a <sensor>, not <{root.tag}>")
            sensor.file = ref
            self.sensor(root, sensor, sub, depth + 1, standalone)
        if el.get("type"):
            sensor.type = el.get("type")
        if el.get("args") is not None:
            scope.warn(el, "sensor args has been deprecated", kind="deprecated")
        if standalone and el.get("name"):
            sensor.name = el.get("name")
        for c in el.children:
            self.check(scope, c, depth + 1)
            if standalone and c.tag in TRANSFORM_TAGS:
                sensor.transform = self.transform_tag(scope, c, sensor.transform)
            else:
                sensor.params.append(_xmldata(c))
        return sensor


def apply_camera_tag(cam: CameraRecord, tag: str, values) -> None:
    """One camera tag of an ``<Environment>`` (``openrave.md`` §5)."""
    from ._math import axis_angle, rows_to_rotation
    T = cam.transform
    if tag == "camtrans":
        T[:3, 3] = values
    elif tag == "camrotationaxis":
        T[:3, :3] = axis_angle(values[:3], values[3] * DEG)
    elif tag == "camrotaxis":      # deprecated: a 180 degree turn about X after it (old bug)
        T[:3, :3] = compose(axis_angle(values[:3], values[3] * DEG), axis_angle((1, 0, 0), math.pi))
    elif tag == "camrotmat":
        T[:3, :3] = rows_to_rotation(values)
    else:
        cam.focal = values[0]


def _scale(text: str) -> np.ndarray:
    values = scan_numbers(text, 3)[0]
    s = np.ones(3)
    if values:
        s[:] = values[0]
        s[1:1 + len(values[1:])] = values[1:]
    return s


def _internal_transform(g: GeomRecord) -> np.ndarray:
    """The geometry frame OpenRAVE stores: a cylinder gets ``Rx(90°)`` so that its axis is Z."""
    if g.type != "cylinder":
        return g.transform
    from ._math import axis_angle
    T = np.array(g.transform)
    T[:3, :3] = compose(T[:3, :3], axis_angle((1, 0, 0), math.pi / 2))
    return T


def _geom_mass(g: GeomRecord, density: float) -> Mass:
    if g.type == "sphere":
        return sphere_density(g.radius, density)
    if g.type == "box":
        return box_density(g.extents, density)
    if g.type == "cylinder":
        return cylinder_density(g.radius, g.height, density)
    if g.type in ("container", "cage"):
        outer = g.params.get("outer_extents")
        if outer:
            e = 0.5 * np.array((scan_numbers(outer[-1], 3)[0] + [0, 0, 0])[:3])
            return box_density(e, density)
    return Mass()


def _add_nan(a: Mass, b: Mass) -> Mass:
    """``a + b`` with OpenRAVE's NaN behaviour (a NaN total does not compare equal to 0)."""
    total = a.mass + b.mass
    if total == 0:
        return Mass()
    with np.errstate(invalid="ignore", divide="ignore"):
        return a + b if np.isfinite(total) else Mass(total, np.full(3, np.nan),
                                                     np.full((3, 3), np.nan))


def _move_geometry(g: GeomRecord, T):
    for attr in ("collision", "render"):
        geom = getattr(g, attr)
        if geom is not None:
            geom.apply_transform(T)
