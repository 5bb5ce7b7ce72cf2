"""Link masses with OpenRAVE's formulas (``openrave.md`` §9; OpenRAVE's ``MASS`` class).

A :class:`Mass` is a total mass (kg), a centre of mass (m, link frame) and an inertia tensor
(kg m², about the COM, link axes). Sums use the parallel-axis theorem; a zero total mass sums
to zero (OpenRAVE's rule).
"""
from __future__ import annotations

import math

import numpy as np

from ...transforms import matrix_vector, rotate_tensor, vector_dot

__all__ = ["Mass", "sphere", "sphere_density", "box", "box_density", "cylinder_density",
           "GEOM_DENSITY_TOTAL"]

GEOM_DENSITY_TOTAL = 1000.0    # density OpenRAVE assumes for mimicgeom + <total>


class Mass:
    def __init__(self, mass=0.0, com=None, inertia=None):
        self.mass = float(mass)
        self.com = np.zeros(3) if com is None else np.asarray(com, dtype=float)
        self.inertia = np.zeros((3, 3)) if inertia is None else np.asarray(inertia, dtype=float)

    def transformed(self, T) -> "Mass":
        """The mass expressed through the rigid transform ``T`` (``ChangeCoordinateSystem``)."""
        R = T[:3, :3]
        return Mass(self.mass, matrix_vector(R, self.com) + T[:3, 3], rotate_tensor(R, self.inertia))

    def about(self, point) -> np.ndarray:
        """Inertia about ``point`` (``ChangeCenterOfRotation``)."""
        v = np.asarray(point, dtype=float) - self.com
        return self.inertia + self.mass * (vector_dot(v, v) * np.eye(3) - np.outer(v, v))

    def __add__(self, other: "Mass") -> "Mass":
        total = self.mass + other.mass
        if total == 0:
            return Mass()
        com = (self.mass * self.com + other.mass * other.com) / total
        return Mass(total, com, self.about(com) + other.about(com))

    def scaled(self, factor: float) -> "Mass":
        """The same shape with ``mass * factor`` (inertia unchanged: OpenRAVE rescales only
        the total of each piece of a mimicgeom mass before summing)."""
        return Mass(self.mass * factor, self.com, self.inertia)


def sphere(radius: float, total: float) -> Mass:
    return Mass(total, None, 0.4 * total * radius * radius * np.eye(3))


def sphere_density(radius: float, density: float) -> Mass:
    return sphere(radius, 4.0 / 3.0 * math.pi * radius ** 3 * density)


def box(extents, total: float) -> Mass:
    """``extents`` are half sizes."""
    ex, ey, ez = (float(v) for v in extents)
    return Mass(total, None, np.diag([total / 3.0 * (ey * ey + ez * ez),
                                      total / 3.0 * (ex * ex + ez * ez),
                                      total / 3.0 * (ex * ex + ey * ey)]))


def box_density(extents, density: float) -> Mass:
    ex, ey, ez = (float(v) for v in extents)
    return box(extents, 8.0 * ex * ey * ez * density)


def cylinder_density(radius: float, height: float, density: float) -> Mass:
    """A cylinder along its frame's Z axis (OpenRAVE's internal convention)."""
    total = math.pi * radius * radius * height * density
    r2 = radius * radius
    side = total * (0.25 * r2 + height * height / 12.0)
    return Mass(total, None, np.diag([side, side, total * 0.5 * r2]))
