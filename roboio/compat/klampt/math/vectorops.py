"""Klamp't's ``vectorops``: plain lists/tuples treated as vectors (results are lists)."""
from __future__ import annotations

import math

__all__ = ["add", "madd", "sub", "mul", "div", "maximum", "minimum", "dot", "normSquared",
           "norm", "norm_L1", "norm_L2", "norm_Linf", "unit", "distanceSquared", "distance",
           "cross", "interpolate"]


def _same_length(a, b):
    if len(a) != len(b):
        raise RuntimeError("Vector dimensions not equal")


def _is_vector(x) -> bool:
    return hasattr(x, "__iter__")


def add(*items):
    """Sum of one or more vectors (0 for no argument)."""
    if not items:
        return 0
    for v in items[1:]:
        _same_length(items[0], v)
    return [sum(vals) for vals in zip(*items)]


def madd(a, b, c):
    """``a + c * b``."""
    _same_length(a, b)
    return [x + c * y for x, y in zip(a, b)]


def sub(a, b):
    """``a - b`` for a vector or scalar ``b``."""
    if _is_vector(b):
        _same_length(a, b)
        return [x - y for x, y in zip(a, b)]
    return [x - b for x in a]


def mul(a, b):
    """Elementwise product with a vector, or product with a scalar."""
    if _is_vector(b):
        _same_length(a, b)
        return [x * y for x, y in zip(a, b)]
    return [x * b for x in a]


def div(a, b):
    """Elementwise quotient by a vector, or quotient by a scalar."""
    if _is_vector(b):
        _same_length(a, b)
        return [x / y for x, y in zip(a, b)]
    return [x / b for x in a]


def maximum(a, b):
    return [max(x, y) for x, y in zip(a, b)] if _is_vector(b) else [max(x, b) for x in a]


def minimum(a, b):
    return [min(x, y) for x, y in zip(a, b)] if _is_vector(b) else [min(x, b) for x in a]


def dot(a, b):
    _same_length(a, b)
    return sum(x * y for x, y in zip(a, b))


def normSquared(a):
    return sum(x * x for x in a)


def norm(a):
    """Euclidean norm."""
    return math.sqrt(normSquared(a))


norm_L2 = norm


def norm_L1(a):
    return sum(abs(x) for x in a)


def norm_Linf(a):
    return max(abs(x) for x in a)


def unit(a, epsilon=1e-5):
    """``a / |a|``; ``a`` itself (copied) when ``|a| <= epsilon``."""
    n = norm(a)
    return mul(a, 1.0 / n) if n > epsilon else list(a)


def distanceSquared(a, b):
    _same_length(a, b)
    return sum((x - y) * (x - y) for x, y in zip(a, b))


def distance(a, b):
    return math.sqrt(distanceSquared(a, b))


def cross(a, b):
    """Cross product of 3-vectors (a tuple), or the scalar cross product of 2-vectors."""
    _same_length(a, b)
    if len(a) == 3:
        return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    if len(a) == 2:
        return a[0] * b[1] - a[1] * b[0]
    raise RuntimeError("Vectors must be 2D or 3D")


def interpolate(a, b, u):
    """``a + u (b - a)``."""
    return madd(a, sub(b, a), u)
