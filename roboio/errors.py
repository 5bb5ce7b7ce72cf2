"""Errors and warnings raised by roboio.

Every failure caused by the *input* is a :class:`FormatError`, whose text names the file,
the line (and column where known) and what was expected::

    ur5.rob:14: tparent expects 12 numbers per link, got 70 for 6 links
"""
from __future__ import annotations

import os
import re

#: a value quoted in a message (an opening quote not inside a word, no quote in it, a closing
#: quote not followed by a letter) of LONG_VALUE characters or more, or a run without spaces
#: of twice that (an unquoted value; shorter runs are usually locations worth keeping whole)
LONG_VALUE = 200
_LONG = re.compile(r"(?<![\w'\"])(['\"])((?:(?!\1)[^\n]){%d,}?)\1(?!\w)|\S{%d,}"
                   % (LONG_VALUE, 2 * LONG_VALUE))


def shorten_values(message: str, keep: int = 60) -> str:
    """``message`` with every value of :data:`LONG_VALUE` characters or more (a fuzzed
    5000-digit attribute, a repeated path) cut to its first ``keep`` characters, ``...`` and
    its length, so that one error stays one readable line. Every message of a FormatError
    goes through here."""
    if len(message) < LONG_VALUE:
        return message

    def cut(m):
        if m.group(1):
            q, body = m.group(1), m.group(2)
            return f"{q}{body[:keep]}...{q} ({len(body):,} characters)"
        text = m.group(0)
        return f"{text[:keep]}... ({len(text):,} characters)"
    return _LONG.sub(cut, message)


class RoboioError(ValueError):
    """Base class of every error roboio raises because of its input."""


class FormatError(RoboioError):
    """Malformed or unsupported input, located as ``path:line:column: message``."""

    def __init__(self, path=None, line=None, column=None, message=""):
        self.path = os.fspath(path) if path is not None else None
        self.line = line
        self.column = column
        self.message = shorten_values(message)
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


class CompanionFile(FormatError):
    """A file that is read only as part of another (a GraspIt! eigengrasp or virtual-contact
    file, read with the robot that names it): not a model of its own."""


class RoboioWarning(UserWarning):
    """Something in the input was ignored, guessed or is missing, but loading went on."""


class RoboioNote(RoboioWarning):
    """A remark that needs no action: what the original program ignores too, what roboio
    keeps as data for writing back, a rounding far below any tolerance."""


#: how much a diagnostic matters, most first
SEVERITIES = ("error", "warning", "note")

#: The sorts of diagnostics (their ``kind``) and the severity each has. One rule everywhere
#: (docs/cli.md, "Severity"): a reader or writer says what sort of item it records, and the
#: severity follows from it, so that the same sort of item has the same severity in every
#: format. A call site gives a severity of its own only where the size of the item decides
#: (a rounding beyond tolerance is an error, an FK change below it a note).
KINDS = {
    # notes: nothing to act on
    "ignored": "note",            # ignored by the original program too (an unknown element)
    "kept as data": "note",       # not part of the model, kept for writing the format back
    "rounding": "note",           # numbers rounded far below any tolerance
    "deprecated": "note",         # an old spelling, read as its replacement
    "side files": "note",         # files a writer converted or copied beside its output
    "restructured": "note",       # the same content in another structure (a group merged)
    # errors: the model (or the output) is wrong or incomplete
    "missing file": "error",      # a referenced file (mesh, include, package) not found
    "unreadable file": "error",   # a referenced file found but not readable
    "truncated": "error",         # a file cut short
    "invalid value": "error",     # NaN, inverted limits, negative masses, a broken structure
    "fk error": "error",          # link poses change beyond tolerance in a conversion
    "target refuses": "error",    # the target program refuses (part of) what is written
    # warnings: roboio or the target guessed, changed or dropped something
    "guessed": "warning",         # roboio chose a reading or a default the file leaves open
    "changed": "warning",         # a value read or written differently (clamped, normalised)
    "dropped": "warning",         # part of the input left out
    "unsupported": "warning",     # what roboio does not read although the original program does
    "not written": "warning",     # what the target format cannot hold
    "approximated": "warning",    # written approximately (the item says by how much)
    "renamed": "warning",         # a name the target could not keep
    "target default": "warning",  # the target applies its own default where the model has none
    "read differently": "warning",  # the original or target program reads it otherwise than roboio
    "quirk": "warning",           # read as the original program reads it, which the file may not mean
    "empty": "warning",           # a file or element that holds nothing (no milestones)
}

#: options that fix an item, as hints name them
HINT_DATA_PATH = "--data-path DIR"
HINT_PACKAGE_PATH = "--package-path DIR"
HINT_FORMAT = "--format NAME"


def kind_severity(kind, severity=None) -> str:
    """``severity`` when given, else the one :data:`KINDS` gives ``kind``, else
    ``"warning"``."""
    if severity is not None:
        if severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {', '.join(SEVERITIES)}, not {severity!r}")
        return severity
    return KINDS.get(kind, "warning")


class Diagnostic(str):
    """The text of one warning or report item (a ``str``: ``obj.warnings`` and
    ``report.warnings`` hold these) with

    * ``severity``: ``"error"`` (the result is wrong or incomplete: a referenced file
      missing, a file cut short), ``"warning"`` (roboio or the target guessed, changed or
      dropped something a user may care about) or ``"note"`` (nothing to act on: ignored by
      the original program too, kept as data, rounding far below tolerance); by default
      the one :data:`KINDS` gives ``kind``;
    * ``kind``: one of :data:`KINDS`, grouping items of the same sort (``"ignored"``,
      ``"missing file"``) in summaries, or None;
    * ``hint``: what fixes it, when an option does (``"--data-path DIR"``), or None.
    """

    def __new__(cls, text, severity=None, kind=None, hint=None):
        severity = kind_severity(kind, severity)
        self = super().__new__(cls, text)
        self.severity = severity
        self.kind = kind
        self.hint = hint
        return self

    def __reduce__(self):
        return (Diagnostic, (str(self), self.severity, self.kind, self.hint))

    def with_text(self, text) -> "Diagnostic":
        """The same diagnostic with another text (a prefix added, say)."""
        return Diagnostic(text, self.severity, self.kind, self.hint)

    def to_dict(self) -> dict:
        """``{"text", "severity", "kind", "hint"}`` (what ``--json`` prints)."""
        return {"text": str(self), "severity": self.severity, "kind": self.kind, "hint": self.hint}


def severity_of(item) -> str:
    """The severity of a warning or report item (a plain string is a ``"warning"``)."""
    return getattr(item, "severity", "warning")


class OutputError(RoboioError):
    """An output roboio refuses to write: a device, FIFO, socket or directory, or one of the
    files the written object was read from (unless ``overwrite_input=True`` / ``--force``)."""

    def __init__(self, path=None, message=""):
        self.path = os.fspath(path) if path is not None else None
        self.message = shorten_values(message)
        super().__init__(f"{self.path}: {self.message}" if self.path else self.message)

    def __reduce__(self):
        return (type(self), (self.path, self.message))


class LimitExceeded(RoboioError):
    """A request (not a file) that would need more than a resource limit allows, such as
    resampling a motion at 10^9 frames per second; the message gives the size it would need
    and the limit to raise (:mod:`roboio.limits`)."""
