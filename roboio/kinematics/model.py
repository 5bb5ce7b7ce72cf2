"""Compiled kinematic structure; evaluation goes through a backend.

Conventions (Klamp't's): link i's world transform is

    W(i) = W(parent(i)) @ T0(i) @ J_i(q_i),     W(-1) = identity,

with ``J_i`` a rotation by ``q_i * |w_i|`` about ``w_i`` (revolute; the axis is *not*
normalised, so a longer axis turns faster) or a translation by ``q_i * w_i`` (prismatic).
Jacobians are ``(6, n)``: rows 0-2 angular, rows 3-5 linear velocity, world frame.

Everything that does not depend on q is precomputed. With ``A = R0``, ``K`` the cross
matrix of the unit axis, the local rotation of a revolute link is
``A + sin(theta) (A K) + (1 - cos(theta)) (A K K)``, so evaluating a batch of configurations
is a few broadcast multiply-adds, followed by one batched matrix product per tree level.

:class:`KinematicModel` checks arguments and hands the work to the evaluator of the backend
in use (:mod:`roboio.kinematics.backends`): the compiled kernel (``_kernel.c``) or numpy
(:mod:`roboio.kinematics._numpy`, the reference). Both compute the same results to 1e-14.
"""
from __future__ import annotations

import numpy as np

from ..transforms import skew
from . import backends
from .threads import run_rows


class KinematicModel(backends.PerBackend):
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
        self.order = (np.concatenate([idx for idx, _ in self.levels]) if n
                      else np.zeros(0, dtype=np.int64))       # parents before children

    # -- evaluation (through the backend in use, see roboio.kinematics.backends) ----------
    def _make_evaluator(self, backend):
        return backend.evaluator(self)

    def workspace(self) -> "Workspace":
        """Preallocated buffers for repeated single-configuration evaluation without
        allocation (see :class:`~roboio.kinematics.Workspace`)."""
        from .workspace import Workspace
        return Workspace(self)

    def fk(self, q, out=None) -> np.ndarray:
        """``(n, 4, 4)`` world transforms for one configuration ``q`` (n values), written into
        ``out`` (a C-contiguous float64 ``(n, 4, 4)`` array) when given."""
        ev = self._ev
        if self._ev_backend is not backends._active:
            ev = self.evaluator()
        return ev.fk(q, out)

    def fk_batch(self, Q, out=None, links=None, dtype=None, threads=None) -> np.ndarray:
        """``(N, L, 4, 4)`` world transforms for configurations ``Q`` (N, n).

        ``links``: None (every link, L = n) or a sequence of link indices (negative ones
        count from the end). ``dtype``: float64 (default) or float32 for the result.
        ``out``: a C-contiguous array of that shape and dtype to write into (and return);
        its dtype is the default ``dtype``. ``threads``: the rows are split over this many
        threads (default: every core; small batches stay on the calling thread). Memory
        beyond the result stays bounded (a few KiB per thread with the compiled backend,
        chunks of configurations with numpy).
        """
        Q = self._configs(Q)
        sel = self._link_indices(links)
        shape = (len(Q), self.n if sel is None else len(sel), 4, 4)
        out = _output(out, shape, dtype, _FRAME_DTYPES)
        ev = self.evaluator()
        direct = Q.dtype == _F64 and Q.flags.aligned

        def work(s, e):
            if direct:
                ev.fk_batch(Q[s:e], out[s:e], sel)
                return
            for c in range(s, e, _CONVERT_CHUNK):      # no full-size float64 copy of Q
                part = np.require(Q[c:min(e, c + _CONVERT_CHUNK)], np.float64, ("A",))
                ev.fk_batch(part, out[c:c + len(part)], sel)
        run_rows(work, len(Q), threads, 12.0 * (self.n if sel is None else len(sel)) + 30 * self.n)
        return out

    def fk_pose_columns(self, Q, links=None, threads=None) -> np.ndarray:
        """``(L, 7, N)`` float64: the frames of :meth:`fk_batch` as
        :func:`~roboio.kinematics.pose_vectors.pose_columns` (per link, the columns x, y, z,
        qw, qx, qy, qz over the configurations: a table's layout), the same bits, without
        the ``(N, L, 4, 4)`` array in between. ``links``, ``threads``: as :meth:`fk_batch`."""
        Q = self._configs(Q)
        sel = self._link_indices(links)
        out = np.empty((self.n if sel is None else len(sel), 7, len(Q)))
        ev = self.evaluator()

        def work(s, e):
            for c in range(s, e, _CONVERT_CHUNK):
                part = np.require(Q[c:min(e, c + _CONVERT_CHUNK)], np.float64, ("A",))
                ev.fk_pose_columns(part, out[:, :, c:c + len(part)], sel)
        run_rows(work, len(Q), threads, 12.0 * out.shape[0] + 30 * self.n)
        return out

    def fk_chunks(self, Q, chunk_size: int = 65536, links=None, dtype=None):
        """Yield ``(start, frames)`` for consecutive chunks of ``Q``: ``frames`` (k, L, 4, 4)
        are the transforms of configurations ``start .. start + k - 1``.

        ``Q`` is an (N, n) array (a numpy memmap works: it is read a chunk at a time) or an
        iterable of (k, n) blocks, e.g. a generator reading them from disk. ``frames`` is a
        view of one buffer that is reused for every chunk: copy what you keep. Memory stays
        bounded by ``chunk_size`` whatever N is.
        """
        chunk_size = int(chunk_size)
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
        if isinstance(Q, (list, tuple)):
            Q = np.asarray(Q)
        if hasattr(Q, "shape") and hasattr(Q, "__getitem__"):
            if len(Q.shape) != 2:
                raise ValueError(f"Q must have shape (N, {self.n}), got {tuple(Q.shape)}")
            blocks = (Q[s:s + chunk_size] for s in range(0, Q.shape[0], chunk_size))
        else:
            blocks = iter(Q)
        sel = self._link_indices(links)
        buf = None
        start = 0
        for block in blocks:
            block = self._configs(block)
            for s in range(0, len(block), chunk_size):
                part = block[s:s + chunk_size]
                if buf is None:
                    buf = _output(None, (chunk_size, self.n if sel is None else len(sel), 4, 4),
                                  dtype, _FRAME_DTYPES)
                frames = self.fk_batch(part, out=buf[:len(part)], links=sel)
                yield start, frames
                start += len(part)

    def jacobian(self, q, link: int, point=(0.0, 0.0, 0.0), out=None) -> np.ndarray:
        """``(6, n)`` Jacobian of ``point`` (in ``link``'s frame) at configuration ``q``."""
        return self.evaluator().jacobian(q, self._link_index(link), point, out)

    def jacobian_from_frames(self, W, link: int, point=(0.0, 0.0, 0.0), out=None) -> np.ndarray:
        """``(6, n)`` Jacobian of ``point`` (in ``link``'s frame) given the world transforms
        ``W`` (n, 4, 4) of every link: column j of each ancestor j is ``(w, w x (p - o_j))``
        (revolute) or ``(0, w)`` (prismatic), ``w`` the joint axis in world coordinates."""
        W = np.ascontiguousarray(W, dtype=np.float64)
        return self.evaluator().jacobian_frames(W, self._link_index(link), point, out)

    def jacobian_batch(self, Q, link: int, point=(0.0, 0.0, 0.0), out=None,
                       threads=None) -> np.ndarray:
        """``(N, 6, n)`` Jacobians of ``point`` (in ``link``'s frame) for every row of Q,
        written into ``out`` (C-contiguous float64 of that shape) when given; ``threads``
        as for :meth:`fk_batch`."""
        Q = self._configs(Q)
        link = self._link_index(link)
        point = _point(point)
        out = _output(out, (len(Q), 6, self.n), None, _JACOBIAN_DTYPES)
        ev = self.evaluator()
        direct = Q.dtype == _F64 and Q.flags.aligned

        def work(s, e):
            if direct:
                ev.jacobian_batch(Q[s:e], link, point, out[s:e])
                return
            for c in range(s, e, _CONVERT_CHUNK):
                part = np.require(Q[c:min(e, c + _CONVERT_CHUNK)], np.float64, ("A",))
                ev.jacobian_batch(part, link, point, out[c:c + len(part)])
        run_rows(work, len(Q), threads, 40.0 * self.n)
        return out

    def local_transform(self, i: int, qi: float) -> np.ndarray:
        """``T0(i) J_i(qi)``: link ``i``'s transform relative to its parent at joint value qi."""
        theta = qi * self._rate[i]
        L = np.eye(4)
        L[:3, :3] = self._A[i] + np.sin(theta) * self._B[i] + (1.0 - np.cos(theta)) * self._C[i]
        L[:3, 3] = self._t0[i] + qi * self._slide[i]
        return L

    # -- argument checks -----------------------------------------------------------------------
    def _configs(self, Q):
        """Q as an (N, n) array of real numbers (not copied when it already is one)."""
        if not isinstance(Q, np.ndarray):
            try:
                Q = np.asarray(Q, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"Q must be an (N, {self.n}) array of numbers") from None
        if Q.dtype.kind not in "fiu":
            raise ValueError(f"Q must hold real numbers, got dtype {Q.dtype}")
        if Q.ndim != 2 or Q.shape[1] != self.n:
            raise ValueError(f"Q must have shape (N, {self.n}), got {Q.shape}")
        return Q

    def _link_index(self, link) -> int:
        if not isinstance(link, (int, np.integer)) or isinstance(link, bool):
            raise ValueError(f"link must be an integer index, got {link!r}")
        if not -self.n <= link < self.n:
            raise IndexError(f"link {link} out of range for {self.n} links")
        return int(link) % self.n

    def _link_indices(self, links):
        if links is None:
            return None
        sel = np.asarray(links)
        if sel.ndim != 1 or (sel.size and sel.dtype.kind not in "iu"):
            raise ValueError(f"links must be a sequence of link indices, got {links!r}")
        sel = sel.astype(np.int64)
        bad = (sel < -self.n) | (sel >= self.n)
        if bad.any():
            raise IndexError(f"link {int(sel[bad][0])} out of range for {self.n} links")
        return np.ascontiguousarray(sel % self.n if self.n else sel)


_CONVERT_CHUNK = 65536


def _point(point):
    try:
        p = np.asarray(point, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"point must be 3 numbers, got {point!r}") from None
    if p.shape != (3,):
        raise ValueError(f"point must be 3 numbers, got {point!r}")
    return p


_F64, _F32 = np.dtype(np.float64), np.dtype(np.float32)
_FRAME_DTYPES = (_F64, _F32)
_JACOBIAN_DTYPES = (_F64,)


def _output(out, shape, dtype, allowed):
    """``out`` checked against ``shape`` and ``dtype`` (default: out's own, else the first of
    ``allowed``), or a new array."""
    if dtype is not None:
        dtype = np.dtype(dtype)
        if dtype not in allowed:
            names = " or ".join(a.name for a in allowed)
            raise ValueError(f"dtype must be {names}, got {dtype}")
    if out is None:
        return np.empty(shape, dtype=allowed[0] if dtype is None else dtype)
    if not isinstance(out, np.ndarray):
        raise ValueError(f"out must be a numpy array, got {type(out).__name__}")
    have = out.dtype
    want = dtype if dtype is not None else (have if have in allowed else allowed[0])
    if have != want:
        raise ValueError(f"out has dtype {have}, expected {want}")
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape}, expected {shape}")
    flags = out.flags
    if not flags.c_contiguous:
        raise ValueError("out must be C-contiguous")
    if not flags.writeable:
        raise ValueError("out is read-only")
    return out


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
