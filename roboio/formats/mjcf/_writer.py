"""roboio World / Robot -> MJCF (MuJoCo's XML model format).

Mapping (the rules are documented for users in ``docs/mjcf.md``):

* One ``<body>`` per link, named after it, placed by its ``parent_transform`` (``pos`` +
  ``quat``; a matrix that is not a rotation is written as the nearest rotation and the
  resulting FK change is measured and reported).
* Moving links get a ``hinge`` (revolute) or ``slide`` (prismatic) joint named as the
  source names it (:func:`roboio.formats.naming.joint_names`; else after the link), at the
  body origin, with the *unit* axis: MuJoCo normalises axes, so a link whose
  axis has length ``k != 1`` has MuJoCo coordinate ``qpos = k q`` (ranges, forces and
  couplings are scaled to match and the report says so). ``range`` + ``limited="true"``
  where both limits are finite. Welded links (joint group ``weld``) and zero axes get no
  joint. ``spin`` joints are unlimited hinges.
* A Klamp't floating base (joint group ``floating`` over the six root links x, y, z, yaw,
  pitch, roll) becomes one ``<freejoint>`` on its sixth link (the real body); the five
  virtual links have no body. A ``ballandsocket`` group MuJoCo can hold as a ball
  (:func:`roboio.model.qpos.is_ball_group`: links about z, y, x turning about one point;
  the first two virtual: massless, without geometry) becomes one ``<joint type="ball">`` named after the group's source
  joint, on the last link's body, or on the body of the last link's only child when that
  is welded to it by a translation (the ball's anchor ``pos``: what the MJCF reader makes
  of a ball with a ``pos``); its ``range`` from the link extra ``ball_range`` (a cone, in
  radians); its qpos a quaternion (:func:`roboio.model.qpos.zyx_quat` of the Euler angles).
  Other multi-link joint groups (``floatingplanar``, other ``ballandsocket`` groups,
  floating chains not at the root) keep one joint per link; their massless intermediate
  links are folded into the last link's body as extra joints. So are runs of one-DOF links
  a translation apart whose links but the last are massless and bare (what a reading makes
  of a MuJoCo body with several joints): one body, its joints at anchors that read back
  exactly (:meth:`_RobotPlan._fold_chains`).
* Drivers -> one actuator each on the joint of the driver's leader (``position``, the
  default, ``motor`` or none: :mod:`._actuators_out`), but none for a driver an MJCF reading
  found no actuator for (:func:`._actuators.unactuated`); affine drivers coupling several DOFs ->
  ``<equality><joint polycoef>`` (follower = offset + ratio x the actuated DOF, in MuJoCo
  coordinates; the leader is the driver's actuated joint, ``Driver.leader``); polynomial
  couplings likewise, with their polynomial.
* Mass, COM and inertia -> ``<inertial>`` (``fullinertia``, or ``diaginertia`` + ``quat``
  where MuJoCo's own eigen-decomposition could misjudge it); see :mod:`._inertia` for what
  is changed so that MuJoCo accepts it.
* Geometry: primitives as MuJoCo geoms where one is exact, meshes as ``<mesh>`` assets
  (written by :class:`roboio.formats.mesh_export.MeshExport`); a link with separate visual
  geometry gets visual geoms (class ``visual``: no contacts, group 2) and collision geoms
  (class ``collision``, group 3).
* Self-collision: ``<contact><exclude>`` for every pair of links with geometry that
  roboio does not check and MuJoCo's own filters (same weld body, parent/child) would not
  skip.
* Worlds: every robot, rigid object (a body with a free joint) and terrain (a static geom,
  or a static body of class ``terrain`` for several geoms or a scenery body an MJCF reading
  made a terrain of, at the terrain's pose) in one model; names made unique where they clash (``report.renamed``: "links", "joints",
  "objects"). Top-level bodies in the order an MJCF reading recorded
  (``world.extras["mjcf"]["bodies"]``), else terrains, rigid objects, robots; qpos (the
  ``initial`` key and kept keyframes) in the joints' document order, MuJoCo's.
* ``robot.config`` -> ``<keyframe><key name="initial">`` when it differs from MuJoCo's
  zero configuration.
"""
from __future__ import annotations

import math
import os
import re
from collections import Counter, defaultdict
from typing import Optional

import numpy as np
from lxml import etree

from ...errors import OutputError
from ...model import Group, PointCloud, Primitive, RigidObject, Robot, Terrain, TriangleMesh, World
from ...model.qpos import is_ball_group, qpos_slots, zyx_quat
from ...transforms import (axis_angle_to_matrix, compose, det3, make_transform, matrix_to_quat, matrix_to_rpy, symmetric_eigen3,
                           transform_points, vector_norm)
from ..affine import link_poses, nearest_rotation
from .. import static_mass
from ..fileio import fmt_float
from ..fixed_point import exact_params, stable_params
from ..fk_change import FK_SAMPLES, fk_change, fk_loss_kind
from ..mesh_export import MeshExport
from ..naming import Namespace, joint_names, say_unwritten
from . import _inertia
from ._actuators_out import Actuators, actuator_name, lead_index
from ._actuators import KEPT_KINDS, TRANSMISSIONS, as_read, unactuated
from ._tendons import kept_tendons, tendon_element
from ._reader import KEPT_SIZES
from ._tree import SITE_SIZE
from ._unread import FRICTION
from ._geoms import plane_geom, primitive_geom
from ._orient import MJ_EPS, inertia_matrix, normvec, quat_matrix

__all__ = ["MjcfWriter", "mujoco_reads", "MAX_STL_FACES", "FK_SAMPLES"]

MAX_STL_FACES = 200000     # MuJoCo's STL decoder refuses larger files
_VIRTUAL = (("prismatic", (1, 0, 0)), ("prismatic", (0, 1, 0)), ("prismatic", (0, 0, 1)),
            ("revolute", (0, 0, 1)), ("revolute", (0, 1, 0)), ("revolute", (1, 0, 0)))
_MUJOCO_RGBA = (0.5, 0.5, 0.5, 1.0)   # a geom's colour when it names none
# a mesh thinner than this (relative to its width) has no convex hull for MuJoCo: it holds
# vertices as 32-bit floats and centres them before qhull, which then finds the points
# coplanar (KUKA KR150/KR210 COLLADA meshes 3e-9 thick refused the whole model)
_FLAT_REL = 1e-6


def mujoco_reads(path: str) -> bool:
    """Whether MuJoCo reads the mesh file ``path`` as it is: binary STL of 1 to 200000
    triangles, Wavefront OBJ (see :func:`_obj_normals_complete`), or MuJoCo's own MSH."""
    if path.endswith(".msh"):
        return True
    if path.endswith((".obj", ".OBJ")):           # MuJoCo's decoders match these spellings only
        return _obj_normals_complete(path)
    if not path.endswith((".stl", ".STL")):
        return False
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(84)
    except OSError:
        return False
    if len(head) < 84:
        return False
    n = int.from_bytes(head[80:84], "little")
    return 1 <= n <= MAX_STL_FACES and 84 + 50 * n == size


def _obj_normals_complete(path: str) -> bool:
    """MuJoCo refuses ("mesh_facenormal normal index out of bounds") an OBJ that declares
    normals (``vn``) where a face corner names none, or one beyond them (pybullet_data's
    table_square: two faces with normals, ten without); files without ``vn`` are read."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    normals = len(re.findall(rb"^[ \t]*vn[ \t]", data, re.M))
    if normals == 0:
        return True
    for line in re.findall(rb"^[ \t]*f[ \t]([^\n]*)", data, re.M):
        for corner in line.split(b"#")[0].split():
            parts = corner.split(b"/")
            try:
                k = int(parts[2]) if len(parts) >= 3 else 0
            except ValueError:
                return False
            if k == 0 or not -normals <= k <= normals:
                return False
    return True


def _fmt(values) -> str:
    return " ".join(fmt_float(float(v) + 0.0) for v in values)     # + 0.0: no "-0"


def _quat(R) -> str:
    """The quaternion of rotation ``R`` that the MJCF reader turns back into ``R`` exactly
    where one exists (write -> read -> write is then a fixed point)."""
    return _fmt(stable_params(R, matrix_to_quat, quat_matrix, _QUAT_ULPS, wider=_QUAT_WIDER))


_QUAT_ULPS = (1, 1, 1, 1)
_QUAT_WIDER = (2, 2, 2, 2)


def _free_frame(r: Robot, i: int, q=None) -> tuple:
    """``(R, t)``: rotation and position of the free-joint body ``i`` (the sixth link of a
    floating group) at configuration ``q`` (default ``r.config``). ``R`` is chosen so that
    writing and reading it is a fixed point: the reader turns the written ``quat`` into
    Euler angles of the six links, whose rotation, written again, must be ``R`` itself (else
    every rewrite moves the body by an ulp). That round trip, repeated from the
    configuration's own rotation, walks an ulp or two a step until it repeats: the rotation
    it repeats, or the least of those it cycles through (the same from any of them)."""
    q = np.array(r.config if q is None else q, dtype=float)
    T = link_poses(r, q)[i]
    R = nearest_rotation(T[:3, :3])[0]
    group = r.joint_of_link(i)
    if group is None or group.type != "floating" or len(group.links) != 6 or group.links[-1] != i:
        return R, T[:3, 3]
    rz, ry, rx = group.links[3:]
    seen: list = []
    for _ in range(64):
        key = tuple(R.ravel())
        if key in seen:
            return np.array(min(seen[seen.index(key):])).reshape(3, 3), T[:3, 3]
        seen.append(key)
        roll, pitch, yaw = matrix_to_rpy(_read_rotation(R))
        q[rz], q[ry], q[rx] = yaw, pitch, roll
        R = nearest_rotation(link_poses(r, q)[i][:3, :3])[0]
    return R, T[:3, 3]


def _read_rotation(R) -> np.ndarray:
    """The rotation the MJCF reader builds from the ``quat`` :func:`_set_quat` writes for
    ``R`` (``R`` itself where an exact quaternion exists)."""
    if np.array_equal(R, np.eye(3)):
        return np.eye(3)
    return quat_matrix(np.array([float(v) for v in _quat(R).split()]))


# what an MJCF reading keeps that the writer gives back: on a link, sites, the inertia's
# quat + diaginertia, a ball's cone, a joint's ref; on a robot, <option>, <size>, keys,
# tendons, actuators of no driver and the world's sites (not welds and connects)
_WRITTEN_LINK_MJCF = frozenset({"sites", "site_shapes", "principal_inertia", "ball_range", "ref"})
_WRITTEN_ROBOT_MJCF = frozenset({"option", "size", "keyframes", "tendons", "actuators", "sites", "site_shapes"})


def _unwritten_extras(extras: dict, written: frozenset) -> list:
    """The keys of ``extras`` the writer does not write: other ecosystems' whole, the MJCF
    reading's own (``mjcf.<key>``) but those in ``written``."""
    out = []
    for k in sorted(extras):
        v = extras[k]
        if k == "mjcf" and isinstance(v, dict):
            out += [f"mjcf.{x}" for x in sorted(v) if x not in written]
        else:
            out.append(k)
    return out


def _read_ref(link) -> Optional[float]:
    mj = link.extras.get("mjcf")
    ref = mj.get("ref") if isinstance(mj, dict) else None
    return float(ref) if ref else None


def _robot_actuators(r: Robot) -> list:
    """The actuators an MJCF reading kept on robot ``r`` (none of them a driver's)."""
    mj = r.extras.get("mjcf")
    return list(mj.get("actuators") or []) if isinstance(mj, dict) else []


def _axis_length(axis) -> float:
    """The factor a link's joint is written scaled by: ``|axis|``, or exactly 1 for an axis
    MuJoCo takes as unit (within ``MJ_EPS``: ``mjuu_normvec`` keeps it as given, and so does
    a reading), which is then written as it is, with its range and forces unscaled, and
    reads back the same. (Dividing such an axis by its norm again moves its last bits on
    every rewrite.)"""
    a = tuple(float(v) for v in np.asarray(axis, float))
    k = float(vector_norm(np.asarray(a)))
    return 1.0 if abs(normvec(a)[1] - 1) <= MJ_EPS else k


def _frame_at_ref(T, link, ref: float, anchor) -> tuple:
    """``(pos, quat)`` of the body whose first joint, the joint of ``link`` (a hinge at
    ``anchor``, or a slide; unit axis), has ``ref``: where the link is at ``q = ref``,
    chosen so that the MJCF reader's link frame, ``body pose x Trans(anchor) x Rot(axis,
    -ref)`` (hinge) or ``body pose x Trans(-ref axis)`` (slide), is ``T``, the link's
    parent transform, again exactly where nearby parameters give it (a stable rewrite)."""
    axis = np.asarray(link.axis, float)
    axis = np.array(normvec(tuple(float(v) for v in axis / _axis_length(axis)))[0])   # as written, read
    R, p = np.asarray(T, float)[:3, :3], np.asarray(T, float)[:3, 3]
    if link.joint_type == "revolute":
        back = axis_angle_to_matrix(axis, -ref)
        turn = axis_angle_to_matrix(axis, ref)
        quat = tuple(float(v) for v in stable_params(R, lambda M: matrix_to_quat(compose(M, turn)),
                                                     lambda q: compose(quat_matrix(q), back), _QUAT_ULPS))
        Rb = quat_matrix(np.array(quat))
        step = np.asarray(anchor, float)
    else:
        quat = tuple(float(v) for v in _quat(R).split())
        Rb = _read_rotation(R)
        step = np.array([-ref * v for v in axis])

    return _body_position(Rb, step, p), quat


def _body_position(R, offset, target) -> np.ndarray:
    """The position ``x`` of a body of rotation ``R`` (as a reading gives it) whose frame
    moved by ``offset`` (``pose(R, x) x Trans(offset)``, what the MJCF reader computes for a
    joint anchor or a ref) is at ``target`` exactly, where a position a few units in the last
    place from ``target - R offset`` gives that; else that position (a stable rewrite)."""
    offset = np.asarray(offset, float)
    target = np.asarray(target, float)

    def read_back(x):
        x = np.asarray(x, float)
        B = np.zeros(x.shape[:-1] + (4, 4))
        B[..., :3, :3], B[..., :3, 3], B[..., 3, 3] = R, x, 1.0
        return compose(B, make_transform(np.eye(3), offset))[..., :3, 3]
    guess = target - compose(R, offset.reshape(3, 1))[:, 0]
    x = exact_params(guess, read_back, target, (2, 2, 2))
    return guess if x is None else np.array(x)


def _set_quat(el, R) -> None:
    """``quat`` of rotation ``R`` on ``el``, unless it is the identity MuJoCo defaults to
    (a rotation within rounding of the identity written "1 0 0 0" reads back as no rotation,
    and would then not be written: kawada-hironx)."""
    if np.array_equal(R, np.eye(3)):
        return
    q = _quat(R)
    if q != "1 0 0 0":
        el.set("quat", q)


def _set_scaled_quat(el, R, scale, linear) -> None:
    """``quat`` of a mesh geom whose asset has ``scale``: the quaternion whose matrix, scaled
    as a reading scales it (``R diag(scale)``), is ``linear`` exactly where one is near
    (:func:`_set_quat` chooses for ``R`` alone, which ``linear / scale`` gives only to an
    ulp: a rotated mesh of scale 0.0013 walked an ulp a rewrite, myo_sim's exosuit)."""
    s = np.asarray(scale, float)
    target = np.asarray(linear, float)
    q = stable_params(target, lambda M: matrix_to_quat(M / s), lambda Q: quat_matrix(Q) * s,
                      _QUAT_ULPS, wider=_QUAT_WIDER)
    text = _fmt(q)
    if "quat" in el.attrib or text != "1 0 0 0":
        if text == "1 0 0 0":
            del el.attrib["quat"]
        else:
            el.set("quat", text)


class _Names:
    """Unique names in one MuJoCo namespace (bodies, joints, meshes, ...)."""

    def __init__(self, reserved=()):
        self.used = set(reserved)

    def take(self, name: str, fallback: str, report, what: str) -> str:
        base = name if name else fallback
        nm, k = base, 2
        while nm in self.used:
            nm = f"{base}_{k}"
            k += 1
        if nm != name:
            report.lose(f"{what} names made unique or filled in (MuJoCo names must be unique)",
                        f"{name!r} -> {nm!r}", kind="renamed")
        self.used.add(nm)
        return nm


class _RobotPlan:
    """How one robot's links become bodies and joints."""

    def __init__(self, robot: Robot):
        self.r = robot
        n = robot.num_links
        self.kids = defaultdict(list)
        for i, l in enumerate(robot.links):
            self.kids[l.parent].append(i)
        self.group = {}
        for j in robot.joints:
            for i in j.links:
                self.group[i] = j
        self.free_root = {}          # root link -> the five virtual links it replaces
        self.folded = {}             # link -> the body (link) that carries its joint
        self.body_of = list(range(n))  # link -> link whose body holds it (itself unless folded)
        self.extra_joints = defaultdict(list)   # body link -> folded links, root to tip
        self.ball = {}               # body link -> the three links of the ball joint it carries
        self.anchors = {}            # body link -> joint pos of each of its one-DOF joints
        self.refs = {}               # folded slide link -> its joint's ref (its translation)
        self._floating()
        self._balls()
        self._fold_groups()
        self._fold_chains()

    def _bare(self, i: int) -> bool:
        l = self.r.links[i]
        return l.geometry is None and l.visual_geometry is None

    def _floating(self):
        """Floating joints over the six root links in Klamp't's layout (x, y, z translations,
        then rotations about z, y, x, with identity frames between them)."""
        for j in self.r.joints:
            if j.type != "floating" or len(j.links) != 6:
                continue
            chain = j.links
            links = [self.r.links[i] for i in chain]
            ok = links[0].parent == -1 and all(links[k].parent == chain[k - 1] for k in range(1, 6))
            ok = ok and all(l.joint_type == jt and np.array_equal(l.axis, ax)
                            for l, (jt, ax) in zip(links, _VIRTUAL))
            ok = ok and all(np.array_equal(l.parent_transform, np.eye(4)) for l in links[1:])
            ok = ok and all(self._bare(i) and self.kids[i] == [chain[k + 1]] for k, i in enumerate(chain[:5]))
            if ok:
                self.free_root[chain[5]] = list(chain[:5])
                for i in chain[:5]:
                    self.body_of[i] = None

    def _balls(self):
        """Ball joints (see the module docstring): each one's links fold into the body of its
        last link, or into that of the last link's only child when the last link is virtual
        too and the child is welded to it by a pure translation (the anchor)."""
        for j in self.r.joints:
            if not is_ball_group(self.r, j):
                continue
            chain = list(j.links)
            if not all(self._bare(i) and self.r.links[i].mass == 0 and not np.any(self.r.links[i].inertia)
                       for i in chain[:2]):
                continue
            tip, body = chain[-1], chain[-1]
            kids = self.kids[tip]
            if len(kids) == 1 and self._anchored(tip, kids[0]):
                body = kids[0]
            for i in chain:
                if i != body:
                    self.folded[i] = body
                    self.body_of[i] = body
            self.ball[body] = chain

    def _anchored(self, tip: int, child: int) -> bool:
        """Whether ``child``, the only child of a ball's last link ``tip``, is the body
        of a ball with an anchor: welded by a pure translation to a massless, bare ``tip``."""
        r = self.r
        lt, lc = r.links[tip], r.links[child]
        j = self.group.get(child)
        return (self._bare(tip) and lt.mass == 0 and not np.any(lt.inertia)
                and j is not None and j.type == "weld" and len(j.links) == 1
                and r.config[child] == 0
                and np.array_equal(lc.parent_transform[:3, :3], np.eye(3))
                and np.array_equal(lc.parent_transform[3], [0.0, 0.0, 0.0, 1.0]))

    def ball_links(self) -> set:
        return {i for chain in self.ball.values() for i in chain}

    def _fold_groups(self):
        for j in self.r.joints:
            if j.type not in ("floating", "floatingplanar", "ballandsocket") or len(j.links) < 2:
                continue
            chain = j.links
            if chain[-1] in self.free_root or chain[0] in self.folded:
                continue
            ok = all(self.r.links[chain[k]].parent == chain[k - 1] for k in range(1, len(chain)))
            ok = ok and all(self._bare(i) and self.kids[i] == [chain[k + 1]]
                            and self.r.links[i].mass == 0 and not np.any(self.r.links[i].inertia)
                            for k, i in enumerate(chain[:-1]))
            if not ok:
                continue
            tip = chain[-1]
            for i in chain[:-1]:
                self.folded[i] = tip
                self.body_of[i] = tip
            self.extra_joints[tip] = list(chain[:-1])

    def _fold_chains(self):
        """One body with several hinge or slide joints (what an MJCF reading makes a chain
        of links of: see :mod:`._bodies`) for each run of one-DOF links whose links but the
        last are massless and bare, each the only child of the one before, with frames that
        differ from the one before by a translation only, and named as the joint the writer
        gives them (a reading names them so). The joints' ``pos`` (:meth:`_chain_anchors`)
        reproduce the links' translations exactly in a reading (a stable rewrite); the body
        carries the last link's mass and geometry: no massless body MuJoCo would refuse."""
        r = self.r
        names = joint_names(r)
        for tip in reversed(range(r.num_links)):      # deepest first: a run folds into its tip
            if (self.body_of[tip] != tip or tip in self.free_root or tip in self.ball
                    or tip in self.extra_joints or (self.jtype(tip) == "weld" and r.config[tip] != 0)):
                continue
            chain = [tip]
            while True:
                p = r.links[chain[0]].parent
                if not (p >= 0 and self._one_dof_bare(p, names) and self.kids[p] == [chain[0]]
                        and _is_translation(r.links[chain[0]].parent_transform)):
                    break
                chain.insert(0, p)
            if len(chain) < 2:
                continue
            refs = {}
            anchors = self._chain_anchors(chain, refs)
            if anchors is None:
                continue
            self.refs.update(refs)
            for i in chain[:-1]:
                self.folded[i] = tip
                self.body_of[i] = tip
            self.extra_joints[tip] = chain[:-1]
            self.anchors[tip] = anchors

    def _one_dof_bare(self, i: int, names: list) -> bool:
        """Whether link ``i`` can be a joint of its child's body: a moving one-DOF link with
        neither mass nor geometry whose MuJoCo joint a reading turns back into a link of
        its name (whatever the source: a first write must be what its reading writes)."""
        r, l = self.r, self.r.links[i]
        j = self.group.get(i)
        return (self.body_of[i] == i and i not in self.free_root and i not in self.ball
                and i not in self.extra_joints and j is not None and j.type in ("normal", "spin")
                and len(j.links) == 1 and l.joint_type in ("revolute", "prismatic")
                and np.any(np.asarray(l.axis, float)) and self._bare(i) and l.mass == 0
                and not np.any(l.inertia) and _reads_as(names[i] or l.name, l.name))

    def _chain_anchors(self, chain: list, refs: dict):
        """The ``pos`` (body frame) of the joint of each moving link of ``chain``, or None.
        A reading of a body's joints with anchors ``a`` makes links placed by ``Trans(a_1)``
        (after the body pose), ``Trans(a_k - a_(k-1))``, and, when ``a_n`` is not 0, a welded
        last link at ``Trans(-a_n)``; a slide's anchor counts as 0. A slide after a slide
        (nothing to subtract) is placed by its ``ref`` instead, at ``Trans(-ref axis)``
        (dm_control's boxes: slides x and z with refs, then a hinge): ``refs`` gets the ref
        of each such link. Solved backwards from the last link, each difference rounded as
        the reader rounds it; None where no anchors give the links' translations back
        exactly."""
        r = self.r
        tip = chain[-1]
        moving = chain if self.jtype(tip) != "weld" else chain[:-1]
        t = {i: np.asarray(r.links[i].parent_transform, float)[:3, 3] for i in chain}
        a = {moving[-1]: np.zeros(3) if tip in moving else -t[tip]}
        if tip not in moving and not np.any(a[moving[-1]]):
            return None                 # a reading makes the last joint's link the body's
        for k in range(len(moving) - 1, 0, -1):
            cur, prev = moving[k], moving[k - 1]
            if r.links[cur].joint_type == "prismatic" and np.any(a[cur]):
                return None
            slide = r.links[cur].joint_type == "prismatic"
            if r.links[prev].joint_type == "prismatic":
                y = np.zeros(3) if np.array_equal(a[cur], t[cur]) else None
                if y is None and slide:
                    ref = _slide_ref(t[cur], r.links[cur].axis, np.zeros(3))
                    if ref is not None:
                        y, refs[cur] = np.zeros(3), ref
            elif slide and k >= 2 and r.links[moving[k - 2]].joint_type == "prismatic":
                # a hinge after a slide is at its own translation: cur's ref takes the rest
                y = t[prev]
                ref = _slide_ref(t[cur], r.links[cur].axis, -y)
                if ref is None:
                    return None
                refs[cur] = ref
            else:
                y = _difference_operand(a[cur], t[cur])
            if y is None:
                return None
            a[prev] = y
        if r.links[moving[0]].joint_type == "prismatic" and np.any(a[moving[0]]):
            return None
        return [a[i] for i in moving]

    def jtype(self, i: int) -> str:
        j = self.group.get(i)
        return j.type if j is not None else "normal"

    def parent_body(self, i: int) -> int:
        """The link whose body is the parent of body ``i`` (-1: the world), skipping the
        links that have no body of their own (virtual or folded)."""
        p = self.r.links[i].parent
        while p >= 0 and self.body_of[p] != p:
            p = self.r.links[p].parent
        return p


def _reads_as(joint: str, link: str) -> bool:
    """Whether a reading may name the link of a joint named ``joint`` ``link``: after the
    joint, or so made unique (a body of the same name took it: fish's ``tail1``)."""
    return link == joint or re.fullmatch(re.escape(joint) + r"_[0-9]+", link) is not None


def _slide_ref(t, axis, base, ulps: int = 4):
    """``ref`` with ``base + -ref * axis == t`` in floating point, component by component
    (a reading places a slide joint's link at ``Trans(base) Trans(-ref axis)``, ``base`` the
    negated anchor of a hinge before it), for a unit ``axis``; None when there is none."""
    v = np.asarray(axis, float)
    t = np.asarray(t, float)
    if _axis_length(v) != 1.0:
        return None             # (the writer normalises other axes: a different product)
    c = int(np.argmax(np.abs(v)))
    r0 = (base[c] - t[c]) / v[c]
    cands, lo, hi = [r0], r0, r0
    for _ in range(ulps):
        lo, hi = np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf)
        cands += [lo, hi]
    return next((float(x) for x in cands if np.array_equal(base + -x * v, t)), None)


def _is_translation(T) -> bool:
    T = np.asarray(T, float)
    return np.array_equal(T[:3, :3], np.eye(3)) and np.array_equal(T[3], [0.0, 0.0, 0.0, 1.0])


def _difference_operand(a, t, ulps: int = 4):
    """``y`` with ``a - y == t`` in floating point, component by component (the nearest
    to ``a - t`` that does), or None."""
    out = np.zeros(3)
    for k in range(3):
        y0 = a[k] - t[k]
        cands, lo, hi = [y0], y0, y0
        for _ in range(ulps):
            lo, hi = np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf)
            cands += [lo, hi]
        hit = next((y for y in cands if a[k] - y == t[k]), None)
        if hit is None:
            return None
        out[k] = hit
    return out


class MjcfWriter:
    """Builds the MJCF document of a World or Robot: :meth:`document` returns its bytes;
    :attr:`meshes` (a :class:`MeshExport`) holds the mesh files it references."""

    def __init__(self, obj, path, report, meshes: str = "copy", actuators: Optional[str] = None):
        if isinstance(obj, Robot):
            world = World(obj.name)
            world.robots.append(obj)
        elif isinstance(obj, World):
            world = obj
        elif isinstance(obj, (RigidObject, Terrain)):
            world = World(obj.name)
            world.add(obj)
        else:
            raise OutputError(None, f"MJCF holds robots and worlds, not a {type(obj).__name__}")
        self.model_name = getattr(obj, "name", "") or "model"
        self.world = world
        self.source = obj
        self.report = report
        self.meshes = MeshExport(path, report, mode=meshes, readable=mujoco_reads, consumer="MuJoCo",
                                 max_faces=MAX_STL_FACES, split_colors=True, min_vertices=4)
        self.bodies = Namespace(report, "links", reserved={"world"})
        self.joints = Namespace(report, "joints")
        self.mesh_names = _Names()
        self.eq_names = _Names()
        self.site_names = _Names()
        self.actuators = Actuators(actuators, report, _Names())
        self.assets = {}                 # (reference, scale text) -> mesh name
        self.asset_el = None
        self.classes_used = set()
        self.qpos_parts = []             # (joint element, qpos0, initial qpos, term) as written
        self.qpos0 = []                  # MuJoCo's qpos0, in document order of the joints
        self.qpos_init = []              # the initial configuration in MuJoCo coordinates
        self.qpos_terms = []             # how each part of qpos follows a robot's configuration
        self.top_bodies = {}             # top-level body element -> its key in the source order
        self.excludes = []
        self.pairs = []                  # (geom, geom) roboio checks that MuJoCo filters out
        self.geom_names = _Names()
        self.equalities = []
        self.tendons = []                # <fixed> elements of kept tendons (_tendons)
        self.mass_added = 0.0
        self.fk_error = (0.0, 0.0)

    # -- document -------------------------------------------------------------------------
    def document(self) -> bytes:
        root = etree.Element("mujoco", model=self.model_name)
        root.append(etree.Comment(" written by roboio "))
        etree.SubElement(root, "compiler", angle="radian", autolimits="false",
                         inertiafromgeom="false", boundmass="0", boundinertia="0",
                         balanceinertia="false", fusestatic="false", discardvisual="false",
                         alignfree="false")
        option = etree.SubElement(root, "option")
        default = etree.SubElement(root, "default")
        etree.SubElement(default, "joint", armature="0", damping="0", frictionloss="0")
        self.asset_el = etree.SubElement(root, "asset")
        worldbody = etree.SubElement(root, "worldbody")
        for t in self.world.terrains:
            self.terrain(worldbody, t)
        for o in self.world.rigid_objects:
            self.rigid_object(worldbody, o)
        for r in self.world.robots:
            self.robot(worldbody, r)
        self._sites(worldbody, self.source.extras.get("mjcf", {}), "world")
        self._source_order(worldbody)
        _tidy(worldbody)
        self._qpos_in_document_order(worldbody)
        self._assets_in_document_order(worldbody)
        for cls, attrs in (("visual", {"contype": "0", "conaffinity": "0", "group": "2"}),
                           ("collision", {"group": "3"}), ("terrain", None)):
            if cls in self.classes_used:
                d = etree.SubElement(default, "default", **{"class": cls})
                if attrs:
                    etree.SubElement(d, "geom", **attrs)
        if not len(self.asset_el):
            root.remove(self.asset_el)
        if self.excludes or self.pairs:
            contact = etree.SubElement(root, "contact")
            for a, b in self.pairs:
                etree.SubElement(contact, "pair", geom1=a, geom2=b)
            for a, b in self.excludes:
                etree.SubElement(contact, "exclude", body1=a, body2=b)
        # equalities and actuators in the document order of their joints (not the drivers'
        # order, which a reading of the file does not keep), so that a rewrite lists them so
        order = {el.get("name"): k for k, el in enumerate(worldbody.iter("joint"))}
        if self.equalities:
            eq = etree.SubElement(root, "equality")
            for attrs in sorted(self.equalities, key=lambda a: order.get(a["joint1"], len(order))):
                etree.SubElement(eq, "joint", **attrs)
        if self.tendons:
            tendon = etree.SubElement(root, "tendon")
            for el in self.tendons:
                tendon.append(el)
        act = self.actuators.element(order)
        if act is not None:
            root.append(act)
        size = self._source_kept("size")
        if size:
            # memory in a <size> of its own: MuJoCo refuses it beside the legacy njmax,
            # nconmax and nstack in one element, and takes them from two (myo_sim)
            at = root.index(option) + 1
            for keys in ([k for k in KEPT_SIZES if k != "memory"], ["memory"]):
                attrs = {k: str(size[k]) for k in keys if k in size}
                if attrs:
                    root.insert(at, etree.Element("size", **attrs))
                    at += 1
        kept = self._source_kept("option")
        if kept.get("timestep") is not None:
            option.set("timestep", fmt_float(float(kept["timestep"])))
        if kept.get("integrator") is not None:
            if kept["integrator"] != "Euler":           # (MuJoCo's default)
                option.set("integrator", kept["integrator"])
        elif self.actuators.damped:
            # velocity gains integrated implicitly: MuJoCo's Euler integrator is unstable once
            # kv / inertia exceeds 2 / timestep (a light wrist servo does)
            option.set("integrator", "implicitfast")
        if not option.attrib:
            root.remove(option)
        keys = self._keyframes()
        if self.qpos_init != self.qpos0 or keys:
            kf = etree.SubElement(root, "keyframe")
            names = _Names()
            if self.qpos_init != self.qpos0:
                etree.SubElement(kf, "key", name=names.take("initial", "", self.report, "key"),
                                 qpos=_fmt(self.qpos_init))
            for name, time, qpos in keys:
                attrs = {"name": names.take(name, "", self.report, "key")} if name else {}
                if time:
                    attrs["time"] = fmt_float(time)
                etree.SubElement(kf, "key", **attrs, qpos=_fmt(qpos))
        if self.mass_added:
            self.report.warn(f"total mass changed by +{self.mass_added:.3g} kg (moving bodies "
                             "MuJoCo refuses without mass were given the minimum)", kind="changed")
        old = getattr(self.report, "fk_error", (0.0, 0.0))
        self.report.fk_error = (max(old[0], self.fk_error[0]), max(old[1], self.fk_error[1]))
        return etree.tostring(root, pretty_print=True, xml_declaration=True, encoding="utf-8")

    def _source_kept(self, section: str) -> dict:
        """What an MJCF reading kept of ``<option>`` (integrator, timestep) or ``<size>`` (the
        key count, memory sizes): ``extras["mjcf"][section]`` of the model written, else of
        its first robot that has one."""
        for obj in [self.source] + list(self.world.robots):
            mj = obj.extras.get("mjcf")
            if isinstance(mj, dict) and isinstance(mj.get(section), dict):
                return mj[section]
        return {}

    # -- robots ---------------------------------------------------------------------------
    def robot(self, worldbody, r: Robot):
        plan = _RobotPlan(r)
        rep = self.report
        bodies = [i for i in range(r.num_links) if plan.body_of[i] == i]
        names = dict(zip(bodies, self.bodies.assign([r.links[i].name for i in bodies],
                                                    [f"link{i}" for i in bodies])))
        self.jname_of = self._joint_names(r, plan)
        approx = {}                         # link -> parent transform with the nearest rotation
        for i, l in enumerate(r.links):
            R, err = nearest_rotation(l.parent_transform[:3, :3])
            if err > 0:
                approx[i] = make_transform(R, l.parent_transform[:3, 3])
                rep.lose("link transforms that are not rotations, written as the nearest rotation "
                         "(largest entry change)", f"{l.name} ({err:.1e})", kind="approximated", noun="link")
        self._measure_fk(r, approx)
        self._report_robot(r, plan)
        self.driver_of = {d.dofs[0]: d for d in r.drivers if d.type == "normal" and len(d.dofs) == 1}
        elements, moving, jnames = {}, {}, {}
        for i in bodies:
            p = plan.parent_body(i)
            body = etree.SubElement(worldbody if p < 0 else elements[p], "body", name=names[i])
            elements[i] = body
            if p < 0:
                self.top_bodies[body] = ("robot", r.name, r.links[i].name)
            ref = self._kept_ref(r, plan, i, approx)
            if ref is None:
                T = self._body_pose(r, plan, i, approx)
                body.set("pos", _fmt(T[:3, 3]))
                _set_quat(body, T[:3, :3])
            else:
                f = ref[0]
                anchor = plan.anchors[i][0] if i in plan.anchors else np.zeros(3)
                pos, quat = _frame_at_ref(r.links[f].parent_transform, r.links[f], ref[1], anchor)
                body.set("pos", _fmt(pos))
                if quat != (1.0, 0.0, 0.0, 0.0):
                    body.set("quat", _fmt(quat))
            moving[i] = self._joints(body, r, plan, i, jnames, approx, ref)
        self._mass_rule(r, plan, bodies, moving, elements)
        geo = {}
        # geoms (and the mesh assets and files they name) in document order, the order a
        # reading numbers the links in, not the source's (a mounted gripper's links come last
        # in a .rob): the rewrite names and lists them the same way
        position = {el: k for k, el in enumerate(worldbody.iter("body"))}
        for i in sorted(bodies, key=lambda i: position[elements[i]]):
            l = r.links[i]
            color = l.appearance.color if l.appearance is not None else None
            geo[i] = self._geoms(elements[i], l.geometry, l.visual_geometry, color, names[i])
            self._sites(elements[i], l.extras.get("mjcf", {}), l.name)
        for i in range(r.num_links):
            if plan.body_of[i] != i and r.links[i].extras.get("mjcf", {}).get("sites"):
                self.report.lose("sites of links that are not bodies of their own (moved by a joint "
                                 "written in a descendant's body)", r.links[i].name, kind="kept as data",
                                 noun="link")
        self._excludes(r, plan, names, geo, moving, elements)
        self._equalities(r, plan, jnames)
        self._tendons(r, plan, jnames)

    def _body_pose(self, r: Robot, plan: _RobotPlan, i: int, approx: dict) -> np.ndarray:
        """Pose of body ``i`` in its parent body (world pose for a free-joint root)."""
        l = r.links[i]
        if i in plan.free_root:
            return make_transform(*_free_frame(r, i))
        if i in plan.ball:
            return self._ball_body_pose(r, plan.ball[i], i, approx)
        if i in plan.anchors:
            return self._chain_body_pose(r, plan.extra_joints[i][0], plan.anchors[i][0], approx)
        T = np.eye(4)
        for f in plan.extra_joints.get(i, []) + [i]:
            T = compose(T, approx.get(f, r.links[f].parent_transform))
        if plan.jtype(i) == "weld" and r.config[i] != 0:
            T = compose(T, _joint_motion(l, r.config[i]))
            self.report.warn(f"welded link {l.name!r} is at q = {fmt_float(r.config[i])}; that "
                             "pose is built into its body", kind="changed")
        return T

    @staticmethod
    def _ball_body_pose(r: Robot, chain: list, i: int, approx: dict) -> np.ndarray:
        """Pose of the body ``i`` of a ball joint over ``chain``: the first link's frame
        (the others add identities), moved by the anchored child's translation ``w`` when
        ``i`` is that child. Its position is then chosen so that the reader's ``body pose x
        Trans(anchor)`` (anchor ``-w``) gives the first link's frame back exactly (a stable
        rewrite), where a position a few units in the last place away does."""
        T0 = approx.get(chain[0], r.links[chain[0]].parent_transform)
        if i == chain[-1]:
            return np.array(T0, float)
        w = r.links[i].parent_transform[:3, 3]
        R0 = _read_rotation(T0[:3, :3])       # (the body's position is chosen for this one)
        return make_transform(R0, _body_position(R0, -w, T0[:3, 3]))

    @staticmethod
    def _chain_body_pose(r: Robot, first: int, anchor, approx: dict) -> np.ndarray:
        """Pose of a body whose joints are a folded chain (:meth:`_RobotPlan._fold_chains`)
        starting at link ``first``, whose joint is at ``anchor``: the first link's rotation,
        and the position whose reading (``body pose x Trans(anchor)``) gives the first link's
        position back exactly, where one within a few units in the last place does."""
        T1 = np.asarray(approx.get(first, r.links[first].parent_transform), float)
        R = _read_rotation(T1[:3, :3])       # (the position is chosen for this one)
        return make_transform(T1[:3, :3], _body_position(R, anchor, T1[:3, 3]))

    def _ball_name(self, r: Robot, chain: list):
        """``(source name or None, made-up name)`` of the ball joint over ``chain``: the
        links' shared source joint name, else ``S`` of first links named ``S_rz``, ``S_ry``
        (a reading names them so), else none (the last link's name is made up)."""
        names = {r.links[i].joint_name for i in chain}
        if len(names) == 1 and next(iter(names)):
            return next(iter(names)), r.links[chain[-1]].name
        a, b = r.links[chain[0]].name, r.links[chain[1]].name
        if a.endswith("_rz") and b == a[:-3] + "_ry" and len(a) > 3:
            return None, a[:-3]
        return None, r.links[chain[-1]].name or f"joint{chain[-1]}"

    def _joint_names(self, r: Robot, plan: _RobotPlan) -> dict:
        """Link -> name of the MuJoCo joint that moves it: the source's joint names
        (:func:`~roboio.formats.naming.joint_names`), else the link's name."""
        source = joint_names(r)
        balls = plan.ball_links()
        # a ball joint is named after its last link (its one MuJoCo joint)
        moving = [i for i, l in enumerate(r.links) if i in plan.free_root
                  or (i not in balls and plan.jtype(i) != "weld" and np.any(np.asarray(l.axis, float)))
                  or any(i == chain[-1] for chain in plan.ball.values())]
        moving.sort()
        # one source joint moving several links (a ball written as three hinges): MuJoCo
        # joints need names of their own, and the links' names read back as the same links
        shared = Counter(r.links[i].joint_name for i in moving if r.links[i].joint_name)
        source = [None if r.links[i].joint_name and shared[r.links[i].joint_name] > 1 else n
                  for i, n in enumerate(source)]
        invented = [r.links[i].name or f"joint{i}" for i in range(r.num_links)]
        for i, chain in plan.free_root.items():
            # six links that share one source joint name are one <freejoint> (on the sixth)
            jn = r.links[i].joint_name
            if jn and all(r.links[k].joint_name == jn for k in chain):
                source[i] = jn
        for chain in plan.ball.values():
            source[chain[-1]], invented[chain[-1]] = self._ball_name(r, chain)
        virtual = {k for v in plan.free_root.values() for k in v}
        say_unwritten(r, set(moving) | virtual | balls, self.report,
                      "MuJoCo has no fixed joints: a welded link is part of its body")
        return dict(zip(moving, self.joints.assign([source[i] for i in moving],
                                                   [invented[i] for i in moving])))

    def _kept_ref(self, r: Robot, plan: _RobotPlan, i: int, approx: dict):
        """``(link, ref)``: the first joint of body ``i`` (its link's own, or the first of a
        folded chain's) with the ``ref`` an MJCF reading found for it (MuJoCo's qpos0,
        ``extras["mjcf"]["ref"]``), when it is a hinge or slide with a unit axis (to 1e-15) whose frame
        is written as is, and no coupling moves it: the body is then written where that link is at ``q = ref``, with
        the joint's ``ref``, so that MuJoCo's qpos0 is the source's. Else None; a ref the
        body does not keep so is built into the body frame, and reported."""
        chain = plan.extra_joints.get(i, []) + [i]
        first = chain[0] if i in plan.anchors else i
        # (a coupling's <equality> polycoef is written for joints without refs)
        coupled = {k for d in r.drivers if len(d.dofs) > 1 or d.type != "normal" for k in d.dofs}
        kept = None
        for f in chain:
            ref = _read_ref(r.links[f])
            if not ref or (f in plan.refs and plan.refs[f] == ref):
                continue
            l = r.links[f]
            if (f == first and f not in coupled and i not in plan.free_root and i not in plan.ball and f not in approx
                    and (i in plan.anchors or not plan.extra_joints.get(i))
                    and plan.jtype(f) in ("normal", "spin") and l.joint_type in ("revolute", "prismatic")
                    and (l.joint_type == "revolute" or i not in plan.anchors or not np.any(plan.anchors[i][0]))
                    and _axis_length(l.axis) == 1.0):
                kept = (f, ref)
                continue
            self.report.lose("joint refs built into body frames (MuJoCo's qpos0 of the joint differs "
                             "from the source's; poses are the same)",
                             f"{l.joint_name or l.name} ({fmt_float(float(ref))})", kind="changed", noun="joint")
        return kept

    def _joints(self, body, r: Robot, plan: _RobotPlan, i: int, jnames: dict, approx: dict,
                kept_ref=None) -> bool:
        """Joint elements of body ``i`` (folded links first; ``kept_ref``: ``(link, ref)`` of
        its first joint, :meth:`_kept_ref`); True when the body moves."""
        refs = dict(plan.refs)
        if kept_ref is not None:
            refs[kept_ref[0]] = kept_ref[1]
        l = r.links[i]
        if i in plan.free_root:
            nm = self.jname_of[i]
            jnames[i] = nm
            el = etree.SubElement(body, "freejoint", name=nm)
            pose = self._free_pose(r, i)
            self._qpos(el, pose, pose, (r, "free", i))
            return True
        if i in plan.ball:
            return self._ball_joint(body, r, plan.ball[i], i)
        chain = plan.extra_joints.get(i, [])
        if i in plan.anchors:                 # a folded run of one-DOF links, at their anchors
            moves = False
            for f, a in zip(chain + [i], plan.anchors[i]):
                moves |= self._joint(body, r, plan, f, jnames, None, a, refs.get(f))
            return moves
        # S: pose of this body in a folded link's frame at q = 0 (see the module docstring)
        S, in_frame = np.eye(4), {}
        for f in reversed(chain[1:] + [i]):
            S = compose(approx.get(f, r.links[f].parent_transform), S)
            in_frame[r.links[f].parent] = S.copy()
        moves = False
        for f in chain + [i]:
            moves |= self._joint(body, r, plan, f, jnames, in_frame.get(f), ref=refs.get(f) if f == i else None)
        return moves

    def _ball_joint(self, body, r: Robot, chain: list, i: int) -> bool:
        """The ``<joint type="ball">`` of body ``i`` over the links ``chain`` (see the
        module docstring); what a ball joint cannot hold is reported."""
        rep = self.report
        tip = r.links[chain[-1]]
        nm = self.jname_of[chain[-1]]
        el = etree.SubElement(body, "joint", name=nm, type="ball")
        # a reading names the links a ball makes after the joint (JOINT_rz, JOINT_ry, and the
        # third after the joint too when the ball sits on a welded child's body): MuJoCo has
        # no place for other names of these links
        read = [f"{nm}_rz", f"{nm}_ry"] + ([nm] if i != chain[-1] else [])
        for k, want in zip(chain, read):
            if r.links[k].name != want:
                rep.lose("names of links written as a MuJoCo ball joint (a reading names them "
                         "after the joint)", f"{r.links[k].name} -> {want}", kind="renamed", noun="link")
        if i != chain[-1]:            # the first link's origin in the body frame
            w = r.links[i].parent_transform[:3, 3]
            if np.any(w):
                el.set("pos", _fmt(-w))
        cone = tip.extras.get("mjcf", {}).get("ball_range")
        if cone is not None and float(cone) > 0:
            el.set("limited", "true")
            el.set("range", _fmt((0.0, float(cone))))
        else:
            el.set("limited", "false")
        for k in chain:
            l = r.links[k]
            if np.isfinite(r.qmin[k]) or np.isfinite(r.qmax[k]):
                rep.lose("Euler angle limits of links written as a MuJoCo ball joint (its range "
                         "is a cone)", f"{l.name} [{fmt_float(r.qmin[k])}, {fmt_float(r.qmax[k])}]",
                         kind="not written", noun="link")
            if np.isfinite(r.tmax[k]):
                rep.lose("torque limits of links written as a MuJoCo ball joint", l.name,
                         kind="not written", noun="link")
            d = self.driver_of.get(k)
            if d is not None and (d.dry_friction or d.viscous_friction):
                rep.lose("friction of drivers of links written as a MuJoCo ball joint", d.name,
                         kind="not written", noun="driver")
        self._qpos(el, [1.0, 0.0, 0.0, 0.0], [float(v) for v in zyx_quat(r.config, chain)],
                   (r, "ball", chain[-1], chain))
        return True

    def _joint(self, body, r: Robot, plan: _RobotPlan, i: int, jnames: dict, S, anchor=None,
               ref=None) -> bool:
        """The joint element of link ``i`` in ``body``: at ``anchor`` (or placed by ``S``, the
        body's pose in the link's frame), a folded slide with its ``ref``; True when it moves."""
        l = r.links[i]
        jt = plan.jtype(i)
        if jt == "weld":
            return False
        axis = np.asarray(l.axis, float)
        k = _axis_length(axis)
        if k == 0:
            self.report.lose("joints with a zero axis (they cannot move; written without a joint)", l.name, kind="changed", noun="link")
            return False
        nm = self.jname_of[i]
        jnames[i] = nm
        u = axis / k
        el = etree.SubElement(body, "joint", name=nm, type="slide" if l.is_prismatic else "hinge")
        if S is not None:
            R, p = S[:3, :3], S[:3, 3]
            if np.any(p):
                el.set("pos", _fmt(-compose(R.T, p.reshape(3, 1))[:, 0]))
            u = compose(R.T, u.reshape(3, 1))[:, 0]
        if anchor is not None and np.any(anchor):
            el.set("pos", _fmt(anchor))
        el.set("axis", _fmt(u))
        if ref is not None:
            el.set("ref", fmt_float(ref + 0.0))
        if abs(k - 1) > 1e-15:
            self.report.lose("joint axes that are not unit length (MuJoCo normalises them: its "
                             "coordinate is |axis| x roboio's)", f"{l.name} (|axis| = {fmt_float(k)})", kind="changed", noun="link")
        lo, hi = r.qmin[i] * k, r.qmax[i] * k
        if jt == "spin":
            el.set("limited", "false")
            if np.isfinite(r.qmin[i]) or np.isfinite(r.qmax[i]):
                self.report.lose("position limits of spin (continuous) joints", l.name, kind="not written", noun="link")
        elif np.isfinite(lo) and np.isfinite(hi) and lo < hi:
            el.set("limited", "true")
            el.set("range", _fmt((lo, hi)))
        else:
            el.set("limited", "false")
            if np.isfinite(lo) or np.isfinite(hi):
                self.report.lose("position limits MuJoCo cannot hold (one-sided, or an empty or "
                                 "zero-width range; the joint is written unlimited)",
                                 f"{l.name} [{fmt_float(r.qmin[i])}, {fmt_float(r.qmax[i])}]", kind="not written", noun="link")
        t = r.tmax[i]
        if np.isfinite(t) and t > 0:
            el.set("actuatorfrclimited", "true")
            el.set("actuatorfrcrange", _fmt((-t / k, t / k)))
        d = self.driver_of.get(i)
        if d is not None and (d.dry_friction or d.viscous_friction):
            # generalised forces scale by 1/k in MuJoCo's coordinate qpos = k q
            if d.dry_friction:
                el.set("frictionloss", fmt_float(d.dry_friction / k))
            if d.viscous_friction:
                el.set("damping", fmt_float(d.viscous_friction / (k * k)))
        if jt not in ("normal", "spin"):
            self.report.lose(f"{jt} joints written as their one-DOF joints", l.name, kind="changed", noun="link")
        self._qpos(el, [0.0 if ref is None else ref + 0.0], [float(r.config[i]) * k], (r, "dof", i, k))
        return True

    def _keyframes(self) -> list:
        """``[(name, time, qpos)]``: the MuJoCo keyframes an MJCF reading kept on the robots
        (``robot.extras["mjcf"]["keyframes"]``) in the coordinates of the joints written: a
        joint written as it was read (free joint, ball, hinge, slide) keeps the key's values
        as they were (write -> read -> write is then exact); a ball joint written as three
        hinges gets the angles of the key's rotation; everything else its configuration.
        The keys of several robots at one position with one name and time (what a reading
        of one file gives each robot) are one key; a robot without such a key is at its
        configuration in it."""
        keys = {id(r): r.extras.get("mjcf", {}).get("keyframes") or [] for r in self.world.robots}
        used, out = set(), []
        for r in self.world.robots:
            for j, key in enumerate(keys[id(r)]):
                if (id(r), j) in used:
                    continue
                members = [o for o in self.world.robots if (id(o), j) not in used and j < len(keys[id(o)])
                           and _same_key(keys[id(o)][j], key)]
                used.update((id(o), j) for o in members)
                parsed = {}
                for o in members:
                    k = keys[id(o)][j]
                    try:
                        src = np.asarray(k["qpos"], dtype=float)
                        parsed[id(o)] = (src, o.config_from_qpos(src), qpos_slots(o))
                    except (ValueError, KeyError, TypeError):
                        self.report.lose("keyframes that do not fit the robot's joints",
                                         f"{o.name}: {k.get('name') or '?'}", kind="not written")
                if id(r) not in parsed:
                    continue
                out.append((key.get("name"), float(key.get("time") or 0.0), self._key_qpos(parsed, j, key.get("name"))))
        return out

    def _key_qpos(self, parsed: dict, j: int, name) -> list:
        """The written qpos of one key: ``parsed`` maps the robots in it to ``(their qpos in
        the key, the configuration of it, qpos_slots)``; ``j``, ``name``: the key's position and
        name (a rigid object's own values of it, :func:`_object_key`)."""
        qpos = []
        for term in self.qpos_terms:
            owner, kind = term[0], term[1]
            src, q, slots = parsed.get(id(owner), (None, None, {}))
            mine = src is not None
            slot = slots.get(term[2]) if mine else None
            if kind == "free":
                if slot and slot[0] == "free":
                    qpos += [float(v) for v in src[slot[1]:slot[1] + 7]]
                else:
                    qpos += self._free_pose(owner, term[2], q if mine else None)
            elif kind == "ball":
                if slot and slot[0] == "ball":
                    qpos += [float(v) for v in src[slot[1]:slot[1] + 4]]
                else:
                    qpos += [float(v) for v in zyx_quat(q if mine else owner.config, term[3])]
            elif kind == "dof":
                if slot and slot[0] == "dof":
                    qpos.append(float(src[slot[1]]) * term[3])
                else:
                    qpos.append(float((q if mine else owner.config)[term[2]]) * term[3])
            else:
                qpos += _object_key(owner, j, name, term[2])
        return qpos

    @staticmethod
    def _free_pose(r: Robot, i: int, q=None) -> list:
        R, t = _free_frame(r, i, q)
        return [float(x) for x in t] + [float(x) for x in matrix_to_quat(R)]

    def _mass_rule(self, r: Robot, plan: _RobotPlan, bodies, moving, elements):
        """Inertials of every body, with the changes MuJoCo needs (see :mod:`._inertia`)."""
        its = []
        for i in bodies:
            l = r.links[i]
            empty = l.mass == 0 and not np.any(l.inertia) and not np.any(l.com)
            its.append(None if empty else _inertia.prepare(l.mass, l.com, l.inertia))
        pos = {b: k for k, b in enumerate(bodies)}
        children = defaultdict(list)
        for b in bodies:
            p = plan.parent_body(b)
            if p >= 0:
                children[pos[p]].append(pos[b])
        refused = _inertia.refused_by_mujoco(its, [moving[b] for b in bodies], children)
        for k in refused:
            if its[k] is None:
                its[k] = _inertia.prepare(0.0, np.zeros(3), np.zeros((3, 3)))
            self._floor(its[k], r.links[bodies[k]].name)
        for k, b in enumerate(bodies):
            if its[k] is not None:
                for c in its[k].changes:
                    self.report.lose("mass properties changed for MuJoCo", f"{r.links[b].name}: {c}", kind="changed")
                elements[b].append(_inertial_element(its[k], _written_principal(r.links[b])))

    def _floor(self, it, name: str):
        before = it.mass
        note = _inertia.floor(it)
        self.mass_added += it.mass - before
        self.report.lose(f"moving bodies without the mass or inertia MuJoCo requires (raised to "
                         f"{_inertia.MASS_FLOOR:g} kg and {_inertia.INERTIA_FLOOR:g} kg m^2)",
                         f"{name} ({note})", kind="changed")

    # -- geometry -------------------------------------------------------------------------
    def _geoms(self, parent, collision, visual, color, label) -> bool:
        """Geoms of one body (or of the world body); True when it has collision geometry."""
        has = False
        made = []
        if visual is not None:
            # one visual mesh per body (a COLLADA link's hundreds of primitive sets); collision
            # meshes stay apart: MuJoCo collides each one's convex hull
            for g, M in self.meshes.merge_new(list(_leaves(visual))):
                self._geom(parent, g, M, color, label, "visual", made)
            if not made:
                # nothing drawn (its files missing: asibot's ensam03sn.iv): the body is written
                # as one without visuals, as it reads back, so the rewrite is the same
                visual = None
        for g, M in _leaves(collision):
            has |= self._geom(parent, g, M, color, label, "collision" if visual is not None else None, made)
        if visual is None and any(el.get("class") for el in made):
            made = _drawn_and_colliding(parent, made)
        if collision is not None and collision.margin:
            for el in made:
                if el.get("class") != "visual":
                    el.set("margin", fmt_float(collision.margin))
        return has

    def _geom(self, parent, g, M, color, label, cls, made) -> bool:
        role = cls or "collision"
        if g.appearance is not None and g.appearance.color is not None:
            color = g.appearance.color        # the piece's own colour (a URDF visual's material)
        rgba = None
        if color is not None and len(color) in (3, 4):
            rgba = tuple(color) + (1.0,) * (4 - len(color))
        if g.missing:
            ref = g.source.reference if g.source else "?"
            self.report.lose("geometry whose file was not found on reading", f"{label} ({ref})", kind="missing file")
            return False
        if isinstance(g, PointCloud):
            self.report.lose("point-cloud geometry", label, kind="not written")
            return False
        if isinstance(g, Primitive):
            spec = primitive_geom(g, M)
            if spec is not None:
                kind, size, pose = spec
                made.append(self._geom_element(parent, cls, rgba, pose, type=kind, size=_fmt(size)))
                return cls != "visual"
            if g.primitive in ("Point", "Segment"):
                self.report.lose("primitives without surface (points, segments)", label, kind="not written")
                return False
            from ...model.tessellate import primitive_to_mesh
            if g.primitive not in ("AABB", "Box", "Triangle", "Polygon"):
                self.report.lose("primitives MuJoCo has no geom for, written as triangle meshes "
                                 "(approximations)", f"{label} ({g.primitive})", kind="approximated")
            g = primitive_to_mesh(g)
        if not isinstance(g, TriangleMesh):
            self.report.lose(f"{type(g).__name__} geometry", label, kind="not written")
            return False
        plane = plane_geom(g, M)
        if plane is not None:             # a MuJoCo plane read as a square: the plane again
            made.append(self._geom_element(parent, cls, rgba, plane[1], type="plane",
                                           size=_fmt(plane[0])))
            return cls != "visual"
        collides = False
        for piece in self.meshes.export(g, M, f"{label}_{role}" if cls else label, role):
            if len(np.unique(piece.faces)) < 4:
                self.report.lose("meshes with fewer than 4 vertices (MuJoCo needs 4)", label, kind="not written")
                continue
            pts = piece.vertices * piece.scale
            tri = pts[piece.faces]
            area = 0.5 * vector_norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])).sum()
            if not area > _inertia.MJ_MINVAL:
                self.report.lose("meshes whose area MuJoCo finds too small (below 1e-15 m^2)", label, kind="not written")
                continue
            piece_cls = cls
            if cls != "visual" and _flat(pts[np.unique(piece.faces)]):
                # MuJoCo collides the convex hull of a mesh, and a flat mesh has none: its
                # collision shape becomes a thin box under it, the mesh is drawn only
                box = _slab(pts, piece.faces)
                rect = "" if box[3] else ", larger than the mesh: its bounding rectangle"
                self.report.lose("flat collision meshes, colliding as a thin box below their "
                                 f"surface (MuJoCo needs a volume{rect})", label, kind="approximated")
                size, pose = box[0], compose(piece.pose, box[1])
                made.append(self._geom_element(parent, "collision", None, pose, type="box",
                                               size=_fmt(size)))
                piece_cls = "visual"
                collides = True
            elif cls != "visual":
                collides = True
                self.report.lose("collision meshes (MuJoCo collides their convex hulls: exact for "
                                 "convex meshes only)", label, kind="read differently")
            el = self._geom_element(parent, piece_cls, piece.rgba or rgba, piece.pose,
                                    type="mesh", mesh=self._mesh_asset(piece))
            if piece.linear is not None and not np.array_equal(piece.scale, np.ones(3)):
                _set_scaled_quat(el, piece.pose[:3, :3], piece.scale, piece.linear)
            made.append(el)
        return collides

    def _geom_element(self, parent, cls, rgba, pose, **attrs):
        el = etree.SubElement(parent, "geom")
        if cls:
            el.set("class", cls)
            self.classes_used.add(cls)
        for k, v in attrs.items():
            el.set(k, v)
        if np.any(pose[:3, 3]):
            el.set("pos", _fmt(pose[:3, 3]))
        _set_quat(el, pose[:3, :3])
        if rgba is not None and tuple(float(c) for c in rgba) != _MUJOCO_RGBA:
            el.set("rgba", _fmt(rgba))      # (MuJoCo's own colour not written: it reads back as it)
        return el

    def _sites(self, body, kept: dict, owner: str, placed=None) -> None:
        """The ``<site>`` elements an MJCF reading kept on a link, rigid object or scenery
        terrain (``kept``: its ``extras["mjcf"]``: ``sites``, name -> 4x4 pose in its frame,
        and ``site_shapes``, name -> type, size, unnamed), in ``body``, in the order read:
        MuJoCo numbers them as the source's. ``placed``: the element's transform when its
        body is written at the identity (its geoms placed); a pose that is then not a
        rotation and a translation is reported, and the site left out."""
        sites = kept.get("sites") if isinstance(kept, dict) else None
        if not isinstance(sites, dict):
            return
        shapes = kept.get("site_shapes") if isinstance(kept.get("site_shapes"), dict) else {}
        for key, pose in sites.items():
            P = np.asarray(pose, float)
            if placed is not None:
                P = compose(np.asarray(placed, float), P)
            R, err = nearest_rotation(P[:3, :3])
            if P.shape != (4, 4) or err > 0 or not np.all(np.isfinite(P)):
                self.report.lose("sites whose pose is not a rotation and a translation", f"{owner} ({key})",
                                 kind="not written")
                continue
            shape = shapes.get(key) if isinstance(shapes.get(key), dict) else {}
            el = etree.SubElement(body, "site")
            if not shape.get("unnamed"):
                el.set("name", self.site_names.take(str(key), "site", self.report, "site"))
            if np.any(P[:3, 3]):
                el.set("pos", _fmt(P[:3, 3]))
            _set_quat(el, R)
            if shape.get("type", "sphere") != "sphere":
                el.set("type", str(shape["type"]))
            size = [float(v) for v in shape.get("size", SITE_SIZE)]
            if size != list(SITE_SIZE):
                el.set("size", _fmt(size))

    def _assets_in_document_order(self, worldbody) -> None:
        """Mesh assets in the order the worldbody first uses them, named (file stem, made
        unique) in that order: the assets follow the document as written, not the order
        its elements were made in, which a reading of the output does not keep (a
        terrain of one geom is written among the world's geoms, before the bodies, whatever
        its place among the terrains), so that the rewrite lists and names them the same."""
        meshes = [el for el in self.asset_el if el.tag == "mesh"]
        if not meshes:
            return
        used = [g for g in worldbody.iter("geom") if g.get("mesh") is not None]
        rank = {}
        for g in used:
            rank.setdefault(g.get("mesh"), len(rank))
        meshes.sort(key=lambda el: rank.get(el.get("name"), len(rank)))
        names, renamed = _Names(), {}
        for el in meshes:
            stem = os.path.splitext(os.path.basename(el.get("file")))[0]
            renamed[el.get("name")] = names.take(stem, "mesh", _Quiet(), "mesh")
            self.asset_el.append(el)
        for el in meshes:
            el.set("name", renamed[el.get("name")])
        for g in used:
            g.set("mesh", renamed[g.get("mesh")])
        self.assets = {k: renamed[v] for k, v in self.assets.items()}

    def _mesh_asset(self, piece) -> str:
        scale = _fmt(piece.scale) if not np.array_equal(piece.scale, np.ones(3)) else None
        key = (piece.reference, scale)
        if key not in self.assets:
            stem = os.path.splitext(os.path.basename(piece.reference))[0]
            name = self.mesh_names.take(stem, "mesh", _Quiet(), "mesh")
            el = etree.SubElement(self.asset_el, "mesh", name=name, file=piece.reference)
            if scale:
                el.set("scale", scale)
            el.set("inertia", "shell")      # masses come from <inertial>; shells accept open meshes
            self.assets[key] = name
        return self.assets[key]

    # -- contacts and couplings -----------------------------------------------------------
    def _excludes(self, r: Robot, plan: _RobotPlan, names: dict, geo: dict, moving: dict, elements: dict):
        """``<exclude>`` for pairs roboio does not check that MuJoCo's filters (same weld
        body; parent/child weld bodies, neither the world) would still collide, and explicit
        ``<pair>`` elements for pairs roboio checks that those filters would skip."""
        weld = {}
        for i in names:                  # bodies in topological order
            p = plan.parent_body(i)
            weld[i] = i if moving[i] else (weld[p] if p >= 0 else -1)

        def weld_parent(w):
            p = plan.parent_body(w)
            return weld[p] if p >= 0 else -1

        def filtered(a, b):
            wa, wb = weld[a], weld[b]
            if wa == wb:
                return True
            return wa >= 0 and wb >= 0 and (wa == weld_parent(wb) or wb == weld_parent(wa))
        pairs = {(min(a, b), max(a, b)) for a, b in r.self_collision_pairs}
        # in document order (depth first), the order a reading numbers the links in: the
        # same elements in the same order whatever the source's link order (a stable rewrite)
        root = elements[next(iter(names))].getroottree().getroot() if names else None
        position = {el: k for k, el in enumerate(root.iter("body"))} if root is not None else {}
        with_geo = sorted((i for i in names if geo.get(i)), key=lambda i: position.get(elements[i], i))
        for k, a in enumerate(with_geo):
            for b in with_geo[k + 1:]:
                checked = (min(a, b), max(a, b)) in pairs
                if filtered(a, b):
                    if checked:
                        for ga in self._collision_geoms(elements[a], names[a]):
                            for gb in self._collision_geoms(elements[b], names[b]):
                                self.pairs.append((ga, gb))
                elif not checked:
                    self.excludes.append((names[a], names[b]))
        for a, b in sorted(pairs):
            if not (geo.get(a) and geo.get(b)):
                self.report.lose("self-collision pairs of links without collision geometry",
                                 f"({r.links[a].name}, {r.links[b].name})", kind="not written", noun="pair")

    def _collision_geoms(self, body, label: str) -> list:
        """Names of the colliding geoms of ``body`` (named here when they have no name)."""
        out = []
        for el in body:
            if el.tag == "geom" and el.get("class") != "visual" and el.get("contype") != "0":
                if el.get("name") is None:
                    el.set("name", self.geom_names.take(label, "geom", _Quiet(), "geom"))
                out.append(el.get("name"))
        return out

    def _equalities(self, r: Robot, plan: _RobotPlan, jnames: dict):
        """An actuator per driver (:mod:`._actuators_out`) and ``<equality><joint>`` for every
        DOF an affine driver couples to the DOF it actuates: ``q_j = o_j + s_j u`` gives, in
        MuJoCo coordinates (``qpos = |axis| q``), ``qpos_j = a0 + a1 qpos_lead``; polynomial
        couplings follow their leader (:meth:`_polynomial_couplings`)."""
        rep = self.report
        actuated = [d for d in r.drivers if d.type in ("normal", "affine", "nonlinear") and not unactuated(d)]
        if actuated and self.actuators.mode == "none":
            rep.lose(f"drivers ({len(actuated)}): MJCF is written without actuators (servo gains "
                     "and driver limits are not kept)", kind="not written")
        balls = plan.ball_links()
        for d in r.drivers:
            if d.type in ("translation", "rotation"):
                rep.lose("translation/rotation drivers", d.name, kind="not written", noun="driver")
                continue
            if not d.dofs:
                continue
            has_joint = [i in jnames and i not in plan.free_root for i in d.dofs]
            if d.type == "nonlinear":      # the driver's value is its leader's
                k = d.dofs.index(d.leader) if d.leader in d.dofs else None
                lead = k if k is not None and has_joint[k] else None
            else:
                lead = lead_index(d, has_joint)
            if lead is None:
                if any(i in balls for i in d.dofs):
                    rep.lose("drivers of links written as a MuJoCo ball joint (no actuator: a "
                             "ball's actuators act about its axes, not on Euler angles)", d.name,
                             kind="not written", noun="driver")
                else:
                    rep.lose("drivers without a MuJoCo hinge or slide joint to move (no actuator, "
                             "no coupling)", d.name, kind="not written", noun="driver")
                continue
            il = d.dofs[lead]
            sl, ol = (d.scale[lead], d.offset[lead]) if d.type == "affine" else (1.0, 0.0)
            kl = _axis_length(r.links[il].axis)
            kept = self._kept_actuators(r, plan, jnames, d) if self.actuators.keep else None
            written = None
            if kept:
                self.actuators.add_kept(kept)
            elif not unactuated(d):       # (a joint MuJoCo leaves unactuated stays so)
                written = self.actuators.add(d, jnames[il], kl * sl, kl * ol,
                                             (r.qmin[il] * kl, r.qmax[il] * kl) if plan.jtype(il) != "spin"
                                             else (-np.inf, np.inf))
            # couplings are named after the actuator as written (a second robot's dof1 is
            # actuator dof1_2, the name its driver reads back with: the rewrite keeps it)
            stem = written or actuator_name(d)
            if d.type == "nonlinear":
                self._polynomial_couplings(r, plan, jnames, d, stem)
                continue
            if d.type != "affine":
                continue
            for k, i in enumerate(d.dofs):
                if k == lead:
                    continue
                if not has_joint[k]:
                    rep.lose("coupled DOFs without a MuJoCo hinge or slide joint", f"{d.name}: {r.links[i].name}", kind="not written")
                    continue
                s, o = d.scale[k], d.offset[k]
                kf = _axis_length(r.links[i].axis)
                attrs = {"name": self.eq_names.take(f"{stem}:{jnames[i]}", "coupling", _Quiet(), ""),
                         "joint1": jnames[i]}
                if s != 0:
                    attrs["joint2"] = jnames[il]
                attrs["polycoef"] = _fmt((kf * (o - s * ol / sl), kf * s / (sl * kl), 0, 0, 0))
                self.equalities.append(attrs)

    def _kept_actuators(self, r: Robot, plan: _RobotPlan, jnames: dict, d):
        """The actuators driver ``d`` was read with, as ``(info, written joint name)`` pairs
        for :meth:`Actuators.add_kept`, when the driver still has the limits and gains a
        reading derived from them and each one's joint is a written hinge or slide of the
        driver; else None (the driver's actuator is rebuilt, and a changed driver reported)."""
        found = d.extras.get("mjcf", {}).get("actuators") if isinstance(d.extras.get("mjcf"), dict) else None
        if not found:
            return None
        joint_of = {r.links[i].joint_name or r.links[i].name: i for i in d.dofs
                    if i in jnames and i not in plan.free_root}
        odd = sorted({a["kind"] for a in found if a["kind"] not in KEPT_KINDS})
        why = f"<{'>, <'.join(odd)}> actuators are not kept as read" if odd else as_read(r, d)
        if why is None:
            lost = [a.get("joint") for a in found if a.get("joint") not in joint_of]
            if lost:
                why = f"no written hinge or slide joint {', '.join(map(repr, lost))} among its DOFs"
        if why is not None:
            names = ", ".join(repr(a.get("name", a["kind"])) for a in found)
            self.report.lose(f"actuators read from MJCF, rebuilt as {self.actuators.mode} actuators "
                             "(their driver changed since, or their kind is not kept)",
                             f"{d.name}: {names}; {why}",
                             kind="changed", noun="driver")
            return None
        return [(a, jnames[joint_of[a["joint"]]]) for a in found]

    def _tendons(self, r: Robot, plan: _RobotPlan, jnames: dict) -> None:
        """The fixed tendons an MJCF reading kept on ``r`` (:mod:`._tendons`), with their
        joints' written names, and (actuators kept as read) the actuators on them; a tendon
        one of whose joints is not written as a unit-axis hinge or slide is reported, with
        its actuators."""
        tendons = kept_tendons(r)
        if not tendons:
            return
        written = {}
        for i, nm in jnames.items():
            l = r.links[i]
            if (l.joint_name and l.joint_type in ("revolute", "prismatic") and plan.jtype(i) in ("normal", "spin")
                    and i not in plan.free_root and i not in plan.ball_links()
                    and _axis_length(l.axis) == 1.0):
                written[l.joint_name] = nm
        done = set()
        for t in tendons:
            el = tendon_element(t, written)
            if isinstance(el, list):
                self.report.lose("fixed tendons whose joints are not written as hinge or slide joints",
                                 f"{t.get('name') or 'unnamed'} ({', '.join(el)})", kind="not written", noun="tendon")
                continue
            self.tendons.append(el)
            done.add(t.get("name"))
        for a in _robot_actuators(r):
            if a.get("tendon") in {t.get("name") for t in tendons} and a["kind"] in KEPT_KINDS:
                if a["tendon"] in done and self.actuators.keep:
                    self.actuators.add_kept([(a, None)])
                else:
                    self._lose_robot_actuator(a)

    def _report_robot_actuators(self, r: Robot):
        """Each actuator an MJCF reading kept on the robot (on a tendon, site or body, or a
        ball or free joint: none of them a driver), by name and transmission: not written
        (but those on kept fixed tendons, which :meth:`_tendons` writes or reports)."""
        kept = {t.get("name") for t in kept_tendons(r)}
        for a in _robot_actuators(r):
            if not (a.get("tendon") in kept and a["kind"] in KEPT_KINDS):
                self._lose_robot_actuator(a)

    def _lose_robot_actuator(self, a: dict) -> None:
        on = next((f"{t} {a[t]!r}" for t in ("joint",) + TRANSMISSIONS if a.get(t)), "nothing")
        self.report.lose("actuators that drive no hinge or slide joint (a tendon, site, body, "
                         "ball or free joint; kept as robot data)",
                         f"{a.get('name') or 'unnamed'} ({a['kind']} on {on})", kind="not written",
                         noun="actuator")

    def _polynomial_couplings(self, r: Robot, plan: _RobotPlan, jnames: dict, d, stem: str):
        """``<equality><joint polycoef>`` for each link a polynomial coupling (degree <= 4
        of the driver's own value, its leader link's) moves: ``q_j = sum a_i u^i`` gives
        ``qpos_j = sum |axis_j| a_i / |axis_lead|^i qpos_lead^i``. Other couplings were
        made affine before (see ``roboio.convert.adapt``)."""
        from ...model.coupling import polynomial_in_range
        rep = self.report
        lead = d.leader
        if lead is None or lead not in jnames or lead in plan.free_root:
            rep.lose("nonlinear drivers without a moving DOF to follow", d.name, kind="not written",
                     noun="driver")
            return
        kl = _axis_length(r.links[lead].axis)
        for fn, i in zip(d.coupling.functions, d.dofs):
            if i == lead:
                continue
            if i not in jnames or i in plan.free_root:
                rep.lose("coupled DOFs without a MuJoCo hinge or slide joint", f"{d.name}: {r.links[i].name}",
                         kind="not written")
                continue
            p = polynomial_in_range(fn, d.qmin, d.qmax)
            if p is None:
                rep.lose("couplings that are not polynomials of degree <= 4", f"{d.name}: {r.links[i].name}",
                         kind="not written")
                continue
            coef = list(p[1]) + [0.0] * (5 - len(p[1]))
            kf = _axis_length(r.links[i].axis)
            attrs = {"name": self.eq_names.take(f"{stem}:{jnames[i]}", "coupling", _Quiet(), ""),
                     "joint1": jnames[i]}
            if any(coef[1:]):
                attrs["joint2"] = jnames[lead]
            attrs["polycoef"] = _fmt([kf * a / kl ** n for n, a in enumerate(coef)])
            self.equalities.append(attrs)

    # -- reports --------------------------------------------------------------------------
    def _report_robot(self, r: Robot, plan: _RobotPlan):
        rep = self.report
        for root, virtual in plan.free_root.items():
            for i in virtual + [root]:
                l = r.links[i]
                if np.isfinite(r.qmin[i]) or np.isfinite(r.qmax[i]):
                    rep.lose("position limits of floating-base DOFs (a free joint has none)", l.name, kind="not written", noun="link")
                if i != root and (l.mass != 0 or np.any(l.inertia)):
                    rep.lose("mass of virtual floating-base links", l.name, kind="not written", noun="link")
            rep.warn(f"floating base {', '.join(r.links[i].name for i in virtual + [root])} written "
                     f"as the free joint of body {r.links[root].name!r}", kind="changed")
        for i in range(r.num_links):
            if plan.body_of[i] is None or i in plan.free_root or plan.jtype(i) == "weld":
                continue
            for kind, lo, hi in (("velocity", r.vmin[i], r.vmax[i]), ("acceleration", -r.amax[i], r.amax[i]),
                                 ("power", -r.pmax[i], r.pmax[i])):
                if np.isfinite(lo) or np.isfinite(hi):
                    rep.lose(f"{kind} limits (MuJoCo joints have none)", r.links[i].name, kind="not written", noun="link")
        if np.any(np.asarray(r.velocity) != 0):
            rep.lose("the initial velocity", kind="not written")
        for d in r.drivers:
            if (d.dry_friction or d.viscous_friction) and not (d.type == "normal" and len(d.dofs) == 1):
                rep.lose("friction of drivers that are not one-DOF drivers", d.name, kind="not written", noun="driver")
        self._report_robot_actuators(r)
        kept = ", ".join(k for k in _unwritten_extras(r.extras, _WRITTEN_ROBOT_MJCF) if k != "klampt")
        if kept:
            rep.lose("format-specific robot data", kept, kind="kept as data")
        if r.properties:
            rep.lose("robot properties (sensors, controller, ...)", ", ".join(sorted(r.properties)), kind="not written")
        from ...model import Appearance
        for l in r.links:
            keys = _unwritten_extras(l.extras, _WRITTEN_LINK_MJCF)
            if keys:
                rep.lose("format-specific link data", f"{l.name} ({', '.join(keys)})", kind="kept as data", noun="link")
            ap = l.appearance
            if ap is not None and not Appearance(**{**ap.__dict__, "color": None}).is_default():
                rep.lose("appearance other than the colour", l.name, kind="not written", noun="link")

    def _measure_fk(self, r: Robot, approx: dict):
        """FK change caused by writing nearest rotations, measured over sampled configurations."""
        if not approx:
            return
        pos, rot = fk_change(r, approx)
        self.fk_error = (max(self.fk_error[0], pos), max(self.fk_error[1], rot))
        self.report.lose(f"robot {r.name!r}: link frames move by up to {pos:.1e} m (rotation matrix "
                         f"entries by {rot:.1e}) over {FK_SAMPLES} sampled configurations (nearest "
                         "rotations written)", kind=fk_loss_kind(pos, rot))

    # -- other world elements -------------------------------------------------------------
    def rigid_object(self, worldbody, o: RigidObject):
        name = self.bodies.take(o.name, "object", "objects")
        R, err = nearest_rotation(o.transform[:3, :3])
        if err > 0:
            self.report.lose("object poses that are not rotations, written as the nearest rotation",
                             f"{o.name} ({err:.1e})", kind="approximated")
        body = etree.SubElement(worldbody, "body", name=name, pos=_fmt(o.transform[:3, 3]))
        _set_quat(body, R)
        joint = o.extras.get("mjcf", {}).get("joint") or o.name     # (an MJCF reading's name)
        el = etree.SubElement(body, "freejoint", name=self.joints.take(joint, "object", None))
        self.top_bodies[body] = ("object", o.name)
        # the key's quaternion is the body's, as written (a reading builds the pose from it)
        quat = [float(x) for x in body.get("quat", "1 0 0 0").split()]
        pose = [float(x) for x in o.transform[:3, 3]] + quat
        self._qpos(el, pose, pose, (o, "fixed", pose))
        it = _inertia.prepare(o.mass, o.com, o.inertia)
        if not it.valid_for_motion:
            self._floor(it, o.name)
        for c in it.changes:
            self.report.lose("mass properties changed for MuJoCo", f"{o.name}: {c}", kind="changed")
        body.append(_inertial_element(it, _written_principal(o)))
        color = o.appearance.color if o.appearance is not None else None
        self._geoms(body, o.geometry, o.extras.get("mjcf", {}).get("visual_geometry"), color, name)
        self._friction([e for e in body if e.tag == "geom"], o.kFriction, o.name)
        self._sites(body, o.extras.get("mjcf", {}), o.name)
        extra = [k for k, d in (("kRestitution", 0.5), ("kStiffness", np.inf), ("kDamping", np.inf))
                 if getattr(o, k) != d]
        if extra:
            self.report.lose("contact parameters MJCF does not hold as such", f"{o.name} ({', '.join(extra)})", kind="not written")
        if np.any(o.velocity) or np.any(o.angular_velocity):
            self.report.lose("initial velocities of rigid objects", o.name, kind="not written")

    def terrain(self, worldbody, t: Terrain):
        color = t.appearance.color if t.appearance is not None else None
        geom, visual = t.geometry, t.extras.get("mjcf", {}).get("visual_geometry")
        R, err = nearest_rotation(t.transform[:3, :3])
        framed = err == 0 and np.array_equal(t.transform[3], (0, 0, 0, 1))
        if t.extras.get("mjcf", {}).get("body"):
            # a body of MuJoCo scenery (an MJCF reading's): a static body of class "terrain"
            # at the terrain's pose, its geoms in the terrain frame as read
            body = etree.SubElement(worldbody, "body", name=self.bodies.take(t.name, "terrain", "terrains"),
                                    childclass="terrain")
            self.top_bodies[body] = ("terrain", t.name)
            self.classes_used.add("terrain")
            if framed:
                if np.any(t.transform[:3, 3]):
                    body.set("pos", _fmt(t.transform[:3, 3]))
                _set_quat(body, R)
            else:
                geom, visual = _placed(geom, t.transform), _placed(visual, t.transform)
            self._static_mass(body, t, framed)
            self._geoms(body, geom, visual, color, t.name or "terrain")
            self._friction([e for e in body if e.tag == "geom"], t.kFriction, t.name)
            self._sites(body, t.extras.get("mjcf", {}), t.name, None if framed else t.transform)
            return
        static_mass.say_lost(t, self.report, "a terrain of one geom is a geom of the world body, which has no mass")
        geom, visual = _placed(geom, t.transform), _placed(visual, t.transform)
        start = len(worldbody)
        self._geoms(worldbody, geom, visual, color, t.name or "terrain")
        made = list(worldbody)[start:]
        if len(made) == 1:          # the reader names a terrain of one geom after the geom
            made[0].set("name", self.geom_names.take(t.name, "terrain", self.report, "terrain"))
        elif made:
            # several geoms: one static body (of class "terrain", which a reading of a file
            # roboio wrote tells from a robot's root) that reads back as this one terrain
            body = etree.Element("body", name=self.bodies.take(t.name, "terrain", "terrains"),
                                 childclass="terrain")
            worldbody.insert(start, body)
            self.top_bodies[body] = ("terrain", t.name)
            for el in made:
                body.append(el)
            self.classes_used.add("terrain")
        self._friction(made, t.kFriction, t.name)

    def _static_mass(self, body, t: Terrain, framed: bool) -> None:
        """The ``<inertial>`` of a scenery body: the mass MuJoCo compiled for the static body
        it was read from (:mod:`roboio.formats.static_mass`), so that ``body_mass`` and
        ``body_inertia`` are the source's (the terrain class's geoms add none: the compiler
        has ``inertiafromgeom="false"``). ``framed``: the body is at the terrain's pose;
        else the pose is not a rotation and a translation, and the mass is reported."""
        props = static_mass.kept(t)
        if props is None or props[0] <= 0:
            return
        if not framed:
            static_mass.say_lost(t, self.report, "the terrain's pose is not a rotation and a translation")
            return
        it = _inertia.prepare(*props)
        for c in it.changes:
            self.report.lose("mass properties changed for MuJoCo", f"{t.name}: {c}", kind="changed")
        body.append(_inertial_element(it))

    def _source_order(self, worldbody) -> None:
        """The top-level bodies in the order of the MJCF file the world was read from
        (``world.extras["mjcf"]["bodies"]``, the reading's record; MuJoCo numbers bodies,
        joints and qpos in document order): the bodies it names, each once, first and in its
        order, then every other element as written (elements added since come after the
        source's, whose qpos addresses stay the source's). Without a record (worlds from
        other formats) nothing moves."""
        kept = self.world.extras.get("mjcf")
        order = kept.get("bodies") if isinstance(kept, dict) else None
        if not isinstance(order, list):
            return
        rank = {}
        for k, key in enumerate(order):
            try:
                rank.setdefault(tuple(key), k)
            except TypeError:
                continue
        counts = Counter(self.top_bodies.values())
        named = [el for el in worldbody if el in self.top_bodies
                 and counts[self.top_bodies[el]] == 1 and self.top_bodies[el] in rank]
        first = set(named)
        rest = [el for el in worldbody if el not in first]
        for el in sorted(named, key=lambda el: rank[self.top_bodies[el]]) + rest:
            worldbody.append(el)

    def _qpos(self, joint, qpos0: list, initial: list, term: tuple) -> None:
        """Record the qpos values of the joint element ``joint``: MuJoCo's qpos0, the initial
        configuration's values, and how a keyframe gives them (``term``)."""
        self.qpos_parts.append((joint, qpos0, initial, term))

    def _qpos_in_document_order(self, worldbody) -> None:
        """qpos0, the initial qpos and the keyframe terms in MuJoCo's order: the document
        order of the joints (the order they were written in need not be it)."""
        at = {el: k for k, el in enumerate(worldbody.iter("joint", "freejoint"))}
        parts = sorted(self.qpos_parts, key=lambda part: at[part[0]])
        self.qpos0 = [v for part in parts for v in part[1]]
        self.qpos_init = [v for part in parts for v in part[2]]
        self.qpos_terms = [part[3] for part in parts]

    def _friction(self, geoms, kf, name):
        v = np.atleast_1d(np.asarray(kf, float))
        if len(v) != 1:
            self.report.lose("per-element friction coefficients (the first is written for all)", name, kind="not written")
        if v[0] == FRICTION[0]:
            return          # MuJoCo's default, what a reading of a geom without one gives
        for el in geoms:
            if el.get("class") != "visual":
                el.set("friction", _fmt((v[0], 0.005, 0.0001)))


def _same_key(a: dict, b: dict) -> bool:
    """Two robots' kept keyframes are parts of one key: the same name and time."""
    try:
        return a.get("name") == b.get("name") and float(a.get("time") or 0.0) == float(b.get("time") or 0.0)
    except (TypeError, ValueError):
        return a is b


def _object_key(o: RigidObject, j: int, name, pose: list) -> list:
    """The 7 free-joint values of rigid object ``o`` in the robot's key ``j`` (named ``name``):
    the key's own values an MJCF reading kept (``o.extras["mjcf"]["keyframes"]``, one per key
    of the robot, matched by position and name), else its pose as written."""
    kept = o.extras.get("mjcf", {}).get("keyframes") if isinstance(o, RigidObject) else None
    if isinstance(kept, list) and j < len(kept) and isinstance(kept[j], dict) and kept[j].get("name") == name:
        q = kept[j].get("qpos")
        try:
            q = [float(v) for v in q] if q is not None else None
        except (TypeError, ValueError):
            q = None
        if q is not None and len(q) == 7 and all(math.isfinite(v) for v in q):
            return q
    return list(pose)


def _placed(g, T):
    """Geometry ``g`` placed by the 4x4 transform ``T`` (itself when ``T`` is the identity)."""
    if g is None or np.array_equal(T, np.eye(4)):
        return g
    return Group([g], transform=T)


def _drawn_and_colliding(parent, made: list) -> list:
    """The geoms ``made`` for a geometry without separate visual geometry once a flat mesh
    among them became a drawn mesh (class ``visual``) and a colliding slab (class
    ``collision``): every other geom is then drawn (a ``visual`` copy) and collides (class
    ``collision``), visual geoms first, as the writer writes what a reading of them gives
    back (a visual and a collision geometry), so that a rewrite is the same file."""
    at = list(parent).index(made[0])
    drawn, colliding = [], []
    for el in made:
        parent.remove(el)
        cls = el.get("class")
        attrs = [(k, v) for k, v in el.attrib.items() if k != "class"]
        if cls in (None, "visual"):
            drawn.append(_classed("visual", attrs))
        if cls in (None, "collision"):
            colliding.append(_classed("collision", attrs))
    out = drawn + colliding
    for k, el in enumerate(out):
        parent.insert(at + k, el)
    return out


def _classed(cls: str, attrs: list) -> etree._Element:
    el = etree.Element("geom")
    el.set("class", cls)
    for k, v in attrs:
        el.set(k, v)
    return el


def _inertial_element(it, written=None) -> etree._Element:
    """``<inertial>``: ``diaginertia`` for a diagonal inertia, ``fullinertia`` where MuJoCo's
    eigen-decomposition is safely valid, else ``quat`` + ``diaginertia`` of our own, chosen
    so that the MJCF reader's tensor of them gives them back (a fixed point). ``written``:
    the ``quat`` + ``diaginertia`` an MJCF file gave this link, written again while they
    still make exactly this tensor (a near-degenerate tensor may have no fixed point)."""
    el = etree.Element("inertial", pos=_fmt(it.com), mass=fmt_float(it.mass))
    I, w = it.inertia, it.moments
    if np.all(I == np.diag(np.diag(I))):
        el.set("diaginertia", _fmt(np.diag(I)))
        return el
    if written is not None and not it.changes:
        el.set("quat", _fmt(written[:4]))
        el.set("diaginertia", _fmt(written[4:]))
        return el
    a, b, c = np.sort(w)
    if a >= 2 * _inertia.MJ_EPS and a + b >= c * (1 + 1e-9):
        el.set("fullinertia", _fmt((I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2])))
    else:
        # moments are rounding only against the largest (b2's 4e-15 kg sensor links have
        # moments of 1.68e-27 kg m^2, which the angles' absolute 1e-12 wrote as 0)
        scale = float(np.abs(w).max(initial=0.0))
        p = stable_params(I, _principal_params(it), inertia_matrix, (1,) * 7,
                          tiny=(1e-12,) * 4 + (1e-12 * scale,) * 3)
        a, b, c = sorted(p[4:])
        if not (a + b >= c and a >= 0):      # a neighbour MuJoCo would refuse: the prepared form
            p = tuple(matrix_to_quat(it.axes)) + tuple(w)
        el.set("quat", _fmt(p[:4]))
        el.set("diaginertia", _fmt(p[4:]))
    return el


def _written_principal(owner):
    """The ``quat`` + ``diaginertia`` an MJCF reading kept for a link or rigid object, None
    when there is none or its inertia changed since it was read."""
    written = owner.extras.get("mjcf", {}).get("principal_inertia")
    if written is None or not np.array_equal(written[1], owner.inertia):
        return None
    return written[0]


def _principal_params(it):
    """``derive`` for :func:`stable_params`: ``(quat, diaginertia)`` of a tensor (the
    prepared principal form for the tensor itself)."""
    def derive(M):
        if np.array_equal(M, it.inertia):
            return np.concatenate([matrix_to_quat(it.axes), it.moments])
        w, V = symmetric_eigen3((M + M.T) / 2)      # (no LAPACK: same digits on any machine)
        return np.concatenate([matrix_to_quat(V), w])
    return derive


_ORDER = {"freejoint": 0, "joint": 0, "inertial": 1, "geom": 2, "site": 2, "body": 3}


def _tidy(parent):
    """Children of ``parent`` and of every body in it in the order joints, inertial, geoms,
    bodies (stable; the world's geoms, terrains, before its bodies: a reading numbers the
    terrains so)."""
    for body in [parent] + list(parent.iter("body")):
        kids = sorted(body, key=lambda e: _ORDER.get(e.tag, 4))
        for e in kids:
            body.append(e)


class _Quiet:
    """A report stand-in for renames that need no report (asset and equality names)."""

    def lose(self, *a, **k):
        pass


def _leaves(g, T=None):
    """(geometry, 4x4 transform to the owner frame) of every non-group piece of ``g``."""
    if g is None:
        return
    M = compose(np.eye(4) if T is None else T, g.transform)
    if isinstance(g, Group):
        for c in g.children:
            yield from _leaves(c, M)
    else:
        yield g, M


def _scatter_axes(points) -> tuple:
    """``(w, V)``: eigenvalues (ascending) and axes of the scatter matrix of ``points``
    about their mean (the squared singular values and right singular vectors of the
    centred points), computed element-wise (no LAPACK: the same on any machine)."""
    d = np.asarray(points, float) - np.asarray(points, float).mean(axis=0)
    S = np.array([[float(np.sum(d[:, i] * d[:, j])) for j in range(3)] for i in range(3)])
    return symmetric_eigen3(S)


def _flat(points) -> bool:
    if len(points) < 4:
        return True
    w = _scatter_axes(points)[0]            # squared singular values, ascending
    return math.sqrt(max(w[0], 0.0)) <= _FLAT_REL * math.sqrt(max(w[2], 0.0))


def _slab(pts, faces) -> tuple:
    """A thin box whose top face holds the flat mesh ``pts``/``faces`` (in the mesh frame):
    ``(half sizes, pose 4x4 in the mesh frame, thickness, exact)``; ``exact`` when the mesh
    fills its bounding rectangle (so the box top is the mesh surface)."""
    c = pts.mean(axis=0)
    R = _scatter_axes(pts)[1][:, ::-1].copy()   # columns: in-plane axes, then the normal
    tri = pts[faces]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]).sum(axis=0)
    if n[0] * R[0, 2] + n[1] * R[1, 2] + n[2] * R[2, 2] < 0:
        R[:, 2] = -R[:, 2]
    if det3(R) < 0:
        R[:, 0] = -R[:, 0]
    local = transform_points(make_transform(R.T), pts - c)
    lo, hi = local.min(axis=0), local.max(axis=0)
    half = (hi - lo) / 2
    t = max(half[0], half[1]) * 1e-2
    area = 0.5 * vector_norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])).sum()
    exact = abs(area - 4 * half[0] * half[1]) <= 1e-9 * area
    center = c + transform_points(make_transform(R), np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, -t]))
    return np.array([half[0], half[1], t]), make_transform(R, center), t, exact


def _joint_motion(link, q) -> np.ndarray:
    from ...transforms import axis_angle_to_matrix
    w = np.asarray(link.axis, float)
    if link.joint_type == "prismatic":
        return make_transform(np.eye(3), q * w)
    n = float(vector_norm(w))
    return make_transform(axis_angle_to_matrix(w / n, q * n) if n else np.eye(3), np.zeros(3))


