"""What a URDF file says: links, joints and materials as plain records with their source
lines (filled by :mod:`._parse`, turned into a robot by :mod:`._build`); their arrays are
read-only (equal ones shared). Units are URDF's:
metres, radians, kilograms."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

__all__ = ["UrdfModel", "LinkRec", "JointRec", "GeomRec", "VisualRec", "InertialRec", "JOINT_TYPES"]

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")


@dataclass
class GeomRec:
    """One ``<geometry>``: ``kind`` is mesh/box/cylinder/sphere; ``origin`` the 4x4 pose
    of the element in the link frame."""

    kind: str
    origin: np.ndarray
    line: Optional[int]
    filename: str = ""
    scale: tuple = (1.0, 1.0, 1.0)
    size: tuple = (0.0, 0.0, 0.0)
    radius: float = 0.0
    length: float = 0.0


@dataclass
class VisualRec:
    """A ``<visual>`` or ``<collision>`` element (``material`` only for visuals)."""

    geometry: GeomRec
    group: str = "default"
    material_name: Optional[str] = None     # None: no <material> element
    color: Optional[tuple] = None           # inline <color rgba>
    name: Optional[str] = None


@dataclass
class InertialRec:
    mass: float
    origin: np.ndarray                       # 4x4: com position and inertia axes
    inertia: np.ndarray                      # 3x3 symmetric, about the com, origin axes
    line: Optional[int] = None


@dataclass
class LinkRec:
    name: str
    line: Optional[int]
    inertial: Optional[InertialRec] = None
    visuals: list = field(default_factory=list)
    collisions: list = field(default_factory=list)


@dataclass
class JointRec:
    """A ``<joint>``. ``axis`` is None for fixed/floating joints (urdfdom does not read
    it), ``limit`` a dict (lower, upper, effort, velocity) or None, ``dynamics`` (damping,
    friction) or None, ``mimic`` (joint, multiplier, offset, line) or None."""

    name: str
    type: str
    line: Optional[int]
    parent: str
    child: str
    origin: np.ndarray
    axis: Optional[np.ndarray] = None
    limit: Optional[dict] = None
    dynamics: Optional[tuple] = None
    mimic: Optional[tuple] = None


@dataclass
class UrdfModel:
    name: str
    links: dict                              # name -> LinkRec, document order
    joints: dict                             # name -> JointRec, document order
    materials: dict                          # name -> rgba tuple or None (texture only)
    root_element: object = None
