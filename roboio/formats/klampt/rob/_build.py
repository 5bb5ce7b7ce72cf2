"""Klamp't ``.rob`` records -> :class:`~roboio.model.Robot` (spec klampt.md §3.4-3.14).

Follows Klamp't's load pipeline step by step: vote the link count and check every list's
size; apply defaults; link transforms (``tparent`` or modified DH) with the base transform
on every root; masses and ``autotorque``; geometry (scale, margin, ``geomtransform``);
joints and drivers (defaults, limits, names, servo lists, validation); geometry mounts;
``automass``; self-collision pairs; robot mounts; the pairs that named mounted links
(mount and pair rules: :mod:`..mount`, shared with the URDF reader); properties.
"""
from __future__ import annotations

import math
import os
from collections import Counter
from typing import Optional

import numpy as np

from ....errors import FormatError
from ....context import LoadContext
from ....model import Driver, Joint, Link, Robot
from ....resolve import resolve
from ....transforms import compose, dh_modified, vector_norm
from ...fileio import read_text
from ..mount import (charge_mount, default_pairs, has_geometry, is_robot_file,
                     link_index, mount_robot, read_mounted_robot)
from ._geometry import apply_automass, load_link_geometry, mount_geometry
from ._lexer import Scanner, file_extension, translate_escapes
from ._parse import is_keyword
from ._records import VOTING_LISTS, ListRecord, RobRecords

__all__ = ["build_robot", "RobAssembly", "affine_acc_limits", "MULTI_DOF"]

MULTI_DOF = {"floating": 6, "floatingplanar": 3, "ballandsocket": 3}
_DRIVER_LISTS = (("servop", "servo_p"), ("servoi", "servo_i"), ("servod", "servo_d"),
                 ("dryfriction", "dry_friction"), ("viscousfriction", "viscous_friction"))


def affine_acc_limits(scale, accmax) -> tuple:
    """Acceleration limits Klamp't gives an affine driver: start at +-inf and, for each
    driven link with scale s and limit a, intersect with [-a/s, a/s] when s > 0; for s < 0
    Klamp't applies ``lo = max(lo, a/s)``, ``hi = max(hi, -a/s)`` (its own sign slip,
    reproduced as measured with klampt 0.10.1). Comparisons as ``std::max``/``min``."""
    lo, hi = -math.inf, math.inf
    for s, a in zip(scale, accmax):
        if s > 0:
            lo, hi = _cmax(lo, -a / s), _cmin(hi, a / s)
        elif s < 0:
            lo, hi = _cmax(lo, a / s), _cmax(hi, -a / s)
    return lo, hi


def _cmax(a, b):
    """``std::max``: returns ``a`` when the comparison is false (NaN)."""
    return b if a < b else a


def _cmin(a, b):
    return b if b < a else a


class RobAssembly:
    """The robot file's own links, as plain per-link lists, until :meth:`to_robot`."""

    ARRAYS = ("q", "qmin", "qmax", "vmin", "vmax", "amax", "tmax", "pmax")

    def __init__(self):
        self.names: list = []
        self.parents: list = []
        self.T0: list = []
        self.axes: list = []
        self.prismatic: list = []
        self.mass: list = []
        self.com: list = []
        self.inertia: list = []
        self.geoms: list = []
        for a in self.ARRAYS:
            setattr(self, a, [])
        self.joints: list = []
        self.drivers: list = []
        self.properties: dict = {}

    @property
    def n(self) -> int:
        return len(self.names)

    def to_robot(self, name: str) -> Robot:
        robot = Robot(name)
        links = [Link(self.names[i], self.parents[i],
                      "prismatic" if self.prismatic[i] else "revolute", self.axes[i],
                      self.T0[i], self.mass[i], self.com[i], self.inertia[i], self.geoms[i])
                 for i in range(self.n)]
        robot.set_links(links, qmin=self.qmin, qmax=self.qmax, vmin=self.vmin, vmax=self.vmax,
                        amax=self.amax, tmax=self.tmax, pmax=self.pmax, config=self.q)
        robot.joints = self.joints
        robot.drivers = self.drivers
        robot.properties = self.properties
        return robot


def _per(rec: ListRecord) -> str:
    if rec.group == 1:
        return f"1 {rec.unit}"
    return f"{rec.group} {rec.unit}s"


class _Builder:
    def __init__(self, rec: RobRecords, path: str, ctx: LoadContext):
        self.rec = rec
        self.path = path
        self.ctx = ctx
        self.asm = RobAssembly()
        self.robot: Optional[Robot] = None     # from the self-collision step on
        self.voters: list = []           # keywords whose count decided the link count
        self.warned_drivers = False

    def err(self, message: str, line=None) -> FormatError:
        return self.ctx.error(message, line)

    def warn(self, message: str, line=None, **kind) -> None:
        self.ctx.warn(message, line, **kind)

    # -- 1. link count ------------------------------------------------------------------
    def vote(self) -> int:
        rec = self.rec
        sizes = {name: len(rec.values(name)) for name in VOTING_LISTS if rec.has(name)}
        if not sizes:
            return 0
        votes = Counter(sizes.values())
        best = max(votes.values())
        n = min(k for k, v in votes.items() if v == best)
        self.voters = [rec.lists[nm].spelled for nm, k in sizes.items() if k == n]
        return n

    def check_sizes(self, n: int) -> None:
        rec = self.rec
        bad = []
        for name in VOTING_LISTS + ("geometry", "accmax"):
            if rec.has(name) and len(rec.values(name)) != n:
                bad.append(rec.lists[name])
        for name in ("geomscale", "geommargin"):
            if rec.has(name) and len(rec.values(name)) not in (1, n):
                bad.append(rec.lists[name])
        if bad:
            r = min(bad, key=lambda r: r.line)
            note = ""
            stops = [o.stopped_at for o in r.occurrences if o.stopped_at]
            if stops:
                note = f" (reading stopped at {stops[0]!r}, not a number)"
            per = " (or 1 for all links)" if r.name in ("geomscale", "geommargin") else ""
            vote = f"; {n} links is the count given by {', '.join(self.voters)}" if self.voters else ""
            cut = ""
            if rec.open_end_line is not None and len(r.items) < n and \
                    max(o.stop_line or o.line for o in r.occurrences) == self.last_line():
                cut = f" (the file ends there without a newline: truncated? line {rec.open_end_line})"
            raise self.err(f"{r.spelled} expects {_per(r)} per link{per}, got {r.raw_count()} "
                           f"for {n} links{note}{vote}{cut}", r.line)
        for r in rec.lists.values():
            self.warn_dropped(r)

    def last_line(self) -> int:
        """The line of the file's last statement."""
        rec = self.rec
        lines = [o.stop_line or o.line for r in rec.lists.values() for o in r.occurrences]
        lines += [x.line for x in rec.scalars.values() if hasattr(x, "line")]
        for group in (rec.geomtransforms, rec.selfcollision, rec.noselfcollision, rec.joints,
                      rec.drivers, rec.mounts, rec.properties):
            lines += [x.line for x in group]
        return max(lines, default=0)

    def check_truncated(self, n: int) -> None:
        """A file that ends without a newline in the middle of its joint lines (one per link
        in link order, stopping before the last link) was most likely cut short: Klamp't
        reads the links without a joint line as normal joints, silently."""
        rec = self.rec
        if rec.open_end_line is None or not rec.joints or rec.joints[-1].line != self.last_line():
            return
        links = [j.link for j in rec.joints]
        if links == list(range(len(links))) and len(links) < n:
            self.warn(f"the file ends without a newline after joint lines for links 0..{len(links) - 1} "
                      f"of {n} (truncated?); links {len(links)}..{n - 1} are read as normal joints, "
                      "as Klamp't does", rec.open_end_line, kind="truncated")

    def warn_dropped(self, r: ListRecord) -> None:
        for o in r.occurrences:
            if o.leftover:
                self.warn(f"{o.spelled}: {o.leftover} trailing number(s) do not make a whole "
                          f"group of {r.group} and are ignored, as Klamp't does",
                          o.stop_line or o.line, kind="invalid value")
            elif o.stopped_at and is_keyword(o.stopped_at) and o.stop_line != o.line:
                self.warn(f"{o.spelled} (line {o.line}) runs on into {o.stopped_at!r}: the line "
                          f"before ends with a backslash, so Klamp't reads {o.stopped_at!r} as "
                          f"part of {o.spelled} and ignores it and the rest of that line",
                          o.stop_line, kind="invalid value")
            elif o.stopped_at:
                self.warn(f"{o.spelled}: {o.stopped_at!r} is not a {r.unit}; it and the rest of "
                          f"the line are ignored, as Klamp't does", o.stop_line or o.line, kind="invalid value")

    # -- 2-4. defaults and kinematics ---------------------------------------------------
    def links_and_limits(self, n: int) -> None:
        rec, asm = self.rec, self.asm
        parents = list(rec.values("parents")) or list(range(-1, n - 1))
        for i, p in enumerate(parents):
            if not -1 <= p < i:
                line = rec.lists["parents"].line_of(i)
                raise self.err(f"parents: link {i} has parent {p}; a parent must be -1 (the "
                               f"world) or the index of an earlier link", line)
        asm.parents = parents
        asm.names = list(rec.values("links")) or [f"Link_{i}" for i in range(n)]

        def arr(name, default):
            v = rec.values(name)
            return [float(x) for x in v] if v else [default] * n
        asm.q = arr("q", 0.0)
        asm.qmin = arr("qmin", -math.inf)
        asm.qmax = arr("qmax", math.inf)
        asm.vmax = arr("velmax", math.inf)
        asm.vmin = arr("velmin", 0.0) if rec.has("velmin") else [-v for v in asm.vmax]
        asm.tmax = arr("torquemax", math.inf)
        asm.pmax = arr("powermax", math.inf)
        if rec.has("accmax"):
            asm.amax = arr("accmax", math.inf)
        elif rec.has("torquemax") and n:
            # Klamp't derives accmax from torquemax with link data not yet set: NaN
            asm.amax = [math.nan] * n
            self.warn(f"{rec.lists['torquemax'].spelled} without accmax: Klamp't computes NaN "
                      f"acceleration limits (write accmax explicitly)", rec.lists["torquemax"].line, kind="invalid value")
        else:
            asm.amax = [math.inf] * n

        if rec.has("tparent"):
            T0 = [np.array(T) for T in rec.values("tparent")]
            axes = [np.array(a) for a in rec.values("axis")] or [np.array([0.0, 0, 1])] * n
        elif all(rec.has(k) for k in ("alpha", "a", "d", "theta")):
            T0 = list(dh_modified(rec.values("alpha"), rec.values("a"), rec.values("theta"),
                                  rec.values("d")).reshape(n, 4, 4))
            axes = [np.array([0.0, 0, 1])] * n       # DH forces every axis to z
        elif n:
            missing = [k for k in ("alpha", "a", "d", "theta") if not rec.has(k)]
            raise self.err("no link transforms: give tparent (12 numbers per link) or all four "
                           f"DH lists alpha, a, d, theta (missing: {', '.join(missing)})",
                           rec.first_line)
        else:
            T0, axes = [], []
        B = np.eye(4)
        if "rotation" in rec.scalars:
            B[:3, :3] = np.reshape(rec.scalars["rotation"].value, (3, 3))
        if "translation" in rec.scalars:
            B[:3, 3] = rec.scalars["translation"].value
        asm.T0 = [compose(B, T) if p < 0 else T for T, p in zip(T0, parents)]
        asm.axes = axes
        jt = rec.values("jointtype")
        asm.prismatic = [t == "p" for t in jt] if jt else [False] * n
        self.base_transform = B

    # -- 5. masses ----------------------------------------------------------------------
    def masses(self, n: int) -> None:
        rec, asm = self.rec, self.asm
        asm.mass = [float(m) for m in rec.values("mass")] or [1.0] * n
        asm.com = [np.array(c) for c in rec.values("com")] or [np.zeros(3)] * n
        asm.inertia = [np.array(I) for I in rec.values("inertia")] or [np.eye(3)] * n
        f = rec.scalars.get("autotorque")
        if f is not None and f.value != 0:
            grav = abs(f.value) * 9.8
            sum_mass = sum_com = 0.0
            for i in range(n - 1, -1, -1):
                old_mass, old_com = sum_mass, sum_com + float(vector_norm(asm.T0[i][:3, 3]))
                m = asm.mass[i]
                sum_mass += m
                num = float(vector_norm(asm.com[i])) * m + old_com * old_mass
                den = m + old_mass
                sum_com = num / den if den != 0 else math.nan
                asm.tmax[i] = sum_com * sum_mass * grav

    # -- 6. geometry: see _geometry ---------------------------------------------------
    # -- 7-8. joints and drivers --------------------------------------------------------
    def joints(self, n: int) -> None:
        rec, asm = self.rec, self.asm
        owner = {}
        joints = []
        if not rec.joints:
            for i in range(n):
                weld = asm.parents[i] == -1 and asm.vmin[i] == 0 and asm.vmax[i] == 0
                joints.append(Joint("weld" if weld else "normal", [i]))
            asm.joints = joints
            return
        for jr in rec.joints:
            if jr.type in MULTI_DOF:
                chain = []
                k = jr.link
                while k != jr.base:
                    if not 0 <= k < n:
                        raise self.err(f"joint {jr.type} {jr.link} {jr.base}: link {jr.base} is "
                                       f"not an ancestor of link {jr.link}", jr.line)
                    chain.append(k)
                    k = asm.parents[k]
                chain.reverse()
                need = MULTI_DOF[jr.type]
                if len(chain) != need:
                    raise self.err(f"joint {jr.type} {jr.link} {jr.base} covers {len(chain)} "
                                   f"links {chain}; a {jr.type} joint must cover exactly {need} "
                                   f"(Klamp't rejects the file)", jr.line)
                base = jr.base
            else:
                if not 0 <= jr.link < n:
                    raise self.err(f"joint {jr.type}: link index {jr.link} out of range (the "
                                   f"robot has {n} links)", jr.line)
                chain, base = [jr.link], -1
            for k in chain:
                if k in owner:
                    raise self.err(f"joint {jr.type}: link {k} already belongs to the joint on "
                                   f"line {owner[k]}", jr.line)
                owner[k] = jr.line
            joints.append(Joint(jr.type, chain, base))
        uncovered = [i for i in range(n) if i not in owner]
        if uncovered:
            self.warn(f"links {uncovered} belong to no joint (Klamp't warns and goes on)",
                      rec.joints[0].line, kind="guessed")
        asm.joints = joints

    def warn_joint_index_drivers(self) -> None:
        if self.warned_drivers:
            return
        self.warned_drivers = True
        self.warn("no driver lines, and the joint lines are not one per link in link order: "
                  "roboio gives each normal/spin joint a driver on its link, but Klamp't 0.10.1 "
                  "puts the driver of the i-th joint line on link i; add driver lines to make "
                  "the file unambiguous", self.rec.joints[0].line, kind="guessed")

    def _link_limits(self, L: int) -> dict:
        a = self.asm
        return dict(qmin=a.qmin[L], qmax=a.qmax[L], vmin=a.vmin[L], vmax=a.vmax[L],
                    tmin=-a.tmax[L], tmax=a.tmax[L], amin=-a.amax[L], amax=a.amax[L])

    def _check_index(self, what: str, k: int, n: int, line: int) -> None:
        if not 0 <= k < n:
            raise self.err(f"{what}: link index {k} out of range (the robot has {n} links)", line)

    def drivers(self, n: int) -> None:
        rec, asm = self.rec, self.asm
        drivers = []
        lines = []
        if not rec.drivers:
            for i, j in enumerate(asm.joints):
                if j.type in ("normal", "spin"):
                    L = j.links[0]
                    drivers.append(Driver("", "normal", [L], **self._link_limits(L)))
                    lines.append(None)
                    if L != i and rec.joints:
                        self.warn_joint_index_drivers()
        for dr in rec.drivers:
            if dr.type == "affine":
                for k in dr.dofs:
                    self._check_index("driver affine", k, n, dr.line)
                d = Driver("", "affine", dr.dofs, dr.scale, dr.offset, *dr.limits)
                d.amin, d.amax = affine_acc_limits(dr.scale, [asm.amax[k] for k in dr.dofs])
            else:
                L = dr.dofs[0]
                self._check_index(f"driver {dr.type}", L, n, dr.line)
                d = Driver("", dr.type, [L], **self._link_limits(L))
                if dr.type != "normal":
                    self._check_index(f"driver {dr.type}", dr.force_link, n, dr.line)
                    d.force_link = dr.force_link
            drivers.append(d)
            lines.append(dr.line)
        names = rec.lists.get("drivers")
        if names is not None and len(names):
            if len(names) != len(drivers):
                raise self.err(f"{names.spelled} gives {len(names)} names for {len(drivers)} "
                               f"drivers", names.line)
            for d, nm in zip(drivers, names.items):
                d.name = nm
        else:
            for d in drivers:
                d.name = asm.names[d.dofs[0]]
        for key, attr in _DRIVER_LISTS:
            r = rec.lists.get(key)
            if r is None or not len(r):
                continue
            if len(r) != len(drivers):
                raise self.err(f"{r.spelled} expects 1 number per driver, got {r.raw_count()} for "
                               f"{len(drivers)} drivers", r.line)
            for d, v in zip(drivers, r.items):
                if v < 0:
                    raise self.err(f"{r.spelled}: negative value {v!r} (Klamp't asserts >= 0)",
                                   r.line)
                setattr(d, attr, float(v))
        driven = {}
        for i, (d, line) in enumerate(zip(drivers, lines)):
            for k in (d.dofs if d.type in ("normal", "affine") else d.dofs[:1]):
                if k in driven:
                    raise self.err(f"driver {d.type} {d.name!r}: link {k} is already driven by "
                                   f"driver {driven[k]}", line)
                driven[k] = i
        asm.drivers = drivers

    # -- 9. mount links (geometry mounts: _geometry) --------------------------------
    def resolve_mount_links(self) -> list:
        out = []
        for m in self.rec.mounts:
            k = link_index(self.asm.names, m.link)
            if not 0 <= k < self.asm.n:
                if m.link != "-1":
                    raise self.err(f"mount: link {m.link!r} does not exist (the robot has "
                                   f"{self.asm.n} links)", m.line)
                k = -1
            out.append(k)
        return out

    # -- 10. self-collision, robot mounts, pairs naming mounted links -------------------
    # on self.robot: the file's own links, then the mounted ones
    def _pair_links(self) -> tuple:
        r = self.robot
        return r.link_names, [has_geometry(l.geometry, missing_counts=True) for l in r.links]

    def pair_indices(self, pr, kw: str, deferred: list, names: list) -> Optional[tuple]:
        i, j = link_index(names, pr.a), link_index(names, pr.b)
        n = len(names)
        if not (0 <= i < n and 0 <= j < n):
            deferred.append((kw, pr))
            return None
        if i == j:
            raise self.err(f"{kw}: a link cannot be paired with itself ({pr.a!r}, {pr.b!r})", pr.line)
        return (min(i, j), max(i, j))

    def self_collision(self) -> list:
        rec, robot = self.rec, self.robot
        deferred = []
        names, has = self._pair_links()
        if not rec.selfcollision:
            k = sum(map(bool, has))
            self.ctx.check_claim("pairs", k * (k - 1) // 2, rec.first_line,
                                 what=f"default self-collision pairs of {k:,} links with geometry")
            robot.self_collision_pairs = default_pairs(robot.parents, has)
        else:
            robot.self_collision_pairs = set()
            self.add_pairs("selfcollision", rec.selfcollision, deferred)
        self.remove_pairs("noselfcollision", rec.noselfcollision, deferred)
        return deferred

    def add_pairs(self, kw, pairs, deferred):
        names, has = self._pair_links()
        for pr in pairs:
            ij = self.pair_indices(pr, kw, deferred, names)
            if ij is not None and has[ij[0]] and has[ij[1]]:
                self.robot.self_collision_pairs.add(ij)

    def remove_pairs(self, kw, pairs, deferred):
        names, _ = self._pair_links()
        for pr in pairs:
            ij = self.pair_indices(pr, kw, deferred, names)
            if ij is not None:
                self.robot.self_collision_pairs.discard(ij)

    def mount_robots(self, mount_links: list) -> None:
        """Read and append every robot mount of the file, in file order."""
        for m, L in zip(self.rec.mounts, mount_links):
            if not is_robot_file(m.file):
                continue
            res = resolve(m.file, self.path)
            if not res:
                raise self.err(f"mount: robot file {m.file!r} not found (looked for: "
                               f"{res.describe_tried()})", m.line)
            sub = read_mounted_robot(res.path, m.file, self.ctx, m.line)
            charge_mount(self.ctx, self.robot, sub, m.file, m.line, missing_counts=True)
            mount_robot(self.robot, sub, L, m.transform, m.name,
                        warn=lambda msg, line=m.line, **kind: self.warn(msg, line, **kind),
                        missing_counts=True)

    def deferred_pairs(self, deferred: list) -> None:
        for kw, pr in deferred:
            still = []
            if kw == "selfcollision":
                self.add_pairs(kw, [pr], still)
            else:
                self.remove_pairs(kw, [pr], still)
            if still:
                raise self.err(f"{kw}: pair ({pr.a!r}, {pr.b!r}) names a link that does not exist "
                               f"(links are 0..{self.robot.num_links - 1}, mounted links "
                               f"included)", pr.line)

    # -- properties ---------------------------------------------------------------------
    def properties(self) -> None:
        for pr in self.rec.properties:
            raw = pr.value.strip()
            if pr.name in ("sensors", "controller"):
                first = Scanner(raw).qstring() if raw else None
                if first is not None and file_extension(first) == "xml":
                    self.asm.properties[pr.name] = self._property_file(pr, first)
                    continue
            if raw.startswith('"'):
                v = Scanner(raw).qstring()
                if pr.name in ("sensors", "controller"):
                    v = translate_escapes(v)
            else:
                v = translate_escapes(raw)
            self.asm.properties[pr.name] = v

    def _property_file(self, pr, ref: str) -> str:
        res = resolve(ref, self.path)
        if not res:
            raise self.err(f"property {pr.name}: file {ref!r} not found (looked for: "
                           f"{res.describe_tried()})", pr.line)
        return read_text(res.path)

    # -- all ----------------------------------------------------------------------------
    def build(self) -> Robot:
        rec = self.rec
        n = self.vote()
        if n == 0 and not rec.mounts:
            if rec.first_line is None:
                raise self.err("empty robot file: no keywords", 1)
            raise self.err("no links: the file gives no per-link data (tparent or DH "
                           "parameters) and mounts nothing", rec.first_line)
        self.check_sizes(n)
        self.ctx.charge("links", n, rec.first_line, what="robot links")
        if rec.lists.get("collision") is not None and len(rec.lists["collision"]):
            raise self.err("collision: environment-collision lists are not supported by Klamp't "
                           "(it aborts)", rec.lists["collision"].line)
        if rec.lists.get("nocollision") is not None and len(rec.lists["nocollision"]):
            raise self.err("nocollision: environment-collision lists are not supported by "
                           "Klamp't (it aborts)", rec.lists["nocollision"].line)
        self.links_and_limits(n)
        self.masses(n)
        load_link_geometry(self, n)
        self.check_truncated(n)
        self.joints(n)
        self.drivers(n)
        self.properties()
        mount_links = self.resolve_mount_links()
        mount_geometry(self, mount_links)
        if "automass" in rec.scalars:
            apply_automass(self)
        name = os.path.splitext(os.path.basename(self.path))[0]
        self.robot = robot = self.asm.to_robot(name)
        robot.source = self.path
        deferred = self.self_collision()
        self.mount_robots(mount_links)
        self.deferred_pairs(deferred)
        robot.extras["klampt"] = {
            "format": "rob",
            "automass": rec.scalars["automass"].value if "automass" in rec.scalars else None,
            "autotorque": rec.scalars["autotorque"].value if "autotorque" in rec.scalars else 0.0,
            "base_transform": self.base_transform,
            "mounts": [{"link": m.link, "file": m.file, "transform": m.transform, "as": m.name}
                       for m in rec.mounts],
        }
        return robot


def build_robot(rec: RobRecords, path: str, ctx: LoadContext) -> Robot:
    return _Builder(rec, path, ctx).build()
