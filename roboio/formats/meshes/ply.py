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
    warn = warn or (lambda msg, line=None, **kind: None)
    _check_head(data[:3], path)
    _check_counts(data, path, ctx)
    direct = _read_direct(data, path)
    if direct is not None:
        return direct
    from trimesh.exchange.ply import load_ply
    kw = _trimesh.load(path, data, load_ply, "PLY", warn, resolver=None, fix_texture=False,
                       skip_materials=True, process=False)
    _file_order_polygons(kw)
    return _trimesh.flatten(kw, path, "PLY", warn)


# -- the common layouts, read directly (importing trimesh costs about 0.5 s) ----------------

_TYPES = {"char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1", "short": "i2", "int16": "i2",
          "ushort": "u2", "uint16": "u2", "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
          "float": "f4", "float32": "f4", "double": "f8", "float64": "f8"}
_COLOR = ("red", "green", "blue", "alpha")


def _header(data: bytes):
    """``(format, [(element, count, [(name, type) or (name, count type, item type)])], body
    offset)``, or None for a header this path does not take."""
    end = data.find(b"end_header")
    if end < 0:
        return None
    nl = data.find(b"\n", end)
    if nl < 0 or data[end + 10:nl].strip():
        return None
    fmt, elements = None, []
    for raw in data[:end].split(b"\n")[1:]:
        w = raw.decode("ascii", "replace").split()
        if not w or w[0] in ("comment", "obj_info"):
            continue
        if w[0] == "format" and len(w) == 3:
            fmt = w[1]
        elif w[0] == "element" and len(w) == 3 and w[2].isdigit():
            elements.append((w[1], int(w[2]), []))
        elif w[0] == "property" and elements and len(w) == 3 and w[1] in _TYPES:
            elements[-1][2].append((w[2], _TYPES[w[1]]))
        elif (w[0] == "property" and elements and len(w) == 5 and w[1] == "list"
              and w[2] in _TYPES and w[3] in _TYPES and _TYPES[w[2]][0] in "iu" and _TYPES[w[3]][0] in "iu"):
            elements[-1][2].append((w[4], _TYPES[w[2]], _TYPES[w[3]]))
        else:
            return None
    return fmt, elements, nl + 1


def _read_direct(data: bytes, path) -> dict:
    """The mesh dict of a PLY file in the layouts nearly every file has -- a ``vertex``
    element of scalars, a ``face`` element whose ``vertex_indices`` lists all have the same
    length, other elements of scalars; binary of either byte order, or ascii one element a
    line -- read with numpy as trimesh reads them (see the module docstring); None for any
    other layout, which goes through trimesh."""
    head = _header(data)
    if head is None:
        return None
    fmt, elements, body = head
    names = [e[0] for e in elements]
    if names.count("vertex") != 1 or names.count("face") > 1:
        return None
    arrays = {}
    if fmt in ("binary_little_endian", "binary_big_endian"):
        order = "<" if fmt == "binary_little_endian" else ">"
        pos = body
        for name, count, props in elements:
            fields, listed = [], None
            for p in props:
                if len(p) == 3:
                    if listed is not None or name != "face":
                        return None
                    at = sum(np.dtype(order + f[1]).itemsize for f in props[:props.index(p)])
                    if count == 0:
                        k = 0
                    elif pos + at + np.dtype(order + p[1]).itemsize > len(data):
                        return None
                    else:
                        k = int(np.frombuffer(data, order + p[1], 1, pos + at)[0])
                    listed = p[0]
                    fields += [("_n", order + p[1]), (p[0], order + p[2], (k,))]
                else:
                    fields.append((p[0], order + p[1]))
            try:
                dt = np.dtype(fields)
            except (TypeError, ValueError):
                return None                              # duplicate property names
            if pos + dt.itemsize * count > len(data):
                return None
            arr = np.frombuffer(data, dt, count, pos)
            pos += dt.itemsize * count
            if listed is not None and count and np.any(arr["_n"] != arr["_n"][0]):
                return None                              # lists of several lengths
            arrays[name] = arr
        if pos != len(data):
            return None
    elif fmt == "ascii":
        lines = data[body:].split(b"\n")
        at = 0
        for name, count, props in elements:
            rows = lines[at:at + count]
            at += count
            if len(rows) != count:
                return None
            try:
                table = np.array([r.split() for r in rows], dtype=np.float64) if count else np.zeros((0, 0))
            except ValueError:
                return None                              # ragged rows or not numbers
            arrays[name] = _ascii_element(table, props)
            if arrays[name] is None:
                return None
        if any(l.strip() for l in lines[at:]):
            return None
    else:
        return None
    return _mesh_dict(arrays, path)


def _ascii_element(table: np.ndarray, props):
    """A record array of ascii rows ``table`` for ``props`` (one list at most, of constant
    length), or None."""
    if not len(table):
        return {p[0]: np.zeros(0) for p in props}
    out, col = {}, 0
    for p in props:
        if len(p) == 3:
            k = table[:, col]
            if np.any(k != k[0]) or k[0] != int(k[0]) or k[0] < 0:
                return None
            k = int(k[0])
            out[p[0]] = table[:, col + 1:col + 1 + k]
            col += 1 + k
        else:
            out[p[0]] = table[:, col].astype(p[1])      # the declared type (trimesh's reading)
            if p[1][0] in "iu" and np.any(table[:, col] != out[p[0]]):
                return None
            col += 1
    if col != table.shape[1]:
        return None
    return out


def _colors(arr, n):
    names = [c for c in _COLOR if _has(arr, c)]
    if not {"red", "green", "blue"} <= set(names):
        return None, True
    cols = []
    for c in names:
        v = np.asarray(arr[c])
        if v.dtype == np.uint8:
            cols.append(v / 255.0)
        else:
            return None, False               # other colour types: trimesh's conversion
    if len(cols) == 3:
        cols.append(np.ones(n))
    return np.stack(cols, axis=1), True


def _has(arr, name) -> bool:
    return name in (arr.dtype.names or ()) if isinstance(arr, np.ndarray) else name in arr


def _mesh_dict(arrays: dict, path) -> dict:
    from ._trimesh import _triangles
    v = arrays["vertex"]
    if not all(_has(v, c) for c in "xyz"):
        return None
    verts = np.stack([np.asarray(v[c], np.float64) for c in "xyz"], axis=1).reshape(-1, 3)
    vcols, ok = _colors(v, len(verts))
    if not ok:
        return None
    out = {"vertices": verts, "faces": np.zeros((0, 3), np.int64), "vertex_colors": vcols}
    f = arrays.get("face")
    if f is None:
        return out
    key = next((k for k in ("vertex_indices", "vertex_index") if _has(f, k)), None)
    if key is None:
        return None
    idx = np.asarray(f[key])
    if idx.ndim != 2 or (len(idx) and idx.shape[1] < 3):
        return None
    if idx.dtype.kind == "f":
        if np.any(idx != np.floor(idx)):
            return None
        idx = idx.astype(np.int64)
    tris, poly, npoly = _triangles(idx.astype(np.int64), len(verts), path, "PLY")
    fcols, ok = _colors(f, npoly)
    if not ok:
        return None
    out["faces"] = tris
    out["face_colors"] = fcols if fcols is None or poly is None else fcols[poly]
    return out


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
