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


def parse_ply_bytes(data: bytes, path, warn=None, ctx=None) -> dict:
    """The mesh dict of PLY data (see the module docstring). The header's element counts are
    checked against the data present (and the load's budget) before anything is read."""
    warn = warn or (lambda msg, line=None: None)
    _check_head(data[:3], path)
    _check_counts(data, path, ctx)
    from trimesh.exchange.ply import load_ply
    kw = _trimesh.load(path, data, load_ply, "PLY", warn, resolver=None, fix_texture=False,
                       skip_materials=True, process=False)
    _file_order_polygons(kw)
    return _trimesh.flatten(kw, path, "PLY", warn)


def parse_ply(path: str, warn=None) -> dict:
    """The mesh dict of a PLY file."""
    return parse_ply_bytes(read_bytes(path), path, warn)


_SIZES = {"char": 1, "uchar": 1, "int8": 1, "uint8": 1, "short": 2, "ushort": 2, "int16": 2,
          "uint16": 2, "int": 4, "uint": 4, "int32": 4, "uint32": 4, "float": 4, "float32": 4,
          "double": 8, "float64": 8}


def _check_counts(data: bytes, path, ctx) -> None:
    """Refuse a header whose element counts the data cannot hold (``element vertex 10^12``
    with two lines of numbers: a truncated or lying file, which would otherwise read as an
    empty mesh) or that exceed the load's vertex/triangle budget. Only the header is parsed
    here; the data are counted (ASCII: numbers, binary: bytes) without being read."""
    end = data.find(b"end_header")
    if end < 0:
        return                                     # trimesh reports the broken header
    body_at = data.find(b"\n", end)
    body_at = len(data) if body_at < 0 else body_at + 1
    fmt, elements = None, []
    for n, raw in enumerate(data[:end].split(b"\n"), start=1):
        w = raw.split()
        if not w:
            continue
        if w[0] == b"format" and len(w) > 1:
            fmt = w[1].decode("ascii", "replace")
        elif w[0] == b"element" and len(w) >= 3:
            try:
                count = int(w[2])
            except ValueError:
                return                             # trimesh reports it
            elements.append([w[1].decode("ascii", "replace"), count, n, 0, 0])
        elif w[0] == b"property" and elements and len(w) >= 3:
            el = elements[-1]
            if w[1] == b"list" and len(w) >= 5:
                el[3] += 1                         # at least the list's count per element
                el[4] += _SIZES.get(w[2].decode("ascii", "replace"), 1)
            else:
                el[3] += 1
                el[4] += _SIZES.get(w[1].decode("ascii", "replace"), 1)
    body = len(data) - body_at
    if fmt == "ascii":
        need = sum(count * per for _, count, _, per, _ in elements)
        # every number takes at least two bytes (a digit and a separator), but the last
        have = (body + 1) // 2 if need > (body + 1) // 2 else _count_numbers(data, body_at)
        unit = "numbers"
    elif fmt in ("binary_little_endian", "binary_big_endian"):
        need = sum(count * size for _, count, _, _, size in elements)
        have, unit = body, "bytes"
    else:
        return
    if need > have:
        claims = ", ".join(f"{count:,} {name}" for name, count, _, _, _ in elements)
        line = next((ln for name, count, ln, per, _ in elements if count and per), None)
        raise FormatError(path, line, None, f"the header announces {claims}, which need at least "
                          f"{need:,} {unit}; the data hold {'at most ' if unit == 'numbers' and have == (body + 1) // 2 else ''}"
                          f"{have:,} (a truncated file?)")
    if ctx is not None:
        for name, count, line, _, _ in elements:
            if name == "vertex":
                ctx.check_claim("vertices", count, line, what="element vertex", path=path)
            elif name == "face":
                ctx.check_claim("triangles", count, line, what="element face", path=path)


def _count_numbers(data: bytes, start: int) -> int:
    """Whitespace-separated tokens of ``data[start:]`` (two bytes of memory per byte)."""
    a = np.frombuffer(data, np.uint8, offset=start)
    if not len(a):
        return 0
    blank = (a == 32) | ((a >= 9) & (a <= 13))
    return int(np.count_nonzero(~blank[1:] & blank[:-1]) + (not blank[0]))


def _check_head(head: bytes, path) -> None:
    if head and head != b"ply":
        raise FormatError(path, 1, 1, "not a PLY file (expected 'ply' as the first line)")


def loads(data, ctx) -> TriangleMesh:
    """The mesh of PLY data, parsed now."""
    return parsed_mesh(parse_ply_bytes(as_bytes(data), ctx.path, ctx.warn, ctx), ctx.path, "ply", ctx=ctx)


def read(path: str, ctx) -> TriangleMesh:
    """Lazy PLY mesh: the first line is checked now, the data parsed on first access."""
    _check_head(check_readable(path, 3), path)
    return lazy_mesh(path, lambda p: parse_ply_bytes(read_bytes(p, ctx, document=False), p, ctx.warn, ctx), "ply", ctx=ctx)


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
