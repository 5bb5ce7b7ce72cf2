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
from ...fileio import as_bytes, decode_text, read_bytes
from ...meshfile import parsed_mesh
from .._sniff import VRML_EXTENSIONS, inventor_header_of
from .._sniff import sniff_inventor as sniff
from ._binary import parse_binary
from ._parse import Header, Scene, parse_text, report_notes
from ._scene import build_mesh, build_node_mesh, find_named

__all__ = ["sniff", "loads", "read", "parse_scene", "load_scene", "mesh_data", "file_header",
           "node_mesh", "VRML_EXTENSIONS"]


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


def parse_scene(data: bytes, path, ctx: LoadContext) -> Scene:
    """Parse Inventor/VRML data (ASCII or binary) into a :class:`Scene`; parse warnings go
    to ``ctx``."""
    header = _header(data[:256], path)
    if header.encoding == "binary":
        scene = parse_binary(data, path, header)
    else:
        scene = parse_text(decode_text(data), path, header)
    report_notes(scene, ctx)
    return scene


def load_scene(path: str, ctx: LoadContext) -> Scene:
    """Parse ``path`` (ASCII or binary) into a :class:`Scene`; parse warnings go to ``ctx``.
    Parsed scenes are cached in ``ctx.cache`` for the duration of one load."""
    key = ("inventor-scene", os.path.realpath(path))
    scene = ctx.cache.get(key)
    if scene is not None:
        return scene
    scene = parse_scene(read_bytes(path), path, ctx)
    ctx.cache[key] = scene
    return scene


class _Includes:
    """Resolves ``File``/``Inline`` references during one mesh build, refusing cycles."""

    def __init__(self, root_path: str, ctx: LoadContext):
        self.ctx = ctx
        self.stack = [os.path.realpath(root_path)]
        self.chain = [root_path]
        self.warned: set = set()

    def warn(self, message: str, node):
        line, col = node.source.where(node.offset)
        key = (node.source.path, message)
        if key not in self.warned:
            self.warned.add(key)
            self.ctx.warn(message, line, col, path=node.source.path)

    def __call__(self, reference, node, field: str, visit):
        refs = [reference] if isinstance(reference, str) else list(reference)
        line, col = node.source.where(node.field_offsets.get(field, node.offset))
        if not any(r.strip() for r in refs):
            self.ctx.warn(f"{node.type} without a file name; nothing included", line, col,
                          path=node.source.path)
            return
        tried = []
        for ref in refs:
            ref = ref.strip()
            if "://" in ref and not ref.startswith("file://"):
                tried.append(ref + " (not a local file)")
                continue
            res = resolve(ref, node.source.path)
            if not res:
                tried.extend(res.tried)
                continue
            if res.note:
                self.ctx.warn(res.note, line, col, path=node.source.path)
            real = os.path.realpath(res.path)
            if real in self.stack:
                cycle = " -> ".join(self.chain + [res.path])
                raise FormatError(node.source.path, line, col,
                                  f"{node.type} {ref!r} includes a file that is already being "
                                  f"read (include cycle: {cycle})")
            scene = load_scene(res.path, self.ctx)
            self.stack.append(real)
            self.chain.append(res.path)
            try:
                visit(scene)
            finally:
                self.stack.pop()
                self.chain.pop()
            return
        self.ctx.warn(f"{node.type} {' '.join(refs)!r}: file not found (tried {', '.join(tried)}); "
                      "its geometry is missing", line, col, path=node.source.path)


def mesh_data(path: str, ctx: LoadContext) -> dict:
    """Parse ``path`` now and return the mesh arrays (``vertices``, ``faces`` and, when the
    file gives materials, ``face_colors``) -- the loader behind :func:`read`."""
    key = ("inventor-mesh", os.path.realpath(path))
    cached = ctx.cache.get(key)
    if cached is None:
        includes = _Includes(path, ctx)
        cached = build_mesh(load_scene(path, ctx), includes, includes.warn)
        ctx.cache[key] = cached
    return {k: np.array(v) for k, v in cached.items()}


def loads(data, ctx: LoadContext) -> TriangleMesh:
    """The mesh of Inventor/VRML data, parsed now; included files are found relative to
    ``ctx.path``."""
    data = as_bytes(data)
    path = ctx.path
    header = _header(data[:256], path)
    includes = _Includes(path or "", ctx)
    mesh = parsed_mesh(build_mesh(parse_scene(data, path, ctx), includes, includes.warn), path,
                       "vrml" if header.dialect != "inventor" else "inventor")
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


def node_mesh(path: str, ctx: LoadContext, name: str, compose=None) -> TriangleMesh:
    """A lazily loaded mesh of one node of a VRML 2.0 file: the first node ``DEF``-named
    ``name`` in a pre-order walk (Choreonoid's ``Resource { uri, node }``).

    ``compose(parent, local) -> 4x4`` places the node's contents: ``parent`` is the matrix
    of the node's parent frame in the file, ``local`` the node's own Transform (identity for
    other nodes). The default, ``parent @ local``, keeps the node where the file puts it;
    a reader that follows another convention passes its own rule."""
    header = file_header(path)
    if header.dialect != "vrml2":
        raise FormatError(path, 1, 1, f"node {name!r}: picking one node needs a VRML 2.0 file, "
                                      f"this is {header.text}")
    compose = compose or (lambda parent, local: parent @ local)

    def loader():
        found = find_named(load_scene(path, ctx), name)
        if found is None:
            raise FormatError(path, None, None, f"no node named {name!r} (DEF {name})")
        includes = _Includes(path, ctx)
        return build_node_mesh(found[0], found[1], compose, includes, includes.warn)

    mesh = TriangleMesh(loader=loader, source=GeometrySource(path, path, "vrml"))
    mesh.extras["node"] = name
    return mesh
