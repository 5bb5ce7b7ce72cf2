"""Rigid-body dynamics of one-DOF-per-link trees, over a :class:`KinematicModel`.

:class:`DynamicModel` adds each link's inertial data (mass in kg, centre of mass in m in the
link frame, inertia in kg m^2 about the COM in the link axes) to a compiled kinematic tree,
and evaluates through the same backend seam as kinematics
(:mod:`roboio.kinematics.backends`): the compiled kernel, or numpy, the reference
(:mod:`roboio.kinematics._numpy_dynamics`, where the formulation is described).

Conventions are Klamp't's: one value per link (welded links have rows and columns too), a
revolute link turns by ``q |axis|`` (the axis length scales the joint rate), torques are
``tau = M(q) ddq + C(q, dq) dq + G(q)`` with ``G`` the torques that hold the robot against
``gravity`` (a vector in world coordinates, m/s^2, (0, 0, -9.81) on Earth).
"""
from __future__ import annotations

import numpy as np

from . import backends
from .model import _output
from .threads import run_rows

_F64 = np.dtype(np.float64)


class DynamicModel(backends.PerBackend):
    """Immutable inertial data over a :class:`KinematicModel` ``kin``: ``masses`` (n,),
    ``coms`` (n, 3), ``inertias`` (n, 3, 3)."""

    def __init__(self, kin, mass, com, inertia):
        n = kin.n
        self.kin = kin
        self.n = n
        self.masses = np.ascontiguousarray(mass, dtype=np.float64).reshape(n)
        self.coms = np.ascontiguousarray(com, dtype=np.float64).reshape(n, 3)
        inertia = np.asarray(inertia, dtype=np.float64).reshape(n, 3, 3)
        # the symmetric part: a file's matrix can be non-symmetric in its last digits (Klamp't's
        # atlas.rob), which Klamp't uses as written (its mass matrix is then not symmetric)
        self.inertias = np.ascontiguousarray(0.5 * (inertia + inertia.transpose(0, 2, 1)))
        self.total_mass = float(self.masses.sum())

    def _make_evaluator(self, backend):
        if backend.NAME == "numpy":
            from ._numpy_dynamics import dynamics_evaluator
        else:
            from ._compiled import dynamics_evaluator
        return dynamics_evaluator(self)

    # -- single configuration ---------------------------------------------------------------
    def mass_matrix(self, q, out=None) -> np.ndarray:
        """``(n, n)`` joint-space inertia matrix at ``q`` (composite rigid bodies)."""
        return self.evaluator().mass_matrix(q, out)

    def inverse_dynamics(self, q, dq, ddq, gravity=(0.0, 0.0, -9.81), out=None) -> np.ndarray:
        """``(n,)`` torques ``M ddq + C dq + G`` (recursive Newton-Euler)."""
        return self.evaluator().inverse_dynamics(q, dq, ddq, gravity, out)

    def forward_dynamics(self, q, dq, tau, gravity=(0.0, 0.0, -9.81), held=None,
                         out=None) -> np.ndarray:
        """``(n,)`` accelerations that torques ``tau`` give at ``(q, dq)`` (articulated
        bodies); links with ``held[i]`` true are kept rigid: acceleration 0, their torque
        unused; so is a link whose axis is zero (it cannot move). ValueError ``"link i moves
        no mass or inertia"`` where a moving link carries nothing (the accelerations are
        undefined there)."""
        held = np.zeros(self.n, bool) if held is None else np.asarray(held, bool).reshape(self.n)
        held = np.ascontiguousarray(held | ~self.kin.axes.any(axis=1), dtype=np.int64)
        return self.evaluator().forward_dynamics(q, dq, tau, gravity, held, out)

    def com(self, q, out=None) -> np.ndarray:
        """``(3,)`` centre of mass in world coordinates (zeros for a massless tree)."""
        return self.evaluator().com(q, out)

    def com_jacobian(self, q, out=None) -> np.ndarray:
        """``(3, n)`` Jacobian of the centre of mass (zeros for a massless tree)."""
        return self.evaluator().com_jacobian(q, out)

    # -- batches -------------------------------------------------------------------------------
    def mass_matrix_batch(self, Q, out=None, threads=None) -> np.ndarray:
        """``(N, n, n)`` mass matrices of every row of ``Q`` (N, n), into ``out`` when given;
        ``threads`` worker threads (default: every core)."""
        Q = self.kin._configs(Q)
        out = _output(out, (len(Q), self.n, self.n), None, (_F64,))
        ev = self.evaluator()
        run_rows(lambda s, e: ev.mass_matrix_batch(_rows(Q, s, e), out[s:e]), len(Q), threads,
                 self.n ** 2 * max(self.n, 8))
        return out

    def inverse_dynamics_batch(self, Q, dQ, ddQ, gravity=(0.0, 0.0, -9.81), out=None,
                               threads=None) -> np.ndarray:
        """``(N, n)`` torques for rows of ``Q``, ``dQ``, ``ddQ`` (each (N, n)), into ``out``
        when given; ``threads`` worker threads (default: every core)."""
        Q = self.kin._configs(Q)
        dQ = self.kin._configs(dQ)
        ddQ = self.kin._configs(ddQ)
        if not len(Q) == len(dQ) == len(ddQ):
            raise ValueError(f"Q, dQ and ddQ must have the same number of rows, got "
                             f"{len(Q)}, {len(dQ)} and {len(ddQ)}")
        g = _gravity(gravity)
        out = _output(out, (len(Q), self.n), None, (_F64,))
        ev = self.evaluator()
        run_rows(lambda s, e: ev.inverse_dynamics_batch(
            _rows(Q, s, e), _rows(dQ, s, e), _rows(ddQ, s, e), g, out[s:e]),
            len(Q), threads, self.n * 60)
        return out


def solve_spd(M, b, names=None) -> np.ndarray:
    """``x`` with ``M x = b`` for a symmetric positive definite ``M`` (a mass matrix);
    ValueError naming the first coordinate (``names``) where ``M`` is singular (a moving
    link with no mass or inertia beyond its joint)."""
    M = np.asarray(M, dtype=float)
    b = np.asarray(b, dtype=float)
    if not len(b):
        return np.zeros(0)
    try:
        L = np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        L = None
    if L is not None:
        d = np.abs(np.diag(L))
        if d.min() > 1e-12 * max(d.max(), 1e-300):
            return np.linalg.solve(M, b)
    k = _first_singular(M)
    what = f"{names[k]!r}" if names is not None else f"coordinate {k}"
    raise ValueError(f"the mass matrix is singular over the moving links: {what} moves no "
                     "mass or inertia (forward dynamics is undefined there)")


def _first_singular(M) -> int:
    """Index of the first row whose addition makes the leading block of M singular."""
    scale = max(float(np.abs(M).max()), 1e-300)
    for k in range(1, len(M) + 1):
        if np.linalg.eigvalsh(M[:k, :k]).min() <= 1e-12 * scale:
            return k - 1
    return len(M) - 1


def _gravity(g) -> np.ndarray:
    try:
        g = np.asarray(g, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"gravity must be 3 numbers, got {g!r}") from None
    if g.shape != (3,):
        raise ValueError(f"gravity must be 3 numbers, got {g!r}")
    return g


def _rows(Q, s, e):
    """Rows s..e of Q as float64 the kernel can read (converted only when they are not)."""
    part = Q[s:e]
    if part.dtype == _F64 and part.flags.aligned:
        return part
    return np.require(part, np.float64, ("A",))


