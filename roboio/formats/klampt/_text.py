"""Shared pieces of the Klamp't motion and contact formats: whitespace number streams with
located errors, length-prefixed vectors, XML root sniffing and escaping.

Numbers: Klamp't's C++ readers use iostream doubles (no ``inf``/``nan``), its Python readers
``float()`` (which accepts them). roboio accepts both spellings, since either reader accepting
a value is unambiguous; integers (vector lengths, link indices) must be plain integers.
"""
from __future__ import annotations

import re

import numpy as np

from ...errors import FormatError
from ..fileio import line_of
from ._sniff import is_number, parse_int, xml_root_name

__all__ = ["Where", "Tokens", "fmt_numbers", "fmt_vector", "fmt_vec3", "xml_root_name",
           "xml_escape", "is_number", "parse_int"]

_TOKEN = re.compile(r"\S+")


class Where:
    """Where a text came from, for error messages: a whole file (positions in the text are
    file positions), or the text of an XML element or attribute (``line`` is the element's
    line; positions inside the text go into the message, prefixed by ``label``)."""

    def __init__(self, path, line=None, label=None):
        self.path = path
        self.line = line
        self.label = label

    def error(self, message, text_line=None, column=None) -> FormatError:
        if self.label is None:
            return FormatError(self.path, text_line, column, message)
        inner = f" line {text_line}" if text_line is not None and text_line > 1 else ""
        return FormatError(self.path, self.line, None, f"{self.label}{inner}: {message}")

    def warn(self, ctx, message, text_line=None, column=None, **kind):
        err = self.error(message, text_line, column)
        ctx.warn(err.message, err.line, err.column, err.path, **kind)


class Tokens:
    """Whitespace-separated tokens of ``text`` read front to back (C++ stream style, line
    breaks irrelevant), with errors located at the offending token."""

    def __init__(self, text: str, where: Where):
        self.text = text
        self.toks = text.split()
        self.i = 0
        self.where = where
        self._odd_chars = "_" in text       # float() accepts 1_000; Klamp't does not
        self._starts = None                 # token offsets, computed for error messages only
        self._shift = {}                    # token index -> characters consumed (next_letter)
        self._values = None                 # every token as a float, when all are numbers

    @property
    def at_end(self) -> bool:
        return self.i >= len(self.toks)

    @property
    def remaining(self) -> int:
        return len(self.toks) - self.i

    def peek(self):
        return None if self.at_end else self.toks[self.i]

    def position(self, i=None):
        """(line, column) of token ``i`` (default: the next one; end of text past the end)."""
        i = self.i if i is None else i
        if self._starts is None:
            self._starts = [m.start() for m in _TOKEN.finditer(self.text)]
        off = self._starts[i] + self._shift.get(i, 0) if i < len(self._starts) else len(self.text)
        return line_of(self.text, off)

    def line(self, i=None) -> int:
        return self.position(i)[0]

    def error(self, message, i=None) -> FormatError:
        line, col = self.position(i)
        return self.where.error(message, line, col)

    def next_letter(self, letters: str, what: str) -> str:
        """A one-character type code (C++ reads a ``char``, so ``F0.1`` is ``F`` then
        ``0.1``; the Python readers need the letter as its own token)."""
        if self.at_end:
            raise self.error(f"expected {what} ({', '.join(letters)}), got end of text")
        tok = self.toks[self.i]
        if tok[0] not in letters or (len(tok) > 1 and not is_number(tok[1:])):
            raise self.error(f"expected {what} ({', '.join(letters)}), got {tok!r}")
        if len(tok) > 1:
            self.toks[self.i] = tok[1:]
            self._shift[self.i] = self._shift.get(self.i, 0) + 1
            self._values = None
        else:
            self.i += 1
        return tok[0]

    def next_int(self, what: str) -> int:
        if self.at_end:
            raise self.error(f"expected {what} (an integer), got end of text")
        v = parse_int(self.toks[self.i])
        if v is None:
            raise self.error(f"expected {what} (an integer), got {self.toks[self.i]!r}")
        self.i += 1
        return v

    def next_float(self, what: str) -> float:
        return float(self.floats(1, what)[0])

    def floats(self, n: int, what: str) -> np.ndarray:
        """The next ``n`` numbers."""
        if n > self.remaining:
            raise self.error(f"expected {n} numbers for {what}, only {self.remaining} left "
                             f"(count does not match the data)", len(self.toks))
        if self._values is None:
            # one conversion for the whole text when it is all numbers (the usual case)
            try:
                self._values = False if self._odd_chars else np.array(self.toks, dtype=float)
            except ValueError:
                self._values = False
        if self._values is not False:
            vals = self._values[self.i:self.i + n]
        else:
            chunk = self.toks[self.i:self.i + n]
            bad = next((k for k, t in enumerate(chunk) if not is_number(t)), None)
            if bad is not None:
                raise self.error(f"expected a number in {what}, got {chunk[bad]!r}", self.i + bad)
            vals = np.array(chunk, dtype=float)
        self.i += n
        return vals

    def vector(self, what: str) -> np.ndarray:
        """A Klamp't Vector ``N v1 ... vN``."""
        start = self.i
        n = self.next_int(f"the length of {what}")
        if n < 0:
            raise self.error(f"negative length {n} of {what}", start)
        if n > self.remaining:
            raise self.error(f"{what} has length {n} but only {self.remaining} numbers follow "
                             f"(count does not match the data)", start)
        return self.floats(n, what)


_POINT_ZERO = re.compile(r"\.0(?= |$)")


def fmt_numbers(v) -> str:
    """Space-separated numbers exactly as :func:`~roboio.formats.fileio.fmt_float` writes
    them (``repr`` without a trailing ``.0``), in one pass for long vectors."""
    return _POINT_ZERO.sub("", " ".join(map(repr, np.asarray(v, dtype=float).reshape(-1).tolist())))


def fmt_vector(v) -> str:
    """Klamp't Vector text ``N<TAB>v1 v2 ... vN``, full precision."""
    v = np.asarray(v, dtype=float).reshape(-1)
    return f"{len(v)}\t{fmt_numbers(v)}"


fmt_vec3 = fmt_numbers


_XML_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"),
                ("\n", "&#x0A;"), ("\t", "&#x09;"), ("\r", "&#x0D;"))


def xml_escape(s: str) -> str:
    """Escape for XML text or a double-quoted attribute, with newlines and tabs as
    ``&#x0A;``/``&#x09;`` (as Klamp't writes them) so that parsers keep them exactly."""
    for char, entity in _XML_ESCAPES:       # str.replace is far faster than str.translate
        s = s.replace(char, entity)
    return s
