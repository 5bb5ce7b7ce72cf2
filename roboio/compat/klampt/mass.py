"""Klamp't's ``Mass``: mass (kg), centre of mass (m, local frame) and inertia (kg m^2, about
the centre of mass, local axes) of a rigid body or robot link."""
from __future__ import annotations

import numpy as np

from ._common import floats

__all__ = ["Mass"]


class Mass:
    """A plain value (not a view): change it, then hand it to ``setMass``.

    ``inertia`` is a list of 3 (diagonal) or 9 (full matrix, column-major) floats;
    defaults as Klamp't's: mass 1, com 0, inertia ``[1, 1, 1]``.
    """

    def __init__(self):
        self._mass = 1.0
        self._com = [0.0, 0.0, 0.0]
        self._inertia = [1.0, 1.0, 1.0]

    def setMass(self, _mass):
        self._mass = float(_mass)

    def getMass(self) -> float:
        return self._mass

    def setCom(self, _com):
        self._com = floats(_com, 3, "com")

    def getCom(self) -> list:
        return list(self._com)

    def setInertia(self, _inertia):
        values = floats(_inertia)
        if len(values) not in (3, 9):
            raise ValueError(f"inertia must have 3 or 9 entries, got {len(values)}")
        self._inertia = values

    def getInertia(self) -> list:
        return list(self._inertia)

    def estimate(self, g, mass: float, surfaceFraction: float = 0):
        """Set the mass to ``mass`` and the COM and inertia to those of the geometry ``g``
        (a Geometry3D) with that mass: for meshes ``surfaceFraction`` of it on the surface,
        the rest filling the interior (Klamp't's formulas, ``roboio.model.massprops``)."""
        from ...model.massprops import mass_properties
        geom = g._geom
        if geom is None or geom.missing:
            raise RuntimeError("Geometry is empty")
        com, inertia = mass_properties(geom, float(mass), float(surfaceFraction))
        self._mass = float(mass)
        self._com = floats(com, 3)
        self._inertia = [float(v) for v in np.asarray(inertia, dtype=float).T.reshape(9)]

    mass = property(getMass, setMass)
    com = property(getCom, setCom)
    inertia = property(getInertia, setInertia)

    # -- conversions to / from roboio's model (3x3 arrays) -----------------------------
    def inertia_matrix(self) -> np.ndarray:
        """The inertia as a 3x3 array."""
        if len(self._inertia) == 3:
            return np.diag(self._inertia)
        return np.array(self._inertia, dtype=float).reshape(3, 3).T

    @classmethod
    def from_model(cls, mass, com, inertia) -> "Mass":
        m = cls()
        m._mass = float(mass)
        m._com = floats(com, 3)
        m._inertia = [float(v) for v in np.asarray(inertia, dtype=float).T.reshape(9)]
        return m

    def __repr__(self):
        return f"Mass(mass={self._mass}, com={self._com}, inertia={self._inertia})"
