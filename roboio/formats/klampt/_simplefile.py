"""Klamp't "SimpleFile" syntax, shared by rigid-object ``.obj`` and terrain ``.env`` files.

Each non-blank line is ``ITEM value value ...``: the first whitespace-delimited token names
the item, the rest of that physical line holds its values (no line continuation). ``#``
starts a comment anywhere on the line -- even inside a quoted string, which is then
unterminated (Klamp't fails the same way). A repeated item replaces the earlier one.

Values are classified as Klamp't does (spec flavour (V)): integers ``[+-]?digits`` and
floats ``[+-]?(digits[.digits*]|.digits)[eE[+-]digits]`` and the words ``inf``, ``-inf``,
``nan`` (any case) are numbers; everything else is a string. A token starting with ``"`` is
a quoted string whose backslash escapes ``\\n \\t \\r \\a \\b \\v`` are translated and
``\\x`` gives ``x``.

Writing: :func:`format_entries` emits ``ITEM values`` lines with full-precision numbers
(``inf`` allowed) and quoted strings.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import FormatError, OutputError
from ..fileio import fmt_float

__all__ = ["Entry", "parse", "parse_lines", "last_wins", "format_entries", "quote"]

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\Z")
_SPECIAL = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan")}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "v": "\v"}


@dataclass
class Entry:
    """One item: ``name`` as written, ``values`` (floats and strs), ``line`` (1-based)."""

    name: str
    values: list
    line: int

    def numbers(self, path: str, counts: tuple) -> list:
        """The values as floats; FormatError unless all are numbers and their count is
        one of ``counts``."""
        bad = [v for v in self.values if isinstance(v, str)]
        if bad:
            raise FormatError(path, self.line, None,
                              f"{self.name}: expected numbers, got {bad[0]!r}")
        if len(self.values) not in counts:
            want = " or ".join(str(c) for c in counts)
            raise FormatError(path, self.line, None,
                              f"{self.name}: expected {want} value(s), got {len(self.values)}")
        return list(self.values)

    def string(self, path: str) -> str:
        """The single string value; FormatError otherwise."""
        if len(self.values) != 1:
            raise FormatError(path, self.line, None,
                              f"{self.name}: expected 1 value, got {len(self.values)}")
        v = self.values[0]
        if not isinstance(v, str):
            raise FormatError(path, self.line, None, f"{self.name}: expected a file name, got {v!r}")
        return v


def _value(token: str):
    if _NUMBER.match(token):
        return float(token)
    return _SPECIAL.get(token.lower(), token)


def _split(text: str, path: str, line: int) -> list:
    """Tokens of one line (comment already removed), classified."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c == '"':
            buf = []
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n:
                    buf.append(_ESCAPES.get(text[i + 1], text[i + 1]))
                    i += 2
                else:
                    buf.append(text[i])
                    i += 1
            if i >= n:
                raise FormatError(path, line, None, "unterminated quoted string "
                                  "(note: '#' starts a comment even inside quotes)")
            out.append("".join(buf))
            i += 1
            continue
        j = i
        while j < n and not text[j].isspace():
            j += 1
        out.append(_value(text[i:j]))
        i = j
    return out


def parse_lines(text: str, path: str) -> list:
    """Every item line of a SimpleFile as an :class:`Entry`, in file order."""
    out = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        parts = raw.split("#", 1)[0].split(None, 1)
        if parts:
            out.append(Entry(parts[0], _split(parts[1], path, lineno) if len(parts) > 1 else [], lineno))
    return out


def last_wins(entries) -> dict:
    """``{name: Entry}``: a repeated item replaces the earlier one (Klamp't's rule)."""
    out: dict = {}
    for e in entries:
        out.pop(e.name, None)
        out[e.name] = e
    return out


def parse(text: str, path: str) -> dict:
    """Items of a SimpleFile as ``{name: Entry}`` (see :func:`last_wins`)."""
    return last_wins(parse_lines(text, path))


def quote(s: str) -> str:
    """``s`` as a quoted SimpleFile string (backslashes and quotes escaped)."""
    if "#" in s or "\n" in s:
        raise OutputError(None, f"{s!r} cannot be written in a Klamp't SimpleFile ('#' or newline)")
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_entries(items) -> str:
    """Text of a SimpleFile from ``(name, values)`` pairs; ``values`` are floats, ints or
    strs (strs are quoted)."""
    lines = []
    for name, values in items:
        toks = [quote(v) if isinstance(v, str) else fmt_float(v) for v in values]
        lines.append(" ".join([name] + toks))
    return "\n".join(lines) + "\n"
