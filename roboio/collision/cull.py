"""Broad phase: which pairs of bodies can collide at given world frames.

Each body (a robot link, an object, a terrain) gets a box fixed in its own frame (the
axis-aligned box of its geometry in that frame, inflated by its margin) and a bounding
sphere about the box centre. :meth:`Culler.overlapping` keeps the pairs whose boxes, moved by
the frames, overlap (the separating-axis theorem on 15 axes: exact for boxes, with a slack
of 1e-9 m + 1e-9 relative so that rounding never drops a pair whose boxes touch);
:meth:`Culler.lower_bounds` gives, per pair, a lower bound of the distance between the two
bodies' geometries minus their margins (centre distance minus both sphere radii), which lets
distance queries skip far pairs.

Two implementations compute the same verdicts: a small C extension (``_cull.c``, built with
the kinematics kernel) and this module's numpy code, the reference. The kinematics backend
choice applies (``ROBOIO_KINEMATICS=numpy`` uses numpy here too).
"""
from __future__ import annotations

import numpy as np

__all__ = ["Culler", "make_culler"]

SLACK_ABS = 1e-9
SLACK_REL = 1e-9


class Culler:
    """The numpy culler. ``centers``, ``halves`` (L, 3) body-frame boxes (margin included),
    ``radii`` (L,) bounding-sphere radii (margin included), ``pairs`` (P, 2) body indices."""

    NAME = "numpy"

    def __init__(self, centers, halves, radii, pairs):
        self.center = np.asarray(centers, dtype=float).reshape(-1, 3)
        self.half = np.asarray(halves, dtype=float).reshape(-1, 3)
        self.radius = np.asarray(radii, dtype=float).reshape(-1)
        self.pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        n = len(self.radius)
        if len(self.pairs) and (self.pairs.min() < 0 or self.pairs.max() >= n):
            raise ValueError(f"pairs: body index out of range ({n} bodies)")

    def _world(self, frames):
        F = np.asarray(frames, dtype=float).reshape(len(self.radius), 4, 4)
        R = F[:, :3, :3]
        c = np.einsum("nij,nj->ni", R, self.center) + F[:, :3, 3]
        return R, c

    def overlapping(self, frames) -> list:
        """Indices of the pairs whose boxes overlap at ``frames`` ((L, 4, 4) world frames)."""
        if not len(self.pairs):
            return []
        R, c = self._world(frames)
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        Ra, Rb = R[i], R[j]
        a, b = self.half[i], self.half[j]
        d = c[j] - c[i]
        slack = SLACK_ABS + SLACK_REL * (np.abs(d).sum(axis=1) + a.sum(axis=1) + b.sum(axis=1))
        Rr = np.einsum("pki,pkj->pij", Ra, Rb)              # Ra^T Rb
        t = np.einsum("pki,pk->pi", Ra, d)                  # Ra^T d
        AR = np.abs(Rr) + 1e-12
        keep = np.ones(len(i), dtype=bool)
        keep &= ~(np.abs(t) > a + np.einsum("pij,pj->pi", AR, b) + slack[:, None]).any(axis=1)
        tj = np.einsum("pi,pij->pj", t, Rr)
        keep &= ~(np.abs(tj) > np.einsum("pi,pij->pj", a, AR) + b + slack[:, None]).any(axis=1)
        for ii in range(3):
            i1, i2 = (ii + 1) % 3, (ii + 2) % 3
            for jj in range(3):
                j1, j2 = (jj + 1) % 3, (jj + 2) % 3
                ra = a[:, i1] * AR[:, i2, jj] + a[:, i2] * AR[:, i1, jj]
                rb = b[:, j1] * AR[:, ii, j2] + b[:, j2] * AR[:, ii, j1]
                keep &= ~(np.abs(t[:, i2] * Rr[:, i1, jj] - t[:, i1] * Rr[:, i2, jj]) > ra + rb + slack)
        return np.flatnonzero(keep).tolist()

    def lower_bounds(self, frames, out) -> None:
        """``out[k]``: lower bound of pair k's distance (margins subtracted)."""
        if not len(self.pairs):
            return
        _, c = self._world(frames)
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        out[:] = np.linalg.norm(c[i] - c[j], axis=1) - self.radius[i] - self.radius[j]


def make_culler(centers, halves, radii, pairs):
    """The compiled culler when built and the kinematics backend is the compiled one, else
    the numpy :class:`Culler`."""
    from ..kinematics import get_backend
    centers = np.ascontiguousarray(centers, dtype=np.float64).reshape(-1)
    halves = np.ascontiguousarray(halves, dtype=np.float64).reshape(-1)
    radii = np.ascontiguousarray(radii, dtype=np.float64).reshape(-1)
    pairs = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1)
    if get_backend() == "compiled":
        try:
            from . import _cull
        except ImportError:
            pass
        else:
            return _cull.Culler(centers, halves, radii, pairs)
    return Culler(centers, halves, radii, pairs)
