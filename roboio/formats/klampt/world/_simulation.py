"""The ``<simulation>`` section of Klamp't worlds (spec §5.8), kept whole and parsed.

:class:`XmlNode` keeps an element losslessly (tag, attributes in order, text, children in
order; XML comments are not kept). :class:`SimulationSettings` holds the ``<simulation>``
element as an XmlNode (``node``, written back as is) and offers the documented fields parsed
from it: :attr:`~SimulationSettings.globals` (typed, with Klamp't's defaults),
:attr:`~SimulationSettings.bodies` (per terrain / rigid object / robot link settings) and
:attr:`~SimulationSettings.joints`. The parsed views are computed from ``node`` on access,
so editing ``node`` is the one way to change the section.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from lxml import etree

from ...xmlutil import local_name, where

__all__ = ["XmlNode", "SimulationSettings", "BodyRef", "BodySettings", "SimJoint",
           "GLOBAL_DEFAULTS", "check_simulation"]

GLOBAL_DEFAULTS = {
    "gravity": (0.0, 0.0, -9.8), "ERP": None, "CFM": None, "maxContacts": 20,
    "boundaryLayer": 1, "adaptiveTimeStepping": 1, "rigidObjectCollisions": 1,
    "robotSelfCollisions": 0, "robotRobotCollisions": 1, "timestep": None,
}
_INT_GLOBALS = {"maxContacts", "boundaryLayer", "adaptiveTimeStepping", "rigidObjectCollisions",
                "robotSelfCollisions", "robotRobotCollisions"}
_GEOMETRY_ATTRS = ("padding", "preshrink", "kFriction", "kRestitution", "kStiffness", "kDamping")
_BODY_TAGS = {"terrain": "terrain", "object": "object", "rigidObject": "object", "robot": "robot"}


@dataclass
class XmlNode:
    """One XML element, kept losslessly: ``tag``, ``attrib`` (ordered), ``text`` (None when
    only whitespace), ``children``; ``line`` is where it was read (None if built in code)."""

    tag: str
    attrib: dict = field(default_factory=dict)
    children: list = field(default_factory=list)
    text: Optional[str] = None
    line: Optional[int] = field(default=None, compare=False)

    @classmethod
    def from_element(cls, el) -> "XmlNode":
        text = el.text if el.text is not None and el.text.strip() else None
        kids = [cls.from_element(c) for c in el if isinstance(c.tag, str)]
        return cls(local_name(el), dict(el.attrib), kids, text, where(el))

    def to_element(self, parent=None):
        """An lxml element (appended to ``parent`` when given)."""
        el = etree.Element(self.tag) if parent is None else etree.SubElement(parent, self.tag)
        for k, v in self.attrib.items():
            el.set(k, v)
        if self.text is not None:
            el.text = self.text
        for c in self.children:
            c.to_element(el)
        return el

    def to_xml(self) -> str:
        return etree.tostring(self.to_element(), encoding="unicode")

    def find(self, tag: str) -> Optional["XmlNode"]:
        return next((c for c in self.children if c.tag == tag), None)

    def find_all(self, tag: str) -> list:
        return [c for c in self.children if c.tag == tag]


def _floats(text):
    try:
        return tuple(float(x) for x in text.split())
    except (ValueError, AttributeError):
        return None


def _num(text):
    v = _floats(text)
    return v[0] if v and len(v) == 1 else None


def _int(text):
    try:
        return int(text.strip())
    except (ValueError, AttributeError):
        return None


@dataclass
class BodyRef:
    """A reference to a world element: ``kind`` ("terrain", "object" or "robot"),
    ``index`` and/or ``name``, and for robots the link ``body`` (None = all links)."""

    kind: str
    index: Optional[int] = None
    name: Optional[str] = None
    body: Optional[int] = None
    line: Optional[int] = None

    @classmethod
    def from_node(cls, n: XmlNode) -> "BodyRef":
        return cls(_BODY_TAGS[n.tag], _int(n.attrib.get("index")), n.attrib.get("name"),
                   _int(n.attrib.get("body")), n.line)


@dataclass
class BodySettings:
    """Per-body simulation settings: ``geometry`` (padding, preshrink, k-parameters given),
    ``velocity`` (linear/angular, rigid objects), ``controller`` (attributes), ``sensors``
    (XML text) -- each only when the file gives it."""

    ref: BodyRef
    geometry: dict = field(default_factory=dict)
    velocity: dict = field(default_factory=dict)
    controller: Optional[dict] = None
    sensors: Optional[str] = None


@dataclass
class SimJoint:
    """A simulated joint: ``type`` fixed/hinge/slider, ``axis``/``point`` (world frame),
    limits, friction, and the one or two bodies it connects (one: attached to the world)."""

    type: str
    bodies: list
    axis: Optional[tuple] = None
    point: Optional[tuple] = None
    min: Optional[float] = None
    max: Optional[float] = None
    friction: Optional[float] = None
    line: Optional[int] = None


def _joint(n: XmlNode) -> SimJoint:
    a = n.attrib
    return SimJoint(a.get("type", ""), [BodyRef.from_node(c) for c in n.children if c.tag in _BODY_TAGS],
                    _floats(a["axis"]) if "axis" in a else None,
                    _floats(a["point"]) if "point" in a else None,
                    _num(a.get("min", a.get("minimum"))),
                    _num(a.get("max", a.get("minimax"))),   # Klamp't spells the alternative "minimax"
                    _num(a.get("friction")), n.line)


class SimulationSettings:
    """The ``<simulation>`` section: ``node`` (kept whole) and parsed views of it."""

    def __init__(self, node: XmlNode):
        self.node = node

    def __repr__(self):
        return f"<SimulationSettings: {len(self.node.children)} elements>"

    def __eq__(self, other):
        return isinstance(other, SimulationSettings) and self.node == other.node

    @property
    def globals(self) -> dict:
        """Every global setting, the file's value or Klamp't's default."""
        out = dict(GLOBAL_DEFAULTS)
        g = self.node.find("globals")
        if g is not None:
            for k, v in g.attrib.items():
                if k == "gravity":
                    out[k] = _floats(v)
                elif k in _INT_GLOBALS:
                    out[k] = _int(v)
                else:
                    out[k] = _num(v)
        return out

    @property
    def bodies(self) -> list:
        out = []
        for n in self.node.children:
            if n.tag not in _BODY_TAGS:
                continue
            s = BodySettings(BodyRef.from_node(n))
            for c in n.children:
                if c.tag == "geometry":
                    for k in _GEOMETRY_ATTRS:
                        if k in c.attrib:
                            s.geometry[k] = _int(c.attrib[k]) if k == "preshrink" else _num(c.attrib[k])
                elif c.tag == "velocity":
                    for k in ("linear", "angular"):
                        if k in c.attrib:
                            s.velocity[k] = _floats(c.attrib[k])
                elif c.tag == "controller":
                    s.controller = dict(c.attrib)
                elif c.tag == "sensors":
                    s.sensors = c.to_xml()
            out.append(s)
        return out

    @property
    def joints(self) -> list:
        return [_joint(n) for n in self.node.find_all("joint")]

    @property
    def state(self) -> Optional[str]:
        s = self.node.find("state")
        return None if s is None else s.attrib.get("data")


def _check_ref(ctx, ref: BodyRef, counts: dict, names: dict, robot_links: list, line):
    kind = ref.kind
    if ref.index is None and ref.name is None:
        ctx.warn(f"simulation: <{kind}> names no {kind} (index or name)", line, kind="invalid value")
        return
    if ref.index is not None and not 0 <= ref.index < counts[kind]:
        ctx.warn(f"simulation: {kind} index {ref.index} out of range (world has {counts[kind]})", line, kind="invalid value")
        return
    if ref.index is None and ref.name not in names[kind]:
        ctx.warn(f"simulation: no {kind} named {ref.name!r}", line, kind="invalid value")
        return
    if kind == "robot":
        i = ref.index if ref.index is not None else names["robot"].index(ref.name)
        if ref.body is None or ref.body == -1:
            ctx.warn("simulation: <robot> without a valid body; Klamp't requires a link index "
                     "here (and stops reading the settings), roboio reads it as all links", line, kind="dropped")
        elif not 0 <= ref.body < robot_links[i]:
            ctx.warn(f"simulation: robot body {ref.body} out of range ({robot_links[i]} links)", line, kind="invalid value")


def check_simulation(ctx, sim: SimulationSettings, world) -> None:
    """Warn about what Klamp't would ignore or reject in the section (it does not fail the
    world: Klamp't only reports simulation settings it could not read)."""
    counts = {"terrain": len(world.terrains), "object": len(world.rigid_objects),
              "robot": len(world.robots)}
    names = {"terrain": [t.name for t in world.terrains],
             "object": [o.name for o in world.rigid_objects],
             "robot": [r.name for r in world.robots]}
    links = [r.num_links for r in world.robots]
    for n in sim.node.children:
        if n.tag == "globals":
            for k, v in n.attrib.items():
                if k not in GLOBAL_DEFAULTS:
                    ctx.warn(f"simulation: <globals {k}> is not a Klamp't setting (ignored)", n.line, kind="ignored")
                elif (k == "gravity" and (_floats(v) is None or len(_floats(v)) != 3)) or \
                        (k in _INT_GLOBALS and _int(v) is None) or \
                        (k not in _INT_GLOBALS and k != "gravity" and _num(v) is None):
                    ctx.warn(f"simulation: <globals {k}=\"{v}\"> is not a valid value", n.line, kind="invalid value")
        elif n.tag in _BODY_TAGS:
            _check_ref(ctx, BodyRef.from_node(n), counts, names, links, n.line)
            for c in n.children:
                if c.tag == "geometry":
                    for k, v in c.attrib.items():
                        if k == "preshink":
                            ctx.warn("simulation: <geometry preshink> is ignored by Klamp't "
                                     "(misspelling of preshrink)", c.line, kind="ignored")
                        elif k not in _GEOMETRY_ATTRS:
                            hint = f" (it reads k{k[0].upper()}{k[1:]})" if f"k{k[0].upper()}{k[1:]}" \
                                in _GEOMETRY_ATTRS else ""
                            ctx.warn(f"simulation: <geometry {k}> is ignored by Klamp't{hint}", c.line, kind="ignored")
                        elif _num(v) is None or (k == "preshrink" and _int(v) is None):
                            ctx.warn(f"simulation: <geometry {k}=\"{v}\"> is not a number", c.line, kind="invalid value")
                elif c.tag == "velocity" and n.tag == "robot":
                    ctx.warn("simulation: <velocity> applies to rigid objects only", c.line, kind="ignored")
                elif c.tag not in ("geometry", "velocity", "controller", "sensors"):
                    ctx.warn(f"simulation: <{c.tag}> inside <{n.tag}> is ignored", c.line, kind="ignored")
        elif n.tag == "joint":
            j = _joint(n)
            if j.type not in ("fixed", "hinge", "slider"):
                ctx.warn(f"simulation: joint type {j.type!r} (expected fixed, hinge or slider)", n.line, kind="invalid value")
            if not 1 <= len(j.bodies) <= 2:
                ctx.warn(f"simulation: a joint connects 1 or 2 bodies, got {len(j.bodies)}", n.line, kind="invalid value")
            if j.type == "hinge" and (j.axis is None or j.point is None):
                ctx.warn("simulation: a hinge joint needs axis and point", n.line, kind="invalid value")
            if j.type == "slider" and j.axis is None:
                ctx.warn("simulation: a slider joint needs an axis", n.line, kind="invalid value")
            for b in j.bodies:
                _check_ref(ctx, b, counts, names, links, b.line)
        elif n.tag != "state":
            ctx.warn(f"simulation: <{n.tag}> is not a Klamp't simulation element (ignored)", n.line, kind="ignored")
