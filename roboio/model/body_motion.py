"""Choreonoid motions: :class:`BodyMotion` (``.seq``) made of :class:`Seq` components, and
:class:`PoseSeq` (``.pseq`` key poses).

Units: seconds, frames per second, radians and metres (joint values), metres (positions).
Link poses are stored canonically as ``x y z qw qx qy qz`` (world frame, quaternion w first)
whatever ``SE3Format`` the file used. Joint values are in **joint-id order** (the columns of
Choreonoid's ``JointDisplacement``), which is neither the link order of the body file nor the
link order of roboio's :class:`~roboio.model.Robot`; :meth:`BodyMotion.link_transforms` maps
them with the robot's joint-id table ``robot.joint_id_links`` (set by the Choreonoid ``.body``
reader).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .. import transforms as tf
from ..errors import Diagnostic
from ..limits import check_alloc

__all__ = ["Seq", "BodyMotion", "PoseSeq", "PoseKey", "IkLink", "ROLES", "resample_hold",
           "resample_linear"]

# role -> (seq type, content name written in format versions 2 and 4)
ROLES = {
    "link_position": ("MultiSE3Seq", "LinkPosition"),
    "joint_displacement": ("MultiValueSeq", "JointDisplacement"),
    "zmp": ("Vector3Seq", "ZMP"),
}
_WIDTH = {"MultiSE3Seq": 7, "Vector3Seq": 3}


class Seq:
    """One component of a body motion.

    ``type``: ``MultiValueSeq`` (``data`` (F, P)), ``MultiSE3Seq`` (``data`` (F, P, 7) as
    x y z qw qx qy qz), ``Vector3Seq`` (``data`` (F, 3)), or any other type, kept verbatim in
    ``raw`` (the component's YAML tree, strings) with ``data`` None. ``role`` is
    ``joint_displacement``, ``link_position``, ``zmp`` or None (an extra component, such as
    ``JointEffort``). ``times`` (F,) seconds when the file gave frame times, else None (frame i is
    at i / frame_rate). ``extra`` keeps the component's other keys as read, for the writer.
    """

    def __init__(self, type: str, content: Optional[str] = None, data=None, *,
                 frame_rate: Optional[float] = None, times=None, role: Optional[str] = None,
                 part_labels=None, is_root_relative: bool = False, se3_format: Optional[str] = None,
                 extra=None, raw=None, line=None):
        self.type = type
        self.content = content
        self.role = role
        self.frame_rate = None if frame_rate is None else float(frame_rate)
        self.data = None if data is None else np.asarray(data, dtype=float)
        self.times = None if times is None else np.asarray(times, dtype=float).reshape(-1)
        self.part_labels = None if part_labels is None else list(part_labels)
        self.is_root_relative = bool(is_root_relative)
        self.se3_format = se3_format
        self.extra = dict(extra or {})
        self.raw = raw
        self.line = line
        if self.data is not None:
            w = _WIDTH.get(type)
            if type == "MultiSE3Seq" and (self.data.ndim != 3 or self.data.shape[2] != 7):
                raise ValueError("MultiSE3Seq data must be (frames, parts, 7)")
            if type == "Vector3Seq" and (self.data.ndim != 2 or self.data.shape[1] != w):
                raise ValueError("Vector3Seq data must be (frames, 3)")
            if type == "MultiValueSeq" and self.data.ndim != 2:
                raise ValueError("MultiValueSeq data must be (frames, parts)")
            if self.times is not None and len(self.times) != len(self.data):
                raise ValueError(f"{len(self.times)} frame times for {len(self.data)} frames")

    @property
    def num_frames(self) -> int:
        return 0 if self.data is None else len(self.data)

    @property
    def num_parts(self) -> int:
        if self.data is None:
            return 0
        return 1 if self.type == "Vector3Seq" else self.data.shape[1]

    def frame_times(self) -> np.ndarray:
        """Time of every frame (s): the file's frame times, else ``i / frame_rate``."""
        if self.times is not None:
            return self.times
        if not self.frame_rate:
            raise ValueError(f"{self.type} {self.content}: no frame rate")
        return np.arange(self.num_frames) / self.frame_rate

    def copy(self) -> "Seq":
        import copy
        return copy.deepcopy(self)

    def __repr__(self):
        shape = None if self.data is None else self.data.shape
        return f"<Seq {self.type} {self.content} {shape}{' timed' if self.times is not None else ''}>"


class BodyMotion:
    """A Choreonoid body motion: a list of :class:`Seq` components.

    ``frame_rate`` / ``num_frames`` / ``times`` are those of the principal component (the
    link positions if present, else the joint displacements), as in Choreonoid.
    ``format_version`` is the version of the file read (None for a motion built in memory);
    ``extra`` keeps unknown top-level keys for the writer. ``body`` is the body model the
    motion applies to (a :class:`~roboio.model.Robot`, None after reading a ``.seq``, which
    does not name it); conversions to Klamp't trajectories need it.
    """

    def __init__(self, components=None, frame_rate: Optional[float] = None):
        self.components: list[Seq] = list(components or [])
        self._frame_rate = None if frame_rate is None else float(frame_rate)
        self.format_version = None
        self.extra: dict = {}
        self.warnings: list = []
        self.source: Optional[str] = None
        self.body = None

    # -- components --------------------------------------------------------------------
    def component(self, role: str) -> Optional[Seq]:
        """The component with this role (the last one, as Choreonoid keeps the last)."""
        found = None
        for c in self.components:
            if c.role == role:
                found = c
        return found

    def _data(self, role):
        c = self.component(role)
        return None if c is None else c.data

    @property
    def joint_displacement(self) -> Optional[np.ndarray]:
        """(F, P) joint values by joint id (rad / m), or None."""
        return self._data("joint_displacement")

    @property
    def link_positions(self) -> Optional[np.ndarray]:
        """(F, P, 7) link poses ``x y z qw qx qy qz`` by link index, or None."""
        return self._data("link_position")

    @property
    def zmp(self) -> Optional[np.ndarray]:
        """(F, 3) ZMP (m); root-relative when ``component('zmp').is_root_relative``."""
        return self._data("zmp")

    @property
    def principal(self) -> Optional[Seq]:
        return self.component("link_position") or self.component("joint_displacement")

    @property
    def frame_rate(self) -> Optional[float]:
        p = self.principal
        if p is not None and p.frame_rate:
            return p.frame_rate
        return self._frame_rate

    @frame_rate.setter
    def frame_rate(self, rate):
        self._frame_rate = None if rate is None else float(rate)
        for c in self.components:
            c.frame_rate = self._frame_rate

    @property
    def num_frames(self) -> int:
        p = self.principal
        if p is not None:
            return p.num_frames
        return max((c.num_frames for c in self.components), default=0)

    @property
    def times(self) -> Optional[np.ndarray]:
        """(F,) frame times (s) of frame-time data, else None (fixed rate)."""
        p = self.principal
        if p is not None:
            return p.times
        for c in self.components:
            if c.times is not None:
                return c.times
        return None

    @property
    def duration(self) -> float:
        """Seconds: last frame time for frame-time data, else num_frames / frame_rate."""
        t = self.times
        if t is not None:
            return float(t[-1]) if len(t) else 0.0
        return self.num_frames / self.frame_rate if self.frame_rate else 0.0

    # -- applying to a body ------------------------------------------------------------
    def robot_configs(self, robot, joint_map=None, frames=None) -> np.ndarray:
        """(F, num_links) configurations of ``robot``: ``robot.config`` with every joint id j
        < min(num_parts, num_joints) set from frame values (Choreonoid's rule, §6 of the spec).
        ``joint_map`` (joint id -> link index or name) defaults to the table of a Choreonoid
        ``.body`` model (``robot.joint_id_links``). ``frames`` (indices or a slice): only
        those frames."""
        dofs = _joint_dofs(robot, joint_map)
        idx = self._frame_indices(frames)
        Q = np.tile(np.asarray(robot.config, dtype=float), (len(idx), 1))
        jd = self.joint_displacement
        if jd is not None and len(jd):
            jd = _at_frames(jd, idx)
            n = min(jd.shape[1], len(dofs))
            cols = np.arange(n)
            ok = dofs[:n] >= 0
            Q[:, dofs[:n][ok]] = jd[:, cols[ok]]
        return Q

    def root_transforms(self, frames=None) -> Optional[np.ndarray]:
        """(F, 4, 4) root link poses from LinkPosition part 0, or None. ``frames``: only
        those."""
        lp = self.link_positions
        if lp is None or lp.shape[1] == 0:
            return None
        return _pose_matrices(_at_frames(lp[:, 0], self._frame_indices(frames)))

    def _frame_indices(self, frames) -> np.ndarray:
        """The frame indices ``frames`` (a slice, indices, or None: every frame) selects."""
        every = np.arange(self.num_frames)
        return every if frames is None else every[frames]

    def link_transforms(self, robot, joint_map=None, root=None, frames=None) -> np.ndarray:
        """(F, num_links, 4, 4) world transforms of every link of ``robot`` for every frame.

        Joint values by joint id (see :meth:`robot_configs`); the root link's pose from
        LinkPosition part 0 when present, else ``root`` (4x4, or (F, 4, 4) for every frame of
        the motion) when given, else the model's initial root pose (the ``.body`` root
        ``translation``/``rotation``; Choreonoid's sample walks contain no LinkPosition). When
        LinkPosition holds poses for more links, those override the computed ones (link index
        order of the ``.body``). ``frames`` (indices or a slice) computes only those frames
        (first axis of the result; the memory needed is that of those frames).
        """
        idx = self._frame_indices(frames)
        check_alloc(len(idx) * robot.num_links * 128.0 * 3,
                    f"link transforms of {len(idx):,} frames x {robot.num_links} links")
        root_link = _root_index(robot)
        Q = self.robot_configs(robot, joint_map, frames=idx)
        desired = self.root_transforms(frames=idx)
        if desired is None and root is not None:
            root = np.asarray(root, dtype=float)
            desired = root[idx] if root.ndim == 3 else np.broadcast_to(root, (len(idx), 4, 4))
        chain = floating_base(robot)
        if desired is not None and chain is not None:
            set_floating_base(robot, chain, Q, desired)
        T = robot.fk_batch(Q)
        if desired is not None and chain is None:
            corr = desired @ tf.inverse_transform(T[:, root_link])
            T = corr[:, None] @ T
        lp = self.link_positions
        if lp is not None and lp.shape[1] > 1:
            order = robot.source_link_order
            if order is None:
                raise ValueError("LinkPosition has several parts but the robot has no Choreonoid "
                                 "link index table (load it from a .body file)")
            poses = _pose_matrices(_at_frames(lp, idx))
            for k in range(1, min(lp.shape[1], len(order))):
                T[:, order[k]] = poses[:, k]
        return T

    def link_pose_columns(self, robot, links=None, frames=None) -> np.ndarray:
        """``(L, 7, F)``: the links' world poses of :meth:`link_transforms` as columns
        (:func:`~roboio.kinematics.pose_vectors.pose_columns`: x, y, z in metres, then the
        unit quaternion qw, qx, qy, qz, qw >= 0), the same bits. ``links``: indices (None:
        every link); ``frames`` as in :meth:`link_transforms`. Without poses in the motion
        (no LinkPosition) they are the FK of :meth:`robot_configs`, computed straight into
        columns (:meth:`~roboio.model.Robot.fk_pose_columns`)."""
        if self.link_positions is None:
            return robot.fk_pose_columns(self.robot_configs(robot, frames=frames), links)
        from ..kinematics.pose_vectors import pose_columns
        T = self.link_transforms(robot, frames=frames)
        return pose_columns(T if links is None else T[:, links])

    # -- resampling --------------------------------------------------------------------
    def resampled(self, rate: Optional[float] = None, method: str = "hold") -> "BodyMotion":
        """A fixed-rate copy at ``rate`` frames/s (default: the motion's own rate).

        ``method="hold"`` is Choreonoid's import of frame-time data exactly: sample s goes to
        frame ``int(t_s * rate)`` (truncation), frames before the first sample take the default
        (0, identity pose), gaps repeat the previous frame, later samples overwrite earlier ones
        in the same frame. ``method="linear"`` (roboio's own) interpolates values and positions
        linearly and rotations by slerp at ``t_k = k / rate`` up to the last sample time,
        holding the first sample before it. Components kept verbatim (unknown types) are copied.
        """
        if method not in ("hold", "linear"):
            raise ValueError(f"unknown resampling method {method!r} (hold or linear)")
        out = BodyMotion(frame_rate=rate or self.frame_rate)
        out.format_version = self.format_version
        out.extra = dict(self.extra)
        out.body = self.body
        for c in self.components:
            r = rate or c.frame_rate or self.frame_rate
            if c.data is None:
                out.components.append(c.copy())
                out.warnings.append(Diagnostic(f"component {c.type} {c.content} copied without "
                                               "resampling", kind="changed"))
                continue
            if not r:
                raise ValueError(f"component {c.type} {c.content}: no frame rate to resample to")
            t = c.times if c.times is not None else c.frame_times()
            if method == "hold":
                data = resample_hold(t, c.data, r, _default_frame(c),
                                     None if c.times is not None else (c.frame_rate or self.frame_rate))
            else:
                data = resample_linear(t, c.data, r, c.type == "MultiSE3Seq")
            n = c.copy()
            n.data, n.times, n.frame_rate = data, None, float(r)
            out.components.append(n)
        return out

    # -- description -------------------------------------------------------------------
    def summary(self) -> dict:
        comps = []
        for c in self.components:
            d = {"type": c.type, "content": c.content, "role": c.role, "frames": c.num_frames,
                 "parts": c.num_parts, "frame_rate": c.frame_rate, "frame_times": c.times is not None}
            if c.type == "Vector3Seq":
                d["root_relative"] = c.is_root_relative
            if c.se3_format:
                d["se3_format"] = c.se3_format
            if c.data is None:
                d["kept_verbatim"] = True
            comps.append(d)
        return {"kind": "body_motion", "format_version": self.format_version,
                "frame_rate": self.frame_rate, "num_frames": self.num_frames,
                "duration": self.duration, "timed": self.times is not None, "components": comps}

    def copy(self) -> "BodyMotion":
        import copy
        return copy.deepcopy(self)

    def __repr__(self):
        return (f"<BodyMotion {self.num_frames} frames at {self.frame_rate} fps, "
                f"{len(self.components)} components>")


# -- helpers ----------------------------------------------------------------------------------

def _at_frames(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Frames ``idx`` of component ``a`` (frames first) within the motion's frame count: a
    component shorter than the motion repeats its last frame, as in Choreonoid."""
    if len(a) == 0:
        raise ValueError("component has no frames")
    return a[np.minimum(idx, len(a) - 1)]


def _pose_matrices(p: np.ndarray) -> np.ndarray:
    """(..., 7) x y z qw qx qy qz -> (..., 4, 4)."""
    return tf.make_transform(tf.quat_to_matrix(p[..., 3:7]), p[..., :3])


def _root_index(robot) -> int:
    """The root body link: from a Choreonoid model's table, else the link a floating base
    moves (Klamp't layout), else link 0."""
    if robot.source_link_order:
        return int(robot.source_link_order[0])
    for j in robot.joints:
        if j.type == "floating" and j.base == -1:
            return j.links[-1]
    return 0


_FLOATING_AXES = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (0, 1, 0), (1, 0, 0))


def floating_base(robot):
    """The six links of the root's floating base in Klamp't's layout (x, y, z prismatic, then
    yaw, pitch, roll revolute, no offsets after the first), or None."""
    root = _root_index(robot)
    for j in robot.joints:
        if j.type == "floating" and len(j.links) == 6 and j.links[-1] == root:
            ok = all(robot.links[i].joint_type == ("prismatic" if k < 3 else "revolute")
                     and np.allclose(robot.links[i].axis, _FLOATING_AXES[k])
                     and (k == 0 or np.allclose(robot.links[i].parent_transform, np.eye(4)))
                     for k, i in enumerate(j.links))
            return j.links if ok else None
    return None


def set_floating_base(robot, chain, Q, poses) -> None:
    """Write root link poses (F, 4, 4), world frame, into the floating-base DOFs of ``Q``."""
    base = robot.links[chain[0]].parent_transform
    parent = robot.links[chain[0]].parent
    if parent >= 0:
        raise ValueError("the floating base is attached to another link")
    local = poses if np.allclose(base, np.eye(4)) else tf.inverse_transform(base) @ poses
    rpy = tf.matrix_to_rpy(local[:, :3, :3])
    Q[:, chain[0]:chain[0] + 3] = local[:, :3, 3]
    Q[:, chain[3]], Q[:, chain[4]], Q[:, chain[5]] = rpy[:, 2], rpy[:, 1], rpy[:, 0]


def _joint_dofs(robot, joint_map) -> np.ndarray:
    """Robot DOF index for every joint id (-1 where the id has no joint)."""
    if joint_map is None:
        if robot.joint_id_links is None:
            raise ValueError(f"robot {robot.name!r} has no Choreonoid joint-id table; load it from "
                             "a .body file or pass joint_map={joint id: link name or index}")
        return np.asarray(robot.joint_id_links, dtype=np.int64)
    items = joint_map.items() if isinstance(joint_map, dict) else enumerate(joint_map)
    items = list(items)
    n = max((int(j) for j, _ in items), default=-1) + 1
    out = np.full(n, -1, dtype=np.int64)
    for j, link in items:
        out[int(j)] = -1 if link is None else robot.link_index(link)
    return out


def _default_frame(c: Seq) -> np.ndarray:
    if c.type == "MultiSE3Seq":
        d = np.zeros(c.data.shape[1:])
        d[:, 3] = 1.0
        return d
    return np.zeros(c.data.shape[1:])


def _check_frames(frames: float, data: np.ndarray, rate: float) -> None:
    """Refuse a resampling whose result would exceed ``max_frames`` (frames x values) or
    ``max_alloc_bytes`` before allocating it (a frame time of 1e12 s, a rate of 1e9/s)."""
    values = int(np.prod(data.shape[1:], dtype=np.int64)) if data.ndim > 1 else 1
    count = frames * max(values, 1)
    check_alloc(count * 8.0 * 2 + frames * 24.0, f"resampling at {rate:g} frames/s "
                f"({frames:.4g} frames of {values} values)", count=count, counter="frames",
                unit="values")


def resample_hold(times, data, rate: float, default=None, from_rate=None) -> np.ndarray:
    """Choreonoid's frame-time import (``AbstractSeq`` readers): frame ``int(t * rate)``.

    ``times`` (S,) seconds (must be >= 0), ``data`` (S, ...) samples; returns (N, ...) with
    N = max index + 1. Frames before the first sample are ``default`` (zeros); a frame
    created by growing the sequence copies the previous last frame; a sample falling into an
    existing frame overwrites it (the last one wins).

    ``from_rate``: the samples are the frames of a fixed-rate sequence at that rate (no
    frame times in the file), held: new frame ``k`` is the last sample at or before its time
    ``k / rate``, sample ``floor(k * from_rate / rate)`` (so a motion resampled at its own
    rate is unchanged, and one at half its rate keeps every second frame; times computed as
    ``s / from_rate * rate`` would send frame 4051 of a 500 fps motion to frame 4050)."""
    times = np.asarray(times, dtype=float)
    data = np.asarray(data, dtype=float)
    if np.any(times < 0) or not np.all(np.isfinite(times)):
        raise ValueError("frame times must be finite and >= 0")
    if len(times) == 0:
        return data[:0].copy()
    _check_frames(float(times.max()) * float(rate) + 1, data, rate)
    if from_rate:
        n = int(np.floor((len(times) - 1) * (float(rate) / float(from_rate)) + 1e-9)) + 1
        src = np.floor(np.arange(n) * (float(from_rate) / float(rate)) + 1e-9).astype(np.int64)
        return data[np.minimum(src, len(data) - 1)].copy()
    idx = (times * float(rate)).astype(np.int64)          # C truncation (t >= 0)
    default = np.zeros(data.shape[1:]) if default is None else np.asarray(default, dtype=float)
    n = int(idx.max()) + 1
    if np.all(np.diff(idx) >= 0):
        k = np.arange(n)
        src = np.searchsorted(idx, k, side="right") - 1
        out = np.where((src >= 0).reshape((-1,) + (1,) * (data.ndim - 1)),
                       data[np.maximum(src, 0)], default)
        return out
    out: list = []
    for i, sample in zip(idx.tolist(), data):
        if i >= len(out):
            fill = out[-1] if out else default
            out.extend([fill] * (i + 1 - len(out)))
        out[i] = sample
    return np.array(out, dtype=float)


def resample_linear(times, data, rate: float, se3: bool = False) -> np.ndarray:
    """Interpolate samples at ``k / rate`` for k = 0 .. int(t_last * rate): linear for values
    and positions, slerp for the quaternions of (S, P, 7) SE3 data; clamped at both ends."""
    times = np.asarray(times, dtype=float)
    data = np.asarray(data, dtype=float)
    if len(times) == 0:
        return data[:0].copy()
    if np.any(np.diff(times) < 0):
        order = np.argsort(times, kind="stable")
        times, data = times[order], data[order]
    if not np.isfinite(times[-1]):
        raise ValueError("frame times must be finite")
    _check_frames(float(times[-1]) * float(rate) + 1, data, rate)
    n = int(times[-1] * float(rate)) + 1
    t = np.arange(n) / float(rate)
    i = np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 1)
    j = np.minimum(i + 1, len(times) - 1)
    span = times[j] - times[i]
    u = np.divide(t - times[i], span, out=np.zeros_like(t), where=span > 0)
    u = np.clip(u, 0.0, 1.0)
    shape = (-1,) + (1,) * (data.ndim - 1)
    out = data[i] * (1 - u).reshape(shape) + data[j] * u.reshape(shape)
    exact = u == 0
    out[exact] = data[i][exact]
    if se3:
        q0 = data[i][..., 3:7]
        q1 = data[j][..., 3:7]
        q0 = q0 / np.linalg.norm(q0, axis=-1, keepdims=True)
        q1 = q1 / np.linalg.norm(q1, axis=-1, keepdims=True)
        uu = np.broadcast_to(u[:, None], q0.shape[:-1])
        q = tf.slerp(q0, q1, uu)
        out[..., 3:7] = np.where(exact[:, None, None], q0, q)
    return out


# -- pose sequences (.pseq) -------------------------------------------------------------------

@dataclass
class IkLink:
    """An IK link of a key pose: ``translation`` (3,) world position (m), ``rotation`` (3, 3)
    world orientation, ``index`` = Choreonoid link index (depth-first order)."""

    name: str
    index: int = -1
    translation: Optional[np.ndarray] = None
    rotation: Optional[np.ndarray] = None
    is_base_link: bool = False
    is_stationary_point: bool = False
    is_touching: bool = False
    parting_direction: Optional[np.ndarray] = None
    contact_points: Optional[np.ndarray] = None
    is_slave: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def transform(self) -> np.ndarray:
        return tf.make_transform(self.rotation, self.translation)


@dataclass
class PoseKey:
    """One key pose at ``time`` (s). ``joints`` joint ids and ``q`` their values (rad / m,
    never degrees), same order; ``type`` is ``Pose`` or ``PronunSymbol``."""

    time: float
    type: str = "Pose"
    name: str = ""
    joints: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    q: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sp_joints: list = field(default_factory=list)
    ik_links: list = field(default_factory=list)
    zmp: Optional[np.ndarray] = None
    is_zmp_stationary_point: bool = False
    max_transition_time: float = 0.0
    extra: dict = field(default_factory=dict)
    line: Optional[int] = None

    def base_link(self) -> Optional[IkLink]:
        for lk in self.ik_links:
            if lk.is_base_link:
                return lk
        return None

    def joint_values(self, num_joints: Optional[int] = None) -> np.ndarray:
        """Values by joint id (NaN for ids this key does not set); sized by the last listed id
        + 1 as Choreonoid does, or ``num_joints``."""
        n = num_joints if num_joints is not None else (int(self.joints[-1]) + 1 if len(self.joints) else 0)
        out = np.full(n, np.nan)
        ok = self.joints < n
        out[self.joints[ok]] = self.q[ok]
        return out


class PoseSeq:
    """A Choreonoid pose sequence: key poses (:class:`PoseKey`) read as data. Choreonoid's
    interpolation into a motion (splines, IK, foot adjustments) is not reproduced."""

    def __init__(self, name: str = "", target_body: str = "", keys=None):
        self.name = name
        self.target_body = target_body
        self.keys: list[PoseKey] = list(keys or [])
        self.extra: dict = {}
        self.warnings: list = []
        self.source: Optional[str] = None

    @property
    def times(self) -> np.ndarray:
        return np.array([k.time for k in self.keys], dtype=float)

    def key_link_transforms(self, robot, key: int | PoseKey, joint_map=None) -> np.ndarray:
        """(num_links, 4, 4) world transforms of ``robot`` at a key pose: joints the key does
        not set keep ``robot.config``; the root pose from the key's base IK link
        (``isBaseLink``) when it is the robot's root, else the model's initial root pose."""
        k = self.keys[key] if isinstance(key, (int, np.integer)) else key
        dofs = _joint_dofs(robot, joint_map)
        q = np.array(robot.config, dtype=float)
        vals = k.joint_values()
        for j in range(min(len(vals), len(dofs))):
            if dofs[j] >= 0 and not np.isnan(vals[j]):
                q[dofs[j]] = vals[j]
        T = robot.fk(q)
        base = k.base_link()
        order = robot.source_link_order
        if base is not None and base.translation is not None and base.rotation is not None:
            idx = order[base.index] if order is not None and 0 <= base.index < len(order) else None
            if idx is None and base.name in robot.link_names:
                idx = robot.link_index(base.name)
            if idx is not None:
                corr = base.transform @ tf.inverse_transform(T[idx])
                T = corr @ T
        return T

    def summary(self) -> dict:
        ids = sorted({int(j) for k in self.keys for j in k.joints})
        return {"kind": "pose_sequence", "name": self.name, "target_body": self.target_body,
                "keys": len(self.keys),
                "start_time": float(self.keys[0].time) if self.keys else 0.0,
                "end_time": float(self.keys[-1].time) if self.keys else 0.0,
                "joint_ids": ids[:1] + ids[-1:] if ids else [],
                "ik_links": sorted({lk.name for k in self.keys for lk in k.ik_links})}

    def __repr__(self):
        return f"<PoseSeq {self.name!r} for {self.target_body!r}: {len(self.keys)} keys>"
