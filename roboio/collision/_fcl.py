"""The python-fcl engine (https://github.com/BerkeleyAutomation/python-fcl, BSD-3; FCL 0.7):
the fallback where coal has no wheel (Windows). Same parts and semantics as
:mod:`roboio.collision._coal`: meshes are OBBRSS hierarchies of their triangles, primitives
FCL's exact shapes, convex parts ``fcl.Convex`` of their hull, point clouds dynamic AABB
trees of spheres of the pair's total margin.

FCL's collision request has no margin: with margins, two parts collide when they touch or
when their distance is at most the margins' sum. Poses are one-element lists holding an
``fcl.Transform`` (FCL's transforms cannot be changed in place).
"""
from __future__ import annotations

import numpy as np

import fcl

from .shapes import engine_primitive

NAME = "fcl"


def version() -> str:
    v = getattr(fcl, "__version__", None) or getattr(getattr(fcl, "version", None), "__version__", None)
    return f"python-fcl {v}" if v else "python-fcl"


def _convex_faces(part):
    faces = part.data.get("faces")
    if faces is None:
        raise ValueError("a convex part needs its hull triangles")
    return faces


def shape(part):
    h = part.handles.get(NAME)
    if h is None:
        d, k = part.data, part.kind
        if k == "mesh":
            h = fcl.BVHModel()
            v = np.ascontiguousarray(d["vertices"], dtype=np.float64)
            f = np.ascontiguousarray(d["faces"], dtype=np.int32)
            h.beginModel(len(v), len(f))
            h.addSubModel(v, f)
            h.endModel()
        elif k == "convex":
            f = _convex_faces(part)
            flat = np.concatenate([np.full((len(f), 1), 3), f], axis=1).reshape(-1)
            h = fcl.Convex(np.ascontiguousarray(d["points"], dtype=np.float64), len(f),
                           np.ascontiguousarray(flat, dtype=np.int32))
        else:
            h = engine_primitive(fcl, part)
            if h is None:
                raise ValueError(f"no fcl shape for a {k!r} part")
        part.handles[NAME] = h
    return h


def _cloud(part, radius: float):
    key = (NAME, "cloud", radius)
    h = part.handles.get(key)
    if h is None:
        sphere = fcl.Sphere(radius)
        objs = [fcl.CollisionObject(sphere, fcl.Transform(np.eye(3), p)) for p in part.data["points"]]
        manager = fcl.DynamicAABBTreeCollisionManager()
        manager.registerObjects(objs)
        manager.setup()
        h = part.handles[key] = (manager, objs, sphere)
    return h


def new_pose():
    return [fcl.Transform()]


def set_pose(pose, M) -> None:
    pose[0] = fcl.Transform(np.ascontiguousarray(M[:3, :3]), np.ascontiguousarray(M[:3, 3]))


def pose_of(M):
    p = new_pose()
    set_pose(p, np.asarray(M, dtype=float))
    return p


def _relative(pc, po):
    """The pose ``po`` seen from ``pc`` (both one-element lists)."""
    Rc, tc = pc[0].getRotation(), pc[0].getTranslation()
    Ro, to = po[0].getRotation(), po[0].getTranslation()
    return [fcl.Transform(Rc.T @ Ro, Rc.T @ (to - tc))], Rc, tc


def collider(a, b, extra: float = 0.0):
    margin = a.margin + b.margin + extra
    if a.kind == "points" or b.kind == "points":
        return _cloud_collider(a, b, margin)
    oa, ob = fcl.CollisionObject(shape(a)), fcl.CollisionObject(shape(b))
    req, dreq = fcl.CollisionRequest(), fcl.DistanceRequest()

    def collides(pa, pb):
        oa.setTransform(pa[0])
        ob.setTransform(pb[0])
        if fcl.collide(oa, ob, req, fcl.CollisionResult()) > 0:
            return True
        return margin > 0 and fcl.distance(oa, ob, dreq, fcl.DistanceResult()) <= margin
    return collides


def distancer(a, b):
    if a.kind == "points" or b.kind == "points":
        return _cloud_distancer(a, b)
    oa, ob = fcl.CollisionObject(shape(a)), fcl.CollisionObject(shape(b))
    req = fcl.DistanceRequest(enable_nearest_points=True, enable_signed_distance=True)

    def distance(pa, pb):
        oa.setTransform(pa[0])
        ob.setTransform(pb[0])
        res = fcl.DistanceResult()
        d = fcl.distance(oa, ob, req, res)
        p1, p2 = (np.array(p, dtype=float) for p in res.nearest_points)
        return float(d), p1, p2
    return distance


def _swap(a, b):
    swap = a.kind != "points" or (b.kind == "points" and len(b.data["points"]) > len(a.data["points"]))
    return ((b, a) if swap else (a, b)), swap


def _probes(other, rel):
    R, t = rel[0].getRotation(), rel[0].getTranslation()
    sphere = fcl.Sphere(0.0)
    for p in other.data["points"] @ R.T + t:
        yield fcl.CollisionObject(sphere, fcl.Transform(np.eye(3), p))


def _cloud_collider(a, b, margin):
    (cloud, other), swap = _swap(a, b)
    manager = _cloud(cloud, margin)[0]
    obj = None if other.kind == "points" else fcl.CollisionObject(shape(other))

    def collides(pa, pb):
        pc, po = (pb, pa) if swap else (pa, pb)
        rel = _relative(pc, po)[0]
        probes = _probes(other, rel) if obj is None else [obj]
        if obj is not None:
            obj.setTransform(rel[0])
        for o in probes:
            data = fcl.CollisionData()
            manager.collide(o, data, fcl.defaultCollisionCallback)
            if data.result.is_collision:
                return True
        return False
    return collides


def _cloud_distancer(a, b):
    (cloud, other), swap = _swap(a, b)
    manager = _cloud(cloud, 0.0)[0]
    obj = None if other.kind == "points" else fcl.CollisionObject(shape(other))

    def distance(pa, pb):
        pc, po = (pb, pa) if swap else (pa, pb)
        rel, Rc, tc = _relative(pc, po)
        probes = _probes(other, rel) if obj is None else [obj]
        if obj is not None:
            obj.setTransform(rel[0])
        best = (np.inf, None, None)
        for o in probes:
            data = fcl.DistanceData()
            data.request.enable_nearest_points = True
            manager.distance(o, data, fcl.defaultDistanceCallback)
            r = data.result
            if r.min_distance < best[0]:
                p_cloud, p_other = (Rc @ np.asarray(p, float) + tc for p in r.nearest_points)
                best = (float(r.min_distance), p_cloud, p_other)
        d, p_cloud, p_other = best
        return (d, p_other, p_cloud) if swap else (d, p_cloud, p_other)
    return distance
