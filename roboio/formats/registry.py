"""The one table of file formats.

Each ecosystem package declares its formats in its ``__init__.py`` with :func:`register`:
name, extensions, kinds, a cheap ``sniff`` and the entry points ``read``/``write``, given as
``"module:function"`` strings so that a format's code is imported only when that format is
used (callables are accepted too). :func:`find_reader` picks a format by extension, then by
content; :func:`find_writer` by name or extension and the type of object to write. Nothing
else in roboio branches on formats. This module is the table only: reading referenced files
is :mod:`roboio.formats.loading`.

Signatures of the entry points:

* ``sniff(head: bytes, path: str) -> bool``: ``head`` is the first :data:`HEAD_BYTES` bytes;
* ``read(path: str, ctx: LoadContext) -> object`` (``ctx.path`` is ``path``);
* ``write(obj, path: str, report: ConversionReport) -> None`` (atomic, see
  :func:`roboio.formats.fileio.atomic_write`).

They are functions of the format's entry module, which also has ``loads``/``dumps`` (the
package template: docs/development.md, "Adding a format"); :attr:`FormatInfo.module` names it.
"""
from __future__ import annotations

import importlib
import os
from typing import Any, Callable, Optional, Union

from ..errors import UnknownFileType

__all__ = ["FormatInfo", "register", "formats", "get", "find_reader", "find_writer",
           "lazy_mesh_reader", "HEAD_BYTES", "UnknownFormat"]

HEAD_BYTES = 4096

Entry = Union[None, str, Callable]


class UnknownFormat(ValueError):
    """A format name that no entry of the table has, or one that cannot read/write."""


def _resolve(entry: Entry):
    if entry is None or callable(entry):
        return entry
    module, _, func = entry.partition(":")
    if not func:
        raise ValueError(f"entry point {entry!r} must be 'module:function'")
    return getattr(importlib.import_module(module), func)


class FormatInfo:
    """One file format. ``kinds`` name what it holds (``robot``, ``world``, ``rigid_object``,
    ``terrain``, ``geometry``, ``trajectory``, ``multipath``, ``body_motion``, ...);
    ``writes`` the model classes its writer accepts; ``priority`` orders formats whose sniff
    both accept a file (higher wins). ``sniff``/``read``/``write`` are callables or
    ``"module:function"`` strings imported on first use. ``lazy``: ``read`` returns a
    :class:`~roboio.model.TriangleMesh` not yet loaded (it opens the file only to check its
    header), so a file referring to one may postpone the whole read to the mesh's first use
    (:func:`lazy_mesh_reader`)."""

    __slots__ = ("name", "extensions", "kinds", "description", "ecosystem", "_writes", "priority",
                 "lazy", "_entries", "_resolved")

    def __init__(self, name: str, extensions: tuple, kinds: tuple, description: str = "",
                 ecosystem: str = "", sniff: Entry = None, read: Entry = None,
                 write: Entry = None, writes: tuple = (), priority: int = 0, lazy: bool = False):
        self.name = name
        self.extensions = tuple(extensions)
        self.kinds = tuple(kinds)
        self.description = description
        self.ecosystem = ecosystem
        self._writes = tuple(writes)
        self.priority = priority
        self.lazy = bool(lazy)
        self._entries = {"sniff": sniff, "read": read, "write": write}
        self._resolved: dict = {}

    def _entry(self, key: str):
        if key not in self._resolved:
            self._resolved[key] = _resolve(self._entries[key])
        return self._resolved[key]

    @property
    def sniff(self) -> Optional[Callable[[bytes, str], bool]]:
        return self._entry("sniff")

    @property
    def read(self) -> Optional[Callable[[str, Any], Any]]:
        return self._entry("read")

    @property
    def write(self) -> Optional[Callable[[Any, str, Any], None]]:
        return self._entry("write")

    @property
    def writes(self) -> tuple:
        """Model classes the writer accepts (names given at registration are looked up in
        :mod:`roboio.model`)."""
        if any(isinstance(w, str) for w in self._writes):
            from .. import model
            self._writes = tuple(getattr(model, w) if isinstance(w, str) else w for w in self._writes)
        return self._writes

    @property
    def has_sniff(self) -> bool:
        return self._entries["sniff"] is not None

    @property
    def can_read(self) -> bool:
        return self._entries["read"] is not None

    @property
    def can_write(self) -> bool:
        return self._entries["write"] is not None

    @property
    def module(self) -> Optional[str]:
        """The module implementing the format (``roboio formats --verbose``)."""
        for key in ("read", "write", "sniff"):
            e = self._entries[key]
            if isinstance(e, str):
                return e.partition(":")[0]
            if e is not None:
                return getattr(e, "__module__", None)
        return None

    def _key(self):
        writes = tuple(w if isinstance(w, str) else w.__name__ for w in self._writes)
        return (self.name, self.extensions, self.kinds, self.description, self.ecosystem,
                writes, self.priority, self.lazy, tuple(self._entries.items()))

    def __eq__(self, other):
        return isinstance(other, FormatInfo) and self._key() == other._key()

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"FormatInfo({self.name!r}, {self.extensions}, {self.kinds})"

    def matches_extension(self, path: str) -> int:
        """Length of the longest of our extensions that ``path`` ends with (0 = none)."""
        low = path.lower()
        return max((len(e) for e in self.extensions if low.endswith(e.lower())), default=0)


_FORMATS: dict[str, FormatInfo] = {}


def register(info: FormatInfo) -> FormatInfo:
    if info.name in _FORMATS and _FORMATS[info.name] != info:
        raise ValueError(f"format {info.name!r} registered twice")
    _FORMATS[info.name] = info
    _BY_EXTENSION.clear()
    _LAZY_BY_EXTENSION.clear()
    return info


def ensure_loaded():
    """Import every ecosystem package (each registers its formats) once."""
    from . import _all  # noqa: F401


_ensure_loaded = ensure_loaded


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
        raise UnknownFormat(f"unknown format {name!r} (known: {known})") from None


def _head(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read(HEAD_BYTES)


# (dotted tail of the lowercased file name, kinds) -> readers whose extension the name ends
# with, most specific first: the part of find_reader that depends on the name only (a robot
# referencing 200 meshes asks 200 times)
_BY_EXTENSION: dict = {}


def _readers_by_extension(path: str, kinds: Optional[tuple]) -> list:
    base = os.path.basename(path).lower()
    dot = base.find(".")
    key = (base[dot:] if dot >= 0 else "", kinds)
    hit = _BY_EXTENSION.get(key)
    if hit is None:
        readers = [f for f in _FORMATS.values()
                   if f.can_read and (kinds is None or set(f.kinds) & set(kinds))]
        hit = [f for f in readers if f.matches_extension(path)]
        hit.sort(key=lambda f: (-f.matches_extension(path), -f.priority))
        if len(_BY_EXTENSION) > 4096:
            _BY_EXTENSION.clear()
        _BY_EXTENSION[key] = hit
    return list(hit)


def find_reader(path: str, format: Optional[str] = None, kinds: Optional[tuple] = None) -> FormatInfo:
    """The format to read ``path`` with: ``format`` if given, else by extension and content.

    ``kinds`` restricts the choice (e.g. ``("geometry",)`` when a robot references a mesh,
    so that ``x.obj`` is read as a Wavefront mesh, not a Klamp't rigid object).
    """
    _ensure_loaded()
    if format is not None:
        info = get(format)
        if not info.can_read:
            readable = ", ".join(sorted(f.name for f in _FORMATS.values() if f.can_read))
            raise UnknownFormat(f"format {format!r} cannot be read (readable: {readable})")
        return info
    by_ext = _readers_by_extension(path, kinds)
    head = None
    if len(by_ext) == 1:
        # the only format for the extension is chosen whatever its sniffer says (see the
        # fall-back below), so its content need not be read here
        return by_ext[0]
    if by_ext:
        head = _head(path)
        for f in by_ext:
            if not f.has_sniff or f.sniff(head, path):
                return f
    head = head if head is not None else _head(path)
    readers = [f for f in _FORMATS.values() if f.can_read and (kinds is None or set(f.kinds) & set(kinds))]
    # the content of another format under a shared extension (a URDF saved as robot.xml,
    # as xacro and ROS tools commonly name it): the format whose content it is
    sniffers = sorted((f for f in readers if f.has_sniff and f not in by_ext), key=lambda f: -f.priority)
    for f in sniffers:
        if f.sniff(head, path):
            return f
    if by_ext:
        # no content match at all: the most specific extension match of highest priority
        # (the ecosystem's native meaning of the extension), whose reader then says where
        # the file goes wrong
        longest = by_ext[0].matches_extension(path)
        top = [f for f in by_ext if f.matches_extension(path) == longest]
        if len(top) == 1 or top[0].priority > top[1].priority:
            return top[0]
    what = f" as {'/'.join(kinds)}" if kinds else ""
    if by_ext:
        names = ", ".join(f.name for f in by_ext)
        raise UnknownFileType(path, f"content matches none of the formats for its extension ({names})",
                              [(f.name, f.extensions) for f in by_ext])
    dot = os.path.basename(path).find(".", 1)
    ext = repr(os.path.basename(path)[dot:]) if dot > 0 else "none"
    # formats that know their files by extension only: the content cannot rule them out
    blind = sorted((f for f in readers if not f.has_sniff), key=lambda f: f.name)
    raise UnknownFileType(path, f"unknown file type{what}: no format has its extension ({ext}) "
                          "and no reader recognises its content", [(f.name, f.extensions) for f in blind])


def recognises(info: FormatInfo, path: str) -> bool:
    """Whether ``info``'s sniffer accepts the content of ``path`` (True for a format without
    one). :func:`find_reader` falls back to the extension when none does; directory walks
    use this to tell a file of a format from any file that merely shares its extension."""
    return not info.has_sniff or bool(info.sniff(_head(path), path))


def lazy_mesh_reader(path: str, format: Optional[str] = None) -> Optional[FormatInfo]:
    """The format that reads the mesh file ``path`` lazily (see :attr:`FormatInfo.lazy`)
    when its name decides it without reading the content (``format``, else the only geometry
    format for its extension); None otherwise (then :func:`find_reader` decides)."""
    if format is not None:
        _ensure_loaded()
        info = _FORMATS.get(format)
        return info if info is not None and info.lazy and info.can_read else None
    base = os.path.basename(path).lower()
    dot = base.find(".")
    key = base[dot:] if dot >= 0 else ""
    if key in _LAZY_BY_EXTENSION:         # (a robot asks once per mesh)
        return _LAZY_BY_EXTENSION[key]
    _ensure_loaded()
    by_ext = _readers_by_extension(path, ("geometry",))
    info = by_ext[0] if len(by_ext) == 1 else None
    info = info if info is not None and info.lazy and info.can_read else None
    if len(_LAZY_BY_EXTENSION) > 4096:
        _LAZY_BY_EXTENSION.clear()
    _LAZY_BY_EXTENSION[key] = info
    return info


_LAZY_BY_EXTENSION: dict = {}   # dotted tail of the lowercased name -> lazy_mesh_reader's answer


def find_writer(obj, path: str, format: Optional[str] = None,
                adaptable: Optional[Callable[[FormatInfo], bool]] = None) -> FormatInfo:
    """The format to write ``obj`` to ``path`` with (``format`` name, else extension).

    Among formats for the extension, one whose writer takes ``obj`` as it is wins; then one
    for which ``adaptable(info)`` says ``obj`` can be converted; then priority."""
    _ensure_loaded()
    if format is not None:
        info = get(format)
        if not info.can_write:
            writable = ", ".join(sorted(f.name for f in _FORMATS.values() if f.can_write))
            raise UnknownFormat(f"format {format!r} cannot be written (writable: {writable})")
        return info
    cands = [f for f in _FORMATS.values() if f.can_write and f.matches_extension(path)]
    if not cands:
        raise UnknownFormat(f"no writer for the extension of {path!r}; name a format "
                            "(--to FORMAT, or format= in Python)")

    def rank(f):
        if not f.writes or isinstance(obj, f.writes):
            return 0
        return 1 if adaptable is not None and adaptable(f) else 2
    cands.sort(key=lambda f: (-f.matches_extension(path), rank(f), -f.priority))
    return cands[0]
