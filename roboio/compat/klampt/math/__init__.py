"""Klamp't's ``klampt.math`` helpers: :mod:`so3` (rotations as column-major 9-lists),
:mod:`se3` (rigid transforms as ``(R, t)`` pairs) and :mod:`vectorops` (lists as vectors).

>>> from roboio.compat.klampt.math import so3, se3, vectorops
"""
from . import se3, so3, vectorops

__all__ = ["so3", "se3", "vectorops"]
