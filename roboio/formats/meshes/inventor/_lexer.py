"""Tokens of Open Inventor ASCII and VRML 1.0/2.0 text.

Tokens are quoted strings, the punctuation ``{ } [ ] ( ) |`` and *words* (names, numbers,
``DEF`` names such as ``leg+0`` or ``_<STL_BINARY>``). Whitespace and commas separate
tokens; ``#`` starts a comment that runs to the end of the line (outside strings).

Positions are character offsets into the text; line and column are computed only when an
error is reported. Numeric ``[ ... ]`` blocks (coordinates, indices), which make up almost
all of a large file, are not tokenised number by number: :meth:`Lexer.numbers_until_bracket`
finds the closing ``]`` with ``str.find`` and converts the whole block in C with numpy.
"""
from __future__ import annotations

import re
import warnings

import numpy as np

from ....errors import FormatError
from ...fileio import line_of

__all__ = ["Lexer", "WORD", "STRING", "PUNCT", "EOF", "NUMBER_RE", "INT_RE"]

WORD, STRING, PUNCT, EOF = "word", "string", "punct", "eof"

# One token, after any run of whitespace, commas and comments (possessive: no backtracking).
_TOKEN = re.compile(r'(?:[\s,]++|#[^\n]*+)*+(?:(")|([{}\[\]()|])|([^\s,{}\[\]()|"#]++))?')
_STRING_BODY = re.compile(r'(?:[^"\\]++|\\.)*+"', re.S)
_BLOCK_TOKEN = re.compile(r'[^\s,\]#]+')
_STRUCTURE = re.compile(r'[{}\[\]"#]')
_DEF_NAME = re.compile(r'(?<![^\s,{}\[\]])DEF[\s,]+([^\s,{}\[\]()|"#]+)')

NUMBER_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
INT_RE = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|\d+)\Z")


class Lexer:
    """A one-token-lookahead scanner over ``text`` (the file content, header included)."""

    def __init__(self, text: str, path: str, start: int = 0):
        self.text = text
        self.path = path
        self.pos = start           # where scanning continues (after the peeked token, if any)
        self._peeked = None

    # -- errors --------------------------------------------------------------------------
    def where(self, offset: int) -> tuple[int, int]:
        return line_of(self.text, offset)

    def error(self, message: str, offset: int) -> FormatError:
        line, col = self.where(offset)
        return FormatError(self.path, line, col, message)

    # -- tokens --------------------------------------------------------------------------
    def _scan(self):
        text = self.text
        m = _TOKEN.match(text, self.pos)
        if m.group(1):                                   # a quoted string
            start = m.start(1)
            body = _STRING_BODY.match(text, start + 1)
            if body is None:
                raise self.error("unterminated string (missing closing '\"')", start)
            self.pos = body.end()
            raw = text[start + 1:self.pos - 1]
            if "\\" in raw:
                raw = re.sub(r"\\(.)", r"\1", raw, flags=re.S)
            return (STRING, raw, start)
        g = m.lastindex
        self.pos = m.end()
        if g is None:                 # only whitespace and comments were left
            return (EOF, None, len(text))
        return (PUNCT if g == 2 else WORD, m.group(g), m.start(g))

    def peek(self):
        """The next token ``(kind, value, offset)`` without consuming it."""
        if self._peeked is None:
            self._peeked = self._scan()
        return self._peeked

    def next(self):
        tok = self.peek()
        self._peeked = None
        return tok

    def expect(self, punct: str, what: str):
        kind, value, off = self.next()
        if kind != PUNCT or value != punct:
            raise self.error(f"expected '{punct}' {what}, found {describe((kind, value, off))}", off)
        return off

    def at_punct(self, punct: str) -> bool:
        kind, value, _ = self.peek()
        return kind == PUNCT and value == punct

    # -- values ----------------------------------------------------------------------------
    def number(self, what: str) -> float:
        kind, value, off = self.next()
        if kind != WORD or not NUMBER_RE.match(value):
            if kind == WORD and value.lower() in ("inf", "-inf", "+inf", "nan"):
                return float(value)
            raise self.error(f"expected a number for {what}, found {describe((kind, value, off))}", off)
        return float(value)

    def integer(self, what: str) -> int:
        kind, value, off = self.next()
        if kind != WORD or not INT_RE.match(value):
            raise self.error(f"expected an integer for {what}, found {describe((kind, value, off))}", off)
        if len(value) > 40:
            raise self.error(f"integer {value[:40]}... for {what} is out of range", off)
        return int(value, 0) if "x" in value.lower() else int(value)

    def numbers_until_bracket(self, integer: bool, what: str) -> np.ndarray:
        """Parse every number up to the ``]`` that closes a block whose ``[`` was just
        consumed, and consume the ``]``. Returns a flat float64 (or int64) array."""
        if self._peeked is not None:      # rewind: the block is scanned from the raw text
            self.pos = self._peeked[2]
            self._peeked = None
        text = self.text
        start = self.pos
        end = text.find("]", start)
        if end < 0:
            raise self.error(f"'[' of {what} is never closed with ']'", start - 1)
        block = text[start:end]
        if "#" in block or '"' in block or "{" in block or "}" in block:
            return self._numbers_slow(integer, what)
        arr = _bulk(block, integer)
        if arr is None:
            arr = self._numbers_checked(start, end, integer, what)
        self.pos = end + 1
        return arr

    def _numbers_slow(self, integer: bool, what: str) -> np.ndarray:
        """Token-by-token parse of a numeric block containing comments (or garbage)."""
        values = []
        while True:
            kind, value, off = self.next()
            if kind == PUNCT and value == "]":
                break
            if kind == EOF:
                raise self.error(f"'[' of {what} is never closed with ']'", off)
            if kind != WORD:
                raise self.error(f"expected a number in {what}, found {describe((kind, value, off))}", off)
            values.append(_convert(value, integer, lambda msg: self.error(msg + f" in {what}", off)))
        return np.array(values, dtype=np.int64 if integer else np.float64)

    def _numbers_checked(self, start: int, end: int, integer: bool, what: str) -> np.ndarray:
        """One number at a time, so that a malformed one is reported at its line:column."""
        values = [_convert(m.group(), integer, lambda msg, o=m.start(): self.error(msg + f" in {what}", o))
                  for m in _BLOCK_TOKEN.finditer(self.text, start, end)]
        return np.array(values, dtype=np.int64 if integer else np.float64)

    def skip_block(self, open_punct: str, open_offset: int, what: str, names_out: set | None = None):
        """Skip a ``{...}`` or ``[...]`` block whose opening ``open_punct`` was just consumed,
        through its matching closer, keeping braces and brackets balanced (strings and
        comments honoured). ``DEF`` names inside are added to ``names_out``. Jumps from one
        structural character to the next instead of tokenising the block."""
        if self._peeked is not None:
            self.pos = self._peeked[2]
            self._peeked = None
        text = self.text
        start = pos = self.pos
        stack = [open_punct]
        opened = [open_offset]
        search = _STRUCTURE.search
        while stack:
            m = search(text, pos)
            if m is None:
                raise self.error(f"'{stack[-1]}' of {what} is never closed", opened[-1])
            c, i = m.group(), m.start()
            if c == "#":
                nl = text.find("\n", i)
                pos = len(text) if nl < 0 else nl + 1
            elif c == '"':
                body = _STRING_BODY.match(text, i + 1)
                if body is None:
                    raise self.error("unterminated string (missing closing '\"')", i)
                pos = body.end()
            elif c in "{[":
                stack.append(c)
                opened.append(i)
                pos = i + 1
            else:
                want = "}" if stack[-1] == "{" else "]"
                if c != want:
                    raise self.error(f"'{c}' does not match the '{stack[-1]}' opened at "
                                     f"line {self.where(opened[-1])[0]}", i)
                stack.pop()
                opened.pop()
                pos = i + 1
        self.pos = pos
        if names_out is not None and "DEF" in text[start:pos]:
            names_out.update(_DEF_NAME.findall(text, start, pos))


def describe(tok) -> str:
    kind, value, _ = tok
    if kind == EOF:
        return "end of file"
    if kind == STRING:
        return f'string "{value[:30]}"'
    return f"'{value[:40]}'"


def _convert(tok: str, integer: bool, error):
    if integer:
        if not INT_RE.match(tok):
            raise error(f"expected an integer, found {tok[:40]!r}")
        v = int(tok, 0) if "x" in tok.lower() else (int(tok) if len(tok) <= 40 else 2 ** 64)
        if not -2 ** 63 <= v < 2 ** 63:
            raise error(f"integer {tok[:40]} is out of the range of a 64-bit integer")
        return v
    if NUMBER_RE.match(tok) or tok.lower() in ("inf", "-inf", "+inf", "nan"):
        return float(tok)
    raise error(f"expected a number, found {tok[:40]!r}")


def _bulk(block: str, integer: bool):
    """Numbers of a comment-free block, converted in C; None if any token is malformed.

    ``np.fromstring`` alone is too lenient (it reads ``"- 1"`` as -1 and a blank string
    as ``[-1.]``), so its result is accepted only when it yields one value per token."""
    if "," in block:
        block = block.replace(",", " ")
    ntok = _count_tokens(block)
    if ntok is None:
        return None
    if ntok == 0:
        return np.zeros(0, dtype=np.int64 if integer else np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            arr = np.fromstring(block, dtype=np.int64 if integer else np.float64, sep=" ")
        except (ValueError, DeprecationWarning):
            return _bulk_hex(block) if integer else None
    if len(arr) != ntok:
        return None
    return arr


_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[9, 10, 11, 12, 13, 32]] = True


def _count_tokens(block: str):
    """Number of whitespace-separated tokens (None for non-ASCII text)."""
    try:
        ws = _WHITESPACE[np.frombuffer(block.encode("ascii"), dtype=np.uint8)]
    except UnicodeEncodeError:
        return None
    if len(ws) == 0:
        return 0
    return int(np.count_nonzero(ws[1:] < ws[:-1])) + (0 if ws[0] else 1)


def _bulk_hex(block: str):
    """Integer blocks may hold hexadecimal values (``orderedRGBA 0xff0000ff``)."""
    toks = block.split()
    if not all(INT_RE.match(t) and len(t) <= 18 for t in toks):
        return None
    try:
        return np.array([int(t, 0) if "x" in t.lower() else int(t) for t in toks], dtype=np.int64)
    except OverflowError:        # the token-by-token reading says which and where
        return None
