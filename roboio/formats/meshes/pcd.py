"""PCD point clouds (Point Cloud Library v0.7 subset), as Klamp't reads them (spec §8.7).

Header: ``#`` starts a comment to the end of the line; keywords are case-sensitive.
``FIELDS``/``SIZE``/``TYPE`` (``F``, ``U`` or ``I``)/``COUNT`` hold one token per field;
``POINTS n`` must come before ``DATA ascii`` or ``DATA binary`` (the last header line;
``binary_compressed`` is not supported). ``VERSION`` other than 0.7 only warns. Any other
keyword (``WIDTH``, ``HEIGHT``, ``VIEWPOINT``, ...) is kept as a setting string under its
lower-cased name.

``COUNT k > 1`` expands field ``f`` into ``f_0 .. f_{k-1}`` **in file order**. (Klamp't's
own reader names them ``f_0, f_{k-1}, ..., f_1`` while keeping the values in file order,
so its column ``normal_2`` holds the second component; roboio does not copy that quirk.)

ASCII data: exactly ``POINTS`` lines, values separated by spaces only (a TAB is not a
separator, as in Klamp't), as many values as (expanded) fields. Binary data: right after
the ``DATA binary`` newline, one packed little-endian record per point (``F`` 4 or 8
bytes, ``U`` and ``I`` at most 4; ``I`` narrower than 4 bytes is not sign-extended, as
Klamp't copies the bytes into an int); trailing bytes are ignored with a warning, missing
bytes are an error.

Result: ``points`` from the fields named exactly ``x``, ``y``, ``z`` (none when one is
missing); ``fields`` keeps every field in file order, except when the fields are exactly
``x y z``. A float (``TYPE F``) field ``rgb``/``rgba`` with any value strictly between 0
and 1 holds PCL packed colours: all its values are reinterpreted bit-wise as 32-bit
(signed) integers.

The writer emits ASCII with ``FIELDS``/``SIZE``/``TYPE``/``COUNT`` lines (so strict PCL
readers accept it), ``WIDTH``/``HEIGHT``/``VIEWPOINT`` and other settings, and values in
shortest exact decimal form.
"""
from __future__ import annotations

import re

import numpy as np

from ...errors import FormatError, OutputError
from ...model import Geometry, Group, PointCloud, TriangleMesh
from ..fileio import as_bytes, atomic_write, fmt_float_list
from ...transforms import inverse_affine, matrix_vector, transform_points, vector_norm
from ..meshfile import check_readable, flatten_for_writing, read_bytes
from ..numeric_text import TokenTable
from ._sniff import sniff_pcd as sniff

__all__ = ["sniff", "loads", "read", "dumps", "write", "parse_pcd_bytes", "pcd_text", "baked_cloud"]

_INT = re.compile(r"[+-]?\d+\Z")
MAX_VALUES = 65536          # values per point (after COUNT expansion): a guard against absurd headers


class _Header:
    def __init__(self):
        self.fields: list = []
        self.sizes: list = []
        self.types: list = []
        self.counts: list = []
        self.points = None
        self.settings: dict = {}
        self.lines: dict = {}          # keyword -> line number (for messages)


def _read_header(data: bytes, path: str, start: int, warn):
    """Parse header lines from byte ``start``; returns (header, data kind, data offset,
    line number of the DATA line)."""
    h = _Header()
    pos = start
    lineno = data.count(b"\n", 0, start) + 1
    while pos < len(data):
        nl = data.find(b"\n", pos)
        end = len(data) if nl < 0 else nl
        raw = data[pos:end].decode("latin-1")
        text = raw.split("#", 1)[0]
        words = text.split()
        next_pos = end + 1
        if words:
            key, rest = words[0], words[1:]
            h.lines[key] = lineno
            if key in ("FIELDS", "SIZE", "TYPE", "COUNT"):
                _list_keyword(h, key, rest, path, lineno)
            elif key == "POINTS":
                if not rest or not _INT.match(rest[0]) or int(rest[0]) < 0:
                    raise FormatError(path, lineno, None, f"POINTS expects a non-negative integer, found {' '.join(rest)!r}")
                h.points = int(rest[0])
            elif key == "DATA":
                kind = " ".join(rest)
                if kind not in ("ascii", "binary"):
                    raise FormatError(path, lineno, None,
                                      f"DATA must be 'ascii' or 'binary', found {kind!r}"
                                      + (" (compressed PCD is not supported)" if kind == "binary_compressed" else ""))
                if h.points is None:
                    raise FormatError(path, lineno, None, "DATA before POINTS (the point count is required)")
                if nl < 0 and kind == "binary":
                    next_pos = len(data)
                return h, kind, next_pos, lineno
            elif key == "VERSION":
                value = text.split(None, 1)[1].strip() if rest else ""
                if value not in ("0.7", ".7"):
                    warn(f"PCD version 0.7 expected, found {value!r}", lineno, kind="guessed")
                h.settings["version"] = value
            else:
                h.settings[key.lower()] = text.split(None, 1)[1].strip() if rest else ""
        pos = next_pos
        lineno += 1
    raise FormatError(path, lineno, None, "no DATA line (the PCD header ends without 'DATA ascii' or 'DATA binary')")


def _list_keyword(h, key, rest, path, lineno):
    if key == "FIELDS":
        h.fields = list(rest)
        return
    if key == "TYPE":
        bad = [w for w in rest if w not in ("F", "U", "I")]
        if bad:
            raise FormatError(path, lineno, None, f"TYPE must be F, U or I, found {bad[0]!r}")
        h.types = list(rest)
        return
    for w in rest:
        if not _INT.match(w) or int(w) <= 0:
            raise FormatError(path, lineno, None, f"{key} values must be positive integers, found {w!r}")
    if key == "SIZE":
        h.sizes = [int(w) for w in rest]
    else:
        h.counts = [int(w) for w in rest]


def _expanded(h: _Header, path: str, warn):
    """(names, types, sizes) with COUNT expanded; checks the header lists agree."""
    n = len(h.fields)
    for key, lst in (("SIZE", h.sizes), ("TYPE", h.types), ("COUNT", h.counts)):
        if lst and len(lst) != n:
            raise FormatError(path, h.lines.get(key), None,
                              f"{key} has {len(lst)} entries but FIELDS names {n} fields")
    types = h.types or ["F"] * n
    if not h.types and n:
        warn("no TYPE line: every field is read as a float", h.lines.get("FIELDS"), kind="guessed")
    sizes = h.sizes or [None] * n
    counts = h.counts or [1] * n
    if sum(counts) > MAX_VALUES:
        raise FormatError(path, h.lines.get("COUNT"), None,
                          f"COUNT declares {sum(counts)} values per point (more than {MAX_VALUES})")
    names, tt, ss = [], [], []
    for name, t, s, c in zip(h.fields, types, sizes, counts):
        if c == 1:
            names.append(name)
        else:
            names += [f"{name}_{j}" for j in range(c)]
        tt += [t] * c
        ss += [s] * c
    return names, tt, ss


def _binary_dtype(names, types, sizes, path, line):
    parts = []
    for i, (t, s) in enumerate(zip(types, sizes)):
        if s is None:
            raise FormatError(path, line, None, "binary PCD needs a SIZE line")
        if t == "F" and s in (4, 8):
            parts.append((f"f{i}", f"<f{s}"))
        elif t in ("U", "I") and s in (1, 2, 4):
            # Klamp't copies I fields narrower than 4 bytes without sign extension
            parts.append((f"f{i}", "<i4" if (t == "I" and s == 4) else f"<u{s}"))
        else:
            raise FormatError(path, line, None, f"unsupported field {names[i]!r}: TYPE {t} SIZE {s} "
                                                "(F needs 4 or 8 bytes, U and I at most 4)")
    return np.dtype(parts)


def _ascii_values(data: bytes, path: str, start: int, npoints: int, nfields: int, data_line: int):
    """(values (npoints, nfields), end offset) of the ASCII data block."""
    pos = start
    for _ in range(npoints):          # locate the end of the npoints-th line
        nl = data.find(b"\n", pos)
        if nl < 0:
            pos = len(data) + 1
            break
        pos = nl + 1
    block = data[start:min(pos, len(data))]
    t = TokenTable(block, path)
    lines_in_block = block.count(b"\n") + (0 if block.endswith(b"\n") or not block else 1)
    if lines_in_block < npoints:
        raise FormatError(path, data_line + lines_in_block + 1, None,
                          f"POINTS says {npoints} points but the data has only {lines_in_block} lines")
    tab = block.find(b"\t")
    if tab >= 0:
        line = data_line + block.count(b"\n", 0, tab) + 1
        raise FormatError(path, line, None, "TAB between values: PCD ascii values are separated by spaces "
                                            "(Klamp't reads the line as one value)")
    counts = t.line_ntok[:npoints]
    bad = np.flatnonzero(counts != nfields)
    if len(bad):
        i = int(bad[0])
        raise FormatError(path, data_line + i + 1, None,
                          f"data line has {int(counts[i])} values but the header declares {nfields} fields")
    plus = np.flatnonzero(t.bytes[t.start] == ord("+")) if len(t) else []
    if len(plus):
        line, col = t.where(int(plus[0]))
        raise FormatError(path, data_line + line, col, "a leading '+' is not accepted in PCD values")
    try:
        values = t.floats(0, len(t), "a number").reshape(npoints, nfields) if npoints else np.zeros((0, nfields))
    except FormatError as e:                 # located in the block: move to file lines
        raise FormatError(path, data_line + e.line, e.column, e.message) from None
    return values, min(pos, len(data))


def parse_pcd_bytes(data: bytes, path: str, warn=None, start: int = 0):
    """Parse a PCD file (or a PCD block starting at byte ``start`` of a geometry stream).
    Returns ``(PointCloud, end_offset)``."""
    warn = warn or (lambda msg, line=None, **kind: None)
    h, kind, offset, data_line = _read_header(data, path, start, warn)
    names, types, sizes = _expanded(h, path, warn)
    n = h.points
    if kind == "ascii":
        values, end = _ascii_values(data, path, offset, n, len(names), data_line)
        if start == 0 and data[end:].strip():
            extra = data[end:].strip().count(b"\n") + 1
            raise FormatError(path, data_line + n + 1, None,
                              f"POINTS says {n} points but {extra} more data line(s) follow")
        columns = [values[:, i] for i in range(len(names))]
    else:
        dt = _binary_dtype(names, types, sizes, path, h.lines.get("SIZE", data_line))
        need = dt.itemsize * n
        have = len(data) - offset
        if have < need:
            raise FormatError(path, None, None,
                              f"byte {len(data)}: truncated binary PCD data: POINTS {n} x {dt.itemsize} bytes "
                              f"= {need} bytes needed after byte {offset}, {have} present")
        if have > need and start == 0:
            warn(f"{have - need} bytes after the binary point data ignored", None, kind="ignored")
        rec = np.frombuffer(data, dtype=dt, count=n, offset=offset)
        columns = [rec[f"f{i}"].astype(np.float64) for i in range(len(names))]
        end = offset + need
    fields = dict(zip(names, columns))
    for name, t in zip(names, types):
        if t == "F" and name in ("rgb", "rgba"):
            f32 = fields[name].astype(np.float32)
            if np.any((f32 > 0) & (f32 < 1)):
                fields[name] = f32.view(np.int32).astype(np.float64)
    if all(k in fields for k in ("x", "y", "z")):
        points = np.stack([fields["x"], fields["y"], fields["z"]], axis=1)
    else:
        warn("no x, y, z fields: the point cloud has no points", h.lines.get("FIELDS"), kind="empty")
        points = np.zeros((0, 3))
    if names == ["x", "y", "z"]:
        fields = {}
    return PointCloud(points, fields, h.settings), end


def loads(data, ctx) -> PointCloud:
    """The point cloud of PCD data (ascii or binary)."""
    pc, _ = parse_pcd_bytes(as_bytes(data), ctx.path, lambda m, line=None, **kind: ctx.warn(m, line, **kind))
    return pc


def read(path: str, ctx) -> PointCloud:
    check_readable(path)
    return loads(read_bytes(path, ctx, document=False), ctx)


# -- writing ---------------------------------------------------------------------------------

_SETTING_ORDER = ("width", "height", "viewpoint")


def baked_cloud(geom: Geometry, report) -> PointCloud:
    """``geom`` as a point cloud in its owner frame (transform applied to points and normals;
    meshes give their vertices)."""
    if isinstance(geom, PointCloud):
        T = geom.transform
        pts = transform_points(T, geom.points)
        fields = {}
        for k, v in geom.fields.items():
            col = np.asarray(v, float).reshape(-1)
            if len(col) == len(pts):
                fields[k] = col
            else:   # a PCD without x, y, z keeps its fields but has no points (Klamp't's reading)
                report.lose(f"point fields without a point each (PCD holds one value per point; "
                            f"{len(pts)} points)", f"{k} ({len(col)} values)", kind="not written")
        if not np.allclose(T, np.eye(4), rtol=0, atol=0):
            names = [k for k in ("normal_x", "normal_y", "normal_z") if k in fields]
            if len(names) == 3:
                # normals turn by the inverse transpose of the linear part
                n = matrix_vector(inverse_affine(T)[:3, :3].T, np.stack([fields[k] for k in names], axis=1))
                n /= np.maximum(vector_norm(n)[:, None], 1e-300)
                for i, k in enumerate(names):
                    fields[k] = n[:, i]
            elif any(k.startswith("normal") for k in fields):
                report.lose("normals are not transformed with the points (no normal_x/y/z triple)", kind="changed")
        return PointCloud(pts, fields, geom.settings)
    if isinstance(geom, (TriangleMesh, Group)):
        m = flatten_for_writing(geom, report, "PCD")
        if len(m.faces):
            report.lose("triangles (PCD keeps the vertices only)", kind="not written")
        return PointCloud(m.vertices)
    raise OutputError(None, f"PCD holds point clouds, not a {type(geom).__name__}")


def pcd_text(pc: PointCloud) -> str:
    """ASCII PCD text of ``pc`` (its transform is not applied here)."""
    names = list(pc.fields)
    cols = []
    if not all(k in names for k in ("x", "y", "z")):
        names = ["x", "y", "z"] + names
    n = len(pc.points)
    for name in names:
        if name in ("x", "y", "z"):
            cols.append(pc.points[:, "xyz".index(name)])
        else:
            col = np.asarray(pc.fields[name], float).reshape(-1)
            if len(col) != n:
                raise OutputError(None, f"point cloud field {name!r} has {len(col)} values for {n} points")
            cols.append(col)
    settings = dict(pc.settings)
    version = settings.pop("version", "0.7")
    width = settings.pop("width", str(n))
    height = settings.pop("height", "1")
    try:
        if int(width) * int(height) != n:
            width, height = str(n), "1"
    except ValueError:
        width, height = str(n), "1"
    viewpoint = settings.pop("viewpoint", "0 0 0 1 0 0 0")
    lines = ["# .PCD v0.7 - Point Cloud Data file format", f"VERSION {version}",
             "FIELDS " + " ".join(names), "SIZE " + " ".join("8" for _ in names),
             "TYPE " + " ".join("F" for _ in names), "COUNT " + " ".join("1" for _ in names),
             f"WIDTH {width}", f"HEIGHT {height}", f"VIEWPOINT {viewpoint}"]
    lines += [f"{k.upper()} {v}" for k, v in sorted(settings.items()) if k not in ("points", "data")]
    lines += [f"POINTS {n}", "DATA ascii"]
    if n:
        table = np.stack(cols, axis=1) if cols else np.zeros((n, 0))
        txt = fmt_float_list(table)
        m = len(names)
        lines += [" ".join(txt[i * m:(i + 1) * m]) for i in range(n)]
    return "\n".join(lines) + "\n"


def dumps(geom: Geometry, report, path=None) -> str:
    """ASCII PCD of ``geom`` as a point cloud (see :func:`baked_cloud`)."""
    pc = baked_cloud(geom, report)
    if any(k.lower() in ("points", "data", "fields", "size", "type", "count") for k in pc.settings):
        report.lose("settings named like PCD header keywords", kind="not written")
    return pcd_text(pc)


def write(geom: Geometry, path: str, report) -> None:
    atomic_write(path, dumps(geom, report, path))
