"""What GraspIt! files say, as plain records (units as written: mm, g, degrees), each with
its source line. :mod:`._parse` makes them, :mod:`._build` turns them into the model,
:mod:`._writer` writes them back (the model's values win where they differ)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

__all__ = ["TransformPart", "TransformRec", "BodyRec", "DofRec", "DofExpr", "JointRec",
           "LinkRec", "ChainRec", "RobotRec", "ApproachRec", "FlockRec", "WorldItem",
           "ConnectionRec", "CameraRec", "WorldRec", "Number"]


@dataclass
class Number:
    """A scalar as written: ``text`` and the value GraspIt! reads from it (``QString::
    toDouble``: unparsable text reads as 0.0, ``ok`` False)."""

    text: str
    value: float
    ok: bool = True


@dataclass
class TransformPart:
    """One child of ``<transform>``: ``kind`` is ``translation``, ``rotation``,
    ``rotationMatrix``, ``fullTransform`` or ``other`` (ignored by GraspIt!); ``values``
    the numbers (rotation: angle in degrees; fullTransform: w x y z tx ty tz), ``axis`` the
    rotation's axis letter."""

    kind: str
    values: tuple = ()
    axis: Optional[str] = None
    name: str = ""
    line: Optional[int] = None


@dataclass
class TransformRec:
    parts: list = field(default_factory=list)
    line: Optional[int] = None


@dataclass
class BodyRec:
    """A body description (body file root or an inline world ``<body>``)."""

    path: Optional[str]                    # the body file (None: inline in a world)
    line: Optional[int] = None
    material: Optional[str] = None          # as written (None: element absent)
    material_line: Optional[int] = None
    youngs: Optional[Number] = None
    normal_compliance: Optional[Number] = None
    shear_compliance: Optional[Number] = None
    flock_of_birds: Optional[Number] = None
    geometry_file: Optional[str] = None
    geometry_type: Optional[str] = None     # the attribute as written (None: absent)
    geometry_line: Optional[int] = None
    scaling: Optional[Number] = None        # <geometryScaling>
    scaling_xyz: tuple = (None, None, None)  # <geometryScalingX/Y/Z>
    offset: Optional[TransformRec] = None   # <geometryOffset><transform>
    mass: Optional[Number] = None
    cog: Optional[tuple] = None             # 3 Numbers
    inertia: Optional[tuple] = None         # 9 Numbers (row-major, mm^2 per unit mass)
    mass_line: Optional[int] = None


@dataclass
class DofExpr:
    """A DOF expression scanned GraspIt!'s way: ``d<dof>[*<ratio>][+<offset>]``;
    ``ignored`` is what GraspIt! silently skips (``-2.46`` in ``d1-2.46``)."""

    text: str
    dof: int
    ratio: float = 1.0
    offset: float = 0.0          # degrees (revolute theta) or mm (prismatic d)
    ratio_text: Optional[str] = None
    offset_text: Optional[str] = None
    ignored: str = ""


@dataclass
class DofRec:
    type: str                    # "r", "b" or "c"
    default_velocity: Number
    max_effort: Number
    kp: Number
    kd: Number
    dragger_scale: Number
    default_value: Optional[Number] = None    # degrees (even for prismatic DOFs)
    breakaway_torque: Optional[Number] = None  # N m ("b" only)
    line: Optional[int] = None
    name: Optional[str] = None   # roboio's ``name`` attribute (the model's driver name; GraspIt! ignores it)


@dataclass
class JointRec:
    type: str                    # "Revolute" or "Prismatic"
    theta: object                # DofExpr (revolute) or Number (degrees)
    d: object                    # Number (mm) or DofExpr (prismatic)
    a: Number
    alpha: Number
    min: Number                  # degrees / mm, as written (may be reversed)
    max: Number
    viscous_friction: Optional[Number] = None
    coulomb_friction: Optional[Number] = None
    spring_stiffness: Optional[Number] = None
    rest_value: Optional[Number] = None
    line: Optional[int] = None
    name: Optional[str] = None   # roboio's own attribute (GraspIt! ignores it)

    @property
    def expr(self) -> DofExpr:
        return self.theta if self.type == "Revolute" else self.d


@dataclass
class LinkRec:
    file: str
    dynamic_joint_type: str      # as written (stripped)
    line: Optional[int] = None
    collision_rule: Optional[str] = None
    target_chain: Optional[str] = None
    target_link: Optional[str] = None
    sensor_type: Optional[str] = None
    name: Optional[str] = None   # roboio's own attribute (GraspIt! ignores it)
    body: Optional[BodyRec] = None
    body_path: Optional[str] = None

    @property
    def joints_consumed(self) -> int:
        return {"Revolute": 1, "Prismatic": 1, "Universal": 2, "Ball": 3}.get(self.dynamic_joint_type, 0)


@dataclass
class ChainRec:
    transform: Optional[TransformRec]
    joints: list
    links: list
    filters: list = field(default_factory=list)      # raw XML of <filter> elements
    line: Optional[int] = None


@dataclass
class ApproachRec:
    reference_location: tuple     # mm
    direction: tuple
    line: Optional[int] = None


@dataclass
class FlockRec:
    number: str
    transform: TransformRec
    line: Optional[int] = None


@dataclass
class RobotRec:
    """A robot file. ``extra_xml``: elements kept verbatim for writing back (``<filter>``,
    ``<tendon>``, ``<tendonWrapper>``, ``<disableCollision>`` as written)."""

    path: str
    type: str
    dbname: Optional[str]
    palm: str
    palm_line: Optional[int]
    palm_sensor_type: Optional[str]
    dofs: list
    chains: list
    approach: Optional[ApproachRec] = None
    eigengrasps: Optional[str] = None
    virtual_contacts: Optional[str] = None
    cyberglove: Optional[str] = None
    flock: Optional[FlockRec] = None
    disable_collisions: list = field(default_factory=list)   # (b1_link, b1_chain, b2_link, b2_chain, line)
    extra_xml: list = field(default_factory=list)
    palm_body: Optional[BodyRec] = None
    palm_body_path: Optional[str] = None
    palm_name: Optional[str] = None          # roboio's own attribute (GraspIt! ignores it)

    @property
    def name(self) -> str:
        import os
        return os.path.splitext(os.path.basename(self.path))[0]


@dataclass
class WorldItem:
    """An ``<obstacle>``, ``<graspableBody>`` or ``<robot>`` of a world file."""

    kind: str
    filename: Optional[str] = None
    body: Optional[BodyRec] = None           # inline <body>
    transform: Optional[TransformRec] = None
    dof_values: Optional[str] = None          # text as written
    line: Optional[int] = None


@dataclass
class ConnectionRec:
    parent_robot: int
    parent_chain: int
    child_robot: int
    transform: Optional[TransformRec]
    mount_filename: Optional[str] = None
    line: Optional[int] = None
    stale_transform: bool = False             # no <transform>: GraspIt! reuses the last one read


@dataclass
class CameraRec:
    position: tuple
    orientation: tuple                        # x y z w (Inventor order)
    focal_distance: Number
    line: Optional[int] = None


@dataclass
class WorldRec:
    path: str
    items: list                                # WorldItem / ConnectionRec / CameraRec in order
