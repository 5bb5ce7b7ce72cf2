"""Writing roboio robots as Choreonoid ``.body`` files.

Output: ``format: ChoreonoidBody``, ``formatVersion: 1.0`` with the camelCase keys every
Choreonoid version reads (``jointType``, ``jointAxis``, ``jointId``, ``jointRange``, ...;
``max_joint_effort`` has no camelCase form). Angles are written in **radians**
(``angleUnit: radian``, so numbers round-trip exactly), except for robots read from a
degree-unit ``.body`` file that carry extra info keys (``standard_pose``, ...) whose values are
in the file's unit: those are written in degrees so the kept keys keep their meaning.

Klamp't floating bases (six links grouped by a ``floating`` joint) become one ``free`` link,
placed at the configuration's pose; ``weld`` links become ``fixed``. Joint ids are the ones a
Choreonoid model was read with, else movable links are numbered in link order. Geometry: the
analytic Choreonoid shapes stay primitives, meshes loaded from files are referenced by
``Resource`` (path relative to the written file), in-memory meshes are written inline as
``TriangleMesh``. Everything that has no Choreonoid form is listed in the report.
"""
from __future__ import annotations

import json
import math
import os

import numpy as np

from ._collision_rules import RULE_KEYS, checked_pairs, rules_for
from .... import transforms as tf
from ....model import Group, PointCloud, Primitive, Robot, TriangleMesh
from ...affine import ROTATION_TOL
from ...fileio import fmt_float
from ...fixed_point import stable_params
from ...fk_change import FK_SAMPLES, fk_change, fk_loss_kind, note_fk_change
from .. import _yaml as Y
from ...naming import Namespace, joint_names, say_unwritten
from ._build import FLOATING_NAMES

__all__ = ["body_text"]


def _vec(v) -> str:
    return "[ " + ", ".join(fmt_float(x + 0.0) for x in np.asarray(v, float).reshape(-1)) + " ]"   # (no "-0")


def _pose_in_ancestor(robot: Robot, q, link: int, ancestor: int) -> np.ndarray:
    """Pose of ``link`` in the frame of its ancestor ``ancestor`` (-1: the world) at
    configuration ``q``: the product of the joint transforms along the chain between them."""
    T = np.eye(4)
    k = link
    while k != ancestor:
        T = tf.compose(robot.links[k].joint_transform(q[k]), T)
        k = robot.links[k].parent
    return T


def _scales(A) -> np.ndarray:
    """The scales of ``A = R diag(s)`` (``(..., 3, 3)``, R a rotation): its columns' lengths,
    to 15 significant digits. The reader builds ``R diag(s)`` from the written rotation and
    scale, and when R's columns are not unit to the last bit (near a half turn) the lengths
    come out a unit in the last place off ``s`` (r2c6's finger meshes, scale 0.9 and
    rotation 3.14158 rad, were rewritten with scale 0.9000000000000001, then ...02): the
    rounding makes the next write find the same scale, which stays within 5e-16 of the
    lengths."""
    n = tf.vector_norm(np.swapaxes(np.asarray(A, float), -1, -2))
    return np.vectorize(lambda x: float(f"{x:.15g}"), otypes=[float])(n)


class _Writer:
    def __init__(self, robot: Robot, path: str, report):
        self.r, self.path, self.report = robot, path, report
        info = robot.extras.get("choreonoid") or {}
        self.info = info
        self.degree = bool(info.get("degree")) and bool(info.get("info"))
        self.lines: list[str] = []
        self.approx: dict = {}          # link -> its frame with the nearest rotation

    def lose(self, item, concerning=None, **kind):
        if self.report is not None:
            self.report.lose(item, concerning, **kind)

    def ang(self, a: float) -> float:
        """``a`` (radians) in file units. In degrees, the shortest value a few last-place
        units around ``math.degrees(a)`` that the reader turns back (``d * pi / 180``) into
        exactly ``a``, where one does: the next write then writes the same digits (a
        limit read from degrees drifts in its last digit otherwise)."""
        if not self.degree or not math.isfinite(a):
            return a
        d = math.degrees(a)
        cands, lo, hi = [d], d, d
        for _ in range(4):
            lo, hi = math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)
            cands += [lo, hi]
        exact = [c for c in cands if c * math.pi / 180.0 == a]
        return min(exact, key=lambda c: (len(fmt_float(c)), abs(c - d))) if exact else d

    def fixed_angle(self, axis, angle: float, R) -> float:
        """The written angle (file units) of rotation ``R`` about unit ``axis``: among the
        numbers within a few ulps of ``angle`` (radians) converted, and their shorter
        roundings, the shortest that reads back (as the reader converts it) to exactly ``R``
        -- so that write -> read -> write is a fixed point instead of drifting in the last
        digit. Falls back to the converted value."""
        w = self.ang(angle)
        back = (lambda v: v * math.pi / 180.0) if self.degree else (lambda v: v)   # as the reader
        cands = [w]
        lo = hi = w
        for _ in range(8):
            lo, hi = math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)
            cands += [lo, hi]
        cands += [round(w, k) for k in range(16)]
        a = np.asarray(axis, float)
        a = a / np.sqrt(np.sum(a * a))           # as the reader normalises the written axis
        exact = [c for c in cands if np.array_equal(tf.axis_angle_to_matrix(a, back(c)), R)]
        if not exact:
            return w
        return min(exact, key=lambda c: (len(fmt_float(c)), abs(c - w)))

    def rotation_matrix(self, P):
        """The rotation(s) the reader builds from written ``[ax, ay, az, angle]`` (``(..., 4)``)."""
        P = np.asarray(P, float)
        a = P[..., :3]
        return tf.axis_angle_to_matrix(a / np.sqrt(np.sum(a * a, axis=-1, keepdims=True)),
                                       P[..., 3] * np.pi / 180.0 if self.degree else P[..., 3])

    def rotation_value(self, R, scale=None) -> list:
        """``[ax, ay, az, angle]`` (angle in file units) to write for rotation ``R``: among
        the values a few last-place units around the derived ones, one that the reader
        turns into exactly the matrix it stands for, so that write -> read -> write is a
        fixed point (near some rotations the axis derived from a matrix otherwise wanders
        in the last digits at every round trip). With ``scale`` (written beside it), the
        reader builds ``R diag(scale)`` and the next write splits that into column lengths
        and a rotation again: the values are chosen so that this split gives back the same
        rotation and scale."""
        def derive(M):
            m = tf.matrix_to_moment(M)
            angle = float(tf.vector_norm(m))
            axis = m / angle if angle > 0 else np.array([0.0, 0.0, 1.0])
            return [*axis, self.fixed_angle(axis, angle, M)]

        build = self.rotation_matrix
        if scale is None:
            return list(stable_params(R, derive, build, (3, 3, 3, 2)))
        s = np.asarray(scale, float)

        def split(P):                 # as transform_keys splits what the reader built
            A = build(P) * s
            n = _scales(A)[..., None, :]
            return np.concatenate([(A / n).reshape(A.shape[:-2] + (9,)), n.reshape(A.shape[:-2] + (3,))], -1)
        target = np.concatenate([np.asarray(R, float).reshape(9), s])
        return list(stable_params(target, lambda X: derive(np.asarray(X)[:9].reshape(3, 3)), split,
                                  (3, 3, 3, 2)))

    # -- structure -------------------------------------------------------------------------
    def bodies(self):
        """(link index, kind, offset 4x4, parent link index) per Choreonoid link; a floating
        chain is folded into its last link."""
        r = self.r
        chain = {}
        for j in r.joints:
            if j.type == "floating" and len(j.links) == 6:
                for k in j.links[:5]:
                    chain[k] = j
                chain[j.links[5]] = j
        q = np.asarray(r.config, float)
        out = []
        self.virtual = {j.links[5]: j.links[:5] for j in r.joints
                        if j.type == "floating" and len(j.links) == 6}
        group_of = r.joints_of_links()
        for link in r.links:
            i = link.index
            j = chain.get(i)
            if j is not None and i != j.links[5]:
                continue
            if j is not None:
                first = j.links[0]
                parent = r.links[first].parent
                out.append((i, "free", _pose_in_ancestor(r, q, i, parent), parent))
                continue
            parent = link.parent
            group = group_of.get(i)
            weld = group is not None and group.type == "weld"
            if group is not None and group.type not in ("normal", "spin", "weld"):
                self.lose(f"{group.type} joint groups (written as separate 1-DOF links)", link.name,
                          kind="changed", noun="link")
            kind = "fixed" if weld else link.joint_type
            out.append((i, kind, np.asarray(link.parent_transform, float), parent))
        return self.one_root(out)

    def one_root(self, out):
        """A body has one root: later roots become children of the first, placed where
        they are (exact while the first root does not move: Choreonoid's kinematics never
        moves a fixed root; a free one carries them along, which is reported)."""
        i0, kind0, T0, _ = out[0]
        if kind0 in ("revolute", "prismatic"):
            # Choreonoid's root moves only as a free link: its joint would be read as fixed
            self.lose(f"the joint of the root link {self.r.links[i0].name!r} ({kind0}; a Choreonoid "
                      "root link does not move by a joint: written as fixed, at q = 0)")
            kind0 = "fixed"
            out[0] = (i0, kind0, T0, out[0][3])
        later = [b for b in out[1:] if b[3] < 0]
        if not later:
            return out
        if kind0 == "free":
            self.lose("roots after the first move with the first root, which floats (a body has "
                      "one root): " + ", ".join(self.r.links[b[0]].name for b in later), kind="changed")
        inv = _inverse_affine(T0)
        return [out[0]] + [(i, kind, tf.compose(inv, T), i0) if parent < 0 else (i, kind, T, parent)
                           for i, kind, T, parent in out[1:]]

    def names(self, written) -> None:
        """Link names (unique, as Choreonoid requires) and joint names (the source's,
        :func:`~roboio.formats.naming.joint_names`, else the link's: Choreonoid's default)
        of the ``written`` links; changes go into ``report.renamed``."""
        r = self.r
        got = Namespace(self.report, "links").assign([r.links[i].name for i in written],
                                                     [f"link{i}" for i in written])
        self.lnames = dict(zip(written, got))
        source = self.floating_names(joint_names(r))
        say_unwritten(r, set(written), self.report, "a Choreonoid free link is one joint, named "
                      "once", names=source)
        got = Namespace(self.report, "joints").assign([source[i] for i in written],
                                                      [self.lnames[i] for i in written])
        self.jnames = dict(zip(written, got))
        self.root_joint_named = source[written[0]] is not None if written else False

    def floating_names(self, source) -> list:
        """``source`` (per link) with a floating joint's name (an MJCF ``<freejoint name>``,
        which :func:`~roboio.formats.naming.joint_names` leaves on its first virtual link)
        moved to the free link the chain is folded into, which Choreonoid names with its
        ``joint_name`` key (the root's too: ``jointName()``)."""
        source = list(source)
        for last, virtual in self.virtual.items():
            if source[last] is None:
                k = next((k for k in virtual if source[k] is not None), None)
                if k is not None:
                    source[last], source[k] = source[k], None
        return source

    def joint_ids(self, bodies) -> dict:
        table = self.r.joint_id_links
        if table is not None:
            return {link: j for j, link in enumerate(table) if link >= 0}
        ids, n = {}, 0
        for i, kind, _, _ in bodies:
            if kind in ("revolute", "prismatic"):
                ids[i] = n
                n += 1
        return ids

    # -- text --------------------------------------------------------------------------------
    def document(self) -> str:
        r = self.r
        bodies = self.bodies()
        ids = self.joint_ids(bodies)
        bodies = _depth_first(bodies)
        self.names([b[0] for b in bodies])
        out = ["format: ChoreonoidBody\n", "formatVersion: 1.0\n",
               f"angleUnit: {'degree' if self.degree else 'radian'}\n",
               f"name: {json.dumps(r.name)}\n", f"rootLink: {json.dumps(self.lnames[bodies[0][0]])}\n\n",
               "links:\n"]
        for body in bodies:
            out.append(self.link_text(*body, ids))
        self.check_lost()
        frames = {i: T for i, T in self.approx.items() if T is not None}
        if frames and self.report is not None:
            pos, rot = fk_change(r, frames)
            note_fk_change(self.report, pos, rot)
            self.lose(f"link frames move by up to {pos:.1e} m (rotation matrix entries by "
                      f"{rot:.1e}) over {FK_SAMPLES} sampled configurations (nearest rotations "
                      "written)", kind=fk_loss_kind(pos, rot))
        extra = self.collision_rules(bodies, self.info.get("info") or {})
        if extra:
            out.append("\n" + Y.emit(extra))
        if self.info.get("extra_joints"):
            out.append(Y.emit({"extraJoints": self.info["extra_joints"]}))
        return "".join(out)

    def check_lost(self):
        r = self.r
        if any(d.type != "normal" for d in r.drivers):
            self.lose("coupled (affine) drivers: Choreonoid bodies have one independent value per joint",
                      kind="not written")
        for name in ("amax", "pmax"):
            if np.any(np.isfinite(getattr(r, name))):
                self.lose(f"{name} limits", kind="not written")
        if r.properties:
            self.lose("Klamp't robot properties: " + ", ".join(sorted(r.properties)), kind="not written")
        gains = [d.name for d in r.drivers if any((d.servo_p, d.servo_i, d.servo_d, d.dry_friction,
                                                   d.viscous_friction))]
        if gains:
            self.lose("driver servo gains and friction (a body model has none): " + ", ".join(gains),
                      kind="not written")
        for j in r.joints:
            if j.type == "floating" and len(j.links) == 6:
                off = [k for k in j.links if not np.array_equal(r.links[k].parent_transform, np.eye(4))]
                if off:
                    T = [np.asarray(r.links[k].parent_transform, float) for k in off]
                    move = max(float(tf.vector_norm(M[:3, 3])) for M in T)
                    turn = max(math.acos(max(-1.0, min(1.0, (np.trace(M[:3, :3]) - 1) / 2))) for M in T)
                    self.lose("frame offsets inside a floating base (a free link has one pose: they "
                              "become part of its configuration, so the same joint values place "
                              "the robot elsewhere): " + ", ".join(r.links[k].name for k in off)
                              + f" (largest offset {move:.3g} m, {turn:.3g} rad)", kind="changed")
                lim = [k for k in j.links if any(np.isfinite(getattr(r, a)[k])
                                                 for a in ("qmin", "qmax", "vmin", "vmax"))]
                if lim:
                    self.lose("position and velocity limits of floating-base DOFs (a free joint has "
                              "none): " + ", ".join(r.links[k].name for k in lim), kind="not written")

    def collision_rules(self, bodies, info: dict) -> dict:
        """``info`` whose collision rules give the robot's self-collision pairs: as read when
        they still do, else a new ``collision_detection_rules`` (:mod:`._collision_rules`)."""
        r = self.r
        pos = {i: k for k, (i, _, _, _) in enumerate(bodies)}
        for j in r.joints:                 # a floating chain is its last link in the body
            if j.type == "floating" and len(j.links) == 6:
                for k in j.links[:5]:
                    pos.setdefault(k, pos.get(j.links[5]))
        names = [r.links[i].name for i, _, _, _ in bodies]
        parents = [pos.get(p, -1) if p >= 0 else -1 for _, _, _, p in bodies]
        free = [kind == "free" for _, kind, _, _ in bodies]
        collidable = [_collidable(r.links[i].geometry) for i, _, _, _ in bodies]
        wanted = set()
        for a, b in r.self_collision_pairs:
            x, y = pos.get(a), pos.get(b)
            if x is not None and y is not None and x != y and collidable[x] and collidable[y]:
                wanted.add((min(x, y), max(x, y)))
        if checked_pairs(names, parents, free, collidable, info) == wanted:
            return info
        out = {k: v for k, v in info.items() if k not in RULE_KEYS}
        out["collision_detection_rules"] = rules_for(names, parents, free, collidable, wanted)
        return out

    def link_text(self, i, kind, offset, parent, ids) -> str:
        r = self.r
        link = r.links[i]
        ext = link.extras.get("choreonoid") or {}
        p = "    "
        name = self.lnames[i]
        out = ["  -\n", f"{p}name: {json.dumps(name)}\n"]
        if parent >= 0:
            out.append(f"{p}parent: {json.dumps(self.lnames[parent])}\n")
        # a joint named as its link goes without the key (Choreonoid's default), but the
        # root's: the reader names the root's joint only where the file does
        if self.jnames[i] != name or (parent < 0 and self.root_joint_named):
            out.append(f"{p}joint_name: {json.dumps(self.jnames[i])}\n")
        t, R = offset[:3, 3], offset[:3, :3]
        if np.any(t != 0):
            out.append(f"{p}translation: {_vec(t)}\n")
        if not np.array_equal(R, np.eye(3)):
            from ...affine import nearest_rotation
            Rn, err = nearest_rotation(R)
            if err > 0 and self.report is not None:
                self.report.lose("link frames that are not rotations, written as the nearest "
                                 "rotation (largest matrix entry change)", f"{link.name} ({err:.1e})",
                                 kind="approximated", noun="link")
                self.approx[i] = tf.make_transform(Rn, offset[:3, 3]) if kind != "free" else None
            value = self.rotation_value(Rn)
            if value[3] != 0:         # (an angle of 0 is no rotation: the reader's identity)
                out.append(f"{p}rotation: {_vec(value)}\n")
        jtype = ext.get("joint_type") if kind == "fixed" and ext.get("joint_type") == "pseudo_continuous_track" else kind
        out.append(f"{p}jointType: {jtype}\n")
        if kind == "free":
            out.append(self.virtual_names(i, parent, p))
        if kind in ("revolute", "prismatic"):
            out.append(f"{p}jointAxis: {_vec(link.axis)}\n")
        if i in ids:
            out.append(f"{p}jointId: {ids[i]}\n")
        if kind in ("revolute", "prismatic"):
            out.append(self.joint_limits(i, kind == "revolute", p))
        out.append(f"{p}mass: {fmt_float(link.mass)}\n")
        out.append(f"{p}centerOfMass: {_vec(link.com)}\n")
        out.append(f"{p}inertia: {_vec(np.asarray(link.inertia).reshape(9))}\n")
        if ext.get("material"):
            out.append(f"{p}material: {json.dumps(ext['material'])}\n")
        elements = self.elements(link, ext)
        if elements:
            out.append(f"{p}elements:\n" + "".join(elements))
        info = ext.get("info") or {}
        if info:
            out.append(Y.emit(info, indent=4))
        return "".join(out)

    def virtual_names(self, i, parent, p) -> str:
        """``roboio_virtual_links``: the names of the virtual links of the floating base
        folded into free link ``i``, where they differ from the names the reader gives
        (``base0..base4`` at the root, ``<link>_base0..`` elsewhere). Choreonoid ignores
        the key."""
        r = self.r
        names = [r.links[k].name for k in self.virtual.get(i, ())]
        prefix = "" if parent < 0 else self.lnames[i] + "_"
        if len(names) != 5 or names == [f"{prefix}{b}" for b in FLOATING_NAMES]:
            return ""
        return f"{p}roboio_virtual_links: [ {', '.join(json.dumps(n) for n in names)} ]\n"

    def joint_limits(self, i, revolute, p) -> str:
        r = self.r
        conv = self.ang if revolute else (lambda a: a)
        out = []
        lo, hi = float(r.qmin[i]), float(r.qmax[i])
        if math.isfinite(lo) or math.isfinite(hi):
            f = lambda v: fmt_float(conv(v)) if math.isfinite(v) else "unlimited"   # noqa: E731
            out.append(f"{p}jointRange: [ {f(lo)}, {f(hi)} ]\n")
        vlo, vhi = float(r.vmin[i]), float(r.vmax[i])
        if math.isfinite(vlo) or math.isfinite(vhi):
            if math.isfinite(vlo) and math.isfinite(vhi):
                out.append(f"{p}jointVelocityRange: [ {fmt_float(conv(vlo))}, {fmt_float(conv(vhi))} ]\n")
            else:
                self.lose("one-sided velocity limits", r.links[i].name, kind="not written", noun="link")
        if math.isfinite(float(r.tmax[i])):
            out.append(f"{p}max_joint_effort: {fmt_float(r.tmax[i])}\n")
        q0 = float(r.config[i])
        if q0 != 0:
            out.append(f"{p}jointDisplacement: {fmt_float(conv(q0))}\n")
        return "".join(out)

    # -- geometry ----------------------------------------------------------------------------
    def elements(self, link, ext) -> list:
        items = []
        visual = link.visual_geometry
        if visual is not None:
            items.append(self.group_node("Visual", visual, link.name))
            if link.geometry is not None:
                items.append(self.group_node("Collision", link.geometry, link.name))
        elif link.geometry is not None:
            items += self.geometry_nodes(link.geometry, link.name, link.appearance, 6)
        for d in ext.get("devices") or ():
            items.append(self.device(d))
        return [x for x in items if x]

    def group_node(self, typ, g, name) -> str:
        inner = self.geometry_nodes(g, name, None, 10)
        if not inner:
            return ""
        return f"      -\n        type: {typ}\n        elements:\n" + "".join(inner)

    def geometry_nodes(self, g, name, appearance, ind) -> list:
        """Element nodes (``-`` items at indent ``ind``) for geometry ``g``."""
        pad = " " * ind
        if isinstance(g, Group):
            inner = [x for c in g.children for x in self.geometry_nodes(c, name, appearance, ind + 4)]
            if not inner:
                return []
            head = f"{pad}-\n{pad}  type: Transform\n" + self.transform_keys(g.transform, pad + "  ", name)
            return [head + f"{pad}  elements:\n" + "".join(inner)]
        if g.extras.get("choreonoid_device_shape"):
            return []                   # written inside its device node
        geom, local = self.shape_geometry(g, name)
        if geom is None:
            return []
        M = tf.compose(np.asarray(g.transform, float), local)
        text = f"{pad}-\n{pad}  type: Shape\n" + self.transform_keys(M, pad + "  ", name)
        text += f"{pad}  geometry: {geom}\n"
        app = g.extras.get("choreonoid_appearance")
        if g.appearance is not None:        # the piece's own (a URDF visual's material)
            appearance = g.appearance
        if not (isinstance(app, dict) and app) and appearance is not None and appearance.color is not None:
            c = [float(x) for x in appearance.color]
            app = {"material": {"diffuse": c[:3]}}
            if len(c) > 3 and c[3] < 1:
                app["material"]["transparency"] = 1 - c[3]
        if isinstance(app, dict) and app:
            # block style, as the appearance read back from this file is written again
            text += f"{pad}  appearance:" + Y.emit(app, indent=ind + 4).rstrip("\n").join(["\n", "\n"])
        return [text]

    def transform_keys(self, M, pad, name) -> str:
        M = np.asarray(M, float)
        A, t = M[:3, :3], M[:3, 3]
        out = ""
        if np.any(t != 0):
            out += f"{pad}translation: {_vec(t)}\n"
        if np.array_equal(A, np.eye(3)):
            return out
        if np.abs(tf.compose(A.T, A) - np.eye(3)).max() <= ROTATION_TOL and tf.det3(A) > 0:
            # a rotation as read (no scale): written as it is, not divided by its columns'
            # lengths (1 to rounding), which would move it at every write -> read -> write
            R, s = A, np.ones(3)
        else:
            # A = R diag(s) with R a rotation: columns' lengths are the scales
            s = _scales(A)
            R = A / np.where(s > 0, s, 1.0)
            if tf.det3(R) < 0:
                R[:, 0] *= -1
                s[0] *= -1
        if not np.allclose(tf.compose(R.T, R), np.eye(3), atol=1e-9):
            from ...affine import nearest_rotation
            Rn, _ = nearest_rotation(R)
            err = float(np.abs(Rn * s - A).max())
            self.lose("sheared geometry transforms (written as their nearest rotation and scale; "
                      "largest matrix entry change)", name, kind="approximated", noun="link",
                      largest=err)
        if not np.allclose(R, np.eye(3), atol=0):
            scaled = not np.allclose(s, 1.0, atol=0) and np.all(s > 0)
            value = self.rotation_value(R, s if scaled else None)
            if value[3] != 0:
                out += f"{pad}rotation: {_vec(value)}\n"
        if not np.allclose(s, 1.0, atol=0):
            out += f"{pad}scale: {_vec(s)}\n"
        return out

    def shape_geometry(self, g, name):
        """(flow-style geometry text, 4x4 placing Choreonoid's shape in the data frame)."""
        I = np.eye(4)
        if isinstance(g, Primitive):
            q, k = g.params, g.primitive
            if k == "Sphere":
                return f"{{ type: Sphere, radius: {fmt_float(q['radius'])} }}", tf.translation(q["center"])
            if k in ("Box", "AABB"):
                if k == "AABB":
                    axes, origin, dims = np.eye(3), q["bmin"], q["bmax"] - q["bmin"]
                else:
                    axes = np.stack([q["xaxis"], q["yaxis"], q["zaxis"]], axis=1)
                    origin, dims = q["origin"], q["dims"]
                n = tf.vector_norm(axes.T)
                R = axes / np.where(n > 0, n, 1)
                center = origin + tf.compose(axes, (np.asarray(dims) / 2).reshape(3, 1))[:, 0]
                return f"{{ type: Box, size: {_vec(dims * n)} }}", tf.make_transform(R, center)
            if k in ("Cylinder", "Capsule", "Cone"):
                a = np.asarray(q["axis"], float)
                a = a / tf.vector_norm(a)
                h = q["height"]
                R = _y_to(a)
                center = q["center"] + a * h / 2
                flags = "".join(f", {f}: {'true' if g.extras[f] else 'false'}" for f in ("top", "bottom", "side")
                                if f in g.extras)
                return (f"{{ type: {k}, radius: {fmt_float(q['radius'])}, height: {fmt_float(h)}{flags} }}",
                        tf.make_transform(R, center))
            self.lose(f"{k} primitives (no Choreonoid shape)", name, kind="not written", noun="link")
            return None, I
        if isinstance(g, PointCloud):
            self.lose("point clouds", name, kind="not written", noun="link")
            return None, I
        if isinstance(g, TriangleMesh):
            src = g.source
            if src is not None and (src.path or g.missing):
                ref = src.reference if src.path is None else os.path.relpath(src.path, os.path.dirname(os.path.abspath(self.path)))
                node = g.extras.get("node")
                extra = f", node: {json.dumps(node)}" if node else ""
                return f"{{ type: Resource, uri: {json.dumps(ref.replace(os.sep, '/'))}{extra} }}", I
            v, f = g.vertices, g.faces
            return (f"{{ type: TriangleMesh, vertices: {_vec(v)}, faces: [ "
                    + ", ".join(str(int(x)) for x in f.reshape(-1)) + " ] }", I)
        self.lose(f"{type(g).__name__} geometry", name, kind="not written", noun="link")
        return None, I

    def device(self, d) -> str:
        T = d["transform"]
        pad = "        "
        text = f"      -\n{pad}type: {d['type']}\n" + self.transform_keys(T, pad, d.get("name", ""))
        rest = {k: v for k, v in d.items() if k not in ("type", "transform", "node", "scale")}
        if rest:
            text += Y.emit(rest, indent=8)
        node = d.get("node") or {}
        if "elements" in node:
            text += Y.emit({"elements": node["elements"]}, indent=8)
        return text


def _depth_first(bodies) -> list:
    """``bodies`` (link, kind, offset, parent) in the order Choreonoid numbers the links it
    reads (depth first from the root, children in the order listed), so that a model read
    back from the file is written in the same order (write -> read -> write is a fixed
    point)."""
    kids: dict = {}
    for b in bodies[1:]:
        kids.setdefault(b[3], []).append(b)
    out, stack = [], [bodies[0]]
    while stack:
        b = stack.pop()
        out.append(b)
        stack.extend(reversed(kids.get(b[0], [])))
    listed = {id(b) for b in out}
    return out + [b for b in bodies if id(b) not in listed]     # (unreachable: kept last)


def _inverse_affine(T) -> np.ndarray:
    """Inverse of a 4x4 transform: element-wise for a rigid one (no LAPACK); a frame that is
    not a rotation (written as its nearest rotation anyway, and reported) by LAPACK."""
    T = np.asarray(T, float)
    if np.abs(tf.compose(T[:3, :3].T, T[:3, :3]) - np.eye(3)).max() <= ROTATION_TOL:
        return tf.inverse_transform(T)
    return np.linalg.inv(T)


def _collidable(g) -> bool:
    """Whether the link's collision geometry is written as shapes (a group counts when one
    of its children does)."""
    if g is None or g.missing or isinstance(g, PointCloud):
        return False
    if isinstance(g, Group):
        return any(_collidable(c) for c in g.children)
    return True


def _y_to(a) -> np.ndarray:
    """Rotation taking +y onto the unit vector ``a``."""
    y = np.array([0.0, 1.0, 0.0])
    axis = np.cross(y, a)
    s, c = float(tf.vector_norm(axis)), float(a[1])      # |y x a|, y . a
    if s < 1e-15:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    return tf.axis_angle_to_matrix(axis / s, math.atan2(s, c))


def body_text(robot: Robot, path: str = "robot.body", report=None) -> str:
    return _Writer(robot, path, report).document()



