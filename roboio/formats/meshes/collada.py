"""COLLADA (``.dae``) triangle meshes, read with lxml.

What is read (Assimp's behaviour, which Klamp't uses): the default visual scene
(``<scene><instance_visual_scene>``; without one, every geometry once, unplaced), nodes with
``matrix`` (row-major), ``translate``, ``rotate`` (axis, degrees), ``scale``, ``lookat`` and
``skew`` in document order, ``instance_geometry``, ``instance_node`` and child nodes. In each
``<mesh>``: ``<triangles>``, ``<polylist>``, ``<polygons>`` (holes ignored), ``<trifans>``
and ``<tristrips>`` (polygons fan-triangulated); ``<lines>``/``<linestrips>`` are dropped.
Each geometry instance keeps the positions of its ``POSITION`` source in file order (no
merging) with the node's world transform applied; each material-bound primitive set is one
part (Klamp't loads the parts as a Group: ``extras["parts"]``). Diffuse colours of bound
materials become face colours. ``<up_axis>`` is ignored and ``<unit meter>`` is not applied
(a warning says so when it is not 1), as in Klamp't.
"""
from __future__ import annotations

import numpy as np

from ...errors import FormatError
from ...model import TriangleMesh
from ...transforms import axis_angle_to_matrix
from ..registry import FormatInfo, register
from ..xmlutil import children, local_name, parse, where
from ._common import check_readable, fan, lazy_mesh
from ._scene import Part, assemble, strip

__all__ = ["read_dae", "parse_dae", "collada_parts"]


def _floats(el, path, what="numbers") -> np.ndarray:
    text = el.text or ""
    try:
        return np.array(text.split(), dtype=np.float64)
    except ValueError:
        bad = next(t for t in text.split() if not _is_float(t))
        raise FormatError(path, where(el), None, f"<{local_name(el)}>: expected {what}, found {bad!r}") from None


def _ints(el, path) -> np.ndarray:
    text = el.text or ""
    try:
        return np.array(text.split(), dtype=np.int64)
    except ValueError:
        bad = next(t for t in text.split() if not t.lstrip("+-").isdigit())
        raise FormatError(path, where(el), None, f"<{local_name(el)}>: expected integers, found {bad!r}") from None


def _is_float(t):
    try:
        float(t)
        return True
    except ValueError:
        return False


def _int_attr(doc, el, name: str, default: int) -> int:
    text = el.get(name)
    if text is None:
        return default
    try:
        return int(text)
    except ValueError:
        raise FormatError(doc.path, where(el), None, f"<{local_name(el)} {name}=\"{text}\">: expected an integer") from None


class _Doc:
    def __init__(self, root, path, warn):
        self.root, self.path, self.warn = root, path, warn
        self.ids = {el.get("id"): el for el in root.iter() if isinstance(el.tag, str) and el.get("id")}
        self.visits = 0
        self.meshes = {}

    def ref(self, url, el):
        if not url or not url.startswith("#") or url[1:] not in self.ids:
            raise FormatError(self.path, where(el), None, f"<{local_name(el)}> refers to {url!r}, which does not exist")
        return self.ids[url[1:]]

    def child(self, el, name):
        c = children(el, name)
        return c[0] if c else None


def _source_array(doc: _Doc, src) -> np.ndarray:
    """A ``<source>`` as an (n, stride) float array (its accessor's layout)."""
    arr_el = doc.child(src, "float_array")
    if arr_el is None:
        raise FormatError(doc.path, where(src), None, "<source> without <float_array>")
    data = _floats(arr_el, doc.path)
    acc = None
    tc = doc.child(src, "technique_common")
    if tc is not None:
        acc = doc.child(tc, "accessor")
    stride = _int_attr(doc, acc, "stride", 1) if acc is not None else 3
    count = _int_attr(doc, acc, "count", len(data) // max(stride, 1)) if acc is not None else len(data) // 3
    offset = _int_attr(doc, acc, "offset", 0) if acc is not None else 0
    if stride < 1 or offset < 0 or count < 0 or offset + count * stride > len(data):
        raise FormatError(doc.path, where(src), None,
                          f"<accessor> needs {offset + count * stride} values, <float_array> has {len(data)}")
    return data[offset:offset + count * stride].reshape(count, stride)


def _positions(doc: _Doc, mesh) -> np.ndarray:
    verts = doc.child(mesh, "vertices")
    if verts is None:
        raise FormatError(doc.path, where(mesh), None, "<mesh> without <vertices>")
    for inp in children(verts, "input"):
        if inp.get("semantic") == "POSITION":
            pos = _source_array(doc, doc.ref(inp.get("source"), inp))
            if pos.shape[1] < 3:
                raise FormatError(doc.path, where(inp), None, "POSITION source with fewer than 3 values per vertex")
            return pos[:, :3]
    raise FormatError(doc.path, where(verts), None, "<vertices> without a POSITION input")


def _primitive_faces(doc: _Doc, prim, nverts: int):
    """Triangles (indices into the positions) of one primitive set, or None to drop it."""
    kind = local_name(prim)
    if kind in ("lines", "linestrips"):
        return None
    inputs = children(prim, "input")
    stride = max((_int_attr(doc, i, "offset", 0) for i in inputs), default=0) + 1
    vin = [i for i in inputs if i.get("semantic") == "VERTEX"]
    if not vin:
        raise FormatError(doc.path, where(prim), None, f"<{kind}> without a VERTEX input")
    voff = _int_attr(doc, vin[0], "offset", 0)
    ps = children(prim, "p")

    def corners(p_el):
        idx = _ints(p_el, doc.path)
        if len(idx) % stride:
            raise FormatError(doc.path, where(p_el), None,
                              f"<p> has {len(idx)} indices, not a multiple of the {stride} inputs per corner")
        return idx.reshape(-1, stride)[:, voff]

    if kind == "triangles":
        v = np.concatenate([corners(p) for p in ps]) if ps else np.zeros(0, np.int64)
        f = v[:len(v) // 3 * 3].reshape(-1, 3)
    elif kind == "polylist":
        vc = doc.child(prim, "vcount")
        k = _ints(vc, doc.path) if vc is not None else np.zeros(0, np.int64)
        v = corners(ps[0]) if ps else np.zeros(0, np.int64)
        if k.sum() != len(v):
            raise FormatError(doc.path, where(prim), None,
                              f"<polylist>: <vcount> sums to {int(k.sum())} corners, <p> has {len(v)}")
        f = fan(k, v)[0]
    elif kind == "polygons":
        polys = [corners(p) for p in ps]
        f = fan(np.array([len(p) for p in polys], np.int64),
                np.concatenate(polys) if polys else np.zeros(0, np.int64))[0]
    elif kind == "trifans":
        f = np.concatenate([fan([len(c)], c)[0] for c in map(corners, ps)] or [np.zeros((0, 3), np.int64)])
    elif kind == "tristrips":
        f = np.concatenate([strip(c) for c in map(corners, ps)] or [np.zeros((0, 3), np.int64)])
    else:
        return None
    if len(f) and (f.min() < 0 or f.max() >= nverts):
        raise FormatError(doc.path, where(prim), None,
                          f"<{kind}>: vertex index {int(f.max() if f.max() >= nverts else f.min())} out of range "
                          f"({nverts} positions)")
    return f


def _material_color(doc: _Doc, material):
    """Diffuse colour of a ``<material>`` (None for a texture or no diffuse colour)."""
    inst = doc.child(material, "instance_effect")
    if inst is None:
        return None
    effect = doc.ids.get((inst.get("url") or "")[1:])
    if effect is None:
        return None
    for el in effect.iter():
        if isinstance(el.tag, str) and local_name(el) == "diffuse":
            color = doc.child(el, "color")
            if color is not None:
                c = _floats(color, doc.path, "a colour")
                if len(c) >= 3:
                    return tuple(list(c[:4]) + [1.0] * (4 - len(c[:4])))
    return None


_PRIMITIVES = ("triangles", "polylist", "polygons", "trifans", "tristrips", "lines", "linestrips")


def _mesh_data(doc: _Doc, geom):
    """(positions, [(faces, material symbol)]) of a ``<geometry>``, parsed once per file."""
    key = id(geom)
    if key not in doc.meshes:
        mesh = doc.child(geom, "mesh")
        if mesh is None:
            doc.warn(f"geometry {geom.get('id')!r} is not a <mesh> (skipped)", where(geom))
            doc.meshes[key] = (np.zeros((0, 3)), [])
        else:
            pos = _positions(doc, mesh)
            sets = []
            for prim in children(mesh):
                if local_name(prim) in _PRIMITIVES:
                    f = _primitive_faces(doc, prim, len(pos))
                    if f is not None:
                        sets.append((f, prim.get("material")))
            doc.meshes[key] = (pos, sets)
    return doc.meshes[key]


def _geometry_parts(doc: _Doc, geom, M, bindings):
    pos, sets = _mesh_data(doc, geom)
    if not sets:
        return []
    colors = []
    for _, symbol in sets:
        mat = bindings.get(symbol)
        colors.append(_material_color(doc, mat) if mat is not None else None)
    world = pos @ M[:3, :3].T + M[:3, 3]
    return [Part(world, [(f, c) for (f, _), c in zip(sets, colors)])]


def _node_matrix(doc: _Doc, node) -> np.ndarray:
    M = np.eye(4)
    for el in children(node):
        name = local_name(el)
        if name not in ("matrix", "translate", "rotate", "scale", "lookat", "skew"):
            continue
        v = _floats(el, doc.path)
        want = {"matrix": 16, "translate": 3, "rotate": 4, "scale": 3, "lookat": 9, "skew": 7}[name]
        if len(v) != want:
            raise FormatError(doc.path, where(el), None, f"<{name}> needs {want} numbers, found {len(v)}")
        T = np.eye(4)
        if name == "matrix":
            T = v.reshape(4, 4)
        elif name == "translate":
            T[:3, 3] = v
        elif name == "rotate":
            T[:3, :3] = axis_angle_to_matrix(v[:3] / max(np.linalg.norm(v[:3]), 1e-300), np.radians(v[3]))
        elif name == "scale":
            T[:3, :3] = np.diag(v)
        elif name == "lookat":
            eye, target, up = v[:3], v[3:6], v[6:]
            z = eye - target
            z /= np.linalg.norm(z)
            x = np.cross(up, z)
            x /= np.linalg.norm(x)
            T[:3, :3] = np.stack([x, np.cross(z, x), z], axis=1)
            T[:3, 3] = eye
        else:  # skew: angle (deg), rotation axis, translation axis
            a = np.tan(np.radians(v[0]))
            r = v[1:4] / max(np.linalg.norm(v[1:4]), 1e-300)
            t = v[4:7] / max(np.linalg.norm(v[4:7]), 1e-300)
            T[:3, :3] = np.eye(3) + a * np.outer(t, r)
        M = M @ T
    return M


def _bindings(doc: _Doc, inst):
    out = {}
    for el in inst.iter():
        if isinstance(el.tag, str) and local_name(el) == "instance_material":
            target = doc.ids.get((el.get("target") or "")[1:])
            if target is not None:
                out[el.get("symbol")] = target
    return out


MAX_INSTANCES = 20_000       # placed nodes: instance_node can multiply them exponentially


def _walk(doc: _Doc, node, parent, parts, depth):
    if depth > 200:
        raise FormatError(doc.path, where(node), None, "COLLADA nodes nested more than 200 deep (a cycle?)")
    doc.visits += 1
    if doc.visits > MAX_INSTANCES:
        raise FormatError(doc.path, where(node), None, f"more than {MAX_INSTANCES} node instances in the scene")
    M = parent @ _node_matrix(doc, node)
    for el in children(node):
        name = local_name(el)
        if name == "instance_geometry":
            parts += _geometry_parts(doc, doc.ref(el.get("url"), el), M, _bindings(doc, el))
        elif name == "instance_node":
            _walk(doc, doc.ref(el.get("url"), el), M, parts, depth + 1)
        elif name == "node":
            _walk(doc, el, M, parts, depth + 1)


def collada_parts(root, path: str, warn) -> list:
    """The placed mesh parts of a parsed COLLADA document (also usable for the COLLADA
    inside OpenRAVE ``.zae`` files)."""
    doc = _Doc(root, path, warn)
    for asset in children(root, "asset"):
        for unit in children(asset, "unit"):
            try:
                meter = float(unit.get("meter", "1"))
            except ValueError:
                meter = 1.0
            if meter != 1.0:
                warn(f"<unit meter=\"{unit.get('meter')}\"> is not applied (Klamp't ignores it too)", where(unit))
    parts = []
    scene = next(iter(children(root, "scene")), None)
    inst = next(iter(children(scene, "instance_visual_scene")), None) if scene is not None else None
    if inst is not None:
        vs = doc.ref(inst.get("url"), inst)
        for node in children(vs, "node"):
            _walk(doc, node, np.eye(4), parts, 0)
    else:
        for lib in children(root, "library_geometries"):
            for geom in children(lib, "geometry"):
                parts += _geometry_parts(doc, geom, np.eye(4), {})
    return parts


def parse_dae(path: str, warn=None) -> dict:
    warn = warn or (lambda msg, line=None: None)
    root = parse(path)
    if local_name(root) != "COLLADA":
        raise FormatError(path, where(root), None, f"not a COLLADA file (root element <{local_name(root)}>)")
    return assemble(collada_parts(root, path, warn))


def read_dae(path: str, ctx) -> TriangleMesh:
    check_readable(path)
    return lazy_mesh(path, lambda p: parse_dae(p, lambda m, line=None: ctx.warn(m, line)), "collada")


register(FormatInfo(
    name="collada", extensions=(".dae",), kinds=("geometry",),
    description="COLLADA meshes (read; node transforms applied, parts kept in order)",
    ecosystem="meshes", sniff=lambda head, path: b"<COLLADA" in head, read=read_dae))
