"""GraspIt!'s materials and their friction coefficients (spec §4.1, ``world.cpp``).

A body's ``<material>`` is kept as ``extras["graspit"]["material"]`` (default ``wood``);
:func:`friction` gives the static and kinetic coefficients GraspIt! uses for a contact
between two materials.
"""
from __future__ import annotations

__all__ = ["MATERIALS", "friction"]

MATERIALS = ("frictionless", "glass", "metal", "plastic", "wood", "rubber", "stone")

# (static, kinetic) for each unordered pair; frictionless with anything is (0, 0)
_TABLE = {
    ("glass", "glass"): (0.2, 0.1), ("glass", "metal"): (0.2, 0.1), ("glass", "plastic"): (0.2, 0.1),
    ("glass", "wood"): (0.3, 0.2), ("glass", "rubber"): (1.0, 0.9), ("glass", "stone"): (0.3, 0.2),
    ("metal", "metal"): (0.2, 0.1), ("metal", "plastic"): (0.2, 0.1), ("metal", "wood"): (0.3, 0.2),
    ("metal", "rubber"): (1.0, 0.9), ("metal", "stone"): (0.4, 0.3),
    ("plastic", "plastic"): (0.3, 0.2), ("plastic", "wood"): (0.4, 0.3), ("plastic", "rubber"): (1.0, 0.9),
    ("plastic", "stone"): (0.4, 0.3),
    ("wood", "wood"): (0.4, 0.3), ("wood", "rubber"): (1.0, 0.9), ("wood", "stone"): (0.6, 0.5),
    ("rubber", "rubber"): (2.0, 1.9), ("rubber", "stone"): (1.5, 1.4),
    ("stone", "stone"): (0.7, 0.6),
}


def friction(a: str, b: str) -> tuple:
    """``(static, kinetic)`` friction coefficients between materials ``a`` and ``b``."""
    for m in (a, b):
        if m not in MATERIALS:
            raise ValueError(f"unknown GraspIt! material {m!r} (known: {', '.join(MATERIALS)})")
    if "frictionless" in (a, b):
        return (0.0, 0.0)
    return _TABLE.get((a, b)) or _TABLE[(b, a)]
