"""Queries between two placed geometries: :func:`collides`, :func:`distance`,
:func:`within_distance`, :func:`ray_cast`.

A geometry is any roboio geometry (mesh, point cloud, primitive, group; see
:mod:`roboio.collision.shapes` for what each is to the engine); ``pose`` places its owner
frame in the world (4x4 rigid, default identity). Klamp't's semantics: two geometries
collide when their distance is at most the sum of their margins; distances are the engine's
exact distance minus both margins (negative: penetration depth, where the engine gives one).

The engine objects of a geometry are made once and kept while the geometry object lives
(:func:`cached_parts`); they are made again when its transform, margin, data arrays or
children are replaced (not when an array is edited in place).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .engine import get_engine
from .shapes import parts_of

__all__ = ["collides", "distance", "within_distance", "ray_cast", "DistanceResult",
           "cached_parts"]

_EYE4 = np.eye(4)
_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


@dataclass
class DistanceResult:
    """``distance`` (m, margins subtracted; inf when either geometry is empty), and the
    closest points of each geometry in the world frame (None when empty)."""

    distance: float
    point_a: Optional[np.ndarray]
    point_b: Optional[np.ndarray]


def _signature(g, refs: list, depth: int = 0) -> tuple:
    """What the parts of ``g`` depend on: identities of its arrays (kept alive in ``refs``,
    so that an id cannot be reused) and its values."""
    if depth > 64:
        raise ValueError("geometry groups nested deeper than 64 levels")
    refs.append(g.transform)
    sig = (id(g), id(g.transform), float(g.margin), bool(getattr(g, "missing", False)), g.kind)
    if g.kind == "TriangleMesh":
        v, f = g.vertices, g.faces
        refs += [v, f]
        return sig + (id(v), id(f))
    if g.kind == "PointCloud":
        refs.append(g.points)
        return sig + (id(g.points),)
    if g.kind == "Primitive":
        return sig + (g.primitive,) + tuple((k, np.asarray(v, float).tobytes())
                                            for k, v in sorted(g.params.items()))
    if g.kind == "Group":
        refs.append(g.children)
        return sig + (id(g.children),) + tuple(_signature(c, refs, depth + 1) for c in g.children)
    raise TypeError(f"not a roboio geometry: {g!r}")


def cached_parts(g) -> list:
    """The engine parts of geometry ``g`` in its owner frame (made once per state of ``g``)."""
    if g is None:
        return []
    refs: list = []
    sig = _signature(g, refs)
    entry = _cache.get(g)
    if entry is not None and entry[0] == sig:
        return entry[1]
    parts = parts_of(g)
    _cache[g] = (sig, parts, refs)
    return parts


def _pose(pose) -> np.ndarray:
    if pose is None:
        return _EYE4
    P = np.asarray(pose, dtype=float)
    if P.shape != (4, 4):
        raise ValueError(f"a pose is a 4x4 transform, got shape {P.shape}")
    return P


def _placed(parts, pose, eng):
    return [(p, eng.pose_of(pose @ p.pose)) for p in parts]


def _boxes_apart(pa, Ta, pb, Tb, gap) -> bool:
    """Whether the parts' world axis-aligned boxes (from their owner-frame boxes) are more
    than ``gap`` apart: a quick, conservative reject."""
    def world_box(p, T):
        c = (p.lo + p.hi) / 2
        h = (p.hi - p.lo) / 2
        return T[:3, :3] @ c + T[:3, 3], np.abs(T[:3, :3]) @ h
    ca, ha = world_box(pa, Ta)
    cb, hb = world_box(pb, Tb)
    return bool(np.any(np.abs(ca - cb) > ha + hb + gap + 1e-9))


def collides(a, b, pose_a=None, pose_b=None) -> bool:
    """Whether geometries ``a`` and ``b`` (placed by ``pose_a``/``pose_b``) are within the
    sum of their margins of each other. Empty geometries collide with nothing."""
    return within_distance(a, b, 0.0, pose_a, pose_b)


def within_distance(a, b, tol: float, pose_a=None, pose_b=None) -> bool:
    """Whether the distance of ``a`` and ``b`` (margins subtracted) is at most ``tol`` (m)."""
    tol = float(tol)
    Ta, Tb = _pose(pose_a), _pose(pose_b)
    parts_a, parts_b = cached_parts(a), cached_parts(b)
    if not parts_a or not parts_b:
        return False
    eng = get_engine()
    for pa in parts_a:
        for pb in parts_b:
            if _boxes_apart(pa, Ta, pb, Tb, pa.margin + pb.margin + tol):
                continue
            if eng.collider(pa, pb, tol)(eng.pose_of(Ta @ pa.pose), eng.pose_of(Tb @ pb.pose)):
                return True
    return False


def distance(a, b, pose_a=None, pose_b=None) -> DistanceResult:
    """The distance of ``a`` and ``b`` (margins subtracted) and their closest points."""
    Ta, Tb = _pose(pose_a), _pose(pose_b)
    parts_a, parts_b = cached_parts(a), cached_parts(b)
    best = DistanceResult(float("inf"), None, None)
    if not parts_a or not parts_b:
        return best
    eng = get_engine()
    for pa in parts_a:
        for pb in parts_b:
            d, p1, p2 = eng.distancer(pa, pb)(eng.pose_of(Ta @ pa.pose), eng.pose_of(Tb @ pb.pose))
            d -= pa.margin + pb.margin
            if d < best.distance:
                best = DistanceResult(d, p1, p2)
    return best


def ray_cast(g, source, direction, pose=None) -> tuple:
    """``(hit, point)``: the first point where the ray from ``source`` along ``direction``
    (world frame) meets geometry ``g`` placed by ``pose``; ``(False, None)`` when it misses.
    See :mod:`roboio.collision.raycast` for what a margin does."""
    from .raycast import ray_parts
    return ray_parts(cached_parts(g), _pose(pose), source, direction)
