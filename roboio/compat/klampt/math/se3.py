"""Klamp't's ``se3``: rigid transforms as ``(R, t)`` with ``R`` a column-major 9-list
(see :mod:`.so3`) and ``t`` a 3-list. ``apply(T, p) = R p + t``."""
from __future__ import annotations

from . import so3, vectorops

__all__ = ["identity", "inv", "apply", "apply_rotation", "rotation", "from_rotation",
           "translation", "from_translation", "homogeneous", "from_homogeneous", "ndarray",
           "from_ndarray", "mul", "distance", "error", "interpolate", "interpolator"]


def identity() -> tuple:
    return (so3.identity(), [0., 0., 0.])


def inv(T) -> tuple:
    R, t = T
    Ri = so3.inv(R)
    return (Ri, [-v for v in so3.apply(Ri, t)])


def apply(T, point) -> list:
    return vectorops.add(so3.apply(T[0], point), T[1])


def apply_rotation(T, point) -> tuple:
    return so3.apply(T[0], point)


def rotation(T) -> list:
    """The rotation of ``T`` as a 3x3 nested list."""
    return so3.matrix(T[0])


def from_rotation(mat) -> tuple:
    return (so3.from_matrix(mat), [0., 0., 0.])


def translation(T) -> list:
    return T[1]


def from_translation(t) -> tuple:
    return (so3.identity(), list(t))


def homogeneous(T) -> list:
    """4x4 nested list."""
    R, t = T
    m = so3.matrix(R)
    return [m[0] + [t[0]], m[1] + [t[1]], m[2] + [t[2]], [0., 0., 0., 1.]]


def from_homogeneous(mat) -> tuple:
    return (so3.from_matrix([row[:3] for row in mat[:3]]), [mat[0][3], mat[1][3], mat[2][3]])


def ndarray(T):
    import numpy as np
    return np.array(homogeneous(T))


def from_ndarray(mat) -> tuple:
    return from_homogeneous(mat)


def mul(T1, T2) -> tuple:
    """Composition ``T1 T2``."""
    if len(T1) != 2:
        raise ValueError("T1 is not a transform")
    if len(T2) != 2:
        raise ValueError("T2 is not a transform (did you mean to use apply())?")
    return (so3.mul(T1[0], T2[0]), vectorops.add(so3.apply(T1[0], T2[1]), T1[1]))


def distance(T1, T2, Rweight=1.0, tweight=1.0) -> float:
    """``Rweight * angle(R1 R2^T) + tweight * |t1 - t2|``."""
    return Rweight * so3.distance(T1[0], T2[0]) + tweight * vectorops.distance(T1[1], T2[1])


def error(T1, T2) -> list:
    """6-vector ``(so3.error(R1, R2), t1 - t2)``."""
    return so3.error(T1[0], T2[0]) + vectorops.sub(T1[1], T2[1])


def interpolate(T1, T2, u) -> tuple:
    return (so3.interpolate(T1[0], T2[0], u), vectorops.interpolate(T1[1], T2[1], u))


def interpolator(T1, T2):
    fR = so3.interpolator(T1[0], T2[0])
    t1 = T1[1]
    dt = vectorops.sub(T2[1], t1)

    def f(u):
        return (fR(u), vectorops.madd(t1, dt, u))
    return f
