"""The coal engine (https://github.com/coal-library/coal, BSD-3; pinocchio's collision
library): narrow-phase collision and distance between :class:`~roboio.collision.shapes.Part`.

Meshes are OBBRSS bounding-volume hierarchies (triangles: a mesh is its surface), primitives
coal's exact shapes, convex parts ``coal.Convex`` of their points; a point cloud is a
dynamic AABB tree of spheres whose radius is the pair's total margin (so that the tree's
broad phase sees the inflated points), queried with the other shape in the cloud's frame.

Engine objects are made once per part (``Part.handles``) and reused; poses are
``coal.Transform3s`` updated in place. coal holds the GIL during queries (measured: two
threads run no faster than one), so batches go parallel with processes
(:mod:`roboio.collision.parallel`).
"""
from __future__ import annotations

import numpy as np

import coal

from .shapes import engine_primitive

NAME = "coal"


def version() -> str:
    return f"coal {coal.__version__}" if hasattr(coal, "__version__") else "coal"


# -- engine objects -------------------------------------------------------------------------
def _mesh(v, f):
    m = coal.BVHModelOBBRSS()
    m.beginModel(len(f), len(v))
    m.addVertices(np.ascontiguousarray(v, dtype=np.float64))
    m.addTriangles(np.ascontiguousarray(f, dtype=np.int64))
    m.endModel()
    return m


def _convex(points):
    pts = coal.StdVec_Vec3s()
    for p in np.asarray(points, dtype=np.float64):
        pts.append(p)
    return coal.Convex.convexHull(pts, False, None)


def shape(part):
    """The coal geometry of a part that is not a point cloud (made once)."""
    h = part.handles.get(NAME)
    if h is None:
        d, k = part.data, part.kind
        if k == "mesh":
            h = _mesh(d["vertices"], d["faces"])
        elif k == "convex":
            h = _convex(d["points"])
        else:
            h = engine_primitive(coal, part)
            if h is None:
                raise ValueError(f"no coal shape for a {k!r} part")
        part.handles[NAME] = h
    return h


def _cloud(part, radius: float):
    """(manager, objects) of a point cloud part: spheres of ``radius`` at its points."""
    key = (NAME, "cloud", radius)
    h = part.handles.get(key)
    if h is None:
        sphere = coal.Sphere(radius)
        objs = []
        manager = coal.DynamicAABBTreeCollisionManager()
        for p in part.data["points"]:
            T = coal.Transform3s()
            T.setTranslation(p)
            o = coal.CollisionObject(sphere, T)
            objs.append(o)
            manager.registerObject(o)
        manager.setup()
        h = part.handles[key] = (manager, objs, sphere)
    return h


# -- poses ----------------------------------------------------------------------------------
def new_pose():
    return coal.Transform3s()


def set_pose(pose, M) -> None:
    """Set ``pose`` to the rigid 4x4 ``M``."""
    pose.setRotation(M[:3, :3])
    pose.setTranslation(M[:3, 3])


def pose_of(M):
    p = coal.Transform3s()
    set_pose(p, np.asarray(M, dtype=float))
    return p


# -- queries --------------------------------------------------------------------------------
def collider(a, b, extra: float = 0.0):
    """``f(pose_a, pose_b) -> bool``: whether parts ``a`` and ``b`` are within the sum of
    their margins (plus ``extra``) of each other (touching or overlapping with none)."""
    margin = a.margin + b.margin + extra
    if a.kind == "points" or b.kind == "points":
        return _cloud_collider(a, b, margin)
    ga, gb = shape(a), shape(b)
    fn = coal.ComputeCollision(ga, gb)
    req = coal.CollisionRequest()
    req.security_margin = margin
    req.enable_contact = False       # a verdict needs no contact points (coal's default computes them)
    # bounding volumes are split only down to the margin (coal's default keeps splitting
    # those within 1 mm more, which halves the speed of close meshes and changes no verdict)
    req.break_distance = 0.0
    res = coal.CollisionResult()

    def collides(pa, pb, _fn=fn, _req=req, _res=res, _keep=(ga, gb)):
        _res.clear()
        _fn(pa, pb, _req, _res)
        return _res.isCollision()
    return collides


def distancer(a, b):
    """``f(pose_a, pose_b) -> (distance, point_a, point_b)``: the engine's distance between
    the parts (margins not subtracted; negative: penetration depth where coal gives it) and
    the closest points, world frame."""
    if a.kind == "points" or b.kind == "points":
        return _cloud_distancer(a, b)
    ga, gb = shape(a), shape(b)
    fn = coal.ComputeDistance(ga, gb)
    req = coal.DistanceRequest()
    res = coal.DistanceResult()

    def distance(pa, pb, _fn=fn, _req=req, _res=res, _keep=(ga, gb)):
        _res.clear()
        _fn(pa, pb, _req, _res)
        return (float(_res.min_distance), np.array(_res.getNearestPoint1()),
                np.array(_res.getNearestPoint2()))
    return distance


def _query_object(part):
    """A collision object for ``part`` (None for a point cloud: it is probed point by point)."""
    if part.kind == "points":
        return None
    return coal.CollisionObject(shape(part), coal.Transform3s())


def _cloud_collider(a, b, margin):
    swap = a.kind != "points" or (b.kind == "points" and len(b.data["points"]) > len(a.data["points"]))
    cloud, other = (b, a) if swap else (a, b)
    manager, _, _ = _cloud(cloud, margin)
    cb = coal.CollisionCallBackDefault()
    if other.kind == "points":
        pts = other.data["points"]
        probe = coal.CollisionObject(coal.Sphere(0.0), coal.Transform3s())

        def collides_pp(pa, pb):
            pc, po = (pb, pa) if swap else (pa, pb)
            rel = pc.inverseTimes(po)
            R, t = rel.getRotation(), rel.getTranslation()
            for p in pts @ R.T + t:
                T = coal.Transform3s()
                T.setTranslation(p)
                probe.setTransform(T)
                probe.computeAABB()         # the manager's broad phase reads it
                cb.data.clear()
                manager.collide(probe, cb)
                if cb.data.result.isCollision():
                    return True
            return False
        return collides_pp
    obj = _query_object(other)

    def collides(pa, pb):
        pc, po = (pb, pa) if swap else (pa, pb)
        obj.setTransform(pc.inverseTimes(po))
        obj.computeAABB()                   # the manager's broad phase reads it
        cb.data.clear()
        manager.collide(obj, cb)
        return cb.data.result.isCollision()
    return collides


def _cloud_distancer(a, b):
    swap = a.kind != "points" or (b.kind == "points" and len(b.data["points"]) > len(a.data["points"]))
    cloud, other = (b, a) if swap else (a, b)
    manager, _, _ = _cloud(cloud, 0.0)
    cb = coal.DistanceCallBackDefault()

    def query(obj, pc):
        # the manager reports the tree's object (a point) first, the query second; both in
        # the cloud's frame
        cb.data.clear()
        manager.distance(obj, cb)
        r = cb.data.result
        M = _matrix(pc)
        p_cloud = M[:3, :3] @ np.array(r.getNearestPoint1()) + M[:3, 3]
        p_other = M[:3, :3] @ np.array(r.getNearestPoint2()) + M[:3, 3]
        return float(r.min_distance), p_cloud, p_other

    if other.kind == "points":
        pts = other.data["points"]
        probe = coal.CollisionObject(coal.Sphere(0.0), coal.Transform3s())

        def distance_pp(pa, pb):
            pc, po = (pb, pa) if swap else (pa, pb)
            rel = pc.inverseTimes(po)
            R, t = rel.getRotation(), rel.getTranslation()
            best = (np.inf, None, None)
            for p in pts @ R.T + t:
                T = coal.Transform3s()
                T.setTranslation(p)
                probe.setTransform(T)
                probe.computeAABB()
                d = query(probe, pc)
                if d[0] < best[0]:
                    best = d
            d, p_cloud, p_other = best
            return (d, p_other, p_cloud) if swap else (d, p_cloud, p_other)
        return distance_pp
    obj = _query_object(other)

    def distance(pa, pb):
        pc, po = (pb, pa) if swap else (pa, pb)
        obj.setTransform(pc.inverseTimes(po))
        obj.computeAABB()
        d, p_cloud, p_other = query(obj, pc)
        return (d, p_other, p_cloud) if swap else (d, p_cloud, p_other)
    return distance


def _matrix(pose) -> np.ndarray:
    M = np.eye(4)
    M[:3, :3] = pose.getRotation()
    M[:3, 3] = pose.getTranslation()
    return M
