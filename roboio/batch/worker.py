"""Set-up of the worker processes of the local cluster the batch commands start (a Dask
preload module: ``dask_setup`` runs in each worker process when it starts).

Ctrl-C on a terminal reaches every process of the foreground group, the workers too; they
ignore it, and the command stops them itself (cancelling their tasks, then closing the
cluster), so an interrupted run prints one line, not a traceback per worker.
"""
import signal


def dask_setup(worker) -> None:
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:          # not the main thread of the worker's process
        pass
