"""Triangle meshes of primitives, for writing primitives into mesh-only formats.

Boxes, AABBs, triangles and polygons are exact; spheres, ellipsoids, cylinders, cones and
capsules are approximations (the writers report them as lost detail). Points and segments
have no surface (no triangles). Coordinates are in the primitive's data frame.
"""
from __future__ import annotations

import numpy as np
import trimesh

from ...model import Primitive, TriangleMesh

__all__ = ["primitive_to_mesh"]

SECTIONS = 32          # segments around circular primitives
SPHERE_SUBDIVISIONS = 3

_BOX_FACES = np.array([[0, 1, 2], [1, 3, 2], [4, 6, 5], [5, 6, 7], [0, 4, 1], [1, 4, 5],
                       [2, 3, 6], [3, 7, 6], [0, 2, 4], [2, 6, 4], [1, 5, 3], [3, 5, 7]])  # outward
_UNIT_CORNERS = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], float)


def _frame_to_axis(axis) -> np.ndarray:
    """Rotation taking +z to the unit vector along ``axis``."""
    a = np.asarray(axis, float)
    n = np.linalg.norm(a)
    if n == 0:
        return np.eye(3)
    return trimesh.geometry.align_vectors([0, 0, 1], a / n)[:3, :3]


def primitive_to_mesh(p: Primitive) -> TriangleMesh:
    k, q = p.primitive, p.params
    if k in ("AABB", "Box"):
        if k == "AABB":
            origin, axes, dims = q["bmin"], np.eye(3), q["bmax"] - q["bmin"]
        else:
            origin, axes, dims = q["origin"], np.stack([q["xaxis"], q["yaxis"], q["zaxis"]], axis=1), q["dims"]
        v = origin + (_UNIT_CORNERS * dims) @ axes.T
        return TriangleMesh(v, _BOX_FACES.copy())
    if k == "Triangle":
        return TriangleMesh(np.stack([q["a"], q["b"], q["c"]]), [[0, 1, 2]])
    if k == "Polygon":
        v = np.asarray(q["vertices"], float).reshape(-1, 3)
        n = len(v)
        f = [[0, i, i + 1] for i in range(1, n - 1)]
        return TriangleMesh(v, np.array(f, dtype=np.int64).reshape(-1, 3))
    if k in ("Point", "Segment"):
        pts = q["center"][None] if k == "Point" else np.stack([q["a"], q["b"]])
        return TriangleMesh(pts, np.zeros((0, 3), np.int64))
    if k in ("Sphere", "Ellipsoid"):
        s = trimesh.creation.icosphere(SPHERE_SUBDIVISIONS)
        if k == "Sphere":
            v = s.vertices * q["radius"] + q["center"]
        else:
            axes = np.stack([q["xaxis"], q["yaxis"], q["zaxis"]], axis=1)
            v = (s.vertices * q["dims"]) @ axes.T + q["center"]
        return TriangleMesh(v, np.asarray(s.faces))
    r, h = q["radius"], q["height"]
    if k == "Cylinder":
        m = trimesh.creation.cylinder(radius=r, height=h, sections=SECTIONS)
        shift = h / 2.0
    elif k == "Cone":
        m = trimesh.creation.cone(radius=r, height=h, sections=SECTIONS)
        shift = 0.0
    else:  # Capsule: cylinder part from the base centre up h along the axis
        m = trimesh.creation.capsule(height=h, radius=r, count=[SECTIONS, SECTIONS])
        shift = h / 2.0
    v = np.asarray(m.vertices) + [0.0, 0.0, shift]
    v = v @ _frame_to_axis(q["axis"]).T + q["center"]
    return TriangleMesh(v, np.asarray(m.faces))
