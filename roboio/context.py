"""The state shared by the readers of one top-level load.

A :class:`LoadContext` is what a reader gets besides the bytes: the file being read (for
messages and for resolving relative references), ``strict`` (warnings become errors), the
warnings collected so far, a cache of already-parsed referenced files, the stack of files
being read (for cycle detection), the search roots and ``package://`` directories given by
the user, and the resource :class:`~roboio.limits.Limits` with the running totals charged
against them. Readers make a child context per referenced file (:meth:`LoadContext.child`);
children share everything with the root except ``path``.
"""
from __future__ import annotations

import os
import warnings
from typing import Iterable, Mapping, Optional, Sequence, Union

from .errors import Diagnostic, FormatError, RoboioNote, RoboioWarning
from .limits import Limits, as_limits, describe, limit_name

__all__ = ["LoadContext"]


class FileStack(list):
    """:attr:`LoadContext.stack`: the real paths of the files being read, outermost first.
    The first may be given as pending (:meth:`push_pending`): computed the first time the
    stack is looked into, so that a load that reads no other file never computes it (a
    ``realpath`` costs a system call per directory of the path)."""

    __slots__ = ("_pending",)

    def __init__(self, *args):
        super().__init__(*args)
        self._pending = None

    def push_pending(self, compute) -> None:
        """Push the entry ``compute()`` returns, computed when first needed."""
        self.append(None)
        self._pending = (len(self) - 1, compute)

    def _resolve(self):
        if self._pending is not None:
            i, compute = self._pending
            self._pending = None
            list.__setitem__(self, i, compute())

    def __contains__(self, item):
        self._resolve()
        return list.__contains__(self, item)

    def __getitem__(self, i):
        self._resolve()
        return list.__getitem__(self, i)

    def __iter__(self):
        self._resolve()
        return list.__iter__(self)

    def index(self, *args):
        self._resolve()
        return list.index(self, *args)

    def pop(self, *args):
        self._resolve()
        return list.pop(self, *args)

    def copy(self):
        self._resolve()
        return list(self)


class LoadContext:
    """See the module docstring.

    ``search_paths``: extra roots for referenced files (OpenRAVE data directories,
    ``$GRASPIT``, ...), tried after the referring file's directory. ``package_dirs``:
    ``package://NAME`` roots, a mapping NAME -> directory or a list of directories that hold
    packages. ``limits``: a :class:`Limits`, a mapping of limit names, or None (defaults).
    ``flavor``: whose reading of a format to follow where programs differ (None: the
    format's specification and its mainstream readers; ``"klampt"``: Klamp't's, as
    :mod:`roboio.compat.klampt` loads files). ``check_meshes``: open every referenced mesh
    file during the load to check its header (a mesh that fails becomes a warning and an
    empty ``missing`` geometry, as without lazy loading); False (the default) defers that to
    the mesh's first use, where a broken file raises its :class:`FormatError` (see
    :func:`roboio.formats.loading.load_geometry`). Strict loads always check.
    """

    def __init__(self, path=None, strict: bool = False, *, limits=None,
                 search_paths: Optional[Iterable[str]] = None,
                 package_dirs: Union[None, Mapping[str, str], Sequence[str]] = None,
                 flavor: Optional[str] = None, check_meshes: bool = False, _root=None):
        self.path = os.fspath(path) if path is not None else None
        if _root is not None:
            self.root = _root
            self.strict = _root.strict
            self.warnings = _root.warnings
            self.cache = _root.cache
            self.stack = _root.stack
            self.limits = _root.limits
            self.totals = _root.totals
            self.search_paths = _root.search_paths
            self.package_dirs = _root.package_dirs
            self.files = _root.files
            self.flavor = _root.flavor
            self.check_meshes = _root.check_meshes
            return
        self.root = self
        if flavor not in (None, "klampt"):
            raise ValueError(f"flavor must be None or 'klampt', not {flavor!r}")
        self.flavor = flavor
        self.strict = strict
        self.check_meshes = bool(check_meshes or strict)
        self.warnings: list[str] = []
        self.cache: dict = {}
        self.stack: FileStack = FileStack()
        self.limits: Limits = as_limits(limits)
        self.totals: dict[str, int] = {}
        self.files: dict[str, None] = {}      # every file read, in order (an ordered set)
        self.search_paths: list[str] = [os.fspath(p) for p in (search_paths or ())]
        if package_dirs is None:
            self.package_dirs = None
        elif isinstance(package_dirs, Mapping):
            self.package_dirs = {str(k): os.fspath(v) for k, v in package_dirs.items()}
        else:
            self.package_dirs = [os.fspath(p) for p in package_dirs]

    def child(self, path) -> "LoadContext":
        """A context for a file referenced from this one (shares everything but ``path``)."""
        return LoadContext(path, _root=self.root)

    def note_file(self, path) -> None:
        """Record that ``path`` was read by this load (:attr:`files`; writers refuse to
        overwrite these unless told to, see :func:`roboio.save`)."""
        self.files[os.fspath(path)] = None

    # -- messages ---------------------------------------------------------------------
    def error(self, message: str, line=None, column=None, path=None) -> FormatError:
        """Build (not raise) a FormatError located in this context's file."""
        return FormatError(path if path is not None else self.path, line, column, message)

    def warn(self, message: str, line=None, column=None, path=None, *, severity=None,
             kind=None, hint=None) -> None:
        """Record a warning: a :class:`~roboio.errors.Diagnostic` of ``kind`` (one of
        :data:`roboio.errors.KINDS`, which gives its severity ``"error"``, ``"warning"`` or
        ``"note"`` unless ``severity`` says otherwise) with a ``hint`` naming the option that
        fixes it; in strict mode raise it as a FormatError instead."""
        self._record(message, line, column, path, severity, kind, hint)

    def note(self, message: str, line=None, column=None, path=None, *, kind=None) -> None:
        """:meth:`warn` a ``"note"``: nothing to act on (ignored by the original program
        too, kept as data for writing back)."""
        self._record(message, line, column, path, "note", kind, None)

    def _record(self, message, line, column, path, severity, kind, hint):
        err = self.error(message, line, column, path)
        if self.strict:
            raise err
        text = Diagnostic(str(err), severity, kind, hint)
        self.warnings.append(text)
        # stacklevel 4: the reader that called warn/note
        warnings.warn(text, RoboioNote if text.severity == "note" else RoboioWarning, stacklevel=4)

    # -- resource budget (see roboio.limits) ------------------------------------------
    def limit(self, counter: str) -> int:
        return getattr(self.limits, limit_name(counter))

    def check_depth(self, depth: int, line=None, column=None, what: Optional[str] = None) -> None:
        """Raise before descending to nesting level ``depth`` if it exceeds ``max_depth``."""
        if depth > self.limits.max_depth:
            raise self.error(describe("depth", depth, self.limits.max_depth, what or "nesting"),
                             line, column)

    def check_claim(self, counter: str, amount: int, line=None, column=None,
                    what: Optional[str] = None, path=None) -> None:
        """Raise if one claimed quantity (a header's count, a requested array) exceeds its
        limit. Not cumulative: use before allocating what a file asks for. ``path``: the file
        to name when it is not this context's."""
        limit = self.limit(counter)
        if amount > limit:
            raise self.error(describe(counter, int(amount), limit, what), line, column, path)

    def charge(self, counter: str, amount: int = 1, line=None, column=None,
               what: Optional[str] = None, path=None) -> int:
        """Add ``amount`` to the load's running total of ``counter`` and raise if the total
        exceeds its limit. Returns the new total. ``path``: the file to name when it is not
        this context's."""
        total = self.totals.get(counter, 0) + int(amount)
        self.totals[counter] = total
        limit = self.limit(counter)
        if total > limit:
            raise self.error(describe(counter, total, limit, what), line, column, path)
        return total
