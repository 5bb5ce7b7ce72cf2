"""Affine maps as file formats can express them: rotation x scale, nearest rotations, and
relative file references. Shared by writers of every ecosystem (no format grammar here).

Conventions: a 4x4 affine ``M`` maps data coordinates to the owner frame,
``p_owner = M[:3, :3] @ p + M[:3, 3]``; rotations are 3x3 with determinant +1.
"""
from __future__ import annotations

import os

import numpy as np

__all__ = ["split_affine", "column_scales", "nearest_rotation", "relative_reference", "ROTATION_TOL"]

# Largest entry of |R^T R - I| accepted as "a rotation" (rounding of well-formed files).
ROTATION_TOL = 1e-12


_UNIT_ROUNDING = 8 * np.finfo(float).eps     # |column| - 1 of a rotation built from angles


def column_scales(lengths):
    """Column lengths of a rotation x scale matrix as the scales to write: a length within
    rounding of 1 is 1 (see :func:`split_affine`)."""
    n = np.asarray(lengths, float)
    return np.where(np.abs(n - 1.0) <= _UNIT_ROUNDING, 1.0, n)


def split_affine(M, tol: float = ROTATION_TOL):
    """``(scale(3), R(3x3), t(3))`` with ``M = [R diag(scale) | t]`` and R a rotation, when
    the affine ``M`` has that form (orthogonal columns), else None. A mirror gives a negative
    first scale."""
    M = np.asarray(M, float)
    if np.any(M[3] != (0, 0, 0, 1)):
        return None
    A = M[:3, :3]
    s = np.linalg.norm(A, axis=0)
    if np.any(s == 0) or not np.all(np.isfinite(s)):
        return None
    # a column of a rotation has length 1 to rounding: that is not a scale (written as one,
    # it would shrink by an ulp at every write -> read -> write: icub's meshes)
    s = column_scales(s)
    R = A / s
    if np.abs(R.T @ R - np.eye(3)).max() > tol:
        return None
    if np.linalg.det(R) < 0:
        s[0] = -s[0]
        R[:, 0] = -R[:, 0]
    return s, R, M[:3, 3].copy()


def nearest_rotation(A) -> tuple:
    """``(R, err)``: the rotation nearest to the 3x3 matrix ``A`` (polar decomposition; a
    mirror's nearest proper rotation) and the largest entry of ``|R - A|``. ``A`` itself
    (err 0) when it already is a rotation to rounding (``|A^T A - I| <= ROTATION_TOL``)."""
    A = np.asarray(A, float)
    if np.abs(A.T @ A - np.eye(3)).max() <= ROTATION_TOL and np.linalg.det(A) > 0:
        return A.copy(), 0.0
    U, _, Vt = np.linalg.svd(A)
    D = np.diag([1.0, 1.0, np.sign(np.linalg.det(U @ Vt)) or 1.0])
    R = U @ D @ Vt
    return R, float(np.abs(R - A).max())


def relative_reference(target: str, referring_file: str) -> str:
    """``target`` relative to the directory of ``referring_file``, with ``/`` separators
    (absolute when no relative path exists, e.g. another drive)."""
    base = os.path.dirname(os.path.abspath(referring_file))
    try:
        rel = os.path.relpath(os.path.abspath(target), base)
    except ValueError:
        return os.path.abspath(target).replace(os.sep, "/")
    return rel.replace(os.sep, "/")
