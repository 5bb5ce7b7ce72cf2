"""COLLADA (``.dae``) triangle meshes, read through trimesh (with pycollada).

trimesh's COLLADA loader (``trimesh.exchange.dae.load_collada``, broken references are
errors; see :mod:`._trimesh`) places every ``instance_geometry`` of the default visual scene
with its node's world transform (``matrix``, ``translate``, ``rotate``, ``scale``;
``instance_node`` and child nodes followed) and reads ``<triangles>``,
``<polylist>``, ``<polygons>``, ``<trifans>`` and ``<tristrips>``; ``<lines>`` are dropped.
Each primitive set of each instance is one part, in scene order (Klamp't, through Assimp,
loads them as a Group: ``extras["parts"]``); bound materials' diffuse colours become face
colours. As in Klamp't, ``<up_axis>`` is ignored and ``<unit meter>`` is not applied (a
warning says so when it is not 1): trimesh leaves both alone too.

Fidelity, compared with the file: pycollada reads numbers as float32, so positions and
node transforms are kept to float32 precision (about 1e-7 relative, as in Klamp't, whose
Assimp also uses float32); every triangle gets its own three vertices (the ``<p>`` index
sharing is not kept; the corners' positions are). A file without the COLLADA ``xmlns``
namespace or without ``<scene>``, with a
``<lookat>`` or ``<skew>`` node transform (pycollada builds no affine matrix from them) or
with an element pycollada rejects is a FormatError. A ``<sampler2D>`` whose surface its
effect does not declare is removed with a warning (pycollada would drop every geometry
whose material uses it; Assimp loses only the texture).

:func:`node_mesh` reads one node of the scene (Choreonoid's ``Resource { uri, node }``): the
node named so (its ``name``, else its ``id``) with its subtree, placed by the caller's rule.

Before trimesh runs, roboio parses the file with its hardened XML parser and refuses
documents with a DOCTYPE (pycollada's parser would expand entities), negative ``<p>``
indices (they would wrap around) and scenes that place more than :data:`MAX_INSTANCES`
nodes (``instance_node`` can multiply them exponentially) or instance a node within itself.
"""
from __future__ import annotations

import math

import numpy as np
from lxml import etree

from ... import transforms
from ...errors import FormatError
from ...model import TriangleMesh
from ..fileio import as_bytes
from ..meshfile import check_readable, lazy_mesh, parsed_mesh, read_bytes
from ..xmlutil import children, local_name, parse_bytes, where
from . import _trimesh
from ._sniff import sniff_collada as sniff

__all__ = ["sniff", "loads", "read", "node_mesh", "parse_dae", "parse_dae_bytes", "MAX_INSTANCES"]

MAX_INSTANCES = 20_000       # placed nodes


def _check(root, path: str, warn) -> None:
    """The guards run before pycollada sees the file (see the module docstring)."""
    if local_name(root) != "COLLADA":
        raise FormatError(path, where(root), None, f"not a COLLADA file (root element <{local_name(root)}>)")
    if not root.tag.startswith("{"):
        raise FormatError(path, where(root), None, "<COLLADA> without its xmlns namespace: not read "
                                                   "(pycollada finds no elements without it)")
    if root.getroottree().docinfo.doctype:
        raise FormatError(path, 1, None, "COLLADA file with a DOCTYPE: not read (entity declarations)")
    for asset in children(root, "asset"):
        for unit in children(asset, "unit"):
            try:
                meter = float(unit.get("meter", "1"))
            except ValueError:
                meter = 1.0
            if meter != 1.0:
                warn(f"<unit meter=\"{unit.get('meter')}\"> is not applied (Klamp't ignores it too)", where(unit), kind="ignored")
    for p in root.iter("{*}p"):
        if "-" in (p.text or ""):
            raise FormatError(path, where(p), None, "<p>: negative index")
    _count_instances(root, path)


def _count_instances(root, path: str) -> None:
    """FormatError when the default visual scene places more than MAX_INSTANCES nodes or a
    node instances itself."""
    nodes = {n.get("id"): n for n in root.iter("{*}node") if n.get("id")}
    counts, active = {}, set()      # keyed by element: holding it keeps lxml's proxy (and hash) alive

    def count(node, depth):
        if node in counts:
            return counts[node]
        if node in active:
            raise FormatError(path, where(node), None, "COLLADA node instanced within itself (a cycle)")
        if depth > 200:
            raise FormatError(path, where(node), None, "COLLADA nodes nested more than 200 deep")
        active.add(node)
        n = 1
        for child in children(node):
            name = local_name(child)
            if name == "node":
                n += count(child, depth + 1)
            elif name == "instance_node":
                target = nodes.get((child.get("url") or "")[1:])
                if target is not None:           # a broken reference is pycollada's error
                    n += count(target, depth + 1)
            if n > MAX_INSTANCES:
                raise FormatError(path, where(node), None, f"more than {MAX_INSTANCES} node instances in the scene")
        active.discard(node)
        counts[node] = n
        return n

    total = 0
    for scene in root.iter("{*}visual_scene"):
        for node in children(scene, "node"):
            total += count(node, 0)
            if total > MAX_INSTANCES:
                raise FormatError(path, where(node), None, f"more than {MAX_INSTANCES} node instances in the scene")


def _drop_broken_samplers(root, warn) -> bool:
    """Remove the ``<sampler2D>`` parameters whose ``<source>`` names no ``<newparam>`` of
    their effect (pycollada then drops the effect, its material and every geometry bound to
    it; Assimp, Klamp't's and pinocchio's reader, only loses the texture). Textures carry no
    colour roboio reads. Returns whether anything was removed."""
    changed = False
    for effect in root.iter("{*}effect"):
        params = list(effect.iter("{*}newparam"))
        sids = {p.get("sid") for p in params}
        for p in params:
            source = p.find("{*}sampler2D/{*}source")
            if source is not None and (source.text or "").strip() not in sids:
                warn(f"<sampler2D> '{p.get('sid')}' of effect '{effect.get('id')}' names a surface "
                     f"'{(source.text or '').strip()}' the effect does not declare: texture ignored "
                     "(as Assimp does)", where(p), kind="ignored")
                p.getparent().remove(p)
                changed = True
    return changed


# what COLLADA 1.4/1.5 allow among a <node>'s children; pycollada's strict reading fails on
# anything else ("No active exception to reraise"), Assimp skips it
_NODE_CHILDREN = {"asset", "lookat", "matrix", "rotate", "scale", "skew", "translate",
                  "instance_camera", "instance_controller", "instance_geometry", "instance_light",
                  "instance_node", "node", "extra"}


def _drop_unknown_node_children(root, warn) -> bool:
    """Remove elements a ``<node>`` cannot hold (warning once per name). Returns whether
    anything was removed."""
    seen: dict = {}
    for node in root.iter("{*}node"):
        for c in children(node):
            name = local_name(c)
            if name not in _NODE_CHILDREN:
                seen.setdefault(name, where(c))
                node.remove(c)
    for name, line in seen.items():
        warn(f"<{name}> inside <node> is not COLLADA: ignored (as Assimp, Klamp't's reader, does)", line)
    return bool(seen)


def _parse_tolerant(data: bytes, path, warn):
    """The document's root; XML that libxml2 reads only in recovery mode (a comment holding
    ``--``), which Assimp's reader loads, is recovered with a warning."""
    try:
        return parse_bytes(data, path, large_text=True)   # a whole mesh may sit in one <float_array>
    except FormatError as e:
        if not e.message.startswith("malformed XML: ") or "truncated" in e.message:
            raise
        root = parse_bytes(data, path, recover=True, large_text=True)
        warn(f"malformed XML ({e.message[len('malformed XML: '):]}); read what a tolerant parser "
             "recovers, as Assimp (Klamp't's reader) does", e.line)
        return root


def parse_dae_bytes(data: bytes, path, warn=None) -> dict:
    """The mesh dict of COLLADA data (see the module docstring)."""
    warn = warn or (lambda msg, line=None, **kind: None)
    root = _parse_tolerant(data, path, warn)
    _check(root, path, warn)
    # pycollada's strict reading trips over comments among a node's children (valkyrie's
    # head_camera.dae: "No active exception to reraise") and over unknown elements there;
    # the parsed tree has no comments, and unknown node children are dropped
    dropped = _drop_unknown_node_children(root, warn)
    if _drop_broken_samplers(root, warn) or dropped or b"<!--" in data:
        from lxml import etree
        data = etree.tostring(root.getroottree(), xml_declaration=True, encoding="utf-8")
    from trimesh.exchange.dae import load_collada
    scene = _trimesh.load(path, data, load_collada, "COLLADA", warn, resolver=None, ignore_broken=False,
                          process=False)
    return _trimesh.flatten(scene, path, "COLLADA", warn)


def _node_matrix(node, path: str) -> np.ndarray:
    """The 4x4 matrix of a ``<node>``'s own transform elements, composed in document order
    (``matrix`` row-major, ``translate``, ``rotate`` axis and degrees, ``scale``)."""
    M = np.eye(4)
    for c in children(node):
        kind = local_name(c)
        if kind not in ("matrix", "translate", "rotate", "scale", "lookat", "skew"):
            continue
        try:
            v = [float(x) for x in (c.text or "").split()]
        except ValueError:
            raise FormatError(path, where(c), None, f"<{kind}>: not numbers") from None
        size = {"matrix": 16, "translate": 3, "rotate": 4, "scale": 3}.get(kind)
        if size is None:
            raise FormatError(path, where(c), None, f"<{kind}>: not read when picking a node")
        if len(v) != size:
            raise FormatError(path, where(c), None, f"<{kind}> with {len(v)} numbers, not {size}")
        T = np.eye(4)
        if kind == "matrix":
            T = np.array(v).reshape(4, 4)
        elif kind == "translate":
            T[:3, 3] = v
        elif kind == "scale":
            T[:3, :3] = np.diag(v)
        else:
            T[:3, :3] = transforms.axis_angle_to_matrix(v[:3], math.radians(v[3]))[:3, :3]
        M = transforms.compose(M, T)
    return M


def _pick_node(root, path: str, name: str, compose, exclude) -> None:
    """Leave in the default visual scene only the node ``name`` (its ``name``, else its
    ``id``; the first in a pre-order walk), placed by ``compose(parent, local)``, without
    the nodes of its subtree named in ``exclude``."""
    scene = _default_visual_scene(root, path)
    found = _find_node(scene, "name", name, path) or _find_node(scene, "id", name, path)
    if found is None:
        raise FormatError(path, None, None, f"no node named {name!r}")
    node, parent = found
    placed = compose(parent, _node_matrix(node, path))
    for c in children(node):
        if local_name(c) in ("matrix", "translate", "rotate", "scale"):
            node.remove(c)
    for inner in list(node.iter("{*}node")):
        if inner is not node and (inner.get("name") or inner.get("id")) in exclude:
            inner.getparent().remove(inner)
    matrix = etree.Element(etree.QName(etree.QName(node).namespace, "matrix"))
    matrix.text = " ".join(repr(float(x)) for x in placed.reshape(-1))
    node.insert(0, matrix)
    for c in children(scene, "node"):
        scene.remove(c)
    scene.append(node)


def _find_node(scene, key: str, name: str, path: str):
    """``(node, matrix of its parent frame)`` of the first ``<node>`` whose ``key``
    attribute is ``name`` in a pre-order walk of ``scene``, or None."""
    stack = [(n, np.eye(4)) for n in reversed(children(scene, "node"))]
    while stack:
        node, M = stack.pop()
        if node.get(key) == name:
            return node, M
        inner = transforms.compose(M, _node_matrix(node, path))
        stack += [(c, inner) for c in reversed(children(node, "node"))]
    return None


def _default_visual_scene(root, path: str):
    """The visual scene ``<scene>`` instances (else the first one)."""
    scenes = list(root.iter("{*}visual_scene"))
    for inst in root.iter("{*}instance_visual_scene"):
        url = (inst.get("url") or "")[1:]
        for s in scenes:
            if s.get("id") == url:
                return s
    if not scenes:
        raise FormatError(path, where(root), None, "no <visual_scene>")
    return scenes[0]


def node_mesh(path: str, ctx, name: str, compose=None, exclude=()) -> TriangleMesh:
    """A lazily loaded mesh of one node of a COLLADA file (Choreonoid's ``Resource { uri,
    node }``): the node named ``name`` with its subtree, less the nodes named in
    ``exclude`` (which the caller takes out elsewhere), placed by ``compose(parent, local)``
    (``parent``: its ancestors' matrix; ``local``: its own transform; default: where the
    file puts it)."""
    check_readable(path)
    compose = compose or transforms.compose
    exclude = frozenset(exclude) - {name}

    def parse(p):
        data = read_bytes(p, ctx, document=False)
        root = _parse_tolerant(data, p, ctx.warn)
        _check(root, p, lambda *a, **k: None)       # the guards; parse_dae_bytes warns
        _pick_node(root, p, name, compose, exclude)
        return parse_dae_bytes(etree.tostring(root.getroottree(), xml_declaration=True,
                                              encoding="utf-8"), p, ctx.warn)
    mesh = lazy_mesh(path, parse, "collada", ctx=ctx)
    mesh.extras["node"] = name
    return mesh


def parse_dae(path: str, warn=None) -> dict:
    """The mesh dict of a COLLADA file."""
    return parse_dae_bytes(read_bytes(path), path, warn)


def loads(data, ctx) -> TriangleMesh:
    """The meshes of COLLADA data, parsed now, as one mesh."""
    return parsed_mesh(parse_dae_bytes(as_bytes(data), ctx.path, ctx.warn), ctx.path, "collada", ctx=ctx)


def read(path: str, ctx) -> TriangleMesh:
    """Lazy COLLADA mesh, parsed on first access."""
    check_readable(path)
    return lazy_mesh(path, lambda p: parse_dae_bytes(read_bytes(p, ctx, document=False), p, ctx.warn), "collada", ctx=ctx)
