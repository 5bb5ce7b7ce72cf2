"""roboio batch speed, measured side by side in one run.

    python benchmarks/bench_batch.py [--repeat N] [--copies K] [--skip-fk] [--skip-convert]

batch fk: the corpus's Choreonoid walks (SR1WalkPattern{1,2,3}.seq on SR1.body), each copied
K times (``--copies``, so that two workers have enough tasks), one task per walk (chunks of
10,000 frames, the default). Measured: ``roboio.batch.fk`` on a local cluster of 1 and of 2
worker processes (started before timing; the workers' model and motion caches emptied before
every run, so each run loads what it computes); the same tasks one after the other in this
process, without Dask (load, link transforms, Parquet parts); ``roboio.load`` and
``link_transforms`` of each motion in one process (a user's own loop, writing nothing); and
``Robot.fk_batch`` alone on the same frames (configurations prepared beforehand). Reported:
frames/s, the 2-worker speed-up, and time per frame against the one-process rows.

batch convert: every robot file of the corpus's ``choreonoid/share/model`` and
``klampt/robots`` to URDF. Measured: ``roboio.batch.convert`` on 1 and 2 workers (cluster
started before timing, and separately the cluster's start), and a shell loop running
``roboio convert FILE OUT --to urdf`` once per file (one process each, as a script would).
Reported: files/s and the ratios.

The machine may be shared: every measurement is repeated ``--repeat`` times and the median is
reported, with the load average before and after.
"""
from __future__ import annotations

import argparse
import logging
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import roboio  # noqa: E402
import roboio.batch  # noqa: E402
from roboio.batch import tasks  # noqa: E402

CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
WALKS = os.path.join(CORPUS, "choreonoid", "sample", "SimpleController")
SR1 = os.path.join(CORPUS, "choreonoid", "share", "model", "SR1", "SR1.body")
ROBOT_TREES = [os.path.join(CORPUS, "choreonoid", "share", "model"),
               os.path.join(CORPUS, "klampt", "robots")]
CHUNK = 10_000


def median_time(fn, repeat, before=None):
    times = []
    for _ in range(repeat):
        if before:
            before()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times


def start_cluster(n):
    from distributed import Client
    from roboio.batch.runner import local_cluster
    cluster = local_cluster(n)          # as the batch commands start it
    return cluster, Client(cluster)


def _clear_cache():
    from roboio.batch import tasks as t
    t._CACHE.clear()


def load_text():
    return "load average %.1f %.1f %.1f" % os.getloadavg()


def bench_fk(args, work):
    src = os.path.join(work, "motions")
    walks = sorted(f for f in os.listdir(WALKS) if f.endswith(".seq"))
    for k in range(args.copies):
        os.makedirs(os.path.join(src, f"copy{k}"))
        for w in walks:
            shutil.copy(os.path.join(WALKS, w), os.path.join(src, f"copy{k}", w))
    robot = roboio.load(SR1)
    motions = [roboio.load(os.path.join(WALKS, w)) for w in walks]
    frames = args.copies * sum(m.num_frames for m in motions)
    configs = [m.robot_configs(robot) for m in motions] * args.copies
    out = os.path.join(work, "poses.parquet")
    print(f"batch fk: {args.copies} x {len(walks)} walks, {frames:,} frames of {robot.num_links} "
          f"links, chunks of {CHUNK}; {load_text()}")

    t_kernel, _ = median_time(lambda: [robot.fk_batch(Q) for Q in configs], args.repeat)

    def in_process():
        options = tasks.Options.current()
        for k in range(args.copies):
            for w in walks:
                path = os.path.join(src, f"copy{k}", w)
                n = tasks._frame_count(tasks._motion_of(tasks.cached_load(path, options), path))
                for i, start in enumerate(range(0, n, CHUNK)):
                    part = os.path.join(work, "inproc", f"{k}-{w}-{i}.parquet")
                    o = tasks.fk_part(path, SR1, options, start, min(n, start + CHUNK), n, part,
                                      None, {})
                    assert o.ok, o.message
    t_inproc, _ = median_time(in_process, args.repeat, before=_clear_cache)

    def user_loop():
        for k in range(args.copies):
            for w in walks:
                roboio.load(os.path.join(src, f"copy{k}", w)).link_transforms(robot)
    t_loop, _ = median_time(user_loop, args.repeat)

    rows = [("Robot.fk_batch in one process (kernel only)", t_kernel),
            ("roboio.load + link_transforms, one process", t_loop),
            ("same tasks in one process, no Dask", t_inproc)]
    for n in (1, 2):
        cluster, client = start_cluster(n)
        try:
            def run():
                s = roboio.batch.fk(src, SR1, out, client=client, chunk_frames=CHUNK)
                assert not s.failed and s.frames == frames, s.failed
            run()                                       # warm: workers import roboio
            t, _ = median_time(run, args.repeat,
                               before=lambda: (client.run(_clear_cache), shutil.rmtree(out, True)))
        finally:
            client.close()
            cluster.close()
        rows.append((f"roboio.batch.fk, {n} worker{'s' if n > 1 else ''}", t))
    for name, t in rows:
        print(f"  {name:46s} {t:8.3f} s  {frames / t:12,.0f} frames/s  {t / frames * 1e6:8.2f} us/frame")
    t1, t2 = rows[3][1], rows[4][1]
    print(f"  2 workers / 1 worker speed-up: {t1 / t2:.2f}x; per frame, 2 workers vs fk_batch: "
          f"{t2 / t_kernel:.1f}x, vs load + link_transforms: {t2 / t_loop:.2f}x; 1 worker vs the "
          f"same tasks in one process: {t1 / t_inproc:.2f}x; {load_text()}")


def bench_convert(args, work):
    from roboio.batch.walk import convert_jobs
    from roboio.formats.registry import get
    jobs = convert_jobs(ROBOT_TREES, os.path.join(work, "urdf"), get("urdf"))
    print(f"batch convert: {len(jobs)} robot files of {', '.join(os.path.relpath(t, CORPUS) for t in ROBOT_TREES)} "
          f"to URDF; {load_text()}")
    exe = os.path.join(os.path.dirname(sys.executable), "roboio")
    loop_out = os.path.join(work, "loop")
    script = "\n".join(f"{shlex.quote(exe)} -q convert {shlex.quote(j.src)} "
                       f"{shlex.quote(os.path.join(loop_out, os.path.relpath(j.dst, os.path.join(work, 'urdf'))))} "
                       f"--to urdf > /dev/null 2>&1" for j in jobs)
    t_loop, loop_times = median_time(lambda: subprocess.run(["bash", "-c", script], check=False),
                                     args.loop_repeat, before=lambda: shutil.rmtree(loop_out, True))
    rows = [("shell loop over roboio convert", t_loop)]
    for n in (1, 2):
        t0 = time.perf_counter()
        cluster, client = start_cluster(n)
        client.wait_for_workers(n)
        t_start = time.perf_counter() - t0
        try:
            def run():
                s = roboio.batch.convert(ROBOT_TREES, os.path.join(work, "urdf"), "urdf", client=client)
                assert len(s.ok) + len(s.failed) + len(s.skipped) == len(jobs)
            run()
            t, _ = median_time(run, args.repeat, before=lambda: shutil.rmtree(os.path.join(work, "urdf"), True))
        finally:
            client.close()
            cluster.close()
        rows.append((f"roboio.batch.convert, {n} worker{'s' if n > 1 else ''}", t))
        rows.append((f"  the same with the cluster's start ({t_start:.1f} s)", t + t_start))
    for name, t in rows:
        print(f"  {name:46s} {t:8.2f} s  {len(jobs) / t:8.2f} files/s  {t_loop / t:6.2f}x the loop")
    print(f"  2 workers / 1 worker speed-up: {rows[1][1] / rows[3][1]:.2f}x; {load_text()}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per measurement (median kept)")
    ap.add_argument("--loop-repeat", type=int, default=1, help="runs of the shell loop")
    # (16: 48 tasks, 293k frames; with a dozen tasks the second worker's model load and the
    # scheduler's share of the two cores dominate the 2-worker speed-up)
    ap.add_argument("--copies", type=int, default=16, help="times each walk is named (batch fk)")
    ap.add_argument("--skip-fk", action="store_true")
    ap.add_argument("--skip-convert", action="store_true")
    args = ap.parse_args(argv)
    if not os.path.isdir(CORPUS):
        sys.exit("needs ../shared/corpus")
    work = tempfile.mkdtemp(prefix="roboio_bench_batch_")
    try:
        if not args.skip_fk:
            bench_fk(args, work)
        if not args.skip_convert:
            bench_convert(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
