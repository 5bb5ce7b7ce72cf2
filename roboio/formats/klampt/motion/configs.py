"""Klamp't configuration lists (``.configs``): Vectors ``N q1 ... qN`` one after another,
**no leading count**, read as an untimed :class:`~roboio.model.Trajectory`. Written one
Vector per line.
"""
from __future__ import annotations

from ....model import Trajectory
from ...fileio import atomic_write, read_bytes
from .._sniff import sniff_configs as sniff
from .._text import fmt_vector
from ._vectors import (config_tokens, lose_times_velocities, read_vectors, report_nonfinite,
                       stack_vectors)

__all__ = ["sniff", "loads", "read", "dumps", "write"]


def read(path: str, ctx) -> Trajectory:
    return loads(read_bytes(path, ctx), ctx)


def write(traj: Trajectory, path: str, report) -> None:
    atomic_write(path, dumps(traj, report, path))



def loads(data, ctx) -> Trajectory:
    tokens = config_tokens(data, ctx, "configuration list")
    vectors, starts = read_vectors(tokens, lambda k: f"configuration {k + 1}")
    if not vectors:
        ctx.warn("no configurations in the file", 1, kind="empty")
    traj = Trajectory(None, stack_vectors(vectors, starts, tokens, "configuration"))
    traj.source = ctx.path
    return traj


def dumps(traj: Trajectory, report, path=None) -> str:
    lose_times_velocities(traj, report)
    report_nonfinite(traj.milestones, report)
    return "".join(fmt_vector(q) + "\n" for q in traj.milestones)
