"""Errors and warnings raised by roboio.

Every failure caused by the *input* is a :class:`FormatError`, whose text names the file,
the line (and column where known) and what was expected::

    ur5.rob:14: tparent expects 12 numbers per link, got 70 for 6 links
"""
from __future__ import annotations

import os
import warnings


class RoboioError(ValueError):
    """Base class of every error roboio raises because of its input."""


class FormatError(RoboioError):
    """Malformed or unsupported input, located as ``path:line:column: message``."""

    def __init__(self, path=None, line=None, column=None, message=""):
        self.path = os.fspath(path) if path is not None else None
        self.line = line
        self.column = column
        self.message = message
        super().__init__(self._text())

    def _text(self) -> str:
        where = []
        if self.path:
            where.append(self.path)
        if self.line is not None:
            where.append(str(self.line))
            if self.column is not None:
                where.append(str(self.column))
        return (":".join(where) + ": " + self.message) if where else self.message

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.column, self.message))


class RoboioWarning(UserWarning):
    """Something in the input was ignored, guessed or is missing, but loading went on."""


class LoadContext:
    """State shared by the readers of one top-level load.

    Carries the file being read (for error messages), ``strict`` (warnings become errors),
    the list of warnings collected so far, and a cache of already-parsed referenced files.
    Readers create a child context per referenced file with :meth:`child`; all children share
    the warning list and the cache of the root.
    """

    def __init__(self, path=None, strict: bool = False, *, _root=None):
        self.path = os.fspath(path) if path is not None else None
        self.strict = strict
        root = _root or self
        self.root = root
        if _root is None:
            self.warnings: list[str] = []
            self.cache: dict = {}
            self.stack: list[str] = []
        else:
            self.warnings = root.warnings
            self.cache = root.cache
            self.stack = root.stack

    def child(self, path) -> "LoadContext":
        return LoadContext(path, self.strict, _root=self.root)

    def error(self, message: str, line=None, column=None, path=None) -> FormatError:
        """Build (not raise) a FormatError located in this context's file."""
        return FormatError(path if path is not None else self.path, line, column, message)

    def warn(self, message: str, line=None, column=None, path=None) -> None:
        """Record a warning; in strict mode raise it as a FormatError instead."""
        err = self.error(message, line, column, path)
        if self.strict:
            raise err
        text = str(err)
        self.warnings.append(text)
        warnings.warn(text, RoboioWarning, stacklevel=3)
