"""roboio model -> OpenRAVE XML (``openrave.md`` §20): the subset OpenRAVE's reader
interprets exactly, and that roboio reads back to the same model.

* One ``<Robot>`` holding one ``<KinBody>``; bodies in roboio's link order (root first,
  so it becomes link 0), each posed in the KinBody frame at q = 0 (no ``<offsetfrom>``).
  An intermediate link roboio created for a joint whose axis does not pass through the
  child's origin is folded back into that joint (``<anchor>``).
* Joints after all bodies: first the active ones in driver order (OpenRAVE's DOF order =
  declaration order), then mimic, passive and fixed ones in body order. ``<anchor>`` and
  ``<axis>`` in KinBody coordinates at q = 0; limits ``<limitsrad>`` (sliders
  ``<limits>``); spin joints ``circular="true"``; welds ``enable="false"`` with
  ``<limits>0 0</limits>``; affine drivers as ``mimic_pos="MASTER*k+c"`` joints.
* Geometry per ``<Geom>``: boxes (half extents), spheres, cylinders (axis along Y),
  meshes as ``<data>file sx sy sz</data>`` relative to the written file (inline
  ``<vertices>`` when the mesh has no file), ``<render>`` files for separate visuals.
  Masses as ``<mass type="custom">``.
* Manipulators, attached sensors, ``<adjacent>`` pairs that keep roboio's self-collision
  pairs, ``<jointvalues>`` for a non-zero initial configuration.

Numbers are written with :func:`~roboio.formats.fileio.fmt_float` (exact round trip).
Values read from an OpenRAVE file (transform tags, anchors, axes) are written back verbatim
when they still describe the model to 1e-12, which makes write -> read -> write stable.
Everything OpenRAVE XML cannot hold is listed in the report.
"""
from __future__ import annotations

import math
import os
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from ...model import Group, PointCloud, Primitive, RigidObject, Robot, TriangleMesh, World
from ...model.geometry import leaf_appearances
from ...transforms import compose, det3, make_transform, transform_points, vector_norm
from ..affine import link_poses
from .. import static_mass
from ..fileio import fmt_float
from ..naming import Namespace, joint_names, no_whitespace, say_unwritten
from ._math import apply_transform_tag, matrices_from_quats, quat_from_matrix
from ._held import held_at, held_value
from ._multiaxis import axis_chains, continues_joint, report_folded_names
from ._mimic import equation_text
from ...model.coupling import without_clamp

__all__ = ["dumps"]

TOL = 1e-12


def _f(values) -> str:
    return " ".join(fmt_float(float(v) + 0.0) for v in values)


def _attr(s: str) -> str:
    return quoteattr(str(s))


def _close(A, B, tol=TOL) -> bool:
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    if A.shape != B.shape or not (np.all(np.isfinite(A)) and np.all(np.isfinite(B))):
        return False
    return float(np.abs(A - B).max(initial=0.0)) <= tol * max(1.0, float(np.abs(B).max(initial=0.0)))


def _raw_matches(raw, T) -> bool:
    if raw is None:
        return False
    M = np.eye(4)
    for tag, values in raw:
        M = apply_transform_tag(M, tag, np.array(values, dtype=float))
    return _close(M, T)


def _pose_lines(T, raw, ind: str) -> list:
    """Transform tags giving the rigid transform ``T`` (the raw tags read from a file when
    they still give ``T``)."""
    if _raw_matches(raw, T):
        return [f"{ind}<{_tagname(t)}>{_f(v)}</{_tagname(t)}>" for t, v in raw]
    out = []
    t = T[:3, 3]
    if np.any(t != 0):
        out.append(f"{ind}<Translation>{_f(t)}</Translation>")
    R = T[:3, :3]
    if not np.array_equal(R, np.eye(3)):
        out.append(f"{ind}<quat>{_f(_stable_quat(R))}</quat>")
    return out


def _stable_quat(R) -> np.ndarray:
    """The quaternion of ``R`` whose matrix, as OpenRAVE's reader builds it, is exactly
    the matrix it stands for where some quaternion a few units in the last place away is
    (:func:`roboio.formats.fixed_point.stable_params`): reading it back and writing again
    gives the same numbers on any machine (every step is element-wise arithmetic). A matrix
    that is not a rotation is taken as its nearest rotation (polar decomposition)."""
    from ..affine import nearest_rotation
    from ..fixed_point import stable_params
    return np.array(stable_params(nearest_rotation(R)[0], quat_from_matrix, matrices_from_quats,
                                  _QUAT_ULPS))


_QUAT_ULPS = (2, 2, 2, 2)


_TAGNAMES = {"translation": "Translation", "rotationaxis": "RotationAxis",
             "rotationmat": "RotationMat", "quat": "quat"}


def _tagname(t: str) -> str:
    return _TAGNAMES[t]


def _leaves(g, T=None):
    """(geometry, 4x4 to the link frame) of every non-group piece of ``g``."""
    T = np.eye(4) if T is None else T
    M = compose(T, g.transform)
    if isinstance(g, Group):
        for c in g.children:
            yield from _leaves(c, M)
    else:
        yield g, M


def _rotation_onto(src, dst):
    """A rotation turning unit ``src`` onto unit ``dst`` (the smallest one)."""
    from ...transforms import rotation_between
    return rotation_between(src, dst)


def _unit(v):
    v = np.asarray(v, dtype=float)
    n = float(vector_norm(v))
    return v / n if n > 0 else v


def _inverse(M) -> np.ndarray:
    """Inverse of a 4x4 affine map (a file transform: a scale, a rotation): element-wise
    when its columns are orthogonal (the usual case), else by LAPACK."""
    M = np.asarray(M, float)
    A = M[:3, :3]
    G = compose(A.T, A)
    if np.array_equal(G, np.diag(np.diag(G))) and np.all(np.diag(G) > 0):
        Ainv = A.T / np.diag(G)[:, None]            # (orthogonal columns: A^-1 = D^-1 A^T)
        return make_transform(Ainv, -compose(Ainv, M[:3, 3:4])[:, 0])
    return np.linalg.inv(M)


def _decompose(A):
    """``A`` = R @ diag(s) with R a rotation and s > 0, or None."""
    s = vector_norm(np.asarray(A, float).T)
    if np.any(s == 0):
        return None
    R = A / s
    if det3(R) < 0 or np.abs(compose(R.T, R) - np.eye(3)).max() > 1e-9:
        return None
    return R, s


def _passive_type(jtype: str) -> "str | None":
    """The OpenRAVE XML type of a passive joint read as ``jtype`` (a COLLADA ``RR`` joint is
    a ``hinge2``), or None when OpenRAVE XML has none (``RP``, ``RRR``, ...)."""
    if jtype in ("hinge", "slider", "universal", "hinge2", "spherical"):
        return jtype
    return {"R": "hinge", "P": "slider", "RR": "hinge2"}.get(jtype)


def _xml_kinds(kinds: str, chain) -> "str | None":
    """Why OpenRAVE XML cannot hold a joint with these axes as one joint (None: it can)."""
    if kinds == "RR":
        return None
    return (f"OpenRAVE XML has no joint with axes {', '.join(kinds)}; universal and hinge2 "
            "are two revolute axes")


class _BodyWriter:
    """Writes one Robot as the children of a ``<KinBody>`` plus robot-level elements."""

    def __init__(self, robot: Robot, report, out_dir: str, label: str):
        self.r = robot
        self.report = report
        self.dir = out_dir
        self.label = label
        self.n = robot.num_links
        self.driven = {k for d in robot.drivers for k in d.dofs}
        self.T0 = link_poses(robot, np.zeros(self.n))       # for planning; see name_joints

    def lose(self, what: str, concerning=None, **kind):
        self.report.lose(f"{self.label}: {what}", concerning, **kind)

    # -- structure -----------------------------------------------------------------------
    def plan(self):
        """Bodies, the joint chain of each body, joint names and roles."""
        r = self.r
        links = r.links
        self.fold = {}             # intermediate model link -> model link of its body
        # multi-axis joints OpenRAVE XML holds (two revolute axes: universal, hinge2)
        self.multi, refused = axis_chains(r, kinds_ok=_xml_kinds, followers=True)
        self.axis_of = {}          # model link -> its axis in its multi-axis joint
        for c in self.multi.values():
            self.fold.update(zip(c.links[:-1], c.links[1:]))
            self.axis_of.update((k, a) for a, k in enumerate(c.axes))
            report_folded_names(r, c, self.report)
        for jname, why, src_type in refused:
            if src_type == "spherical":
                continue     # its drivers' change to Euler angles is reported with them
            self.lose("multi-axis joints written as one joint per axis", f"{jname} ({why})",
                      kind="changed", noun="joint")
        for i, l in enumerate(links):
            ext = l.extras.get("openrave", {})
            if not ext.get("intermediate") or i in self.fold:
                continue
            # an intermediate whose only descendant chain ends in its OpenRAVE link
            kids = [k for k in range(self.n) if links[k].parent == i]
            if len(kids) == 1:
                self.fold[i] = kids[0]
        # resolve chains down to the owning body
        def owner(i):
            seen = 0
            while i in self.fold and seen <= self.n:
                i = self.fold[i]
                seen += 1
            return i
        self.owner = {i: owner(i) for i in self.fold}
        chains = {}
        for i in range(self.n):
            if i in self.fold:
                continue
            seq = [i]
            p = links[i].parent
            while p >= 0 and p in self.fold and self.owner[p] == i:
                seq.insert(0, p)
                p = links[p].parent
            chains[i] = (p, seq)
        # a chain that OpenRAVE cannot express as one joint is written link by link
        for i, (p, seq) in list(chains.items()):
            if len(seq) > 1 and self.joint_kind(seq) is None:
                for k in seq[:-1]:
                    del self.fold[k]
                    self.owner.pop(k, None)
                    chains[k] = (links[k].parent, [k])
                for a, b in zip(seq[:-1], seq[1:]):
                    chains[b] = (a, [b])
        self.bodies = [i for i in range(self.n) if i not in self.fold]
        # OpenRAVE's first link is the body frame and cannot move: a root whose joint moves
        # hangs from a fixed virtual link written first
        self.vroot = None
        moving_roots = [i for i, (p, seq) in chains.items() if p < 0 and self.moving(seq)]
        if moving_roots:
            self.vroot = self.n
            for i in moving_roots:
                chains[i] = (self.vroot, chains[i][1])
            self.bodies.insert(0, self.vroot)
            self.T0 = np.concatenate([self.T0, np.eye(4)[None]], axis=0)
        self.chains = chains
        self.names = {}
        used = set()
        if self.vroot is not None:
            vname = "world"
            while vname in {l.name for l in links}:
                vname = "_" + vname
            self.names[self.vroot] = vname
            used.add(vname)
            self.lose(f"a fixed link {vname!r} is added as OpenRAVE's first link (the base link "
                      f"{links[moving_roots[0]].name!r} moves relative to the world)", kind="changed")
        referenced = set()
        for i, (p, seq) in chains.items():
            if p >= 0:
                referenced.update((i, self.owner.get(p, p)))
        for m in r.manipulators:
            referenced.update((self.owner.get(m.base, m.base), self.owner.get(m.effector, m.effector)))
        for sen in r.sensors:
            referenced.add(self.owner.get(sen.link, sen.link))
        # names: unique, without whitespace (OpenRAVE reads a name up to its first space);
        # changes go into report.renamed. An unnamed link nothing refers to stays unnamed.
        named = [i for i in self.bodies if i != self.vroot and (links[i].name or i in referenced)]
        for i in self.bodies:
            if i != self.vroot and i not in named:
                self.names[i] = links[i].name
        space = Namespace(self.report, "links", no_whitespace, used)
        self.names.update(zip(named, space.assign([links[i].name for i in named],
                                                  [f"link{i}" for i in named])))

    def joint_kind(self, seq):
        """OpenRAVE joint type of a chain of model links ending in a body, or None. A
        multi-axis joint keeps the type it was read as (``universal``); other two-revolute
        joints (``hinge2``, COLLADA ``RR``, models built so) are ``hinge2``, which OpenRAVE
        moves as the chain does (it does not move ``universal`` joints)."""
        links = self.r.links
        moving = self.moving(seq)
        if len(seq) == 1:
            return "one"
        if len(moving) == 1 and moving[0] == seq[0] and all(self._is_weld(k) for k in seq[1:]):
            return "hinge" if not links[seq[0]].is_prismatic else None
        c = self.multi.get(seq[-1])
        if c is not None and c.links == list(seq):
            return "universal" if c.source_type == "universal" else "hinge2"
        return None

    def _is_weld(self, k) -> bool:
        """A link that never moves: no driver moves it and its limits allow one value."""
        return k not in self.driven and self.r.qmin[k] == self.r.qmax[k]

    def moving(self, seq):
        return [k for k in seq if not self._is_weld(k)]

    # -- drivers -------------------------------------------------------------------------
    def roles(self):
        """Per moving model link: ("active", driver index), ("mimic", driver index, a, b)
        with q = a * q_master + b, or ("passive",)."""
        r = self.r
        self.role = {}
        self.dof_names = []
        for di, d in enumerate(r.drivers):
            if d.type == "nonlinear" and d.dofs and d.leader in d.dofs:
                # the leader link is the DOF; each other link a mimic joint with the formula
                if d.leader in self.role:
                    self.lose(f"driver {d.name!r} moves link {r.links[d.leader].name!r}, "
                              "already moved by another driver", kind="not written")
                    continue
                self.role[d.leader] = ("active", di)
                for pos, li in enumerate(d.dofs):
                    if li != d.leader and li not in self.role:
                        self.role[li] = ("formula", di, pos)
                continue
            if d.type not in ("normal", "affine") or not d.dofs:
                self.lose("drivers with no OpenRAVE DOF written for them",
                          f"{d.name} ({d.type}, {len(d.dofs)} DOFs)", kind="not written", noun="driver")
                continue
            k0 = self.master_index(d)
            m = d.dofs[k0]
            s0 = d.scale[k0] if d.type == "affine" else 1.0
            o0 = d.offset[k0] if d.type == "affine" else 0.0
            if m in self.role:
                self.lose(f"driver {d.name!r} moves link {r.links[m].name!r}, already moved by "
                          "another driver", kind="not written")
                continue
            if s0 == 0:
                self.role[m] = ("active", di)       # a static joint keeping its DOF slot
            else:
                if (s0, o0) != (1.0, 0.0):
                    self.lose(f"driver {d.name!r}: its value becomes link "
                              f"{r.links[m].name!r}'s value (scale {s0:g}, offset {o0:g})", kind="changed")
                self.role[m] = ("active", di)
            for k in range(len(d.dofs)):
                if k == k0:
                    continue
                li = d.dofs[k]
                if li in self.role:
                    self.lose(f"driver {d.name!r}: link {r.links[li].name!r} moved by two drivers",
                              kind="not written")
                    continue
                if s0 == 0:
                    self.lose(f"driver {d.name!r}: link {r.links[li].name!r} follows a joint "
                              "that does not move", kind="not written")
                    continue
                a = d.scale[k] / s0
                b = d.offset[k] - d.scale[k] * o0 / s0
                self.role[li] = ("mimic", di, a, b)
        for k in range(self.n):
            if k in self.role or self._is_weld(k):
                continue
            ext = r.links[k].extras.get("openrave", {})
            if ext.get("joint_role") in ("mimic", "passive") or ext.get("intermediate"):
                continue                 # an OpenRAVE passive/mimic joint stays passive
            self.role[k] = ("free",)
            self.lose("links without a driver, written as active OpenRAVE joints (extra DOFs after "
                      "the drivers')", r.links[k].name, kind="changed", noun="link")

    # -- writing -------------------------------------------------------------------------
    def write_kinbody(self, ind: str) -> list:
        self.check_rotations()
        self.plan()
        self.roles()
        self.name_joints()
        lines = []
        self.with_geoms = set()        # bodies written with at least one <Geom>
        for i in self.bodies:
            lines += self.body(i, ind)
        joints = self.joint_elements(ind)
        lines += joints
        lines += self.adjacency(ind)
        return lines

    def check_rotations(self):
        """OpenRAVE keeps rotations as unit quaternions: a parent transform whose rotation is
        not orthonormal is written as the nearest rotation (the FK change is measured into
        ``report.fk_error``)."""
        from ..affine import nearest_rotation
        from ..fk_change import FK_SAMPLES, fk_change, fk_loss_kind, note_fk_change
        approx = {}
        for l in self.r.links:
            R = np.asarray(l.parent_transform)[:3, :3]
            dev = float(np.abs(compose(R.T, R) - np.eye(3)).max())
            Rn, err = nearest_rotation(R)
            if err > 0:
                T = np.array(l.parent_transform, float)
                T[:3, :3] = Rn
                approx[l.index] = T
            if dev > 1e-12:
                self.lose("parent transforms whose rotation is not orthonormal (|R^T R - I|; "
                          "OpenRAVE stores a unit quaternion)", l.name, kind="approximated",
                          noun="link", largest=dev)
        if approx and self.report is not None:
            pos, rot = fk_change(self.r, approx)
            note_fk_change(self.report, pos, rot)
            if pos > 0 or rot > 0:
                self.lose(f"link frames move by up to {pos:.1e} m (rotation matrix entries by "
                          f"{rot:.1e}) over {FK_SAMPLES} sampled configurations (nearest rotations "
                          "written)", kind=fk_loss_kind(pos, rot))
        for l in self.r.links:
            a = np.asarray(l.axis, dtype=float)
            n = float(vector_norm(a))
            if n > 0 and abs(n - 1) > 1e-12 and not self._is_weld(l.index):
                self.lose("axes that are not unit length (Klamp't turns by q times the length; "
                          "OpenRAVE normalises the axis)", f"{l.name} (|axis| = {n:.9g})",
                          kind="changed", noun="link")

    def body(self, i, ind) -> list:
        if i == self.vroot:
            return [f"{ind}<Body name={_attr(self.names[i])} type=\"dynamic\">",
                    f'{ind}  <mass type="custom">', f"{ind}    <total>0</total>",
                    f"{ind}    <inertia>0 0 0 0 0 0 0 0 0</inertia>", f"{ind}  </mass>",
                    f"{ind}</Body>"]
        l = self.r.links[i]
        ext = l.extras.get("openrave", {})
        # an unnamed link has no name attribute (name="" would re-open the first unnamed link)
        attrs = f"name={_attr(self.names[i])} " if self.names[i] else ""
        attrs += 'type="static"' if ext.get("static") else 'type="dynamic"'
        if ext.get("enabled") is False:
            attrs += ' enable="false"'
        out = [f"{ind}<Body {attrs}>"]
        out += _pose_lines(self.T0[i], ext.get("raw_pose"), ind + "  ")
        geoms = self.geoms(i, ind + "  ")
        if geoms:
            self.with_geoms.add(i)
        out += geoms
        out += self.mass(l, ind + "  ")
        out += _kept(ext, ind + "  ")
        out.append(f"{ind}</Body>")
        return out

    def mass(self, l, ind) -> list:
        I = np.asarray(l.inertia, dtype=float)
        out = [f'{ind}<mass type="custom">', f"{ind}  <total>{fmt_float(l.mass)}</total>"]
        if np.any(np.asarray(l.com) != 0):
            out.append(f"{ind}  <com>{_f(l.com)}</com>")
        out.append(f"{ind}  <inertia>{_f(I.reshape(9))}</inertia>")
        out.append(f"{ind}</mass>")
        return out

    # geometry ----------------------------------------------------------------------------
    def geoms(self, i, ind) -> list:
        l = self.r.links[i]
        out = []
        if l.geometry is None and l.visual_geometry is None:
            return out
        leaves = list(_leaves(l.geometry)) if l.geometry is not None else []
        own = all("openrave" in g.extras for g, _ in leaves) and leaves
        visuals = list(_leaves(l.visual_geometry)) if l.visual_geometry is not None else None
        renders = {}
        if visuals is not None:
            if own:
                for g, T in visuals:
                    if g.extras.get("openrave", {}).get("render_file") and isinstance(g, TriangleMesh):
                        renders[id(g)] = (g, T)
            elif visuals:
                self.lose("visual geometry separate from the collision geometry (OpenRAVE draws "
                          "the collision geometry)", l.name, kind="not written", noun="link")
        rlist = list(renders.values())
        apps = leaf_appearances(l.geometry, l.appearance)      # (a piece's own colour)
        for k, (g, T) in enumerate(leaves):
            ext = g.extras.get("openrave", {}) if own else {}
            render = None
            if ext.get("render_file") and rlist:
                render = rlist.pop(0)
            out += self.geom(l, g, T, ext, render, ind, apps[k])
        return out

    def geom(self, l, g, T, ext, render, ind, appearance=None) -> list:
        """``<Geom>`` lines of piece ``g`` of link ``l``; ``appearance``: the piece's (its own,
        else the link's), whose colour is the Geom's unless the piece keeps OpenRAVE's own."""
        name = l.name
        body = []
        if isinstance(g, Primitive):
            shape = self.primitive(g, T, name)
            if shape is None:
                return []
            gtype, frame, params = shape
        elif isinstance(g, TriangleMesh):
            m = self.mesh(g, T, name, ext)
            if m is None:
                return []
            gtype, frame, params = m
        elif isinstance(g, PointCloud):
            self.lose("point-cloud geometry", name, kind="not written", noun="link")
            return []
        else:
            self.lose(f"{g.kind} geometry", name, kind="not written", noun="link")
            return []
        attrs = f'type="{gtype}"'
        if ext.get("visible") is False:
            attrs += ' render="false"'
        if ext.get("modifiable") is False:
            attrs += ' modifiable="false"'
        if ext.get("name"):
            attrs += f" name={_attr(ext['name'])}"
        body.append(f"{ind}<Geom {attrs}>")
        body += _pose_lines(frame, ext.get("raw_pose"), ind + "  ")
        body += [f"{ind}  {p}" for p in params]
        if render is not None:
            rg, rT = render
            ref = self.mesh_path(rg)
            scale = ext.get("render_scale", [1.0, 1.0, 1.0])
            if ref is not None:
                body.append(f"{ind}  <Render>{escape(ref)} {_f(scale)}</Render>")
        rgba = (appearance or l.appearance).color
        color = ext.get("diffuse")
        if color is None and rgba is not None:
            color = rgba[:3]
        if color is not None:
            body.append(f"{ind}  <diffuseColor>{_f(color)}</diffuseColor>")
        if ext.get("ambient") is not None:
            body.append(f"{ind}  <ambientColor>{_f(ext['ambient'])}</ambientColor>")
        tr = ext.get("transparency")
        if tr is None and rgba is not None and len(rgba) > 3 and rgba[3] < 1:
            tr = 1.0 - rgba[3]
        if tr is not None:
            body.append(f"{ind}  <transparency>{fmt_float(tr)}</transparency>")
        body += _kept(ext, ind + "  ")
        body.append(f"{ind}</Geom>")
        return body

    def primitive(self, g, T, name):
        p, k = g.params, g.primitive
        dec = _decompose(T[:3, :3])
        if dec is None or np.ptp(dec[1]) > 1e-12 * dec[1].max():
            self.lose(f"{k} primitives under a non-rigid transform", name, kind="not written",
                      noun="link")
            return None
        R, s = dec
        s = 1.0 if abs(s[0] - 1.0) <= 1e-12 else s[0]      # a rotation's rounding, not a scale

        def frame(center, Rl=np.eye(3)):
            F = np.eye(4)
            F[:3, :3] = compose(R, Rl)
            F[:3, 3] = transform_points(T, np.asarray(center, dtype=float))
            return F
        if k == "Box":
            B = np.stack([p["xaxis"], p["yaxis"], p["zaxis"]], axis=1)
            if np.abs(compose(B.T, B) - np.eye(3)).max() > 1e-9 or det3(B) < 0:
                self.lose("boxes with skewed axes", name, kind="not written", noun="link")
                return None
            dims = np.asarray(p["dims"], dtype=float)
            c = np.asarray(p["origin"], dtype=float) + compose(B, (dims / 2).reshape(3, 1))[:, 0]
            return "box", frame(c, B), [f"<extents>{_f(dims / 2 * s)}</extents>"]
        if k == "AABB":
            lo, hi = np.asarray(p["bmin"], dtype=float), np.asarray(p["bmax"], dtype=float)
            return "box", frame((lo + hi) / 2), [f"<extents>{_f((hi - lo) / 2 * s)}</extents>"]
        if k == "Sphere":
            return "sphere", frame(p["center"]), [f"<radius>{fmt_float(p['radius'] * s)}</radius>"]
        if k in ("Cylinder", "Capsule"):
            a = np.asarray(p["axis"], dtype=float)
            a = a / vector_norm(a)
            mid = np.asarray(p["center"], dtype=float) + a * p["height"] / 2
            ref = np.array([0.0, 1.0, 0.0]) if k == "Cylinder" else np.array([0.0, 0.0, 1.0])
            Ra = np.eye(3) if np.array_equal(a, ref) else _rotation_onto(ref, a)
            return k.lower(), frame(mid, Ra), [f"<radius>{fmt_float(p['radius'] * s)}</radius>",
                                               f"<height>{fmt_float(p['height'] * s)}</height>"]
        self.lose(f"{k} primitives (OpenRAVE has box, sphere, cylinder, capsule)", name,
                  kind="not written", noun="link")
        return None

    def mesh_path(self, g):
        if g.source is None:
            return None
        if g.source.path:
            return os.path.relpath(os.path.abspath(g.source.path), self.dir).replace(os.sep, "/")
        return g.source.reference

    def mesh(self, g, T, name, ext):
        ref = self.mesh_path(g)
        if g.missing:
            self.lose("meshes not found on reading (their references are written as they were)",
                      f"{name} ({g.source.reference if g.source else '?'})", kind="missing file")
        raw_scale = ext.get("collision_scale")
        if ref is not None and raw_scale is not None:
            Fr = np.eye(4)
            for tag, values in ext.get("raw_pose", []):
                Fr = apply_transform_tag(Fr, tag, np.array(values, dtype=float))
            S = np.diag(list(raw_scale) + [1.0])
            if _close(compose(compose(Fr, S), self._file_transform(g)), T):
                return "trimesh", Fr, [f"<data>{escape(ref)} {_f(raw_scale)}</data>"]
        if ref is not None:
            A = compose(T, _inverse(self._file_transform(g)))
            dec = _decompose(A[:3, :3])
            if dec is not None:
                R, s = dec
                F = np.eye(4)
                F[:3, :3] = R
                F[:3, 3] = A[:3, 3]
                return "trimesh", F, [f"<data>{escape(ref)} {_f(s)}</data>"]
        if g.missing:
            return None
        mesh = g.copy()
        mesh.transform = T
        b = mesh.baked()
        tri = b.vertices[b.faces].reshape(-1)
        self.report.warn(f"{self.label}: meshes written inline as <vertices>"
                         + ("" if ref is None else " (their file transform is not rotation x "
                                                   "scale)"), name, kind="restructured", noun="link")
        return "trimesh", np.eye(4), [f"<vertices>{_f(tri)}</vertices>"]

    @staticmethod
    def _file_transform(g) -> np.ndarray:
        """The transform the mesh file's reader gave the geometry, before the OpenRAVE reader
        scaled and placed it (identity unless the file format has one)."""
        ft = g.extras.get("openrave", {}).get("file_transform")
        return np.eye(4) if ft is None else np.asarray(ft, dtype=float)

    # joints ------------------------------------------------------------------------------
    def name_joints(self):
        """Name every written joint and decide its role (``self.items``)."""
        r = self.r
        items = []
        jnames = set()
        self.joint_names = {}
        source = joint_names(r)
        space = Namespace(self.report, "joints", no_whitespace)
        for i in self.bodies:
            if i == self.vroot:
                continue
            p, seq = self.chains[i]
            if p < 0:
                continue
            moving = self.moving(seq)
            ext = r.links[i].extras.get("openrave", {})
            jd = ext.get("joint", {})
            role = self.role.get(moving[0]) if moving else None
            if moving and role is None:
                role = ("passive",)
            if moving and role[0] == "free":
                role = ("active", len(r.drivers) + i)     # after the drivers, in link order
            if not moving:
                role = ("weld",)
                active_static = [self.role.get(k) for k in seq if self.role.get(k)]
                if active_static and active_static[0][0] == "active":
                    role = ("static-active", active_static[0][1])
            # the joint's name: as read from OpenRAVE, else the source's name of the joint
            # (Link.joint_name, or its driver's), else the driver's, else the body's
            name = jd.get("name")
            if continues_joint(r, seq[0]):
                name = None          # a further axis (or the welded link) of a joint written
                #                      one joint per axis: only its first keeps the name
            if name is None:
                name = next((source[k] for k in moving + seq if source[k] is not None), None)
            if name is None and role[0] in ("active", "static-active") and role[1] < len(r.drivers):
                name = r.drivers[role[1]].name or None
            items.append([role, i, p, seq, moving, name, jd])
        # named all at once: a name that needs no change keeps it before a changed one takes it
        named = [it for it in items if it[5] or self.names[it[1]]]
        got = space.assign([it[5] for it in named], [self.names[it[1]] or f"joint{it[1]}" for it in named])
        for it, name in zip(named, got):
            it[5] = name
        named_ids = {id(it) for it in named}
        for it in items:
            if id(it) not in named_ids:
                it[5] = ""
            role, i, p, seq, moving, name, jd = it
            jnames.add(name)
            for m in moving:
                self.joint_names[m] = name
            for m in seq:
                self.joint_names.setdefault(m, name)
        items = [tuple(it) for it in items]
        say_unwritten(r, {k for it in items for k in it[3]}, self.report,
                      "OpenRAVE's root links have no joint")
        self.all_joint_names = jnames
        self.items = items
        # a moving link no driver moves is written where it is (a passive joint holding
        # that value), unless its mimic equation is written (then at the joint's zero)
        q = np.zeros(self.n)
        for k in range(self.n):
            if self._is_weld(k) and np.isfinite(r.qmin[k]):
                q[k] = r.qmin[k]
        for role, i, p, seq, moving, name, jd in items:
            if role[0] != "passive":
                continue
            m = (jd.get("mimic") or [None])[0] or {}
            if m.get("pos") and self.names_known(m["pos"]):
                continue
            for k in moving:
                q[k] = held_value(r, k)
        self.q_write = q
        self.T0 = link_poses(r, q)
        if self.vroot is not None:
            self.T0 = np.concatenate([self.T0, np.eye(4)[None]], axis=0)

    def joint_elements(self, ind) -> list:
        items = self.items
        self.written_static = {}       # body -> whether OpenRAVE sees its joint as static
        lines = []
        active = sorted((it for it in items if it[0][0] in ("active", "static-active")),
                        key=lambda it: it[0][1])
        others = [it for it in items if it[0][0] not in ("active", "static-active")]
        # the OpenRAVE DOFs in order: (model link or None for a static joint), and the
        # joint each belongs to, as its axes (the limits OpenRAVE clamps a DOF to)
        self.dof_links = []
        self.dof_joint = []
        for role, i, p, seq, moving, name, jd in active:
            if role[0] == "static-active":
                self.dof_links.append(None)
                self.dof_joint.append(None)
            else:
                self.dof_links += list(moving)
                self.dof_joint += [tuple(moving)] * len(moving)
        for it in active + others:
            lines += self.joint(*it, ind)
        return lines

    def joint(self, role, i, p, seq, moving, name, jd, ind) -> list:
        r = self.r
        links = r.links
        kind = role[0]
        parent_name = self.names[p]
        attrs = f"name={_attr(name)}"
        body = []
        if moving and kind == "mimic" and all(r.qmin[k] >= r.qmax[k] for k in moving):
            # OpenRAVE reads a mimic joint without range as a rigid one (it never moves):
            # written as such, so that what is read back is written the same
            self.lose(f"link {links[moving[0]].name!r}: coupling of a joint without range "
                      "(written rigid, as OpenRAVE reads it)")
            moving = []
        if not moving:
            ext = links[i].extras.get("openrave", {})
            passive_type = _passive_type(jd.get("type", "hinge"))
            if ext.get("joint_role") == "passive" and ext.get("passive_frame") and len(seq) == 1 \
                    and passive_type is None:
                self.lose(f"passive joint {name!r} with axes {', '.join(jd.get('type', ''))} "
                          "written as a fixed joint (OpenRAVE XML has no such joint; a passive "
                          "joint holds its value, so the kinematics are the same)",
                          kind="restructured")
            elif ext.get("joint_role") == "passive" and ext.get("passive_frame") and len(seq) == 1:
                lines = self.passive_joint(i, parent_name, name, jd, ext["passive_frame"], ind)
                static = not any(jd.get("circular", [])) and all(
                    lo >= hi for lo, hi in zip(jd.get("lower", []), jd.get("upper", [])))
                self.written_static[i] = static
                return lines
            self.written_static[i] = True
            jtype = "hinge"
            if kind != "static-active":
                attrs += ' enable="false"'
            attrs = f'{attrs} type="{jtype}"'
            body += [f"{ind}  <Body>{escape(parent_name)}</Body>",
                     f"{ind}  <Body>{escape(self.names[i])}</Body>",
                     f"{ind}  <limits>0 0</limits>"]
            return [f"{ind}<Joint {attrs}>"] + body + [f"{ind}</Joint>"]
        first = moving[0]
        prismatic = links[first].is_prismatic
        self.written_static[i] = all(r.qmin[k] == r.qmax[k] for k in moving)
        if len(moving) == 1:
            jtype = "slider" if prismatic else "hinge"
        else:
            jtype = self.joint_kind(seq)
        attrs += f' type="{jtype}"'
        circular = [not (np.isfinite(r.qmin[k]) and np.isfinite(r.qmax[k])) for k in moving]
        if any(circular):
            attrs += ' circular="true"'
        if kind == "passive":
            attrs += ' enable="false"'
            if not (jd.get("mimic") and (jd["mimic"][0] or {}).get("pos")):
                self.lose("links without a driver, written as passive OpenRAVE joints, which hold "
                          "their value (rigid)", f"{links[first].name} ({held_at(r, moving)})",
                          kind="changed", noun="link")
        if kind == "formula":
            _, di, pos = role
            d = r.drivers[di]
            names = [self.joint_names_master(j) for j in d.coupling.inputs]
            fn = without_clamp(d.coupling.functions[pos], r.qmin[first], r.qmax[first])
            eq = equation_text(fn, names, fmt_float)
            attrs += f' enable="false" mimic_pos={_attr(eq)}'
        elif kind == "mimic":
            _, di, a, b = role
            master = self.joint_names_master(di)
            eq = f"{master}*{fmt_float(a)}+{fmt_float(b)}"
            attrs += (f' enable="false" mimic_pos={_attr(eq)} mimic_vel={_attr(f"|{master} {fmt_float(a)}")}'
                      f' mimic_accel={_attr(f"|{master} 0")}')
        elif kind == "passive" and jd.get("mimic"):
            m = jd["mimic"][0] or {}
            if m.get("pos") and not self.names_known(m["pos"]):
                self.lose(f"joint {name!r}: mimic equation {m['pos']!r} names joints that are "
                          "not written (closed-loop joints); written as a passive joint",
                          kind="not written")
            elif m.get("pos"):
                attrs += f" mimic_pos={_attr(m['pos'])}"
                if m.get("vel"):
                    attrs += f" mimic_vel={_attr(m['vel'])}"
                if m.get("accel"):
                    attrs += f" mimic_accel={_attr(m['accel'])}"
                self.report.warn(f"{self.label}: joint {name!r} keeps its mimic equation "
                                 f"{m['pos']!r} as read (roboio drivers cannot express it)",
                                 kind="kept as data")
        body += [f"{ind}  <Body>{escape(parent_name)}</Body>",
                 f"{ind}  <Body>{escape(self.names[i])}</Body>"]
        Ts = [self.T0[k] for k in moving]
        axes = [transform_points(make_transform(Ts[n][:3, :3]), np.asarray(links[k].axis, dtype=float))
                / vector_norm(links[k].axis) for n, k in enumerate(moving)]
        raw_axes = jd.get("raw_axes")
        if raw_axes and len(raw_axes) == len(axes) and all(_close(_unit(a), b) for a, b in
                                                            zip(raw_axes, axes)):
            axes = [np.asarray(a) for a in raw_axes]
        if not prismatic:
            anchor = Ts[0][:3, 3]
            raw = jd.get("raw_anchor")
            if raw is not None and _close(raw, anchor):
                anchor = np.asarray(raw)
            body.append(f"{ind}  <anchor>{_f(anchor)}</anchor>")
        if len(axes) == 1:
            body.append(f"{ind}  <axis>{_f(axes[0])}</axis>")
        else:
            body.append(f"{ind}  <axis1>{_f(axes[0])}</axis1>")
            body.append(f"{ind}  <axis2>{_f(axes[1])}</axis2>")
        lims = []
        for n, k in enumerate(moving):
            if circular[n]:
                lo, hi = jd.get("lower", [-math.pi] * 3)[n], jd.get("upper", [math.pi] * 3)[n]
                if not (np.isfinite(r.qmin[k]) or np.isfinite(r.qmax[k])):
                    pass
                else:
                    self.lose("one-sided limits written as circular", name, kind="changed",
                              noun="joint")
            else:
                lo, hi = r.qmin[k], r.qmax[k]
            lims += [lo, hi]
        tag = "limits" if prismatic else "limitsrad"
        body.append(f"{ind}  <{tag}>{_f(lims)}</{tag}>")
        static_dof = (kind == "active" and role[1] < len(r.drivers)
                      and r.drivers[role[1]].type == "affine"
                      and list(r.drivers[role[1]].scale[:1]) == [0.0])
        for field, arr in (("maxvel", r.vmax), ("maxaccel", r.amax), ("maxtorque", r.tmax)):
            vals = [arr[k] for k in moving]
            if static_dof:      # a static joint's link is a weld; its DOF keeps the driver's
                d = r.drivers[role[1]]
                vals = [{"maxvel": d.vmax, "maxaccel": d.amax, "maxtorque": d.tmax}[field]]
            if field == "maxtorque" and any(v == 0 for v in vals):
                self.lose("torque limits 0 (OpenRAVE reads 0 as 'no limit')", name,
                          kind="read differently", noun="joint")
                continue
            default = {"maxvel": 10.0, "maxaccel": 50.0, "maxtorque": None}[field]
            if all(np.isfinite(v) for v in vals):
                if not all(v == default for v in vals):
                    body.append(f"{ind}  <{field}>{_f(vals)}</{field}>")
            elif field != "maxtorque":
                self.lose(f"unbounded {field} (OpenRAVE applies its default "
                          f"{'10' if field == 'maxvel' else '50'})", name, kind="target default",
                          noun="joint")
        for field in ("weight", "hardmaxvel", "maxinertia"):
            vals = jd.get(field)
            default = 1.0 if field == "weight" else 0.0
            if vals and any(v != default for v in vals[:len(moving)]):
                body.append(f"{ind}  <{field}>{_f(vals[:len(moving)])}</{field}>")
        res = jd.get("resolution")
        if res and res[0] != 0.02:
            value = res[0] if prismatic else math.degrees(res[0])
            body.append(f"{ind}  <resolution>{fmt_float(value)}</resolution>")
        body += _kept(jd, ind + "  ")
        return [f"{ind}<Joint {attrs}>"] + body + [f"{ind}</Joint>"]

    def passive_joint(self, i, parent_name, name, jd, frame, ind) -> list:
        """An OpenRAVE passive joint read as a weld, written back as passive (it holds its
        value, and OpenRAVE counts it as a moving joint for adjacency)."""
        T = self.T0[i]
        jtype = _passive_type(jd.get("type", "hinge"))
        attrs = f"name={_attr(name)} type=\"{jtype}\" enable=\"false\""
        if any(jd.get("circular", [])):
            attrs += ' circular="true"'
        out = [f"{ind}<Joint {attrs}>", f"{ind}  <Body>{escape(parent_name)}</Body>",
               f"{ind}  <Body>{escape(self.names[i])}</Body>"]
        if jtype != "slider":
            anchor = transform_points(T, np.asarray(frame["anchor"], dtype=float))
            raw = jd.get("raw_anchor")
            if raw is not None and _close(raw, anchor):
                anchor = np.asarray(raw)
            out.append(f"{ind}  <anchor>{_f(anchor)}</anchor>")
        axes = [transform_points(make_transform(T[:3, :3]), np.asarray(a, dtype=float)) for a in frame["axes"]]
        raw_axes = jd.get("raw_axes")
        if raw_axes and len(raw_axes) == len(axes) and all(_close(_unit(a), b) for a, b in
                                                            zip(raw_axes, axes)):
            axes = [np.asarray(a) for a in raw_axes]
        if jtype in ("hinge", "slider"):
            out.append(f"{ind}  <axis>{_f(axes[0])}</axis>")
        elif jtype in ("universal", "hinge2"):
            out.append(f"{ind}  <axis1>{_f(axes[0])}</axis1>")
            out.append(f"{ind}  <axis2>{_f(axes[1])}</axis2>")
        if not any(jd.get("circular", [])) and jd.get("lower"):
            lims = [v for pair in zip(jd["lower"], jd["upper"]) for v in pair]
            tag = "limits" if jtype == "slider" else "limitsrad"
            out.append(f"{ind}  <{tag}>{_f(lims)}</{tag}>")
        out += _kept(jd, ind + "  ")
        out.append(f"{ind}</Joint>")
        return out

    def names_known(self, equation: str) -> bool:
        """Whether every joint ``equation`` names is among the written joints."""
        from ._mimic import MimicSyntaxError, parse_equation, search_and_replace
        pairs = [(n, f"joint{k}") for k, n in enumerate(sorted(self.all_joint_names)) if n]
        try:
            parse_equation(search_and_replace(equation, pairs))
        except MimicSyntaxError:
            return False
        return True

    @staticmethod
    def master_index(d) -> int:
        """Position in ``d.dofs`` of the joint that is the OpenRAVE DOF (the others mimic
        it): the driver's actuated joint (``Driver.leader``) unless the driver moves it by a
        zero scale, else its first DOF."""
        if d.leader in d.dofs:
            k = d.dofs.index(d.leader)
            if d.type != "affine" or d.scale[k] != 0:
                return k
        return 0

    def joint_names_master(self, di) -> str:
        """The name an equation calls driver ``di``'s DOF by: its joint's name, with
        ``_<k>`` for axis k > 0 of a multi-axis joint (OpenRAVE's ``name_1``)."""
        d = self.r.drivers[di]
        m = d.dofs[self.master_index(d)]
        name = self.joint_names.get(m, d.name)
        k = self.axis_of.get(m, 0)
        return f"{name}_{k}" if k else name

    # adjacency ---------------------------------------------------------------------------
    def adjacency(self, ind) -> list:
        """``<adjacent>`` pairs so that OpenRAVE checks exactly roboio's self-collision pairs
        (OpenRAVE never checks joined links or links with at most one moving joint between
        them, nor links without geometry: a link whose geometry is not written, because
        OpenRAVE cannot hold it, has none for OpenRAVE)."""
        r = self.r
        bodies = self.bodies
        index = {b: k for k, b in enumerate(bodies)}
        nb = len(bodies)
        has_geom = [b in self.with_geoms for b in bodies]
        # the written joint tree between bodies: parent body and whether the joint moves
        par = {}
        for b in bodies:
            if b == self.vroot:
                continue
            p, seq = self.chains[b]
            if p >= 0:
                pb = self.owner.get(p, p)
                # OpenRAVE counts a joint whose limits allow one value as static
                par[index[b]] = (index[pb], not self.written_static.get(b, True))
        # per body: its depth and the moving joints between it and its tree's root (filled
        # walking up to a known body: linear in the bodies)
        depth, moving_above = [None] * nb, [None] * nb
        for k in range(nb):
            path = []
            x = k
            while depth[x] is None and x in par:
                path.append(x)
                x = par[x][0]
            if depth[x] is None:
                depth[x], moving_above[x] = 0, 0
            for y in reversed(path):
                p = par[y][0]
                depth[y], moving_above[y] = depth[p] + 1, moving_above[p] + par[y][1]

        def common_ancestor(a, b):
            while depth[a] > depth[b]:
                a = par[a][0]
            while depth[b] > depth[a]:
                b = par[b][0]
            while a != b:
                if a not in par or b not in par:
                    return None
                a, b = par[a][0], par[b][0]
            return a

        def checked(a, b) -> bool:
            """Whether OpenRAVE checks bodies ``a`` and ``b`` against each other."""
            if not has_geom[a] or not has_geom[b]:
                return False
            if par.get(b, (None,))[0] == a or par.get(a, (None,))[0] == b:
                return False
            common = common_ancestor(a, b)
            if common is None:
                return False                  # unconnected links: OpenRAVE never checks them
            moving = moving_above[a] + moving_above[b] - 2 * moving_above[common]
            return moving > 1

        wanted = set()
        for x, y in r.self_collision_pairs:
            bx, by = self.owner.get(x, x), self.owner.get(y, y)
            if bx in index and by in index and bx != by:
                a, b = sorted((index[bx], index[by]))
                wanted.add((a, b))
        out = []
        enabled = [b == self.vroot or r.links[b].extras.get("openrave", {}).get("enabled", True)
                   for b in bodies]
        # pairs OpenRAVE checks but roboio does not: among enabled bodies with geometry only
        # (every other pair is never checked), in (a, b) order
        live = [k for k in range(nb) if enabled[k] and has_geom[k]]
        for i, a in enumerate(live):
            for b in live[i + 1:]:
                if (a, b) not in wanted and checked(a, b):
                    out.append(f"{ind}<adjacent>{escape(self.names[bodies[a]])} "
                               f"{escape(self.names[bodies[b]])}</adjacent>")
        lost = sum(1 for a, b in wanted if enabled[a] and enabled[b] and not checked(a, b))
        if lost:
            self.lose(f"{lost} self-collision pairs OpenRAVE never checks (joined links, links "
                      "with at most one moving joint between them, links without geometry)",
                      kind="read differently")
        return out

    # robot-level -------------------------------------------------------------------------
    def robot_elements(self, ind) -> list:
        out = []
        r = self.r
        for m in r.manipulators:
            out += self.manipulator(m, ind)
        for s in r.sensors:
            out += self.sensor(s, ind)
        q = np.asarray(r.config, dtype=float)
        u = [0.0 if k is None else float(q[k]) for k in self.dof_links]
        # OpenRAVE clamps initial values to the limits of joints that are not circular
        # (a joint is written circular where any of its axes has an infinite limit), every
        # axis of a joint to its first axis's limits (kinbody.cpp, KinBody::SetDOFValues:
        # GetLowerLimit(0) and GetUpperLimit(0) for each axis): the written values are the
        # clamped ones, which OpenRAVE starts from and a reading gives back
        for n, k in enumerate(self.dof_links):
            axes = self.dof_joint[n]
            if k is None or not all(np.isfinite(r.qmin[a]) and np.isfinite(r.qmax[a]) for a in axes):
                continue
            lo, hi = float(r.qmin[axes[0]]), float(r.qmax[axes[0]])
            v = min(max(u[n], lo), hi)
            if v != u[n]:
                why = "" if k == axes[0] else f"; its joint's first axis's limits [{lo:.4g}, {hi:.4g}]"
                self.lose("initial values outside the joint limits (OpenRAVE clamps them, every "
                          "axis of a joint to its first axis's limits)",
                          f"{r.links[k].name} ({u[n]!r} -> {v!r}{why})", kind="changed",
                          noun="link", largest=abs(v - u[n]))
                u[n] = v
        # measured load values carry rounding noise (~1e-16): not worth a <jointvalues>
        if u and np.any(np.abs(np.asarray(u)) > 1e-12):
            out.append(f"{ind}<jointvalues>{_f(u)}</jointvalues>")
        for k, role in self.role.items():
            if role[0] == "mimic":
                _, di, a, b = role
                m = r.drivers[di].dofs[0]
                if abs(q[k] - (a * q[m] + b)) > 1e-12 * max(1.0, abs(q[k])):
                    self.lose("initial values of links that do not follow their driver",
                              f"{r.links[k].name} ({r.drivers[di].name})", kind="not written",
                              noun="link")
        return out

    def manipulator(self, m, ind) -> list:
        r = self.r
        ext = m.extras.get("openrave", {})
        names = self.names
        base = names.get(self.owner.get(m.base, m.base))
        eff = names.get(self.owner.get(m.effector, m.effector))
        out = [f"{ind}<Manipulator name={_attr(m.name)}>",
               f"{ind}  <base>{escape(base)}</base>", f"{ind}  <effector>{escape(eff)}</effector>"]
        gj = []
        cd = []
        for li, c in zip(m.gripper_links, list(m.closing_direction) + [0] * len(m.gripper_links)):
            jn = self.joint_names.get(li)
            if jn is None:
                self.lose(f"manipulator {m.name!r}: gripper link {r.links[li].name!r} has no joint",
                          kind="not written")
                continue
            if jn not in gj:
                gj.append(jn)
                cd.append(int(np.sign(c)))
        if gj:
            out.append(f"{ind}  <joints>{escape(' '.join(gj))}</joints>")
            out.append(f"{ind}  <closingdirection>{' '.join(str(c) for c in cd)}</closingdirection>")
        d = np.asarray(m.direction, dtype=float)
        if not np.array_equal(d, [0.0, 0.0, 1.0]):
            out.append(f"{ind}  <direction>{_f(d)}</direction>")
        if m.ik_solver:
            out.append(f"{ind}  <iksolver>{escape(m.ik_solver)}</iksolver>")
        out += _pose_lines(np.asarray(m.tool_transform, dtype=float), ext.get("raw_tool"), ind + "  ")
        out += _kept(ext, ind + "  ")
        out.append(f"{ind}</Manipulator>")
        return out

    def sensor(self, s, ind) -> list:
        ext = s.extras.get("openrave", {})
        name = self.names.get(self.owner.get(s.link, s.link)) if s.link >= 0 else None
        out = [f"{ind}<AttachedSensor name={_attr(s.name)}>"]
        if name is not None:
            out.append(f"{ind}  <link>{escape(name)}</link>")
        out += _pose_lines(np.asarray(s.transform, dtype=float), ext.get("raw_pose"), ind + "  ")
        stype = f" type={_attr(s.type)}" if s.type else ""
        out.append(f"{ind}  <sensor{stype}>")
        params = ext.get("params")
        if params:
            for p in params:
                out += _xml_lines(p, ind + "    ")
        else:
            for k, v in s.params.items():
                for item in (v if isinstance(v, list) else [v]):
                    if isinstance(item, dict):
                        self.lose(f"sensor {s.name!r}: structured parameter {k!r}", kind="not written")
                        continue
                    out.append(f"{ind}    <{k}>{escape(str(item))}</{k}>")
        out.append(f"{ind}  </sensor>")
        out.append(f"{ind}</AttachedSensor>")
        return out


def _kept(ext: dict, ind: str) -> list:
    """Elements OpenRAVE ignores that roboio kept as data when reading, written back."""
    out = []
    for key in ("actuator", "ignored", "unknown"):
        items = ext.get(key)
        if items is None:
            continue
        for x in (items if isinstance(items, list) else [items]):
            out += _xml_lines(x, ind)
    return out


def _xml_lines(x, ind) -> list:
    """An XmlData element as written lines."""
    attrs = "".join(f" {k}={_attr(v)}" for k, v in x.attrib.items())
    if not x.children:
        if x.text:
            return [f"{ind}<{x.tag}{attrs}>{escape(x.text)}</{x.tag}>"]
        return [f"{ind}<{x.tag}{attrs}/>"]
    out = [f"{ind}<{x.tag}{attrs}>" + (escape(x.text) if x.text else "")]
    for c in x.children:
        out += _xml_lines(c, ind + "  ")
    out.append(f"{ind}</{x.tag}>")
    return out


def _robot(robot: Robot, report, out_dir, ind="", name=None) -> list:
    """``name``: the body name written (default the robot's; an environment's may differ)."""
    w = _BodyWriter(robot, report, out_dir, f"robot {robot.name!r}")
    ext = robot.extras.get("openrave", {})
    kb = w.write_kinbody(ind + "    ")
    name = robot.name if name is None else name
    lines = [f"{ind}<Robot name={_attr(name)}>", f"{ind}  <KinBody name={_attr(name)}>"]
    lines += kb
    for x in ext.get("unknown", []):
        lines += _xml_lines(x, ind + "    ")
    lines.append(f"{ind}  </KinBody>")
    lines += w.robot_elements(ind + "  ")
    for x in ext.get("controllers", []) + ext.get("robot_unknown", []):
        lines += _xml_lines(x, ind + "  ")
    lines.append(f"{ind}</Robot>")
    for key in ("loop_joints",):
        if ext.get(key):
            report.lose(f"robot {robot.name!r}: OpenRAVE {key.replace('_', ' ')} kept as data "
                        f"on reading ({len(ext[key])}) are not written", kind="not written")
    if robot.properties:
        report.lose(f"robot {robot.name!r}: Klamp't robot properties "
                    f"({', '.join(sorted(robot.properties))})", kind="not written")
    for d in robot.drivers:
        if d.servo_p or d.servo_i or d.servo_d or d.dry_friction or d.viscous_friction:
            report.lose(f"robot {robot.name!r}: driver gains and friction (OpenRAVE XML has none)",
                        kind="not written")
            break
    return lines


def _camera_raw_matches(cam) -> bool:
    from ._parse import apply_camera_tag
    from ._records import CameraRecord
    if not cam.get("raw"):
        return False
    c = CameraRecord()
    c.transform[:3, 3] = (0.0, 1.5, 0.8)
    from ._math import axis_angle
    c.transform[:3, :3] = axis_angle((1, 0, 0), -0.5)
    for tag, values in cam["raw"]:
        apply_camera_tag(c, tag, values)
    return _close(c.transform, cam["transform"]) and c.focal == cam.get("focal", 0.0)


def _element_body(obj, report, out_dir, ind, static: bool, name=None) -> list:
    """A RigidObject or Terrain as a one-link KinBody named ``name`` (default its own), its
    link named so too."""
    name = obj.name if name is None else name
    r = Robot(name)
    from ...model import Link
    link = Link(name, -1, "revolute", (0, 0, 1), obj.transform,
                mass=getattr(obj, "mass", 0.0), com=getattr(obj, "com", (0, 0, 0)),
                inertia=getattr(obj, "inertia", np.zeros((3, 3))), geometry=obj.geometry)
    link.appearance = obj.appearance
    link.extras["openrave"] = {"static": static}
    r.set_links([link], qmin=[0.0], qmax=[0.0])
    w = _BodyWriter(r, report, out_dir, f"{'terrain' if static else 'object'} {obj.name!r}")
    if static:
        static_mass.say_lost(obj, report, "a terrain is written as a massless static KinBody")
    lines = [f"{ind}<KinBody name={_attr(name)}>"]
    lines += w.write_kinbody(ind + "  ")
    lines.append(f"{ind}</KinBody>")
    if isinstance(obj, RigidObject):
        default = RigidObject()
        changed = [k for k in ("kFriction", "kRestitution", "kStiffness", "kDamping")
                   if getattr(obj, k) != getattr(default, k)]
        if changed:
            report.lose(f"object {obj.name!r}: contact parameters ({', '.join(changed)})",
                        kind="not written")
        if np.any(obj.velocity) or np.any(obj.angular_velocity):
            report.lose(f"object {obj.name!r}: initial velocity", kind="not written")
    return lines


def dumps(obj, report, path=None) -> str:
    out_dir = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
    head = ['<?xml version="1.0" encoding="utf-8"?>']
    if isinstance(obj, Robot):
        return "\n".join(head + _robot(obj, report, out_dir)) + "\n"
    if isinstance(obj, World):
        lines = head + ["<Environment>"]
        ext = obj.extras.get("openrave", {})
        cam = ext.get("camera")
        if cam and cam.get("specified"):
            T = np.asarray(cam["transform"], dtype=float)
            if _camera_raw_matches(cam):
                lines += [f"  <{t}>{_f(v)}</{t}>" for t, v in cam["raw"]]
            else:
                lines.append(f"  <camtrans>{_f(T[:3, 3])}</camtrans>")
                lines.append(f"  <camrotmat>{_f(T[:3, :3].reshape(9))}</camrotmat>")
                if cam.get("focal"):
                    lines.append(f"  <camfocal>{fmt_float(cam['focal'])}</camfocal>")
        if ext.get("bkgndcolor"):
            lines.append(f"  <bkgndcolor>{_f(ext['bkgndcolor'])}</bkgndcolor>")
        # one namespace for every body: OpenRAVE refuses a second body of a name (GraspIt!
        # worlds repeat an obstacle's name: cvap.xml's six dinner_chair), so repeats and
        # unnamed elements get unique names, reported as renamed elements
        elements = list(obj.robots) + list(obj.rigid_objects) + list(obj.terrains)
        names = iter(Namespace(report, "elements").assign(
            [el.name for el in elements], [f"body{k}" for k in range(len(elements))]))
        for r in obj.robots:
            lines += _robot(r, report, out_dir, "  ", next(names))
        for o in obj.rigid_objects:
            lines += _element_body(o, report, out_dir, "  ", False, next(names))
        for t in obj.terrains:
            lines += _element_body(t, report, out_dir, "  ", True, next(names))
        for key in ("sensors", "interfaces", "unknown", "plugins"):
            if ext.get(key):
                report.lose(f"environment {key} ({len(ext[key])})",
                            kind="kept as data" if key == "unknown" else "not written")
        klampt = [k for k in obj.extras if k != "openrave"]
        if klampt:
            report.lose(f"world settings OpenRAVE XML cannot hold ({', '.join(sorted(klampt))})",
                        kind="kept as data")
        lines.append("</Environment>")
        return "\n".join(lines) + "\n"
    raise TypeError(f"cannot write a {type(obj).__name__} as OpenRAVE XML")
