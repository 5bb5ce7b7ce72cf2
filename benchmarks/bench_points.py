"""Point cloud timings on this machine (run by hand; not a test):

    .venv/bin/python benchmarks/bench_points.py

* ``render_image`` of a synthetic coloured cloud (a scanned-surface-like band) of 10^5,
  10^6 and 4x10^6 points at 640x480, next to the same image of a 10^5-triangle mesh, so
  the numbers read as a ratio on whatever machine runs them;
* building the viewer scene (``Viewer([cloud])``: colours, size, the points handed to
  viser) for the same clouds.
"""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT]

import numpy as np  # noqa: E402

import roboio  # noqa: E402
from roboio.view.render import render_image  # noqa: E402


def band(n, seed=0):
    rng = np.random.default_rng(seed)
    u, v = rng.random(n), rng.random(n)
    pts = np.stack([np.cos(6 * u) * (1 + 0.3 * v), np.sin(6 * u) * (1 + 0.3 * v), v], axis=1)
    rgb = (np.floor(u * 255).astype(np.int64) << 16) | np.floor(v * 255).astype(np.int64)
    return roboio.PointCloud(pts, {"rgb": rgb.astype(float)})


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main():
    import trimesh
    sphere = trimesh.creation.icosphere(subdivisions=6)        # ~82k triangles
    mesh = roboio.TriangleMesh(sphere.vertices, sphere.faces)
    print(f"mesh of {len(mesh.faces)} triangles: render {timed(lambda: render_image(mesh)):.2f} s")
    for n in (100_000, 1_000_000, 4_000_000):
        pc = band(n)
        print(f"{n:>9} points: render 640x480 {timed(lambda: render_image(pc)):.2f} s")
    try:
        from roboio.view.server import Viewer
    except ImportError:
        return
    for n in (100_000, 1_000_000):
        pc = band(n)
        holder = []
        t = timed(lambda: holder.append(Viewer([pc])))
        holder[0].stop()
        print(f"{n:>9} points: viewer scene {t:.2f} s")


if __name__ == "__main__":
    main()
