"""Length-prefixed vector streams shared by the Klamp't configuration files (``.config``,
``.configs``, ``.milestones``) and paths (``.path``), and what their writers report."""
from __future__ import annotations

import numpy as np

from ....model import Trajectory
from ...fileio import as_text
from .._text import Tokens, Where

__all__ = ["config_tokens", "stack_vectors", "read_vectors", "report_nonfinite",
           "lose_times_velocities"]


def config_tokens(data, ctx, what: str) -> Tokens:
    """The number stream of a configuration file; refuses XML (Gazebo's ``.config``)."""
    text = as_text(data)
    where = Where(ctx.path)
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


def read_vectors(tokens: Tokens, label):
    """Every Vector up to the end, with the token index where each starts."""
    vectors, starts = [], []
    while not tokens.at_end:
        starts.append(tokens.i)
        vectors.append(tokens.vector(label(len(vectors))))
    return vectors, starts


def report_nonfinite(values, report) -> None:
    if values is not None and np.size(values) and not np.all(np.isfinite(values)):
        report.warn("non-finite values written as inf/nan: Klamp't's Python readers accept them, "
                    "its C++ readers do not", kind="read differently")


def lose_times_velocities(traj: Trajectory, report, keep_velocities=False) -> None:
    if traj.times is not None:
        report.lose("times (the target holds untimed configurations)", kind="not written")
    if traj.velocities is not None and not keep_velocities:
        report.lose("velocities", kind="not written")
