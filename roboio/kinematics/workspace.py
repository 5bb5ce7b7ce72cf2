"""Preallocated buffers for single-configuration kinematics (like pinocchio's ``Data``)."""
from __future__ import annotations

import numpy as np


class Workspace:
    """Buffers for evaluating one :class:`~roboio.kinematics.KinematicModel` again and again
    without allocating: ``ws = model.workspace()``, then

    - ``ws.fk(q)`` computes the world transforms of every link into ``ws.frames``
      (n, 4, 4) and returns that array;
    - ``ws.jacobian(link, point)`` computes the (6, n) Jacobian of ``point`` (in ``link``'s
      frame) from ``ws.frames`` into ``ws.J`` and returns it.

    The returned arrays are the workspace's own and are overwritten by the next call: copy
    what you keep. ``ws.frames`` may also be edited by hand (e.g. to override one link's
    pose) before ``ws.jacobian``. A workspace keeps the backend that was in use when it was
    made, and belongs to one thread at a time.
    """

    __slots__ = ("model", "frames", "J", "_ev")

    def __init__(self, model):
        self.model = model
        self.frames = np.zeros((model.n, 4, 4))
        self.frames[:, [0, 1, 2, 3], [0, 1, 2, 3]] = 1.0
        self.J = np.zeros((6, model.n))
        self._ev = model.evaluator()

    def fk(self, q) -> np.ndarray:
        """World transforms of every link at configuration ``q`` (n values) into ``frames``."""
        return self._ev.fk(q, self.frames)

    def jacobian(self, link: int, point=(0.0, 0.0, 0.0)) -> np.ndarray:
        """(6, n) Jacobian of ``point`` (``link``'s frame) from ``frames`` into ``J``: rows
        0-2 angular, rows 3-5 linear velocity, world frame."""
        return self._ev.jacobian_frames(self.frames, link, point, self.J)

    def __repr__(self):
        return f"<Workspace of a {self.model.n}-link model>"
