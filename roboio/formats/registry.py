"""The one table of file formats.

Each format module registers a :class:`FormatInfo` (name, extensions, kinds, ``sniff``,
``read``, ``write``). :func:`find_reader` picks a format by extension, then by content;
:func:`find_writer` by name or extension and the type of object to write. Nothing else in
roboio branches on formats.

Reader signature: ``read(path: str, ctx: LoadContext) -> object``.
Writer signature: ``write(obj, path: str, report: ConversionReport) -> None``; writers
write atomically (see :func:`roboio.formats.fileio.atomic_write`).
Sniff signature: ``sniff(head: bytes, path: str) -> bool`` where ``head`` is the first
4 KiB of the file.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..errors import FormatError, LoadContext

__all__ = ["FormatInfo", "register", "formats", "get", "find_reader", "find_writer",
           "read_file", "load_geometry", "load_geometry_ref", "HEAD_BYTES"]

HEAD_BYTES = 4096


@dataclass(frozen=True)
class FormatInfo:
    """One file format. ``kinds`` name what it holds (``robot``, ``world``, ``rigid_object``,
    ``terrain``, ``geometry``, ``trajectory``, ``multipath``, ``body_motion``, ...);
    ``writes`` the model classes its writer accepts."""

    name: str
    extensions: tuple
    kinds: tuple
    description: str = ""
    ecosystem: str = ""
    sniff: Optional[Callable[[bytes, str], bool]] = None
    read: Optional[Callable[[str, LoadContext], Any]] = None
    write: Optional[Callable[[Any, str, Any], None]] = None
    writes: tuple = field(default_factory=tuple)
    priority: int = 0          # among formats that sniff True, higher wins

    @property
    def can_read(self) -> bool:
        return self.read is not None

    @property
    def can_write(self) -> bool:
        return self.write is not None

    def matches_extension(self, path: str) -> int:
        """Length of the longest of our extensions that ``path`` ends with (0 = none)."""
        low = path.lower()
        return max((len(e) for e in self.extensions if low.endswith(e.lower())), default=0)


_FORMATS: dict[str, FormatInfo] = {}


def register(info: FormatInfo) -> FormatInfo:
    if info.name in _FORMATS and _FORMATS[info.name] != info:
        raise ValueError(f"format {info.name!r} registered twice")
    _FORMATS[info.name] = info
    return info


def _ensure_loaded():
    from . import _all  # noqa: F401  (imports every format module, which register)


def formats() -> list[FormatInfo]:
    """Every registered format, sorted by ecosystem then name."""
    _ensure_loaded()
    return sorted(_FORMATS.values(), key=lambda f: (f.ecosystem, f.name))


def get(name: str) -> FormatInfo:
    _ensure_loaded()
    try:
        return _FORMATS[name]
    except KeyError:
        known = ", ".join(sorted(_FORMATS))
        raise ValueError(f"unknown format {name!r} (known: {known})") from None


def _head(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read(HEAD_BYTES)


def find_reader(path: str, format: Optional[str] = None, kinds: Optional[tuple] = None) -> FormatInfo:
    """The format to read ``path`` with: ``format`` if given, else by extension and content.

    ``kinds`` restricts the choice (e.g. ``("geometry",)`` when a robot references a mesh,
    so that ``x.obj`` is read as a Wavefront mesh, not a Klamp't rigid object).
    """
    _ensure_loaded()
    if format is not None:
        info = get(format)
        if not info.can_read:
            raise ValueError(f"format {format!r} cannot be read")
        return info
    readers = [f for f in _FORMATS.values() if f.can_read and (kinds is None or set(f.kinds) & set(kinds))]
    by_ext = [f for f in readers if f.matches_extension(path)]
    by_ext.sort(key=lambda f: (-f.matches_extension(path), -f.priority))
    head = None
    if len(by_ext) == 1 and by_ext[0].sniff is None:
        return by_ext[0]
    if by_ext:
        head = _head(path)
        longest = by_ext[0].matches_extension(path)
        for f in by_ext:
            if f.sniff is None or f.sniff(head, path):
                return f
        # no content match: fall back to the most specific extension match of highest
        # priority (the ecosystem's native meaning of the extension), whose reader then
        # says where the file goes wrong
        top = [f for f in by_ext if f.matches_extension(path) == longest]
        if len(top) == 1 or top[0].priority > top[1].priority:
            return top[0]
    head = head if head is not None else _head(path)
    sniffers = sorted((f for f in readers if f.sniff is not None), key=lambda f: -f.priority)
    for f in sniffers:
        if f.sniff(head, path):
            return f
    what = f" as {'/'.join(kinds)}" if kinds else ""
    if by_ext:
        names = ", ".join(f.name for f in by_ext)
        raise FormatError(path, None, None, f"content matches none of the formats for its extension ({names})")
    raise FormatError(path, None, None, f"unknown file type{what}: no reader for this extension or content")


def find_writer(obj, path: str, format: Optional[str] = None,
                adaptable: Optional[Callable[[FormatInfo], bool]] = None) -> FormatInfo:
    """The format to write ``obj`` to ``path`` with (``format`` name, else extension).

    Among formats for the extension, one whose writer takes ``obj`` as it is wins; then one
    for which ``adaptable(info)`` says ``obj`` can be converted; then priority."""
    _ensure_loaded()
    if format is not None:
        info = get(format)
        if not info.can_write:
            raise ValueError(f"format {format!r} cannot be written")
        return info
    cands = [f for f in _FORMATS.values() if f.can_write and f.matches_extension(path)]
    if not cands:
        raise ValueError(f"no writer for the extension of {path!r}; pass format=")
    def rank(f):
        if not f.writes or isinstance(obj, f.writes):
            return 0
        return 1 if adaptable is not None and adaptable(f) else 2
    cands.sort(key=lambda f: (-f.matches_extension(path), rank(f), -f.priority))
    return cands[0]


def read_file(path: str, ctx: LoadContext, kinds: Optional[tuple] = None, format: Optional[str] = None):
    """Read a file referenced from another (world -> robot, robot -> mount) with a child
    context; detects reference cycles."""
    path = os.fspath(path)
    key = os.path.realpath(path)
    if key in ctx.stack:
        raise ctx.error(f"{path} includes itself (reference cycle)")
    info = find_reader(path, format, kinds)
    ctx.stack.append(key)
    try:
        return info.read(path, ctx.child(path))
    finally:
        ctx.stack.pop()


def load_geometry(path: str, ctx: LoadContext, format: Optional[str] = None):
    """Load a geometry file (lazily for meshes). Results are cached per resolved path and
    returned as independent copies sharing nothing mutable."""
    key = ("geometry", os.path.realpath(path), format)
    cached = ctx.cache.get(key)
    if cached is None:
        cached = read_file(path, ctx, kinds=("geometry",), format=format)
        _share_parse(cached)
        ctx.cache[key] = cached
    return cached.copy()


def _share_parse(geom) -> None:
    """Make every copy of a lazy mesh parse its file at most once: the loader is memoised
    and hands each copy its own arrays."""
    from ..model import Group, TriangleMesh
    if isinstance(geom, Group):
        for c in geom.children:
            _share_parse(c)
        return
    if not isinstance(geom, TriangleMesh) or geom.is_loaded:
        return
    loader = geom._loader
    result = []

    def once():
        if not result:
            result.append(loader())
        return {k: (v.copy() if hasattr(v, "copy") else v) for k, v in result[0].items()}

    geom._loader = once


def load_geometry_ref(reference: str, referring_file: str, ctx: LoadContext, *, line=None,
                      roots=(), packages=None, format: Optional[str] = None):
    """Load the geometry a file refers to, as Klamp't-style references work everywhere:

    * ``""`` -> None (no geometry);
    * ``{TypeName data...}`` -> inline geometry stream (Klamp't, see
      :func:`roboio.formats.klampt.geom.parse_stream`);
    * otherwise a file resolved relative to ``referring_file`` (then ``roots``,
      ``packages``). A missing file is a FormatError in strict mode, else a warning and an
      empty geometry with ``missing=True`` that remembers the reference.
    """
    from ..model import GeometrySource, TriangleMesh
    from ..resolve import resolve
    ref = reference.strip()
    if not ref:
        return None
    if ref.startswith("{") and ref.endswith("}"):
        from .klampt.geom import parse_stream
        g = parse_stream(ref[1:-1], ctx, line=line)
        g.source = GeometrySource(reference, None, "inline")
        return g
    res = resolve(ref, referring_file, roots, packages)
    if not res:
        ctx.warn(f"geometry file {ref!r} not found (looked for: {res.describe_tried()})", line)
        return TriangleMesh(source=GeometrySource(reference, None, None), missing=True)
    if res.note:
        ctx.warn(res.note, line)
    g = load_geometry(res.path, ctx, format)
    if g.source is None:
        g.source = GeometrySource(reference, res.path, None)
    else:
        g.source = GeometrySource(reference, res.path, g.source.format)
    return g
