"""Time and peak memory of every hostile input of issue 9 (``tests/hostile.py``), each run as
``roboio ...`` in its own process, measured with wait4 (CPU time, wall time, peak RSS).

    python benchmarks/bench_hostile.py [--repeat 3] [NAME ...]

Prints one row per case: exit status, CPU seconds, wall seconds, peak MB and the error line.
The interpreter with roboio imported is the baseline (first row).
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

import hostile  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*", help="generator names (default: all)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per case (the best is shown)")
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args()
    print(f"{'case':50s} {'exit':>4s} {'cpu s':>6s} {'wall s':>7s} {'peak MB':>8s}  message")
    base = min((hostile.run_guarded(["-c", "import roboio, roboio.cli.main"], timeout=60)
                for _ in range(args.repeat)), key=lambda o: o.cpu_seconds)
    print(f"{'(python -c import roboio: baseline)':50s} {base.returncode:4d} {base.cpu_seconds:6.2f} "
          f"{base.seconds:7.2f} {base.peak_mb:8.0f}")
    for name, (gen, variants) in hostile.GENERATORS.items():
        if args.names and name not in args.names:
            continue
        for kw in variants:
            runs = []
            for _ in range(args.repeat):
                with tempfile.TemporaryDirectory() as d:
                    h = gen(d, **kw)
                    runs.append((hostile.run_guarded(["-m", "roboio", *h.argv], timeout=args.timeout,
                                                     address_space_mb=4000), h))
            o, h = min(runs, key=lambda r: r[0].cpu_seconds)
            line = (o.stderr.strip().splitlines() or [""])[-1]
            if h.path and os.path.dirname(h.path) not in ("/dev", ""):
                line = line.replace(os.path.dirname(h.path) + os.sep, "")
            flag = " TIMEOUT" if o.timed_out else ""
            print(f"{h.name[:50]:50s} {o.returncode:4d} {o.cpu_seconds:6.2f} {o.seconds:7.2f} "
                  f"{o.peak_mb:8.0f}  {line[:110]}{flag}", flush=True)


if __name__ == "__main__":
    main()
