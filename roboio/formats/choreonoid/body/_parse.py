"""Choreonoid ``.body`` text -> link records (:mod:`._records`): the YAML tree read the way
Choreonoid's StdBodyLoader reads it, before any mapping onto roboio's robot model.

Angles are converted to radians here (``angle_unit``, default degree); lengths are metres.
"""
from __future__ import annotations

import math
import os
from typing import Optional

import numpy as np

from ....errors import FormatError
from ....context import LoadContext
from ....transforms import vector_dot, vector_norm
from .. import _yaml as Y
from ._elements import ElementReader, read_inertia, read_rotation, read_translation
from ...fileio import read_text
from ._records import JOINT_TYPES, BodyRecords, LinkRec, LinkShapes

__all__ = ["parse_records", "depth_first", "combine_rigid_bodies"]

_AXES = {"X": (1, 0, 0), "-X": (-1, 0, 0), "Y": (0, 1, 0), "-Y": (0, -1, 0), "Z": (0, 0, 1),
         "-Z": (0, 0, -1)}
# keys interpreted by the link reader (everything else is kept as link info)
_LINK_KEYS = {"type", "name", "parent", "joint_name", "translation", "rotation", "joint_type",
              "jointType", "joint_axis", "jointAxis", "joint_id", "jointId", "joint_range",
              "jointRange", "max_joint_velocity", "maxJointVelocity", "joint_velocity_range",
              "jointVelocityRange", "max_joint_effort", "maxJointEffort", "joint_angle", "jointAngle",
              "joint_displacement", "jointDisplacement", "center_of_mass", "centerOfMass", "mass",
              "inertia", "material", "elements", "import"}


class _Reader:
    def __init__(self, path: str, ctx: LoadContext):
        self.path, self.ctx = path, ctx
        self.degree = True

    def err(self, node, msg, line=None):
        return FormatError(self.path, line if line is not None else Y.line_of(node), None, msg)

    def warn(self, msg, node=None, **kind):
        self.ctx.warn(msg, Y.line_of(node), **kind)

    def rad(self, a: float) -> float:
        return a * math.pi / 180.0 if self.degree else a

    def num(self, node, what):
        return Y.to_float(node, self.path, what, self.warn)

    # -- top ---------------------------------------------------------------------------
    def body(self, top) -> BodyRecords:
        if not isinstance(top, dict):
            raise self.err(top, "a .body file must hold a YAML mapping", 1)
        fmt = top.get("format")
        if fmt is None:
            raise self.err(top, "no 'format: ChoreonoidBody' (bodies that only name another "
                                "model file with modelFile are not supported)", 1)
        if str(fmt) != "ChoreonoidBody":
            raise self.err(fmt, f"format {str(fmt)!r} cannot be loaded as a Choreonoid body model")
        _, vnode = Y.get_key(top, "format_version", "formatVersion")
        if vnode is None:
            raise self.err(top, "format_version is not specified", 1)
        version = Y.to_float(vnode, self.path, "format_version")
        if version >= 2.1:
            raise self.err(vnode, f"body format version {Y.scalar_text(version)} is not supported (< 2.1)")
        unit = Y.get(top, "angle_unit", "angleUnit")
        if unit is not None:
            u = Y.to_str(unit, self.path, "angle_unit")
            if u not in ("degree", "radian"):
                raise self.err(unit, "angle_unit must be degree or radian")
            if u == "radian" and version >= 2.0:
                raise self.err(unit, "angle_unit radian is not allowed in format version 2.0")
            self.degree = u == "degree"
        self.elements = ElementReader(self.path, self.ctx, self.rad, top)
        name = Y.to_str(top["name"], self.path, "name") if "name" in top else \
            os.path.splitext(os.path.basename(self.path))[0]
        links = top.get("links")
        if links is None:
            raise self.err(top, "no 'links'", 1)
        recs: list = []
        if isinstance(links, list):
            if not links:
                raise self.err(links, "'links' is empty")
            for node in links:
                self.link_node(Y.to_map(node, self.path, "link"), "", recs)
        elif isinstance(links, dict):
            for typ, node in links.items():
                self.link_node(Y.to_map(node, self.path, typ), typ, recs)
        else:
            raise self.err(links, "'links' must be a list or a mapping")
        if not recs:
            raise self.err(top, "no link is defined", 1)
        rnode = Y.get(top, "root_link", "rootLink")
        root = Y.to_str(rnode, self.path, "root_link") if rnode is not None else recs[0].name
        if root not in {r.name for r in recs}:
            raise self.err(rnode, f"root link {root!r} is not defined")
        skip = {"format", "format_version", "formatVersion", "angle_unit", "angleUnit", "name",
                "root_link", "rootLink", "links", "extra_joints", "extraJoints"}
        info = {k: v for k, v in top.items() if k not in skip}
        extra = Y.get(top, "extra_joints", "extraJoints")
        return BodyRecords(name, recs, root, version, self.degree, info,
                           list(extra) if isinstance(extra, list) else [], self.path)

    def link_node(self, node, parent_type, recs):
        t = node.get("type")
        typ = Y.to_str(t, self.path, "type") if t is not None else parent_type
        if t is not None and parent_type and typ != parent_type:
            raise self.err(t, f"node type {typ!r} differs from {parent_type!r}")
        if typ in ("", "Link"):
            recs.append(self.link(node))
        elif typ == "SubBody":
            self.sub_body(node, recs)
        elif typ == "ContinuousTrack":
            self.continuous_track(node, recs)
        elif typ != "Skip":
            raise self.err(node, f"a {typ} node cannot be specified in links")

    # -- one link ----------------------------------------------------------------------
    def link(self, node, rec: Optional[LinkRec] = None) -> LinkRec:
        """A link from its node; with ``rec`` (the root of a sub-body) only the keys present
        override it (Choreonoid's readLinkContents for sub-body nodes)."""
        node = self.imported(node)
        sub = rec is not None
        if not sub:
            nm = node.get("name")
            if nm is None:
                raise self.err(node, "link has no name")
            rec = LinkRec(Y.to_str(nm, self.path, "name"), line=node.line)
            if "joint_name" in node:
                rec.joint_name = Y.to_str(node["joint_name"], self.path, "joint_name")
        if "parent" in node:
            rec.parent = Y.to_str(node["parent"], self.path, "parent")
        given = rec.given
        if "translation" in node:
            rec.translation = read_translation(node["translation"], self.path)
            given.add("translation")
        if "rotation" in node:
            rec.rotation = read_rotation(node["rotation"], self.path, self.rad)
            given.add("rotation")
        self.joint(node, rec)
        if "material" in node:
            rec.material = Y.to_str(node["material"], self.path, "material")
        shapes = LinkShapes()
        if "elements" in node:
            self.elements.read(node["elements"], shapes)
        if not sub:
            rec.shapes = shapes
            self.mass(node, rec, shapes)
            rec.info = {k: v for k, v in node.items() if k not in _LINK_KEYS}
        return rec

    def imported(self, node):
        imp = node.get("import")
        if imp is None:
            return node
        out = Y.YMap(node)
        out.line, out.key_lines = node.line, node.key_lines
        maps = [imp] if isinstance(imp, dict) else list(reversed(Y.to_list(imp, self.path, "import")))
        for m in maps:
            for k, v in Y.to_map(m, self.path, "import").items():
                out[k] = v
        return out

    def joint(self, node, rec: LinkRec):
        jid = Y.get(node, "joint_id", "jointId")
        if jid is not None:
            rec.joint_id = Y.to_int(jid, self.path, "joint_id", self.warn)
        jt = Y.get(node, "joint_type", "jointType")
        if jt is not None:
            s = Y.to_str(jt, self.path, "joint_type")
            if s not in JOINT_TYPES:
                raise self.err(jt, f"illegal joint_type {s!r} (revolute, prismatic, free, fixed, "
                                   "pseudo_continuous_track)")
            rec.joint_type = JOINT_TYPES[s]
            rec.given.add("joint_type")
        ax = Y.get(node, "joint_axis", "jointAxis")
        if ax is not None:
            if isinstance(ax, list):
                rec.axis = np.array(Y.to_floats(ax, self.path, "joint_axis", 3))
            else:
                s = Y.to_str(ax, self.path, "joint_axis").upper()
                if s not in _AXES:
                    raise self.err(ax, f"illegal joint_axis {str(ax)!r} (x, y, z, -x, -y, -z or a vector)")
                rec.axis = np.array(_AXES[s], dtype=float)
            n = float(vector_norm(rec.axis))
            if abs(n - 1.0) > 1e-9:
                self.warn(f"link {rec.name!r}: joint_axis has length {n:g}, not 1 (kept as given)", ax, kind="quirk")
        revolute = rec.joint_type == "revolute"
        ang = Y.get(node, "joint_angle", "jointAngle")
        if ang is not None:
            rec.q0 = self.rad(self.num(ang, "joint_angle"))
        disp = Y.get(node, "joint_displacement", "jointDisplacement")
        if disp is not None:
            v = self.num(disp, "joint_displacement")
            rec.q0 = self.rad(v) if revolute else v
        rng = Y.get(node, "joint_range", "jointRange")
        if rng is not None:
            if isinstance(rng, list):
                if len(rng) != 2:
                    raise self.err(rng, "joint_range must have two elements")
                lo, hi = self.limit(rng[0], False), self.limit(rng[1], True)
            else:
                hi = self.limit(rng, True)
                lo = -hi
            if revolute and self.degree:
                lo, hi = (lo if math.isinf(lo) else self.rad(lo)), (hi if math.isinf(hi) else self.rad(hi))
            rec.qlim = (lo, hi)
        mv = Y.get(node, "max_joint_velocity", "maxJointVelocity")
        if mv is not None:
            v = self.num(mv, "max_joint_velocity")
            v = self.rad(v) if revolute else v
            rec.vlim = (-v, v)
        vr = Y.get(node, "joint_velocity_range", "jointVelocityRange")
        if vr is not None:
            lo, hi = Y.to_floats(vr, self.path, "joint_velocity_range", 2, self.warn)
            rec.vlim = (self.rad(lo), self.rad(hi)) if revolute else (lo, hi)
        me = Y.get(node, "max_joint_effort", "maxJointEffort")
        if me is not None:
            rec.effort = self.num(me, "max_joint_effort")

    def limit(self, node, upper: bool) -> float:
        if isinstance(node, str) and node.strip() == "unlimited":
            return math.inf if upper else -math.inf
        if isinstance(node, str) and Y.strtod(node) is None:
            raise self.err(node, f"unknown symbol {str(node)!r} in joint_range (a number or unlimited)")
        return self.num(node, "joint_range")

    def mass(self, node, rec: LinkRec, shapes: LinkShapes):
        com_n = Y.get(node, "center_of_mass", "centerOfMass")
        has_c, has_m, has_i = com_n is not None, "mass" in node, "inertia" in node
        bodies = list(shapes.rigid_bodies)
        if has_c or has_m or has_i:
            default = (1.0, np.zeros(3), np.eye(3)) if not bodies else (0.0, np.zeros(3), np.zeros((3, 3)))
            m = self.num(node["mass"], "mass") if has_m else default[0]
            c = np.array(Y.to_floats(com_n, self.path, "center_of_mass", 3, self.warn)) if has_c else default[1]
            inertia = read_inertia(node["inertia"], self.path) if has_i else default[2]
            rec.given.add("mass")
            if not bodies:
                # the link's own keys alone are used as they are (no combination, whose
                # m c / m arithmetic would change the COM in the last digit)
                rec.mass, rec.com, rec.inertia = float(m), c, inertia
                return
            bodies.append((m, c, inertia))
        if not bodies:
            return
        rec.mass, rec.com, rec.inertia = combine_rigid_bodies(bodies)

    # -- sub-bodies and tracks -----------------------------------------------------------
    def sub_body(self, node, recs):
        uri = node.get("uri")
        if uri is None:
            raise self.err(node, "SubBody needs a uri")
        sub_path = os.path.normpath(os.path.join(os.path.dirname(self.path), Y.to_str(uri, self.path, "uri")))
        if not os.path.exists(sub_path):
            raise self.err(uri, f"SubBody file {str(uri)!r} not found ({sub_path})")
        real = os.path.realpath(sub_path)
        if real == os.path.realpath(self.path) or real in self.ctx.stack:
            raise self.err(uri, "recursive sub-body is prohibited")
        self.ctx.check_depth(len(self.ctx.stack) + 1, Y.line_of(uri), what="sub-bodies including sub-bodies")
        self.ctx.charge("files", 1, Y.line_of(uri), what=f"opening {sub_path}")
        self.ctx.stack.append(real)
        try:
            sub = parse_records(read_text(sub_path, self.ctx), self.ctx.child(sub_path))
        finally:
            self.ctx.stack.pop()
        prefix = str(node.get("prefix", ""))
        suffix = str(node.get("suffix", ""))
        offset = Y.to_int(Y.get(node, "joint_id_offset", "jointIdOffset", default="0"), self.path, "jointIdOffset")
        order = depth_first(sub.links, sub.root, sub.path)
        root = None
        for r in order:
            r.name = prefix + r.name + suffix
            if r.parent is not None:
                r.parent = prefix + r.parent + suffix
            if r.joint_id >= 0:
                r.joint_id += offset
            r.info.setdefault("sub_body", str(uri))
            if r.parent is None:
                root = r
            else:
                r.internal = True
        root.parent = None
        self.link(node, root)
        recs.extend(order)

    def continuous_track(self, node, recs):
        if "parent" not in node:
            raise self.err(node, "ContinuousTrack: parent must be specified")
        n = Y.to_int(Y.get(node, "num_joints", "numJoints"), self.path, "numJoints") \
            if Y.get(node, "num_joints", "numJoints") is not None else None
        if n is None or n < 3:
            raise self.err(node, "ContinuousTrack: numJoints must be given and more than 2")
        off = Y.get(node, "joint_offset", "jointOffset")
        if off is None:
            raise self.err(node, "ContinuousTrack: jointOffset must be specified")
        offset = np.array(Y.to_floats(off, self.path, "jointOffset", 3))
        init = Y.get(node, "initial_joint_angles", "initialJointAngles")
        angles = [self.rad(self.num(a, "initialJointAngles")) for a in Y.to_list(init, self.path, "")] if init else []
        first = self.link(node)
        base = first.name
        parent = first.parent
        for i in range(n):
            r = LinkRec(f"{base}{i}", parent, node.line) if i else first
            if i:
                r.joint_type, r.axis, r.translation = "revolute", first.axis.copy(), offset.copy()
                r.mass, r.com, r.inertia = first.mass, first.com.copy(), first.inertia.copy()
                r.shapes, r.info = first.shapes, dict(first.info)
                r.q0 = angles[i - 1] if i - 1 < len(angles) else 0.0
            else:
                r.name, r.joint_type = f"{base}0", "free"
            r.info["continuous_track"] = base
            recs.append(r)
            parent = r.name


def combine_rigid_bodies(bodies):
    """Choreonoid's setMassParameters: total mass, mass-weighted COM, inertias moved to it."""
    m = sum(b[0] for b in bodies)
    if not m > 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    c = sum(b[0] * np.asarray(b[1]) for b in bodies) / m
    inertia = np.zeros((3, 3))
    for mi, ci, Ii in bodies:
        o = c - ci
        inertia += Ii + mi * (vector_dot(o, o) * np.eye(3) - np.outer(o, o))
    return float(m), c, inertia


def depth_first(recs: list, root: str, path) -> list:
    """Records in Choreonoid's link index order: depth-first pre-order from the root, children
    in the order they were attached (sub-body internals first, then file order)."""
    by_name = {}
    for r in recs:
        if r.name in by_name:
            raise FormatError(path, r.line, None, f"duplicated link name {r.name!r}")
        by_name[r.name] = r
    children: dict = {r.name: [] for r in recs}
    for internal in (True, False):
        for r in recs:
            if r.internal != internal or r.name == root:
                continue
            if r.parent is None:
                raise FormatError(path, r.line, None, f"the parent of link {r.name!r} is not specified")
            if r.parent not in by_name:
                raise FormatError(path, r.line, None, f"parent link {r.parent!r} of {r.name!r} is not defined")
            children[r.parent].append(r)
    order, stack = [], [by_name[root]]
    while stack:
        r = stack.pop()
        order.append(r)
        stack.extend(reversed(children[r.name]))
    if len(order) != len(recs):
        lost = [r.name for r in recs if r not in order]
        raise FormatError(path, by_name[lost[0]].line, None,
                          f"links {lost} are not connected to the root {root!r} (cyclic parents?)")
    return order


def parse_records(text: str, ctx: LoadContext) -> BodyRecords:
    """The records of ``.body`` text (``ctx.path`` names the file and is the base of
    referenced mesh files)."""
    path = ctx.path or ""
    return _Reader(path, ctx).body(Y.load(text, path, ctx=ctx))
