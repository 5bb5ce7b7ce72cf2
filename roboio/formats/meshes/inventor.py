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
warning. Node semantics, triangulation and tessellation: :mod:`._iv_scene`, :mod:`._iv_shapes`,
:mod:`._tessellate`.
"""
from __future__ import annotations

import os

import numpy as np

from ...errors import FormatError
from ...context import LoadContext
from ...model import GeometrySource, TriangleMesh
from ...resolve import resolve
from ..fileio import read_text
from ..registry import FormatInfo, register
from ._iv_binary import parse_binary
from ._iv_parse import Header, Scene, parse_text, read_header, report_notes
from ._iv_scene import build_mesh, build_node_mesh, find_named

__all__ = ["read", "sniff", "load_scene", "mesh_data", "file_header", "node_mesh"]

VRML_EXTENSIONS = (".wrl", ".wrl.or", ".vrml")


def _header_of(data: bytes, path: str):
    """(Header, error message) for a file starting with ``data``."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    first = data.split(b"\n", 1)[0].decode("latin-1").rstrip("\r")
    header = read_header(first)
    if header is not None:
        if header.dialect != "inventor" and header.version not in (1.0, 2.0):
            return None, f"unsupported VRML version in header {first!r}"
        if header.encoding not in ("ascii", "binary", "utf8"):
            return None, f"unsupported encoding in header {first!r}"
        if header.dialect != "inventor" and header.encoding == "binary":
            return None, f"binary VRML is not supported ({first!r})"
        return header, None
    if first.startswith("#Inventor") or first.startswith("#VRML") or first.startswith("#X3D"):
        return None, f"unsupported header {first!r} (expected '#Inventor V2.1 ascii', " \
                     "'#VRML V1.0 ascii' or '#VRML V2.0 utf8')"
    if path.lower().endswith(VRML_EXTENSIONS):
        return Header("vrml2", 2.0, "utf8", ""), None
    return None, ("not an Open Inventor file: the first line must be a header such as "
                  "'#Inventor V2.1 ascii' or '#VRML V2.0 utf8'")


def file_header(path: str) -> Header:
    """The dialect of ``path`` from its first line (FormatError if it has no usable one)."""
    with open(path, "rb") as f:
        head = f.read(256)
    header, problem = _header_of(head, path)
    if header is None:
        raise FormatError(path, 1, 1, problem)
    return header


def sniff(head: bytes, path: str) -> bool:
    header, _ = _header_of(head, path)
    if header is None:
        return False
    if header.text:
        return True
    # headerless VRML 2.0: accept text whose first statement looks like a node
    text = head.decode("latin-1").lstrip("\ufeff\r\n\t ,")
    while text.startswith("#"):
        text = text.split("\n", 1)[1].lstrip("\r\n\t ,") if "\n" in text else ""
    word = text.split(None, 1)[0] if text.split() else ""
    return word in ("DEF", "Transform", "Group", "Shape", "Collision", "Switch", "Inline",
                    "Anchor", "Billboard", "LOD", "PROTO", "WorldInfo", "Viewpoint",
                    "NavigationInfo", "Background")


def load_scene(path: str, ctx: LoadContext) -> Scene:
    """Parse ``path`` (ASCII or binary) into a :class:`Scene`; parse warnings go to ``ctx``.
    Parsed scenes are cached in ``ctx.cache`` for the duration of one load."""
    key = ("inventor-scene", os.path.realpath(path))
    scene = ctx.cache.get(key)
    if scene is not None:
        return scene
    with open(path, "rb") as f:
        data = f.read()
    header, problem = _header_of(data[:256], path)
    if header is None:
        raise FormatError(path, 1, 1, problem)
    if header.encoding == "binary":
        scene = parse_binary(data, path, header)
    else:
        scene = parse_text(read_text(path), path, header)
    report_notes(scene, ctx)
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


register(FormatInfo(
    name="inventor", extensions=(".iv",), kinds=("geometry",), ecosystem="meshes",
    description="Open Inventor scene (ASCII V1.0/V2.0/V2.1, binary V2.x; VRML text by header), "
                "read as one triangle mesh",
    sniff=sniff, read=read))

register(FormatInfo(
    name="vrml", extensions=VRML_EXTENSIONS, kinds=("geometry",), ecosystem="meshes",
    description="VRML 1.0 / VRML 2.0 (VRML97) scene, header line optional for 2.0, read as one "
                "triangle mesh",
    sniff=sniff, read=read))
