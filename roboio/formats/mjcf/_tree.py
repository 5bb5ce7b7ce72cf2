"""``<worldbody>`` -> records: bodies with their joints, geoms, sites and inertials, every
pose resolved as MuJoCo's compiler resolves it (orientation forms, ``fromto``, ``<frame>``
composition, default classes and ``childclass``). Units are SI and radians here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from . import _orient as O
from ._document import ORIENTATIONS, Attrs, Document, Node

__all__ = ["Body", "JointRec", "GeomRec", "SiteRec", "InertialRec", "read_worldbody",
           "GEOM_TYPES", "JOINT_TYPES", "SITE_TYPES", "SITE_SIZE"]

GEOM_TYPES = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf")
JOINT_TYPES = ("free", "ball", "slide", "hinge")
IDENTITY = ((0.0, 0.0, 0.0), O.UNIT)


@dataclass
class JointRec:
    name: Optional[str]
    type: str
    pos: tuple            # anchor in the body frame
    axis: tuple           # unit axis in the body frame
    limited: bool
    range: tuple          # radians (hinge, ball) or metres
    ref: float            # qpos0 of hinge/slide (radians or metres)
    node: Node
    attrs: dict = field(default_factory=dict)     # further attributes (damping, armature, ...)
    align: str = "auto"


@dataclass
class GeomRec:
    name: Optional[str]
    type: str
    size: tuple
    pos: tuple            # in the body frame
    quat: tuple
    node: Node
    mesh: Optional[str] = None
    material: Optional[str] = None
    rgba: Optional[tuple] = None          # None: not set (MuJoCo's default grey, or material)
    contype: int = 1
    conaffinity: int = 1
    group: int = 0
    mass: Optional[float] = None
    density: float = 1000.0
    shell: bool = False
    hfield: Optional[str] = None
    fitscale: float = 1.0
    margin: float = 0.0
    friction: Optional[tuple] = None
    condim: int = 3
    priority: int = 0

    @property
    def visual(self) -> bool:
        """MuJoCo's "visual geom": one that can collide with nothing."""
        return self.contype == 0 and self.conaffinity == 0


SITE_TYPES = ("sphere", "capsule", "ellipsoid", "cylinder", "box")
SITE_SIZE = (0.005, 0.005, 0.005)    # MuJoCo's default site size


@dataclass
class SiteRec:
    name: Optional[str]
    pos: tuple
    quat: tuple
    node: Node
    type: str = "sphere"
    size: tuple = SITE_SIZE           # m (MuJoCo keeps all three whatever the type)


@dataclass
class InertialRec:
    pos: tuple
    quat: tuple                      # principal axes (diaginertia) or identity (fullinertia)
    mass: float
    diag: Optional[tuple]
    full: Optional[tuple]            # (ixx, iyy, izz, ixy, ixz, iyz)
    node: Node


@dataclass
class Body:
    name: Optional[str]
    pos: tuple                       # in the parent body frame (frames composed)
    quat: tuple
    node: Optional[Node]
    id: int = 0
    parent: Optional["Body"] = None
    joints: list = field(default_factory=list)
    geoms: list = field(default_factory=list)
    sites: list = field(default_factory=list)
    inertial: Optional[InertialRec] = None
    children: list = field(default_factory=list)
    mocap: bool = False
    gravcomp: float = 0.0

    @property
    def label(self) -> str:
        return self.name if self.name else f"body{self.id}"

    def walk(self):
        """This body and its descendants, depth first in document order (MuJoCo's ids)."""
        stack = [self]
        while stack:
            b = stack.pop()
            yield b
            stack.extend(reversed(b.children))

    def has_joints(self) -> bool:
        return any(b.joints for b in self.walk())


class _Walker:
    def __init__(self, doc: Document):
        self.doc = doc
        self.c = doc.compiler
        self.next_id = 1
        self.suffix = ""               # name suffix of the enclosing <replicate> copies
        self.replicas: dict = {}       # name as written -> names given to its copies

    def named(self, name: Optional[str]) -> Optional[str]:
        """An element's name inside the enclosing ``<replicate>`` copies (their suffixes,
        innermost first, as MuJoCo names the copies)."""
        if not name or not self.suffix:
            return name
        out = name + self.suffix
        self.replicas.setdefault(name, []).append(out)
        return out

    # -- orientation ------------------------------------------------------------------
    def orientation(self, a: Attrs, what: str) -> tuple:
        """Quaternion of an element: its orientation alternative, else ``quat`` (normalised
        as MuJoCo does)."""
        own = [k for k in ("quat",) + tuple(ORIENTATIONS) if k in a.own]
        if len(own) > 1:
            raise self.doc.error(a.node, "multiple orientation specifiers are not allowed")
        alt = [k for k in ORIENTATIONS if k in a.values]
        if alt:
            k = alt[0]
            vals = a.floats(k, count=ORIENTATIONS[k])
            q, err = O.resolve(k, vals, self.c.degree, self.c.eulerseq)
            if err:
                raise self.doc.error(a.node, f"error '{err}' in {what} orientation")
            return q
        q = a.floats("quat", None, 4)
        if q is None:
            return O.UNIT
        return O.normquat(tuple(q))

    def frame_pose(self, a: Attrs) -> tuple:
        return tuple(a.floats("pos", (0.0, 0.0, 0.0), 3)), self.orientation(a, a.node.tag)

    # -- bodies -----------------------------------------------------------------------
    def world(self, nodes: list) -> Body:
        world = Body("world", (0.0, 0.0, 0.0), O.UNIT, nodes[0] if nodes else None, id=0)
        for n in nodes:
            if n.el.attrib:
                raise self.doc.error(n, "World body cannot have attributes")
            self.contents(n, world, IDENTITY, "main", 2)
        return world

    def contents(self, node: Node, body: Body, frame: tuple, cls: str, depth: int) -> None:
        """Children of a body (or of a frame inside it), placed by ``frame`` (the pose of
        the enclosing frames in the body frame)."""
        doc = self.doc
        for n in doc.kids(node, depth):
            tag = n.tag
            if tag == "body":
                self.body(n, body, frame, cls, depth + 1)
            elif tag == "frame":
                a = doc.attrs(n, cls, "frame")
                p, q = self.frame_pose(a)
                self.contents(n, body, O.accum(frame[0], frame[1], p, q), doc.child_class(n, cls),
                              depth + 1)
            elif tag == "geom":
                body.geoms.append(self.geom(n, frame, doc.class_of(n, cls)))
            elif tag in ("joint", "freejoint"):
                if body.id == 0:
                    raise doc.error(n, "World body cannot have joints")
                body.joints.append(self.joint(n, frame, doc.class_of(n, cls)))
            elif tag == "inertial":
                if body.id == 0:
                    raise doc.error(n, "World body cannot have inertia")
                body.inertial = self.inertial(n)
            elif tag == "site":
                body.sites.append(self.site(n, frame, doc.class_of(n, cls)))
            elif tag in ("camera", "light"):
                continue
            elif tag == "replicate":
                self.replicate(n, body, frame, cls, depth)
            elif tag in ("composite", "flexcomp", "attach", "plugin"):
                doc.warn(n, f"<{tag}> is not read by roboio (its elements are missing from the model)", kind="unsupported")
            else:
                raise doc.error(n, f"unrecognized model element '{tag}'")

    def replicate(self, n: Node, body: Body, frame: tuple, cls: str, depth: int) -> None:
        """``count`` copies of the contents, copy ``i`` placed at the offset accumulated
        ``i`` times and turned by ``i`` times ``euler``; names get ``sep`` and ``i``."""
        doc = self.doc
        a = doc.attrs(n, "main", "replicate")
        count = a.int("count")
        if count is None or count <= 0:
            raise doc.error(n, "<replicate count> must be a positive integer")
        doc.ctx.charge("copies", count, n.line, what="<replicate> copies")
        offset = tuple(a.floats("offset", (0.0, 0.0, 0.0), 3))
        euler = tuple(a.floats("euler", (0.0, 0.0, 0.0), 3))
        sep = a.text("sep", "")
        rot, _ = O.resolve("euler", euler, self.c.degree, self.c.eulerseq)
        digits = len(str(count))
        pos = (0.0, 0.0, 0.0)
        outer = self.suffix
        child = doc.child_class(n, cls)
        for i in range(count):
            quat, _ = O.resolve("euler", tuple(i * e for e in euler), self.c.degree, self.c.eulerseq)
            self.suffix = sep + str(i).zfill(digits) + outer
            self.contents(n, body, O.accum(frame[0], frame[1], pos, quat), child, depth + 1)
            pos = O.accum(pos, quat, offset, rot)[0]
        self.suffix = outer

    def body(self, n: Node, parent: Body, frame: tuple, cls: str, depth: int) -> None:
        doc = self.doc
        doc.ctx.check_depth(depth, n.line, what="MJCF body nesting")
        a = doc.attrs(n, cls, "body")
        pos, quat = self.frame_pose(a)
        pos, quat = O.accum(frame[0], frame[1], pos, quat)
        b = Body(self.named(a.text("name")), pos, quat, n, id=self.next_id, parent=parent,
                 mocap=bool(a.bool("mocap", False)), gravcomp=a.float("gravcomp", 0.0))
        self.next_id += 1
        doc.unread.check("body", a, b.name)
        parent.children.append(b)
        self.contents(n, b, IDENTITY, doc.child_class(n, cls), depth)
        free = [j for j in b.joints if j.type == "free"]
        if free and len(b.joints) > 1:
            raise doc.error(n, "free joint can only appear by itself")
        if free and parent.id != 0 and not self.c.fusestatic:     # else: once static bodies fused
            raise doc.error(free[0].node, "free joint can only be used on top level")

    # -- joints -----------------------------------------------------------------------
    def joint(self, n: Node, frame: tuple, cls: str) -> JointRec:
        doc = self.doc
        if n.tag == "freejoint":
            a = doc.attrs(n, "main", "freejoint")      # a free joint takes no defaults
            return JointRec(self.named(a.text("name")), "free", (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), False,
                            (0.0, 0.0), 0.0, n, align=a.choice("align", ("true", "false", "auto"), "auto"))
        a = doc.attrs(n, cls, "joint")
        jt = a.choice("type", JOINT_TYPES, "hinge")
        rng = tuple(a.floats("range", (0.0, 0.0), 2))
        has_range = not (rng[0] == 0 and rng[1] == 0)
        limited = False if jt == "free" else a.limited("limited", has_range)
        if limited:
            if jt != "ball" and rng[0] >= rng[1]:
                raise doc.error(n, "range[0] should be smaller than range[1] in joint")
            if jt == "ball" and rng[0]:
                raise doc.error(n, "range[0] should be 0 in ball joint")
        if self.c.degree and jt in ("hinge", "ball"):
            rng = tuple(v * O.math.pi / 180.0 if v else v for v in rng)
        ref = a.float("ref", 0.0)
        if jt == "hinge" and self.c.degree:
            ref = ref * O.math.pi / 180.0
        if jt in ("free", "ball"):
            axis = (0.0, 0.0, 1.0)
        else:
            axis = O.rot_vec(frame[1], tuple(a.floats("axis", (0.0, 0.0, 1.0), 3)))
            axis, norm = O.normvec(axis)
            if norm < O.MJ_EPS:
                raise doc.error(n, "axis too small in joint")
        pos = (0.0, 0.0, 0.0) if jt == "free" else \
            O.accum(frame[0], frame[1], tuple(a.floats("pos", (0.0, 0.0, 0.0), 3)), O.UNIT)[0]
        extra = {k: a.text(k) for k in ("damping", "frictionloss", "actuatorfrcrange", "actuatorfrclimited")
                 if k in a}
        name = self.named(a.text("name"))
        doc.unread.check("joint", a, name)
        return JointRec(name, jt, pos, axis, limited, rng, ref, n, extra)

    # -- sites ------------------------------------------------------------------------
    def site(self, n: Node, frame: tuple, cls: str) -> SiteRec:
        """A ``<site>``: its pose in the body (``fromto`` as a geom's), ``type`` and the
        three ``size`` values MuJoCo compiles (those not given keep the default's)."""
        doc = self.doc
        a = doc.attrs(n, cls, "site")
        st = a.choice("type", SITE_TYPES, "sphere")
        # values not given keep the class's, then MuJoCo's default
        size = list(SITE_SIZE)
        for text in (doc.classes[cls].get("site", {}).get("size"), a.own.get("size")):
            if text is not None:
                given = doc.floats(n, "size", None, text, at_most=3)
                size[:len(given)] = given
        fromto = a.floats("fromto", None, 6)
        if fromto is not None:
            p, q = self.from_to(n, "site", st, fromto, size)
        else:
            p, q = self.frame_pose(a)
        p, q = O.accum(frame[0], frame[1], p, q)
        return SiteRec(self.named(a.text("name")), p, q, n, st, tuple(size))

    def from_to_type(self, n: Node, kind: str, shape: str) -> None:
        if shape not in ("capsule", "cylinder", "ellipsoid", "box"):
            raise self.doc.error(n, f"fromto requires capsule, cylinder, box or ellipsoid in {kind}")

    def from_to(self, n: Node, kind: str, shape: str, fromto, size: list) -> tuple:
        """``(pos, quat)`` of a site or geom given by ``fromto`` (MuJoCo's frame: z along
        the segment); ``size`` gets the half length (second size, or third for ellipsoids
        and boxes, whose second becomes the first)."""
        self.from_to_type(n, kind, shape)
        ft = O.fromto_frame(fromto)
        if ft is None:
            raise self.doc.error(n, f"fromto points too close in {kind}")
        p, q, half = ft
        size[1] = half
        if shape in ("ellipsoid", "box"):
            size[2], size[1] = size[1], size[0]
        return p, q

    # -- geoms ------------------------------------------------------------------------
    def geom(self, n: Node, frame: tuple, cls: str) -> GeomRec:
        doc = self.doc
        a = doc.attrs(n, cls, "geom")
        gt = a.choice("type", GEOM_TYPES, "sphere")
        size = list(a.floats("size", (0.0, 0.0, 0.0), at_most=3))
        size += [0.0] * (3 - len(size))
        mesh = a.text("mesh")
        fromto = a.floats("fromto", None, 6)
        if fromto is not None:
            if gt not in ("capsule", "cylinder", "ellipsoid", "box"):
                raise doc.error(n, "fromto requires capsule, cylinder, box or ellipsoid in geom")
            self.from_to_type(n, "geom", gt)
            pos = a.floats("pos", (0.0, 0.0, 0.0), 3)
            if any(pos):
                raise doc.error(n, "both pos and fromto defined in geom")
            p, q = self.from_to(n, "geom", gt, fromto, size)
        else:
            p = tuple(a.floats("pos", (0.0, 0.0, 0.0), 3))
            q = self.orientation(a, "geom")
        p, q = O.accum(frame[0], frame[1], p, q)
        if mesh is not None and gt not in ("mesh", "sdf") and fromto is not None:
            raise doc.error(n, "fromto cannot be used with mesh geom")
        if gt in ("mesh", "sdf") and mesh is None:
            raise doc.error(n, "mesh geom must have a valid mesh attribute")
        hfield = a.text("hfield")
        if gt == "hfield" and not hfield:
            raise doc.error(n, "hfield geom must have a valid hfield attribute")
        if gt not in ("mesh", "sdf"):
            _check_size(doc, n, gt, size, mesh is not None)
        rgba = a.floats("rgba", None, 4)
        density = a.float("density", 1000.0)
        mass = a.float("mass", None)
        if (mass is not None and mass < 0) or density < 0:
            raise doc.error(n, "mass, inertia or density are negative in geom")
        shell = a.choice("shellinertia", ("true", "false"), "false") == "true"
        doc.unread.check("geom", a, a.text("name"))
        return GeomRec(self.named(a.text("name")), gt, tuple(size), p, q, n, mesh=mesh, material=a.text("material"),
                       rgba=tuple(rgba) if rgba is not None else None,
                       contype=a.int("contype", 1), conaffinity=a.int("conaffinity", 1),
                       group=a.int("group", 0), mass=mass, density=density, shell=shell,
                       hfield=hfield, fitscale=a.float("fitscale", 1.0), margin=a.float("margin", 0.0),
                       friction=tuple(a.floats("friction", None, at_most=3) or ()) or None,
                       condim=a.int("condim", 3), priority=a.int("priority", 0))

    # -- inertials --------------------------------------------------------------------
    def inertial(self, n: Node) -> InertialRec:
        doc = self.doc
        a = doc.attrs(n, "main", "inertial")
        if "pos" not in a.own or "mass" not in a.own:
            raise doc.error(n, "<inertial> needs pos and mass")
        pos = tuple(a.floats("pos", count=3))
        mass = a.float("mass")
        diag = a.floats("diaginertia", None, 3)
        full = a.floats("fullinertia", None, 6)
        has_orient = any(k in a.own for k in ("quat",) + tuple(ORIENTATIONS))
        if full is not None and has_orient:
            raise doc.error(n, "fullinertia and inertial orientation cannot both be specified")
        if full is not None and diag is not None and any(diag):
            raise doc.error(n, "fullinertia and diagonal inertia cannot both be specified")
        if diag is None and full is None:
            raise doc.error(n, "<inertial> needs diaginertia or fullinertia")
        quat = self.orientation(a, "inertial") if full is None else O.UNIT
        return InertialRec(pos, quat, mass, tuple(diag) if full is None else None,
                           tuple(full) if full is not None else None, n)


def _check_size(doc: Document, n: Node, gt: str, size: list, fitted: bool) -> None:
    """MuJoCo's ``checksize``: the sizes a primitive needs must be positive."""
    if fitted:
        return
    need = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3}.get(gt, 0)
    if gt == "plane":            # a half size <= 0 is infinite (robohive's size="-1 -1 .1")
        if size[2] <= 0:
            raise doc.error(n, "plane size(3) must be positive")
        return
    for k in range(need):
        if size[k] <= 0:
            raise doc.error(n, f"size {k} must be positive in geom")


def read_worldbody(doc: Document) -> tuple:
    """``(world body, replicas)``: the world body (id 0) with every body of every
    ``<worldbody>`` section below it; ``replicas`` maps a name written inside
    ``<replicate>`` to the names of its copies."""
    w = _Walker(doc)
    return w.world(doc.sections.get("worldbody", [])), w.replicas
