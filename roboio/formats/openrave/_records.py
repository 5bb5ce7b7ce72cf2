"""OpenRAVE's in-memory body model, as its readers fill it (plain data, no kinematics).

OpenRAVE reads every file into one ``KinBody``/``RobotBase`` object that its XML reader and its
COLLADA reader both *append to*: the records below are that object, and
:mod:`roboio.formats.openrave._build` is the one place that turns them into roboio's model.
Units are SI as OpenRAVE keeps them (metres, radians, kilograms); every transform is a 4x4
float array in the coordinates of the body being built (the KinBody frame), ``p = T @ [x, 1]``.

How a body is built (``openrave.md`` §7, §8, §10, §13; ``collada.md`` §13)
---------------------------------------------------------------------------
* :class:`BodyRecord` is the body under construction. ``links`` and ``joints`` only ever grow;
  a link's ``index`` is its position in ``links`` (OpenRAVE's link index: order of creation,
  document order with included files expanded where their element appears). Link 0 is the
  root.
* A link's ``transform`` is its *current* pose and changes while the body is read: a re-opened
  link (``<Body name=...>`` naming an existing link, exact case) pre-multiplies rotations, adds
  translations and applies ``<offsetfrom>``; at the end of every ``<KinBody>``/``<Robot>``
  element, that element's transform tags move every link created inside it, including the
  links an include brought (``T_link <- T_element @ T_link`` for ``index >= first index of the
  element``).
* A joint is *frozen* when its element ends (``</joint>``): :class:`JointRecord` keeps the two
  attached link indices as declared, the anchor and axes expressed in ``link0``'s frame, and
  ``trel = inv(T_link0) @ T_link1`` taken at that moment. Later moves of either link do not
  change the joint; the kinematic tree is evaluated from these frozen quantities only.
* Names are prefixed when the element carrying ``prefix=`` ends: ``LinkRecord.name`` /
  ``JointRecord.name`` are the current names, ``declared_name`` the name as written in the
  file. References inside an element see the names as they are at that moment.

Includes append into the body
-----------------------------
``<KinBody file="x">`` / ``<Robot file="x">`` loads ``x`` *into the same* :class:`BodyRecord`
before the element's children are read:

* an OpenRAVE XML file is read as a nested element of the including one (its links and
  joints are appended; its own ``name=`` renames the body, outer names win later);
* a COLLADA file (``.dae``/``.zae``) is read by
  ``roboio.formats.openrave.collada.append_collada(body, path, ctx, attributes)``, which must
  append the links (``LinkRecord`` with ``transform`` in the body's coordinates as the
  COLLADA file places them, i.e. before the including element's own transform tags, which the
  XML reader applies afterwards), the joints (frozen as above), manipulators and attached
  sensors of the file to ``body``. ``attributes`` are the including element's lower-cased
  attributes except ``file`` (``prefix``, ``name``, ``skipgeometry``, ``scalegeometry``...):
  the COLLADA reader applies ``prefix`` itself (``collada.md`` §13) and must not rename the
  body (the XML reader does it at the element's end). A COLLADA link whose un-prefixed name
  equals an existing link merges into it (geometry appended) instead of creating a new one;
* a mesh file (``.iv``, ``.wrl``, ``.stl``, ...) appends one link named after the file stem,
  whose only geometry is the mesh.

Everything a reader cannot map keeps its source (``Source``: file and line) so that every
later message can name where it came from.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

__all__ = ["Source", "XmlData", "GeomRecord", "MassRecord", "LinkRecord", "MimicRecord",
           "JointRecord", "ManipulatorRecord", "SensorRecord", "BodyRecord", "CameraRecord",
           "InterfaceRecord", "EnvironmentRecord", "JOINT_TYPES", "JOINT_DOFS", "MULTI_AXIS_TYPES"]

#: OpenRAVE joint types read from XML and the number of DOFs (axes) of each
JOINT_TYPES = ("hinge", "slider", "universal", "hinge2", "spherical")
JOINT_DOFS = {"hinge": 1, "slider": 1, "universal": 2, "hinge2": 2, "spherical": 3}

#: Multi-axis joints of COLLADA files (OpenRAVE's ``JointRR``, ``JointRP``, ``JointPR``,
#: ``JointPP`` and their three-axis analogues): the type is one letter per axis, ``R``
#: (revolute) or ``P`` (prismatic), in axis order. Their motion is the product of the axes'
#: motions in order, ``M = M_0(q_0) @ M_1(q_1) @ ...`` (``M_i`` = rotation about ``axes[i]`` /
#: translation along it, every axis in ``link0``'s frame at zero, each applied in the frame
#: the previous one left), placed like a hinge: ``T1 = T0 @ Tr(anchor) @ M @ Tr(-anchor) @ trel``.
#: One-axis COLLADA joints are ``hinge`` / ``slider``.
MULTI_AXIS_TYPES = ("RR", "RP", "PR", "PP", "RRR", "RRP", "RPR", "RPP", "PRR", "PRP", "PPR", "PPP")


def _eye():
    return np.eye(4)


@dataclass
class Source:
    """Where something was written: file path and 1-based line (None if unknown)."""

    path: Optional[str] = None
    line: Optional[int] = None

    def __str__(self):
        if self.line is None:
            return self.path or "?"
        return f"{self.path}:{self.line}"


@dataclass
class XmlData:
    """An XML element kept as data (sensor parameters, interfaces, unknown elements):
    lower-cased ``tag``, attributes as written, stripped text and children."""

    tag: str
    attrib: dict = field(default_factory=dict)
    text: str = ""
    children: list = field(default_factory=list)
    line: Optional[int] = None

    def find(self, tag: str) -> Optional["XmlData"]:
        tag = tag.lower()
        for c in self.children:
            if c.tag == tag:
                return c
        return None


@dataclass
class GeomRecord:
    """One ``<Geom>`` of a link.

    ``transform``: the geometry frame in the link frame *as written in XML* (a cylinder's axis
    is this frame's Y axis; OpenRAVE internally adds ``Rx(90°)`` to store it along Z).
    ``type``: ``box``, ``sphere``, ``cylinder``, ``capsule``, ``trimesh``, ``prism``,
    ``container``, ``cage`` or ``none``. ``extents`` are half sizes (box), ``radius``,
    ``height``. Mesh references: ``collision_file``/``render_file`` as written (text or
    ``file=`` attribute), their scales (3,), and the resolved geometries ``collision`` (the
    shape OpenRAVE collides with, already in the link frame: the geometry transform and mesh
    scale are in its ``transform``) and ``render`` (the picture, None when the render file is
    the collision file or absent). ``loaded`` is False when OpenRAVE would drop the geometry
    (mesh file not found or unreadable).
    """

    type: str = "box"
    transform: np.ndarray = field(default_factory=_eye)
    extents: np.ndarray = field(default_factory=lambda: np.zeros(3))
    radius: float = 0.0
    height: float = 0.0
    collision_file: str = ""
    collision_scale: np.ndarray = field(default_factory=lambda: np.ones(3))
    render_file: str = ""
    render_scale: np.ndarray = field(default_factory=lambda: np.ones(3))
    vertices: Optional[np.ndarray] = None          # inline trimesh (N, 3), 3 per triangle
    params: dict = field(default_factory=dict)      # prism/container/cage fields as written
    visible: bool = True
    modifiable: bool = True
    name: str = ""
    group: str = "self"
    diffuse: Optional[tuple] = None                 # (r, g, b) when <diffuseColor> given
    ambient: Optional[tuple] = None
    transparency: Optional[float] = None
    collision: object = None                        # roboio Geometry in the link frame
    render: object = None                           # roboio Geometry in the link frame
    loaded: bool = True
    raw_pose: list = field(default_factory=list)    # (tag, values) as read, in order
    source: Source = field(default_factory=Source)


@dataclass
class MassRecord:
    """A link's mass as OpenRAVE computes it at ``</Body>``: ``mass`` (kg), ``com`` (3,) and
    ``inertia`` (3x3 about the COM, link axes), plus what the file declared (``kind``:
    ``default``, ``sphere``, ``box``, ``mimicgeom``, ``custom``)."""

    mass: float = 1.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: 0.4 * np.eye(3))
    kind: str = "default"
    source: Source = field(default_factory=Source)


@dataclass
class LinkRecord:
    """One OpenRAVE link (``<Body>``). See the module docstring for ``transform``."""

    name: str
    index: int
    transform: np.ndarray = field(default_factory=_eye)
    declared_name: str = ""
    static: bool = False
    enabled: bool = True
    geoms: list = field(default_factory=list)             # GeomRecord in the "self" group
    extra_groups: dict = field(default_factory=dict)      # group name -> [GeomRecord]
    mass: MassRecord = field(default_factory=MassRecord)
    source: Source = field(default_factory=Source)
    extras: dict = field(default_factory=dict)

    @property
    def has_geometry(self) -> bool:
        """Whether OpenRAVE keeps at least one geometry on the link (adjacency rule)."""
        return any(g.loaded for g in self.geoms)


@dataclass
class MimicRecord:
    """A mimic equation of one joint axis, as written (after a Robot prefix rewrote it)."""

    pos: str = ""
    vel: str = ""
    accel: str = ""
    source: Source = field(default_factory=Source)


@dataclass
class JointRecord:
    """One OpenRAVE joint, frozen at ``</joint>`` (see the module docstring).

    ``link0``/``link1``: link indices as declared (first ``<body>`` then second).
    ``anchor`` (3,) and ``axes`` (list of (3,), one per DOF; spherical: the three unit axes)
    in ``link0``'s frame; ``trel`` = ``inv(T_link0) @ T_link1`` at freeze time. Per-axis
    arrays have one entry per DOF: limits ``lower``/``upper`` (radians or metres; a static
    joint has ``lower >= upper``), ``circular``, ``offsets`` (OpenRAVE's artificial offset,
    which only changes where a measured angle is wrapped), ``maxvel``, ``hardmaxvel``,
    ``maxaccel``, ``maxtorque``, ``maxinertia``, ``weight``, ``resolution``; ``initial``: the
    joint values the declared link poses correspond to; ``mimic``: one MimicRecord or None per
    axis. ``active`` is the ``enable`` attribute (a joint with a mimic equation never has a DOF
    whatever ``active`` says).
    """

    name: str
    type: str
    link0: int
    link1: int
    anchor: np.ndarray = field(default_factory=lambda: np.zeros(3))
    axes: list = field(default_factory=list)
    trel: np.ndarray = field(default_factory=_eye)
    declared_name: str = ""
    active: bool = True
    initial: list = field(default_factory=list)
    lower: list = field(default_factory=list)
    upper: list = field(default_factory=list)
    circular: list = field(default_factory=list)
    offsets: list = field(default_factory=list)
    maxvel: list = field(default_factory=list)
    hardmaxvel: list = field(default_factory=list)
    maxaccel: list = field(default_factory=list)
    maxtorque: list = field(default_factory=list)
    maxinertia: list = field(default_factory=list)
    weight: list = field(default_factory=list)
    resolution: list = field(default_factory=list)
    mimic: list = field(default_factory=list)
    order: int = 0
    source: Source = field(default_factory=Source)
    extras: dict = field(default_factory=dict)

    @property
    def dof(self) -> int:
        if self.type in MULTI_AXIS_TYPES:
            return len(self.type)
        return JOINT_DOFS[self.type]

    @property
    def is_mimic(self) -> bool:
        """OpenRAVE moves a joint with any mimic attribute to the passive joints."""
        return any(m is not None for m in self.mimic)

    @property
    def is_static(self) -> bool:
        """OpenRAVE's rule (``openrave.md`` §10.4): not circular and ``lower >= upper`` on
        every axis."""
        return not any(self.circular) and all(lo >= hi for lo, hi in zip(self.lower, self.upper))


@dataclass
class ManipulatorRecord:
    """``<Manipulator>``: link and joint names as they stand after prefixes; ``tool`` the
    tool frame in the effector frame; ``closing_direction`` signs (-1, 0, 1)."""

    name: str
    base: str = ""
    effector: str = ""
    ik_chain_end: str = ""
    gripper_joints: list = field(default_factory=list)
    closing_direction: list = field(default_factory=list)
    direction: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    tool: np.ndarray = field(default_factory=_eye)
    ik_solver: str = ""
    source: Source = field(default_factory=Source)
    extras: dict = field(default_factory=dict)


@dataclass
class SensorRecord:
    """``<AttachedSensor>`` (``link`` name, ``transform`` in the link frame) or a
    stand-alone ``<Sensor>`` (``link`` empty, ``transform`` its pose). ``type`` is the sensor
    interface name; ``params`` its child elements kept as :class:`XmlData`."""

    name: str
    link: str = ""
    transform: np.ndarray = field(default_factory=_eye)
    type: str = ""
    file: str = ""
    params: list = field(default_factory=list)
    attrib: dict = field(default_factory=dict)
    source: Source = field(default_factory=Source)


@dataclass
class BodyRecord:
    """The KinBody (``kind="kinbody"``) or Robot (``kind="robot"``) being built."""

    name: str = ""
    kind: str = "kinbody"
    links: list = field(default_factory=list)              # LinkRecord, by index
    joints: list = field(default_factory=list)             # JointRecord, declaration order
    manipulators: list = field(default_factory=list)       # ManipulatorRecord, OpenRAVE's order
    sensors: list = field(default_factory=list)            # SensorRecord (attached)
    forced_adjacent: list = field(default_factory=list)    # (link index, link index)
    jointvalues: Optional[list] = None                     # <jointvalues>, DOF order
    make_joined_links_adjacent: bool = True
    interface_type: str = ""                               # type= (plugin name), kept as data
    controllers: list = field(default_factory=list)        # XmlData
    unknown: list = field(default_factory=list)            # XmlData of skipped elements
    files: list = field(default_factory=list)              # every file read into the body
    source: Source = field(default_factory=Source)
    extras: dict = field(default_factory=dict)

    def link(self, name: str) -> Optional[LinkRecord]:
        """The first link whose name is exactly ``name`` (OpenRAVE's ``GetLink``)."""
        for l in self.links:
            if l.name == name:
                return l
        return None

    def link_ci(self, name: str) -> Optional[LinkRecord]:
        """The first link whose name matches ``name`` ignoring case (joint ``<body>``)."""
        low = name.lower()
        for l in self.links:
            if l.name.lower() == low:
                return l
        return None

    def new_link(self, name: str, source: Source) -> LinkRecord:
        link = LinkRecord(name=name, index=len(self.links), declared_name=name, source=source)
        self.links.append(link)
        return link


@dataclass
class CameraRecord:
    """The viewer camera of an ``<Environment>``: ``transform`` (4x4), ``focal`` distance,
    ``specified`` (OpenRAVE moves the viewer only if a camera tag was present)."""

    transform: np.ndarray = field(default_factory=_eye)
    focal: float = 0.0
    specified: bool = False
    raw: list = field(default_factory=list)         # (tag, values) as read, in order


@dataclass
class InterfaceRecord:
    """Any other interface of an environment (planner, module, physics engine, ...)."""

    tag: str
    type: str = ""
    name: str = ""
    file: str = ""
    element: Optional[XmlData] = None
    source: Source = field(default_factory=Source)


@dataclass
class EnvironmentRecord:
    """``<Environment>``: bodies in the order they were added (each with its
    ``<jointvalues>``), stand-alone sensors, camera, background colour and the rest."""

    bodies: list = field(default_factory=list)          # BodyRecord
    sensors: list = field(default_factory=list)         # SensorRecord
    camera: CameraRecord = field(default_factory=CameraRecord)
    bkgndcolor: Optional[tuple] = None
    unit: Optional[tuple] = None                        # (name, value)
    plugins: list = field(default_factory=list)
    interfaces: list = field(default_factory=list)      # InterfaceRecord
    unknown: list = field(default_factory=list)         # XmlData
    source: Source = field(default_factory=Source)
