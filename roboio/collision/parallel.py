"""Batches of collision queries spread over worker processes.

The engines hold Python's GIL while they compute (coal and python-fcl both: two threads run
no faster than one), so a batch goes parallel with processes: ``workers`` processes, started
on first use for a compiled model and kept (idle) until the model is garbage collected or
:func:`shutdown` is called. On Linux they are forked: they inherit the compiled model, its
engine objects included, and start in milliseconds. Elsewhere they are spawned and receive
the model pickled (engine objects are made again in each): there, as for any
``multiprocessing`` program, the calling script must guard its entry point with
``if __name__ == "__main__":``.

Each batch is cut into contiguous blocks of rows, two per worker; the results come back in
row order. A worker that dies (killed, out of memory) makes the batch run in this process
instead, with a :class:`~roboio.errors.RoboioWarning`.
"""
from __future__ import annotations

import multiprocessing
import sys
import warnings
import weakref

import numpy as np

from ..errors import RoboioWarning

__all__ = ["run_batch", "shutdown"]

_pools: dict = {}          # id(model) -> (executor, workers)
_MODEL = None              # the model of this worker process


def _context():
    methods = multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux") and "fork" in methods:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _init(model):
    global _MODEL
    _MODEL = model


def _work(what, Q):
    return _MODEL.run_rows(what, Q)


def _executor(model, workers: int):
    from concurrent.futures import ProcessPoolExecutor
    key = id(model)
    entry = _pools.get(key)
    if entry is not None and entry[1] == workers:
        return entry[0]
    if entry is not None:
        entry[0].shutdown(wait=False, cancel_futures=True)
    with warnings.catch_warnings():
        # Python >= 3.12 warns about fork() in a process with threads; the workers run
        # only this module's code on the model they inherit
        warnings.simplefilter("ignore", DeprecationWarning)
        ex = ProcessPoolExecutor(max_workers=workers, mp_context=_context(), initializer=_init,
                                 initargs=(model,))
        # start the workers now, while the catch_warnings above is in force
        ex.submit(int, 0).result()
    _pools[key] = (ex, workers)
    weakref.finalize(model, _drop, key)
    return ex


def _drop(key):
    entry = _pools.pop(key, None)
    if entry is not None:
        entry[0].shutdown(wait=False, cancel_futures=True)


def shutdown() -> None:
    """Stop every worker process of every compiled model (they start again when needed)."""
    for key in list(_pools):
        _drop(key)


def run_batch(model, what: str, Q: np.ndarray, workers: int) -> np.ndarray:
    """``model.run_rows(what, Q)`` computed by ``workers`` processes."""
    from concurrent.futures.process import BrokenProcessPool
    n = len(Q)
    cuts = np.linspace(0, n, 2 * workers + 1).astype(int)
    blocks = [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    try:
        ex = _executor(model, workers)
        futures = [ex.submit(_work, what, Q[a:b]) for a, b in blocks]
        return np.concatenate([f.result() for f in futures])
    except BrokenProcessPool as e:
        _drop(id(model))
        warnings.warn(f"a collision worker process died ({e}); the batch of {n} rows runs in "
                      "this process", RoboioWarning, stacklevel=3)
        return model.run_rows(what, Q)
