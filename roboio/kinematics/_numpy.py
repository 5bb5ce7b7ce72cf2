"""The numpy backend: the reference evaluation of a :class:`KinematicModel`.

An evaluator offers (the compiled backend's ``_kernel.Model`` has the same methods):

``fk(q, out=None)``
    ``(n, 4, 4)`` world transforms of one configuration into ``out`` (or a new array).
``fk_batch(Q, out, links=None)``
    world transforms for every row of ``Q`` (N, n) float64 into ``out`` (N, L, 4, 4) float64
    or float32, ``links`` None (every link) or int64 indices; returns None.
``fk_pose_columns(Q, out, links=None)``
    the same frames as :func:`pose_columns` into ``out`` (L, 7, N) float64 (a slice of
    rows of a larger array is allowed); returns None.
``jacobian(q, link, point, out=None)``, ``jacobian_frames(W, link, point, out=None)``
    ``(6, n)`` Jacobian of ``point`` (in ``link``'s frame) at ``q``, or from the world
    transforms ``W`` (n, 4, 4) of every link.
``jacobian_batch(Q, link, point, out)``
    ``(N, 6, n)`` Jacobians into ``out``; returns None.

and the module functions ``pose_vectors(T, out)`` and ``pose_columns(T, out)`` (the kernel's
have the same signatures): ``(N, 4, 4)`` rigid transforms to ``(N, 7)`` rows (x, y, z, qw,
qx, qy, qz), and ``(F, L, 4, 4)`` ones to ``(L, 7, F)`` columns.

Batches are evaluated in chunks of :data:`CHUNK` configurations so that temporaries stay
small whatever N is. Within a chunk, arrays are component-major, (n, 3, 3, C) and (n, 3, C):
each product of a tree level is a handful of multiply-adds over contiguous rows (numpy's
matmul on stacks of 3x3 matrices is several times slower).
"""
from __future__ import annotations

import numpy as np

from ..transforms import matrix_to_quat

NAME = "numpy"
CHUNK = 512


def evaluator(model):
    return NumpyEvaluator(model)


def pose_vectors(T, out):
    """``out[k] = (x, y, z, qw, qx, qy, qz)``: translation and unit quaternion (w >= 0,
    :func:`~roboio.transforms.matrix_to_quat`) of each ``T[k]`` ((N, 4, 4) float64)."""
    out[:, :3] = T[:, :3, 3]
    out[:, 3:] = matrix_to_quat(T[:, :3, :3])


def pose_columns(T, out):
    """``out[l, :, f]`` = the :func:`pose_vectors` row of ``T[f, l]`` ((F, L, 4, 4) float64;
    ``out`` (L, 7, F))."""
    F, L = T.shape[:2]
    rows = np.empty((F * L, 7))
    pose_vectors(T.reshape(F * L, 4, 4), rows)
    out[...] = rows.reshape(F, L, 7).transpose(1, 2, 0)     # (out may be a slice of rows)


def _config(q, n):
    try:
        q = np.asarray(q, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"configuration must be a sequence of {n} numbers") from None
    if q.shape != (n,):
        raise ValueError(f"configuration must have {n} values, got shape {q.shape}")
    return q


def _result(out, shape, what="out"):
    if out is None:
        return np.empty(shape)
    if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == shape
            and out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"{what} must be a writeable C-contiguous float64 array of shape "
                         f"{shape}")
    return out


def _check_link(link, n):
    if not 0 <= link < n:
        raise IndexError(f"link {link} out of range for {n} links")


class NumpyEvaluator:
    def __init__(self, model):
        self.m = model

    # -- forward kinematics --------------------------------------------------------------
    def _world_batch(self, Q):
        """World rotations (n, 3, 3, C) and translations (n, 3, C) for Q (C, n)."""
        m = self.m
        QT = np.ascontiguousarray(Q.T)
        theta = QT * m._rate[:, None]
        s = np.sin(theta)[:, None, None, :]
        c = (1.0 - np.cos(theta))[:, None, None, :]
        R = m._A[..., None] + s * m._B[..., None] + c * m._C[..., None]
        t = m._t0[:, :, None] + QT[:, None, :] * m._slide[:, :, None]
        for idx, par in m._level_slices:
            Rp, Ri, ti = R[par], R[idx], t[idx]
            t[idx] = (Rp[:, :, 0] * ti[:, None, 0] + Rp[:, :, 1] * ti[:, None, 1]
                      + Rp[:, :, 2] * ti[:, None, 2] + t[par])
            R[idx] = (Rp[:, :, 0, None] * Ri[:, None, 0] + Rp[:, :, 1, None] * Ri[:, None, 1]
                      + Rp[:, :, 2, None] * Ri[:, None, 2])
        return R, t

    def _local(self, q):
        """(n, 4, 4) joint-moved local transforms T0(i) J_i(q_i) for one configuration."""
        m = self.m
        theta = q * m._rate
        L = np.zeros((m.n, 4, 4))
        L[:, :3, :3] = (m._A + np.sin(theta)[:, None, None] * m._B
                        + (1.0 - np.cos(theta))[:, None, None] * m._C)
        L[:, :3, 3] = m._t0 + q[:, None] * m._slide
        L[:, 3, 3] = 1.0
        return L

    def fk(self, q, out=None):
        m = self.m
        q = _config(q, m.n)
        out = _result(out, (m.n, 4, 4))
        out[...] = self._local(q)
        for idx, par in m._level_slices:
            out[idx] = out[par] @ out[idx]
        return out

    def fk_batch(self, Q, out, links=None):
        sel = slice(None) if links is None else links
        for s in range(0, len(Q), CHUNK):
            R, t = self._world_batch(Q[s:s + CHUNK])
            o = out[s:s + CHUNK]
            o[..., :3, :3] = R[sel].transpose(3, 0, 1, 2)
            o[..., :3, 3] = t[sel].transpose(2, 0, 1)
            o[..., 3, :3] = 0.0
            o[..., 3, 3] = 1.0

    def fk_pose_columns(self, Q, out, links=None):
        """``out`` (nl, 7, N): :func:`pose_columns` of the frames of ``fk_batch``."""
        nl = out.shape[0]
        T = np.empty((min(len(Q), CHUNK), nl, 4, 4))
        for s in range(0, len(Q), CHUNK):
            part = T[:len(Q[s:s + CHUNK])]
            self.fk_batch(Q[s:s + CHUNK], part, links)
            pose_columns(part, out[:, :, s:s + len(part)])

    # -- Jacobians -------------------------------------------------------------------------
    def jacobian(self, q, link, point, out=None):
        _check_link(link, self.m.n)
        return self.jacobian_frames(self.fk(q), link, point, out)

    def jacobian_frames(self, W, link, point, out=None):
        """Column j of each ancestor j of ``link`` is ``(w, w x (p - o_j))`` (revolute) or
        ``(0, w)`` (prismatic), ``w`` the joint axis in world coordinates."""
        m = self.m
        _check_link(link, m.n)
        W = np.asarray(W, dtype=np.float64)
        if W.shape != (m.n, 4, 4):
            raise ValueError(f"frames must have shape ({m.n}, 4, 4), got {W.shape}")
        J = _result(out, (6, m.n))
        cols = m.ancestors[link]
        P = W[link, :3, :3] @ np.asarray(point, dtype=float).reshape(3) + W[link, :3, 3]
        R = W[cols, :3, :3]
        a = m.axes[cols]
        w = R[:, :, 0] * a[:, 0, None] + R[:, :, 1] * a[:, 1, None] + R[:, :, 2] * a[:, 2, None]
        d = P - W[cols, :3, 3]
        cross = np.stack([w[:, 1] * d[:, 2] - w[:, 2] * d[:, 1],
                          w[:, 2] * d[:, 0] - w[:, 0] * d[:, 2],
                          w[:, 0] * d[:, 1] - w[:, 1] * d[:, 0]], axis=1)
        prism = m.prismatic[cols][:, None]
        J[...] = 0.0
        J[0:3, cols] = np.where(prism, 0.0, w).T
        J[3:6, cols] = np.where(prism, w, cross).T
        return J

    def jacobian_batch(self, Q, link, point, out):
        m = self.m
        _check_link(link, m.n)
        cols = m.ancestors[link]
        p = np.asarray(point, dtype=float).reshape(3)
        prism = m.prismatic[cols][:, None, None]
        for s in range(0, len(Q), CHUNK):
            R, t = self._world_batch(Q[s:s + CHUNK])
            P = (R[link] * p[None, :, None]).sum(axis=1) + t[link]              # (3, C)
            w = (R[cols] * m.axes[cols][:, None, :, None]).sum(axis=2)           # (k, 3, C)
            d = P[None] - t[cols]
            lin = np.where(prism, w, np.cross(w, d, axis=1))
            J = out[s:s + CHUNK]
            J[...] = 0.0
            J[:, 0:3, cols] = np.where(prism, 0.0, w).transpose(2, 1, 0)
            J[:, 3:6, cols] = lin.transpose(2, 1, 0)
