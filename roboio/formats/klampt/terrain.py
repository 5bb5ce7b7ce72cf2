"""Klamp't terrain files (``.env``, SimpleFile syntax; no content signature: the extension
decides).

Items: ``mesh`` (required, one geometry file resolved relative to the ``.env`` file) and
``kFriction`` (one value for the whole terrain, or exactly one per geometry element, e.g.
per triangle; default 0.5). Klamp't ignores every other item; roboio warns about them.

Writing uses ``kFriction`` (Klamp't's own writer emits ``friction``, which its reader does
not know). A terrain's placement cannot be written in a ``.env`` file: a standalone ``.env``
gets its geometry re-written with the placement applied (worlds put the placement on the
``<terrain>`` element instead).
"""
from __future__ import annotations

import os

import numpy as np

from ...errors import FormatError
from ...model import Group, PointCloud, Terrain, TriangleMesh
from ...transforms import compose
from .. import static_mass
from ..fileio import as_text, atomic_write, read_bytes
from ..loading import load_geometry_ref
from . import _simplefile
from ._element_files import element_file_text
from ._geometry_refs import GeometryWriter

__all__ = ["loads", "read", "dumps", "write", "terrain_items", "terrain_text", "write_terrain",
           "element_count"]


def element_count(geom) -> int:
    """Number of geometry elements Klamp't counts for per-element friction: triangles of a
    mesh, points of a point cloud, children of a group, 1 for a primitive."""
    if isinstance(geom, TriangleMesh):
        return len(geom.faces)
    if isinstance(geom, PointCloud):
        return len(geom.points)
    if isinstance(geom, Group):
        return len(geom.children)
    return 1


def loads(data, ctx) -> Terrain:
    """The terrain of a Klamp't ``.env`` file's text; the mesh is found relative to
    ``ctx.path``."""
    path = ctx.path or ""
    entries = _simplefile.parse(as_text(data), path)
    t = Terrain(os.path.splitext(os.path.basename(path))[0] or "terrain")
    t.source = ctx.path
    for name, e in entries.items():
        if name not in ("mesh", "kFriction"):
            ctx.warn(f"item {name!r} is ignored (a terrain file has 'mesh' and 'kFriction')", e.line, kind="ignored")
    if "mesh" not in entries:
        raise FormatError(path, None, None, "a terrain file needs a 'mesh' item")
    mesh = entries["mesh"]
    ref = mesh.string(path)
    if not ref.strip():
        raise FormatError(path, mesh.line, None, "mesh: empty file name")
    t.geometry = load_geometry_ref(ref, path, ctx, line=mesh.line)
    if "kFriction" in entries:
        e = entries["kFriction"]
        if not e.values:
            raise FormatError(path, e.line, None, "kFriction: expected 1 value or one per geometry element")
        vals = e.numbers(path, (len(e.values),))
        if len(vals) == 1:
            t.kFriction = vals[0]
        else:
            if t.geometry.missing:
                ctx.warn(f"kFriction: {len(vals)} values kept unchecked: the geometry is missing", e.line, kind="kept as data")
            else:
                n = element_count(t.geometry)
                if len(vals) != n:
                    raise FormatError(path, e.line, None,
                                      f"kFriction: expected 1 value or {n} (one per geometry "
                                      f"element), got {len(vals)}")
            t.kFriction = np.array(vals)
    return t


def read(path: str, ctx) -> Terrain:
    return loads(read_bytes(path, ctx), ctx)


def terrain_items(t: Terrain, path: str, report, geometry_writer: GeometryWriter, what: str,
                  placed: bool = False) -> list:
    """``(item, values)`` pairs of the ``.env`` file for ``t`` written at ``path``.

    ``placed``: the caller writes the placement (``t.transform @ geometry.transform``)
    elsewhere (a world's ``<terrain>`` attributes); otherwise a non-identity placement is
    applied to the data, which are written to a new file.
    """
    g = t.geometry
    if g is None:
        raise FormatError(path, None, None, f"{what} has no geometry; Klamp't terrains need one")
    M = compose(np.asarray(t.transform, float), g.transform)
    if placed or np.array_equal(M, np.eye(4)):
        ref = geometry_writer.data_reference(g, path, what)
    else:
        ref = geometry_writer.baked_reference(g, M, path, what)
    kf = np.atleast_1d(np.asarray(t.kFriction, float))
    return [("mesh", [ref]), ("kFriction", list(kf))]


def terrain_text(t: Terrain, path: str, report, geometry_writer=None, placed: bool = False) -> str:
    """The ``.env`` text of ``t`` to be stored at ``path`` (see :func:`terrain_items`)."""
    what = f"terrain {t.name!r}"
    static_mass.say_lost(t, report, "Klamp't terrains have no mass")
    return element_file_text(t, path, report, geometry_writer, what, "<terrain margin>",
                             lambda gw: terrain_items(t, path, report, gw, what, placed))


def write_terrain(t: Terrain, path: str, report, geometry_writer=None, placed: bool = False) -> None:
    """Write ``t`` as a Klamp't ``.env`` file (a world's writer passes its geometry writer
    and whether it writes the placement itself)."""
    atomic_write(path, terrain_text(t, path, report, geometry_writer, placed))


def dumps(t: Terrain, report, path=None) -> str:
    return terrain_text(t, path or "terrain.env", report)


def write(t: Terrain, path: str, report) -> None:
    write_terrain(t, path, report)
