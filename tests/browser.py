"""Driving ``roboio view`` in real headless Chromium (Debian's ``chromium``) through
playwright, for the viewer tests and ``benchmarks/bench_viewer.py``.

Never downloads a browser: playwright launches ``/usr/bin/chromium`` (or ``$CHROMIUM``).
Every request the page makes is recorded, so tests can assert it stays on 127.0.0.1.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path():
    """Debian's Chromium, or None when it is not installed."""
    p = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    return p if p and os.path.exists(p) else None


@contextmanager
def viewer_process(*args, timeout: float = 120.0):
    """Run ``roboio view ARGS --no-browser`` and yield its URL; the process is ended after."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "roboio", "view", *args, "--no-browser"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + timeout
        out = []
        url = None
        while time.time() < deadline:
            line = proc.stdout.readline()
            if not line:
                if proc.poll() is not None:
                    break
                continue
            out.append(line)
            m = re.search(r"(http://127\.0\.0\.1:\d+)", line)
            if m:
                url = m.group(1)
                break
        if url is None:
            raise RuntimeError("roboio view did not print its URL:\n" + "".join(out))
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Page:
    """A headless Chromium page on the viewer, with helpers to read the three.js scene."""

    def __init__(self, page, requests):
        self.page = page
        self.requests = requests

    def wait_nodes(self, names, timeout=90_000):
        self.page.wait_for_function(
            "names => window.__viserMutable && names.every(n => window.__viserMutable.nodeRefFromName[n])",
            arg=list(names), timeout=timeout)

    def pose(self, node, relative_to="/m0"):
        """4x4 pose of scene node ``node`` in the frame of node ``relative_to`` (roboio's
        world frame for ``/m0``), from the matrices three.js draws with."""
        e = self.page.evaluate(
            """([n, r]) => { const m = window.__viserMutable.nodeRefFromName;
                 m[n].updateWorldMatrix(true, false); m[r].updateWorldMatrix(true, false);
                 return [Array.from(m[n].matrixWorld.elements), Array.from(m[r].matrixWorld.elements)]; }""",
            [node, relative_to])
        M = np.array(e[0]).reshape(4, 4).T       # three.js stores column-major
        R = np.array(e[1]).reshape(4, 4).T
        return np.linalg.inv(R) @ M

    def project(self, world_points, relative_to="/m0"):
        """Pixel coordinates of roboio world points (in ``relative_to``'s frame) in the
        page's canvas, from the three.js camera."""
        e = self.page.evaluate(
            """r => { const v = window.__viserMutable; const c = v.camera; c.updateMatrixWorld();
                 const m = v.nodeRefFromName[r]; m.updateWorldMatrix(true, false);
                 const rect = v.canvas.getBoundingClientRect();
                 return [Array.from(c.projectionMatrix.elements), Array.from(c.matrixWorldInverse.elements),
                         Array.from(m.matrixWorld.elements), rect.left, rect.top, rect.width, rect.height]; }""",
            relative_to)
        P, V, Mr = (np.array(x).reshape(4, 4).T for x in e[:3])
        left, top, w, h = e[3:]
        p = np.c_[np.asarray(world_points, float).reshape(-1, 3), np.ones(len(world_points))]
        clip = (P @ V @ Mr @ p.T).T
        ndc = clip[:, :3] / clip[:, 3:4]
        return np.stack([left + (ndc[:, 0] + 1) / 2 * w, top + (1 - ndc[:, 1]) / 2 * h], axis=1)

    def slider(self, label):
        """The slider thumb of the GUI slider of joint (or control) ``label``: its label is
        ``label`` itself, or its first characters and an ellipsis when it is long."""
        from roboio.view.server import short_label
        shown = short_label(label)
        lab = self.page.locator("label").filter(has_text=re.compile("^" + re.escape(shown) + "$")).first
        return self.page.locator(f'[id="{lab.get_attribute("for")}"] [role=slider]')

    def slider_value(self, label) -> float:
        """The value the slider shows (degrees for a revolute joint, metres, seconds)."""
        return float(self.slider(label).get_attribute("aria-valuenow"))

    def press(self, label, key, times=1):
        s = self.slider(label)
        s.focus()
        for _ in range(times):
            self.page.keyboard.press(key)

    def screenshot(self) -> np.ndarray:
        import io

        from PIL import Image
        return np.asarray(Image.open(io.BytesIO(self.page.screenshot())).convert("RGB")).astype(int)

    def foreign_requests(self):
        """Requests to anything but the local server (http/ws on 127.0.0.1, blob:, data:)."""
        ok = re.compile(r"^(https?|wss?)://127\.0\.0\.1(:\d+)?(/|$)|^(blob|data):")
        return [u for u in self.requests if not ok.match(u)]


@contextmanager
def browser_page(url, width=1100, height=800):
    """A :class:`Page` on ``url`` in a fresh headless Chromium profile."""
    from playwright.sync_api import sync_playwright
    exe = chromium_path()
    with tempfile.TemporaryDirectory(prefix="roboio-chromium-") as profile, sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path=exe, args=CHROMIUM_ARGS, headless=True,
            viewport={"width": width, "height": height})
        requests = []
        ctx.on("request", lambda r: requests.append(r.url))
        try:
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            page.on("websocket", lambda ws: requests.append(ws.url))
            page.goto(url)
            yield Page(page, requests)
        finally:
            ctx.close()
