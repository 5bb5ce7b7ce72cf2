"""Loading speed: roboio.load vs pinocchio.buildModelFromUrdf on every corpus URDF (and the
URDFs of the example-robot-data package when it is installed), and the cold start of a
process that loads a robot.

    python benchmarks/bench_load.py [--rounds 7] [--cold 7]

For each URDF both loaders run once per round, interleaved (a machine
shared with others slows them alike); the ratio roboio/pinocchio is taken within a round,
its median over rounds is the file's ratio, and the median over files is the summary.
pinocchio builds the kinematic tree only; roboio builds its whole model (meshes stay lazy).

Cold start: the wall time of ``python -c "import roboio; roboio.load('ur5.rob')"`` in a new
process (median of --cold runs; bytecode compiled beforehand, as pip does at install time),
next to ``python -c "pass"`` and ``import numpy``.
"""
from __future__ import annotations

import argparse
import glob
import os
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
UR5 = os.path.join(CORPUS, "klampt", "robots", "ur5.rob")


def timed(fn):
    """(wall, CPU) seconds of one call: on a shared machine the CPU time is the steadier."""
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


def spread(values) -> str:
    """Quartiles and range of a list of ratios."""
    v = sorted(values)
    q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
    return f"quartiles {q[0]:.2f}/{q[1]:.2f}/{q[2]:.2f}, range {v[0]:.2f}-{v[-1]:.2f}"


def example_robot_data():
    """The robots folder of the installed example-robot-data distribution, or None."""
    try:
        from importlib.metadata import PackageNotFoundError, distribution
        d = str(distribution("example-robot-data").locate_file(
            "cmeel.prefix/share/example-robot-data/robots"))
    except (ImportError, PackageNotFoundError):
        return None
    return d if os.path.isdir(d) else None


def bench_urdfs(rounds, root, title, package_dirs=None):
    import roboio
    try:
        import pinocchio as pin
    except ImportError:
        pin = None
    files = sorted(glob.glob(os.path.join(root, "**", "*.urdf"), recursive=True))
    print(f"roboio.load vs pinocchio.buildModelFromUrdf, {len(files)} {title} URDFs, "
          f"median of {rounds} interleaved rounds (CPU ms; ratios of CPU and of wall time)")
    ratios, wall_ratios = [], []
    warnings.simplefilter("ignore")
    for f in files:
        try:
            roboio.load(f, package_dirs=package_dirs)
        except Exception as e:           # noqa: BLE001  (report and go on)
            print(f"  {os.path.relpath(f, root)}: roboio cannot load it ({e})")
            continue
        use_pin = pin is not None
        if use_pin:
            try:
                pin.buildModelFromUrdf(f)
            except Exception:            # noqa: BLE001  (urdfdom rejects a few real files)
                use_pin = False
        rows = []
        for _ in range(rounds):
            r = {"roboio": timed(lambda: roboio.load(f, package_dirs=package_dirs))}
            if use_pin:
                r["pinocchio"] = timed(lambda: pin.buildModelFromUrdf(f))
            rows.append(r)
        t_r = statistics.median(r["roboio"][1] for r in rows)
        line = f"  {os.path.relpath(f, root):60s} roboio {t_r * 1e3:7.2f}"
        if pin and not use_pin:
            line += "  (pinocchio cannot read it)"
        if use_pin:
            t_p = statistics.median(r["pinocchio"][1] for r in rows)
            ratio = statistics.median(r["roboio"][1] / r["pinocchio"][1] for r in rows)
            wall = statistics.median(r["roboio"][0] / r["pinocchio"][0] for r in rows)
            ratios.append(ratio)
            wall_ratios.append(wall)
            line += f"  pinocchio {t_p * 1e3:7.2f}  roboio/pinocchio {ratio:5.2f}x (wall {wall:5.2f}x)"
        print(line)
    if ratios:
        print(f"  median ratio roboio/pinocchio over {len(ratios)} {title} files: "
              f"CPU {statistics.median(ratios):.2f}x ({spread(ratios)}), wall "
              f"{statistics.median(wall_ratios):.2f}x (goal <= 3x)")
    return ratios


def cold(runs):
    cases = [("python -c pass", "pass"),
             ("import numpy", "import numpy"),
             ("import roboio", "import roboio"),
             ("import roboio; roboio.load(ur5.rob)", f"import roboio; roboio.load({UR5!r})")]
    # as an installed package runs: with compiled bytecode (pip writes it at install time).
    # The bytecode of this checkout goes to a temporary cache (PYTHONPYCACHEPREFIX), filled
    # by one warm-up run, so a PYTHONDONTWRITEBYTECODE environment does not make every
    # process compile roboio from source and the checkout stays clean.
    cache = tempfile.mkdtemp(prefix="roboio-pycache-")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    print(f"\ncold process wall and CPU time, median of {runs} runs (s; bytecode compiled beforehand)")
    for _, code in cases:
        subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import resource
    times = {name: [] for name, _ in cases}
    cpu = {name: [] for name, _ in cases}
    for _ in range(runs):                      # interleaved
        for name, code in cases:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - t)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    for name, _ in cases:
        w = sorted(times[name])
        print(f"  {name:40s} wall {statistics.median(w):.3f} (range {w[0]:.3f}-{w[-1]:.3f})  "
              f"CPU {statistics.median(cpu[name]):.3f}")
    print(f"  goal: roboio.load('ur5.rob') in a cold process <= 0.2 s")
    shutil.rmtree(cache, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--cold", type=int, default=7)
    args = ap.parse_args()
    if not os.path.isdir(CORPUS):
        sys.exit(f"corpus not found at {CORPUS}")
    ratios = bench_urdfs(args.rounds, CORPUS, "corpus")
    erd = example_robot_data()
    if erd:
        ratios += bench_urdfs(args.rounds, erd, "example-robot-data", package_dirs=[erd])
        print(f"  median CPU ratio over all {len(ratios)} files: {statistics.median(ratios):.2f}x "
              f"({spread(ratios)})")
    cold(args.cold)


if __name__ == "__main__":
    main()
