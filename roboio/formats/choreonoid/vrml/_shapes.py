"""The shapes of a Segment (or device, or Surface) as link geometry.

VRML ``Box``, ``Sphere``, ``Cylinder`` and ``Cone`` shapes reached through Transforms and
Groups under a rigid placement become exact :class:`~roboio.model.Primitive`s (VRML's and
Choreonoid's cylinders and cones: axis +y, centred on the origin), placed by
``geometry.transform``; everything else (indexed face sets, elevation grids, ``Inline``
files, shapes under a scaling Transform, Switch/LOD) is built into triangle meshes by the
shared VRML reader, already in the link frame. Colours: each geometry's first Material in
``extras["choreonoid_appearance"]`` (the ``.body`` form), meshes keep per-face colours.
"""
from __future__ import annotations

import numpy as np

from ....model import Primitive
from ....transforms import compose, det3
from ...meshes.inventor import nodes_mesh, transform_matrix

__all__ = ["segment_geometry", "has_shapes", "GROUPS"]

GROUPS = ("Group", "Collision", "Anchor", "Billboard")
_PRIMITIVES = ("Box", "Sphere", "Cylinder", "Cone")
_CHILD_FIELDS = ("children", "choice", "level")


def _plain(nodes):
    return [n for n in nodes or () if n is not None and not n.skipped and n.proto is None]


def _walk(nodes, max_depth):
    """Pre-order over plain (not PROTO) nodes and their child fields, bounded in depth."""
    stack = [(n, 0) for n in reversed(_plain(nodes))]
    while stack:
        node, d = stack.pop()
        if d > max_depth:
            continue
        yield node
        for f in _CHILD_FIELDS:
            kids = node.fields.get(f)
            if isinstance(kids, list):
                stack.extend((k, d + 1) for k in reversed(_plain(kids)))


def has_shapes(nodes, max_depth) -> bool:
    return any(n.type in ("Shape", "Inline") for n in _walk(nodes, max_depth))


def _rigid(M) -> bool:
    R = M[:3, :3]
    return bool(np.all(np.isfinite(M)) and np.allclose(compose(R.T, R), np.eye(3), rtol=0, atol=1e-12)
                and det3(R) > 0)


def _split(nodes, T, max_depth):
    """([(Shape, M)] of exact primitives, [(node, M)] of the rest), in file order."""
    prims, rest = [], []
    stack = [(n, T, 0) for n in reversed(_plain(nodes))]
    while stack:
        node, M, d = stack.pop()
        if node.type in ("Transform", *GROUPS) and d < max_depth:
            if node.type == "Transform":
                g = node.get
                M = compose(M, transform_matrix(g("translation"), g("rotation"), g("scale"),
                                                g("scaleOrientation"), g("center")))
            stack.extend((k, M, d + 1) for k in reversed(_plain(node.get("children", []))))
        elif node.type == "Shape" and _primitive(node) is not None and _rigid(M):
            prims.append((node, M))
        else:
            rest.append((node, M))
    return prims, rest


def _number(node, name, default):
    v = node.get(name, default)
    return float(v) if np.isscalar(v) else default


def _primitive(shape):
    """The exact Primitive of a Shape whose geometry is a VRML primitive with finite,
    non-negative sizes (else None: the mesh reader builds it, or reports it)."""
    geom = shape.get("geometry")
    if geom is None or geom.skipped or geom.type not in _PRIMITIVES:
        return None
    t = geom.type
    if t == "Box":
        size = np.asarray(geom.get("size", (2.0, 2.0, 2.0)), float).reshape(-1)
        if len(size) != 3 or not np.all(np.isfinite(size)) or np.any(size < 0):
            return None
        return Primitive("Box", {"origin": -size / 2, "xaxis": [1, 0, 0], "yaxis": [0, 1, 0],
                                 "zaxis": [0, 0, 1], "dims": size})
    if t == "Sphere":
        r = _number(geom, "radius", 1.0)
        return Primitive("Sphere", {"center": [0, 0, 0], "radius": r}) if np.isfinite(r) and r >= 0 else None
    h = _number(geom, "height", 2.0)
    r = _number(geom, "radius" if t == "Cylinder" else "bottomRadius", 1.0)
    if not (np.isfinite(h) and np.isfinite(r) and h >= 0 and r >= 0):
        return None
    p = Primitive(t, {"center": [0, -h / 2, 0], "axis": [0, 1, 0], "radius": r, "height": h})
    for flag in ("side", "top", "bottom") if t == "Cylinder" else ("side", "bottom"):
        if flag in geom.fields:
            p.extras[flag] = bool(geom.fields[flag])
    return p


def _material(shapes) -> dict | None:
    """The ``.body`` appearance of the first Shape among ``shapes`` with a Material."""
    for n in shapes:
        if n.type != "Shape":
            continue
        app = n.get("appearance")
        mat = app.get("material") if app is not None and not app.skipped else None
        if mat is not None and not mat.skipped and mat.type == "Material":
            rgb = np.asarray(mat.get("diffuseColor", (0.8, 0.8, 0.8)), float).reshape(-1)[:3]
            return {"material": {"diffuseColor": [float(x) for x in rgb],
                                 "transparency": float(mat.get("transparency", 0.0))}}
    return None


def segment_geometry(nodes, T, ctx, owner_name=None) -> list:
    """The geometries of ``nodes`` (plain VRML nodes of one Segment, Surface or device) in
    the link frame; ``T`` places the nodes in the link."""
    max_depth = ctx.limits.max_depth
    prims, rest = _split(nodes, np.asarray(T, float), max_depth)
    out = []
    for shape, M in prims:
        p = _primitive(shape)
        p.transform = M
        app = _material([shape])
        if app is not None:
            p.extras["choreonoid_appearance"] = app
        out.append(p)
    runs: list = []                   # consecutive nodes under one matrix build one mesh
    for node, M in rest:
        if runs and runs[-1][1] is M:
            runs[-1][0].append(node)
        else:
            runs.append(([node], M))
    for group, M in runs:
        if not has_shapes(group, max_depth):
            continue
        mesh = nodes_mesh(group, M, ctx)
        app = _material(_walk(group, max_depth))
        if app is not None:
            mesh.extras["choreonoid_appearance"] = app
        out.append(mesh)
    for g in out:
        g.extras["vrml_node"] = owner_name
    return out
