"""Mesh-loading speed: roboio over the corpus meshes, and pr2.rob / baxter.rob with every
mesh loaded, next to the klampt package measured in the same run.

    python benchmarks/bench_meshes.py [--repeat N] [--corpus DIR]

Prints, per mesh format, files / triangles / MB and roboio's throughput (triangles/s,
MB/s) next to klampt's ``Geometry3D.loadFile`` on the same files (best of N runs each), then
the robot load times and the ratio roboio / klampt (below 1 means roboio is faster).
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import time
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import roboio  # noqa: E402
from roboio.formats import registry  # noqa: E402
from roboio.model import Group, TriangleMesh  # noqa: E402

FORMATS = {"OFF": ("*.off",), "STL": ("*.stl", "*.STL"), "Wavefront OBJ": ("*.obj",),
           "COLLADA": ("*.dae",), ".tri": ("*.tri",)}


def mesh_files(corpus, patterns):
    out = []
    for pat in patterns:
        for eco in ("klampt", "choreonoid"):
            out += glob.glob(os.path.join(corpus, eco, "**", pat), recursive=True)
    out = sorted(set(out))
    if any(p.endswith("*.obj") for p in patterns):       # Klamp't .obj files are rigid objects
        out = [p for p in out if registry.find_reader(p).name == "wavefront-obj"]
    return out


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), result


def roboio_load_all(files):
    tris = 0
    for f in files:
        tris += len(roboio.load(f).faces)
    return tris


def klampt_load_all(files):
    import klampt
    tris = 0
    for f in files:
        g = klampt.Geometry3D()
        if g.loadFile(f) and g.type() == "TriangleMesh":
            tris += len(g.getTriangleMesh().indices)
    return tris


def force_meshes(robot):
    """Load every mesh of a robot (lazy until now); returns the number of triangles."""
    tris = 0
    stack = [l.geometry for l in robot.links if l.geometry is not None]
    while stack:
        g = stack.pop()
        if isinstance(g, Group):
            stack.extend(g.children)
        elif isinstance(g, TriangleMesh) and not g.missing:
            tris += len(g.load().faces)
    return tris


def roboio_robot(path):
    return force_meshes(roboio.load(path))


def klampt_robot(path):
    import klampt
    w = klampt.WorldModel()
    if not w.readFile(path):
        raise RuntimeError(f"klampt could not read {path}")
    r = w.robot(0)
    tris = 0
    for i in range(r.numLinks()):
        g = r.link(i).geometry()
        if g.type() == "TriangleMesh":
            tris += len(g.getTriangleMesh().indices)
    return tris


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best is kept)")
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "corpus"))
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    registry.formats()                      # import every format module before timing
    try:
        import klampt  # noqa: F401
        have_klampt = True
        klampt.robotsim.setLogLevel("ERROR") if hasattr(klampt.robotsim, "setLogLevel") else None
    except ImportError:
        have_klampt = False
    print(f"{'format':14s} {'files':>5s} {'triangles':>10s} {'MB':>7s} | {'roboio s':>8s} "
          f"{'Mtri/s':>7s} {'MB/s':>6s} | {'klampt s':>8s} {'Mtri/s':>7s} | ratio")
    for name, pats in FORMATS.items():
        files = mesh_files(args.corpus, pats)
        if not files:
            continue
        mb = sum(os.path.getsize(f) for f in files) / 1e6
        t_r, tris = best(lambda: roboio_load_all(files), args.repeat)
        line = (f"{name:14s} {len(files):5d} {tris:10d} {mb:7.2f} | {t_r:8.3f} "
                f"{tris / t_r / 1e6:7.2f} {mb / t_r:6.1f} |")
        if have_klampt:
            t_k, ktris = best(lambda: klampt_load_all(files), args.repeat)
            line += f" {t_k:8.3f} {ktris / t_k / 1e6:7.2f} | {t_r / t_k:5.2f}"
        print(line)
    robots = [os.path.join(args.corpus, "klampt", "robots", n) for n in ("pr2.rob", "baxter.rob")]
    if "klampt-rob" not in {f.name for f in registry.formats()}:
        print("\n(no .rob reader registered: robot timings skipped)")
        return 0
    print(f"\n{'robot':12s} {'triangles':>10s} | {'roboio s':>8s} | {'klampt s':>8s} | roboio/klampt")
    for path in robots:
        if not os.path.exists(path):
            continue
        t_r, tris = best(lambda: roboio_robot(path), args.repeat)
        line = f"{os.path.basename(path):12s} {tris:10d} | {t_r:8.3f} |"
        if have_klampt:
            t_k, _ = best(lambda: klampt_robot(path), args.repeat)
            line += f" {t_k:8.3f} | {t_r / t_k:.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
