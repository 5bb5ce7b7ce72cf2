"""Klamp't's ``RobotModel``, ``RobotModelLink`` and ``RobotModelDriver`` as views on a
:class:`roboio.model.Robot`.

The roboio robot is the single source of truth: limits, axes, parent transforms, masses,
names and the configuration (``robot.config``) are read from and written to it. The only
state kept here is Klamp't's *current link transforms*: like Klamp't, they are computed by
forward kinematics when ``setConfig`` (or ``setDOFPosition``) is called and can be
overwritten by ``RobotModelLink.setTransform``; Jacobians and world/local conversions use
them. Editing the kinematic structure (``setParentTransform``, ``setAxis``, ...) takes
effect at the next ``setConfig``, as in Klamp't.
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from ._common import (NotSupportedError, floats, matrix_to_se3, opengl_methods, se3_to_matrix,
                      unsupported, vec3)
from .appearance import Appearance
from ._io import load_file, save_file
from .geometry import Geometry3D, clear_pose_override, clear_pose_overrides
from .mass import Mass
from .math import so3

__all__ = ["RobotModel", "RobotModelLink", "RobotModelDriver"]


class _State:
    """Current world transforms of every link, ``T`` (n, 4, 4): the frames of a kinematics
    workspace, recomputed in place by ``setConfig`` (no allocation per call)."""

    __slots__ = ("ws", "T", "__weakref__")

    def __init__(self, robot):
        self.bind(robot)

    def bind(self, robot):
        """(Re)attach to the robot's current kinematic structure and pose it at its config."""
        self.ws = robot.kinematics.workspace()
        self.T = self.ws.frames
        if robot.num_links:
            self.ws.fk(robot.config)


_STATES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _state(robot) -> _State:
    st = _STATES.get(robot)
    if st is None:
        st = _STATES[robot] = _State(robot)
    elif len(st.T) != robot.num_links:
        st.bind(robot)
    return st


def _update_frames(robot):
    """Forward kinematics of the current configuration into the link transforms (with the
    kinematic structure as edited so far, as Klamp't's setConfig)."""
    st = _STATES.get(robot)
    if st is None:
        _STATES[robot] = _State(robot)
    elif st.ws.model is not robot.kinematics:
        st.bind(robot)
    elif robot.num_links:
        st.ws.fk(robot.config)
    clear_pose_overrides(robot.links)


def _update_subtree(robot, root: int):
    """Recompute the current transforms of ``root`` and its descendants."""
    T = _state(robot).T
    todo = {root}
    for indices, _ in robot.kinematics.levels:      # tree levels, root first
        for i in indices:
            link = robot.links[i]
            if i == root or link.parent in todo:
                todo.add(int(i))
                parent = np.eye(4) if link.parent < 0 else T[link.parent]
                T[i] = parent @ robot.kinematics.local_transform(int(i), robot.config[i])
                clear_pose_override(link)


def _xyz(v) -> tuple:
    """Three Python floats from a 3-vector (list, tuple or array)."""
    try:
        x, y, z = v
        return float(x), float(y), float(z)
    except (TypeError, ValueError):
        return tuple(float(c) for c in vec3(v))      # vec3 raises the clear error


def _lookup(items, key, what):
    """An item by index or by name (Klamp't's ``link(i)`` / ``link("name")``)."""
    if isinstance(key, str):
        for i, it in enumerate(items):
            if it.name == key:
                return i
        raise KeyError(f"no {what} named {key!r}")
    i = int(key)
    if not 0 <= i < len(items):
        raise IndexError(f"{what} index {i} out of range (0..{len(items) - 1})")
    return i


# -- joint-aware configuration metrics (Klamp't's Interpolate / Distance) -----------------------
def _angle_normalize(a):
    a = math.fmod(a, 2 * math.pi)
    return a + 2 * math.pi if a < 0 else a


def _angle_diff(a, b):
    d = a - b
    if d < -math.pi:
        return d + 2 * math.pi
    if d > math.pi:
        return d - 2 * math.pi
    return d


def _angle_interp(a, b, u):
    return _angle_normalize(a + u * _angle_diff(b, a))


def _euler_zyx_matrix(angles):
    """``Rz(a) Ry(b) Rx(c)`` as a column-major 9-list."""
    a, b, c = angles
    return so3.mul(so3.rotation((0, 0, 1), a), so3.mul(so3.rotation((0, 1, 0), b),
                                                        so3.rotation((1, 0, 0), c)))


def _euler_zyx_angles(R):
    roll, pitch, yaw = so3.rpy(R)
    return yaw, pitch, roll


def _joint_groups(robot):
    """``(type, link indices)`` for every Klamp't joint; links no joint covers are normal."""
    covered = set()
    groups = []
    for j in robot.joints:
        groups.append((j.type, list(j.links)))
        covered.update(j.links)
    groups += [("normal", [i]) for i in range(robot.num_links) if i not in covered]
    return groups


def interpolate_config(robot, a, b, u) -> list:
    """Klamp't's geodesic interpolation: linear, except spin and planar rotations (shortest
    way round, result in [0, 2 pi)) and the Euler angles of floating / ball joints
    (rotation geodesic)."""
    a, b = floats(a, robot.num_links, "a"), floats(b, robot.num_links, "b")
    out = [x * (1.0 - u) + y * u for x, y in zip(a, b)]
    for kind, idx in _joint_groups(robot):
        if kind == "spin":
            k = idx[-1]
            out[k] = _angle_interp(_angle_normalize(a[k]), _angle_normalize(b[k]), u)
        elif kind == "floatingplanar":
            k = idx[2]
            out[k] = _angle_interp(_angle_normalize(a[k]), _angle_normalize(b[k]), u)
        elif kind in ("floating", "ballandsocket"):
            r = idx[3:6] if kind == "floating" else idx[0:3]
            Ra = _euler_zyx_matrix([a[k] for k in r])
            Rb = _euler_zyx_matrix([b[k] for k in r])
            for k, v in zip(r, _euler_zyx_angles(so3.interpolate(Ra, Rb, u))):
                out[k] = v
    return out


def config_distance(robot, a, b, floating_rotation_weight=1.0) -> float:
    """Klamp't's joint-aware Euclidean distance: welded links do not count, spin joints
    the short way round, floating / ball joints by rotation angle."""
    a, b = floats(a, robot.num_links, "a"), floats(b, robot.num_links, "b")
    terms = []
    for kind, idx in _joint_groups(robot):
        k = idx[-1]
        if kind == "normal":
            terms.append(a[k] - b[k])
        elif kind == "spin":
            terms.append(_angle_diff(_angle_normalize(a[k]), _angle_normalize(b[k])))
        elif kind in ("floating", "ballandsocket"):
            r = idx[3:6] if kind == "floating" else idx[0:3]
            if kind == "floating":
                terms += [a[i] - b[i] for i in idx[:3]]
            Ra = _euler_zyx_matrix([a[i] for i in r])
            Rb = _euler_zyx_matrix([b[i] for i in r])
            w = floating_rotation_weight if kind == "floating" else 1.0
            terms.append(so3.angle(so3.mul(Ra, so3.inv(Rb))) * w)
        elif kind == "floatingplanar":
            raise NotSupportedError("Klamp't cannot measure distances over floating planar joints")
    return math.sqrt(sum(t * t for t in terms))


# -- views ----------------------------------------------------------------------------------
class RobotModel:
    """A robot of a :class:`~roboio.compat.klampt.WorldModel` (or standalone:
    ``RobotModel()`` then ``loadFile``). Configurations, velocities and limits are lists of
    length ``numLinks()``."""

    def __init__(self):
        from ...model import Robot
        self._robot = Robot("")
        self._world = None

    @classmethod
    def _view(cls, robot, world=None) -> "RobotModel":
        r = cls.__new__(cls)
        r._robot = robot
        r._world = world
        _state(robot)
        return r

    def __eq__(self, other):
        return isinstance(other, RobotModel) and other._robot is self._robot

    def __hash__(self):
        return id(self._robot)

    @property
    def model(self):
        """The underlying :class:`roboio.model.Robot`."""
        return self._robot

    # -- identity ---------------------------------------------------------------------------
    def getID(self) -> int:
        """The robot's ID in its world (-1 when standalone)."""
        return -1 if self._world is None else self._world.id_of(self._robot)

    id = property(getID)

    @property
    def index(self) -> int:
        if self._world is None:
            return -1
        return next(i for i, r in enumerate(self._world.robots) if r is self._robot)

    def getName(self) -> str:
        return self._robot.name

    def setName(self, name: str):
        self._robot.name = str(name)

    name = property(getName, setName)

    def numLinks(self) -> int:
        return self._robot.num_links

    def numDrivers(self) -> int:
        return len(self._robot.drivers)

    # -- links and drivers -------------------------------------------------------------------
    def link(self, index_or_name) -> "RobotModelLink":
        """The link by index or name."""
        return RobotModelLink._view(self, _lookup(self._robot.links, index_or_name, "link"))

    getLink = link

    def getLinks(self) -> tuple:
        return tuple(RobotModelLink._view(self, i) for i in range(self.numLinks()))

    links = property(getLinks)

    def getLinksDict(self) -> dict:
        return {l.getName(): l for l in self.getLinks()}

    linksDict = property(getLinksDict)

    def driver(self, index_or_name) -> "RobotModelDriver":
        """The driver by index or name."""
        return RobotModelDriver._view(self, _lookup(self._robot.drivers, index_or_name, "driver"))

    getDriver = driver

    def getDrivers(self) -> tuple:
        return tuple(RobotModelDriver._view(self, i) for i in range(self.numDrivers()))

    drivers = property(getDrivers)

    def getDriversDict(self) -> dict:
        return {d.getName(): d for d in self.getDrivers()}

    driversDict = property(getDriversDict)

    def getJointType(self, index_or_name) -> str:
        """Klamp't joint type of the link: normal, spin, weld, floating, floatingplanar or
        ballandsocket."""
        i = _lookup(self._robot.links, index_or_name, "link")
        j = self._robot.joint_of_link(i)
        return "normal" if j is None else j.type

    # -- state ------------------------------------------------------------------------------
    def getConfig(self) -> list:
        return floats(self._robot.config)

    def setConfig(self, q):
        """Set the configuration and update every link transform (forward kinematics)."""
        r = self._robot
        try:
            q = np.array(q, dtype=float)
        except (TypeError, ValueError):
            raise ValueError("configuration must be a list of numbers") from None
        if q.shape != (r.num_links,):
            raise ValueError(f"configuration must have {r.num_links} entries, got {q.size}")
        r.config = q
        _update_frames(r)

    config = property(getConfig, setConfig)

    def getVelocity(self) -> list:
        return floats(self._robot.velocity)

    def setVelocity(self, dq):
        self._robot.velocity = np.array(floats(dq, self.numLinks(), "velocity"))

    velocity = property(getVelocity, setVelocity)

    def getDOFPosition(self, index_or_name) -> float:
        return float(self._robot.config[_lookup(self._robot.links, index_or_name, "link")])

    def setDOFPosition(self, index_or_name, qi):
        """Set one DOF and update the transforms of that link and its descendants (from
        the current transforms of their parents, as Klamp't does)."""
        i = _lookup(self._robot.links, index_or_name, "link")
        q = self._robot.config.copy()
        q[i] = float(qi)
        self._robot.config = q
        _update_subtree(self._robot, i)

    def randomizeConfig(self, unboundedScale: float = 1.0):
        """A random configuration: uniform between finite limits, Laplacian (scale
        ``unboundedScale``) around 0 or the finite bound otherwise; updates the transforms."""
        rng = np.random.default_rng()
        lo, hi = self._robot.qmin, self._robot.qmax
        q = rng.uniform(np.where(np.isfinite(lo), lo, 0), np.where(np.isfinite(hi), hi, 0))
        lap = rng.laplace(0.0, unboundedScale, size=len(q))
        q = np.where(np.isinf(lo) & np.isinf(hi), lap, q)
        q = np.where(np.isinf(lo) & np.isfinite(hi), hi - np.abs(lap), q)
        q = np.where(np.isfinite(lo) & np.isinf(hi), lo + np.abs(lap), q)
        self.setConfig(q)

    # -- limits -----------------------------------------------------------------------------
    def _set_limit(self, name, values):
        setattr(self._robot, name, np.array(floats(values, self.numLinks(), name)))

    def _sync_driver_limits(self):
        """Klamp't 0.10 resets every driver's limits to those of its first link whenever
        the robot's limits are set."""
        r = self._robot
        for d in r.drivers:
            if d.dofs:
                k = d.dofs[0]
                d.qmin, d.qmax = float(r.qmin[k]), float(r.qmax[k])
                d.vmin, d.vmax = -float(r.vmax[k]), float(r.vmax[k])
                d.tmin, d.tmax = -float(r.tmax[k]), float(r.tmax[k])
                d.amin, d.amax = -float(r.amax[k]), float(r.amax[k])

    def getJointLimits(self) -> tuple:
        return (floats(self._robot.qmin), floats(self._robot.qmax))

    def setJointLimits(self, qmin, qmax):
        self._set_limit("qmin", qmin)
        self._set_limit("qmax", qmax)
        self._sync_driver_limits()

    def getVelocityLimits(self) -> list:
        return floats(self._robot.vmax)

    def setVelocityLimits(self, vmax):
        self._set_limit("vmax", vmax)
        self._robot.vmin = -self._robot.vmax
        self._sync_driver_limits()

    def getAccelerationLimits(self) -> list:
        return floats(self._robot.amax)

    def setAccelerationLimits(self, amax):
        self._set_limit("amax", amax)
        self._sync_driver_limits()

    def getTorqueLimits(self) -> list:
        return floats(self._robot.tmax)

    def setTorqueLimits(self, tmax):
        self._set_limit("tmax", tmax)
        self._sync_driver_limits()

    # -- self collision ---------------------------------------------------------------------
    def selfCollisionEnabled(self, link1: int, link2: int) -> bool:
        i, j = sorted((int(link1), int(link2)))
        return (i, j) in self._robot.self_collision_pairs

    def enableSelfCollision(self, link1: int, link2: int, value: bool):
        """Enable / disable the self-collision check of two links (enabling needs both
        links to have geometry, as in Klamp't)."""
        i, j = sorted((int(link1), int(link2)))
        pairs = self._robot.self_collision_pairs
        links = self._robot.links
        if value and i != j and not (_no_geometry(links[i]) or _no_geometry(links[j])):
            pairs.add((i, j))
        else:
            pairs.discard((i, j))

    def selfCollides(self) -> bool:
        """Whether any enabled pair of links collides at the current link transforms (those
        of the last ``setConfig``, or ``RobotModelLink.setTransform``). Needs
        ``pip install "roboio[collision]"``."""
        from ...collision import model_for
        r = self._robot
        return bool(model_for(r).collisions_at(np.ascontiguousarray(_state(r).T), first=True))

    # -- drivers <-> configuration ----------------------------------------------------------
    def configToDrivers(self, config) -> list:
        return floats(self._robot.drivers_from_config(floats(config, self.numLinks(), "config")))

    def configFromDrivers(self, driverValues) -> list:
        """Configuration with every driver set; DOFs no driver moves keep their current value."""
        return floats(self._robot.config_from_drivers(floats(driverValues, self.numDrivers())))

    def velocityToDrivers(self, velocities) -> list:
        v = floats(velocities, self.numLinks(), "velocity")
        out = []
        for d in self._robot.drivers:
            if d.type == "affine":
                vals = [v[k] / s for k, s in zip(d.dofs, d.scale) if s != 0]
                out.append(sum(vals) / len(vals) if vals else 0.0)
            elif d.type == "nonlinear":       # the leader link's velocity (its value's rate)
                out.append(v[d.leader if d.leader is not None else d.dofs[0]])
            else:
                out.append(v[d.dofs[0]])
        return out

    def velocityFromDrivers(self, driverVelocities) -> list:
        u = floats(driverVelocities, self.numDrivers())
        v = self.getVelocity()
        for d, val in zip(self._robot.drivers, u):
            _set_driver_dofs(d, v, val, with_offset=False)
        return v

    # -- metrics ----------------------------------------------------------------------------
    def interpolate(self, a, b, u: float) -> list:
        """Configuration ``u`` of the way from ``a`` to ``b`` (joint-aware)."""
        return interpolate_config(self._robot, a, b, float(u))

    def distance(self, a, b) -> float:
        """Joint-aware Euclidean distance between configurations."""
        return config_distance(self._robot, a, b)

    # -- dynamics (Klamp't's Lagrangian terms at the current configuration and velocity) ------
    def getCom(self) -> list:
        """Centre of mass of the robot at the current configuration (world frame)."""
        return floats(self._robot.com())

    def getComJacobian(self) -> np.ndarray:
        """3 x n Jacobian of the centre of mass."""
        return self._robot.com_jacobian()

    def getComJacobianCols(self, links) -> np.ndarray:
        """Columns ``links`` (indices or names) of :meth:`getComJacobian`."""
        cols = [_lookup(self._robot.links, k, "link") for k in links]
        return self._robot.com_jacobian()[:, cols]

    def getComVelocity(self) -> list:
        """Velocity of the centre of mass at the current velocity."""
        r = self._robot
        return floats(r.com_jacobian() @ r.velocity)

    def getMassMatrix(self) -> np.ndarray:
        """n x n mass matrix B(q) (welded links have rows too)."""
        return self._robot.mass_matrix()

    def getMassMatrixInv(self) -> np.ndarray:
        """Inverse of :meth:`getMassMatrix`."""
        return np.linalg.inv(self._robot.mass_matrix())

    def getCoriolisForces(self) -> list:
        """C(q, dq) dq: Coriolis and centrifugal torques at the current velocity."""
        r = self._robot
        return floats(r.coriolis_torques(r.config, r.velocity))

    def getCoriolisForceMatrix(self) -> np.ndarray:
        """C(q, dq) with ``C dq`` the Coriolis forces: Klamp't's choice, half the derivative
        of the Coriolis forces by the velocity (exact: they are quadratic in dq), for which
        ``dB/dt - 2 C`` is skew-symmetric."""
        r = self._robot
        n = r.num_links
        dq = np.asarray(r.velocity, dtype=float)
        E = np.eye(n)
        Q = np.repeat(np.asarray(r.config, float)[None], 2 * n, axis=0)
        V = np.concatenate([dq + E, dq - E])
        c = r.inverse_dynamics_batch(Q, V, np.zeros((2 * n, n)), gravity=(0.0, 0.0, 0.0),
                                     threads=1)
        return ((c[:n] - c[n:]) / 4.0).T.copy()

    def getGravityForces(self, g) -> list:
        """G(q): the torques that hold the robot against gravity ``g`` (e.g. (0, 0, -9.8))."""
        return floats(self._robot.gravity_torques(gravity=vec3(g, "gravity")))

    def torquesFromAccel(self, ddq) -> list:
        """Inverse dynamics without gravity, as Klamp't: ``B(q) ddq + C(q, dq) dq`` at the
        current configuration and velocity."""
        r = self._robot
        return floats(r.inverse_dynamics(r.config, r.velocity, floats(ddq, r.num_links, "ddq"),
                                         gravity=(0.0, 0.0, 0.0)))

    def accelFromTorques(self, t) -> list:
        """Forward dynamics without gravity: ``ddq`` with ``B ddq + C dq = t``. Unlike
        Klamp't, welded links are held (acceleration 0, their torque ignored): Klamp't
        solves with the full matrix and moves them (0.1 N m on ur5's welded ``ee_link``
        gives ~1e7 rad/s^2). Equal to Klamp't's result on robots without welded links."""
        r = self._robot
        return floats(r.forward_dynamics(r.config, r.velocity, floats(t, r.num_links, "torques"),
                                         gravity=(0.0, 0.0, 0.0)))

    def getKineticEnergy(self) -> float:
        """0.5 dq^T B(q) dq at the current configuration and velocity."""
        r = self._robot
        dq = np.asarray(r.velocity, dtype=float)
        return float(0.5 * dq @ r.mass_matrix() @ dq)

    def getTotalInertia(self) -> np.ndarray:
        """3 x 3 rotational inertia of the whole robot about its centre of mass, world axes."""
        return _rigid_sum(self._robot)[2]

    def getLinearMomentum(self) -> list:
        """Total linear momentum (kg m/s) at the current velocity."""
        r = self._robot
        return floats(r.total_mass * (r.com_jacobian() @ r.velocity))

    def getAngularMomentum(self) -> list:
        """Total angular momentum about the centre of mass (kg m^2/s), world frame. Klamp't
        0.10.1 returns only the sum of the links' spins ``R I R^T w`` and leaves out their
        orbits about the centre of mass, ``m (c - com) x v``; roboio includes them."""
        r = self._robot
        T = r.fk()
        dq = np.asarray(r.velocity, dtype=float)
        com = r.com()
        L = np.zeros(3)
        for i, link in enumerate(r.links):
            J = r.jacobian(i, link.com)
            w, v = J[:3] @ dq, J[3:] @ dq
            R = T[i, :3, :3]
            c = R @ link.com + T[i, :3, 3]
            Ik = 0.5 * (link.inertia + link.inertia.T)     # as the dynamics use it
            L += R @ Ik @ R.T @ w + link.mass * np.cross(c - com, v)
        return floats(L)

    # -- files ------------------------------------------------------------------------------
    def loadFile(self, fn: str) -> bool:
        """Replace this robot by the one in ``fn`` (.rob, .urdf, ...); False on failure."""
        loaded = load_file(fn, ("robot",))
        if loaded is None:
            return False
        _replace_robot(self._robot, loaded)
        _update_frames(self._robot)
        return True

    def saveFile(self, fn: str, geometryPrefix: str = None) -> bool:
        """Save with roboio's writer for ``fn``'s extension (e.g. ``.rob``, ``.urdf``).

        Geometry stays referenced by the files it came from; ``geometryPrefix`` (write the
        meshes too) is not supported."""
        if geometryPrefix is not None:
            raise NotSupportedError("RobotModel.saveFile(fn, geometryPrefix): saving link "
                                    "geometry to new files is not supported; omit geometryPrefix")
        return save_file(self._robot, fn)

    def __repr__(self):
        return f"<RobotModel {self._robot.name!r} ({self.numLinks()} links)>"


def _rigid_sum(robot):
    """Total mass, centre of mass and inertia about it (world axes) at the configuration."""
    T = robot.fk()
    m = np.array([l.mass for l in robot.links])
    c = np.einsum("nij,nj->ni", T[:, :3, :3], [l.com for l in robot.links]) + T[:, :3, 3]
    total = float(m.sum())
    com = m @ c / total if total > 0 else np.zeros(3)
    I = np.zeros((3, 3))
    for k, link in enumerate(robot.links):
        R = T[k, :3, :3]
        d = c[k] - com
        Ik = 0.5 * (link.inertia + link.inertia.T)     # as the dynamics use it
        I += R @ Ik @ R.T + m[k] * (d @ d * np.eye(3) - np.outer(d, d))
    return total, com, I


def _no_geometry(link) -> bool:
    g = link.geometry
    return g is None or g.is_empty


def _set_driver_dofs(d, vec, value, with_offset=True):
    """Set ``d``'s links in ``vec`` for driver value ``value`` (a nonlinear driver: its
    leader link only, a velocity of the coupled links needs the coupling's derivative)."""
    if d.type == "nonlinear":
        vec[d.leader if d.leader is not None else d.dofs[0]] = value
    elif d.type == "affine":
        for k, s, o in zip(d.dofs, d.scale, d.offset):
            vec[k] = (o if with_offset else 0.0) + s * value
    else:
        vec[d.dofs[0]] = value


def _replace_robot(dst, src):
    """Make ``dst`` hold ``src``'s content, so that every view of ``dst`` sees it."""
    limits = {name: getattr(src, name) for name in dst.LIMIT_NAMES + ("config", "velocity")}
    dst.set_links(src.links, **limits)
    for name in ("name", "joints", "drivers", "self_collision_pairs", "properties", "extras",
                 "warnings", "source"):
        setattr(dst, name, getattr(src, name))


class RobotModelLink:
    """A link of a :class:`RobotModel`: its constant model data (editable) and its current
    transform and Jacobians."""

    @classmethod
    def _view(cls, robot_view: RobotModel, index: int) -> "RobotModelLink":
        l = cls.__new__(cls)
        l._rv = robot_view
        l._index = index
        return l

    def __eq__(self, other):
        return isinstance(other, RobotModelLink) and other._link is self._link

    def __hash__(self):
        return id(self._link)

    @property
    def _robot(self):
        return self._rv._robot

    @property
    def _link(self):
        return self._robot.links[self._index]

    @property
    def _T(self) -> np.ndarray:
        return _state(self._robot).T[self._index]

    # -- identity -------------------------------------------------------------------------
    def getID(self) -> int:
        w = self._rv._world
        return -1 if w is None else w.id_of(self._link)

    def getName(self) -> str:
        return self._link.name

    def setName(self, name: str):
        self._link.name = str(name)

    name = property(getName, setName)

    def robot(self) -> RobotModel:
        """The link's robot."""
        return self._rv

    getRobot = robot

    def getIndex(self) -> int:
        return self._index

    index = property(getIndex)

    @property
    def robotIndex(self) -> int:
        return self._rv.index

    # -- structure --------------------------------------------------------------------------
    def getParent(self) -> int:
        """Index of the parent link (-1: the world)."""
        return int(self._link.parent)

    getParentIndex = getParent

    def setParent(self, index_or_link):
        if isinstance(index_or_link, RobotModelLink):
            if index_or_link._robot is not self._robot:
                raise ValueError("the parent must be a link of the same robot")
            index_or_link = index_or_link.getIndex()
        p = int(index_or_link)
        if not -1 <= p < self._robot.num_links or p == self._index:
            raise ValueError(f"invalid parent index {p}")
        self._link.parent = p

    setParentIndex = setParent

    def getParentLink(self):
        """The parent link, or None for a root link."""
        p = self.getParent()
        return None if p < 0 else RobotModelLink._view(self._rv, p)

    def setParentLink(self, l: "RobotModelLink"):
        self.setParent(l)

    parent = property(getParent, setParent)

    def getAxis(self) -> list:
        """Joint axis in the link frame (as given, not normalised)."""
        return floats(self._link.axis)

    def setAxis(self, axis):
        self._link.axis = vec3(axis, "axis")

    axis = property(getAxis, setAxis)

    def isPrismatic(self) -> bool:
        return self._link.joint_type == "prismatic"

    def isRevolute(self) -> bool:
        return self._link.joint_type == "revolute"

    def setPrismatic(self, prismatic: bool):
        self._link.joint_type = "prismatic" if prismatic else "revolute"

    prismatic = property(isPrismatic, setPrismatic)

    def getParentTransform(self) -> tuple:
        """``(R, t)`` of the link frame in the parent frame at the zero configuration."""
        return matrix_to_se3(self._link.parent_transform)

    def setParentTransform(self, R, t):
        self._link.parent_transform = se3_to_matrix(R, t)

    parentTransform = property(getParentTransform)

    # -- body -------------------------------------------------------------------------------
    def geometry(self) -> Geometry3D:
        """Reference to the link geometry (posed at the link's current transform)."""
        link, state_of = self._link, self._robot
        index = self._index
        return Geometry3D._view(link, lambda: _state(state_of).T[index])

    def appearance(self) -> Appearance:
        return Appearance._view(self._link, "link")

    def getMass(self) -> Mass:
        """Mass, COM (link frame) and inertia (about the COM) as a :class:`Mass`."""
        l = self._link
        return Mass.from_model(l.mass, l.com, l.inertia)

    def setMass(self, mass: Mass):
        l = self._link
        l.mass = mass.getMass()
        l.com = mass.getCom()
        l.inertia = mass.inertia_matrix()

    mass = property(getMass, setMass)

    # -- current transform ------------------------------------------------------------------
    def getTransform(self) -> tuple:
        """``(R, t)``: the link's current world transform (R column-major, Klamp't's so3)."""
        (a, b, c, x), (d, e, f, y), (g, h, i, z) = \
            _state(self._rv._robot).T[self._index, :3].tolist()
        return [a, d, g, b, e, h, c, f, i], [x, y, z]

    def setTransform(self, R, t):
        """Overwrite the current transform (no inverse kinematics; reset by setConfig)."""
        _state(self._robot).T[self._index] = se3_to_matrix(R, t)
        clear_pose_override(self._link)

    transform = property(getTransform)

    # (plain float arithmetic on the transform's rows: numpy's per-call overhead would
    # dominate these 3-vector products)
    def _rows(self):
        return _state(self._rv._robot).T[self._index, :3].tolist()

    def getWorldPosition(self, plocal) -> list:
        (a, b, c, x), (d, e, f, y), (g, h, i, z) = self._rows()
        u, v, w = _xyz(plocal)
        return [a * u + b * v + c * w + x, d * u + e * v + f * w + y, g * u + h * v + i * w + z]

    def getLocalPosition(self, pworld) -> list:
        (a, b, c, x), (d, e, f, y), (g, h, i, z) = self._rows()
        u, v, w = _xyz(pworld)
        u, v, w = u - x, v - y, w - z
        return [a * u + d * v + g * w, b * u + e * v + h * w, c * u + f * v + i * w]

    def getWorldDirection(self, vlocal) -> list:
        (a, b, c, _), (d, e, f, _), (g, h, i, _) = self._rows()
        u, v, w = _xyz(vlocal)
        return [a * u + b * v + c * w, d * u + e * v + f * w, g * u + h * v + i * w]

    def getLocalDirection(self, vworld) -> list:
        (a, b, c, _), (d, e, f, _), (g, h, i, _) = self._rows()
        u, v, w = _xyz(vworld)
        return [a * u + d * v + g * w, b * u + e * v + h * w, c * u + f * v + i * w]

    # -- Jacobians (from the current link transforms) -------------------------------------------
    def _jacobian(self, plocal) -> np.ndarray:
        """6 x n Jacobian from the *current* link transforms (which ``setTransform`` may
        have overridden, as in Klamp't), in the state's workspace buffer: copy to keep."""
        try:
            return _state(self._rv._robot).ws.jacobian(self._index, plocal)
        except ValueError:
            raise ValueError(f"point must have 3 entries, got {plocal!r}") from None

    def getJacobian(self, plocal) -> np.ndarray:
        """6 x n: rows 0-2 angular velocity, rows 3-5 velocity of the local point ``plocal``,
        world frame."""
        return self._jacobian(plocal).copy()

    def getPositionJacobian(self, plocal) -> np.ndarray:
        """3 x n Jacobian of the world position of the local point ``plocal``."""
        return self._jacobian(plocal)[3:].copy()

    def getOrientationJacobian(self) -> np.ndarray:
        """3 x n Jacobian of the link's angular velocity (world frame)."""
        return self._jacobian((0, 0, 0))[:3].copy()

    def getJacobianCols(self, plocal, links) -> np.ndarray:
        return self._jacobian(plocal)[:, list(links)]

    def getPositionJacobianCols(self, plocal, links) -> np.ndarray:
        return self._jacobian(plocal)[3:, list(links)]

    def getOrientationJacobianCols(self, links) -> np.ndarray:
        return self._jacobian((0, 0, 0))[:3, list(links)]

    def getPointVelocity(self, plocal) -> list:
        return floats(self.getPositionJacobian(plocal) @ self._robot.velocity)

    def getVelocity(self) -> list:
        return self.getPointVelocity((0, 0, 0))

    def getAngularVelocity(self) -> list:
        return floats(self.getOrientationJacobian() @ self._robot.velocity)

    def __repr__(self):
        return f"<RobotModelLink {self._index} {self.getName()!r} of {self._robot.name!r}>"


class RobotModelDriver:
    """A driver (actuator) of a :class:`RobotModel`."""

    @classmethod
    def _view(cls, robot_view: RobotModel, index: int) -> "RobotModelDriver":
        d = cls.__new__(cls)
        d._rv = robot_view
        d._index = index
        return d

    @property
    def _driver(self):
        return self._rv._robot.drivers[self._index]

    def robot(self) -> RobotModel:
        return self._rv

    def getName(self) -> str:
        return self._driver.name

    def setName(self, name: str):
        self._driver.name = str(name)

    name = property(getName, setName)

    @property
    def index(self) -> int:
        return self._index

    def getType(self) -> str:
        """``"normal"``, ``"affine"``, ``"translation"`` or ``"rotation"``."""
        return self._driver.type

    type = property(getType)

    def getAffectedLink(self) -> int:
        return self._driver.dofs[0]

    affectedLink = property(getAffectedLink)

    def getAffectedLinks(self) -> list:
        """The driven links; a translation / rotation driver also lists the link its force
        or moment acts on."""
        d = self._driver
        if d.type in ("translation", "rotation") and d.force_link >= 0:
            return list(d.dofs) + [d.force_link]
        return list(d.dofs)

    affectedLinks = property(getAffectedLinks)

    def getAffineCoeffs(self) -> tuple:
        """``(scale, offset)``, one entry per affected link."""
        d = self._driver
        if d.type == "affine":
            return (floats(d.scale), floats(d.offset))
        return ([1.0] * len(d.dofs), [0.0] * len(d.dofs))

    def getLimits(self) -> list:
        return [float(self._driver.qmin), float(self._driver.qmax)]

    def getVelocityLimits(self) -> list:
        return [float(self._driver.vmin), float(self._driver.vmax)]

    def getTorqueLimits(self) -> list:
        return [float(self._driver.tmin), float(self._driver.tmax)]

    def getAccelerationLimits(self) -> list:
        return [float(self._driver.amin), float(self._driver.amax)]

    def getValue(self) -> float:
        """The driver value of the current configuration."""
        return float(self._rv._robot.drivers_from_config()[self._index])

    def setValue(self, val: float):
        """Move the driven links (link transforms update only at the next setConfig)."""
        robot = self._rv._robot
        if self._driver.type == "nonlinear":     # its links follow the coupling of every input
            u = robot.drivers_from_config()
            u[self._index] = float(val)
            robot.config = robot.config_from_drivers(u)
            return
        q = self._rv.getConfig()
        _set_driver_dofs(self._driver, q, float(val))
        robot.config = np.array(q)

    value = property(getValue, setValue)

    def getVelocity(self) -> float:
        return self._rv.velocityToDrivers(self._rv.getVelocity())[self._index]

    def setVelocity(self, val: float):
        v = self._rv.getVelocity()
        _set_driver_dofs(self._driver, v, float(val), with_offset=False)
        self._rv._robot.velocity = np.array(v)

    velocity = property(getVelocity, setVelocity)

    def __repr__(self):
        return f"<RobotModelDriver {self._index} {self.getName()!r} ({self.getType()})>"


opengl_methods(RobotModel, ["drawGL"])
opengl_methods(RobotModelLink, ["drawLocalGL", "drawWorldGL"])
unsupported(RobotModel, ["getMassMatrixDeriv", "getMassMatrixTimeDeriv"],
    "roboio computes no derivatives of the mass matrix")
unsupported(RobotModel, ["interpolateDeriv"], "not implemented by roboio")
unsupported(RobotModel, ["mount", "reduce"],
            "building robots from sub-robots is done by roboio's .rob reader (mount lines)")
unsupported(RobotModel, ["sensor", "numSensors", "addSensor", "getSensors", "getSensorsDict"],
            "sensors are kept as the robot's 'sensors' property text, not modelled")
unsupported(RobotModelLink, [
    "getAcceleration", "getPointAcceleration", "getAngularAcceleration",
    "getPositionHessian", "getOrientationHessian"],
    "roboio computes first-order kinematics only (no accelerations or Hessians)")
