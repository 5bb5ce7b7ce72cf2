"""Batches over threads: the compiled kernel releases the GIL while it evaluates a block of
rows, so splitting a batch's rows over threads runs them on several cores at once."""
from __future__ import annotations

import contextlib
import contextvars
import os
import threading

import numpy as np

_POOL = None
_POOL_SIZE = 0
_POOL_PID = None          # a pool made before a fork has no threads in the child: make another
_POOL_LOCK = threading.Lock()


def cores() -> int:
    """Cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# threads a batch uses when its call says none (None: every core); see :func:`limited`
_DEFAULT_THREADS: contextvars.ContextVar = contextvars.ContextVar("roboio_threads", default=None)


@contextlib.contextmanager
def limited(threads: int):
    """Within the block, batches whose call gives no ``threads`` use at most ``threads``
    (for work that is itself one of several running at once, e.g. a Dask task: each worker
    thread then keeps to its own core)."""
    token = _DEFAULT_THREADS.set(int(threads))
    try:
        yield
    finally:
        _DEFAULT_THREADS.reset(token)


def _pool(size: int):
    with _POOL_LOCK:
        return _grown_pool(size)


def _grown_pool(size: int):
    global _POOL, _POOL_SIZE, _POOL_PID
    if _POOL_PID != os.getpid():
        _POOL, _POOL_SIZE, _POOL_PID = None, 0, os.getpid()
    if _POOL is None or _POOL_SIZE < size:
        from concurrent.futures import ThreadPoolExecutor
        if _POOL is not None:
            _POOL.shutdown(wait=False)
        _POOL = ThreadPoolExecutor(max_workers=size, thread_name_prefix="roboio-batch")
        _POOL_SIZE = size
    return _POOL


#: below this many floating-point operations in all, a batch runs on the calling thread
#: (starting workers costs tens of microseconds)
MIN_PARALLEL_WORK = 2_000_000


def run_rows(work, N: int, threads=None, cost_per_row: float = 1000.0) -> None:
    """Call ``work(start, end)`` over rows ``0..N`` split into ``threads`` contiguous parts
    run at once (the kernel releases the GIL while it computes). ``threads``: None (every
    core, or the bound of an enclosing :func:`limited`) or a positive integer; small batches
    run on the calling thread."""
    if threads is None:
        threads = _DEFAULT_THREADS.get() or cores()
    elif isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads must be a positive integer, got {threads!r}")
    threads = int(min(threads, N, 256))
    if threads <= 1 or N * cost_per_row < MIN_PARALLEL_WORK:
        if N:
            work(0, N)
        return
    bounds = [N * k // threads for k in range(threads + 1)]
    pool = _pool(threads - 1)
    futures = [pool.submit(work, bounds[k], bounds[k + 1]) for k in range(1, threads)]
    try:
        work(bounds[0], bounds[1])
    finally:
        errors = [f.exception() for f in futures]
    for e in errors:
        if e is not None:
            raise e
