"""Fast path for the frame data of Choreonoid ``.seq`` files (almost all of their bytes).

Reading: :func:`split_frame_blocks` finds every ``frames:`` key followed by lines of the form
``<indent>- [ ... ]`` (one frame per line, as Choreonoid writes them); :func:`cut_blocks` cuts
them out of the text, so that a general YAML parser only sees the small header.
:func:`parse_block` checks a block's bracket/comma/space layout against the shape the header
announces (byte-string operations) and converts all its numbers at once with
:func:`parse_numbers`, a vectorised decimal parser that is exact: mantissas of up to 16
characters and ``|exponent| <= 22`` are converted with a single correctly rounded IEEE
multiplication or division (Clinger's fast path), which gives the same double as
``strtod``/``float()``; other tokens go to numpy's C parser or one at a time to a callback.
A block whose layout is not recognised is left to the general YAML reader.

Two implementations of :func:`parse_block` give the same results bit for bit: a small C
extension (``_seq_c.c``, built by ``pip install`` when a compiler is present; one pass over
the text) and the numpy path above, the reference and the fallback.
``ROBOIO_SEQ_PARSER=compiled|numpy|auto`` in the environment chooses on first use (``auto``:
compiled when the extension imports); :func:`set_parser` changes it at any time.

Writing: :func:`format_frames` prints frames with ``%.9g`` where that reads back as exactly the
same double (checked vectorised), else ``repr``.
"""
from __future__ import annotations

import math
import os
import re
import warnings

import numpy as np

from ...errors import RoboioWarning

__all__ = ["Block", "split_frame_blocks", "cut_blocks", "exact_end", "frame_signature",
           "parse_block", "parse_numbers", "format_frames", "exact9", "get_parser",
           "set_parser", "available_parsers"]

CHUNK_BYTES = 1 << 18           # frame text converted per step (cache-sized; bounds memory)


class Block:
    """Frame lines after a ``frames:`` key: bytes ``start:end`` of the text, ``key_line``
    (1-based line of the key), ``first_line`` (line of the first frame), ``num_lines``,
    ``indent`` (bytes before the ``-`` of each line)."""

    __slots__ = ("start", "end", "key_line", "first_line", "num_lines", "indent")

    def __init__(self, start, end, key_line, num_lines, indent):
        self.start, self.end = start, end
        self.key_line, self.first_line = key_line, key_line + 1
        self.num_lines, self.indent = num_lines, indent


_KEY = re.compile(rb"[ \t]*frames[ \t]*:[ \t]*(?:#[^\n]*)?\n")
_FIRST = re.compile(rb"([ \t]*)- +\[")


def _block_end(data: bytes, body: int, first: bytes) -> int:
    """End of the run of lines starting with ``first`` from offset ``body``: frame lines hold
    no ':', so the run ends before the next line with a ':' (a YAML key), minus any trailing
    lines that do not start with ``first`` (a ``-`` item, blank or comment lines). Lines in
    the middle that are not frame lines make :func:`parse_block` hand the block to YAML."""
    colon = data.find(b":", body)
    if colon < 0:
        end = len(data)
    else:
        nl = data.rfind(b"\n", body, colon)
        end = nl + 1 if nl >= 0 else body        # a ':' on the first line: no frame lines
    while end > body:
        start = data.rfind(b"\n", body, end - 1) + 1
        if start < body:
            start = body
        if data.startswith(first, start):
            break
        end = start
    return end


def exact_end(data: bytes, block: "Block") -> int:
    """End of the run of frame lines of ``block`` checked line by line (the cheap
    :func:`_block_end` may include non-frame lines, which :func:`parse_block` rejects)."""
    first = block.indent + b"- "
    pos = block.start
    while pos < block.end and data.startswith(first, pos):
        pos = data.index(b"\n", pos) + 1
    return pos


def split_frame_blocks(data: bytes) -> dict:
    """Every block of one-line frames of ``data`` (which ends with a newline), as
    :class:`Block` objects keyed by the line of their ``frames:`` key."""
    blocks = {}
    search = 0
    line, counted = 1, 0         # line number at offset ``counted``
    while True:
        i = data.find(b"frames", search)
        if i < 0:
            break
        ls = data.rfind(b"\n", 0, i) + 1
        m = _KEY.match(data, ls)
        if m is None:
            search = i + 6
            continue
        body = m.end()
        f = _FIRST.match(data, body)
        if f is None:
            search = body
            continue
        indent = f.group(1)
        end = _block_end(data, body, indent + b"- ")
        if end <= body:
            search = body
            continue
        line += data.count(b"\n", counted, ls)
        n = data.count(b"\n", body, end)
        blocks[line] = Block(body, end, line, n, indent)
        line += 1 + n
        counted = search = end
    return blocks


def cut_blocks(data: bytes, blocks: dict) -> bytes:
    """``data`` with the frame lines of ``blocks`` replaced by as many empty lines, so that
    the YAML parser sees only the header and line numbers stay right."""
    pieces, pos = [], 0
    for line in sorted(blocks):
        b = blocks[line]
        pieces += [data[pos:b.start], b"\n" * b.num_lines]
        pos = b.end
    pieces.append(data[pos:])
    return b"".join(pieces)


_TOKEN_CLASS = bytes.maketrans(b"0123456789.eE+-", b"d" * 15)


def frame_signature(kind: str, num_parts: int, width: int, has_time: bool) -> bytes:
    """The brackets and commas of one frame (numbers removed), e.g. ``[,,]``: ``num_parts``
    lists of ``width`` numbers for ``MultiSE3Seq``, else ``num_parts`` numbers."""
    if kind == "MultiSE3Seq":
        inner = b"[" + b"," * (width - 1) + b"]"
        body = b",".join([inner] * num_parts)
        return b"[" + (b"," if has_time else b"") + body + b"]"
    n = num_parts + (1 if has_time else 0)
    return b"[" + b"," * (n - 1) + b"]"


def parse_block(data: bytes, block: Block, signature: bytes, per_frame: int, on_bad):
    """The block's numbers as an (F, per_frame) array, or None when a line is not exactly
    ``<indent>- [ a, b, ... ]`` (one frame per line) with the bracket/comma structure
    ``signature``, numbers only where the signature has them (``per_frame`` of them).
    ``on_bad(frame, text)`` converts (or rejects) a token the fast parser does not handle;
    it is called for the same tokens, in the same order, by both implementations."""
    compiled = _compiled if _compiled is not _UNCHOSEN else _choose_parser()
    if compiled is not None:
        return _parse_block_compiled(compiled, data, block, signature, per_frame, on_bad)
    return _parse_block_numpy(data, block, signature, per_frame, on_bad)


def _chunks(data: bytes, block: Block):
    """``(start, stop)`` of the runs of whole lines of ``block`` converted per step."""
    pos = block.start
    while pos < block.end:
        stop = data.find(b"\n", min(pos + CHUNK_BYTES, block.end - 1)) + 1
        yield pos, stop
        pos = stop


def _parse_block_compiled(c, data, block, signature, per_frame, on_bad):
    """:func:`parse_block` by the C extension ``c``, chunk by chunk as the numpy path goes
    (whose on_bad calls for one chunk come before the next chunk's layout is checked)."""
    F = block.num_lines
    out = np.empty((F, per_frame))
    flat = out.reshape(-1)
    first = block.indent + b"- "
    done = 0
    for pos, stop in _chunks(data, block):
        if stop <= pos:
            return None
        r = c.parse_lines(data, pos, stop, first, signature, per_frame, flat, done * per_frame)
        if r is None:
            return None
        lines, slow = r
        if slow:
            base = done * per_frame
            index = np.array([base + i for i, _, _ in slow], dtype=np.int64)
            texts = [data[a:b] for _, a, b in slow]
            _convert_slow(flat, index, texts, lambda i, text: on_bad(i // per_frame, text))
        done += lines
    return out if done == F else None


def _parse_block_numpy(data, block, signature, per_frame, on_bad):
    """:func:`parse_block` by byte-string operations and :func:`parse_numbers`."""
    F = block.num_lines
    out = np.empty((F, per_frame))
    flat = out.reshape(-1)
    done = 0
    first = block.indent + b"- "
    marker = b"\n" + first
    layouts = _layouts(signature)
    for pos, stop in _chunks(data, block):
        chunk = data[pos:stop]
        if not chunk.startswith(first):
            return None
        s = chunk[len(first):-1].replace(marker, b"\n")   # each line without its "- " prefix
        t = s.translate(_TOKEN_CLASS)                      # every number character -> "d"
        skeleton = t.translate(None, b"d")
        for lay in layouts:
            lines = (len(skeleton) + 1) // (len(lay) + 1)
            if skeleton == _expected(lay, lines):
                break
        else:
            # any other spacing YAML allows in a flow sequence ("[a,b]", "[ a ,b ]"): the
            # skeleton without spaces must be the signature's
            skeleton = skeleton.translate(None, b" ")
            lines = (len(skeleton) + 1) // (len(signature) + 1)
            if skeleton != _expected(signature, lines):
                return None                                # another layout: the YAML reader
        # the skeleton has the chunk's line breaks, so one frame per line, provided every
        # line had its prefix removed (a line without one keeps its own "\n")
        if len(chunk) - 1 - len(s) != len(first) * lines:
            return None
        # a number glued to a bracket, or two numbers apart by spaces ("1 2" is ONE YAML
        # scalar), would be merged by deleting brackets and spaces
        if _glued(t):
            return None
        base = done * per_frame

        def bad(i, text, base=base):
            return on_bad((base + i) // per_frame, text)

        flat[base:base + lines * per_frame] = parse_numbers(s.translate(None, b" []"), bad)
        done += lines
    if done != F:
        return None
    return out


_SPACE_RUN = re.compile(rb"  +")


def _glued(t: bytes) -> bool:
    """True when ``t`` (numbers as "d") has a number before a "[" or after a "]", or two
    numbers apart by spaces only ("d[", "d [", "]d", "] d", "d d", "d   d")."""
    c = np.frombuffer(t, np.uint8)
    d = c == 100
    sp = c == 32
    if np.any(sp[:-1] & sp[1:]):                 # rare: runs of spaces made single
        return _glued(_SPACE_RUN.sub(b" ", t))
    if np.any(d[:-2] & sp[1:-1] & d[2:]):
        return True
    c = np.concatenate((_PAD2, c, _PAD2))       # brackets are few: look around each one
    before = np.flatnonzero(c == 91)
    after = np.flatnonzero(c == 93)
    return bool(np.any((c[before - 1] == 100) | ((c[before - 1] == 32) & (c[before - 2] == 100)))
                or np.any((c[after + 1] == 100) | ((c[after + 1] == 32) & (c[after + 2] == 100))))


_PAD2 = np.zeros(2, np.uint8)


def _layouts(signature: bytes) -> tuple:
    """The bracket/comma/space skeletons of one frame accepted by the fast path: Choreonoid's
    ``[ a, b ]`` (its writer, and roboio's) and PyYAML's flow style ``[a, b]``."""
    spaced = signature.replace(b"[", b"[ ").replace(b",", b", ").replace(b"]", b" ]")
    return spaced, signature.replace(b",", b", ")


_EXPECTED: dict = {}


def _expected(layout: bytes, lines: int) -> bytes:
    """``lines`` frames of ``layout``, one per line, as :func:`parse_block` sees a chunk."""
    key = (layout, lines)
    e = _EXPECTED.get(key)
    if e is None:
        if len(_EXPECTED) > 64:
            _EXPECTED.clear()
        e = _EXPECTED[key] = b"\n".join([layout] * lines)
    return e


# -- which implementation ---------------------------------------------------------------------

ENV = "ROBOIO_SEQ_PARSER"
PARSERS = ("compiled", "numpy")
_UNCHOSEN = object()
_compiled = _UNCHOSEN         # the C extension module in use, None for numpy; chosen on first use


def _load_compiled():
    from . import _seq_c          # ImportError when the extension was not built
    return _seq_c


def _choose_parser():
    global _compiled
    want = os.environ.get(ENV, "").strip().lower() or "auto"
    if want not in ("auto",) + PARSERS:
        warnings.warn(f"{ENV}={want!r} is not one of auto, compiled, numpy; using auto",
                      RoboioWarning, stacklevel=3)
        want = "auto"
    _compiled = None
    if want != "numpy":
        try:
            _compiled = _load_compiled()
        except ImportError as e:
            if want == "compiled":
                warnings.warn(f"{ENV}=compiled was asked for, but the compiled .seq parser is "
                              f"not available ({e}); using the numpy one (same results, slower)",
                              RoboioWarning, stacklevel=3)
    return _compiled


def get_parser() -> str:
    """The implementation of :func:`parse_block` in use: ``"compiled"`` or ``"numpy"``."""
    compiled = _compiled if _compiled is not _UNCHOSEN else _choose_parser()
    return "numpy" if compiled is None else "compiled"


def set_parser(name: str | None) -> str:
    """Use ``name`` (``"compiled"``, ``"numpy"``, or ``"auto"``/None to choose again as on
    first use); returns the previous one's name. ``"compiled"`` raises ImportError when the
    extension was not built."""
    global _compiled
    previous = get_parser()
    if name is None or name == "auto":
        _compiled = _UNCHOSEN
        _choose_parser()
    elif name in PARSERS:
        _compiled = _load_compiled() if name == "compiled" else None
    else:
        raise ValueError(f"unknown .seq parser {name!r}; expected one of {', '.join(PARSERS)} "
                         "or 'auto'")
    return previous


def available_parsers() -> list:
    """Names of the implementations that can be used here."""
    try:
        _load_compiled()
    except ImportError:
        return ["numpy"]
    return list(PARSERS)


# -- vectorised decimal parser -----------------------------------------------------------------

_U8 = np.uint64
_ZEROS = _U8(0x3030303030303030)      # "00000000"
_DOTS = _U8(0x2E2E2E2E2E2E2E2E)
_LOW7 = _U8(0x7F7F7F7F7F7F7F7F)
_HIGH4 = _U8(0xF0F0F0F0F0F0F0F0)
_SIXES = _U8(0x0606060606060606)
_BYTEPOS = _U8(0x0807060504030201)
_U10 = np.array([10 ** k for k in range(20)], dtype=np.uint64)
_TWO53 = _U8(1 << 53)
_P10 = 10.0 ** np.arange(23)
_E = np.arange(64) - 22                # decimal exponent e stored at index (e + 22) & 63
_MUL = np.where((_E > 0) & (_E <= 22), 10.0 ** np.clip(_E, 0, 22), 1.0)
_DIV = np.where((_E < 0) & (_E >= -22), 10.0 ** np.clip(-_E, 0, 22), 1.0)
_SIGN = np.array([1.0, -1.0])
_S1, _S7, _S56 = _U8(1), _U8(7), _U8(56)
_ONES = _U8(0xFFFFFFFFFFFFFFFF)


def _eight_digits(w):
    """Value of 8 ASCII digits packed little-endian (first character = most significant)."""
    w = ((w & _U8(0x0F0F0F0F0F0F0F0F)) * _U8(2561)) >> _U8(8)
    w = ((w & _U8(0x00FF00FF00FF00FF)) * _U8(6553601)) >> _U8(16)
    return ((w & _U8(0x0000FFFF0000FFFF)) * _U8(42949672960001)) >> _U8(32)


def _not_all_digits(w):
    return ((w & _HIGH4) != _ZEROS) | (((w + _SIXES) & _HIGH4) != _ZEROS)


def _keep_from(w, col):
    """Bytes of ``w`` before column ``col`` (0..8, int64) replaced by '0'."""
    keep = _ONES << (col.astype(np.uint64) << _U8(3))    # shifts >= 64 give 0 in numpy
    return ((w ^ _ZEROS) & keep) ^ _ZEROS


def _dot_bytes(w):
    """0x01 in every byte of ``w`` equal to '.', 0 elsewhere (exact zero-byte test)."""
    x = w ^ _DOTS
    return ~(((x & _LOW7) + _LOW7) | x | _LOW7) >> _S7


def parse_numbers(stream: bytes, on_bad) -> np.ndarray:
    """Convert the decimal numbers of ``stream``, separated by commas or line breaks (no
    spaces), to float64, exactly as ``float()`` / C ``strtod`` would.

    Each token's mantissa is gathered right-aligned into 16 bytes (two little-endian words),
    the sign and bytes of the previous token are replaced by '0', the dot is located and
    replaced by '0', and the digits are summed with SWAR multiplications. Tokens outside the
    exact fast path (mantissa longer than 16 characters, |decimal exponent| > 22, mantissa
    >= 2**53, ``inf``, hex, empty, malformed) go to ``on_bad(index, text) -> float``."""
    pad = 16
    buf = b"," * pad + stream + b"," + b"0" * pad
    u = np.frombuffer(buf, np.uint8)
    sp = np.flatnonzero((u == 44) | (u == 10))[pad - 1:]
    starts = sp[:-1] + 1
    ends = sp[1:]
    mend = ends.copy()                                  # end of the mantissa
    ep = np.flatnonzero((u | 0x20) == 0x65)             # 'e' / 'E'
    if len(ep):
        et = np.searchsorted(sp, ep) - 1
        mend[et] = ep
    mlen = mend - starts
    first = u.take(starts)
    neg = first == 45
    sgn = neg | (first == 43)
    skip = 16 - mlen + sgn                              # columns before the first digit
    bad = (skip < 0) | (mlen < 1)
    skip &= 15
    windows = np.ndarray((len(u) - 15,), dtype="V16", buffer=buf, offset=0, strides=(1,))
    w = windows.take(mend - 16).view("<u8").reshape(-1, 2)
    w0 = _keep_from(w[:, 0], np.minimum(skip, 8))
    w1 = _keep_from(w[:, 1], np.maximum(skip - 8, 0))
    d0 = _dot_bytes(w0)
    d1 = _dot_bytes(w1)
    ndot = np.bitwise_count(d0) + np.bitwise_count(d1)
    w0 += d0 << _S1                                     # '.' (0x2E) -> '0' (0x30)
    w1 += d1 << _S1
    bad |= (ndot > 1) | (mlen - sgn - ndot < 1) | _not_all_digits(w0) | _not_all_digits(w1)
    code0 = (d0 * _BYTEPOS) >> _S56                     # 8 - byte index of the dot, or 0
    code1 = (d1 * _BYTEPOS) >> _S56
    frac = np.where(code0 != 0, code0 + _S7, np.where(code1 != 0, code1 - _S1, _U8(0)))
    frac = frac.astype(np.int64)                        # digits after the dot
    mant = _eight_digits(w0) * _U8(100000000) + _eight_digits(w1)
    dotted = np.flatnonzero(ndot)
    if len(dotted):                                     # drop the '0' that replaced the dot
        pw = _U10.take(np.minimum(frac[dotted], 19))
        v = mant[dotted]
        mant[dotted] = (v // (pw * _U8(10))) * pw + v % pw
    exp10 = -frac
    if len(ep):
        _add_exponents(u, buf, ep, et, ends, exp10, bad)
    ok = ~bad & (mant < _TWO53) & (exp10 >= -22) & (exp10 <= 22)
    ix = (exp10 + 22) & 63
    # one correctly rounded IEEE operation: exact mantissa times or over an exact power of ten
    vals = (mant.astype(np.float64) * _SIGN.take(neg.view(np.uint8)) * _MUL.take(ix)) / _DIV.take(ix)
    slow = np.flatnonzero(~ok)
    if len(slow):
        texts = [buf[a:b] for a, b in zip(starts[slow].tolist(), ends[slow].tolist())]
        _convert_slow(vals, slow, texts, on_bad)
    return vals


def _add_exponents(u, buf, ep, et, ends, exp10, bad):
    """Add the exponent after each 'e' (at ``ep``, in token ``et``) to ``exp10``: an optional
    sign and 1 to 3 digits (longer exponents go to the slow path)."""
    xs = ep + 1
    xe = ends[et]
    sign = u.take(xs)
    xneg = sign == 45
    nd = xe - xs - (xneg | (sign == 43))                  # digits after the sign
    d1 = u.take(xe - 1).astype(np.int64) - 48
    d2 = u.take(xe - 2).astype(np.int64) - 48
    d3 = u.take(xe - 3).astype(np.int64) - 48
    okd = lambda d: (d >= 0) & (d <= 9)                   # noqa: E731
    xbad = (nd < 1) | (nd > 3) | ~okd(d1) | ((nd >= 2) & ~okd(d2)) | ((nd >= 3) & ~okd(d3))
    xv = d1 + np.where(nd >= 2, 10 * d2, 0) + np.where(nd >= 3, 100 * d3, 0)
    xbad[1:] |= et[1:] == et[:-1]                       # two 'e' in one token
    bad[et[xbad]] = True
    exp10[et] += np.where(xneg, -xv, xv)


def _convert_slow(vals, slow, texts, on_bad):
    """``vals[slow[k]]`` from ``texts[k]``, the tokens of one chunk outside the fast path:
    numpy's C parser (correctly rounded, like ``float()``) when it accepts them all as plain
    decimals, else ``on_bad(slow[k], text)`` one by one."""
    try:
        whole = np.fromstring(b",".join(texts), dtype=float, sep=",")
    except ValueError:
        whole = None
    if whole is not None and len(whole) == len(slow) and all(_PLAIN_DECIMAL.match(t) for t in texts):
        vals[slow] = whole
        return
    for i, t in zip(slow.tolist(), texts):
        vals[i] = on_bad(i, t.decode("latin-1"))


_PLAIN_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


# -- writing ------------------------------------------------------------------------------------

def exact9(x: np.ndarray) -> np.ndarray:
    """True where ``%.9g`` of the value reads back as exactly the same double."""
    a = np.abs(np.asarray(x, dtype=float))
    with np.errstate(all="ignore"):
        k = 8 - np.floor(np.log10(a))
        ok = np.isfinite(a) & (a > 0) & (np.abs(k) <= 22)
        k = np.where(ok, k, 0).astype(np.int64)
        p = _P10[np.abs(k)]
        m = np.rint(np.where(k >= 0, a * p, a / p))
        back = np.where(k >= 0, m / p, m * p)
        ok &= (back == a) & (m < 1e9)
    return ok | (a == 0)


def format_frames(values: np.ndarray, pieces: list) -> str:
    """One line per frame: ``pieces[0] v0 pieces[1] v1 ... v(K-1) pieces[K]`` for each row of
    ``values`` (F, K); numbers exactly round-trip (``%.9g`` when exact, else ``repr``)."""
    values = np.asarray(values, dtype=float)
    F, K = values.shape
    lit = [p.replace("%", "%%") for p in pieces]
    flat = values.reshape(-1)
    ok = exact9(flat)
    rest = np.flatnonzero(~ok)
    if len(rest) * 4 <= len(flat):          # outside the vectorised check's range: ask Python
        for i in rest.tolist():
            v = float(flat[i])
            ok[i] = math.isfinite(v) and float("%.9g" % v) == v

    def line(specs):
        return "".join(lit[i] + specs[i] for i in range(K)) + lit[K]

    if ok.all():
        fmt = line(["%.9g"] * K) * F
    else:
        fast = line(["%.9g"] * K)
        rows = ok.reshape(F, K)
        fmt = "".join(fast if r.all() else line(["%.9g" if o else "%r" for o in r.tolist()]) for r in rows)
    return fmt % tuple(flat.tolist())
