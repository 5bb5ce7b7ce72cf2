"""Vectorised scanning of whitespace-separated numeric text (OFF, .tri, PCD ascii, OBJ).

:class:`TokenTable` indexes every token of a byte buffer (start, end, 0-based line) with
numpy, so readers can check per-line token counts and parse whole blocks of numbers in C
(``np.fromstring``) instead of converting one number at a time in Python. When a block
does not parse, the bad token is located exactly (line and column) for the error message.
"""
from __future__ import annotations

import re
import warnings

import numpy as np

from ..errors import FormatError

__all__ = ["TokenTable", "NUMBER_RE", "WHITESPACE", "parse_number_block", "int64_or_none"]


def int64_or_none(tok) -> int | None:
    """``int(tok)`` of a decimal integer token (str or bytes, optional sign, any number of
    leading zeros) when it fits a signed 64-bit integer, else None. Python's ``int()`` refuses
    strings of more than 4,300 digits (ValueError) and numpy refuses values beyond int64
    (OverflowError): both are out of every range a file format means."""
    if isinstance(tok, bytes):
        tok = tok.decode("ascii", "replace")
    tok = tok.strip()
    negative = tok.startswith("-")
    digits = tok.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 19:
        return None
    v = -int(digits) if negative else int(digits)
    return v if -2 ** 63 <= v < 2 ** 63 else None

WHITESPACE = np.zeros(256, dtype=bool)      # byte -> is C isspace()
WHITESPACE[[9, 10, 11, 12, 13, 32]] = True

# What C strtod / iostream-style readers accept as one number (plus inf/nan words).
NUMBER_RE = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)\Z",
                       re.IGNORECASE)
_INT_RE = re.compile(rb"[+-]?\d+\Z")
_NONSPACE = re.compile(rb"[^\t\n\v\f\r ]+")


def _fromstring(text: bytes, dtype):
    """All numbers of ``text`` (whitespace separated) or None if some token is not one."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return np.fromstring(text, dtype=dtype, sep=" ")
        except (ValueError, DeprecationWarning):
            return None


class TokenTable:
    """Every whitespace-separated token of ``data`` with its position and line.

    ``start`` (byte offsets; :meth:`end_of` gives a token's end), ``line`` (0-based line of
    each token),
    ``line_ntok`` (tokens per line), ``line_first`` (index of each line's first token),
    ``line_start`` (byte offset of each line). Lines are split at ``\\n``; ``\\r`` is
    whitespace, so CRLF files need no special care.
    """

    def __init__(self, data: bytes, path: str):
        self.data = data
        self.path = path
        arr = np.frombuffer(data, dtype=np.uint8)
        self.bytes = arr
        ws = WHITESPACE[arr]
        begin = ~ws
        begin[1:] &= ws[:-1]
        self.start = np.flatnonzero(begin)
        self.newlines = np.flatnonzero(arr == 10)
        self.nlines = len(self.newlines) + 1
        # tokens per line: how many tokens start before each line end
        at_end = np.concatenate((np.searchsorted(self.start, self.newlines), [len(self.start)]))
        self.line_ntok = np.diff(at_end, prepend=0)
        self.line_first = at_end - self.line_ntok
        self.line = np.repeat(np.arange(self.nlines), self.line_ntok)
        self.line_start = np.concatenate(([0], self.newlines + 1))

    def end_of(self, i: int) -> int:
        """Byte offset just after token ``i``."""
        return _NONSPACE.match(self.data, int(self.start[i])).end()

    def __len__(self):
        return len(self.start)

    def token(self, i: int) -> bytes:
        return _NONSPACE.match(self.data, int(self.start[i])).group()

    def tokens(self, lo: int, hi: int) -> list:
        return [self.token(i) for i in range(lo, hi)]

    def line_tokens(self, line: int) -> list:
        lo = int(self.line_first[line])
        return self.tokens(lo, lo + int(self.line_ntok[line]))

    def first_char(self) -> np.ndarray:
        """First byte of every line (0 for a line at the very end of the buffer)."""
        padded = np.concatenate((self.bytes, np.zeros(1, np.uint8)))
        return padded[self.line_start]

    def where(self, tok: int) -> tuple[int, int]:
        """1-based (line, column) of token ``tok`` (or of the end of the buffer)."""
        if tok >= len(self.start):
            return self.nlines, 1
        line = int(self.line[tok])
        return line + 1, int(self.start[tok] - self.line_start[line]) + 1

    def error(self, tok: int, message: str) -> FormatError:
        line, col = self.where(tok)
        return FormatError(self.path, line, col, message)

    def end_error(self, message: str) -> FormatError:
        return FormatError(self.path, self.nlines, None, message)

    # -- number parsing ---------------------------------------------------------------
    def floats(self, lo: int, hi: int, what: str = "a number") -> np.ndarray:
        """Tokens ``lo..hi-1`` as float64 (FormatError at the first non-number)."""
        return self._parse(None, lo, hi, np.float64, what)

    def ints(self, lo: int, hi: int, what: str = "an integer") -> np.ndarray:
        """Tokens ``lo..hi-1`` as int64 (FormatError at the first non-integer)."""
        return self._parse(None, lo, hi, np.int64, what)

    def gather_floats(self, idx: np.ndarray, what: str = "a number") -> np.ndarray:
        """The tokens at indices ``idx`` (any shape) as float64."""
        return self._parse(np.asarray(idx), None, None, np.float64, what)

    def gather_ints(self, idx: np.ndarray, what: str = "an integer") -> np.ndarray:
        return self._parse(np.asarray(idx), None, None, np.int64, what)

    def _parse(self, idx, lo, hi, dtype, what):
        if idx is None:
            n = hi - lo
            if n <= 0:
                return np.zeros(0, dtype)
            text = self.data[self.start[lo]:self.end_of(hi - 1)]
            out = _fromstring(text, dtype)
            if out is not None and len(out) == n:
                return out
            flat = np.arange(lo, hi)
            shape = (n,)
        else:
            flat = idx.ravel()
            shape = idx.shape
            if flat.size == 0:
                return np.zeros(shape, dtype)
            if flat.size > 1 and np.all(np.diff(flat) == 1):
                return self._parse(None, int(flat[0]), int(flat[-1]) + 1, dtype, what).reshape(shape)
            text = b" ".join(_NONSPACE.match(self.data, s).group() for s in self.start[flat].tolist())
            out = _fromstring(text, dtype)
            if out is not None and len(out) == flat.size:
                return out.reshape(shape)
        return self._slow(flat, dtype, what).reshape(shape)

    def _slow(self, flat, dtype, what):
        pattern = _INT_RE if dtype == np.int64 else NUMBER_RE
        vals = []
        for t in flat.tolist():
            tok = self.token(t)
            if not pattern.match(tok):
                raise self.error(t, f"expected {what}, found {tok.decode('latin-1')!r}")
            if dtype == np.int64:
                v = int64_or_none(tok)
                if v is None:
                    raise self.error(t, f"{what} {tok[:40].decode('latin-1')!r} is out of the range of a 64-bit integer")
                vals.append(v)
            else:
                vals.append(float(tok))
        return np.array(vals, dtype=dtype)


def parse_number_block(text: bytes, path: str, dtype=np.float64) -> np.ndarray:
    """Every token of ``text`` as a number; FormatError at the first token that is not."""
    out = _fromstring(text, dtype)
    if out is not None:
        return out
    table = TokenTable(text, path)
    return table.ints(0, len(table)) if dtype == np.int64 else table.floats(0, len(table))
