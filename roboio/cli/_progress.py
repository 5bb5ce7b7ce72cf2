"""Progress on stderr for long work, drawn by tqdm.

A bar appears only when stderr is a terminal, not with ``--quiet`` (nor with the environment
variable ``ROBOIO_NO_PROGRESS`` set), and only once the work has taken :data:`DELAY` seconds
(``ROBOIO_PROGRESS_DELAY``, default 1), so short commands print nothing extra; it is erased
when the work ends. Work whose size is known gets a bar (``bar(total=...)``: frames,
samples, files, meshes); work that cannot report its progress (parsing one large file,
writing it) gets a line with what is being done and the elapsed time (``activity(...)``).
A progress line and output printed as it is computed would interleave on one terminal, so
loops that print set ``prints=True`` and then show a bar only when their output goes
elsewhere (a file, a pipe).

tqdm is imported only when a bar is actually drawn.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager

__all__ = ["set_quiet", "enabled", "bar", "activity", "DELAY", "LARGE_FILE"]

DELAY = float(os.environ.get("ROBOIO_PROGRESS_DELAY", 1.0))   # seconds before anything is drawn
REFRESH = 0.25              # seconds between redraws of an idle bar
LARGE_FILE = 20 * 2 ** 20   # bytes: reading a file this large announces itself

_quiet = False


def set_quiet(quiet: bool) -> None:
    global _quiet
    _quiet = bool(quiet)


def enabled(prints: bool = False) -> bool:
    """Whether progress is drawn: stderr is a terminal, no ``--quiet``, and (for ``prints``
    loops) stdout is not the same terminal."""
    if _quiet or os.environ.get("ROBOIO_NO_PROGRESS"):
        return False
    try:
        if not sys.stderr.isatty() or (prints and sys.stdout.isatty()):
            return False
    except (AttributeError, ValueError):
        return False
    import importlib.util
    return importlib.util.find_spec("tqdm") is not None     # a dependency; absent, no bars


def _terminal_columns() -> int:
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return 0


class _Null:
    """What :func:`bar` returns when nothing is drawn."""

    def update(self, n=1):
        pass

    def set_description(self, desc):
        pass

    def write(self, text: str, file=None):
        print(text, file=file or sys.stdout)

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Bar:
    """A tqdm bar redrawn by a daemon thread while the work between updates is slow (so a
    bar appears after :data:`DELAY` even when updates are rare) and erased on close."""

    def __init__(self, total, desc, unit, bar_format=None, unit_scale=False):
        from tqdm import tqdm
        kwargs = dict(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False,
                      delay=DELAY, dynamic_ncols=True, mininterval=REFRESH,
                      unit_scale=unit_scale)
        if _terminal_columns() == 0:
            # a terminal that reports no size (a fresh pseudo-terminal, some serial consoles):
            # tqdm would draw nothing in 0 columns and rows
            kwargs.update(dynamic_ncols=False, ncols=80, nrows=24)
        if bar_format:
            kwargs["bar_format"] = bar_format
        self._t = tqdm(**kwargs)
        self._start = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._thread.start()

    def _tick(self):
        while not self._stop.wait(REFRESH):
            if time.monotonic() - self._start >= DELAY:
                self._t.refresh()

    def update(self, n=1):
        self._t.update(n)

    def set_description(self, desc):
        self._t.set_description_str(desc, refresh=False)

    def write(self, text: str, file=None):
        """Print a line (stdout by default) above the bar without breaking it."""
        self._t.write(text, file=file or sys.stdout)

    def close(self):
        self._stop.set()
        self._thread.join()
        self._t.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def bar(total=None, desc: str = "", unit: str = "it", prints: bool = False, unit_scale=False):
    """A progress bar over ``total`` units (use as a context manager; ``.update(n)``), or a
    no-op object when progress is not drawn (see :func:`enabled`)."""
    if not enabled(prints):
        return _Null()
    return _Bar(total, desc, unit, unit_scale=unit_scale)


@contextmanager
def activity(desc: str):
    """``desc`` and the elapsed time on stderr while the ``with`` block runs, for work that
    cannot report its progress (shown after :data:`DELAY` seconds, like :func:`bar`)."""
    if not enabled():
        yield
        return
    b = _Bar(None, desc, "", bar_format="{desc} ... {elapsed}")
    try:
        yield
    finally:
        b.close()


def file_activity(verb: str, path: str):
    """:func:`activity` for reading or writing ``path``, naming its size when large."""
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    what = f"{verb} {path}" + (f" ({size / 2 ** 20:.0f} MB)" if size >= LARGE_FILE else "")
    return activity(what)
