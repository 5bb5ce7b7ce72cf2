"""Motions as timelines: any motion roboio reads (Klamp't ``.path``/``.configs``/multipath,
Choreonoid ``.seq`` and ``.pseq``) applied to a robot, frame by frame.

:func:`timeline` gives a :class:`Timeline`: frame ``times`` (s), the configuration of each
frame when the motion gives one (``configs``, (F, num_links), else None) and the world
transforms of the robot's links at any frames (:meth:`Timeline.transforms`,
:meth:`Timeline.transforms_at`: roboio's FK, or the motion's own root poses). Untimed
milestones are one second apart (Klamp't evaluates them on their index); ``.seq`` frames
are ``1 / frame_rate`` apart (or at their frame times); ``.pseq`` key poses are held until
the next key (Choreonoid's interpolation between keys is not reproduced).

A motion that does not fit the robot is refused with both counts (:func:`check_fits`): a
Klamp't milestone needs one value per link; a Choreonoid motion may not have more joint
columns than the body has joint ids (Choreonoid itself would drop the extra columns
silently: a walk of a 29-joint body played on a 20-joint one); fewer columns are allowed
(the other joints keep the model's values) and :func:`fit_warnings` says so.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from .body_motion import BodyMotion, PoseSeq
from .multipath import MultiPath
from .robot import Robot
from .trajectory import Trajectory

__all__ = ["Timeline", "timeline", "check_fits", "fit_warnings", "motion_kind", "MOTION_TYPES",
           "as_motion"]

#: the model classes that are motions (what :func:`timeline` accepts)
MOTION_TYPES = (Trajectory, MultiPath, BodyMotion, PoseSeq)


def as_motion(obj):
    """``obj`` when it is a motion (:data:`MOTION_TYPES`); the MuJoCo keyframes of an MJCF
    robot (or of the one robot of an MJCF world) as a Trajectory
    (:func:`~roboio.model.qpos.keyframe_trajectory`); else None."""
    if isinstance(obj, MOTION_TYPES):
        return obj
    from .qpos import keyframe_trajectory
    robots = [obj] if isinstance(obj, Robot) else list(getattr(obj, "robots", []))
    if len(robots) == 1:
        return keyframe_trajectory(robots[0])
    return None


@dataclass
class Timeline:
    times: np.ndarray                       # (F,) seconds, non-decreasing
    configs: Optional[np.ndarray]           # (F, num_links) or None
    _batch: Callable[[np.ndarray], np.ndarray]
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
        return self._batch(np.array([int(frame)]))[0]

    def transforms_at(self, frames) -> np.ndarray:
        """(len(frames), num_links, 4, 4) link world transforms at frame indices ``frames``."""
        return self._batch(np.asarray(frames, dtype=np.int64).reshape(-1))


def motion_kind(motion) -> str:
    """How messages name a motion: 'Klamp't trajectory', 'Choreonoid body motion', ..."""
    return {Trajectory: "Klamp't trajectory", MultiPath: "Klamp't multipath",
            BodyMotion: "Choreonoid body motion", PoseSeq: "Choreonoid pose sequence"}.get(
        type(motion), type(motion).__name__)


def _columns(motion) -> int:
    """Joint values per frame: link values of a trajectory, joint ids of a Choreonoid motion."""
    if isinstance(motion, MultiPath):
        return max((s.dimension for s in motion.sections), default=0)
    if isinstance(motion, Trajectory):
        return motion.dimension
    if isinstance(motion, BodyMotion):
        jd = motion.joint_displacement
        return 0 if jd is None else jd.shape[1]
    if isinstance(motion, PoseSeq):
        return max((int(k.joints.max()) + 1 for k in motion.keys if len(k.joints)), default=0)
    raise ValueError(f"a {type(motion).__name__} is not a motion (.path, .configs, multipath, .seq, .pseq)")


def _joint_ids(robot: Robot) -> int:
    if robot.joint_id_links is None:
        raise ValueError(f"robot {robot.name!r} has no Choreonoid joint-id table to play a "
                         "Choreonoid motion on (give a .body model)")
    return len(robot.joint_id_links)


def check_fits(motion, robot: Robot) -> None:
    """ValueError naming both counts unless every value of ``motion`` has a place in
    ``robot`` (see the module docstring)."""
    n = _columns(motion)
    if isinstance(motion, (Trajectory, MultiPath)):
        if n != robot.num_links:
            raise ValueError(f"the {motion_kind(motion)} has {n} values per milestone, robot "
                             f"{robot.name!r} has {robot.num_links} links (one value per link)")
        return
    joints = _joint_ids(robot)
    if n > joints:
        raise ValueError(f"the {motion_kind(motion)} has {n} joint columns, body {robot.name!r} "
                         f"has {joints} joint ids: it is not a motion of this body")


def fit_warnings(motion, robot: Robot) -> list:
    """What applying ``motion`` to ``robot`` leaves at the model's values (fewer joint
    columns than the body has joints)."""
    if isinstance(motion, (BodyMotion, PoseSeq)):
        n, joints = _columns(motion), _joint_ids(robot)
        if n < joints:
            return [f"the {motion_kind(motion)} has {n} joint columns, body {robot.name!r} has "
                    f"{joints} joint ids: joint ids {n}..{joints - 1} keep the model's values"]
    return []


def _trajectory(traj: Trajectory, robot: Robot) -> Timeline:
    Q = np.asarray(traj.milestones, float)
    times = traj.times if traj.times is not None else np.arange(len(Q), dtype=float)
    return Timeline(np.asarray(times, float), Q, lambda idx: robot.fk_batch(Q[idx]))


def _body_motion(m: BodyMotion, robot: Robot) -> Timeline:
    Q = m.robot_configs(robot)
    times = m.times if m.times is not None else np.arange(m.num_frames) / (m.frame_rate or 1.0)
    return Timeline(np.asarray(times, float), Q, lambda idx: m.link_transforms(robot, frames=idx),
                    "body_motion")


def _pose_seq(ps: PoseSeq, robot: Robot) -> Timeline:
    cache: dict = {}

    def at(idx):
        for i in idx:
            if int(i) not in cache:
                cache[int(i)] = ps.key_link_transforms(robot, int(i))
        return np.stack([cache[int(i)] for i in idx]) if len(idx) else np.zeros((0, robot.num_links, 4, 4))
    return Timeline(ps.times, None, at, "pose_seq")


def timeline(motion, robot: Robot) -> Timeline:
    """The :class:`Timeline` of ``motion`` applied to ``robot`` (ValueError when the motion
    is empty or does not fit the robot: :func:`check_fits`)."""
    if isinstance(motion, MultiPath):
        check_fits(motion, robot)
        motion = motion.to_trajectory()
    if isinstance(motion, Trajectory):
        if motion.num_milestones == 0:
            raise ValueError("the motion has no milestones")
        check_fits(motion, robot)
        return _trajectory(motion, robot)
    if isinstance(motion, BodyMotion):
        if motion.num_frames == 0:
            raise ValueError("the motion has no frames")
        check_fits(motion, robot)
        return _body_motion(motion, robot)
    if isinstance(motion, PoseSeq):
        if not motion.keys:
            raise ValueError("the pose sequence has no keys")
        check_fits(motion, robot)
        return _pose_seq(motion, robot)
    raise ValueError(f"a {type(motion).__name__} is not a motion (.path, .configs, multipath, .seq, .pseq)")
