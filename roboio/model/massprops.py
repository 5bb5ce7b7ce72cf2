"""Mass properties from geometry, with Klamp't's formulas (``automass``; spec §8.9).

:func:`geometry_moments` gives the centre of mass ``com`` (3,) and the per-unit-mass second
moment matrix ``C`` (3,3) about it, ``C = E[(x - com)(x - com)^T]``, in the geometry's owner
frame (its ``transform`` applied, scale included). :func:`inertia_from_moments` turns that
into an inertia tensor about the COM: ``mass * (trace(C) I - C)``.

Per geometry type, exactly as Klamp't (``Cpp/Modeling/Mass.cpp``) computes them:

* triangle mesh, surface fraction ``f``: ``com = f c_surf + (1-f) c_vol`` where ``c_surf``
  is the area-weighted mean of triangle centroids and ``c_vol`` the signed-volume-weighted
  mean of the centroids of the tetrahedra (triangle, mean of all vertices). ``C = f C_surf
  + (1-f) C_vol`` about ``com``: the exact second moment of the triangles divided by the
  total area, and of the tetrahedra (triangle, ``com``) divided by the total signed volume.
  Meaningful for ``f < 1`` only for closed, consistently oriented meshes.
* primitive: ``com`` = centre of its axis-aligned bounding box, ``C = diag(extent^2 / 12)``
  of that box (a solid-box approximation), whatever the centre it is taken about.
* point cloud: mean and covariance (1/n) of the points.
* group: ``com`` = unweighted mean of the children's centres; ``C`` = **sum** of the
  children's matrices about that point (Klamp't's rule, not a mass-weighted combination).
* a mesh loaded from a multi-mesh file (``extras["parts"]``: face offsets of the parts)
  counts as the group of its parts, as Klamp't loads such files into a Group.

Degenerate input (no triangles, zero total area or volume, no points, missing geometry)
gives ``com`` = mean of the vertices (or 0) and ``C = 0`` instead of Klamp't's division by
zero. Primitives under a non-rigid transform (which Klamp't refuses) use the box bounding
the transformed primitive.
"""
from __future__ import annotations

import numpy as np

from ..transforms import compose, matrix_vector, transform_points, vector_dot, vector_norm
from .geometry import Geometry, Group, PointCloud, Primitive, TriangleMesh

__all__ = ["geometry_moments", "inertia_from_moments", "mass_properties",
           "mesh_center", "mesh_second_moment"]


def inertia_from_moments(mass: float, C) -> np.ndarray:
    """Inertia tensor (kg m^2, about the COM) of ``mass`` (kg) with second moments ``C``."""
    C = np.asarray(C, dtype=float)
    return mass * (np.trace(C) * np.eye(3) - C)


def mass_properties(geom: Geometry, mass: float, surface_fraction: float = 1.0):
    """``(com, inertia)`` of ``geom`` carrying ``mass``, in its owner frame."""
    com, C = geometry_moments(geom, surface_fraction)
    return com, inertia_from_moments(mass, C)


def geometry_moments(geom: Geometry, surface_fraction: float = 1.0, about=None):
    """``(com (3,), C (3,3))`` of ``geom`` in its owner frame (see module docstring).

    ``about``: a point (owner frame) to take ``C`` about instead of ``com``, as Klamp't's
    ``autoMass`` does when a ``com`` is given (for primitives ``C`` does not depend on it).
    """
    com = _center(geom, np.eye(4), surface_fraction)
    p = com if about is None else np.asarray(about, dtype=float)
    return com, _moment(geom, np.eye(4), p, surface_fraction)


# -- triangle meshes ---------------------------------------------------------------------

def _corners(V, F):
    return V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]


def mesh_center(V: np.ndarray, F: np.ndarray, f: float = 1.0) -> np.ndarray:
    """Klamp't's ``CenterOfMass(TriMesh, surfaceFraction)``."""
    V = np.asarray(V, float)
    F = np.asarray(F, np.int64).reshape(-1, 3)
    if len(F) == 0:
        return np.zeros(3)
    a, b, c = _corners(V, F)
    center = np.zeros(3)
    if f != 0:
        area = 0.5 * vector_norm(np.cross(b - a, c - a))
        total = area.sum()
        if total == 0:
            return V[np.unique(F)].mean(axis=0)
        center += f * _weighted_sum(area, a + b + c) / (3.0 * total)
    if f != 1:
        centroid = V.mean(axis=0)
        vol = vector_dot(a - centroid, np.cross(b - centroid, c - centroid)) / 6.0
        total = vol.sum()
        if total == 0:
            return V[np.unique(F)].mean(axis=0)
        center += (1.0 - f) * _weighted_sum(vol, a + b + c + centroid) / (4.0 * total)
    return center


def mesh_second_moment(V: np.ndarray, F: np.ndarray, p, f: float = 1.0) -> np.ndarray:
    """Klamp't's ``Covariance(TriMesh, center, surfaceFraction)``: second moment about
    ``p`` per unit area (surface part) and per unit signed volume (solid part)."""
    V = np.asarray(V, float)
    F = np.asarray(F, np.int64).reshape(-1, 3)
    C = np.zeros((3, 3))
    if len(F) == 0:
        return C
    a, b, c = (x - np.asarray(p, float) for x in _corners(V, F))
    if f != 0:
        area = 0.5 * vector_norm(np.cross(b - a, c - a))
        total = area.sum()
        if total > 0:
            # exact: integral of x x^T over a triangle = area/12 (sum vi vi^T + s s^T), s = a+b+c
            s = a + b + c
            w = area / 12.0
            S = _outer_sum(w, a) + _outer_sum(w, b) + _outer_sum(w, c) + _outer_sum(w, s)
            C += f * S / total
    if f != 1:
        vol = vector_dot(a, np.cross(b, c)) / 6.0
        total = vol.sum()
        if total != 0:
            # tetrahedron (0, a, b, c): integral of x x^T = vol/20 (sum vi vi^T + s s^T)
            s = a + b + c
            w = vol / 20.0
            S = _outer_sum(w, a) + _outer_sum(w, b) + _outer_sum(w, c) + _outer_sum(w, s)
            C += (1.0 - f) * S / total
    return C


def _mesh_parts(m: TriangleMesh):
    """Face ranges of the meshes a multi-mesh file held (one range for ordinary meshes)."""
    parts = m.extras.get("parts") if isinstance(m.extras, dict) else None
    if not parts or len(parts) < 2:
        return None
    bounds = list(parts) + [len(m.faces)]
    return [(bounds[i], bounds[i + 1]) for i in range(len(parts))]


def _part_vertices(V, F):
    """A part's own vertex array (so the solid part's 'mean of all vertices' is the part's)."""
    used, inv = np.unique(F, return_inverse=True)
    return V[used], inv.reshape(F.shape)


# -- primitives ----------------------------------------------------------------------------

def _unit(v):
    v = np.asarray(v, float)
    n = float(vector_norm(v))
    return v / n if n > 0 else v


def _disc_halfwidths(A: np.ndarray, axis, r: float) -> np.ndarray:
    """Half-extents of the image under linear map ``A`` of a disc of radius ``r`` normal to
    ``axis`` (for a rotation this is Klamp't's ``r * sqrt(1 - n_i^2)``)."""
    n = _unit(axis)
    u = np.cross(n, [1.0, 0.0, 0.0])
    if vector_norm(u) < 1e-6:
        u = np.cross(n, [0.0, 1.0, 0.0])
    u = _unit(u)
    w = np.cross(n, u)
    return r * np.sqrt(matrix_vector(A, u) ** 2 + matrix_vector(A, w) ** 2)


def primitive_aabb(p: Primitive, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Axis-aligned box of primitive ``p`` after the affine map ``T`` (Klamp't's
    ``GetAABB`` after ``Transform``)."""
    A, t = T[:3, :3], T[:3, 3]
    q, k = p.params, p.primitive
    if k == "Sphere":
        c = matrix_vector(A, q["center"]) + t
        h = q["radius"] * vector_norm(A)
        return c - h, c + h
    if k == "Ellipsoid":
        axes = np.stack([q["xaxis"], q["yaxis"], q["zaxis"]], axis=1) * q["dims"]
        M = compose(A, axes)
        c = matrix_vector(A, q["center"]) + t
        h = vector_norm(M)
        return c - h, c + h
    if k in ("Cylinder", "Cone", "Capsule"):
        r, hgt = q["radius"], q["height"]
        n = _unit(q["axis"])
        base = matrix_vector(A, q["center"]) + t
        top = base + matrix_vector(A, n * hgt)
        hw = _disc_halfwidths(A, n, r)
        if k == "Capsule":    # hemispherical caps of radius r around both ends
            hw = r * vector_norm(A)
        lo = np.minimum(base, top) - hw
        hi = np.maximum(base, top) + hw
        if k == "Cone":       # apex has no width
            lo = np.minimum(base - hw, top)
            hi = np.maximum(base + hw, top)
        return lo, hi
    pts = p.copy()
    pts.transform = np.eye(4)
    corners = pts.sample_points()
    world = transform_points(T, corners)
    return world.min(axis=0), world.max(axis=0)


# -- dispatch -----------------------------------------------------------------------------

def _affine(T, pts):
    return transform_points(T, np.asarray(pts, float))


def _weighted_sum(w, X) -> np.ndarray:
    """``sum_n w_n X_n`` of ``(N,)`` weights and ``(N, 3)`` rows (no BLAS: the same bits on
    any machine; numpy's pairwise summation of contiguous columns)."""
    return np.array([np.sum(w * X[:, k]) for k in range(3)])


def _outer_sum(w, X) -> np.ndarray:
    """``sum_n w_n X_n X_n^T`` (3x3) without einsum or BLAS."""
    cols = [np.ascontiguousarray(X[:, k]) for k in range(3)]
    out = np.empty((3, 3))
    for i in range(3):
        wi = w * cols[i]
        for j in range(i, 3):
            out[i, j] = out[j, i] = np.sum(wi * cols[j])
    return out


def _center(g: Geometry, T: np.ndarray, f: float) -> np.ndarray:
    T = compose(T, g.transform)
    if g.missing:
        return np.zeros(3)
    if isinstance(g, TriangleMesh):
        V, F = _affine(T, g.vertices), g.faces
        parts = _mesh_parts(g)
        if parts is None:
            return mesh_center(V, F, f)
        return np.mean([mesh_center(*_part_vertices(V, F[a:b]), f) for a, b in parts], axis=0)
    if isinstance(g, PointCloud):
        pts = _affine(T, g.points)
        return pts.mean(axis=0) if len(pts) else np.zeros(3)
    if isinstance(g, Primitive):
        lo, hi = primitive_aabb(g, T)
        return 0.5 * (lo + hi)
    if isinstance(g, Group):
        if not g.children:
            return np.zeros(3)
        return np.mean([_center(c, T, f) for c in g.children], axis=0)
    raise TypeError(f"no mass properties for {type(g).__name__}")


def _moment(g: Geometry, T: np.ndarray, p: np.ndarray, f: float) -> np.ndarray:
    """Klamp't's ``Covariance(geometry, center=p)``."""
    T = compose(T, g.transform)
    if g.missing:
        return np.zeros((3, 3))
    if isinstance(g, TriangleMesh):
        V, F = _affine(T, g.vertices), g.faces
        parts = _mesh_parts(g)
        if parts is None:
            return mesh_second_moment(V, F, p, f)
        return sum(mesh_second_moment(*_part_vertices(V, F[a:b]), p, f) for a, b in parts)
    if isinstance(g, PointCloud):
        d = _affine(T, g.points) - p
        return _outer_sum(np.ones(len(d)), d) / len(d) if len(d) else np.zeros((3, 3))
    if isinstance(g, Primitive):
        lo, hi = primitive_aabb(g, T)
        return np.diag((hi - lo) ** 2 / 12.0)
    if isinstance(g, Group):
        return sum((_moment(c, T, p, f) for c in g.children), np.zeros((3, 3)))
    raise TypeError(f"no mass properties for {type(g).__name__}")
