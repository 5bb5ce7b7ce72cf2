"""MuJoCo's generalised coordinates (``qpos``) and roboio's link vector.

A robot's MuJoCo joints are its joint groups in link order (as the MJCF reader builds them,
and as MuJoCo orders joints: body by body, depth first): a ``floating`` group is a free
joint (7 values: position, then the quaternion ``w x y z``), a ``ballandsocket`` group a
ball joint (4 values: quaternion) where its links move as one (:func:`is_ball_group`;
else one value per link), ``normal`` and ``spin`` links one value
each (hinge angle in radians, slide in metres), welded links none. roboio holds the
rotations of floating and ball joints as Klamp't does, Euler angles about z, y, x
(``R = Rz(a) Ry(b) Rx(c)``), so a quaternion maps to angles with the pitch in
[-pi/2, pi/2] and back to the same rotation.
"""
from __future__ import annotations

import numpy as np

from ..transforms import matrix_to_quat, matrix_to_rpy, quat_to_matrix, rpy_to_matrix

__all__ = ["qpos_layout", "qpos_slots", "is_ball_group", "zyx_quat", "config_from_qpos", "qpos_from_config",
           "keyframe_trajectory"]

_BALL_AXES = ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (1.0, 0.0, 0.0))


def is_ball_group(robot, joint) -> bool:
    """Whether the joint group ``joint`` of ``robot`` moves as a MuJoCo ball joint: a
    ``ballandsocket`` group of three revolute links, each the parent of the next and the
    first two with no other child, with unit axes z, y, x in their own frames and identity
    parent transforms for the second and third (all three rotate about one point): what
    the MJCF reader makes of a ``<joint type="ball">``. (The MJCF writer writes it as one
    when the first two links are also virtual: massless, without geometry.)"""
    if joint.type != "ballandsocket" or len(joint.links) != 3:
        return False
    links = [robot.links[i] for i in joint.links]
    if any(l.joint_type != "revolute" or not np.array_equal(np.asarray(l.axis, float), ax)
           for l, ax in zip(links, _BALL_AXES)):
        return False
    a, b, c = joint.links
    if links[1].parent != a or links[2].parent != b:
        return False
    if not all(np.array_equal(l.parent_transform, np.eye(4)) for l in links[1:]):
        return False
    return not any(l.parent in (a, b) for k, l in enumerate(robot.links) if k not in (b, c))


def zyx_quat(q, links) -> np.ndarray:
    """The unit quaternion ``(w, x, y, z)``, w >= 0, of ``R = Rz(q[links[0]]) Ry(q[links[1]])
    Rx(q[links[2]])`` (angles in radians): a ball joint's qpos, a free joint's rotation."""
    return matrix_to_quat(rpy_to_matrix([q[links[2]], q[links[1]], q[links[0]]]))


def qpos_layout(robot) -> list:
    """``[(kind, link indices)]`` in qpos order; kind is ``free``, ``ball`` or ``dof``."""
    out = []
    for j in sorted(robot.joints, key=lambda j: min(j.links) if j.links else -1):
        if j.type == "floating" and len(j.links) == 6:
            out.append(("free", list(j.links)))
        elif is_ball_group(robot, j):
            out.append(("ball", list(j.links)))
        elif j.type in ("normal", "spin"):
            out.extend(("dof", [i]) for i in j.links)
        elif j.type != "weld":
            out.extend(("dof", [i]) for i in j.links)
    return out


def qpos_slots(robot) -> dict:
    """``{link index: (kind, index of its joint's first value in qpos)}`` for every link a
    MuJoCo joint of :func:`qpos_layout` moves."""
    slots, at = {}, 0
    for kind, links in qpos_layout(robot):
        for i in links:
            slots[i] = (kind, at)
        at += _size(kind)
    return slots


def _size(kind: str) -> int:
    return {"free": 7, "ball": 4}.get(kind, 1)


def config_from_qpos(robot, qpos, q=None) -> np.ndarray:
    """The link vector of MuJoCo coordinates ``qpos`` (length: the robot's ``nq``); links no
    joint moves keep their value from ``q`` (default ``robot.config``)."""
    layout = qpos_layout(robot)
    qpos = np.asarray(qpos, float).reshape(-1)
    n = sum(_size(k) for k, _ in layout)
    if len(qpos) != n:
        raise ValueError(f"robot {robot.name!r} has {n} MuJoCo coordinates, not {len(qpos)}")
    out = np.array(robot.config if q is None else q, float, copy=True)
    a = 0
    for kind, idx in layout:
        if kind == "dof":
            out[idx[0]] = qpos[a]
        else:
            quat = qpos[a + 3:a + 7] if kind == "free" else qpos[a:a + 4]
            nq = np.linalg.norm(quat)
            if nq == 0:
                raise ValueError("zero quaternion in qpos")
            roll, pitch, yaw = matrix_to_rpy(quat_to_matrix(quat / nq))
            rot = idx[3:] if kind == "free" else idx
            out[rot[0]], out[rot[1]], out[rot[2]] = yaw, pitch, roll
            if kind == "free":
                out[idx[0]], out[idx[1]], out[idx[2]] = qpos[a:a + 3]
        a += _size(kind)
    return out


def qpos_from_config(robot, q=None) -> np.ndarray:
    """MuJoCo coordinates of the link vector ``q`` (default ``robot.config``); quaternions
    with w >= 0."""
    q = np.asarray(robot.config if q is None else q, float)
    out = []
    for kind, idx in qpos_layout(robot):
        if kind == "dof":
            out.append(q[idx[0]])
            continue
        if kind == "free":
            out.extend(q[idx[:3]])
        out.extend(zyx_quat(q, idx[3:] if kind == "free" else idx))
    return np.array(out, float)


def keyframe_trajectory(robot):
    """The MuJoCo keyframes the MJCF reader kept for ``robot`` (``robot.extras["mjcf"]
    ["keyframes"]``) as a :class:`~roboio.model.Trajectory` of link vectors, one milestone per
    key in the file's order (:func:`config_from_qpos` of its qpos); times: the keys' ``time``
    (s) when they do not decrease, else none (milestone k at k s, as an untimed path). None
    when the robot has no keyframes."""
    from .trajectory import Trajectory
    keys = robot.extras.get("mjcf", {}).get("keyframes") or []
    if not keys:
        return None
    milestones = np.array([config_from_qpos(robot, k["qpos"]) for k in keys])
    times = np.array([float(k["time"]) for k in keys])
    traj = Trajectory(times if np.all(np.diff(times) >= 0) else None, milestones)
    traj.source = robot.source
    return traj
