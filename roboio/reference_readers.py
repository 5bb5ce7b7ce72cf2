"""A robot file read by the program it is meant for, not by roboio: ``roboio verify --reader``.

A file roboio reads can still be one the real program refuses or reads otherwise; comparing
A with B *as that program reads it* proves the output works where it is used. Each reader
returns a :class:`Reference`: a roboio :class:`~roboio.model.Robot` describing B as the
program built it (link names, tree, joint names and types, limits: what ``verify`` needs to
match links and carry configurations over) and ``fk_batch(Q, links)``, the world frames of
B's links computed **by the program** for configurations ``Q`` of that robot.

* ``klampt`` (Klamp't 0.10: ``.rob``, ``.urdf``, world files): ``WorldModel.loadRobot`` /
  ``readFile``; Klamp't's model *is* roboio's (one DOF per link), so the robot is copied
  link by link, drivers included; frames from ``RobotModelLink.getTransform``. Klamp't drops
  a robot whose mesh it cannot open: that is a refusal.
* ``pinocchio`` (URDF): ``buildModelFromUrdf`` (a ``JointModelFreeFlyer`` root when the URDF
  root is not ``world``, as roboio and Klamp't read it); one link per ``BODY`` frame, moving
  when its frame's joint moves; a free-flyer root is Klamp't's six-link floating base
  (``base0..base4``, then the root link; x, y, z, yaw, pitch, roll); frames from
  ``framesForwardKinematics`` (``oMf``). Continuous joints set ``(cos q, sin q)``.
* ``mujoco`` (MJCF): ``MjModel.from_xml_path``; one link per body (a body with several joints
  gets a link per joint, the body last, named ``<body>.<joint>``; a free joint is the
  six-link floating base, a ball joint three links about x, y, z); link values are ``qpos``
  (hinge, slide), ``qpos`` of free and ball joints is made from their links' values. Body
  frames from ``mj_kinematics`` (``xpos``, ``xmat``); links that are not bodies (virtual and
  per-joint links) from roboio's kinematics of that robot.

The libraries are optional: :func:`available` says whether one is installed, and nothing is
imported until a reader is used.
"""
from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import sys
from typing import Callable

import numpy as np

from .model import Driver, Joint, Link, Robot

__all__ = ["READERS", "AUTO", "Reference", "ReferenceRefused", "available", "install_hint",
           "read_reference", "auto_reader"]

READERS = ("klampt", "pinocchio", "mujoco")
AUTO = {"klampt-rob": "klampt", "klampt-world": "klampt", "urdf": "pinocchio", "mjcf": "mujoco"}
_MODULES = {"klampt": "klampt", "pinocchio": "pinocchio", "mujoco": "mujoco"}
_PACKAGES = {"klampt": "klampt", "pinocchio": "pin", "mujoco": "mujoco"}
_FORMATS = {"klampt": ("klampt-rob", "urdf", "klampt-world"), "pinocchio": ("urdf",), "mujoco": ("mjcf",)}
_VIRTUAL = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (0, 1, 0), (1, 0, 0))


class ReferenceRefused(Exception):
    """The program refuses the file (the message says how)."""


class Reference:
    """B as ``reader`` reads it: ``robot`` (see the module docstring) and ``fk_batch``."""

    def __init__(self, reader: str, robot: Robot, fk: Callable):
        self.reader = reader
        self.robot = robot
        self._fk = fk

    def fk_batch(self, Q, links=None) -> np.ndarray:
        """``(N, L, 4, 4)`` world frames of ``links`` (indices; default all) at the
        configurations ``Q`` (``(N, num_links)``), computed by the program."""
        Q = np.asarray(Q, float).reshape(-1, self.robot.num_links)
        links = np.arange(self.robot.num_links) if links is None else np.asarray(links, int)
        return self._fk(Q, links)


def available(reader: str) -> bool:
    """Whether ``reader``'s library is installed (nothing is imported)."""
    return importlib.util.find_spec(_MODULES[reader]) is not None


def install_hint(reader: str) -> str:
    return (f"--reader {reader} needs the {reader} Python package, which is not installed "
            f"(pip install {_PACKAGES[reader]}; roboio[verify] installs all three)")


def auto_reader(fmt: str):
    """The program that reads files of roboio format ``fmt`` (None: none of the three)."""
    return AUTO.get(fmt)


def read_reference(path: str, reader: str, fmt: str) -> Reference:
    """``path`` (roboio format ``fmt``) read by ``reader``; :class:`ReferenceRefused` when
    the program refuses it (or does not read that format)."""
    if reader not in READERS:
        raise ValueError(f"reader must be one of {', '.join(READERS)}, not {reader!r}")
    if fmt not in _FORMATS[reader]:
        raise ReferenceRefused(f"{reader} does not read {fmt} files (it reads "
                               f"{', '.join(_FORMATS[reader])})")
    return {"klampt": _klampt, "pinocchio": _pinocchio, "mujoco": _mujoco}[reader](path, fmt)


# -- helpers ----------------------------------------------------------------------------------
@contextlib.contextmanager
def _stdout_to_stderr():
    """Klamp't prints its loading messages on the process's standard output: send them to
    standard error while it loads (``--json`` output stays clean)."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError, AttributeError):
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _transform(R, t) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = np.asarray(R, float).reshape(3, 3)
    T[:3, 3] = t
    return T


def _rpy_matrix(yaw, pitch, roll) -> np.ndarray:
    """``Rz(yaw) Ry(pitch) Rx(roll)``: a Klamp't floating base's rotation links."""
    from .transforms import rpy_to_matrix
    return rpy_to_matrix(np.array([roll, pitch, yaw], float))


def _quat_wxyz(R) -> np.ndarray:
    from .transforms import matrix_to_quat
    return np.asarray(matrix_to_quat(np.asarray(R, float)), float)     # (w, x, y, z)


def _robot(name, links, qmin, qmax, joints, config=None, drivers=()) -> Robot:
    r = Robot(name)
    n = len(links)
    r.set_links(links, qmin=qmin, qmax=qmax, config=np.zeros(n) if config is None else config)
    r.joints = joints
    r.drivers = list(drivers)
    return r


def _floating(names_taken: set, prefix: str, parent: int, first: int, T0=None) -> list:
    """The five virtual links of a Klamp't floating base (x, y, z, yaw, pitch), named
    ``base0..base4`` when free, else ``<prefix>_base<k>``."""
    out = []
    for k in range(5):
        name = f"base{k}" if f"base{k}" not in names_taken and not prefix else f"{prefix}_base{k}"
        names_taken.add(name)
        out.append(Link(name, parent if k == 0 else first + k - 1,
                        "prismatic" if k < 3 else "revolute", _VIRTUAL[k],
                        T0 if k == 0 else None, mass=0.0, inertia=np.zeros((3, 3))))
    return out


# -- Klamp't ----------------------------------------------------------------------------------
def _klampt(path: str, fmt: str) -> Reference:
    import klampt
    world = klampt.WorldModel()
    with _stdout_to_stderr():
        if fmt == "klampt-world":
            ok = world.readFile(path)
            if not ok:
                raise ReferenceRefused("Klamp't cannot read this world file")
            if world.numRobots() == 0:
                raise ReferenceRefused("Klamp't reads no robot from this world file")
            kr = world.robot(0)
        else:
            kr = world.loadRobot(path)
            if world.numRobots() == 0 or kr.index < 0:
                raise ReferenceRefused("Klamp't cannot load this robot (it drops a robot whose "
                                       "file or meshes it cannot read)")
    n = kr.numLinks()
    links, groups = [], []
    for i in range(n):
        lk = kr.link(i)
        R, t = lk.getParentTransform()
        links.append(Link(lk.getName(), lk.getParent(), "prismatic" if lk.isPrismatic() else "revolute",
                          lk.getAxis(), _transform(np.array(R).reshape(3, 3).T, t)))
    sizes = {"floating": 6, "floatingplanar": 3, "ballandsocket": 3}
    for i in range(n):
        jt = kr.getJointType(i)
        g = groups[-1] if groups else None
        if (jt in sizes and g is not None and g.type == jt and len(g.links) < sizes[jt]
                and links[i].parent == g.links[-1]):
            g.links.append(i)
        else:
            groups.append(Joint(jt, [i], links[i].parent if jt in sizes else -1))
    drivers = []
    for k in range(kr.numDrivers()):
        d = kr.driver(k)
        typ = d.getType()
        lo, hi = d.getLimits()
        kw = {}
        if typ == "affine":
            kw["scale"], kw["offset"] = (list(x) for x in d.getAffineCoeffs())
        drivers.append(Driver(d.getName(), typ, list(d.getAffectedLinks()), qmin=lo, qmax=hi, **kw))
    qmin, qmax = kr.getJointLimits()
    robot = _robot(kr.getName(), links, qmin, qmax, groups, kr.getConfig(), drivers)

    def fk(Q, sel, world=world):     # (the robot lives as long as its world: keep it)
        out = np.empty((len(Q), len(sel), 4, 4))
        for s, q in enumerate(Q):
            kr.setConfig([float(x) for x in q])
            for k, i in enumerate(sel):
                R, t = kr.link(int(i)).getTransform()
                out[s, k] = _transform(np.array(R).reshape(3, 3).T, t)
        return out
    return Reference("klampt", robot, fk)


# -- pinocchio --------------------------------------------------------------------------------
def _pinocchio(path: str, fmt: str) -> Reference:
    import pinocchio as pin
    try:
        model = pin.buildModelFromUrdf(path)
        roots = [f for f in model.frames if f.type == pin.FrameType.BODY and f.parentFrame == 0]
        floating = bool(roots) and roots[0].name != "world"
        if floating:
            model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    except (RuntimeError, ValueError) as e:
        raise ReferenceRefused(f"pinocchio cannot build a model of this URDF: {e}") from None
    data = model.createData()
    frames = list(model.frames)
    body = [k for k, f in enumerate(frames) if f.type == pin.FrameType.BODY]
    q0 = pin.neutral(model)
    pin.framesForwardKinematics(model, data, q0)
    world0 = {k: np.array(data.oMf[k].homogeneous) for k in body}
    links, qmin, qmax, groups = [], [], [], []
    index = {}                 # BODY frame -> link
    setters = []               # per link: how its value enters q
    taken = {frames[k].name for k in body}
    for k in body:
        f = frames[k]
        d = frames[f.parentFrame] if k != 0 else None
        parent_frame = d.parentFrame if d is not None and f.parentFrame != 0 else None
        parent = index.get(parent_frame, -1) if parent_frame is not None else -1
        T = world0[k] if parent < 0 else np.linalg.solve(world0[parent_frame], world0[k])
        jm = model.joints[d.parentJoint] if d is not None and d.type == pin.FrameType.JOINT else None
        kind = jm.shortname() if jm is not None else "fixed"
        if kind == "JointModelFreeFlyer":
            first = len(links)
            virtual = _floating(taken, "" if parent < 0 else f.name, parent, first)
            links += virtual
            qmin += [-math.inf] * 5
            qmax += [math.inf] * 5
            setters += [("free", jm.idx_q, m) for m in range(5)]
            links.append(Link(f.name, first + 4, "revolute", _VIRTUAL[5], joint_name=d.name))
            qmin.append(-math.inf)
            qmax.append(math.inf)
            setters.append(("free", jm.idx_q, 5))
            groups.append(Joint("floating", list(range(first, first + 6)), parent))
        elif jm is not None:
            axis, prismatic, unbounded = _pin_axis(jm, kind)
            links.append(Link(f.name, parent, "prismatic" if prismatic else "revolute", axis, T,
                              joint_name=d.name))
            if unbounded:
                qmin.append(-math.inf)
                qmax.append(math.inf)
                setters.append(("unbounded", jm.idx_q, 0))
                groups.append(Joint("spin", [len(links) - 1]))
            else:
                qmin.append(float(model.lowerPositionLimit[jm.idx_q]))
                qmax.append(float(model.upperPositionLimit[jm.idx_q]))
                setters.append(("one", jm.idx_q, 0))
                groups.append(Joint("normal", [len(links) - 1]))
        else:
            links.append(Link(f.name, parent, "revolute", (0, 0, 1), T,
                              joint_name=d.name if parent_frame is not None else None))
            qmin.append(0.0)
            qmax.append(0.0)
            setters.append(("none", 0, 0))
            groups.append(Joint("weld", [len(links) - 1]))
        index[k] = len(links) - 1
    robot = _robot(model.name, links, qmin, qmax, groups)
    link_frame = {i: k for k, i in index.items()}

    def q_of(v) -> np.ndarray:
        q = q0.copy()
        free = {}
        for i, (how, at, m) in enumerate(setters):
            if how == "one":
                q[at] = v[i]
            elif how == "unbounded":
                q[at], q[at + 1] = math.cos(v[i]), math.sin(v[i])
            elif how == "free":
                free.setdefault(at, [0.0] * 6)[m] = v[i]
        for at, (x, y, z, yaw, pitch, roll) in free.items():
            w, qx, qy, qz = _quat_wxyz(_rpy_matrix(yaw, pitch, roll))
            q[at:at + 7] = (x, y, z, qx, qy, qz, w)
        return q

    def fk(Q, sel):
        out = np.empty((len(Q), len(sel), 4, 4))
        own = [i for i in sel if i not in link_frame]
        roboio_T = robot.fk_batch(Q) if own else None
        for s, v in enumerate(Q):
            pin.framesForwardKinematics(model, data, q_of(v))
            for k, i in enumerate(sel):
                i = int(i)
                out[s, k] = (np.array(data.oMf[link_frame[i]].homogeneous) if i in link_frame
                             else roboio_T[s, i])
        return out
    return Reference("pinocchio", robot, fk)


def _pin_axis(jm, kind: str):
    """``(axis, prismatic, unbounded)`` of a one-DOF pinocchio joint model."""
    unit = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
    name = kind[len("JointModel"):]
    if name in ("RX", "RY", "RZ", "PX", "PY", "PZ"):
        return unit[name[1]], name[0] == "P", False
    if name in ("RUBX", "RUBY", "RUBZ"):
        return unit[name[3]], False, True
    if name in ("RevoluteUnaligned", "PrismaticUnaligned", "RevoluteUnboundedUnaligned"):
        return tuple(float(x) for x in jm.extract().axis), name.startswith("Prismatic"), "Unbounded" in name
    raise ReferenceRefused(f"pinocchio joint {kind} is not a one-DOF revolute or prismatic joint")


# -- MuJoCo -----------------------------------------------------------------------------------
def _mujoco(path: str, fmt: str) -> Reference:
    import mujoco
    try:
        m = mujoco.MjModel.from_xml_path(path)
    except ValueError as e:
        raise ReferenceRefused(f"MuJoCo refuses this model: {e}") from None
    d = mujoco.MjData(m)
    J = mujoco.mjtJoint
    zero = np.array(m.qpos0, float)
    for j in range(m.njnt):          # the zero configuration: hinges and slides at 0, identity quats
        a = m.jnt_qposadr[j]
        if m.jnt_type[j] == J.mjJNT_FREE:
            zero[a:a + 7] = (0, 0, 0, 1, 0, 0, 0)
        elif m.jnt_type[j] == J.mjJNT_BALL:
            zero[a:a + 4] = (1, 0, 0, 0)
        else:
            zero[a] = 0.0
    d.qpos[:] = zero
    mujoco.mj_kinematics(m, d)
    world0 = {b: _transform(d.xmat[b].reshape(3, 3), d.xpos[b]) for b in range(m.nbody)}

    def name(obj, i, default):
        return mujoco.mj_id2name(m, obj, i) or default
    links, qmin, qmax, groups, setters = [], [], [], [], []
    index = {0: -1}             # body -> its link (the world: -1)
    taken = {name(mujoco.mjtObj.mjOBJ_BODY, b, f"body{b}") for b in range(1, m.nbody)}
    for b in range(1, m.nbody):
        bname = name(mujoco.mjtObj.mjOBJ_BODY, b, f"body{b}")
        p = int(m.body_parentid[b])
        parent = index[p]
        T = np.linalg.solve(world0[p], world0[b])
        jids = list(range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b])) if m.body_jntnum[b] else []
        if not jids:
            links.append(Link(bname, parent, "revolute", (0, 0, 1), T))
            qmin.append(0.0)
            qmax.append(0.0)
            setters.append(("none", 0, 0))
            groups.append(Joint("weld", [len(links) - 1]))
            index[b] = len(links) - 1
            continue
        for n_j, j in enumerate(jids):
            jname = name(mujoco.mjtObj.mjOBJ_JOINT, j, None)
            last = n_j == len(jids) - 1
            at, typ = int(m.jnt_qposadr[j]), m.jnt_type[j]
            here = T if n_j == 0 else None
            if typ == J.mjJNT_FREE:
                first = len(links)
                links += _floating(taken, "" if p == 0 else bname, parent, first, here)
                qmin += [-math.inf] * 5
                qmax += [math.inf] * 5
                setters += [("free", at, k) for k in range(5)]
                links.append(Link(bname if last else f"{bname}.{jname}", first + 4, "revolute",
                                  _VIRTUAL[5], joint_name=jname))
                qmin.append(-math.inf)
                qmax.append(math.inf)
                setters.append(("free", at, 5))
                groups.append(Joint("floating", list(range(first, first + 6)), parent))
            elif typ == J.mjJNT_BALL:
                first = len(links)
                for k in range(3):
                    nm = bname if (last and k == 2) else f"{bname}.{jname or 'ball'}{k}"
                    links.append(Link(nm, parent if k == 0 else first + k - 1, "revolute",
                                      _VIRTUAL[5 - k], here if k == 0 else None, joint_name=jname))
                    qmin.append(-math.inf)
                    qmax.append(math.inf)
                    setters.append(("ball", at, k))
                groups.append(Joint("ballandsocket", list(range(first, first + 3)), parent))
            else:
                links.append(Link(bname if last else f"{bname}.{jname}", parent,
                                  "prismatic" if typ == J.mjJNT_SLIDE else "revolute",
                                  tuple(float(x) for x in m.jnt_axis[j]), here, joint_name=jname))
                limited = bool(m.jnt_limited[j])
                qmin.append(float(m.jnt_range[j][0]) if limited else -math.inf)
                qmax.append(float(m.jnt_range[j][1]) if limited else math.inf)
                setters.append(("one", at, 0))
                groups.append(Joint("normal" if limited else "spin", [len(links) - 1]))
            parent = len(links) - 1
        index[b] = len(links) - 1
    robot = _robot(m.names.split(b"\0", 1)[0].decode() if hasattr(m, "names") else "model",
                   links, qmin, qmax, groups)
    body_of = {i: b for b, i in index.items() if b > 0}

    def q_of(v) -> np.ndarray:
        q = zero.copy()
        free, ball = {}, {}
        for i, (how, at, k) in enumerate(setters):
            if how == "one":
                q[at] = v[i]
            elif how == "free":
                free.setdefault(at, [0.0] * 6)[k] = v[i]
            elif how == "ball":
                ball.setdefault(at, [0.0] * 3)[k] = v[i]
        for at, (x, y, z, yaw, pitch, roll) in free.items():
            q[at:at + 3] = (x, y, z)
            q[at + 3:at + 7] = _quat_wxyz(_rpy_matrix(yaw, pitch, roll))
        for at, (a, b_, c) in ball.items():
            from .transforms import axis_angle_to_matrix
            R = (axis_angle_to_matrix(np.array([1.0, 0, 0]), a) @ axis_angle_to_matrix(np.array([0, 1.0, 0]), b_)
                 @ axis_angle_to_matrix(np.array([0, 0, 1.0]), c))
            q[at:at + 4] = _quat_wxyz(R)
        return q

    def fk(Q, sel):
        out = np.empty((len(Q), len(sel), 4, 4))
        own = [i for i in sel if int(i) not in body_of]
        roboio_T = robot.fk_batch(Q) if own else None
        for s, v in enumerate(Q):
            d.qpos[:] = q_of(v)
            mujoco.mj_kinematics(m, d)
            for k, i in enumerate(sel):
                i = int(i)
                out[s, k] = (_transform(d.xmat[body_of[i]].reshape(3, 3), d.xpos[body_of[i]])
                             if i in body_of else roboio_T[s, i])
        return out
    return Reference("mujoco", robot, fk)
