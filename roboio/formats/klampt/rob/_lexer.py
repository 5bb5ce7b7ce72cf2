"""Klamp't ``.rob`` text: physical lines -> logical lines -> values (spec klampt.md §1, §3.1-3.2).

Klamp't reads a ``.rob`` file one *logical line* at a time:

* ``#`` starts a comment that runs to the end of the physical line (checked before the
  backslash test, so a backslash inside a comment does not continue the line);
* ``\\`` + newline continues the logical line (the newline stays, as whitespace);
  ``\\`` + CR + X drops the backslash and the CR and keeps X (CRLF files continue
  correctly); ``\\`` + any other character keeps both characters (so ``\\#`` is no comment
  and ``\\`` + blank + newline is *not* a continuation).

Each logical line is then read like a C++ ``istream``: :class:`Scanner` reproduces the three
number readers Klamp't uses (stream ``>>`` for doubles and ints, KrisLibrary's
``SafeInputFloat`` that also takes ``inf``/``nan``) and the quoted-string reader, character by
character, so that e.g. ``1.5abc`` reads ``1.5`` and then stops, exactly as Klamp't does.
"""
from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field
from typing import Optional

from .._strings import file_extension, is_integer_text, translate_escapes

__all__ = ["LogicalLine", "logical_lines", "Scanner", "LexError", "is_integer_text",
           "translate_escapes", "file_extension"]

_SPECIAL = re.compile(r"[\n#\\]")
_WS = " \t\n\r\v\f"                       # C isspace() in the "C" locale
_NOT_WS = re.compile(r"[^ \t\n\r\v\f]+")
_INT = re.compile(r"[+-]?[0-9]+")
# what libstdc++'s num_get accumulates for a double: sign, digits, point, digits, and an
# exponent only after at least one mantissa digit (validated afterwards)
_MANTISSA = re.compile(r"[+-]?([0-9]*)(?:\.([0-9]*))?")
_EXPONENT = re.compile(r"[eE][+-]?([0-9]*)")
_INT32 = (-2 ** 31, 2 ** 31 - 1)


class LexError(Exception):
    """A malformed token at character ``pos`` of a logical line."""

    def __init__(self, message: str, pos: int):
        super().__init__(message)
        self.message = message
        self.pos = pos


@dataclass
class LogicalLine:
    """One logical line: comments removed, continued physical lines joined (the newlines
    kept as whitespace). ``line`` is the 1-based physical line it starts on; ``breaks``
    the offsets in ``text`` at which each continued physical line begins."""

    text: str
    line: int
    breaks: list = field(default_factory=list)

    def line_at(self, pos: int) -> int:
        """Physical line of character offset ``pos`` of ``text``."""
        return self.line + bisect.bisect_right(self.breaks, pos)

    @property
    def last_line(self) -> int:
        return self.line + len(self.breaks)


def logical_lines(text: str) -> list[LogicalLine]:
    """Split file text into logical lines as Klamp't's ``.rob`` reader does."""
    out: list[LogicalLine] = []
    parts: list[str] = []
    length = 0
    breaks: list[int] = []
    start = 1
    phys = 1
    i = 0
    n = len(text)

    def flush():
        out.append(LogicalLine("".join(parts), start, list(breaks)))

    while True:
        m = _SPECIAL.search(text, i)
        if m is None:
            parts.append(text[i:])
            flush()
            break
        j = m.start()
        c = text[j]
        if j > i:
            parts.append(text[i:j])
            length += j - i
        if c == "\n":
            flush()
            parts, length, breaks = [], 0, []
            phys += 1
            start = phys
            i = j + 1
        elif c == "#":
            k = text.find("\n", j)
            if k < 0:
                flush()
                break
            i = k
        else:   # backslash
            nxt = text[j + 1] if j + 1 < n else ""
            if nxt == "\r":
                kept = text[j + 2] if j + 2 < n else ""
                i = j + 3
            elif nxt == "":
                kept = "\\"
                i = j + 1
            elif nxt == "\n":
                kept = "\n"
                i = j + 2
            else:
                kept = "\\" + nxt
                i = j + 2
            if kept == "\n":
                phys += 1
                breaks.append(length + 1)
            parts.append(kept)
            length += len(kept)
    return out


class Scanner:
    """Reads values from one logical line like a C++ ``istringstream``.

    Every reader skips leading whitespace, returns the value, or returns None and marks the
    scanner ``failed`` (like the stream's failbit: later reads also fail). ``fail_pos`` is
    where the failing read started (for messages naming the text that stopped a list).
    """

    def __init__(self, text: str, pos: int = 0):
        self.s = text
        self.pos = pos
        self.failed = False
        self.fail_pos: Optional[int] = None

    # -- low level ----------------------------------------------------------------------
    def skip_ws(self) -> None:
        s, p, n = self.s, self.pos, len(self.s)
        while p < n and s[p] in _WS:
            p += 1
        self.pos = p

    def at_end(self) -> bool:
        self.skip_ws()
        return self.pos >= len(self.s)

    def _fail(self, at: int):
        if not self.failed:
            self.failed = True
            self.fail_pos = at
        return None

    def remainder(self) -> str:
        """The text from where reading stopped (or the current position), stripped."""
        p = self.fail_pos if self.fail_pos is not None else self.pos
        return self.s[p:].strip()

    def next_token_text(self) -> str:
        """The whitespace-delimited token at which reading stopped (for messages)."""
        p = self.fail_pos if self.fail_pos is not None else self.pos
        m = _NOT_WS.search(self.s, p)
        return m.group(0) if m else ""

    # -- readers ------------------------------------------------------------------------
    def word(self) -> Optional[str]:
        """``stream >> std::string``: the next run of non-blank characters."""
        if self.failed:
            return None
        self.skip_ws()
        m = _NOT_WS.match(self.s, self.pos)
        if m is None:
            return self._fail(self.pos)
        self.pos = m.end()
        return m.group(0)

    def qstring(self) -> Optional[str]:
        """KrisLibrary ``SafeInputString``: a ``"quoted string"`` (a backslash keeps itself
        and the next character, so ``\\"`` does not end the string) or a bare word."""
        if self.failed:
            return None
        self.skip_ws()
        s, p = self.s, self.pos
        if p >= len(s):
            return self._fail(p)
        if s[p] != '"':
            return self.word()
        out = []
        k = p + 1
        while k < len(s):
            c = s[k]
            if c == '"':
                self.pos = k + 1
                return "".join(out)
            if c == "\\" and k + 1 < len(s):
                out.append(s[k:k + 2])
                k += 2
                continue
            out.append(c)
            k += 1
        raise LexError("unbalanced quote: string has no closing '\"'", p)

    def int_(self) -> Optional[int]:
        """``stream >> int``: optional sign and digits (32-bit range)."""
        if self.failed:
            return None
        self.skip_ws()
        m = _INT.match(self.s, self.pos)
        if m is None:
            return self._fail(self.pos)
        if len(m.group(0).lstrip("+-").lstrip("0")) > 10:     # (int() refuses 4,300+ digits)
            return self._fail(self.pos)
        v = int(m.group(0))
        if not _INT32[0] <= v <= _INT32[1]:
            return self._fail(self.pos)
        self.pos = m.end()
        return v

    def stream_float(self) -> Optional[float]:
        """``stream >> double`` (libstdc++): no ``inf``/``nan``; overflow fails."""
        if self.failed:
            return None
        self.skip_ws()
        start = self.pos
        m = _MANTISSA.match(self.s, start)
        digits = (m.group(1) or "") + (m.group(2) or "")
        end = m.end()
        if digits:
            e = _EXPONENT.match(self.s, end)
            if e is not None:
                if not e.group(1):
                    return self._fail(start)
                end = e.end()
        else:
            return self._fail(start)
        v = float(self.s[start:end])
        if math.isinf(v):
            return self._fail(start)
        self.pos = end
        return v

    def safe_float(self) -> Optional[float]:
        """KrisLibrary ``SafeInputFloat``: a stream number without a leading ``+``, or the
        whole word ``inf``/``infinity``/``nan`` (any case), optionally after ``-``."""
        if self.failed:
            return None
        self.skip_ws()
        start = self.pos
        s = self.s
        neg = False
        if start < len(s) and s[start] == "-":
            neg = True
            self.pos = start + 1
        c = s[self.pos] if self.pos < len(s) else ""
        if c.isdigit() and c.isascii() or c == ".":
            v = self.stream_float()
            if v is None:
                self.fail_pos = start
                return None
        elif c in ("n", "N", "i", "I"):
            w = self.word().lower()
            if w in ("inf", "infinity"):
                v = math.inf
            elif w == "nan":
                v = math.nan
            else:
                return self._fail(start)
        else:
            return self._fail(start)
        return -v if neg else v

    def rest(self) -> str:
        """``getline``: everything after the current position (not stripped)."""
        r = self.s[self.pos:]
        self.pos = len(self.s)
        return r
