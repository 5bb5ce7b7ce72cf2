"""Semantic difference of two models: the review tool for a model change.

:func:`diff` compares two robots (or two worlds, element by element) field by field, after
matching links by name, and, for links whose names differ, by position (same index, same
matched parent, same joint type): those are reported as renamed. Differences are
:class:`Difference` records (``what`` it concerns, its ``name``, the ``field``, the values
``a`` and ``b``); numbers are compared with a tolerance (``tol``: absolute for positions,
angles and axes, relative for masses, inertias and limits). Mass, centre of mass and inertia
differences say how large they are in the link's frame: the relative mass change, how far the
COM moved, the principal moments before and after, the largest entry change and how far the
principal axes turned.

Compared: link set (added, removed, renamed), parents, joint types (revolute/prismatic and
the Klamp't joint group: normal, spin, weld, floating, ...), axes, parent transforms
(translation and rotation angle), position/velocity/acceleration/torque limits, masses,
centres of mass, inertias, geometry references (files and kinds, collision and visual),
drivers (paired by name, else by the link they actuate; name, type, DOFs by link name,
scales, offsets, limits) and self-collision pairs. For
worlds also rigid objects and terrains (poses, masses, geometry).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .model import Group, RigidObject, Robot, Terrain, World
from .verify_dynamics import inertia_change

__all__ = ["diff", "Difference", "DiffResult"]


@dataclass
class Difference:
    what: str                 # "link", "driver", "robot", "rigid object", "terrain", "world"
    name: str
    field: str
    a: object = None
    b: object = None
    note: str = ""

    def __str__(self):
        if self.note:
            return f"{self.what} {self.name!r}: {self.field} {self.note}"
        if self.field in ("added", "removed"):
            return f"{self.what} {self.name!r}: only in {'B' if self.field == 'added' else 'A'}"
        if self.field == "renamed":
            return f"{self.what} {self.name!r}: renamed to {self.b!r}"
        return f"{self.what} {self.name!r}: {self.field} {_show(self.a)} -> {_show(self.b)}"

    def to_dict(self) -> dict:
        d = {"what": self.what, "name": self.name, "field": self.field,
             "a": _jsonable(self.a), "b": _jsonable(self.b)}
        if self.note:
            d["note"] = self.note
        return d


@dataclass
class DiffResult:
    differences: list = field(default_factory=list)
    matched_links: int = 0

    @property
    def same(self) -> bool:
        return not self.differences

    def __str__(self):
        if self.same:
            return "no differences"
        return "\n".join(str(d) for d in self.differences)

    def to_dict(self) -> dict:
        return {"same": self.same, "matched_links": self.matched_links,
                "differences": [d.to_dict() for d in self.differences]}


def _jsonable(x):
    if isinstance(x, np.ndarray):
        return [_jsonable(v) for v in x.tolist()]
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
    if isinstance(x, np.integer):
        return int(x)
    return x


def _show(x) -> str:
    if isinstance(x, np.ndarray):
        x = x.tolist()
    if isinstance(x, float):
        return f"{x:.10g}"
    if isinstance(x, (list, tuple)):
        return "(" + ", ".join(_show(v) for v in x) + ")"
    return repr(x) if isinstance(x, str) else str(x)


def _close(a, b, tol: float, relative: bool = False) -> bool:
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    if a.shape != b.shape:
        return False
    both_inf = (a == b)                       # also equal infinities
    scale = np.maximum(np.abs(a), np.abs(b)) if relative else 1.0
    with np.errstate(invalid="ignore"):
        ok = both_inf | (np.abs(a - b) <= tol * np.maximum(scale, 1.0 if relative else scale))
    ok |= np.isnan(a) & np.isnan(b)
    return bool(np.all(ok))


def _angle(Ra, Rb) -> float:
    R = np.asarray(Ra, float).T @ np.asarray(Rb, float)
    s = np.linalg.norm([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / 2
    return float(math.atan2(s, (np.trace(R) - 1) / 2))


def _rotation_difference(fld: str, Ta, Tb, tol: float):
    """``(field, A rows, B rows, note)`` when the rotation parts differ (by angle, or by
    entries for matrices that are not exactly rotations), else None."""
    Ra, Rb = np.asarray(Ta)[:3, :3], np.asarray(Tb)[:3, :3]
    entries = float(np.abs(Ra - Rb).max())
    if entries <= tol:
        return None
    ang = _angle(Ra, Rb)
    return fld, Ra, Rb, f"differs by {ang:.3g} rad (matrix entries by {entries:.3g})"


def _geometry_summary(g) -> Optional[list]:
    """``[(kind, key, shown text)]`` of the pieces of a geometry tree (None for no geometry).

    A file's key is its resolved path (the same file referenced from two places is the same
    piece), shown as referenced. A primitive's key is its bounding points in the owner frame
    (m), so that a primitive written inline by one format and as an element by another (a
    Klamp't ``{Primitive AABB ...}`` and a URDF ``<box>``) compares by shape and place, not by
    how it was spelt."""
    if g is None:
        return None
    out = []

    def walk(x, T):                              # T: parent frame of x -> owner frame
        if isinstance(x, Group):
            for c in x.children:
                walk(c, T @ x.transform)
            return
        prim = getattr(x, "primitive", None)
        if prim is not None:                     # sample_points applies x.transform itself
            family = "Box" if prim == "AABB" else prim   # an AABB is a box without rotation
            out.append((f"primitive {family}", _apply_rigid(T, x.sample_points()), f"{prim} primitive"))
            return
        kind = type(x).__name__
        src = x.source
        ref = src.reference if src is not None else None
        key = os.path.realpath(src.path) if src is not None and src.path else ref
        out.append((kind, key, f"{kind}:{ref}" if ref else kind))
    walk(g, np.eye(4))
    return out


def _apply_rigid(T, pts):
    return pts @ T[:3, :3].T + T[:3, 3]


def _same_piece(a, b, tol: float) -> bool:
    if a[0] != b[0]:
        return False
    if not a[0].startswith("primitive "):
        return a[1] == b[1]
    pa, pb = a[1], b[1]
    if len(pa) == 0 or len(pb) == 0:
        return len(pa) == len(pb)
    # bounding points may come in another order: each point must have a partner within tol
    d = np.linalg.norm(pa[:, None, :] - pb[None, :, :], axis=2)
    return bool(d.min(axis=1).max() <= tol and d.min(axis=0).max() <= tol)


def _same_geometry(ga, gb, tol: float) -> tuple:
    sa, sb = _geometry_summary(ga), _geometry_summary(gb)
    if sa is None or sb is None:
        same = sa is None and sb is None
    else:
        same = len(sa) == len(sb) and all(_same_piece(x, y, tol) for x, y in zip(sa, sb))
    return same, (None if sa is None else [x[2] for x in sa]), (None if sb is None else [x[2] for x in sb])


def _group_type(r: Robot, i: int) -> str:
    j = r.joint_of_link(i)
    return j.type if j is not None else "normal"


def _match_links(a: Robot, b: Robot):
    """{index in a: index in b} by name, then renamed links by position."""
    first_b = {}
    for i, n in enumerate(b.link_names):
        first_b.setdefault(n, i)
    m = {}
    for i, n in enumerate(a.link_names):
        if n in first_b and first_b[n] not in m.values():
            m[i] = first_b[n]
    used = set(m.values())
    for i in range(a.num_links):
        if i in m or i >= b.num_links or i in used:
            continue
        la, lb = a.links[i], b.links[i]
        if b.link_names[i] in set(a.link_names):
            continue
        pa = m.get(la.parent, -2) if la.parent >= 0 else -1
        if pa == lb.parent and la.joint_type == lb.joint_type and _group_type(a, i) == _group_type(b, i):
            m[i] = i
            used.add(i)
    return m


def _robot(a: Robot, b: Robot, tol: float, out: list, prefix: str = "") -> int:
    m = _match_links(a, b)
    inv = {j: i for i, j in m.items()}
    L = "link"
    for i, l in enumerate(a.links):
        if i not in m:
            out.append(Difference(L, prefix + l.name, "removed"))
        elif b.links[m[i]].name != l.name:
            out.append(Difference(L, prefix + l.name, "renamed", l.name, b.links[m[i]].name))
    for j, l in enumerate(b.links):
        if j not in inv:
            out.append(Difference(L, prefix + l.name, "added"))
    order_a = [a.links[i].name for i in sorted(m)]
    order_b = [a.links[i].name for i in sorted(m, key=lambda i: m[i])]
    if order_a != order_b:
        out.append(Difference("robot", prefix + a.name, "link order", order_a, order_b))

    def name_of(r, i):
        return r.links[i].name if i >= 0 else "(world)"
    for i, j in m.items():
        la, lb = a.links[i], b.links[j]
        nm = prefix + la.name

        def add(fld, x, y):
            out.append(Difference(L, nm, fld, x, y))
        pa = name_of(b, m[la.parent]) if la.parent in m else name_of(a, la.parent)
        if (m.get(la.parent, -1) if la.parent >= 0 else -1) != lb.parent:
            add("parent", pa if la.parent >= 0 else "(world)", name_of(b, lb.parent))
        ta = f"{_group_type(a, i)} {la.joint_type}"
        tb = f"{_group_type(b, j)} {lb.joint_type}"
        if ta != tb:
            add("joint", ta, tb)
        if not _close(la.axis, lb.axis, tol):
            add("axis", la.axis, lb.axis)
        Ta, Tb = la.parent_transform, lb.parent_transform
        if not _close(Ta[:3, 3], Tb[:3, 3], tol):
            add("origin translation", Ta[:3, 3], Tb[:3, 3])
        rot = _rotation_difference("origin rotation", Ta, Tb, tol)
        if rot:
            out.append(Difference(L, nm, *rot))
        for lim in ("qmin", "qmax", "vmin", "vmax", "amax", "tmax", "pmax"):
            va, vb = getattr(a, lim)[i], getattr(b, lim)[j]
            if not _close(va, vb, tol, relative=True):
                add(lim, float(va), float(vb))
        _inertial(la, lb, tol, lambda *d: out.append(Difference(L, nm, *d)))
        for fld, ga, gb in (("geometry", la.geometry, lb.geometry),
                            ("visual geometry", la.visual_geometry, lb.visual_geometry)):
            same, sa, sb = _same_geometry(ga, gb, tol)
            if not same:
                add(fld, sa, sb)
    # drivers, with DOFs by link name
    pairs, removed, added = _driver_pairs(a, b)
    for n in removed:
        out.append(Difference("driver", prefix + n, "removed"))
    for n in added:
        out.append(Difference("driver", prefix + n, "added"))
    for x, y in pairs:
        n = x.name

        def dadd(fld, u, v, n=n):
            out.append(Difference("driver", prefix + n, fld, u, v))
        if x.name != y.name:
            dadd("name", x.name, y.name)
        if x.type != y.type:
            dadd("type", x.type, y.type)
        dofs_a = [a.links[i].name for i in x.dofs]
        dofs_b = [b.links[i].name for i in y.dofs]
        if dofs_a != dofs_b:
            dadd("dofs", dofs_a, dofs_b)
        elif x.type == "affine" and y.type == "affine":
            if not _close(x.scale, y.scale, tol, relative=True):
                dadd("scale", list(x.scale), list(y.scale))
            if not _close(x.offset, y.offset, tol):
                dadd("offset", list(x.offset), list(y.offset))
        for lim in ("qmin", "qmax", "vmin", "vmax", "tmin", "tmax"):
            if not _close(getattr(x, lim), getattr(y, lim), tol, relative=True):
                dadd(lim, getattr(x, lim), getattr(y, lim))
    pa = {tuple(sorted((a.links[p].name, a.links[q].name))) for p, q in a.self_collision_pairs}
    pb = {tuple(sorted((b.links[p].name, b.links[q].name))) for p, q in b.self_collision_pairs}
    for p in sorted(pa - pb):
        out.append(Difference("self-collision pair", prefix + " / ".join(p), "removed"))
    for p in sorted(pb - pa):
        out.append(Difference("self-collision pair", prefix + " / ".join(p), "added"))
    return len(m)


def _inertial(x, y, tol: float, add) -> None:
    """Mass (kg), centre of mass (m, link frame) and inertia (kg m^2 about the COM, link
    axes) of ``x`` and ``y``, each difference with its size."""
    if not _close(x.mass, y.mass, tol, relative=True):
        change = f" ({100 * (y.mass - x.mass) / x.mass:+.3g}%)" if x.mass else ""
        add("mass", x.mass, y.mass, f"{x.mass:.9g} -> {y.mass:.9g} kg{change}")
    ca, cb = np.asarray(x.com, float), np.asarray(y.com, float)
    if not _close(ca, cb, tol):
        add("com", ca, cb, f"{_show(ca)} -> {_show(cb)}: moved {np.linalg.norm(cb - ca):.3g} m in "
            "the link frame")
    if not _close(x.inertia, y.inertia, tol, relative=True):
        add("inertia", x.inertia, y.inertia,
            "(about the COM, link axes): " + inertia_change(x.inertia, y.inertia))


def _element(kind: str, x, y, tol: float, out: list):
    nm = x.name
    if not _close(x.transform[:3, 3], y.transform[:3, 3], tol):
        out.append(Difference(kind, nm, "position", x.transform[:3, 3], y.transform[:3, 3]))
    rot = _rotation_difference("rotation", x.transform, y.transform, tol)
    if rot:
        out.append(Difference(kind, nm, *rot))
    same, sa, sb = _same_geometry(x.geometry, y.geometry, tol)
    if not same:
        out.append(Difference(kind, nm, "geometry", sa, sb))
    if isinstance(x, RigidObject):
        _inertial(x, y, tol, lambda *d: out.append(Difference(kind, nm, *d)))


def _by_name(kind: str, xs, ys, out: list):
    nx = {x.name: x for x in xs}
    ny = {y.name: y for y in ys}
    for n in nx:
        if n not in ny:
            out.append(Difference(kind, n, "removed"))
    for n in ny:
        if n not in nx:
            out.append(Difference(kind, n, "added"))
    return [(nx[n], ny[n]) for n in nx if n in ny]


def diff(a, b, tol: float = 1e-9) -> DiffResult:
    """Semantic differences between models ``a`` and ``b`` (Robot or World; a World with
    one robot compares with a Robot)."""
    if isinstance(a, World) and len(a.robots) == 1 and isinstance(b, Robot):
        a = a.robots[0]
    if isinstance(b, World) and len(b.robots) == 1 and isinstance(a, Robot):
        b = b.robots[0]
    res = DiffResult()
    out = res.differences
    if isinstance(a, Robot) and isinstance(b, Robot):
        res.matched_links = _robot(a, b, tol, out)
        return res
    if isinstance(a, World) and isinstance(b, World):
        pairs = _by_name("robot", a.robots, b.robots, out)
        for x, y in pairs:
            prefix = f"{x.name}/" if len(a.robots) > 1 or len(b.robots) > 1 else ""
            res.matched_links += _robot(x, y, tol, out, prefix)
        for x, y in _by_name("rigid object", a.rigid_objects, b.rigid_objects, out):
            _element("rigid object", x, y, tol, out)
        for x, y in _by_name("terrain", a.terrains, b.terrains, out):
            _element("terrain", x, y, tol, out)
        return res
    if isinstance(a, (RigidObject, Terrain)) and type(a) is type(b):
        _element("rigid object" if isinstance(a, RigidObject) else "terrain", a, b, tol, out)
        return res
    raise ValueError(f"cannot compare a {type(a).__name__} with a {type(b).__name__}")


def _driver_pairs(a, b):
    """``(pairs (driver of A, driver of B), names only in A, names only in B)``: drivers
    paired by name, then those left by the name of the link they actuate (``Driver.leader``:
    a URDF names a driver after its joint, Klamp't after its link)."""
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
            removed.append(d.name)
    return pairs, removed, list(db)
