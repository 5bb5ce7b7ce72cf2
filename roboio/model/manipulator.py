"""End effectors and sensors attached to robot links (OpenRAVE ``<Manipulator>`` and
``<AttachedSensor>``, their COLLADA ``<extra>`` forms, and what other formats can map onto
them). Link references are link indices of the owning :class:`~roboio.model.Robot`;
transforms are 4x4 in the frame of the link they are attached to (metres)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

__all__ = ["Manipulator", "AttachedSensor"]


@dataclass
class Manipulator:
    """A chain from ``base`` to ``effector`` (link indices) with a tool frame.

    ``tool_transform``: the tool frame in the effector's frame; ``direction``: the approach
    direction in the tool frame; ``gripper_links``: links moved by the gripper joints, with
    ``closing_direction`` one value per gripper link (OpenRAVE's sign convention);
    ``arm_links``: links between base and effector moved by the arm joints (in chain order);
    ``ik_solver``: the IK solver name as written (OpenRAVE's ``iksolver``)."""

    name: str
    base: int
    effector: int
    tool_transform: np.ndarray = field(default_factory=lambda: np.eye(4))
    direction: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    arm_links: list = field(default_factory=list)
    gripper_links: list = field(default_factory=list)
    closing_direction: list = field(default_factory=list)
    ik_solver: str = ""
    extras: dict = field(default_factory=dict)


@dataclass
class AttachedSensor:
    """A sensor fixed to ``link`` (index; -1 = world) at ``transform`` (4x4, link frame).
    ``type`` is the sensor type as the file names it; ``params`` its fields as read (kept
    for the same format to write back)."""

    name: str
    link: int
    transform: np.ndarray = field(default_factory=lambda: np.eye(4))
    type: str = ""
    params: dict = field(default_factory=dict)
    extras: dict = field(default_factory=dict)
    source_line: Optional[int] = None
