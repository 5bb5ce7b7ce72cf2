"""Tight axis-aligned bounds of roboio geometry under an affine 4x4 map.

Meshes and point clouds bound their points; flat primitives their corners; round
primitives (spheres, cylinders, ellipsoids, capsules, cones) are bounded exactly, not by
the corners of a box around them.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...model import Group, PointCloud, Primitive, TriangleMesh

__all__ = ["bounds"]


def bounds(geom, T=None) -> Optional[np.ndarray]:
    """``[[xmin, ymin, zmin], [xmax, ymax, zmax]]`` of ``geom`` (data mapped by its own
    ``transform`` and then by ``T``), or None when it is empty."""
    T = np.eye(4) if T is None else np.asarray(T, dtype=float)
    boxes = list(_boxes(geom, T))
    if not boxes:
        return None
    lo = np.min([b[0] for b in boxes], axis=0)
    hi = np.max([b[1] for b in boxes], axis=0)
    return np.stack([lo, hi])


def _points_box(pts):
    pts = np.asarray(pts, dtype=float).reshape(-1, 3)
    if len(pts) == 0:
        return None
    return pts.min(axis=0), pts.max(axis=0)


def _apply(M, pts):
    return np.asarray(pts, dtype=float).reshape(-1, 3) @ M[:3, :3].T + M[:3, 3]


def _boxes(geom, T):
    if geom is None or geom.missing:
        return
    M = T @ geom.transform
    if isinstance(geom, Group):
        for child in geom.children:
            yield from _boxes(child, M)
    elif isinstance(geom, TriangleMesh):
        box = _points_box(_apply(M, geom.vertices))
        if box is not None:
            yield box
    elif isinstance(geom, PointCloud):
        box = _points_box(_apply(M, geom.points))
        if box is not None:
            yield box
    elif isinstance(geom, Primitive):
        yield from _primitive_boxes(geom, T)


def _disc_extent(A, axis, radius):
    """Half extents of the image under linear ``A`` of a disc of ``radius`` perpendicular
    to ``axis``."""
    a = np.asarray(axis, dtype=float)
    a = a / max(np.linalg.norm(a), 1e-300)
    helper = np.array([1.0, 0, 0]) if abs(a[0]) < 0.9 else np.array([0, 1.0, 0])
    u = np.cross(a, helper)
    u /= np.linalg.norm(u)
    v = np.cross(a, u)
    return radius * np.hypot(A @ u, A @ v)


def _sphere_extent(A, radius):
    return radius * np.linalg.norm(A, axis=1)


def _primitive_boxes(prim, T):
    p, k = prim.params, prim.primitive
    M = T @ prim.transform
    A = M[:3, :3]

    def around(center, half):
        c = _apply(M, center)[0]
        return c - half, c + half

    if k == "Sphere":
        yield around(p["center"], _sphere_extent(A, p["radius"]))
    elif k == "Ellipsoid":
        axes = np.stack([p["xaxis"], p["yaxis"], p["zaxis"]], axis=1) * p["dims"]
        yield around(p["center"], np.linalg.norm(A @ axes, axis=1))
    elif k in ("Cylinder", "Cone", "Capsule"):
        a = np.asarray(p["axis"], dtype=float)
        a = a / max(np.linalg.norm(a), 1e-300)
        r, h = p["radius"], p["height"]
        base, top = p["center"], p["center"] + a * h
        if k == "Capsule":
            ext = _sphere_extent(A, r)
            yield around(base, ext)
            yield around(top, ext)
        else:
            ext = _disc_extent(A, a, r)
            yield around(base, ext)
            yield (around(top, ext) if k == "Cylinder" else around(top, np.zeros(3)))
    else:   # flat or polyhedral: the model's sample points are its exact vertices
        box = _points_box(_apply(T, prim.sample_points()))
        if box is not None:
            yield box
