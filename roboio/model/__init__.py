"""roboio's in-memory model (Klamp't's): worlds, robots, objects, terrains, geometry, motions.

Geometry, robots and worlds are imported with the package; the other classes (motions,
contacts, manipulators, the joint-space and tree views) on first use (PEP 562), which keeps
loading a robot file, and the command line, quick.
"""
from .geometry import (Appearance, Geometry, GeometrySource, Group, PointCloud, Primitive,
                       TriangleMesh, PRIMITIVE_KINDS)
from .robot import Driver, Joint, Link, Robot, JOINT_TYPES, DRIVER_TYPES
from .world import RigidObject, Terrain, World

_LAZY = {
    "Trajectory": "trajectory",
    **dict.fromkeys(("ContactPoint", "Grasp", "Hold", "IKObjective", "Stance"), "contact"),
    **dict.fromkeys(("MultiPath", "Section"), "multipath"),
    **dict.fromkeys(("AttachedSensor", "Manipulator"), "manipulator"),
    "JointSpace": "joint_space",
    "TreeJoint": "joint_tree",
    **dict.fromkeys(("BodyMotion", "IkLink", "PoseKey", "PoseSeq", "Seq"), "body_motion"),
}

__all__ = ["Appearance", "Geometry", "GeometrySource", "Group", "PointCloud", "Primitive",
           "TriangleMesh", "PRIMITIVE_KINDS", "Driver", "Joint", "Link", "Robot", "JOINT_TYPES",
           "DRIVER_TYPES", "RigidObject", "Terrain", "World", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
