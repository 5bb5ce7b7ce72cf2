"""Geometry helpers shared by the Klamp't world, rigid-object and terrain files.

Reading: :func:`apply_automass` (Klamp't's ``autoMass``/``automass`` from the geometry).
Writing: :func:`lose_world_only` (what a standalone ``.obj``/``.env`` cannot hold). The
geometry references every Klamp't writer emits are chosen in :mod:`._geometry_out`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["apply_automass", "lose_world_only"]


def apply_automass(obj, surface_fraction: float, about=None, ctx=None, line=None) -> None:
    """Set ``obj.com`` and ``obj.inertia`` from ``obj.geometry`` (with its transform) for
    ``obj.mass``, as Klamp't's automass does; with ``about`` (a point) only the inertia is
    recomputed, about that point. Missing geometry: a warning, nothing changes."""
    from ...model.massprops import geometry_moments, inertia_from_moments
    g = obj.geometry
    if g is None or g.missing:
        if ctx is not None:
            ctx.warn(f"automass of {obj.name!r} skipped: its geometry is missing", line)
        return
    c, C = geometry_moments(g, surface_fraction, about=about)
    if about is None:
        obj.com = np.asarray(c, float)
    obj.inertia = np.asarray(inertia_from_moments(obj.mass, C), float)


def lose_world_only(element, what: str, report, margin_home: str) -> None:
    """Report what a standalone ``.obj``/``.env`` file cannot hold but a world file could:
    the collision margin (``margin_home`` names where a world keeps it), the appearance and
    any extras."""
    if element.geometry is not None and element.geometry.margin:
        report.lose(f"{what}: collision margin {element.geometry.margin} (only a world's "
                    f"{margin_home} holds it)")
    if not element.appearance.is_default():
        report.lose(f"{what}: appearance (only a world's <display> holds it)")
    for k in sorted(element.extras):
        report.lose(f"{what}: {k}")
