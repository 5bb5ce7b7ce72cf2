"""Klamp't's Python modeling API on top of roboio's model, kinematics and file formats.

Scripts written against ``klampt`` run with one changed import line::

    from roboio.compat.klampt import WorldModel, Geometry3D
    from roboio.compat.klampt.math import so3, se3, vectorops

    world = WorldModel()
    world.loadElement("planar3R.rob")
    robot = world.robot(0)
    robot.setConfig([0, math.pi / 4, math.pi / 4])
    robot.link(2).getWorldPosition([1, 0, 0])

The classes are views: editing through them edits the underlying roboio model
(``world.model``, ``robot.model``), which roboio's writers then save. Conventions are
Klamp't's: rotations are column-major 9-lists, transforms ``(R, t)`` pairs, configurations
lists, Jacobians numpy arrays (angular rows first), IDs numbered as Klamp't numbers them.

Not provided (they raise :class:`NotSupportedError`, a ``NotImplementedError``, saying
why): dynamics, collision and proximity queries, volumetric geometry, textures and sensors.
Drawing (``drawGL`` ...) raises :class:`OpenGLNotAvailable`: roboio has no viewer.
"""
from . import math
from ._common import NotSupportedError, OpenGLNotAvailable
from .appearance import Appearance
from .geometry import GeometricPrimitive, Geometry3D, PointCloud, TriangleMesh
from .mass import Mass
from .math import se3, so3, vectorops
from .robot import RobotModel, RobotModelDriver, RobotModelLink
from .world import ContactParameters, RigidObjectModel, TerrainModel, WorldModel

__all__ = ["WorldModel", "RobotModel", "RobotModelLink", "RobotModelDriver", "RigidObjectModel",
           "TerrainModel", "ContactParameters", "Mass", "Geometry3D", "Appearance",
           "TriangleMesh", "PointCloud", "GeometricPrimitive", "so3", "se3", "vectorops",
           "math", "NotSupportedError", "OpenGLNotAvailable"]
