"""Conversions keep what collides: every writer's self-collision pairs read back (or the
pairs its format cannot hold are named in the report), write -> read -> write is stable;
``verify --collision`` passes faithful conversions and names the first difference of a
scaled collision mesh or a dropped pair list; ``roboio collide``."""
import json
import os

import numpy as np
import pytest

import roboio
from roboio.cli.main import main
from roboio.model import Joint, Link, Primitive, Robot

pytest.importorskip("coal")

WRITERS = [("klampt-rob", ".rob"), ("urdf", ".urdf"), ("openrave", ".robot.xml"),
           ("collada-robot", ".dae"), ("graspit", ".xml"), ("choreonoid-body", ".body")]


def two_arms() -> Robot:
    """A base with two 2-link arms, every link a box; the pairs: every pair but parent and
    child, without (a2, b2), with the parent-child pair (a1, a2)."""
    r = Robot("one")          # named as its files are: readers name robots after files
    box = {"bmin": [-0.05, -0.05, 0], "bmax": [0.05, 0.05, 0.3]}

    def T(x, y, z):
        M = np.eye(4)
        M[:3, 3] = [x, y, z]
        return M
    r.add_link(Link("base", geometry=Primitive("AABB", {"bmin": [-0.3, -0.3, -0.1], "bmax": [0.3, 0.3, 0]})),
               qmin=0, qmax=0)
    for side, y in (("a", 0.2), ("b", -0.2)):
        p = r.add_link(Link(f"{side}1", 0, axis=(1, 0, 0), parent_transform=T(0, y, 0),
                            geometry=Primitive("AABB", box)), qmin=-2, qmax=2)
        r.add_link(Link(f"{side}2", p.index, axis=(1, 0, 0), parent_transform=T(0, 0, 0.3),
                        geometry=Primitive("AABB", box)), qmin=-2, qmax=2)
    r.joints = [Joint("weld", [0])] + [Joint("normal", [i], r.links[i].parent) for i in range(1, 5)]
    from roboio.model import Driver
    r.drivers = [Driver(r.links[i].name, "normal", [i], qmin=-2, qmax=2) for i in range(1, 5)]
    parents = r.parents
    pairs = {(i, j) for i in range(5) for j in range(i + 1, 5) if parents[j] != i}
    pairs.discard((2, 4))
    pairs.add((1, 2))
    r.self_collision_pairs = pairs
    return r


def named(robot):
    return {frozenset((robot.links[i].name, robot.links[j].name)) for i, j in robot.self_collision_pairs}


@pytest.mark.parametrize("fmt,ext", WRITERS)
def test_writers_keep_the_pairs_or_name_those_they_cannot(fmt, tmp_path, ext):
    r = two_arms()
    a = str(tmp_path / f"one{ext}")
    report = roboio.save(r, a, format=fmt)
    back = roboio.load(a, format=fmt)
    back = back.robots[0] if isinstance(back, roboio.World) else back
    want, got = named(r), named(back)
    assert not got - want, f"{fmt} checks pairs the model does not: {got - want}"
    lost = " ".join(report.lost)
    for pair in want - got:
        x, y = sorted(pair)
        assert f"({x}, {y})" in lost or f"({y}, {x})" in lost or "self-collision pairs" in lost, \
            f"{fmt} dropped pair {pair} silently"
    if fmt in ("klampt-rob", "urdf", "choreonoid-body"):
        assert got == want                       # these formats hold any pair set
    if fmt in ("openrave", "collada-robot", "graspit"):
        assert frozenset(("a1", "a2")) not in got   # joined links / one chain: never checked
    # stable: the file read back writes the same bytes
    os.makedirs(tmp_path / "again")
    b = str(tmp_path / "again" / f"one{ext}")
    roboio.save(back, b, format=fmt)
    with open(a, "rb") as f1, open(b, "rb") as f2:
        assert f1.read() == f2.read()


def test_choreonoid_rules_as_choreonoid_applies_them(tmp_path):
    from roboio.formats.choreonoid.body._collision_rules import checked_pairs, rules_for
    names = ["root", "a", "b", "c", "d"]
    parents = [-1, 0, 1, 2, 1]          # root - a - b - c, a - d
    free = [True, False, False, False, False]
    live = [True] * 5
    every = {(i, j) for i in range(5) for j in range(i + 1, 5)}
    assert checked_pairs(names, parents, free, live, {}) == every - {(0, 1), (1, 2), (2, 3), (1, 4)}
    level2 = checked_pairs(names, parents, free, live,
                           {"collision_detection_rules": [{"disabled_link_chain_level": 2}]})
    assert level2 == {(0, 3), (3, 4)}
    rules = [{"disabled_link_chain_level": 2}, {"enabled_links": ["d"]},
             {"disabled_link_group": ["root", "c"]}, {"disabled_links": ["b"]}]
    assert checked_pairs(names, parents, free, live, {"collision_detection_rules": rules}) == \
        {(0, 4), (1, 4), (3, 4)}
    old = {"collisionDetection": {"excludeTreeDepth": 3, "excludeLinks": ["d"]}}
    assert checked_pairs(names, parents, free, live, old) == set()
    for wanted in ({(0, 3)}, every, set(), {(1, 2), (0, 4)}):
        assert checked_pairs(names, parents, free, live,
                             {"collision_detection_rules": rules_for(names, parents, free, live, wanted)}) == wanted


def test_verify_collision_passes_faithful_and_names_what_changed(tmp_path):
    from roboio import verify
    a = roboio.load("roboio/data/samples/planar_arm.rob")
    path = str(tmp_path / "arm.urdf")
    roboio.save(a, path)
    res = verify(a, roboio.load(path), samples=30, collision=True)
    assert res.ok and res.collision.ok and res.collision.pairs_a == 8
    assert res.collision.max_distance_error < 1e-6
    scaled = roboio.load(path)
    g = scaled.link("elbow").geometry
    S = np.diag([1.2, 1.2, 1.2, 1.0])
    g.transform = S @ g.transform                           # the collision mesh scaled by 1.2
    res = verify(a, scaled, samples=30, collision=True)
    assert res.max_position_error == 0 and not res.ok and not res.collision.ok
    assert res.collision.max_distance_error > 1e-3
    assert "elbow" in res.collision.first_difference()
    dropped = roboio.load(path)
    dropped.self_collision_pairs = {p for p in dropped.self_collision_pairs if 0 not in p}
    res = verify(a, dropped, samples=30, collision=True)
    assert not res.ok and res.collision.only_a and res.collision.first_difference().startswith("pair ('base'")


def test_cli_verify_collision(tmp_path, capsys):
    path = str(tmp_path / "arm.urdf")
    assert main(["convert", "roboio/data/samples/planar_arm.rob", path, "-q"]) == 0
    import re
    text = open(path).read()
    with open(path, "w") as f:           # a pair list dropped: base-elbow no longer checked
        f.write(re.sub(r"(<klampt[^>]*>)", r'\1\n    <noselfcollision pairs="base elbow"/>', text))
    capsys.readouterr()
    assert main(["verify", "roboio/data/samples/planar_arm.rob", path, "--collision",
                 "--samples", "20", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["collision"]["only_a"] == [["base", "elbow"]]
    assert out["collision"]["first_difference"] == "pair ('base', 'elbow') is checked in A only"


def test_cli_collide(tmp_path, capsys):
    arm = "roboio/data/samples/planar_arm.rob"
    assert main(["collide", arm, "--config", "0 -0.96 -2.6 -1 0.03 0.03", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["samples"][0]["colliding"] == [["base", "finger_left"], ["base", "finger_right"]]
    assert out["samples"][0]["closest"]["distance"] <= 0
    assert main(["collide", arm]) == 0
    assert "closest pair: finger_left - finger_right, distance 0.03 m" in capsys.readouterr().out
    assert main(["collide", arm, "--random", "300", "--seed", "3", "--workers", "2", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["colliding_samples"] == sum(s["collides"] for s in out["samples"]) > 0
    first = out["samples"][out["first_colliding"]]
    assert first["colliding"] and roboio.load(arm).self_collides(first["config"])
    motion = str(tmp_path / "fold.path")
    with open(motion, "w") as f:
        f.write("0 6 0 0 0 0 0 0\n1 6 0 -0.96 -2.6 -1 0.03 0.03\n")
    assert main(["collide", arm, "--motion", motion]) == 1
    assert "first colliding frame: frame 1 (t = 1 s)" in capsys.readouterr().out
    assert main(["collide", "roboio/data/samples/world.xml", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["collisions"] == [["floor", "crate"], ["crate", "arm/elbow"]]
    assert main(["collide", arm, "--config", "0 0 0 0 0 0", "--random", "3"]) == 2


def test_cli_collide_without_an_engine_names_the_extra(monkeypatch, capsys):
    from roboio.collision import engine
    monkeypatch.setattr(engine, "_active", None)
    monkeypatch.setattr(engine, "_MODULES", {"coal": ".no_such_coal", "fcl": ".no_such_fcl"})
    monkeypatch.delenv(engine.ENV, raising=False)
    assert main(["collide", "roboio/data/samples/planar_arm.rob"]) == 2
    assert 'pip install "roboio[collision]"' in capsys.readouterr().err
