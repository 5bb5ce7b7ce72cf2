"""Start-up time of the command line, against Python's own start-up, in one run.

    python benchmarks/bench_cli_startup.py [--repeat N] [--robot FILE]

Each command is started as a user starts it (a new ``python -m roboio ...`` process, output
to a pipe) ``--repeat`` times, the commands taking turns so that they share the machine's
load. Printed per command: the best and the median wall time, the best CPU time (user + system
of the child), the best wall time minus each floor's (``-floor``: Python's; ``-numpy``: Python
with numpy, what roboio itself adds to a command that builds a model), and the goal of
issue 15:

* ``python -c pass``: the floor, what any Python program pays (interpreter, site, the
  virtualenv's path hooks);
* ``python -c "import numpy"``: the floor of anything that builds a robot model;
* ``roboio --help``: goal <= 120 ms;
* ``roboio info ROBOT``: goal <= 200 ms on a small robot (default: the 6-link sample
  ``planar_arm.rob``).

Best times are the ones to compare with the goals (the machine may be shared; the median
shows how much the load moved them). Exit status 0 whatever the numbers: this measures, it
does not judge.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMALL_ROBOT = os.path.join(ROOT, "roboio", "data", "samples", "planar_arm.rob")


def _run_once(cmd, env):
    """(wall seconds, CPU seconds of the child) of one run; raises if the command fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=15, help="runs per command (default 15)")
    ap.add_argument("--robot", default=SMALL_ROBOT, help="the small robot `roboio info` reads")
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("PYTHONDONTWRITEBYTECODE", None)    # bytecode caches as an installed package has
    py = sys.executable
    commands = [
        ("python -c pass", [py, "-c", "pass"], None),
        ("python -c 'import numpy'", [py, "-c", "import numpy"], None),
        ("roboio --help", [py, "-m", "roboio", "--help"], 0.120),
        (f"roboio info {os.path.basename(args.robot)}", [py, "-m", "roboio", "info", args.robot],
         0.200),
    ]
    for _, cmd, _ in commands:          # warm the page cache and write bytecode once
        _run_once(cmd, env)
    walls = {name: [] for name, _, _ in commands}
    cpus = {name: [] for name, _, _ in commands}
    for _ in range(args.repeat):
        for name, cmd, _ in commands:
            w, c = _run_once(cmd, env)
            walls[name].append(w)
            cpus[name].append(c)
    floor = min(walls[commands[0][0]])
    numpy_floor = min(walls[commands[1][0]])
    print(f"{args.repeat} runs each, taking turns; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print(f"{'command':<28} {'best ms':>8} {'median':>8} {'CPU ms':>8} {'-floor':>8} "
          f"{'-numpy':>8}  goal")
    for name, _, goal in commands:
        best, med, cpu = min(walls[name]), statistics.median(walls[name]), min(cpus[name])
        verdict = "" if goal is None else \
            f"<= {goal * 1e3:.0f} ms: {'met' if best <= goal else 'NOT met'} (best)"
        print(f"{name:<28} {best * 1e3:8.1f} {med * 1e3:8.1f} {cpu * 1e3:8.1f} "
              f"{(best - floor) * 1e3:8.1f} {(best - numpy_floor) * 1e3:8.1f}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
