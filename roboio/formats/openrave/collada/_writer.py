"""roboio Robot -> COLLADA 1.5 with OpenRAVE's robot extensions (spec ``collada.md`` §15).

The file follows OpenRAVE's own writer (the tested template), so that OpenRAVE reads it
back to the same kinematics, and roboio's reader (which follows OpenRAVE's) too.

Structure. Every roboio link becomes a COLLADA ``<link>`` except the massless intermediate
links the OpenRAVE mapping adds (``extras["openrave"]["intermediate"]``), which fold back
into their OpenRAVE joint: a joint whose axis does not pass through its child's origin is
written as OpenRAVE writes it, ``attachment (joint frame) . motion . child's own transform``.
Links nest by ``<attachment_full>`` depth first, children in roboio's order, so the link
order OpenRAVE rebuilds is roboio's whenever roboio's order is depth first. A root that moves
relative to the world (Klamp't floating bases), or several roots, get an added fixed root
link (reported).

Joints. ``revolute``/``prismatic`` with hard ``<limits>`` (degrees / metres; no finite limits
on a revolute joint: circular); ``axis_info`` ``active`` for DOFs only (welds and mimic
joints are passive; joints no driver moves are written as welds where ``robot.config``
holds them, their motion at that value in the weld's frame, since OpenRAVE holds a passive
joint at 0 and a floating base must keep its height; a driver that moves a weld with scale
0 is OpenRAVE's active static joint, limits 0..0); speeds and accelerations in deg/s, deg/s^2 (motion
system). The DOF order is the drivers' order: one ``attach_actuator`` per DOF in order.
Affine drivers become mimic ``<formula>``s ``q = offset + scale * master`` (MathML, with
OpenRAVE's technique and correct partial derivatives).

Geometry, mass, extras. Meshes baked into the link frame (``<triangles>``); boxes, spheres and
cylinders as OpenRAVE ``geometry_info`` primitives (``cylinderz``) plus a tessellated mesh for
other tools; phong materials (per geometry when the model has OpenRAVE colours, else the
link colour); rigid bodies with principal inertia and ``mass_frame`` in the body frame at
the written frames' configuration (0, held joints at their values; the physics model's
parent is the identity node ``visual1``); manipulators, attached
sensors and self-collision exclusions (``ignore_link_pair``).

Exact re-writing. A model read from COLLADA keeps (``robot.extras["collada"]``) the texts of
the file for every joint and link together with a fingerprint of the model values they
produced; where the model is unchanged, the writer writes those texts again, so write ->
read -> write gives identical bytes although reading turns degrees into radians and composes
frames (rounding). Edited parts are written from the model.

``authoring_tool`` is ``roboio ...`` (never exactly ``OpenRAVE Collada Writer``, which would
switch OpenRAVE to radians). Everything the file cannot hold is reported with
``report.lose``.
"""
from __future__ import annotations

import hashlib
import io
import math
import os
import zipfile
from typing import Optional

import numpy as np
from lxml import etree

from ....errors import OutputError
from ....model import Group, PointCloud, Primitive, Robot, TriangleMesh
from ....model.geometry import leaf_appearances
from ....transforms import compose, det3, symmetric_eigen3, transform_points, vector_norm
from ...affine import link_poses, nearest_rotation
from ....model.coupling import without_clamp
from ...fileio import fmt_float
from ...fk_change import FK_SAMPLES, fk_change, fk_loss_kind, note_fk_change
from ...naming import Namespace, joint_names, say_unwritten
from .._held import held_at, held_value
from .._multiaxis import axis_chains, continues_joint, report_folded_names

__all__ = ["dumps", "document", "AUTHORING_TOOL", "fingerprint"]

NS = "http://www.collada.org/2008/03/COLLADASchema"
MATHML = "http://www.w3.org/1998/Math/MathML"
AUTHORING_TOOL = "roboio (OpenRAVE COLLADA robot extensions 0.3.5)"
RAD2DEG = 180.0 / math.pi
_SEG = 16
_XML_TO_Z = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])     # Rx(90): OpenRAVE's y -> z turn


def _f(x) -> str:
    return fmt_float(float(x))


def _fs(values) -> str:
    return " ".join(_f(v) for v in values)


def _matrix_text(T) -> str:
    return _fs(np.asarray(T, float).reshape(16))


def _openrave_name(name: str) -> str:
    """``name`` as OpenRAVE's COLLADA reader keeps it: characters below '!' become '_'."""
    return "".join("_" if ord(ch) < 33 else ch for ch in name)


def _is_identity(T) -> bool:
    return np.array_equal(np.asarray(T, float), np.eye(4))


class _E:
    """A small element builder (COLLADA namespace unless told otherwise)."""

    def __init__(self, tag, up=None, text=None, ns=NS, **attrib):
        name = f"{{{ns}}}{tag}"
        if up is None:
            self.el = etree.Element(name, nsmap={None: ns})
        elif up.el.nsmap.get(None) != ns:
            self.el = etree.SubElement(up.el, name, nsmap={None: ns})
        else:
            self.el = etree.SubElement(up.el, name)
        for k, v in attrib.items():
            if v is not None:
                self.el.set(k.rstrip("_"), str(v))
        if text is not None:
            self.el.text = text

    def add(self, tag, text=None, **attrib):
        return _E(tag, self, text, ns=etree.QName(self.el).namespace, **attrib)


def fingerprint(*arrays) -> str:
    """A digest of model values (numbers, strings, arrays) used to tell whether a part of a
    model read from COLLADA is unchanged."""
    h = hashlib.sha1()
    for a in arrays:
        if isinstance(a, str):
            h.update(b"s" + a.encode("utf-8", "surrogatepass"))
        else:
            arr = np.ascontiguousarray(np.asarray(a, dtype=float))
            h.update(b"a" + str(arr.shape).encode() + arr.tobytes())
    return h.hexdigest()


def joint_fingerprint(robot: Robot, seg: list, joint_of=None) -> str:
    """Fingerprint of the model links of one COLLADA joint (its segments, child last);
    ``joint_of``: ``robot.joints_of_links()`` when the caller asks for many joints."""
    parts = []
    for i in seg:
        l = robot.links[i]
        j = joint_of.get(i) if joint_of is not None else robot.joint_of_link(i)
        parts += [l.name, str(l.parent), l.joint_type, j.type if j is not None else "normal",
                  l.parent_transform, l.axis, [robot.qmin[i], robot.qmax[i], robot.vmin[i],
                                               robot.vmax[i], robot.amax[i]]]
    return fingerprint(*parts)


def mass_fingerprint(robot: Robot, i: int, T0) -> str:
    l = robot.links[i]
    return fingerprint(l.name, [l.mass], l.com, l.inertia, T0)


# ------------------------------------------------------------------ tessellations for viewers
def _box_mesh(h):
    c = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * h
    f = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return c, f


def _cylinder_mesh(r, h):
    phi = 2 * math.pi * np.arange(_SEG) / _SEG
    ring = np.stack([r * np.cos(phi), r * np.sin(phi), np.zeros(_SEG)], 1)
    v = np.concatenate([ring + [0, 0, -h / 2], ring + [0, 0, h / 2], [[0, 0, -h / 2], [0, 0, h / 2]]])
    j = np.arange(_SEG)
    k = (j + 1) % _SEG
    f = np.concatenate([np.stack([j, k, k + _SEG], 1), np.stack([j, k + _SEG, j + _SEG], 1),
                        np.stack([np.full(_SEG, 2 * _SEG), k, j], 1),
                        np.stack([np.full(_SEG, 2 * _SEG + 1), j + _SEG, k + _SEG], 1)])
    return v, f


def _sphere_mesh(r):
    stacks = _SEG // 2
    verts = [[0, 0, -r]]
    for i in range(1, stacks):
        th = -math.pi / 2 + math.pi * i / stacks
        for k in range(_SEG):
            ph = 2 * math.pi * k / _SEG
            verts.append([r * math.cos(th) * math.cos(ph), r * math.cos(th) * math.sin(ph), r * math.sin(th)])
    verts.append([0, 0, r])
    top = len(verts) - 1
    faces = [[0, 1 + (k + 1) % _SEG, 1 + k] for k in range(_SEG)]
    for i in range(stacks - 2):
        a, b = 1 + i * _SEG, 1 + (i + 1) * _SEG
        for k in range(_SEG):
            k2 = (k + 1) % _SEG
            faces += [[a + k, a + k2, b + k2], [a + k, b + k2, b + k]]
    last = 1 + (stacks - 2) * _SEG
    faces += [[top, last + k, last + (k + 1) % _SEG] for k in range(_SEG)]
    return np.array(verts, float), np.array(faces)


def _capsule_mesh(r, h):
    """Capsule along z: cylinder from z = 0 to h, hemispheres beyond both ends."""
    stacks = _SEG // 4
    rings = []
    for i in range(stacks, 0, -1):            # lower hemisphere, bottom up
        th = math.pi / 2 * i / stacks
        rings.append((r * math.cos(th), -r * math.sin(th)))
    rings.append((r, 0.0))
    rings.append((r, h))
    for i in range(1, stacks):
        th = math.pi / 2 * i / stacks
        rings.append((r * math.cos(th), h + r * math.sin(th)))
    return _lathe(rings, -r, h + r)


def _cone_mesh(r, h):
    return _lathe([(r, 0.0)], 0.0, h)


def _lathe(rings, bottom, top):
    """Closed surface of revolution about z: rings (radius, z) bottom to top, poles."""
    phi = 2 * math.pi * np.arange(_SEG) / _SEG
    verts = [[0.0, 0.0, bottom]]
    for rr, z in rings:
        verts += [[rr * math.cos(p), rr * math.sin(p), z] for p in phi]
    verts.append([0.0, 0.0, top])
    faces = [[0, 1 + (k + 1) % _SEG, 1 + k] for k in range(_SEG)]
    for i in range(len(rings) - 1):
        a, b = 1 + i * _SEG, 1 + (i + 1) * _SEG
        for k in range(_SEG):
            k2 = (k + 1) % _SEG
            faces += [[a + k, a + k2, b + k2], [a + k, b + k2, b + k]]
    last, top_i = 1 + (len(rings) - 1) * _SEG, len(verts) - 1
    faces += [[top_i, last + k, last + (k + 1) % _SEG] for k in range(_SEG)]
    return np.array(verts, float), np.array(faces)


def _leaves(g, T):
    """(geometry, transform to the link frame) of every non-group geometry of ``g``."""
    if g is None:
        return []
    T = compose(T, np.asarray(g.transform, float))
    if isinstance(g, Group):
        out = []
        for c in g.children:
            out.extend(_leaves(c, T))
        return out
    return [(g, T)]


def _rigid(T, tol=1e-9) -> bool:
    R = T[:3, :3]
    return (np.allclose(compose(R.T, R), np.eye(3), atol=tol) and det3(R) > 0
            and np.allclose(T[3], [0, 0, 0, 1]))


def _frame(R, origin):
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = origin
    return T


def _z_to(a) -> np.ndarray:
    """A rotation taking z onto the line of unit vector ``a`` (exact for the axes OpenRAVE
    uses: identity for z, OpenRAVE's Rx(90) for y)."""
    if a[0] == 0 and a[1] == 0:
        return np.eye(3) if a[2] > 0 else np.diag([1.0, -1.0, -1.0])
    if a[0] == 0 and a[2] == 0:
        return _XML_TO_Z.copy()
    v = np.cross([0.0, 0.0, 1.0], a)
    s, c = float(vector_norm(v)), float(a[2])
    K = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + K + compose(K, K) * ((1 - c) / (s * s))


class _Joint:
    """One COLLADA joint: ``segs`` model links (DOF segments then possibly the child as a
    weld), ``child`` the model link that is the COLLADA child link, ``parent`` the model
    index of the COLLADA parent link (-1: the added world root). ``directions``: for a
    multi-axis joint, each axis in the joint frame (one axis: the link's own axis)."""

    def __init__(self, child, parent, segs, axes_links, att, own, directions=None):
        self.child, self.parent, self.segs = child, parent, segs
        self.axes_links = axes_links              # model links carrying the axes (in order)
        self.att, self.own = att, own
        self.directions = directions
        self.name = ""
        self.active = False
        self.static = False
        self.passive = False          # no driver moves it: written rigid (see name_joints)
        self.sid = ""


class _Writer:
    def __init__(self, robot: Robot, report, path: Optional[str]):
        self.robot = robot
        self.report = report
        self.path = path
        self.n = robot.num_links
        self.lost: dict = {}
        self.unused_vertices: dict = {}      # link name -> mesh vertices no triangle uses
        mem = robot.extras.get("collada") if isinstance(robot.extras.get("collada"), dict) else None
        self.memory = mem or {}

    def lose(self, what: str, item: str, **kind) -> None:
        self.lost.setdefault(what, []).append((item, kind))

    def flush_lost(self) -> None:
        for what, items in self.lost.items():   # every item named: a loss says what it concerns
            for item, kind in items:
                self.report.lose(what, item, **kind)
        if self.unused_vertices:
            self.report.warn("mesh vertices no triangle uses are not written: " + ", ".join(
                f"{name} ({n})" for name, n in self.unused_vertices.items()))

    # -------------------------------------------------------------- model -> COLLADA structure
    def _oe(self, i) -> dict:
        e = self.robot.links[i].extras.get("openrave")
        return e if isinstance(e, dict) else {}

    def analyse(self) -> None:
        r = self.robot
        n = self.n
        children = {i: [] for i in range(-1, n)}
        for l in r.links:
            children[l.parent].append(l.index)
        if not children[-1]:
            raise OutputError(None, "robot has no links")
        self.group = {}
        self.joint_of = joint_of = r.joints_of_links()
        for l in r.links:
            j = joint_of.get(l.index)
            self.group[l.index] = j.type if j is not None else "normal"
        self.rotations_only()
        # which model links are COLLADA links: all but the links of a multi-axis joint before
        # its child link, and foldable intermediates
        self.is_clink = [True] * n
        chains, refused = axis_chains(r, self.frame)
        in_chain = set()
        for c in chains.values():
            in_chain.update(c.links)
            for k in c.links[:-1]:
                self.is_clink[k] = False
            report_folded_names(r, c, self.report)
        for jname, why, _ in refused:
            self.lose("multi-axis joints written as one joint per axis", f"{jname} ({why})",
                      kind="changed", noun="joint")
        fold_into = {}
        for i in range(n):
            e = self._oe(i)
            if not e.get("intermediate") or i in in_chain:
                continue
            kids = children[i]
            if (len(kids) == 1 and r.links[kids[0]].name == e.get("of_link")
                    and self.group[kids[0]] == "weld" and self.group[i] != "weld"):
                self.is_clink[i] = False
                fold_into[kids[0]] = i
        self.clink_of = list(range(n))        # links come after their parents: children first
        for i in range(n - 1, -1, -1):
            if not self.is_clink[i] and children[i]:
                self.clink_of[i] = self.clink_of[children[i][0]]
        # joints: one per COLLADA link that has a COLLADA parent
        self.joints = []
        self.joint_of_child = {}
        roots = [i for i in children[-1]]
        first = roots[0]
        self.world_root = None
        if self.group[first] != "weld" or len(roots) > 1:
            names = set(r.link_names)
            self.world_root = "world" if "world" not in names else "__world__"
            self.report.lose("the robot's root moves relative to the world (or it has several "
                             f"roots): written with an added fixed root link {self.world_root!r}",
                             kind="changed")
        for i in range(n):
            if not self.is_clink[i]:
                continue
            l = r.links[i]
            c = chains.get(i)
            if c is not None:
                J = _Joint(i, c.parent, list(c.links), list(c.axes), c.att, c.own, c.directions)
            elif i in fold_into:
                x = fold_into[i]
                p = r.links[x].parent
                J = _Joint(i, p, [x, i], [x], self.frame(x), self.frame(i))
            elif l.parent >= 0 or self.world_root:
                J = _Joint(i, l.parent, [i], [i], self.frame(i), np.eye(4))
            else:
                continue
            self.joints.append(J)
            self.joint_of_child[i] = J
        self.name_links()
        self.clink_children = {i: [] for i in range(-1, n)}
        for J in self.joints:
            self.clink_children[J.parent].append(J.child)
        self.number_links()
        self.joints.sort(key=lambda J: self.num[J.child])     # (in the order they are read back)
        # DOFs from the drivers, mimic joints
        self.dof_joints = []                # (driver, _Joint) in driver order
        self.mimic = {}                     # _Joint -> (master _Joint, scale, offset)
        axis_owner = {}
        for J in self.joints:
            for x in J.axes_links:
                axis_owner[x] = J
        self.formulas = {}                  # _Joint -> (driver, position of its function)
        for d in r.drivers:
            if d.type == "nonlinear" and d.leader in d.dofs:
                J = axis_owner.get(d.leader) or self.joint_of_child.get(d.leader)
                if J is None:
                    self.lose("drivers of the root link (OpenRAVE's root does not move)", d.name,
                              kind="not written", noun="driver")
                    continue
                J.active = True
                self.dof_joints.append((d, J))
                for k, dof in enumerate(d.dofs):
                    F = axis_owner.get(dof) or self.joint_of_child.get(dof)
                    if dof == d.leader:
                        continue
                    if F is None or F is J:
                        self.lose("coupling terms OpenRAVE cannot express", f"{d.name}: {r.links[dof].name}",
                                  kind="not written")
                        continue
                    self.formulas[F] = (d, k)
                continue
            if d.type not in ("normal", "affine") or not d.dofs:
                self.lose("drivers that are forces or moments, or move nothing", d.name,
                          kind="not written", noun="driver")
                continue
            if d.type == "normal":
                mk = 0
            else:
                # the master joint: the actuated one (Driver.leader) when it is the driver's
                # value, else the first that is, else the first that moves
                cand = [k for k, (s, o) in enumerate(zip(d.scale, d.offset)) if s == 1 and o == 0]
                lead = [k for k in cand if d.dofs[k] == d.leader]
                mk = (lead or cand or [next((k for k, s in enumerate(d.scale) if s != 0), 0)])[0]
            m = d.dofs[mk]
            J = axis_owner.get(m)
            if J is None:
                J = self.joint_of_child.get(m)
            if J is None:
                self.lose("drivers of the root link (OpenRAVE's root does not move)", d.name,
                          kind="not written", noun="driver")
                continue
            sm = d.scale[mk] if d.type == "affine" else 1.0
            om = d.offset[mk] if d.type == "affine" else 0.0
            if self.group[m] == "weld" or sm == 0:
                J.static = True
            elif not (sm == 1 and om == 0):
                self.lose("affine drivers whose value is not a joint value (OpenRAVE's DOF is the "
                          "master joint's value)", f"{d.name} (scale {sm:g}, offset {om:g})",
                          kind="changed", noun="driver")
            J.active = True
            self.dof_joints.append((d, J))
            if d.type != "affine" or sm == 0:
                continue
            for k, dof in enumerate(d.dofs):
                if k == mk:
                    continue
                F = axis_owner.get(dof) or self.joint_of_child.get(dof)
                if F is None or F is J:
                    self.lose("affine driver terms OpenRAVE cannot express", f"{d.name}: {r.links[dof].name}",
                              kind="not written")
                    continue
                if all(r.qmin[x] >= r.qmax[x] for x in F.axes_links):
                    # a coupled joint without range never moves: written rigid, as read back
                    self.lose("couplings of joints without range (written rigid)",
                              f"{d.name}: {r.links[dof].name}")
                    continue
                self.mimic[F] = (J, d.scale[k] / sm, d.offset[k] - d.scale[k] * om / sm)
        # names and roles: the source's joint name (OpenRAVE names a DOF after its joint),
        # else the driver's, else the OpenRAVE joint's it was read from, else <link>_joint
        source = joint_names(r)
        wanted = []
        for J in self.joints:
            e = self._oe(J.child)
            jd = e.get("joint") if isinstance(e.get("joint"), dict) else {}
            drv = next((d for d, K in self.dof_joints if K is J), None)
            name = next((source[k] for k in J.axes_links + J.segs if source[k] is not None), None)
            if name is None and drv is not None and drv.name:
                name = drv.name
            if name is None and not continues_joint(r, J.segs[0]):
                name = jd.get("name") or None    # (a further axis keeps its driver's name)
            wanted.append(name)
        space = Namespace(self.report, "joints", _openrave_name)
        got = space.assign(wanted, [f"{self.lname[J.child]}_joint" for J in self.joints])
        say_unwritten(r, {k for J in self.joints for k in J.segs}, self.report,
                      "OpenRAVE's root link has no joint")
        for J, name in zip(self.joints, got):
            J.name = name
            J.sid = f"joint{self.num[J.child]}"
            if not J.active and J not in self.mimic and J not in self.formulas and \
                    self.group[J.axes_links[0]] != "weld":
                self.hold(J)
        self.q_held = np.zeros(self.n)      # the configuration the written frames are at
        for J in self.joints:
            if J.passive:
                for x in J.axes_links:
                    self.q_held[x] = held_value(r, x)

    def hold(self, J) -> None:
        """Write joint ``J``, which no driver moves, as a weld where the robot's
        configuration holds it: OpenRAVE holds a passive joint at 0, and roboio reads it as a
        weld (so that what is read back is written the same), so the joint's motion at
        ``robot.config`` goes into its attachment frame (a floating base keeps its height)."""
        r = self.robot
        J.passive = True
        for x in J.axes_links:    # (one axis: a joint of several is a chain of driven axes)
            J.att = compose(J.att, r.links[x].joint_motion(held_value(r, x)))
        c = J.axes_links[0]
        self.lose("joints no driver moves (written passive, as rigid joints where the robot's "
                  "configuration holds them: OpenRAVE holds a passive joint at 0; axis and "
                  "range lost)", f"{r.links[c].name} ({held_at(r, J.axes_links)}; range "
                  f"[{r.qmin[c]:.4g}, {r.qmax[c]:.4g}])", kind="changed", noun="link")

    def number_links(self) -> None:
        """``self.num``: the number in the sids and ids of each COLLADA link (and ``None``:
        the added world root), in the order the document lists them (depth first, the world
        root first), which is the order a reader numbers the links it reads: a model read
        back from the file is written with the same sids (write -> read -> write is a fixed
        point), whatever the source's link numbering was."""
        if self.world_root:
            order, stack = [None], list(reversed(self.clink_children[-1]))
        else:
            first = [i for i in range(self.n) if self.robot.links[i].parent < 0][0]
            order, stack = [], [first]
        while stack:
            c = stack.pop()
            order.append(c)
            stack.extend(reversed(self.clink_children[c]))
        self.num = {c: k for k, c in enumerate(order)}
        for i in range(self.n):                 # (links the document does not reach)
            if self.is_clink[i] and i not in self.num:
                self.num[i] = len(self.num)

    def rotations_only(self) -> None:
        """OpenRAVE keeps a link transform as a unit quaternion and a translation: a parent
        transform whose rotation part is not a rotation is written as the nearest rotation
        (``self.frame``), and the FK change this makes is measured into ``report.fk_error``
        and stated."""
        self.frames = {}
        for l in self.robot.links:
            T = np.asarray(l.parent_transform, float)
            R, err = nearest_rotation(T[:3, :3])
            if err > 0 or not np.array_equal(T[3], [0.0, 0.0, 0.0, 1.0]):
                F = np.eye(4)
                F[:3, :3], F[:3, 3] = R, T[:3, 3]
                self.frames[l.index] = F
                self.lose("parent transforms that are not rotations (written as the nearest "
                          "rotation; OpenRAVE keeps a unit quaternion)", f"{l.name} ({err:.1e})",
                          kind="approximated", noun="link")
        if self.frames:
            pos, rot = fk_change(self.robot, self.frames)
            note_fk_change(self.report, pos, rot)
            self.report.lose(f"link frames move by up to {pos:.1e} m (rotation matrix entries by "
                             f"{rot:.1e}) over {FK_SAMPLES} sampled configurations (nearest "
                             "rotations written)", kind=fk_loss_kind(pos, rot))

    def frame(self, i: int) -> np.ndarray:
        """The parent transform of link ``i`` as written (a rotation and a translation)."""
        F = self.frames.get(i)
        return F.copy() if F is not None else np.asarray(self.robot.links[i].parent_transform, float)

    def name_links(self) -> None:
        """``self.lname``: the name each COLLADA link is written with, as OpenRAVE reads it
        back: characters below '!' become '_', an empty name becomes ``linkN``, and a name
        already taken gets a suffix (OpenRAVE makes two links of one name the same link).
        Each change goes into ``report.renamed``."""
        r = self.robot
        written = [i for i in range(self.n) if self.is_clink[i]]
        space = Namespace(self.report, "links", _openrave_name,
                          {self.world_root} if self.world_root else ())
        self.lname = dict(zip(written, space.assign([r.links[i].name for i in written],
                                                    [f"link{i}" for i in written])))

    # -------------------------------------------------------------- per joint values
    def kind(self, J, k: int = 0) -> str:
        """``weld``, ``spin`` or ``normal``: the joint's axis ``k`` as written."""
        x = J.axes_links[k]
        if J.static or J.passive or self.group[x] == "weld":
            return "weld"
        return "spin" if self.group[x] == "spin" else "normal"

    def kinds(self, J) -> list:
        return [self.kind(J, k) for k in range(len(J.axes_links))]

    def axis_direction(self, J, k: int = 0) -> np.ndarray:
        """Axis ``k`` of joint ``J`` in the joint frame, as the model gives it."""
        if J.directions is not None:
            return np.asarray(J.directions[k], float)
        return np.asarray(self.robot.links[J.axes_links[k]].axis, float)

    def limits(self, J, axis: int = 0):
        """Hard limits of axis ``axis`` (degrees / metres), None for a circular axis."""
        r = self.robot
        x = J.axes_links[axis]
        l = r.links[x]
        k = self.kind(J, axis)
        if k == "weld":
            return (0.0, 0.0)
        lo, hi = float(r.qmin[x]), float(r.qmax[x])
        if l.is_prismatic:
            if not (math.isfinite(lo) and math.isfinite(hi)):
                self.lose("unlimited prismatic joints (OpenRAVE limits them to +-1e6 m)", l.name,
                          kind="target default", noun="link")
                lo = lo if math.isfinite(lo) else -1e6
                hi = hi if math.isfinite(hi) else 1e6
            return (lo, hi)
        if k == "spin" or not (math.isfinite(lo) and math.isfinite(hi)):
            return None                       # circular
        return (lo * RAD2DEG, hi * RAD2DEG)

    def remembered(self, J) -> Optional[dict]:
        """The texts the joint was read with, if the model still matches them."""
        mem = self.memory.get("joints", {}).get(self.robot.links[J.child].name)
        if not isinstance(mem, dict) or mem.get("fingerprint") != joint_fingerprint(self.robot, J.segs, self.joint_of):
            return None
        if mem.get("active") != J.active or mem.get("kinds") != self.kinds(J):
            return None
        return mem

    # -------------------------------------------------------------- geometry
    def geometries(self, i: int):
        """(kind, params, frame, vertices, faces, diffuse, transparency, visible) of link i."""
        l = self.robot.links[i]
        out = []
        leaves = _leaves(l.geometry, np.eye(4))
        if l.visual_geometry is not None:
            visible = [g for g, _ in leaves if (g.extras.get("openrave") or {}).get("visible", True)]
            vis_leaves = _leaves(l.visual_geometry, np.eye(4))
            if len(vis_leaves) != len(visible):
                self.lose("separate visual geometry (COLLADA links have one geometry set; the "
                          "collision geometry is written)", l.name, kind="not written", noun="link")
        apps = leaf_appearances(l.geometry, l.appearance)      # (a piece's own colour)
        for (g, T), app in zip(leaves, apps):
            link_color = app.color if app is not None else None
            ex = g.extras.get("openrave") or {}
            diffuse, transparency = link_color, None
            if ex.get("diffuse") is not None:
                diffuse = tuple(ex["diffuse"])
                transparency = ex.get("transparency")
            elif link_color is not None and len(link_color) == 4:
                diffuse, transparency = tuple(link_color[:3]), 1.0 - link_color[3]
            if transparency is not None and transparency >= 1.0:
                # OpenRAVE reads a transparency >= 1 as a mistake and draws the piece opaque:
                # written opaque, which is what it shows and what a reading gives back
                self.lose("fully transparent geometry (OpenRAVE draws transparency 1 opaque)",
                          l.name, kind="read differently", noun="link")
                transparency = 0.0
            visible = bool(ex.get("visible", True))
            if g.missing:
                self.lose("missing mesh files", f"{l.name}: {g.source.reference if g.source else '?'}",
                          kind="missing file")
                continue
            if isinstance(g, PointCloud):
                self.lose("point clouds", l.name, kind="not written", noun="link")
                continue
            if isinstance(g, Primitive):
                prim = self.primitive(g, T, l.name)
                if prim is not None:
                    out.append(prim + (diffuse, transparency, visible))
                continue
            if isinstance(g, TriangleMesh):
                V = np.asarray(g.vertices, float)
                F = np.asarray(g.faces, np.int64)
                if len(F) == 0:
                    continue
                used = np.unique(F)
                if len(used) < len(V):
                    # COLLADA's readers keep the vertices a triangle uses: written without the
                    # others, so that what is read back is written the same
                    self.unused_vertices[l.name] = self.unused_vertices.get(l.name, 0) + len(V) - len(used)
                    V, F = V[used], np.searchsorted(used, F)
                Vl = V if _is_identity(T) else transform_points(T, V)
                if det3(T[:3, :3]) < 0:
                    F = F[:, ::-1]
                if g.face_colors is not None or g.vertex_colors is not None:
                    self.lose("per-face/per-vertex mesh colours", l.name, kind="not written", noun="link")
                out.append(("trimesh", {}, np.eye(4), Vl, F, diffuse, transparency, visible))
        return out

    def primitive(self, g: Primitive, T, link: str):
        p, k = g.params, g.primitive
        if not _rigid(T):
            self.lose("primitives under a scaling transform (not written)", f"{link}: {k}",
                      kind="not written")
            return None
        if k in ("Box", "AABB"):
            if k == "AABB":
                lo, hi = np.asarray(p["bmin"], float), np.asarray(p["bmax"], float)
                B, origin, dims = np.eye(3), lo, hi - lo
            else:
                B = np.stack([np.asarray(p[a], float) for a in ("xaxis", "yaxis", "zaxis")], 1)
                origin, dims = np.asarray(p["origin"], float), np.asarray(p["dims"], float)
                if not np.allclose(compose(B.T, B), np.eye(3), atol=1e-12) or det3(B) < 0:
                    self.lose("boxes with non-orthonormal axes (not written)", link, kind="not written",
                              noun="link")
                    return None
            h = dims / 2
            F = compose(T, _frame(B, origin + compose(B, h.reshape(3, 1))[:, 0]))
            v, f = _box_mesh(h)
            return ("box", {"half_extents": h}, F, v, f)
        if k == "Sphere":
            F = compose(T, _frame(np.eye(3), np.asarray(p["center"], float)))
            v, f = _sphere_mesh(float(p["radius"]))
            return ("sphere", {"radius": float(p["radius"])}, F, v, f)
        if k == "Cylinder":
            a = np.asarray(p["axis"], float)
            n = float(vector_norm(a))
            if n == 0:
                self.lose("cylinders with a zero axis (not written)", link, kind="not written", noun="link")
                return None
            a = a / n
            h = float(p["height"])
            F = compose(T, _frame(_z_to(a), np.asarray(p["center"], float) + a * (h / 2)))
            v, f = _cylinder_mesh(float(p["radius"]), h)
            return ("cylinder", {"radius": float(p["radius"]), "height": h}, F, v, f)
        if k in ("Capsule", "Cone"):
            a = np.asarray(p["axis"], float)
            n = float(vector_norm(a))
            if n > 0:
                a = a / n
                h, rad = float(p["height"]), float(p["radius"])
                v, f = (_capsule_mesh if k == "Capsule" else _cone_mesh)(rad, h)
                F = _frame(_z_to(a), np.asarray(p["center"], float))
                v = transform_points(F, v)
                self.lose(f"{k.lower()}s (OpenRAVE COLLADA has no such primitive; written as a "
                          f"{_SEG}-sided triangle mesh)", link, kind="approximated", noun="link")
                return ("trimesh", {}, np.eye(4), transform_points(T, v), f)
        if k == "Ellipsoid":
            axes = np.stack([np.asarray(p[a_], float) for a_ in ("xaxis", "yaxis", "zaxis")], 1)
            v, f = _sphere_mesh(1.0)
            v = transform_points(_frame(axes, np.asarray(p["center"], float)), v * np.asarray(p["dims"], float))
            self.lose("ellipsoids (written as a triangle mesh)", link, kind="approximated", noun="link")
            return ("trimesh", {}, np.eye(4), transform_points(T, v), f)
        if k in ("Triangle", "Polygon"):
            v = np.stack([p["a"], p["b"], p["c"]]) if k == "Triangle" else np.asarray(p["vertices"], float).reshape(-1, 3)
            if len(v) >= 3:
                f = np.array([[0, i - 1, i] for i in range(2, len(v))])
                return ("trimesh", {}, np.eye(4), transform_points(T, v), f)
        self.lose(f"{k} primitives (no surface OpenRAVE COLLADA can hold; not written)", link,
                  kind="not written", noun="link")
        return None

    def link_geometry(self, i, node, geoms, effects, materials):
        if i is None:
            return
        written = self.geometries(i)
        if written:
            self.with_geometry.add(i)
        for gi, (kind, params, F, V, Fc, diffuse, transparency, visible) in enumerate(written):
            gid = f"g1_link{self.num[i]}_geom{gi}"
            g = geoms.add("geometry", id=gid, name=gid)
            mesh = g.add("mesh")
            src = mesh.add("source", id=f"{gid}_positions")
            src.add("float_array", _fs(np.asarray(V, float).reshape(-1)), id=f"{gid}_positions-array",
                    count=str(V.size))
            acc = src.add("technique_common").add("accessor", source=f"#{gid}_positions-array",
                                                  count=str(len(V)), stride="3")
            for axn in "XYZ":
                acc.add("param", name=axn, type="float")
            mesh.add("vertices", id=f"{gid}_vertices").add("input", semantic="POSITION",
                                                            source=f"#{gid}_positions")
            tri = mesh.add("triangles", count=str(len(Fc)), material="mat0")
            tri.add("input", offset="0", semantic="VERTEX", source=f"#{gid}_vertices")
            tri.add("p", " ".join(str(int(x)) for x in np.asarray(Fc).reshape(-1)))
            if kind != "trimesh" or not visible:
                tec = g.add("extra", type="geometry_info").add("technique", profile="OpenRAVE")
                if not _is_identity(F):
                    tec.add("matrix", _matrix_text(F))
                if kind == "box":
                    tec.add("box").add("half_extents", _fs(params["half_extents"]))
                elif kind == "sphere":
                    tec.add("sphere").add("radius", _f(params["radius"]))
                elif kind == "cylinder":
                    cz = tec.add("cylinderz")
                    cz.add("radius", _f(params["radius"]))
                    cz.add("height", _f(params["height"]))
                tec.add("visible").add("bool", "true" if visible else "false")
            ig = node.add("instance_geometry", url=f"#{gid}")
            if diffuse is not None:
                eff = effects.add("effect", id=f"{gid}_eff")
                ph = eff.add("profile_COMMON").add("technique", sid="").add("phong")
                alpha = 1.0 - (transparency or 0.0)
                ph.add("diffuse").add("color", _fs(list(diffuse[:3]) + [alpha]))
                ph.add("transparency").add("float", _f(alpha))
                materials.add("material", id=f"{gid}_mat").add("instance_effect", url=f"#{gid}_eff")
                ig.add("bind_material").add("technique_common").add(
                    "instance_material", symbol="mat0", target=f"#{gid}_mat")

    # -------------------------------------------------------------- transforms
    def transform_elements(self, parent, T, remembered=None) -> None:
        """Write ``T`` as a ``<matrix>`` (nothing for the identity), or the remembered
        ``(tag, numbers)`` elements it was read from."""
        if remembered is not None:
            for tag, vals in remembered:
                parent.add(tag, _fs(vals))
            return
        if not _is_identity(T):
            parent.add("matrix", _matrix_text(T))

    # -------------------------------------------------------------- document
    def document(self) -> bytes:
        r = self.robot
        self.analyse()
        name = r.name or "robot"
        root = _E("COLLADA", version="1.5.0")
        asset = root.add("asset")
        asset.add("contributor").add("authoring_tool", AUTHORING_TOOL)
        asset.add("unit", name="meter", meter="1")
        asset.add("up_axis", "Z_UP")
        vscene = root.add("library_visual_scenes").add("visual_scene", id="vscene", name=name)
        visual1 = vscene.add("node", id="visual1", name=name, sid="visual1")
        geoms = root.add("library_geometries")
        effects = root.add("library_effects")
        materials = root.add("library_materials")
        km = root.add("library_kinematics_models").add("kinematics_model", id="kmodel1", name=name)
        ktc = km.add("technique_common")
        self.mem_of = {J: self.remembered(J) for J in self.joints}
        self.with_geometry = set()
        for J in self.joints:
            self.joint_element(ktc, J)
        wk = self.num[None] if self.world_root else None     # number of an added world root
        self.clink_index = {}
        order = []
        links_mem = self.memory.get("links", {})
        if self.world_root:
            klink = ktc.add("link", sid=f"link{wk}", name=self.world_root)
            node = visual1.add("node", id=f"v1.node{wk}", name=self.world_root, sid=f"node{wk}")
            self.root_node = f"node{wk}"
            stack = [(c, klink, node) for c in reversed(self.clink_children[-1])]
        else:
            first = [i for i in range(self.n) if r.links[i].parent < 0][0]
            l0 = r.links[first]
            nf = self.num[first]
            klink = ktc.add("link", sid=f"link{nf}", name=self.lname[first])
            node = visual1.add("node", id=f"v1.node{nf}", name=self.lname[first], sid=f"node{nf}")
            self.root_node = f"node{nf}"
            P0 = self.frame(first)
            mem = links_mem.get(l0.name)
            rem = None
            if isinstance(mem, dict) and mem.get("own") is not None and \
                    mem.get("fingerprint") == fingerprint(l0.name, P0):
                rem = mem["own"]
            self.transform_elements(klink, P0, rem)
            self.transform_elements(node, P0, rem)
            self.link_geometry(first, node, geoms, effects, materials)
            order.append(first)
            stack = [(c, klink, node) for c in reversed(self.clink_children[first])]
        while stack:                      # depth first, children in roboio's order
            c, kparent, vparent = stack.pop()
            J = self.joint_of_child[c]
            order.append(c)
            mem = self.mem_of[J]
            att = kparent.add("attachment_full", joint=f"kmodel1/{J.sid}")
            self.transform_elements(att, J.att, mem["att"] if mem else None)
            klink = att.add("link", sid=f"link{self.num[c]}", name=self.lname[c])
            self.transform_elements(klink, J.own, mem["own"] if mem else None)
            node = vparent.add("node", id=f"v1.node{self.num[c]}", name=self.lname[c], sid=f"node{self.num[c]}")
            self.transform_elements(node, J.att, mem["att"] if mem else None)
            weld = self.kind(J) == "weld" and not J.static
            for k, xk in enumerate(J.axes_links):      # the axes in order, each bound to its value
                if r.links[xk].is_prismatic and not weld:
                    node.add("translate", "0 0 0", sid=f"node_{J.sid}_axis{k}")
                else:
                    axis = np.array([0.0, 0.0, 1.0]) if weld else self.axis_direction(J, k)
                    axis_text = _fs(mem["axes"][k] if mem else axis)
                    node.add("rotate", axis_text + " 0", sid=f"node_{J.sid}_axis{k}")
            self.transform_elements(node, J.own, mem["own"] if mem else None)
            self.link_geometry(c, node, geoms, effects, materials)
            stack.extend((g, klink, node) for g in reversed(self.clink_children[c]))
        clinks = [i for i in range(self.n) if self.is_clink[i]]
        if order != clinks:
            self.report.warn("link order changes when read back (OpenRAVE orders links depth first): "
                             + ", ".join(r.links[i].name for i in order[:6]) + ", ...",
                             kind="read differently")
        for J, (M, s, o) in sorted(self.mimic.items(), key=lambda kv: self.num[kv[0].child]):
            self.formula(ktc, J, M, s, o)
        joint_of_driver = {id(d): K for d, K in self.dof_joints}
        for J, (d, k) in self.formulas.items():
            inputs = [joint_of_driver.get(id(r.drivers[i])) for i in d.coupling.inputs]
            if None in inputs:
                self.lose("couplings reading drivers that are not written", f"{d.name}: {J.name}",
                          kind="not written")
                continue
            li = d.dofs[k]
            fn = without_clamp(d.coupling.functions[k], r.qmin[li], r.qmax[li])
            self.formula_of(ktc, J, fn, inputs)
        itf = km.add("extra", type="interface_type").add("technique", profile="OpenRAVE")
        itf.add("interface", "GenericRobot", type="robot")
        self.collision(km)
        self.systems(root, name)
        self.physics(root, name)
        self.scene(root, name)
        self.sensor_library(root)
        self.flush_lost()
        return etree.tostring(root.el, xml_declaration=True, encoding="utf-8", pretty_print=True)

    def joint_element(self, ktc, J) -> None:
        """The kinematics ``<joint>``: one ``<revolute>``/``<prismatic>`` per axis, in order."""
        r = self.robot
        mem = self.mem_of[J]
        j = ktc.add("joint", name=J.name, sid=J.sid)
        weld = self.kind(J) == "weld" and not J.static
        for k, xk in enumerate(J.axes_links):
            x = r.links[xk]
            ax = j.add("prismatic" if x.is_prismatic and not weld else "revolute", sid=f"axis{k}")
            axis = np.array([0.0, 0.0, 1.0]) if weld else self.axis_direction(J, k)
            norm = float(vector_norm(axis))
            if norm == 0 or abs(norm - 1) > 1e-12:
                self.lose("joint axes that are not unit vectors (OpenRAVE normalises them: its "
                          "joint value is |axis| x roboio's)", f"{x.name} (|axis| = {norm:.9g})",
                          kind="changed", noun="link")
            ax.add("axis", _fs(mem["axes"][k] if mem else axis))
            lim = self.limits(J, k)
            if lim is not None:
                if mem and mem.get("limits") is not None and mem["limits"][k] is not None \
                        and self.kind(J, k) != "weld":
                    lim = mem["limits"][k]
                lm = ax.add("limits")
                lm.add("min", _f(lim[0]))
                lm.add("max", _f(lim[1]))

    def formula(self, ktc, J, M, scale, offset):
        f = ktc.add("formula", sid=f"{J.sid}.formula")
        f.add("target").add("param", f"kmodel1/{J.sid}")

        def expr(parent):
            m = _E("math", parent, ns=MATHML)
            a = m.add("apply")
            a.add("plus")
            a.add("cn", _f(offset), type="real")
            t = a.add("apply")
            t.add("times")
            t.add("cn", _f(scale), type="real")
            t.add("csymbol", f"kmodel1/{M.sid}", encoding="COLLADA")

        expr(f.add("technique_common"))
        tec = f.add("technique", profile="OpenRAVE")
        expr(tec.add("equation", type="position"))
        for kind, value in (("first_partial", scale), ("second_partial", 0.0)):
            e = tec.add("equation", type=kind, target=f"kmodel1/{M.sid}")
            _E("cn", _E("math", e, ns=MATHML), _f(value), ns=MATHML, type="real")

    def formula_of(self, ktc, J, fn, inputs):
        """A mimic ``<formula>`` for ``J`` computing the model expression ``fn`` of the
        values of the joints ``inputs`` (MathML as OpenRAVE's reader takes it: functions it
        names ``SASA``/``atan2``/... as text csymbols, joints as COLLADA csymbols)."""
        f = ktc.add("formula", sid=f"{J.sid}.formula")
        f.add("target").add("param", f"kmodel1/{J.sid}")

        def expr(parent):
            _mathml_of(_E("math", parent, ns=MATHML), fn, [f"kmodel1/{K.sid}" for K in inputs])

        expr(f.add("technique_common"))
        expr(f.add("technique", profile="OpenRAVE").add("equation", type="position"))

    def collision(self, km):
        r = self.robot
        tec = km.add("extra", type="collision").add("technique", profile="OpenRAVE")
        checked = {(min(a, b), max(a, b)) for a, b in r.self_collision_pairs}
        mem = self.memory.get("collision")
        if isinstance(mem, dict) and mem.get("fingerprint") == fingerprint(*[f"{a},{b}" for a, b in sorted(checked)]):
            pairs = [(r.link_index(a), r.link_index(b)) for a, b in mem.get("pairs", [])]
        else:
            # only pairs OpenRAVE would check: the others need no entry (and, written, would
            # make the next write differ once they are gone from the model read back)
            clinks = sorted((i for i in range(self.n) if self.is_clink[i]), key=self.num.get)
            pairs = [(a, b) for ia, a in enumerate(clinks) for b in clinks[ia + 1:]
                     if (min(a, b), max(a, b)) not in checked and not self.never_checked(a, b)]
        for a, b in pairs:
            tec.add("ignore_link_pair", link0=f"kmodel1/link{self.num[a]}", link1=f"kmodel1/link{self.num[b]}")
        for x, y in sorted(checked):
            if self.never_checked(x, y):
                self.lose("self-collision pairs OpenRAVE never checks (links written without "
                          "geometry, joined links, links with at most one moving joint between "
                          "them)", f"({r.links[x].name}, {r.links[y].name})", kind="read differently",
                          noun="pair")
        for i in range(self.n):
            if self.is_clink[i] and self._oe(i).get("enabled") is False:
                s = tec.add("link_collision_state", link=f"kmodel1/link{self.num[i]}")
                s.add("bool", "false")

    def never_checked(self, x: int, y: int) -> bool:
        """Whether OpenRAVE never checks model links x and y once the file is read back
        (``openrave.md`` section 17): one COLLADA link, a link written without geometry,
        joined links, at most one moving joint between them, no path between them."""
        if not hasattr(self, "_up"):
            self._up = {J.child: (J.parent, self.kind(J) != "weld") for J in self.joints}
        up = self._up

        def chain(c):
            out, moving = {c: 0}, 0
            while c in up:
                c, m = up[c]
                moving += m
                out[c] = moving
            return out

        a, b = self._clink_of(x), self._clink_of(y)
        if a == b or a not in self.with_geometry or b not in self.with_geometry:
            return True
        if up.get(a, (None,))[0] == b or up.get(b, (None,))[0] == a:
            return True
        ca, cb = chain(a), chain(b)
        common = next((k for k in ca if k in cb), None)
        return common is None or ca[common] + cb[common] <= 1

    def systems(self, root, name):
        r = self.robot
        asys = root.add("library_articulated_systems")
        kin = asys.add("articulated_system", id="body1_kinematics")
        k = kin.add("kinematics")
        ikm = k.add("instance_kinematics_model", url="#kmodel1", sid="kmodel1_inst")
        ikm.add("newparam", sid="body1_kinematics_kmodel1_inst").add("SIDREF", "body1_kinematics/kmodel1_inst")
        self.axis_params = []                      # (joint, axis, param name) of every axis
        for J in self.joints:
            for a in range(len(J.axes_links)):
                p = f"body1_kinematics_kmodel1_inst_{J.sid}.axis{a}"
                ikm.add("newparam", sid=p).add("SIDREF", f"body1_kinematics/kmodel1_inst/{J.sid}/axis{a}")
                ikm.add("newparam", sid=p + "_value").add("float", _f(self.stored_value(J, a)))
                self.axis_params.append((J, a, p))
        ktc = k.add("technique_common")
        for J, a, _ in self.axis_params:
            ai = ktc.add("axis_info", sid=f"kaxis_info_{J.sid}{_axis_suffix(a)}",
                         axis=f"kmodel1/{J.sid}/axis{a}")
            ai.add("active").add("bool", "true" if J.active else "false")
            ai.add("locked").add("bool", "false")
            if self.limits(J, a) is None:
                ai.add("newparam", sid="circular").add("bool", "true")
        mot = asys.add("articulated_system", id="body1_motion")
        m = mot.add("motion")
        ias = m.add("instance_articulated_system", url="#body1_kinematics")
        ias.add("newparam", sid="body1_motion_kmodel1_inst").add("SIDREF", "body1_kinematics/body1_kinematics_kmodel1_inst")
        for J, a, p in self.axis_params:
            ias.add("newparam", sid=f"body1_motion_{p}").add("SIDREF", f"body1_kinematics/{p}")
            ias.add("newparam", sid=f"body1_motion_{p}_value").add("SIDREF", f"body1_kinematics/{p}_value")
        mtc = m.add("technique_common")
        for J, ia, _ in self.axis_params:
            sfx = _axis_suffix(ia)
            ai = mtc.add("axis_info", sid=f"maxis_info_{J.sid}{sfx}",
                         axis=f"body1_kinematics/kaxis_info_{J.sid}{sfx}")
            if self.kind(J, ia) == "weld" and not J.active:
                continue
            x = J.axes_links[ia]
            mem = self.mem_of[J]
            unit = 1.0 if r.links[x].is_prismatic else RAD2DEG
            v, a = float(r.vmax[x]), float(r.amax[x])
            if J.static:                      # a weld in the model: its driver keeps the limits
                d = next(d for d, K in self.dof_joints if K is J)
                v, a = float(d.vmax), float(d.amax)
            if not (math.isfinite(v) and v > 0):
                v = 0.01 if r.links[x].is_prismatic else 0.5
                self.lose("unlimited (or zero) joint speeds, written as OpenRAVE's default 0.5 rad/s "
                          "(0.01 m/s)", r.links[x].name, kind="target default", noun="link")
            elif not J.static and float(r.vmin[x]) != -v:
                self.lose("asymmetric velocity limits (OpenRAVE keeps one speed)", r.links[x].name,
                          kind="not written", noun="link")
            ms = mem["speed"][ia] if mem else None
            ai.add("speed").add("float", _f(ms if ms is not None else v * unit))
            if not (math.isfinite(a) and a > 0):
                a = 50.0
                self.lose("unlimited (or zero) joint accelerations, written as OpenRAVE's default 50 "
                          "rad/s^2 (m/s^2)", r.links[x].name, kind="target default", noun="link")
            ma = mem["acceleration"][ia] if mem else None
            ai.add("acceleration").add("float", _f(ma if ma is not None else a * unit))
            if math.isfinite(float(r.tmax[x])):
                self.lose("joint torque limits", r.links[x].name, kind="not written", noun="link")
        itf = mot.add("extra", type="interface_type").add("technique", profile="OpenRAVE")
        itf.add("interface", "GenericRobot", type="robot")
        actuated = set()
        for d, J in self.dof_joints:          # one per joint (a multi-axis joint has several DOFs)
            if id(J) in actuated:
                continue
            actuated.add(id(J))
            # named after its joint as written: OpenRAVE names a DOF after its joint, and the
            # driver read back has that name (the driver's own name, when renamed, is reported
            # with the joint's)
            ex = mot.add("extra", type="attach_actuator", name=J.name or f"motor_{J.sid}")
            ex.add("technique", profile="OpenRAVE").add("bind_actuator", joint=f"kmodel1/{J.sid}")
        self.manipulators(mot)
        self.sensors(mot)

    def stored_value(self, J, axis: int = 0) -> float:
        """The value of axis ``axis`` stored with the binding: the model's configuration
        (degrees or metres), or the value read from COLLADA while the configuration is
        unchanged."""
        x = J.axes_links[axis]
        if J.passive:
            return 0.0                  # (its value is in its frame: see hold)
        q = float(self.robot.config[x]) if len(self.robot.config) > x else 0.0
        mem = self.memory.get("stored", {}).get(self.robot.links[J.child].name)
        mem = mem[axis] if isinstance(mem, list) and len(mem) == len(J.axes_links) else None
        if isinstance(mem, (list, tuple)) and len(mem) == 2 and mem[0] == q:
            return mem[1]
        return q * RAD2DEG if not self.robot.links[x].is_prismatic else q

    def _clink_of(self, i: int) -> int:
        """The COLLADA link a model link belongs to (the links of a joint before its child
        link, and intermediates: the joint's child link)."""
        return self.clink_of[i]

    def manipulators(self, mot):
        r = self.robot
        for m in r.manipulators:
            ex = mot.add("extra", type="manipulator", name=m.name)
            tec = ex.add("technique", profile="OpenRAVE")
            tec.add("frame_origin", link=f"kmodel1/link{self.num[self._clink_of(m.base)]}")
            tip = tec.add("frame_tip", link=f"kmodel1/link{self.num[self._clink_of(m.effector)]}")
            T = np.asarray(m.tool_transform, float)
            if not _is_identity(T):
                tip.add("matrix", _matrix_text(T))
            tip.add("direction", _fs(m.direction))
            done = set()
            for li, cd in zip(m.gripper_links, list(m.closing_direction) + [0.0] * len(m.gripper_links)):
                J = self.joint_of_child.get(self._clink_of(li))
                if J is None or J in done:
                    continue
                done.add(J)
                gj = tec.add("gripper_joint", joint=f"kmodel1/{J.sid}")
                gj.add("closing_direction", axis="./axis0").add("float", _f(cd))
            if m.ik_solver:
                ik = tec.add("iksolver", type="Transform6D")
                ik.add("interface_type").add("technique", profile="OpenRAVE").add("interface", m.ik_solver)

    def sensors(self, mot):
        r = self.robot
        self.sensor_ids = []
        for k, s in enumerate(r.sensors):
            ex = mot.add("extra", type="attach_sensor", name=s.name)
            tec = ex.add("technique", profile="OpenRAVE")
            if s.link < 0:
                self.lose("sensors not attached to a link", s.name, kind="not written", noun="sensor")
                continue
            fo = tec.add("frame_origin", link=f"kmodel1/link{self.num[self._clink_of(s.link)]}")
            T = np.asarray(s.transform, float)
            if not _is_identity(T):
                fo.add("matrix", _matrix_text(T))
            if s.type:
                sid = f"robot1_sensor{k}"
                tec.add("instance_sensor", url=f"#{sid}")
                self.sensor_ids.append((sid, s))

    def sensor_library(self, root):
        tec = root.add("extra", id="sensors", type="library_sensors").add("technique", profile="OpenRAVE")
        for sid, s in self.sensor_ids:
            se = tec.add("sensor", id=sid, name=sid, type=s.type)
            for k, v in s.params.items():
                if isinstance(v, str):
                    se.add(k, v)
                else:
                    self.lose("sensor parameters that are not text", f"{s.name}.{k}", kind="not written")

    def physics(self, root, name):
        r = self.robot
        T0 = link_poses(r, self.q_held)          # the link poses the written frames give
        pm = root.add("library_physics_models").add("physics_model", id="pmodel1", name=name)
        mem = self.memory.get("links", {})
        bodies = []
        if self.world_root:
            rb = pm.add("rigid_body", sid=f"rigid{self.num[None]}", name=self.world_root)
            tc = rb.add("technique_common")
            tc.add("dynamic", "false")
            tc.add("mass", "0")
            tc.add("inertia", "0 0 0")
            bodies.append(None)
        for i in sorted(range(self.n), key=lambda i: self.num.get(i, self.n + i)):   # as read back
            l = r.links[i]
            if not self.is_clink[i]:
                if l.mass != 0:
                    self.lose("mass of intermediate links", l.name, kind="not written", noun="link")
                continue
            bodies.append(i)
            rb = pm.add("rigid_body", sid=f"rigid{self.num[i]}", name=self.lname[i])
            tc = rb.add("technique_common")
            tc.add("dynamic", "false" if self._oe(i).get("static") else "true")
            lm = mem.get(l.name)
            if isinstance(lm, dict) and lm.get("mass_frame") is not None and \
                    lm.get("mass_fingerprint") == mass_fingerprint(r, i, T0[i]):
                tc.add("mass", _f(lm["mass"]))
                if lm["mass_frame"]:          # (none read: none written)
                    self.transform_elements(tc.add("mass_frame"), None, lm["mass_frame"])
                tc.add("inertia", _fs(lm["inertia"]))
                continue
            tc.add("mass", _f(l.mass))
            I = np.asarray(l.inertia, float)
            if np.count_nonzero(I - np.diag(np.diag(I))) == 0:
                R, moments = np.eye(3), np.diag(I)
            else:
                moments, R = symmetric_eigen3(0.5 * (I + I.T))     # (a rotation; no LAPACK)
            tc.add("mass_frame").add("matrix", _matrix_text(compose(T0[i], _frame(R, l.com))))
            tc.add("inertia", _fs(moments))
        ps = root.add("library_physics_scenes").add("physics_scene", id="pscene", name=name)
        ipm = ps.add("instance_physics_model", url="#pmodel1", sid="pmodel1_inst", parent="#visual1")
        for i in bodies:
            ipm.add("instance_rigid_body", body=f"rigid{self.num[i]}", sid=f"rigid{self.num[i]}",
                    target=f"#v1.node{self.num[i]}")

    def scene(self, root, name):
        ks = root.add("library_kinematics_scenes").add("kinematics_scene", id="kscene", name=name)
        ias = ks.add("instance_articulated_system", sid="body1_motion_inst", url="#body1_motion", name=name)
        ias.add("newparam", sid="kscene_kmodel1_inst").add("SIDREF", "body1_motion/body1_motion_kmodel1_inst")
        for J, a, p in self.axis_params:
            ias.add("newparam", sid=f"kscene_kmodel1_inst_{p}").add("SIDREF", f"body1_motion/body1_motion_{p}")
            ias.add("newparam", sid=f"kscene_kmodel1_inst_{p}_value").add("SIDREF", f"body1_motion/body1_motion_{p}_value")
        sc = root.add("scene")
        sc.add("instance_physics_scene", url="#pscene", sid="pscene_inst")
        sc.add("instance_visual_scene", url="#vscene", sid="vscene_inst")
        iks = sc.add("instance_kinematics_scene", url="#kscene", sid="kscene_inst")
        iks.add("bind_kinematics_model", node=f"visual1/{self.root_node}").add("param", "kscene_kmodel1_inst")
        for J, a, p in self.axis_params:
            b = iks.add("bind_joint_axis", target=f"visual1/node_{J.sid}_axis{a}")
            b.add("axis").add("param", f"kscene_kmodel1_inst_{p}")
            b.add("value").add("param", f"kscene_kmodel1_inst_{p}_value")


def _axis_suffix(axis: int) -> str:
    """The suffix of an axis's axis_info sids: none for axis 0 (a one-axis joint's sids name
    the joint alone), ``_axis<k>`` for the further axes of a multi-axis joint."""
    return f"_axis{axis}" if axis else ""


def document(robot: Robot, report, path: Optional[str] = None) -> bytes:
    """The ``.dae`` document of ``robot``."""
    if not isinstance(robot, Robot):
        raise TypeError(f"collada-robot writes a Robot, not {type(robot).__name__}")
    return _Writer(robot, report, path).document()


def _zae(name: str, dae: bytes) -> bytes:
    buf = io.BytesIO()
    manifest = f'<?xml version="1.0" encoding="utf-8"?>\n<dae_root>./{name}</dae_root>\n'.encode()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for member, data in ((name, dae), ("manifest.xml", manifest)):
            info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
        z.comment = b"collada file generated by roboio"
    return buf.getvalue()


def dumps(robot: Robot, report, path: Optional[str] = None) -> bytes:
    """``.dae`` document, or a ``.zae`` archive when ``path`` ends with ``.zae``."""
    dae = document(robot, report, path)
    if path and path.lower().endswith(".zae"):
        base = os.path.splitext(os.path.basename(path))[0] or "robot"
        return _zae(base + ".dae", dae)
    return dae


_MATHML_OPS = {"+": "plus", "-": "minus", "*": "times", "/": "divide", "%": "rem", "neg": "minus",
               "pow": "power", "<": "lt", "<=": "leq", ">": "gt", ">=": "geq", "=": "eq", "!=": "neq",
               "and": "and", "or": "or", "not": "not", "asin": "arcsin", "acos": "arccos",
               "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
               "log": "ln", "ceil": "ceiling"}
_TEXT_FUNCTIONS = ("SSSA", "SASA", "SASS", "atan2")


def _mathml_of(parent, e, refs) -> None:
    """MathML of the model expression ``e`` under ``parent`` (argument k: ``refs[k]``)."""
    from ....model.coupling import Arg, Const
    if isinstance(e, Const):
        parent.add("cn", _f(e.value), type="real")
        return
    if isinstance(e, Arg):
        parent.add("csymbol", refs[e.k], encoding="COLLADA")
        return
    if e.name == "clamp":
        outer = parent.add("apply")
        outer.add("min")
        inner = outer.add("apply")
        inner.add("max")
        _mathml_of(inner, e.children[0], refs)
        _mathml_of(inner, e.children[1], refs)
        _mathml_of(outer, e.children[2], refs)
        return
    a = parent.add("apply")
    if e.name in _TEXT_FUNCTIONS:
        a.add("csymbol", e.name, encoding="text/xml")
    else:
        a.add(_MATHML_OPS.get(e.name, e.name))
    for c in e.children:
        _mathml_of(a, c, refs)
