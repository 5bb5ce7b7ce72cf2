"""Reading the files that other files reference (world -> robot, robot -> mount, link ->
mesh), for every ecosystem.

* :func:`read_file` reads a referenced file through the registry with a child context,
  charging the load's file budget and refusing reference cycles;
* :func:`load_geometry` reads a geometry file once per load and hands out independent
  copies (lazy meshes parse their file at most once);
* :func:`load_geometry_ref` turns a reference as written in a file into a geometry: empty,
  inline (a parser registered by an ecosystem with :func:`register_inline_geometry`, e.g.
  Klamp't's ``{TypeName ...}`` streams), or a file found by :func:`roboio.resolve.resolve`
  from the referring file, the context's search roots and ``package://`` directories.
"""
from __future__ import annotations

import importlib
import os
import stat
from typing import Callable, Optional, Union

from ..context import LoadContext
from . import registry
from .fileio import check_regular_input

__all__ = ["read_file", "realpath", "load_geometry", "load_geometry_ref", "charge_geometry_copy",
           "register_inline_geometry",
           "resolve_reference"]

# (opening, closing, parser or "module:function"): parse(text_inside, ctx, line) -> Geometry
_INLINE: list = []


def register_inline_geometry(opening: str, closing: str, parser: Union[str, Callable]) -> None:
    """Declare an inline-geometry syntax: a reference ``opening ... closing`` is parsed by
    ``parser(inner_text, ctx, line=...)`` instead of being looked up as a file."""
    entry = (opening, closing, parser)
    if entry not in _INLINE:
        _INLINE.append(entry)


def _inline_parser(ref: str) -> Optional[tuple]:
    registry.ensure_loaded()     # the ecosystems declare their syntaxes when imported
    for opening, closing, parser in _INLINE:
        if ref.startswith(opening) and ref.endswith(closing) and len(ref) >= len(opening) + len(closing):
            if isinstance(parser, str):
                module, _, func = parser.partition(":")
                parser = getattr(importlib.import_module(module), func)
            return parser, ref[len(opening):len(ref) - len(closing)]
    return None


def read_file(path: str, ctx: LoadContext, kinds: Optional[tuple] = None, format: Optional[str] = None,
              realpath: Optional[str] = None):
    """Read a file referenced from another with a child context; detects reference cycles
    and charges the ``files`` budget (``realpath``: ``os.path.realpath(path)`` if known)."""
    path = os.fspath(path)
    key = realpath if realpath is not None else os.path.realpath(path)
    if key in ctx.stack:
        raise ctx.error(f"{path} includes itself (reference cycle)")
    ctx.check_depth(len(ctx.stack) + 1, what=f"files including files, at {path}")
    ctx.charge("files", 1, what=f"opening {path}")
    if os.path.exists(path):
        check_regular_input(path)
    ctx.note_file(path)
    info = registry.find_reader(path, format, kinds)
    ctx.stack.append(key)
    try:
        return info.read(path, ctx.child(path))
    finally:
        ctx.stack.pop()


def realpath(path: str, ctx: LoadContext) -> str:
    """``os.path.realpath(path)``, remembering the real path of every directory on the way
    for the rest of the load: a robot's files share most of their directories, so a new file
    costs one ``lstat`` (its own) instead of one per component. Paths that are not absolute
    and normalised, and any path through a symbolic link, take ``os.path.realpath``."""
    if os.sep != "/" or not path.startswith("/"):
        return os.path.realpath(path)
    parts = path.split("/")
    if "" in parts[1:] or "." in parts or ".." in parts:      # "//", "/./", "/../", "x/"
        return os.path.realpath(path)
    memo = ctx.cache.get(_REALPATHS)
    if memo is None:
        memo = ctx.cache[_REALPATHS] = {"/": "/"}
    return _real(path, memo)


_REALPATHS = ("realpaths",)


def _real(path: str, memo: dict) -> str:
    """Real path of an absolute normalised ``path`` through ``memo`` (path -> real path):
    its directory's real path, then its own name unless that is a symbolic link (a missing
    name is kept, as realpath keeps it)."""
    real = memo.get(path)
    if real is not None:
        return real
    parent, base = path.rsplit("/", 1)
    real_parent = _real(parent or "/", memo)
    cand = (real_parent if real_parent != "/" else "") + "/" + base
    try:
        link = stat.S_ISLNK(os.lstat(cand).st_mode)
    except OSError:
        link = False
    real = memo[path] = os.path.realpath(path) if link else cand
    return real


def load_geometry(path: str, ctx: LoadContext, format: Optional[str] = None):
    """Load a geometry file (lazily for meshes). Results are cached per resolved path and
    returned as independent copies sharing nothing mutable.

    A mesh whose format reads lazily (:attr:`~roboio.formats.registry.FormatInfo.lazy`) and
    is known from the file name is not opened here unless ``ctx.check_meshes``: its reader
    (header check included) runs at the mesh's first use, where a broken file raises its
    FormatError. The file is still charged to the load's ``files`` budget now."""
    info = None if ctx.check_meshes else registry.lazy_mesh_reader(path, format)
    if info is not None:
        # (a mesh includes nothing: no cycle to detect, so the path as found is key enough)
        key = ("deferred", path, info.name)
        loader = ctx.cache.get(key)
        if loader is None:
            loader = ctx.cache[key] = _deferred_read(path, info, ctx)
        from ..model import GeometrySource, TriangleMesh
        return TriangleMesh(loader=loader, source=GeometrySource(path, path, info.name))
    real = realpath(path, ctx)
    key = ("geometry", real, format)
    cached = ctx.cache.get(key)
    if cached is None:
        cached = read_file(path, ctx, kinds=("geometry",), format=format, realpath=real)
        _share_parse(cached, ctx)
        ctx.cache[key] = cached
        return cached.copy()
    copied = cached.copy()
    charge_geometry_copy(copied, ctx, path)     # parsed when read: copies are charged here
    return copied


def _deferred_read(path: str, info, ctx: LoadContext) -> "_DeferredRead":
    """The loader shared by the meshes of ``path``: its first call runs ``info``'s reader
    (what :func:`read_file` would have run now); the file is charged as :func:`read_file`
    charges it."""
    ctx.check_depth(len(ctx.stack) + 1, what=f"files including files, at {path}")
    ctx.charge("files", 1, what=f"opening {path}")
    ctx.note_file(path)
    return _DeferredRead(path, info, ctx)


class _DeferredRead:
    """The loader of a deferred mesh and of every copy of it: the file is read (and checked)
    once, each call hands out its own arrays; calls after the first charge the load's
    vertices and triangles budget (a file used on ten links is ten meshes)."""

    __slots__ = ("path", "info", "ctx", "data")

    def __init__(self, path: str, info, ctx: LoadContext):
        self.path, self.info, self.ctx, self.data = path, info, ctx, None

    def __call__(self) -> dict:
        if self.data is None:
            if os.path.exists(self.path):
                check_regular_input(self.path)
            m = self.info.read(self.path, self.ctx.child(self.path)).load()   # (charges it)
            self.data = {"vertices": m.vertices, "faces": m.faces, "face_colors": m.face_colors,
                         "vertex_colors": m.vertex_colors, "extras": dict(m.extras)}
        else:
            self.ctx.charge("vertices", len(self.data["vertices"]), path=self.path,
                            what="mesh vertices (copies of one file included)")
            self.ctx.charge("triangles", len(self.data["faces"]), path=self.path,
                            what="mesh triangles (copies of one file included)")
        return {k: (v.copy() if hasattr(v, "copy") else v) for k, v in self.data.items()}


def _share_parse(geom, ctx: LoadContext) -> None:
    """Make every copy of a lazy mesh parse its file at most once: the loader is memoised
    and hands each copy its own arrays (each copy after the first is charged to the load's
    vertices and triangles: a file referenced ten thousand times is ten thousand meshes)."""
    from ..model import Group, TriangleMesh
    stack = [geom]
    while stack:
        g = stack.pop()
        if isinstance(g, Group):
            stack.extend(g.children)
        elif isinstance(g, TriangleMesh) and not g.is_loaded:
            g._loader = _memoised(g._loader, ctx, g.source.path if g.source else None)


def charge_geometry_copy(geom, ctx: LoadContext, path=None) -> None:
    """Charge a copy of already parsed geometry (meshes, point clouds) to the load's
    vertices and triangles budget, as if its file had been read again; lazy meshes not yet
    parsed are charged when they are (see :func:`load_geometry`)."""
    from ..model import Group, PointCloud, TriangleMesh
    stack = [geom]
    while stack:
        g = stack.pop()
        if isinstance(g, Group):
            stack.extend(g.children)
        elif isinstance(g, TriangleMesh) and g.is_loaded:
            ctx.charge("vertices", len(g.vertices), path=path, what="mesh vertices (copies included)")
            ctx.charge("triangles", len(g.faces), path=path, what="mesh triangles (copies included)")
        elif isinstance(g, PointCloud):
            ctx.charge("vertices", len(g.points), path=path, what="point cloud points (copies included)")


def _memoised(loader, ctx: LoadContext, path):
    result = []

    def once():
        if not result:
            result.append(loader())
        else:
            ctx.charge("vertices", len(result[0].get("vertices", ())), path=path,
                       what="mesh vertices (copies of one file included)")
            ctx.charge("triangles", len(result[0].get("faces", ())), path=path,
                       what="mesh triangles (copies of one file included)")
        return {k: (v.copy() if hasattr(v, "copy") else v) for k, v in result[0].items()}

    return once


def resolve_reference(reference: str, referring_file, ctx: LoadContext, roots=(), packages=None):
    """:func:`roboio.resolve.resolve` with the context's search roots and package
    directories appended to ``roots``/``packages``."""
    from ..resolve import resolve
    roots = list(roots) + [r for r in ctx.search_paths if r not in roots]
    if packages is None:
        packages = ctx.package_dirs
    return resolve(reference, referring_file, roots, packages)


def missing_file_hint(reference: str):
    """The option that lets a load find the missing file ``reference``: ``--package-path
    DIR`` for a ``package://`` reference, ``--data-path DIR`` for a relative one (OpenRAVE
    data directories, ``$GRASPIT``), None for an absolute path."""
    from ..errors import HINT_DATA_PATH, HINT_PACKAGE_PATH
    ref = reference.strip()
    if ref.startswith("package://"):
        return HINT_PACKAGE_PATH
    if ref.startswith("file://") or os.path.isabs(ref):
        return None
    return HINT_DATA_PATH


def load_geometry_ref(reference: str, referring_file: str, ctx: LoadContext, *, line=None,
                      roots=(), packages=None, format: Optional[str] = None):
    """Load the geometry a file refers to:

    * ``""`` -> None (no geometry);
    * an inline syntax registered with :func:`register_inline_geometry` -> its parser;
    * otherwise a file resolved relative to ``referring_file`` (then ``roots``, the
      context's search paths, ``packages``). A missing file is a FormatError in strict mode,
      else a warning and an empty geometry with ``missing=True`` that remembers the reference.
    """
    from ..model import GeometrySource, TriangleMesh
    ref = reference.strip()
    if not ref:
        return None
    inline = _inline_parser(ref)
    if inline is not None:
        parser, inner = inline
        g = parser(inner, ctx, line=line)
        g.source = GeometrySource(reference, None, "inline")
        return g
    res = resolve_reference(ref, referring_file, ctx, roots, packages)
    if not res:
        ctx.warn(f"geometry file {ref!r} not found (looked for: {res.describe_tried()})", line,
                 kind="missing file", hint=missing_file_hint(ref))
        return TriangleMesh(source=GeometrySource(reference, None, None), missing=True)
    if res.note:
        ctx.warn(res.note, line, kind="guessed")
    g = load_geometry(res.path, ctx, format)
    if g.source is None:
        g.source = GeometrySource(reference, res.path, None)
    else:
        g.source = GeometrySource(reference, res.path, g.source.format)
    return g
