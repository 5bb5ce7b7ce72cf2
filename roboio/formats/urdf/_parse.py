"""URDF XML -> records (:mod:`._records`), with the checks of ROS ``urdfdom`` (the parser
Klamp't embeds).

Only the standard URDF elements are read here (``<link>``, ``<joint>``, top-level
``<material>``); the ``<klampt>`` extension is read by :mod:`._klampt_ext`. Everything
urdfdom rejects is a :class:`FormatError` with the element's line: a missing name, an
unknown joint type, a revolute or prismatic joint without ``<limit>``, a ``<limit>``
without ``effort`` or ``velocity``, numbers that are not numbers (``inf``/``nan``
included: urdfdom rejects them), duplicate link/joint/material names.
"""
from __future__ import annotations

import math
import re
from typing import Optional

import numpy as np

from ...errors import FormatError
from ...context import LoadContext
from ...transforms import rpy_xyz_transform
from ..xmlutil import children, local_name, where
from ._records import JOINT_TYPES, GeomRec, InertialRec, JointRec, LinkRec, UrdfModel, VisualRec

__all__ = ["parse_model"]

# Elements urdfdom ignores without comment (ROS tooling puts them in URDF files).
_IGNORED_TOP = {"transmission", "gazebo", "ros2_control", "klampt", "sensor", "roboio"}
_IGNORED_JOINT = {"safety_controller", "calibration"}
_JOINT_CHILDREN = {"origin", "parent", "child", "axis", "limit", "dynamics", "mimic"} | _IGNORED_JOINT
_LINK_CHILDREN = {"inertial", "visual", "collision"}

_ZERO3 = (0.0, 0.0, 0.0)


def _read_only(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


# The arrays of the records are read-only: Link shares read-only float64 arrays instead of
# copying them (roboio.model.robot._frozen), and equal origins and axes are one array.
_EYE4 = _read_only(np.eye(4))
_X_AXIS = _read_only(np.array([1.0, 0.0, 0.0]))       # urdfdom's default <axis>
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")
# (the same numbers as _NUMBER, written so that a failing match cannot backtrack through the
# ways of splitting a run of digits)
_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
# a whole attribute of such numbers separated by ASCII blanks: checked in one match
_NUMBERS = re.compile(rf"[ \t\n\r]*(?:{_NUM}(?:[ \t\n\r]+{_NUM})*[ \t\n\r]*)?")
# characters outside numbers and blanks: where there are none, float() reads the tokens as
# _NUMBER does (no inf/nan, underscores, non-ASCII digits or blanks), which is the fast path
_NOT_NUMERIC = re.compile(r"[^0-9eE+\-. \t\n\r]")


def _kids(el) -> list:
    """``[(local name, child element)]`` of ``el`` in document order (entity references
    skipped; the parser drops comments and processing instructions): the tag is read once
    per child, no per-child function calls."""
    out = []
    for c in el:
        t = c.tag
        if t.__class__ is str:
            if t[0] == "{":
                t = t[t.index("}") + 1:]
            out.append((t, c))
    return out


def _grouped(el):
    """``(children as _kids gives them, {local name: children of that name})``: one pass
    instead of one per looked-up name."""
    kids = _kids(el)
    by: dict = {}
    for t, c in kids:
        lst = by.get(t)
        if lst is None:
            by[t] = [c]
        else:
            lst.append(c)
    return kids, by


class _UnnamedMaterial(Exception):
    """A visual's ``<material>`` without a name (see :meth:`_Reader.link`)."""


class _Reader:
    def __init__(self, path: str, ctx: LoadContext):
        self.path = path
        self.ctx = ctx
        # attribute text -> what numbers() / number() read from it (texts read well only;
        # a robot repeats "0", "0 0 0", "1" ... in every link; bounded by the file's size)
        self.seen_numbers: dict = {}
        self.seen_number: dict = {}
        # (xyz text, rpy text) -> origin, xyz text -> axis: read-only arrays shared by the
        # records that repeat them
        self.origins: dict = {}
        self.axes: dict = {}

    def error(self, el, msg) -> FormatError:
        return FormatError(self.path, where(el), None, msg)

    # -- numbers ------------------------------------------------------------------------
    def numbers(self, el, name: str, count: Optional[int] = None, required: bool = False,
                default=None):
        """The numbers of attribute ``name`` (urdfdom's strict reading)."""
        text = el.get(name)
        if text is None:
            if required:
                raise self.error(el, f"<{local_name(el)}> needs the '{name}' attribute")
            return default
        vals = self.seen_numbers.get(text)
        if vals is not None and (count is None or len(vals) == count):
            return vals
        if _NOT_NUMERIC.search(text) is None:
            try:        # with these characters only, float() accepts exactly _NUMBER's tokens
                vals = tuple([float(t) for t in text.split()])
            except ValueError:
                vals = None
            if vals is not None and (count is None or len(vals) == count):
                total = sum(vals)         # inf or nan when a value is (or the sum overflows:
                if total - total == 0.0:  # then the exact check below decides)
                    self.seen_numbers[text] = vals
                    return vals
        toks = text.split()
        bad = () if _NUMBERS.fullmatch(text) else [t for t in toks if not _NUMBER.match(t)]
        if bad:
            raise self.error(el, f"<{local_name(el)} {name}=\"{text}\">: {bad[0]!r} is not a "
                                 f"number (URDF readers accept finite decimal numbers only)")
        vals = [float(t) for t in toks]
        if not _finite(vals):
            bad = next(t for t, v in zip(toks, vals) if not math.isfinite(v))
            raise self.error(el, f"<{local_name(el)} {name}=\"{text}\">: {bad!r} is beyond the range "
                                 f"of a double (urdfdom refuses it)")
        if count is not None and len(vals) != count:
            raise self.error(el, f"<{local_name(el)} {name}=\"{text}\">: expected {count} "
                                 f"number{'s' if count > 1 else ''}, got {len(vals)}")
        return tuple(vals)

    def number(self, el, name: str, required: bool = False, default=None):
        text = el.get(name)
        v = self.seen_number.get(text)
        if v is not None:
            return v
        if text is not None and _NOT_NUMERIC.search(text) is None:
            try:        # (one token: as numbers() reads it; several raise ValueError)
                v = float(text)
            except ValueError:
                pass
            else:
                if v - v == 0.0:
                    self.seen_number[text] = v
                    return v
        vals = self.numbers(el, name, 1, required)
        return default if vals is None else vals[0]

    def name_of(self, el, what: str) -> str:
        name = el.get("name")
        if name is None:
            raise self.error(el, f"<{what}> without a 'name' attribute")
        return name

    # -- pieces -------------------------------------------------------------------------
    def origin(self, parent, els=None) -> np.ndarray:
        """``<origin xyz rpy>`` of ``parent`` (first one; none -> identity); ``els``: its
        ``<origin>`` children when already known."""
        if els is None:
            els = children(parent, "origin")
        if not els:
            return _EYE4
        el = els[0]
        key = (el.get("xyz"), el.get("rpy"))
        T = self.origins.get(key)
        if T is None:
            xyz = self.numbers(el, "xyz", 3, default=_ZERO3)
            rpy = self.numbers(el, "rpy", 3, default=_ZERO3)
            T = rpy_xyz_transform(rpy, xyz)      # Python floats: no numpy call per step
            T.setflags(write=False)
            self.origins[key] = T
        return T

    def geometry(self, parent, by=None) -> GeomRec:
        """The ``<geometry>`` of ``parent`` (``by``: its children grouped by name, when
        already known)."""
        if by is None:
            by = _grouped(parent)[1]
        els = by.get("geometry")
        if not els:
            raise self.error(parent, f"<{local_name(parent)}> without <geometry>")
        g = els[0]
        shapes = _kids(g)
        if not shapes:
            raise self.error(g, "<geometry> contains no shape element")
        kind, s = shapes[0]
        rec = GeomRec(kind, self.origin(parent, by.get("origin", ())), where(s))
        if kind == "mesh":
            fn = s.get("filename")
            if not fn:
                raise self.error(s, "<mesh> without a 'filename' attribute")
            rec.filename = fn
            rec.scale = tuple(self.numbers(s, "scale", 3, default=[1.0, 1.0, 1.0]))
        elif kind == "box":
            rec.size = tuple(self.numbers(s, "size", 3, required=True))
        elif kind == "cylinder":
            rec.radius = self.number(s, "radius", required=True)
            rec.length = self.number(s, "length", required=True)
        elif kind == "sphere":
            rec.radius = self.number(s, "radius", required=True)
        else:
            raise self.error(s, f"unknown geometry type <{kind}> (expected mesh, box, "
                                "cylinder or sphere)")
        return rec

    def material(self, el, top_level: bool):
        """(name, rgba or None) of a ``<material>``."""
        name = el.get("name")
        if name is None:
            raise self.error(el, "<material> without a 'name' attribute")
        rgba = None
        by = _grouped(el)[1]
        cols = by.get("color")
        if cols:
            rgba = tuple(self.numbers(cols[0], "rgba", 4, required=True))
        if top_level and rgba is None and not by.get("texture"):
            raise self.error(el, f"material {name!r} has neither <color> nor <texture>")
        return name, rgba

    def visual(self, el, is_visual: bool) -> VisualRec:
        by = _grouped(el)[1]
        rec = VisualRec(self.geometry(el, by), group=el.get("group", "default"), name=el.get("name"))
        if is_visual:
            mats = by.get("material")
            if mats:
                if mats[0].get("name") is None:
                    raise _UnnamedMaterial(mats[0])
                rec.material_name, rec.color = self.material(mats[0], False)
        return rec

    def inertial(self, el) -> InertialRec:
        by = _grouped(el)[1]
        masses = by.get("mass")
        if not masses:
            raise self.error(el, "<inertial> without <mass>")
        mass = self.number(masses[0], "value", required=True)
        its = by.get("inertia")
        if not its:
            raise self.error(el, "<inertial> without <inertia>")
        it = its[0]
        number = self.number
        xx, xy, xz, yy, yz, zz = [number(it, k, True) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")]
        inertia = _read_only(np.array([xx, xy, xz, xy, yy, yz, xz, yz, zz]).reshape(3, 3))
        return InertialRec(mass, self.origin(el, by.get("origin", ())), inertia, where(el))

    def link(self, el) -> LinkRec:
        rec = LinkRec(self.name_of(el, "link"), where(el))
        kids, by = _grouped(el)
        ins = by.get("inertial")
        if ins:
            rec.inertial = self.inertial(ins[0])
        try:
            for v in by.get("visual", ()):
                rec.visuals.append(self.visual(v, True))
            rec.collisions = [self.visual(c, False) for c in by.get("collision", ())]
        except _UnnamedMaterial as e:
            # urdfdom gives up on the rest of the link here and Klamp't keeps the link
            self.ctx.warn(f"link {rec.name!r}: <material> without a name; like Klamp't, the "
                          "<visual> holding it and every later <visual>/<collision> of the link "
                          "are ignored (urdfdom refuses the model)", where(e.args[0]), kind="invalid value")
        for t, c in kids:
            if t not in _LINK_CHILDREN:
                self.ctx.warn(f"<{t}> in link {rec.name!r} ignored", where(c), kind="ignored")
        return rec

    def joint(self, el) -> JointRec:
        name = self.name_of(el, "joint")
        jtype = el.get("type")
        if jtype is None:
            raise self.error(el, f"joint {name!r} has no 'type' attribute")
        if jtype not in JOINT_TYPES:
            raise self.error(el, f"joint {name!r} has unknown type {jtype!r} "
                                 f"(expected one of {', '.join(JOINT_TYPES)})")
        kids, by = _grouped(el)
        ends = {}
        for end in ("parent", "child"):
            els = by.get(end)
            val = els[0].get("link") if els else None
            if not val:
                raise self.error(els[0] if els else el,
                                 f"joint {name!r} needs <{end} link=\"...\">")
            ends[end] = val
        rec = JointRec(name, jtype, where(el), ends["parent"], ends["child"],
                       self.origin(el, by.get("origin", ())))
        if jtype not in ("fixed", "floating"):
            axes = by.get("axis")
            if not axes:
                rec.axis = _X_AXIS
            else:
                text = axes[0].get("xyz")
                axis = self.axes.get(text)
                if axis is None:
                    axis = self.axes[text] = _read_only(np.array(
                        self.numbers(axes[0], "xyz", 3, default=[0.0, 0.0, 0.0])))
                rec.axis = axis
        lims = by.get("limit")
        if lims:
            lim = lims[0]
            rec.limit = {"lower": self.number(lim, "lower", default=0.0),
                         "upper": self.number(lim, "upper", default=0.0),
                         "effort": self.number(lim, "effort", required=True),
                         "velocity": self.number(lim, "velocity", required=True)}
        elif jtype in ("revolute", "prismatic"):
            raise self.error(el, f"{jtype} joint {name!r} needs a <limit effort=... velocity=...> element")
        dyn = by.get("dynamics")
        if dyn:
            d = dyn[0]
            if d.get("damping") is None and d.get("friction") is None:
                raise self.error(d, "<dynamics> needs 'damping' or 'friction'")
            rec.dynamics = (self.number(d, "damping", default=0.0),
                            self.number(d, "friction", default=0.0))
        mim = by.get("mimic")
        if mim:
            m = mim[0]
            target = m.get("joint")
            if not target:
                raise self.error(m, "<mimic> needs a 'joint' attribute")
            rec.mimic = (target, self.number(m, "multiplier", default=1.0),
                         self.number(m, "offset", default=0.0), where(m))
        for t, c in kids:
            if t not in _JOINT_CHILDREN:
                self.ctx.warn(f"<{t}> in joint {name!r} ignored", where(c), kind="ignored")
        return rec


def _xacro_hint(root, path: str) -> str:
    """What to add to an error that a xacro source file (``*.xacro``, or ``xacro:``
    elements: macros, includes) meets: it is a URDF only once xacro has expanded it."""
    xacro = str(path).endswith(".xacro") or any(
        isinstance(el.tag, str) and el.tag.startswith("{") and "xacro" in el.tag.split("}", 1)[0]
        for el in root.iter())
    return (" (a xacro file: expand it first, `xacro FILE > robot.urdf`; urdfdom cannot read it "
            "either)") if xacro else ""


def parse_model(root, path: str, ctx: LoadContext) -> UrdfModel:
    """Records of the ``<robot>`` element ``root`` (checked like urdfdom does)."""
    rd = _Reader(path, ctx)
    if local_name(root) != "robot":
        raise rd.error(root, f"root element is <{local_name(root)}>, expected <robot>")
    name = root.get("name")
    if name is None:
        raise rd.error(root, "<robot> without a 'name' attribute" + _xacro_hint(root, path))
    materials: dict = {}
    links: dict = {}
    joints: dict = {}
    for tag, el in _kids(root):
        if tag == "material":
            mname, rgba = rd.material(el, True)
            if mname in materials:
                raise rd.error(el, f"material {mname!r} is defined twice")
            materials[mname] = rgba
        elif tag in ("link", "joint"):
            table = links if tag == "link" else joints
            rec = rd.link(el) if tag == "link" else rd.joint(el)
            if rec.name in table:
                raise rd.error(el, f"{tag} {rec.name!r} is defined twice (first on line "
                                   f"{table[rec.name].line})")
            table[rec.name] = rec
        elif tag not in _IGNORED_TOP:
            ctx.warn(f"<{tag}> in <robot> ignored", where(el), kind="ignored")
    if not links:
        raise rd.error(root, "the robot has no <link> elements" + _xacro_hint(root, path))
    return UrdfModel(name, links, joints, materials, root)


def _finite(vals) -> bool:
    return all(map(math.isfinite, vals))
