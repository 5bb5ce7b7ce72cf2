"""Self-collision checks: roboio (coal narrow phase) next to klampt, in one run.

    python benchmarks/bench_collision.py [ROBOT ...] [--configs N] [--batch N] [--rounds R]

Default robots: ur5.rob and atlas.rob of ../shared/corpus/klampt/robots. For each robot:

* per configuration: ``robot.self_collides(q)`` against klampt's ``setConfig(q)`` +
  ``selfCollides()`` on the same N random configurations (uniform within the joint limits,
  +-pi where unbounded); the two are timed alternately, configuration by configuration, so
  that a busy machine slows both alike; the ratio is the median over the rounds of
  roboio's total time / klampt's;
* the verdicts of both on every configuration (they must agree);
* batch: ``robot.self_collides_batch(Q, workers=W)`` on ``--batch`` configurations with 1 and
  2 worker processes (best of the rounds each), and the rate ratio; and the CPU seconds of
  the batch in one process and in each of the two workers (on a busy machine the wall-clock
  ratio measures the scheduler: the CPU split says what two idle cores give).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
ROBOTS = os.path.join(ROOT, "..", "shared", "corpus", "klampt", "robots")


def per_config(robot, kr, Q, rounds):
    Ql = [list(map(float, q)) for q in Q]
    for q, ql in zip(Q[:50], Ql[:50]):          # warm-up: engine objects, klampt's PQP models
        robot.self_collides(q)
        kr.setConfig(ql)
        kr.selfCollides()
    ratios, ours, theirs = [], [], []
    clock = time.perf_counter
    for _ in range(rounds):
        t_ours = t_theirs = 0.0
        for q, ql in zip(Q, Ql):
            t0 = clock()
            robot.self_collides(q)
            t1 = clock()
            kr.setConfig(ql)
            kr.selfCollides()
            t2 = clock()
            t_ours += t1 - t0
            t_theirs += t2 - t1
        ratios.append(t_ours / t_theirs)
        ours.append(t_ours / len(Q) * 1e6)
        theirs.append(t_theirs / len(Q) * 1e6)
    agree = 0
    for q, ql in zip(Q, Ql):
        kr.setConfig(ql)
        agree += robot.self_collides(q) == kr.selfCollides()
    return float(np.median(ratios)), min(ours), min(theirs), agree


def _cpu_of(pid) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def batch(robot, Q, rounds):
    """Best wall time per worker count, and the CPU seconds of the batch: in this process
    (1 worker), and of each worker process (2 workers; Linux). On a busy machine wall times
    measure the scheduler; the CPU split shows what 2 idle cores would give (the batch's CPU
    over the larger worker's)."""
    from roboio.collision import model_for
    from roboio.collision import parallel
    best, cpu1, cpu2 = {}, None, None
    for _ in range(rounds):
        for w in (1, 2):
            robot.self_collides_batch(Q[:64], workers=w)          # workers started
            pids = []
            if w == 2 and os.path.isdir("/proc"):
                pids = list(parallel._pools[id(model_for(robot))][0]._processes)
            c0, p0 = time.process_time(), [_cpu_of(p) for p in pids]
            t = time.perf_counter()
            robot.self_collides_batch(Q, workers=w)
            dt = time.perf_counter() - t
            c1, p1 = time.process_time(), [_cpu_of(p) for p in pids]
            best[w] = min(best.get(w, dt), dt)
            if w == 1:
                cpu1 = min(cpu1 or np.inf, c1 - c0)
            elif pids:
                split = [b - a for a, b in zip(p0, p1)]
                if cpu2 is None or max(split) < max(cpu2):
                    cpu2 = split
    return best, cpu1, cpu2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("robots", nargs="*", default=[os.path.join(ROBOTS, "ur5.rob"),
                                                   os.path.join(ROBOTS, "atlas.rob")])
    ap.add_argument("--configs", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import klampt
    import roboio
    from roboio.collision import engine_name
    from roboio.verify import sample_configs
    print(f"engine: {engine_name()}; cpus: {os.cpu_count()}; load average: "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for path in args.robots:
        robot = roboio.load(path)
        world = klampt.WorldModel()
        if not world.loadElement(path) >= 0:
            raise SystemExit(f"klampt cannot load {path}")
        kr = world.robot(0)
        Q = sample_configs(robot, args.configs, seed=1)
        ratio, ours, theirs, agree = per_config(robot, kr, Q, args.rounds)
        name = os.path.basename(path)
        print(f"{name}: {len(robot.self_collision_pairs)} pairs; per configuration roboio "
              f"{ours:.1f} us, klampt {theirs:.1f} us (best round); ratio {ratio:.2f} "
              f"(median of {args.rounds} rounds); verdicts agree {agree}/{len(Q)}")
        QB = sample_configs(robot, args.batch, seed=2)
        b, cpu1, cpu2 = batch(robot, QB, max(1, args.rounds // 2))
        print(f"{name}: batch of {len(QB)}: wall time 1 worker {len(QB) / b[1]:.0f}/s, 2 workers "
              f"{len(QB) / b[2]:.0f}/s: {b[1] / b[2]:.2f}x")
        if cpu2:
            print(f"{name}: batch CPU: {cpu1:.3f} s in one process; {cpu2[0]:.3f} s + "
                  f"{cpu2[1]:.3f} s in two workers: {cpu1 / max(cpu2):.2f}x on two idle cores")
    from roboio.collision.parallel import shutdown
    shutdown()


if __name__ == "__main__":
    main()
