"""Choreonoid .body write -> read -> write is a fixed point (issue 13): SR1.body's camera
shapes are written once (inside their devices, not also as link shapes), and angles do not
drift in the last digit."""
import os
import warnings

import roboio

from conftest import corpus_path


def shapes(robot):
    def count(g):
        if g is None:
            return 0
        return sum(count(c) for c in g.children) if hasattr(g, "children") else 1
    return sum(count(l.geometry) for l in robot.links)


def load(p):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(p)


def test_sr1_body_round_trip_is_a_fixed_point(tmp_path):
    src = corpus_path("choreonoid", "share", "model", "SR1", "SR1.body")
    r = load(src)
    n = shapes(r)
    texts = []
    for k in range(3):
        out = str(tmp_path / f"r{k}.body")
        roboio.save(r, out)
        r = load(out)
        assert shapes(r) == n, k
        texts.append(open(out, "rb").read())
    assert texts[0] == texts[1] == texts[2]
    assert b"89.9999" not in texts[0]        # the file's 90 degrees stay 90
