"""Wavefront OBJ triangle meshes (``.obj`` holding ``v``/``f`` lines, not Klamp't's rigid
object files, which share the extension and are told apart by content).

Reading (what Klamp't's Assimp build loads): ``v x y z [r g b [a]]`` (a fourth number alone
is the ignored weight ``w``; six or seven give a vertex colour), ``f`` with ``i``, ``i/t``,
``i/t/n`` or ``i//n`` corners (1-based; negative indices count back from the last vertex
defined so far), polygons fan-triangulated ``(i1, ij, ij+1)`` in file order; ``vt``, ``vn``,
``vp``, ``s``, line (``l``) and point (``p``) elements are ignored; ``mtllib``/``usemtl``
give face colours from the materials' ``Kd`` (and ``d`` or ``Tr`` for alpha) when the
``.mtl`` file can be read (faces without a material get mid grey). Other statements are
skipped with one warning each. Vertices are kept in file order, never merged.

Klamp't (Assimp) loads a file with several objects/groups/materials as a Group of meshes;
roboio keeps one mesh and records where each part starts in ``extras["parts"]`` (face
offsets), which :mod:`roboio.model.massprops` treats with Klamp't's group rule.

Writing: ``v x y z`` (plus ``r g b`` when the mesh has vertex colours) and ``f a b c``
lines with full-precision numbers; face colours are reported as lost.
"""
from __future__ import annotations

import os
import re

import numpy as np

from ...errors import FormatError
from ...model import Geometry, TriangleMesh
from ..fileio import atomic_write
from ..registry import FormatInfo, register
from ._common import check_readable, fan, flatten_for_writing, lazy_mesh, read_bytes
from ._scan import WHITESPACE, TokenTable
from .off import format_floats

__all__ = ["read_obj", "parse_obj_bytes", "write_obj", "looks_like_wavefront"]

_IGNORED = {b"vt", b"vn", b"vp", b"s", b"l", b"p", b"#", b"cstype", b"deg", b"bmat", b"step",
            b"curv", b"curv2", b"surf", b"parm", b"trim", b"hole", b"scrv", b"sp", b"end",
            b"con", b"mg", b"lod", b"shadow_obj", b"trace_obj", b"ctech", b"stech", b"bevel",
            b"c_interp", b"d_interp"}
_SLASH = re.compile(rb"/\S*")
_GREY = (0.5, 0.5, 0.5, 1.0)


def _keyword(line: bytes) -> bytes:
    parts = line.split(None, 1)
    if not parts:
        return b""
    w = parts[0]
    return b"#" if w.startswith(b"#") else w


class _Lines:
    """Line table of an OBJ buffer; ``v``/``f`` lines are found with numpy, the few other
    statements are classified in Python."""

    def __init__(self, data: bytes):
        if b"\\\n" in data or b"\\\r\n" in data:          # backslash line continuation
            data = re.sub(rb"\\\r?\n", b"  ", data)
        self.data = data
        arr = np.frombuffer(data, np.uint8)
        nl = np.flatnonzero(arr == 10)
        self.starts = np.concatenate(([0], nl + 1))
        self.ends = np.concatenate((nl, [len(arr)]))
        padded = np.concatenate((arr, np.array([10, 10], np.uint8)))
        b0, b1 = padded[self.starts], padded[self.starts + 1]
        sep = WHITESPACE[b1]
        self.is_v = (b0 == ord("v")) & sep
        self.is_f = (b0 == ord("f")) & sep
        quiet = (self.is_v | self.is_f | (b0 == ord("#")) | (b0 == 10)
                 | ((b0 == ord("v")) & np.isin(b1, np.frombuffer(b"tnp", np.uint8)))
                 | ((b0 == 13) & (b1 == 10)))
        self.other = np.flatnonzero(~quiet)
        self.keyword_at = {}        # line -> offset of an indented v/f keyword

    def line(self, i: int) -> bytes:
        return self.data[self.starts[i]:self.ends[i]]

    def block(self, lines: np.ndarray) -> bytes:
        """The given v/f lines with their keyword blanked, joined by newlines (one line per
        entry); consecutive lines are copied as one slice."""
        if len(lines) == 0:
            return b""
        breaks = np.flatnonzero(np.diff(lines) != 1) + 1
        pieces = []
        for run in np.split(lines, breaks):
            piece = bytearray(self.data[self.starts[run[0]]:self.ends[run[-1]]])
            base = int(self.starts[run[0]])
            pos = self.starts[run] - base
            if self.keyword_at:
                for j, i in enumerate(run.tolist()):
                    if i in self.keyword_at:
                        pos[j] = self.keyword_at[i] - base
            np.frombuffer(piece, np.uint8)[pos] = 32
            pieces.append(bytes(piece))
        return b"\n".join(pieces)


def parse_obj_bytes(data: bytes, path: str, warn=None) -> dict:
    warn = warn or (lambda msg, line=None: None)
    L = _Lines(data)
    is_v, is_f = L.is_v.copy(), L.is_f.copy()
    marks = []                     # (line index, 0 for o/g or 1 for usemtl, material name)
    mtllibs = []
    warned = set()
    for i in L.other.tolist():
        line = L.line(i)
        k = _keyword(line)
        rest = line.split(None, 1)[1].strip() if len(line.split(None, 1)) > 1 else b""
        if k in (b"v", b"f"):      # indented statement
            (is_v if k == b"v" else is_f)[i] = True
            L.keyword_at[i] = int(L.starts[i]) + line.index(k)
        elif k in (b"o", b"g"):
            marks.append((i, 0, b""))
        elif k == b"usemtl":
            marks.append((i, 1, rest))
        elif k == b"mtllib":
            mtllibs.append((i, rest))
        elif k and k not in _IGNORED and not k.startswith(b"#") and k not in warned:
            warned.add(k)
            warn(f"Wavefront statement {k.decode('latin-1')!r} ignored", i + 1)
    vl, fl = np.flatnonzero(is_v), np.flatnonzero(is_f)
    vertices, vcolors = _vertices(L.block(vl), vl, path, warn)
    faces, face_line = _faces(L.block(fl), fl, vl, len(vertices), path)
    out = {"vertices": vertices, "faces": faces, "vertex_colors": vcolors}
    if marks and len(faces):
        parts, materials = _parts(marks, face_line)
        if len(parts) > 1:
            out["extras"] = {"parts": parts}
        if mtllibs and any(m for m in materials):
            colors = _material_colors(path, mtllibs, warn)
            if colors:
                out["face_colors"] = np.array([colors.get(m, _GREY) for m in materials], float)
    elif mtllibs:
        _material_colors(path, mtllibs, warn)          # still report an unreadable .mtl
    return out


def _vertices(text, vl, path, warn):
    if not len(vl):
        return np.zeros((0, 3)), None
    t = TokenTable(text, path)
    n = np.asarray(t.line_ntok[:len(vl)])
    short = np.flatnonzero(n < 3)
    if len(short):
        raise FormatError(path, int(vl[short[0]]) + 1, None, f"'v' needs x y z, found {int(n[short[0]])} numbers")
    first = t.line_first[:len(vl)]
    try:
        if np.all(n == 3):
            return t.floats(0, 3 * len(vl), "a vertex coordinate").reshape(-1, 3), None
        xyz = t.gather_floats(first[:, None] + np.arange(3), "a vertex coordinate")
        colored = n >= 6
        colors = None
        if colored.any():
            colors = np.tile(np.array([1.0, 1.0, 1.0, 1.0]), (len(vl), 1))
            idx = np.flatnonzero(colored)
            colors[idx, :3] = t.gather_floats(first[idx, None] + np.arange(3, 6), "a vertex colour")
            alpha = idx[n[idx] >= 7]
            colors[alpha, 3] = t.gather_floats(first[alpha] + 6, "a vertex colour")
            if not colored.all():
                warn("only some vertices have colours; the others are white", int(vl[np.flatnonzero(~colored)[0]]) + 1)
        return xyz, colors
    except FormatError as e:
        raise FormatError(path, int(vl[e.line - 1]) + 1, e.column, e.message) from None


def _faces(text, fl, vl, nv, path):
    """Triangles (fan) and the file line of each triangle."""
    if not len(fl):
        return np.zeros((0, 3), np.int64), np.zeros(0, np.int64)
    t = TokenTable(_SLASH.sub(b"", text), path)
    k = np.asarray(t.line_ntok[:len(fl)])
    try:
        flat = t.ints(0, len(t), "an integer vertex index")
    except FormatError as e:
        raise FormatError(path, int(fl[e.line - 1]) + 1, None, e.message) from None
    poly = np.repeat(np.arange(len(fl)), k)
    # vertices defined before each face line (negative indices count back from there)
    seen = np.searchsorted(vl, fl)[poly]
    idx = np.where(flat > 0, flat - 1, seen + flat)
    bad = np.flatnonzero((flat == 0) | (idx < 0) | (idx >= nv))
    if len(bad):
        j = int(bad[0])
        raise FormatError(path, int(fl[int(poly[j])]) + 1, None,
                          f"vertex index {int(flat[j])} out of range (1..{nv}, or negative back-references)")
    short = np.flatnonzero(k < 3)
    if len(short):
        raise FormatError(path, int(fl[int(short[0])]) + 1, None, f"'f' needs at least 3 vertices, found {int(k[short[0]])}")
    tris, face_of_tri = fan(k, idx)
    return tris, fl[face_of_tri]


def _parts(marks, face_line):
    """Face offsets where the (object/group, material) changes, and each face's material."""
    mark_lines = np.array([m[0] for m in marks])
    which = np.searchsorted(mark_lines, face_line) - 1         # last mark before each face
    obj_id = np.cumsum([m[1] == 0 for m in marks])
    mats, cur = [], b""
    for m in marks:
        if m[1] == 1:
            cur = m[2]
        mats.append(cur)
    key_obj = np.where(which >= 0, obj_id[np.maximum(which, 0)], 0)
    materials = [mats[w] if w >= 0 else b"" for w in which.tolist()]
    mat_ids = {m: i for i, m in enumerate(dict.fromkeys(materials))}
    key_mat = np.array([mat_ids[m] for m in materials])
    change = np.flatnonzero((np.diff(key_obj) != 0) | (np.diff(key_mat) != 0)) + 1
    return [0] + change.tolist(), materials


def _material_colors(path, mtllibs, warn) -> dict:
    """material name -> RGBA from the ``Kd`` (and ``d``/``Tr``) entries of the .mtl files."""
    colors = {}
    base = os.path.dirname(path)
    for line, name in mtllibs:
        fn = os.path.join(base, name.decode("utf-8", "replace"))
        try:
            with open(fn, "rb") as f:
                text = f.read()
        except (OSError, ValueError):          # missing, unreadable or an impossible name
            warn(f"material library {name.decode('utf-8', 'replace')!r} not found: no face colours from it", line + 1)
            continue
        cur = None
        for raw in text.split(b"\n"):
            w = raw.split()
            if not w:
                continue
            try:
                if w[0] == b"newmtl":
                    cur = raw.split(None, 1)[1].strip() if len(w) > 1 else b""
                    colors[cur] = list(_GREY)
                elif cur is not None and w[0] == b"Kd" and len(w) >= 4:
                    colors[cur][:3] = [float(x) for x in w[1:4]]
                elif cur is not None and w[0] == b"d" and len(w) >= 2:
                    colors[cur][3] = float(w[1])
                elif cur is not None and w[0] == b"Tr" and len(w) >= 2:
                    colors[cur][3] = 1.0 - float(w[1])
            except ValueError:
                warn(f"{fn}: malformed material line {raw.decode('latin-1').strip()!r} ignored", line + 1)
    return {k: tuple(v) for k, v in colors.items()}


def read_obj(path: str, ctx) -> TriangleMesh:
    check_readable(path)
    return lazy_mesh(path, lambda p: parse_obj_bytes(read_bytes(p), p, lambda m, line=None: ctx.warn(m, line)),
                     "wavefront-obj")


_WAVEFRONT_WORDS = _IGNORED | {b"v", b"f", b"o", b"g", b"mtllib", b"usemtl"}


def looks_like_wavefront(head: bytes) -> bool:
    """True when every complete line of ``head`` is a Wavefront statement or comment and at
    least one is a vertex or face (a Klamp't rigid-object file has ``mesh``, ``T``, ``mass``)."""
    lines = head.split(b"\n")
    if len(head) >= 4096:
        lines = lines[:-1]              # the last line may be cut
    data = False
    for line in lines:
        w = line.split(None, 1)
        if not w or w[0].startswith(b"#"):
            continue
        if w[0] not in _WAVEFRONT_WORDS:
            return False
        data = data or w[0] in (b"v", b"f", b"o", b"g", b"mtllib")
    return data


def write_obj(geom: Geometry, path: str, report) -> None:
    m = flatten_for_writing(geom, report, "Wavefront OBJ")
    v = format_floats(m.vertices)
    out = ["# Wavefront OBJ written by roboio"]
    if m.vertex_colors is not None:
        c = np.asarray(m.vertex_colors, float).reshape(-1, 4)
        if np.any(c[:, 3] != 1.0):
            report.lose("vertex colour alpha (written as r g b)")
        cs = format_floats(c[:, :3])
        out += [f"v {v[3 * i]} {v[3 * i + 1]} {v[3 * i + 2]} {cs[3 * i]} {cs[3 * i + 1]} {cs[3 * i + 2]}"
                for i in range(len(m.vertices))]
    else:
        out += [f"v {v[3 * i]} {v[3 * i + 1]} {v[3 * i + 2]}" for i in range(len(m.vertices))]
    f = (m.faces + 1).ravel().tolist()
    out += [f"f {f[i]} {f[i + 1]} {f[i + 2]}" for i in range(0, len(f), 3)]
    if m.face_colors is not None:
        report.lose("face colours (the OBJ writer emits v and f lines only)")
    atomic_write(path, "\n".join(out) + "\n")


register(FormatInfo(
    name="wavefront-obj", extensions=(".obj",), kinds=("geometry",),
    description="Wavefront OBJ triangle mesh (v/f lines; told from Klamp't object files by content)",
    ecosystem="meshes", sniff=lambda head, path: looks_like_wavefront(head), read=read_obj,
    write=write_obj, writes=(Geometry,)))
