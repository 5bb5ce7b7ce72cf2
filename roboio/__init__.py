"""roboio: read, write and convert robot, world, motion and geometry files through one
kinematic world model: Klamp't, OpenRAVE (XML and COLLADA), GraspIt!, Choreonoid, URDF and
the common mesh formats, and MJCF export (``roboio.formats()`` lists them).

>>> import roboio
>>> robot = roboio.load("planar3R.rob")          # doctest: +SKIP
>>> robot.fk([0, 0.5, 0.5]).shape                # doctest: +SKIP
(3, 4, 4)
"""
from . import formats  # the package; calling it lists the formats
from .api import load, load_world, save
from .convert import verify
from .errors import FormatError, RoboioError, RoboioWarning
from .model import (Appearance, Driver, Geometry, Group, Joint, Link, PointCloud, Primitive,
                    RigidObject, Robot, Terrain, Trajectory, TriangleMesh, World)
from .model import ContactPoint, Grasp, Hold, IKObjective, MultiPath, Section, Stance
from .model import BodyMotion, PoseSeq, Seq
from .report import ConversionReport

__version__ = "0.1.0"

__all__ = ["load", "load_world", "save", "formats", "verify", "FormatError", "RoboioError",
           "RoboioWarning", "ConversionReport", "World", "Robot", "Link", "Joint", "Driver",
           "RigidObject", "Terrain", "Geometry", "TriangleMesh", "PointCloud", "Primitive",
           "Group", "Appearance", "Trajectory", "__version__",
           "MultiPath", "Section", "Hold", "Stance", "Grasp", "IKObjective", "ContactPoint",
           "BodyMotion", "Seq", "PoseSeq"]


def sample_path(name: str = "planar3R.rob") -> str:
    """Path of a sample file shipped with roboio (``roboio/data/samples``)."""
    import os
    return os.path.join(os.path.dirname(__file__), "data", "samples", name)
