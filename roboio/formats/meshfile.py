"""Helpers shared by the mesh readers and writers of every ecosystem (meshes, Klamp't
``.tri`` and geometry streams, ...).

Readers: :func:`lazy_mesh` builds a :class:`TriangleMesh` whose file is parsed on first
access to its arrays (the ``read`` function only checks that the file can be opened);
:func:`parsed_mesh` builds one from data already parsed (the ``loads`` functions).
Writers: :func:`flatten_for_writing` turns any geometry into one baked triangle soup
(transform applied, groups concatenated) and reports what a mesh file cannot keep;
:func:`color_bytes` quantises colours; :func:`fan` triangulates polygons.
"""
from __future__ import annotations

import os

import numpy as np

from ..errors import FormatError, OutputError
from ..model import Geometry, GeometrySource, Group, PointCloud, Primitive, TriangleMesh
from ..transforms import compose, det3, transform_points

from .fileio import read_bytes

__all__ = ["read_bytes", "check_readable", "lazy_mesh", "parsed_mesh", "charge_mesh", "flatten_for_writing",
           "MeshData", "fan", "color_bytes", "MESH_ROUNDING_TOL", "rounding_kind"]


#: the largest vertex change (metres) a mesh writer's rounding may cause and still be a note
#: (float32 rounding of a robot-sized mesh moves vertices by about 1e-8 m)
MESH_ROUNDING_TOL = 1e-6


def rounding_kind(change: float) -> str:
    """The kind of a loss "vertices rounded, largest change ``change`` m": ``"rounding"`` (a
    note) within :data:`MESH_ROUNDING_TOL`, else ``"approximated"`` (a warning)."""
    return "rounding" if change <= MESH_ROUNDING_TOL else "approximated"


def check_readable(path: str, nbytes: int = 0) -> bytes:
    """Open ``path`` (FileNotFoundError / FormatError for a directory) and return its
    first ``nbytes`` bytes."""
    try:            # (open says when it is a directory: no separate stat per mesh)
        with open(path, "rb") as f:
            return f.read(nbytes) if nbytes else b""
    except IsADirectoryError:
        raise FormatError(path, None, None, "is a directory, not a file") from None
    except PermissionError as e:
        if os.path.isdir(path):
            raise FormatError(path, None, None, "is a directory, not a file") from None
        raise FormatError(path, None, None, f"cannot read file: {e.strerror}") from None


def lazy_mesh(path: str, parse, format_name: str, ctx=None) -> TriangleMesh:
    """A TriangleMesh that runs ``parse(path)`` (-> dict with ``vertices``, ``faces`` and
    optional ``face_colors``/``vertex_colors``/``extras``) the first time its data are read.
    Each copy of the mesh parses independently, so copies never share arrays. With ``ctx``,
    the arrays are charged to the load's ``vertices`` and ``triangles`` budget."""

    def loader():
        return charge_mesh(parse(path), ctx, path)

    return TriangleMesh(loader=loader, source=GeometrySource(path, path, format_name))


def parsed_mesh(parsed: dict, path, format_name: str, ctx=None) -> TriangleMesh:
    """A loaded TriangleMesh from what a mesh parser returned (``vertices``, ``faces``,
    optional ``face_colors``/``vertex_colors``/``extras``); ``path`` names its source (None
    for data that came from no file). With ``ctx``, charged like :func:`lazy_mesh`."""
    charge_mesh(parsed, ctx, path)
    mesh = TriangleMesh(loader=lambda: parsed, source=GeometrySource(path, path, format_name))
    return mesh.load()


def charge_mesh(parsed: dict, ctx, path=None) -> dict:
    """Charge a parsed mesh's vertices and triangles to the load's budget (no-op without a
    context); returns ``parsed``."""
    if ctx is not None:
        ctx.charge("vertices", len(parsed.get("vertices", ())), path=path, what="mesh vertices")
        ctx.charge("triangles", len(parsed.get("faces", ())), path=path, what="mesh triangles")
    return parsed


class MeshData:
    """A baked triangle soup ready to write: ``vertices`` (V,3), ``faces`` (F,3),
    ``face_colors`` (F,4) or None, ``vertex_colors`` (V,4) or None."""

    def __init__(self, vertices, faces, face_colors=None, vertex_colors=None):
        self.vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
        self.faces = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
        self.face_colors = face_colors
        self.vertex_colors = vertex_colors


def _affine(T, pts):
    return transform_points(T, pts)      # (element-wise: the same bits on any machine)


def _collect(geom: Geometry, T: np.ndarray, out: list, report, target: str):
    T = compose(T, geom.transform)
    if geom.missing:
        ref = geom.source.reference if geom.source else "?"
        report.lose(f"missing geometry {ref!r} (not loaded, nothing to write)", kind="missing file")
        return
    if isinstance(geom, TriangleMesh):
        v = _affine(T, geom.vertices)
        f = geom.faces
        if det3(T[:3, :3]) < 0:      # a mirror flips the winding
            f = f[:, ::-1]
        out.append((v, f, geom.face_colors, geom.vertex_colors))
    elif isinstance(geom, Group):
        for c in geom.children:
            _collect(c, T, out, report, target)
    elif isinstance(geom, PointCloud):
        cols = geom.colors()
        lost = geom.other_fields() if cols is not None else sorted(k for k in geom.fields if k not in ("x", "y", "z"))
        if lost:
            report.lose(f"point cloud properties {lost} ({target} keeps positions"
                        f"{' and colours' if cols is not None else ''} only)", kind="not written")
        out.append((_affine(T, geom.points), np.zeros((0, 3), np.int64), None, cols))
    elif isinstance(geom, Primitive):
        from ..model.tessellate import primitive_to_mesh
        m = primitive_to_mesh(geom)
        report.lose(f"{geom.primitive} primitive: written to {target} as a triangulated "
                    f"approximation ({len(m.faces)} triangles)" if geom.primitive not in ("AABB", "Box")
                    else f"{geom.primitive} primitive: written to {target} as a triangle mesh (exact shape, "
                         "but no longer a primitive)", kind="approximated" if geom.primitive not in ("AABB", "Box") else "restructured")
        out.append((_affine(T, m.vertices), m.faces, None, None))
    else:
        report.lose(f"{type(geom).__name__} geometry ({target} cannot hold it)", kind="not written")


def flatten_for_writing(geom: Geometry, report, target: str) -> MeshData:
    """Bake ``geom`` (transform applied; group children concatenated in order) into one
    triangle soup. Everything that does not survive is listed with ``report.lose``."""
    if not isinstance(geom, Geometry):
        raise OutputError(None, f"{target} holds geometry, not a {type(geom).__name__}")
    parts: list = []
    _collect(geom, np.eye(4), parts, report, target)
    if isinstance(geom, Group) and len(parts) > 1:
        report.lose(f"group structure ({len(parts)} elements merged into one {target} mesh)", kind="restructured")
    if not parts:
        return MeshData(np.zeros((0, 3)), np.zeros((0, 3), np.int64))
    verts, faces, fcols, vcols = [], [], [], []
    offset = 0
    for v, f, fc, vc in parts:
        verts.append(v)
        faces.append(f + offset)
        offset += len(v)
        fcols.append(fc)
        vcols.append(vc)
    face_colors = _merge_colors(fcols, [len(f) for f in faces])
    vertex_colors = _merge_colors(vcols, [len(v) for v in verts])
    return MeshData(np.concatenate(verts), np.concatenate(faces), face_colors, vertex_colors)


def _merge_colors(cols, sizes):
    """Concatenate per-element colour arrays; None when no element has colours. Elements
    without colours get mid grey (Klamp't's default mesh colour)."""
    if all(c is None for c in cols):
        return None
    out = []
    for c, n in zip(cols, sizes):
        out.append(np.asarray(c, float).reshape(n, 4) if c is not None else np.tile([0.5, 0.5, 0.5, 1.0], (n, 1)))
    return np.concatenate(out)


def fan(k, flat):
    """Fan-triangulate polygons ``(i1, ij, ij+1)``: polygon ``p`` has ``k[p]`` corners,
    listed consecutively in ``flat``. Returns the triangles and each triangle's polygon
    (polygons with fewer than 3 corners give none)."""
    k = np.asarray(k, np.int64)
    flat = np.asarray(flat, np.int64)
    koff = np.cumsum(k) - k
    ntri = np.maximum(k - 2, 0)
    poly = np.repeat(np.arange(len(k)), ntri)
    j = np.arange(int(ntri.sum())) - np.repeat(np.cumsum(ntri) - ntri, ntri)
    base = koff[poly]
    tris = np.stack([flat[base], flat[base + 1 + j], flat[base + 2 + j]], axis=1).reshape(-1, 3)
    return tris, poly


def color_bytes(colors, what: str, target: str, report) -> np.ndarray:
    """RGBA in [0, 1] as 0-255 integers ((n, 4) uint8), reporting rounding."""
    c = np.asarray(colors, dtype=np.float64).reshape(-1, 4)
    q = np.clip(np.round(c * 255.0), 0, 255)
    if np.any(q / 255.0 != c):
        report.lose(f"{what} colours rounded to 1/255 steps ({target} stores 0-255 integers)", kind="rounding")
    return q.astype(np.uint8)
