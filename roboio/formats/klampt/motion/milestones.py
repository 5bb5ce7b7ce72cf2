"""Klamp't milestone lists (``.milestones``): pairs ``N q...  N dq...``, read as an untimed
:class:`~roboio.model.Trajectory` with ``velocities``. Written one pair per line
(``N<TAB>q...<TAB>N<TAB>dq...``).
"""
from __future__ import annotations

import numpy as np

from ....model import Trajectory
from ...fileio import atomic_write, read_bytes
from .._sniff import sniff_milestones as sniff
from .._text import fmt_vector
from ._vectors import (config_tokens, lose_times_velocities, read_vectors, report_nonfinite,
                       stack_vectors)

__all__ = ["sniff", "loads", "read", "dumps", "write"]


def read(path: str, ctx) -> Trajectory:
    return loads(read_bytes(path, ctx), ctx)


def write(traj: Trajectory, path: str, report) -> None:
    atomic_write(path, dumps(traj, report, path))



def loads(data, ctx) -> Trajectory:
    tokens = config_tokens(data, ctx, "milestone list")
    vectors, starts = read_vectors(
        tokens, lambda k: f"{'configuration' if k % 2 == 0 else 'velocity'} of milestone {k // 2 + 1}")
    if len(vectors) % 2:
        raise tokens.error(f"milestone {len(vectors) // 2 + 1} has a configuration but no velocity "
                           f"(a .milestones file holds pairs 'N q...  N dq...')", starts[-1])
    if not vectors:
        ctx.warn("no milestones in the file", 1, kind="empty")
    q = stack_vectors(vectors[0::2], starts[0::2], tokens, "configuration")
    dq = stack_vectors(vectors[1::2], starts[1::2], tokens, "velocity")
    if q.shape != dq.shape:
        raise tokens.error(f"velocities have {dq.shape[1]} values, configurations {q.shape[1]}", starts[1])
    traj = Trajectory(None, q, dq)
    traj.source = ctx.path
    return traj


def dumps(traj: Trajectory, report, path=None) -> str:
    lose_times_velocities(traj, report, keep_velocities=True)
    vel = traj.velocities
    if vel is None:
        vel = np.zeros_like(traj.milestones)
        if traj.num_milestones:
            report.warn("no velocities: written as zeros", kind="target default")
    report_nonfinite(traj.milestones, report)
    report_nonfinite(vel, report)
    return "".join(f"{fmt_vector(q)}\t{fmt_vector(v)}\n" for q, v in zip(traj.milestones, vel))
