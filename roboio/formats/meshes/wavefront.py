"""Wavefront OBJ triangle meshes (``.obj`` holding ``v``/``f`` lines, not Klamp't's rigid
object files, which share the extension and are told apart by content).

Reading goes through trimesh's OBJ loader (``trimesh.exchange.obj.load_obj`` with
``maintain_order=True`` and ``group_material=False``; see :mod:`._trimesh`): ``v x y z``
lines (six numbers give a vertex colour ``r g b``), ``f`` lines with ``i``, ``i/t``,
``i/t/n`` or ``i//n`` corners, polygons fan-triangulated (faces of one size: ``(1, j,
j+1)``; when a run of faces mixes sizes, trimesh splits quads as ``(1, 2, 3), (3, 4, 1)``);
``vt``/``vn`` are not kept. Vertices are kept in file order, never merged: every part
indexes the file's one vertex list. Faces stay in file order. A new part starts at each
``usemtl`` and at each ``o`` or ``g`` statement, where Assimp, and so Klamp't, starts a new
mesh of a Group (``extras["parts"]`` holds the first face of each, see
:mod:`roboio.model.massprops`); trimesh splits at ``usemtl`` only, so the object and group
boundaries are found here from the order of the ``o``/``g``/``f`` lines. The ``Kd`` colour
(alpha from ``d``, or ``1 - Tr``) of the first ``mtllib`` file's materials gives the face
colours (faces without a material: mid grey), to 1/255 (trimesh keeps material colours as
bytes).

What trimesh does not read, and roboio therefore rejects or reports: a face index ``0``
and relative (negative) indices are FormatErrors (trimesh would resolve them against the
wrong vertex); a ``mtllib`` file that does not exist is a warning. Not detected: lines
whose keyword is indented or followed by a tab instead of a space are skipped, a seventh
(alpha) vertex number is dropped, vertex colours are dropped unless every ``v`` line has
them, unknown statements are skipped silently, and with ``vt``/``vn`` corners, vertices
after the last one a face uses are dropped.

Writing (hand-written, so numbers round-trip exactly: trimesh's exporter rounds them):
``v x y z`` (plus ``r g b`` when the mesh has vertex colours) and ``f a b c`` lines with
full-precision numbers; face colours are reported as lost.
"""
from __future__ import annotations

import os
import re

import numpy as np

from ...errors import FormatError
from ...model import Geometry, TriangleMesh
from ..fileio import as_bytes, atomic_write, fmt_float_list
from ..meshfile import check_readable, flatten_for_writing, lazy_mesh, parsed_mesh, read_bytes
from ..numeric_text import TokenTable
from . import _trimesh
from ._sniff import looks_like_wavefront
from ._sniff import sniff_wavefront as sniff

__all__ = ["sniff", "loads", "read", "dumps", "write", "parse_obj", "parse_obj_bytes",
           "looks_like_wavefront"]

_FACE_LINE = re.compile(rb"\nf[ \t][^\n]*")
_OBJECT_OR_FACE = re.compile(rb"\n([ofg])[ \t]")
# a corner whose vertex index (its first number) is 0 or negative
_BAD_CORNER = re.compile(rb"[ \t](-\d+|0+)(?=[/\s]|$)")
_MTLLIB = re.compile(rb"(?m)^mtllib[ \t]+([^\r\n]*)")


def _line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _check_indices(faces: bytes, padded: bytes, path: str) -> None:
    """FormatError at the first face line (of ``faces``, the ``f`` lines of ``padded``, each
    after a newline) with a vertex index 0 or a negative one."""
    m = _BAD_CORNER.search(faces)
    if m is None:
        return
    text = faces[faces.rfind(b"\n", 0, m.start()):m.end()]
    line = _line(padded, padded.find(text))       # counts the newline put in front of the file
    index = m.group(1).decode()
    if index.startswith("-"):
        raise FormatError(path, line, None, f"relative (negative) vertex index {index} is not supported "
                                            "(trimesh's OBJ reader does not count back from the vertices defined so far)")
    raise FormatError(path, line, None, "vertex index 0 out of range (OBJ indices start at 1)")


_CORNER_SLOTS = ((b"v", "vertex", re.compile(rb"[ \t](\d+)(?=[/\s]|\Z)")),
                 (b"vt", "texture coordinate", re.compile(rb"[ \t]\d+/(\d+)")),
                 (b"vn", "normal", re.compile(rb"[ \t]\d+/\d*/(\d+)")))


def _check_index_range(faces: bytes, padded: bytes, path: str) -> None:
    """FormatError at the first face line with a vertex, texture coordinate or normal index
    beyond the number of such statements in the file (Assimp refuses it; trimesh's reader
    sized arrays by the index: a fuzzed 2,111,222 took > 10 s)."""
    for kw, what, corner in _CORNER_SLOTS:
        count = len(re.findall(rb"\n[ \t]*" + kw + rb"[ \t]", padded))
        for m in corner.finditer(faces):
            if len(m.group(1)) > 18 or int(m.group(1)) > count:
                text = faces[faces.rfind(b"\n", 0, m.start()):m.end()]
                line = _line(padded, padded.find(text))
                raise FormatError(path, line, None, f"{what} index {m.group(1).decode()} out of "
                                                    f"range (the file has {count} {kw.decode()} statements)")


def _object_breaks(faces: bytes, padded: bytes, path: str):
    """(first triangle of each object or group an ``o`` or ``g`` statement starts, number of
    triangles the ``f`` lines make): Assimp, and so Klamp't, starts a new mesh at these
    statements; trimesh's reader does not say where they were."""
    kinds = np.frombuffer(b"".join(_OBJECT_OR_FACE.findall(padded)), np.uint8)
    is_face = kinds == ord("f")
    corners = TokenTable(faces, path).line_ntok[1:] - 1          # line 0 is empty; minus the 'f'
    before = np.concatenate([[0], np.cumsum(np.maximum(corners - 2, 0))])
    return before[(np.cumsum(is_face) - is_face)[~is_face]], int(before[-1])


def _check_material_library(data: bytes, path: str, warn) -> None:
    libs = list(_MTLLIB.finditer(data))
    if not libs:
        return
    name = libs[0].group(1).strip().decode("utf-8", "replace")
    line = _line(data, libs[0].start())
    if not os.path.isfile(os.path.join(os.path.dirname(path or ""), name)):
        warn(f"material library {name!r} not found: no face colours from it (the shape is whole)", line,
             kind="missing file", severity="warning")
    for extra in libs[1:]:
        warn(f"material library {extra.group(1).strip().decode('utf-8', 'replace')!r} ignored "
             "(only the first mtllib is read)", _line(data, extra.start()), kind="unsupported")


# fewest tokens (keyword included) of a complete statement
_MIN_TOKENS = {b"v": 4, b"vn": 4, b"vt": 2, b"f": 4, b"l": 3, b"p": 2, b"usemtl": 2, b"mtllib": 2,
               b"o": 2, b"g": 2, b"s": 2}
_NUMBER = re.compile(rb"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\Z")
_REF = re.compile(rb"-?\d+(?:/-?\d*){0,2}\Z")


def _check_last_line(data: bytes, path) -> None:
    """A file cut inside its last statement (no line end after it, and the statement is
    incomplete: ``f 5 8``, ``v 1 2``, ``f 1/2/``, ``v 1 2 3e``) is reported as truncated
    rather than read without it. (A face of two vertices elsewhere is a line, as Assimp
    reads it; a complete last line without a line end is fine.)"""
    if not data or data.endswith((b"\n", b"\r")):
        return
    start = max(data.rfind(b"\n"), data.rfind(b"\r")) + 1
    words = data[start:].split(b"#", 1)[0].split()
    if not words:
        return
    kw, args = words[0], words[1:]
    short = len(words) < _MIN_TOKENS.get(kw, 0)
    cut = (kw in (b"v", b"vn", b"vt") and args and not _NUMBER.match(args[-1])) or \
        (kw in (b"f", b"l", b"p") and args and not _REF.match(args[-1]))
    if short or cut:
        line = data.count(b"\n", 0, start) + 1
        text = data[start:].decode("utf-8", "replace").strip()
        raise FormatError(path, line, None, f"the file ends inside a statement ({text!r}): it "
                                            "looks truncated")


def parse_obj_bytes(data: bytes, path, warn=None) -> dict:
    """The mesh dict of OBJ data (see the module docstring); ``path`` locates the material
    library (None: no material file is read)."""
    warn = warn or (lambda msg, line=None, **kind: None)
    _check_last_line(data, path)
    padded = b"\n" + data
    faces = b"".join(_FACE_LINE.findall(padded))
    _check_indices(faces, padded, path)
    _check_index_range(faces, padded, path)
    _check_material_library(data, path, warn)
    from trimesh.exchange.obj import load_obj
    from trimesh.resolvers import FilePathResolver
    resolver = FilePathResolver(path) if path else None
    scene = _trimesh.load(path, data, load_obj, "Wavefront OBJ", warn, resolver=resolver,
                          maintain_order=True, group_material=False, process=False)
    if "geometry" in scene:          # trimesh builds the parts last first: back to file order
        scene["geometry"] = dict(reversed(list(scene["geometry"].items())))
        scene["graph"] = list(reversed(list(scene.get("graph") or [])))
    return _trimesh.flatten(scene, path, "Wavefront OBJ", warn, shared_vertices=True,
                            breaks=_object_breaks(faces, padded, path))


def parse_obj(path: str, warn=None) -> dict:
    """The mesh dict of an OBJ file."""
    return parse_obj_bytes(read_bytes(path), path, warn)


def loads(data, ctx) -> TriangleMesh:
    """The mesh of OBJ text, parsed now (materials relative to ``ctx.path``)."""
    return parsed_mesh(parse_obj_bytes(as_bytes(data), ctx.path, ctx.warn), ctx.path, "wavefront-obj", ctx=ctx)


def read(path: str, ctx) -> TriangleMesh:
    """Lazy OBJ mesh, parsed on first access."""
    check_readable(path)
    return lazy_mesh(path, lambda p: parse_obj_bytes(read_bytes(p, ctx, document=False), p, ctx.warn), "wavefront-obj",
                     ctx=ctx)


def dumps(geom: Geometry, report, path=None) -> str:
    """``v`` and ``f`` lines of ``geom`` baked into one mesh (vertex colours after x y z)."""
    m = flatten_for_writing(geom, report, "Wavefront OBJ")
    v = fmt_float_list(m.vertices)
    out = ["# Wavefront OBJ written by roboio"]
    if m.vertex_colors is not None:
        c = np.asarray(m.vertex_colors, float).reshape(-1, 4)
        if np.any(c[:, 3] != 1.0):
            report.lose("vertex colour alpha (written as r g b)", kind="not written")
        cs = fmt_float_list(c[:, :3])
        out += [f"v {v[3 * i]} {v[3 * i + 1]} {v[3 * i + 2]} {cs[3 * i]} {cs[3 * i + 1]} {cs[3 * i + 2]}"
                for i in range(len(m.vertices))]
    else:
        out += [f"v {v[3 * i]} {v[3 * i + 1]} {v[3 * i + 2]}" for i in range(len(m.vertices))]
    f = (m.faces + 1).ravel().tolist()
    out += [f"f {f[i]} {f[i + 1]} {f[i + 2]}" for i in range(0, len(f), 3)]
    if m.face_colors is not None:
        report.lose("face colours (the OBJ writer emits v and f lines only)", kind="not written")
    return "\n".join(out) + "\n"


def write(geom: Geometry, path: str, report) -> None:
    atomic_write(path, dumps(geom, report, path))
