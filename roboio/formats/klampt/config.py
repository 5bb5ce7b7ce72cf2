"""Klamp't configuration files (spec §9.1, §9.2, §9.4), read as untimed Trajectories:

* ``.config``: one Vector ``N q1 ... qN`` -> one milestone. Anything after the vector is
  an error (Klamp't's Python reader rejects it; the C++ reader silently ignores it).
* ``.configs``: Vectors one after another, **no leading count** -> N milestones.
* ``.milestones``: pairs ``N q...  N dq...`` -> milestones with ``velocities``.

No comments, no line structure: the numbers are a whitespace-separated stream (line breaks
anywhere are accepted, as Klamp't's C++ reader does). Writers emit one Vector per line
(``N<TAB>v1 v2 ...``) with full-precision numbers, which both Klamp't readers accept.
"""
from __future__ import annotations

import numpy as np

from ...model import Trajectory
from ..fileio import atomic_write, read_text
from ..registry import FormatInfo, register
from ._motion_text import Tokens, Where, fmt_vector, parse_int

__all__ = ["read_config", "read_configs", "read_milestones", "write_config", "write_configs",
           "write_milestones", "report_nonfinite", "stack_vectors"]


def _text(path: str, what: str) -> Tokens:
    text = read_text(path)
    where = Where(path)
    if text.lstrip().startswith("<"):
        raise where.error(f"XML content, not a Klamp't {what} (Gazebo also uses .config for "
                          f"XML model descriptions)", 1)
    return Tokens(text, where)


def stack_vectors(vectors, starts, tokens: Tokens, what: str) -> np.ndarray:
    """(N, D) array of equally long vectors; ``starts[k]`` is the token index of vector k."""
    if not vectors:
        return np.zeros((0, 0))
    d = len(vectors[0])
    for v, start in zip(vectors, starts):
        if len(v) != d:
            raise tokens.error(f"{what} has {len(v)} values, the first has {d}", start)
    return np.vstack(vectors) if d else np.zeros((len(vectors), 0))


def read_config(path: str, ctx) -> Trajectory:
    tokens = _text(path, "configuration")
    if tokens.at_end:
        raise tokens.error("empty file: expected a configuration 'N q1 ... qN'")
    q = tokens.vector("the configuration")
    if not tokens.at_end:
        raise tokens.error(f"unexpected {tokens.peek()!r} after the configuration "
                           f"(a .config holds exactly one 'N q1 ... qN')")
    traj = Trajectory(None, q.reshape(1, -1))
    traj.source = path
    return traj


def _read_vectors(tokens: Tokens, label):
    """Every Vector up to the end, with the token index where each starts."""
    vectors, starts = [], []
    while not tokens.at_end:
        starts.append(tokens.i)
        vectors.append(tokens.vector(label(len(vectors))))
    return vectors, starts


def read_configs(path: str, ctx) -> Trajectory:
    tokens = _text(path, "configuration list")
    vectors, starts = _read_vectors(tokens, lambda k: f"configuration {k + 1}")
    if not vectors:
        ctx.warn("no configurations in the file", 1)
    traj = Trajectory(None, stack_vectors(vectors, starts, tokens, "configuration"))
    traj.source = path
    return traj


def read_milestones(path: str, ctx) -> Trajectory:
    tokens = _text(path, "milestone list")
    vectors, starts = _read_vectors(
        tokens, lambda k: f"{'configuration' if k % 2 == 0 else 'velocity'} of milestone {k // 2 + 1}")
    if len(vectors) % 2:
        raise tokens.error(f"milestone {len(vectors) // 2 + 1} has a configuration but no velocity "
                           f"(a .milestones file holds pairs 'N q...  N dq...')", starts[-1])
    if not vectors:
        ctx.warn("no milestones in the file", 1)
    q = stack_vectors(vectors[0::2], starts[0::2], tokens, "configuration")
    dq = stack_vectors(vectors[1::2], starts[1::2], tokens, "velocity")
    if q.shape != dq.shape:
        raise tokens.error(f"velocities have {dq.shape[1]} values, configurations {q.shape[1]}", starts[1])
    traj = Trajectory(None, q, dq)
    traj.source = path
    return traj


def report_nonfinite(values, report) -> None:
    if values is not None and np.size(values) and not np.all(np.isfinite(values)):
        report.warn("non-finite values written as inf/nan: Klamp't's Python readers accept them, "
                    "its C++ readers do not")


def _lose_times_velocities(traj: Trajectory, report, keep_velocities=False) -> None:
    if traj.times is not None:
        report.lose("times (the target holds untimed configurations)")
    if traj.velocities is not None and not keep_velocities:
        report.lose("velocities")


def write_config(traj: Trajectory, path: str, report) -> None:
    if traj.num_milestones == 0:
        raise ValueError("an empty trajectory has no configuration to write to a .config")
    if traj.num_milestones > 1:
        report.lose(f"milestones 2-{traj.num_milestones} (a .config holds one configuration)")
    _lose_times_velocities(traj, report)
    report_nonfinite(traj.milestones[0], report)
    atomic_write(path, fmt_vector(traj.milestones[0]) + "\n")


def write_configs(traj: Trajectory, path: str, report) -> None:
    _lose_times_velocities(traj, report)
    report_nonfinite(traj.milestones, report)
    atomic_write(path, "".join(fmt_vector(q) + "\n" for q in traj.milestones))


def write_milestones(traj: Trajectory, path: str, report) -> None:
    _lose_times_velocities(traj, report, keep_velocities=True)
    vel = traj.velocities
    if vel is None:
        vel = np.zeros_like(traj.milestones)
        if traj.num_milestones:
            report.warn("no velocities: written as zeros")
    report_nonfinite(traj.milestones, report)
    report_nonfinite(vel, report)
    atomic_write(path, "".join(f"{fmt_vector(q)}\t{fmt_vector(v)}\n" for q, v in zip(traj.milestones, vel)))


def _sniff_for(ext):
    def sniff(head: bytes, path: str) -> bool:
        # These extensions are the only evidence: a file of numbers is not recognised by content.
        if not path.lower().endswith(ext):
            return False
        tok = head.split(None, 1)[:1]
        return bool(tok) and parse_int(tok[0].decode("ascii", "replace")) is not None
    return sniff


register(FormatInfo(
    name="klampt-config", extensions=(".config",), kinds=("trajectory",),
    description="Klamp't configuration (N q1 ... qN)", ecosystem="klampt",
    sniff=_sniff_for(".config"), read=read_config, write=write_config, writes=(Trajectory,)))

register(FormatInfo(
    name="klampt-configs", extensions=(".configs",), kinds=("trajectory",),
    description="Klamp't configuration list (N q... per line, no count)", ecosystem="klampt",
    sniff=_sniff_for(".configs"), read=read_configs, write=write_configs, writes=(Trajectory,)))

register(FormatInfo(
    name="klampt-milestones", extensions=(".milestones",), kinds=("trajectory",),
    description="Klamp't milestones (N q...  N dq... per line)", ecosystem="klampt",
    sniff=_sniff_for(".milestones"), read=read_milestones, write=write_milestones,
    writes=(Trajectory,)))
