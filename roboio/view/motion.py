"""What the viewer and plots draw of a motion: its timeline applied to a robot
(:mod:`roboio.model.timeline`, re-exported here) and its joint columns over time
(:func:`motion_columns`)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..model import BodyMotion, MultiPath, PoseSeq, Robot, Trajectory
from ..model.timeline import Timeline, check_fits, timeline

__all__ = ["Timeline", "timeline", "motion_columns"]


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
        check_fits(motion, robot)
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
