"""What a Choreonoid ``.body`` file says, link by link (SI units, radians), before the
mapping onto roboio's robot model (:mod:`._build`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

__all__ = ["LinkRec", "BodyRecords", "LinkShapes", "JOINT_TYPES"]

JOINT_TYPES = {"revolute": "revolute", "prismatic": "prismatic", "slide": "prismatic", "free": "free",
               "fixed": "fixed", "pseudo_continuous_track": "pseudo_continuous_track",
               "pseudoContinuousTrack": "pseudo_continuous_track"}


class LinkShapes:
    """What a link's elements hold: ``shapes`` as (geometry, "both"|"visual"|"collision"),
    ``rigid_bodies`` as (mass, com, inertia) in the link frame, ``devices`` records,
    ``has_visual_or_collision`` (Choreonoid then splits shapes by model type)."""

    def __init__(self):
        self.shapes: list = []
        self.rigid_bodies: list = []
        self.devices: list = []
        self.has_visual_or_collision = False

    def collision(self):
        return [g for g, kind in self.shapes if kind != "visual"]

    def visual(self):
        return [g for g, kind in self.shapes if kind != "collision"]


@dataclass
class LinkRec:
    """One link as the file describes it (SI units, radians)."""

    name: str
    parent: Optional[str] = None
    line: Optional[int] = None
    joint_name: Optional[str] = None
    translation: np.ndarray = field(default_factory=lambda: np.zeros(3))
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))
    joint_type: str = "fixed"
    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    joint_id: int = -1
    q0: float = 0.0
    qlim: tuple = (-math.inf, math.inf)
    vlim: tuple = (-math.inf, math.inf)
    effort: float = math.inf
    mass: float = 1.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.eye(3))
    material: Optional[str] = None
    shapes: LinkShapes = field(default_factory=LinkShapes)
    info: dict = field(default_factory=dict)
    internal: bool = False          # a link of a sub-body attached to a sub-body parent
    given: set = field(default_factory=set)   # keys the file gave (for the writer)


@dataclass
class BodyRecords:
    name: str
    links: list
    root: str
    format_version: float
    degree: bool
    info: dict
    extra_joints: list
    path: str
