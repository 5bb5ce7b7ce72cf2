"""Motions as timelines: any motion roboio reads (Klamp't ``.path``/``.configs``/multipath,
Choreonoid ``.seq`` and ``.pseq``) applied to a robot, frame by frame.

:func:`timeline` gives a :class:`Timeline`: frame ``times`` (s), the configuration of each
frame when the motion gives one (``configs``, (F, num_links), else None) and
:meth:`Timeline.transforms` (link world transforms at a frame, by roboio's FK or by the
motion's own root poses). Untimed milestones are one second apart (Klamp't evaluates them
on their index); ``.seq`` frames are ``1 / frame_rate`` apart (or at their frame times);
``.pseq`` key poses are held until the next key (Choreonoid's interpolation between keys is
not reproduced).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from ..model import BodyMotion, MultiPath, PoseSeq, Robot, Trajectory

__all__ = ["Timeline", "timeline", "motion_columns"]


@dataclass
class Timeline:
    times: np.ndarray                       # (F,) seconds, non-decreasing
    configs: Optional[np.ndarray]           # (F, num_links) or None
    _transforms: Callable[[int], np.ndarray]
    kind: str = "trajectory"

    @property
    def num_frames(self) -> int:
        return len(self.times)

    @property
    def start(self) -> float:
        return float(self.times[0]) if len(self.times) else 0.0

    @property
    def end(self) -> float:
        return float(self.times[-1]) if len(self.times) else 0.0

    @property
    def rate(self) -> float:
        """Frames per second of the motion (median frame spacing)."""
        d = np.diff(self.times)
        d = d[d > 0]
        return float(1.0 / np.median(d)) if len(d) else 1.0

    def frame_at(self, t: float) -> int:
        """The last frame whose time is <= ``t`` (the first frame before the start)."""
        return int(np.clip(np.searchsorted(self.times, t, side="right") - 1, 0, len(self.times) - 1))

    def transforms(self, frame: int) -> np.ndarray:
        """(num_links, 4, 4) link world transforms at ``frame``."""
        return self._transforms(int(frame))


def _trajectory(traj: Trajectory, robot: Robot) -> Timeline:
    Q = np.asarray(traj.milestones, float)
    if Q.ndim != 2 or Q.shape[1] != robot.num_links:
        raise ValueError(f"the motion has {Q.shape[-1] if Q.ndim == 2 else 0} values per milestone, "
                         f"robot {robot.name!r} has {robot.num_links} links")
    times = traj.times if traj.times is not None else np.arange(len(Q), dtype=float)
    return Timeline(np.asarray(times, float), Q, lambda i: robot.fk(Q[i]))


def _body_motion(m: BodyMotion, robot: Robot) -> Timeline:
    Q = m.robot_configs(robot)
    T = m.link_transforms(robot)
    times = m.times if m.times is not None else np.arange(m.num_frames) / (m.frame_rate or 1.0)
    return Timeline(np.asarray(times, float), Q, lambda i: T[i], "body_motion")


def _pose_seq(ps: PoseSeq, robot: Robot) -> Timeline:
    cache: dict = {}

    def at(i):
        if i not in cache:
            cache[i] = ps.key_link_transforms(robot, i)
        return cache[i]
    return Timeline(ps.times, None, at, "pose_seq")


def timeline(motion, robot: Robot) -> Timeline:
    """The :class:`Timeline` of ``motion`` applied to ``robot``."""
    if isinstance(motion, MultiPath):
        motion = motion.to_trajectory()
    if isinstance(motion, Trajectory):
        if motion.num_milestones == 0:
            raise ValueError("the motion has no milestones")
        return _trajectory(motion, robot)
    if isinstance(motion, BodyMotion):
        if motion.num_frames == 0:
            raise ValueError("the motion has no frames")
        return _body_motion(motion, robot)
    if isinstance(motion, PoseSeq):
        if not motion.keys:
            raise ValueError("the pose sequence has no keys")
        return _pose_seq(motion, robot)
    raise ValueError(f"a {type(motion).__name__} is not a motion (.path, .configs, multipath, .seq, .pseq)")


def motion_columns(motion, robot: Optional[Robot] = None):
    """What :func:`roboio.view.plot.plot_motion` draws: ``(times (F,), values (F, J),
    names [J], limits (J, 2), units [J], step)``. Columns are the motion's own (link DOFs of
    a Klamp't path, joint ids of a Choreonoid motion); names and limits come from ``robot``
    when given (NaN limits otherwise). ``step`` is True for key poses held until the next."""
    if isinstance(motion, MultiPath):
        motion = motion.to_trajectory()
    step = False
    if isinstance(motion, Trajectory):
        values = np.asarray(motion.milestones, float)
        times = motion.times if motion.times is not None else np.arange(len(values), dtype=float)
        dofs = np.arange(values.shape[1])
        names = [f"dof {i}" for i in dofs]
    elif isinstance(motion, BodyMotion):
        values = motion.joint_displacement
        if values is None:
            raise ValueError("the motion has no joint displacements to plot")
        times = motion.times if motion.times is not None else np.arange(len(values)) / (motion.frame_rate or 1.0)
        dofs = _joint_links(robot, values.shape[1])
        names = [f"joint id {j}" for j in range(values.shape[1])]
    elif isinstance(motion, PoseSeq):
        n = max((int(k.joints.max()) + 1 for k in motion.keys if len(k.joints)), default=0)
        values = np.array([k.joint_values(n) for k in motion.keys]).reshape(len(motion.keys), n)
        times = motion.times
        dofs = _joint_links(robot, n)
        names = [f"joint id {j}" for j in range(n)]
        step = True
    else:
        raise ValueError(f"a {type(motion).__name__} is not a motion (.path, .configs, multipath, .seq, .pseq)")
    J = values.shape[1]
    limits = np.full((J, 2), np.nan)
    units = ["" for _ in range(J)]
    if robot is not None:
        if isinstance(motion, Trajectory) and J != robot.num_links:
            raise ValueError(f"the motion has {J} values per milestone, robot {robot.name!r} has "
                             f"{robot.num_links} links")
        for j, d in enumerate(dofs):
            if d is None or d < 0:
                continue
            link = robot.links[d]
            names[j] = link.name if isinstance(motion, Trajectory) else f"{link.name} (id {j})"
            limits[j] = robot.qmin[d], robot.qmax[d]
            units[j] = "m" if link.joint_type == "prismatic" else "rad"
    return np.asarray(times, float), values, names, limits, units, step


def _joint_links(robot, n):
    if robot is None:
        return [None] * n
    table = robot.joint_id_links
    if table is None:
        raise ValueError(f"robot {robot.name!r} has no Choreonoid joint-id table (give a .body model)")
    return [int(table[j]) if j < len(table) else None for j in range(n)]
