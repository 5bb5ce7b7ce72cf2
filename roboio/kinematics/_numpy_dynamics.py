"""The numpy backend of dynamics: the reference evaluation of a :class:`DynamicModel`.

Every quantity is computed in world coordinates, with spatial vectors in Plücker
coordinates about the world origin (Featherstone's notation, angular part first):

* a link's joint motion ``S_i = (w_i, o_i x w_i)`` (revolute: ``w_i`` the joint axis in world
  coordinates, *not* normalised, so that ``q * |axis|`` is the angle, ``o_i`` the link
  origin) or ``(0, w_i)`` (prismatic);
* a body's inertia about the world origin by its mass ``m``, first moment ``h = m c`` (``c``
  the world COM) and rotational inertia ``I_O = R I_c R^T + m (|c|^2 E - c c^T)``; it maps a
  motion ``(w, v)`` to the momentum ``(I_O w + h x v, m v + w x h)``.

Then the composite rigid body algorithm is a sum of inertias from the leaves up and one dot
product per (link, ancestor) pair, the recursive Newton-Euler algorithm needs no change of
frame between links, and the centre-of-mass Jacobian is the linear part of each composite
inertia times its joint motion. The compiled kernel (``_kernel.c``) computes the same
expressions in the same order.

Everything is vectorised over a chunk of configurations (the last axis); a single
configuration is a chunk of one.
"""
from __future__ import annotations

import numpy as np

from ._numpy import CHUNK, NumpyEvaluator, _config, _result

NAME = "numpy"


def dynamics_evaluator(dyn):
    return NumpyDynamics(dyn)


def _cross(a, b):
    """Cross product along axis 0 of (3, C) arrays."""
    return np.stack([a[1] * b[2] - a[2] * b[1],
                     a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def _vector(x, n, what):
    try:
        x = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a sequence of {n} numbers") from None
    if x.shape != (n,):
        raise ValueError(f"{what} must have {n} values, got shape {x.shape}")
    return x


class NumpyDynamics:
    """Evaluator of one :class:`~roboio.kinematics.dynamics.DynamicModel` (methods documented
    there; the compiled kernel's ``Dynamics`` object has the same ones)."""

    def __init__(self, dyn):
        self.d = dyn
        self.kin = NumpyEvaluator(dyn.kin)

    # -- per chunk -----------------------------------------------------------------------
    def _bodies(self, Q):
        """Joint motions ``S`` (n, 6, C) and body inertias ``m`` (n,), ``h`` (n, 3, C),
        ``I`` (n, 3, 3, C) about the world origin, for configurations Q (C, n)."""
        d, kin = self.d, self.d.kin
        R, t = self.kin._world_batch(Q)
        n, C = kin.n, len(Q)
        w = np.einsum("nijc,nj->nic", R, kin.axes)
        S = np.zeros((n, 6, C))
        prism = kin.prismatic
        rev = ~prism
        S[rev, :3] = w[rev]
        S[rev, 3:] = np.cross(t[rev], w[rev], axis=1)
        S[prism, 3:] = w[prism]
        c = np.einsum("nijc,nj->nic", R, d.coms) + t                  # world COM
        h = d.masses[:, None, None] * c
        Ic = np.einsum("nijc,njk,nlkc->nilc", R, d.inertias, R)
        cc = np.einsum("nic,njc->nijc", c, c)
        sq = np.einsum("nic,nic->nc", c, c)
        I = Ic - d.masses[:, None, None, None] * cc
        for k in range(3):
            I[:, k, k] += d.masses[:, None] * sq
        return S, h, I

    @staticmethod
    def _apply(m, h, I, w, v):
        """The momentum ``(I w + h x v, m v + w x h)`` of motion (w, v) (each (3, C))."""
        n = np.einsum("ijc,jc->ic", I, w) + _cross(h, v)
        f = m * v + _cross(w, h)
        return n, f

    def _composites(self, h, I):
        """Composite inertias of every subtree: mass (n,), h and I summed from the leaves."""
        kin = self.d.kin
        mc, hc, Ic = self.d.masses.copy(), h.copy(), I.copy()
        for i in kin.order[::-1]:
            p = kin.parents[i]
            if p >= 0:
                mc[p] += mc[i]
                hc[p] += hc[i]
                Ic[p] += Ic[i]
        return mc, hc, Ic

    def _crba(self, Q, M):
        """Mass matrices (C, n, n) into M; returns the composite linear momenta of unit joint
        rates (n, 3, C) (the COM Jacobian times the total mass)."""
        kin = self.d.kin
        S, h, I = self._bodies(Q)
        mc, hc, Ic = self._composites(h, I)
        lin = np.empty((kin.n, 3, len(Q)))
        M[...] = 0.0
        for i in range(kin.n):
            n_, f = self._apply(mc[i], hc[i], Ic[i], S[i, :3], S[i, 3:])
            lin[i] = f
            chain = kin.ancestors[i]
            col = (np.einsum("jkc,kc->jc", S[chain, :3], n_)
                   + np.einsum("jkc,kc->jc", S[chain, 3:], f))            # (len, C)
            M[:, i, chain] = col.T
            M[:, chain, i] = col.T
        return lin

    def _rnea(self, Q, dQ, ddQ, gravity, tau):
        """Joint torques (C, n) into tau: tau = M ddq + C(q, dq) dq + G(q, gravity)."""
        kin = self.d.kin
        S, h, I = self._bodies(Q)
        n, C = kin.n, len(Q)
        dq, ddq = dQ.T, ddQ.T                                             # (n, C)
        V = np.zeros((n, 6, C))
        A = np.zeros((n, 6, C))
        F = np.zeros((n, 6, C))
        a0 = np.zeros((6, C))
        a0[3:] = -np.asarray(gravity, dtype=float)[:, None]
        for i in kin.order:
            p = kin.parents[i]
            Vp = V[p] if p >= 0 else 0.0
            Ap = A[p] if p >= 0 else a0
            Si = S[i]
            V[i] = Vp + Si * dq[i]
            w, v = V[i, :3], V[i, 3:]
            # (V x S) dq: the rate of change of the joint motion, which moves with the parent
            vxs = np.concatenate([_cross(w, Si[:3]), _cross(w, Si[3:]) + _cross(v, Si[:3])])
            A[i] = Ap + Si * ddq[i] + vxs * dq[i]
            m = self.d.masses[i]
            nA, fA = self._apply(m, h[i], I[i], A[i, :3], A[i, 3:])
            nV, fV = self._apply(m, h[i], I[i], w, v)
            F[i, :3] = nA + _cross(w, nV) + _cross(v, fV)
            F[i, 3:] = fA + _cross(w, fV)
        for i in kin.order[::-1]:
            p = kin.parents[i]
            tau[:, i] = np.einsum("kc,kc->c", S[i], F[i])
            if p >= 0:
                F[p] += F[i]

    # -- single configuration --------------------------------------------------------------
    def mass_matrix(self, q, out=None):
        n = self.d.kin.n
        q = _config(q, n)
        M = _result(out, (n, n))
        self._crba(q[None], M[None])
        return M

    def inverse_dynamics(self, q, dq, ddq, gravity, out=None):
        n = self.d.kin.n
        q = _config(q, n)
        dq = _vector(dq, n, "velocity")
        ddq = _vector(ddq, n, "acceleration")
        tau = _result(out, (n,))
        self._rnea(q[None], dq[None], ddq[None], _vector(gravity, 3, "gravity"), tau[None])
        return tau

    def forward_dynamics(self, q, dq, tau, gravity, held, out=None):
        """Accelerations by the articulated-body algorithm; links with ``held[i]`` are kept
        rigid (acceleration 0, their torque unused)."""
        kin = self.d.kin
        n = kin.n
        q = _config(q, n)
        dq = _vector(dq, n, "velocity")
        tau = _vector(tau, n, "torque")
        g = _vector(gravity, 3, "gravity")
        held = np.asarray(held).reshape(n).astype(bool)
        ddq = _result(out, (n,))
        S, h, I = self._bodies(q[None])
        S, h, I = S[..., 0], h[..., 0], I[..., 0]
        m = self.d.masses
        X = np.zeros((n, 6, 6))
        for i in range(n):
            H = np.array([[0, -h[i, 2], h[i, 1]], [h[i, 2], 0, -h[i, 0]], [-h[i, 1], h[i, 0], 0]])
            X[i, :3, :3] = I[i]
            X[i, :3, 3:] = H
            X[i, 3:, :3] = H.T
            X[i, 3:, 3:] = m[i] * np.eye(3)
        V = np.zeros((n, 6))
        c = np.zeros((n, 6))
        pb = np.zeros((n, 6))
        for i in kin.order:
            p = kin.parents[i]
            V[i] = (V[p] if p >= 0 else 0.0) + S[i] * dq[i]
            w, v = V[i, :3], V[i, 3:]
            c[i] = np.concatenate([np.cross(w, S[i, :3]),
                                   np.cross(w, S[i, 3:]) + np.cross(v, S[i, :3])]) * dq[i]
            f = X[i] @ V[i]
            pb[i] = np.concatenate([np.cross(w, f[:3]) + np.cross(v, f[3:]), np.cross(w, f[3:])])
        U = np.zeros((n, 6))
        D = np.zeros(n)
        u = np.zeros(n)
        for i in kin.order[::-1]:
            p = kin.parents[i]
            if held[i]:
                if p >= 0:
                    X[p] += X[i]
                    pb[p] += pb[i] + X[i] @ c[i]
                continue
            U[i] = X[i] @ S[i]
            D[i] = S[i] @ U[i]
            u[i] = tau[i] - S[i] @ pb[i]
            if not (D[i] > 1e-12 * np.abs(X[i]).max() * (S[i] @ S[i]) and D[i] > 0):
                raise ValueError(f"link {int(i)} moves no mass or inertia")
            if p >= 0:
                Ia = X[i] - np.outer(U[i], U[i]) / D[i]
                X[p] += Ia
                pb[p] += pb[i] + Ia @ c[i] + U[i] * u[i] / D[i]
        a = np.zeros((n, 6))
        a0 = np.concatenate([np.zeros(3), -g])
        for i in kin.order:
            p = kin.parents[i]
            a[i] = (a[p] if p >= 0 else a0) + c[i]
            if held[i]:
                ddq[i] = 0.0
                continue
            ddq[i] = (u[i] - U[i] @ a[i]) / D[i]
            a[i] += S[i] * ddq[i]
        return ddq

    def com(self, q, out=None):
        d = self.d
        q = _config(q, d.kin.n)
        c = _result(out, (3,))
        R, t = self.kin._world_batch(q[None])
        x = np.einsum("nij,nj->ni", R[..., 0], d.coms) + t[..., 0]
        total = d.masses.sum()
        c[...] = d.masses @ x / total if total > 0 else 0.0
        return c

    def com_jacobian(self, q, out=None):
        d = self.d
        n = d.kin.n
        q = _config(q, n)
        J = _result(out, (3, n))
        lin = self._crba(q[None], np.empty((1, n, n)))
        total = d.masses.sum()
        J[...] = lin[:, :, 0].T / total if total > 0 else 0.0
        return J

    # -- batches -----------------------------------------------------------------------------
    def mass_matrix_batch(self, Q, out):
        for s in range(0, len(Q), CHUNK):
            self._crba(Q[s:s + CHUNK], out[s:s + CHUNK])

    def inverse_dynamics_batch(self, Q, dQ, ddQ, gravity, out):
        g = _vector(gravity, 3, "gravity")
        for s in range(0, len(Q), CHUNK):
            self._rnea(Q[s:s + CHUNK], dQ[s:s + CHUNK], ddQ[s:s + CHUNK], g, out[s:s + CHUNK])
