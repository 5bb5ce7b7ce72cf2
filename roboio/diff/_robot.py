"""The comparisons of :func:`roboio.diff.diff`, element by element: a robot's links (through
:func:`roboio.link_match.match_links`, as ``roboio verify`` pairs them), their joints,
frames, limits, inertial properties, geometry and colours, its drivers and self-collision
pairs; a rigid object's or terrain's pose, mass and geometry. Each difference goes to
``out`` as a :class:`~roboio.diff.Difference` with its kind and size."""
from __future__ import annotations

import math
import os
from typing import Optional

import numpy as np

from ..link_match import match_links
from ..model import RigidObject
from ..model.posed import DEFAULT_COLORS
from ..verify_dynamics import inertia_change
from ._record import Difference
from ._shapes import compare_colours, compare_shapes, shape_of

__all__ = ["compare_robots", "compare_element", "compare_geometry", "close"]

KIN, DYN, GEO, NAMES = "kinematics", "dynamics", "geometry", "names"

# limit arrays of a Robot: (kind, unit of a revolute link, unit of a prismatic link)
_LIMITS = {"qmin": (KIN, "rad", "m"), "qmax": (KIN, "rad", "m"),
           "vmin": (KIN, "rad/s", "m/s"), "vmax": (KIN, "rad/s", "m/s"),
           "amax": (KIN, "rad/s^2", "m/s^2"), "tmax": (DYN, "N m", "N"), "pmax": (DYN, "W", "W")}
_DRIVER_LIMITS = {"qmin": KIN, "qmax": KIN, "vmin": KIN, "vmax": KIN, "amin": KIN, "amax": KIN,
                  "tmin": DYN, "tmax": DYN}
_DRIVER_GAINS = ("servo_p", "servo_i", "servo_d", "dry_friction", "viscous_friction")


def close(a, b, tol: float, relative: bool = False) -> bool:
    """Whether ``a`` and ``b`` (numbers or arrays) agree within ``tol`` (relative to the
    larger magnitude, at least 1, with ``relative``); equal infinities agree, NaN agrees
    with NaN."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    if a.shape != b.shape:
        return False
    same = a == b
    scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), 1.0) if relative else 1.0
    with np.errstate(invalid="ignore"):
        ok = same | (np.abs(a - b) <= tol * scale)
    ok |= np.isnan(a) & np.isnan(b)
    return bool(np.all(ok))


def _gap(a, b) -> float:
    """The largest absolute difference of ``a`` and ``b`` (inf where one is infinite)."""
    with np.errstate(invalid="ignore"):
        d = np.abs(np.asarray(a, float) - np.asarray(b, float))
    d = np.where(np.asarray(a, float) == np.asarray(b, float), 0.0, d)
    return float(np.nanmax(d)) if d.size else 0.0


def _angle(Ra, Rb) -> float:
    """Angle (rad) of the rotation taking ``Ra`` to ``Rb``."""
    R = np.asarray(Ra, float).T @ np.asarray(Rb, float)
    s = np.linalg.norm([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / 2
    return float(math.atan2(s, (np.trace(R) - 1) / 2))


def _pose(kind_of_place: str, what: str, name: str, Ta, Tb, tol: float, out: list,
          fields=("origin translation", "origin rotation")) -> None:
    """Translation (m) and rotation (rad) differences of two 4x4 frames."""
    Ta, Tb = np.asarray(Ta, float), np.asarray(Tb, float)
    if not close(Ta[:3, 3], Tb[:3, 3], tol):
        out.append(Difference(kind_of_place, what, name, fields[0], Ta[:3, 3], Tb[:3, 3],
                              float(np.linalg.norm(Tb[:3, 3] - Ta[:3, 3])), "m"))
    Ra, Rb = Ta[:3, :3], Tb[:3, :3]
    entries = float(np.abs(Ra - Rb).max())
    if entries > tol:
        ang = _angle(Ra, Rb)
        out.append(Difference(kind_of_place, what, name, fields[1], Ra, Rb, ang, "rad",
                              f"differs by {ang:.3g} rad (matrix entries by {entries:.3g})"))


class _Tree:
    """A robot's joint groups, and each matched link's place among the matched links: its
    nearest matched ancestor (-1: the world) and its frame in that ancestor's at q = 0
    (welded links at their configured value), so that links one side inserts between two
    matched links (a GraspIt! chain's DH joints) leave the comparison of frames intact."""

    def __init__(self, robot, matched: set):
        self.robot = robot
        self.groups = robot.joints_of_links()
        self.welded = {i for i, j in self.groups.items() if j.type == "weld"}
        self.matched = matched

    def group(self, i: int) -> str:
        j = self.groups.get(i)
        return j.type if j is not None else "normal"

    def anchor(self, i: int) -> tuple:
        """``(nearest matched ancestor or -1, link i's frame in its frame at q = 0)``."""
        links = self.robot.links
        T = np.asarray(links[i].parent_transform, float)
        k = links[i].parent
        while k >= 0 and k not in self.matched:
            q = self.robot.config[k] if k in self.welded else 0.0
            T = links[k].joint_transform(q) @ T
            k = links[k].parent
        return k, T


def _ranks(indices) -> dict:
    return {x: k for k, x in enumerate(sorted(indices))}


def _order(what: str, prefix: str, owner: str, names: list, ia: list, ib: list, out: list) -> None:
    """One difference when the matched items (``ia`` in A, ``ib`` in B, paired) come in
    another order in B: how many moved, the first few."""
    ra, rb = _ranks(ia), _ranks(ib)
    moved = [(n, i, j) for n, i, j in zip(names, ia, ib) if ra[i] != rb[j]]
    if not moved:
        return
    shown = ", ".join(f"{n} {i} -> {j}" for n, i, j in moved[:3])
    more = f", +{len(moved) - 3} more" if len(moved) > 3 else ""
    out.append(Difference(KIN, "robot", prefix + owner, f"{what} order", [i for _, i, _ in moved],
                          [j for _, _, j in moved], float(len(moved)), what + "s",
                          f"{len(moved)} of {len(ia)} {what}s at other indices ({shown}{more})"))


def compare_robots(a, b, tol: float, out: list, kinds: set, prefix: str = "",
                   link_map: Optional[dict] = None) -> tuple:
    """Compare robots ``a`` and ``b``; returns ``(links matched, how)``."""
    match = match_links(a, b, link_map, place=True)
    pairs = match.pairs
    of_a = dict(pairs)
    for i in match.only_a:
        out.append(Difference(KIN, "link", prefix + a.links[i].name, "removed"))
    for j in match.only_b:
        out.append(Difference(KIN, "link", prefix + b.links[j].name, "added"))
    _order("link", prefix, a.name, [a.links[i].name for i, _ in pairs], [i for i, _ in pairs],
           [j for _, j in pairs], out)
    ta, tb = _Tree(a, set(of_a)), _Tree(b, set(of_a.values()))
    for i, j in pairs:
        la, lb = a.links[i], b.links[j]
        name = prefix + la.name
        if la.name != lb.name:
            out.append(Difference(NAMES, "link", name, "renamed", la.name, lb.name))
        if la.joint_name and lb.joint_name and la.joint_name != lb.joint_name:
            out.append(Difference(NAMES, "link", name, "joint name", la.joint_name, lb.joint_name))
        if KIN in kinds:
            _link_kinematics(ta, tb, i, j, of_a, tol, name, out)
        if DYN in kinds:
            _inertial("link", name, la, lb, tol, out)
            _limits(a, b, i, j, tol, name, out, DYN)
        if GEO in kinds:
            _geometry("link", name, la, lb, tol, out)
    if KIN in kinds or DYN in kinds or NAMES in kinds:
        _drivers(a, b, of_a, tol, out, prefix, kinds)
    if GEO in kinds:
        _collision_pairs(a, b, pairs, out, prefix)
    return len(pairs), match.by


def _link_kinematics(ta: _Tree, tb: _Tree, i: int, j: int, of_a: dict, tol: float, name: str,
                     out: list) -> None:
    a, b = ta.robot, tb.robot
    la, lb = a.links[i], b.links[j]
    (pa, Ta), (pb, Tb) = ta.anchor(i), tb.anchor(j)
    if (of_a[pa] if pa >= 0 else -1) != pb:
        out.append(Difference(KIN, "link", name, "parent", a.links[pa].name if pa >= 0 else "(world)",
                              b.links[pb].name if pb >= 0 else "(world)"))
    kind_a, kind_b = f"{ta.group(i)} {la.joint_type}", f"{tb.group(j)} {lb.joint_type}"
    if kind_a != kind_b:
        out.append(Difference(KIN, "link", name, "joint", kind_a, kind_b))
    # the axis of a link welded at 0 on either side moves nothing there (the joint line says
    # it is welded)
    held = any(t.group(k) == "weld" and t.robot.config[k] == 0 for t, k in ((ta, i), (tb, j)))
    if not held and not close(la.axis, lb.axis, tol):
        na, nb = np.linalg.norm(la.axis), np.linalg.norm(lb.axis)
        turn = _angle_between(la.axis, lb.axis)
        note = []
        if turn is not None and turn > tol:
            note.append(f"turned {turn:.3g} rad")
        if abs(na - nb) > tol:
            note.append(f"length {na:.10g} -> {nb:.10g}")
        out.append(Difference(KIN, "link", name, "axis", la.axis, lb.axis,
                              turn if turn is not None else None, "rad" if turn is not None else "",
                              "; ".join(note)))
    _pose(KIN, "link", name, Ta, Tb, tol, out)
    _limits(a, b, i, j, tol, name, out, KIN)
    if not close(a.config[i], b.config[j], tol):
        unit = "m" if la.is_prismatic else "rad"
        out.append(Difference(KIN, "link", name, "initial value", float(a.config[i]),
                              float(b.config[j]), _gap(a.config[i], b.config[j]), unit))


def _angle_between(u, v) -> Optional[float]:
    u, v = np.asarray(u, float), np.asarray(v, float)
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        return None
    return float(math.atan2(np.linalg.norm(np.cross(u, v)), np.dot(u, v)))


def _limits(a, b, i: int, j: int, tol: float, name: str, out: list, kind: str) -> None:
    prismatic = a.links[i].is_prismatic
    for lim, (k, rev, pri) in _LIMITS.items():
        if k != kind:
            continue
        va, vb = float(getattr(a, lim)[i]), float(getattr(b, lim)[j])
        if not close(va, vb, tol, relative=True):
            out.append(Difference(kind, "link", name, lim, va, vb, _gap(va, vb), pri if prismatic else rev))


def _inertial(what: str, name: str, x, y, tol: float, out: list) -> None:
    """Mass (kg), centre of mass (m, in the link's frame) and inertia (kg m^2 about the COM,
    link axes) of ``x`` and ``y``, each difference with its size."""
    if not close(x.mass, y.mass, tol, relative=True):
        change = f" ({100 * (y.mass - x.mass) / x.mass:+.3g}%)" if x.mass else ""
        out.append(Difference(DYN, what, name, "mass", x.mass, y.mass, abs(y.mass - x.mass), "kg",
                              f"{x.mass:.9g} -> {y.mass:.9g} kg{change}"))
    ca, cb = np.asarray(x.com, float), np.asarray(y.com, float)
    if not close(ca, cb, tol):
        moved = float(np.linalg.norm(cb - ca))
        out.append(Difference(DYN, what, name, "com", ca, cb, moved, "m",
                              f"{_vector(ca)} -> {_vector(cb)}: moved {moved:.3g} m in the "
                              f"{'link' if what == 'link' else 'body'} frame"))
    if not close(x.inertia, y.inertia, tol, relative=True):
        out.append(Difference(DYN, what, name, "inertia", x.inertia, y.inertia,
                              float(np.abs(np.asarray(y.inertia) - np.asarray(x.inertia)).max()),
                              "kg m^2", "(about the COM, link axes): "
                              + inertia_change(x.inertia, y.inertia)))


def _vector(v) -> str:
    return "(" + ", ".join(f"{float(x):.10g}" for x in v) + ")"


def _geometry(what: str, name: str, x, y, tol: float, out: list) -> None:
    """Collision and visual geometry as shapes, and the colours they are drawn with (a link
    that sets no colour is drawn in Klamp't's and MuJoCo's grey, ``DEFAULT_COLORS["link"]``:
    leaving the colour unset and writing that grey are the same)."""
    col_a = x.appearance.color if x.appearance is not None else None
    col_b = y.appearance.color if y.appearance is not None else None
    if what == "link":
        col_a = DEFAULT_COLORS["link"] if col_a is None else col_a
        col_b = DEFAULT_COLORS["link"] if col_b is None else col_b
    ga, gb = x.geometry, y.geometry
    va, vb = getattr(x, "visual_geometry", None), getattr(y, "visual_geometry", None)
    sa, sb = shape_of(ga, col_a), shape_of(gb, col_b)
    m = _shape_difference(what, name, "geometry", sa, sb, tol, out)
    if va is None and vb is None:
        drawn = (sa, sb, m)
    else:
        da = shape_of(va, col_a) if va is not None else sa
        db = shape_of(vb, col_b) if vb is not None else sb
        # one side draws its collision geometry, the other a visual copy of its own (a URDF
        # writer's OBJ beside its STL): the collision line already says what differs
        copy = (va is None) != (vb is None) and _copies(*((db, sb) if va is None else (da, sa)), tol)
        drawn = (da, db, _shape_difference(what, name, "visual geometry", da, db, tol, None if copy else out))
    c = compare_colours(*drawn, tol)
    if c is not None:
        ta, tb, size, note = c
        out.append(Difference(GEO, what, name, "colour", ta, tb, size, "", note))


def _copies(visual, collision, tol: float) -> bool:
    """Whether a visual geometry is a copy of its owner's collision geometry, up to the
    rounding of the files that hold them (a millionth of its size: binary STL's 32-bit
    floats beside a Wavefront OBJ's decimals)."""
    m = compare_shapes(visual, collision, tol)
    if m.same:
        return True
    pts = np.concatenate([visual.tris.reshape(-1, 3), visual.points]) if len(visual.tris) else visual.points
    if m.size is None or visual.solids or not len(pts) or m.tri_pairs is None:
        return False
    return m.size <= max(tol, 1e-6 * float(np.ptp(pts, axis=0).max()))


def _shape_difference(what, name, field, sa, sb, tol, out):
    """How ``sa`` and ``sb`` compare; a difference goes to ``out`` (None: not listed)."""
    m = compare_shapes(sa, sb, tol)
    if not m.same and out is not None:
        out.append(Difference(GEO, what, name, field, sa.summary(), sb.summary(), m.size, "m", m.note))
    return m


def _driver_pairs(a, b):
    """``(pairs (driver of A, driver of B), drivers only in A, only in B)``: paired by name,
    then those left by the link they actuate (``Driver.leader``; a URDF names a driver after
    its joint, Klamp't after its link)."""
    db = {d.name: d for d in b.drivers}
    pairs, rest_a = [], []
    for d in a.drivers:
        if d.name in db:
            pairs.append((d, db.pop(d.name)))
        else:
            rest_a.append(d)

    def lead(r, d):
        return r.links[d.leader].name if d.leader is not None and 0 <= d.leader < r.num_links else None
    by_link: dict = {}
    for d in db.values():
        by_link.setdefault(lead(b, d), []).append(d)
    removed = []
    for d in rest_a:
        cands = by_link.get(lead(a, d)) or []
        if len(cands) == 1 and lead(a, d) is not None:
            pairs.append((d, cands.pop()))
            db.pop(pairs[-1][1].name, None)
        else:
            removed.append(d)
    return pairs, removed, list(db.values())


def _conventional_name(ra, rb, x, y) -> bool:
    """Whether drivers ``x`` (of ``ra``) and ``y`` (of ``rb``) differ in name only by the
    conventions of their formats: one named after its link (Klamp't, where the source names
    no joint), the other after that link's joint (URDF, Choreonoid, OpenRAVE)."""
    def own(r, d):
        ok = d.leader is not None and 0 <= d.leader < r.num_links
        return r.links[d.leader] if ok else None
    la, lb = own(ra, x), own(rb, y)
    if la is None or lb is None:
        return False
    return ((x.name == la.name and not la.joint_name and y.name == lb.joint_name)
            or (y.name == lb.name and not lb.joint_name and x.name == la.joint_name))


def _drivers(a, b, of_a: dict, tol: float, out: list, prefix: str, kinds: set) -> None:
    pairs, removed, added = _driver_pairs(a, b)
    if KIN in kinds:
        for d in removed:
            out.append(Difference(KIN, "driver", prefix + d.name, "removed"))
        for d in added:
            out.append(Difference(KIN, "driver", prefix + d.name, "added"))
        index_a = {id(d): k for k, d in enumerate(a.drivers)}
        index_b = {id(d): k for k, d in enumerate(b.drivers)}
        if not (_by_link(a) and _by_link(b)):          # else the link order says it
            _order("driver", prefix, a.name, [x.name for x, _ in pairs], [index_a[id(x)] for x, _ in pairs],
                   [index_b[id(y)] for _, y in pairs], out)
    to_b = of_a
    for x, y in pairs:
        name = prefix + x.name
        if NAMES in kinds and x.name != y.name and not _conventional_name(a, b, x, y):
            out.append(Difference(NAMES, "driver", name, "name", x.name, y.name))
        if KIN in kinds:
            _driver_kinematics(a, b, x, y, to_b, tol, name, out)
        for lim, kind in _DRIVER_LIMITS.items():
            if kind not in kinds:
                continue
            va, vb = float(getattr(x, lim)), float(getattr(y, lim))
            if close(va, vb, tol, relative=True) or _said_by_link(a, b, x, y, lim, to_b):
                continue
            out.append(Difference(kind, "driver", name, lim, va, vb, _gap(va, vb)))
        if DYN in kinds:
            for g in _DRIVER_GAINS:
                va, vb = float(getattr(x, g)), float(getattr(y, g))
                if not close(va, vb, tol, relative=True):
                    out.append(Difference(DYN, "driver", name, g, va, vb, _gap(va, vb)))


def _by_link(r) -> bool:
    """Whether ``r``'s drivers come in the order of the links they actuate."""
    leads = [d.leader for d in r.drivers]
    return None not in leads and leads == sorted(leads)


def _type(d) -> str:
    """A driver's type, an affine driver of one DOF that it sets to its own value being
    normal (GraspIt! writes every DOF so)."""
    if d.type == "affine" and len(d.dofs) == 1 and float(d.scale[0]) == 1.0 and float(d.offset[0]) == 0.0:
        return "normal"
    return d.type


def _driver_kinematics(a, b, x, y, to_b: dict, tol: float, name: str, out: list) -> None:
    if _type(x) != _type(y):
        out.append(Difference(KIN, "driver", name, "type", _type(x), _type(y)))
    dofs_a = [b.links[to_b[i]].name if i in to_b else a.links[i].name for i in x.dofs]
    dofs_b = [b.links[i].name for i in y.dofs]
    if dofs_a != dofs_b:
        out.append(Difference(KIN, "driver", name, "dofs", [a.links[i].name for i in x.dofs], dofs_b))
    elif _type(x) == "affine" and _type(y) == "affine":
        if not close(x.scale, y.scale, tol, relative=True):
            out.append(Difference(KIN, "driver", name, "scale", list(x.scale), list(y.scale),
                                  _gap(x.scale, y.scale)))
        if not close(x.offset, y.offset, tol):
            out.append(Difference(KIN, "driver", name, "offset", list(x.offset), list(y.offset),
                                  _gap(x.offset, y.offset)))


_LINK_LIMIT = {"qmin": "qmin", "qmax": "qmax", "vmin": "vmin", "vmax": "vmax", "amax": "amax",
               "tmax": "tmax"}


def _said_by_link(a, b, x, y, lim: str, to_b: dict) -> bool:
    """Whether a driver limit difference is its one link's, already listed there: a normal
    driver of one DOF whose limit is its link's on both sides."""
    if x.type != "normal" or y.type != "normal" or len(x.dofs) != 1 or len(y.dofs) != 1:
        return False
    link_lim = _LINK_LIMIT.get(lim)
    if link_lim is None or to_b.get(x.dofs[0]) != y.dofs[0]:
        return False
    va, vb = float(getattr(x, lim)), float(getattr(y, lim))
    return (va == float(getattr(a, link_lim)[x.dofs[0]]) and vb == float(getattr(b, link_lim)[y.dofs[0]]))


def _collision_pairs(a, b, pairs: list, out: list, prefix: str) -> None:
    """Self-collision pairs, by A's link names (B's links through the matching)."""
    to_a = {j: i for i, j in pairs}

    def named(r, pair_set, index_map=None):
        out_ = set()
        for p, q in pair_set:
            names = []
            for k in (p, q):
                if index_map is not None and k in index_map:
                    names.append(a.links[index_map[k]].name)
                else:
                    names.append(r.links[k].name + ("" if index_map is None else " (B)"))
            out_.add(tuple(sorted(names)))
        return out_
    pa = named(a, a.self_collision_pairs)
    pb = named(b, b.self_collision_pairs, to_a)
    for p in sorted(pa - pb):
        out.append(Difference(GEO, "self-collision pair", prefix + " / ".join(p), "removed"))
    for p in sorted(pb - pa):
        out.append(Difference(GEO, "self-collision pair", prefix + " / ".join(p), "added"))


def compare_element(what: str, x, y, tol: float, out: list, kinds: set) -> None:
    """A rigid object's or terrain's pose, mass properties and geometry."""
    name = x.name
    if KIN in kinds:
        _pose(KIN, what, name, x.transform, y.transform, tol, out, ("position", "rotation"))
    if DYN in kinds and isinstance(x, RigidObject):
        _inertial(what, name, x, y, tol, out)
    if GEO in kinds:
        _geometry(what, name, x, y, tol, out)


def compare_geometry(x, y, tol: float, out: list) -> None:
    """Two geometries (mesh, primitive, point cloud files) as shapes, and their colours."""
    def named(g):
        return os.path.basename(g.source.reference) if g.source is not None else type(g).__name__
    sa, sb = shape_of(x), shape_of(y)
    m = _shape_difference("geometry", named(x), "shape", sa, sb, tol, out)
    c = compare_colours(sa, sb, m, tol)
    if c is not None:
        ta, tb, size, note = c
        out.append(Difference(GEO, "geometry", named(x), "colour", ta, tb, size, "", note))
