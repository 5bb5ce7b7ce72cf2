"""roboio: read, write and convert robot, world, motion and geometry files through one
kinematic world model: Klamp't, OpenRAVE (XML and COLLADA), GraspIt!, Choreonoid, URDF and
the common mesh formats, and MJCF export (``roboio.formats()`` lists them).

>>> import roboio
>>> robot = roboio.load("planar3R.rob")          # doctest: +SKIP
>>> robot.fk([0, 0.5, 0.5]).shape                # doctest: +SKIP
(3, 4, 4)
"""
import sys as _sys
import types as _types

from . import formats  # the package; calling it lists the formats (imports no format code)
from .errors import Diagnostic, FormatError, RoboioError, RoboioNote, RoboioWarning

# The rest of the public API is imported on first use (PEP 562), so that ``import roboio``,
# ``roboio --help`` and shell completion do not pay for numpy and the model.
_LAZY = {"load": "api", "load_world": "api", "save": "api", "verify": "convert",
         "ConversionReport": "report"}
_LAZY.update(dict.fromkeys((
    "Appearance", "Driver", "Geometry", "Group", "Joint", "Link", "PointCloud", "Primitive",
    "RigidObject", "Robot", "Terrain", "Trajectory", "TriangleMesh", "World", "ContactPoint",
    "Grasp", "Hold", "IKObjective", "MultiPath", "Section", "Stance", "BodyMotion", "PoseSeq",
    "Seq", "JointSpace"), "model"))


def __getattr__(name):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    if not name.startswith("_"):
        # a submodule (``roboio.convert``, ``roboio.kinematics``): imported eagerly before the
        # package became lazy, so code that reaches it through the package keeps working
        import importlib.util
        if importlib.util.find_spec(f"{__name__}.{name}") is not None:
            return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


class _Package(_types.ModuleType):
    def __setattr__(self, name, value):
        # importing a submodule named like a public function (``roboio.verify``) binds the
        # submodule on the package; keep the name for the function
        if name in _LAZY and isinstance(value, _types.ModuleType) and _LAZY[name] != name:
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package


__version__ = "0.1.0"

__all__ = ["load", "load_world", "save", "formats", "verify", "FormatError", "RoboioError",
           "RoboioWarning", "RoboioNote", "Diagnostic", "ConversionReport", "World", "Robot", "Link", "Joint", "Driver",
           "RigidObject", "Terrain", "Geometry", "TriangleMesh", "PointCloud", "Primitive",
           "Group", "Appearance", "Trajectory", "__version__",
           "MultiPath", "Section", "Hold", "Stance", "Grasp", "IKObjective", "ContactPoint",
           "BodyMotion", "Seq", "PoseSeq", "JointSpace"]


def sample_path(name: str = "planar3R.rob") -> str:
    """Path of a sample file shipped with roboio (``roboio/data/samples``)."""
    import os
    return os.path.join(os.path.dirname(__file__), "data", "samples", name)
