"""Forward kinematics and Jacobians of one-DOF-per-link trees.

:class:`KinematicModel` is compiled once from arrays (it never sees files or model
objects) and then evaluates any number of configurations, singly, batched or in chunks,
through a backend: a compiled C kernel when it was built, numpy otherwise
(:mod:`roboio.kinematics.backends`; see docs/kinematics.md).
"""
from .backends import available_backends, get_backend, set_backend, use_backend
from .model import KinematicModel
from .workspace import Workspace

__all__ = ["KinematicModel", "Workspace", "available_backends", "get_backend", "set_backend",
           "use_backend"]
