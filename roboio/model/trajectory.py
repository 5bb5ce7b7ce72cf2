"""Timed or untimed sequences of configurations (Klamp't .path/.configs/.config)."""
from __future__ import annotations

from typing import Optional

import numpy as np

__all__ = ["Trajectory"]


def milestone_arrays(milestones, times=None, velocities=None) -> tuple:
    """``(milestones (N, D), times (N,) or None, velocities (N, D) or None)`` as float
    arrays; one configuration ``(D,)`` is one milestone. ValueError when the times or the
    velocities do not match the milestones."""
    m = np.asarray(milestones if milestones is not None else np.zeros((0, 0)), dtype=float)
    if m.ndim == 1:
        m = m.reshape(1, -1)
    t = None if times is None else np.asarray(times, dtype=float).reshape(-1)
    if t is not None and len(t) != len(m):
        raise ValueError(f"{len(t)} times for {len(m)} milestones")
    v = None if velocities is None else np.asarray(velocities, dtype=float).reshape(m.shape)
    return m, t, v


class TimeSpan:
    """``start_time``, ``end_time`` and ``duration`` (s) of a motion whose ``_times()``
    gives the time of every milestone (0 for a motion without milestones)."""

    @property
    def start_time(self) -> float:
        t = self._times()
        return float(t[0]) if len(t) else 0.0

    @property
    def end_time(self) -> float:
        t = self._times()
        return float(t[-1]) if len(t) else 0.0

    @property
    def duration(self) -> float:
        return self.end_time - self.start_time


class MilestoneSequence(TimeSpan):
    """What a Trajectory and a MultiPath section share: ``milestones`` (N, D) with
    ``times`` (N,) or None; an untimed sequence is timed by milestone index 0..N-1."""

    milestones: np.ndarray
    times: Optional[np.ndarray]

    @property
    def num_milestones(self) -> int:
        return len(self.milestones)

    @property
    def dimension(self) -> int:
        return self.milestones.shape[1] if self.milestones.ndim == 2 else 0

    def _times(self) -> np.ndarray:
        return self.times if self.times is not None else np.arange(len(self.milestones), dtype=float)


class Trajectory(MilestoneSequence):
    """Milestones ``(N, D)`` with optional non-decreasing ``times`` ``(N,)`` in seconds.

    ``eval(t)`` interpolates linearly and clamps outside ``[times[0], times[-1]]`` (Klamp't's
    rule). An untimed trajectory is evaluated on its milestone index (t = 0, 1, ..., N-1).
    ``velocities`` (N, D) is kept when the file gives them (``.milestones``).
    """

    def __init__(self, times=None, milestones=None, velocities=None):
        self.milestones, self.times, self.velocities = milestone_arrays(milestones, times, velocities)
        self.extras: dict = {}
        self.warnings: list = []
        self.source: Optional[str] = None

    def eval(self, t) -> np.ndarray:
        """Configuration(s) at time(s) ``t``: shape (D,) for a scalar, (len(t), D) for arrays."""
        if len(self.milestones) == 0:
            raise ValueError("empty trajectory")
        g = self._times()
        ts = np.atleast_1d(np.asarray(t, dtype=float))
        # last segment whose start <= t (Klamp't picks the later segment at repeated times)
        i = np.clip(np.searchsorted(g, ts, side="right") - 1, 0, max(len(g) - 2, 0))
        if len(g) == 1:
            out = np.repeat(self.milestones[:1], len(ts), axis=0)
        else:
            t0, t1 = g[i], g[i + 1]
            span = t1 - t0
            u = np.divide(ts - t0, span, out=np.ones_like(ts), where=span > 0)
            u = np.clip(u, 0.0, 1.0)[:, None]
            out = self.milestones[i] * (1 - u) + self.milestones[i + 1] * u
        return out[0] if np.ndim(t) == 0 else out

    def summary(self) -> dict:
        """What ``roboio info`` prints."""
        return {"kind": "trajectory", "timed": self.times is not None,
                "milestones": self.num_milestones, "dimension": self.dimension,
                "velocities": self.velocities is not None, "start_time": self.start_time,
                "end_time": self.end_time, "duration": self.duration}

    def __repr__(self):
        timed = "timed" if self.times is not None else "untimed"
        return f"<Trajectory {timed}: {self.num_milestones} milestones x {self.dimension}>"
