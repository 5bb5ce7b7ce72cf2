"""Per-call cost of roboio.compat.klampt next to the real klampt package (when installed).

    python benchmarks/bench_compat_klampt.py [ROBOT_FILE] [--calls N]

Default robot: ../shared/corpus/klampt/robots/ur5.rob. Times (microseconds per call, best
of 3 runs of ``--calls`` calls) of ``setConfig``, ``getTransform`` of the last link,
``getWorldPosition``, ``getPositionJacobian`` and ``getJacobian``, and of loading the robot.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
DEFAULT = os.path.join(ROOT, "..", "shared", "corpus", "klampt", "robots", "ur5.rob")


def best(fn, calls, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t) / calls)
    return min(times) * 1e6


def measure(mod, path, calls):
    t = time.perf_counter()
    world = mod.WorldModel()
    if world.loadElement(path) < 0:
        raise SystemExit(f"{mod.__name__} cannot load {path}")
    load = time.perf_counter() - t
    robot = world.robot(0)
    link = robot.link(robot.numLinks() - 1)
    rng = random.Random(0)
    qs = [[rng.uniform(-1, 1) for _ in range(robot.numLinks())] for _ in range(64)]
    it = iter(qs * (3 * calls // len(qs) + 3))
    return {
        "load (ms)": load * 1e3,
        "setConfig": best(lambda: robot.setConfig(next(it)), calls),
        "getTransform": best(link.getTransform, calls),
        "getWorldPosition": best(lambda: link.getWorldPosition([0.1, 0, 0]), calls),
        "getPositionJacobian": best(lambda: link.getPositionJacobian([0.1, 0, 0]), calls),
        "getJacobian": best(lambda: link.getJacobian([0.1, 0, 0]), calls),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("robot", nargs="?", default=DEFAULT)
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import roboio.compat.klampt as compat
    rows = {"roboio.compat.klampt": measure(compat, args.robot, args.calls)}
    try:
        import klampt
        rows["klampt"] = measure(klampt, args.robot, args.calls)
    except ImportError:
        pass
    names = list(next(iter(rows.values())))
    print(f"{os.path.basename(args.robot)}: microseconds per call (load in ms)")
    print(f"{'':22s}" + "".join(f"{n:>22s}" for n in rows))
    for n in names:
        print(f"{n:22s}" + "".join(f"{r[n]:22.1f}" for r in rows.values()))


if __name__ == "__main__":
    main()
