"""roboio primitives as MuJoCo geoms (sphere, ellipsoid, box, cylinder, capsule).

:func:`primitive_geom` maps a :class:`~roboio.model.Primitive` placed by an affine map onto
the MuJoCo geom of exactly the same shape, when there is one: the map may rotate, translate,
mirror and scale, as long as the primitive's own axes stay orthogonal (spheres may stretch
into ellipsoids; cylinders keep round sections; capsules need a uniform scale). Other
primitives (cones, flat shapes, sheared ones) return None and are written as meshes.

MuJoCo sizes: sphere ``r``; ellipsoid ``rx ry rz``; box half-sizes ``hx hy hz``; cylinder
and capsule ``r h/2``, centred on their centre, along their z axis.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...model import Primitive, TriangleMesh
from ...transforms import compose, det3, make_transform, rotation_between, transform_points, vector_norm

__all__ = ["primitive_geom"]

_REL = 1e-12


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= _REL * max(abs(a), abs(b))


def _shape(p: Primitive):
    """(frame 3x3, centre (3,), local half-sizes or radii (3,)) of the primitive, or None."""
    q, k = p.params, p.primitive
    if k == "Sphere":
        r = q["radius"]
        return np.eye(3), q["center"], np.array([r, r, r])
    if k == "Ellipsoid":
        return np.stack([q["xaxis"], q["yaxis"], q["zaxis"]], axis=1), q["center"], np.asarray(q["dims"], float)
    if k == "AABB":
        lo, hi = np.asarray(q["bmin"], float), np.asarray(q["bmax"], float)
        return np.eye(3), (lo + hi) / 2, (hi - lo) / 2
    if k == "Box":
        B = np.stack([q["xaxis"], q["yaxis"], q["zaxis"]], axis=1)
        d = np.asarray(q["dims"], float)
        return B, np.asarray(q["origin"], float) + compose(B, (d / 2).reshape(3, 1))[:, 0], d / 2
    if k in ("Cylinder", "Capsule"):
        axis = np.asarray(q["axis"], float)
        n = float(vector_norm(axis))
        if n == 0:
            return None
        a = axis / n
        r, h = q["radius"], q["height"]
        return rotation_between([0.0, 0.0, 1.0], a), np.asarray(q["center"], float) + a * h / 2, \
            np.array([r, r, h / 2])
    return None


def primitive_geom(p: Primitive, M) -> Optional[tuple]:
    """``(type, size list, pose 4x4)`` of the MuJoCo geom equal to ``p`` placed by the
    affine ``M`` (4x4, primitive data -> owner frame), or None when MuJoCo has no such
    geom."""
    shape = _shape(p)
    if shape is None:
        return None
    F, c, half = shape
    M = np.asarray(M, float)
    N = compose(M[:3, :3], F)
    k = vector_norm(N.T)
    if np.any(k == 0) or not np.all(np.isfinite(N)):
        return None
    k[np.abs(k - 1) <= _REL] = 1.0      # a rotation's columns: unit to rounding, no scale
    R = N / k
    if np.abs(compose(R.T, R) - np.eye(3)).max() > _REL * 10:
        return None
    if det3(R) < 0:            # shapes here are mirror-symmetric about their x axis
        R[:, 0] = -R[:, 0]
    size = np.abs(half) * k
    if np.any(size <= 0) or not np.all(np.isfinite(size)):
        return None
    pose = make_transform(R, transform_points(M, np.asarray(c, float)))
    kind = p.primitive
    if kind == "Sphere":
        if _same(size[0], size[1]) and _same(size[0], size[2]):
            return "sphere", [size[0]], pose
        return "ellipsoid", list(size), pose
    if kind == "Ellipsoid":
        return "ellipsoid", list(size), pose
    if kind in ("AABB", "Box"):
        return "box", list(size), pose
    if kind == "Cylinder":
        if not _same(size[0], size[1]):
            return None
        return "cylinder", [size[0], size[2]], pose
    # Capsule: hemispherical caps need one scale for radius and length
    if not (_same(k[0], k[1]) and _same(k[0], k[2])):
        return None
    return "capsule", [size[0], size[2]], pose


def plane_geom(g, M) -> Optional[tuple]:
    """``(size, pose 4x4)`` of the MuJoCo plane an MJCF reading made the mesh ``g`` from
    (``g.extras["mjcf"]``: type ``plane`` and its ``size``), placed by the rigid ``M``
    (mesh data -> owner frame), while ``g`` is still the square the plane became (its half
    sizes, or any square for an infinite plane of size 0); else None."""
    info = g.extras.get("mjcf") if isinstance(g, TriangleMesh) else None
    if not info or info.get("type") != "plane" or not info.get("size"):
        return None
    size = [float(v) for v in info["size"]]
    V, F = np.asarray(g.vertices, float), np.asarray(g.faces)
    if V.shape != (4, 3) or F.shape != (2, 3) or not np.array_equal(F, [[0, 1, 2], [0, 2, 3]]):
        return None
    hx, hy = V[2, 0], V[2, 1]
    square = [[-hx, -hy, 0.0], [hx, -hy, 0.0], [hx, hy, 0.0], [-hx, hy, 0.0]]
    if not (hx > 0 and hy > 0 and np.array_equal(V, square)):
        return None
    if (size[0] > 0 and hx != size[0]) or (size[1] > 0 and hy != size[1]):
        return None
    M = np.asarray(M, float)
    R = M[:3, :3]
    if np.abs(compose(R.T, R) - np.eye(3)).max() > _REL * 10 or det3(R) <= 0:
        return None
    return size, make_transform(R, M[:3, 3])
