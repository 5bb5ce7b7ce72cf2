"""Klamp't ``.tri`` triangle meshes (no content signature: the ``.tri`` extension decides).

One or more concatenated blocks ``nv``, ``nv`` x ``x y z``, ``nt``, ``nt`` x ``a b c``
(0-based indices into the block's own vertices); whitespace (spaces, tabs, newlines) is
irrelevant; ``1 <= nv, nt <= 10,000,000``. Klamp't merges several blocks into one mesh,
and so does roboio (indices offset). The writer emits one block, one triple per line.
"""
from __future__ import annotations

import numpy as np

from ....errors import OutputError
from ....model import Geometry, TriangleMesh
from ...fileio import as_bytes, atomic_write, fmt_float_list
from ...meshfile import check_readable, flatten_for_writing, lazy_mesh, parsed_mesh, read_bytes
from ...numeric_text import TokenTable

__all__ = ["loads", "read", "dumps", "write", "parse_tri_bytes", "parse_tri_block", "tri_text"]

MAX_COUNT = 10_000_000


def _count(t: TokenTable, pos: int, what: str) -> int:
    if pos >= len(t):
        raise t.end_error(f"expected the {what} count, found the end of the file")
    n = int(t.ints(pos, pos + 1, f"the {what} count of a .tri block")[0])
    if not 1 <= n <= MAX_COUNT:
        raise t.error(pos, f"{what} count {n} out of range (1..{MAX_COUNT})")
    return n


def _triples(t: TokenTable, pos: int, n: int, what: str, parse, number: str):
    if pos + 3 * n > len(t):
        raise t.end_error(f"expected {n} {what} triples, the file ends after {(len(t) - pos) // 3}")
    return parse(pos, pos + 3 * n, number).reshape(n, 3)


def parse_tri_block(t: TokenTable, pos: int):
    """One block starting at token ``pos``: ``(vertices, faces, next_pos)``."""
    nv = _count(t, pos, "vertex")
    v = _triples(t, pos + 1, nv, "vertex", t.floats, "a vertex coordinate")
    pos += 1 + 3 * nv
    nt = _count(t, pos, "triangle")
    f = _triples(t, pos + 1, nt, "triangle", t.ints, "an integer vertex index")
    bad = np.flatnonzero(((f < 0) | (f >= nv)).ravel())
    if len(bad):
        raise t.error(pos + 1 + int(bad[0]), f"vertex index {int(f.ravel()[bad[0]])} out of range "
                                             f"(the block has {nv} vertices)")
    return v, f, pos + 1 + 3 * nt


def parse_tri_bytes(data: bytes, path: str) -> dict:
    t = TokenTable(data, path)
    if len(t) == 0:
        raise t.end_error("empty .tri file (expected a vertex count)")
    verts, faces = [], []
    pos, offset = 0, 0
    while pos < len(t):
        v, f, pos = parse_tri_block(t, pos)
        verts.append(v)
        faces.append(f + offset)
        offset += len(v)
    return {"vertices": np.concatenate(verts), "faces": np.concatenate(faces)}


def loads(data, ctx) -> TriangleMesh:
    """The mesh of ``.tri`` text, parsed now."""
    return parsed_mesh(parse_tri_bytes(as_bytes(data), ctx.path), ctx.path, "klampt-tri", ctx=ctx)


def read(path: str, ctx) -> TriangleMesh:
    """Lazy ``.tri`` mesh, parsed on first access."""
    check_readable(path)
    return lazy_mesh(path, lambda p: parse_tri_bytes(read_bytes(p, ctx), p), "klampt-tri", ctx=ctx)


def tri_text(vertices, faces) -> str:
    """One ``.tri`` block (also the ``TriangleMesh`` payload of geometry streams)."""
    v = fmt_float_list(vertices)
    f = np.asarray(faces, np.int64).ravel().tolist()
    lines = [str(len(v) // 3)]
    lines += [f"{v[i]} {v[i + 1]} {v[i + 2]}" for i in range(0, len(v), 3)]
    lines.append(str(len(f) // 3))
    lines += [f"{f[i]} {f[i + 1]} {f[i + 2]}" for i in range(0, len(f), 3)]
    return "\n".join(lines) + "\n"


def dumps(geom: Geometry, report, path=None) -> str:
    """One ``.tri`` block of ``geom`` baked into one mesh."""
    m = flatten_for_writing(geom, report, ".tri")
    if len(m.vertices) == 0 or len(m.faces) == 0:
        raise OutputError(None, ".tri needs at least one vertex and one triangle (Klamp't rejects empty blocks)")
    if m.face_colors is not None or m.vertex_colors is not None:
        report.lose("colours (.tri holds vertices and triangles only)", kind="not written")
    return tri_text(m.vertices, m.faces)


def write(geom: Geometry, path: str, report) -> None:
    atomic_write(path, dumps(geom, report, path))
