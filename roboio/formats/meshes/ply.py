"""PLY (Stanford polygon file) triangle meshes, ascii and binary (both byte orders).

Reading: the ``vertex`` element's ``x y z`` (and ``red green blue [alpha]``: integer types
are divided by 255, floats kept), the ``face`` element's ``vertex_indices`` (or
``vertex_index``) list, fan-triangulated in file order, and its optional ``red green
blue [alpha]``; other elements and properties are skipped. Vertices are kept in file
order, never merged. Binary data are read with numpy (one structured array per element
when its lists all have the same length); a file shorter than its header says is a
FormatError naming the byte offset.

Writing: ``binary_little_endian`` with ``double`` coordinates (exact), ``uchar`` colours
(rounded to 1/255 steps, which the report says) and ``list uchar int vertex_indices``.
"""
from __future__ import annotations

import numpy as np

from ...errors import FormatError
from ...model import Geometry, TriangleMesh
from ..fileio import atomic_write
from ..registry import FormatInfo, register
from ._common import check_readable, color_bytes, fan, flatten_for_writing, lazy_mesh, read_bytes
from ._scan import TokenTable

__all__ = ["read_ply", "parse_ply_bytes", "write_ply"]

_TYPES = {"char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1", "short": "i2", "int16": "i2",
          "ushort": "u2", "uint16": "u2", "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
          "float": "f4", "float32": "f4", "double": "f8", "float64": "f8"}


class _Element:
    def __init__(self, name, count, line):
        self.name, self.count, self.line = name, count, line
        self.props = []          # (name, type) or (name, (count_type, item_type))


def _header(data: bytes, path: str):
    end = data.find(b"end_header")
    if not data.startswith(b"ply") or end < 0:
        raise FormatError(path, 1, 1, "not a PLY file (expected 'ply' ... 'end_header')")
    nl = data.find(b"\n", end)
    body = len(data) if nl < 0 else nl + 1
    fmt, elements = None, []
    for lineno, raw in enumerate(data[:end].decode("latin-1").split("\n")[1:], start=2):
        w = raw.split()
        if not w or w[0] in ("comment", "obj_info"):
            continue
        if w[0] == "format":
            if len(w) < 2 or w[1] not in ("ascii", "binary_little_endian", "binary_big_endian"):
                raise FormatError(path, lineno, None, f"unknown PLY format {' '.join(w[1:])!r}")
            fmt = w[1]
        elif w[0] == "element":
            if len(w) != 3 or not w[2].isdigit():
                raise FormatError(path, lineno, None, f"expected 'element NAME COUNT', found {raw.strip()!r}")
            elements.append(_Element(w[1], int(w[2]), lineno))
        elif w[0] == "property":
            if not elements:
                raise FormatError(path, lineno, None, "property before any element")
            if len(w) == 5 and w[1] == "list" and w[2] in _TYPES and w[3] in _TYPES:
                elements[-1].props.append((w[4], (_TYPES[w[2]], _TYPES[w[3]])))
            elif len(w) == 3 and w[1] in _TYPES:
                elements[-1].props.append((w[2], _TYPES[w[1]]))
            else:
                raise FormatError(path, lineno, None, f"malformed property line {raw.strip()!r}")
        else:
            raise FormatError(path, lineno, None, f"unknown PLY header keyword {w[0]!r}")
    if fmt is None:
        raise FormatError(path, 2, None, "missing 'format' line")
    return fmt, elements, body


def _columns_ascii(t: TokenTable, el: _Element, lines: np.ndarray, path: str):
    """Columns of an ascii element, one element per (non-blank) line."""
    if len(lines) < el.count:
        raise t.end_error(f"expected {el.count} {el.name} lines, found {len(lines)}")
    ntok = t.line_ntok[lines] if el.count else np.zeros(0, int)
    first = t.line_first[lines] if el.count else np.zeros(0, int)
    lists = [i for i, (_, ty) in enumerate(el.props) if isinstance(ty, tuple)]
    cols = {}
    if not lists:
        want = len(el.props)
        bad = np.flatnonzero(ntok != want)
        if len(bad):
            raise FormatError(path, int(lines[bad[0]]) + 1, None,
                              f"{el.name} line has {int(ntok[bad[0]])} values, the header declares {want}")
        vals = t.gather_floats(first[:, None] + np.arange(want), "a number") if el.count else np.zeros((0, want))
        for i, (name, _) in enumerate(el.props):
            cols[name] = vals[:, i]
        return cols
    if lists != [0]:
        raise FormatError(path, el.line, None, f"element {el.name!r}: a list must be its first property")
    k = t.gather_ints(first, "a list length") if el.count else np.zeros(0, np.int64)
    rest = len(el.props) - 1
    bad = np.flatnonzero((k < 0) | (ntok != 1 + k + rest))
    if len(bad):
        i = int(bad[0])
        raise FormatError(path, int(lines[i]) + 1, None,
                          f"{el.name} line has {int(ntok[i])} values, expected {int(k[i]) + 1 + rest}")
    total = int(k.sum())
    within = np.arange(total) - np.repeat(np.cumsum(k) - k, k)
    cols[el.props[0][0]] = (k, t.gather_ints(np.repeat(first + 1, k) + within, "an integer index"))
    for j, (name, _) in enumerate(el.props[1:]):
        cols[name] = t.gather_floats(first + 1 + k + j, "a number")
    return cols


def _columns_binary(data: bytes, el: _Element, pos: int, order: str, path: str):
    scalar = [(n, ty) for n, ty in el.props if not isinstance(ty, tuple)]
    lists = [i for i, (_, ty) in enumerate(el.props) if isinstance(ty, tuple)]
    if not lists:
        dt = np.dtype([(n, order + ty) for n, ty in el.props])
        return _records(data, dt, el, pos, path)
    if lists != [0]:
        raise FormatError(path, el.line, None, f"element {el.name!r}: a list must be its first property")
    name, (cty, ity) = el.props[0]
    if el.count == 0:
        return {name: (np.zeros(0, np.int64), np.zeros(0, np.int64))}, pos
    csize = np.dtype(cty).itemsize
    if pos + csize > len(data):
        raise _truncated(path, data, el)
    k0 = int(np.frombuffer(data, order + cty, 1, pos)[0])
    if k0 < 0 or pos + csize + k0 * np.dtype(ity).itemsize > len(data):
        raise _truncated(path, data, el)
    dt = np.dtype([("_n", order + cty), ("_i", order + ity, (k0,))] + [(n, order + t) for n, t in scalar])
    if pos + dt.itemsize * el.count <= len(data):
        rec = np.frombuffer(data, dt, el.count, pos)
        if np.all(rec["_n"] == k0):
            cols = {n: rec[n].astype(np.float64) for n, _ in scalar}
            cols[name] = (np.full(el.count, k0, np.int64), rec["_i"].astype(np.int64).ravel())
            return cols, pos + dt.itemsize * el.count
    # lists of different lengths: walk the records one by one
    isize = np.dtype(ity).itemsize
    sdt = np.dtype([(n, order + t) for n, t in scalar])
    ks, idx, rows = [], [], []
    for _ in range(el.count):
        if pos + csize > len(data):
            raise _truncated(path, data, el)
        k = int(np.frombuffer(data, order + cty, 1, pos)[0])
        pos += csize
        if pos + k * isize + sdt.itemsize > len(data):
            raise _truncated(path, data, el)
        idx.append(np.frombuffer(data, order + ity, k, pos))
        pos += k * isize
        rows.append(np.frombuffer(data, sdt, 1, pos))
        pos += sdt.itemsize
        ks.append(k)
    cols = {n: np.concatenate([r[n] for r in rows]).astype(np.float64) for n, _ in scalar}
    cols[name] = (np.array(ks, np.int64), np.concatenate(idx).astype(np.int64))
    return cols, pos


def _truncated(path, data, el):
    return FormatError(path, None, None, f"byte {len(data)}: truncated binary PLY: "
                                         f"the data of the {el.count} {el.name} elements end early")


def _records(data, dt, el, pos, path):
    end = pos + dt.itemsize * el.count
    if end > len(data):
        raise _truncated(path, data, el)
    rec = np.frombuffer(data, dt, el.count, pos)
    return {n: rec[n].astype(np.float64) for n in dt.names}, end


def _colors(cols: dict, props: list):
    names = [n for n in ("red", "green", "blue", "alpha") if n in cols]
    if not {"red", "green", "blue"} <= set(names):
        return None
    types = dict(props)
    out = np.ones((len(cols["red"]), 4))
    for i, n in enumerate(("red", "green", "blue", "alpha")):
        if n in cols:
            c = np.asarray(cols[n], float)
            out[:, i] = c if types[n].startswith("f") else c / 255.0
    return out


def parse_ply_bytes(data: bytes, path: str) -> dict:
    fmt, elements, pos = _header(data, path)
    order = {"binary_little_endian": "<", "binary_big_endian": ">"}.get(fmt)
    if order is None:
        t = TokenTable(data, path)
        header_lines = data.count(b"\n", 0, pos)
        rows = np.flatnonzero(t.line_ntok[header_lines:] > 0) + header_lines
    vertex = face = None
    for el in elements:
        if order is None:
            cols = _columns_ascii(t, el, rows[:el.count], path)
            rows = rows[el.count:]
        else:
            cols, pos = _columns_binary(data, el, pos, order, path)
        if el.name == "vertex" and vertex is None:
            vertex = (cols, el)
        elif el.name == "face" and face is None:
            face = (cols, el)
    if vertex is None:
        raise FormatError(path, None, None, "no 'vertex' element")
    vcols, vel = vertex
    missing = [c for c in "xyz" if c not in vcols]
    if missing:
        raise FormatError(path, vel.line, None, f"the vertex element has no {'/'.join(missing)} property")
    vertices = np.stack([vcols["x"], vcols["y"], vcols["z"]], axis=1).astype(np.float64)
    out = {"vertices": vertices, "faces": np.zeros((0, 3), np.int64),
           "vertex_colors": _colors(vcols, vel.props)}
    if face is not None:
        fcols, fel = face
        key = "vertex_indices" if "vertex_indices" in fcols else "vertex_index"
        if key not in fcols:
            raise FormatError(path, fel.line, None, "the face element has no vertex_indices list")
        k, flat = fcols[key]
        bad = np.flatnonzero((flat < 0) | (flat >= len(vertices)))
        if len(bad):
            raise FormatError(path, fel.line, None, f"face vertex index {int(flat[bad[0]])} out of range "
                                                    f"(the file has {len(vertices)} vertices)")
        out["faces"], face_of_tri = fan(k, flat)
        fc = _colors({n: v for n, v in fcols.items() if n != key}, fel.props)
        out["face_colors"] = None if fc is None else fc[face_of_tri]
    return out


def read_ply(path: str, ctx) -> TriangleMesh:
    head = check_readable(path, 3)
    if head and head != b"ply":
        raise FormatError(path, 1, 1, "not a PLY file (expected 'ply' as the first line)")
    return lazy_mesh(path, lambda p: parse_ply_bytes(read_bytes(p), p), "ply")


def write_ply(geom: Geometry, path: str, report) -> None:
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
    atomic_write(path, ("\n".join(head) + "\n").encode("ascii") + vrec.tobytes() + frec.tobytes())


register(FormatInfo(
    name="ply", extensions=(".ply",), kinds=("geometry",),
    description="Stanford PLY triangle mesh, ascii or binary (written binary, double precision)",
    ecosystem="meshes", sniff=lambda head, path: head.startswith(b"ply") and b"format" in head[:200],
    read=read_ply, write=write_ply, writes=(Geometry,)))
