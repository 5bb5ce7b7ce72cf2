"""GraspIt!'s ``<transform>``: parts composed by post-multiplication in document order
(``T = T_1 T_2 ... T_n``), lengths in millimetres (spec §3).

* ``<translation>x y z</translation>``; ``<rotation>angle axis</rotation>`` (degrees, axis
  ``x``/``y``/``z``); ``<rotationMatrix>`` nine numbers **column by column**;
  ``<fullTransform>(w x y z)[x y z]</fullTransform>`` (quaternion normalised); anything else
  is identity.
* :func:`matrix_mm` evaluates a record; :func:`parts_for` writes a matrix back as parts
  (one ``<translation>`` and, unless the rotation is the identity, a ``<rotationMatrix>``:
  both hold the numbers exactly).
"""
from __future__ import annotations

import math

import numpy as np

from ...transforms import compose, det3
from ._records import TransformPart, TransformRec

__all__ = ["matrix_mm", "part_matrix", "rotation_from_columns", "quat_wxyz_to_matrix",
           "parts_for", "is_rotation", "eigen_quaternion_from_matrix", "axis_rotation"]

_AXES = {"x": 0, "y": 1, "z": 2}


def axis_rotation(axis: str, degrees: float) -> np.ndarray:
    """3x3 rotation by ``degrees`` about the coordinate axis ``axis`` (``x``/``y``/``z``)."""
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    i = _AXES[axis]
    j, k = (i + 1) % 3, (i + 2) % 3
    R = np.eye(3)
    R[j, j] = c
    R[j, k] = -s
    R[k, j] = s
    R[k, k] = c
    return R


def quat_wxyz_to_matrix(q) -> np.ndarray:
    """Rotation matrix of the quaternion ``(w, x, y, z)``, normalised first (Eigen's
    ``normalized().toRotationMatrix()``)."""
    w, x, y, z = (float(v) for v in q)
    n = math.sqrt(w * w + x * x + y * y + z * z)
    if n == 0 or not math.isfinite(n):
        raise ValueError("quaternion of zero or non-finite length")
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def eigen_quaternion_from_matrix(m) -> tuple:
    """``(w, x, y, z)`` as Eigen's ``Quaternion(const Matrix3&)`` computes it (no
    orthonormalisation: a matrix that is not a rotation gives a quaternion that is not a
    unit one)."""
    m = np.asarray(m, float)
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        t = math.sqrt(tr + 1.0)
        w = 0.5 * t
        t = 0.5 / t
        return (w, (m[2, 1] - m[1, 2]) * t, (m[0, 2] - m[2, 0]) * t, (m[1, 0] - m[0, 1]) * t)
    i = 0
    if m[1, 1] > m[0, 0]:
        i = 1
    if m[2, 2] > m[i, i]:
        i = 2
    j, k = (i + 1) % 3, (i + 2) % 3
    t = math.sqrt(m[i, i] - m[j, j] - m[k, k] + 1.0)
    q = [0.0, 0.0, 0.0]
    q[i] = 0.5 * t
    t = 0.5 / t
    w = (m[k, j] - m[j, k]) * t
    q[j] = (m[j, i] + m[i, j]) * t
    q[k] = (m[k, i] + m[i, k]) * t
    return (w, q[0], q[1], q[2])


def is_rotation(R, tol: float = 1e-9) -> bool:
    R = np.asarray(R, float)
    return bool(np.all(np.isfinite(R)) and np.abs(compose(R.T, R) - np.eye(3)).max() <= tol
                and det3(R) > 0)


def rotation_from_columns(values) -> tuple[np.ndarray, float]:
    """``<rotationMatrix>`` numbers (column by column) as a rotation: ``(R, change)``.
    A rotation (to 1e-12) is used as written; anything else goes through GraspIt!'s own
    path (Eigen's quaternion of the matrix, normalised, back to a matrix); ``change`` is the
    largest entry difference between the numbers and ``R``."""
    M = np.array(values, float).reshape(3, 3).T
    if is_rotation(M, 1e-12):
        return M, 0.0
    R = quat_wxyz_to_matrix(eigen_quaternion_from_matrix(M))
    return R, float(np.abs(R - M).max())


def part_matrix(part: TransformPart) -> np.ndarray:
    """4x4 (mm) of one transform part."""
    T = np.eye(4)
    if part.kind == "translation":
        T[:3, 3] = part.values
    elif part.kind == "rotation":
        T[:3, :3] = axis_rotation(part.axis, part.values[0])
    elif part.kind == "rotationMatrix":
        T[:3, :3] = rotation_from_columns(part.values)[0]
    elif part.kind == "fullTransform":
        T[:3, :3] = quat_wxyz_to_matrix(part.values[:4])
        T[:3, 3] = part.values[4:7]
    return T


def matrix_mm(rec) -> np.ndarray:
    """The 4x4 transform (mm) a :class:`TransformRec` stands for (identity for None)."""
    T = np.eye(4)
    if rec is None:
        return T
    for part in rec.parts:
        if part.kind != "other":
            T = compose(T, part_matrix(part))
    return T


def parts_for(T_mm) -> TransformRec:
    """A record that writes ``T_mm`` exactly: ``<translation>`` (if not zero) then
    ``<rotationMatrix>`` (if not the identity); an identity gets a zero translation."""
    T = np.asarray(T_mm, float)
    parts = []
    t = T[:3, 3]
    R = T[:3, :3]
    identity_rot = np.array_equal(R, np.eye(3))
    if np.any(t != 0) or identity_rot:
        parts.append(TransformPart("translation", tuple(float(v) + 0.0 for v in t)))
    if not identity_rot:
        parts.append(TransformPart("rotationMatrix", tuple(float(v) + 0.0 for v in R.T.reshape(9))))
    return TransformRec(parts)
