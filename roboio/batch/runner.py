"""Running tasks on Dask: the cluster (:func:`connect`) and a pool that feeds it
(:class:`Pool`).

A task is a function of :mod:`roboio.batch.tasks` and its arguments; what comes back through
the scheduler is its small :class:`~roboio.batch.tasks.Outcome` (the workers write the
outputs themselves). The pool keeps at most :data:`IN_FLIGHT` times as many tasks in flight
as the cluster has threads, so that a task's clock (the per-task timeout) starts about when a
worker takes it, and a tree of a million files never sits in the scheduler's memory at once.

Imports ``dask.distributed`` (the ``roboio[batch]`` extra) when a function is called.
"""
from __future__ import annotations

import contextlib
import logging
import os
import time
import warnings
from collections import OrderedDict, deque
from typing import Callable, Optional

__all__ = ["connect", "Pool", "need_dask", "IN_FLIGHT"]

# tasks in flight per worker thread: with 2, a worker often waited for the client to hear of a
# result and submit the next task (200 tasks of 10 ms on 2 workers: 1.45 s; with 4: 1.16 s)
IN_FLIGHT = 4


def need_dask():
    """``distributed``, or an ImportError saying which extra brings it."""
    try:
        import distributed
    except ImportError as e:
        raise ImportError("the batch commands need Dask: pip install 'roboio[batch]' "
                          f"(dask[distributed], pyarrow) ({e})") from None
    return distributed


# The local cluster's settings. Dask's workers start with MALLOC_TRIM_THRESHOLD_ set, which
# turns off glibc's dynamic mmap threshold: every large numpy temporary is then mapped and
# faulted in afresh (loading a .seq walk took 5x the CPU time in a worker); roboio's tasks
# free what they allocate, so the workers keep glibc's defaults. The rest is housekeeping
# for a dashboard the cluster does not serve, which shares the cores with the tasks: the
# workers' statistical profiler (a stack sample every 10 ms of a running task), the event
# loops' 20 ms ticks, memory and system monitors every 0.1-0.5 s. Idle, a worker then
# takes 2 ms of CPU a second instead of 25-35, the client's process 6-10 instead of 30-45;
# batch fk of 48 walks on 2 workers (9 runs each, interleaved): workers 1.90 -> 1.80 s of
# CPU, client 0.36 -> 0.34 s. The nanny still enforces the memory limit, once a second.
QUIET_CLUSTER = {
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}


def local_cluster(n: int):
    """A ``distributed.LocalCluster`` of ``n`` worker processes, one thread each, on
    loopback, as the batch commands start it."""
    import dask
    distributed = need_dask()
    with warnings.catch_warnings(), dask.config.set(QUIET_CLUSTER):
        # without a dashboard the scheduler still serves HTTP (health checks) on 8787, or on
        # a free port when another cluster holds it: nothing the user needs to hear about
        warnings.filterwarnings("ignore", message="Port .* is already in use", category=UserWarning)
        return distributed.LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, silence_logs=logging.ERROR, preload=["roboio.batch.worker"])


@contextlib.contextmanager
def connect(client=None, workers: Optional[int] = None, scheduler: Optional[str] = None):
    """A ``distributed.Client``: ``client`` itself when given (left open); else one
    connected to the scheduler at ``scheduler`` (``tcp://host:port``); else a local cluster
    of ``workers`` processes (default: one per core), one thread each, on loopback, closed
    with its processes when the block ends."""
    if client is not None:
        yield client
        return
    distributed = need_dask()
    if scheduler:
        c = distributed.Client(scheduler, timeout="20s")
        try:
            yield c
        finally:
            c.close()
        return
    cluster = local_cluster(workers or os.cpu_count() or 1)
    try:
        c = distributed.Client(cluster)
        try:
            yield c
        finally:
            c.close()
    finally:
        cluster.close()


class Pool:
    """Tasks submitted with :meth:`submit` run on ``client``'s workers; :meth:`run` waits
    for all of them (and for those their callbacks submit), calling each task's ``then``
    with its result, or with an exception when the task did not complete: a lost worker,
    or ``timeout`` seconds of work (the task is then cancelled and its worker restarted, so
    that a hung task frees its place; workers without a nanny are left as they are)."""

    def __init__(self, client, timeout: Optional[float] = None):
        self.client = client
        self.timeout = timeout
        self.slots = max(1, sum(client.nthreads().values()))
        self._queue: deque = deque()
        self._running: "OrderedDict" = OrderedDict()     # future -> [then, started]

    def submit(self, fn: Callable, *args, then: Callable) -> None:
        self._queue.append((fn, args, then))

    def _feed(self) -> None:
        """Refill the tasks in flight up to :data:`IN_FLIGHT` per slot once half of them
        are done, in one message to the scheduler per function (``client.map``): a message
        per task cost the client's process 2.8 ms of CPU a task, refills of half the tasks
        in flight 1.9 (480 empty tasks on 2 workers), CPU the workers share on a small
        machine."""
        room = IN_FLIGHT * self.slots - len(self._running)
        if not self._queue or (self._running and room < IN_FLIGHT * self.slots // 2):
            return
        batch = [self._queue.popleft() for _ in range(min(room, len(self._queue)))]
        groups: dict = {}
        for item in batch:
            groups.setdefault(item[0], []).append(item)
        futures = {}
        for fn, items in groups.items():
            args = list(zip(*(a for _, a, _ in items)))
            for item, fut in zip(items, self.client.map(fn, *args, pure=False)):
                futures[id(item)] = fut
        for item in batch:                       # in the order they were submitted
            self._running[futures[id(item)]] = [item[2], None]

    def _start_clocks(self, now: float) -> None:
        """The first ``slots`` tasks in flight are the ones being worked on (Dask takes
        tasks about in the order they come)."""
        for k, entry in enumerate(self._running.values()):
            if k >= self.slots:
                break
            if entry[1] is None:
                entry[1] = now

    def run(self) -> None:
        from distributed import wait
        try:
            while self._queue or self._running:
                self._feed()
                self._start_clocks(time.monotonic())
                try:
                    done, _ = wait(list(self._running), timeout=self._poll(),
                                   return_when="FIRST_COMPLETED")
                except TimeoutError:
                    done = ()
                finished = [f for f in self._running if f in done]
                for fut, result in zip(finished, self._results(finished)):
                    then, _ = self._running.pop(fut)
                    then(result)
                self._expire(time.monotonic())
        except BaseException:
            self.cancel()
            raise

    def _results(self, futures: list) -> list:
        """The results of finished ``futures``, fetched together (one round trip to the
        workers, not one per task); the exception of those that failed or were lost."""
        ok = [f for f in futures if f.status == "finished"]
        try:
            values = dict(zip(ok, self.client.gather(ok))) if ok else {}
        except Exception:               # noqa: BLE001 -- a worker lost since: one by one
            values = {}
        out = []
        for f in futures:
            if f in values:
                out.append(values[f])
                continue
            try:
                out.append(f.result())
            except Exception as e:      # noqa: BLE001 -- a lost worker, a cancellation
                out.append(e)
        return out

    def _poll(self) -> float:
        if not self.timeout:
            return 0.5
        started = [s for _, s in self._running.values() if s is not None]
        if not started:
            return 0.5
        return max(0.01, min(0.5, min(started) + self.timeout - time.monotonic()))

    def _expire(self, now: float) -> None:
        if not self.timeout:
            return
        late = [f for f, (_, s) in self._running.items() if s is not None and now - s > self.timeout]
        if not late:
            return
        workers = self._workers_of({f.key for f in late})
        for fut in late:
            then, _ = self._running.pop(fut)
            fut.cancel()
            then(TimeoutError(f"timed out after {self.timeout:g} s (--timeout)"))
        if workers:
            try:
                self.client.restart_workers(sorted(workers), raise_for_error=False)
            except Exception:           # noqa: BLE001 -- no nanny (threads): cannot restart
                pass

    def _workers_of(self, keys: set) -> set:
        try:
            processing = self.client.processing()
        except Exception:               # noqa: BLE001
            return set()
        return {w for w, ks in processing.items() if keys & set(ks)}

    def cancel(self) -> None:
        """Cancel whatever is queued or in flight (Ctrl-C)."""
        self._queue.clear()
        futs = list(self._running)
        self._running.clear()
        if futs:
            try:
                self.client.cancel(futs)
            except Exception:           # noqa: BLE001 -- the cluster may be going down
                pass
