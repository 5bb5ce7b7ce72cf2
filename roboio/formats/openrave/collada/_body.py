"""What OpenRAVE's COLLADA reader builds: links, joints, manipulators, sensors of one body.

These mirror OpenRAVE's in-memory ``KinBody``/``RobotBase`` (``LinkInfo``, ``JointInfo``,
``ManipulatorInfo``, ``AttachedSensorInfo``) as its COLLADA reader fills them, in SI units
(metres, radians) and in the coordinates of the body being built:

* a link's ``transform`` is its pose when it was created (the zero configuration);
* a joint's ``anchor`` and ``axes`` are in its parent link's frame and ``trel`` is the child's
  pose relative to the parent at creation (OpenRAVE freezes it then): the child's pose at
  joint values ``q`` is ``T(parent) . Tr(anchor) . M(q) . Tr(-anchor) . trel`` with ``M`` the
  rotations ``R(axis_i, q_i)`` / translations ``axis_i . q_i`` of the axes in order;
* ``joints`` lists active joints in OpenRAVE's joint order (after ``attach_actuator``
  reordering); ``passive_joints`` the rest. The DOF order is ``joints`` without mimic joints,
  each contributing one DOF per axis.

Each record keeps the source line of the element it came from.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

__all__ = ["CGeometry", "CLink", "CMimic", "CJoint", "CManipulator", "CSensor", "CBody"]


def _eye():
    return np.eye(4)


@dataclass
class CGeometry:
    """One OpenRAVE geometry of a link.

    ``kind``: ``trimesh``, ``box`` (``half_extents``), ``sphere`` (``radius``), ``cylinder``
    (``radius``, ``height``, along the geometry's z axis), ``calibration_board``
    (``half_extents`` + board ``parameters``), ``container`` (``outer_extents``,
    ``inner_extents``, ``bottom_cross``, ``bottom``) or ``cage`` (``half_extents``,
    ``inner_size``, ``sidewalls``). ``transform`` places the geometry frame in the link frame
    (it may scale, see docs/collada.md); mesh ``vertices`` are in the geometry frame.
    Colours are RGB in [0, 1]; ``transparency`` 0 = opaque."""

    name: str
    kind: str
    transform: np.ndarray = field(default_factory=_eye)
    params: dict = field(default_factory=dict)
    vertices: Optional[np.ndarray] = None
    faces: Optional[np.ndarray] = None
    diffuse: Optional[tuple] = None
    ambient: Optional[tuple] = None
    transparency: float = 0.0
    visible: bool = True
    line: Optional[int] = None


@dataclass
class CLink:
    name: str
    sid: str
    transform: np.ndarray = field(default_factory=_eye)
    geometries: list = field(default_factory=list)
    mass: float = 1e-10
    inertia_moments: tuple = (1e-7, 1e-7, 1e-7)
    mass_frame: np.ndarray = field(default_factory=_eye)   # principal inertia frame, link frame
    static: bool = False
    enabled: bool = True
    has_rigid_body: bool = False
    float_parameters: dict = field(default_factory=dict)
    int_parameters: dict = field(default_factory=dict)
    string_parameters: dict = field(default_factory=dict)
    geometry_groups: dict = field(default_factory=dict)   # group name -> list of CGeometry
    line: Optional[int] = None
    created_here: bool = True      # False: an existing link of the body, re-used by name
    memo: dict = field(default_factory=dict)   # numbers as written (metre files), for writing back


@dataclass
class CMimic:
    """Mimic equation of axis 0: OpenRAVE's function-parser text ``equation`` (joint names as
    variables, internal units), the parsed ``expr`` and, when affine in one joint,
    ``affine = (joint name, scale, offset)``. ``partials`` keeps the written derivative
    equations (OpenRAVE's format ``|joint expr ...``), not trusted for kinematics."""

    equation: str
    expr: object = None
    affine: Optional[tuple] = None
    velocity: str = ""
    acceleration: str = ""
    line: Optional[int] = None


@dataclass
class CJoint:
    name: str
    sid: str
    axis_types: list                   # "revolute" | "prismatic" per axis
    parent: CLink
    child: CLink
    anchor: np.ndarray
    axes: list                         # unit vectors, parent frame
    trel: np.ndarray
    active: bool = True
    lower: list = field(default_factory=list)
    upper: list = field(default_factory=list)
    circular: list = field(default_factory=list)
    max_velocity: list = field(default_factory=list)
    max_acceleration: list = field(default_factory=list)
    max_jerk: list = field(default_factory=list)
    hard_max_velocity: list = field(default_factory=list)
    hard_max_acceleration: list = field(default_factory=list)
    hard_max_jerk: list = field(default_factory=list)
    weights: list = field(default_factory=list)
    resolutions: list = field(default_factory=list)
    initial: list = field(default_factory=list)          # bind_joint_axis values (stored config)
    mimic: Optional[CMimic] = None
    electric_motor: dict = field(default_factory=dict)
    float_parameters: dict = field(default_factory=dict)
    int_parameters: dict = field(default_factory=dict)
    string_parameters: dict = field(default_factory=dict)
    control_info: dict = field(default_factory=dict)
    axes_as_written: list = field(default_factory=list)  # joint-frame axes of the file
    attachment: np.ndarray = field(default_factory=_eye)  # attachment_full transform
    memo: dict = field(default_factory=dict)   # numbers as written (metre files), for writing back
    line: Optional[int] = None

    @property
    def dof(self) -> int:
        return len(self.axis_types)

    def is_revolute(self, i: int = 0) -> bool:
        return self.axis_types[i] == "revolute"


@dataclass
class CManipulator:
    name: str
    base: str
    effector: str
    ik_chain_end: str = ""
    tool_transform: np.ndarray = field(default_factory=_eye)
    direction: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    gripper_joints: list = field(default_factory=list)
    chucking_direction: list = field(default_factory=list)
    ik_solver: str = ""
    gripper_name: str = ""
    tool_changer_connected_body_tool_name: str = ""
    tool_changer_link_name: str = ""
    restrict_graspset_names: list = field(default_factory=list)
    line: Optional[int] = None


@dataclass
class CSensor:
    name: str
    link: str
    transform: np.ndarray = field(default_factory=_eye)
    type: str = ""
    params: dict = field(default_factory=dict)      # lower-cased child tag -> text
    reference_attached_sensor: str = ""
    sensor_maker: str = ""
    sensor_model: str = ""
    line: Optional[int] = None


@dataclass
class CBody:
    """A body being built (possibly from several reads, see ``append``)."""

    name: str = ""
    id: str = ""
    is_robot: bool = False
    interface: str = ""
    description: str = ""
    links: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    passive_joints: list = field(default_factory=list)
    manipulators: list = field(default_factory=list)
    sensors: list = field(default_factory=list)
    gripper_infos: list = field(default_factory=list)
    adjacent: list = field(default_factory=list)          # forced-adjacent (CLink, CLink) pairs
    readable: dict = field(default_factory=dict)          # extra data kept verbatim
    unsupported: list = field(default_factory=list)       # what was read but not represented
    closed_loops: list = field(default_factory=list)      # attachment_start/end, as written
    up_axis: str = "Z_UP"
    gravity: Optional[tuple] = None
    document: str = ""            # the document last read into the body (messages, sources)

    def link(self, name: str) -> Optional[CLink]:
        for l in self.links:
            if l.name == name:
                return l
        return None

    def all_joints(self) -> list:
        return list(self.joints) + list(self.passive_joints)

    def joint(self, name: str) -> Optional[CJoint]:
        for j in self.all_joints():
            if j.name == name:
                return j
        return None

    def dof_joints(self) -> list:
        """Joints carrying DOFs, in DOF order (active, not mimic)."""
        return [j for j in self.joints if j.mimic is None]
