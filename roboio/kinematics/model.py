"""Compiled kinematic structure and its evaluation.

Conventions (Klamp't's): link i's world transform is

    W(i) = W(parent(i)) @ T0(i) @ J_i(q_i),     W(-1) = identity,

with ``J_i`` a rotation by ``q_i * |w_i|`` about ``w_i`` (revolute; the axis is *not*
normalised, so a longer axis turns faster) or a translation by ``q_i * w_i`` (prismatic).
Jacobians are ``(6, n)``: rows 0-2 angular, rows 3-5 linear velocity, world frame.

Everything that does not depend on q is precomputed. With ``A = R0``, ``K`` the cross
matrix of the unit axis, the local rotation of a revolute link is
``A + sin(theta) (A K) + (1 - cos(theta)) (A K K)``, so evaluating a batch of configurations
is a few broadcast multiply-adds, followed by one batched matrix product per tree level.
"""
from __future__ import annotations

import numpy as np

from ..transforms import skew


class KinematicModel:
    """Immutable compiled tree. Build from ``parents`` (n,), ``parent_transforms``
    (n, 4, 4), ``axes`` (n, 3) and ``prismatic`` (n,) bool."""

    def __init__(self, parents, parent_transforms, axes, prismatic):
        parents = np.asarray(parents, dtype=np.int64).reshape(-1)
        n = len(parents)
        self.n = n
        self.parents = parents
        T0 = np.asarray(parent_transforms, dtype=float).reshape(n, 4, 4)
        axes = np.asarray(axes, dtype=float).reshape(n, 3)
        prismatic = np.asarray(prismatic, dtype=bool).reshape(n)
        self.axes = axes
        self.prismatic = prismatic
        self.levels = _levels(parents)

        rate = np.linalg.norm(axes, axis=1)
        unit = np.divide(axes, rate[:, None], out=np.zeros_like(axes), where=rate[:, None] > 0)
        K = skew(unit)
        A = T0[:, :3, :3].copy()
        revolute = ~prismatic
        self._A = A
        self._B = np.where(revolute[:, None, None], A @ K, 0.0)
        self._C = np.where(revolute[:, None, None], A @ K @ K, 0.0)
        self._t0 = T0[:, :3, 3].copy()
        self._slide = np.where(prismatic[:, None], np.einsum("nij,nj->ni", A, axes), 0.0)
        self._rate = np.where(revolute, rate, 0.0)
        # ancestors[k] = indices j whose DOF moves link k (k included), root first; made
        # on first use (all of them at once is quadratic in the depth: 814 MB for a chain
        # of 11,000 links)
        self.ancestors = _Ancestors(parents)
        # non-root levels; a level of one link uses slices (views, no gather copies)
        self._level_slices = []
        for idx, par in self.levels[1:]:
            if len(idx) == 1:
                i, p = int(idx[0]), int(par[0])
                self._level_slices.append((slice(i, i + 1), slice(p, p + 1)))
            else:
                self._level_slices.append((idx, par))

    # -- forward kinematics -----------------------------------------------------------
    # Batched evaluation keeps arrays component-major, (n, 3, 3, N) and (n, 3, N), so every
    # product of a tree level is a handful of multiply-adds over contiguous length-N rows;
    # numpy's matmul on stacks of 3x3 matrices is several times slower.

    def _check(self, Q):
        Q = np.asarray(Q, dtype=float)
        if Q.ndim != 2 or Q.shape[1] != self.n:
            raise ValueError(f"configurations must have shape (N, {self.n}), got {Q.shape}")
        return Q

    def _world_batch(self, Q):
        """World rotations (n, 3, 3, N) and translations (n, 3, N) for Q (N, n)."""
        QT = np.ascontiguousarray(Q.T)
        theta = QT * self._rate[:, None]
        s = np.sin(theta)[:, None, None, :]
        c = (1.0 - np.cos(theta))[:, None, None, :]
        R = self._A[..., None] + s * self._B[..., None] + c * self._C[..., None]
        t = self._t0[:, :, None] + QT[:, None, :] * self._slide[:, :, None]
        for idx, par in self._level_slices:
            Rp, Ri, ti = R[par], R[idx], t[idx]
            t[idx] = (Rp[:, :, 0] * ti[:, None, 0] + Rp[:, :, 1] * ti[:, None, 1]
                      + Rp[:, :, 2] * ti[:, None, 2] + t[par])
            R[idx] = (Rp[:, :, 0, None] * Ri[:, None, 0] + Rp[:, :, 1, None] * Ri[:, None, 1]
                      + Rp[:, :, 2, None] * Ri[:, None, 2])
        return R, t

    def _local(self, q):
        """(n, 4, 4) joint-moved local transforms T0(i) J_i(q_i) for one configuration."""
        theta = q * self._rate
        L = np.zeros((self.n, 4, 4))
        L[:, :3, :3] = (self._A + np.sin(theta)[:, None, None] * self._B
                        + (1.0 - np.cos(theta))[:, None, None] * self._C)
        L[:, :3, 3] = self._t0 + q[:, None] * self._slide
        L[:, 3, 3] = 1.0
        return L

    def fk(self, q) -> np.ndarray:
        """``(n, 4, 4)`` world transforms for one configuration."""
        q = np.asarray(q, dtype=float).reshape(-1)
        if q.shape != (self.n,):
            raise ValueError(f"configuration must have {self.n} values, got {q.shape[0]}")
        W = self._local(q)
        for idx, par in self._level_slices:
            W[idx] = W[par] @ W[idx]
        return W

    def fk_batch(self, Q) -> np.ndarray:
        """``(N, n, 4, 4)`` world transforms for configurations ``Q`` (N, n)."""
        Q = self._check(Q)
        R, t = self._world_batch(Q)
        out = np.zeros(Q.shape[:1] + (self.n, 4, 4))
        out[..., :3, :3] = R.transpose(3, 0, 1, 2)
        out[..., :3, 3] = t.transpose(2, 0, 1)
        out[..., 3, 3] = 1.0
        return out

    # -- Jacobians --------------------------------------------------------------------
    def _link_ok(self, link):
        if not 0 <= link < self.n:
            raise IndexError(f"link {link} out of range for {self.n} links")

    def jacobian_batch(self, Q, link: int, point=(0.0, 0.0, 0.0)) -> np.ndarray:
        """``(N, 6, n)`` Jacobians of ``point`` (in ``link``'s frame) for every row of Q."""
        Q = self._check(Q)
        self._link_ok(link)
        R, t = self._world_batch(Q)
        cols = self.ancestors[link]
        p = np.asarray(point, dtype=float).reshape(3)
        P = (R[link] * p[None, :, None]).sum(axis=1) + t[link]                  # (3, N)
        w = (R[cols] * self.axes[cols][:, None, :, None]).sum(axis=2)           # (k, 3, N)
        d = P[None] - t[cols]
        prism = self.prismatic[cols][:, None, None]
        lin = np.where(prism, w, np.cross(w, d, axis=1))
        J = np.zeros((len(Q), 6, self.n))
        J[:, 0:3, cols] = np.where(prism, 0.0, w).transpose(2, 1, 0)
        J[:, 3:6, cols] = lin.transpose(2, 1, 0)
        return J

    def jacobian(self, q, link: int, point=(0.0, 0.0, 0.0)) -> np.ndarray:
        """``(6, n)`` Jacobian for one configuration."""
        self._link_ok(link)
        return self.jacobian_from_frames(self.fk(q), link, point)

    def jacobian_from_frames(self, W, link: int, point=(0.0, 0.0, 0.0)) -> np.ndarray:
        """``(6, n)`` Jacobian of ``point`` (in ``link``'s frame) given the world transforms
        ``W`` (n, 4, 4) of every link: column j of each ancestor j is ``(w, w x (p - o_j))``
        (revolute) or ``(0, w)`` (prismatic), ``w`` the joint axis in world coordinates."""
        self._link_ok(link)
        cols = self.ancestors[link]
        P = W[link, :3, :3] @ np.asarray(point, dtype=float).reshape(3) + W[link, :3, 3]
        R = W[cols, :3, :3]
        a = self.axes[cols]
        w = R[:, :, 0] * a[:, 0, None] + R[:, :, 1] * a[:, 1, None] + R[:, :, 2] * a[:, 2, None]
        d = P - W[cols, :3, 3]
        cross = np.stack([w[:, 1] * d[:, 2] - w[:, 2] * d[:, 1],
                          w[:, 2] * d[:, 0] - w[:, 0] * d[:, 2],
                          w[:, 0] * d[:, 1] - w[:, 1] * d[:, 0]], axis=1)
        prism = self.prismatic[cols][:, None]
        J = np.zeros((6, self.n))
        J[0:3, cols] = np.where(prism, 0.0, w).T
        J[3:6, cols] = np.where(prism, w, cross).T
        return J

    def local_transform(self, i: int, qi: float) -> np.ndarray:
        """``T0(i) J_i(qi)``: link ``i``'s transform relative to its parent at joint value qi."""
        theta = qi * self._rate[i]
        L = np.eye(4)
        L[:3, :3] = self._A[i] + np.sin(theta) * self._B[i] + (1.0 - np.cos(theta)) * self._C[i]
        L[:3, 3] = self._t0[i] + qi * self._slide[i]
        return L


class _Ancestors:
    """``ancestors[k]``: the chain of links from the root to ``k`` (int64 array), computed
    and kept on first access."""

    def __init__(self, parents):
        self._parents = parents
        self._chains: dict = {}

    def __len__(self):
        return len(self._parents)

    def __getitem__(self, k):
        k = int(k)
        if k < 0:
            k += len(self._parents)
        chain = self._chains.get(k)
        if chain is None:
            out = []
            j = k
            while j >= 0:
                out.append(j)
                j = int(self._parents[j])
            chain = self._chains[k] = np.array(out[::-1], dtype=np.int64)
        return chain


def _levels(parents):
    """Group links by depth: [(indices, parent indices or None for roots), ...]."""
    n = len(parents)
    if np.any(parents < -1) or np.any(parents >= n):
        bad = int(np.nonzero((parents < -1) | (parents >= n))[0][0])
        raise ValueError(f"link {bad}: parent {parents[bad]} out of range for {n} links")
    depth = np.full(n, -1, dtype=np.int64)
    if n and np.all(parents < np.arange(n)):
        # parents before children (Klamp't's order): one pass, linear in the number of links
        # (the sweep below is quadratic for deep chains)
        par = parents.tolist()
        d = [0] * n
        for i, p in enumerate(par):
            if p >= 0:
                d[i] = d[p] + 1
        depth = np.array(d, dtype=np.int64)
    depth[parents == -1] = 0
    for _ in range(n):
        pending = depth < 0
        if not pending.any():
            break
        ready = pending & (depth[np.maximum(parents, 0)] >= 0) & (parents >= 0)
        if not ready.any():
            break
        depth[ready] = depth[parents[ready]] + 1
    if np.any(depth < 0):
        bad = int(np.nonzero(depth < 0)[0][0])
        raise ValueError(f"link {bad} is part of a parent cycle")
    levels = []
    for d in range(int(depth.max()) + 1 if n else 0):
        idx = np.nonzero(depth == d)[0]
        levels.append((idx, None if d == 0 else parents[idx]))
    return levels
