"""STL triangle meshes, binary and ASCII (``.stl`` and ``.STL``), as Assimp reads them.

Binary: 80-byte header, little-endian uint32 triangle count, then 50 bytes per triangle
(normal, three vertices as float32, a uint16 attribute). A file is binary when its size is
exactly ``84 + 50 n``, or when it does not start with ``solid``; a binary file shorter
than its count says is truncated (FormatError naming the byte offset), extra bytes after
the last triangle are ignored with a warning. ASCII: ``solid name``, then ``facet normal
nx ny nz / outer loop / vertex x y z`` (three times) ``/ endloop / endfacet``,
``endsolid``; several solids are concatenated.

Every triangle keeps its own three vertices (``vertices`` has 3 rows per triangle, no
merging); the stored normals are not kept (they follow from the winding).
Writing produces binary STL (float32: coordinates that are not float32 numbers are
rounded, which the report says).
"""
from __future__ import annotations

import os
import re
import struct
import warnings

import numpy as np

from ...errors import FormatError
from ...model import Geometry, TriangleMesh
from ..fileio import as_bytes, atomic_write, line_of
from ...transforms import vector_norm
from ..meshfile import check_readable, flatten_for_writing, lazy_mesh, parsed_mesh, read_bytes, rounding_kind
from ..numeric_text import NUMBER_RE
from ._sniff import sniff_stl as sniff
from ._sniff import stl_looks_ascii as _looks_ascii

__all__ = ["sniff", "loads", "read", "dumps", "write", "parse_stl_bytes", "stl_kind"]

_RECORD = np.dtype([("normal", "<f4", (3,)), ("v", "<f4", (3, 3)), ("attr", "<u2")])


def stl_kind(head: bytes, size: int) -> str:
    """``"binary"`` or ``"ascii"`` for a file of ``size`` bytes starting with ``head``
    (Assimp's rule: an exact binary size wins, else ``solid`` means ASCII)."""
    if size >= 84 and len(head) >= 84:
        n = struct.unpack_from("<I", head, 80)[0]
        if 84 + 50 * n == size:
            return "binary"
    return "ascii" if _looks_ascii(head) else "binary"


def _check_size(head: bytes, size: int, path: str) -> int:
    """Triangle count of a binary STL of ``size`` bytes; FormatError when it is truncated."""
    if size < 84:
        raise FormatError(path, None, None, f"byte {size}: truncated binary STL (the 84-byte header is incomplete)")
    n = struct.unpack_from("<I", head, 80)[0]
    if size < 84 + 50 * n:
        raise FormatError(path, None, None,
                          f"byte {size}: truncated binary STL: the header announces {n} triangles "
                          f"({84 + 50 * n} bytes) but the file has {size} bytes ({(size - 84) // 50} complete triangles)")
    return n


def _binary(data: bytes, path: str, warn) -> dict:
    n = _check_size(data[:84], len(data), path)
    need = 84 + 50 * n
    if len(data) > need and warn is not None:
        warn(f"{len(data) - need} bytes after the last of the {n} triangles ignored", kind="ignored")
    rec = np.frombuffer(data, dtype=_RECORD, count=n, offset=84)
    vertices = rec["v"].reshape(-1, 3).astype(np.float64)
    return {"vertices": vertices, "faces": np.arange(3 * n, dtype=np.int64).reshape(n, 3)}


_KEYWORDS = (b"facet", b"normal", None, None, None, b"outer", b"loop",
             b"vertex", None, None, None, b"vertex", None, None, None, b"vertex", None, None, None,
             b"endloop", b"endfacet")
_COORDS = [8, 9, 10, 12, 13, 14, 16, 17, 18]
_TOKEN = re.compile(rb"\S+")


def _ascii_fast(data: bytes):
    """One lower-case solid whose facets follow the 21-token pattern exactly: checked and
    converted with numpy. None when the file is anything else (the exact path decides)."""
    data = data.strip()
    first_nl = data.find(b"\n")
    last_nl = data.rfind(b"\n")
    if first_nl < 0 or last_nl <= first_nl or data[last_nl + 1:].split()[:1] != [b"endsolid"]:
        return None
    words = data[first_nl + 1:last_nl].split()
    if not words or len(words) % 21:
        return None
    grid = np.array(words, dtype=object).reshape(-1, 21)
    for j, kw in enumerate(_KEYWORDS):
        if kw is not None and not np.all(grid[:, j] == kw):
            return None
    numbers = grid[:, [2, 3, 4] + _COORDS]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            vals = np.fromstring(b" ".join(numbers.ravel().tolist()), dtype=np.float64, sep=" ")
        except (ValueError, DeprecationWarning):
            return None
    if vals.size != numbers.size:
        return None
    v = vals.reshape(-1, 12)[:, 3:].reshape(-1, 3)
    n = len(grid)
    return {"vertices": v, "faces": np.arange(3 * n, dtype=np.int64).reshape(n, 3)}


def _ascii(data: bytes, path: str) -> dict:
    """Parse ASCII STL: the numpy fast path for the usual layout, else token by token
    (several solids, upper-case keywords) with exact error locations."""
    fast = _ascii_fast(data)
    if fast is not None:
        return fast
    text = data.decode("latin-1")
    tokens = [(m.start(), m.group()) for m in _TOKEN.finditer(data)]

    def err(i, msg):
        off = tokens[i][0] if i < len(tokens) else len(data)
        line, col = line_of(text, off)
        return FormatError(path, line, col, msg)

    coords = []
    i = 0
    nsolids = 0
    while i < len(tokens):
        if tokens[i][1].lower() != b"solid":
            raise err(i, f"expected 'solid', found {tokens[i][1].decode('latin-1')!r}")
        nsolids += 1
        # the solid's name is the rest of its line
        line_end = data.find(b"\n", tokens[i][0])
        line_end = len(data) if line_end < 0 else line_end
        i += 1
        while i < len(tokens) and tokens[i][0] < line_end:
            i += 1
        while True:
            if i >= len(tokens):
                raise err(i, "expected 'facet' or 'endsolid', found the end of the file")
            word = tokens[i][1].lower()
            if word == b"endsolid":
                line_end = data.find(b"\n", tokens[i][0])
                line_end = len(data) if line_end < 0 else line_end
                i += 1
                while i < len(tokens) and tokens[i][0] < line_end:
                    i += 1
                break
            for j, kw in enumerate(_KEYWORDS):
                if i + j >= len(tokens):
                    raise err(i + j, f"expected {'a number' if kw is None else repr(kw.decode())}, "
                                     "found the end of the file")
                tok = tokens[i + j][1]
                if kw is None:
                    if not NUMBER_RE.match(tok):
                        raise err(i + j, f"expected a number, found {tok.decode('latin-1')!r}")
                elif tok.lower() != kw:
                    if kw == b"endloop" and tok.lower() == b"vertex":
                        raise err(i + j, "facet with more than 3 vertices (STL facets are triangles)")
                    raise err(i + j, f"expected {kw.decode()!r}, found {tok.decode('latin-1')!r}")
            coords.extend(tokens[i + c][1] for c in _COORDS)
            i += len(_KEYWORDS)
    if nsolids == 0:
        raise FormatError(path, 1, None, "empty STL file (no 'solid')")
    v = np.array([float(c) for c in coords], dtype=np.float64).reshape(-1, 3)
    n = len(v) // 3
    return {"vertices": v, "faces": np.arange(3 * n, dtype=np.int64).reshape(n, 3)}


def parse_stl_bytes(data: bytes, path: str, warn=None) -> dict:
    if stl_kind(data[:84], len(data)) == "binary":
        return _binary(data, path, warn)
    return _ascii(data, path)


def loads(data, ctx) -> TriangleMesh:
    """The mesh of STL data (binary or ASCII), parsed now."""
    return parsed_mesh(parse_stl_bytes(as_bytes(data), ctx.path, ctx.warn), ctx.path, "stl", ctx=ctx)


def read(path: str, ctx) -> TriangleMesh:
    """Lazy STL mesh. The header and file size are checked now (a truncated binary file
    fails at once), the triangles are read on first access."""
    head = check_readable(path, 84)
    size = os.path.getsize(path)
    if stl_kind(head, size) == "binary":
        _check_size(head, size, path)
    return lazy_mesh(path, lambda p: parse_stl_bytes(read_bytes(p, ctx, document=False), p, lambda m, **kind: ctx.warn(m, **kind)), "stl",
                     ctx=ctx)


def _normals(tri: np.ndarray) -> np.ndarray:
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    norm = vector_norm(n)[:, None]
    return np.divide(n, norm, out=np.zeros_like(n), where=norm > 0)


def dumps(geom: Geometry, report, path=None) -> bytes:
    """Binary STL (80-byte header, float32 normals and vertices)."""
    m = flatten_for_writing(geom, report, "STL")
    tri = m.vertices[m.faces] if len(m.faces) else np.zeros((0, 3, 3))
    rec = np.zeros(len(tri), dtype=_RECORD)
    rec["v"] = tri
    rec["normal"] = _normals(tri)
    if np.any(rec["v"].astype(np.float64) != tri):
        err = float(np.abs(rec["v"].astype(np.float64) - tri).max())
        report.lose("vertex coordinates rounded to 32-bit floats (STL stores float32)",
                    kind=rounding_kind(err), largest=err, unit="m")
    if len(m.faces) and len(m.vertices) != 3 * len(m.faces):
        report.warn("STL stores three corners per triangle: shared vertices are written once per triangle", kind="restructured")
    unused = len(m.vertices) - (len(np.unique(m.faces)) if len(m.faces) else 0)
    if unused:      # e.g. the points of a point cloud
        report.lose(f"{unused} vertices without triangles (STL holds triangles only)", kind="not written")
    if m.face_colors is not None or m.vertex_colors is not None:
        report.lose("colours (binary STL is written without colours)", kind="not written")
    header = b"roboio binary STL".ljust(80, b" ")
    return header + struct.pack("<I", len(tri)) + rec.tobytes()


def write(geom: Geometry, path: str, report) -> None:
    atomic_write(path, dumps(geom, report, path))
