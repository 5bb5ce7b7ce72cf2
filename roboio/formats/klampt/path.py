"""Klamp't linear path ``.path`` (spec §9.3; also ``.txt`` files holding one, like
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

from ...model import Trajectory
from ..fileio import atomic_write, fmt_float, read_text
from ..registry import FormatInfo, register
from ._motion_text import Tokens, Where, fmt_vector, is_number, parse_int
from .config import report_nonfinite, stack_vectors

__all__ = ["read_path", "write_path"]


def read_path(path: str, ctx) -> Trajectory:
    tokens = Tokens(read_text(path), Where(path))
    times, milestones, starts = [], [], []
    while not tokens.at_end:
        starts.append(tokens.i)
        k = len(times) + 1
        times.append(tokens.next_float(f"the time of milestone {k}"))
        milestones.append(tokens.vector(f"milestone {k}"))
    if not times:
        ctx.warn("no milestones in the file", 1)
    t = np.array(times, dtype=float)
    back = np.nonzero(np.diff(t) < 0)[0]
    if len(back):
        k = back[0] + 1
        ctx.warn(f"times decrease ({times[k - 1]!r} then {times[k]!r})", tokens.line(starts[k]))
    traj = Trajectory(t, stack_vectors(milestones, starts, tokens, "milestone"))
    traj.source = path
    return traj


def write_path(traj: Trajectory, path: str, report) -> None:
    times = traj.times
    if times is None:
        times = np.arange(traj.num_milestones, dtype=float)
        if traj.num_milestones:
            report.lose("untimed: written with times 0, 1, ..., N-1 (a .path needs times)")
    if traj.velocities is not None:
        report.lose("velocities (a .path is piecewise linear)")
    report_nonfinite(traj.milestones, report)
    report_nonfinite(times, report)
    atomic_write(path, "".join(f"{fmt_float(t)}\t{fmt_vector(q)}\n" for t, q in zip(times.tolist(), traj.milestones)))


def _sniff(head: bytes, path: str) -> bool:
    """First line ``t N q1 ... qN`` (possibly cut off by the end of ``head``)."""
    lines = head.decode("utf-8", "replace").split("\n")
    idx = next((i for i, line in enumerate(lines) if line.strip()), None)
    if idx is None:
        return False
    toks = lines[idx].split()
    if len(toks) < 2 or not is_number(toks[0]):
        return False
    whole_line = idx < len(lines) - 1      # else it may be cut off by the end of head
    n = parse_int(toks[1])
    if n is None or n < 0 or not all(is_number(t) for t in toks[2:len(toks) if whole_line else -1]):
        return False
    return len(toks) == n + 2 if whole_line else len(toks) <= n + 2


register(FormatInfo(
    name="klampt-path", extensions=(".path", ".txt"), kinds=("trajectory",),
    description="Klamp't linear path (t N q1 ... qN per line)", ecosystem="klampt",
    sniff=_sniff, read=read_path, write=write_path, writes=(Trajectory,)))
