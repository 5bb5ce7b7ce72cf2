"""Affine maps as file formats can express them: rotation x scale, nearest rotations, and
relative file references. Shared by writers of every ecosystem (no format grammar here).

Conventions: a 4x4 affine ``M`` maps data coordinates to the owner frame,
``p_owner = M[:3, :3] @ p + M[:3, 3]``; rotations are 3x3 with determinant +1.
"""
from __future__ import annotations

import os

import numpy as np

from ..transforms import compose, det3, symmetric_eigen3, vector_norm
from .fileio import fmt_float

__all__ = ["split_affine", "column_scales", "nearest_rotation", "relative_reference", "ROTATION_TOL",
           "link_poses"]

# Largest entry of |R^T R - I| accepted as "a rotation" (rounding of well-formed files).
ROTATION_TOL = 1e-12


_UNIT_ROUNDING = 8 * np.finfo(float).eps     # |column| - 1 of a rotation built from angles


_SCALE_ULPS = 8        # a column length this many units in the last place from a shorter number


def _shortest_near(v: float) -> float:
    """The number within ``_SCALE_ULPS`` units in the last place of ``v`` whose text is
    shortest (the nearest of those), ``v`` itself when none is shorter."""
    best, length = v, len(fmt_float(v))
    lo = hi = v
    for _ in range(_SCALE_ULPS):
        lo, hi = np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf)
        for c in (lo, hi):
            n = len(fmt_float(float(c)))
            if n < length:
                best, length = float(c), n
    return best


def column_scales(lengths):
    """Column lengths of a rotation x scale matrix as the scales to write: a length within
    rounding of 1 is 1 (see :func:`split_affine`), and one within a few units in the last
    place of a shorter number is that number (a mesh scale of 0.0013 under a rotation
    measures 0.0013000000000000004, and the next write 0.0013000000000000008: myo_sim's
    exosuit meshes drifted at every write -> read -> write)."""
    n = np.asarray(lengths, float)
    n = np.where(np.abs(n - 1.0) <= _UNIT_ROUNDING, 1.0, n)
    if n.ndim == 0:
        return np.asarray(_shortest_near(float(n)))
    return np.array([_shortest_near(float(v)) if v != 1.0 and np.isfinite(v) else v
                     for v in n.ravel()], float).reshape(n.shape)


def split_affine(M, tol: float = ROTATION_TOL):
    """``(scale(3), R(3x3), t(3))`` with ``M = [R diag(scale) | t]`` and R a rotation, when
    the affine ``M`` has that form (orthogonal columns), else None. A mirror gives a negative
    first scale."""
    M = np.asarray(M, float)
    if np.any(M[3] != (0, 0, 0, 1)):
        return None
    A = M[:3, :3]
    s = vector_norm(A.T)
    if np.any(s == 0) or not np.all(np.isfinite(s)):
        return None
    # a column of a rotation has length 1 to rounding: that is not a scale (written as one,
    # it would shrink by an ulp at every write -> read -> write: icub's meshes)
    s = column_scales(s)
    R = A / s
    if np.abs(compose(R.T, R) - np.eye(3)).max() > tol:
        return None
    if det3(R) < 0:
        s[0] = -s[0]
        R[:, 0] = -R[:, 0]
    return s, R, M[:3, 3].copy()


def nearest_rotation(A) -> tuple:
    """``(R, err)``: the rotation nearest to the 3x3 matrix ``A`` (polar decomposition; a
    mirror's nearest proper rotation) and the largest entry of ``|R - A|``. ``A`` itself
    (err 0) when it already is a rotation to rounding (``|A^T A - I| <= ROTATION_TOL``).

    Computed in a fixed order of scalar operations (the singular vectors from
    :func:`roboio.transforms.symmetric_eigen3` of ``A^T A``), so that a writer's digits do
    not depend on the machine's BLAS/LAPACK kernel."""
    A = np.asarray(A, float)
    if _is_rotation(A):
        return A.copy(), 0.0
    w, V = symmetric_eigen3(compose(A.T, A))       # A^T A = V diag(s^2) V^T
    s = np.sqrt(np.maximum(w, 0.0))
    AV = compose(A, V)
    if s[2] == 0 or not np.all(np.isfinite(AV)):
        return np.eye(3), float(np.abs(np.eye(3) - A).max())
    u2 = AV[:, 2] / s[2]                            # the two largest singular directions
    c = AV[:, 1]
    u1 = c - (u2[0] * c[0] + u2[1] * c[1] + u2[2] * c[2]) * u2 if s[1] > 0 else np.cross(u2, V[:, 0])
    u1 = u1 / vector_norm(u1)
    U = np.stack([np.cross(u1, u2), u1, u2], axis=1)   # right-handed: the proper rotation
    R = compose(U, V.T)
    return R, float(np.abs(R - A).max())


def _is_rotation(A) -> bool:
    """``|A^T A - I| <= ROTATION_TOL`` and ``det A > 0`` (element-wise arithmetic)."""
    return bool(np.abs(compose(A.T, A) - np.eye(3)).max() <= ROTATION_TOL and det3(A) > 0)


def relative_reference(target: str, referring_file: str) -> str:
    """``target`` relative to the directory of ``referring_file``, with ``/`` separators
    (absolute when no relative path exists, e.g. another drive)."""
    base = os.path.dirname(os.path.abspath(referring_file))
    try:
        rel = os.path.relpath(os.path.abspath(target), base)
    except ValueError:
        return os.path.abspath(target).replace(os.sep, "/")
    return rel.replace(os.sep, "/")


def link_poses(robot, q) -> np.ndarray:
    """World transforms ``(num_links, 4, 4)`` of every link of ``robot`` at configuration
    ``q``, as :meth:`Robot.fk` gives them but with every product element-wise in one fixed
    order (:meth:`Link.joint_transform`, :func:`~roboio.transforms.compose`): the same bits
    on every machine and kinematics backend (the C kernel, or numpy's BLAS), for writers
    whose file numbers come from link poses."""
    n = robot.num_links
    parents = [int(p) for p in robot.parents]
    T = np.empty((n, 4, 4))
    done = [False] * n
    for i in range(n):
        chain = []
        k = i
        while k >= 0 and not done[k]:
            chain.append(k)
            k = parents[k]
        for k in reversed(chain):
            J = robot.links[k].joint_transform(q[k])
            T[k] = J if parents[k] < 0 else compose(T[parents[k]], J)
            done[k] = True
    return T
