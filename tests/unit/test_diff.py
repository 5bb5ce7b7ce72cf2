"""roboio diff: semantic differences of hand-built models, and the command line."""
import json
import os

import numpy as np

import roboio
from roboio.cli.main import main
from roboio.diff import diff
from roboio.model import Driver, Joint, Link, Primitive, RigidObject, Robot, World

from conftest import SAMPLES, Rz


def arm():
    T1 = np.eye(4)
    T1[:3, 3] = (0, 0, 1)
    links = [Link("base", -1, "revolute", (0, 0, 1), mass=2.0),
             Link("upper", 0, "revolute", (0, 1, 0), T1, mass=1.0),
             Link("lower", 1, "revolute", (0, 1, 0), T1, mass=0.5,
                  geometry=Primitive("Sphere", {"center": (0, 0, 0), "radius": 0.1})),
             Link("finger", 2, "prismatic", (1, 0, 0), mass=0.1)]
    r = Robot("arm")
    r.set_links(links, qmin=[-1, -1, -1, 0], qmax=[1, 1, 1, 0.1])
    r.joints = [Joint("normal", [i]) for i in range(4)]
    r.drivers = [Driver("base", "normal", [0]), Driver("upper", "affine", [1, 2], scale=[1, 2], offset=[0, 0])]
    r.self_collision_pairs = {(0, 2)}
    return r


def fields(res):
    return {(d.name, d.field) for d in res.differences}


def test_identical_models_have_no_difference():
    res = diff(arm(), arm())
    assert res.same and res.matched_links == 4 and str(res) == "no differences"


def test_each_kind_of_change_is_found():
    b = arm()
    b.links[1].axis = (0, 0, 1)
    T = b.links[2].parent_transform.copy()
    T[:3, :3] = Rz(0.25)
    T[:3, 3] = (0, 0, 1.5)
    b.links[2].parent_transform = T
    b.qmax[0] = 2.0
    b.links[0].mass = 2.5
    b.links[2].geometry = Primitive("Sphere", {"center": (0, 0, 0), "radius": 0.2})
    b.links[2].geometry = None
    b.drivers[1].scale = [1, 3]
    b.self_collision_pairs = set()
    b.joints[3] = Joint("weld", [3])
    res = diff(arm(), b)
    assert fields(res) == {("upper", "axis"), ("lower", "origin rotation"), ("lower", "origin translation"),
                           ("base", "qmax"), ("base", "mass"), ("lower", "geometry"), ("upper", "scale"),
                           ("base / lower", "removed"), ("finger", "joint")}
    rot = [d for d in res.differences if d.field == "origin rotation"][0]
    assert "differs by 0.25 rad" in str(rot)
    j = [d for d in res.differences if d.field == "joint"][0]
    assert (j.a, j.b) == ("normal prismatic", "weld prismatic")


def test_renamed_added_removed_links():
    b = arm()
    b.links[3].name = "gripper"          # same place, same joint: a rename
    extra = Link("tool", 2, "revolute", (0, 0, 1))
    b.add_link(extra)
    res = diff(arm(), b)
    assert ("finger", "renamed") in fields(res) and ("tool", "added") in fields(res)
    ren = [d for d in res.differences if d.field == "renamed"][0]
    assert str(ren) == "link 'finger': renamed to 'gripper'"
    res = diff(b, arm())
    assert ("tool", "removed") in fields(res)


def test_worlds_compare_elements():
    def world(z):
        w = World("w")
        w.add(arm())
        T = np.eye(4)
        T[2, 3] = z
        w.add(RigidObject("box", Primitive("Sphere", {"center": (0, 0, 0), "radius": 1}), T))
        return w
    assert diff(world(0), world(0)).same
    res = diff(world(0), world(0.5))
    assert fields(res) == {("box", "position")}


def test_cli_diff_exit_codes_and_json(tmp_path, capsys):
    a = os.path.join(SAMPLES, "planar_arm.rob")
    r = roboio.load(a)
    assert main(["diff", a, a]) == 0
    assert "no differences" in capsys.readouterr().out
    r.qmax[1] = 1.0
    r.links[2].mass = 7.0
    b = str(tmp_path / "b.rob")
    roboio.save(r, b)
    assert main(["diff", a, b, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["same"] is False
    assert {(d["name"], d["field"]) for d in out["differences"]} == {("shoulder", "qmax"), ("elbow", "mass")}


def test_primitives_compare_by_shape_and_place_not_spelling(tmp_path):
    """A URDF's <box>/<cylinder> written to .rob becomes inline Klamp't geometry: a different
    spelling of the same shapes, so no difference; a moved or changed primitive still is one."""
    src = roboio.load(os.path.join(SAMPLES, "mobile_gripper.urdf"))
    for name in ("left_wheel", "right_wheel"):   # (cylinders: meshes for Klamp't, which never
        g = src.link(name).geometry               # collides a cylinder primitive)
        src.link(name).geometry = Primitive("Sphere", {"center": (0, 0, 0), "radius": 0.1},
                                            transform=g.transform)
    out = str(tmp_path / "mg.rob")
    assert roboio.save(src, out).lost == []
    assert diff(src, roboio.load(out)).same

    def with_geometry(g):
        r = arm()
        r.links[2].geometry = g
        return r
    box = Primitive("AABB", {"bmin": (-0.1, -0.1, -0.1), "bmax": (0.1, 0.1, 0.1)})
    moved = Primitive("AABB", {"bmin": (-0.1, -0.1, -0.099), "bmax": (0.1, 0.1, 0.101)})
    sphere = Primitive("Sphere", {"center": (0, 0, 0), "radius": 0.1})   # same bounding box
    assert diff(with_geometry(box), with_geometry(box.copy())).same
    assert ("lower", "geometry") in fields(diff(with_geometry(box), with_geometry(moved)))
    assert ("lower", "geometry") in fields(diff(with_geometry(box), with_geometry(sphere)))
