"""Resource limits of one load: the budget every reader honours.

Files come from anywhere, and a few kilobytes can claim gigabytes (a header saying
``element vertex 1000000000000``, DEF/USE doubling, a YAML alias bomb, a mount fan-out). Every
reader therefore asks its :class:`~roboio.context.LoadContext` before it descends, expands or
allocates:

* ``ctx.check_depth(depth, line=...)`` before each level of recursion on input nesting;
* ``ctx.charge("nodes", n, line=...)`` for what it is about to create (counters are
  cumulative over the whole load, includes and mounts included);
* ``ctx.check_claim("vertices", n, line=...)`` for a count a header claims, before
  allocating for it (not cumulative).

Exceeding a limit raises a :class:`~roboio.errors.FormatError` naming the file, the line and
the limit, and saying how to raise it. Defaults are generous enough for every real model
(the whole test corpus loads far below them) and small enough that a hostile file is refused
within a second and a few hundred megabytes.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Mapping, Optional, Union

__all__ = ["Limits", "DEFAULT_LIMITS", "as_limits"]


@dataclass(frozen=True)
class Limits:
    """Upper bounds for one top-level load (all counts are totals over every file read)."""

    max_depth: int = 256               # nesting of XML elements, YAML nodes, Inventor groups, ...
    max_files: int = 10_000            # files opened (includes, mounts, meshes, robots of a world)
    max_file_bytes: int = 2 << 30      # size of any one input file
    max_nodes: int = 20_000_000        # elements/nodes created, after DEF/USE, aliases, mounts
    max_vertices: int = 50_000_000     # mesh vertices and point-cloud points
    max_triangles: int = 50_000_000    # mesh triangles
    max_links: int = 100_000           # robot links
    max_frames: int = 50_000_000       # motion frames x values per frame
    max_alloc_bytes: int = 1 << 30     # one array a file or a request asks roboio to allocate

    def replace(self, **changes) -> "Limits":
        return replace(self, **changes)

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


DEFAULT_LIMITS = Limits()

#: counter name (used with ``ctx.charge``/``ctx.check_claim``) -> Limits field
COUNTERS = {"depth": "max_depth", "files": "max_files", "file_bytes": "max_file_bytes",
            "nodes": "max_nodes", "vertices": "max_vertices", "triangles": "max_triangles",
            "links": "max_links", "frames": "max_frames", "alloc_bytes": "max_alloc_bytes"}


def as_limits(value: Union[None, Limits, Mapping[str, int]]) -> Limits:
    """``None`` -> defaults; a :class:`Limits`; or a mapping of field names (``max_`` prefix
    optional) to values, applied over the defaults."""
    if value is None:
        return DEFAULT_LIMITS
    if isinstance(value, Limits):
        return value
    changes = {}
    for key, v in dict(value).items():
        name = key if key.startswith("max_") else "max_" + key
        if name not in COUNTERS.values():
            raise ValueError(f"unknown limit {key!r} (known: {', '.join(Limits.names())})")
        changes[name] = int(v)
    return DEFAULT_LIMITS.replace(**changes)


def limit_name(counter: str) -> str:
    try:
        return COUNTERS[counter]
    except KeyError:
        raise ValueError(f"unknown budget counter {counter!r} (known: {', '.join(COUNTERS)})") from None


def describe(counter: str, value: int, limit: int, what: Optional[str] = None) -> str:
    name = limit_name(counter)
    thing = f"{what}: " if what else ""
    return (f"{thing}{counter.replace('_', ' ')} {value:,} exceed the limit {name}={limit:,} "
            f"(raise it with roboio.load(..., limits={{'{name}': N}}) or --limit {name}=N)")
