"""roboio Robot -> COLLADA 1.5 with OpenRAVE's robot extensions (spec ``collada.md`` §15).

The file follows OpenRAVE's own writer (the tested template), so that OpenRAVE reads it
back to the same kinematics, and roboio's reader (which follows OpenRAVE's) too:

* one COLLADA ``<link>`` per roboio link, nested by ``<attachment_full>`` in roboio's link
  order (children in index order, so the depth-first order OpenRAVE rebuilds is roboio's
  order whenever that is a depth-first order); the attachment is the link's
  ``parent_transform`` as a row-major ``<matrix>`` (exact numbers), the joint axis the link's
  axis (joint frame), no own transform;
* a joint per non-root link: ``revolute``/``prismatic`` with hard ``<limits>`` (degrees /
  metres; a revolute joint without finite limits is written circular), ``axis_info`` with
  ``active`` (false for welds, mimic and undriven joints), speeds and accelerations (deg/s,
  deg/s^2) in the motion system;
* the DOF order is the drivers' order (one ``attach_actuator`` per DOF, in order); affine
  drivers become mimic ``<formula>``s ``q = offset + scale * master`` (MathML with the
  OpenRAVE technique and its partial derivatives);
* a visual node per link mirroring the kinematics (``<matrix>``, the joint-bound
  ``rotate``/``translate`` at 0), each with its geometry: meshes baked into the link frame
  (``<triangles>``), boxes, spheres and cylinders as OpenRAVE ``geometry_info`` primitives
  (with a tessellated mesh for other tools); phong materials from the link's colour;
* rigid bodies (mass, principal inertia, ``mass_frame`` in the body frame at q = 0, the
  physics model's parent being the identity node ``visual1``);
* manipulators, attached sensors (``library_sensors``) and the self-collision exclusions as
  ``ignore_link_pair``s.

``authoring_tool`` is ``roboio ...`` (never exactly ``OpenRAVE Collada Writer``, which would
switch OpenRAVE to radians). Everything the file cannot hold is reported with
``report.lose``.
"""
from __future__ import annotations

import io
import math
import os
import zipfile
from typing import Optional

import numpy as np
from lxml import etree

from ....model import Group, PointCloud, Primitive, Robot, TriangleMesh
from ...fileio import fmt_float

__all__ = ["dumps", "document", "AUTHORING_TOOL"]

NS = "http://www.collada.org/2008/03/COLLADASchema"
MATHML = "http://www.w3.org/1998/Math/MathML"
AUTHORING_TOOL = "roboio (OpenRAVE COLLADA robot extensions 0.3.5)"
RAD2DEG = 180.0 / math.pi
_SEG = 16


def _f(x) -> str:
    return fmt_float(float(x))


def _fs(values) -> str:
    return " ".join(_f(v) for v in values)


class _E:
    """Tiny element builder in the COLLADA namespace."""

    def __init__(self, tag, up=None, text=None, ns=NS, **attrib):
        name = f"{{{ns}}}{tag}"
        if up is None:
            self.el = etree.Element(name, nsmap={None: ns})
        elif ns != NS and up.el.nsmap.get(None) != ns:
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


def _matrix_text(T) -> str:
    return _fs(np.asarray(T, float).reshape(16))


def _is_identity(T) -> bool:
    return np.array_equal(np.asarray(T, float), np.eye(4))


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
    faces = []
    top = len(verts) - 1
    for k in range(_SEG):
        faces.append([0, 1 + (k + 1) % _SEG, 1 + k])
    for i in range(stacks - 2):
        a, b = 1 + i * _SEG, 1 + (i + 1) * _SEG
        for k in range(_SEG):
            k2 = (k + 1) % _SEG
            faces.append([a + k, a + k2, b + k2])
            faces.append([a + k, b + k2, b + k])
    last = 1 + (stacks - 2) * _SEG
    for k in range(_SEG):
        faces.append([top, last + k, last + (k + 1) % _SEG])
    return np.array(verts, float), np.array(faces)


def _leaves(g, T):
    """(geometry, transform to the link frame) of every non-group geometry of ``g``."""
    if g is None:
        return []
    T = T @ np.asarray(g.transform, float)
    if isinstance(g, Group):
        out = []
        for c in g.children:
            out.extend(_leaves(c, T))
        return out
    return [(g, T)]


def _rigid(T, tol=1e-9) -> bool:
    R = T[:3, :3]
    return np.allclose(R.T @ R, np.eye(3), atol=tol) and np.linalg.det(R) > 0 and np.allclose(T[3], [0, 0, 0, 1])


def _frame(x, y, z, origin):
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = x, y, z, origin
    return T


class _Writer:
    def __init__(self, robot: Robot, report, path: Optional[str]):
        self.robot = robot
        self.report = report
        self.path = path
        self.n = robot.num_links
        self.lost: dict = {}

    def lose(self, kind: str, item: str) -> None:
        self.lost.setdefault(kind, []).append(item)

    def flush_lost(self) -> None:
        for kind, items in self.lost.items():
            shown = ", ".join(items[:8]) + (f" (+{len(items) - 8} more)" if len(items) > 8 else "")
            self.report.lose(f"{kind}: {shown}")

    # -------------------------------------------------------------- structure
    def analyse(self) -> None:
        r = self.robot
        links = r.links
        self.children = {i: [] for i in range(-1, self.n)}
        for l in links:
            self.children[l.parent].append(l.index)
        roots = self.children[-1]
        if not roots:
            raise ValueError("robot has no links")
        self.kind = {}
        for l in links:
            j = r.joint_of_link(l.index)
            jt = j.type if j is not None else "normal"
            if jt == "weld" or (r.qmin[l.index] == r.qmax[l.index] == 0 and jt != "spin"):
                self.kind[l.index] = "weld"
            elif jt == "spin":
                self.kind[l.index] = "spin"
            else:
                self.kind[l.index] = "normal"
                if jt not in ("normal",):
                    self.lose(f"Klamp't {jt} joints written as one-axis joints", l.name)
        # the root: OpenRAVE's link 0 has no joint to the world
        self.world_root = None
        first = roots[0]
        if self.kind[first] != "weld" or len(roots) > 1:
            self.world_root = "world" if "world" not in r.link_names else "__world__"
            self.report.lose(f"the robot's root moves relative to the world (or it has several roots): "
                             f"written with an added fixed root link {self.world_root!r}")
        # drivers -> DOFs (masters) and mimic joints
        self.master_of_driver = []
        self.driver_of = {}
        self.mimic = {}
        for d in r.drivers:
            if d.type not in ("normal", "affine"):
                self.lose("drivers that are forces or moments (not joint positions)", d.name)
                self.master_of_driver.append(None)
                continue
            dofs = list(d.dofs)
            if d.type == "normal":
                m = dofs[0]
                self.master_of_driver.append(m)
                self.driver_of[m] = d
                continue
            cand = [k for k, (s, o) in enumerate(zip(d.scale, d.offset)) if s == 1 and o == 0]
            mk = cand[0] if cand else next((k for k, s in enumerate(d.scale) if s != 0), 0)
            m = dofs[mk]
            sm, om = d.scale[mk], d.offset[mk]
            if not (sm == 1 and om == 0):
                self.lose("affine drivers whose value is not a joint value (OpenRAVE's DOF is the "
                          "master joint's value)", f"{d.name} (scale {sm}, offset {om})")
            self.master_of_driver.append(m)
            self.driver_of[m] = d
            for k, dof in enumerate(dofs):
                if k == mk:
                    continue
                s = d.scale[k] / sm
                o = d.offset[k] - d.scale[k] * om / sm
                self.mimic[dof] = (m, s, o)
        self.active = {}
        for l in links:
            i = l.index
            if self.kind[i] == "weld":
                self.active[i] = False
            elif i in self.mimic:
                self.active[i] = False
            elif i in self.driver_of:
                self.active[i] = True
            else:
                self.active[i] = False
                self.lose("joints no driver moves (written passive: OpenRAVE holds them at 0)", l.name)
        self.joint_name = {}
        used = set()
        for l in links:
            i = l.index
            d = self.driver_of.get(i)
            name = (l.extras.get("openrave", {}) or {}).get("joint") if isinstance(l.extras.get("openrave"), dict) else None
            if not name:
                name = d.name if d is not None and d.name else f"{l.name}_joint"
            while name in used:
                name += "_"
            used.add(name)
            self.joint_name[i] = name

    # -------------------------------------------------------------- geometry
    def geometries(self, i: int):
        """(kind, params, frame, mesh vertices, faces, colour, transparency) of link i."""
        l = self.robot.links[i]
        out = []
        if l.visual_geometry is not None and l.visual_geometry is not l.geometry:
            self.lose("separate visual geometry (COLLADA links have one geometry set; the collision "
                      "geometry is written)", l.name)
        app = l.appearance
        color = app.color if app is not None else None
        for g, T in _leaves(l.geometry, np.eye(4)):
            if g.missing:
                self.lose("missing mesh files", f"{l.name}: {g.source.reference if g.source else '?'}")
                continue
            if isinstance(g, PointCloud):
                self.lose("point clouds", l.name)
                continue
            if isinstance(g, Primitive):
                prim = self.primitive(g, T, l.name)
                if prim is not None:
                    out.append(prim + (color,))
                continue
            if isinstance(g, TriangleMesh):
                V = np.asarray(g.vertices, float)
                F = np.asarray(g.faces, np.int64)
                if len(F) == 0:
                    continue
                Vl = V @ T[:3, :3].T + T[:3, 3]
                if np.linalg.det(T[:3, :3]) < 0:
                    F = F[:, ::-1]
                if g.face_colors is not None or g.vertex_colors is not None:
                    self.lose("per-face/per-vertex mesh colours", l.name)
                out.append(("trimesh", {}, np.eye(4), Vl, F, color))
        return out

    def primitive(self, g: Primitive, T, link: str):
        p, k = g.params, g.primitive
        if not _rigid(T):
            self.lose("primitives under a scaling transform (not written)", f"{link}: {k}")
            return None
        if k in ("Box", "AABB"):
            if k == "AABB":
                lo, hi = np.asarray(p["bmin"], float), np.asarray(p["bmax"], float)
                x, y, z = np.eye(3)
                origin, dims = lo, hi - lo
            else:
                x, y, z = (np.asarray(p[a], float) for a in ("xaxis", "yaxis", "zaxis"))
                origin, dims = np.asarray(p["origin"], float), np.asarray(p["dims"], float)
                B = np.stack([x, y, z], 1)
                if not np.allclose(B.T @ B, np.eye(3), atol=1e-12) or np.linalg.det(B) < 0:
                    self.lose("boxes with non-orthonormal axes (not written)", link)
                    return None
            F = T @ _frame(x, y, z, origin + (np.stack([x, y, z], 1) @ (dims / 2)))
            h = dims / 2
            v, f = _box_mesh(h)
            return ("box", {"half_extents": h}, F, v, f)
        if k == "Sphere":
            F = T @ _frame(*np.eye(3), np.asarray(p["center"], float))
            v, f = _sphere_mesh(float(p["radius"]))
            return ("sphere", {"radius": float(p["radius"])}, F, v, f)
        if k == "Cylinder":
            a = np.asarray(p["axis"], float)
            n = np.linalg.norm(a)
            if n == 0:
                self.lose("cylinders with a zero axis (not written)", link)
                return None
            z = a / n
            x = np.cross(z, [1.0, 0, 0]) if abs(z[0]) < 0.9 else np.cross(z, [0, 1.0, 0])
            x /= np.linalg.norm(x)
            y = np.cross(z, x)
            h = float(p["height"])
            F = T @ _frame(x, y, z, np.asarray(p["center"], float) + z * h / 2)
            v, f = _cylinder_mesh(float(p["radius"]), h)
            return ("cylinder", {"radius": float(p["radius"]), "height": h}, F, v, f)
        self.lose(f"{k} primitives (OpenRAVE COLLADA has box, sphere and cylinder; not written)", link)
        return None

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
        vscenes = root.add("library_visual_scenes")
        vscene = vscenes.add("visual_scene", id="vscene", name=name)
        visual1 = vscene.add("node", id="visual1", name=name, sid="visual1")
        geoms = root.add("library_geometries")
        effects = root.add("library_effects")
        materials = root.add("library_materials")
        kmodels = root.add("library_kinematics_models")
        km = kmodels.add("kinematics_model", id="kmodel1", name=name)
        ktc = km.add("technique_common")
        # COLLADA ids: a roboio link keeps its index; an added world root is index n
        self.joint_links = [i for i in range(self.n) if r.links[i].parent >= 0 or self.world_root]
        for i in self.joint_links:
            l = r.links[i]
            j = ktc.add("joint", name=self.joint_name[i], sid=f"joint{i}")
            ax = j.add("prismatic" if l.is_prismatic else "revolute", sid="axis0")
            axis = np.asarray(l.axis, float)
            norm = np.linalg.norm(axis)
            if norm == 0 or abs(norm - 1) > 1e-12:
                self.lose("joint axes that are not unit vectors (OpenRAVE normalises them)", l.name)
            ax.add("axis", _fs(axis))
            lim = self.limits(i)
            if lim is not None:
                lm = ax.add("limits")
                lm.add("min", _f(lim[0]))
                lm.add("max", _f(lim[1]))
        order = []
        if self.world_root:
            k = self.n
            klink = ktc.add("link", sid=f"link{k}", name=self.world_root)
            node = visual1.add("node", id=f"v1.node{k}", name=self.world_root, sid=f"node{k}")
            order.append(None)
            stack = [(c, klink, node) for c in reversed(self.children[-1])]
        else:
            first = self.children[-1][0]
            l0 = r.links[first]
            klink = ktc.add("link", sid=f"link{first}", name=l0.name)
            node = visual1.add("node", id=f"v1.node{first}", name=l0.name, sid=f"node{first}")
            P0 = np.asarray(l0.parent_transform, float)
            if not _is_identity(P0):
                klink.add("matrix", _matrix_text(P0))
                node.add("matrix", _matrix_text(P0))
            self.link_geometry(first, node, geoms, effects, materials)
            order.append(first)
            stack = [(c, klink, node) for c in reversed(self.children[first])]
        while stack:                      # depth first, children in index order
            c, kparent, vparent = stack.pop()
            l = r.links[c]
            order.append(c)
            att = kparent.add("attachment_full", joint=f"kmodel1/joint{c}")
            P = np.asarray(l.parent_transform, float)
            if not _is_identity(P):
                att.add("matrix", _matrix_text(P))
            klink = att.add("link", sid=f"link{c}", name=l.name)
            node = vparent.add("node", id=f"v1.node{c}", name=l.name, sid=f"node{c}")
            if not _is_identity(P):
                node.add("matrix", _matrix_text(P))
            if l.is_prismatic:
                node.add("translate", "0 0 0", sid=f"node_joint{c}_axis0")
            else:
                node.add("rotate", _fs(list(np.asarray(l.axis, float)) + [0]), sid=f"node_joint{c}_axis0")
            self.link_geometry(c, node, geoms, effects, materials)
            stack.extend((g, klink, node) for g in reversed(self.children[c]))
        plain = [i for i in order if i is not None]
        if plain != list(range(self.n)):
            names = [r.links[i].name for i in plain[:6]]
            self.report.warn("link order changes when read back (OpenRAVE orders links depth first): "
                             + ", ".join(names) + ", ...")
        for dof, (m, s, o) in self.mimic.items():
            self.formula(ktc, dof, m, s, o)
        itf = km.add("extra", type="interface_type").add("technique", profile="OpenRAVE")
        itf.add("interface", "GenericRobot", type="robot")
        self.collision(km)
        self.systems(root, name)
        self.physics(root, name)
        self.scene(root, name)
        self.sensor_library(root)
        self.flush_lost()
        return etree.tostring(root.el, xml_declaration=True, encoding="utf-8", pretty_print=True)

    def limits(self, i):
        r = self.robot
        l = r.links[i]
        lo, hi = float(r.qmin[i]), float(r.qmax[i])
        if self.kind[i] == "weld":
            return (0.0, 0.0)
        if l.is_prismatic:
            if not (math.isfinite(lo) and math.isfinite(hi)):
                self.lose("unlimited prismatic joints (OpenRAVE limits them to +-1e6 m)", l.name)
                lo = lo if math.isfinite(lo) else -1e6
                hi = hi if math.isfinite(hi) else 1e6
            return (lo, hi)
        if self.kind[i] == "spin" or not (math.isfinite(lo) and math.isfinite(hi)):
            return None                       # circular
        return (lo * RAD2DEG, hi * RAD2DEG)

    def formula(self, ktc, dof, master, scale, offset):
        f = ktc.add("formula", sid=f"joint{dof}.formula")
        f.add("target").add("param", f"kmodel1/joint{dof}")

        def expr(parent):
            m = _E("math", parent, ns=MATHML)
            a = m.add("apply")
            _E("plus", a, ns=MATHML)
            _E("cn", a, _f(offset), ns=MATHML, type="real")
            t = _E("apply", a, ns=MATHML)
            _E("times", t, ns=MATHML)
            _E("cn", t, _f(scale), ns=MATHML, type="real")
            _E("csymbol", t, f"kmodel1/joint{master}", ns=MATHML, encoding="COLLADA")

        expr(f.add("technique_common"))
        tec = f.add("technique", profile="OpenRAVE")
        expr(tec.add("equation", type="position"))
        for kind, value in (("first_partial", scale), ("second_partial", 0.0)):
            e = tec.add("equation", type=kind, target=f"kmodel1/joint{master}")
            m = _E("math", e, ns=MATHML)
            _E("cn", m, _f(value), ns=MATHML, type="real")

    def collision(self, km):
        r = self.robot
        tec = km.add("extra", type="collision").add("technique", profile="OpenRAVE")
        checked = {(min(a, b), max(a, b)) for a, b in r.self_collision_pairs}
        for a in range(self.n):
            for b in range(a + 1, self.n):
                if (a, b) not in checked:
                    tec.add("ignore_link_pair", link0=f"kmodel1/link{a}", link1=f"kmodel1/link{b}")

    def link_geometry(self, i, node, geoms, effects, materials):
        if i is None:
            return
        for gi, (kind, params, F, V, Fc, color) in enumerate(self.geometries(i)):
            gid = f"g1_link{i}_geom{gi}"
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
            if kind != "trimesh":
                tec = g.add("extra", type="geometry_info").add("technique", profile="OpenRAVE")
                if not _is_identity(F):
                    tec.add("matrix", _matrix_text(F))
                if kind == "box":
                    tec.add("box").add("half_extents", _fs(params["half_extents"]))
                elif kind == "sphere":
                    tec.add("sphere").add("radius", _f(params["radius"]))
                else:
                    cz = tec.add("cylinderz")
                    cz.add("radius", _f(params["radius"]))
                    cz.add("height", _f(params["height"]))
            if color is not None:
                eff = effects.add("effect", id=f"{gid}_eff")
                ph = eff.add("profile_COMMON").add("technique", sid="").add("phong")
                rgba = list(color) + [1.0] * (4 - len(color))
                ph.add("diffuse").add("color", _fs(rgba[:3] + [rgba[3]]))
                ph.add("transparency").add("float", _f(rgba[3]))
                materials.add("material", id=f"{gid}_mat").add("instance_effect", url=f"#{gid}_eff")
            ig = node.add("instance_geometry", url=f"#{gid}")
            if color is not None:
                ig.add("bind_material").add("technique_common").add(
                    "instance_material", symbol="mat0", target=f"#{gid}_mat")

    def systems(self, root, name):
        r = self.robot
        asys = root.add("library_articulated_systems")
        kin = asys.add("articulated_system", id="body1_kinematics")
        k = kin.add("kinematics")
        ikm = k.add("instance_kinematics_model", url="#kmodel1", sid="kmodel1_inst")
        np_ = ikm.add("newparam", sid="body1_kinematics_kmodel1_inst")
        np_.add("SIDREF", "body1_kinematics/kmodel1_inst")
        joints = self.joint_links
        self.axis_params = []
        for i in joints:
            p = f"body1_kinematics_kmodel1_inst_joint{i}.axis0"
            ikm.add("newparam", sid=p).add("SIDREF", f"body1_kinematics/kmodel1_inst/joint{i}/axis0")
            ikm.add("newparam", sid=p + "_value").add("float", _f(self.stored_value(i)))
            self.axis_params.append((i, p))
        ktc = k.add("technique_common")
        for i in joints:
            ai = ktc.add("axis_info", sid=f"kaxis_info_inst{i}", axis=f"kmodel1/joint{i}/axis0")
            ai.add("active").add("bool", "true" if self.active[i] else "false")
            ai.add("locked").add("bool", "false")
            if self.limits(i) is None:
                ai.add("newparam", sid="circular").add("bool", "true")
        mot = asys.add("articulated_system", id="body1_motion")
        m = mot.add("motion")
        ias = m.add("instance_articulated_system", url="#body1_kinematics")
        ias.add("newparam", sid="body1_motion_kmodel1_inst").add("SIDREF", "body1_kinematics/body1_kinematics_kmodel1_inst")
        for i, p in self.axis_params:
            ias.add("newparam", sid=f"body1_motion_{p}").add("SIDREF", f"body1_kinematics/{p}")
            ias.add("newparam", sid=f"body1_motion_{p}_value").add("SIDREF", f"body1_kinematics/{p}_value")
        mtc = m.add("technique_common")
        for i in joints:
            ai = mtc.add("axis_info", sid=f"maxis_info_inst{i}", axis=f"body1_kinematics/kaxis_info_inst{i}")
            if i < 0 or self.kind[i] == "weld":
                continue
            unit = 1.0 if r.links[i].is_prismatic else RAD2DEG
            v, a = float(r.vmax[i]), float(r.amax[i])
            if math.isfinite(v) and v > 0:
                ai.add("speed").add("float", _f(v * unit))
                if float(r.vmin[i]) != -v:
                    self.lose("asymmetric velocity limits (OpenRAVE keeps one speed)", r.links[i].name)
            elif self.active[i]:
                self.lose("unlimited joint speeds (OpenRAVE uses its default 0.5 rad/s, 0.01 m/s)", r.links[i].name)
            if math.isfinite(a) and a > 0:
                ai.add("acceleration").add("float", _f(a * unit))
            if math.isfinite(float(r.tmax[i])):
                self.lose("joint torque limits", r.links[i].name)
        itf = mot.add("extra", type="interface_type").add("technique", profile="OpenRAVE")
        itf.add("interface", "GenericRobot", type="robot")
        for d, mdof in zip(r.drivers, self.master_of_driver):
            if mdof is None:
                continue
            ex = mot.add("extra", type="attach_actuator", name=d.name or f"motor{mdof}")
            ex.add("technique", profile="OpenRAVE").add("bind_actuator", joint=f"kmodel1/joint{mdof}")
        self.manipulators(mot)
        self.sensors(mot)

    def stored_value(self, i) -> float:
        q = float(self.robot.config[i]) if len(self.robot.config) > i else 0.0
        return q * RAD2DEG if not self.robot.links[i].is_prismatic else q

    def manipulators(self, mot):
        r = self.robot
        for m in r.manipulators:
            ex = mot.add("extra", type="manipulator", name=m.name)
            tec = ex.add("technique", profile="OpenRAVE")
            tec.add("frame_origin", link=f"kmodel1/link{m.base}")
            tip = tec.add("frame_tip", link=f"kmodel1/link{m.effector}")
            T = np.asarray(m.tool_transform, float)
            if not _is_identity(T):
                tip.add("matrix", _matrix_text(T))
            tip.add("direction", _fs(m.direction))
            for li, cd in zip(m.gripper_links, m.closing_direction or [0.0] * len(m.gripper_links)):
                gj = tec.add("gripper_joint", joint=f"kmodel1/joint{li}")
                gj.add("closing_direction", axis="./axis0").add("float", _f(cd))
            if m.ik_solver:
                ik = tec.add("iksolver", type="Transform6D")
                ik.add("interface_type").add("technique", profile="OpenRAVE").add("interface", m.ik_solver)
            if m.extras:
                self.lose("manipulator fields COLLADA does not carry", m.name)

    def sensors(self, mot):
        r = self.robot
        self.sensor_ids = []
        for k, s in enumerate(r.sensors):
            ex = mot.add("extra", type="attach_sensor", name=s.name)
            tec = ex.add("technique", profile="OpenRAVE")
            fo = tec.add("frame_origin", link=f"kmodel1/link{s.link}" if s.link >= 0 else "")
            T = np.asarray(s.transform, float)
            if not _is_identity(T):
                fo.add("matrix", _matrix_text(T))
            if s.link < 0:
                self.lose("sensors not attached to a link", s.name)
            if s.type:
                sid = f"robot1_sensor{k}"
                tec.add("instance_sensor", url=f"#{sid}")
                self.sensor_ids.append((sid, s))

    def sensor_library(self, root):
        ex = root.add("extra", id="sensors", type="library_sensors")
        tec = ex.add("technique", profile="OpenRAVE")
        for sid, s in getattr(self, "sensor_ids", []):
            se = tec.add("sensor", id=sid, name=sid, type=s.type)
            for k, v in s.params.items():
                if isinstance(v, str):
                    se.add(k, v)
                else:
                    self.lose("sensor parameters that are not text", f"{s.name}.{k}")

    def physics(self, root, name):
        r = self.robot
        T0 = r.fk(np.zeros(self.n))
        pms = root.add("library_physics_models")
        pm = pms.add("physics_model", id="pmodel1", name=name)
        if self.world_root:
            rb = pm.add("rigid_body", sid=f"rigid{self.n}", name=self.world_root)
            tc = rb.add("technique_common")
            tc.add("dynamic", "false")
            tc.add("mass", "0")
            tc.add("inertia", "0 0 0")
        for i, l in enumerate(r.links):
            rb = pm.add("rigid_body", sid=f"rigid{i}", name=l.name)
            tc = rb.add("technique_common")
            tc.add("dynamic", "true")
            tc.add("mass", _f(l.mass))
            I = np.asarray(l.inertia, float)
            if np.count_nonzero(I - np.diag(np.diag(I))) == 0:
                R, moments = np.eye(3), np.diag(I)
            else:
                moments, R = np.linalg.eigh(0.5 * (I + I.T))
                if np.linalg.det(R) < 0:
                    R[:, 2] = -R[:, 2]
            F = np.eye(4)
            F[:3, :3] = R
            F[:3, 3] = l.com
            tc.add("mass_frame").add("matrix", _matrix_text(T0[i] @ F))
            tc.add("inertia", _fs(moments))
        self.pscene = root.add("library_physics_scenes").add("physics_scene", id="pscene", name=name)
        ipm = self.pscene.add("instance_physics_model", url="#pmodel1", sid="pmodel1_inst", parent="#visual1")
        for i in range(self.n + (1 if self.world_root else 0)):
            ipm.add("instance_rigid_body", body=f"rigid{i}", sid=f"rigid{i}", target=f"#v1.node{i}")

    def scene(self, root, name):
        ks = root.add("library_kinematics_scenes").add("kinematics_scene", id="kscene", name=name)
        ias = ks.add("instance_articulated_system", sid="body1_motion_inst", url="#body1_motion", name=name)
        ias.add("newparam", sid="kscene_kmodel1_inst").add("SIDREF", "body1_motion/body1_motion_kmodel1_inst")
        for i, p in self.axis_params:
            ias.add("newparam", sid=f"kscene_kmodel1_inst_{p}").add("SIDREF", f"body1_motion/body1_motion_{p}")
            ias.add("newparam", sid=f"kscene_kmodel1_inst_{p}_value").add("SIDREF", f"body1_motion/body1_motion_{p}_value")
        sc = root.add("scene")
        sc.add("instance_physics_scene", url="#pscene", sid="pscene_inst")
        sc.add("instance_visual_scene", url="#vscene", sid="vscene_inst")
        iks = sc.add("instance_kinematics_scene", url="#kscene", sid="kscene_inst")
        root0 = self.n if self.world_root else self.children[-1][0]
        iks.add("bind_kinematics_model", node=f"visual1/node{root0}").add("param", "kscene_kmodel1_inst")
        for i, p in self.axis_params:
            b = iks.add("bind_joint_axis", target=f"visual1/node_joint{i}_axis0")
            b.add("axis").add("param", f"kscene_kmodel1_inst_{p}")
            b.add("value").add("param", f"kscene_kmodel1_inst_{p}_value")


def document(robot: Robot, report, path: Optional[str] = None) -> bytes:
    """The ``.dae`` document of ``robot``."""
    if not isinstance(robot, Robot):
        raise TypeError(f"collada-robot writes a Robot, not {type(robot).__name__}")
    return _Writer(robot, report, path).document()


def _zae(name: str, dae: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for member, data in ((name, dae), ("manifest.xml", f'<?xml version="1.0" encoding="utf-8"?>\n'
                                                           f'<dae_root>./{name}</dae_root>\n'.encode())):
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
