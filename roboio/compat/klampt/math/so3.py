"""Klamp't's ``so3``: rotations as **column-major** 9-lists.

The matrix ``[[a11, a12, a13], [a21, a22, a23], [a31, a32, a33]]`` is the list
``[a11, a21, a31, a12, a22, a32, a13, a23, a33]``. Angles are radians; quaternions are
``(w, x, y, z)``; roll-pitch-yaw means ``R = Rz(yaw) Ry(pitch) Rx(roll)``. The angle
ranges of :func:`rpy`, :func:`moment` and :func:`quaternion` are Klamp't's.
"""
from __future__ import annotations

import math
import random

from . import vectorops

__all__ = ["identity", "inv", "apply", "matrix", "from_matrix", "ndarray", "from_ndarray",
           "mul", "trace", "angle", "rpy", "from_rpy", "rotation_vector", "moment",
           "axis_angle", "from_axis_angle", "from_rotation_vector", "from_moment",
           "from_quaternion", "quaternion", "distance", "error", "cross_product", "diag",
           "deskew", "rotation", "canonical", "align", "interpolate", "interpolator", "det",
           "is_rotation", "sample"]


def _sign(x):
    return (x > 0) - (x < 0)


def _clamp(x):
    return min(1.0, max(-1.0, x))


def __str__(R) -> str:
    return "\n".join(" ".join(str(v) for v in row) for row in matrix(R))


def identity() -> list:
    return [1., 0., 0., 0., 1., 0., 0., 0., 1.]


def inv(R) -> list:
    """Inverse (= transpose) of a rotation."""
    return [R[0], R[3], R[6], R[1], R[4], R[7], R[2], R[5], R[8]]


def apply(R, point) -> tuple:
    """``R @ point``."""
    x, y, z = point
    return (R[0] * x + R[3] * y + R[6] * z,
            R[1] * x + R[4] * y + R[7] * z,
            R[2] * x + R[5] * y + R[8] * z)


def matrix(R) -> list:
    """3x3 nested list (rows)."""
    return [[R[0], R[3], R[6]], [R[1], R[4], R[7]], [R[2], R[5], R[8]]]


def from_matrix(mat) -> list:
    return [mat[r][c] for c in range(3) for r in range(3)]


def ndarray(R):
    import numpy as np
    return np.array(matrix(R))


def from_ndarray(mat) -> list:
    return [float(v) for v in mat.T.flatten()]


def mul(R1, R2) -> list:
    """Product ``R1 @ R2``."""
    if len(R1) != 9:
        raise ValueError("R1 is not a rotation matrix")
    if len(R2) != 9:
        raise ValueError("R2 is not a rotation matrix (did you mean to use apply())?")
    return [sum(R1[r + 3 * k] * R2[k + 3 * c] for k in range(3)) for c in range(3) for r in range(3)]


def trace(R) -> float:
    return R[0] + R[4] + R[8]


def angle(R) -> float:
    """Rotation angle in [0, pi]."""
    return math.acos(_clamp((trace(R) - 1.0) * 0.5))


def rpy(R) -> tuple:
    """``(roll, pitch, yaw)`` with pitch in [-pi/2, pi/2] and, away from gimbal lock, roll and
    yaw in [0, 2 pi) (Klamp't's ranges)."""
    m = matrix(R)
    pitch = -math.asin(_clamp(m[2][0]))
    cp = math.cos(pitch)
    if abs(cp) > 1e-7:
        yaw = math.acos(_clamp(m[0][0] / cp))
        if _sign(m[1][0]) != _sign(cp):
            yaw = 2 * math.pi - yaw
        roll = math.acos(_clamp(m[2][2] / cp))
        if _sign(m[2][1]) != _sign(cp):
            roll = 2 * math.pi - roll
    else:       # gimbal lock: all of the rotation about z is put into yaw
        roll = 0
        yaw = -math.asin(_clamp(m[0][1]))
        if _sign(math.cos(yaw)) != _sign(m[1][1]):
            yaw = math.pi - yaw
    return roll, pitch, yaw


def from_rpy(rollpitchyaw) -> list:
    roll, pitch, yaw = rollpitchyaw
    return mul(rotation((0, 0, 1), yaw), mul(rotation((0, 1, 0), pitch), rotation((1, 0, 0), roll)))


def deskew(R) -> list:
    """``w`` with ``(R - R^T) / 2 == cross_product(w)``."""
    return [0.5 * (R[5] - R[7]), 0.5 * (R[6] - R[2]), 0.5 * (R[1] - R[3])]


def rotation_vector(R) -> list:
    """Exponential-map vector ``axis * angle`` with angle in [0, pi]."""
    theta = angle(R)
    if abs(theta - math.pi) < 0.5:
        # near pi, sin(theta) is small: recover |axis components| from the diagonal
        c = math.cos(theta)
        comps = []
        for d in (R[0], R[4], R[8]):
            sq = (d - c) / (1.0 - c)
            if sq < 0:
                if sq <= -1e-5:
                    raise ValueError("not a rotation matrix")
                sq = 0.0
            comps.append(theta * math.sqrt(sq))
        x, y, z = comps
        if abs(theta - math.pi) < 1e-5:
            # at pi the sign is only defined relative to the largest component
            xy, xz, yz = R[3], R[6], R[7]
            if x > y and x > z:
                y, z = (-y if xy < 0 else y), (-z if xz < 0 else z)
            elif x > y:
                y, x = (-y if yz < 0 else y), (-x if xz < 0 else x)
            elif y > z:
                x, z = (-x if xy < 0 else x), (-z if yz < 0 else z)
            else:
                y, x = (-y if yz < 0 else y), (-x if xz < 0 else x)
        else:
            eps = theta - math.pi
            x = -x if eps * (R[5] - R[7]) > 0 else x
            y = -y if eps * (R[6] - R[2]) > 0 else y
            z = -z if eps * (R[1] - R[3]) > 0 else z
        return [x, y, z]
    scale = theta / math.sin(theta) if abs(theta) > 1e-5 else 1
    return vectorops.mul(deskew(R), scale)


moment = rotation_vector


def axis_angle(R) -> tuple:
    m = rotation_vector(R)
    return (vectorops.unit(m), vectorops.norm(m))


def rotation(axis, angle) -> list:
    """Rotation by ``angle`` about ``axis`` (used as given: pass a unit axis)."""
    c, s = math.cos(angle), math.sin(angle)
    a = axis
    R = [a[r] * a[col] * (1. - c) for col in range(3) for r in range(3)]
    K = cross_product(a)
    R = [Ri + s * Ki for Ri, Ki in zip(R, K)]
    R[0] += c
    R[4] += c
    R[8] += c
    return R


def from_axis_angle(aa) -> list:
    return rotation(aa[0], aa[1])


def from_rotation_vector(w) -> list:
    length = vectorops.norm(w)
    if length < 1e-7:
        return identity()
    return rotation(vectorops.mul(w, 1.0 / length), length)


from_moment = from_rotation_vector


def from_quaternion(q) -> list:
    """Rotation of the (unit) quaternion ``(w, x, y, z)``."""
    w, x, y, z = q
    return [1.0 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
            2 * (x * y - w * z), 1.0 - 2 * (x * x + z * z), 2 * (y * z + w * x),
            2 * (x * z + w * y), 2 * (y * z - w * x), 1.0 - 2 * (x * x + y * y)]


def quaternion(R) -> list:
    """Unit quaternion ``(w, x, y, z)``; w > 0 unless the angle is (nearly) pi."""
    a11, a21, a31, a12, a22, a32, a13, a23, a33 = R
    tr = trace(R) + 1.0
    if tr > 1e-5:
        s = math.sqrt(tr)
        w = s * 0.5
        s = 0.5 / s
        return vectorops.unit((w, (a32 - a23) * s, (a13 - a31) * s, (a21 - a12) * s))
    M = matrix(R)
    i = 0
    if a22 > a11:
        i = 1
    if a33 > max(a11, a22):
        i = 2
    j, k = (i + 1) % 3, (i + 2) % 3
    s = math.sqrt((M[i][i] - (M[j][j] + M[k][k])) + 1.0)
    if abs(s) < 1e-7:
        raise ValueError("Could not solve for quaternion... Invalid rotation matrix?")
    v = [0.0, 0.0, 0.0]
    v[i] = s * 0.5
    s = 0.5 / s
    v[j] = (M[i][j] + M[j][i]) * s
    v[k] = (M[i][k] + M[k][i]) * s
    w = (M[k][j] - M[j][k]) * s
    return vectorops.unit([w] + v)


def distance(R1, R2) -> float:
    """Angle of ``R1 R2^T``."""
    return angle(mul(R1, inv(R2)))


def error(R1, R2) -> list:
    """Moment of ``R1 R2^T``."""
    return moment(mul(R1, inv(R2)))


def cross_product(w) -> list:
    """Column-major cross-product matrix ``[w]x``."""
    return [0., w[2], -w[1], -w[2], 0., w[0], w[1], -w[0], 0.]


def diag(R) -> list:
    return [R[0], R[4], R[8]]


def canonical(v) -> list:
    """A rotation whose first column is the unit vector ``v``."""
    if abs(vectorops.normSquared(v) - 1.0) > 1e-4:
        raise RuntimeError("Nonunit vector supplied to canonical()")
    x, y, z = v
    if abs(x - 1.0) < 1e-5:
        return identity()
    if abs(x + 1.0) < 1e-5:
        return [-1., 0., 0., 0., -1., 0., 0., 0., 1.]
    scale = 1.0 / (1.0 + x)
    return [x, y, z, -y, x + scale * z * z, -scale * y * z, -z, -scale * y * z, x + scale * y * y]


def align(a, b) -> list:
    """The rotation of least angle taking direction ``a`` to direction ``b``."""
    an, bn = vectorops.norm(a), vectorops.norm(b)
    if abs(an) < 1e-5 or abs(bn) < 1e-5:
        return identity()
    a = vectorops.mul(a, 1.0 / an)
    b = vectorops.mul(b, 1.0 / bn)
    v = vectorops.cross(a, b)
    c = vectorops.dot(a, b)
    if abs(c + 1) < 1e-5:       # opposite directions: half turn about any perpendicular
        v = vectorops.cross(a, [0, 0, 1])
        vn = vectorops.norm(v)
        if vn < 1e-5:
            v = vectorops.cross(a, [0, 1, 0])
            vn = vectorops.norm(v)
        return rotation(vectorops.mul(v, 1.0 / vn), math.pi)
    K = cross_product(v)
    return vectorops.madd(vectorops.add(identity(), K), mul(K, K), 1.0 / (1.0 + c))


def interpolator(R1, R2):
    """``f(u)``: the geodesic from ``R1`` (u = 0) to ``R2`` (u = 1)."""
    m = moment(mul(inv(R1), R2))
    theta = vectorops.norm(m)
    axis = vectorops.div(m, theta) if theta != 0 else [1, 0, 0]

    def f(u):
        return mul(R1, rotation(axis, theta * u))
    return f


def interpolate(R1, R2, u) -> list:
    m = moment(mul(inv(R1), R2))
    theta = vectorops.norm(m)
    if theta == 0:
        return R1
    return mul(R1, rotation(vectorops.div(m, theta), theta * u))


def det(R) -> float:
    m = matrix(R)
    return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))


def is_rotation(R, tol=1e-5) -> bool:
    err = vectorops.sub(mul(R, inv(R)), identity())
    return all(abs(e) <= tol for e in err) and det(R) >= 0


def sample() -> list:
    """A uniformly distributed random rotation (uses Python's :mod:`random`)."""
    q = vectorops.unit([random.gauss(0, 1) for _ in range(4)])
    theta = math.acos(q[3]) * 2.0
    if abs(theta) < 1e-8:
        return from_moment([0, 0, 0])
    return from_moment(vectorops.mul(vectorops.unit(q[0:3]), theta))
