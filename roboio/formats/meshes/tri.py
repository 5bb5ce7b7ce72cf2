"""Klamp't ``.tri`` triangle meshes (spec §8.6).

One or more concatenated blocks ``nv``, ``nv`` x ``x y z``, ``nt``, ``nt`` x ``a b c``
(0-based indices into the block's own vertices); whitespace (spaces, tabs, newlines) is
irrelevant; ``1 <= nv, nt <= 10,000,000``. Klamp't merges several blocks into one mesh,
and so does roboio (indices offset). The writer emits one block, one triple per line.
"""
from __future__ import annotations

import numpy as np

from ...model import Geometry, TriangleMesh
from ..fileio import atomic_write
from ..registry import FormatInfo, register
from ._common import check_readable, flatten_for_writing, lazy_mesh, read_bytes
from ._scan import TokenTable
from .off import format_floats

__all__ = ["read_tri", "parse_tri_bytes", "parse_tri_block", "tri_text", "write_tri"]

MAX_COUNT = 10_000_000


def parse_tri_block(t: TokenTable, pos: int):
    """One block starting at token ``pos``: ``(vertices, faces, next_pos)``."""
    nv = int(t.ints(pos, pos + 1, "the vertex count of a .tri block")[0])
    if not 1 <= nv <= MAX_COUNT:
        raise t.error(pos, f"vertex count {nv} out of range (1..{MAX_COUNT})")
    pos += 1
    if pos + 3 * nv > len(t):
        raise t.end_error(f"expected {nv} vertices (x y z), the file ends after {(len(t) - pos) // 3}")
    v = t.floats(pos, pos + 3 * nv, "a vertex coordinate").reshape(nv, 3)
    pos += 3 * nv
    if pos >= len(t):
        raise t.end_error("expected the triangle count after the vertices, found the end of the file")
    nt = int(t.ints(pos, pos + 1, "the triangle count of a .tri block")[0])
    if not 1 <= nt <= MAX_COUNT:
        raise t.error(pos, f"triangle count {nt} out of range (1..{MAX_COUNT})")
    pos += 1
    if pos + 3 * nt > len(t):
        raise t.end_error(f"expected {nt} triangles (a b c), the file ends after {(len(t) - pos) // 3}")
    f = t.ints(pos, pos + 3 * nt, "an integer vertex index").reshape(nt, 3)
    bad = np.flatnonzero(((f < 0) | (f >= nv)).ravel())
    if len(bad):
        raise t.error(pos + int(bad[0]), f"vertex index {int(f.ravel()[bad[0]])} out of range "
                                         f"(the block has {nv} vertices)")
    return v, f, pos + 3 * nt


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


def read_tri(path: str, ctx) -> TriangleMesh:
    check_readable(path)
    return lazy_mesh(path, lambda p: parse_tri_bytes(read_bytes(p), p), "klampt-tri")


def tri_text(vertices, faces) -> str:
    """One ``.tri`` block (also the ``TriangleMesh`` payload of geometry streams)."""
    v = format_floats(vertices)
    f = np.asarray(faces, np.int64).ravel().tolist()
    lines = [str(len(v) // 3)]
    lines += [f"{v[i]} {v[i + 1]} {v[i + 2]}" for i in range(0, len(v), 3)]
    lines.append(str(len(f) // 3))
    lines += [f"{f[i]} {f[i + 1]} {f[i + 2]}" for i in range(0, len(f), 3)]
    return "\n".join(lines) + "\n"


def write_tri(geom: Geometry, path: str, report) -> None:
    m = flatten_for_writing(geom, report, ".tri")
    if len(m.vertices) == 0 or len(m.faces) == 0:
        raise ValueError(".tri needs at least one vertex and one triangle (Klamp't rejects empty blocks)")
    if m.face_colors is not None or m.vertex_colors is not None:
        report.lose("colours (.tri holds vertices and triangles only)")
    atomic_write(path, tri_text(m.vertices, m.faces))


register(FormatInfo(
    name="klampt-tri", extensions=(".tri",), kinds=("geometry",),
    description="Klamp't .tri triangle mesh (vertex and triangle count blocks)",
    ecosystem="klampt", read=read_tri, write=write_tri, writes=(Geometry,)))
