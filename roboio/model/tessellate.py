"""Triangle meshes of analytic shapes, for the Inventor/VRML reader (Cube, Sphere, Cylinder,
Cone: centred at the origin along Y; VRML97 Extrusion, shared with Choreonoid bodies) and for
writing Klamp't primitives into mesh-only
formats (:func:`primitive_to_mesh`: along the primitive's axis from its base centre).

Round shapes are built around coordinate ``up`` (1: Y, as in Inventor and VRML; 2: Z) with
:data:`SEGMENTS` segments (spheres with ``SEGMENTS // 2`` stacks). A ring starts on
coordinate ``up + 1`` (mod 3) and turns counter-clockwise seen from +``up``, so triangles
wind counter-clockwise seen from outside whatever the axis. Each function returns
``(vertices (V, 3), faces (F, 3))``.

Boxes, AABBs, triangles and polygons are exact; spheres, ellipsoids, cylinders, cones and
capsules are approximations (the writers report them as lost detail). Points and segments
have no surface (no triangles).
"""
from __future__ import annotations

import numpy as np

from .geometry import Primitive, TriangleMesh
from ..transforms import axis_angle_to_matrix, compose, matrix_vector, rotation_between, vector_dot, vector_norm

__all__ = ["SEGMENTS", "box", "sphere", "capsule", "cylinder", "cone", "extrusion",
           "extrusion_triangles", "primitive_to_mesh"]

SEGMENTS = 32

# corner k of a box is (x, y, z) = bits (4, 2, 1) of k: 0 = (-,-,-) ... 7 = (+,+,+)
_CORNER_BITS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
_BOX_FACES = np.array([[0, 1, 3], [0, 3, 2],      # -x
                       [4, 6, 7], [4, 7, 5],      # +x
                       [0, 4, 5], [0, 5, 1],      # -y
                       [2, 3, 7], [2, 7, 6],      # +y
                       [0, 2, 6], [0, 6, 4],      # -z
                       [1, 5, 7], [1, 7, 3]],     # +z
                      dtype=np.int64)


def box(sx: float, sy: float, sz: float):
    """Box of full sizes (sx, sy, sz) centred at the origin: 8 vertices, 12 triangles."""
    return (2 * _CORNER_BITS - 1) * (np.array([sx, sy, sz], float) / 2.0), _BOX_FACES.copy()


def _ring(radius: float, h: float, n: int, up: int) -> np.ndarray:
    phi = 2.0 * np.pi * np.arange(n) / n
    v = np.empty((n, 3))
    v[:, up] = h
    v[:, (up + 1) % 3] = radius * np.cos(phi)
    v[:, (up + 2) % 3] = radius * np.sin(phi)
    return v


def _point(h: float, up: int) -> np.ndarray:
    v = np.zeros((1, 3))
    v[0, up] = h
    return v


def _ring_band(lower: int, upper: int, n: int) -> np.ndarray:
    """Two triangles per segment between two rings of ``n`` vertices (outward winding)."""
    j = np.arange(n)
    k = (j + 1) % n
    return np.concatenate([np.stack([lower + j, lower + k, upper + k], axis=1),
                           np.stack([lower + j, upper + k, upper + j], axis=1)])


def _cap(center: int, ring: int, n: int, up: bool) -> np.ndarray:
    j = np.arange(n)
    k = (j + 1) % n
    c = np.full(n, center)
    return np.stack([c, ring + j, ring + k] if up else [c, ring + k, ring + j], axis=1)


def _closed_lathe(rings: list, top: float, bottom: float, n: int, up: int):
    """A closed surface of revolution: a pole at ``top``, ``rings`` (each ``(radius,
    height)``, top to bottom), a pole at ``bottom``."""
    v = np.concatenate([_point(top, up), *(_ring(r, h, n, up) for r, h in rings),
                        _point(bottom, up)])
    last = len(v) - 1
    faces = [_cap(0, 1, n, up=True)]
    faces += [_ring_band(1 + (i + 1) * n, 1 + i * n, n) for i in range(len(rings) - 1)]
    faces.append(_cap(last, 1 + (len(rings) - 1) * n, n, up=False))
    return v, np.concatenate(faces)


def _rings(radius: float, stacks: int) -> list:
    """``(radius, height)`` of a sphere's rings from the top pole down, poles excluded."""
    theta = np.pi * np.arange(1, stacks) / stacks
    return list(zip(radius * np.sin(theta), radius * np.cos(theta)))


def sphere(radius: float, n: int = SEGMENTS, up: int = 1):
    """Sphere centred at the origin, poles on the ``up`` axis (UV sphere)."""
    return _closed_lathe(_rings(radius, max(n // 2, 2)), radius, -radius, n, up)


def capsule(radius: float, height: float, n: int = SEGMENTS, up: int = 1):
    """Cylinder of length ``height`` centred at the origin with hemispherical ends: a
    sphere's rings, the upper half moved up ``height / 2``, the lower half down (the
    equator ring belongs to both halves)."""
    h = height / 2.0
    half = max(n // 4, 1)
    rings = _rings(radius, 2 * half)                   # ring half - 1 is the equator
    return _closed_lathe([(r, y + h) for r, y in rings[:half]] +
                         [(r, y - h) for r, y in rings[half - 1:]], radius + h, -radius - h, n, up)


def cylinder(radius: float, height: float, sides=True, top=True, bottom=True,
             n: int = SEGMENTS, up: int = 1):
    """Cylinder centred at the origin along ``up``; ``sides``/``top``/``bottom`` choose the
    parts (Inventor ``parts``, VRML ``side``/``top``/``bottom``)."""
    h = height / 2.0
    v = np.concatenate([_ring(radius, -h, n, up), _ring(radius, h, n, up),
                        _point(-h, up), _point(h, up)])
    faces = []
    if sides:
        faces.append(_ring_band(0, n, n))
    if top:
        faces.append(_cap(2 * n + 1, n, n, up=True))
    if bottom:
        faces.append(_cap(2 * n, 0, n, up=False))
    return v, (np.concatenate(faces) if faces else np.zeros((0, 3), np.int64))


def cone(bottom_radius: float, height: float, sides=True, bottom=True,
         n: int = SEGMENTS, up: int = 1):
    """Cone centred at the origin along ``up``: base disc at ``-height/2``, apex at
    ``+height/2``."""
    h = height / 2.0
    v = np.concatenate([_ring(bottom_radius, -h, n, up), _point(h, up), _point(-h, up)])
    faces = []
    if sides:
        faces.append(_cap(n, 0, n, up=True))
    if bottom:
        faces.append(_cap(n + 1, 0, n, up=False))
    return v, (np.concatenate(faces) if faces else np.zeros((0, 3), np.int64))


# -- Klamp't primitives -------------------------------------------------------------------
def _scp(spine: np.ndarray) -> np.ndarray:
    """(n, 3, 3) columns X, Y, Z of the spine-aligned cross-section plane per spine point
    (VRML97 Extrusion)."""
    n = len(spine)
    closed = n > 2 and np.allclose(spine[0], spine[-1])
    ys, zs = np.zeros((n, 3)), np.zeros((n, 3))
    for i in range(n):
        prev_i = i - 1 if i > 0 else (n - 2 if closed else 0)
        next_i = i + 1 if i < n - 1 else (1 if closed else n - 1)
        ys[i] = spine[next_i] - spine[prev_i]
        if 0 < i < n - 1 or closed:
            zs[i] = np.cross(spine[next_i] - spine[i], spine[prev_i] - spine[i])
    ny = vector_norm(ys)
    nz = vector_norm(zs)
    if np.all(nz < 1e-12):                       # collinear spine: rotate +y onto the spine
        d = spine[-1] - spine[0]
        nd = float(vector_norm(d))
        d = d / nd if nd > 0 else np.array([0.0, 1.0, 0.0])
        axis = np.cross([0.0, 1.0, 0.0], d)
        s, c = float(vector_norm(axis)), d[1]
        R = np.eye(3) if s < 1e-12 and c > 0 else (
            axis_angle_to_matrix([1.0, 0.0, 0.0], np.pi) if s < 1e-12 else
            axis_angle_to_matrix(axis / s, np.arctan2(s, c)))
        return np.repeat(R[None], n, axis=0)
    good = np.flatnonzero(nz >= 1e-12)
    for i in range(n):                           # undefined Z: use the nearest defined one
        if nz[i] < 1e-12:
            zs[i] = zs[good[np.argmin(np.abs(good - i))]]
    if not closed and n > 2:
        zs[0], zs[-1] = zs[1], zs[-2]
    for i in range(1, n):                        # keep Z from flipping
        if vector_dot(zs[i], zs[i - 1]) < 0:
            zs[i] = -zs[i]
    ys = ys / np.where(ny > 0, ny, 1.0)[:, None]
    zs = zs / vector_norm(zs)[:, None]
    xs = np.cross(ys, zs)
    return np.stack([xs, ys, zs], axis=2)


def extrusion_triangles(n_spine: int, n_cross: int) -> int:
    """How many triangles :func:`extrusion` makes at most (to check a budget first)."""
    return 2 * max(n_spine - 1, 0) * max(n_cross - 1, 0) + 2 * max(n_cross - 2, 0)


def extrusion(cross_section, spine, scale=((1.0, 1.0),), orientation=((0.0, 0.0, 1.0, 0.0),),
              begin_cap: bool = True, end_cap: bool = True):
    """A VRML97 ``Extrusion``: the 2-D ``cross_section`` (x, z pairs) scaled (``scale``, one
    pair per spine point or one for all), rotated (``orientation``, axis-angle in radians,
    likewise), placed in the spine-aligned cross-section plane of each ``spine`` point and
    joined into a tube; the caps close it (fan triangulation: exact for convex cross
    sections). Fewer than two spine or cross-section points make no triangles."""
    cross = np.asarray(cross_section, float).reshape(-1, 2)
    spine = np.asarray(spine, float).reshape(-1, 3)
    scale = np.asarray(scale, float).reshape(-1, 2)
    orient = np.asarray(orientation, float).reshape(-1, 4)
    n, m = len(spine), len(cross)
    if n < 2 or m < 2:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64)
    scale = np.resize(scale, (n, 2)) if len(scale) != n else scale
    orient = np.resize(orient, (n, 4)) if len(orient) != n else orient
    scp = _scp(spine)
    verts = np.zeros((n, m, 3))
    for i in range(n):
        local = np.zeros((m, 3))
        local[:, 0] = cross[:, 0] * scale[i, 0]
        local[:, 2] = cross[:, 1] * scale[i, 1]
        ax = orient[i, :3]
        R = axis_angle_to_matrix(ax, orient[i, 3]) if vector_norm(ax) > 0 else np.eye(3)
        verts[i] = spine[i] + matrix_vector(compose(scp[i], R), local)
    idx = np.arange(n * m).reshape(n, m)
    a, b = idx[:-1, :-1].ravel(), idx[:-1, 1:].ravel()
    c, d = idx[1:, :-1].ravel(), idx[1:, 1:].ravel()
    faces = [np.stack([a, b, d], 1), np.stack([a, d, c], 1)]
    ring = m - 1 if np.allclose(cross[0], cross[-1]) else m
    if begin_cap and ring >= 3:
        r = idx[0, :ring]
        faces.append(np.stack([np.full(ring - 2, r[0]), r[2:], r[1:-1]], 1))
    if end_cap and ring >= 3:
        r = idx[-1, :ring]
        faces.append(np.stack([np.full(ring - 2, r[0]), r[1:-1], r[2:]], 1))
    return verts.reshape(-1, 3), np.concatenate(faces).astype(np.int64)


def primitive_to_mesh(p: Primitive) -> TriangleMesh:
    """The primitive as a triangle mesh, in its data frame. Cylinders, cones and capsules
    start at their base centre and extend ``height`` along their axis."""
    k, q = p.primitive, p.params
    if k in ("AABB", "Box"):
        if k == "AABB":
            origin, axes, dims = q["bmin"], np.eye(3), q["bmax"] - q["bmin"]
        else:
            origin, axes, dims = q["origin"], np.stack([q["xaxis"], q["yaxis"], q["zaxis"]], axis=1), q["dims"]
        return TriangleMesh(origin + matrix_vector(axes, _CORNER_BITS * dims), _BOX_FACES.copy())
    if k == "Triangle":
        return TriangleMesh(np.stack([q["a"], q["b"], q["c"]]), [[0, 1, 2]])
    if k == "Polygon":
        v = np.asarray(q["vertices"], float).reshape(-1, 3)
        f = [[0, i, i + 1] for i in range(1, len(v) - 1)]
        return TriangleMesh(v, np.array(f, dtype=np.int64).reshape(-1, 3))
    if k in ("Point", "Segment"):
        pts = q["center"][None] if k == "Point" else np.stack([q["a"], q["b"]])
        return TriangleMesh(pts, np.zeros((0, 3), np.int64))
    if k == "Sphere":
        v, f = sphere(q["radius"], up=2)
        return TriangleMesh(v + q["center"], f)
    if k == "Ellipsoid":
        v, f = sphere(1.0, up=2)
        axes = np.stack([q["xaxis"], q["yaxis"], q["zaxis"]], axis=1)
        return TriangleMesh(matrix_vector(axes, v * q["dims"]) + q["center"], f)
    r, h = q["radius"], q["height"]
    if k == "Cylinder":
        v, f = cylinder(r, h, up=2)
    elif k == "Cone":
        v, f = cone(r, h, up=2)
    else:  # Capsule: the cylinder part from the base centre up h along the axis
        v, f = capsule(r, h, up=2)
    v = matrix_vector(rotation_between([0.0, 0.0, 1.0], q["axis"]), v + [0.0, 0.0, h / 2.0]) + q["center"]
    return TriangleMesh(v, f)
