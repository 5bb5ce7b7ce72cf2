"""Any robot model -> GraspIt! DH chains with the same link frames.

GraspIt! robots are serial DH chains hanging from the palm. For every model link (frame
``F = F_parent P Rot(u, q)``, or ``F_parent P`` when welded) roboio writes, in its chain:

1. a *constant* joint (when needed) taking the parent frame's z axis onto the link's joint
   axis (one DH transform reaches any line: along the common normal);
2. the moving joint: ``theta = r * dof + c`` (revolute; ``d`` along the axis) or
   ``d = r * dof + c`` (prismatic), with ``alpha`` and ``c`` from the Z-X-Z angles of the
   remaining rotation;
3. a trailing constant joint for the last Z angle (when not zero).

A welded link is one or two constant joints. Constant joints are revolute joints of an
extra DOF whose joints all have the range [0, 0]. The GraspIt! link consumes its joints
(``Revolute``/``Prismatic`` for one, ``Universal`` for two, ``Ball`` for three), so its frame
is exactly the model's. The first link of a chain gets its constant part in the chain's
``<transform>``.

Drivers become DOFs in order (affine ``q = o + s u`` -> ratio ``s``, the offset ``o`` moves
into the joint's DH offset, so read-back joint values are shifted by ``o``); links no driver
moves get DOFs of their own. A tree that branches below the palm is written as one chain
per leaf; links shared with an earlier chain are repeated as massless copies without
geometry (reported).
"""
from __future__ import annotations

import math

import numpy as np

from ...transforms import compose, inverse_transform, vector_norm
from ..affine import nearest_rotation
from ..fk_change import FK_SAMPLES, fk_change, fk_loss_kind, note_fk_change
from ._build import MM
from ._robot_spec import DOF_DEFAULTS, ChainOut, DofOut, JointOut, LinkOut, RobotOut, body_of, tail_from_extras
from ._text import num, plain
from ._transform import parts_for

__all__ = ["spec_from_model", "line_joint", "zxz"]

_EPS = 1e-12


def _dh(theta, d, a, alpha) -> np.ndarray:
    ct, st, ca, sa = math.cos(theta), math.sin(theta), math.cos(alpha), math.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


def line_joint(o, w):
    """DH parameters ``(theta, d, a, alpha)`` of one transform from the current frame to a
    frame whose z axis is the line through ``o`` along the unit ``w`` (origin at the foot of
    the common normal), and that frame."""
    o = np.asarray(o, float)
    w = np.asarray(w, float)
    w = w / float(vector_norm(w))
    z = np.array([0.0, 0.0, 1.0])
    cr = np.cross(z, w)
    sn = float(vector_norm(cr))
    if sn < _EPS:
        alpha = 0.0 if w[2] > 0 else math.pi
        a = math.hypot(o[0], o[1])
        theta = math.atan2(o[1], o[0]) if a > 0 else 0.0
        d = 0.0
    else:
        # the common normal n = z x w / |z x w|; the lines' signed distance along it, o . n,
        # and the foot on z, s, computed without the cancellations of the textbook forms
        # (x1 = foot on w - foot on z; 1 - b^2): for nearly parallel lines (icub's, romeo's
        # and alex's frames, 3e-7 to 4e-6 rad off) those moved the links by up to 0.2 mm
        b = w[2]
        n = cr / sn
        on = float(o[0] * n[0] + o[1] * n[1] + o[2] * n[2])
        s = o[2] - b * (w[0] * o[0] + w[1] * o[1]) / (sn * sn)
        a = abs(on)
        if a < 1e-15 * max(1.0, float(vector_norm(o))):
            x1, a = n, 0.0                # the lines meet
        else:
            x1 = n if on > 0 else -n
        theta = math.atan2(x1[1], x1[0])
        d = s
        alpha = math.atan2(float(cr[0] * x1[0] + cr[1] * x1[1] + cr[2] * x1[2]), b)
    return (theta, d, a, alpha), _dh(theta, d, a, alpha)


def zxz(R):
    """``(c, alpha, theta2)`` with ``R = Rz(c) Rx(alpha) Rz(theta2)``."""
    R = np.asarray(R, float)
    alpha = math.atan2(math.hypot(R[0, 2], R[1, 2]), R[2, 2])
    if abs(math.sin(alpha)) < 1e-12:
        # gimbal: R = Rz(c) Rx(0 or pi), whose first column is (cos c, sin c, 0) either way
        return math.atan2(R[1, 0], R[0, 0]), (0.0 if R[2, 2] > 0 else math.pi), 0.0
    c = math.atan2(R[0, 2], -R[1, 2])
    theta2 = math.atan2(R[2, 0], R[2, 1])
    return c, alpha, theta2


def _is_identity_dh(p) -> bool:
    return all(abs(v) < 1e-15 for v in p)


class _Const:
    """A constant joint: DH values in SI (theta/alpha radians, d/a metres)."""

    def __init__(self, theta=0.0, d=0.0, a=0.0, alpha=0.0):
        self.theta, self.d, self.a, self.alpha = theta, d, a, alpha


def spec_from_model(writer, robot, exclude, world: bool, stem: str = "") -> RobotOut:
    """The files of ``robot`` written from the model; ``stem``: the robot file's stem, which
    names what has no name attribute when read (``<stem>Base``, ``<stem>_chain<c>_link<l>``):
    names equal to those are not written, as the writer from a GraspIt! record does, so the
    two write the same bytes."""
    report = writer.report
    n = robot.num_links
    keep = [i for i in range(n) if i not in exclude]
    joint_of = robot.joints_of_links()
    groups = {i: joint_of.get(i) for i in keep}

    def welded(i):
        g = groups.get(i)
        return g is not None and g.type == "weld"

    # DH joints make rotations: a frame whose rotation part is not one is written as its
    # nearest rotation, and the FK change this makes is stated (report.fk_error)
    nearest = {}
    for i in keep:
        T = np.asarray(robot.links[i].parent_transform, float)
        R, err = nearest_rotation(T[:3, :3])
        if err > 0:
            F = T.copy()
            F[:3, :3] = R
            nearest[i] = F
    if nearest:
        pos, rot = fk_change(robot, nearest)
        note_fk_change(report, pos, rot)
        report.lose(f"{robot.name}: link frames that are not rotations ("
                    + ", ".join(robot.links[i].name for i in nearest) + f") written as their nearest rotations: "
                    f"links move by up to {pos:.1e} m (rotation matrix entries by {rot:.1e}) over "
                    f"{FK_SAMPLES} sampled configurations", kind=fk_loss_kind(pos, rot))

    def frame(i):
        F = nearest.get(i)
        return F if F is not None else np.asarray(robot.links[i].parent_transform, float)

    children = {i: [] for i in keep}
    dropped = set()
    for i in keep:
        p = robot.links[i].parent
        if i == 0:
            continue
        if p < 0 or p in dropped:
            if p < 0:
                report.lose(f"{robot.name}: link {robot.links[i].name!r} is a second root (a GraspIt! "
                            "robot has one base); it and its subtree are not written", kind="not written")
            dropped.add(i)
            continue
        children.setdefault(p, []).append(i)
    palm = robot.links[0]
    link_name = _written_link_names(robot, report)
    if not welded(0):
        report.lose(f"{robot.name}: the DOF of the root link {palm.name!r} (a GraspIt! palm does not "
                    f"move; range [{robot.qmin[0]:.4g}, {robot.qmax[0]:.4g}] lost, held at "
                    f"{robot.config[0]:.4g})", kind="not written")
    for g in robot.joints:
        if g.type not in ("normal", "weld") and any(i in keep for i in g.links):
            report.lose(f"{robot.name}: {g.type} joint over {[robot.links[i].name for i in g.links]} "
                        "(written as its one-DOF links)", kind="changed")

    # paths from the palm's children to the leaves (depth first, in link order)
    paths = []
    stack = [(c, []) for c in reversed(children.get(0, []))]
    while stack:
        i, prefix = stack.pop()
        prefix = prefix + [i]
        kids = children.get(i, [])
        if not kids:
            paths.append(prefix)
        stack.extend((k, prefix) for k in reversed(kids))
    owner = {}
    for ci, path in enumerate(paths):
        for i in path:
            owner.setdefault(i, ci)

    # drivers -> DOFs
    moving = [i for i in keep if i != 0 and i not in dropped and not welded(i)]
    dof_of = {}
    dof_src = []
    for d in robot.drivers:
        if d.type not in ("normal", "affine"):
            report.lose(f"{robot.name}: {d.type} driver {d.name!r} (GraspIt! DOFs drive joints)", kind="not written")
            continue
        k = len(dof_src)
        dof_src.append(d)
        for m, li in enumerate(d.dofs[:1] if d.type == "normal" else d.dofs):
            if li not in moving:
                continue
            if li in dof_of:
                report.lose(f"{robot.name}: link {robot.links[li].name!r} is moved by several drivers "
                            "(a GraspIt! joint follows one DOF; the first is kept)", kind="not written")
                continue
            s = d.scale[m] if d.type == "affine" else 1.0
            o = d.offset[m] if d.type == "affine" else 0.0
            if s == 0:
                report.lose(f"{robot.name}: link {robot.links[li].name!r} has a zero driver scale "
                            "(written as a joint of its own DOF)", kind="changed")
                continue
            dof_of[li] = (k, s, o)
    own_dof_name = {}               # DOF index -> the undriven link it moves (named after it)
    taken = {d.name for d in robot.drivers}
    for li in moving:
        if li not in dof_of:
            report.warn(f"{robot.name}: link {robot.links[li].name!r} has no driver; it gets a DOF of its own", kind="changed")
            dof_of[li] = (len(dof_src), 1.0, 0.0)
            name = robot.links[li].name
            if name and name not in taken:
                own_dof_name[len(dof_src)] = name
                taken.add(name)
            dof_src.append(None)
    fixed_dof = len(dof_src)
    used_fixed = False

    dof_units = []
    for k, d in enumerate(dof_src):
        first = next((li for li in moving if dof_of.get(li, (None,))[0] == k), None)
        dof_units.append(MM if first is not None and robot.links[first].is_prismatic else 1.0)
    dof_joints = {k: [] for k in range(len(dof_src))}

    def const_joint(cj: _Const) -> JointOut:
        nonlocal used_fixed
        used_fixed = True
        return JointOut("Revolute", f"d{fixed_dof}+{_signed(math.degrees(cj.theta))}", num(cj.d / MM),
                        num(cj.a / MM), num(math.degrees(cj.alpha)), "0", "0")

    def weld_joints(i, first_in_chain):
        P = frame(i)
        out = []
        chain_T = None
        if first_in_chain:
            chain_T = P
            out.append(const_joint(_Const()))
        else:
            p, K = line_joint(P[:3, 3], P[:3, 2])
            if not _is_identity_dh(p):
                out.append(const_joint(_Const(*p)))
            X = compose(inverse_transform(K), P)
            psi = math.atan2(X[1, 0], X[0, 0])
            out.append(const_joint(_Const(psi, X[2, 3])))
        return chain_T, out, ("Revolute" if len(out) == 1 else "Universal")

    def joints_of(i, first_in_chain):
        """(chain transform or None, [JointOut], dyn type) for model link ``i``."""
        if welded(i):
            return weld_joints(i, first_in_chain)
        link = robot.links[i]
        P = frame(i)
        out = []
        chain_T = None
        ax = np.asarray(link.axis, float)
        norm = float(vector_norm(ax))
        if norm == 0:
            report.lose(f"{robot.name}: link {link.name!r} has a zero axis (written welded)", kind="changed")
            return weld_joints(i, first_in_chain)
        u = ax / norm
        w = compose(P[:3, :3], u.reshape(3, 1))[:, 0]
        if first_in_chain:
            K = np.eye(4)
            K[:3, :3] = _frame_z(w)
            K[:3, 3] = P[:3, 3]
            chain_T = K
        else:
            p, K = line_joint(P[:3, 3], w)
            if not _is_identity_dh(p):
                out.append(const_joint(_Const(*p)))
        X = compose(inverse_transform(K), P)
        delta = X[2, 3]
        c, alpha, theta2 = zxz(X[:3, :3])
        k, s, o = dof_of[i]
        if o != 0:
            report.lose(f"{robot.name}: link {link.name!r} reads back with joint values shifted by "
                        f"{-o:g} (its driver's offset moves into GraspIt!'s DH offset; equal driver "
                        "values give equal frames)", kind="changed")
        unit_j = MM if link.is_prismatic else 1.0
        ratio = s * norm * dof_units[k] / unit_j
        lo, hi = robot.qmin[i], robot.qmax[i]
        jlo, jhi = norm * (lo - o), norm * (hi - o)
        if not (math.isfinite(jlo) and math.isfinite(jhi)):
            report.lose(f"{robot.name}: infinite limits of {link.name!r} (GraspIt! joints need limits; "
                        "written as +-1e9)", kind="rounding")
            jlo = jlo if math.isfinite(jlo) else -1e9 * unit_j
            jhi = jhi if math.isfinite(jhi) else 1e9 * unit_j
        expr_ratio = "" if ratio == 1 else f"*{plain(ratio)}"
        if link.is_prismatic:
            off = (delta + norm * o) / MM
            j = JointOut("Prismatic", num(math.degrees(c)), f"d{k}{expr_ratio}+{_signed(off)}", "0",
                         num(math.degrees(alpha)), num(jlo / MM), num(jhi / MM))
        else:
            off = math.degrees(c + norm * o)
            j = JointOut("Revolute", f"d{k}{expr_ratio}+{_signed(off)}", num(delta / MM), "0",
                         num(math.degrees(alpha)), num(math.degrees(jlo)), num(math.degrees(jhi)))
        if "e" in expr_ratio.lower():
            report.lose(f"{robot.name}: ratio of {link.name!r} cannot be written without an exponent", kind="approximated")
        out.append(j)
        dof_joints[k].append((i, s, link.is_prismatic))
        if abs(theta2) > 1e-15:
            out.append(const_joint(_Const(theta2)))
        dyn = ("Prismatic" if link.is_prismatic else "Revolute") if len(out) == 1 else (
            "Universal" if len(out) == 2 else "Ball")
        return chain_T, out, dyn

    chains = []
    copies = {}
    if not paths:
        report.lose(f"{robot.name}: a GraspIt! robot needs a chain; one massless link without geometry "
                    f"({robot.name}_dummy) is added", kind="changed")
        body = {"geometry": None, "mass": 1e-6, "com": np.zeros(3), "inertia": np.zeros((3, 3)),
                "gx": {}, "what": f"{robot.name}_dummy"}
        chains.append(ChainOut(parts_for(np.eye(4)), [const_joint(_Const())],
                               [LinkOut("Revolute", f"{_file_stem(robot.name)}_dummy.xml", body, [],
                                        f"{robot.name}_dummy")]))
    for ci, path in enumerate(paths):
        chain_T = None
        jouts, louts = [], []
        for pos, i in enumerate(path):
            T, js, dyn = joints_of(i, pos == 0)
            if pos == 0:
                chain_T = T
            link = robot.links[i]
            # joint names: roboio names the model links of joints that carry no GraspIt! link
            jouts += js
            if owner[i] == ci:
                body = body_of(link)
                name = link_name(i)
            else:
                copies[i] = copies.get(i, 0) + 1
                name = f"{link_name(i)}_copy{copies[i]}"
                body = {"geometry": None, "mass": 1e-6, "com": np.zeros(3), "inertia": np.zeros((3, 3)),
                        "gx": {}, "what": name}
                report.lose(f"{robot.name}: GraspIt! chains do not branch; chain {ci} repeats link "
                            f"{link.name!r} as a massless copy without geometry ({name!r})", kind="changed")
            # the copies of one link share one file (the same massless body without geometry):
            # a kitchen of 242 leaves below five shared links wrote 1,200 files, more than a
            # reader opens (max_files)
            file = f"{_file_stem(name if owner[i] == ci else link_name(i) + '_copy')}.xml"
            louts.append(LinkOut(dyn, file, body, [],
                                 None if name == f"{stem}_chain{ci}_link{len(louts)}" else name))
        chains.append(ChainOut(parts_for(_to_mm(chain_T)), jouts, louts))
    for i in keep:
        if i != 0 and i not in dropped and i not in owner:
            report.lose(f"{robot.name}: link {robot.links[i].name!r} is not written", kind="not written")

    # DOFs
    dofs = []
    for k, d in enumerate(dof_src):
        rec = (d.extras.get("graspit") or {}).get("dof") if d is not None else None
        if rec is not None:
            fields = [("defaultVelocity", rec.default_velocity.text), ("maxEffort", rec.max_effort.text),
                      ("Kp", rec.kp.text), ("Kd", rec.kd.text), ("draggerScale", rec.dragger_scale.text)]
            dtype = rec.type
            if dtype == "c":
                dtype = "r"
                report.lose(f"{robot.name}: compliant DOF {d.name!r} written as a rigid DOF with its "
                            "static coupling ratios (GraspIt!'s compliance formula would change them)", kind="changed")
        else:
            fields = list(DOF_DEFAULTS)
            dtype = "r"
            if d is not None and math.isfinite(d.tmax):
                fields[1] = ("maxEffort", num(d.tmax / (1e-6 if dof_units[k] == MM else 1e-9)))
        joints_k = dof_joints[k]
        value = 0.0
        if joints_k:
            li, s, _ = joints_k[0]
            o = dof_of[li][2]
            value = (robot.config[li] - o) / s
        if value != 0 and not world:
            # in a world the configuration is the world's (<dofValues>), not the robot file's
            fields.append(("defaultValue", num(math.degrees(value / dof_units[k]))))
        if dtype == "b" and rec is not None and rec.breakaway_torque is not None:
            fields.append(("breakAwayTorque", rec.breakaway_torque.text))
        if d is not None and (math.isfinite(d.qmin) or math.isfinite(d.qmax)) and joints_k:
            lo = max((robot.qmin[li] - dof_of[li][2]) / s if s > 0 else (robot.qmax[li] - dof_of[li][2]) / s
                     for li, s, _ in joints_k)
            hi = min((robot.qmax[li] - dof_of[li][2]) / s if s > 0 else (robot.qmin[li] - dof_of[li][2]) / s
                     for li, s, _ in joints_k)
            if not (np.isclose(lo, d.qmin) and np.isclose(hi, d.qmax)):
                report.lose(f"{robot.name}: limits of driver {d.name!r} (GraspIt! derives a DOF's range "
                            "from its joints' limits)", kind="not written")
        scale = [(li, s, pr) for li, s, pr in joints_k]
        # the driver's name (roboio's attribute; the reader names a DOF dof<k> without it)
        dname = d.name if d is not None and d.name and d.name != f"dof{k}" else own_dof_name.get(k)
        dofs.append(DofOut(dtype, fields, scale, dof_units[k], dname))
    if used_fixed:
        dofs.append(DofOut("r", list(DOF_DEFAULTS), [], 1.0))
    gx = robot.extras.get("graspit") or {}
    palm_attrs = [] if link_name(0) == f"{stem}Base" else [("name", link_name(0))]
    out = RobotOut(gx.get("type") or "Hand", gx.get("dbname"), f"{_file_stem(link_name(0))}.xml", body_of(palm),
                   palm_attrs, dofs, chains)
    # names: roboio's "name" attributes keep the model's link names
    tail_from_extras(out, robot, gx.get("record"), gx, report)
    return out


def _signed(x: float) -> str:
    """An offset after '+': negative values as '-x' (read as '+-x')."""
    return num(x)


def _written_link_names(robot, report):
    """``name(i)``: the name link ``i`` is written with: its own, or for a link the source
    left unnamed (an OpenRAVE ``<Body>`` without ``name``) ``link<i>``, unique among the
    robot's names and reported as a rename of ``''`` (a list when several links have none),
    so that the link written is known. (Without a name attribute the reader names a palm
    ``<robot>Base``, which verify cannot match.)"""
    taken = set(l.name for l in robot.links)
    names, invented = [], []
    for l in robot.links:
        new, k = l.name, 2
        if not new:
            new = f"link{l.index}"
            while new in taken:
                new, k = f"link{l.index}_{k}", k + 1
            taken.add(new)
            invented.append(new)
        names.append(new)
    if invented:
        report.rename("links", "", invented[0] if len(invented) == 1 else invented)
    return names.__getitem__


def _file_stem(name: str) -> str:
    import re
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    return s or "link"


def _frame_z(w) -> np.ndarray:
    """A rotation whose z axis is the unit ``w`` (x as close to the parent's x as possible)."""
    w = np.asarray(w, float)
    x = np.array([1.0, 0.0, 0.0]) - w[0] * w
    if vector_norm(x) < 1e-6:
        x = np.array([0.0, 1.0, 0.0]) - w[1] * w
    x /= vector_norm(x)
    y = np.cross(w, x)
    return np.stack([x, y, w], axis=1)


def _to_mm(T) -> np.ndarray:
    T = np.array(T, float)
    T[:3, 3] /= MM
    return T
