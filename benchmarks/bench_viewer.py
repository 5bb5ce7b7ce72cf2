"""Viewer timings on this machine (run by hand; not a test):

    .venv/bin/python benchmarks/bench_viewer.py

* page load: from ``page.goto`` to every link node of the model present in the three.js
  scene (headless Chromium, software WebGL);
* slider-to-pose latency: from a key press on a driver slider to the page's link matrix
  changing (median of 20 presses; includes playwright's round trips);
* ``roboio render`` time per image (640x480, iso) for a few corpus robots.
"""
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]

import roboio  # noqa: E402
from roboio.view.render import render  # noqa: E402

C = os.path.join(ROOT, "..", "shared", "corpus")
MODELS = {"SR1": os.path.join(C, "choreonoid", "share", "model", "SR1", "SR1.body"),
          "tx90cups world": os.path.join(C, "klampt", "tx90cups.xml"),
          "baxter": os.path.join(C, "klampt", "robots", "baxter.rob")}


def browser():
    from browser import browser_page, chromium_path, viewer_process
    if chromium_path() is None:
        print("chromium not installed: page timings skipped")
        return
    for name in ("SR1", "tx90cups world"):
        world = roboio.load_world(MODELS[name])
        robot = world.robots[0]
        d = next(d for d in robot.drivers if d.type in ("normal", "affine"))
        node = f"/m0/r0/L{robot.num_links - 1}"
        with viewer_process(MODELS[name]) as url:
            t0 = time.perf_counter()
            with browser_page(url) as pg:
                pg.wait_nodes([f"/m0/r0/L{i}" for i in range(robot.num_links)])
                load = time.perf_counter() - t0
                lat = []
                for k in range(20):
                    before = pg.pose(node).tolist()
                    t = time.perf_counter()
                    pg.press(d.name, "ArrowRight" if k % 2 == 0 else "ArrowLeft")
                    pg.page.wait_for_function(
                        """([n, b]) => { const e = Array.from(window.__viserMutable.nodeRefFromName[n].matrixWorld.elements);
                             return e.some((x, i) => Math.abs(x - b[i]) > 1e-9); }""",
                        arg=[node, [x for col in zip(*before) for x in col]], polling="raf", timeout=10_000)
                    lat.append(time.perf_counter() - t)
        print(f"{name:16s} page load {load:.2f} s (browser start + page + meshes); slider -> pose on page: "
              f"median {statistics.median(lat) * 1e3:.0f} ms, max {max(lat) * 1e3:.0f} ms")


def renders():
    for name, path in MODELS.items():
        obj = roboio.load(path)
        best = min(_timed(lambda: render(obj, "/tmp/bench_render.png", size=(640, 480))) for _ in range(3))
        print(f"{name:16s} roboio render 640x480 iso: {best:.2f} s (best of 3)")


def _timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


if __name__ == "__main__":
    renders()
    browser()
