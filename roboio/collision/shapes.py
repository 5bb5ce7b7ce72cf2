"""Geometry as the collision engine sees it: a list of :class:`Part`, each one shape the engine
holds natively, placed rigidly in its owner's frame (a link, rigid object or terrain).

A roboio geometry (:mod:`roboio.model.geometry`; read here by its ``kind`` only, this layer
imports no model) becomes:

* ``TriangleMesh`` -> a ``"mesh"`` part: the vertices with the geometry's transform (an affine
  map that may scale) applied, in the owner frame; triangles only, so a mesh is its surface
  (what Klamp't's PQP meshes are: a mesh inside another does not collide with it);
* ``PointCloud`` -> a ``"points"`` part (points in the owner frame), each point a sphere of
  radius 0 inflated by the margins;
* ``Primitive`` -> the exact shape, never tessellated: ``"sphere"``, ``"box"``,
  ``"cylinder"``, ``"capsule"``, ``"cone"``, ``"ellipsoid"``, or ``"convex"`` (a box or
  ellipsoid-free shape the affine transform shears: a parallelepiped is exactly the convex
  hull of its corners); a ``Point`` is a one-point ``"points"`` part, a ``Segment`` a capsule
  of radius 0, a ``Triangle``/``Polygon`` a one-face/triangulated ``"mesh"``. A cylinder,
  capsule or cone that the transform scales unevenly across its axis is no such shape any
  more: it becomes the convex hull of 64-gon rings (``Part.approx`` says so);
* ``Group`` -> the parts of its children (the group's transform and margin apply to each).

Units: metres. ``Part.margin`` is the collision margin (the owner geometry's margin plus the
margins of the groups holding it): two parts collide when their distance is at most the sum
of their margins, as in Klamp't.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

__all__ = ["Part", "parts_of", "merge_meshes", "bounding_box", "engine_primitive", "SHAPE_KINDS"]

SHAPE_KINDS = ("mesh", "points", "convex", "sphere", "box", "cylinder", "capsule", "cone",
               "ellipsoid")
_RING = 64          # sides of the polygon rings of an unevenly scaled cylinder, capsule, cone


@dataclass(eq=False)
class Part:
    """One engine shape. ``data`` by kind: ``mesh``: ``vertices`` (V, 3), ``faces`` (F, 3)
    int64; ``points``/``convex``: ``points`` (N, 3); ``sphere``: ``radius``; ``box``:
    ``half`` (3,) half extents; ``cylinder``/``capsule``/``cone``: ``radius``, ``half_length``
    (along z, centred at the origin; a cone's apex at +z); ``ellipsoid``: ``radii`` (3,).
    ``pose``: 4x4 rigid transform of the shape frame in the owner frame (identity for
    ``mesh``, ``points`` and ``convex``, whose coordinates are already in the owner frame).
    ``lo``/``hi``: the part's axis-aligned bounds in the owner frame (margin not included).
    """

    kind: str
    data: dict
    pose: np.ndarray
    margin: float
    lo: np.ndarray = field(default=None)
    hi: np.ndarray = field(default=None)
    approx: bool = False
    handles: dict = field(default_factory=dict, repr=False)    # engine name -> engine object

    def __getstate__(self):
        state = self.__dict__.copy()
        state["handles"] = {}           # engine objects are rebuilt where they are used
        return state

    @property
    def identity_pose(self) -> bool:
        return self.kind in ("mesh", "points", "convex") or bool(np.array_equal(self.pose, _EYE4))


_EYE4 = np.eye(4)


def parts_of(geometry, transform=None) -> list:
    """The parts of a roboio geometry (None, missing or empty: no parts), in the frame that
    ``transform`` (4x4, default identity) maps the geometry's owner frame to."""
    out: list = []
    if geometry is not None:
        M = _EYE4 if transform is None else np.asarray(transform, dtype=float)
        _collect(geometry, M, 0.0, out, 0)
    return out


def _collect(g, M, margin, out, depth):
    if depth > 64:
        raise ValueError("geometry groups nested deeper than 64 levels")
    if getattr(g, "missing", False):
        return
    A = M @ np.asarray(g.transform, dtype=float)
    m = margin + float(g.margin)
    kind = g.kind
    if kind == "Group":
        for c in g.children:
            _collect(c, A, m, out, depth + 1)
    elif kind == "TriangleMesh":
        v, f = g.vertices, g.faces
        if len(f):
            out.append(_mesh(_apply(A, v), f, m))
    elif kind == "PointCloud":
        if len(g.points):
            out.append(_points(_apply(A, g.points), m))
    elif kind == "Primitive":
        part = _primitive(g.primitive, g.params, A, m)
        if part is not None:
            out.append(part)
    else:
        raise TypeError(f"not a roboio geometry: {g!r}")


def _apply(A, pts):
    pts = np.asarray(pts, dtype=float).reshape(-1, 3)
    return np.ascontiguousarray(pts @ A[:3, :3].T + A[:3, 3])


def _mesh(v, f, margin) -> Part:
    v = np.ascontiguousarray(v, dtype=np.float64)
    f = np.ascontiguousarray(f, dtype=np.int64).reshape(-1, 3)
    used = v[np.unique(f)] if len(f) else v
    return Part("mesh", {"vertices": v, "faces": f}, _EYE4.copy(), margin,
                used.min(axis=0), used.max(axis=0))


def _points(p, margin, kind="points", approx=False) -> Part:
    p = np.ascontiguousarray(p, dtype=np.float64).reshape(-1, 3)
    return Part(kind, {"points": p}, _EYE4.copy(), margin, p.min(axis=0), p.max(axis=0),
                approx=approx)


def merge_meshes(parts: list) -> list:
    """``parts`` with the mesh parts of equal margin joined into one mesh (as Klamp't merges
    a link's geometry mounts): a union of triangles collides exactly where its pieces do,
    and one engine call replaces several."""
    meshes: dict = {}
    rest = []
    for p in parts:
        if p.kind == "mesh":
            meshes.setdefault(p.margin, []).append(p)
        else:
            rest.append(p)
    out = []
    for margin, ms in meshes.items():
        if len(ms) == 1:
            out.append(ms[0])
            continue
        verts, faces, base = [], [], 0
        for p in ms:
            verts.append(p.data["vertices"])
            faces.append(p.data["faces"] + base)
            base += len(p.data["vertices"])
        out.append(_mesh(np.concatenate(verts), np.concatenate(faces), margin))
    return out + rest


def bounding_box(parts: list, with_margin: bool = True) -> Optional[tuple]:
    """``(lo, hi)``: the axis-aligned box around ``parts`` in their owner frame (inflated by
    each part's margin when ``with_margin``), or None without parts."""
    if not parts:
        return None
    lo = np.min([p.lo - (p.margin if with_margin else 0.0) for p in parts], axis=0)
    hi = np.max([p.hi + (p.margin if with_margin else 0.0) for p in parts], axis=0)
    return lo, hi


# -- primitives ----------------------------------------------------------------------------
def _unit(v) -> Optional[np.ndarray]:
    v = np.asarray(v, dtype=float)
    n = float(np.linalg.norm(v))
    return v / n if n > 0 and np.isfinite(n) else None


def _frame_z(z, origin) -> np.ndarray:
    """A rigid 4x4 frame at ``origin`` whose z axis is the unit vector ``z``."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    F = np.eye(4)
    F[:3, 0], F[:3, 1], F[:3, 2], F[:3, 3] = x, y, z, origin
    return F


def _proper(R) -> np.ndarray:
    """``R`` (orthonormal columns) made a rotation by mirroring its x column when needed: the
    canonical shapes are symmetric under x -> -x."""
    R = np.array(R, dtype=float)
    if np.linalg.det(R) < 0:
        R[:, 0] = -R[:, 0]
    return R


def _pose(R, t) -> np.ndarray:
    P = np.eye(4)
    P[:3, :3] = _proper(R)
    P[:3, 3] = t
    return P


def _scaled_axes(L, tol=1e-9):
    """``(R, s)`` with ``L = R diag(s)``, R orthonormal, when ``L``'s columns are mutually
    orthogonal (relative ``tol``); else None."""
    s = np.linalg.norm(L, axis=0)
    if np.any(s <= 0) or not np.all(np.isfinite(s)):
        return None
    R = L / s
    G = R.T @ R
    if np.abs(G - np.eye(3)).max() > tol:
        return None
    return R, s


def _sphere_like(A_lin, center, radius, margin):
    """The image of the ball of ``radius`` at ``center`` under the linear map ``A_lin``: a
    sphere when the map is a similarity, else an ellipsoid (its axes from the SVD)."""
    U, sig, _ = np.linalg.svd(A_lin)
    r = sig * radius
    if r.max() - r.min() <= 1e-12 * max(r.max(), 1e-300):
        return _with_bounds(Part("sphere", {"radius": float(r.mean())}, _pose(np.eye(3), center), margin))
    return _with_bounds(Part("ellipsoid", {"radii": r}, _pose(U, center), margin))


def _box_like(L, center, margin):
    """The image of the cube [-1/2, 1/2]^3 under ``x -> L x + center``: a box when ``L``'s
    columns are orthogonal, else the convex hull of its corners (exact)."""
    ra = _scaled_axes(L)
    if ra is not None:
        R, s = ra
        return _with_bounds(Part("box", {"half": s / 2}, _pose(R, center), margin))
    corners = np.array([[a, b, c] for a in (-.5, .5) for b in (-.5, .5) for c in (-.5, .5)])
    part = _points(corners @ L.T + center, margin, kind="convex")
    part.data["faces"] = _CUBE_FACES.copy()
    return part


# the 12 triangles of the cube whose corner (a, b, c) in {-1/2, 1/2}^3 is 4a' + 2b' + c'
_CUBE_FACES = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                        [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]],
                       dtype=np.int64)


def _round_like(kind, A, F, radius, length, margin):
    """A cylinder, capsule or cone of ``radius`` and ``length`` along z of the rigid frame
    ``F`` (centred), under the affine ``A``: the same shape when ``A`` scales the frame's x
    and y alike (and z alike too for a capsule), else the convex hull of rings (approx)."""
    L = A[:3, :3] @ F[:3, :3]
    c = A[:3, :3] @ F[:3, 3] + A[:3, 3]
    ra = _scaled_axes(L)
    if ra is not None:
        R, s = ra
        even = abs(s[0] - s[1]) <= 1e-12 * s[0]
        if even and (kind != "capsule" or abs(s[2] - s[0]) <= 1e-12 * s[0]):
            return _with_bounds(Part(kind, {"radius": float(radius * s[0]),
                                            "half_length": float(length * s[2] / 2)},
                                     _pose(R, c), margin))
    ang = np.linspace(0, 2 * np.pi, _RING, endpoint=False)
    circle = np.stack([np.cos(ang), np.sin(ang), np.zeros_like(ang)], axis=1)
    h = length / 2
    if kind == "cone":
        rings = [(radius, -h), (0.0, h)]
    elif kind == "cylinder":
        rings = [(radius, -h), (radius, h)]
    else:       # capsule: rings of the two hemispheres
        a = np.linspace(-np.pi / 2, np.pi / 2, 17)
        rings = [(radius * np.cos(x), (h if x > 0 else -h) + radius * np.sin(x)) for x in a]
        rings.insert(9, (radius, h))
    pts, faces = _ring_mesh(circle, rings)
    part = _points(pts @ L.T + c, margin, kind="convex", approx=True)
    part.data["faces"] = faces
    return part


def _ring_mesh(circle, rings):
    """Points and triangles of a surface of revolution: ``rings`` (radius, z) from bottom to
    top around the z axis (a ring of radius 0 is one point), closed at both ends."""
    pts, starts = [], []
    for r, z in rings:
        starts.append(sum(len(p) for p in pts))
        pts.append(np.array([[0.0, 0.0, z]]) if r == 0 else circle * r + [0, 0, z])
    n = len(circle)
    faces = []
    for k in range(len(rings) - 1):
        a, b = starts[k], starts[k + 1]
        na, nb = len(pts[k]), len(pts[k + 1])
        for i in range(n):
            i2 = (i + 1) % n
            if na > 1 and nb > 1:
                faces += [(a + i, a + i2, b + i2), (a + i, b + i2, b + i)]
            elif na > 1:
                faces.append((a + i, a + i2, b))
            elif nb > 1:
                faces.append((a, b + i2, b + i))
    for k, up in ((0, False), (len(rings) - 1, True)):
        if len(pts[k]) > 1:
            s = starts[k]
            faces += [(s, s + i + 1, s + i) if not up else (s, s + i, s + i + 1) for i in range(1, n - 1)]
    return np.concatenate(pts), np.array(faces, dtype=np.int64)


def _triangulate(poly: np.ndarray) -> np.ndarray:
    """Triangles (K, 3) of the planar polygon ``poly`` (n, 3), by ear clipping in its plane
    (any simple polygon, convex or not)."""
    n = len(poly)
    if n < 3:
        return np.zeros((0, 3), dtype=np.int64)
    c = poly.mean(axis=0)
    normal = np.zeros(3)
    for i in range(n):                      # Newell's normal
        a, b = poly[i] - c, poly[(i + 1) % n] - c
        normal += np.cross(a, b)
    nz = _unit(normal)
    if nz is None:
        return np.zeros((0, 3), dtype=np.int64)
    F = _frame_z(nz, c)
    uv = (poly - c) @ F[:3, :2]

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    idx = list(range(n))
    tris = []
    guard = 0
    while len(idx) > 3 and guard < n * n:
        guard += 1
        for k in range(len(idx)):
            i0, i1, i2 = idx[k - 1], idx[k], idx[(k + 1) % len(idx)]
            if cross(uv[i0], uv[i1], uv[i2]) <= 0:
                continue                    # reflex (or flat) corner
            inside = any(cross(uv[i0], uv[i1], uv[j]) >= 0 and cross(uv[i1], uv[i2], uv[j]) >= 0
                         and cross(uv[i2], uv[i0], uv[j]) >= 0
                         for j in idx if j not in (i0, i1, i2))
            if not inside:
                tris.append((i0, i1, i2))
                idx.pop(k)
                break
        else:
            break                           # degenerate: fan the rest
    if len(idx) >= 3:
        tris += [(idx[0], idx[k], idx[k + 1]) for k in range(1, len(idx) - 1)]
    return np.array(tris, dtype=np.int64).reshape(-1, 3)


def _primitive(kind, p, A, margin) -> Optional[Part]:
    lin = A[:3, :3]
    if kind == "Point":
        return _points(_apply(A, p["center"]), margin)
    if kind == "Segment":
        a, b = _apply(A, p["a"])[0], _apply(A, p["b"])[0]
        z = _unit(b - a)
        if z is None:
            return _points(a[None], margin)
        return _with_bounds(Part("capsule", {"radius": 0.0, "half_length": float(np.linalg.norm(b - a) / 2)},
                                 _frame_z(z, (a + b) / 2), margin))
    if kind == "Triangle":
        v = _apply(A, np.stack([p["a"], p["b"], p["c"]]))
        return _mesh(v, np.array([[0, 1, 2]]), margin)
    if kind == "Polygon":
        v = _apply(A, np.asarray(p["vertices"]).reshape(-1, 3))
        f = _triangulate(v)
        return _mesh(v, f, margin) if len(f) else None
    if kind == "Sphere":
        return _sphere_like(lin, _apply(A, p["center"])[0], float(p["radius"]), margin)
    if kind == "Ellipsoid":
        axes = np.stack([p["xaxis"], p["yaxis"], p["zaxis"]], axis=1) * np.asarray(p["dims"], float)
        return _sphere_like(lin @ axes, _apply(A, p["center"])[0], 1.0, margin)
    if kind == "AABB":
        lo, hi = np.asarray(p["bmin"], float), np.asarray(p["bmax"], float)
        return _box_like(lin @ np.diag(hi - lo), _apply(A, (lo + hi) / 2)[0], margin)
    if kind == "Box":
        axes = np.stack([p["xaxis"], p["yaxis"], p["zaxis"]], axis=1)
        L = axes * np.asarray(p["dims"], float)
        return _box_like(lin @ L, _apply(A, p["origin"] + L @ [0.5, 0.5, 0.5])[0], margin)
    if kind in ("Cylinder", "Capsule", "Cone"):
        z = _unit(p["axis"])
        if z is None:
            return None
        h = float(p["height"])
        F = _frame_z(z, np.asarray(p["center"], float) + z * h / 2)
        return _round_like(kind.lower(), A, F, float(p["radius"]), h, margin)
    raise ValueError(f"primitive {kind!r} has no collision shape")


def _with_bounds(part: Part) -> Part:
    """Fill ``lo``/``hi`` of a primitive part: its exact axis-aligned bounds in the owner
    frame (for an ellipsoid, sqrt(sum_j (R_ij r_j)^2) per axis)."""
    R, t = part.pose[:3, :3], part.pose[:3, 3]
    d = part.data
    if part.kind == "sphere":
        half = np.full(3, d["radius"])
    elif part.kind == "ellipsoid":
        half = np.sqrt(((R * d["radii"]) ** 2).sum(axis=1))
    elif part.kind == "box":
        half = np.abs(R) @ d["half"]
    elif part.kind == "capsule":
        half = np.abs(R[:, 2]) * d["half_length"] + d["radius"]
    else:   # cylinder, cone: the discs at both ends
        r, h = d["radius"], d["half_length"]
        disc = r * np.sqrt(np.clip(1 - R[:, 2] ** 2, 0, None))
        half = np.abs(R[:, 2]) * h + disc
    part.lo, part.hi = t - half, t + half
    return part


def engine_primitive(lib, part: Part):
    """The exact shape of a primitive ``part`` in an FCL-family engine module ``lib`` (coal
    and python-fcl name their classes alike, sizes as full lengths), or None when the part
    is a mesh, convex hull or point cloud."""
    d, k = part.data, part.kind
    if k == "sphere":
        return lib.Sphere(d["radius"])
    if k == "box":
        return lib.Box(*(2 * np.asarray(d["half"], dtype=float)))
    if k in ("cylinder", "capsule", "cone"):
        return getattr(lib, k.capitalize())(d["radius"], 2 * d["half_length"])
    if k == "ellipsoid":
        return lib.Ellipsoid(*np.asarray(d["radii"], dtype=float))
    return None
