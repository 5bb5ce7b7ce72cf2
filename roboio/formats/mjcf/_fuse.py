"""``<compiler fusestatic="true">`` as MuJoCo applies it (``mjCModel::FuseStatic``).

MuJoCo compiles every body first (its mass properties, bounded), then visits the bodies in
their order (depth first, as written) and fuses each body that has no joints and is not a
mocap body into its parent, unless the body is named and some other element refers to it
by that name (MuJoCo removes the name and keeps the body when a reference no longer
resolves: ``<exclude>``, ``<equality>`` ``body1``/``body2``, actuators' ``body``, sensors'
``body``, ``objname``/``refname`` of a body or xbody, a camera's or light's ``target``,
skin bones, custom tuples; also a body holding the site of a force or torque sensor):

* its geoms and sites move to the parent, their poses composed with the body's;
* its child bodies take its place among the parent's children, poses composed;
* its mass, centre and inertia are added to the parent's (not when the parent is the
  world, nor when its mass is below ``mjMINVAL``); nothing is bounded again.

Bodies are renumbered afterwards as MuJoCo's compiled model numbers them.
"""
from __future__ import annotations

import numpy as np

from ...transforms import matrix_vector, rotate_tensor
from . import _massprops as MP
from . import _orient as O
from ._orient import MJ_MINVAL

__all__ = ["fuse_static", "referenced_bodies"]

_BODY_ATTRS = ("body", "body1", "body2")
_BODY_TYPES = ("body", "xbody")
_SKIP = ("default", "asset", "compiler", "option", "size", "visual", "statistic", "extension",
         "keyframe")


def _elements(doc, node, depth):
    """Every element below ``node`` (includes expanded), without recursion."""
    stack = [(node, depth)]
    while stack:
        n, d = stack.pop()
        for c in doc.kids(n, d):
            yield c
            stack.append((c, d + 1))


def referenced_bodies(reader) -> tuple:
    """``(names, sites)``: the body names other elements refer to (their copies' names too,
    for names written inside ``<replicate>``) and the names of force/torque sensors' sites."""
    doc = reader.doc
    names, sites = set(), set()
    for tag, nodes in doc.sections.items():
        if tag in _SKIP:
            continue
        for sec in nodes:
            for n in _elements(doc, sec, 2):
                if n.tag in ("body", "attach", "frame", "replicate", "geom", "joint", "freejoint",
                             "inertial", "site"):
                    continue
                if n.tag in ("camera", "light"):
                    names.update(reader.names(n.get("target")))
                    continue
                for k in _BODY_ATTRS:
                    names.update(reader.names(n.get(k)))
                if n.get("objtype") in _BODY_TYPES:
                    names.update(reader.names(n.get("objname")))
                if n.get("reftype") in _BODY_TYPES:
                    names.update(reader.names(n.get("refname")))
                if tag == "sensor" and n.tag in ("force", "torque"):
                    sites.update(reader.names(n.get("site")))
    return names, sites


def _moved(body, child_pos, child_quat) -> tuple:
    return O.accum(body.pos, body.quat, child_pos, child_quat)


def _accumulate(parent: MP.MassProps, other: MP.MassProps, body) -> MP.MassProps:
    """``mjCBody::AccumulateInertia``: ``other`` (in ``body``'s frame) added to ``parent``."""
    R = MP.rotation(body.quat)
    moved = MP.MassProps(other.mass, matrix_vector(R, other.com) + np.asarray(body.pos, float),
                         rotate_tensor(R, other.inertia))
    total = parent.mass + moved.mass
    if total < MJ_MINVAL:
        return MP.MassProps(0.0, np.zeros(3), np.zeros((3, 3)))
    if parent.mass == 0:
        return moved
    return MP.combine([parent, moved])


def _spliced(children: list, fused: set) -> list:
    """``children`` with each fused body replaced by its own children (recursively, in
    order): where MuJoCo inserts a fused body's children in its parent's list."""
    out, stack = [], list(reversed(children))
    while stack:
        c = stack.pop()
        if id(c) in fused:
            stack.extend(reversed(c.children))
        else:
            out.append(c)
    return out


def fuse_static(reader) -> None:
    """Fuses the static bodies of ``reader.world`` (see the module docstring); updates
    ``reader.massprops`` (keyed by body id, renumbered)."""
    world = reader.world
    names, ft_sites = referenced_bodies(reader)
    order = [b for b in world.walk() if b.id > 0]
    props = {id(b): reader.massprops[b.id] for b in order}
    fused = set()
    for b in order:
        if b.joints or b.mocap:
            continue
        if b.name and (b.name in names or any(s.name in ft_sites for s in b.sites if s.name)):
            continue
        par = b.parent
        p = props.pop(id(b))
        if par.id != 0 and p.mass >= MJ_MINVAL:
            q = props[id(par)] = _accumulate(props[id(par)], p, b)
            if not (np.isfinite(q.mass) and np.all(np.isfinite(q.com)) and np.all(np.isfinite(q.inertia))):
                raise reader.doc.error(b.node, f"body {b.label!r} fused into {par.label!r}: mass "
                                               "properties overflow (numbers too large)")
        fused.add(id(b))
        for c in b.children:        # they take its place in the parent (spliced below)
            c.pos, c.quat = _moved(b, c.pos, c.quat)
            c.parent = par
        for g in b.geoms:
            g.pos, g.quat = _moved(b, g.pos, g.quat)
        par.geoms.extend(b.geoms)
        for s in b.sites:
            s.pos, s.quat = _moved(b, s.pos, s.quat)
        par.sites.extend(b.sites)
        b.geoms, b.sites = [], []
    for b in [world] + order:
        if id(b) not in fused:
            b.children = _spliced(b.children, fused)
    for b in order:
        if id(b) in fused:
            b.children = []
    for b in world.walk():
        free = [j for j in b.joints if j.type == "free"]
        if free and b.parent.id != 0:
            raise reader.doc.error(free[0].node, "free joint can only be used on top level")
    reader.massprops = {}
    for k, b in enumerate(world.walk()):
        b.id = k
        if k:
            reader.massprops[k] = props[id(b)]
