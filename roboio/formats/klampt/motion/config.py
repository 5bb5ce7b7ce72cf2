"""Klamp't configuration files (``.config``): one Vector ``N q1 ... qN``, read as an untimed
:class:`~roboio.model.Trajectory` with one milestone. Anything after the vector is an error
(Klamp't's Python reader rejects it; the C++ reader silently ignores it). No comments, no
line structure: the numbers are a whitespace-separated stream. The writer emits
``N<TAB>v1 v2 ...`` with full-precision numbers, which both Klamp't readers accept.
"""
from __future__ import annotations

from ....errors import OutputError
from ....model import Trajectory
from ...fileio import atomic_write, read_bytes
from .._sniff import sniff_config as sniff
from .._text import fmt_vector
from ._vectors import config_tokens, lose_times_velocities, report_nonfinite

__all__ = ["sniff", "loads", "read", "dumps", "write"]


def read(path: str, ctx) -> Trajectory:
    return loads(read_bytes(path, ctx), ctx)


def write(traj: Trajectory, path: str, report) -> None:
    atomic_write(path, dumps(traj, report, path))



def loads(data, ctx) -> Trajectory:
    tokens = config_tokens(data, ctx, "configuration")
    if tokens.at_end:
        raise tokens.error("empty file: expected a configuration 'N q1 ... qN'")
    q = tokens.vector("the configuration")
    if not tokens.at_end:
        raise tokens.error(f"unexpected {tokens.peek()!r} after the configuration "
                           f"(a .config holds exactly one 'N q1 ... qN')")
    traj = Trajectory(None, q.reshape(1, -1))
    traj.source = ctx.path
    return traj


def dumps(traj: Trajectory, report, path=None) -> str:
    if traj.num_milestones == 0:
        raise OutputError(None, "an empty trajectory has no configuration to write to a .config")
    if traj.num_milestones > 1:
        report.lose(f"milestones 2-{traj.num_milestones} (a .config holds one configuration)",
                    kind="not written")
    lose_times_velocities(traj, report)
    report_nonfinite(traj.milestones[0], report)
    return fmt_vector(traj.milestones[0]) + "\n"
