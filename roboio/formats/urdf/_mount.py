"""Klamp't's robot mounting and self-collision pair rules, on the model.

Used by the URDF reader for ``<klampt><mount>`` and ``<(no)selfcollision>``; the rules are
Klamp't's (``klampt.md`` §3.11, §3.12), shared with ``.rob`` ``mount`` lines.
"""
from __future__ import annotations

import re
from typing import Optional

import numpy as np

from ...model import Driver, Joint, Link, Robot

__all__ = ["klampt_link_index", "has_geometry", "default_pairs", "default_self_collision_pairs",
           "mount_robot", "mount_geometry"]

_INTEGER = re.compile(r"[+-]?\d+\Z")


def klampt_link_index(names, key: str) -> int:
    """Klamp't's ``LinkIndex``: a token that looks like an integer is an index (even when
    out of range); otherwise the first link of that name; -1 when there is none."""
    if _INTEGER.match(key):
        return int(key)
    for i, n in enumerate(names):
        if n == key:
            return i
    return -1


def has_geometry(link: Link) -> bool:
    """Whether Klamp't would count the link as having geometry (missing files do not)."""
    return link.geometry is not None and not link.geometry.is_empty


def default_pairs(parents, geo) -> set:
    """Every pair (i, j), i < j, of links that both have geometry (``geo[i]``), except
    direct parent/child pairs: Klamp't's default self-collision pairs."""
    idx = [i for i, g in enumerate(geo) if g]
    return {(i, j) for a, i in enumerate(idx) for j in idx[a + 1:]
            if parents[i] != j and parents[j] != i}


def default_self_collision_pairs(robot: Robot) -> set:
    """:func:`default_pairs` of ``robot`` (links with missing files have no geometry)."""
    return default_pairs(robot.parents, [has_geometry(l) for l in robot.links])


def mount_geometry(robot: Robot, link: int, geom, T) -> None:
    """Attach ``geom`` (placed by ``T`` in the link frame) to ``link``: it becomes the
    link geometry, or joins the existing one in a group (roboio keeps both pieces as they
    are; Klamp't merges two meshes into one)."""
    from ...model import Group
    geom = geom.copy().apply_transform(T)
    l = robot.links[link]
    if l.geometry is None or l.geometry.is_empty:
        l.geometry = geom
    elif isinstance(l.geometry, Group) and np.array_equal(l.geometry.transform, np.eye(4)):
        l.geometry.children.append(geom)
    else:
        l.geometry = Group([l.geometry, geom])


def _new_link(sub_link: Link, name: str, parent: int, T) -> Link:
    nl = Link(name, parent, sub_link.joint_type, sub_link.axis, T, sub_link.mass, sub_link.com,
              sub_link.inertia, sub_link.geometry, sub_link.appearance)
    nl.extras = dict(sub_link.extras)
    return nl


def mount_robot(robot: Robot, sub: Robot, link: int, T, prefix: str = "",
                warn=None) -> None:
    """Append ``sub`` to ``robot`` as Klamp't's ``Robot::Mount`` does.

    Sub-link k becomes link ``N0 + k`` (named ``prefix:name`` when ``prefix``); sub-roots
    hang from ``link`` (-1: the world) with their parent transform pre-multiplied by ``T``;
    joints, drivers (names prefixed), self-collision pairs and the ``sensors`` property
    come along renumbered; every new link may collide with every existing one except a
    sub-root with ``link``. ``warn(msg)`` reports what is dropped (the sub-robot's
    ``controller``).
    """
    n0 = robot.num_links
    pre = (lambda s: f"{prefix}:{s}") if prefix else (lambda s: s)
    remap = (lambda i: link if i < 0 else i + n0)
    for k, sl in enumerate(sub.links):
        Tp = np.asarray(T) @ sl.parent_transform if sl.parent < 0 else sl.parent_transform
        robot.add_link(_new_link(sl, pre(sl.name), remap(sl.parent), Tp),
                       qmin=sub.qmin[k], qmax=sub.qmax[k], vmin=sub.vmin[k], vmax=sub.vmax[k],
                       amax=sub.amax[k], tmax=sub.tmax[k], pmax=sub.pmax[k], q=sub.config[k])
    robot.velocity = np.concatenate([robot.velocity[:n0], sub.velocity])
    for j in sub.joints:
        robot.joints.append(Joint(j.type, [i + n0 for i in j.links], remap(j.base)))
    for d in sub.drivers:
        nd = Driver(pre(d.name), d.type, [remap(i) for i in d.dofs], list(d.scale), list(d.offset),
                    d.qmin, d.qmax, d.vmin, d.vmax, d.tmin, d.tmax, d.amin, d.amax, d.servo_p,
                    d.servo_i, d.servo_d, d.dry_friction, d.viscous_friction,
                    remap(d.force_link) if d.type in ("translation", "rotation") else d.force_link,
                    dict(d.extras))
        robot.drivers.append(nd)
    pairs = set(robot.self_collision_pairs)
    pairs |= {(i + n0, j + n0) for i, j in sub.self_collision_pairs}
    geo = [has_geometry(l) for l in robot.links]
    for k, sl in enumerate(sub.links):
        j = n0 + k
        if not geo[j]:
            continue
        for i in range(n0):
            if geo[i] and not (sl.parent < 0 and i == link):
                pairs.add((i, j))
    robot.self_collision_pairs = pairs
    _mount_properties(robot, sub, n0, link, prefix, warn)


def _mount_properties(robot: Robot, sub: Robot, n0: int, link: int, prefix: str, warn) -> None:
    if "controller" in sub.properties and warn is not None:
        warn(f"the controller property of the mounted robot {sub.name!r} is dropped (as in Klamp't)")
    text = sub.properties.get("sensors")
    if text is None:
        return
    from lxml import etree
    try:
        mine = etree.fromstring(text.encode())
    except etree.XMLSyntaxError as e:
        if warn is not None:
            warn(f"the sensors of the mounted robot {sub.name!r} are not valid XML ({e}); dropped")
        return
    for c in mine:
        if not isinstance(c.tag, str):
            continue
        if c.get("link") is not None:
            v = c.get("link").strip()
            if _INTEGER.match(v):
                c.set("link", str(link if int(v) < 0 else int(v) + n0))
            elif prefix:
                c.set("link", f"{prefix}:{v}")
        elif c.get("indices") is not None:
            c.set("indices", " ".join(str(int(x) + n0) for x in c.get("indices").split()
                                      if _INTEGER.match(x)))
        if prefix and c.get("name") is not None:
            c.set("name", f"{prefix}:{c.get('name')}")
    old = robot.properties.get("sensors")
    if old is None:
        robot.properties["sensors"] = etree.tostring(mine, encoding="unicode")
        return
    try:
        base = etree.fromstring(old.encode())
    except etree.XMLSyntaxError:
        if warn is not None:
            warn("the robot's own sensors are not valid XML; the mounted robot's sensors are dropped")
        return
    for c in list(mine):
        base.append(c)
    robot.properties["sensors"] = etree.tostring(base, encoding="unicode")
