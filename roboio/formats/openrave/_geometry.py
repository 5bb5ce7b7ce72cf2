"""``<Geom>`` elements (``openrave.md`` §8.5-8.6): records, mesh files, and the roboio
geometry OpenRAVE collides with and draws.

Collision geometry: primitives keep their analytic shape (a box's ``<extents>`` are half
sizes; a cylinder's axis is the Y axis of its XML frame); a ``trimesh`` is its ``<data>``
(or ``<collision>``) file scaled by the numbers after the name, else its ``<render>`` file,
else its inline ``<vertices>``. Visual geometry: the ``<render>`` file when it differs from
the collision one, else the collision shape; ``render="false"`` geometry is not drawn. Mesh
files are read through :mod:`roboio.formats.loading` (Inventor/VRML by the shared reader,
other formats by theirs); a file that cannot be found is a warning and an empty geometry
that keeps its reference (OpenRAVE drops the geometry).
"""
from __future__ import annotations

import os

import numpy as np

from ...model import Appearance, Group, Primitive, TriangleMesh, GeometrySource
from .. import loading
from ._records import GeomRecord

__all__ = ["model_geometry", "load_mesh", "link_geometries", "GEOM_TYPES"]

GEOM_TYPES = ("none", "box", "sphere", "cylinder", "trimesh", "container", "cage", "prism",
              "capsule")


def load_mesh(name: str, scale, ctx, current_file: str, roots: list, modelsdir: str = "",
              line=None):
    """The mesh file ``name`` as OpenRAVE finds it (``openrave.md`` §3.2): absolute, else
    ``<file dir>/<modelsdir>/name`` then the data roots (when the KinBody has a modelsdir),
    then ``<file dir>/name`` then the data roots. Returns ``(geometry, found)``; the geometry's
    transform holds the scale. A missing file is a warning (an error when strict) and an
    empty mesh marked ``missing``."""
    base = os.path.dirname(current_file) if current_file else ""
    tried = []
    path = None
    if modelsdir and not os.path.isabs(name):
        res = loading.resolve_reference(name, os.path.join(base, modelsdir, "_"), ctx, roots)
        tried += res.tried
        path = res.path
        if res and res.note:
            ctx.warn(res.note, line, kind="guessed")
    if path is None:
        res = loading.resolve_reference(name, current_file, ctx, roots)
        tried += res.tried
        path = res.path
        if res and res.note:
            ctx.warn(res.note, line, kind="guessed")
    S = np.diag(list(np.asarray(scale, dtype=float)) + [1.0])
    if path is None:
        ctx.warn(f"mesh file {name!r} not found (looked for: {', '.join(dict.fromkeys(tried))});"
                 " OpenRAVE keeps an empty geometry", line, kind="missing file", hint=loading.missing_file_hint(name))
        g = TriangleMesh(source=GeometrySource(name, None, None), missing=True)
        g.transform = S
        return g, False
    g = loading.load_geometry(path, ctx)
    g.source = GeometrySource(name, path, g.source.format if g.source else None)
    if not np.array_equal(g.transform, np.eye(4)):
        g.extras.setdefault("openrave", {})["file_transform"] = g.transform.tolist()
    g.apply_transform(S)
    return g, True


def model_geometry(rec: GeomRecord):
    """The roboio geometry of a record's collision shape in the link frame (None for types
    roboio cannot represent: none, container, cage). Meshes must already be loaded into
    ``rec.collision``."""
    T = rec.transform
    if rec.type == "box":
        e = np.asarray(rec.extents, dtype=float)
        g = Primitive("Box", {"origin": -e, "xaxis": [1, 0, 0], "yaxis": [0, 1, 0],
                              "zaxis": [0, 0, 1], "dims": 2 * e})
    elif rec.type == "sphere":
        g = Primitive("Sphere", {"center": [0, 0, 0], "radius": rec.radius})
    elif rec.type == "cylinder":
        g = Primitive("Cylinder", {"center": [0, -0.5 * rec.height, 0], "axis": [0, 1, 0],
                                   "radius": rec.radius, "height": rec.height})
    elif rec.type == "capsule":
        g = Primitive("Capsule", {"center": [0, 0, -0.5 * rec.height], "axis": [0, 0, 1],
                                  "radius": rec.radius, "height": rec.height})
    elif rec.type == "prism" and rec.vertices is not None:
        v = np.asarray(rec.vertices, dtype=float)
        g = TriangleMesh(v, _prism_faces(len(v)))
    elif rec.type == "trimesh":
        return rec.collision
    else:
        return None
    g.transform = np.array(T, dtype=float)
    return g


def _prism_faces(nverts: int) -> np.ndarray:
    """The side walls OpenRAVE builds for a prism cross-section (two vertices per point)."""
    faces = []
    for i in range(0, nverts, 2):
        faces.append((i, i + 1, (i + 2) % nverts))
        faces.append((i + 1, (i + 3) % nverts, (i + 2) % nverts))
    return np.array(faces, dtype=np.int64).reshape(-1, 3)


def geom_extras(rec: GeomRecord) -> dict:
    """What the OpenRAVE writer needs to write a geometry back (plain data)."""
    out = {"type": rec.type, "visible": rec.visible, "modifiable": rec.modifiable}
    if rec.name:
        out["name"] = rec.name
    if rec.render_file:
        out["render_file"] = rec.render_file
        out["render_scale"] = [float(x) for x in rec.render_scale]
    if rec.collision_file:
        out["collision_file"] = rec.collision_file
        out["collision_scale"] = [float(x) for x in rec.collision_scale]
    for key in ("diffuse", "ambient", "transparency"):
        v = getattr(rec, key)
        if v is not None:
            out[key] = v
    if rec.type in ("container", "cage", "prism"):
        out["params"] = {k: v for k, v in rec.params.items() if k != "unknown"}
    if rec.params.get("unknown"):
        out["unknown"] = list(rec.params["unknown"])
    if not rec.loaded:
        out["not_found"] = True
    if rec.raw_pose:
        out["raw_pose"] = [(t, list(v)) for t, v in rec.raw_pose]
    return out


def link_geometries(geoms: list):
    """``(collision, visual)`` roboio geometries of a link's "self" geometries: one geometry,
    a Group, or None. ``visual`` is None when it would equal ``collision``. When the
    ``<Geom>`` colours of the link differ, each geometry gets its own ``appearance`` (the
    link's colour is its first coloured geometry's)."""
    coll, vis = [], []
    colours = {}            # id(geometry) -> its <Geom>'s colour
    same = True
    for rec in geoms:
        g = model_geometry(rec)
        extras = geom_extras(rec)
        colour = _colour(rec)
        if g is not None:
            g.extras.setdefault("openrave", {}).update(extras)
            coll.append(g)
            colours[id(g)] = colour
        if rec.render is not None:
            if rec.visible:
                r = rec.render
                r.extras.setdefault("openrave", {}).update(extras)
                vis.append(r)
                colours[id(r)] = colour
            same = False
        elif g is not None and rec.visible:
            vis.append(g)       # copied below if the visual geometry is kept separately
        if not rec.visible and g is not None:
            same = False
    if len({_colour(rec) for rec in geoms}) > 1:
        for g in coll + vis:
            g.appearance = Appearance(color=colours.get(id(g)))
    collision = _one(coll)
    if same:
        return collision, None
    vis = [v.copy() if any(v is c for c in coll) else v for v in vis]
    return collision, (_one(vis) if vis else Group([]))


def _colour(rec: GeomRecord):
    """RGBA of a ``<Geom>``'s ``<diffuseColor>`` and ``<transparency>``, or None."""
    if rec.diffuse is None:
        return None
    return tuple(float(x) for x in rec.diffuse) + (1.0 - (rec.transparency or 0.0),)


def _one(items):
    if not items:
        return None
    if len(items) == 1:
        return items[0]
    return Group(items)
