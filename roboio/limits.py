"""Resource limits of one load: the budget every reader honours.

Files come from anywhere, and a few kilobytes can claim gigabytes (a header saying
``element vertex 1000000000000``, DEF/USE doubling, a YAML alias bomb, a mount fan-out). Every
reader therefore asks its :class:`~roboio.context.LoadContext` before it descends, expands or
allocates:

* ``ctx.check_depth(depth, line=...)`` before each level of recursion on input nesting;
* ``ctx.charge("nodes", n, line=...)`` for what it is about to create (counters are
  cumulative over the whole load, includes and mounts included); ``ctx.charge("copies", n)``
  for what it creates by copying what the file already holds (a ``USE``, an include, an
  alias, a robot mount): the cheap way for a few bytes to ask for millions of nodes, so it
  has its own, smaller limit;
* ``ctx.check_claim("vertices", n, line=...)`` for a count a header claims, before
  allocating for it (not cumulative).

Exceeding a limit raises a :class:`~roboio.errors.FormatError` naming the file, the line and
the limit, and saying how to raise it. Defaults are generous enough for every real model
(the whole test corpus loads far below them) and small enough that a hostile file is refused
within a second and a few hundred megabytes.
"""
from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, fields, replace
from typing import Mapping, Optional, Union

__all__ = ["Limits", "DEFAULT_LIMITS", "as_limits", "using", "current", "check_alloc",
           "parse_limit", "recursion_room"]


@dataclass(frozen=True)
class Limits:
    """Upper bounds for one top-level load (all counts are totals over every file read).

    The defaults keep a hostile file within a few hundred MB and are far above what real
    models need (the test corpus peaks at: depth 17, 100 files, 11,502 nodes, 1,417 copies,
    203,592 vertices, 67,938 triangles, 112 links, 228,672 frame values, 7 MB arrays)."""

    max_depth: int = 256               # nesting of XML elements, YAML nodes, Inventor groups, ...
    max_files: int = 2_000             # files opened (includes, mounts, meshes, robots of a world)
    max_file_bytes: int = 2 << 30      # size of any one input file
    max_document_bytes: int = 8 << 20   # one robot/world/motion/contact document (XML, YAML,
                                       # Klamp't text: parsed element by element; meshes and
                                       # COLLADA robots, parsed in bulk, have max_file_bytes)
    max_nodes: int = 2_000_000         # elements/nodes created, after DEF/USE, aliases, mounts
    max_copies: int = 20_000           # nodes/links made by copying what a file already holds
                                       # (USE, File/Inline includes, YAML aliases, robot mounts)
    max_vertices: int = 10_000_000     # mesh vertices and point-cloud points (240 MB as float64;
                                       # 15M let copies of one mesh reach 460 MB before refusal)
    max_triangles: int = 5_000_000     # mesh triangles (a 250 MB binary STL)
    max_links: int = 100_000           # robot links
    max_collision_pairs: int = 1_000_000   # a robot's self-collision pairs (quadratic in its
                                       # links: 500 mounts of a 9-link gripper ask for 10^7)
    max_frames: int = 50_000_000       # motion frames x values per frame (400 MB as float64)
    max_alloc_bytes: int = 512 << 20   # one array a file or a request asks roboio to allocate

    def replace(self, **changes) -> "Limits":
        return replace(self, **changes)

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


DEFAULT_LIMITS = Limits()

#: counter name (used with ``ctx.charge``/``ctx.check_claim``) -> Limits field
COUNTERS = {"depth": "max_depth", "files": "max_files", "file_bytes": "max_file_bytes",
            "document_bytes": "max_document_bytes",
            "nodes": "max_nodes", "copies": "max_copies", "vertices": "max_vertices",
            "triangles": "max_triangles",
            "links": "max_links", "pairs": "max_collision_pairs", "frames": "max_frames", "alloc_bytes": "max_alloc_bytes"}


_CURRENT: contextvars.ContextVar = contextvars.ContextVar("roboio_limits", default=None)


def current() -> Limits:
    """The limits in force: those of the innermost :func:`using` block, else the defaults."""
    return _CURRENT.get() or DEFAULT_LIMITS


@contextlib.contextmanager
def using(limits: Union[None, Limits, Mapping[str, int]]):
    """Make ``limits`` (as for :func:`as_limits`, applied over the limits in force) the
    default of every load and request inside the block (the CLI's ``--limit``)."""
    token = _CURRENT.set(as_limits(limits))
    try:
        yield current()
    finally:
        _CURRENT.reset(token)


def as_limits(value: Union[None, Limits, Mapping[str, int]]) -> Limits:
    """``None`` -> the limits in force (:func:`current`: the defaults unless inside a
    :func:`using` block); a :class:`Limits`; or a mapping of field names (``max_`` prefix
    optional) to values, applied over the limits in force."""
    if value is None:
        return current()
    if isinstance(value, Limits):
        return value
    changes = {}
    for key, v in dict(value).items():
        name = key if key.startswith("max_") else "max_" + key
        if name not in COUNTERS.values():
            raise ValueError(f"unknown limit {key!r} (known: {', '.join(Limits.names())})")
        if isinstance(v, bool) or int(v) != v or int(v) < 0:
            raise ValueError(f"limit {name} must be a non-negative integer, not {v!r}")
        changes[name] = int(v)
    return current().replace(**changes)


_SUFFIXES = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12,
             "ki": 1 << 10, "mi": 1 << 20, "gi": 1 << 30, "ti": 1 << 40}


def parse_limit(text: str) -> tuple:
    """``"NAME=VALUE"`` -> ``(field name, int)``; VALUE may use ``_`` separators, an exponent
    (``1e6``) or a suffix ``k``/``M``/``G``/``T`` (powers of 1000) or ``Ki``/``Mi``/``Gi``/
    ``Ti`` (powers of 1024, with or without a trailing ``B``). ValueError when malformed."""
    name, sep, value = text.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or not name:
        raise ValueError(f"expected NAME=VALUE, got {text!r} (names: {', '.join(Limits.names())})")
    full = name if name.startswith("max_") else "max_" + name
    if full not in COUNTERS.values():
        raise ValueError(f"unknown limit {name!r} (known: {', '.join(Limits.names())})")
    v = value.strip().replace("_", "")
    low = v.lower()
    if low.endswith("b") and low[:-1][-1:].isalpha():
        low = low[:-1]
    scale = 1
    for suffix in sorted(_SUFFIXES, key=len, reverse=True):
        if low.endswith(suffix):
            scale, low = _SUFFIXES[suffix], low[:-len(suffix)]
            break
    try:
        number = float(low) if any(c in low for c in ".e") else int(low)
    except ValueError:
        raise ValueError(f"limit {full}: {value!r} is not a number") from None
    if not number >= 0 or number * scale >= 2**63:
        raise ValueError(f"limit {full}: {value!r} must be between 0 and 2**63")
    return full, int(number * scale)


def check_alloc(nbytes: float, what: str, *, count: Optional[float] = None,
                counter: Optional[str] = None, unit: Optional[str] = None,
                limits: Optional[Limits] = None) -> None:
    """Refuse a request that would allocate ``nbytes`` (and, with ``counter``, hold ``count``
    ``unit``s of it against that counter's limit: ``frames``, ``vertices``, ...) beyond the
    limits in force, with the size it would need. Raises :class:`~roboio.errors.LimitExceeded`."""
    from .errors import LimitExceeded
    lim = limits or current()
    if counter is not None and count is not None:
        name = limit_name(counter)
        if count > getattr(lim, name):
            raise LimitExceeded(f"{what} would need {_count(count)} {unit or counter} (about "
                                f"{_size(nbytes)}), over the limit {name}={getattr(lim, name):,} "
                                f"(raise it with --limit {name}=N or limits={{'{name}': N}})")
    if nbytes > lim.max_alloc_bytes:
        raise LimitExceeded(f"{what} would allocate {_size(nbytes)}, over the limit "
                            f"max_alloc_bytes={lim.max_alloc_bytes:,} (raise it with --limit "
                            f"max_alloc_bytes=N or limits={{'max_alloc_bytes': N}})")


def _count(n: float) -> str:
    return f"{int(n):,}" if n < 1e9 else f"{n:.3g}"


def _size(nbytes: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}" if nbytes < 1e18 else f"{nbytes:.3g} bytes"
    return f"{int(nbytes)} bytes"


def limit_name(counter: str) -> str:
    try:
        return COUNTERS[counter]
    except KeyError:
        raise ValueError(f"unknown budget counter {counter!r} (known: {', '.join(COUNTERS)})") from None


def describe(counter: str, value: int, limit: int, what: Optional[str] = None) -> str:
    name = limit_name(counter)
    thing = f"{what}: " if what else ""
    return (f"{thing}{counter.replace('_', ' ')} {value:,}, over the limit {name}={limit:,} "
            f"(raise it with roboio.load(..., limits={{'{name}': N}}) or --limit {name}=N)")


@contextlib.contextmanager
def recursion_room(levels: int, frames_per_level: int = 8):
    """Make sure Python's recursion limit leaves room for ``levels`` more levels of a reader
    that recurses on input nesting (already bounded by ``max_depth``), ``frames_per_level``
    Python frames each. The limit is raised for the block only, never lowered. (Since Python
    3.11, calls between Python functions do not use the C stack, so this is safe.)"""
    import sys
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    need = depth + levels * frames_per_level + 200
    old = sys.getrecursionlimit()
    if need > old:
        sys.setrecursionlimit(need)
    try:
        yield
    finally:
        if need > old:
            sys.setrecursionlimit(old)
