"""Forward kinematics and Jacobians of one-DOF-per-link trees, on numpy.

:class:`KinematicModel` is compiled once from arrays (it never sees files or model
objects) and then evaluates any number of configurations, singly or batched.
"""
from .model import KinematicModel

__all__ = ["KinematicModel"]
