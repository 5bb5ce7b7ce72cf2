"""Klamp't MultiPath: a motion split into sections, each under a fixed set of contacts
(holds) and IK goals."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..errors import Diagnostic
from .trajectory import MilestoneSequence, TimeSpan, Trajectory, milestone_arrays

__all__ = ["MultiPath", "Section"]


def _first(times, i):
    """times[i] as a float, None for untimed or empty."""
    return None if times is None or not len(times) else float(times[i])


@dataclass(eq=False)
class Section(MilestoneSequence):
    """One MultiPath section: ``milestones`` (N, D); ``times`` (N,) absolute seconds or None;
    ``velocities`` (N, D) or None; ``holds`` every hold the section must keep, in file order
    (inline holds and resolved references alike); ``hold_refs[i]`` says where ``holds[i]``
    came from: None = written inline, an int = ``<hold index>`` into the global holds, a str
    = ``<hold name>`` (writers keep references as references); ``ik_goals`` extra IK
    objectives; ``settings`` the section's XML attributes."""

    milestones: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    times: Optional[np.ndarray] = None
    velocities: Optional[np.ndarray] = None
    holds: list = field(default_factory=list)
    hold_refs: list = field(default_factory=list)
    ik_goals: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    def __post_init__(self):
        self.milestones, self.times, self.velocities = milestone_arrays(
            self.milestones, self.times, self.velocities)

    def ref(self, i: int):
        """Where hold ``i`` came from (None = inline), tolerating a short ``hold_refs``."""
        return self.hold_refs[i] if i < len(self.hold_refs) else None


@dataclass(eq=False)
class MultiPath(TimeSpan):
    """``sections`` (list of :class:`Section`), ``holds`` the global hold list (each
    :class:`~roboio.model.contact.Hold` may carry a ``name``), ``settings`` the root's XML
    attributes (str -> str)."""

    sections: list = field(default_factory=list)
    holds: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    source: Optional[str] = None

    @classmethod
    def from_trajectory(cls, traj: Trajectory) -> "MultiPath":
        """One section holding the trajectory's milestones, times and velocities."""
        return cls(sections=[Section(traj.milestones.copy(),
                                     None if traj.times is None else traj.times.copy(),
                                     None if traj.velocities is None else traj.velocities.copy())])

    @property
    def num_milestones(self) -> int:
        return sum(s.num_milestones for s in self.sections)

    @property
    def dimension(self) -> int:
        return self.sections[0].dimension if self.sections else 0

    @property
    def timed(self) -> bool:
        """True when every section has times (Klamp't looks at the first section only)."""
        return bool(self.sections) and all(s.times is not None for s in self.sections)

    def _times(self) -> np.ndarray:
        """Time of every milestone of the concatenation, boundaries de-duplicated. Untimed
        sections are timed by milestone index, continuing from the previous section's end
        (for a wholly untimed path that is 0, 1, ..., N-1, as Klamp't's Python does)."""
        out, t_end = [], 0.0
        for k, s in enumerate(self.sections):
            if s.times is not None:
                t = s.times
            else:
                t = t_end + np.arange(s.num_milestones, dtype=float)
            if len(t):
                out.append(t if k + 1 == len(self.sections) else t[:-1])
                t_end = float(t[-1])
        return np.concatenate(out) if out else np.zeros(0)

    def to_trajectory(self) -> Trajectory:
        """The sections concatenated into one Trajectory, as Klamp't's Python
        ``MultiPath.getTrajectory`` does: the last milestone of every section but the final
        one is dropped (it repeats the next section's first), untimed sections are timed by
        index (see :meth:`_times`), velocities are kept when every section has them."""
        if not self.sections:
            return Trajectory(None, np.zeros((0, 0)))
        dims = {s.dimension for s in self.sections if s.num_milestones}
        if len(dims) > 1:
            raise ValueError(f"sections have different dimensions {sorted(dims)}")
        last = len(self.sections) - 1
        parts = [s.milestones if k == last else s.milestones[:-1] for k, s in enumerate(self.sections)]
        milestones = np.concatenate(parts) if parts else np.zeros((0, 0))
        vel = None
        if all(s.velocities is not None for s in self.sections):
            vel = np.concatenate([s.velocities if k == last else s.velocities[:-1]
                                  for k, s in enumerate(self.sections)])
        traj = Trajectory(self._times(), milestones, vel)
        traj.warnings = [Diagnostic(f"sections {k} and {k + 1} do not meet: the last milestone of "
                                    f"section {k} was dropped", kind="dropped")
                         for k in range(last)
                         if self.sections[k].num_milestones and self.sections[k + 1].num_milestones
                         and not np.array_equal(self.sections[k].milestones[-1], self.sections[k + 1].milestones[0])]
        return traj

    def trajectory_losses(self) -> list:
        """What :meth:`to_trajectory` cannot keep, as human-readable items."""
        lost = []
        n_holds = sum(len(s.holds) for s in self.sections)
        n_ik = sum(len(s.ik_goals) for s in self.sections)
        if n_holds or self.holds:
            lost.append(f"holds ({n_holds} in sections, {len(self.holds)} global)")
        if n_ik:
            lost.append(f"{n_ik} IK goals")
        if self.settings or any(s.settings for s in self.sections):
            lost.append("multipath/section settings (XML attributes)")
        if len(self.sections) > 1:
            lost.append(f"section boundaries ({len(self.sections)} sections joined into one)")
        if any(s.times is None for s in self.sections) and any(s.times is not None for s in self.sections):
            lost.append("untimed sections (timed by milestone index)")
        if any(s.velocities is not None for s in self.sections) and \
                not all(s.velocities is not None for s in self.sections):
            lost.append("velocities (only some sections have them)")
        lost.extend(self.to_trajectory().warnings)
        return lost

    def summary(self) -> dict:
        return {"kind": "multipath", "sections": len(self.sections),
                "milestones": self.num_milestones, "dimension": self.dimension,
                "timed": self.timed, "start_time": self.start_time, "end_time": self.end_time,
                "duration": self.duration, "global_holds": len(self.holds),
                "settings": dict(self.settings),
                "section_details": [{"milestones": s.num_milestones, "dimension": s.dimension,
                                     "start_time": _first(s.times, 0), "end_time": _first(s.times, -1),
                                     "velocities": s.velocities is not None, "holds": len(s.holds),
                                     "ik_goals": len(s.ik_goals)} for s in self.sections]}

    def __repr__(self):
        return (f"<MultiPath: {len(self.sections)} sections, {self.num_milestones} milestones x "
                f"{self.dimension}, {len(self.holds)} global holds>")
