"""OFF (Object File Format) triangle meshes, as Klamp't reads and writes them (spec §8.4).

Reading: the first word must be exactly ``OFF``; then, line by line, empty lines and lines
whose *first character* is ``#`` are skipped; the first data line holds ``nv nf [ne]`` (it
may share the line with ``OFF``); ``nv`` vertex lines ``x y z`` (extra tokens ignored);
``nf`` face lines ``k i1 .. ik [r g b]`` (0-based indices, polygons fan-triangulated as
``(i1, ij, ij+1)``; an optional colour as 0-255 values divided by 255, alpha 1). Reading
stops after the last face. Numbers are parsed in blocks with numpy.

Writing: ``OFF``, ``nv nf 0``, one vertex per line (shortest exact decimal), faces as
``3  a b c`` followed by ``   r g b`` (0-255) when the mesh has face colours.
"""
from __future__ import annotations

import numpy as np

from ...errors import FormatError
from ...model import Geometry, TriangleMesh
from ..fileio import as_bytes, atomic_write, fmt_float_list
from ..meshfile import (check_readable, color_bytes, fan, flatten_for_writing, lazy_mesh,
                        parsed_mesh, read_bytes)
from ..numeric_text import TokenTable
from ._sniff import sniff_off as sniff

__all__ = ["sniff", "loads", "read", "dumps", "write", "parse_off_bytes", "parse_off_block"]


def _strip_bom(data: bytes) -> bytes:
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def parse_off_bytes(data: bytes, path: str) -> dict:
    """Parse OFF text into ``vertices`` (V,3), ``faces`` (F,3) and ``face_colors`` (F,4) or
    None. FormatError (file:line:column) for anything Klamp't could not read."""
    return parse_off_block(_strip_bom(data), path)[0]


def parse_off_block(data: bytes, path: str):
    """Like :func:`parse_off_bytes`, also returning the byte offset just after the last
    line read (OFF text embedded in a geometry stream continues there)."""
    t = TokenTable(data, path)
    if len(t) == 0 or t.token(0) != b"OFF":
        found = t.token(0).decode("latin-1") if len(t) else "an empty file"
        where = t.where(0) if len(t) else (1, None)
        raise FormatError(path, where[0], where[1], f"not an OFF file: the first word must be 'OFF', found {found!r}")
    usable = (t.line_ntok > 0) & (t.first_char() != ord("#"))
    header_line = int(t.line[0])
    usable[header_line] = False
    if t.line_ntok[header_line] > 1:           # "OFF nv nf ne" on one line
        count_first, count_ntok, count_line = 1, int(t.line_ntok[header_line]) - 1, header_line
    else:
        rest = np.flatnonzero(usable)
        if len(rest) == 0:
            raise t.end_error("expected the counts line 'nv nf [ne]' after OFF, found the end of the file")
        count_line = int(rest[0])
        usable[count_line] = False
        count_first, count_ntok = int(t.line_first[count_line]), int(t.line_ntok[count_line])
    if count_ntok < 2:
        raise t.error(count_first, "expected the counts line 'nv nf [ne]' (two integers at least)")
    nv, nf = (int(x) for x in t.ints(count_first, count_first + 2, "an integer count (nv nf [ne])"))
    if nv < 0 or nf < 0:
        raise t.error(count_first, f"negative count in 'nv nf' ({nv} {nf})")
    lines = np.flatnonzero(usable)
    lines = lines[lines > count_line]
    if len(lines) < nv:
        raise t.end_error(f"expected {nv} vertex lines, the file ends after {len(lines)}")
    if len(lines) < nv + nf:
        raise t.end_error(f"expected {nf} face lines after the {nv} vertices, the file ends after {len(lines) - nv}")
    vertices = _vertices(t, lines[:nv])
    faces, colors = _faces(t, lines[nv:nv + nf], nv)
    last = int(lines[nv + nf - 1]) if nv + nf else count_line
    end = int(t.line_start[last + 1]) if last + 1 < t.nlines else len(data)
    return {"vertices": vertices, "faces": faces, "face_colors": colors}, end


def _vertices(t: TokenTable, vl: np.ndarray) -> np.ndarray:
    nv = len(vl)
    if nv == 0:
        return np.zeros((0, 3))
    ntok = t.line_ntok[vl]
    short = np.flatnonzero(ntok < 3)
    if len(short):
        line = int(vl[short[0]])
        raise FormatError(t.path, line + 1, None,
                          f"vertex line needs 3 numbers (x y z), found {int(ntok[short[0]])}")
    first = t.line_first[vl]
    if np.all(ntok == 3) and first[-1] + 3 - first[0] == 3 * nv:   # one contiguous block
        return t.floats(int(first[0]), int(first[0]) + 3 * nv, "a vertex coordinate").reshape(nv, 3)
    return t.gather_floats(first[:, None] + np.arange(3), "a vertex coordinate")


def _faces(t: TokenTable, fl: np.ndarray, nv: int):
    nf = len(fl)
    if nf == 0:
        return np.zeros((0, 3), np.int64), None
    ntok = t.line_ntok[fl]
    first = t.line_first[fl]
    if np.all(ntok == 4) and first[-1] + 4 - first[0] == 4 * nf:
        block = t.ints(int(first[0]), int(first[0]) + 4 * nf, "an integer (k i1 .. ik)").reshape(nf, 4)
        if np.all(block[:, 0] == 3):
            _check_range(t, fl, block[:, 1:], nv)
            return block[:, 1:].copy(), None
    k = t.gather_ints(first, "the vertex count k of a face")
    bad = np.flatnonzero((k < 0) | (k > ntok - 1))      # (1 + k could overflow int64)
    if len(bad):
        i = int(bad[0])
        if k[i] < 0:
            raise t.error(int(first[i]), f"negative vertex count {int(k[i])} in a face")
        raise FormatError(t.path, int(fl[i]) + 1, None,
                          f"face lists {int(k[i])} vertices but has only {int(ntok[i]) - 1} indices")
    total = int(k.sum())
    koff = np.cumsum(k) - k                       # offset of each face in the flat index list
    within = np.arange(total) - np.repeat(koff, k)
    flat = t.gather_ints(np.repeat(first + 1, k) + within, "an integer vertex index")
    bad = np.flatnonzero((flat < 0) | (flat >= nv))
    if len(bad):
        face = int(np.searchsorted(koff, bad[0], side="right") - 1)
        raise FormatError(t.path, int(fl[face]) + 1, None,
                          f"vertex index {int(flat[bad[0]])} out of range (the file has {nv} vertices)")
    faces, face_of_tri = fan(k, flat)
    colors = _face_colors(t, first + 1 + k, ntok - 1 - k)
    return faces, (None if colors is None else colors[face_of_tri])


def _check_range(t, fl, idx, nv):
    bad = np.flatnonzero(((idx < 0) | (idx >= nv)).any(axis=1))
    if len(bad):
        row = idx[bad[0]]
        v = int(row[(row < 0) | (row >= nv)][0])
        raise FormatError(t.path, int(fl[bad[0]]) + 1, None,
                          f"vertex index {v} out of range (the file has {nv} vertices)")


def _face_colors(t: TokenTable, start: np.ndarray, extra: np.ndarray):
    """Per-face RGBA from the three tokens after the indices (0-255, divided by 255).
    Faces without a colour take the next coloured face's colour (as Klamp't fills them),
    trailing ones the last colour. None when no face has one."""
    has = extra >= 3
    if not has.any():
        return None
    idx = start[has][:, None] + np.arange(3)
    try:
        rgb = t.gather_floats(idx)
    except FormatError:        # Klamp't reads a colour only when three numbers follow
        from ..numeric_text import NUMBER_RE
        ok = np.array([all(NUMBER_RE.match(t.token(int(i))) for i in row) for row in idx])
        has[np.flatnonzero(has)[~ok]] = False
        if not has.any():
            return None
        rgb = t.gather_floats(start[has][:, None] + np.arange(3))
    colored = np.flatnonzero(has)
    src = np.minimum(np.searchsorted(colored, np.arange(len(has))), len(colored) - 1)
    out = np.ones((len(has), 4))
    out[:, :3] = rgb[src] / 255.0
    return out


def loads(data, ctx) -> TriangleMesh:
    """The mesh of OFF text (bytes or str), parsed now."""
    return parsed_mesh(parse_off_bytes(as_bytes(data), ctx.path), ctx.path, "off", ctx=ctx)


def read(path: str, ctx) -> TriangleMesh:
    """Lazy OFF mesh: the header is checked now, the data parsed on first access."""
    head = _strip_bom(check_readable(path, 256)).lstrip()
    if head and not sniff(head, path):
        word = head.split(None, 1)[0][:40].decode("latin-1")
        raise FormatError(path, 1, 1, f"not an OFF file: the first word must be 'OFF', found {word!r}")
    return lazy_mesh(path, lambda p: parse_off_bytes(read_bytes(p, ctx, document=False), p), "off", ctx=ctx)


def dumps(geom: Geometry, report, path=None) -> str:
    """OFF text of ``geom`` baked into one mesh (face colours as 0-255 integers)."""
    m = flatten_for_writing(geom, report, "OFF")
    nv, nf = len(m.vertices), len(m.faces)
    parts = ["OFF", f"{nv} {nf} 0"]
    v = fmt_float_list(m.vertices)
    parts.extend(f"{v[3 * i]} {v[3 * i + 1]} {v[3 * i + 2]}" for i in range(nv))
    f = m.faces.ravel().tolist()
    if m.face_colors is not None:
        if np.any(np.asarray(m.face_colors, float).reshape(-1, 4)[:, 3] != 1.0):
            report.lose("face colour alpha (OFF stores r g b only)", kind="not written")
        rgb = color_bytes(m.face_colors, "face", "OFF", report).tolist()
        parts.extend(f"3  {f[3 * i]} {f[3 * i + 1]} {f[3 * i + 2]}   {rgb[i][0]} {rgb[i][1]} {rgb[i][2]}"
                     for i in range(nf))
    else:
        parts.extend(f"3  {f[3 * i]} {f[3 * i + 1]} {f[3 * i + 2]}" for i in range(nf))
    if m.vertex_colors is not None:
        report.lose("per-vertex colours (OFF as Klamp't reads it has face colours only)", kind="not written")
    return "\n".join(parts) + "\n"


def write(geom: Geometry, path: str, report) -> None:
    atomic_write(path, dumps(geom, report, path))
