"""Records -> roboio model: the one place where OpenRAVE's body becomes a :class:`Robot`,
:class:`RigidObject`, :class:`Terrain` or :class:`World` (``openrave.md`` §16, §17).

Mapping (see ``docs/openrave.md`` for the user-facing description):

* Links: one model link per OpenRAVE link, same name; the link moved by a joint is its
  child. Roots (link 0, static links, links no joint reaches) hang from the world at their
  load pose (welds). Model link order is OpenRAVE's link order, made topological.
* Joints: a hinge is a revolute link whose axis passes through its origin when OpenRAVE's
  anchor is at the child's origin; otherwise a massless intermediate link ``<joint>.axis0``
  rotates at the anchor and the OpenRAVE link is welded to it. A slider is a prismatic link.
  ``universal``/``hinge2`` are two revolute links, ``spherical`` three (rotations about the
  parent's x, y, z axes: exact at the load pose, approximate elsewhere; see the docs).
  Static and passive (``enable="false"``) joints are welds at their load value; circular
  joints are ``spin`` joints (unbounded).
* Values: the model's zero is OpenRAVE's zero; ``robot.config`` is OpenRAVE's configuration
  at load (measured, clamped, mimic joints from their equations).
* Names: every model link of an OpenRAVE joint (its axes, the welded child) has that
  joint's name as ``joint_name``; roots have none.
* Drivers: one per OpenRAVE DOF, in OpenRAVE's DOF order, named after the joint (axis k>0
  of a multi-axis joint: ``<joint>_<k>``), its ``leader`` the link of that axis. Mimic joints whose equation is affine in one DOF
  follow that DOF's driver (affine driver); other equations (``SASA`` pistons, several
  DOFs) make the driver of their first DOF a ``nonlinear`` one whose coupling evaluates the
  equation as OpenRAVE does (clamped to the joint's limits); a spherical joint's three
  drivers share a rotation-vector coupling. Equations roboio cannot evaluate
  (multi-valued ``polyroots``) are kept as data and reported.
* Self-collision pairs: every pair of enabled links OpenRAVE does not treat as adjacent.
"""
from __future__ import annotations

import math
import os

import numpy as np

from ...model import (AttachedSensor, Driver, Group, Joint, Link, Manipulator, RigidObject,
                      Robot, Terrain, World)
from ...model.coupling import couple, rebase
from ._geometry import link_geometries
from ._hierarchy import HierarchyError, IJoint, axis_kinds, compute, joint_transform
from ._mass import Mass
from ._math import axis_angle, inv
from ...transforms import compose, det3, matrix_vector, vector_dot
from ._records import BodyRecord, EnvironmentRecord, LinkRecord

__all__ = ["build_robot", "build_world", "build_body", "ANCHOR_TOL"]

ANCHOR_TOL = 1e-12      # metres: a hinge axis closer than this to the child origin passes through it
INF = math.inf


def _error(ctx, rec, message):
    src = getattr(rec, "source", None)
    if src is not None and src.path:
        return ctx.error(message, src.line, path=src.path)
    return ctx.error(message)


class _Segment:
    """One model link for an OpenRAVE link: ``kind`` revolute/prismatic/weld, its transform
    in the parent segment's frame at q = 0, its axis, and which joint axis it carries."""

    __slots__ = ("kind", "T", "axis", "k", "value")

    def __init__(self, kind, T, axis=None, k=None, value=0.0):
        self.kind, self.T, self.axis, self.k, self.value = kind, T, axis, k, value


def _origin_on_axis(tright) -> bool:
    """Whether the joint frame's origin (the anchor) is the child's origin."""
    c = matrix_vector(tright[:3, :3].T, tright[:3, 3])
    return float(np.sqrt(vector_dot(c, c))) <= ANCHOR_TOL


def _euler_xyz(R):
    """Angles (a, b, c) with ``Rx(a) Ry(b) Rz(c) = R``."""
    b = math.asin(max(-1.0, min(1.0, R[0, 2])))
    if abs(R[0, 2]) < 1 - 1e-12:
        a = math.atan2(-R[1, 2], R[2, 2])
        c = math.atan2(-R[0, 1], R[0, 0])
    else:
        a = math.atan2(R[2, 1], R[1, 1])
        c = 0.0
    return a, b, c


def _segments(j: IJoint, values) -> list:
    """The model links of the OpenRAVE link that joint ``j`` moves, root first: one
    revolute/prismatic link per joint axis, in the order OpenRAVE applies them; the last
    one is the OpenRAVE link itself when its origin lies on that axis (always for a
    prismatic axis), else the OpenRAVE link is welded behind it."""
    tl, tr = j.tleft, j.tright
    if j.static:
        kind = "weld-prismatic" if axis_kinds(j.type)[0] == "P" else "weld"
        return [_Segment(kind, tl, getattr(j, "static_axis", None))]
    if not j.active and not j.mimic:
        return [_Segment("weld", compose(compose(tl, joint_transform(j, values)), tr))]
    if j.type == "spherical":
        # rotations about the mapped x, y, z axes, values from the rotation vector
        M = j.sph_map
        sign = -1.0 if det3(M) < 0 else 1.0
        Mp = sign * M
        v = matrix_vector(M, np.asarray(values[:3], dtype=float))
        ang = float(np.sqrt(vector_dot(v, v)))
        target = axis_angle(v / ang, ang) if ang > 0 else np.eye(3)
        eul = _euler_xyz(compose(compose(Mp.T, target), Mp))
        steps = [("R", sign * Mp[:, k], k, sign * eul[k]) for k in range(3)]
    else:
        kinds = axis_kinds(j.type)
        order = range(j.dof - 1, -1, -1) if j.reverse else range(j.dof)
        steps = [(kinds[k], np.asarray(j.axes[k], dtype=float), k, values[k]) for k in order]
    segs = []
    T = tl
    for n, (kind, axis, k, value) in enumerate(steps):
        link_kind = "revolute" if kind == "R" else "prismatic"
        if n < len(steps) - 1:
            segs.append(_Segment(link_kind, T, axis, k, value))
            T = np.eye(4)
        elif kind == "P" or _origin_on_axis(tr):
            segs.append(_Segment(link_kind, compose(T, tr), matrix_vector(tr[:3, :3].T, axis), k, value))
        else:
            segs += [_Segment(link_kind, T, axis, k, value), _Segment("weld", tr)]
    return segs


def _link_mass(link: Link, rec: LinkRecord, ctx):
    m = rec.mass
    if not np.isfinite(m.mass):
        ctx.warn(f"link {rec.name!r}: OpenRAVE's mass is NaN (mimicgeom with <total> over mesh "
                 "geometries only); mass 0 used", rec.source.line, path=rec.source.path, kind="invalid value")
        link.mass, link.com, link.inertia = 0.0, np.zeros(3), np.zeros((3, 3))
        return
    I = np.asarray(m.inertia, dtype=float)
    if not np.allclose(I, I.T, rtol=0, atol=1e-12 * max(1.0, float(np.abs(I).max()))):
        ctx.warn(f"link {rec.name!r}: the inertia matrix is not symmetric; kept as written",
                 m.source.line, path=m.source.path, kind="invalid value")
    link.mass, link.com, link.inertia = float(m.mass), m.com, I


def _appearance(link: Link, rec: LinkRecord):
    for g in rec.geoms:
        if g.diffuse is not None:
            alpha = 1.0 - (g.transparency or 0.0)
            link.appearance.color = tuple(float(x) for x in g.diffuse) + (alpha,)
            return


def _joint_data(j: IJoint) -> dict:
    """What the OpenRAVE writer needs about a joint that the model does not hold."""
    r = j.rec
    out = {"name": r.name, "type": r.type, "enable": r.active, "circular": list(r.circular),
           "lower": list(r.lower), "upper": list(r.upper), "weight": list(r.weight),
           "resolution": list(r.resolution), "hardmaxvel": list(r.hardmaxvel),
           "maxinertia": list(r.maxinertia), "maxvel": list(r.maxvel),
           "maxaccel": list(r.maxaccel), "maxtorque": list(r.maxtorque)}
    mims = [None if m is None else {"pos": m.pos, "vel": m.vel, "accel": m.accel}
            for m in r.mimic]
    if any(mims):
        out["mimic"] = mims
    for key in ("actuator", "unknown", "ignored", "raw_anchor", "raw_axes"):
        if key in r.extras:
            out[key] = r.extras[key]
    return out


def _passive_frame(j: IJoint) -> dict:
    """Anchor and axes of a passive joint in its child's frame (the model welds the child;
    the OpenRAVE writer writes the joint back as passive, which keeps OpenRAVE's adjacency)."""
    Ti = inv(j.tright)
    R = Ti[:3, :3]
    return {"anchor": [float(x) for x in Ti[:3, 3]],
            "axes": [[float(x) for x in matrix_vector(R, a)] for a in j.axes]}


def build_robot(body: BodyRecord, ctx, path: str, jointvalues=None) -> Robot:
    """The :class:`Robot` of one OpenRAVE KinBody/Robot record."""
    try:
        h = compute(body, jointvalues if jointvalues is not None else body.jointvalues,
                    budget=lambda nbytes: ctx.check_claim("alloc_bytes", nbytes,
                                                          what="joint and link tables"))
    except HierarchyError as e:
        if e.joint is not None:
            raise _error(ctx, e.joint, str(e)) from None
        raise _error(ctx, body, str(e)) from None
    for note in h.notes:
        ctx.warn(note, kind=getattr(note, "kind", None))
    links = body.links
    n = len(links)

    # segments per OpenRAVE link
    segs = []
    for i in range(n):
        gi = h.effective[i]
        if gi is None:
            segs.append([_Segment("weld", h.poses[i])])
        else:
            j = h.joints[gi]
            segs.append(_segments(j, h.values[gi]))

    # model order: OpenRAVE order, intermediates before their link, made topological
    parent_of = [None if h.effective[i] is None else h.joints[h.effective[i]].a0
                 for i in range(n)]
    order = _topological_links(parent_of, n)
    if len(order) != n:
        cyc = [links[i].name for i in sorted(set(range(n)) - set(order))]
        raise _error(ctx, body, f"links {', '.join(map(repr, cyc[:10]))} are joined in a cycle "
                                "(no path from a root link reaches them)")
    names_used = {l.name for l in links}
    model_links, qmin, qmax, vmax, amax, tmax, config = [], [], [], [], [], [], []
    groups = []
    last_index = {}            # OpenRAVE link -> model index of the link itself
    seg_index = {}             # (generalised joint index, axis) -> model index
    for i in order:
        rec = links[i]
        gi = h.effective[i]
        j = h.joints[gi] if gi is not None else None
        parent = -1 if j is None else last_index[j.a0]
        for s_i, seg in enumerate(segs[i]):
            is_self = s_i == len(segs[i]) - 1
            if is_self:
                name = rec.name
            else:
                base = (j.name or rec.name) + f".axis{seg.k}"
                name = base
                count = 2
                while name in names_used:
                    name = f"{base}.{count}"
                    count += 1
                names_used.add(name)
            kind = seg.kind
            prismatic = kind in ("prismatic", "weld-prismatic")
            if kind == "weld-prismatic":
                kind = "weld"
            link = Link(name, parent, "prismatic" if prismatic else "revolute",
                        seg.axis if seg.axis is not None else (0.0, 0.0, 1.0), seg.T,
                        mass=0.0, com=(0, 0, 0), inertia=np.zeros((3, 3)),
                        joint_name=j.name if j is not None else None)
            if kind == "weld":
                lo = hi = v_ = a_ = 0.0
                t_ = INF
                groups.append("weld")
                if j is not None and j.static and j.active:
                    seg_index[(gi, 0)] = len(model_links)      # the DOF of a static joint
            else:
                k = seg.k
                r = j.rec
                if r.circular[k]:
                    lo, hi = -INF, INF
                    groups.append("spin")
                else:
                    lo, hi = r.lower[k], r.upper[k]
                    groups.append("normal")
                v_, a_ = r.maxvel[k], r.maxaccel[k]
                t_ = r.maxtorque[k] if r.maxtorque[k] > 0 else INF
                seg_index[(gi, k)] = len(model_links)
            ext = {}
            if is_self:
                ext = {"static": rec.static, "enabled": rec.enabled, "mass": rec.mass.kind,
                       "declared_name": rec.declared_name}
                if "raw_pose" in rec.extras:
                    ext["raw_pose"] = rec.extras["raw_pose"]
                if rec.extras.get("unknown"):
                    ext["unknown"] = list(rec.extras["unknown"])
                if rec.extra_groups:
                    ext["extra_geometry_groups"] = sorted(rec.extra_groups)
                if j is not None:
                    ext["joint"] = _joint_data(j)
                    ext["joint_axis"] = seg.k
                    ext["joint_role"] = ("static" if j.static else "active" if j.active
                                         else "mimic" if j.mimic else "passive")
                    if ext["joint_role"] == "passive":
                        ext["passive_frame"] = _passive_frame(j)
                _link_mass(link, rec, ctx)
                link.geometry, link.visual_geometry = link_geometries(rec.geoms)
                _appearance(link, rec)
            else:
                ext = {"intermediate": True, "joint_name": j.name, "joint_axis": seg.k,
                       "of_link": rec.name}
            link.extras["openrave"] = ext
            model_links.append(link)
            qmin.append(lo)
            qmax.append(hi)
            vmax.append(v_)
            amax.append(a_)
            tmax.append(t_)
            config.append(seg.value if kind != "weld" else 0.0)
            parent = len(model_links) - 1
        last_index[i] = len(model_links) - 1

    robot = Robot(body.name or os.path.splitext(os.path.basename(path))[0])
    robot.set_links(model_links, qmin=qmin, qmax=qmax, vmax=vmax, amax=amax, tmax=tmax,
                    config=config)
    robot.joints = [Joint(g, [k], model_links[k].parent) for k, g in enumerate(groups)]
    robot.drivers = _drivers(h, seg_index, robot, ctx)
    robot.self_collision_pairs = _self_collision(h, body, last_index)
    robot.manipulators = _manipulators(body, robot, h, seg_index, last_index, ctx)
    robot.sensors = _sensors(body, robot, last_index, ctx)
    robot.extras["openrave"] = _robot_extras(body, h)
    robot.source = path
    return robot


def _topological_links(parent_of, n) -> list:
    """Link indices in OpenRAVE's order, except that a parent always comes first."""
    import heapq
    children = [[] for _ in range(n)]
    roots = []
    for i, p in enumerate(parent_of):
        if p is None:
            roots.append(i)
        else:
            children[p].append(i)
    heap = list(roots)
    heapq.heapify(heap)
    out = []
    while heap:
        i = heapq.heappop(heap)
        out.append(i)
        for c in children[i]:
            heapq.heappush(heap, c)
    return out              # shorter than n when effective joints make a cycle


def _affine_of(h, gi, axis, memo, stack=()):
    """The mimic joint axis value as ``(c, {dof index: a})`` in the active DOFs, or None."""
    key = (gi, axis)
    if key in memo:
        return memo[key]
    j = h.joints[gi]
    if j.active:
        out = (0.0, {j.dofindex + axis: 1.0})
    elif j.static:
        out = (0.0, {})
    elif j.equations[axis] is None:
        out = (float(h.values[gi][axis]), {})          # a passive joint holds its value
    elif key in stack:
        out = None
    else:
        lin = j.equations[axis].affine()
        if lin is None:
            out = None
        else:
            c, coeffs = lin
            acc = {}
            for (ji, ax), a in coeffs.items():
                sub = _affine_of(h, ji, ax, memo, stack + (key,))
                if sub is None:
                    out = None
                    break
                c += a * sub[0]
                for d, b in sub[1].items():
                    acc[d] = acc.get(d, 0.0) + a * b
            else:
                out = (c, {d: b for d, b in acc.items() if b != 0.0})
    memo[key] = out
    return out


def _drivers(h, seg_index, robot, ctx) -> list:
    drivers = []
    by_dof = {}
    for j in h.active:
        for k in range(j.dof):
            r = j.rec
            name = r.name if k == 0 else f"{r.name}_{k}"
            lo, hi = ((-INF, INF) if r.circular[k] else (r.lower[k], r.upper[k]))
            t = r.maxtorque[k] if r.maxtorque[k] > 0 else INF
            d = Driver(name, "normal", [], qmin=lo, qmax=hi, vmin=-r.maxvel[k],
                       vmax=r.maxvel[k], tmin=-t, tmax=t, amin=-r.maxaccel[k],
                       amax=r.maxaccel[k])
            d.extras["openrave"] = {"joint": r.name, "axis": k}
            li = seg_index.get((j.index, k))
            if j.static:
                # a static joint keeps its DOF slot but never moves: scale 0 on its weld
                d.type, d.dofs, d.scale, d.offset = "affine", [li], [0.0], [0.0]
                d.leader = li
                d.extras["openrave"]["static"] = True
            elif li is None:
                ctx.warn(f"joint {r.name!r} is not used by OpenRAVE's forward kinematics "
                         "(it closes a loop); its DOF moves nothing", kind="quirk")
                d.type, d.scale, d.offset = "affine", [], []
            else:
                d.dofs, d.leader = [li], li        # the DOF's own joint is the actuated one
            drivers.append(d)
            by_dof[j.dofindex + k] = d
    position = {id(d): i for i, d in enumerate(drivers)}
    dof_driver = {dof: position[id(d)] for dof, d in by_dof.items()}
    _spherical_drivers(h, seg_index, drivers, dof_driver)
    memo, emem = {}, {}
    for j in h.joints:
        if j.active or not j.mimic:
            continue
        for k, eq in enumerate(j.equations):
            li = seg_index.get((j.index, k))
            if eq is None or li is None:
                continue
            lin = _affine_of(h, j.index, k, memo)
            src = j.rec.mimic[k]
            where = dict(line=src.source.line, path=src.source.path) if src else {}
            if lin is None or len(lin[1]) != 1:
                expr = _expression_of(h, j.index, k, dof_driver, emem)
                if expr is not None and expr[1]:
                    couple(drivers, li, *expr)         # in joint order, as affine followers
                    continue
                why = ("cannot be evaluated (a multi-valued function such as polyroots)"
                       if lin is None else "depends on no DOF")
                ctx.warn(f"mimic joint {j.name!r}: equation {src.pos!r} {why}; the equation is "
                         "kept as data (link "
                         f"{robot.links[li].name!r} holds its load value {h.values[j.index][k]:g})",
                         **where, kind="unsupported")
                continue
            c, coeffs = lin
            (dof, a), = coeffs.items()
            d = by_dof[dof]
            if not d.dofs:
                continue
            if d.type == "nonlinear":                 # already coupled by a formula
                from ...model.coupling import Arg, Const, Op
                couple(drivers, li, Op("+", [Op("*", [Const(a), Arg(0)]), Const(c)]), [dof_driver[dof]])
                continue
            if d.type == "normal":
                d.type, d.scale, d.offset = "affine", [1.0], [0.0]
            d.dofs.append(li)
            d.scale.append(a)
            d.offset.append(c)
            lo, hi = robot.qmin[li], robot.qmax[li]
            img = sorted((c + a * d.qmin, c + a * d.qmax))
            if img[0] < lo - 1e-9 or img[1] > hi + 1e-9:
                ctx.warn(f"mimic joint {j.name!r}: {src.pos!r} leaves its limits [{lo:g}, {hi:g}] "
                         f"over the range of {d.name!r}; OpenRAVE clamps it there, roboio's "
                         "affine driver does not", **where, kind="read differently")
    return drivers


# -- couplings that are not affine ----------------------------------------------------------

_FN_NAMES = {"real": None, "conj": None}      # identity functions of the function parser


def _expression_of(h, gi, axis, dof_driver, memo, stack=()):
    """``(Expr, inputs)``: the value of joint ``gi``'s axis as a model expression of driver
    values (``inputs``: driver indices, ``Arg(k)`` reading ``inputs[k]``), as OpenRAVE
    computes it: an active joint is its DOF, a static or passive one its held value, a
    mimic joint its equation clamped to its limits (unless circular or spherical). None
    when OpenRAVE's value cannot be written so (multi-valued functions, cycles)."""
    from ...model.coupling import Arg, Const, Op
    key = (gi, axis)
    if key in memo:
        return memo[key]
    j = h.joints[gi]
    inputs: list = []

    def arg(driver):
        if driver not in inputs:
            inputs.append(driver)
        return Arg(inputs.index(driver))

    def conv(node, env):
        kind = node[0]
        if kind == "num":
            return Const(node[1])
        if kind == "var":
            ji, ax = node[1]
            sub = _expression_of(h, ji, ax, dof_driver, memo, stack + (key,))
            if sub is None:
                raise _Unwritable
            e, sub_inputs = sub
            return rebase(e, [arg(d) for d in sub_inputs])
        if kind == "local":
            return env[node[1]]
        if kind == "let":
            env = dict(env)
            env[node[1]] = conv(node[2], env)
            return conv(node[3], env)
        if kind in ("neg", "not"):
            return Op(kind, [conv(node[1], env)])
        if kind == "call":
            name, args = node[1], [conv(a, env) for a in node[2]]
            if name in _FN_NAMES:
                return args[0]
            if name == "imag":
                return Const(0.0)
            if name == "arg":
                return Op("if", [Op("<", [args[0], Const(0.0)]), Const(math.pi), Const(0.0)])
            if name not in _MODEL_FUNCTIONS:
                raise _Unwritable
            return Op(name, args)
        name = {"&": "and", "|": "or", "^": "pow"}.get(kind, kind)
        if name not in _MODEL_FUNCTIONS:
            raise _Unwritable
        return Op(name, [conv(node[1], env), conv(node[2], env)])

    if j.active:
        out = (Arg(0), [dof_driver[j.dofindex + axis]])
    elif j.static or j.equations[axis] is None:
        out = (Const(float(h.values[gi][axis])), [])
    elif key in stack:
        out = None
    else:
        try:
            e = conv(j.equations[axis].tree, {})
            if not (j.type == "spherical" or j.circular[axis]):
                e = Op("clamp", [e, Const(j.lower[axis]), Const(j.upper[axis])])
            out = (e, inputs)
        except _Unwritable:
            out = None
    memo[key] = out
    return out


class _Unwritable(Exception):
    pass


def _model_functions():
    from ...model.coupling import FUNCTIONS
    return FUNCTIONS


_MODEL_FUNCTIONS = _model_functions()


def _spherical_drivers(h, seg_index, drivers, dof_driver):
    """The three drivers of an active spherical joint set its three links through its
    rotation vector (OpenRAVE's DOF values), exactly for every value."""
    from ...model.coupling import RotationVectorCoupling
    for j in h.active:
        if j.type != "spherical":
            continue
        links = [seg_index.get((j.index, k)) for k in range(3)]
        if None in links:
            continue
        ins = [dof_driver[j.dofindex + k] for k in range(3)]
        coupling = RotationVectorCoupling(ins, j.sph_map)
        for i in ins:
            d = drivers[i]
            d.type, d.scale, d.offset = "nonlinear", [], []
            d.dofs = list(links)
            d.coupling = coupling
            d.leader = None


def _self_collision(h, body, last_index) -> set:
    n = len(body.links)
    checked = np.triu(np.ones((n, n), dtype=bool), 1)
    if h.adjacent:
        a, b = np.array(sorted(h.adjacent)).T
        checked[a, b] = False
    enabled = np.array([l.enabled for l in body.links], dtype=bool)
    checked &= enabled[:, None] & enabled[None, :]
    idx = np.array([last_index[i] for i in range(n)], dtype=np.int64)
    ia, ib = np.nonzero(checked)
    x, y = idx[ia], idx[ib]
    return set(zip(np.minimum(x, y).tolist(), np.maximum(x, y).tolist()))


def _chain(robot, base, effector):
    """Model links from ``effector`` up to (not including) ``base``, base side first; None
    if ``base`` is not an ancestor of ``effector``."""
    out = []
    k = effector
    while k != base:
        if k < 0:
            return None
        out.append(k)
        k = robot.links[k].parent
    return out[::-1]


def _manipulators(body, robot, h, seg_index, last_index, ctx) -> list:
    out = []
    index = {body.links[i].name: last_index[i] for i in range(len(body.links) - 1, -1, -1)}
    master = {}
    for d in robot.drivers:
        for li in d.dofs:
            master.setdefault(li, d.dofs[0])
    joint_links = {}
    for j in h.joints:
        joint_links[j.name] = [seg_index[(j.index, k)] for k in range(j.dof)
                               if (j.index, k) in seg_index]
    for m in body.manipulators:
        where = dict(line=m.source.line, path=m.source.path)
        if m.base not in index or m.effector not in index:
            missing = m.base if m.base not in index else m.effector
            ctx.warn(f"manipulator {m.name!r}: no link named {missing!r}; the manipulator is "
                     "kept as data only", **where, kind="invalid value")
            robot.extras.setdefault("openrave_manipulators_unresolved", []).append(m.name)
            continue
        base, eff = index[m.base], index[m.effector]
        chain = _chain(robot, base, eff)
        arm = []
        if chain is None:
            ctx.warn(f"manipulator {m.name!r}: {m.base!r} is not above {m.effector!r} in the "
                     "tree; no arm joints", **where, kind="invalid value")
        else:
            for k in chain:
                if robot.joints[k].type == "weld" or k not in master:
                    continue
                mk = master[k]
                if mk not in arm:
                    arm.append(mk)
        grip, closing = [], []
        for gname, cdir in zip(m.gripper_joints, list(m.closing_direction) +
                               [0] * len(m.gripper_joints)):
            lis = joint_links.get(gname)
            if lis is None:
                ctx.warn(f"manipulator {m.name!r}: no joint named {gname!r}", **where, kind="invalid value")
                continue
            for li in lis:
                if li in arm:
                    continue
                grip.append(li)
                closing.append(float(cdir))
        extras = {"base": m.base, "effector": m.effector, "gripper_joints": list(m.gripper_joints),
                  "closing_direction": list(m.closing_direction)}
        if m.ik_chain_end:
            extras["ik_chain_end"] = m.ik_chain_end
        extras.update(m.extras)
        out.append(Manipulator(m.name, base, eff, np.array(m.tool, dtype=float),
                               np.array(m.direction, dtype=float), arm, grip, closing,
                               m.ik_solver, {"openrave": extras}))
    return out


def _sensor_params(params) -> dict:
    out = {}
    for p in params:
        value = p.text if not p.children else {c.tag: c.text for c in p.children}
        if p.tag in out:
            if not isinstance(out[p.tag], list):
                out[p.tag] = [out[p.tag]]
            out[p.tag].append(value)
        else:
            out[p.tag] = value
    return out


def _sensors(body, robot, last_index, ctx) -> list:
    out = []
    for s in body.sensors:
        li = s.attrib.get("link_index")
        if li is None:
            if s.link:
                ctx.warn(f"attached sensor {s.name!r}: link {s.link!r} not found; attached to "
                         "the first link, as OpenRAVE does", s.source.line, path=s.source.path, kind="invalid value")
            li = 0
        extras = {"params": list(s.params), "file": s.file}
        if s.attrib.get("raw_pose"):
            extras["raw_pose"] = s.attrib["raw_pose"]
        a = AttachedSensor(s.name, last_index[li], np.array(s.transform, dtype=float), s.type,
                           _sensor_params(s.params), {"openrave": extras}, s.source.line)
        out.append(a)
    return out


def _robot_extras(body: BodyRecord, h) -> dict:
    out = {"kind": body.kind, "make_joined_links_adjacent": body.make_joined_links_adjacent,
           "dof_order": [j.name for j in h.active], "files": list(body.files)}
    if body.interface_type:
        out["type"] = body.interface_type
    if body.controllers:
        out["controllers"] = list(body.controllers)
    if body.unknown:
        out["unknown"] = list(body.unknown)
    if body.extras.get("robot_unknown"):
        out["robot_unknown"] = list(body.extras["robot_unknown"])
    if body.jointvalues is not None:
        out["jointvalues"] = list(body.jointvalues)
    if body.forced_adjacent:
        out["adjacent"] = [(body.links[a].name, body.links[b].name)
                           for a, b in body.forced_adjacent]
    if h.unused:
        out["loop_joints"] = [h.joints[g].name for g in h.unused]
    nonaffine = [j.name for j in h.joints if j.mimic and not j.active]
    if nonaffine:
        out["mimic_joints"] = nonaffine
    return out


def build_body(body: BodyRecord, ctx, path: str, jointvalues=None):
    """A record of an environment as OpenRAVE treats it: a Robot when it is a ``<Robot>`` or
    has joints; otherwise a Terrain when every link is static, else a RigidObject."""
    if body.kind == "robot" or body.joints:
        return build_robot(body, ctx, path, jointvalues)
    links = body.links
    name = body.name or os.path.splitext(os.path.basename(path))[0]
    if not links:
        raise ctx.error(f"kinbody {name!r} has no links", body.source.line)
    T0 = np.array(links[0].transform, dtype=float)
    inv0 = inv(T0)
    parts = []
    mass = None
    for k, l in enumerate(links):
        coll, _ = link_geometries(l.geoms)
        rel = np.eye(4) if k == 0 else compose(inv0, l.transform)
        if coll is not None:
            if len(links) > 1:
                coll.apply_transform(rel)
            parts.append(coll)
        m = l.mass
        if np.isfinite(m.mass):
            # the first link's mass as it is: Mass() + m moves its COM by the rounding of
            # (m * com) / m (a one-link object's <com> changed in its last digit on every read)
            piece = Mass(m.mass, m.com, m.inertia).transformed(rel)
            mass = piece if mass is None else mass + piece
    mass = Mass() if mass is None else mass
    geometry = parts[0] if len(parts) == 1 else (Group(parts) if parts else None)
    if all(l.static for l in links):
        obj = Terrain(name, geometry, T0)
    else:
        obj = RigidObject(name, geometry, T0)
        obj.mass, obj.com, obj.inertia = mass.mass, mass.com, mass.inertia
    for l in links:
        _appearance_obj(obj, l)
        if obj.appearance.color is not None:
            break
    obj.extras["openrave"] = {"kind": "kinbody", "links": [l.name for l in links],
                              "static": [l.static for l in links], "files": list(body.files)}
    obj.source = path
    return obj


def _appearance_obj(obj, rec):
    for g in rec.geoms:
        if g.diffuse is not None:
            alpha = 1.0 - (g.transparency or 0.0)
            obj.appearance.color = tuple(float(x) for x in g.diffuse) + (alpha,)
            return


def build_world(env: EnvironmentRecord, ctx, path: str) -> World:
    world = World(os.path.splitext(os.path.splitext(os.path.basename(path))[0])[0])
    for body in env.bodies:
        world.add(build_body(body, ctx, path))
    extras = {"camera": {"transform": env.camera.transform.tolist(), "focal": env.camera.focal,
                         "specified": env.camera.specified, "raw": list(env.camera.raw)}}
    if env.bkgndcolor is not None:
        extras["bkgndcolor"] = list(env.bkgndcolor)
    if env.unit is not None:
        extras["unit"] = list(env.unit)
    if env.plugins:
        extras["plugins"] = list(env.plugins)
    if env.sensors:
        extras["sensors"] = [AttachedSensor(s.name, -1, np.array(s.transform), s.type,
                                            _sensor_params(s.params),
                                            {"openrave": {"params": list(s.params),
                                                          "file": s.file}}, s.source.line)
                             for s in env.sensors]
    if env.interfaces:
        extras["interfaces"] = list(env.interfaces)
    if env.unknown:
        extras["unknown"] = list(env.unknown)
    world.extras["openrave"] = extras
    world.source = path
    return world
