"""roboio's in-memory model (Klamp't's): worlds, robots, objects, terrains, geometry, motions."""
from .geometry import (Appearance, Geometry, GeometrySource, Group, PointCloud, Primitive,
                       TriangleMesh, PRIMITIVE_KINDS)
from .robot import Driver, Joint, Link, Robot, JOINT_TYPES, DRIVER_TYPES
from .trajectory import Trajectory
from .contact import ContactPoint, Grasp, Hold, IKObjective, Stance
from .multipath import MultiPath, Section
from .world import RigidObject, Terrain, World
from .manipulator import AttachedSensor, Manipulator
from .joint_space import JointSpace
from .joint_tree import TreeJoint, joint_tree

__all__ = ["Appearance", "Geometry", "GeometrySource", "Group", "PointCloud", "Primitive",
           "TriangleMesh", "PRIMITIVE_KINDS", "Driver", "Joint", "Link", "Robot", "JOINT_TYPES",
           "DRIVER_TYPES", "Trajectory", "RigidObject", "Terrain", "World",
           "ContactPoint", "Grasp", "Hold", "IKObjective", "Stance", "MultiPath", "Section",
           "AttachedSensor", "Manipulator", "JointSpace", "TreeJoint", "joint_tree"]
from .body_motion import BodyMotion, IkLink, PoseKey, PoseSeq, Seq  # noqa: E402
__all__ += ["BodyMotion", "IkLink", "PoseKey", "PoseSeq", "Seq"]
