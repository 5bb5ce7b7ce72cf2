"""Body records -> roboio links: the chain of one-DOF links each MuJoCo body becomes, its
geometry and its mass properties.

Chain rule (MuJoCo's ``mj_kinematics``: a body's joints act one after the other in the
body frame, each about its own anchor ``pos``; hinge and slide values count from ``ref``):

* hinge: a revolute link at the anchor, ``parent_transform = pending @ Trans(pos) @
  Rot(axis, -ref)``, so that the link value *is* MuJoCo's ``qpos``; what follows starts at
  ``Trans(-pos)``;
* slide: a prismatic link, ``parent_transform = pending @ Trans(-ref axis)``;
* ball: three revolute links about z, y, x at the anchor (Klamp't's ``ballandsocket``);
* free: six links x, y, z, rz, ry, rx from the world (Klamp't's ``floating``);
* the body's own link (named after the body, carrying its geometry and mass) is the last
  joint's link when nothing is left over, else a welded link placed by what is left
  (a body without joints is one welded link).

Links that are not the body's own are massless and named after their joint (``base0`` ..
``base4`` for a free joint, ``<joint>_rz``/``<joint>_ry`` for a ball).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ...model import Appearance, Group, Link, Primitive, TriangleMesh
from ...transforms import axis_angle_to_matrix, compose, make_transform, matrix_to_rpy, symmetric_eigen3
from . import _massprops as MP
from ._orient import inertia_matrix, quat_to_mat
from ._tree import Body, GeomRec

__all__ = ["LinkSpec", "body_chain", "body_pose", "geom_geometry", "body_geometry", "DEFAULT_RGBA",
           "VISIBLE_GROUPS"]

DEFAULT_RGBA = (0.5, 0.5, 0.5, 1.0)
VISIBLE_GROUPS = (0, 1, 2)          # geom groups MuJoCo's viewers draw by default
INFINITE_PLANE = 50.0               # m: half size of the square an infinite plane becomes
_X, _Y, _Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)


@dataclass
class LinkSpec:
    """One link to create: ``parent`` is a key into the specs made so far (None: the parent
    body's link, or the world for a free joint's first link)."""

    name: str
    kind: str                      # "revolute" | "prismatic"
    axis: tuple
    T: np.ndarray
    group: str                     # Klamp't joint type: normal, spin, weld, floating, ballandsocket
    q0: float = 0.0
    qmin: float = -np.inf
    qmax: float = np.inf
    joint: object = None           # the JointRec
    body_link: bool = False
    world_parent: bool = False
    extras: dict = field(default_factory=dict)


def body_pose(b: Body) -> np.ndarray:
    return make_transform(_mat(b.quat), b.pos)


def _mat(q) -> np.ndarray:
    return np.array(quat_to_mat(q), float).reshape(3, 3)   # (= _orient.quat_matrix, unvectorised)


def _trans(p) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = p
    return T


def body_chain(b: Body, names) -> list:
    """The :class:`LinkSpec` chain of body ``b`` (see the module docstring); ``names`` makes
    link names unique (``names.take(name)``)."""
    label = b.label
    pending = body_pose(b)
    specs: list = []
    for j in b.joints:
        jn = j.name
        if j.type == "free":
            base = [names.take(f"base{k}") if b.parent is not None and b.parent.id == 0
                    else names.take(f"{label}_base{k}") for k in range(5)]
            T = pending
            xyz = T[:3, 3]
            roll, pitch, yaw = (float(v) for v in matrix_to_rpy(T[:3, :3]))
            q0 = [xyz[0], xyz[1], xyz[2], yaw, pitch, roll]
            for k, (kind, ax) in enumerate((("prismatic", _X), ("prismatic", _Y), ("prismatic", _Z),
                                            ("revolute", _Z), ("revolute", _Y), ("revolute", _X))):
                specs.append(LinkSpec(base[k] if k < 5 else None, kind, ax, np.eye(4), "floating",
                                      float(q0[k]), joint=j, world_parent=(k == 0)))
            pending = np.eye(4)
        elif j.type == "ball":
            stem = jn or label
            T0 = compose(pending, _trans(j.pos))     # (the MJCF writer reproduces these bits)
            for k, ax in enumerate((_Z, _Y, _X)):
                nm = names.take(f"{stem}_{'rz' if k == 0 else 'ry'}") if k < 2 else None
                specs.append(LinkSpec(nm, "revolute", ax, T0 if k == 0 else np.eye(4), "ballandsocket",
                                      joint=j))
            if j.limited:
                specs[-1].extras["ball_range"] = j.range[1]
            pending = _trans([-v for v in j.pos])
        elif j.type == "hinge":
            T = compose(pending, _trans(j.pos))      # (element-wise: the MJCF writer's anchors
            if j.ref != 0:                            # reproduce these bits on any machine)
                T = compose(T, make_transform(axis_angle_to_matrix(j.axis, -j.ref), None))
            lo, hi = (j.range if j.limited else (-np.inf, np.inf))
            specs.append(LinkSpec(None, "revolute", j.axis, T, "normal" if j.limited else "spin",
                                  j.ref, lo, hi, joint=j))
            if j.ref != 0:
                specs[-1].extras["ref"] = j.ref       # (MuJoCo's qpos0: the MJCF writer keeps it)
            pending = _trans([-v for v in j.pos])
        else:   # slide
            T = pending
            if j.ref != 0:
                T = compose(T, _trans([-j.ref * v for v in j.axis]))
            lo, hi = (j.range if j.limited else (-np.inf, np.inf))
            specs.append(LinkSpec(None, "prismatic", j.axis, T, "normal", j.ref, lo, hi, joint=j))
            if j.ref != 0:
                specs[-1].extras["ref"] = j.ref
            pending = np.eye(4)
    if specs and np.array_equal(pending, np.eye(4)):
        last = specs[-1]
        last.name = names.take(label)
        last.body_link = True
    else:
        specs.append(LinkSpec(names.take(label), "revolute", _Z, pending, "weld", qmin=0.0, qmax=0.0,
                              body_link=True))
    for s in specs:
        if s.name is None:
            s.name = names.take(s.joint.name or f"{label}_joint")
    return specs


# -- geometry -------------------------------------------------------------------------------
def geom_pose(g: GeomRec) -> np.ndarray:
    return make_transform(_mat(g.quat), g.pos)


def geom_geometry(g: GeomRec, reader) -> Optional[object]:
    """roboio geometry of one geom in its body's frame (None for what roboio cannot hold:
    SDFs, with a warning)."""
    T = geom_pose(g)
    s = g.size
    k = g.type
    if g.mesh is not None and k not in ("mesh", "sdf"):
        reader.doc.warn(g.node, f"geom {g.name or ''!r} of type {k} fitted to mesh {g.mesh!r}: "
                                "read as the mesh itself", kind="guessed")
        k = "mesh"
    if k == "sphere":
        geo = Primitive("Sphere", {"center": [0.0, 0.0, 0.0], "radius": s[0]})
    elif k in ("capsule", "cylinder"):
        geo = Primitive("Capsule" if k == "capsule" else "Cylinder",
                        {"center": [0.0, 0.0, -s[1]], "axis": [0.0, 0.0, 1.0], "radius": s[0],
                         "height": 2 * s[1]})
    elif k == "ellipsoid":
        geo = Primitive("Ellipsoid", {"center": [0.0, 0.0, 0.0], "xaxis": _X, "yaxis": _Y, "zaxis": _Z,
                                      "dims": list(s)})
    elif k == "box":
        geo = Primitive("Box", {"origin": [-s[0], -s[1], -s[2]], "xaxis": _X, "yaxis": _Y, "zaxis": _Z,
                                "dims": [2 * s[0], 2 * s[1], 2 * s[2]]})
    elif k == "plane":
        hx, hy = s[0], s[1]
        if hx <= 0 or hy <= 0:
            reader.doc.warn(g.node, f"infinite plane {g.name or ''!r} read as a square of "
                                    f"{2 * INFINITE_PLANE:g} m", kind="changed")
            hx = hx if hx > 0 else INFINITE_PLANE
            hy = hy if hy > 0 else INFINITE_PLANE
        geo = TriangleMesh([[-hx, -hy, 0.0], [hx, -hy, 0.0], [hx, hy, 0.0], [-hx, hy, 0.0]],
                           [[0, 1, 2], [0, 2, 3]])
    elif k == "hfield":
        asset = reader.hfields.get(g.hfield)
        if asset is None:
            raise reader.doc.error(g.node, f"unknown hfield {g.hfield!r} in geom")
        geo = asset.geometry()
    elif k == "mesh":
        asset = reader.meshes.get(g.mesh)
        if asset is None:
            raise reader.doc.error(g.node, f"unknown mesh {g.mesh!r} in geom")
        if asset.plugin:
            return None
        geo = asset.geometry(reader.doc)
    else:
        reader.doc.warn(g.node, f"{k} geom {g.name or ''!r} is not read by roboio (no such geometry)", kind="unsupported")
        return None
    geo.transform = compose(T, geo.transform)
    info = {"type": g.type, "group": g.group, "contype": g.contype, "conaffinity": g.conaffinity}
    if g.name:
        info["name"] = g.name
    rgba = reader.color(g)
    info["rgba"] = list(rgba)
    if g.material:
        info["material"] = g.material
    if k == "plane":
        info["size"] = [float(v) for v in s]       # written back as this plane while unchanged
    geo.extras["mjcf"] = info
    return geo


def _one(items: list):
    if not items:
        return None
    if len(items) == 1:
        return items[0]
    return Group(items)


def body_geometry(geoms: list, reader) -> tuple:
    """``(collision geometry, visual geometry or None, colour)`` of a body's geoms: geoms
    that can collide (``contype`` or ``conaffinity`` non-zero) are the collision geometry;
    the geoms MuJoCo draws by default (groups 0-2) the visual one, given separately only
    when it differs; the colour of the first drawn geom (a geom of another colour has it as
    its own ``appearance``)."""
    made = []
    for g in geoms:
        geo = geom_geometry(g, reader)
        if geo is not None:
            made.append((g, geo))
    coll = [geo for g, geo in made if not g.visual]
    vis = [geo for g, geo in made if g.group in VISIBLE_GROUPS]
    color = next((reader.color(g) for g, _ in made if g.group in VISIBLE_GROUPS), None)
    for g, geo in made:         # a geom of another colour keeps it as its own appearance
        rgba = tuple(float(c) for c in reader.color(g))
        if color is not None and rgba != tuple(color):
            geo.appearance = Appearance(color=rgba)
    if [id(x) for x in vis] == [id(x) for x in coll] or not vis:
        return _one(coll), None, color
    return _one(coll), _one([v.copy() if any(v is c for c in coll) else v for v in vis]), color


# -- mass properties ------------------------------------------------------------------------
def body_massprops(b: Body, reader) -> Optional[MP.MassProps]:
    """A body's mass properties in its frame as MuJoCo compiles them, before the
    model-wide bounds (``boundmass``, ``settotalmass``)."""
    c = reader.doc.compiler
    props = None
    if b.inertial is not None:
        it = b.inertial
        if it.full is not None:
            f = it.full
            I = np.array([[f[0], f[3], f[4]], [f[3], f[1], f[5]], [f[4], f[5], f[2]]], float)
            if symmetric_eigen3(I)[0][0] < 1e-14:
                raise reader.doc.error(it.node, "error 'inertia must have positive eigenvalues' in fullinertia")
        else:
            I = inertia_matrix(tuple(it.quat) + tuple(it.diag))
        props = MP.MassProps(it.mass, np.array(it.pos, float), I)
    if c.inertiafromgeom == "true" or (c.inertiafromgeom == "auto" and b.inertial is None):
        lo, hi = c.inertiagrouprange
        parts = []
        for g in b.geoms:
            if not lo <= g.group <= hi:
                continue
            parts.append(reader.geom_mass(g))
        parts = [p for p in parts if p is not None]
        if parts:
            props = MP.combine(parts)
    return props
