"""Resampling any motion to a fixed frame rate, and what the new rate loses.

:func:`resample` gives a fixed-rate copy of a Klamp't trajectory (or multipath, concatenated)
or a Choreonoid body motion: trajectories are evaluated as Klamp't evaluates them (linear
interpolation, clamped at the ends) at ``t0 + k / rate``; body motions follow
:meth:`roboio.model.BodyMotion.resampled` (``hold``: Choreonoid's frame-time rule,
``linear``: interpolation and slerp). A Choreonoid pose sequence is key poses that Choreonoid
turns into frames by its own interpolation (IK, splines), which roboio does not reproduce:
it is refused.

:func:`resampling_loss` measures what the resampled motion no longer says: how many of the
original frames fall on no new frame (their instants are not samples any more) and, read
back at every original frame's time the way the new motion is read (linearly, or holding a
frame as Choreonoid does), the largest difference from the original values (radians or
metres of a joint, metres of a link position) and which column it is in.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .body_motion import BodyMotion, PoseSeq
from .multipath import MultiPath
from .trajectory import Trajectory

__all__ = ["resample", "resampling_loss", "ResamplingLoss", "resample_trajectory"]

#: frames closer than this (s) are the same instant
TIME_TOL = 1e-9


@dataclass
class ResamplingLoss:
    """What resampling ``frames_before`` frames to ``frames_after`` lost: ``dropped``
    original frames whose instants are no new frame; ``max_error`` the largest difference
    from an original value read back at its time (units of ``column``: rad or m), in
    ``column`` (a description such as ``"joint id 3"``) at ``time`` (s)."""

    frames_before: int
    frames_after: int
    dropped: int
    max_error: float
    column: str = ""
    time: float = 0.0

    @property
    def lossless(self) -> bool:
        return self.dropped == 0 and self.max_error == 0.0

    def describe(self) -> str:
        pct = 100.0 * self.dropped / max(self.frames_before, 1)
        text = (f"{self.dropped:,} of {self.frames_before:,} frames ({pct:.0f}%) are no frame of "
                f"the resampled motion ({self.frames_after:,} frames)")
        if self.max_error > 0:
            text += (f"; read back at the original frames it differs by up to "
                     f"{self.max_error:.3g} ({self.column} at t = {self.time:g} s)")
        return text


def resample_trajectory(traj: Trajectory, rate: float) -> Trajectory:
    """``traj`` at ``rate`` frames per second from its start to its end (the last frame at or
    before the end), evaluated by :meth:`Trajectory.eval` (linear, Klamp't's rule). An
    untimed trajectory is timed by milestone index, as Klamp't evaluates it."""
    from ..limits import check_alloc
    if not (rate > 0 and np.isfinite(rate)):
        raise ValueError("the rate must be a positive number of frames per second")
    if traj.num_milestones == 0:
        raise ValueError("the trajectory has no milestones")
    t0, t1 = traj.start_time, traj.end_time
    n = int(np.floor((t1 - t0) * rate + TIME_TOL)) + 1
    check_alloc(n * max(traj.dimension, 1) * 8.0 * 2, f"resampling at {rate:g} frames/s "
                f"({n:,} frames of {traj.dimension} values)", count=n * max(traj.dimension, 1),
                counter="frames", unit="values")
    times = t0 + np.arange(n) / float(rate)
    out = Trajectory(times, traj.eval(times))
    out.extras = dict(traj.extras)
    return out


def resample(motion, rate: Optional[float], method: str = "hold"):
    """``(resampled, loss)``: ``motion`` at ``rate`` frames/s (see the module docstring) and
    its :class:`ResamplingLoss`. ``method`` applies to body motions (``hold``, ``linear``);
    trajectories are always linear (how Klamp't evaluates them)."""
    if isinstance(motion, MultiPath):
        motion = motion.to_trajectory()
    if isinstance(motion, Trajectory):
        if rate is None:
            raise ValueError("give the rate to resample a Klamp't trajectory to (it has none)")
        out = resample_trajectory(motion, rate)
        return out, resampling_loss(motion, out, "linear")
    if isinstance(motion, BodyMotion):
        out = motion.resampled(rate, method)
        return out, resampling_loss(motion, out, method)
    if isinstance(motion, PoseSeq):
        raise ValueError("a Choreonoid pose sequence (.pseq) is key poses, which Choreonoid "
                         "interpolates into frames with IK; roboio does not reproduce that, so "
                         "it cannot resample one")
    raise ValueError(f"a {type(motion).__name__} is not a motion (.path, .configs, multipath, .seq)")


def _series(motion):
    """``[(times (F,), values (F, C), names [C])]`` of a motion's numeric columns: a
    trajectory's milestones; a body motion's joint displacements and link positions."""
    if isinstance(motion, Trajectory):
        t = motion.times if motion.times is not None else np.arange(motion.num_milestones, dtype=float)
        return [(np.asarray(t, float), np.asarray(motion.milestones, float),
                 [f"dof {i}" for i in range(motion.dimension)])]
    out = []
    for c in motion.components:
        if c.data is None or c.num_frames == 0:
            continue
        try:
            t = np.asarray(c.frame_times(), float)
        except ValueError:
            continue
        if c.type == "MultiValueSeq":
            label = "joint id" if c.role == "joint_displacement" else f"{c.content or 'value'}"
            out.append((t, c.data, [f"{label} {j}" for j in range(c.data.shape[1])]))
        elif c.type == "MultiSE3Seq":
            pos = c.data[:, :, :3].reshape(len(c.data), -1)
            label = "link" if c.role == "link_position" else f"{c.content or 'pose'} part"
            out.append((t, pos, [f"{label} {p} {a} position" for p in range(c.data.shape[1])
                                 for a in "xyz"]))
        elif c.type == "Vector3Seq":
            out.append((t, c.data, [f"{c.content or 'vector'} {a}" for a in "xyz"]))
    return out


def _read_back(times_new, values_new, t, method):
    """Values of the new frames read at times ``t``: linear interpolation, or the frame
    ``int(t * rate)`` holds (Choreonoid)."""
    if len(times_new) == 0:
        return np.full((len(t), values_new.shape[1]), np.nan)
    if method == "hold":
        i = np.clip(np.searchsorted(times_new, t + TIME_TOL, side="right") - 1, 0, len(times_new) - 1)
        return values_new[i]
    return np.stack([np.interp(t, times_new, values_new[:, c]) for c in range(values_new.shape[1])],
                    axis=1) if values_new.shape[1] else np.zeros((len(t), 0))


def resampling_loss(before, after, method: str = "linear") -> ResamplingLoss:
    """The :class:`ResamplingLoss` of ``after``, a resampled copy of ``before`` (a
    Trajectory, or a BodyMotion with the same components)."""
    old, new = _series(before), _series(after)
    frames_before = before.num_milestones if isinstance(before, Trajectory) else before.num_frames
    frames_after = after.num_milestones if isinstance(after, Trajectory) else after.num_frames
    dropped, worst = 0, (0.0, "", 0.0)
    for k, ((t, v, names), (tn, vn, _)) in enumerate(zip(old, new)):
        hit = np.zeros(len(t), bool)
        if len(tn):
            j = np.clip(np.searchsorted(tn, t), 0, len(tn) - 1)
            near = np.minimum(np.abs(tn[j] - t), np.abs(tn[np.maximum(j - 1, 0)] - t))
            hit = near <= TIME_TOL
        if k == 0:
            dropped = int((~hit).sum())
        cols = min(v.shape[1], vn.shape[1])
        if cols == 0:
            continue
        err = np.abs(_read_back(tn, vn[:, :cols], t, method) - v[:, :cols])
        err = np.where(np.isnan(err), 0.0, err)
        if err.size and err.max() > worst[0]:
            f, c = np.unravel_index(int(np.argmax(err)), err.shape)
            worst = (float(err[f, c]), names[c], float(t[f]))
    return ResamplingLoss(frames_before, frames_after, dropped, worst[0], worst[1], worst[2])
