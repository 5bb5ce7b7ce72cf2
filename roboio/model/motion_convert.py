"""Choreonoid body motions <-> Klamp't trajectories (``.path``, MultiPath), through a body model.

A ``.seq`` file addresses joints by **joint id**, a Klamp't path holds whole configurations
(one value per link of the robot). The mapping needs the body model: a robot read from a
Choreonoid ``.body`` file (its ``robot.joint_id_links`` table), or any robot with a
``joint_map`` (joint id -> link). :func:`roboio.convert.adapt` applies these conversions when
a motion is saved to the other kind of format, with the body model attached as
``motion.body`` (``roboio convert IN OUT --body MODEL`` attaches it).

* motion -> trajectory: configuration = the model's initial configuration with joint id j set
  from column j; the floating base (Klamp't ``floating`` joint: x, y, z, yaw, pitch, roll) from
  LinkPosition part 0 when the motion has one, else the model's initial root pose. Times: the
  frame times of frame-time data, else i / frame_rate. ZMP, extra components and poses of other
  links are reported lost.
* trajectory -> motion: JointDisplacement columns by joint id, LinkPosition part 0 = the root
  link's pose computed by forward kinematics. Evenly spaced times give a fixed-rate motion
  (frame_rate = 1 / step, starting at frame 0); other times are kept as frame times
  (``hasFrameTime``, Choreonoid resamples them on import).
"""
from __future__ import annotations

import numpy as np

from .. import transforms as tf
from .body_motion import BodyMotion, Seq, _joint_dofs, _root_index, floating_base, set_floating_base
from .multipath import MultiPath
from .robot import Robot
from .trajectory import Trajectory

__all__ = ["motion_to_trajectory", "trajectory_to_motion"]


def motion_to_trajectory(motion: BodyMotion, robot: Robot, report=None, joint_map=None) -> Trajectory:
    """Klamp't configurations (F, num_links) of ``robot`` for every frame of ``motion``."""
    def lose(item, kind="not written"):
        if report is not None:
            report.lose(item, kind=kind)

    Q = motion.robot_configs(robot, joint_map)
    jd = motion.joint_displacement
    dofs = _joint_dofs(robot, joint_map)
    if jd is not None and jd.shape[1] > len(dofs):
        lose(f"joint displacement columns {len(dofs)}..{jd.shape[1] - 1} (the model has no such joint ids)", kind="not written")
    roots = motion.root_transforms()
    if roots is not None:
        chain = floating_base(robot)
        if chain is None:
            lose("root link poses (LinkPosition): the model's root is not a Klamp't floating base", kind="not written")
        else:
            set_floating_base(robot, chain, Q, roots)
    lp = motion.link_positions
    if lp is not None and lp.shape[1] > 1:
        lose(f"poses of {lp.shape[1] - 1} non-root links (LinkPosition parts 1..)", kind="not written")
    for c in motion.components:
        if c.role not in ("joint_displacement", "link_position"):
            lose(f"component {c.type} {c.content}" + (" (ZMP)" if c.role == "zmp" else ""), kind="not written")
    times = motion.times
    if times is None:
        if not motion.frame_rate:
            raise ValueError("the motion has no frame rate")
        times = np.arange(motion.num_frames) / motion.frame_rate
    return Trajectory(np.array(times, dtype=float), Q)


def _regular_rate(times: np.ndarray):
    """frames/s when ``times`` are evenly spaced (to 1e-9 of the step), else None."""
    if len(times) < 2:
        return None
    d = np.diff(times)
    step = (times[-1] - times[0]) / (len(times) - 1)
    if not step > 0 or np.max(np.abs(d - step)) > 1e-9 * max(step, 1e-300) + 1e-12:
        return None
    rate = 1.0 / step
    nearest = round(rate)
    return float(nearest) if nearest and abs(rate - nearest) <= 1e-9 * rate else rate


def trajectory_to_motion(traj, robot: Robot, report=None, joint_map=None,
                         frame_rate: float | None = None) -> BodyMotion:
    """A :class:`BodyMotion` (root LinkPosition + JointDisplacement by joint id) from a
    Klamp't trajectory or MultiPath of ``robot``. ``frame_rate`` forces the rate written
    (frame times are then kept when the trajectory's times are not on that grid)."""
    def lose(item, kind="not written"):
        if report is not None:
            report.lose(item, kind=kind)

    if isinstance(traj, MultiPath):
        for item in traj.trajectory_losses():
            lose(item, kind=getattr(item, "kind", None) or "not written")
        traj = traj.to_trajectory()
    Q = np.asarray(traj.milestones, dtype=float)
    if Q.ndim != 2 or Q.shape[1] != robot.num_links:
        raise ValueError(f"the trajectory has {Q.shape[-1] if Q.ndim == 2 else 0} values per "
                         f"milestone, the model {robot.name!r} has {robot.num_links} links")
    if not len(Q):
        raise ValueError("the trajectory has no milestones")
    dofs = _joint_dofs(robot, joint_map)
    jd = np.zeros((len(Q), len(dofs)))
    ok = dofs >= 0
    jd[:, ok] = Q[:, dofs[ok]]
    if not ok.all() and report is not None:
        report.warn(f"joint ids {np.flatnonzero(~ok).tolist()} have no link in the model (written as 0)",
                    kind="target default")
    T = robot.fk_batch(Q)[:, _root_index(robot)]
    pose = np.concatenate([T[:, :3, 3], tf.matrix_to_quat(T[:, :3, :3])], axis=1)
    used = set(dofs[ok].tolist()) | set(floating_base(robot) or [])
    moving = [robot.links[i].name for i in range(robot.num_links)
              if i not in used and np.ptp(Q[:, i]) > 0]
    if moving:
        lose(f"values of links without a joint id: {', '.join(moving)}", kind="not written")
    times = traj.times if traj.times is not None else np.arange(len(Q), dtype=float)
    if traj.times is None:
        lose("untimed milestones: timed 0, 1, 2, ... s", kind="target default")
    rate = _regular_rate(times) if frame_rate is None else float(frame_rate)
    frame_times = None
    if rate is None or (frame_rate is not None and _regular_rate(times) != frame_rate):
        frame_times = times
        if rate is None:            # the finest step, so that Choreonoid's import keeps every sample
            d = np.diff(times)
            rate = 1.0 / float(d[d > 0].min()) if np.any(d > 0) else 1.0
            rate = float(round(rate)) if round(rate) and abs(rate - round(rate)) <= 1e-9 * rate else rate
        if np.any(times < 0):
            raise ValueError("negative trajectory times cannot be written as Choreonoid frame times")
        if report is not None:
            report.warn("times are not evenly spaced: written as frame times (hasFrameTime); "
                        "Choreonoid resamples them at the frame rate", kind="read differently")
    elif times[0] != 0:
        lose(f"start time {times[0]!r} s (Choreonoid motions start at 0)", kind="not written")
    comps = [Seq("MultiSE3Seq", "LinkPosition", pose[:, None, :], frame_rate=rate, times=frame_times,
                 role="link_position", se3_format="XYZQWQXQYQZ"),
             Seq("MultiValueSeq", "JointDisplacement", jd, frame_rate=rate, times=frame_times,
                 role="joint_displacement")]
    m = BodyMotion(comps, frame_rate=rate)
    m.body = robot
    return m
