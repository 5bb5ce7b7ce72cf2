"""The mass of static scenery: a MuJoCo body without joints (a table, a wall) is read as a
terrain, which has no mass in roboio's model (Klamp't's terrains have none), yet MuJoCo
compiles one for it (``model.body_mass``, ``body_inertia``, ``body_ipos``). It does not
move, so nothing changes in simulation; the MJCF reader keeps it as the terrain's
``extras["mjcf"]["inertial"]`` (mass in kg, centre of mass in m and the inertia about it in
kg m^2, both in the terrain frame) and the MJCF writer writes it back as the body's
``<inertial>``; every other writer reports it with :func:`say_lost`.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

__all__ = ["keep", "kept", "say_lost"]

_OWNER, _KEY = "mjcf", "inertial"


def keep(terrain, mass: float, com, inertia) -> None:
    """Record ``terrain``'s static mass: ``mass`` (kg), ``com`` (3, m) and ``inertia``
    (3x3 about ``com``, kg m^2), in the terrain frame (lists: the extras stay plain data)."""
    terrain.extras.setdefault(_OWNER, {})[_KEY] = {
        "mass": float(mass), "com": [float(v) for v in com],
        "inertia": [[float(v) for v in row] for row in np.asarray(inertia, float)]}


def kept(terrain) -> Optional[tuple]:
    """``(mass, com (3,), inertia (3, 3))`` of ``terrain`` (terrain frame), or None when
    it keeps none (or what it keeps is not a mass, a point and a 3x3 tensor)."""
    own = terrain.extras.get(_OWNER)
    rec = own.get(_KEY) if isinstance(own, dict) else None
    if not isinstance(rec, dict):
        return None
    try:
        mass = float(rec["mass"])
        com = np.asarray(rec["com"], float).reshape(3)
        inertia = np.asarray(rec["inertia"], float).reshape(3, 3)
    except (KeyError, TypeError, ValueError):
        return None
    return mass, com, inertia


def say_lost(terrain, report, why: str) -> None:
    """Report that the target does not hold ``terrain``'s static mass, saying ``why``."""
    props = kept(terrain)
    if props is not None and props[0] > 0:
        report.lose(f"mass of static bodies, not written ({why}; they do not move)",
                    f"{terrain.name} ({props[0]:.6g} kg)", kind="not written", noun="terrain",
                    largest=props[0], unit="kg")
