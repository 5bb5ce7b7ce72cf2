"""Records -> model: SI units, GraspIt!'s defaults, DH chains as one-DOF links.

**Robots** (spec §5-§8). The palm is link 0 (``<Robot>Base``, welded to the world frame).
Each chain is a branch of the palm. Every GraspIt! joint ``i`` (standard DH,
``J_i = Rz(theta) Tz(d) Tx(a) Rx(alpha)``) becomes one moving link:

* prismatic joint: the link frame *is* the DH frame after the joint (``d`` moves along
  ``Rx(-alpha) z`` in that frame);
* revolute joint: the link frame is the DH frame after the joint moved back by ``-a`` along
  its x axis, i.e. ``F_{i-1} Rz(theta) Tz(d) Rx(alpha)``: it turns about ``Rx(-alpha) z``
  through its own origin. When ``a = 0`` that is the DH frame itself; otherwise the DH
  frame is a welded child at ``Tx(a)``.

A GraspIt! link (``<Robot>_chain<c>_link<l>``, attached to the frame after its last consumed
joint) is the joint's link when that frame is exact, else the welded child. Joints that carry
no GraspIt! link (inside Universal/Ball groups, or after the chain's last link) get
massless, geometry-free links named ``<Robot>_chain<c>_joint<j>``. Every GraspIt! link's
world frame is exactly GraspIt!'s.

Joint values are GraspIt!'s (``r * q_dof``, offset not included: the DH offset is in the
link's fixed transform), so joint limits are ``minValue..maxValue``. Each DOF is an affine
driver over its joints with scale = the joint's (static) coupling ratio, offset 0.

**Bodies** (spec §4): geometry transform = mm -> m * offset * scale; mass g -> kg (300 g
default); cog mm -> m; inertia = mass * inertia_matrix (mm^2 -> m^2); missing cog/inertia
computed from the mesh as GraspIt! does (:mod:`._massprops`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ...context import LoadContext
from ...model import Driver, Joint, Link, RigidObject, Robot, Terrain
from ._massprops import body_triangles, default_cog, default_inertia
from ._records import BodyRec, RobotRec
from ._transform import matrix_mm
from ...transforms import compose

__all__ = ["BodyData", "body_data", "build_robot", "dh_structure", "Node", "MM", "mm_to_m", "JointInfo", "dh_link_frame",
           "joint_infos", "dof_ranges", "GRAMS", "geometry_transform_si", "mass_kg", "com_m",
           "inertia_si", "DEFAULT_MASS_G"]

MM = 1e-3          # metres per millimetre
GRAMS = 1e-3       # kilograms per gram
DEFAULT_MASS_G = 300.0
_MM_TO_M = np.diag([MM, MM, MM, 1.0])


def mm_to_m(T_mm) -> np.ndarray:
    """A rigid transform in millimetres -> metres (translation scaled)."""
    T = np.array(T_mm, float)
    T[:3, 3] *= MM
    return T


# -- bodies --------------------------------------------------------------------------------
@dataclass
class BodyData:
    """A body as the model needs it (SI): geometry (transform set), mass properties, and
    what the writer keeps (``extras``)."""

    geometry: object
    mass: float
    com: np.ndarray
    inertia: np.ndarray
    record: BodyRec
    extras: dict = field(default_factory=dict)


def geometry_transform_mm(rec: BodyRec) -> np.ndarray:
    """``T_offset * S``: raw file coordinates -> body frame (mm)."""
    if rec.scaling is not None:
        s = (rec.scaling.value,) * 3
    else:
        s = tuple(1.0 if v is None else v.value for v in rec.scaling_xyz)
    return compose(matrix_mm(rec.offset), np.diag([s[0], s[1], s[2], 1.0]))


def geometry_transform_si(rec: BodyRec) -> np.ndarray:
    """The model's geometry transform for ``rec``: file coordinates -> body frame (m)."""
    return compose(_MM_TO_M, geometry_transform_mm(rec))


def mass_kg(rec: BodyRec) -> float:
    return (DEFAULT_MASS_G if rec.mass is None else rec.mass.value) * GRAMS


def com_m(cog_mm) -> np.ndarray:
    return np.asarray(cog_mm, float) * MM


def inertia_si(mass: float, inertia_mm2) -> np.ndarray:
    """``mass`` (kg) times the per-unit-mass inertia (mm^2) -> kg m^2."""
    return mass * np.asarray(inertia_mm2, float).reshape(3, 3) * (MM * MM)


def body_data(rec: BodyRec, geometry, ctx: LoadContext, *, dynamic: bool, path: Optional[str] = None,
              memo=None) -> BodyData:
    """SI body of ``rec`` whose geometry file was loaded as ``geometry`` (None or missing
    allowed). ``dynamic``: links and graspable bodies read mass, cog and inertia
    (obstacles do not). ``memo``: a key (the body file) under which the default mass
    properties computed from the geometry are kept for the rest of the load (a robot whose
    links use one body file a thousand times computes them once)."""
    T_mm = geometry_transform_mm(rec)
    if geometry is not None:
        geometry.transform = geometry_transform_si(rec)
    if rec.mass is not None and dynamic and not rec.mass.value > 0:
        raise ctx.error(f"<mass> must be > 0 (grams), got {rec.mass.text!r}", rec.mass_line, path=path)
    extras = {"material": rec.material or "wood"}
    if geometry is not None and geometry.source is not None:
        extras["geometry_path"] = geometry.source.path
    cog_mm = inertia_mm2 = None
    if rec.cog is not None:
        cog_mm = np.array([v.value for v in rec.cog])
    if rec.inertia is not None:
        inertia_mm2 = np.array([v.value for v in rec.inertia]).reshape(3, 3)
    if dynamic and (cog_mm is None or inertia_mm2 is None):
        key = ("graspit-mass-properties", memo, geometry is None or geometry.missing)
        known = ctx.cache.get(key) if memo is not None else None
        if known is None:
            tri = np.zeros((0, 3, 3))
            if geometry is not None and not geometry.missing:
                tri = body_triangles(geometry.vertices, geometry.faces, T_mm)
            known = (len(tri), default_cog(tri), default_inertia(tri))
            if memo is not None:
                ctx.cache[key] = known
        n_tri, known_cog, known_inertia = known
        if cog_mm is None:
            cog_mm = known_cog.copy()
            extras["cog_computed"] = True
        if inertia_mm2 is None:
            inertia_mm2 = None if known_inertia is None else known_inertia.copy()
            extras["inertia_computed"] = True
            if inertia_mm2 is None:
                what = "it has no triangles" if n_tri == 0 else (
                    "the mesh is not a closed volume (zero volume, a degenerate triangle, or a "
                    "centroid more than 500 mm from the origin)")
                ctx.warn(f"no <inertia_matrix> and GraspIt! cannot compute one ({what}): GraspIt! "
                         "uses an invalid matrix; roboio uses 1 mm^2 per unit mass on each axis",
                         rec.line, path=path, kind="guessed")
                inertia_mm2 = np.eye(3)
                extras["inertia_unknown"] = True
    if cog_mm is None:
        cog_mm = np.zeros(3)
    if inertia_mm2 is None:
        inertia_mm2 = np.zeros((3, 3))
    mass = mass_kg(rec)
    out = BodyData(geometry, mass, com_m(cog_mm), inertia_si(mass, inertia_mm2), rec, extras)
    if extras.get("cog_computed"):
        extras["computed_com"] = out.com
    if extras.get("inertia_computed"):
        extras["computed_inertia"] = out.inertia
        extras["computed_mass"] = mass
    return out


def rigid_object(name: str, body: BodyData) -> RigidObject:
    o = RigidObject(name, body.geometry)
    o.mass, o.com, o.inertia = body.mass, body.com, body.inertia
    o.extras["graspit"] = dict(body.extras, body=body.record)
    return o


def terrain(name: str, body: BodyData) -> Terrain:
    t = Terrain(name, body.geometry)
    t.extras["graspit"] = dict(body.extras, body=body.record)
    return t


# -- robots --------------------------------------------------------------------------------
def _rz(a):
    c, s = math.cos(a), math.sin(a)
    T = np.eye(4)
    T[0, 0], T[0, 1], T[1, 0], T[1, 1] = c, -s, s, c
    return T


def _rx(a):
    c, s = math.cos(a), math.sin(a)
    T = np.eye(4)
    T[1, 1], T[1, 2], T[2, 1], T[2, 2] = c, -s, s, c
    return T


def _t(x=0.0, y=0.0, z=0.0):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


@dataclass
class JointInfo:
    """One GraspIt! joint, in SI: ``theta``/``alpha`` radians, ``d``/``a`` metres; the DOF
    slot's ``offset`` in radians (revolute) or metres (prismatic); ``ratio`` the static
    coupling ratio (compliant DOFs: GraspIt!'s hard-coded formula)."""

    chain: int
    index: int          # in the chain
    number: int         # global joint number
    prismatic: bool
    theta: float
    d: float
    a: float
    alpha: float
    dof: int
    ratio: float
    offset: float
    lo: float           # limits as written, converted (radians / metres)
    hi: float


def joint_infos(rec: RobotRec) -> list:
    """Every joint of the robot, in global order, with the static ratio of its DOF."""
    out = []
    n = 0
    for c, chain in enumerate(rec.chains):
        for j, jr in enumerate(chain.joints):
            e = jr.expr
            if jr.type == "Revolute":
                info = JointInfo(c, j, n, False, 0.0, jr.d.value * MM, jr.a.value * MM,
                                 math.radians(jr.alpha.value), e.dof, e.ratio, math.radians(e.offset),
                                 math.radians(jr.min.value), math.radians(jr.max.value))
            else:
                info = JointInfo(c, j, n, True, math.radians(jr.theta.value), 0.0, jr.a.value * MM,
                                 math.radians(jr.alpha.value), e.dof, e.ratio, e.offset * MM,
                                 jr.min.value * MM, jr.max.value * MM)
            out.append(info)
            n += 1
    # compliant DOFs: the static ratio of joints other than 0, 2, 4, 6 (GraspIt!'s rule
    # for the Harvard hand): (k_ref / k_j) * r_1 r_j / (r_1 + r_j)
    joints_flat = [jr for chain in rec.chains for jr in chain.joints]
    for k, dof in enumerate(rec.dofs):
        if dof.type != "c":
            continue
        mine = [i for i in out if i.dof == k]
        if not mine:
            continue

        def stiffness(i):
            s = joints_flat[i.number].spring_stiffness
            return 0.0 if s is None else s.value
        k_ref = stiffness(mine[0])
        r1 = mine[0].ratio
        for i in mine:
            if i.number in (0, 2, 4, 6):
                continue
            kj = stiffness(i) or k_ref
            with np.errstate(all="ignore"):
                i.ratio = float(np.float64(k_ref) / kj * (r1 * i.ratio) / (r1 + i.ratio))
    return out


def dof_ranges(rec: RobotRec, joints: list) -> list:
    """``(min, max)`` of each DOF in GraspIt! units (rad / mm): the intersection over its
    joints of ``[min/r, max/r]`` (swapped when reversed), computed as GraspIt! does (IEEE
    division; None for a DOF that no joint uses)."""
    out = []
    for k in range(len(rec.dofs)):
        mine = [i for i in joints if i.dof == k]
        if not mine:
            out.append(None)
            continue
        lo = hi = None
        for i in mine:
            scale = MM if i.prismatic else 1.0
            with np.errstate(all="ignore"):
                tmax = float(np.float64(i.hi / scale) / i.ratio)
                tmin = float(np.float64(i.lo / scale) / i.ratio)
            if tmax < tmin:
                tmin, tmax = tmax, tmin
            if hi is None:
                lo, hi = tmin, tmax
            else:
                hi = tmax if tmax < hi else hi
                lo = tmin if tmin > lo else lo
        out.append((lo, hi))
    return out


def dh_link_frame(i: JointInfo):
    """``(parent_transform, axis, after)`` of joint ``i``'s link relative to the frame before
    the joint (metres): the link turns/slides about ``axis`` in its own frame; ``after`` is
    the constant transform from the link frame to GraspIt!'s DH frame after the joint
    (None when they coincide)."""
    axis = (0.0, math.sin(i.alpha), math.cos(i.alpha))
    if i.prismatic:
        P = compose(compose(compose(_rz(i.theta), _t(z=i.offset)), _t(x=i.a)), _rx(i.alpha))
        return P, axis, None
    P = compose(compose(_rz(i.offset), _t(z=i.d)), _rx(i.alpha))
    return P, axis, (_t(x=i.a) if i.a != 0 else None)


def _link(name, parent, prismatic, axis, P, body: Optional[BodyData]) -> Link:
    link = Link(name, parent, "prismatic" if prismatic else "revolute", axis, P, mass=0.0,
                com=(0, 0, 0), inertia=np.zeros((3, 3)))
    if body is not None:
        link.geometry = body.geometry
        link.mass, link.com, link.inertia = body.mass, body.com, body.inertia
        link.extras["graspit"] = dict(body.extras, body=body.record)
    return link


def _sorted_limits(lo, hi):
    return (lo, hi) if lo <= hi else (hi, lo)


@dataclass
class Node:
    """One model link of a GraspIt! robot: ``kind`` is ``palm``, ``joint`` (moving, GraspIt!
    joint number ``joint``) or ``weld`` (a GraspIt! link at ``Tx(a)`` from its joint's link);
    ``graspit_link`` = (chain, link) when the node carries that GraspIt! link."""

    kind: str
    name: str
    parent: int
    prismatic: bool
    axis: tuple
    P: np.ndarray
    joint: Optional[int] = None
    graspit_link: Optional[tuple] = None


def dh_structure(rec: RobotRec, name: str, joints: Optional[list] = None) -> list:
    """The model links of robot record ``rec`` in order (see the module docstring)."""
    joints = joint_infos(rec) if joints is None else joints
    out = [Node("palm", rec.palm_name or f"{name}Base", -1, False, (0.0, 0.0, 1.0), np.eye(4))]
    for c, chain in enumerate(rec.chains):
        last = []
        consumed = 0
        for lr in chain.links:
            consumed += lr.joints_consumed
            last.append(consumed - 1)
        attach = {j: l for l, j in enumerate(last)}
        parent = 0
        before = mm_to_m(matrix_mm(chain.transform))
        for i in (i for i in joints if i.chain == c):
            P, axis, after = dh_link_frame(i)
            l = attach.get(i.index)
            carries = l is not None and after is None
            jname = chain.joints[i.index].name or f"{name}_chain{c}_joint{i.index}"
            lname = (chain.links[l].name or f"{name}_chain{c}_link{l}") if carries else jname
            out.append(Node("joint", lname, parent, i.prismatic, axis, compose(before, P), i.number,
                            (c, l) if carries else None))
            parent = len(out) - 1
            before = np.eye(4)
            if l is not None and after is not None:
                out.append(Node("weld", chain.links[l].name or f"{name}_chain{c}_link{l}", parent, False,
                                (0.0, 0.0, 1.0), after, None, (c, l)))
                parent = len(out) - 1
            elif l is None and after is not None:
                before = after
    return out


def build_robot(rec: RobotRec, name: str, palm: BodyData, link_bodies: list, ctx: LoadContext) -> Robot:
    """The model of robot record ``rec`` (``link_bodies[c][l]`` the chain links' bodies)."""
    robot = Robot(name)
    path = rec.path
    joints = joint_infos(rec)
    ranges = dof_ranges(rec, joints)
    dof_unit = []
    for k, dof in enumerate(rec.dofs):
        mine = [i for i in joints if i.dof == k]
        dof_unit.append(MM if (mine and mine[0].prismatic) else 1.0)
        if not mine:
            ctx.warn(f"DOF {k} is used by no joint (GraspIt! leaves it uninitialised)", dof.line, path=path, kind="guessed")
    defaults = []
    for k, dof in enumerate(rec.dofs):
        v = math.radians(dof.default_value.value) if dof.default_value is not None else 0.0
        if ranges[k] is not None:
            lo, hi = ranges[k]
            if hi < v:
                v = hi
            if lo > v:
                v = lo
            if lo > hi:
                ctx.warn(f"DOF {k}: the limits of its joints leave no common range "
                         f"({lo:g} > {hi:g})", dof.line, path=path, kind="invalid value")
        defaults.append(v)

    joint_link = []
    link_index = {}
    for node in dh_structure(rec, name, joints):
        if node.kind == "palm":
            body = palm
        elif node.graspit_link is not None:
            body = link_bodies[node.graspit_link[0]][node.graspit_link[1]]
        else:
            body = None
        link = _link(node.name, node.parent, node.prismatic, node.axis, node.P, body)
        if node.kind == "joint":
            i = joints[node.joint]
            lo, hi = _sorted_limits(i.lo, i.hi)
            jline = rec.chains[i.chain].joints[i.index].line
            if i.lo > i.hi:
                ctx.warn(f"joint {i.index} of chain {i.chain}: minValue > maxValue; the limits are "
                         "read as the interval they span", jline, path=path, kind="invalid value")
            q0 = i.ratio * defaults[i.dof] * (MM if i.prismatic else 1.0)
            robot.add_link(link, qmin=lo, qmax=hi, q=q0 if math.isfinite(q0) else 0.0)
            robot.joints.append(Joint("normal", [link.index]))
            joint_link.append(link.index)
            ctx.charge("links", 1, jline)
        else:
            robot.add_link(link, qmin=0.0, qmax=0.0, q=0.0)
            robot.joints.append(Joint("weld", [link.index]))
        if node.kind == "palm":
            link_index[("palm",)] = link.index
        if node.graspit_link is not None:
            link_index[node.graspit_link] = link.index

    for k, dof in enumerate(rec.dofs):
        mine = [i for i in joints if i.dof == k]
        scale = [i.ratio * (MM if i.prismatic else 1.0) / dof_unit[k] for i in mine]
        lo, hi = ranges[k] if ranges[k] is not None else (-np.inf, np.inf)
        effort = abs(dof.max_effort.value) * (1e-6 if dof_unit[k] == MM else 1e-9)
        drv = Driver(dof.name or f"dof{k}", "affine", [joint_link[i.number] for i in mine], scale, [0.0] * len(mine),
                     qmin=lo * dof_unit[k], qmax=hi * dof_unit[k], tmin=-effort, tmax=effort)
        drv.extras["graspit"] = {"dof": dof}
        robot.drivers.append(drv)
    robot.self_collision_pairs = _collision_pairs(rec, link_index, ctx)
    robot.extras["graspit"] = {
        "record": rec, "type": rec.type, "dbname": rec.dbname, "joint_links": joint_link,
        "links": link_index, "joint_ratios": [i.ratio for i in joints],
        "default_dofs": [d * dof_unit[k] for k, d in enumerate(defaults)],
        "dof_units": dof_unit,
    }
    robot.source = path
    return robot


def _collision_pairs(rec: RobotRec, link_index: dict, ctx) -> set:
    """Pairs of GraspIt! links checked for self-collision: all, except links of one chain,
    each chain's first link with the palm, ``<disableCollision>`` pairs and ``collisionRule``
    exclusions (pairs GraspIt! finds touching at load time are not known here)."""
    bodies = {k: v for k, v in link_index.items()}
    off = set()
    skip = set()
    for c, chain in enumerate(rec.chains):
        idx = [bodies[(c, l)] for l in range(len(chain.links))]
        for a in idx:
            for b in idx:
                if a < b:
                    skip.add((a, b))
        skip.add(tuple(sorted((0, idx[0]))))
        for l, lr in enumerate(chain.links):
            me = bodies[(c, l)]
            if lr.collision_rule == "Off":
                off.add(me)
            elif lr.collision_rule == "OverlappingPair":
                tc = (lr.target_chain or "").strip()
                if tc == "base":
                    skip.add(tuple(sorted((0, me))))
                elif lr.target_link is not None:
                    try:
                        tl = int(lr.target_link.strip())
                        ch = c if not tc else int(tc)
                        skip.add(tuple(sorted((me, bodies[(ch, tl)]))))
                    except (ValueError, KeyError):
                        ctx.warn(f"<link collisionRule=\"OverlappingPair\">: no link targetChain="
                                 f"{lr.target_chain!r} targetLink={lr.target_link!r}", lr.line, path=rec.path, kind="invalid value")
    for l1, c1, l2, c2, line in rec.disable_collisions:
        try:
            a = 0 if c1 < 0 else bodies[(c1, l1)]
            b = 0 if c2 < 0 else bodies[(c2, l2)]
        except KeyError:
            ctx.warn("<disableCollision> names a link that does not exist; GraspIt! skips it", line,
                     path=rec.path, kind="invalid value")
            continue
        skip.add(tuple(sorted((a, b))))
    all_links = sorted(set(bodies.values()) - off)
    return {(a, b) for ai, a in enumerate(all_links) for b in all_links[ai + 1:] if (a, b) not in skip}
