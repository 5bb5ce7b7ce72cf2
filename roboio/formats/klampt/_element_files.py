"""Geometry helpers shared by the Klamp't world, rigid-object and terrain files.

Reading: :func:`apply_automass` (Klamp't's ``autoMass``/``automass`` from the geometry).
Writing: :func:`write_element_file` (an ``.obj``/``.env`` file, standalone or for a world).
The geometry references every Klamp't writer emits are chosen in :mod:`._geometry_refs`.
"""
from __future__ import annotations

import numpy as np

from . import _simplefile
from ._geometry_refs import GeometryWriter

__all__ = ["apply_automass", "element_file_text"]


def apply_automass(obj, surface_fraction: float, about=None, ctx=None, line=None) -> None:
    """Set ``obj.com`` and ``obj.inertia`` from ``obj.geometry`` (with its transform) for
    ``obj.mass``, as Klamp't's automass does; with ``about`` (a point) only the inertia is
    recomputed, about that point. Missing geometry: a warning, nothing changes."""
    from ...model.massprops import geometry_moments, inertia_from_moments
    g = obj.geometry
    if g is None or g.missing:
        if ctx is not None:
            ctx.warn(f"automass of {obj.name!r} skipped: its geometry is missing", line, kind="dropped")
        return
    c, C = geometry_moments(g, surface_fraction, about=about)
    if about is None:
        obj.com = np.asarray(c, float)
    obj.inertia = np.asarray(inertia_from_moments(obj.mass, C), float)


def element_file_text(element, path: str, report, geometry_writer, what: str, margin_home: str,
                      items) -> str:
    """The SimpleFile text (``.obj``/``.env``) of a rigid object or terrain to be stored at
    ``path``.

    ``items(gw)`` gives its ``(item, values)`` pairs, with ``gw`` the ``geometry_writer``
    of a world being written (which keeps the rest in the world file), or else a new
    :class:`GeometryWriter` for a standalone file, which then reports what only a world file
    could hold (``margin_home`` names where a world keeps the collision margin)."""
    gw = geometry_writer or GeometryWriter(report)
    entries = items(gw)
    if geometry_writer is None:
        gw.finish()
        _lose_world_only(element, what, report, margin_home)
    return _simplefile.format_entries(entries)


def _lose_world_only(element, what: str, report, margin_home: str) -> None:
    """Report what a standalone ``.obj``/``.env`` file cannot hold but a world file could:
    the collision margin (``margin_home`` names where a world keeps it), the appearance and
    any extras."""
    if element.geometry is not None and element.geometry.margin:
        report.lose(f"{what}: collision margin {element.geometry.margin} (only a world's "
                    f"{margin_home} holds it)", kind="not written")
    if not element.appearance.is_default():
        report.lose(f"{what}: appearance (only a world's <display> holds it)", kind="not written")
    for k in sorted(element.extras):
        report.lose(f"{what}: {k}", kind="kept as data")
