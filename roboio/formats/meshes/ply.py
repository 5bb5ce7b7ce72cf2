"""PLY (Stanford polygon file) triangle meshes, ascii and binary (both byte orders).

Reading goes through trimesh's PLY loader (``trimesh.exchange.ply.load_ply``, textures
skipped, no re-indexing for texture coordinates; see :mod:`._trimesh`): the ``vertex``
element's ``x y z`` and ``red green blue [alpha]`` (integers divided by their type's
maximum, 255 for ``uchar``; floats kept), the ``face`` element's ``vertex_indices`` (or
``vertex_index``) lists, fan-triangulated ``(1, j, j+1)`` in file order, and its optional
``red green blue [alpha]``; other elements and properties are skipped. Vertices are kept
in file order, never merged.

What trimesh does not read: a binary file whose face lists have different lengths
(triangles mixed with quads), or with bytes after its data, is a FormatError ("PLY is
unexpected length"); ascii data must hold one element per line (a blank line or an
element split over lines is misread: a FormatError when it leaves rows of different
lengths, not always detected otherwise).

Writing (hand-written, so numbers round-trip exactly: trimesh's exporter rounds them):
``binary_little_endian`` with ``double`` coordinates (exact), ``uchar`` colours (rounded
to 1/255 steps, which the report says) and ``list uchar int vertex_indices``.
"""
from __future__ import annotations

import numpy as np

from ...errors import FormatError
from ...model import Geometry, TriangleMesh
from ..fileio import as_bytes, atomic_write
from ..meshfile import (check_readable, color_bytes, flatten_for_writing, lazy_mesh, parsed_mesh,
                        read_bytes)
from . import _trimesh
from ._sniff import sniff_ply as sniff

__all__ = ["sniff", "loads", "read", "dumps", "write", "parse_ply", "parse_ply_bytes"]


def _file_order_polygons(kw: dict) -> None:
    """trimesh triangulates ascii faces of mixed sizes grouped by size (triangles first);
    put back the file's polygon lists, from its raw elements, so they are fanned in order
    and per-face colours stay with their faces."""
    raw = kw.get("metadata", {}).get("_ply_raw", {}).get("face", {}).get("data")
    if isinstance(raw, dict):
        lists = next((raw[n] for n in ("vertex_indices", "vertex_index") if n in raw), None)
        if isinstance(lists, np.ndarray) and lists.dtype == object:
            kw["faces"] = lists


def parse_ply_bytes(data: bytes, path, warn=None) -> dict:
    """The mesh dict of PLY data (see the module docstring)."""
    warn = warn or (lambda msg, line=None: None)
    _check_head(data[:3], path)
    from trimesh.exchange.ply import load_ply
    kw = _trimesh.load(path, data, load_ply, "PLY", warn, resolver=None, fix_texture=False,
                       skip_materials=True, process=False)
    _file_order_polygons(kw)
    return _trimesh.flatten(kw, path, "PLY", warn)


def parse_ply(path: str, warn=None) -> dict:
    """The mesh dict of a PLY file."""
    return parse_ply_bytes(read_bytes(path), path, warn)


def _check_head(head: bytes, path) -> None:
    if head and head != b"ply":
        raise FormatError(path, 1, 1, "not a PLY file (expected 'ply' as the first line)")


def loads(data, ctx) -> TriangleMesh:
    """The mesh of PLY data, parsed now."""
    return parsed_mesh(parse_ply_bytes(as_bytes(data), ctx.path, ctx.warn), ctx.path, "ply", ctx=ctx)


def read(path: str, ctx) -> TriangleMesh:
    """Lazy PLY mesh: the first line is checked now, the data parsed on first access."""
    _check_head(check_readable(path, 3), path)
    return lazy_mesh(path, lambda p: parse_ply_bytes(read_bytes(p, ctx), p, ctx.warn), "ply", ctx=ctx)


def dumps(geom: Geometry, report, path=None) -> bytes:
    """Binary little-endian PLY, double coordinates, uchar colours."""
    m = flatten_for_writing(geom, report, "PLY")
    nv, nf = len(m.vertices), len(m.faces)
    head = ["ply", "format binary_little_endian 1.0", "comment written by roboio",
            f"element vertex {nv}", "property double x", "property double y", "property double z"]
    vfields = [("x", "<f8"), ("y", "<f8"), ("z", "<f8")]
    if m.vertex_colors is not None:
        head += [f"property uchar {n}" for n in ("red", "green", "blue", "alpha")]
        vfields += [(n, "u1") for n in ("red", "green", "blue", "alpha")]
    itype = "<i4" if nv < 2 ** 31 else "<u4"
    head += [f"element face {nf}", f"property list uchar {'int' if itype == '<i4' else 'uint'} vertex_indices"]
    ffields = [("n", "u1"), ("i", itype, (3,))]
    if m.face_colors is not None:
        head += [f"property uchar {n}" for n in ("red", "green", "blue", "alpha")]
        ffields += [(n, "u1") for n in ("red", "green", "blue", "alpha")]
    head.append("end_header")
    vrec = np.zeros(nv, np.dtype(vfields))
    vrec["x"], vrec["y"], vrec["z"] = m.vertices.T
    if m.vertex_colors is not None:
        q = color_bytes(m.vertex_colors, "vertex", "PLY", report)
        for i, n in enumerate(("red", "green", "blue", "alpha")):
            vrec[n] = q[:, i]
    frec = np.zeros(nf, np.dtype(ffields))
    frec["n"] = 3
    frec["i"] = m.faces
    if m.face_colors is not None:
        q = color_bytes(m.face_colors, "face", "PLY", report)
        for i, n in enumerate(("red", "green", "blue", "alpha")):
            frec[n] = q[:, i]
    return ("\n".join(head) + "\n").encode("ascii") + vrec.tobytes() + frec.tobytes()


def write(geom: Geometry, path: str, report) -> None:
    atomic_write(path, dumps(geom, report, path))
