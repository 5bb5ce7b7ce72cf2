"""How far a writer's approximations move a robot's links: forward kinematics of the robot
as it is and as written (link frames replaced), compared over sampled configurations. The
result goes into ``ConversionReport.fk_error`` (metres, largest rotation-matrix entry
change) so that a user (and ``verify``) knows the size of what the report states."""
from __future__ import annotations

import math

import numpy as np

from ..model import Robot

__all__ = ["FK_SAMPLES", "FK_TOL", "samples", "fk_change", "note_fk_change", "fk_loss_kind"]

FK_SAMPLES = 32            # configurations used to measure the FK effect of approximations


def samples(r: Robot, n: int = FK_SAMPLES) -> np.ndarray:
    """``n`` configurations: q = 0, then uniform within the limits (±pi / ±1 m where a
    limit is infinite); a fixed seed, so that reports are reproducible."""
    rng = np.random.default_rng(0)
    span = np.where([l.is_prismatic for l in r.links], 1.0, math.pi)
    lo = np.where(np.isfinite(r.qmin), r.qmin, -span)
    hi = np.where(np.isfinite(r.qmax), r.qmax, span)
    lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    Q = rng.uniform(lo, hi, size=(n, r.num_links))
    Q[0] = 0.0
    return Q


def fk_change(r: Robot, frames: dict, n: int = FK_SAMPLES) -> tuple:
    """``(position, rotation)``: the largest change of any link's world frame (metres;
    rotation-matrix entries) when the ``parent_transform`` of each link ``i`` in ``frames``
    is replaced by ``frames[i]`` (4x4), over ``n`` sampled configurations."""
    if not frames:
        return 0.0, 0.0
    other = r.copy()
    for i, T in frames.items():
        other.links[i].parent_transform = np.asarray(T, float)
    Q = samples(r, n)
    A, B = r.fk_batch(Q), other.fk_batch(Q)
    pos = float(np.linalg.norm(A[..., :3, 3] - B[..., :3, 3], axis=-1).max())
    # rotation parts compared entry by entry: a stretched matrix is as wrong as a turned one
    rot = float(np.abs(A[..., :3, :3] - B[..., :3, :3]).max())
    return pos, rot


def note_fk_change(report, pos: float, rot: float) -> None:
    """Raise ``report.fk_error`` to at least ``(pos, rot)``."""
    old = getattr(report, "fk_error", (0.0, 0.0))
    report.fk_error = (max(old[0], pos), max(old[1], rot))


#: the largest FK change (metres, rotation-matrix entries) a writer's approximation may cause
#: and still be a note: ``roboio verify``'s default tolerance
FK_TOL = 1e-9


def fk_loss_kind(pos: float, rot: float) -> str:
    """The kind of the loss "link frames move by up to ...": ``"rounding"`` (a note) within
    :data:`FK_TOL`, else ``"fk error"`` (an error: a conversion whose links move beyond
    ``verify``'s tolerance)."""
    return "rounding" if max(pos, rot) <= FK_TOL else "fk error"
