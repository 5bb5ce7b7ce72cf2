"""Timed or untimed sequences of configurations (Klamp't .path/.configs/.config)."""
from __future__ import annotations

from typing import Optional

import numpy as np

__all__ = ["Trajectory"]


class Trajectory:
    """Milestones ``(N, D)`` with optional non-decreasing ``times`` ``(N,)`` in seconds.

    ``eval(t)`` interpolates linearly and clamps outside ``[times[0], times[-1]]`` (Klamp't's
    rule). An untimed trajectory is evaluated on its milestone index (t = 0, 1, ..., N-1).
    ``velocities`` (N, D) is kept when the file gives them (``.milestones``).
    """

    def __init__(self, times=None, milestones=None, velocities=None):
        m = np.asarray(milestones if milestones is not None else np.zeros((0, 0)), dtype=float)
        if m.ndim == 1:
            m = m.reshape(1, -1)
        self.milestones = m
        self.times = None if times is None else np.asarray(times, dtype=float).reshape(-1)
        if self.times is not None and len(self.times) != len(m):
            raise ValueError(f"{len(self.times)} times for {len(m)} milestones")
        self.velocities = None if velocities is None else np.asarray(velocities, dtype=float)
        self.extras: dict = {}
        self.warnings: list = []
        self.source: Optional[str] = None

    @property
    def num_milestones(self) -> int:
        return len(self.milestones)

    @property
    def dimension(self) -> int:
        return self.milestones.shape[1] if self.milestones.ndim == 2 else 0

    def _grid(self):
        return self.times if self.times is not None else np.arange(len(self.milestones), dtype=float)

    @property
    def start_time(self) -> float:
        g = self._grid()
        return float(g[0]) if len(g) else 0.0

    @property
    def end_time(self) -> float:
        g = self._grid()
        return float(g[-1]) if len(g) else 0.0

    @property
    def duration(self) -> float:
        return self.end_time - self.start_time

    def eval(self, t) -> np.ndarray:
        """Configuration(s) at time(s) ``t``: shape (D,) for a scalar, (len(t), D) for arrays."""
        if len(self.milestones) == 0:
            raise ValueError("empty trajectory")
        g = self._grid()
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
