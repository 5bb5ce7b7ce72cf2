"""The checks of ``roboio validate``: every problem of a loaded file, as one line each.

One implementation for ``roboio validate FILE`` and ``roboio batch validate TREE``: the
readers' warnings (what the original program ignores or stops at), meshes that are missing
or do not load, inconsistent limits, NaNs, negative masses, links in no joint. Each problem
is a :class:`~roboio.errors.Diagnostic` with its severity (error, warning, note): a file
*fails* validation when it has an error (:func:`fails`; with ``strict``, a warning too).
"""
from __future__ import annotations

from contextlib import nullcontext

from .errors import Diagnostic, severity_of

__all__ = ["problems", "meshes_of", "fails"]


def fails(found, strict: bool = False) -> bool:
    """Whether problems ``found`` fail validation: any error, or with ``strict`` any warning
    (notes never do)."""
    bad = ("error", "warning") if strict else ("error",)
    return any(severity_of(p) in bad for p in found)


def _geoms(obj):
    from .model import Robot, World
    if isinstance(obj, Robot):
        return [(f"link {l.name!r}", l.geometry) for l in obj.links]
    if isinstance(obj, World):
        out = []
        for r in obj.robots:
            out += [(f"robot {r.name!r} {w}", g) for w, g in _geoms(r)]
        out += [(f"rigid object {o.name!r}", o.geometry) for o in obj.rigid_objects]
        out += [(f"terrain {t.name!r}", t.geometry) for t in obj.terrains]
        return out
    g = getattr(obj, "geometry", None)
    return [("geometry", g)] if g is not None else []


def _meshes(g):
    from .model import Group, TriangleMesh
    if isinstance(g, TriangleMesh):
        yield g
    elif isinstance(g, Group):
        for c in g.children:
            yield from _meshes(c)


def meshes_of(obj) -> list:
    """``[(where, mesh)]``: every mesh of ``obj`` that was found (not ``missing``), with the
    element it belongs to."""
    return [(where, m) for where, g in _geoms(obj) for m in _meshes(g) if not m.missing]


def _robot_checks(r, where=""):
    import numpy as np
    from .model import Robot
    out = []
    bad = np.nonzero(r.qmin > r.qmax)[0]
    for i in bad:
        out.append(Diagnostic(f"{where}link {r.link_names[i]!r}: qmin {r.qmin[i]} > qmax {r.qmax[i]}",
                              kind="invalid value"))
    for name in Robot.LIMIT_NAMES:
        arr = getattr(r, name)
        for i in np.nonzero(np.isnan(arr))[0]:
            out.append(Diagnostic(f"{where}link {r.link_names[i]!r}: {name} is NaN", kind="invalid value"))
    for l in r.links:
        if l.mass < 0:
            out.append(Diagnostic(f"{where}link {l.name!r}: negative mass {l.mass}", kind="invalid value"))
    covered = {i for j in r.joints for i in j.links}
    if r.joints:
        for i in range(r.num_links):
            if i not in covered:
                out.append(Diagnostic(f"{where}link {r.link_names[i]!r} belongs to no joint",
                                      kind="guessed"))
    return out


def problems(obj, bar=None) -> list:
    """Every problem of ``obj`` (what :func:`roboio.load` returned), one
    :class:`~roboio.errors.Diagnostic` each: its warnings, then meshes that fail to load,
    then each robot's checks. Loads every mesh; ``bar`` (a callable ``bar(total) -> context
    manager with .update()``, e.g. a progress bar) is told of each mesh loaded."""
    from .model import Robot, World
    found = list(getattr(obj, "warnings", []))
    meshes = meshes_of(obj)
    with (bar(len(meshes)) if bar else nullcontext()) as b:
        for where, m in meshes:
            try:
                m.load()
            except (ValueError, OSError) as e:
                found.append(Diagnostic(f"{where}: {e}", kind="unreadable file"))
            if b is not None:
                b.update()
    robots = [obj] if isinstance(obj, Robot) else (obj.robots if isinstance(obj, World) else [])
    for r in robots:
        found += _robot_checks(r, f"robot {r.name!r}: " if isinstance(obj, World) else "")
        for w in getattr(r, "warnings", []):
            if w not in found:
                found.append(w)
    return found
