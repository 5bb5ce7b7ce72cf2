"""The robot model: Klamp't's one-degree-of-freedom-per-link tree.

A :class:`Robot` is a list of :class:`Link` in topological order (every parent index is
smaller than its child's), each link one revolute or prismatic DOF. Fixed joints are
links whose joint group is a ``weld``; a free-floating base is six links (x, y, z
translations, then rotations about z, y, x) grouped by a ``floating`` joint. Limits and the
initial configuration are arrays of length ``num_links``.

Structure is separate from state: :meth:`Robot.fk` and friends take configurations as
arguments and never modify the robot. The robot stays editable; editing a link's
kinematic fields (``parent``, ``joint_type``, ``axis``, ``parent_transform``) or adding a
link invalidates the compiled kinematic cache; editing ``mass``, ``com`` or ``inertia``
invalidates the compiled dynamics (see docs/dynamics.md).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

from ..kinematics import backends as _backends
from .geometry import Appearance, Geometry

__all__ = ["Robot", "Link", "Joint", "Driver", "JOINT_TYPES", "DRIVER_TYPES"]

JOINT_TYPES = ("normal", "spin", "weld", "floating", "floatingplanar", "ballandsocket")
JOINT_DOFS = {"normal": 1, "spin": 1, "weld": 1, "floating": 6, "floatingplanar": 3,
              "ballandsocket": 3}
DRIVER_TYPES = ("normal", "affine", "translation", "rotation", "nonlinear")

_KINEMATIC_FIELDS = {"parent", "joint_type", "axis", "parent_transform"}
_INERTIAL_FIELDS = {"mass", "com", "inertia"}
_EARTH = (0.0, 0.0, -9.81)


class Link:
    """One link and the single DOF that moves it relative to its parent.

    ``parent_transform`` (4x4) is the link frame in the parent frame at q = 0; the joint
    moves the link by ``Rot(axis, q*|axis|)`` (revolute) or ``Trans(q*axis)`` (prismatic)
    after it, in the link frame. ``axis`` is kept as given (not normalised), as Klamp't does.
    ``mass`` (kg), ``com`` (m, link frame) and ``inertia`` (kg m^2, about the COM, link axes).
    ``geometry`` is the collision geometry (what Klamp't uses); ``visual_geometry`` a
    separate visual geometry where the format has one (None: draw ``geometry``).
    ``joint_name``: the source file's name of the joint that moves (or, for a weld,
    attaches) this link -- a URDF/MJCF/COLLADA/OpenRAVE joint name, a Choreonoid
    ``jointName`` -- or None where the source names none (a ``.rob``, GraspIt!).
    """

    def __init__(self, name: str, parent: int = -1, joint_type: str = "revolute", axis=(0, 0, 1),
                 parent_transform=None, mass: float = 1.0, com=(0, 0, 0), inertia=None,
                 geometry: Optional[Geometry] = None, appearance: Optional[Appearance] = None,
                 joint_name: Optional[str] = None):
        if joint_type not in ("revolute", "prismatic"):
            raise ValueError(f"joint_type must be 'revolute' or 'prismatic', not {joint_type!r}")
        # what __setattr__ does, without its per-field dispatch (readers build many links)
        d = self.__dict__
        d["_robot"] = None
        d["name"] = name
        d["index"] = -1
        d["parent"] = int(parent)
        d["joint_type"] = joint_type
        d["axis"] = _frozen(axis, (3,))
        d["parent_transform"] = _frozen(_EYE4 if parent_transform is None else parent_transform,
                                        (4, 4))
        d["mass"] = float(mass)
        d["com"] = _frozen(com, (3,))
        d["inertia"] = _frozen(_EYE3 if inertia is None else inertia, (3, 3))
        d["geometry"] = geometry
        d["visual_geometry"] = None
        d["joint_name"] = joint_name
        d["appearance"] = appearance if appearance is not None else Appearance()
        d["extras"] = {}

    def __setattr__(self, key, value):
        if key == "joint_type" and value not in ("revolute", "prismatic"):
            raise ValueError(f"joint_type must be 'revolute' or 'prismatic', not {value!r}")
        if key in ("axis", "com"):
            value = _frozen(value, (3,))
        elif key == "parent_transform":
            value = _frozen(value, (4, 4))
        elif key == "inertia":
            value = _frozen(value, (3, 3))
        elif key == "mass":
            value = float(value)
        object.__setattr__(self, key, value)
        if self._robot is not None:
            if key in _KINEMATIC_FIELDS:
                self._robot._invalidate()
            elif key in _INERTIAL_FIELDS:
                self._robot._dyn = None

    @property
    def is_prismatic(self) -> bool:
        return self.joint_type == "prismatic"

    def joint_transform(self, q: float) -> np.ndarray:
        """The link frame relative to its parent's at joint value ``q`` (4x4):
        ``parent_transform`` times the joint's motion (:meth:`joint_motion`). One link's
        step of :meth:`Robot.fk`, for code that needs a single link or a short chain without
        compiling the robot."""
        from ..transforms import compose
        # (element-wise product: writers build file numbers from it, the same on any machine)
        return compose(np.asarray(self.parent_transform, float), self.joint_motion(q))

    def joint_motion(self, q: float) -> np.ndarray:
        """The joint's motion at value ``q`` (4x4, in the joint frame, i.e. after
        ``parent_transform``): a rotation by ``q * |axis|`` radians about ``axis``
        (revolute; the axis is not normalised, as in Klamp't) or a translation by
        ``q * axis`` metres (prismatic)."""
        from ..transforms import axis_angle_to_matrix, make_transform, vector_norm
        w = np.asarray(self.axis, float)
        if self.joint_type == "prismatic":
            return make_transform(np.eye(3), float(q) * w)
        n = float(vector_norm(w))
        return make_transform(axis_angle_to_matrix(w / n, float(q) * n) if n else np.eye(3),
                              np.zeros(3))

    def __repr__(self):
        return f"<Link {self.index} {self.name!r} parent={self.parent} {self.joint_type}>"


_collision = None


def _collision_model(robot):
    """The compiled self-collision model of ``robot`` (roboio.collision, imported on first
    use: ``import roboio`` stays without the engine)."""
    global _collision
    if _collision is None:
        from ..collision.robot import model_for
        _collision = model_for
    return _collision(robot)


def _frozen(value, shape):
    """A read-only float copy: in-place edits would bypass cache invalidation, so assign.
    An array that is already read-only float64 of that shape is shared, not copied (no one
    can change it; readers hand the same constants to many links)."""
    if value.__class__ is np.ndarray and not value.flags.writeable and value.dtype == np.float64 \
            and value.shape == shape:
        return value
    a = np.array(value, dtype=float)
    if a.shape != shape:
        a = a.reshape(shape)
    a.setflags(write=False)
    return a


# defaults of Link (copied by _frozen on assignment; readers build many links)
_EYE4 = _frozen(np.eye(4), (4, 4))
_EYE3 = _frozen(np.eye(3), (3, 3))


@dataclass
class Joint:
    """A Klamp't joint group: ``type`` over ``links`` (indices, root to tip).

    ``normal``/``spin``/``weld`` cover one link; ``floating`` six, ``floatingplanar`` and
    ``ballandsocket`` three. ``base`` is the parent of the first link (-1 = world).
    """

    type: str
    links: list
    base: int = -1

    def __post_init__(self):
        if self.type not in JOINT_TYPES:
            raise ValueError(f"unknown joint type {self.type!r}")
        self.links = [int(i) for i in self.links]

    @property
    def link(self) -> int:
        """The last (tip) link, as Klamp't's ``joint TYPE LINK BASE`` names it."""
        return self.links[-1]


@dataclass
class Driver:
    """An actuator. ``normal``: drives ``dofs[0]`` directly. ``affine``: one value ``u`` moves
    every ``dofs[k]`` to ``offset[k] + scale[k] * u``. ``translation``/``rotation``: force or
    moment on link ``force_link`` whose value is ``dofs[0]``. ``nonlinear``: ``coupling``
    (:class:`roboio.model.coupling.Coupling`) gives the values of ``dofs`` as functions of
    the values of the drivers ``coupling.inputs`` (this one among them): OpenRAVE/COLLADA
    mimic formulas, spherical joints' rotation vectors, MJCF polynomial couplings.

    ``name`` is the source's name of the actuated DOF (URDF: the actuated joint, the one the
    others mimic; OpenRAVE/COLLADA: the joint; Choreonoid: ``jointName``; GraspIt!:
    ``dof<k>``; ``.rob``: Klamp't's link-named drivers). ``leader``: the index of the link
    whose value *is* the driver's value (scale 1, offset 0): the actuated joint's link, which
    a reader sets where the source says which joint is commanded; when not given, the first
    DOF the driver sets to exactly its value (else its first DOF).

    Limits are on the driver value: ``qmin/qmax``, ``vmin/vmax``, ``tmin/tmax`` (torque),
    ``amin/amax``. Gains and friction as Klamp't keeps them per driver.
    """

    name: str
    type: str = "normal"
    dofs: list = field(default_factory=list)
    scale: list = field(default_factory=list)
    offset: list = field(default_factory=list)
    qmin: float = -np.inf
    qmax: float = np.inf
    vmin: float = -np.inf
    vmax: float = np.inf
    tmin: float = -np.inf
    tmax: float = np.inf
    amin: float = -np.inf
    amax: float = np.inf
    servo_p: float = 0.0
    servo_i: float = 0.0
    servo_d: float = 0.0
    dry_friction: float = 0.0
    viscous_friction: float = 0.0
    force_link: int = -1
    extras: dict = field(default_factory=dict)
    leader: Optional[int] = None
    coupling: Optional[object] = None

    def __post_init__(self):
        if self.type not in DRIVER_TYPES:
            raise ValueError(f"unknown driver type {self.type!r}")
        self.dofs = [int(i) for i in self.dofs]
        if self.type == "nonlinear":
            n = len(getattr(self.coupling, "functions", None) or ()) or (
                3 if self.coupling is not None and hasattr(self.coupling, "basis") else None)
            if self.coupling is None or n != len(self.dofs):
                raise ValueError("a nonlinear driver needs a coupling with one function per dof")
        if self.type == "affine":
            if not self.scale:
                self.scale = [1.0] * len(self.dofs)
            if not self.offset:
                self.offset = [0.0] * len(self.dofs)
            if not (len(self.scale) == len(self.offset) == len(self.dofs)):
                raise ValueError("affine driver needs one scale and one offset per dof")
        if self.leader is None:
            self.leader = self.direct_dof()
        else:
            self.leader = int(self.leader)

    def direct_dof(self) -> Optional[int]:
        """The first DOF this driver sets to exactly its own value (scale 1, offset 0; a
        normal driver's only DOF), else its first DOF; None without DOFs."""
        if self.type == "affine":
            for i, s, o in zip(self.dofs, self.scale, self.offset):
                if float(s) == 1.0 and float(o) == 0.0:
                    return i
        return self.dofs[0] if self.dofs else None


class PairSet(set):
    """A set whose ``version`` counts its changes in place, so that what was compiled from it
    (the self-collision model) is checked for staleness without comparing every pair."""

    __slots__ = ("version",)

    def __init__(self, *args):
        super().__init__(*args)
        self.version = 0

    def __reduce__(self):
        return (PairSet, (list(self),))

    def __repr__(self):
        return repr(set(self))


def _counting(name):
    base = getattr(set, name)

    def method(self, *args):
        self.version += 1
        return base(self, *args)
    method.__name__ = name
    method.__doc__ = base.__doc__
    return method


for _name in ("add", "discard", "remove", "pop", "clear", "update", "difference_update",
              "intersection_update", "symmetric_difference_update", "__ior__", "__iand__",
              "__isub__", "__ixor__"):
    setattr(PairSet, _name, _counting(_name))


class Robot:
    """A kinematic tree of one-DOF links (see the module docstring)."""

    LIMIT_NAMES = ("qmin", "qmax", "vmin", "vmax", "amax", "tmax", "pmax")

    def __init__(self, name: str = "Robot"):
        self.name = name
        self._links: list[Link] = []
        self.qmin = np.zeros(0)
        self.qmax = np.zeros(0)
        self.vmin = np.zeros(0)
        self.vmax = np.zeros(0)
        self.amax = np.zeros(0)
        self.tmax = np.zeros(0)
        self.pmax = np.zeros(0)
        self.config = np.zeros(0)
        self.velocity = np.zeros(0)
        self.joints: list[Joint] = []
        self.drivers: list[Driver] = []
        self.self_collision_pairs = set()      # a PairSet (see the property)
        self.properties: dict = {}        # Klamp't robot properties (sensors, controller, ...)
        self.manipulators: list = []      # Manipulator (end effectors: OpenRAVE, COLLADA)
        self.sensors: list = []           # AttachedSensor (OpenRAVE, COLLADA)
        # How the source model numbers links and joints where that is not roboio's link
        # order (a Choreonoid body, whose motions address joints by id): the robot link of
        # each link index of the source, and of each joint id (-1: no link has that id).
        self.source_link_order: Optional[list] = None
        self.joint_id_links: Optional[list] = None
        self.extras: dict = {}            # what a format keeps for its own writer
        self.warnings: list = []
        self.source: Optional[str] = None
        self._kin = None
        self._dyn = None

    # -- structure --------------------------------------------------------------------
    @property
    def links(self) -> list[Link]:
        return self._links

    @property
    def num_links(self) -> int:
        return len(self._links)

    @property
    def num_dofs(self) -> int:
        return len(self._links)

    @property
    def link_names(self) -> list[str]:
        return [l.name for l in self._links]

    @property
    def parents(self) -> np.ndarray:
        return np.array([l.parent for l in self._links], dtype=np.int64)

    def link(self, key) -> Link:
        """A link by index or by name (the first link of that name)."""
        return self._links[self.link_index(key)]

    def link_index(self, key) -> int:
        if isinstance(key, (int, np.integer)):
            if not -len(self._links) <= key < len(self._links):
                raise IndexError(f"robot {self.name!r} has no link {key}")
            return int(key) % len(self._links)
        if isinstance(key, Link):
            return key.index
        for l in self._links:
            if l.name == key:
                return l.index
        raise KeyError(f"robot {self.name!r} has no link named {key!r}")

    def add_link(self, link: Link, *, qmin=-np.inf, qmax=np.inf, vmin=None, vmax=np.inf,
                 amax=np.inf, tmax=np.inf, pmax=np.inf, q=0.0) -> Link:
        """Append ``link`` (its parent must already exist) with its limits; returns it."""
        if link.parent >= len(self._links) or link.parent < -1:
            raise ValueError(f"link {link.name!r}: parent {link.parent} does not exist yet")
        link.index = len(self._links)
        object.__setattr__(link, "_robot", self)
        self._links.append(link)
        vmin = -vmax if vmin is None else vmin
        for name, v in zip(("qmin", "qmax", "vmin", "vmax", "amax", "tmax", "pmax", "config",
                            "velocity"), (qmin, qmax, vmin, vmax, amax, tmax, pmax, q, 0.0)):
            setattr(self, name, np.append(getattr(self, name), float(v)))
        self._invalidate()
        return link

    def set_links(self, links: Sequence[Link], **limits) -> None:
        """Replace all links at once; ``limits`` gives arrays for ``qmin``, ``qmax``, ...,
        ``config`` (defaults: unbounded, zero configuration)."""
        n = len(links)
        self._links = []
        for i, l in enumerate(links):
            l.index = i
            object.__setattr__(l, "_robot", self)
            self._links.append(l)
        defaults = {"qmin": -np.inf, "qmax": np.inf, "vmax": np.inf, "amax": np.inf,
                    "tmax": np.inf, "pmax": np.inf, "config": 0.0, "velocity": 0.0}
        for name, d in defaults.items():
            v = limits.get(name)
            setattr(self, name, np.full(n, d) if v is None else np.array(v, dtype=float).reshape(n))
        v = limits.get("vmin")
        self.vmin = -self.vmax if v is None else np.array(v, dtype=float).reshape(n)
        self._invalidate()

    def _invalidate(self):
        self._kin = None
        self._dyn = None

    def validate_structure(self) -> None:
        """Raise ValueError unless parents are in range and form a forest without cycles."""
        self.kinematics  # compiling checks it

    # -- kinematics -------------------------------------------------------------------
    @property
    def kinematics(self):
        """The compiled :class:`roboio.kinematics.KinematicModel` (cached until edited)."""
        if self._kin is None:
            from ..kinematics import KinematicModel
            prism = np.array([l.joint_type == "prismatic" for l in self._links], dtype=bool)
            self._kin = KinematicModel(
                self.parents,
                np.array([l.parent_transform for l in self._links]).reshape(-1, 4, 4),
                np.array([l.axis for l in self._links]).reshape(-1, 3), prism)
        return self._kin

    def _q(self, q):
        return self.config if q is None else q

    def fk(self, q=None, out=None) -> np.ndarray:
        """World transforms of every link, ``(num_links, 4, 4)``; ``q`` defaults to ``config``;
        ``out``: a C-contiguous float64 ``(num_links, 4, 4)`` array to write into."""
        kin = self._kin if self._kin is not None else self.kinematics
        return kin.fk(self.config if q is None else q, out)

    def _link_selection(self, links):
        if links is None or isinstance(links, np.ndarray):
            return links
        return [self.link_index(k) if isinstance(k, (str, Link)) else k for k in links]

    def fk_batch(self, Q, out=None, links=None, dtype=None, threads=None) -> np.ndarray:
        """``(N, L, 4, 4)`` world transforms for ``Q`` of shape ``(N, num_links)``.

        ``links``: a subset of links (names or indices; default every link, L = num_links);
        ``dtype``: float64 (default) or float32; ``out``: a C-contiguous array of the result's
        shape and dtype to reuse; ``threads``: threads to split the rows over (default: every
        core). See :meth:`roboio.kinematics.KinematicModel.fk_batch`."""
        return self.kinematics.fk_batch(Q, out=out, links=self._link_selection(links),
                                        dtype=dtype, threads=threads)

    def fk_pose_columns(self, Q, links=None, threads=None) -> np.ndarray:
        """``(L, 7, N)``: for every configuration of ``Q`` ``(N, num_links)``, each link's
        position (m, world frame) and unit quaternion ``(x, y, z, qw, qx, qy, qz)``, qw >= 0,
        as columns over the configurations (the layout of a table); the bits of
        :meth:`fk_batch` followed by :func:`~roboio.kinematics.pose_vectors.pose_columns`.
        See :meth:`roboio.kinematics.KinematicModel.fk_pose_columns`."""
        return self.kinematics.fk_pose_columns(Q, links=self._link_selection(links), threads=threads)

    def fk_chunks(self, Q, chunk_size: int = 65536, links=None, dtype=None):
        """Yield ``(start, frames)`` chunk by chunk, in bounded memory (a reused buffer: copy
        what you keep). See :meth:`roboio.kinematics.KinematicModel.fk_chunks`."""
        return self.kinematics.fk_chunks(Q, chunk_size=chunk_size,
                                         links=self._link_selection(links), dtype=dtype)

    def jacobian(self, link, point=(0, 0, 0), q=None) -> np.ndarray:
        """``(6, num_links)``: rows 0-2 angular velocity, rows 3-5 linear velocity of
        ``point`` (in ``link``'s frame), both in world coordinates."""
        return self.kinematics.jacobian(self._q(q), self.link_index(link), point)

    def jacobian_batch(self, Q, link, point=(0, 0, 0), out=None, threads=None) -> np.ndarray:
        """``(N, 6, num_links)`` Jacobians for every row of ``Q`` (into ``out`` when given),
        on ``threads`` threads (default: every core)."""
        return self.kinematics.jacobian_batch(Q, self.link_index(link), point, out=out,
                                              threads=threads)

    # -- dynamics (docs/dynamics.md) ---------------------------------------------------------
    # Klamp't's conventions: one value per link (welded links too), tau = M ddq + C dq + G,
    # gravity a world vector in m/s^2. space="drivers": velocities, accelerations and torques
    # per joint of ``joint_space`` (affine drivers through their Jacobian), q still per link.
    @property
    def dynamics(self):
        """The compiled :class:`roboio.kinematics.dynamics.DynamicModel` (the kinematic model
        plus every link's mass, COM and inertia; cached until any of them is edited)."""
        if self._dyn is None:
            from ..kinematics.dynamics import DynamicModel
            links = self._links
            self._dyn = DynamicModel(
                self.kinematics, [l.mass for l in links],
                np.array([l.com for l in links]).reshape(-1, 3),
                np.array([l.inertia for l in links]).reshape(-1, 3, 3))
        return self._dyn

    @property
    def total_mass(self) -> float:
        """Sum of the links' masses (kg)."""
        return float(sum(l.mass for l in self._links))

    def mass_matrix(self, q=None, space: str = "links", out=None) -> np.ndarray:
        """Joint-space inertia matrix at ``q`` (default ``config``): ``(num_links,
        num_links)``, or ``(joints, joints)`` with ``space="drivers"``. ``out``: a
        C-contiguous float64 array of the link-space shape to write into."""
        d = self._dyn if self._dyn is not None else self.dynamics
        ev = d._ev if d._ev_backend is _backends._active else d.evaluator()
        M = ev.mass_matrix(self.config if q is None else q, out)
        if space != "links":
            D = self._space_jacobian(space)
            return D.T @ M @ D
        return M

    def inverse_dynamics(self, q, dq, ddq, gravity=_EARTH, space: str = "links",
                         out=None) -> np.ndarray:
        """Torques (N m; N on prismatic links) ``M(q) ddq + C(q, dq) dq + G(q)`` that give
        accelerations ``ddq`` at velocities ``dq`` (recursive Newton-Euler); ``gravity``:
        world vector, m/s^2, ``(0, 0, 0)`` for none."""
        d = self._dyn if self._dyn is not None else self.dynamics
        ev = d._ev if d._ev_backend is _backends._active else d.evaluator()
        if space != "links":
            D = self._space_jacobian(space)
            return D.T @ ev.inverse_dynamics(q, D @ np.asarray(dq, float),
                                             D @ np.asarray(ddq, float), gravity, None)
        return ev.inverse_dynamics(q, dq, ddq, gravity, out)

    def gravity_torques(self, q=None, gravity=_EARTH, space: str = "links") -> np.ndarray:
        """``G(q)``: the torques that hold the robot still against ``gravity`` (Klamp't's
        ``getGravityForces``)."""
        zero = np.zeros(self.num_links)
        tau = self.dynamics.inverse_dynamics(self._q(q), zero, zero, gravity)
        return self._space_torques(tau, space)

    def coriolis_torques(self, q, dq, space: str = "links") -> np.ndarray:
        """``C(q, dq) dq``: Coriolis and centrifugal torques (Klamp't's
        ``getCoriolisForces``); ``dq`` per joint with ``space="drivers"``."""
        if space != "links":
            dq = self._space_jacobian(space) @ np.asarray(dq, float)
        zero = np.zeros(self.num_links)
        tau = self.dynamics.inverse_dynamics(q, dq, zero, (0.0, 0.0, 0.0))
        return self._space_torques(tau, space)

    def forward_dynamics(self, q, dq, tau, gravity=_EARTH, space: str = "links") -> np.ndarray:
        """Accelerations that torques ``tau`` give at ``(q, dq)`` (articulated bodies), welded
        links held: their acceleration is 0 and their torque is ignored (Klamp't's
        ``accelFromTorques`` moves them). ``space="drivers"``: ``tau`` and ``dq`` per joint,
        the result per joint (``D^T M D dduu = tau - D^T (C dq + G)``, solved directly).
        ValueError naming a moving link that carries no mass or inertia."""
        if space != "links":
            from ..kinematics.dynamics import solve_spd
            D = self._space_jacobian(space)
            dql = D @ np.asarray(dq, float)
            h = D.T @ self.dynamics.inverse_dynamics(q, dql, np.zeros(self.num_links), gravity)
            M = D.T @ self.dynamics.mass_matrix(q) @ D
            return solve_spd(M, np.asarray(tau, float).reshape(len(h)) - h,
                             list(self.joint_space.names))
        try:
            return self.dynamics.forward_dynamics(q, dq, tau, gravity, self._welded())
        except ValueError as e:
            m = re.match(r"link (\d+) moves no mass", str(e))
            if m is None:
                raise
            raise ValueError(f"link {self._links[int(m.group(1))].name!r} moves no mass or "
                             "inertia: forward dynamics is undefined there") from None

    def com(self, q=None) -> np.ndarray:
        """Centre of mass ``(3,)`` in world coordinates (m); zeros for a massless robot."""
        return self.dynamics.com(self._q(q))

    def com_jacobian(self, q=None, space: str = "links") -> np.ndarray:
        """``(3, num_links)`` Jacobian of the centre of mass (``(3, joints)`` with
        ``space="drivers"``)."""
        J = self.dynamics.com_jacobian(self._q(q))
        return J if space == "links" else J @ self._space_jacobian(space)

    def mass_matrix_batch(self, Q, out=None, threads=None) -> np.ndarray:
        """``(N, num_links, num_links)`` mass matrices of every row of ``Q`` (into ``out`` when
        given), on ``threads`` threads (default: every core)."""
        return self.dynamics.mass_matrix_batch(Q, out=out, threads=threads)

    def inverse_dynamics_batch(self, Q, dQ, ddQ, gravity=_EARTH, out=None,
                               threads=None) -> np.ndarray:
        """``(N, num_links)`` torques for the rows of ``Q``, ``dQ``, ``ddQ``."""
        return self.dynamics.inverse_dynamics_batch(Q, dQ, ddQ, gravity, out=out,
                                                    threads=threads)

    def _welded(self) -> np.ndarray:
        w = np.zeros(self.num_links, dtype=bool)
        for j in self.joints:
            if j.type == "weld":
                w[j.links] = True
        return w

    def _space_jacobian(self, space: str) -> np.ndarray:
        if space != "drivers":
            raise ValueError(f"space must be 'links' or 'drivers', not {space!r}")
        return self.joint_space.jacobian()

    def _space_torques(self, tau, space: str) -> np.ndarray:
        return tau if space == "links" else self._space_jacobian(space).T @ tau

    # -- collision (extra roboio[collision]; see roboio.collision) ------------------------
    def self_collisions(self, q=None) -> list:
        """Sorted colliding link pairs ``(i, j)``, i < j, among ``self_collision_pairs`` at
        configuration ``q`` (default ``config``), as Klamp't's ``selfCollides`` decides:
        geometries within the sum of their margins. Needs the collision engine
        (``pip install "roboio[collision]"``)."""
        return _collision_model(self).collisions(self._q(q))

    def self_collides(self, q=None) -> bool:
        """Whether any pair of ``self_collision_pairs`` collides at ``q`` (stops at the
        first); Klamp't's ``RobotModel.selfCollides``."""
        return _collision_model(self).collides(self._q(q))

    def self_distance(self, q=None) -> tuple:
        """``(distance, (i, j))``: the closest pair of ``self_collision_pairs`` at ``q`` and
        its distance in metres, margins subtracted (<= 0 when colliding); ``(inf, None)``
        when no pair is checked."""
        return _collision_model(self).distance(self._q(q))

    def self_collides_batch(self, Q, workers: int = 1) -> np.ndarray:
        """``(N,)`` bool: :meth:`self_collides` for every row of ``Q`` (N, num_links);
        ``workers`` > 1 spreads the rows over that many processes."""
        return _collision_model(self).collides_batch(Q, workers)

    def self_distance_batch(self, Q, workers: int = 1) -> np.ndarray:
        """``(N,)``: the distance of :meth:`self_distance` for every row of ``Q``."""
        return _collision_model(self).distance_batch(Q, workers)

    # -- drivers ----------------------------------------------------------------------
    def config_from_drivers(self, u, q=None) -> np.ndarray:
        """Configuration with every driver set to ``u`` (length ``len(drivers)``); DOFs no
        driver moves keep their value from ``q`` (default ``config``)."""
        u = np.asarray(u, dtype=float).reshape(len(self.drivers))
        out = np.array(self._q(q), dtype=float, copy=True)
        for d, val in zip(self.drivers, u):
            if d.type == "affine":
                for k, dof in enumerate(d.dofs):
                    out[dof] = d.offset[k] + d.scale[k] * val
            elif d.type == "nonlinear":
                vals = d.coupling.evaluate([u[i] for i in d.coupling.inputs])
                for dof, v in zip(d.dofs, vals):
                    out[dof] = v
            else:
                out[d.dofs[0]] = val
        return out

    def drivers_from_config(self, q=None) -> np.ndarray:
        """Driver values for configuration ``q``; an affine driver reads the mean over its
        DOFs of ``(q - offset) / scale`` (Klamp't's rule); a nonlinear driver its coupling's
        inverse where it has one (a spherical joint's rotation vector), else its leader
        link's value."""
        q = np.asarray(self._q(q), dtype=float)
        out = np.empty(len(self.drivers))
        for i, d in enumerate(self.drivers):
            if d.type == "affine":
                vals = [(q[dof] - o) / s for dof, s, o in zip(d.dofs, d.scale, d.offset) if s != 0]
                out[i] = float(np.mean(vals)) if vals else 0.0
            elif d.type == "nonlinear":
                inv = d.coupling.invert([q[k] for k in d.dofs]) if i in d.coupling.inputs else None
                out[i] = float(inv[d.coupling.inputs.index(i)]) if inv is not None else \
                    q[d.leader if d.leader is not None else d.dofs[0]]
            else:
                out[i] = q[d.dofs[0]]
        return out

    @property
    def joint_space(self):
        """The configuration as users name it: one value per actuated joint (a driver), in
        ``drivers`` order (:class:`roboio.model.joint_space.JointSpace`: names, limits,
        conversion to and from the link vector)."""
        from .joint_space import JointSpace
        return JointSpace(self)

    def config_from_joints(self, values=None, q=None, **named) -> np.ndarray:
        """Link configuration from joint values: ``values`` one per joint in
        ``joint_space.names`` order, or a mapping ``{name: value}``; keywords add named
        values. Joints not given, and links no joint moves, keep their value from ``q``
        (default ``config``). Radians and metres."""
        js = self.joint_space
        if values is None or named:
            if values is not None and not isinstance(values, dict):
                q = js.to_config(values, q)
                values = None
            values = {**(values or {}), **named}
        return js.to_config(values, q)

    def config_from_qpos(self, qpos, q=None) -> np.ndarray:
        """The link vector of MuJoCo's generalised coordinates ``qpos`` (free and ball
        joints as quaternions; see :mod:`roboio.model.qpos`); links no joint moves keep
        their value from ``q`` (default ``config``)."""
        from .qpos import config_from_qpos
        return config_from_qpos(self, qpos, q)

    def qpos_from_config(self, q=None) -> np.ndarray:
        """MuJoCo's generalised coordinates of the link vector ``q`` (default ``config``):
        the inverse of :meth:`config_from_qpos`."""
        from .qpos import qpos_from_config
        return qpos_from_config(self, q)

    def driver(self, key) -> Driver:
        if isinstance(key, (int, np.integer)):
            return self.drivers[key]
        for d in self.drivers:
            if d.name == key:
                return d
        raise KeyError(f"robot {self.name!r} has no driver named {key!r}")

    # -- misc -------------------------------------------------------------------------
    def joint_of_link(self, index: int) -> Optional[Joint]:
        for j in self.joints:
            if index in j.links:
                return j
        return None

    def joints_of_links(self) -> dict:
        """``{link index: joint}``: :meth:`joint_of_link` of every link at once (links in no
        joint are absent), for code that asks it of every link (linear, not quadratic)."""
        out: dict = {}
        for j in self.joints:
            for k in j.links:
                out.setdefault(k, j)
        return out

    def copy(self) -> "Robot":
        import copy
        return copy.deepcopy(self)

    @property
    def self_collision_pairs(self) -> "PairSet":
        """Link index pairs ``(i, j)``, i < j, checked for self-collision (a set; assigning
        any iterable of pairs stores a :class:`PairSet` of them)."""
        return self.__dict__["_pairs"]

    @self_collision_pairs.setter
    def self_collision_pairs(self, pairs) -> None:
        self.__dict__["_pairs"] = pairs if type(pairs) is PairSet else PairSet(pairs)

    def __repr__(self):
        return f"<Robot {self.name!r}: {self.num_links} links, {len(self.drivers)} drivers>"
