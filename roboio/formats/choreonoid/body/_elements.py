"""The ``elements`` of a Choreonoid ``.body`` link (spec §4.5): shapes, Transform / Group /
Visual / Collision nodes, mesh resources, rigid bodies (extra mass) and devices.

Shapes become roboio geometry placed in the link frame (``Geometry.transform`` = product of the
enclosing Transform nodes, scale included): ``Box``, ``Sphere``, ``Cylinder``, ``Capsule``,
``Cone`` stay analytic :class:`~roboio.model.Primitive` (Choreonoid's cylinder, capsule and cone
axes are +y, centred on the origin); ``Extrusion``, ``ElevationGrid``, ``TriangleMesh`` and
``IndexedFaceSet`` become :class:`~roboio.model.TriangleMesh`; ``Resource`` files load lazily
through the registry (a ``node:`` of a VRML file through the shared VRML reader, placed as
Choreonoid places it: the rotations of its ancestors kept, translations dropped). Each shape
keeps its ``appearance`` (the YAML mapping) in ``geometry.extras["choreonoid_appearance"]``.
"""
from __future__ import annotations

import math
import os

import numpy as np

from .... import transforms as tf
from ....errors import FormatError
from ....model import GeometrySource, Primitive, TriangleMesh
from ... import loading
from .. import _yaml as Y
from ._extrusion import extrusion_mesh
from ._records import LinkShapes

__all__ = ["ElementReader", "DEVICE_TYPES", "read_rotation", "read_translation"]

DEVICE_TYPES = ("ForceSensor", "RateGyroSensor", "AccelerationSensor", "IMU", "Camera",
                "CameraDevice", "RangeCamera", "RangeSensor", "SpotLight", "PointLight",
                "DirectionalLight")


def _finite(values, node, path, what) -> list:
    """``values``, or a FormatError at ``node``'s line when one is inf or nan (Choreonoid's
    strtod reads ``inf``; a frame built from it is NaN everywhere below it)."""
    if not all(math.isfinite(v) for v in values):
        raise FormatError(path, Y.line_of(node), None, f"{what}: {values} is not finite")
    return values


def read_rotation(node, path, to_radian, what="rotation") -> np.ndarray:
    """``[ax, ay, az, angle]`` or a list of them (post-multiplied) -> 3x3."""
    seq = Y.to_list(node, path, what)
    if seq and isinstance(seq[0], list):
        R = np.eye(3)
        for r in seq:
            R = tf.compose(R, read_rotation(r, path, to_radian, what))
        return R
    v = _finite(Y.to_floats(node, path, what, 4), node, path, what)
    axis = np.array(v[:3])
    n = float(np.sqrt(np.sum(axis * axis)))      # Eigen's norm(): sqrt of the sum of squares
    if n < 1e-6:
        raise FormatError(path, Y.line_of(node), None, f"{what}: the rotation axis is the zero vector")
    angle = to_radian(v[3])
    if not math.isfinite(angle):                 # 1e308 degrees overflows in radians
        raise FormatError(path, Y.line_of(node), None, f"{what}: the angle {v[3]!r} is out of range")
    return tf.axis_angle_to_matrix(axis / n, angle)


def read_translation(node, path, what="translation") -> np.ndarray:
    """``[x, y, z]`` or a list of them (summed)."""
    seq = Y.to_list(node, path, what)
    if seq and isinstance(seq[0], list):
        return sum((read_translation(t, path, what) for t in seq), np.zeros(3))
    return np.array(_finite(Y.to_floats(node, path, what, 3), node, path, what))


class ElementReader:
    """Walks ``elements`` trees of one ``.body`` file."""

    def __init__(self, path, ctx, to_radian, document=None):
        self.path, self.ctx, self.to_radian = path, ctx, to_radian
        self.count = 0
        self._resources: dict = {}
        self._picked = _picked_nodes(document)

    def err(self, node, msg):
        return FormatError(self.path, Y.line_of(node), None, msg)

    def warn(self, msg, node=None, **kind):
        self.ctx.warn(msg, Y.line_of(node), **kind)

    # -- traversal -----------------------------------------------------------------------
    def read(self, elements, out: LinkShapes, T=None, mode="both"):
        """Add everything in ``elements`` (list, single node, or mapping keyed by type)."""
        T = np.eye(4) if T is None else T
        if isinstance(elements, list):
            for e in elements:
                e = Y.to_map(e, self.path, "element")
                t = e.get("type")
                if t is None:
                    raise self.err(e, "element has no 'type'")
                self.node(e, Y.to_str(t, self.path, "type"), out, T, mode)
        elif isinstance(elements, dict):
            if "type" in elements:
                self.node(elements, Y.to_str(elements["type"], self.path, "type"), out, T, mode)
            else:
                for typ, e in elements.items():
                    e = Y.to_map(e, self.path, typ)
                    inner = e.get("type")
                    if inner is not None and str(inner) != typ:
                        raise self.err(e, f"node type {str(inner)!r} differs from the key {typ!r}")
                    self.node(e, typ, out, T, mode)
        else:
            raise self.err(elements, "'elements' must be a list or a mapping")

    def node(self, e, typ, out, T, mode):
        self.count += 1
        # aliases can make a small file describe a huge tree: every element visited counts
        self.ctx.charge("nodes", 1, Y.line_of(e), what="body elements (aliases expanded)")
        if typ == "Skip":
            return
        if typ in ("Transform", "Group", "Node"):
            T2 = self.own_transform(e, T) if typ == "Transform" else T
            if "elements" in e:
                self.read(e["elements"], out, T2, mode)
        elif typ == "Shape":
            self.shape(e, out, T, mode)
        elif typ in ("Visual", "Collision"):
            want = "visual" if typ == "Visual" else "collision"
            if mode not in ("both", want):
                raise self.err(e, f"a {typ} node inside a {mode.capitalize()} node")
            out.has_visual_or_collision = True
            T2 = self.own_transform(e, T)
            if "resource" in e:
                self.resource(Y.to_map(e["resource"], self.path, "resource"), out, T2, want)
            if "shape" in e:
                self.shape(Y.to_map(e["shape"], self.path, "shape"), out, T2, want)
            if "elements" in e:
                self.read(e["elements"], out, T2, want)
        elif typ == "Resource":
            self.resource(e, out, T, mode)
        elif typ == "RigidBody":
            T2 = self.own_transform(e, T)
            self.rigid_body(e, out, T2)
            if "elements" in e:
                self.read(e["elements"], out, T2, mode)
        else:
            if typ not in DEVICE_TYPES:
                self.warn(f"element type {typ!r} is not a Choreonoid node roboio knows "
                          "(a plugin device?); kept as a device record", e, kind="kept as data")
            T2 = self.own_transform(e, T)
            out.devices.append(self.device(e, typ, T2))
            if "elements" in e:
                n0 = len(out.shapes)
                self.read(e["elements"], out, T2, mode)
                # the device's shapes are link geometry for every reader; the .body writer
                # writes them inside their device only (else they would be written twice)
                for g, _ in out.shapes[n0:]:
                    g.extras["choreonoid_device_shape"] = True

    def own_transform(self, e, T):
        M = np.eye(4)
        if "translation" in e:
            M[:3, 3] = read_translation(e["translation"], self.path)
        if "rotation" in e:
            M[:3, :3] = read_rotation(e["rotation"], self.path, self.to_radian)
        if "scale" in e:
            M[:3, :3] = M[:3, :3] * np.asarray(_finite(Y.to_floats(e["scale"], self.path, "scale", 3),
                                                       e["scale"], self.path, "scale"), float)
        return tf.compose(T, M)      # (element-wise: the same bits on any machine)

    # -- leaves --------------------------------------------------------------------------
    def rigid_body(self, e, out, T):
        com = np.array(Y.to_floats(Y.get(e, "center_of_mass", "centerOfMass"), self.path, "centerOfMass", 3)) \
            if Y.get(e, "center_of_mass", "centerOfMass") is not None else np.zeros(3)
        mass = Y.to_float(e["mass"], self.path, "mass") if "mass" in e else 0.0
        inertia = read_inertia(e["inertia"], self.path) if "inertia" in e else np.zeros((3, 3))
        R = T[:3, :3]
        out.rigid_bodies.append((mass, tf.transform_points(T, com), tf.compose(tf.compose(R, inertia), R.T)))

    def device(self, e, typ, T) -> dict:
        d = {"type": typ, "transform": T}
        for k, v in e.items():
            if k not in ("type", "translation", "rotation", "elements"):
                d[k] = v
        d["node"] = e
        return d

    def shape(self, e, out, T, mode):
        g = e.get("geometry")
        if g is None:
            self.warn("Shape without geometry ignored", e, kind="empty")
            return
        g = Y.to_map(g, self.path, "geometry")
        geom = self.geometry(g)
        if geom is None:
            return
        geom.transform = tf.compose(self.own_transform(e, T), geom.transform)
        app = e.get("appearance")
        if app is not None:
            geom.extras["choreonoid_appearance"] = app
        out.shapes.append((geom, mode))

    def geometry(self, g):
        t = g.get("type")
        if t is None:
            raise self.err(g, "geometry has no 'type'")
        t = Y.to_str(t, self.path, "type")
        f = lambda key, default: (Y.to_float(g[key], self.path, key) if key in g else default)  # noqa: E731
        if t == "Box":
            size = np.array(Y.to_floats(g["size"], self.path, "size", 3)) if "size" in g else np.ones(3)
            p = Primitive("Box", {"origin": -size / 2, "xaxis": [1, 0, 0], "yaxis": [0, 1, 0],
                                  "zaxis": [0, 0, 1], "dims": size})
        elif t == "Sphere":
            p = Primitive("Sphere", {"center": [0, 0, 0], "radius": f("radius", 1.0)})
        elif t in ("Cylinder", "Capsule", "Cone"):
            h = f("height", 1.0)
            p = Primitive(t, {"center": [0, -h / 2, 0], "axis": [0, 1, 0], "radius": f("radius", 1.0),
                              "height": h})
            for flag in ("top", "bottom", "side"):
                if flag in g:
                    p.extras[flag] = Y.to_bool(g[flag], self.path, flag)
        elif t == "Extrusion":
            p = extrusion_mesh(g, self.path, self.to_radian)
        elif t == "ElevationGrid":
            p = self.elevation_grid(g)
        elif t in ("TriangleMesh", "IndexedFaceSet"):
            p = self.mesh(g, t)
        elif t == "Resource":
            return self.resource_geometry(g)
        else:
            self.warn(f"geometry type {t!r} is not supported; shape ignored", g, kind="unsupported")
            return None
        if "division_number" in g or "divisionNumber" in g:
            p.extras["division_number"] = Y.get(g, "division_number", "divisionNumber")
        p.extras["choreonoid_geometry"] = g
        return p

    def elevation_grid(self, g):
        nx = Y.to_int(Y.get(g, "x_dimension", "xDimension"), self.path, "x_dimension")
        nz = Y.to_int(Y.get(g, "z_dimension", "zDimension"), self.path, "z_dimension")
        dx = Y.to_float(Y.get(g, "x_spacing", "xSpacing"), self.path, "x_spacing")
        dz = Y.to_float(Y.get(g, "z_spacing", "zSpacing"), self.path, "z_spacing")
        h = np.array(Y.to_floats(g["height"], self.path, "height", nx * nz)).reshape(nz, nx)
        xs, zs = np.meshgrid(np.arange(nx) * dx, np.arange(nz) * dz)
        v = np.stack([xs.ravel(), h.ravel(), zs.ravel()], axis=1)
        i = (np.arange(nz - 1)[:, None] * nx + np.arange(nx - 1)[None]).ravel()
        faces = np.concatenate([np.stack([i, i + nx, i + 1], 1), np.stack([i + 1, i + nx, i + nx + 1], 1)])
        return TriangleMesh(v, faces)

    def mesh(self, g, t):
        vk = ("vertices",) if t == "TriangleMesh" else ("coordinate", "vertices")
        fk = ("faces", "triangles") if t == "TriangleMesh" else ("coordIndex", "coord_index", "faces")
        vnode, fnode = Y.get(g, *vk), Y.get(g, *fk)
        if vnode is None or fnode is None:
            raise self.err(g, f"{t} needs {vk[0]} and {fk[0]}")
        v = np.array(Y.to_floats(vnode, self.path, vk[0]))
        v = v[:len(v) // 3 * 3].reshape(-1, 3)
        idx = [Y.to_int(x, self.path, fk[0]) for x in Y.to_list(fnode, self.path, fk[0])]
        if t == "TriangleMesh":
            if len(idx) % 3:
                raise self.err(fnode, "faces must hold index triples")
            faces = np.array(idx, dtype=np.int64).reshape(-1, 3)
        else:
            faces, poly = [], []
            for k in idx + [-1]:
                if k < 0:
                    faces += [(poly[0], poly[j], poly[j + 1]) for j in range(1, len(poly) - 1)]
                    poly = []
                else:
                    poly.append(k)
            faces = np.array(faces, dtype=np.int64).reshape(-1, 3)
        if len(faces) and (faces.min() < 0 or faces.max() >= len(v)):
            raise self.err(fnode, f"face index out of range ({len(v)} vertices)")
        return TriangleMesh(v, faces)

    # -- resources ---------------------------------------------------------------------------
    def resource_geometry(self, e):
        uri = Y.to_str(e.get("uri", ""), self.path, "uri")
        frag = Y.get(e, "node", "fragment")
        g = self.load_resource(uri, None if frag is None else str(frag), e)
        if g is not None:
            g.transform = tf.compose(self.own_transform(e, np.eye(4)), g.transform)
        return g

    def resource(self, e, out, T, mode):
        g = self.resource_geometry(e)
        if g is not None:
            g.transform = tf.compose(T, g.transform)
            out.shapes.append((g, mode))

    def load_resource(self, uri, fragment, node):
        from ....resolve import resolve
        line = Y.line_of(node)
        if not uri:
            raise self.err(node, "Resource without uri")
        ext = os.path.splitext(uri.lower())[1]
        if ext in (".yaml", ".yml", ".body", ".scen"):
            self.warn(f"resource {uri!r}: scene files as resources are not read by roboio; "
                      "its shapes are missing", node, kind="unsupported")
            return None
        if fragment is None:
            return loading.load_geometry_ref(uri, self.path, self.ctx, line=line)
        res = resolve(uri, self.path)
        if not res:
            self.ctx.warn(f"geometry file {uri!r} not found (looked for: {res.describe_tried()})", line, kind="missing file", hint=loading.missing_file_hint(uri))
            return TriangleMesh(source=GeometrySource(uri, None, None), missing=True)
        # Choreonoid takes each picked node out of the resource's scene, which it loads once
        # per body: a node's subtree loses the nodes picked elsewhere in the file
        if ext == ".dae":
            from ...meshes.collada import node_mesh
            g = node_mesh(res.path, self.ctx, fragment, compose=_choreonoid_node_frame,
                          exclude=self._picked.get(uri, ()))
            g.source = GeometrySource(uri, res.path, "collada")
            return g
        from ...meshes.inventor import node_mesh
        try:
            g = node_mesh(res.path, self.ctx, fragment, compose=_choreonoid_node_frame,
                          exclude=self._picked.get(uri, ()))
        except FormatError as ex:
            raise FormatError(self.path, line, None, f"resource {uri!r} node {fragment!r}: {ex.message}") from None
        g.source = GeometrySource(uri, res.path, "vrml")
        return g


def _picked_nodes(document) -> dict:
    """``{uri: {node names}}`` of every resource of ``document`` (the parsed ``.body``) that
    picks a node (``uri`` with ``node`` or ``fragment``); aliased subtrees are walked once."""
    out: dict = {}
    stack, seen = [document], set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, dict):
            uri, frag = n.get("uri"), n.get("node", n.get("fragment"))
            if isinstance(uri, str) and isinstance(frag, str):
                out.setdefault(uri, set()).add(frag)
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)
    return out


def _choreonoid_node_frame(parent, local):
    """Choreonoid's ``Resource { node }``: the node keeps the rotation (and scale) of its
    ancestors and its own, but no translation (StdSceneReader::adjustNodeCoordinate)."""
    M = np.eye(4)
    M[:3, :3] = tf.compose(parent[:3, :3], local[:3, :3])
    return M


def read_inertia(node, path) -> np.ndarray:
    """9 values row-major, or 6 (ixx ixy ixz iyy iyz izz)."""
    v = Y.to_floats(node, path, "inertia")
    if len(v) == 9:
        return np.array(v).reshape(3, 3)
    if len(v) == 6:
        a, b, c, d, e, f = v
        return np.array([[a, b, c], [b, d, e], [c, e, f]])
    raise FormatError(path, Y.line_of(node), None, f"inertia must have 6 or 9 numbers, got {len(v)}")


def degrees_or_radians(degree_mode: bool):
    return (lambda a: a * math.pi / 180.0) if degree_mode else (lambda a: a)
