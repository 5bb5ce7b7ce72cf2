"""Multi-axis joints in a roboio model: which chains of links the OpenRAVE writers (XML and
COLLADA) write back as **one** joint with several axes.

roboio's model has one DOF per link, so a joint with several axes (an OpenRAVE
``universal``/``hinge2``, a COLLADA ``<joint>`` holding several ``<revolute>``/``<prismatic>``
axes) is read as a chain of links, one per axis: the links before the last are massless,
carry nothing and sit where the joint is (see ``.._build``). A writer folds such a chain
back into one joint only when **the model says it was one joint** -- its links share one
``Link.joint_name`` (or OpenRAVE's ``extras["openrave"]`` marks them as intermediate links of
the same joint) -- and it has the shape one joint can hold exactly:

* each link of the chain is the only child of the one before; 2 to 3 of them move (OpenRAVE
  supports 1 to 3 axes), a welded link may follow the last axis (the joint's child link
  when its origin is off the joint's axes);
* every link before the last is bare: no mass, no geometry, no sensor, not a manipulator's
  base or effector;
* the axes meet where the joint is: between the first axis and a later revolute axis the
  links are not displaced (translation at most ``ANCHOR_TOL``, the reader's own rule for "the
  axis passes through the origin"); rotations between them are folded into the axes;
* each moving link is the DOF of its own driver (``normal``, or ``affine`` with scale 1 and
  offset 0 on that link alone), the drivers consecutive in the driver order and in axis order
  (OpenRAVE numbers a joint's DOFs consecutively), and no coupling reads them -- unless the
  writer can address a single axis in equations (``followers=True``: OpenRAVE XML's
  ``name_1``; COLLADA formulas cannot address a multi-axis joint at all).

A chain of the same shape whose links do not say they were one joint stays as separate
joints: a writer must not merge what the source kept separate. A chain that says it was one
joint but lacks the shape is written link by link, and the writer reports why.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ...transforms import compose

__all__ = ["AxisChain", "axis_chains", "continues_joint", "report_folded_names", "ANCHOR_TOL", "MAX_AXES"]

ANCHOR_TOL = 1e-12      # metres, as the OpenRAVE builder decides an axis passes through an origin
MAX_AXES = 3            # OpenRAVE's joints have 1 to 3 axes


@dataclass
class AxisChain:
    """One multi-axis joint found in a model.

    ``links``: its model links, parent first (the axis links, then the welded child link if
    any); ``axes``: the moving ones, in the order the joint applies them; ``body``: the last
    link, the joint's child link in OpenRAVE; ``parent``: the model link it hangs from.
    ``att``: the joint frame in the parent link's frame (4x4); ``directions``: each axis as a
    unit vector in the joint frame; ``own``: the child link's frame in the joint frame at
    q = 0 (so that ``att . M_0(q_0) ... M_n(q_n) . own`` is the child link's pose relative to
    its parent, as COLLADA writes a joint). ``kinds``: one letter per axis, ``R``/``P``.
    ``name``: the joint's name in the model (None when unnamed); ``source_type``: the OpenRAVE
    joint type it was read from (``universal``, ``hinge2``, ``RR``, ...) or None.
    ``drivers``: driver indices, one per axis. ``offset``: the largest displacement found
    between axes (metres, at most ``ANCHOR_TOL``)."""

    links: list
    axes: list
    body: int
    parent: int
    att: np.ndarray
    directions: list
    own: np.ndarray
    kinds: str
    name: Optional[str]
    source_type: Optional[str]
    drivers: list = field(default_factory=list)
    offset: float = 0.0


def _openrave(link) -> dict:
    e = link.extras.get("openrave")
    return e if isinstance(e, dict) else {}


def _joint_id(link):
    """What says which source joint moves ``link``: its joint name, else OpenRAVE's record of
    the link it is an intermediate of (or, for an OpenRAVE link, its own name)."""
    if link.joint_name:
        return ("name", link.joint_name)
    e = _openrave(link)
    if e.get("intermediate") and e.get("of_link") is not None:
        return ("of", e["of_link"])
    if isinstance(e.get("joint"), dict):
        return ("of", link.name)
    return None


def continues_joint(robot, i: int) -> bool:
    """Whether link ``i`` and its parent belong to one source joint (a further axis, or the
    link welded behind a joint's axes): a writer that writes them as separate joints names
    only the first after the source joint."""
    p = robot.links[i].parent
    return p >= 0 and _joint_id(robot.links[i]) is not None and \
        _joint_id(robot.links[i]) == _joint_id(robot.links[p])


def _bare(robot, i, referenced) -> bool:
    """A link that holds nothing of its own (a joint's intermediate link)."""
    l = robot.links[i]
    return (l.mass == 0 and _empty(l.geometry) and _empty(l.visual_geometry)
            and i not in referenced)


def _empty(g) -> bool:
    from ...model import Group
    if g is None:
        return True
    return isinstance(g, Group) and all(_empty(c) for c in g.children)


def axis_chains(robot, frame: Optional[Callable] = None, *, kinds_ok: Optional[Callable] = None,
                followers: bool = False):
    """The multi-axis joints of ``robot`` a writer can write as one joint (see the module
    docstring) and those it cannot.

    ``frame(i)``: the parent transform of link ``i`` as the writer writes it (default
    ``parent_transform``); ``kinds_ok(kinds, chain)``: None when the target holds a joint of
    these axis kinds (``"RR"``, ``"RP"``, ...), else the reason it does not; ``followers``:
    whether other links may follow an axis's driver (the target can address each axis).
    Returns ``(chains, refused)``: ``{child link index: AxisChain}`` and a list of
    ``(joint name, reason, source type)`` for the chains the model says are one joint but that
    are written one joint per axis (source type: the OpenRAVE joint type read, or None)."""
    frame = frame or (lambda i: np.asarray(robot.links[i].parent_transform, float))
    links = robot.links
    n = len(links)
    ids = [_joint_id(l) for l in links]
    children = [[] for _ in range(n)]
    for l in links:
        if l.parent >= 0:
            children[l.parent].append(l.index)
    group = {}
    for j in robot.joints:
        for k in j.links:
            group.setdefault(k, j.type)
    referenced = set()
    for s in robot.sensors:
        referenced.add(s.link)
    for m in robot.manipulators:
        referenced.update((m.base, m.effector))
    chains, refused = {}, []
    for head in range(n):
        if ids[head] is None or (links[head].parent >= 0 and ids[links[head].parent] == ids[head]):
            continue
        run, i, branched = [head], head, False
        while True:
            same = [c for c in children[i] if ids[c] == ids[head]]
            if not same:
                break
            if len(same) > 1:
                branched = True
                break
            i = same[0]
            run.append(i)
        moving = [k for k in run if group.get(k, "normal") != "weld"]
        if len(moving) < 2:
            continue                      # one axis: not a multi-axis joint
        src = _openrave(links[run[-1]]).get("joint", {})
        src_type = src.get("type") if isinstance(src, dict) else None
        name = links[moving[0]].joint_name or (src.get("name") if isinstance(src, dict) else None)
        label = name or links[run[-1]].name
        if branched:
            refused.append((label, "its links branch", src_type))
            continue
        chain, why = _chain(robot, run, moving, frame, group, children, referenced, followers)
        if chain is None:
            refused.append((label, why, src_type))
            continue
        why = kinds_ok(chain.kinds, chain) if kinds_ok is not None else None
        if why:
            refused.append((label, why, src_type))
            continue
        chain.name = name
        chains[chain.body] = chain
    return chains, refused


def _chain(robot, run, moving, frame, group, children, referenced, followers):
    """The AxisChain of ``run`` or ``(None, reason)``."""
    links = robot.links
    if len(moving) > MAX_AXES:
        return None, f"{len(moving)} axes (OpenRAVE joints have at most {MAX_AXES})"
    if run[:len(moving)] != moving or len(run) > len(moving) + 1:
        return None, "welded links between or after its axes"
    for k in run[:-1]:
        if len(children[k]) != 1:
            return None, f"link {links[k].name!r} between its axes has other children"
        if not _bare(robot, k, referenced):
            return None, (f"link {links[k].name!r} between its axes carries mass, geometry, "
                          "a sensor or a manipulator")
    # drivers: one per axis, consecutive, each moving its axis alone (see the module docstring)
    driver_of = {}
    for di, d in enumerate(robot.drivers):
        for k in d.dofs:
            driver_of.setdefault(k, []).append(di)
    dis = []
    for k in moving:
        ds = driver_of.get(k, [])
        if len(ds) != 1:
            return None, (f"axis link {links[k].name!r} is moved by {len(ds)} drivers"
                          if ds else f"axis link {links[k].name!r} has no driver")
        d = robot.drivers[ds[0]]
        lead = d.dofs.index(k)
        if d.type not in ("normal", "affine") or (
                d.type == "affine" and (float(d.scale[lead]) != 1.0 or float(d.offset[lead]) != 0.0)):
            return None, f"driver {d.name!r} of axis link {links[k].name!r} is not its joint value"
        if len(d.dofs) > 1 and (not followers or lead != 0 or d.leader not in (None, k)):
            return None, f"driver {d.name!r} also moves other links"
        dis.append(ds[0])
    if dis != list(range(dis[0], dis[0] + len(dis))):
        return None, "the drivers of its axes are not consecutive"
    if not followers:
        for d in robot.drivers:
            inputs = getattr(getattr(d, "coupling", None), "inputs", None) or ()
            if d.type == "nonlinear" and any(x in dis for x in inputs):
                return None, f"driver {d.name!r} reads an axis of it (a coupling)"
    # frames: att . M(b0) . M(b1) ... own
    kinds = "".join("P" if links[k].is_prismatic else "R" for k in moving)
    att = np.array(frame(run[0]), float)
    P = np.eye(4)
    directions, offset = [], 0.0
    for n_, k in enumerate(moving):
        if n_ > 0:
            P = compose(P, np.asarray(frame(k), float))     # (element-wise: file numbers)
            t = float(np.abs(P[:3, 3]).max())
            if kinds[n_] == "R":
                if t > ANCHOR_TOL:
                    return None, (f"axis link {links[k].name!r} is {t:.3g} m away from the "
                                  "joint's first axis (the axes do not meet)")
                offset = max(offset, t)
        a = np.asarray(links[k].axis, float)
        directions.append(compose(P[:3, :3], a.reshape(3, 1))[:, 0] if n_ > 0 else a.copy())
    own = compose(P, np.asarray(frame(run[-1]), float)) if run[-1] not in moving else P
    body = run[-1]
    src = _openrave(links[body]).get("joint", {})
    return AxisChain(links=list(run), axes=list(moving), body=body, parent=links[run[0]].parent,
                     att=att, directions=directions, own=own, kinds=kinds, name=None,
                     source_type=src.get("type") if isinstance(src, dict) else None,
                     drivers=dis, offset=offset), None


def report_folded_names(robot, chain: AxisChain, report) -> None:
    """Record in ``report.renamed`` the links of ``chain`` written inside its joint whose
    names do not come back: OpenRAVE's readers name a multi-axis joint's intermediate links
    ``<joint>.axis<k>`` (a model built by hand may call them otherwise)."""
    joint = chain.name or robot.links[chain.body].name
    for k, i in enumerate(chain.links[:-1]):
        old, new = robot.links[i].name, f"{joint}.axis{k}"
        if old != new:
            report.rename("links", old, new)
