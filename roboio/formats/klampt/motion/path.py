"""Klamp't linear path ``.path`` (also ``.txt`` files holding one, like
Klampt-examples' ``motions/tx90sway.txt``): milestones ``t N q1 ... qN``.

Reading follows the C++ reader (a whitespace stream, so both the Python-written
``0<TAB>42<TAB>q...`` and the C++-written ``0    63<TAB>q...`` lines work, blank lines are
fine and a milestone may span lines), but where the two Klamp't readers would disagree it is
an error instead: ``N`` must match the number of values (Python ignores ``N``), and anything
that is not a number is an error (C++ silently stops reading there). Decreasing times are a
warning (Klamp't loads them; its Python ``checkValid`` rejects them).

Writing: one milestone per line, ``t<TAB>N<TAB>q1 q2 ...`` with full-precision times (not the
``%f`` of Python's ``Trajectory.save``, which rounds times to microseconds).
"""
from __future__ import annotations

import numpy as np

from ....model import Trajectory
from ...fileio import as_text, atomic_write, fmt_float, read_bytes
from .._sniff import sniff_path as sniff
from .._text import Tokens, Where, fmt_vector
from ._vectors import report_nonfinite, stack_vectors

__all__ = ["sniff", "loads", "read", "dumps", "write"]


def loads(data, ctx) -> Trajectory:
    tokens = Tokens(as_text(data), Where(ctx.path))
    times, milestones, starts = [], [], []
    while not tokens.at_end:
        starts.append(tokens.i)
        k = len(times) + 1
        times.append(tokens.next_float(f"the time of milestone {k}"))
        milestones.append(tokens.vector(f"milestone {k}"))
    if not times:
        ctx.warn("no milestones in the file", 1, kind="empty")
    t = np.array(times, dtype=float)
    back = np.nonzero(np.diff(t) < 0)[0]
    if len(back):
        k = back[0] + 1
        ctx.warn(f"times decrease ({times[k - 1]!r} then {times[k]!r})", tokens.line(starts[k]), kind="invalid value")
    traj = Trajectory(t, stack_vectors(milestones, starts, tokens, "milestone"))
    traj.source = ctx.path
    return traj


def read(path: str, ctx) -> Trajectory:
    return loads(read_bytes(path, ctx), ctx)


def dumps(traj: Trajectory, report, path=None) -> str:
    times = traj.times
    if times is None:
        times = np.arange(traj.num_milestones, dtype=float)
        if traj.num_milestones:
            report.lose("untimed: written with times 0, 1, ..., N-1 (a .path needs times)",
                        kind="target default")
    if traj.velocities is not None:
        report.lose("velocities (a .path is piecewise linear)", kind="not written")
    report_nonfinite(traj.milestones, report)
    report_nonfinite(times, report)
    return "".join(f"{fmt_float(t)}\t{fmt_vector(q)}\n" for t, q in zip(times.tolist(), traj.milestones))


def write(traj: Trajectory, path: str, report) -> None:
    atomic_write(path, dumps(traj, report, path))
