"""Fuzzing of every reader under a time and memory guard.

    python tools/fuzz_readers.py --inputs 200000 [--jobs 2] [--seed 0] [--json out.json]
    python tools/fuzz_readers.py --smoke --inputs 300        # samples only (the test suite)

Seeds: every file of ../shared/corpus (copied to a temporary directory, so relative
references resolve and the corpus is never written; skipped with ``--smoke`` or when absent)
plus files made from roboio's samples for every readable format (``fuzz_mutators.build_seeds``).
Each input picks a reader (round robin over every readable format of the registry, so each
gets its share), a seed of that format, and a mutation (grammar-aware for XML, YAML, .rob and
Inventor/VRML; bytes, lines and numbers for everything; see ``tools/fuzz_mutators.py``); a
fraction are hostile inputs of issue 9 with random sizes (``tests/hostile.py``).

Inputs run in worker processes (reused; restarted after a crash, a hang or every 400
inputs) with an address-space limit (``--as-mb``); each input's wall time, CPU time and
memory are measured in the worker. "peak MB" is the memory used by that input: the worker's
peak resident set during the input (VmHWM, reset to the current RSS before each input
through /proc/self/clear_refs) minus its resident set when the input started (the worker's
baseline of 125-350 MB: the interpreter, every reader imported, and what earlier inputs left
in the allocator's free lists), so an input is judged by what it needed, not by what the
worker held before it. The absolute peak is kept as ``rss_mb``. Outcomes per reader: loaded, FormatError, other exception (a bug: anything but
``FormatError``/``FileNotFoundError``, including MemoryError), crash (the worker died), hang
(no answer within ``--timeout`` s of wall time), slow (> ``--slow`` s of CPU time: the machine
may be shared; the wall time is reported too) and big (> ``--mem-mb`` MB).
Problem inputs are copied to ``--save DIR`` for replay (``--replay FILE --format NAME``).
Workers import roboio afresh when they restart: for a long run, run a copy of the tree
(``git archive HEAD | tar -x -C /tmp/roboio-fuzz-tree``), not a tree you are editing.
Exit status 1 when any crash, hang, other exception, slow or big input was seen.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
SAMPLES = os.path.join(ROOT, "roboio", "data", "samples")
sys.path[:0] = [ROOT, HERE, os.path.join(ROOT, "tests")]

MAX_SEED_BYTES = 150_000
BAD = ("other_exception", "crash", "hang", "slow", "big")


# -- worker --------------------------------------------------------------------------------

def _status_mb(key: str) -> float:
    """A memory figure of this process from /proc/self/status (``VmHWM``: peak, ``VmRSS``:
    now), in MB; elsewhere the peak from getrusage, and 0 for the current size."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    if key != "VmHWM":
        return 0.0
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _reset_hwm() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def worker_main() -> None:
    """Read one JSON job per line on stdin, answer one JSON line on stdout."""
    import warnings
    warnings.simplefilter("ignore")
    import roboio
    from roboio.errors import RoboioError
    from roboio.formats import registry
    for f in registry.formats():        # import every reader now, not inside the first input
        for entry in ("read", "write", "sniff"):
            try:
                getattr(f, entry)
            except Exception:  # noqa: BLE001
                pass
    for mod in ("trimesh", "lxml.etree", "yaml", "collada", "trimesh.exchange.load"):
        try:
            __import__(mod)
        except ImportError:
            pass
    out = sys.stdout
    sys.stdout = open(os.devnull, "w")          # readers must not print; keep the channel clean
    out.write('{"ready": true}\n')
    out.flush()
    for line in sys.stdin:
        job = json.loads(line)
        _reset_hwm()
        base_mb = _status_mb("VmRSS")
        t0 = time.perf_counter()
        c0 = time.process_time()
        res = {"outcome": "loaded"}
        try:
            obj = roboio.load(job["path"], job.get("format"))
            touch(obj)
            if job.get("write"):
                roboio.save(obj, job["write"], job.get("write_format"))
        except roboio.FormatError as e:
            res = {"outcome": "format_error", "message": str(e)[:300]}
        except FileNotFoundError as e:
            res = {"outcome": "format_error", "message": f"FileNotFoundError: {e}"[:300]}
        except RoboioError as e:       # LimitExceeded, OutputError: clean refusals too
            res = {"outcome": "format_error", "message": f"{type(e).__name__}: {e}"[:300]}
        except (Exception, RecursionError, MemoryError) as e:  # noqa: BLE001 - what we look for
            import traceback
            res = {"outcome": "other_exception", "type": type(e).__name__,
                   "message": str(e)[:300], "where": traceback.format_exc(limit=-3)[-1200:]}
        res["wall"] = time.perf_counter() - t0
        res["seconds"] = time.process_time() - c0     # CPU: the machine may be shared
        res["rss_mb"] = _status_mb("VmHWM")
        res["peak_mb"] = max(0.0, res["rss_mb"] - base_mb)     # what this input needed
        out.write(json.dumps(res) + "\n")
        out.flush()


def touch(obj) -> None:
    """What a user does next: read lazily loaded meshes, compute the robots' kinematics."""
    from roboio.model import Group, Robot, TriangleMesh, World

    def geoms(o):
        if isinstance(o, World):
            for r in o.robots:
                yield from geoms(r)
            for e in o.rigid_objects + o.terrains:
                yield e.geometry
        elif isinstance(o, Robot):
            for link in o.links:
                yield link.geometry
        else:
            yield getattr(o, "geometry", o)

    def meshes(g):
        stack = [g]
        while stack:
            g = stack.pop()
            if isinstance(g, TriangleMesh):
                yield g
            elif isinstance(g, Group):
                stack.extend(g.children)

    for g in geoms(obj):
        for m in meshes(g):
            if not m.missing:
                m.load()
    for r in ([obj] if isinstance(obj, Robot) else obj.robots if isinstance(obj, World) else []):
        r.fk()


def check(path: str, fmt=None, seconds: int = 20):
    """Load ``path`` (as ``fmt``) in this process and use it (:func:`touch`). Returns
    ``(outcome, detail)``: ``"loaded"``, ``"FormatError"`` (any RoboioError, or
    FileNotFoundError for a reference that became a missing top-level file) when all is well,
    ``"BUG"`` otherwise, with the traceback or the reason."""
    import traceback
    import warnings
    import roboio

    class Timeout(Exception):
        pass

    def alarm(*_):
        raise Timeout(f"no answer after {seconds} s")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            touch(roboio.load(path, fmt))
        return "loaded", None
    except (roboio.RoboioError, FileNotFoundError) as e:
        return "FormatError", str(e)
    except Exception:  # noqa: BLE001 - this is what the fuzzer looks for
        return "BUG", traceback.format_exc()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def fuzz_file(src: str, fmt, iterations: int, rng: random.Random, out_dir=None) -> list:
    """Mutate ``src`` ``iterations`` times in this process (the damaged copy sits next to it,
    so relative references resolve); returns ``(kept file or None, detail)`` for every bug.
    No memory guard: for small files in the test suite; the driver uses workers."""
    from fuzz_mutators import mutate
    with open(src, "rb") as f:
        original = f.read()
    target = os.path.join(os.path.dirname(src), "_fuzz_" + os.path.basename(src))
    bugs = []
    try:
        for k in range(iterations):
            with open(target, "wb") as f:
                f.write(mutate(fmt or "", original, rng))
            outcome, detail = check(target, fmt)
            if outcome == "BUG":
                kept = None
                if out_dir:
                    os.makedirs(out_dir, exist_ok=True)
                    kept = os.path.join(out_dir, f"{fmt or 'auto'}-{k}-{os.path.basename(src)}")
                    shutil.copy(target, kept)
                bugs.append((kept, detail))
    finally:
        if os.path.exists(target):
            os.unlink(target)
    return bugs


def sample(fmt: str, work: str):
    """A small valid file of format ``fmt`` inside the directory ``work`` (a shipped sample is
    copied there with its folder, so that the fuzzer never writes next to the original), or
    None when tests/format_samples.py has none."""
    from format_samples import sample_file
    src = sample_file(fmt, work)
    if src is not None and os.path.dirname(os.path.abspath(src)) != os.path.abspath(work):
        copy = os.path.join(work, "sample")
        shutil.copytree(os.path.dirname(src), copy)
        src = os.path.join(copy, os.path.basename(src))
    return src


class WorkerFailed(RuntimeError):
    pass


class Worker:
    def __init__(self, as_mb: int):
        self.as_mb = as_mb
        self.proc = None
        self.count = 0
        self.start()

    def start(self):
        import resource
        lim = self.as_mb << 20

        def pre():
            os.nice(0)
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, preexec_fn=pre, env=env, cwd=ROOT)
        self.count = 0
        # wait until it has imported every reader, so that import time never counts as an input's
        ready, _, _ = select.select([self.proc.stdout], [], [], 300)
        if not ready or not self.proc.stdout.readline():
            self.proc.kill()
            raise WorkerFailed("a fuzz worker did not start (is the tree importable?)")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
        if self.proc:
            self.proc.wait()

    def run(self, job: dict, timeout: float) -> dict:
        """The worker's answer, or {"outcome": "crash"/"hang"} (the worker is restarted)."""
        if self.count >= 400:
            self.stop()
            self.start()
        self.count += 1
        try:
            self.proc.stdin.write((json.dumps(job) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        t0 = time.monotonic()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if ready:
            line = self.proc.stdout.readline()
            if line:
                return json.loads(line)
        seconds = time.monotonic() - t0
        if not ready:
            self.stop()
            self.start()
            return {"outcome": "hang", "seconds": seconds, "peak_mb": 0.0}
        code = self.proc.wait()
        self.start()
        return {"outcome": "crash", "seconds": seconds, "peak_mb": 0.0,
                "message": f"worker died: {'signal ' + str(-code) if code < 0 else 'exit ' + str(code)}"}


# -- seeds ---------------------------------------------------------------------------------

def collect_seeds(work: str, use_corpus: bool, readers) -> dict:
    from fuzz_mutators import build_seeds
    from roboio.formats import registry
    files = build_seeds(os.path.join(work, "seeds"), SAMPLES)
    try:                                # one small file per format, from the test suite's list
        for r in readers:
            p = sample(r, os.path.join(work, "samples", r))
            if p is not None:
                files.append(p)
    except ImportError:
        pass
    if use_corpus:
        dst = os.path.join(work, "corpus")
        shutil.copytree(CORPUS, dst, ignore=shutil.ignore_patterns("oracle"))
        for root, dirs, fs in os.walk(dst):
            os.chmod(root, 0o755)
            for f in fs:
                p = os.path.join(root, f)
                os.chmod(p, 0o644)
                files.append(p)
    seeds = collections.defaultdict(list)
    for p in files:
        if os.path.getsize(p) > MAX_SEED_BYTES or os.path.basename(p).startswith("_fuzz"):
            continue
        try:
            info = registry.find_reader(p)
        except Exception:      # noqa: BLE001 - not a file any reader takes
            continue
        seeds[info.name].append(p)
    return {r: sorted(seeds.get(r, [])) for r in readers}


# -- driver --------------------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.rows = collections.defaultdict(collections.Counter)
        self.max_s = collections.defaultdict(float)
        self.max_wall = collections.defaultdict(float)
        self.peak = collections.defaultdict(float)
        self.rss = collections.defaultdict(float)
        self.examples = collections.defaultdict(list)

    def add(self, reader, res, args):
        row = self.rows[reader]
        row["inputs"] += 1
        row[res["outcome"]] += 1
        s, mb = res.get("seconds", 0.0), res.get("peak_mb", 0.0)
        if res["outcome"] not in ("hang", "crash"):      # those are counted, not timed
            self.max_s[reader] = max(self.max_s[reader], s)
            self.max_wall[reader] = max(self.max_wall[reader], res.get("wall", s))
        self.peak[reader] = max(self.peak[reader], mb)
        self.rss[reader] = max(self.rss[reader], res.get("rss_mb", 0.0))
        bad = []
        if res["outcome"] in ("other_exception", "crash", "hang"):
            bad.append(res["outcome"])
        if s > args.slow and res["outcome"] != "hang":
            row["slow"] += 1
            bad.append("slow")
        if mb > args.mem_mb:
            row["big"] += 1
            bad.append("big")
        return bad

    def total(self, key):
        return sum(r[key] for r in self.rows.values())

    def table(self) -> str:
        cols = ("inputs", "loaded", "format_error", "other_exception", "crash", "hang", "slow", "big")
        head = (f"{'reader':22s} " + " ".join(f"{c[:9]:>9s}" for c in cols)
                + f" {'max cpu s':>9s} {'max wall':>8s} {'peak MB':>8s} {'RSS MB':>7s}")
        lines = [head]
        for r in sorted(self.rows):
            row = self.rows[r]
            lines.append(f"{r:22s} " + " ".join(f"{row[c]:9d}" for c in cols)
                         + f" {self.max_s[r]:9.2f} {self.max_wall[r]:8.2f} {self.peak[r]:8.0f}"
                         f" {self.rss[r]:7.0f}")
        tot = {c: self.total(c) for c in cols}
        lines.append(f"{'TOTAL':22s} " + " ".join(f"{tot[c]:9d}" for c in cols)
                     + f" {max(self.max_s.values(), default=0):9.2f} {max(self.max_wall.values(), default=0):8.2f}"
                     f" {max(self.peak.values(), default=0):8.0f} {max(self.rss.values(), default=0):7.0f}")
        lines.append("peak MB: memory used by one input (peak RSS during it minus RSS at its start); "
                     "RSS MB: the worker's absolute peak")
        return "\n".join(lines)

    def to_json(self):
        return {"readers": {r: dict(row, max_cpu_seconds=self.max_s[r], max_wall_seconds=self.max_wall[r],
                                    peak_mb=self.peak[r], peak_rss_mb=self.rss[r])
                            for r, row in self.rows.items()},
                "totals": {c: self.total(c) for c in ("inputs", "loaded", "format_error") + BAD},
                "examples": self.examples}


def make_input(reader, seeds, rng, work, n, hostile_fraction):
    """(path to load, format to pass or None, directory to delete afterwards or None)."""
    import hostile
    if rng.random() < hostile_fraction:
        d = os.path.join(work, "hostile", str(n))
        os.makedirs(d)
        try:
            name, h = hostile.generate(d, rng)
        except OSError:
            shutil.rmtree(d, ignore_errors=True)
            return None
        return h.path, h.load_kwargs.get("format"), d, "hostile:" + name
    src = rng.choice(seeds)
    with open(src, "rb") as f:
        data = f.read()
    from fuzz_mutators import mutate
    sib_dir = os.path.dirname(src)
    ext = os.path.splitext(src)[1]
    siblings = [n_.encode() for n_ in os.listdir(sib_dir) if n_.endswith(ext)][:20]
    out = os.path.join(sib_dir, f"_fuzz{os.getpid()}_{n}_" + os.path.basename(src))
    data = mutate(reader, data, rng, siblings)
    with open(out, "wb") as f:
        f.write(data.replace(b'"self"', b'"' + os.path.basename(out).encode() + b'"')
                if b'"self"' in data else data)
    return out, (reader if rng.random() < 0.7 else None), None, reader


def run(args) -> int:
    import warnings
    warnings.simplefilter("ignore")
    from roboio.formats import registry
    readers = [f.name for f in registry.formats() if f.can_read]
    writable = {f.name for f in registry.formats() if f.can_write}
    wanted = (args.readers.split(",") if args.readers else []) + (args.formats or [])
    if wanted:
        readers = [r for r in readers if r in wanted]
    use_corpus = not args.smoke and os.path.isdir(CORPUS)
    stopped = False
    rng = random.Random(args.seed)
    stats = Stats()
    work = tempfile.mkdtemp(prefix="roboio-fuzz-")
    workers = []
    t_start = time.monotonic()
    try:
        seeds = collect_seeds(work, use_corpus, readers)
        missing = [r for r in readers if not seeds[r]]
        if missing:
            print(f"no seed for: {', '.join(missing)}", file=sys.stderr)
        active = [r for r in readers if seeds[r]]
        workers = [Worker(args.as_mb) for _ in range(args.jobs)]
        pending = {}                     # worker index -> (reader, path, cleanup, label, t0)
        n = 0
        last_print = time.monotonic()
        while True:
            done_all = n >= args.inputs or (args.seconds and time.monotonic() - t_start > args.seconds)
            for i, w in enumerate(workers):
                if i in pending or done_all:
                    continue
                reader = active[n % len(active)]
                made = make_input(reader, seeds[reader], rng, work, n, args.hostile)
                n += 1
                if made is None:
                    continue
                path, fmt, cleanup, label = made
                job = {"path": path, "format": fmt}
                if rng.random() < args.write and reader in writable:
                    # read and write back in the reader's own format (writers see fuzzed models)
                    job.update(format=reader, write_format=reader, write=os.path.join(
                        work, "out", f"w{n}" + os.path.splitext(path)[1]))
                    os.makedirs(os.path.dirname(job["write"]), exist_ok=True)
                w.proc.stdin.write((json.dumps(job) + "\n").encode())
                w.proc.stdin.flush()
                w.count += 1
                pending[i] = (reader if not label.startswith("hostile") else label, path, cleanup, job,
                              time.monotonic())
            if not pending:
                break
            streams = {workers[i].proc.stdout: i for i in pending}
            ready, _, _ = select.select(list(streams), [], [], 0.05)
            now = time.monotonic()
            finished = []
            for s in ready:
                i = streams[s]
                line = s.readline()
                if line:
                    res = json.loads(line)
                else:
                    code = workers[i].proc.wait()
                    res = {"outcome": "crash", "seconds": now - pending[i][4], "peak_mb": 0.0,
                           "message": f"worker died ({'signal ' + str(-code) if code < 0 else 'exit ' + str(code)})"}
                    workers[i].start()
                finished.append((i, res))
            for i, p in pending.items():
                if i not in dict(finished) and now - p[4] > args.timeout:
                    workers[i].stop()
                    workers[i].start()
                    finished.append((i, {"outcome": "hang", "seconds": now - p[4], "peak_mb": 0.0}))
            for i, res in finished:
                label, path, cleanup, job, _ = pending.pop(i)
                bad = stats.add(label, res, args)
                if bad:
                    _report_bad(label, path, job, res, bad, args, stats)
                if workers[i].count >= 400 or res.get("peak_mb", 0) > args.mem_mb:
                    workers[i].stop()
                    workers[i].start()
                _cleanup(path, cleanup, job)
            if args.progress and time.monotonic() - last_print > args.progress:
                last_print = time.monotonic()
                print(f"[{time.monotonic() - t_start:7.0f} s] {stats.total('inputs')} inputs, "
                      f"{sum(stats.total(k) for k in BAD)} problems", file=sys.stderr, flush=True)
    except (WorkerFailed, KeyboardInterrupt) as e:
        print(f"stopped: {e or 'interrupted'}", file=sys.stderr)
        stopped = True
    finally:
        for w in workers:
            w.stop()
        shutil.rmtree(work, ignore_errors=True)
    elapsed = time.monotonic() - t_start
    print(stats.table())
    print(f"\n{stats.total('inputs')} inputs in {elapsed:.0f} s (seed {args.seed}, {args.jobs} worker(s), "
          f"corpus {'yes' if use_corpus else 'no'}); limits: {args.slow} s, {args.mem_mb} MB, "
          f"hang after {args.timeout} s, address space {args.as_mb} MB")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(stats.to_json(), seconds=elapsed, seed=args.seed), f, indent=1)
    return 1 if stopped or any(stats.total(k) for k in BAD) else 0


def _report_bad(label, path, job, res, bad, args, stats):
    msg = (f"{'/'.join(bad).upper()}: {label}: {os.path.basename(path)}: {res.get('type', '')} "
           f"{res.get('message', '')} ({res.get('seconds', 0):.2f} s, {res.get('peak_mb', 0):.0f} MB, "
           f"RSS {res.get('rss_mb', 0):.0f} MB)")
    print(msg, file=sys.stderr, flush=True)
    if res.get("where") and args.verbose:
        print(res["where"], file=sys.stderr)
    ex = stats.examples[label]
    if len(ex) < 5:
        ex.append(msg)
    if args.save and os.path.isfile(path):
        os.makedirs(args.save, exist_ok=True)
        shutil.copy(path, os.path.join(args.save, f"{label.replace(':', '_').replace(' ', '_')}_"
                                       f"{len(os.listdir(args.save))}_{os.path.basename(path)}"))


def _cleanup(path, cleanup, job):
    if cleanup:
        shutil.rmtree(cleanup, ignore_errors=True)
    elif os.path.basename(path).startswith("_fuzz"):
        try:
            os.unlink(path)
        except OSError:
            pass
    w = job.get("write")
    if w:
        shutil.rmtree(os.path.dirname(w), ignore_errors=True)


def replay(args) -> int:
    w = Worker(args.as_mb)
    try:
        res = w.run({"path": args.replay, "format": (args.formats or [None])[0]}, args.timeout)
    finally:
        w.stop()
    print(json.dumps(res, indent=1))
    return 0 if res["outcome"] in ("loaded", "format_error") else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", "--iterations", type=int, default=2000,
                    help="number of inputs (default 2000)")
    ap.add_argument("--seconds", type=float, default=0, help="stop after this many seconds")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--smoke", "--samples", action="store_true",
                    help="seeds from roboio's samples only (no corpus)")
    ap.add_argument("--readers", help="comma-separated format names (default: every reader)")
    ap.add_argument("--format", action="append", dest="formats", help="only this format (repeatable; with --replay: read as this format)")
    ap.add_argument("--hostile", type=float, default=0.03, help="fraction of hostile inputs")
    ap.add_argument("--write", type=float, default=0.05, help="fraction of loads also written back")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds before an input is a hang")
    ap.add_argument("--slow", type=float, default=2.0, help="seconds over which an input is slow")
    ap.add_argument("--mem-mb", type=float, default=500.0, help="peak MB over which an input is big")
    ap.add_argument("--as-mb", type=int, default=3000, help="address-space limit of a worker (MB)")
    ap.add_argument("--json", help="write the statistics here")
    ap.add_argument("--save", "--out", help="copy problem inputs into this directory")
    ap.add_argument("--progress", type=float, default=0, help="print progress every N seconds")
    ap.add_argument("--verbose", action="store_true", help="print tracebacks of exceptions")
    ap.add_argument("--replay", help="run one file through a guarded worker")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker_main()
        return 0
    if args.replay:
        return replay(args)
    signal.signal(signal.SIGTERM, lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
