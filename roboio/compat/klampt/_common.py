"""Conversions between Klamp't's Python conventions and roboio's numpy arrays.

Klamp't hands rotations around as column-major 9-lists, rigid transforms as ``(R, t)``
pairs of lists, configurations and vectors as lists of floats. roboio keeps 4x4 numpy
arrays (``p_parent = T @ [p_child, 1]``).
"""
from __future__ import annotations

import math

import numpy as np


class NotSupportedError(NotImplementedError):
    """A Klamp't function that :mod:`roboio.compat.klampt` does not provide."""


class OpenGLNotAvailable(NotSupportedError):
    """Drawing with OpenGL (``drawGL`` and friends) is not available in roboio."""


def no_opengl(what: str):
    raise OpenGLNotAvailable(
        f"{what}: roboio has no OpenGL drawing and no viewer yet. Export the model with "
        "`roboio convert` (e.g. to URDF or MJCF) and view it in a URDF/MuJoCo viewer, or "
        "draw it with the real klampt package (klampt.vis).")


def unsupported(cls, names, reason: str):
    """Give ``cls`` methods ``names`` that raise :class:`NotSupportedError` with ``reason``,
    so that a script calling them fails with a message instead of an AttributeError."""
    for name in names:
        def method(self, *args, _name=name, **kwargs):
            raise NotSupportedError(f"{cls.__name__}.{_name} is not provided by "
                                    f"roboio.compat.klampt: {reason}")
        method.__name__ = name
        method.__doc__ = f"Not provided: {reason}"
        setattr(cls, name, method)


def opengl_methods(cls, names):
    """Give ``cls`` drawing methods ``names`` that raise :class:`OpenGLNotAvailable`."""
    for name in names:
        def method(self, *args, _name=name, **kwargs):
            no_opengl(f"{cls.__name__}.{_name}")
        method.__name__ = name
        method.__doc__ = "Not available: roboio has no OpenGL drawing (raises OpenGLNotAvailable)."
        setattr(cls, name, method)


def floats(values, n=None, what="vector") -> list:
    """``values`` as a list of Python floats (checking the length when ``n`` is given)."""
    out = [float(v) for v in np.asarray(values, dtype=float).reshape(-1)]
    if n is not None and len(out) != n:
        raise ValueError(f"{what} must have {n} entries, got {len(out)}")
    return out


def vec3(v, what="vector") -> np.ndarray:
    a = np.asarray(v, dtype=float).reshape(-1)
    if a.shape != (3,):
        raise ValueError(f"{what} must have 3 entries, got {a.size}")
    return a


def so3_to_matrix(R) -> np.ndarray:
    """Column-major 9-list -> 3x3 matrix (any 3x3, not only rotations: scalings pass)."""
    a = np.asarray(R, dtype=float).reshape(-1)
    if a.shape != (9,):
        raise ValueError(f"a rotation must be a 9-list (column-major), got {a.size} entries")
    return a.reshape(3, 3).T.copy()


def matrix_to_so3(M) -> list:
    return [float(x) for x in np.asarray(M, dtype=float).T.reshape(9)]


def se3_to_matrix(R, t) -> np.ndarray:
    """``(R, t)`` in Klamp't form -> 4x4."""
    T = np.eye(4)
    T[:3, :3] = so3_to_matrix(R)
    T[:3, 3] = vec3(t, "translation")
    return T


def matrix_to_se3(T) -> tuple:
    T = np.asarray(T, dtype=float)
    return (matrix_to_so3(T[:3, :3]), [float(x) for x in T[:3, 3]])


def float32(x) -> float:
    """``x`` rounded to single precision, as Klamp't stores colours."""
    return float(np.float32(x))


def bounds_or_empty(b) -> tuple:
    """``(bmin, bmax)`` lists; Klamp't's empty box is ``([inf]*3, [-inf]*3)``."""
    if b is None:
        return ([math.inf] * 3, [-math.inf] * 3)
    return ([float(x) for x in b[0]], [float(x) for x in b[1]])
