"""``roboio.batch.convert``, ``validate`` and ``fk``: plan the work (:mod:`.walk`), run one
task per file or motion chunk on Dask (:mod:`.runner`, :mod:`.tasks`), keep the report.

The report (JSON) lists every task's :class:`~roboio.batch.tasks.Outcome`; it is written
atomically at the end, every few seconds while the run goes on, and when the run is
interrupted, so that ``resume=True`` skips what an earlier run completed: an output the
report lists with the size and modification time it still has, from an input that has not
changed since. Anything else (an output missing, truncated or rewritten, a task that never
reported) is done again.
"""
from __future__ import annotations

import json
import math
import os
import time
from typing import Callable, Optional

from . import tasks as T
from .walk import OutputClash, Source, expand, readable

__all__ = ["Summary", "convert", "validate", "fk", "REPORT_VERSION", "CONVERT_REPORT"]

REPORT_VERSION = 1
CONVERT_REPORT = ".roboio-batch-report.json"     # default report of batch convert, in DST
SAVE_EVERY = 5.0                                  # seconds between saves of the report
RESUMED = "complete in an earlier run (--resume)"


class Summary:
    """What a batch run did, file by file.

    ``ok``: inputs done without a problem (list); ``failed``: input -> one-line message;
    ``skipped``: input -> why (the target cannot hold it; complete in an earlier run with
    ``resume``); ``outcomes``: every task's :class:`~roboio.batch.tasks.Outcome` (a motion
    of ``fk`` has one per chunk), by input and output path (whatever order the tasks
    finished in, so that two runs' summaries and reports compare line by line); ``written``: files written; ``report``: the report's path
    (or None); ``interrupted``: the run was stopped (Ctrl-C) before the end."""

    def __init__(self, command: str, outcomes: list, report: Optional[str] = None,
                 interrupted: bool = False):
        self.command = command
        self.outcomes = sorted(outcomes, key=lambda o: (o.input, o.output or ""))
        self.report = report
        self.interrupted = interrupted
        by_input: dict = {}
        for o in self.outcomes:
            by_input.setdefault(o.input, []).append(o)
        self.ok, self.failed, self.skipped = [], {}, {}
        for path, outs in by_input.items():
            bad = [o for o in outs if o.kind == "failed"]
            if bad:
                self.failed[path] = bad[0].message
            elif any(o.kind == "ok" for o in outs):
                self.ok.append(path)
            else:
                self.skipped[path] = outs[0].message

    @property
    def written(self) -> list:
        """Paths of the files this run wrote (outputs and side files, each once)."""
        seen = {}
        for o in self.outcomes:
            if o.kind == "ok":
                for w in o.written:
                    seen.setdefault(w["path"], None)
        return list(seen)

    @property
    def frames(self) -> int:
        return sum(o.frames for o in self.outcomes if o.kind == "ok")

    def counts(self) -> dict:
        return {"ok": len(self.ok), "failed": len(self.failed), "skipped": len(self.skipped),
                "written": len(self.written), "frames": self.frames,
                "seconds": round(sum(o.seconds for o in self.outcomes), 6)}

    def __repr__(self):
        c = self.counts()
        return (f"<Summary {self.command}: {c['ok']} ok, {c['failed']} failed, "
                f"{c['skipped']} skipped, {c['written']} files written>")


class _Book:
    """The outcomes of a run and its report file."""

    def __init__(self, command: str, params: dict, path: Optional[str],
                 on_outcome: Optional[Callable] = None):
        self.command, self.params, self.path = command, params, path
        self.outcomes: list = []
        self.on_outcome = on_outcome
        self._saved = time.monotonic()
        self.interrupted = False
        self._writers: dict = {}
        self._cost = 0.0                  # seconds the last save took

    def add(self, outcome: T.Outcome) -> None:
        T.note_shared_writes(outcome, self._writers)
        self.outcomes.append(outcome)
        if self.on_outcome is not None:
            self.on_outcome(outcome)
        if self.path and time.monotonic() - self._saved > max(SAVE_EVERY, 20 * self._cost):
            self.save()

    def summary(self) -> Summary:
        return Summary(self.command, self.outcomes, self.path, self.interrupted)

    def save(self) -> None:
        """Write the report (atomically); while the run goes on at most 5% of the time."""
        t0 = self._saved = time.monotonic()
        if not self.path:
            return
        from ..formats.fileio import atomic_write
        s = self.summary()
        doc = {"roboio_batch": REPORT_VERSION, "command": self.command, "params": self.params,
               "interrupted": self.interrupted, "counts": s.counts(),
               "files": [o.to_dict() for o in s.outcomes]}
        atomic_write(self.path, json.dumps(doc, indent=1, default=str) + "\n")
        self._cost = time.monotonic() - t0


def _reading(options: T.Options) -> dict:
    """The reading options a report records: ``resume`` trusts an earlier run only when they
    are the same (another ``--flavor`` or ``--package-path`` may give other outputs)."""
    from dataclasses import asdict
    d = {k: v for k, v in asdict(options.limits).items()} if options.limits is not None else {}
    return {"strict": options.strict, "flavor": options.flavor,
            "search_paths": list(options.search_paths),
            "package_dirs": None if options.package_dirs is None else [
                list(p) if isinstance(p, tuple) else p for p in options.package_dirs],
            "check_meshes": options.check_meshes, "limits": d}


def _prior(path: Optional[str], command: str, params: dict, resume: bool) -> dict:
    """``(input, output) -> Outcome`` of an earlier run's report that ``resume`` may trust
    (same command and parameters), else empty."""
    if not (resume and path and os.path.isfile(path)):
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if doc.get("command") != command or doc.get("params") != json.loads(json.dumps(params, default=str)):
            return {}
        outs = [T.Outcome.from_dict(d) for d in doc.get("files", [])]
    except (OSError, ValueError, TypeError, AttributeError):
        return {}                       # unreadable: everything is done again
    return {(o.input, o.output): o for o in outs}


def _complete(prior: Optional[T.Outcome], src: str) -> bool:
    """Whether ``prior`` recorded outputs that are still exactly as written, from ``src`` and
    the files its load read (meshes, included files) as they still are."""
    if prior is None or prior.kind not in ("ok", "skipped") or not prior.written:
        return False
    if prior.input_stamp != T._input_stamp(src):
        return False
    return all(T.stamp(f["path"], digest="crc32" in f) == f for f in list(prior.input_files) + list(prior.written))


def _resumed(prior: T.Outcome) -> T.Outcome:
    out = T.Outcome.from_dict(prior.to_dict())
    out.kind, out.message, out.seconds = "skipped", RESUMED, 0.0
    out.loaded = []
    return out


def _failure(result, src: str, **fields) -> T.Outcome:
    """The outcome of a task: its result, or a failed outcome for what the cluster raised
    (a timeout, a worker lost)."""
    if isinstance(result, T.Outcome):
        return result
    if isinstance(result, BaseException):
        return T.Outcome(src, "failed", T.one_line(result), **fields)
    return T.Outcome(src, "failed", f"unexpected result {result!r}", **fields)


def _run(book: _Book, submit_all: Callable, *, client, workers, scheduler, timeout,
         progress, total: int, cleanup: Callable[[], list]) -> Summary:
    """Connect, let ``submit_all(pool, bar)`` submit the tasks, run them; on Ctrl-C cancel
    what runs, close the cluster, remove temporary files of the writes it cut short
    (``cleanup()`` names the outputs in flight), save the report and raise again."""
    from ..formats.fileio import remove_stale_temps
    from .runner import Pool, connect
    from contextlib import nullcontext
    try:
        with (progress(total) if progress else nullcontext()) as bar:
            with connect(client, workers, scheduler) as c:
                pool = Pool(c, timeout)
                submit_all(pool, bar)
                pool.run()
    except KeyboardInterrupt:
        book.interrupted = True
        for path in cleanup():
            remove_stale_temps(path)
        book.save()
        raise
    book.save()
    return book.summary()


def _tick(bar):
    if bar is not None:
        bar.update()


def _check_timeout(timeout):
    if timeout is not None and not (timeout > 0 and math.isfinite(timeout)):
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")


# -- convert --------------------------------------------------------------------------------

def convert(src, dst, to: str, *, client=None, workers: Optional[int] = None,
            scheduler: Optional[str] = None, resume: bool = False, report: Optional[str] = None,
            timeout: Optional[float] = None, progress=None, on_outcome=None, strict: bool = False,
            search_paths=None, package_dirs=None, flavor=None, limits=None,
            meshes: Optional[str] = None) -> Summary:
    """Convert every file under ``src`` (a directory, a file, a glob, or a list of them) that
    the format ``to`` can hold into the same place under ``dst``, one Dask task per file.

    Outputs are named as by ``roboio convert DIR`` (:func:`roboio.batch.walk.output_name`:
    ``SR1.body`` -> ``SR1.body.urdf``); two inputs that would share an output raise
    :class:`~roboio.batch.walk.OutputClash` before anything is written. ``client``: an
    existing ``distributed.Client``; else ``scheduler`` (an address), else a local cluster
    of ``workers`` processes (default: one per core). ``report``: the JSON report (default
    ``dst/.roboio-batch-report.json``); ``resume``: skip the outputs it lists as complete.
    ``timeout``: seconds per file (a file over it fails). The loading options are those of
    :func:`roboio.load`; those not given are the defaults in force (the command line's).
    ``progress(total)``: a context manager with ``.update()`` told of each file done;
    ``on_outcome(outcome)``: called with each :class:`~roboio.batch.tasks.Outcome`."""
    from ..formats.registry import get
    from .walk import convert_jobs
    _check_timeout(timeout)
    target = get(to)
    if not target.can_write:
        raise ValueError(f"format {to!r} cannot be written")
    dst = os.fspath(dst)
    if os.path.exists(dst) and not os.path.isdir(dst):
        raise ValueError(f"{dst} is a file; a batch conversion needs an output directory")
    options = T.Options.current(strict=strict, search_paths=search_paths,
                                package_dirs=package_dirs, flavor=flavor, limits=limits,
                                meshes=meshes)
    jobs = convert_jobs(src, dst, target)
    report = os.fspath(report) if report else os.path.join(dst, CONVERT_REPORT)
    params = {"to": to, "meshes": meshes, **_reading(options)}
    prior = _prior(report, "convert", params, resume)
    book = _Book("convert", params, report, on_outcome)
    pending = []
    for job in jobs:
        old = prior.get((job.src, job.dst))
        if _complete(old, job.src):
            book.add(_resumed(old))
        else:
            pending.append(job)
    in_flight = {}

    def submit_all(pool, bar):
        for job in pending:
            in_flight[job.dst] = job

            def then(result, job=job):
                in_flight.pop(job.dst, None)
                book.add(_failure(result, job.src))
                _tick(bar)
            pool.submit(T.convert_file, job.src, job.dst, job.reader, to, options, then=then)

    if not pending:
        book.save()
        return book.summary()
    return _run(book, submit_all, client=client, workers=workers, scheduler=scheduler,
                timeout=timeout, progress=progress, total=len(pending),
                cleanup=lambda: list(in_flight))


# -- validate -------------------------------------------------------------------------------

def validate(src, *, client=None, workers: Optional[int] = None, scheduler: Optional[str] = None,
             resume: bool = False, report: Optional[str] = None, timeout: Optional[float] = None,
             kinds=None, progress=None, on_outcome=None, strict: bool = False,
             search_paths=None, package_dirs=None, flavor=None, limits=None) -> Summary:
    """``roboio validate`` on every file under ``src`` that roboio reads (directories, files,
    globs), one Dask task per file: ``ok`` when a file loads with no problem, ``failed``
    with its problems otherwise. ``kinds`` keeps the files of those kinds (``"robot"``,
    ``"world"``, ``"geometry"``, ...; default every file roboio reads). ``resume`` (with
    ``report``) skips the files an earlier run found clean and that have not changed since.
    The other arguments are those of :func:`convert`."""
    _check_timeout(timeout)
    if resume and not report:
        raise ValueError("resume needs the report of the earlier run (report=...)")
    options = T.Options.current(strict=strict, search_paths=search_paths,
                                package_dirs=package_dirs, flavor=flavor, limits=limits)
    files = readable(expand(src), kinds)
    params = {"kinds": sorted(kinds) if kinds else None, **_reading(options)}
    prior = _prior(report, "validate", params, resume)
    book = _Book("validate", params, os.fspath(report) if report else None, on_outcome)
    pending = []
    for s, reader in files:
        old = prior.get((s.path, None))
        if old is not None and old.kind == "ok" and old.input_stamp == T._input_stamp(s.path):
            book.add(_resumed(old))
        else:
            pending.append((s, reader))

    def submit_all(pool, bar):
        for s, reader in pending:
            def then(result, s=s):
                book.add(_failure(result, s.path))
                _tick(bar)
            pool.submit(T.validate_file, s.path, reader, options, then=then)

    if not pending:
        book.save()
        return book.summary()
    return _run(book, submit_all, client=client, workers=workers, scheduler=scheduler,
                timeout=timeout, progress=progress, total=len(pending), cleanup=lambda: [])


# -- fk -------------------------------------------------------------------------------------

MOTION_KINDS = ("body_motion", "trajectory", "multipath")
CHUNK_FRAMES = 10_000


def fk(motions, model, out, *, links=None, chunk_frames: int = CHUNK_FRAMES, client=None,
       workers: Optional[int] = None, scheduler: Optional[str] = None, resume: bool = False,
       report: Optional[str] = None, timeout: Optional[float] = None, progress=None,
       on_outcome=None, strict: bool = False, search_paths=None, package_dirs=None,
       flavor=None, limits=None) -> Summary:
    """World poses of ``model``'s links at every frame of every motion in ``motions``
    (Choreonoid ``.seq``, Klamp't ``.path``/``.configs``/``.milestones``/multipath; files,
    directories, globs), written as the Parquet dataset ``out`` (layout:
    :mod:`roboio.batch.parquet`), one Dask task per motion; a motion longer than
    ``chunk_frames`` frames is split into chunks of that many, the first computed by the
    task that reads the motion, the others by any worker.

    ``links``: names or indices of the links to write (default every link). Each worker
    loads the model and a motion once (a per-process cache), whatever the number of chunks
    it computes. ``report`` defaults to ``out/_roboio-batch-report.json``; a run without
    ``resume`` replaces the parts of the motions it computes. The other arguments are those
    of :func:`convert`."""
    from ..api import load
    from . import parquet
    _check_timeout(timeout)
    if not (isinstance(chunk_frames, int) and chunk_frames >= 1):
        raise ValueError(f"chunk_frames must be a whole number >= 1, not {chunk_frames!r}")
    options = T.Options.current(strict=strict, search_paths=search_paths,
                                package_dirs=package_dirs, flavor=flavor, limits=limits)
    model, out = os.fspath(model), os.fspath(out)
    robot = T._robot_of(load(model, **options.load_kwargs()), model)    # fail early, once
    links = None if links is None else [str(k) if not isinstance(k, int) else k for k in links]
    parquet.link_columns(robot, links)
    if os.path.exists(out) and not os.path.isdir(out):
        raise ValueError(f"{out} is a file; batch fk writes a dataset directory")
    sources = _motion_sources(motions, out)
    report = os.fspath(report) if report else os.path.join(out, parquet.REPORT_NAME)
    params = {"model": os.path.abspath(model), "model_stamp": T._input_stamp(model),
              "links": links, "chunk_frames": chunk_frames, **_reading(options)}
    prior = _prior(report, "fk", params, resume)
    book = _Book("fk", params, report, on_outcome)
    in_flight: dict = {}
    link_arg = None if links is None else tuple(links)

    def part_path(s: Source, k: int) -> str:
        return os.path.join(out, parquet.partition_dir(s.rel), parquet.part_name(k))

    def chunks(total: int):
        n = max(1, -(-total // chunk_frames))
        return [(k, k * chunk_frames, min(total, (k + 1) * chunk_frames)) for k in range(n)]

    def known_total(s: Source):
        """The motion's frame count from the earlier run, when its input is unchanged."""
        for (inp, _), o in prior.items():
            if inp == s.path and o.frame_range and o.input_stamp == T._input_stamp(s.path):
                return o.frame_range[2]
        return None

    meta_of = {}

    def submit_chunks(pool, bar, s: Source, total: int, left: list, first: int = 0):
        """Submit chunks ``first``.. of ``s`` (those the earlier run did not complete);
        ``left[0]`` counts the motion's chunks still running (the bar ticks at 0)."""
        for k, start, stop in chunks(total)[first:]:
            path = part_path(s, k)
            old = prior.get((s.path, path))
            if _complete(old, s.path) and old.frame_range == [start, stop, total]:
                book.add(_resumed(old))
                continue
            left[0] += 1
            in_flight[path] = s

            def then(result, path=path, start=start, stop=stop):
                in_flight.pop(path, None)
                book.add(_failure(result, s.path, frame_range=[start, stop, total]))
                done(bar, left)
            pool.submit(T.fk_part, s.path, model, options, start, stop, total, path,
                        link_arg, meta_of[s.path], then=then)

    def done(bar, left):
        left[0] -= 1
        if left[0] == 0:
            _tick(bar)

    def submit_all(pool, bar):
        for s in _largest_first(sources):
            meta_of[s.path] = {"model_file": model, "motion_file": s.path, "source": s.rel}
            if not resume:
                _clear_parts(os.path.join(out, parquet.partition_dir(s.rel)))
            left = [1]                    # held until every chunk is submitted
            total = known_total(s)
            if total is not None:
                submit_chunks(pool, bar, s, total, left)
                done(bar, left)
                continue
            first = part_path(s, 0)
            in_flight[first] = s

            def planned(result, s=s, left=left, first=first):
                in_flight.pop(first, None)
                if isinstance(result, tuple):
                    total, outcome = result
                    book.add(outcome)
                    if outcome.kind == "ok":
                        submit_chunks(pool, bar, s, total, left, first=1)
                else:
                    book.add(_failure(result, s.path))
                done(bar, left)
            pool.submit(T.fk_first, s.path, model, options, chunk_frames, first, link_arg,
                        meta_of[s.path], then=planned)

    if not sources:
        book.save()
        return book.summary()
    os.makedirs(out, exist_ok=True)
    return _run(book, submit_all, client=client, workers=workers, scheduler=scheduler,
                timeout=timeout, progress=progress, total=len(sources),
                cleanup=lambda: list(in_flight))


def _largest_first(sources: list) -> list:
    """``sources`` by file size, largest first (in the given order among equals): the
    longest motions start first, so that the workers finish together instead of one
    computing a long walk alone at the end (a file that cannot be stat'ed goes last: its
    task fails at once)."""
    def size(s: Source) -> int:
        try:
            return os.stat(s.path).st_size
        except OSError:
            return -1
    return sorted(sources, key=size, reverse=True)


def _motion_sources(motions, out: str) -> list:
    """The motions to compute, each with a partition of its own: a file named on its own is
    taken whatever it holds (its task reports what it is), the files under a directory or
    matching a glob when a motion format reads them. Two sources with one relative path
    (``a/walk.seq`` and ``b/walk.seq`` named as files) raise :class:`OutputClash`."""
    if isinstance(motions, (str, os.PathLike)):
        motions = [motions]
    picked = []
    for m in map(os.fspath, motions):
        found = expand([m], skip=out)
        if os.path.isfile(m):
            picked += found
        else:
            picked += [s for s, reader in readable(found, MOTION_KINDS)]
    seen: dict = {}
    for s in picked:
        if s.rel in seen and os.path.realpath(seen[s.rel].path) != os.path.realpath(s.path):
            raise OutputClash(f"{s.rel}: both {seen[s.rel].path} and {s.path} would be the source "
                              f"{s.rel!r} of the dataset; nothing was written (give their "
                              f"common directory instead)")
        seen.setdefault(s.rel, s)
    return list(seen.values())


def _clear_parts(directory: str) -> None:
    """Remove the Parquet parts an earlier run left in one source's partition."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if name.startswith("part-") and name.endswith(".parquet"):
            os.unlink(os.path.join(directory, name))
