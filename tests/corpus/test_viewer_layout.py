"""The viewer's layout in real headless Chromium: what a user sees on the first screen.

With a motion, Play and the time slider come first, above every joint slider, inside the
first screen of an 1100x800 window (found both in the DOM and as the blue button's pixels of
a screenshot); joint labels stay on one line (long names end in an ellipsis, the whole name
in the tooltip); sliders speak degrees. Two models side by side are placed side by side on
the screen (model B to the right of model A, not behind it).
"""
import re
import time

import numpy as np
import pytest

from browser import browser_page, chromium_path, viewer_process
from conftest import corpus_path

import roboio

pytestmark = pytest.mark.skipif(chromium_path() is None,
                                reason="Debian's chromium is not installed (apt-get install chromium)")

SR1 = ("choreonoid", "share", "model", "SR1", "SR1.body")
WALK = ("choreonoid", "sample", "SimpleController", "SR1WalkPattern1.seq")
HEIGHT = 800


def _labels(pg):
    """{text: bounding box} of the GUI's control labels."""
    out = {}
    for el in pg.page.locator("label").all():
        text = (el.text_content() or "").strip()
        box = el.bounding_box()
        if text and box:
            out[text] = box
    return out


def test_motion_controls_come_first_and_joint_labels_fit():
    robot = roboio.load(corpus_path(*SR1))
    with viewer_process(corpus_path(*SR1), "--motion", corpus_path(*WALK)) as url, \
            browser_page(url, height=HEIGHT) as pg:
        pg.wait_nodes([f"/m0/r0/L{i}" for i in range(robot.num_links)])
        play = pg.page.get_by_role("button", name="Play / pause")
        play.wait_for()
        time.sleep(1.0)
        pbox = play.bounding_box()
        assert pbox["y"] + pbox["height"] <= HEIGHT, "Play is below the first screen"
        labels = _labels(pg)
        tbox = labels["Time (s)"]
        assert tbox["y"] + tbox["height"] <= HEIGHT
        joints = [d.name for d in robot.drivers]
        from roboio.view.server import short_label
        boxes = [labels[short_label(n)] for n in joints if short_label(n) in labels]
        assert len(boxes) >= len(joints) - 1, "joint sliders missing from the panel"
        assert min(b["y"] for b in boxes) > pbox["y"] + pbox["height"], "a joint slider sits above Play"
        one_line = labels["WAIST_P"]["height"]
        tall = [n for n in joints if short_label(n) in labels and labels[short_label(n)]["height"] > 1.5 * one_line]
        assert not tall, f"joint labels wrapped onto two lines: {tall}"
        # the long names are cut with an ellipsis and whole in the tooltip
        assert any("…" in short_label(n) for n in joints)
        # degrees: LARM_ELBOW starts at the motion's first frame
        k = next(k for k, d in enumerate(robot.drivers) if d.name == "LARM_ELBOW")
        q0 = roboio.load(corpus_path(*WALK)).robot_configs(robot)[0]
        expect = np.degrees(robot.drivers_from_config(q0)[k])
        assert pg.slider_value("LARM_ELBOW") == pytest.approx(expect, abs=0.006)
        # the screenshot: the Play button's blue is in the top part of the first screen
        img = pg.screenshot()
        blue = (img[..., 2] > 180) & (img[..., 0] < 80) & (img[..., 1] > 100) & (img[..., 1] < 170)
        ys = np.nonzero(blue.sum(axis=1) > 0.8 * pbox["width"])[0]    # rows of a wide blue bar
        assert len(ys) > 10, "no blue Play button in the screenshot"
        assert ys.max() < HEIGHT / 3, f"the Play button is drawn at y={ys.min()}..{ys.max()}"
        assert abs(np.median(ys) - (pbox["y"] + pbox["height"] / 2)) < pbox["height"]


def test_two_models_side_by_side_are_side_by_side_on_screen():
    a = corpus_path(*SR1)
    b = corpus_path("choreonoid", "share", "model", "SR1", "SR1.urdf")
    ra = roboio.load(a)
    with viewer_process(a, b) as url, browser_page(url) as pg:
        pg.wait_nodes(["/m0", "/m1", "/m0/r0/L0", "/m1/r0/L0"])
        pg.page.get_by_label("Layout").click(force=True)
        pg.page.get_by_role("option", name="side by side").click(force=True)
        deadline = time.time() + 15
        while time.time() < deadline and np.abs(pg.pose("/m1", "/m0")[:3, 3]).max() < 1e-6:
            time.sleep(0.1)
        T = ra.fk()
        pts = T[:, :3, 3]
        pa = pg.project(pts, "/m0")
        pb = pg.project(pts, "/m1")
        # B entirely to the right of A on the screen, at about the same height
        assert pb[:, 0].min() > pa[:, 0].max(), "model B overlaps model A on the screen"
        assert abs(np.median(pb[:, 1]) - np.median(pa[:, 1])) < 0.25 * np.ptp(pa[:, 1])
        for x in (pa, pb):
            assert x[:, 0].min() >= 0 and x[:, 1].min() >= 0
        assert pg.page.get_by_text(re.compile("random configurations")).count() >= 1
