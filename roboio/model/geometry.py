"""Geometry: triangle meshes, point clouds, primitives and groups, plus their appearance.

Every geometry carries ``transform``, a 4x4 *affine* map (it may scale) from the geometry's
data coordinates to the frame of its owner (link, rigid object or terrain), and ``margin``
(collision inflation, metres). The data themselves are kept exactly as the file gave them:
readers never bake scales or transforms into vertices, so a writer can still reference the
original file. :meth:`Geometry.baked` gives a copy with the transform applied.

Meshes load lazily: a :class:`TriangleMesh` built with a ``loader`` parses its file the first
time ``vertices`` or ``faces`` is read (``is_loaded`` tells whether that has happened).

An owner (link, rigid object, terrain) has one :class:`Appearance`; a piece of its geometry
may have its own in ``appearance`` (a URDF ``<visual>`` with its own material: the pieces
of a link drawn in different colours). None means the owner's (or the enclosing group's);
:func:`piece_appearance` resolves it.
"""
from __future__ import annotations

import copy as _copy
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

__all__ = ["Geometry", "TriangleMesh", "PointCloud", "Primitive", "Group", "Appearance",
           "GeometrySource", "PRIMITIVE_KINDS", "piece_appearance", "leaf_appearances"]


_ATOMIC = (bool, int, float, str)
_EYE4 = np.eye(4)          # copied, never handed out (np.eye costs a reader per geometry)


@dataclass
class GeometrySource:
    """Where a geometry came from: the reference as written, the resolved path, the format."""

    reference: str
    path: Optional[str] = None
    format: Optional[str] = None


class Geometry:
    """Base class. ``transform`` (4x4 affine, data -> owner frame), ``margin`` (m),
    ``appearance`` (this piece's own :class:`Appearance`, or None: its owner's)."""

    kind = "Geometry"

    def __init__(self, transform=None, margin: float = 0.0, source: Optional[GeometrySource] = None,
                 missing: bool = False, appearance: Optional["Appearance"] = None):
        self.transform = _EYE4.copy() if transform is None else np.array(transform, dtype=float)
        self.margin = float(margin)
        self.source = source
        self.missing = missing
        self.appearance = appearance
        self.extras: dict = {}

    # -- generic helpers --------------------------------------------------------------
    def copy(self) -> "Geometry":
        return _copy.deepcopy(self)

    def apply_transform(self, T) -> "Geometry":
        """Pre-multiply ``T`` (4x4 affine) onto the geometry transform; returns self."""
        from ..transforms import compose      # (element-wise: the same bits on any machine)
        self.transform = compose(np.asarray(T, dtype=float), self.transform)
        return self

    @property
    def is_empty(self) -> bool:
        return self.missing

    def bounds(self) -> Optional[np.ndarray]:
        """Axis-aligned bounds ``[[xmin, ymin, zmin], [xmax, ymax, zmax]]`` in the owner frame,
        or None for empty geometry."""
        pts = self.sample_points()
        if pts is None or len(pts) == 0:
            return None
        return np.stack([pts.min(axis=0), pts.max(axis=0)])

    def sample_points(self) -> Optional[np.ndarray]:
        """Points whose hull bounds the geometry, in the owner frame (used for bounds)."""
        return None

    def mesh_count(self) -> tuple[int, int]:
        """(number of meshes, number not yet loaded) in this geometry tree."""
        return (0, 0)

    def __repr__(self):
        src = f" {self.source.reference!r}" if self.source else ""
        return f"<{type(self).__name__}{src}{' missing' if self.missing else ''}>"


def _apply(T, pts):
    """Points ``(N, 3)`` mapped by the affine ``T``, element-wise in a fixed order (no BLAS:
    baked meshes written to files have the same digits on any machine)."""
    pts = np.asarray(pts, dtype=float)
    R = np.asarray(T, dtype=float)
    out = pts[:, 0:1] * R[:3, 0] + pts[:, 1:2] * R[:3, 1]
    out += pts[:, 2:3] * R[:3, 2]
    out += R[:3, 3]
    return out


class TriangleMesh(Geometry):
    """Triangle mesh. ``vertices`` (V, 3) float64, ``faces`` (F, 3) int64 (0-based).

    Optional ``face_colors`` (F, 4) / ``vertex_colors`` (V, 4) RGBA in [0, 1] when the file
    carries colours. A mesh built with ``loader`` (a callable returning a dict with keys
    ``vertices``, ``faces`` and optionally ``face_colors``, ``vertex_colors``, ``extras``) loads
    on first access. ``extras["parts"]`` (face offsets), when present, marks a mesh read from
    a file holding several meshes, which Klamp't loads as a Group of them.
    """

    kind = "TriangleMesh"

    def __init__(self, vertices=None, faces=None, *, loader: Optional[Callable[[], dict]] = None,
                 face_colors=None, vertex_colors=None, **kw):
        super().__init__(**kw)
        self._loader = loader
        self._vertices = None
        self._faces = None
        self._face_colors = None
        self._vertex_colors = None
        if loader is None:
            self._set(vertices if vertices is not None else np.zeros((0, 3)),
                      faces if faces is not None else np.zeros((0, 3), dtype=np.int64),
                      face_colors, vertex_colors)

    def _set(self, vertices, faces, face_colors=None, vertex_colors=None):
        v = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
        f = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
        if len(f) and (f.min() < 0 or f.max() >= len(v)):
            raise ValueError(f"face index out of range (mesh has {len(v)} vertices)")
        self._vertices, self._faces = v, f
        self._face_colors = None if face_colors is None else np.asarray(face_colors, float)
        self._vertex_colors = None if vertex_colors is None else np.asarray(vertex_colors, float)
        self._loader = None

    @property
    def is_loaded(self) -> bool:
        return self._loader is None

    def load(self) -> "TriangleMesh":
        """Parse the file now (no-op when already loaded)."""
        if self._loader is not None:
            data = self._loader()
            self._set(data["vertices"], data["faces"], data.get("face_colors"),
                      data.get("vertex_colors"))
            self.extras.update(data.get("extras") or {})   # e.g. "parts" of a multi-mesh file
        return self

    @property
    def vertices(self) -> np.ndarray:
        return self.load()._vertices

    @vertices.setter
    def vertices(self, v):
        self.load()
        self._vertices = np.asarray(v, dtype=np.float64).reshape(-1, 3)

    @property
    def faces(self) -> np.ndarray:
        return self.load()._faces

    @faces.setter
    def faces(self, f):
        self.load()
        self._faces = np.asarray(f, dtype=np.int64).reshape(-1, 3)

    @property
    def face_colors(self):
        return self.load()._face_colors

    @face_colors.setter
    def face_colors(self, c):
        self.load()
        self._face_colors = None if c is None else np.asarray(c, float)

    @property
    def vertex_colors(self):
        return self.load()._vertex_colors

    @vertex_colors.setter
    def vertex_colors(self, c):
        self.load()
        self._vertex_colors = None if c is None else np.asarray(c, float)

    @property
    def is_empty(self) -> bool:
        return self.missing or (self.is_loaded and len(self._faces) == 0 and len(self._vertices) == 0)

    def world_vertices(self) -> np.ndarray:
        """Vertices in the owner frame (``transform`` applied)."""
        return _apply(self.transform, self.vertices)

    def sample_points(self):
        return self.world_vertices() if not self.missing else None

    def baked(self) -> "TriangleMesh":
        out = TriangleMesh(self.world_vertices(), self.faces.copy(), face_colors=self.face_colors,
                           vertex_colors=self.vertex_colors, margin=self.margin)
        from ..transforms import det3
        if det3(self.transform[:3, :3]) < 0:   # a mirror flips the winding
            out._faces = out._faces[:, ::-1].copy()
        return out

    def mesh_count(self):
        return (1, 0 if self.is_loaded else 1)

    def copy(self) -> "TriangleMesh":
        return self.__deepcopy__({})        # (copy.deepcopy's dispatch costs a reader per link)

    def __deepcopy__(self, memo):
        new = TriangleMesh.__new__(TriangleMesh)
        memo[id(self)] = new
        d = new.__dict__
        for k, v in self.__dict__.items():
            t = type(v)
            if k == "_loader" or v is None or t in _ATOMIC:
                d[k] = v
            elif t is dict and not v:
                d[k] = {}
            elif id(v) in memo:
                d[k] = memo[id(v)]
            elif t is np.ndarray and v.dtype != object:   # (robots copy many unloaded meshes:
                d[k] = memo[id(v)] = v.copy()           # the generic deepcopy is slow)
            elif t is GeometrySource:
                d[k] = memo[id(v)] = GeometrySource(v.reference, v.path, v.format)
            else:
                d[k] = _copy.deepcopy(v, memo)
        return new


class PointCloud(Geometry):
    """Point cloud: ``points`` (N, 3) and ``fields``, an ordered dict name -> (N,) array of
    per-point properties (e.g. ``rgb``, ``normal_x``). ``settings`` keeps file-level values
    such as PCD ``VIEWPOINT``/``WIDTH``/``HEIGHT`` as strings."""

    kind = "PointCloud"

    def __init__(self, points=None, fields=None, settings=None, **kw):
        super().__init__(**kw)
        self.points = np.zeros((0, 3)) if points is None else np.asarray(points, float).reshape(-1, 3)
        self.fields = dict(fields or {})
        self.settings = dict(settings or {})

    @property
    def vertices(self):
        return self.points

    def sample_points(self):
        return _apply(self.transform, self.points)

    def baked(self) -> "PointCloud":
        return PointCloud(_apply(self.transform, self.points), self.fields, self.settings,
                          margin=self.margin)

    COLOR_FIELDS = ("rgb", "rgba", "r", "g", "b", "a", "opacity", "c")

    def other_fields(self) -> list:
        """Names of the per-point properties other than the position (``x y z``) and
        colour (:attr:`COLOR_FIELDS`) ones, sorted."""
        return sorted(k for k in self.fields if k not in self.COLOR_FIELDS and k not in ("x", "y", "z"))

    def colors(self) -> Optional[np.ndarray]:
        """Per-point RGBA in [0, 1] ((N, 4)) from the colour fields Klamp't's point cloud
        documents, or None when the cloud has none: ``rgb`` (PCL packed integer
        ``0x00RRGGBB``), ``rgba`` (packed ``0xAARRGGBB``), else ``r``, ``g``, ``b`` (and
        ``a``) in [0, 1]; ``opacity`` ([0, 1]) or ``c`` ([0, 255]) give the alpha when
        present. Fields whose length is not the number of points are ignored."""
        n = len(self.points)
        f = {k: np.asarray(v, float) for k, v in self.fields.items() if np.shape(v) == (n,)}
        rgba = np.ones((n, 4))
        packed = f.get("rgba", f.get("rgb"))
        if packed is not None:
            v = np.nan_to_num(packed).astype(np.int64) & 0xFFFFFFFF
            rgba[:, 0], rgba[:, 1], rgba[:, 2] = ((v >> 16) & 255) / 255, ((v >> 8) & 255) / 255, (v & 255) / 255
            if "rgba" in f:
                rgba[:, 3] = ((v >> 24) & 255) / 255
        elif all(k in f for k in "rgb"):
            for i, k in enumerate("rgba"):
                if k in f:
                    rgba[:, i] = f[k]
        else:
            return None
        if "opacity" in f:
            rgba[:, 3] = f["opacity"]
        elif "c" in f:
            rgba[:, 3] = f["c"] / 255
        return np.clip(np.nan_to_num(rgba, nan=1.0), 0.0, 1.0)


# Parameter names of each primitive kind, in Klamp't's .geom order.
PRIMITIVE_KINDS = {
    "Point": ("center",),
    "Segment": ("a", "b"),
    "Triangle": ("a", "b", "c"),
    "Polygon": ("vertices",),
    "Sphere": ("center", "radius"),
    "Ellipsoid": ("center", "xaxis", "yaxis", "zaxis", "dims"),
    "Cylinder": ("center", "axis", "radius", "height"),      # center of the base disc
    "AABB": ("bmin", "bmax"),
    "Box": ("origin", "xaxis", "yaxis", "zaxis", "dims"),     # origin = a corner
    "Capsule": ("center", "axis", "radius", "height"),       # Choreonoid; base-disc centre
    "Cone": ("center", "axis", "radius", "height"),          # base-disc centre, apex at +h
}


class Primitive(Geometry):
    """A geometric primitive ``kind`` with named ``params`` (see :data:`PRIMITIVE_KINDS`).

    Vectors are numpy arrays, scalars floats, ``Polygon`` vertices an (n, 3) array.
    """

    kind = "Primitive"

    def __init__(self, kind: str, params: dict, **kw):
        super().__init__(**kw)
        if kind not in PRIMITIVE_KINDS:
            raise ValueError(f"unknown primitive kind {kind!r}")
        self.primitive = kind
        self.params = {k: (np.asarray(v, float) if np.ndim(v) else float(v)) for k, v in params.items()}

    def sample_points(self):
        p = self.params
        k = self.primitive
        if k == "Point":
            pts = p["center"][None]
        elif k in ("Segment",):
            pts = np.stack([p["a"], p["b"]])
        elif k == "Triangle":
            pts = np.stack([p["a"], p["b"], p["c"]])
        elif k == "Polygon":
            pts = np.asarray(p["vertices"]).reshape(-1, 3)
        elif k == "Sphere":
            pts = p["center"] + p["radius"] * np.array(
                [[s1, s2, s3] for s1 in (-1, 1) for s2 in (-1, 1) for s3 in (-1, 1)], float)
        elif k == "AABB":
            lo, hi = p["bmin"], p["bmax"]
            pts = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
        elif k in ("Box", "Ellipsoid"):
            axes = np.stack([p["xaxis"], p["yaxis"], p["zaxis"]], axis=1)
            d = p["dims"]
            corners = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], float)
            if k == "Ellipsoid":
                corners = corners * 2 - 1
                base = p["center"]
            else:
                base = p["origin"]
            pts = base + (corners * d)[:, 0:1] * axes[:, 0] + (corners * d)[:, 1:2] * axes[:, 1] \
                + (corners * d)[:, 2:3] * axes[:, 2]
        else:   # Cylinder, Capsule, Cone: bound by a box around the axis
            ax = np.asarray(p["axis"], float)
            a = ax / max(float(np.sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2])), 1e-300)
            r, h = p["radius"], p["height"]
            ends = [p["center"], p["center"] + a * h]
            if k == "Capsule":
                ends = [p["center"] - a * r, p["center"] + a * (h + r)]
            off = r * np.array([[s1, s2, s3] for s1 in (-1, 1) for s2 in (-1, 1) for s3 in (-1, 1)], float)
            pts = np.concatenate([e + off for e in ends])
        return _apply(self.transform, pts)

    def baked(self) -> "Primitive":
        return self.copy()

    def __repr__(self):
        return f"<Primitive {self.primitive}>"


class Group(Geometry):
    """Several geometries; each child's ``transform`` is relative to the group frame."""

    kind = "Group"

    def __init__(self, children=None, **kw):
        super().__init__(**kw)
        self.children: list[Geometry] = list(children or [])

    def sample_points(self):
        pts = []
        for c in self.children:
            p = c.sample_points()
            if p is not None and len(p):
                pts.append(_apply(self.transform, p))
        return np.concatenate(pts) if pts else None

    @property
    def is_empty(self) -> bool:
        return self.missing or all(c.is_empty for c in self.children)

    def mesh_count(self):
        n = u = 0
        for c in self.children:
            a, b = c.mesh_count()
            n += a
            u += b
        return (n, u)


@dataclass
class Appearance:
    """How an element is drawn. Colours are RGBA tuples in [0, 1]; None means "not set"
    (the viewer's default). ``extras`` keeps attributes no field covers."""

    color: Optional[tuple] = None            # face colour (Klamp't faceColor / color)
    vertex_color: Optional[tuple] = None
    edge_color: Optional[tuple] = None
    emissive_color: Optional[tuple] = None
    specular_color: Optional[tuple] = None
    shininess: Optional[float] = None
    vertex_size: Optional[float] = None
    edge_size: Optional[float] = None
    silhouette: Optional[tuple] = None       # (width, r, g, b, a)
    texture: Optional[str] = None
    texture_projection: Optional[str] = None
    draw_faces: Optional[bool] = None
    draw_edges: Optional[bool] = None
    draw_vertices: Optional[bool] = None
    extras: dict = field(default_factory=dict)

    def is_default(self) -> bool:
        return self == Appearance()


def piece_appearance(owner: Optional[Appearance], *path) -> Optional[Appearance]:
    """The appearance a piece of geometry is drawn with: the own ``appearance`` of the
    innermost geometry of ``path`` (the groups from the owner's geometry down to the
    piece, then the piece) that has one, else ``owner`` (the link's, object's or
    terrain's)."""
    for g in reversed(path):
        own = getattr(g, "appearance", None)
        if own is not None:
            return own
    return owner


def leaf_appearances(geom, owner: Optional[Appearance] = None) -> list:
    """The appearance each non-group piece of ``geom`` is drawn with (:func:`piece_appearance`),
    in the order a depth-first walk meets the pieces (children in order): for writers that
    list the pieces and give each its colour."""
    if geom is None:
        return []
    own = geom.appearance if getattr(geom, "appearance", None) is not None else owner
    if isinstance(geom, Group):
        return [a for c in geom.children for a in leaf_appearances(c, own)]
    return [own]
