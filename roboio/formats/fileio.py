"""Small file helpers shared by readers and writers."""
from __future__ import annotations

import errno
import math
import os
import tempfile

from ..errors import FormatError


def read_text(path: str) -> str:
    """File contents as text: UTF-8 (BOM stripped), falling back to Latin-1, so that no
    byte sequence makes a reader fail before it can report a located error."""
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


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
