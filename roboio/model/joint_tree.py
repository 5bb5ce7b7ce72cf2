"""A robot's kinematic tree as users draw it: links joined by named joints of the types URDF
and ROS users know, instead of Klamp't's one-DOF-per-link layout.

* a welded link is a ``fixed`` joint;
* a Klamp't ``floating`` joint group (six links: x, y, z, then rotations, the first five
  virtual) is one ``floating`` joint to its last link; ``floatingplanar`` one ``planar``
  joint, ``ballandsocket`` one ``ball`` joint; the virtual links are not shown;
* a revolute link is ``continuous`` when its joint group is ``spin`` or both its limits are
  infinite, else ``revolute``; a prismatic link is ``prismatic``;
* a link an affine driver moves but whose value is not the driver's own (a URDF ``<mimic>``
  follower, an OpenRAVE mimic joint, a GraspIt! coupled joint) carries ``mimic``: the leader
  joint (or only the driver, when no link follows the driver one to one), multiplier and
  offset: ``value = offset + multiplier * leader``.

:func:`joint_tree` returns one :class:`TreeJoint` per shown link, in link order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

__all__ = ["TreeJoint", "joint_tree", "MULTI_LINK_TYPES"]

# Klamp't joint groups spanning several links, and what users call them
MULTI_LINK_TYPES = {"floating": "floating", "floatingplanar": "planar", "ballandsocket": "ball"}


@dataclass
class TreeJoint:
    """The joint that attaches link ``child`` to link ``parent`` (-1: the world).

    ``name``: the file's joint name (``Link.joint_name``) or None; ``type``: fixed,
    revolute, continuous, prismatic, floating, planar or ball; ``links``: the robot links
    the joint spans (the virtual links of a floating base, then ``child``); ``axis`` in the
    child's frame (None for fixed and multi-link joints); ``lower``/``upper`` in radians or
    metres (None where unbounded or not applicable); ``joint``: index in
    ``robot.joint_space`` of the joint that moves it (None: no joint moves it); ``mimic``:
    ``{"leader": link name or None, "driver": name, "multiplier": m, "offset": o}``.
    """

    child: int
    parent: int
    type: str
    links: list
    name: Optional[str] = None
    axis: Optional[np.ndarray] = None
    lower: Optional[float] = None
    upper: Optional[float] = None
    joint: Optional[int] = None
    mimic: Optional[dict] = None


def _finite(x: float) -> Optional[float]:
    x = float(x)
    return x if np.isfinite(x) else None


def joint_tree(robot) -> list:
    """One :class:`TreeJoint` per link that is shown (see the module docstring), in link
    order; the virtual links of multi-link joints are folded into the joint."""
    group_of = {}
    for j in robot.joints:
        for i in j.links:
            group_of[i] = j
    hidden = set()
    for j in robot.joints:
        if j.type in MULTI_LINK_TYPES:
            hidden.update(j.links[:-1])

    def shown_parent(i: int) -> int:
        p = robot.links[i].parent
        while p >= 0 and p in hidden:
            p = robot.links[p].parent
        return p

    js = robot.joint_space
    moved_by = {}            # link index -> (joint index, position in the driver's dofs)
    for k in range(len(js)):
        for pos, i in enumerate(js.dofs(k)):
            moved_by.setdefault(i, (k, pos))
    drivers = robot.drivers
    out = []
    for link in robot.links:
        i = link.index
        if i in hidden:
            continue
        g = group_of.get(i)
        tj = TreeJoint(child=i, parent=shown_parent(i), type="", links=[i],
                       name=link.joint_name)
        if g is not None and g.type in MULTI_LINK_TYPES and len(g.links) > 1:
            tj.type = MULTI_LINK_TYPES[g.type]
            tj.links = list(g.links)
            tj.parent = robot.links[g.links[0]].parent
            while tj.parent >= 0 and tj.parent in hidden:
                tj.parent = robot.links[tj.parent].parent
            out.append(tj)
            continue
        if g is not None and g.type == "weld":
            tj.type = "fixed"
            out.append(tj)
            continue
        lo, hi = _finite(robot.qmin[i]), _finite(robot.qmax[i])
        if link.is_prismatic:
            tj.type = "prismatic"
        elif (g is not None and g.type == "spin") or (lo is None and hi is None):
            tj.type = "continuous"
        else:
            tj.type = "revolute"
        tj.axis = np.asarray(link.axis, float).copy()
        if tj.type != "continuous":
            tj.lower, tj.upper = lo, hi
        if i in moved_by:
            k, pos = moved_by[i]
            tj.joint = k
            if drivers:
                d = drivers[k]
                lead = js.links[k]
                lead_direct = lead is not None and _direct(d, lead)
                if d.type == "nonlinear" and (i != lead or not lead_direct):
                    from .coupling import expression_text
                    fn = getattr(d.coupling, "functions", None)
                    names = [robot.drivers[j].name for j in d.coupling.inputs]
                    tj.mimic = {"leader": robot.links[lead].name if lead_direct else None,
                                "driver": d.name,
                                "function": (expression_text(fn[pos], names) if fn is not None
                                             else "rotation vector of " + ", ".join(names))}
                elif d.type == "affine" and (i != lead or not lead_direct):
                    tj.mimic = {"leader": robot.links[lead].name if lead_direct else None,
                                "driver": d.name, "multiplier": float(d.scale[pos]),
                                "offset": float(d.offset[pos])}
        out.append(tj)
    return out


def _direct(d, link: int) -> bool:
    """Whether driver ``d`` sets ``link`` to exactly its own value."""
    if d.type == "nonlinear":
        return getattr(d.coupling, "functions", None) is not None and d.leader == link
    if d.type != "affine":
        return d.dofs[:1] == [link]
    pos = d.dofs.index(link)
    return d.scale[pos] == 1.0 and d.offset[pos] == 0.0
