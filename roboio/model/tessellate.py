"""Triangle meshes of analytic shapes, for the Inventor/VRML reader (Cube, Sphere, Cylinder,
Cone: centred at the origin along Y) and for writing Klamp't primitives into mesh-only
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
from ..transforms import rotation_between

__all__ = ["SEGMENTS", "box", "sphere", "capsule", "cylinder", "cone", "primitive_to_mesh"]

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
def primitive_to_mesh(p: Primitive) -> TriangleMesh:
    """The primitive as a triangle mesh, in its data frame. Cylinders, cones and capsules
    start at their base centre and extend ``height`` along their axis."""
    k, q = p.primitive, p.params
    if k in ("AABB", "Box"):
        if k == "AABB":
            origin, axes, dims = q["bmin"], np.eye(3), q["bmax"] - q["bmin"]
        else:
            origin, axes, dims = q["origin"], np.stack([q["xaxis"], q["yaxis"], q["zaxis"]], axis=1), q["dims"]
        return TriangleMesh(origin + (_CORNER_BITS * dims) @ axes.T, _BOX_FACES.copy())
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
        return TriangleMesh((v * q["dims"]) @ axes.T + q["center"], f)
    r, h = q["radius"], q["height"]
    if k == "Cylinder":
        v, f = cylinder(r, h, up=2)
    elif k == "Cone":
        v, f = cone(r, h, up=2)
    else:  # Capsule: the cylinder part from the base centre up h along the axis
        v, f = capsule(r, h, up=2)
    v = (v + [0.0, 0.0, h / 2.0]) @ rotation_between([0.0, 0.0, 1.0], q["axis"]).T + q["center"]
    return TriangleMesh(v, f)
