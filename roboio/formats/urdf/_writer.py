"""roboio Robot -> standard URDF (that ROS tools, pinocchio, yourdfpy and Klamp't read).

* One ``<link>`` per roboio link, under an added ``world`` link (so that Klamp't reads the
  robot as fixed-base) -- unless the robot is a Klamp't floating base (a six-link
  x, y, z, yaw, pitch, roll chain at the root with identity frames), whose sixth link then
  becomes the URDF root and whose five virtual links are left out.
* Joints: weld -> fixed, spin -> continuous, normal -> revolute/prismatic with
  ``<limit>`` (a revolute joint without position limits -> continuous); other Klamp't
  joint groups become their 1-DOF joints. Names are the source's (:mod:`roboio.formats.naming`: ``Link.joint_name``, else the name of the driver
  a link is the actuated joint of), made unique where they clash (``report.renamed``);
  joints the source does not name are ``<link>_joint``, chosen so that Klamp't's
  depth-first, by-joint-name link order reproduces roboio's order (a source's own names
  are kept even where they make that order differ; the report says so).
* Origins: ``xyz`` + ``rpy`` at full precision (checked to reproduce the rotation).
* Affine drivers -> ``<mimic>`` of the driver's actuated joint (``Driver.leader``); inertia at the COM; ``<collision>`` from ``geometry``,
  ``<visual>`` from ``visual_geometry`` (else ``geometry``): meshes through
  :class:`~roboio.formats.mesh_export.MeshExport` (STL/DAE/OBJ referenced relative to the
  written file, with ``scale`` and ``origin`` from the geometry transform; other formats,
  or every mesh with ``meshes="convert"``, written beside it: collision STL, visual OBJ)
  or box/cylinder/sphere; colours as materials.
* Floating-base virtual links not named ``base0..base4``: ``<roboio><virtual_link>``.
* A ``<klampt>`` element (ignored by other readers) carries accMax, servo gains,
  self-collision exceptions and sensors/controller properties.

Everything else URDF cannot hold is listed in ``report.lost`` (grouped per kind).
"""
from __future__ import annotations

import math
import os
import re
from collections import defaultdict

import numpy as np
from lxml import etree

from ...model import Group, PointCloud, Primitive, Robot, TriangleMesh
from ...report import extras_text
from ...transforms import (UNIT_TOL, compose, det3, make_transform, rpy_to_matrix, symmetric_eigen3,
                           unit_vector, vector_norm)
from ..affine import column_scales, nearest_rotation
from ..fileio import fmt_float
from ..fixed_point import stable_params
from ..fk_change import FK_SAMPLES, fk_change, fk_loss_kind, note_fk_change
from ._build import affine_driver_limits
from ..klampt.mount import default_pairs
from ..mesh_export import MeshExport
from ..naming import Namespace, joint_names, say_unwritten

__all__ = ["urdf_xml", "urdf_reads", "rpy_of", "stable_rpy", "VIRTUAL_NAMES"]

DBL_MAX = float(np.finfo(float).max)
_DEFAULT_ACC_MAX = 10.0
_SERVO_DEFAULTS = {"servoP": 100.0, "servoI": 0.0, "servoD": 10.0}
_VIRTUAL = (("prismatic", (1, 0, 0)), ("prismatic", (0, 1, 0)), ("prismatic", (0, 0, 1)),
            ("revolute", (0, 0, 1)), ("revolute", (0, 1, 0)), ("revolute", (1, 0, 0)))
VIRTUAL_NAMES = ("base0", "base1", "base2", "base3", "base4")   # as Klamp't names them
_ROT_TOL = 1e-12
_MESH_EXTS = (".stl", ".dae", ".obj")     # what ROS tools (rviz, pinocchio, MuJoCo's STL/OBJ) read
_INTEGER = re.compile(r"[+-]?\d+\Z")


def _rpy_matrix(r, p, y) -> np.ndarray:
    """``Rz(y) Ry(p) Rx(r)`` (scalar math: this runs once per written frame)."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def rpy_of(R) -> tuple:
    """Roll, pitch, yaw of rotation ``R`` and the largest entry error of rebuilding it.

    Pitch from the third row, yaw from the first column (however small it is: near the
    gimbal lock, pitch = ±90°, its relative error grows but its effect shrinks as fast),
    and roll from what is left of ``R`` once yaw and pitch are removed, so that roll
    absorbs yaw's error in the coupled combination. The round trip stays at rounding
    level everywhere, gimbal lock included."""
    R = np.asarray(R, dtype=float)
    c = math.hypot(R[0, 0], R[1, 0])
    p = math.atan2(-R[2, 0], c)
    y = math.atan2(R[1, 0], R[0, 0]) if c > 0 else math.atan2(-R[0, 1], R[1, 1])
    M = compose(_rpy_matrix(0.0, p, y).T, R)
    r = math.atan2(M[2, 1], M[2, 2])
    return (r, p, y), float(np.abs(_rpy_matrix(r, p, y) - R).max())


_ULPS = (6, 2, 2)        # roll, pitch, yaw: how far (in ulps) stable_rpy looks around rpy_of


def stable_rpy(R) -> tuple:
    """Roll, pitch, yaw to write for rotation ``R``: angles whose matrix, read back, gives
    the same angles again (write -> read -> write is a fixed point, where ``rpy_of`` alone
    drifts in the last digit); ``R`` is reproduced to rounding, exactly where some nearby
    angles give exactly ``R``."""
    return stable_params(R, lambda M: rpy_of(M)[0], rpy_to_matrix, _ULPS)


def stable_scaled_rpy(R, scale) -> tuple:
    """Like :func:`stable_rpy` for a mesh origin written with ``<mesh scale>``: the reader
    builds ``M = origin diag(scale)``, and the next write splits ``M`` into column lengths
    and a rotation again (:func:`roboio.formats.affine.split_affine`). Angles are chosen so
    that this split gives back the same scale and the same rotation."""
    def split(P):
        A = rpy_to_matrix(P) * scale                     # columns scaled, as origin @ S
        n = column_scales(vector_norm(np.swapaxes(A, -1, -2))[..., None, :])   # as split_affine
        return np.concatenate([(A / n).reshape(A.shape[:-2] + (9,)), n.reshape(A.shape[:-2] + (3,))], -1)
    target = np.concatenate([np.asarray(R, float).reshape(9), scale])
    return stable_params(target, lambda X: rpy_of(np.asarray(X)[:9].reshape(3, 3))[0], split, _ULPS)


def _rgba(color):
    """An RGBA tuple of floats from a colour of 3 or 4 components (alpha 1), else None."""
    if color is None or len(color) not in (3, 4):
        return None
    return tuple(float(x) for x in color) + (1.0,) * (4 - len(color))


def _fmt(values) -> str:
    return " ".join(fmt_float(v + 0.0) for v in values)     # + 0.0: no "-0"


def _qstring(s: str) -> str:
    if s and not any(c.isspace() or c in '"\\' for c in s):
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _decompose(A):
    """``A`` (3x3) as ``R @ diag(s)`` with R a rotation, or None."""
    s = vector_norm(np.asarray(A, float).T)
    if np.any(s == 0):
        return None
    R = A / s
    if det3(R) < 0:
        R[:, 0] = -R[:, 0]
        s = s.copy()
        s[0] = -s[0]
    if np.abs(compose(R.T, R) - np.eye(3)).max() > _ROT_TOL:
        return None
    return R, s


def _leaves(g, T=np.eye(4), own=None):
    """(geometry, 4x4 transform to the link frame, its own appearance or None) of every
    non-group piece of ``g`` (a group's own appearance passes to its pieces)."""
    M = compose(T, g.transform)
    own = g.appearance if g.appearance is not None else own
    if isinstance(g, Group):
        for c in g.children:
            yield from _leaves(c, M, own)
    else:
        yield g, M, own


def _merged_by_appearance(meshes, leaves: list) -> list:
    """``leaves`` (from :func:`_leaves`) with each run of consecutive pieces of the same own
    appearance merged by :meth:`MeshExport.merge_new` (one new mesh file per run, not one per
    triangle group), so that pieces of different colours keep their own materials."""
    out, k = [], 0
    while k < len(leaves):
        own = leaves[k][2]
        j = k
        while j < len(leaves) and leaves[j][2] == own:
            j += 1
        out += [(g, T, own) for g, T in meshes.merge_new([(g, T) for g, T, _ in leaves[k:j]])]
        k = j
    return out


class _Writer:
    def __init__(self, robot: Robot, path: str, report, meshes: str = "keep",
                 package: tuple = None):
        self.r = robot
        self.path = path
        self.report = report
        self.dir = os.path.dirname(os.path.abspath(path))
        self.stem = os.path.splitext(os.path.basename(path))[0]
        self.several_collisions = []           # links whose collision pieces Klamp't cuts to one
        n = robot.num_links
        self.n = n
        self.par = [int(p) for p in robot.parents]
        self.kids = defaultdict(list)
        for i, p in enumerate(self.par):
            self.kids[p].append(i)
        self.frozen = False
        self.has_mesh = False
        self.lead = {}                         # link -> the driver Klamp't creates there
        self.meshes = MeshExport(path, report, mode=meshes, readable=urdf_reads,
                                 consumer="ROS tools", extensions={"visual": ".obj"},
                                 uri_schemes=("package://",), package=package)
        self.approx = {}                       # link -> its frame with the nearest rotation
        self.bad_inertia = {"positive": [], "triangle": []}   # see check_inertia
        self.group = {}
        for j in robot.joints:
            for i in j.links:
                self.group[i] = j

    def lose(self, item: str, concerning: str = "", **kind) -> None:
        """``report.lose``: ``item`` (grouped by it when it ``concerning`` names what)."""
        self.report.lose(item, concerning or None, **kind)

    # -- structure ----------------------------------------------------------------------
    def floating_base(self):
        """The six links of a Klamp't floating base at the root (free or frozen), or None."""
        roots = self.kids[-1]
        if len(roots) != 1:
            return None
        chain = [roots[0]]
        for _ in range(5):
            k = self.kids[chain[-1]]
            if len(k) != 1:
                return None
            chain.append(k[0])
        for i, (jt, axis) in zip(chain, _VIRTUAL):
            l = self.r.links[i]
            if (l.joint_type != jt or not np.array_equal(l.axis, axis)
                    or not np.array_equal(l.parent_transform, np.eye(4))):
                return None
        g = [self.group.get(i) for i in chain]
        free = all(x is not None and x.type == "floating" and x.links == chain for x in g)
        frozen = all(x is not None and x.type == "weld" for x in g)
        if not (free or frozen):
            return None
        self.frozen = frozen
        return chain

    def urdf_type(self, i: int) -> str:
        l = self.r.links[i]
        j = self.group.get(i)
        jt = j.type if j is not None else "normal"
        if jt == "weld":
            return "fixed"
        if jt == "spin":
            if l.joint_type == "prismatic":
                self.lose("spin joints on prismatic links written as prismatic joints", l.name, kind="changed", noun="link")
                return "prismatic"
            return "continuous"
        if jt != "normal":
            self.lose(f"{jt} joints written as their one-DOF joints", l.name, kind="changed", noun="link")
        if l.joint_type == "revolute" and self.r.qmin[i] == -np.inf and self.r.qmax[i] == np.inf:
            return "continuous"     # URDF's unbounded revolute joint (Klamp't reads it as spin)
        return l.joint_type

    def names(self, emitted):
        """Unique link names, the world link's name, and joint names: the source's names
        (links; ``naming.joint_names`` for joints), changed only where two would be the same
        or one is empty (``report.renamed``); joints the source does not name are called
        ``<link>_joint``, ordered so that Klamp't's link order is roboio's."""
        links = Namespace(self.report, "links")
        got = links.assign([self.r.links[i].name for i in emitted], [f"link{i}" for i in emitted])
        lnames = dict(zip(emitted, got))
        used = set(got)
        world = "world"
        while world in used:
            world = "_" + world
        moved = [i for i in emitted if i != self.urdf_root]
        source = joint_names(self.r)
        # (a floating base's name: an MJCF <freejoint name>, a .body's free root joint_name)
        say_unwritten(self.r, set(moved), self.report,
                      "a URDF floating base is its root link, which has no joint" if self.fb
                      else "a URDF root has no joint")
        joints = Namespace(self.report, "joints")
        got = joints.assign([source[i] for i in moved], [f"{lnames[i]}_joint" for i in moved])
        jnames = dict(zip(moved, got))
        self._order_joint_names(jnames, set(got), {i for i in moved if source[i] is None})
        return lnames, world, jnames

    def _order_joint_names(self, jnames, jused, invented):
        """Rename sibling joints whose made-up names (``invented``: links whose joint the
        source does not name) would make Klamp't visit them out of order; the source's
        names are kept whatever order they give."""
        for p in [-1] + list(range(self.n)):
            sibs = [i for i in self.kids[p] if i in jnames]
            if [jnames[i] for i in sibs] == sorted(jnames[i] for i in sibs):
                continue
            if not all(i in invented for i in sibs):
                continue
            w = len(str(len(sibs)))
            for k, i in enumerate(sibs):
                nm = f"j{k:0{w}d}_{jnames[i]}"
                while nm in jused:
                    nm = "_" + nm
                jused.add(nm)
                jnames[i] = nm

    def readback_order(self, emitted, jnames):
        """roboio indices in the order Klamp't will number the written links."""
        out = list(self.fb[:5]) if self.fb else []
        start = [self.urdf_root] if self.fb else sorted(self.kids[-1], key=lambda i: jnames[i])
        stack = list(reversed(start))
        while stack:
            i = stack.pop()
            out.append(i)
            stack.extend(sorted((c for c in self.kids[i] if c in jnames), key=lambda c: jnames[c],
                                reverse=True))
        return out

    # -- elements -----------------------------------------------------------------------
    def origin(self, parent_el, T, what: str, scale=None):
        """``<origin>`` of the rigid ``T``; ``scale``: the ``<mesh scale>`` written with it
        (the reader then builds ``origin diag(scale)``, and the next write splits that
        again: the angles are chosen so that this too is a fixed point)."""
        R, err = nearest_rotation(T[:3, :3])
        if err > 0:
            self.lose("transforms that are not rigid (written as the nearest rotation; largest "
                      "matrix entry change)", f"{what} ({err:.1e})", kind="approximated")
        if scale is not None and np.all(scale > 0) and not np.array_equal(scale, np.ones(3)):
            rpy = stable_scaled_rpy(R, np.asarray(scale, float))
        else:
            rpy = stable_rpy(R)
        etree.SubElement(parent_el, "origin", xyz=_fmt(T[:3, 3]), rpy=_fmt(rpy))

    def finite(self, v: float, kind: str, name: str) -> float:
        """``v``, or the largest float for an infinite (or undefined, NaN) limit."""
        if np.isfinite(v):
            return v
        if np.isnan(v):
            self.lose(f"undefined (NaN) {kind} written as {fmt_float(DBL_MAX)}", name, kind="changed", noun="link")
            return DBL_MAX
        self.lose(f"infinite {kind} written as ±{fmt_float(DBL_MAX)} (URDF numbers are finite)", name, kind="rounding", noun="link")
        return DBL_MAX if v > 0 else -DBL_MAX

    def inertial(self, el, i: int):
        l = self.r.links[i]
        I = np.asarray(l.inertia)
        if np.abs(I - I.T).max() > 1e-12 * np.abs(I).max():
            # the symmetric part: what the dynamics of the model are (roboio's, and Klamp't's
            # mass matrix symmetrised); the upper triangle alone would change them
            self.lose("non-symmetric inertia matrices (written as their symmetric part)", l.name, kind="approximated", noun="link")
            I = 0.5 * (I + I.T)
        self.check_inertia(l.name, I)
        ine = etree.SubElement(el, "inertial")
        etree.SubElement(ine, "origin", xyz=_fmt(l.com), rpy="0 0 0")
        etree.SubElement(ine, "mass", value=fmt_float(l.mass))
        etree.SubElement(ine, "inertia", ixx=fmt_float(I[0, 0]), ixy=fmt_float(I[0, 1]),
                         ixz=fmt_float(I[0, 2]), iyy=fmt_float(I[1, 1]), iyz=fmt_float(I[1, 2]),
                         izz=fmt_float(I[2, 2]))

    def check_inertia(self, name: str, I) -> None:
        """Note an inertia MuJoCo's compiler refuses (a URDF holds it, pinocchio and Klamp't
        read it): a non-zero inertia whose smallest principal moment is below 1e-14
        (``mjEPS``: "inertia must have positive eigenvalues"), or principal moments
        ``A <= B <= C`` with ``A + B < C`` ("inertia must satisfy A + B >= C")."""
        if not np.all(np.isfinite(I)) or not np.any(I):
            return
        w = np.sort(np.diag(I)) if np.all(I == np.diag(np.diag(I))) else symmetric_eigen3(I)[0]
        if w[0] < 1e-14:
            self.bad_inertia["positive"].append(f"{name} (smallest {w[0]:.3g} kg m^2)")
        elif w[0] + w[1] < w[2]:
            self.bad_inertia["triangle"].append(
                f"{name} ({w[0]:.3g} + {w[1]:.3g} < {w[2]:.3g} kg m^2, short by "
                f"{w[2] - w[0] - w[1]:.2g})")

    def inertia_warnings(self) -> None:
        what = {"positive": "principal moments not all above 1e-14 kg m^2 ('inertia must have "
                            "positive eigenvalues')",
                "triangle": "principal moments violate A + B >= C ('inertia must satisfy A + B "
                            ">= C')"}
        for kind, items in self.bad_inertia.items():
            if items:
                self.report.warn(f"inertias MuJoCo refuses, written as they are (pinocchio and "
                                 f"Klamp't read them; MuJoCo's balanceinertia or roboio's MJCF "
                                 f"output fixes them): {what[kind]}: {', '.join(items)}",
                                 kind="read differently")

    def link_element(self, root_el, i: int, name: str) -> bool:
        """``<link>`` with inertial, visuals and collisions; True if it has collision
        geometry. Collision elements come from ``geometry``, visual elements from
        ``visual_geometry`` (else from ``geometry`` too)."""
        l = self.r.links[i]
        el = etree.SubElement(root_el, "link", name=name)
        self.inertial(el, i)
        color = _rgba(l.appearance.color if l.appearance is not None else None)
        cols = self.shapes(i, l.geometry, "collision")
        vis_src = l.visual_geometry if l.visual_geometry is not None else l.geometry
        vis = self.shapes(i, vis_src, "visual") if l.visual_geometry is not None else None
        if vis is None:                     # the same shapes (visual meshes may be other files)
            vis = self.shapes(i, l.geometry, "visual") if l.geometry is not None else []
        colors = []
        for T, shape, rgba, sc, own in vis:
            v = etree.SubElement(el, "visual")
            self.origin(v, T, f"geometry of link {l.name!r}", sc)
            etree.SubElement(v, "geometry").append(shape)
            if rgba is None:        # the piece's own colour (None: no material), else the link's
                rgba = _rgba(own.color) if own is not None else color
            if rgba is not None:
                rgba = self.material_color(rgba, l.name)
                if rgba not in colors:
                    colors.append(rgba)
                k = colors.index(rgba)
                mat = etree.SubElement(v, "material", name=f"{name}_color" + (f"{k}" if k else ""))
                etree.SubElement(mat, "color", rgba=_fmt(rgba))
        for T, shape, _, sc, _ in cols:
            c = etree.SubElement(el, "collision")
            self.origin(c, T, f"geometry of link {l.name!r}", sc)
            etree.SubElement(c, "geometry").append(shape)
        if len(cols) > 1:
            self.several_collisions.append(l.name)
        if l.geometry is not None and l.geometry.margin:
            self.lose("geometry margins", l.name, kind="not written", noun="link")
        ap = l.appearance
        if ap is not None and ap.color is not None and len(ap.color) not in (3, 4):
            self.lose("malformed colours", l.name, kind="not written", noun="link")
        if ap is not None:
            from ...model import Appearance
            rest = Appearance(**{**ap.__dict__, "color": None})
            if not rest.is_default():
                self.lose("appearance other than the face colour", l.name, kind="not written", noun="link")
        return bool(cols)

    def material_color(self, rgba, link_name: str) -> tuple:
        """``rgba`` with each component clamped into [0, 1] (urdfdom refuses a colour
        outside it and drops the whole robot); a change is reported with its size."""
        c = tuple(min(1.0, max(0.0, x)) if x == x else 0.0 for x in rgba)
        if c != rgba:
            change = max(abs(a - b) if a == a else 1.0 for a, b in zip(rgba, c))
            self.lose("colour components outside [0, 1] clamped (urdfdom refuses them; "
                      "largest change)", f"{link_name} ({_fmt(rgba)} -> {_fmt(c)}: {change:.3g})",
                      kind="changed")
        return c

    def shapes(self, i: int, geom, role: str) -> list:
        """[(4x4 origin, shape element, rgba or None, mesh scale or None, the piece's own
        appearance or None)] for ``geom`` of link ``i`` in ``role`` (collision or visual);
        rgba: the colour of a mesh part split by face colour."""
        l = self.r.links[i]
        out = []
        if geom is None:
            return out
        leaves = _merged_by_appearance(self.meshes, list(_leaves(geom)))
        for k, (g, T, own) in enumerate(leaves):
            label = f"{l.name}" + (f"_{k}" if len(leaves) > 1 else "")
            if g.missing:
                ref = g.source.reference if g.source else "?"
                self.lose("geometry whose file was not found on reading", f"{l.name} ({ref})", kind="missing file")
                continue
            if isinstance(g, Primitive):
                shape = self.primitive(g, T, l.name)
                if shape is not None:
                    out.append((*shape, None, None, own))
                    continue
                from ...model.tessellate import primitive_to_mesh
                if g.primitive in ("Point", "Segment"):
                    self.lose("primitives without surface (points, segments)", l.name, kind="not written", noun="link")
                    continue
                self.lose("primitives URDF cannot express, written as triangle meshes",
                          f"{l.name} ({g.primitive})", kind="approximated")
                g = primitive_to_mesh(g)
                T = np.eye(4)
            if isinstance(g, TriangleMesh):
                for piece in self.meshes.export(g, T, label, role, split_colors=role == "visual"):
                    shape = etree.Element("mesh", filename=piece.reference)
                    if not np.array_equal(piece.scale, np.ones(3)):
                        shape.set("scale", _fmt(piece.scale))
                    self.has_mesh = True
                    out.append((piece.pose, shape, piece.rgba, piece.scale, own))
            elif isinstance(g, PointCloud):
                self.lose("point-cloud geometry", l.name, kind="not written", noun="link")
            else:
                self.lose(f"{g.kind} geometry", l.name, kind="not written", noun="link")
        return out

    def primitive(self, g: Primitive, T, name: str):
        dec = _decompose(T[:3, :3])
        p, k = g.params, g.primitive
        if dec is None:
            self.lose("primitives whose transform is not rotation x scale", name, kind="not written", noun="link")
            return None
        R, s = dec
        s = np.abs(s)
        if np.abs(s - 1).max() <= 1e-12 and det3(T[:3, :3]) > 0:
            # a rotation's rounding, not a scale: dividing by it would change the sizes in
            # the last digit at every round trip
            R, s = np.array(T[:3, :3], float), np.ones(3)
        uniform = np.ptp(s) <= 1e-12 * s.max()

        def at(center, Rl=np.eye(3)):
            c = compose(T[:3, :3], np.asarray(center, float).reshape(3, 1))[:, 0]
            return make_transform(compose(R, Rl), c + T[:3, 3])
        if k == "AABB":
            lo, hi = np.asarray(p["bmin"]), np.asarray(p["bmax"])
            return at((lo + hi) / 2), etree.Element("box", size=_fmt((hi - lo) * s))
        if k == "Box" and uniform:
            B = np.stack([p["xaxis"], p["yaxis"], p["zaxis"]], axis=1)
            if np.abs(compose(B.T, B) - np.eye(3)).max() <= _ROT_TOL and det3(B) > 0:
                c = np.asarray(p["origin"]) + compose(B, (np.asarray(p["dims"]) / 2).reshape(3, 1))[:, 0]
                return at(c, B), etree.Element("box", size=_fmt(np.asarray(p["dims"]) * s[0]))
        if k == "Sphere" and uniform:
            return at(p["center"]), etree.Element("sphere", radius=fmt_float(p["radius"] * s[0]))
        if k == "Cylinder":
            a = np.asarray(p["axis"], float)
            a = a / vector_norm(a)
            mid = np.asarray(p["center"]) + a * p["height"] / 2
            if uniform or (abs(abs(a[2]) - 1) < 1e-15 and abs(s[0] - s[1]) <= 1e-12 * s.max()):
                Ra = _z_to(a)
                return at(mid, Ra), etree.Element("cylinder", radius=fmt_float(p["radius"] * s[0]),
                                                  length=fmt_float(p["height"] * (s[0] if uniform else s[2])))
        self.lose("primitives URDF cannot express (box, cylinder, sphere only)", f"{name} ({k})", kind="not written")
        return None

    # -- joints and drivers -------------------------------------------------------------
    def mimic_target(self, d, types, readback) -> int:
        """The link whose joint driver ``d`` actuates: its ``leader`` (the joint the source
        commands) where the driver sets it to exactly its value, else (no such joint, or one
        URDF cannot make a moving joint) its DOF that Klamp't numbers first."""
        lead = d.leader
        direct = lead in d.dofs and (d.type != "affine" or (
            d.scale[d.dofs.index(lead)] == 1.0 and d.offset[d.dofs.index(lead)] == 0.0))
        if direct and types.get(lead) in ("revolute", "prismatic", "continuous"):
            return lead
        pos = {i: k for k, i in enumerate(readback)}
        return min(d.dofs, key=lambda i: pos.get(i, i))

    def mimics(self, types, readback, jnames) -> dict:
        """link -> (target link, multiplier, offset) from affine drivers: every DOF of a
        driver but its target (:meth:`mimic_target`) mimics the target. Klamp't honours
        only mimics of joints it numbers earlier: where a target comes later, the report
        warns that Klamp't reads the follower as a joint of its own."""
        pos = {i: k for k, i in enumerate(readback)}
        out = {}
        later = []
        for d in self.r.drivers:
            if d.type != "affine" or len(d.dofs) < 2:
                continue
            target = self.target[id(d)]
            t = d.dofs.index(target)
            st, ot = d.scale[t], d.offset[t]
            if st == 0 or types.get(target) not in ("revolute", "prismatic", "continuous"):
                self.lose("affine drivers that cannot be written as <mimic>", d.name, kind="not written", noun="driver")
                continue
            for k in range(len(d.dofs)):
                if k == t:
                    continue
                m = d.scale[k] / st
                # in the written coordinates (q |axis| where an axis is normalised)
                nf, nt = self.axis_scale(d.dofs[k]), self.axis_scale(target)
                out[d.dofs[k]] = (target, m * nf / nt, (d.offset[k] - m * ot) * nf)
                if pos.get(d.dofs[k], -1) < pos.get(target, -1):
                    later.append(f"{jnames.get(d.dofs[k])} (mimics {jnames.get(target)})")
            if st != 1 or ot != 0:
                self.lose("affine drivers re-parameterised (their value becomes the first joint's "
                          "value)", d.name, kind="changed", noun="driver")
        if later:
            self.report.warn("mimic joints that come before the joint they mimic in link order: "
                             f"{', '.join(later)} (Klamp't's URDF importer ignores such a mimic; "
                             "roboio, ROS, pinocchio and MuJoCo keep it)",
                             kind="read differently")
        return out

    def check_drivers(self, types, mimics, readback, jnames):
        """Report where the drivers read back from the written file will differ from ours:
        a URDF driver is named after the joint it actuates (a source driver name that is
        neither that joint's name nor a link's goes into ``report.renamed``), and its limits
        are derived from that joint's."""
        r = self.r
        pos = {i: k for k, i in enumerate(readback)}
        lim = {k: getattr(r, k) for k in ("qmin", "qmax", "vmin", "vmax", "tmax", "amax")}
        link_names = set(r.link_names)
        drivers_of = {}
        for d in r.drivers:
            if d.type in ("translation", "rotation"):
                self.lose("translation/rotation drivers", d.name, kind="not written", noun="driver")
                continue
            for i in d.dofs:
                drivers_of[i] = d
            target = self.target[id(d)]
            written = jnames.get(target)
            if d.name and written is not None and d.name != written and d.name not in link_names \
                    and d.name not in self.report.renamed.get("joints", {}):
                self.report.rename("joints", d.name, written)
            if d.type == "normal":
                i = d.dofs[0]
                want = (r.qmin[i], r.qmax[i], r.vmin[i], r.vmax[i], -r.tmax[i], r.tmax[i],
                        -r.amax[i], r.amax[i])
            else:
                dofs = [target] + [i for i in d.dofs if i != target]
                t = d.dofs.index(target)
                scales = [d.scale[d.dofs.index(i)] / d.scale[t] if d.scale[t] else 0 for i in dofs]
                want = affine_driver_limits(dofs, scales, lim)
            have = (d.qmin, d.qmax, d.vmin, d.vmax, d.tmin, d.tmax, d.amin, d.amax)
            if not np.allclose(have, want, rtol=1e-12, atol=0, equal_nan=True):
                self.lose("driver limits that differ from the limits Klamp't derives from the links",
                          d.name, kind="not written", noun="driver")
        for i, t in types.items():
            if t in ("revolute", "prismatic", "continuous") and i not in drivers_of and i not in mimics:
                self.lose("undriven joints (Klamp't adds a driver for every moving joint)",
                          r.links[i].name, kind="read differently", noun="link")
        want_order = sorted((d for d in r.drivers if d.type in ("normal", "affine")),
                            key=lambda d: pos.get(self.target[id(d)], self.target[id(d)]))
        if [d.name for d in want_order] != [d.name for d in r.drivers if d.type in ("normal", "affine")]:
            self.lose("driver order (Klamp't orders drivers by link)", kind="read differently")

    def axis_scale(self, i: int) -> float:
        """|axis| of link ``i`` where it is written normalised (the URDF coordinate is then
        |axis| q), else 1."""
        n = unit_vector(self.r.links[i].axis)[1]
        return n if n > 0 and abs(n - 1) > UNIT_TOL else 1.0

    def limit_element(self, el, i: int, utype: str):
        r, name = self.r, self.r.links[i].name
        k = self.axis_scale(i)
        if r.vmin[i] != -r.vmax[i]:
            self.lose("asymmetric velocity limits (URDF has one velocity)", name, kind="not written", noun="link")
        if utype == "fixed":
            nonzero = any(getattr(r, k)[i] != 0 for k in ("qmin", "qmax", "vmin", "vmax", "amax"))
            if nonzero:
                self.lose("limits of welded links (Klamp't reads fixed joints with zero limits)", name, kind="not written", noun="link")
            if np.isfinite(r.tmax[i]):
                etree.SubElement(el, "limit", lower="0", upper="0", effort=fmt_float(r.tmax[i]),
                                 velocity="0")
            return
        if utype == "continuous":
            if np.isfinite(r.qmin[i]) or np.isfinite(r.qmax[i]):
                self.lose("position limits of continuous joints", name, kind="not written", noun="link")
            if not (np.isfinite(r.tmax[i]) or np.isfinite(r.vmax[i])):
                return                      # no <limit>: Klamp't reads both as infinite
        eff = self.finite(r.tmax[i] / k, "effort limits", name)
        vel = self.finite(r.vmax[i] * k, "velocity limits", name)
        if utype == "continuous":
            etree.SubElement(el, "limit", effort=fmt_float(eff), velocity=fmt_float(vel))
            return
        lo = self.finite(r.qmin[i] * k, "position limits", name)
        hi = self.finite(r.qmax[i] * k, "position limits", name)
        etree.SubElement(el, "limit", lower=fmt_float(lo), upper=fmt_float(hi),
                         effort=fmt_float(eff), velocity=fmt_float(vel))

    # -- document -----------------------------------------------------------------------
    def document(self) -> bytes:
        r = self.r
        self.fb = self.floating_base()
        self.urdf_root = self.fb[5] if self.fb else None
        emitted = [i for i in range(self.n) if not (self.fb and i in self.fb[:5])]
        if self.fb:
            self.check_floating_base()
        lnames, world, jnames = self.names(emitted)
        readback = self.readback_order(emitted, jnames)
        # elements in the order roboio and Klamp't number the links they read: what is read
        # back is then written in the same order (write -> read -> write is a fixed point)
        kept = set(emitted)
        emitted = [i for i in readback if i in kept]
        if readback != list(range(self.n)):
            for i in readback:
                self.lose("link order (Klamp't numbers URDF links depth-first, by joint name; "
                          "read back in this order)", r.links[i].name or f"link{i}",
                          kind="read differently", noun="link")
        types = {i: self.urdf_type(i) for i in emitted if i != self.urdf_root}
        # the joint each driver actuates (the others <mimic> it), where its driver is written
        self.target = {id(d): self.mimic_target(d, types, readback) for d in r.drivers
                       if d.dofs and d.type in ("normal", "affine")}
        self.lead = {self.target[id(d)]: d for d in r.drivers if id(d) in self.target}
        mimics = self.mimics(types, readback, jnames)
        self.check_drivers(types, mimics, readback, jnames)

        root_el = etree.Element("robot", name=r.name or self.stem)
        root_el.append(etree.Comment(" written by roboio "))
        if not self.fb:
            etree.SubElement(root_el, "link", name=world)
        has_geo = {i: self.link_element(root_el, i, lnames[i]) for i in emitted}
        kl = etree.Element("klampt")
        if world != "world" and not self.fb:
            kl.set("world_frame", world)
        if self.fb and self.frozen:
            kl.set("freeze_root_link", "1")
        for i in emitted:
            if i == self.urdf_root:
                continue
            self.joint_element(root_el, i, types[i], lnames, jnames, world, mimics)
        if self.has_mesh:
            kl.set("flip_yz", "0")   # Klamp't would keep a flip_yz="1" of a URDF loaded before
        self.klampt_links(kl, emitted, types, lnames)
        self.self_collision(kl, emitted, has_geo, lnames, readback)
        self.properties(kl)
        if len(kl) or kl.attrib:
            root_el.append(kl)
        if self.fb:
            self.virtual_names(root_el, lnames)
        self.misc()
        if self.approx:
            pos, rot = fk_change(r, self.approx)
            note_fk_change(self.report, pos, rot)
            self.lose(f"link frames move by up to {pos:.1e} m (rotation matrix entries by {rot:.1e}) "
                      f"over {FK_SAMPLES} sampled configurations (nearest rotations written)",
                      kind=fk_loss_kind(pos, rot))
        self.inertia_warnings()
        for name in self.several_collisions:   # URDF holds them all: a remark on one reader, no loss
            self.report.warn("links with several <collision> elements (Klamp't's URDF importer "
                             "reads only the first)", name, kind="read differently", noun="link")
        return etree.tostring(root_el, pretty_print=True, xml_declaration=True, encoding="utf-8")

    def joint_element(self, root_el, i, utype, lnames, jnames, world, mimics):
        l = self.r.links[i]
        el = etree.SubElement(root_el, "joint", name=jnames[i], type=utype)
        T = l.parent_transform
        if utype == "fixed" and self.r.config[i] != 0:
            # a welded link sits at its configured value; URDF fixed joints sit at 0
            T = l.joint_transform(self.r.config[i])
            self.report.warn(f"welded link {l.name!r} is at q = {fmt_float(self.r.config[i])}; "
                             "that pose is built into its fixed joint", kind="changed")
        self.origin(el, T, f"joint of link {l.name!r}")
        Rn, err = nearest_rotation(l.parent_transform[:3, :3])
        if err > 0:
            self.approx[i] = make_transform(Rn, l.parent_transform[:3, 3])
        etree.SubElement(el, "parent", link=lnames[l.parent] if l.parent >= 0 else world)
        etree.SubElement(el, "child", link=lnames[i])
        if utype != "fixed":
            ax, n = unit_vector(l.axis)       # (as it is when a unit vector to rounding)
            if n == 0:
                self.lose("zero joint axes (Klamp't reads them as z)", l.name, kind="changed", noun="link")
            elif abs(n - 1) > UNIT_TOL:
                # URDF readers normalise axes: write the unit axis, the coordinate scaled by |axis|
                self.lose("joint axes that are not unit length, written normalised (the URDF "
                          "joint coordinate is |axis| x roboio's; limits scaled to match)",
                          f"{l.name} (|axis| = {fmt_float(n)})", kind="changed")
            etree.SubElement(el, "axis", xyz=_fmt(ax))
        self.limit_element(el, i, utype)
        d = self.lead.get(i)
        if d is not None and (d.dry_friction or d.viscous_friction):
            etree.SubElement(el, "dynamics", damping=fmt_float(d.viscous_friction),
                             friction=fmt_float(d.dry_friction))
        if i in mimics:
            t, m, o = mimics[i]
            etree.SubElement(el, "mimic", joint=jnames[t], multiplier=fmt_float(m), offset=fmt_float(o))

    def klampt_links(self, kl, emitted, types, lnames):
        r = self.r
        for i in emitted:
            attrs = {}
            if i != self.urdf_root and types[i] != "fixed" and r.amax[i] != _DEFAULT_ACC_MAX:
                attrs["accMax"] = fmt_float(self.finite(r.amax[i], "acceleration limits", r.links[i].name))
            d = self.lead.get(i)
            if d is not None and (i == self.urdf_root or types[i] == "fixed"):
                if any(v != _SERVO_DEFAULTS[k] for k, v in (("servoP", d.servo_p), ("servoI", d.servo_i),
                                                            ("servoD", d.servo_d))):
                    self.lose("servo gains of drivers on fixed joints (Klamp't gives a fixed joint "
                              "no driver)", d.name)
                d = None
            if d is not None:
                for key, v in (("servoP", d.servo_p), ("servoI", d.servo_i), ("servoD", d.servo_d)):
                    if v != _SERVO_DEFAULTS[key]:
                        attrs[key] = fmt_float(v)
            if attrs:
                etree.SubElement(kl, "link", name=lnames[i], **attrs)

    def self_collision(self, kl, emitted, has_geo, lnames, readback):
        r = self.r
        pairs = set(r.self_collision_pairs)
        bare = sorted(p for p in pairs if not (has_geo.get(p[0]) and has_geo.get(p[1])))
        if bare:
            self.lose("self-collision pairs of links without written geometry",
                      " ".join(f"({r.links[a].name}, {r.links[b].name})" for a, b in bare), kind="not written")
        pairs -= set(bare)
        rb = {i: k for k, i in enumerate(readback)}
        counts = defaultdict(int)
        for i in emitted:
            counts[lnames[i]] += 1

        def item(i):
            nm = lnames[i]
            return nm if not _INTEGER.match(nm) else str(rb[i])

        def read_back(ps):      # the pairs in the numbering of the links read back, sorted
            return sorted((tuple(sorted((a, b), key=rb.get)) for a, b in ps),
                          key=lambda p: (rb[p[0]], rb[p[1]]))
        default = default_pairs(self.par, [bool(has_geo.get(k)) for k in range(self.n)])
        if pairs <= default:
            off = read_back(default - pairs)
            if off:
                etree.SubElement(kl, "noselfcollision",
                                 pairs=" ".join(f"{_qstring(item(a))} {_qstring(item(b))}" for a, b in off))
        else:
            etree.SubElement(kl, "selfcollision",
                             pairs=" ".join(f"{_qstring(item(a))} {_qstring(item(b))}"
                                            for a, b in read_back(pairs)))

    def properties(self, kl):
        for key, text in self.r.properties.items():
            if key not in ("sensors", "controller"):
                self.lose("robot properties other than sensors and controller", key, kind="not written")
                continue
            try:
                el = etree.fromstring(text.encode())
            except etree.XMLSyntaxError:
                el = None
            if el is None or el.tag != key:
                self.lose(f"the {key} property (not a <{key}> XML element)", kind="not written")
                continue
            kl.append(el)

    def virtual_names(self, root_el, lnames):
        """``<roboio><virtual_link name>``: the names of the floating base's five virtual
        links (x, y, z, yaw, pitch), where they are not Klamp't's ``base0..base4``. Other
        readers ignore the element; roboio names the virtual links after it (Klamp't, and
        roboio's ``flavor="klampt"``, read them as ``base0..base4``)."""
        names = [self.r.links[i].name for i in self.fb[:5]]
        if names == list(VIRTUAL_NAMES):
            return
        taken = {lnames[i] for i in lnames}
        if len(set(names)) < 5 or taken & set(names) or not all(names):
            self.lose("floating base: names of its virtual links (not unique; read back as "
                      "base0..base4)", ", ".join(names), kind="renamed")
            return
        el = etree.SubElement(root_el, "roboio")
        for nm in names:
            etree.SubElement(el, "virtual_link", name=nm)
        self.report.warn("floating base: the names of its virtual links are kept in a <roboio> "
                         "element (Klamp't reads them as base0..base4)", kind="read differently")

    def check_floating_base(self):
        r, fb = self.r, self.fb
        carried = []
        for k, i in enumerate(fb):
            l = r.links[i]
            if k < 5:
                if l.mass != 0 or np.any(l.com) or np.any(l.inertia):
                    carried.append(f"mass of {l.name}")
                if l.geometry is not None:
                    carried.append(f"geometry of {l.name}")
            want_t = 0.0
            want_p = 0.0 if k == 5 else np.inf
            if not (r.qmin[i] == -np.inf and r.qmax[i] == np.inf and r.vmin[i] == -np.inf
                    and r.vmax[i] == np.inf and r.amax[i] == np.inf and r.tmax[i] == want_t
                    and r.pmax[i] == want_p):
                carried.append(f"limits of {l.name}")
        for d in r.drivers:
            if any(i in fb for i in d.dofs):
                carried.append(f"driver {d.name}")
        if carried:
            self.lose("floating base: what its virtual links carried", ", ".join(carried), kind="not written")

    def misc(self):
        r = self.r
        moving = [i for i in range(self.n) if r.config[i] != 0
                  and getattr(self.group.get(i), "type", None) != "weld"]
        if moving:
            self.lose("the initial configuration (URDF starts at 0)",
                      ", ".join(r.links[i].name for i in moving), kind="not written")
        if np.any(getattr(r, "velocity", np.zeros(0)) != 0):
            self.lose("the initial velocity", kind="not written")
        fb5 = set(self.fb[5:]) if self.fb else set()
        for i in range(self.n):
            if np.isfinite(r.pmax[i]) and i not in fb5:
                self.lose("power limits", r.links[i].name, kind="not written", noun="link")
        # extras["klampt"] records how a Klamp't file was laid out (mounts, automass);
        # its effects are in the model, which is written
        kept = extras_text(r.extras, skip=("klampt",))
        if kept:
            self.lose("format-specific robot data", kept, kind="kept as data")
        for l in r.links:
            keys = sorted(l.extras)
            if keys:
                self.lose("format-specific link data", f"{l.name} ({', '.join(keys)})", kind="kept as data", noun="link")


def _z_to(a) -> np.ndarray:
    """A rotation taking +z to the unit vector ``a``."""
    z = np.array([0.0, 0.0, 1.0])
    v = np.cross(z, a)
    c = float(a[2])                     # a . z
    n = float(vector_norm(v))
    if n < 1e-15:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    from ...transforms import axis_angle_to_matrix
    return axis_angle_to_matrix(v / n, np.arctan2(n, c))


def urdf_reads(path: str) -> bool:
    """Whether the mesh file ``path`` is read as it is by URDF's consumers (ROS tools,
    pinocchio, MuJoCo's URDF import): STL, COLLADA or Wavefront OBJ."""
    return path.lower().endswith(_MESH_EXTS)


def urdf_xml(robot: Robot, path, report, meshes: str = "keep", package: tuple = None):
    """``(document bytes, MeshExport)``: the URDF document of ``robot`` to be stored at
    ``path`` (mesh references relative to it, or ``package``: ``(root directory,
    "package://NAME/")``, URIs of files in that package; the export holds the mesh files to
    write beside it); losses go to ``report``."""
    w = _Writer(robot, path, report, meshes, package)
    return w.document(), w.meshes
