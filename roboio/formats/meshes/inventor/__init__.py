"""Open Inventor (``.iv``) and VRML (``.wrl``, ``.vrml``, OpenRAVE's ``.wrl.or``) geometry.

One reader for the dialects GraspIt!, OpenRAVE, Choreonoid and Klamp't models use, told
apart by the first line, not by the extension (some ``.iv`` files hold VRML):

* ``#Inventor V1.0 ascii`` / ``V2.0`` / ``V2.1`` (and ``V2.x binary``) -- Open Inventor,
* ``#VRML V1.0 ascii`` -- read like Inventor (same nodes and traversal state),
* ``#VRML V2.0 utf8`` -- VRML97; a ``.wrl``/``.vrml`` file without a header line is read as
  VRML 2.0 (Choreonoid's files), a headerless ``.iv`` is refused (Coin refuses it too).

A file becomes **one** :class:`~roboio.model.TriangleMesh`: every shape, transformed into
the file's frame, concatenated in traversal order (coordinates kept as written, no vertex
merging), with per-triangle colours when the file gives materials. Units in the file are
not converted (GraspIt! files are in millimetres, OpenRAVE scales per reference): callers
put that scale into ``geometry.transform``.

Loading is lazy: :func:`read` only checks the header; the file is parsed the first time the
mesh's vertices or faces are read. ``File { name "..." }`` (Inventor), ``WWWInline`` (VRML
1.0) and ``Inline { url ... }`` (VRML 2.0) include other files, relative to the including
file; a file that (indirectly) includes itself is a :class:`FormatError`, a missing one a
warning. Node semantics, triangulation and tessellation: :mod:`._scene`, :mod:`._shapes`,
:mod:`roboio.model.tessellate`.
"""
from __future__ import annotations

import os

import numpy as np

from ....errors import FormatError
from ....context import LoadContext
from ....model import GeometrySource, TriangleMesh
from ....resolve import resolve
from .... import transforms
from ...fileio import as_bytes, decode_text, read_bytes
from ...loading import missing_file_hint
from ...meshfile import parsed_mesh
from .._sniff import VRML_EXTENSIONS, inventor_header_of
from .._sniff import sniff_inventor as sniff
from ._binary import parse_binary
from ._parse import Header, Node, Scene, parse_text, report_notes
from ._scene import build_mesh, build_node_mesh, build_nodes_mesh, find_named, transform_matrix

__all__ = ["sniff", "loads", "read", "parse_scene", "load_scene", "mesh_data", "file_header",
           "node_mesh", "nodes_mesh", "transform_matrix", "VRML_EXTENSIONS"]


def file_header(path: str) -> Header:
    """The dialect of ``path`` from its first line (FormatError if it has no usable one)."""
    with open(path, "rb") as f:
        head = f.read(256)
    return _header(head, path)


def _header(head: bytes, path) -> Header:
    header, problem = inventor_header_of(head, path)
    if header is None:
        raise FormatError(path, 1, 1, problem)
    return header


def parse_scene(data: bytes, path, ctx: LoadContext, protos: bool = False) -> Scene:
    """Parse Inventor/VRML data (ASCII or binary) into a :class:`Scene`; parse warnings go
    to ``ctx``. ``protos``: keep VRML 2.0 PROTO interfaces and parse their instances as
    nodes (see :func:`._parse.parse_text`) instead of skipping them."""
    header = _header(data[:256], path)
    if header.encoding == "binary":
        scene = parse_binary(data, path, header, ctx.limits.max_depth)
    else:
        scene = parse_text(decode_text(data), path, header, ctx.limits.max_depth, protos)
    report_notes(scene, ctx)
    return scene


def load_scene(path: str, ctx: LoadContext) -> Scene:
    """Parse ``path`` (ASCII or binary) into a :class:`Scene`; parse warnings go to ``ctx``.
    Parsed scenes are cached in ``ctx.cache`` for the duration of one load."""
    key = ("inventor-scene", os.path.realpath(path))
    scene = ctx.cache.get(key)
    if scene is not None:
        return scene
    scene = parse_scene(read_bytes(path, ctx, document=False), path, ctx)
    ctx.cache[key] = scene
    return scene


class _Includes:
    """Resolves ``File``/``Inline`` references during one mesh build, refusing cycles."""

    def __init__(self, root_path: str, ctx: LoadContext):
        self.ctx = ctx
        self.stack = [os.path.realpath(root_path)]
        self.chain = [root_path]
        self.warned: set = set()

    def warn(self, message: str, node, **kind):
        line, col = node.source.where(node.offset)
        key = (node.source.path, message)
        if key not in self.warned:
            self.warned.add(key)
            self.ctx.warn(message, line, col, path=node.source.path, **kind)

    def __call__(self, reference, node, field: str, visit):
        refs = [reference] if isinstance(reference, str) else list(reference)
        line, col = node.source.where(node.field_offsets.get(field, node.offset))
        if not any(r.strip() for r in refs):
            self.ctx.warn(f"{node.type} without a file name; nothing included", line, col,
                          path=node.source.path, kind="empty")
            return
        tried = []
        for ref in refs:
            ref = ref.strip()
            res = _resolve_include(ref, node)
            if res is None:
                tried.append(ref + " (not a local file)")
                continue
            if not res:
                tried.extend(res.tried)
                continue
            if res.note:
                self.ctx.warn(res.note, line, col, path=node.source.path, kind="guessed")
            real = os.path.realpath(res.path)
            if real in self.stack:
                cycle = " -> ".join(self.chain + [res.path])
                raise FormatError(node.source.path, line, col,
                                  f"{node.type} {ref!r} includes a file that is already being "
                                  f"read (include cycle: {cycle})")
            scene = load_included(res.path, self.ctx, line)
            self.stack.append(real)
            self.chain.append(res.path)
            try:
                visit(scene)
            finally:
                self.stack.pop()
                self.chain.pop()
            return
        self.ctx.warn(f"{node.type} {' '.join(refs)!r}: file not found (tried {', '.join(tried)}); "
                      "its geometry is missing", line, col, path=node.source.path, kind="missing file", hint=missing_file_hint(refs[0]))


_INCLUDES = {"File": "name", "WWWInline": "name", "Inline": "url"}


def _resolve_include(ref: str, node):
    """Where an include reference points (a :class:`roboio.resolve.Resolution`), or None for
    a URL that is not a local file."""
    if "://" in ref and not ref.startswith("file://"):
        return None
    return resolve(ref, node.source.path)


def load_included(path: str, ctx: LoadContext, line=None) -> Scene:
    """An included scene: parsed once per load (cached), its file charged to ``max_files``."""
    key = ("inventor-scene", os.path.realpath(path))
    if key not in ctx.cache:
        ctx.charge("files", 1, line, what=f"opening {path}")
    return load_scene(path, ctx)


def expanded_nodes(scene: Scene, ctx: LoadContext) -> tuple:
    """``(visited, distinct)``: how many nodes a walk of ``scene`` visits, with DEF/USE copies
    and File/Inline includes expanded, and how many distinct nodes those are, computed on the
    node graph without expanding it (an upper bound: every child of a Switch or LOD counts).
    Includes are resolved and parsed (once each) as the walk would; one that cannot be found
    counts nothing, a cycle counts once (the walk reports it)."""
    size: dict = {}
    on_path: set = set()
    stack = [(node, False) for node in scene.roots]
    roots = list(scene.roots)
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            size[key] = 1 + sum(size.get(id(c), 0) for c in _kids(node, ctx))
            continue
        if key in size or key in on_path:
            continue
        on_path.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in _kids(node, ctx) if id(c) not in size)
    return sum(size.get(id(n), 0) for n in roots), len(size)


def _kids(node, ctx) -> list:
    """The nodes a walk enters from ``node``: its children, node-valued fields and, for an
    include, the roots of the included scene."""
    cached = getattr(node, "_kids", None)
    if cached is not None:
        return cached
    out = list(node.children)
    for v in node.fields.values():
        if isinstance(v, Node):
            out.append(v)
        elif isinstance(v, list) and v and isinstance(v[0], Node):
            out.extend(x for x in v if isinstance(x, Node))
    field = _INCLUDES.get(node.type)
    if field is not None:
        ref = node.get(field, "")
        for r in ([ref] if isinstance(ref, str) else list(ref)):
            res = _resolve_include(r.strip(), node) if r.strip() else None
            if res:
                line, _ = node.source.where(node.field_offsets.get(field, node.offset))
                out.extend(load_included(res.path, ctx, line).roots)
                break
    return out


def _build(scene: Scene, includes: "_Includes", ctx: LoadContext, what: str) -> dict:
    """Check the expanded size against the budget, then walk ``scene`` into mesh arrays."""
    visited, distinct = expanded_nodes(scene, ctx)
    ctx.charge("copies", visited - distinct, what=f"{what} copied by USE and File/Inline includes")
    ctx.charge("nodes", visited, what=f"{what} (DEF/USE and includes expanded)")
    data = build_mesh(scene, includes, includes.warn, ctx.limits.max_triangles, ctx.limits.max_depth)
    _charge_mesh(data, ctx)
    return data


def _charge_mesh(data: dict, ctx: LoadContext) -> None:
    ctx.charge("vertices", len(data["vertices"]), what="mesh vertices")
    ctx.charge("triangles", len(data["faces"]), what="mesh triangles")


def mesh_data(path: str, ctx: LoadContext) -> dict:
    """Parse ``path`` now and return the mesh arrays (``vertices``, ``faces`` and, when the
    file gives materials, ``face_colors``) -- the loader behind :func:`read`."""
    key = ("inventor-mesh", os.path.realpath(path))
    cached = ctx.cache.get(key)
    if cached is None:
        includes = _Includes(path, ctx)
        cached = _build(load_scene(path, ctx), includes, ctx, "Inventor/VRML nodes")
        ctx.cache[key] = cached
    return {k: np.array(v) for k, v in cached.items()}


def loads(data, ctx: LoadContext) -> TriangleMesh:
    """The mesh of Inventor/VRML data, parsed now; included files are found relative to
    ``ctx.path``."""
    data = as_bytes(data)
    path = ctx.path
    header = _header(data[:256], path)
    includes = _Includes(path or "", ctx)
    mesh = parsed_mesh(_build(parse_scene(data, path, ctx), includes, ctx, "Inventor/VRML nodes"),
                       path, "vrml" if header.dialect != "inventor" else "inventor")
    mesh.extras["dialect"] = header.text or "VRML V2.0 (no header line)"
    return mesh


def read(path: str, ctx: LoadContext) -> TriangleMesh:
    """A lazily loaded :class:`TriangleMesh` of ``path`` (header checked now)."""
    if os.path.isdir(path):
        raise FormatError(path, None, None, "is a directory, not a file")
    header = file_header(path)
    fmt = "vrml" if header.dialect != "inventor" else "inventor"
    mesh = TriangleMesh(loader=lambda: mesh_data(path, ctx), source=GeometrySource(path, path, fmt))
    mesh.extras["dialect"] = header.text or "VRML V2.0 (no header line)"
    return mesh


def nodes_mesh(nodes: list, matrix: np.ndarray, ctx: LoadContext) -> TriangleMesh:
    """A lazily built mesh of VRML 2.0 ``nodes`` (parsed nodes of one scene, e.g. the
    children of an OpenHRP ``Segment``), each placed by the 4x4 ``matrix``; ``Inline`` files
    are found relative to the nodes' own file. Shapes are built as the file reader builds
    them (colours kept); budget charged when the mesh is first used. The mesh has no
    ``source``: it is a part of its file, which writers must not reference as a whole."""
    nodes = [n for n in nodes if n is not None and not n.skipped]
    path = nodes[0].source.path if nodes else ctx.path

    def loader():
        includes = _Includes(path or "", ctx)
        data = build_nodes_mesh(nodes, matrix, includes, includes.warn, ctx.limits.max_triangles,
                                ctx.limits.max_depth)
        _charge_mesh(data, ctx)
        return data

    return TriangleMesh(loader=loader)


def node_mesh(path: str, ctx: LoadContext, name: str, compose=None, exclude=()) -> TriangleMesh:
    """A lazily loaded mesh of one node of a VRML 2.0 file: the first node ``DEF``-named
    ``name`` in a pre-order walk (Choreonoid's ``Resource { uri, node }``), less the nodes
    of its subtree ``DEF``-named in ``exclude``.

    ``compose(parent, local) -> 4x4`` places the node's contents: ``parent`` is the matrix
    of the node's parent frame in the file, ``local`` the node's own Transform (identity for
    other nodes). The default, ``compose(parent, local)`` (the product ``parent @ local``), keeps the node where the file puts it;
    a reader that follows another convention passes its own rule."""
    header = file_header(path)
    if header.dialect != "vrml2":
        raise FormatError(path, 1, 1, f"node {name!r}: picking one node needs a VRML 2.0 file, "
                                      f"this is {header.text}")
    compose = compose or transforms.compose

    def loader():
        found = find_named(load_scene(path, ctx), name)
        if found is None:
            raise FormatError(path, None, None, f"no node named {name!r} (DEF {name})")
        includes = _Includes(path, ctx)
        data = build_node_mesh(found[0], found[1], compose, includes, includes.warn,
                               ctx.limits.max_triangles, ctx.limits.max_depth, exclude)
        _charge_mesh(data, ctx)
        return data

    mesh = TriangleMesh(loader=loader, source=GeometrySource(path, path, "vrml"))
    mesh.extras["node"] = name
    return mesh
