"""Klamp't geometry streams (inline ``{...}`` geometry, ``.group`` files) and primitive
strings (``.geom`` files).

Primitive string: an optional legacy ``Primitive`` word (Klamp't <= 0.10.1 requires it, master
rejects it), then ``TypeName`` and its numbers::

    Point x y z                 Segment a(3) b(3)           Triangle a(3) b(3) c(3)
    Polygon n v1(3) .. vn(3)    Sphere c(3) r               Ellipsoid o(3) xb(3) yb(3) zb(3) dims(3)
    Cylinder c(3) axis(3) r h   AABB min(3) max(3)          Box o(3) xb(3) yb(3) zb(3) dims(3)

(type names are case-sensitive; the cylinder's ``c`` is the centre of its base disc, the
box's ``o`` a corner).

Geometry stream: ``TypeName data``, with ``Primitive`` (a primitive string),
``TriangleMesh`` (OFF text if it starts with ``OFF``, else one ``.tri`` block),
``PointCloud`` (PCD text) and ``Group n`` followed by ``n`` streams. A ``.group`` file is
the Group payload without the ``Group`` word. Klamp't's writer puts no separator after
primitive numbers (``Sphere 0 0 0  1TriangleMesh``), so a number glued to a type name is
split. Inline geometry (``{Primitive Sphere 0 0 0 0.25}``) has its backslash escapes
translated first.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ....transforms import compose, transform_points, vector_norm

from ....limits import current, describe as over_limit, recursion_room
from ....errors import FormatError, OutputError
from ....context import LoadContext
from ....model import Geometry, Group, PointCloud, Primitive, TriangleMesh
from ...fileio import line_of

__all__ = ["parse_stream", "parse_primitive_text", "primitive_text", "stream_text",
           "bake_primitive", "parse_primitive_file", "parse_group_file", "STREAM_TYPES"]

# Klamp't .geom types and their number layout: fixed counts, Polygon is "n v1..vn".
_LAYOUT = {
    "Point": (("center", 3),),
    "Segment": (("a", 3), ("b", 3)),
    "Triangle": (("a", 3), ("b", 3), ("c", 3)),
    "Polygon": (("vertices", None),),
    "Sphere": (("center", 3), ("radius", 1)),
    "Ellipsoid": (("center", 3), ("xaxis", 3), ("yaxis", 3), ("zaxis", 3), ("dims", 3)),
    "Cylinder": (("center", 3), ("axis", 3), ("radius", 1), ("height", 1)),
    "AABB": (("bmin", 3), ("bmax", 3)),
    "Box": (("origin", 3), ("xaxis", 3), ("yaxis", 3), ("zaxis", 3), ("dims", 3)),
}
STREAM_TYPES = ("Primitive", "ConvexHull", "TriangleMesh", "PointCloud", "ImplicitSurface",
                "OccupancyGrid", "Heightmap", "Group")
# iostream-style number (S): no inf/nan words
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
_INTEGER = re.compile(r"[+-]?\d+\Z")
_GLUED = re.compile(r"(?<=[0-9.])(?=(?:%s)(?![A-Za-z]))" % "|".join(STREAM_TYPES))
_TOKEN = re.compile(r"\S+")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "v": "\v", "f": "\f"}


class _Cursor:
    """Token reader over a text, reporting errors at ``path:line:col`` (or at a fixed line
    for inline geometry)."""

    def __init__(self, text: str, path, fixed_line=None):
        self.text = _GLUED.sub(" ", text)
        self.path = path
        self.fixed_line = fixed_line
        self.pos = 0

    def where(self, offset):
        if self.fixed_line is not None:
            return self.fixed_line, None
        return line_of(self.text, offset)

    def error(self, offset, message) -> FormatError:
        line, col = self.where(offset)
        return FormatError(self.path, line, col, message)

    def next(self, what: str):
        m = _TOKEN.search(self.text, self.pos)
        if m is None:
            raise self.error(len(self.text), f"expected {what}, found the end of the text")
        self.pos = m.end()
        return m.group(), m.start()

    def peek(self):
        m = _TOKEN.search(self.text, self.pos)
        return (m.group(), m.start()) if m else (None, len(self.text))

    def number(self, what: str) -> float:
        tok, at = self.next(what)
        if not _NUMBER.match(tok):
            raise self.error(at, f"expected {what}, found {tok!r}")
        x = float(tok)
        if math.isinf(x):       # iostream's >> fails on a number out of a double's range
            raise self.error(at, f"{what} {tok[:40]!r} is out of the range of a double")
        return x

    def integer(self, what: str) -> int:
        tok, at = self.next(what)
        if not _INTEGER.match(tok):
            raise self.error(at, f"expected {what}, found {tok!r}")
        digits = tok.lstrip("+-").lstrip("0") or "0"
        if len(digits) > 18:     # beyond a C++ int/long
            raise self.error(at, f"{what} {tok[:40]!r} is out of the range of an integer")
        return -int(digits) if tok.startswith("-") else int(digits)


def _primitive(cur: _Cursor) -> Primitive:
    kind, at = cur.next("a primitive type (Point, Sphere, AABB, ...)")
    if kind == "Primitive":                      # legacy header (Klamp't <= 0.10.1)
        kind, at = cur.next("a primitive type after 'Primitive'")
    if kind not in _LAYOUT:
        raise cur.error(at, f"unknown primitive type {kind!r} (expected one of {', '.join(_LAYOUT)}; "
                            "names are case-sensitive)")
    params = {}
    for name, n in _LAYOUT[kind]:
        if n is None:                            # Polygon: count then points
            count = cur.integer("the number of polygon vertices")
            if count < 0:
                raise cur.error(cur.pos, f"negative polygon vertex count {count}")
            params[name] = np.array([cur.number("polygon vertex coordinate") for _ in range(3 * count)]).reshape(-1, 3)
        elif n == 1:
            params[name] = cur.number(f"{kind} {name}")
        else:
            params[name] = np.array([cur.number(f"{kind} {name} ({n} numbers)") for _ in range(n)])
    return Primitive(kind, params)


def _max_depth(ctx) -> int:
    return ctx.limits.max_depth if ctx is not None else current().max_depth


def _stream(cur: _Cursor, ctx, depth: int = 0) -> Geometry:
    if depth >= _max_depth(ctx):
        raise cur.error(cur.pos, over_limit("depth", depth + 1, _max_depth(ctx), "geometry groups nesting"))
    if ctx is not None:
        try:
            ctx.charge("nodes", 1, what="geometry group elements")
        except FormatError as e:
            raise cur.error(cur.pos, e.message) from None
    kind, at = cur.next("a geometry type (Primitive, TriangleMesh, PointCloud, Group)")
    if kind == "Primitive":
        return _primitive(cur)
    if kind == "Group":
        return _group_payload(cur, ctx, depth)
    if kind == "TriangleMesh":
        return _mesh(cur)
    if kind == "PointCloud":
        return _cloud(cur, ctx)
    if kind in STREAM_TYPES:
        raise cur.error(at, f"{kind} geometry is not supported by roboio")
    raise cur.error(at, f"unknown geometry type {kind!r} (expected one of {', '.join(STREAM_TYPES)})")


def _group_payload(cur: _Cursor, ctx, depth: int) -> Group:
    n = cur.integer("the number of group elements")
    if n < 0:
        raise cur.error(cur.pos, f"negative group element count {n}")
    return Group([_stream(cur, ctx, depth + 1) for _ in range(n)])


def _sub_path(cur):
    return cur.path if cur.path is not None else "<inline geometry>"


def _mesh(cur: _Cursor) -> TriangleMesh:
    from ...numeric_text import TokenTable
    from ...meshes.off import parse_off_block
    from .tri import parse_tri_block
    tok, at = cur.peek()
    data = cur.text[at:].encode("latin-1", "replace")
    try:
        if tok == "OFF":
            d, used = parse_off_block(data, _sub_path(cur))
            cur.pos = at + used
            return TriangleMesh(d["vertices"], d["faces"], face_colors=d["face_colors"])
        t = TokenTable(data, _sub_path(cur))
        v, f, nxt = parse_tri_block(t, 0)
    except FormatError as e:
        raise _relocate(cur, at, e) from None
    cur.pos = at + (t.end_of(nxt - 1) if nxt else 0)
    return TriangleMesh(v, f)


def _cloud(cur: _Cursor, ctx) -> PointCloud:
    from ...meshes.pcd import parse_pcd_bytes
    data = cur.text.encode("latin-1", "replace")
    warn = (lambda m, line=None, **kind: ctx.warn(m, line, **kind)) if ctx is not None else None
    try:
        pc, end = parse_pcd_bytes(data, _sub_path(cur), warn, start=cur.pos)
    except FormatError as e:
        raise _relocate(cur, 0, e) from None
    cur.pos = end
    return pc


def _relocate(cur: _Cursor, base: int, e: FormatError) -> FormatError:
    """Errors of an embedded OFF/.tri/PCD block, moved to the stream's coordinates."""
    if cur.fixed_line is not None:
        return FormatError(cur.path, cur.fixed_line, None, f"inline geometry: {e.message}")
    if e.line is None or base == 0:
        return e
    line0 = cur.text.count("\n", 0, base)
    return FormatError(cur.path, e.line + line0, e.column, e.message)


def translate_escapes(text: str) -> str:
    """Backslash escapes as Klamp't translates them in inline geometry (``\\n``, ``\\t``,
    ``\\r``, ``\\a``, ``\\b``, ``\\v``, ``\\f``; ``\\x`` gives ``x``)."""
    if "\\" not in text:
        return text
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text, flags=re.S)


def parse_stream(text: str, ctx: LoadContext, line=None) -> Geometry:
    """Inline geometry ``TypeName data...`` (the text between ``{`` and ``}``, escapes not
    yet translated). Errors are located at ``line`` of the referring file (``ctx.path``)."""
    cur = _Cursor(translate_escapes(text), ctx.path if ctx is not None else None, fixed_line=line)
    with recursion_room(_max_depth(ctx), 3):
        g = _stream(cur, ctx)
    tok, at = cur.peek()
    if tok is not None:
        raise cur.error(at, f"unexpected {tok!r} after the inline geometry")
    return g


def parse_primitive_text(text: str, path=None) -> Primitive:
    """A ``.geom`` primitive string (optional ``Primitive`` header)."""
    cur = _Cursor(text, path)
    return _primitive(cur)


def parse_primitive_file(text: str, ctx) -> Primitive:
    """The primitive of a ``.geom`` file's text; text after it is ignored with a warning."""
    cur = _Cursor(text, ctx.path)
    p = _primitive(cur)
    tok, at = cur.peek()
    if tok is not None:
        ctx.warn(f"text after the primitive ignored: {tok!r}...", cur.where(at)[0], kind="ignored")
    return p


def parse_group_file(text: str, ctx) -> Group:
    """The group of a ``.group`` file's text (a count, then that many geometry streams);
    text after the last element is ignored with a warning."""
    cur = _Cursor(text, ctx.path)
    with recursion_room(_max_depth(ctx), 3):
        g = _group_payload(cur, ctx, 0)
    tok, at = cur.peek()
    if tok is not None:
        ctx.warn(f"text after the last group element ignored: {tok!r}...", cur.where(at)[0], kind="ignored")
    return g


# -- writing -------------------------------------------------------------------------------

def _num(x) -> str:
    from ...fileio import fmt_float
    x = float(x)
    if not np.isfinite(x):
        raise OutputError(None, f"{x} cannot be written to a Klamp't primitive (iostream numbers are finite)")
    return fmt_float(x)


def primitive_text(p: Primitive) -> str:
    """Klamp't's primitive string (``Sphere 0 0 0  0.5``): groups separated by two spaces.
    The primitive's ``transform`` is not applied here (see :func:`bake_primitive`)."""
    if p.primitive not in _LAYOUT:
        raise OutputError(None, f"{p.primitive} primitives have no Klamp't .geom form")
    groups = []
    for name, n in _LAYOUT[p.primitive]:
        v = p.params[name]
        if n is None:
            v = np.asarray(v, float).reshape(-1, 3)
            groups.append(str(len(v)))
            groups += [" ".join(_num(x) for x in row) for row in v]
        else:
            groups.append(" ".join(_num(x) for x in np.atleast_1d(v)))
    return p.primitive + " " + "  ".join(groups)


def _similarity(A):
    """(s, Q) with A = s Q, Q orthogonal and s > 0, or None."""
    s = float(vector_norm(A[:, 0]))
    if s == 0:
        return None
    Q = A / s
    if not np.allclose(compose(Q, Q.T), np.eye(3), rtol=0, atol=1e-12):
        return None
    return s, Q


def bake_primitive(p: Primitive, T) -> Primitive | None:
    """``p`` with the affine map ``T`` applied to its parameters, or None when the result
    is not a primitive of a Klamp't type (e.g. a sphere under non-uniform scaling)."""
    T = np.asarray(T, float)
    A, t = T[:3, :3], T[:3, 3]
    if np.array_equal(T, np.eye(4)):
        return Primitive(p.primitive, p.params)
    q, k = p.params, p.primitive
    # (element-wise products: the written numbers are the same on any machine)
    pt = lambda x: transform_points(T, np.asarray(x, float))
    rot = lambda x: compose(Q, np.asarray(x, float).reshape(3, 1))[:, 0]
    if k in ("Point", "Segment", "Triangle"):
        return Primitive(k, {n: pt(v) for n, v in q.items()})
    if k == "Polygon":
        return Primitive(k, {"vertices": transform_points(T, np.asarray(q["vertices"]).reshape(-1, 3))})
    if k == "AABB":
        d = np.diag(A)
        if np.count_nonzero(A - np.diag(d)) == 0 and np.all(d > 0):
            return Primitive(k, {"bmin": pt(q["bmin"]), "bmax": pt(q["bmax"])})
        p = Primitive("Box", {"origin": q["bmin"], "xaxis": [1, 0, 0], "yaxis": [0, 1, 0],
                              "zaxis": [0, 0, 1], "dims": np.asarray(q["bmax"]) - q["bmin"]})
        k, q = "Box", p.params
    sq = _similarity(A)
    if sq is None:
        return None
    s, Q = sq
    if k == "Sphere":
        return Primitive(k, {"center": pt(q["center"]), "radius": q["radius"] * s})
    if k == "Cylinder":
        return Primitive(k, {"center": pt(q["center"]), "axis": rot(q["axis"]),
                             "radius": q["radius"] * s, "height": q["height"] * s})
    if k in ("Box", "Ellipsoid"):
        base = "origin" if k == "Box" else "center"
        return Primitive(k, {base: pt(q[base]), "xaxis": rot(q["xaxis"]), "yaxis": rot(q["yaxis"]),
                             "zaxis": rot(q["zaxis"]), "dims": np.asarray(q["dims"]) * s})
    return None


def stream_text(geom: Geometry, report, T=None) -> str:
    """Geometry stream text (``TypeName`` + data, newline after every element), with
    ``geom.transform`` (and ``T`` before it) baked in. Used for ``.group`` files and for
    inline geometry written by other formats. A primitive whose transform cannot be
    expressed (non-uniform scale) is written as a triangulated mesh, which the report says."""
    from ...meshfile import flatten_for_writing
    from ...meshes.pcd import baked_cloud, pcd_text
    from .tri import tri_text
    M = compose(np.eye(4) if T is None else np.asarray(T, float), geom.transform)
    if isinstance(geom, Group):
        parts = [stream_text(c, report, M) for c in geom.children]
        return f"Group\n{len(parts)}\n" + "".join(parts)
    if isinstance(geom, Primitive):
        b = bake_primitive(geom, M)
        if b is not None and b.primitive in _LAYOUT:
            return "Primitive\n" + primitive_text(b) + "\n"
    placed = geom.copy()
    placed.transform = M
    if isinstance(geom, PointCloud):
        return "PointCloud\n" + pcd_text(baked_cloud(placed, report))
    m = flatten_for_writing(placed, report, "a geometry stream")
    if m.face_colors is not None or m.vertex_colors is not None:
        report.lose("mesh colours (a geometry stream mesh is written as a .tri block)", kind="not written")
    if len(m.vertices) == 0 or len(m.faces) == 0:
        report.lose("an empty triangle mesh (Klamp't's .tri block needs a vertex and a triangle)",
                    kind="not written")
        return "Group\n0\n"
    return "TriangleMesh\n" + tri_text(m.vertices, m.faces)
