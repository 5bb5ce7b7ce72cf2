"""How OpenRAVE turns a body's records into a kinematic hierarchy and a load state
(``openrave.md`` §10, §11, §16, §17; OpenRAVE's ``KinBody::_ComputeInternalInformation``,
``Joint::_ComputeJointInternalInformation``, ``GetValues`` and ``SetDOFValues``).

Given a :class:`~._records.BodyRecord`, :func:`compute` reproduces, step by step and with
OpenRAVE's tie-breaking:

1. each joint's internal frames ``T1 = T0 @ tleft @ J(q) @ tright`` (a hinge's axis turned
   onto Z, the ``<initial>`` offset folded in, a static-linked joint swapped);
2. the active joints (enabled, no mimic equation) in declaration order = the DOF vector,
   the passive joints after them;
3. the mimic equations, with OpenRAVE's name substitution (:mod:`._mimic`);
4. link depths from link 0 over every joint (static links at depth 0), the joints sorted
   topologically, each joint's parent link, joints whose parent is their second link
   flipped (axes negated so that the value keeps its meaning);
5. the load state: DOF values measured from the link poses as read (hinges by the twist
   angle about their axis), clamped to the limits, mimic values from their equations, then
   forward kinematics from link 0 in topological order;
6. adjacency (self-collision exclusions).

The result, :class:`Hierarchy`, is what :mod:`._build` maps onto roboio's one-DOF-per-link
model. Nothing here reads files.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ...errors import Diagnostic
from ._math import axis_angle, inv, quat_from_matrix, rotate_direction
from ...transforms import compose, matrix_vector, vector_dot
from ._mimic import MimicSyntaxError, parse_equation, search_and_replace
from ._records import BodyRecord, JointRecord

__all__ = ["Hierarchy", "IJoint", "compute", "HierarchyError", "joint_transform"]

Z = np.array([0.0, 0.0, 1.0])
MAX_JOINTED_LINKS = 2000        # bound on the cubic all-pairs computation (resource limit)


class HierarchyError(ValueError):
    """A body OpenRAVE would refuse; ``joint`` is the JointRecord concerned (or None)."""

    def __init__(self, message, joint: Optional[JointRecord] = None):
        super().__init__(message)
        self.joint = joint


def axis_kinds(jtype: str) -> str:
    """One letter per axis, ``R`` (revolute) or ``P`` (prismatic)."""
    if jtype == "hinge":
        return "R"
    if jtype == "slider":
        return "P"
    if jtype in ("universal", "hinge2"):
        return "RR"
    if jtype == "spherical":
        return "RRR"
    return jtype            # COLLADA multi-axis types: RR, RP, PR, ...


def _rot4(R) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = R
    return T


def _trans4(t) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = t
    return T


@dataclass
class IJoint:
    """A joint with OpenRAVE's internal data. ``a0``/``a1``: attached links, ``a0`` the
    hierarchy parent after the flip; ``axes`` in the ``tleft`` frame; ``tleft``/``tright``
    the no-offset transforms FK uses; ``tleft_m``/``tright_m`` those used to measure values
    (with the artificial offset)."""

    rec: JointRecord
    type: str
    dof: int
    a0: int
    a1: int
    axes: list
    tleft: np.ndarray
    tright: np.ndarray
    tleft_m: np.ndarray
    tright_m: np.ndarray
    lower: list
    upper: list
    circular: list
    offsets: list
    static: bool = False
    active: bool = False
    index: int = -1                # generalised joint index (active, then passive)
    dofindex: int = -1
    equations: list = field(default_factory=list)     # per axis: Equation or None
    flipped: bool = False
    reverse: bool = False          # two-axis joint flipped: axes applied last-first
    sph_map: np.ndarray = field(default_factory=lambda: np.eye(3))   # spherical: q -> vector

    @property
    def name(self) -> str:
        return self.rec.name

    @property
    def mimic(self) -> bool:
        return any(e is not None for e in self.equations)


def _internal(jtype: str, a0: int, a1: int, anchor, axes, trel, initial, offsets, static):
    """``_ComputeJointInternalInformation`` from frozen data. ``static(i)`` tells whether link
    ``i`` is static. Returns ``(a0, a1, axes, tleft, tright, tleft_m, tright_m)``."""
    axes = [np.array(a, dtype=float) for a in axes]
    anchor = np.array(anchor, dtype=float)
    trel = np.array(trel, dtype=float)
    if static(a1) and a0 > 0 and not static(a0):
        tswap = inv(trel)
        axes = [-matrix_vector(tswap[:3, :3], a) for a in axes]
        anchor = matrix_vector(tswap[:3, :3], anchor) + tswap[:3, 3]
        a0, a1 = a1, a0
        trel = tswap
    dof = len(axes)
    kinds = axis_kinds(jtype)
    special = jtype in ("universal", "hinge2", "spherical")

    def motion(i, value):
        return (_rot4(axis_angle(axes[i], value)) if kinds[i] == "R"
                else _trans4(axes[i] * value))
    tl = _trans4(anchor)
    tr = compose(_trans4(-anchor), trel)
    if special:
        tl_m, tr_m = tl.copy(), tr.copy()
    else:
        if jtype == "hinge":
            trot = _rot4(rotate_direction(axes[0], Z))
            tl = compose(tl, inv(trot))
            tr = compose(trot, tr)
            axes[0] = Z.copy()
        tl_m = compose(tl, motion(0, offsets[0]))
        tr_m = compose(motion(dof - 1, offsets[dof - 1]), tr) if dof > 1 else tr.copy()
    if initial and jtype != "spherical":
        toff = motion(0, -initial[0])
        tl = compose(tl, toff)
        tl_m = compose(tl_m, toff)
        if len(initial) > 1:
            toff = motion(dof - 1, -initial[dof - 1])
            tr = compose(toff, tr)
            tr_m = compose(toff, tr_m)
    return a0, a1, axes, tl, tr, tl_m, tr_m


def joint_transform(j: IJoint, q) -> np.ndarray:
    """``J(q)``, the motion between ``tleft`` and ``tright`` (OpenRAVE's FK)."""
    if j.type == "hinge":
        return _rot4(axis_angle(j.axes[0], q[0]))
    if j.type == "slider":
        return _trans4(j.axes[0] * q[0])
    if j.type == "spherical":
        v = matrix_vector(j.sph_map, np.asarray(q[:3], dtype=float))
        ang = math.sqrt(vector_dot(v, v))
        return _rot4(axis_angle(v / ang, ang)) if ang > 0 else np.eye(4)
    kinds = axis_kinds(j.type)
    M = np.eye(4)
    steps = range(j.dof - 1, -1, -1) if j.reverse else range(j.dof)
    for i in steps:
        M = compose(M, _rot4(axis_angle(j.axes[i], q[i])) if kinds[i] == "R"
                    else _trans4(j.axes[i] * q[i]))
    return M


def _closest_along_circle(angle: float, test: float = 0.0) -> float:
    n = int((test - angle) / math.pi)
    if n >= 1:
        return angle + int((n + 1) / 2) * 2 * math.pi
    if n <= -1:
        return angle + int((n - 1) / 2) * 2 * math.pi
    return angle


def _wrap(f: float) -> float:
    if f < -math.pi:
        return f + 2 * math.pi
    if f > math.pi:
        return f - 2 * math.pi
    return f


def measure(j: IJoint, T0, T1) -> list:
    """OpenRAVE's ``GetValues``: the joint values implied by the link poses ``T0``, ``T1``."""
    if j.static and j.dof == 1:
        return [j.lower[0]]
    tj = compose(compose(compose(inv(j.tleft_m), inv(T0)), T1), inv(j.tright_m))
    if j.type == "slider":
        return [j.offsets[0] + vector_dot(tj[:3, 3], j.axes[0])]
    q = quat_from_matrix(tj[:3, :3])
    if j.type == "hinge":
        f = _wrap(2.0 * math.atan2(vector_dot(q[1:], j.axes[0]), q[0]))
        return [_closest_along_circle(j.offsets[0] + f)]
    if j.type not in ("spherical", "universal", "hinge2"):
        return _measure_chain(j, tj)
    if j.type == "spherical":
        s2 = vector_dot(q[1:], q[1:])
        if s2 > 1e-10:
            s = math.sqrt(s2)
            mult = 2 * math.atan2(s, q[0]) / s
            return [float(x) for x in matrix_vector(j.sph_map.T, q[1:] * mult)]
        return [0.0, 0.0, 0.0]
    # hinge2 (and universal, which OpenRAVE cannot measure; roboio reads it as hinge2)
    R = tj[:3, :3]
    a0, a1 = _unit(j.axes[0]), _unit(j.axes[1])
    ax1cur, ax2cur = matrix_vector(R, a0), matrix_vector(R, a1)
    v1 = _unit(a1 - vector_dot(a0, a1) * a0)
    v2 = _unit(ax2cur - vector_dot(a0, ax2cur) * a0)
    v3 = np.cross(a0, v1)
    f0 = 2.0 * math.atan2(vector_dot(v3, v2), vector_dot(v1, v2))
    v1 = _unit(a0 - vector_dot(ax2cur, a0) * ax2cur)
    v2 = _unit(ax1cur - vector_dot(ax2cur, ax1cur) * ax2cur)
    v3 = np.cross(ax2cur, v1)
    f1 = _wrap(2.0 * math.atan2(vector_dot(v3, v2), vector_dot(v1, v2)))
    return [_closest_along_circle(j.offsets[0] + f0), _closest_along_circle(j.offsets[1] + f1)]


def _qmul(a, b):
    w0, x0, y0, z0 = a
    w1, x1, y1, z1 = b
    return np.array([w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1, w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1,
                     w0 * y1 - x0 * z1 + y0 * w1 + z0 * x1, w0 * z1 + x0 * y1 - y0 * x1 + z0 * w1])


def _measure_chain(j: IJoint, tj) -> list:
    """OpenRAVE's ``GetValues`` for a chain of revolute/prismatic axes (COLLADA RR, RP...)."""
    kinds = axis_kinds(j.type)
    q = quat_from_matrix(tj[:3, :3])
    t = np.array(tj[:3, 3])
    out = []
    for i in range(j.dof):
        a = np.asarray(j.axes[i], dtype=float)
        if kinds[i] == "R":
            if i + 1 < j.dof:
                alen = math.sqrt(vector_dot(a, a))
                ang = math.atan2(-vector_dot(q[1:], a), q[0] * alen)
                s = math.sin(ang) / alen
                q = _qmul(np.array([math.cos(ang), a[0] * s, a[1] * s, a[2] * s]), q)
                if 2 * ang != 0:
                    t = matrix_vector(axis_angle(a, 2 * ang), t)
                f = -2 * ang
            else:
                f = 2.0 * math.atan2(vector_dot(q[1:], a), q[0])
            out.append(_closest_along_circle(j.offsets[i] + _wrap(f)))
        else:
            f = vector_dot(t, a)
            out.append(j.offsets[i] + f)
            if i + 1 < j.dof:
                t = t - a * f
    return out


def _unit(v):
    n = math.sqrt(vector_dot(v, v))
    return v / n if n > 0 else v


@dataclass
class Hierarchy:
    """OpenRAVE's view of one body. ``joints``: :class:`IJoint` in generalised index order
    (active ones first, DOF order); ``order``: generalised indices in topological order;
    ``effective``: per link, the joint (generalised index) whose FK sets its pose, or None
    for links FK never moves (link 0, static and unconnected links); ``depth``: link
    depths; ``dof_values``: DOF values at load; ``values``: every joint's values at load
    (per generalised index); ``poses``: link poses at load; ``adjacent``: set of link index
    pairs (i < j) never checked for self-collision; ``notes``: warnings for the user."""

    body: BodyRecord
    joints: list
    order: list
    effective: list
    depth: list
    dof_values: list
    values: list
    poses: list
    adjacent: set
    notes: list
    unused: list                 # joints not used by FK (closed loops), generalised indices

    @property
    def active(self) -> list:
        return [j for j in self.joints if j.active]

    @property
    def num_dofs(self) -> int:
        return sum(j.dof for j in self.joints if j.active)


def compute(body: BodyRecord, jointvalues=None, budget=None) -> Hierarchy:
    """The hierarchy and load state of ``body`` (see the module docstring). ``jointvalues``
    (DOF order) are set after loading when their count equals the DOF count (an
    environment's ``<jointvalues>``). ``budget(n)`` is called with work sizes (resource
    limit)."""
    links = body.links
    n = len(links)
    if n == 0:
        raise HierarchyError("the body has no links")
    notes: list = []
    static = [l.static for l in links]

    def is_static(i):
        return static[i]

    # 1. internal frames, as at </joint>
    joints = []
    for rec in body.joints:
        initial = list(rec.initial)
        for what, vals in (("<initial>", initial), ("offset", rec.offsets)):
            bad = [v for v in vals if not math.isfinite(v)]
            if bad:     # OpenRAVE's frames would be NaN (math.sin raised ValueError here)
                raise HierarchyError(f"joint {rec.name!r}: {what} value {bad[0]!r} is not finite",
                                     rec)
        if initial and len(initial) != rec.dof:
            notes.append(Diagnostic(f"joint {rec.name!r}: <initial> has {len(initial)} values for "
                                    f"{rec.dof} axes; the first {rec.dof} used", kind="invalid value"))
            initial = (initial + [0.0] * rec.dof)[:rec.dof]
        a0, a1, axes, tl, tr, tlm, trm = _internal(
            rec.type, rec.link0, rec.link1, rec.anchor, rec.axes, rec.trel, initial,
            rec.offsets, is_static)
        lower, upper = list(rec.lower), list(rec.upper)
        j = IJoint(rec, rec.type, rec.dof, a0, a1, axes, tl, tr, tlm, trm, lower, upper,
                   list(rec.circular), list(rec.offsets))
        j.equations = [None] * rec.dof
        joints.append(j)

    # 2. active / passive (a joint with any mimic attribute is passive)
    active = [j for j in joints if j.rec.active and not j.rec.is_mimic]
    passive = ([j for j in joints if not j.rec.active]
               + [j for j in joints if j.rec.active and j.rec.is_mimic])
    ordered = active + passive
    dofindex = 0
    for k, j in enumerate(ordered):
        j.index = k
        j.active = k < len(active)
        if j.active:
            j.dofindex = dofindex
            dofindex += j.dof
    names = {}
    for j in ordered:
        if j.name in names and (j.active or names[j.name].active):
            raise HierarchyError(f"two joints named {j.name!r} (OpenRAVE refuses the body)", j.rec)
        names.setdefault(j.name, j)
    if budget:
        budget(8 * (len(ordered) ** 2 + 6 * n * n))      # bytes of the joint and link tables
    jointed = len({j.a0 for j in ordered} | {j.a1 for j in ordered})
    if jointed > MAX_JOINTED_LINKS:
        raise HierarchyError(f"{jointed} links joined by joints: OpenRAVE's all-pairs path "
                             f"computation is cubic; roboio reads at most {MAX_JOINTED_LINKS}")

    # 3. mimic equations
    _setup_mimic(ordered, notes)

    # static information (circular joints get +-1e4 limits, never static)
    for j in ordered:
        for i in range(j.dof):
            if j.circular[i]:
                j.lower[i], j.upper[i] = -1e4, 1e4

    # 4. graph, depths, topological order, parents
    adj = [[] for _ in range(n)]
    for j in ordered:
        adj[j.a0].append(j.a1)
        adj[j.a1].append(j.a0)
    parents = _parent_links(adj, n)
    depth = _depths(parents, static, n)
    order = _topological(ordered, depth, static, notes)
    paths = _shortest_paths(ordered, n)
    for gi in order:
        j = ordered[gi]
        p = _parent_link(j, depth, static, parents, paths, order, n, notes)
        if p is not None and p != j.a0:
            _flip(j, links, is_static)
        _static_info(j)
    same = [x[1] for x in notes if isinstance(x, tuple) and x[0] == "same-depth"]
    notes[:] = [x for x in notes if not isinstance(x, tuple)]
    if same:
        notes.append(Diagnostic(f"joints {', '.join(repr(x) for x in same)} join links that are not "
                                "connected to link 0 (OpenRAVE: 'incomplete kinematics'); each keeps "
                                "its declared parent, and the links move with these joints from where "
                                "they were declared", kind="read differently"))

    # 5. load state
    poses = [np.array(l.transform, dtype=float) for l in links]
    dof_values = []
    for j in active:
        dof_values += measure(j, poses[j.a0], poses[j.a1])
    dof_values = _clamp_dofs(active, dof_values)
    values, poses, effective, unused = _forward(ordered, order, dof_values, poses, notes)
    if jointvalues is not None:
        if len(jointvalues) != len(dof_values):
            notes.append(Diagnostic(f"<jointvalues> has {len(jointvalues)} values, the body has "
                                    f"{len(dof_values)} DOFs; ignored, as OpenRAVE does", kind="invalid value"))
        else:
            dof_values = _clamp_dofs(active, list(jointvalues))
            values, poses, effective, unused = _forward(ordered, order, dof_values, poses, notes)

    # 6. adjacency
    adjacent = _adjacency(body, ordered, paths, n)
    return Hierarchy(body, ordered, order, effective, depth, dof_values, values, poses,
                     adjacent, notes, unused)


def _setup_mimic(ordered, notes):
    pairs = [(j.name, f"joint{j.index}") for j in ordered if j.name]
    for j in ordered:
        for axis, m in enumerate(j.rec.mimic):
            if m is None or not m.pos:
                continue
            text = search_and_replace(m.pos, pairs)
            try:
                eq = parse_equation(text)
            except MimicSyntaxError as e:
                raise HierarchyError(f"joint {j.name!r}: mimic equation {m.pos!r} does not parse "
                                     f"({e}); OpenRAVE would drop the mimic equations of every "
                                     "joint of the body", j.rec) from None
            for ji, ax in eq.variables:
                if ji >= len(ordered) or ax >= ordered[ji].dof:
                    raise HierarchyError(f"joint {j.name!r}: mimic equation {m.pos!r} names an "
                                         "axis that does not exist", j.rec)
            for what, deriv in (("mimic_vel", m.vel), ("mimic_accel", m.accel)):
                _check_derivatives(j, what, deriv, pairs, eq, notes)
            j.equations[axis] = eq
    # circular dependencies between mimic joints
    state = {}

    def visit(j, stack):
        if state.get(j.index) == 2:
            return
        if state.get(j.index) == 1:
            chain = " -> ".join(x.name for x in stack + [j])
            raise HierarchyError(f"circular mimic dependency: {chain}", j.rec)
        state[j.index] = 1
        for eq in j.equations:
            if eq is not None:
                for ji, _ in eq.variables:
                    dep = ordered[ji]
                    if dep.mimic:
                        visit(dep, stack + [j])
        state[j.index] = 2

    for j in ordered:
        if j.mimic:
            visit(j, [])


def _check_derivatives(j, what, text, pairs, eq, notes):
    """OpenRAVE parses ``|joint expr |joint expr ...`` (optional common sub-expressions
    before the first ``|``); a variable the position equation does not use, or an expression
    that does not parse, makes it drop every mimic equation of the body."""
    if not text:
        return
    text = search_and_replace(text, pairs)
    if "|" not in text:
        return
    common, _, rest = text.partition("|")
    names = {f"joint{ji}" + (f"_{ax}" if ax else "") for ji, ax in eq.variables}
    for part in rest.split("|"):
        part = part.strip()
        var, _, expr = part.partition(" ")
        if not expr.strip():
            notes.append(Diagnostic(f"joint {j.name!r}: {what} term {part!r} has no expression (OpenRAVE "
                                    "reads 0)", kind="invalid value"))
            expr = "0"
        if var not in names:
            raise HierarchyError(f"joint {j.name!r}: {what} names {var!r}, which its mimic_pos "
                                 f"{j.rec.mimic[0].pos!r} does not use; OpenRAVE would drop the "
                                 "mimic equations of every joint of the body", j.rec)
        try:
            parse_equation(common + expr)
        except MimicSyntaxError as e:
            raise HierarchyError(f"joint {j.name!r}: {what} term {part!r} does not parse ({e}); "
                                 "OpenRAVE would drop the mimic equations of every joint of the "
                                 "body", j.rec) from None


def _parent_links(adj, n) -> list:
    """For each link, the links that precede it on some simple path from link 0 (OpenRAVE's
    ``_vParentLinks`` from its all-paths enumeration)."""
    out = [[] for _ in range(n)]
    neighbours = [sorted(set(a)) for a in adj]
    for L in range(1, n):
        if not neighbours[L]:
            continue
        # links reachable from 0 without passing through L
        seen = [False] * n
        seen[L] = True
        stack = [0]
        seen[0] = True
        while stack:
            u = stack.pop()
            for v in neighbours[u]:
                if not seen[v]:
                    seen[v] = True
                    stack.append(v)
        out[L] = [v for v in neighbours[L] if v != L and seen[v]]
    return out


def _depths(parents, static, n) -> list:
    depth = [-1] * n
    depth[0] = 0
    for i in range(n):
        if static[i]:
            depth[i] = 0
    changed = True
    while changed:
        changed = False
        for i in range(n):
            if depth[i] == -1:
                best = -1
                for p in parents[i]:
                    if depth[p] >= 0 and (best == -1 or depth[p] < best):
                        best = depth[p] + 1
                if best >= 0:
                    depth[i] = best
                    changed = True
    return depth


def _has_static(j, static):
    return static[j.a0] or static[j.a1]


def _topological(ordered, depth, static, notes) -> list:
    m = len(ordered)
    A = np.zeros((m, m), dtype=np.int64)
    deps = []                  # (dependency, joint): mimic edges
    for i0, j0 in enumerate(ordered):
        for eq in j0.equations:
            if eq is not None:
                for ji, _ in eq.variables:
                    if not ordered[ji].active:
                        deps.append((ji, i0))
    if m > 1:
        d = np.array(depth, dtype=np.int64)
        a0 = np.array([j.a0 for j in ordered])
        a1 = np.array([j.a1 for j in ordered])
        lo, hi = np.minimum(d[a0], d[a1]), np.maximum(d[a0], d[a1])
        st = np.array([_has_static(j, static) for j in ordered])
        i0, i1 = np.triu_indices(m, 1)
        skip = st[i0] & st[i1]
        if deps:
            dep = np.zeros((m, m), dtype=bool)
            for a, b in deps:
                dep[a, b] = True
            skip |= dep[i1, i0]          # a mimic edge into i0 from i1 is already there
        dmin = lo[i0] - lo[i1]
        dmax = hi[i0] - hi[i1]
        fwd = ~skip & ((dmin < 0) | ((dmin == 0) & (dmax < 0)))
        bwd = ~skip & ((dmin > 0) | ((dmin == 0) & (dmax > 0)))
        A[i0[fwd], i1[fwd]] = np.where(dmin[fwd] < 0, 100 - lo[i0[fwd]], 100 - hi[i0[fwd]])
        A[i1[bwd], i0[bwd]] = np.where(dmin[bwd] > 0, 100 - lo[i1[bwd]], 100 - hi[i1[bwd]])
    for a, b in deps:
        A[a, b] = 1
    incoming = (A != 0).sum(axis=0)
    queue = [i for i in range(m) if incoming[i] == 0]
    out = []
    while True:
        while queue:
            k = queue.pop(0)
            out.append(k)
            for i in np.nonzero(A[k])[0]:
                A[k, i] = 0
                incoming[i] -= 1
                if incoming[i] == 0:
                    queue.append(int(i))
        if not A.any():
            break
        flat = A.reshape(-1)
        # OpenRAVE starts its search at the index equal to the last entry's value (sic)
        start = min(int(flat[-1]), flat.size - 1)
        mx = flat.max()
        k = start if flat[start] == mx else flat.size - 1 - int(np.argmax(flat[::-1]))
        first, second = divmod(k, m)
        if flat[k] <= 2:
            notes.append(Diagnostic(f"OpenRAVE cannot sort joints {ordered[first].name!r} and "
                                    f"{ordered[second].name!r} topologically; its forward kinematics "
                                    "might differ from roboio's", kind="read differently"))
        A[first, second] = 0
        incoming[second] -= 1
        if incoming[second] == 0:
            queue.append(second)
    return out


def _shortest_paths(ordered, n):
    """OpenRAVE's all-pairs shortest paths over the joint graph: ``pred[x, y]`` = link before
    ``y`` on the path from ``x``, ``jidx[x, y]`` = the joint between them (-1: none),
    ``cost[x, y]`` = number of joints (a large value: no path). With loops, OpenRAVE's
    Floyd-Warshall order decides between equal paths; without, paths are unique and a search
    from every link gives the same result faster."""
    cost = np.full((n, n), 0x3FFFFFFF, dtype=np.int64)
    np.fill_diagonal(cost, 0)
    pred = np.full((n, n), -1, dtype=np.int64)
    jidx = np.full((n, n), -1, dtype=np.int64)
    used = set()
    edges = set()
    for j in ordered:
        a, b = j.a0, j.a1
        used.update((a, b))
        edges.add((min(a, b), max(a, b)))
        pred[a, b], jidx[a, b], cost[a, b] = a, j.index, 1
        pred[b, a], jidx[b, a], cost[b, a] = b, j.index, 1
    used = sorted(used)
    parent = {u: u for u in used}

    def find(u):
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u
    loops = len(edges) != len(ordered)
    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra == rb:
            loops = True
        parent[ra] = rb
    if not loops:
        nbrs = {u: [] for u in used}
        for a, b in edges:
            nbrs[a].append(b)
            nbrs[b].append(a)
        for x in used:
            frontier = [x]
            seen = {x}
            dist = 0
            while frontier:
                dist += 1
                nxt = []
                for u in frontier:
                    for v in nbrs[u]:
                        if v not in seen:
                            seen.add(v)
                            pred[x, v] = u
                            jidx[x, v] = jidx[u, v]
                            cost[x, v] = dist
                            nxt.append(v)
                frontier = nxt
        return pred, jidx, cost
    U = np.array(used, dtype=np.int64)
    C = cost[np.ix_(U, U)]
    P = pred[np.ix_(U, U)]
    J = jidx[np.ix_(U, U)]
    for k in range(len(U)):
        cand = C[:, k][:, None] + C[k, :][None, :]
        better = C > cand            # never on row/column k or the diagonal
        if better.any():
            np.copyto(C, cand, where=better)
            np.copyto(P, np.broadcast_to(P[k], P.shape), where=better)
            np.copyto(J, np.broadcast_to(J[k], J.shape), where=better)
    cost[np.ix_(U, U)], pred[np.ix_(U, U)], jidx[np.ix_(U, U)] = C, P, J
    return pred, jidx, cost


def _parent_link(j, depth, static, parents, paths, order, n, notes):
    l0, l1 = j.a0, j.a1
    if static[l0]:
        return l1 if not static[l1] else None
    if static[l1]:
        return l0
    if depth[l0] < depth[l1]:
        return l0
    if depth[l0] > depth[l1]:
        return l1
    # same depth: OpenRAVE prefers link0 when it has a parent link (its test of link1 is broken)
    _, jidx, _ = paths
    pos0 = len(order)
    for p in parents[l0]:
        gi = int(jidx[l0, p])
        if gi in order:
            pos0 = min(pos0, order.index(gi))
    if pos0 < len(order):
        return l0
    notes.append(("same-depth", j.name))
    return None


def _flip(j: IJoint, links, is_static):
    """Make ``a1`` the parent (OpenRAVE swaps the links and negates the axes, so the joint
    value keeps its meaning)."""
    tswap = inv(j.tright)
    axes = [-matrix_vector(tswap[:3, :3], a) for a in j.axes]
    trel = inv(compose(j.tleft, j.tright))           # old link0 relative to old link1 at q = 0
    a0, a1, axes, tl, tr, tlm, trm = _internal(
        j.type, j.a1, j.a0, tswap[:3, 3], axes, trel, [], j.offsets, is_static)
    if j.type in ("universal", "hinge2"):
        # the inverse of R(u0, q0) R(u1, q1) is R(-u1, q1) R(-u0, q0): roboio keeps the
        # kinematics exact (OpenRAVE flips a two-axis joint keeping the axis order)
        j.reverse = not j.reverse
    elif j.type == "spherical":
        # inverse rotation vector, expressed in the new parent's frame
        j.sph_map = compose(-tswap[:3, :3], j.sph_map)
    j.a0, j.a1, j.axes = a0, a1, axes
    j.tleft, j.tright, j.tleft_m, j.tright_m = tl, tr, tlm, trm
    j.flipped = not j.flipped


def _static_info(j: IJoint):
    j.static = not any(j.circular) and all(lo >= hi for lo, hi in zip(j.lower, j.upper))
    if j.static:
        # the first axis in the child's frame (the model keeps it on the welded link)
        j.static_axis = matrix_vector(j.tright[:3, :3].T, np.asarray(j.axes[0], dtype=float))
        j.lower = [0.0] * j.dof
        j.upper = [0.0] * j.dof
        j.tleft = compose(j.tleft, j.tright)
        j.tright = np.eye(4)
        j.tleft_m = compose(j.tleft_m, j.tright_m)
        j.tright_m = np.eye(4)


def _clamp_dofs(active, values) -> list:
    """DOF ``values`` clamped as OpenRAVE's ``KinBody::SetDOFValues`` clamps them
    (kinbody.cpp): a spherical joint's rotation angle, and every non-circular axis of any
    other joint, to the limits of the joint's **first** axis (``GetLowerLimit(0)`` and
    ``GetUpperLimit(0)`` for each axis ``i``, not ``GetLowerLimit(i)``); circular axes are
    kept as given. Faithful, not a slip: an axis whose own limits are wider than the first
    axis's starts within the first's (the OpenRAVE XML writer clamps ``<jointvalues>`` the
    same way, so that a reading gives back what it wrote)."""
    out = list(values)
    for j in active:
        i0 = j.dofindex
        if j.type == "spherical":
            p = np.array(out[i0:i0 + 3])
            ang = math.fmod(math.sqrt(vector_dot(p, p)), 2 * math.pi)
            lo, hi = j.lower[0], j.upper[0]
            if ang < lo or ang > hi:
                lim = lo if ang < lo else hi
                p = np.array([lim, 0, 0]) if ang < 1e-10 else p * (lim / ang)
            out[i0:i0 + 3] = [float(x) for x in p]
            continue
        for i in range(j.dof):
            if not j.circular[i]:       # (axis 0's limits for every axis, as OpenRAVE)
                out[i0 + i] = min(max(out[i0 + i], j.lower[0]), j.upper[0])
    return out


def _forward(ordered, order, dof_values, poses, notes):
    """OpenRAVE's ``SetDOFValues`` from the current ``poses``: returns (values of every
    joint, new poses, effective joint per link, joints FK did not use)."""
    poses = [p.copy() for p in poses]
    values = [None] * len(ordered)
    for j in ordered:
        if j.active:
            values[j.index] = list(dof_values[j.dofindex:j.dofindex + j.dof])
        elif not j.static and not j.mimic:
            v = measure(j, poses[j.a0], poses[j.a1])
            for i in range(j.dof):
                if not j.circular[i]:
                    v[i] = min(max(v[i], j.lower[i]), j.upper[i])
            values[j.index] = v
    n = len(poses)
    computed = [False] * n
    computed[0] = True
    effective = [None] * n
    unused = []
    early = []
    for gi in order:
        j = ordered[gi]
        if j.static:
            poses[j.a1] = compose(poses[j.a0], j.tleft)
            computed[j.a1] = True
            effective[j.a1] = gi
            values[gi] = list(j.lower)
            continue
        if j.mimic:
            v = list(values[gi] or [0.0] * j.dof)
            for i, eq in enumerate(j.equations):
                if eq is None:
                    continue
                args = {}
                for ji, ax in eq.variables:
                    src = ordered[ji]
                    args[(ji, ax)] = (values[ji] or [0.0] * src.dof)[ax]
                r = eq.evaluate(args)
                if r is None:
                    notes.append(Diagnostic(f"mimic joint {j.name!r}: roboio cannot evaluate {eq.text!r} "
                                            "(multi-valued function); the value measured from the file is "
                                            "kept", kind="unsupported"))
                    r = measure(j, poses[j.a0], poses[j.a1])[i]
                if not (j.type == "spherical" or j.circular[i]):
                    r = min(max(r, j.lower[i]), j.upper[i])
                v[i] = r
            values[gi] = v
        if computed[j.a1]:
            unused.append(gi)
            continue
        if not computed[j.a0]:
            early.append((gi, j.a0))
        poses[j.a1] = compose(compose(compose(poses[j.a0], j.tleft), joint_transform(j, values[gi])), j.tright)
        computed[j.a1] = True
        effective[j.a1] = gi
    for gi, parent in early:
        if effective[parent] is not None:      # placed later: OpenRAVE used its old pose
            notes.append(Diagnostic(f"joint {ordered[gi].name!r}: OpenRAVE moves its link before "
                                    "its parent link is placed (its FK order); roboio uses the "
                                    "tree order", kind="read differently"))
    return values, poses, effective, unused


def _adjacency(body, ordered, paths, n) -> set:
    """Pairs OpenRAVE never checks for self-collision (``openrave.md`` §17): forced by
    ``<adjacent>``, a link without geometry with every link, and (``makejoinedlinksadjacent``)
    joined links and links whose path (OpenRAVE's ``GetChain``: the shortest-path tree rooted at
    the second link) has at most one non-static joint, or no path at all."""
    adjacent = set()

    def add(a, b):
        if a != b:
            adjacent.add((min(a, b), max(a, b)))

    for a, b in body.forced_adjacent:
        add(a, b)
    for i, l in enumerate(body.links):
        if not l.geoms:
            for k in range(n):
                add(i, k)
    if body.make_joined_links_adjacent:
        for j in ordered:
            add(j.a0, j.a1)
        pred, jidx, cost = paths
        ns = np.array([0 if j.static else 1 for j in ordered] + [0], dtype=np.int64)
        S = np.zeros((n, n), dtype=np.int64)      # non-static joints on the path x -> y
        reach = cost < 0x3FFFFFFF
        flat = np.flatnonzero(reach & (cost > 0))
        flat = flat[np.argsort(cost.ravel()[flat], kind="stable")]
        levels = cost.ravel()[flat]
        bounds = np.flatnonzero(np.diff(levels)) + 1
        for chunk in np.split(flat, bounds):
            xs, ys = np.divmod(chunk, n)
            S[xs, ys] = S[xs, pred[xs, ys]] + ns[jidx[xs, ys]]
        # pair (i0 < i1): GetChain(i0, i1) walks the tree rooted at i1
        i0, i1 = np.triu_indices(n, 1)
        ok = ~reach[i1, i0] | (S[i1, i0] <= 1)
        for a, b in zip(i0[ok].tolist(), i1[ok].tolist()):
            adjacent.add((a, b))
    return adjacent
