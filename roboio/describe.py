"""Summaries of loaded objects (what ``roboio info`` prints), as JSON-able dicts.

Model classes outside this module may define ``summary() -> dict``; it is used as is.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from .model import Geometry, Group, PointCloud, Primitive, RigidObject, Robot, Terrain, TriangleMesh, World
from .model.joint_tree import joint_tree

__all__ = ["summary", "geometry_files", "mesh_counts", "geometry_parts", "joint_vector", "tree_summary",
           "holds"]


def _walk(g):
    if g is None:
        return
    yield g
    if isinstance(g, Group):
        for c in g.children:
            yield from _walk(c)


def geometry_files(geoms) -> list[str]:
    """Every file referenced by these geometries (missing ones included), without repeats."""
    out = []
    for g in geoms:
        for x in _walk(g):
            if x.source is not None and x.source.reference not in out:
                out.append(x.source.reference)
    return out


def mesh_counts(geoms) -> dict:
    n = u = missing = 0
    for g in geoms:
        for x in _walk(g):
            if x.missing:
                missing += 1
        if g is not None:
            a, b = g.mesh_count()
            n += a
            u += b
    return {"meshes": n, "meshes_not_loaded": u, "missing": missing}


def _geom_kind(g) -> str:
    if g is None:
        return "none"
    if g.missing:
        return "missing"
    if isinstance(g, Primitive):
        return f"Primitive {g.primitive}"
    return g.kind


def _limits(a):
    return [float(x) for x in a]


def geometry_parts(g) -> dict:
    """What a geometry tree holds: ``{"mesh": n, "point cloud": n, "<Primitive kind>": n,
    "missing": n}`` (only the kinds present; a ``Group`` counts its parts)."""
    out: dict = {}
    for x in _walk(g):
        if isinstance(x, Group):
            continue
        if x.missing:
            key = "missing"
        elif isinstance(x, TriangleMesh):
            key = "mesh"
        elif isinstance(x, PointCloud):
            key = "point cloud"
        elif isinstance(x, Primitive):
            key = x.primitive
        else:
            key = x.kind
        out[key] = out.get(key, 0) + 1
    return out


def _opt(x):
    return None if x is None else float(x)


def joint_vector(r: Robot) -> list:
    """The joint vector (what ``--config`` takes as joint values), one dict per joint."""
    js = r.joint_space
    u0 = js.initial()
    prism = js.prismatic
    out = []
    for k, name in enumerate(js.names):
        lead = js.links[k]
        link = r.links[lead] if lead is not None else None
        lo, hi = float(js.qmin[k]), float(js.qmax[k])
        kind = "prismatic" if prism[k] else (
            "continuous" if np.isinf(lo) and np.isinf(hi) else "revolute")
        out.append({"index": k, "name": name, "type": kind, "unit": "m" if prism[k] else "rad",
                    "links": [r.link_names[i] for i in js.dofs(k)],
                    "file_joint": link.joint_name if link is not None else None,
                    "lower": float(js.qmin[k]), "upper": float(js.qmax[k]),
                    "initial": float(u0[k])})
    return out


def tree_summary(r: Robot) -> list:
    """The kinematic tree as users draw it (:func:`roboio.model.joint_tree.joint_tree`),
    one dict per shown link, parents before children."""
    js_names = r.joint_space.names
    out = []
    for tj in joint_tree(r):
        link = r.links[tj.child]
        out.append({
            "child": link.name, "parent": r.link_names[tj.parent] if tj.parent >= 0 else None,
            "name": tj.name, "type": tj.type, "links": [r.link_names[i] for i in tj.links],
            "axis": None if tj.axis is None else [float(a) for a in tj.axis],
            "lower": _opt(tj.lower), "upper": _opt(tj.upper),
            "joint": None if tj.joint is None else js_names[tj.joint],
            "mimic": tj.mimic, "mass": float(link.mass),
            "geometry": geometry_parts(link.geometry),
            "visual_geometry": (geometry_parts(link.visual_geometry)
                                if link.visual_geometry is not None else None)})
    return out


def robot_summary(r: Robot) -> dict:
    geoms = [l.geometry for l in r.links]
    tree = joint_tree(r)
    user_type = {}
    for tj in tree:
        for i in tj.links:
            user_type[i] = tj.type if i == tj.child else "virtual"
    groups = {}
    for j in r.joints:
        for i in j.links:
            groups.setdefault(i, j.type)
    return {
        "kind": "robot", "name": r.name, "num_links": r.num_links, "num_dofs": r.num_links,
        "num_drivers": len(r.drivers), "num_joints": len(r.joint_space),
        "mass": float(sum(l.mass for l in r.links)),
        "joint_types": dict(Counter(tj.type for tj in tree)),
        "joint_groups": dict(Counter(j.type for j in r.joints)),
        "drivers": {t: n for t, n in Counter(d.type for d in r.drivers).items()},
        "joints": joint_vector(r),
        "tree": tree_summary(r),
        "links": [{"index": l.index, "name": l.name, "parent": l.parent, "type": l.joint_type,
                   "joint": user_type.get(l.index), "joint_group": groups.get(l.index),
                   "qmin": float(r.qmin[l.index]), "qmax": float(r.qmax[l.index]),
                   "mass": l.mass, "geometry": _geom_kind(l.geometry)} for l in r.links],
        "limits": {k: _limits(getattr(r, k)) for k in Robot.LIMIT_NAMES},
        "config": _limits(r.config),
        "self_collision_pairs": len(r.self_collision_pairs),
        "files": geometry_files(geoms), **mesh_counts(geoms),
        "properties": sorted(r.properties),
    }


def _element_geom(e):
    return {"geometry": _geom_kind(e.geometry), "files": geometry_files([e.geometry]),
            **mesh_counts([e.geometry])}


def object_summary(o: RigidObject) -> dict:
    return {"kind": "rigid_object", "name": o.name, "mass": o.mass,
            "position": o.transform[:3, 3].tolist(), **_element_geom(o)}


def terrain_summary(t: Terrain) -> dict:
    return {"kind": "terrain", "name": t.name, **_element_geom(t)}


def geometry_summary(g: Geometry) -> dict:
    out = {"kind": "geometry", "type": _geom_kind(g), "files": geometry_files([g])}
    if isinstance(g, TriangleMesh) and not g.missing:
        out.update(vertices=len(g.vertices), triangles=len(g.faces))
    elif isinstance(g, PointCloud):
        out.update(points=len(g.points), fields=list(g.fields))
    elif isinstance(g, Group):
        out.update(children=len(g.children))
    elif isinstance(g, Primitive):
        out.update(params={k: np.asarray(v).tolist() for k, v in g.params.items()})
    b = None if g.missing else g.bounds()
    if b is not None:
        out["bounds"] = b.tolist()
    return out


def world_summary(w: World) -> dict:
    geoms = ([l.geometry for r in w.robots for l in r.links]
             + [o.geometry for o in w.rigid_objects] + [t.geometry for t in w.terrains])
    return {"kind": "world", "name": w.name, "num_ids": w.num_ids,
            "robots": [robot_summary(r) for r in w.robots],
            "rigid_objects": [object_summary(o) for o in w.rigid_objects],
            "terrains": [terrain_summary(t) for t in w.terrains],
            "extras": sorted(w.extras), **mesh_counts(geoms)}


def summary(obj) -> dict:
    """A JSON-able description of any loaded object."""
    if isinstance(obj, World):
        out = world_summary(obj)
    elif isinstance(obj, Robot):
        out = robot_summary(obj)
    elif isinstance(obj, RigidObject):
        out = object_summary(obj)
    elif isinstance(obj, Terrain):
        out = terrain_summary(obj)
    elif isinstance(obj, Geometry):
        out = geometry_summary(obj)
    elif hasattr(obj, "summary"):
        out = dict(obj.summary())
    else:
        from .model import Trajectory
        if isinstance(obj, Trajectory):
            out = {"kind": "trajectory", "timed": obj.times is not None,
                   "milestones": obj.num_milestones, "dimension": obj.dimension,
                   "start_time": obj.start_time, "end_time": obj.end_time,
                   "duration": obj.duration}
        else:
            out = {"kind": type(obj).__name__}
    out["warnings"] = list(getattr(obj, "warnings", []))
    return out


def _count(n, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def holds(s: dict) -> str:
    """What a :func:`summary` says the object holds, in a few words (a row of ``roboio info
    DIR``): ``6 links, 5 joints``; ``1 robot, 1 rigid object, 1 terrain``; ``21 frames``."""
    kind = s.get("kind")
    if kind == "robot":
        return f"{_count(s.get('num_links', 0), 'link')}, {_count(s.get('num_joints', 0), 'joint')}"
    if kind == "world":
        return ", ".join(_count(len(s.get(k) or []), noun) for k, noun in (
            ("robots", "robot"), ("rigid_objects", "rigid object"), ("terrains", "terrain")))
    if kind == "geometry":
        if "triangles" in s:
            return _count(s["triangles"], "triangle")
        if "points" in s:
            return _count(s["points"], "point")
        return str(s.get("type", ""))
    if kind in ("rigid_object", "terrain"):
        return str(s.get("geometry", ""))
    for key, noun in (("num_frames", "frame"), ("milestones", "milestone"), ("sections", "section")):
        if isinstance(s.get(key), int):
            return _count(s[key], noun)
    return ""
