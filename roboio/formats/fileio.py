"""Small file helpers shared by readers and writers."""
from __future__ import annotations

import contextlib
import contextvars
import errno
import math
import os
import re
import signal
import stat
import threading

from ..errors import FormatError, OutputError


_MAX_STEM = 100     # characters of a file name made from a model name (file systems allow 255 bytes)


def safe_file_stem(name: str, default: str = "element", strip: str = "._") -> str:
    """A file name stem made from a model's element name (a robot, object, mesh label):
    characters other than letters, digits, ``._-`` become ``_``, leading/trailing ``strip``
    characters go, and a name longer than 100 characters keeps its first 80 and a checksum
    of the whole (a name taken from a file may be any length; the file system's is not)."""
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip(strip)
    if len(s) > _MAX_STEM:
        import zlib
        s = f"{s[:80]}_{zlib.crc32(s.encode()):08x}"
    return s or default


def read_bytes(path: str, ctx=None, document: bool = True) -> bytes:
    """The whole file as bytes. Only regular files are read (a FIFO or device would block
    or never end); with a context, the file's size is checked before anything is read
    against ``max_document_bytes`` (a robot, world, motion or contact document, parsed
    element by element) or, with ``document=False``, ``max_file_bytes`` (meshes, point
    clouds and COLLADA robots, parsed in bulk), and the file is recorded in ``ctx.files``."""
    st = check_regular_input(path)
    if ctx is None:
        with open(path, "rb") as f:
            return f.read()
    counter, what = (("document_bytes", "document size") if document else
                     ("file_bytes", "file size"))
    ctx.check_claim(counter, st.st_size, what=what)
    ctx.note_file(path)
    limit = ctx.limit(counter)
    with open(path, "rb") as f:
        # the size stat gave and one byte more: asking read() for the whole limit allocates
        # that much (up to 2 GiB) at once, which costs more than reading a small file; a
        # file that grew after stat is read on, up to the limit
        data = f.read(min(st.st_size, limit) + 1)
        if len(data) > st.st_size:
            data += f.read(max(limit + 1 - len(data), 0))
    if len(data) > limit:
        ctx.check_claim(counter, len(data), what=what)
    return data


def check_regular_input(path) -> os.stat_result:
    """``os.stat(path)`` of an input file; FormatError for anything but a regular file (a
    FIFO would block, a device never end) and for roboio's own temporary files; raised
    before the file is opened."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise FormatError(path, None, None, f"is {file_kind(st.st_mode)}; roboio reads regular files only")
    refuse_temp_file(path)
    return st


def file_kind(mode: int) -> str:
    """``"a directory"``, ``"a FIFO"``, ... for an ``st_mode``."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "not a regular file"


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


def cut_inside_block(text: str):
    """The last line's number when ``text`` looks cut short: it ends without a newline and
    its last non-blank line is indented (inside a block of an indentation-structured file,
    a YAML mapping or list); else None. A file whose last line is a complete top-level line
    without a newline is common and not reported."""
    if not text or text.endswith(("\n", "\r")):
        return None
    body = text.rstrip()
    last = body[body.rfind("\n") + 1:]
    if not last or not (last[0] in " \t" or last.lstrip().startswith("- ")):
        return None
    return text.count("\n") + 1


def read_text(path: str, ctx=None, document: bool = True) -> str:
    """File contents as text (see :func:`read_bytes` and :func:`decode_text`)."""
    return decode_text(read_bytes(path, ctx, document))


# -- writing ---------------------------------------------------------------------------
#
# Every file roboio writes (the output and every side file: robots of a world, meshes of a
# robot) goes through :func:`atomic_write`:
#
# * the data goes to a temporary file next to the target, named ``.NAME.roboio-PID-XXXX.tmp``
#   (recognisable: never read as input, see :func:`is_temp_file`), then replaces the target
#   with one rename, so readers of the target see the old or the new file, never a part;
# * the new file gets the mode an ordinary ``open(path, "w")`` would give it: an existing
#   file's permission bits (and, where allowed, its group and owner), else ``0666 & ~umask``;
# * a symlink is written through (its target is replaced, the link stays);
# * devices, FIFOs, sockets and directories are refused (:class:`~roboio.errors.OutputError`),
#   and so is any file given to :func:`protect_inputs` (the files being converted);
# * the temporary file is removed on any exception, on Ctrl-C and on SIGTERM/SIGHUP (the
#   process then dies of the signal as it would have); temporary files left by a process
#   killed with SIGKILL are removed by the next write of the same target on this machine.

TEMP_INFIX = ".roboio-"
_TEMP_RE = re.compile(r"^\..+\.roboio-\d+-[0-9a-z]{8}\.tmp$")
_PROTECTED: contextvars.ContextVar = contextvars.ContextVar("roboio_protected_inputs", default=None)


def is_temp_file(path) -> bool:
    """True for the name of a temporary file of :func:`atomic_write` (never read as input)."""
    name = os.path.basename(os.fspath(path))
    return TEMP_INFIX in name and bool(_TEMP_RE.match(name))


def refuse_temp_file(path) -> None:
    if is_temp_file(path):
        raise FormatError(path, None, None, "is a temporary file left by an interrupted roboio "
                          "write, not an input (delete it)")


def _file_id(st) -> tuple:
    return (st.st_dev, st.st_ino)


@contextlib.contextmanager
def protect_inputs(paths, allow: bool = False):
    """Within the block, :func:`atomic_write` refuses to replace any of ``paths`` (compared as
    files: symlinks and hard links to them count too) unless ``allow``."""
    ids = {}
    if not allow:
        for p in paths:
            try:
                ids[_file_id(os.stat(p))] = os.fspath(p)
            except (OSError, ValueError, TypeError):
                continue
    outer = _PROTECTED.get()
    if outer:
        ids = {**outer, **ids}
    token = _PROTECTED.set(ids)
    try:
        yield
    finally:
        _PROTECTED.reset(token)


def _umask() -> int:
    try:   # Linux >= 4.7 shows it without changing it (os.umask would, racing other threads)
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def write_target(path) -> tuple:
    """``(target, stat or None)``: where writing ``path`` really writes (symlinks followed)
    and what is there now. Raises :class:`~roboio.errors.OutputError` for what roboio does
    not write over: a directory, a device, a FIFO, a socket, a protected input."""
    path = os.fspath(path)
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            raise OutputError(path, "is a directory; give a file name to write")
        raise OutputError(path, f"is {file_kind(st.st_mode)}; roboio writes regular files only "
                          "(write to a file, then copy it)")
    if st is not None and not os.access(target, os.W_OK):
        # an ordinary write would fail here; a rename would silently get around it
        raise PermissionError(errno.EACCES, "cannot write: Permission denied (the file is "
                              "read-only)", path)
    protected = _PROTECTED.get()
    if st is not None and protected and _file_id(st) in protected:
        src = protected[_file_id(st)]
        same = "" if os.path.realpath(src) == target else f" ({src})"
        raise OutputError(path, f"is an input of this conversion{same}; refusing to overwrite it "
                          "(use --force, or overwrite_input=True in Python)")
    return target, st


def remove_stale_temps(path: str) -> None:
    """Remove the temporary files that writes of ``path`` by processes now gone left
    behind (a worker killed in the middle of :func:`atomic_write`)."""
    directory, base = os.path.split(os.fspath(path))
    _remove_stale_temps(directory or ".", base)


def _remove_stale_temps(directory: str, base: str) -> None:
    """Remove temporary files of ``base`` left by processes of this machine that are gone."""
    prefix = _temp_prefix(base)
    try:
        entries = [e for e in os.scandir(directory) if e.name.startswith(prefix)]
    except OSError:
        return
    for e in entries:
        if not _TEMP_RE.match(e.name):
            continue
        pid = int(e.name[len(prefix):].split("-", 1)[0])
        if pid == os.getpid() or _alive(pid):
            continue
        try:
            os.unlink(e.path)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def _temp_prefix(base: str) -> str:
    """``.NAME.roboio-`` for the output ``NAME``, cut to 150 bytes of ``NAME`` so that the
    temporary name fits where the output's name (up to 255 bytes) fits."""
    return "." + os.fsdecode(os.fsencode(base)[:150]) + TEMP_INFIX


def _create_temp(directory: str, base: str):
    for _ in range(100):
        import secrets          # (only writers need it: not imported by a load)
        name = f"{_temp_prefix(base)}{os.getpid()}-{secrets.token_hex(4)}.tmp"
        tmp = os.path.join(directory, name)
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


class _Signalled(BaseException):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _signals_raise():
    """SIGTERM/SIGHUP with their default action (death) raise :class:`_Signalled` inside the
    block, so that clean-up runs; the caller re-delivers the signal afterwards."""
    installed = {}
    if threading.current_thread() is threading.main_thread():
        def handler(signum, frame):
            raise _Signalled(signum)
        for name in ("SIGTERM", "SIGHUP"):
            sig = getattr(signal, name, None)
            if sig is not None and signal.getsignal(sig) is signal.SIG_DFL:
                try:
                    signal.signal(sig, handler)
                    installed[sig] = signal.SIG_DFL
                except (ValueError, OSError):
                    pass
    try:
        yield
    finally:
        for sig, old in installed.items():
            signal.signal(sig, old)


def atomic_write(path: str, data, mode: str = "w") -> None:
    """Write ``data`` (str, written as UTF-8 with ``\\n`` line ends, or bytes, or a function
    that writes the content to the binary file object it is given) to ``path`` by the rules
    above. OSErrors name ``path`` (not the temporary file)."""
    path = os.fspath(path)
    target, st = write_target(path)
    directory, base = os.path.split(target)
    if isinstance(data, str):
        data = data.encode("utf-8")
    doing = f"cannot create the directory {directory or '.'}"
    try:
        os.makedirs(directory or ".", exist_ok=True)
        _remove_stale_temps(directory or ".", base)
        file_mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
        with _signals_raise():
            tmp = None
            try:
                doing = f"cannot create a file in {directory or '.'}"
                fd, tmp = _create_temp(directory or ".", base)
                doing = "cannot write"
                with os.fdopen(fd, "wb") as f:
                    if callable(data):
                        data(f)
                    else:
                        f.write(data)
                    f.flush()
                    if st is not None:
                        _keep_owner(f.fileno(), st)
                    os.fchmod(f.fileno(), file_mode)
                    os.fsync(f.fileno())
                doing = "cannot replace"
                os.replace(tmp, target)
            except BaseException as exc:
                if tmp is not None:
                    try:
                        os.unlink(tmp)
                    except OSError:
                        pass
                if isinstance(exc, _Signalled):
                    signal.signal(exc.signum, signal.SIG_DFL)
                    os.kill(os.getpid(), exc.signum)
                raise
    except OSError as e:
        if e.filename == path:
            raise
        raise type(e)(e.errno, f"{doing}: {e.strerror or e}", path) from None


def _keep_owner(fd: int, st) -> None:
    """Give the new file the old one's group and owner where the system allows it."""
    if (st.st_uid, st.st_gid) == (os.geteuid(), os.getegid()):
        return
    try:
        os.fchown(fd, st.st_uid if os.geteuid() == 0 else -1, st.st_gid)
    except OSError:
        pass


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
    """FileNotFoundError for a missing file, FormatError for a directory, FIFO, device,
    socket or roboio temporary file (checked without opening it); the OSError of a path
    that exists but cannot be followed (a symbolic link loop, a name too long, a folder
    without search permission), naming ``path``."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):   # (ValueError: a NUL byte)
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path) from None
    except OSError as e:
        raise OSError(e.errno, e.strerror, path) from None
    if not stat.S_ISREG(st.st_mode):
        raise FormatError(path, None, None, f"is {file_kind(st.st_mode)}; roboio reads regular files only")
    refuse_temp_file(path)
