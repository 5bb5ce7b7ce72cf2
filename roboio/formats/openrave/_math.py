"""Rotations exactly as OpenRAVE computes them from XML values (``openrave.md`` §4).

OpenRAVE stores rotations as unit quaternions ``(w, x, y, z)``: ``<rotationmat>`` is turned
into a quaternion by ``quatFromMatrix`` (its branch structure and normalisation, which also
decides what a matrix that is not quite orthonormal means), ``<rotationaxis>`` by
``quatFromAxisAngle`` (axis normalised, a zero axis gives identity), ``<quat>`` is normalised.
Everything here returns 3x3 matrices of those quaternions, which is what roboio composes.
"""
from __future__ import annotations

import math

import numpy as np

from ...transforms import compose, vector_dot

__all__ = ["quat_from_matrix", "matrix_from_quat", "matrices_from_quats", "axis_angle", "rows_to_rotation",
           "quat_rotation", "rotate_direction", "TRANSFORM_TAGS", "apply_transform_tag",
           "inv", "normalize3"]

TRANSFORM_TAGS = ("translation", "rotationaxis", "rotationmat", "quat")


def quat_from_matrix(m) -> np.ndarray:
    """OpenRAVE's ``quatFromMatrix`` of a 3x3 matrix (rows as written), normalised."""
    m = np.asarray(m, dtype=float).reshape(3, 3)
    q = np.zeros(4)
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr >= 0:
        q[:] = (tr + 1, m[2, 1] - m[1, 2], m[0, 2] - m[2, 0], m[1, 0] - m[0, 1])
    elif m[1, 1] > m[0, 0]:
        if m[2, 2] > m[1, 1]:
            q[3] = (m[2, 2] - (m[0, 0] + m[1, 1])) + 1
            q[1], q[2], q[0] = m[2, 0] + m[0, 2], m[1, 2] + m[2, 1], m[1, 0] - m[0, 1]
        else:
            q[2] = (m[1, 1] - (m[2, 2] + m[0, 0])) + 1
            q[3], q[1], q[0] = m[1, 2] + m[2, 1], m[0, 1] + m[1, 0], m[0, 2] - m[2, 0]
    elif m[2, 2] > m[0, 0]:
        q[3] = (m[2, 2] - (m[0, 0] + m[1, 1])) + 1
        q[1], q[2], q[0] = m[2, 0] + m[0, 2], m[1, 2] + m[2, 1], m[1, 0] - m[0, 1]
    else:
        q[1] = (m[0, 0] - (m[1, 1] + m[2, 2])) + 1
        q[2], q[3], q[0] = m[0, 1] + m[1, 0], m[2, 0] + m[0, 2], m[2, 1] - m[1, 2]
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])   # (no BLAS dot)
    return q / n if n > 0 else np.array([1.0, 0.0, 0.0, 0.0])


def matrices_from_quats(Q) -> np.ndarray:
    """:func:`matrix_from_quat` of ``(..., 4)`` quaternions at once, with the same operations
    in the same order (the same bits)."""
    Q = np.asarray(Q, dtype=float)
    w, x, y, z = Q[..., 0], Q[..., 1], Q[..., 2], Q[..., 3]
    n2 = w * w + x * x + y * y + z * z
    zero = n2 == 0
    s = 2.0 / np.where(zero, 1.0, n2)
    M = np.stack([
        1 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y),
        s * (x * y + w * z), 1 - s * (x * x + z * z), s * (y * z - w * x),
        s * (x * z - w * y), s * (y * z + w * x), 1 - s * (x * x + y * y)], axis=-1)
    M = M.reshape(Q.shape[:-1] + (3, 3))
    return np.where(zero[..., None, None], np.eye(3), M)


def matrix_from_quat(q) -> np.ndarray:
    """OpenRAVE's ``matrixFromQuat`` (the quaternion's length is divided out)."""
    w, x, y, z = (float(v) for v in q)
    n2 = w * w + x * x + y * y + z * z
    if n2 == 0:
        return np.eye(3)
    s = 2.0 / n2
    return np.array([
        [1 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)],
        [s * (x * y + w * z), 1 - s * (x * x + z * z), s * (y * z - w * x)],
        [s * (x * z - w * y), s * (y * z + w * x), 1 - s * (x * x + y * y)]])


def axis_angle(axis, angle: float) -> np.ndarray:
    """Rotation by ``angle`` (radians) about ``axis`` (OpenRAVE's ``quatFromAxisAngle``: the
    axis is normalised, a zero axis gives identity)."""
    a = np.asarray(axis, dtype=float).reshape(3)
    n = math.sqrt(vector_dot(a, a))
    if n == 0:
        return np.eye(3)
    half = 0.5 * angle
    s = math.sin(half) / n
    return matrix_from_quat((math.cos(half), a[0] * s, a[1] * s, a[2] * s))


def rows_to_rotation(values) -> np.ndarray:
    """``<rotationmat>``: nine numbers row by row, through OpenRAVE's quaternion."""
    return matrix_from_quat(quat_from_matrix(values))


def quat_rotation(values) -> np.ndarray:
    """``<quat>``: ``w x y z``, normalised."""
    return matrix_from_quat(values)


def rotate_direction(src, dst) -> np.ndarray:
    """OpenRAVE's ``quatRotateDirection``: the rotation turning ``src`` onto ``dst`` about
    their cross product (identity for a zero vector or equal directions)."""
    src = np.asarray(src, dtype=float)
    dst = np.asarray(dst, dtype=float)
    cross = np.cross(src, dst)
    fsin = math.sqrt(vector_dot(cross, cross))
    fcos = vector_dot(src, dst)
    if fsin > 0:
        return axis_angle(cross / fsin, math.atan2(fsin, fcos))
    if fcos < 0:
        r = np.array([1.0, 0.0, 0.0]) - src * src[0]
        if vector_dot(r, r) < 1e-8:
            r = np.array([0.0, 0.0, 1.0]) - src * src[2]
        return axis_angle(r / math.sqrt(vector_dot(r, r)), math.atan2(fsin, fcos))
    return np.eye(3)


def normalize3(v) -> np.ndarray:
    """``v / |v|`` (OpenRAVE's ``normalize3``; a zero vector gives NaN as in OpenRAVE, the
    caller reports it)."""
    v = np.asarray(v, dtype=float)
    n = math.sqrt(vector_dot(v, v))
    with np.errstate(invalid="ignore", divide="ignore"):
        return v / n


def apply_transform_tag(T: np.ndarray, tag: str, values) -> np.ndarray:
    """Apply one transform tag to the 4x4 ``T`` the way every OpenRAVE owner does: a
    translation is added, a rotation pre-multiplies the rotation part and never rotates the
    translation. ``values`` are the numbers read (missing ones already defaulted)."""
    T = np.array(T, dtype=float)
    if tag == "translation":
        T[:3, 3] += values[:3]
    elif tag == "rotationaxis":
        T[:3, :3] = compose(axis_angle(values[:3], values[3] * math.pi / 180.0), T[:3, :3])
    elif tag == "rotationmat":
        T[:3, :3] = compose(rows_to_rotation(values[:9]), T[:3, :3])
    elif tag == "quat":
        T[:3, :3] = compose(quat_rotation(values[:4]), T[:3, :3])
    else:
        raise ValueError(tag)
    return T


def inv(T) -> np.ndarray:
    """Inverse of a rigid 4x4 transform."""
    T = np.asarray(T, dtype=float)
    out = np.eye(4)
    Rt = T[:3, :3].T
    out[:3, :3] = Rt
    out[:3, 3] = -compose(Rt, T[:3, 3:4])[:, 0]
    return out
