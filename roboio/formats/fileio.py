"""Small file helpers shared by readers and writers."""
from __future__ import annotations

import errno
import math
import os
import stat
import tempfile

from ..errors import FormatError


def read_bytes(path: str, ctx=None) -> bytes:
    """The whole file as bytes. Only regular files are read (a FIFO or device would block
    or never end); with a context, the file's size is checked against ``max_file_bytes``
    before anything is read."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file (FIFO, device or socket)"
        raise FormatError(path, None, None, f"is {kind}; roboio reads regular files only")
    if ctx is not None:
        ctx.check_claim("file_bytes", st.st_size, what="file size")
    with open(path, "rb") as f:
        return f.read()


def decode_text(data: bytes) -> str:
    """Bytes as text: UTF-8 (BOM stripped), falling back to Latin-1, so that no byte
    sequence makes a reader fail before it can report a located error."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def as_bytes(data) -> bytes:
    """What a ``loads`` function was given, as bytes (text is encoded as UTF-8)."""
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def as_text(data) -> str:
    """What a ``loads`` function was given, as text (bytes through :func:`decode_text`)."""
    return data if isinstance(data, str) else decode_text(bytes(data))


def read_text(path: str, ctx=None) -> str:
    """File contents as text (see :func:`read_bytes` and :func:`decode_text`)."""
    return decode_text(read_bytes(path, ctx))


def atomic_write(path: str, data, mode: str = "w") -> None:
    """Write ``data`` (str or bytes) to ``path`` through a temporary file in the same
    directory and a rename, so a failure never leaves a half-written file."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    binary = isinstance(data, (bytes, bytearray, memoryview))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": "\n"})) as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def fmt_float(x) -> str:
    """Shortest text that reads back as exactly ``x`` (``repr``), with ``inf``/``-inf``/``nan``
    spelled the way Klamp't and C ``strtod`` accept them."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    r = repr(x)
    return r[:-2] if r.endswith(".0") else r


def fmt_floats(values, sep: str = " ") -> str:
    return sep.join(fmt_float(v) for v in values)


def fmt_float_list(values) -> list:
    """:func:`fmt_float` of every value of an array, flattened (fast for large arrays)."""
    import numpy as np
    out = list(map(repr, np.asarray(values, dtype=np.float64).ravel().tolist()))
    return [s[:-2] if s.endswith(".0") else s for s in out]


def line_of(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset in ``text``."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def require_file(path: str) -> None:
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    if os.path.isdir(path):
        raise FormatError(path, None, None, "is a directory, not a file")
