"""Parameters that read back to themselves: helpers for writers whose file stores a rotation
as parameters (URDF ``rpy``, Choreonoid axis-angle) derived from a matrix.

Deriving parameters from a matrix (``p = derive(R)``) and rebuilding the matrix as a reader
does (``build(p)``) is not exact: ``derive(build(p))`` differs from ``p`` in the last digits,
so write -> read -> write would drift. :func:`stable_params` picks, among the parameters a
few units in the last place around ``derive(R)``, one whose rebuilt matrix is exactly the
matrix it stands for (the shortest text, then the smallest), and repeats from the rebuilt
matrix until the pick repeats. Writing that pick makes write -> read -> write a fixed
point.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from .fileio import fmt_float

__all__ = ["stable_params", "exact_params"]

_TINY = 1e-12     # a parameter this small may stand for 0 (e.g. a roll of 7e-17 rad)


def _text_len(p) -> int:
    return sum(len(fmt_float(float(v) + 0.0)) for v in p)


def _tiny(tiny, n) -> np.ndarray:
    """Per component, below which a parameter may stand for 0: ``tiny`` (one value or one
    per component), by default :data:`_TINY`."""
    return np.broadcast_to(np.asarray(_TINY if tiny is None else tiny, float), (n,))


def exact_params(p0, build: Callable, target, ulps: Sequence[int], tiny=None) -> Optional[tuple]:
    """Among the parameter vectors within ``ulps[k]`` units in the last place of ``p0[k]``
    (each component), those with ``build(p) == target`` exactly: the one with the shortest
    text, then the smallest; None if there is none. ``build`` maps an ``(..., k)`` array to
    ``(..., 3, 3)`` (or any array) and is confirmed on a single vector, as a reader calls it.
    ``tiny``: see :func:`stable_params`."""
    p0 = np.asarray(p0, float)
    target = np.asarray(target)
    if np.array_equal(build(p0), target):
        return tuple(float(v) for v in p0)
    axes = []
    for v, k, t in zip(p0, ulps, _tiny(tiny, len(p0))):
        vals, lo, hi = [v], v, v
        for _ in range(k):
            lo, hi = np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf)
            vals += [lo, hi]
        if 0 < abs(v) < t:
            vals.append(0.0)      # below rounding of its neighbours: units in the last place do not reach 0
        axes.append(vals)
    C = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, len(p0))
    B = build(C)
    hits = C[np.all((B == target).reshape(len(C), -1), axis=1)]
    for c in sorted((tuple(float(x) for x in h) for h in hits), key=lambda c: (_text_len(c), c)):
        if np.array_equal(build(np.array(c)), target):
            return c
    return None


def stable_params(R, derive: Callable, build: Callable, ulps: Sequence[int], steps: int = 12,
                  wider: Optional[Sequence[int]] = None, tiny=None) -> tuple:
    """Parameters to write for matrix ``R`` (see the module docstring). From ``R``, pick
    parameters (exact for the matrix when some nearby ones are, else the derived ones),
    rebuild their matrix as a reader does, and pick again, until the pick repeats: then the
    written parameters read back to a matrix this function maps to the same parameters.
    ``R`` is reproduced exactly when exact parameters exist for it, else to rounding.
    ``wider``: units in the last place searched when none within ``ulps`` is exact (a
    walk of derived parameters can drift an ulp a step without repeating: a quaternion
    written unnormalised, ``0.499998 0.5 0.5 -0.500002``, whose rebuilt matrix has an exact
    quaternion two units away). ``tiny`` (one value, or one per parameter; default 1e-12):
    below it a parameter may be picked as 0, rounding of an angle or a unit quaternion's
    component; parameters with a scale of their own (principal moments of inertia) say
    theirs."""
    seen: list = []
    M = np.asarray(R, float)
    for _ in range(steps):
        p = exact_params(derive(M), build, M, ulps, tiny)
        if p is None and wider is not None:
            p = exact_params(derive(M), build, M, wider, tiny)
        if p is None:             # rounding-level components snap to 0 (found exact next time)
            p = tuple(0.0 if abs(v) < t else float(v) for v, t in zip(derive(M), _tiny(tiny, len(ulps))))
        # -0.0 == 0.0, so a pick repeats whatever the sign of its zeros, which the text keeps
        # ("-0"): zeros are written as 0 (asibot's kitchen terrain: rotateMoment "0 -2.2 2.2"
        # rewritten "-0 -2.2 2.2")
        p = tuple(v + 0.0 for v in p)
        if p in seen:             # a fixed point, or a cycle: the same pick from any member
            cycle = seen[seen.index(p):]
            return min(cycle, key=lambda c: (_text_len(c), c))
        seen.append(p)
        M = build(np.array(p))
    return seen[-1]
