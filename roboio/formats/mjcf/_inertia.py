"""Masses and inertias as MuJoCo accepts them, changed as little as possible.

MuJoCo's compiler (``user_model.cc``/``user_objects.cc``, 3.x-4.x) refuses:

* a principal inertia below 0, or principal inertias that violate ``A + B >= C``;
* a ``fullinertia`` whose smallest eigenvalue is below ``mjEPS`` (1e-14);
* a *moving* body (one with a joint) unless it, or a body welded to it (a jointless
  descendant reached through jointless bodies), has mass >= ``mjMINVAL`` (1e-15) and all three
  principal inertias >= ``mjMINVAL``.

roboio's rule (documented in ``docs/mjcf.md``): masses and inertias are written as they are
where MuJoCo takes them; an inertia that is not symmetric is symmetrised, negative principal
moments become 0, and principal moments that violate the triangle inequality are raised
(the two smaller ones by half the deficit each); a moving body that MuJoCo would refuse gets
mass ``MASS_FLOOR`` and principal inertias ``INERTIA_FLOOR`` where its own are smaller. Each
change is reported with its size (and the total mass change).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...transforms import compose, symmetric_eigen3

__all__ = ["Inertial", "MASS_FLOOR", "INERTIA_FLOOR", "MJ_MINVAL", "MJ_EPS", "prepare",
           "refused_by_mujoco", "floor"]

MJ_MINVAL = 1e-15
MJ_EPS = 1e-14
MASS_FLOOR = 1e-6          # kg: 1 mg
INERTIA_FLOOR = 1e-10      # kg m^2: 1 mg at 1 cm


@dataclass
class Inertial:
    """What is written for one body: ``mass`` (kg), ``com`` (3,), ``inertia`` (3x3 about the
    COM, body axes) and its principal form ``moments`` (3,) / ``axes`` (3x3 columns,
    rotation). ``changes``: human-readable notes of what was changed, with sizes."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray
    moments: np.ndarray
    axes: np.ndarray
    changes: list
    original_mass: float

    @property
    def empty(self) -> bool:
        return self.mass == 0 and not np.any(self.moments)

    @property
    def valid_for_motion(self) -> bool:
        return self.mass >= MJ_MINVAL and bool(np.all(self.moments >= MJ_MINVAL))


def _principal(I) -> tuple:
    """Principal moments (ascending) and axes (a rotation), element-wise: the same digits
    on every machine (LAPACK's eigh depends on the BLAS kernel)."""
    return symmetric_eigen3(I)


def prepare(mass: float, com, inertia) -> Inertial:
    """Symmetrised, physically valid (non-negative, triangle inequality) mass properties."""
    changes = []
    mass = float(mass)
    original = mass
    if not np.isfinite(mass) or mass < 0:
        changes.append(f"mass {mass!r} kg written as 0")
        mass = 0.0
    com = np.asarray(com, float).reshape(3)
    if not np.all(np.isfinite(com)):
        changes.append("non-finite centre of mass written as 0")
        com = np.zeros(3)
    I = np.asarray(inertia, float).reshape(3, 3)
    if not np.all(np.isfinite(I)):
        changes.append("non-finite inertia written as 0")
        I = np.zeros((3, 3))
    scale = max(np.abs(I).max(), 1e-300)
    asym = np.abs(I - I.T).max()
    if asym > 1e-12 * scale:
        changes.append(f"inertia symmetrised (asymmetry {asym:.1e} kg m^2)")
    I = (I + I.T) / 2
    if np.all(I == np.diag(np.diag(I))):
        w, V = np.diag(I).copy(), np.eye(3)     # keep a diagonal exactly as given
    else:
        w, V = _principal(I)
    fixed = w.copy()
    if np.any(fixed < 0):
        neg = float(-fixed.min())
        fixed = np.maximum(fixed, 0.0)
        if neg > 1e-12 * scale:
            changes.append(f"negative principal inertia raised to 0 (by {neg:.1e} kg m^2)")
    fixed = _triangle(fixed, changes)
    if np.any(fixed != w):
        I = np.diag(fixed) if np.array_equal(V, np.eye(3)) else compose(V * fixed, V.T)
    return Inertial(mass, com, I, fixed, V, changes, original)


def _triangle(w, changes) -> np.ndarray:
    """Principal moments raised to satisfy ``A + B >= C`` exactly in floating point."""
    w = np.asarray(w, float).copy()
    order = np.argsort(w, kind="stable")
    a, b, c = w[order]
    if a + b >= c:
        return w
    d = c - a - b
    a += d / 2
    b += d / 2
    while a + b < c:
        b = np.nextafter(b, np.inf)
    w[order[0]], w[order[1]] = a, b
    if d > 1e-12 * max(c, 1e-300):
        changes.append(f"principal inertias raised to satisfy A + B >= C (by {d / 2:.1e} kg m^2)")
    return w


def floor(inertial: Inertial) -> Optional[str]:
    """Raise ``inertial`` to ``MASS_FLOOR`` / ``INERTIA_FLOOR`` (principal moments), in
    place; returns a note of the change or None when nothing changed."""
    notes = []
    if inertial.mass < MASS_FLOOR:
        notes.append(f"mass {inertial.mass:.3g} -> {MASS_FLOOR:g} kg")
        inertial.mass = MASS_FLOOR
    w = inertial.moments
    if np.any(w < INERTIA_FLOOR):
        notes.append(f"principal inertia {w.min():.3g} -> {INERTIA_FLOOR:g} kg m^2")
        w = np.maximum(w, INERTIA_FLOOR)
        w = _triangle(w, [])
        inertial.moments = w
        inertial.inertia = (np.diag(w) if np.array_equal(inertial.axes, np.eye(3))
                             else compose(inertial.axes * w, inertial.axes.T))
    return ", ".join(notes) or None


def refused_by_mujoco(inertials: list, moving: list, children: dict) -> list:
    """Indices of moving bodies MuJoCo would refuse (see the module docstring).

    ``inertials[i]``: the :class:`Inertial` of body i (None: no mass at all); ``moving[i]``:
    body i has a joint; ``children[i]``: its child bodies."""
    def ok(i) -> bool:
        it = inertials[i]
        if it is not None and it.valid_for_motion:
            return True
        return any(not moving[c] and ok(c) for c in children.get(i, ()))
    return [i for i in range(len(inertials)) if moving[i] and not ok(i)]
