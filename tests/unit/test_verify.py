"""roboio verify: what is sampled (welds fixed, couplings through drivers), link-name maps,
driver space, and the command line."""
import json
import re
import os

import numpy as np
import pytest

import roboio
from roboio.cli.main import main
from roboio.model import Driver, Joint, Link, Robot
from roboio.verify import map_name, sample_configs, verify

from conftest import SAMPLES


def gripper(names=("palm", "slide", "left", "right")):
    T = np.eye(4)
    T[:3, 3] = (0.1, 0, 0)
    links = [Link(names[0], -1, "revolute", (0, 0, 1)),
             Link(names[1], 0, "prismatic", (1, 0, 0), T),       # welded, with limits
             Link(names[2], 1, "prismatic", (0, 1, 0), T),
             Link(names[3], 1, "prismatic", (0, -1, 0), T)]
    r = Robot("g")
    r.set_links(links, qmin=[-1, 0, 0, 0], qmax=[1, 0.09, 0.05, 0.1])
    r.joints = [Joint("normal", [0]), Joint("weld", [1]), Joint("normal", [2]), Joint("normal", [3])]
    r.config = np.array([0, 0.02, 0, 0])
    r.drivers = [Driver("turn", "normal", [0], qmin=-1, qmax=1),
                 Driver("grip", "affine", [2, 3], scale=[0.05, 0.1], offset=[0, 0], qmin=0, qmax=1)]
    return r


def test_welds_stay_at_their_value():
    r = gripper()
    Q = sample_configs(r, 50, 1)
    assert np.all(Q[:, 1] == 0.02) and np.ptp(Q[:, 0]) > 1


def test_coupled_links_follow_their_driver():
    a = gripper()
    b = gripper()
    b.drivers = []                     # b knows nothing of the coupling; a's samples carry it
    assert verify(a, b, 30).ok
    c = gripper()
    c.links[3].parent_transform = np.diag([1.0, 1.0, 1.0, 1.0])
    res = verify(a, c, 30)
    assert not res.ok and res.worst_link == "right"


def without_slide(names=("palm", "l", "r")):
    """The gripper without its welded slide: the fingers hang from the palm where the
    slide, welded at 0.02, puts them (0.1 + 0.02 + 0.1 along x)."""
    T = np.eye(4)
    T[:3, 3] = (0.22, 0, 0)
    r = Robot("g2")
    r.set_links([Link(names[0], -1, "revolute", (0, 0, 1)), Link(names[1], 0, "prismatic", (0, 1, 0), T),
                 Link(names[2], 0, "prismatic", (0, -1, 0), T)], qmin=[-1, 0, 0], qmax=[1, 0.05, 0.1])
    r.joints = [Joint("normal", [0]), Joint("normal", [1]), Joint("normal", [2])]
    r.drivers = [Driver("turn", "normal", [0], qmin=-1, qmax=1),
                 Driver("grip", "affine", [1, 2], scale=[0.05, 0.1], offset=[0, 0], qmin=0, qmax=1)]
    return r


def test_driver_space_when_links_differ():
    a = gripper()
    b = without_slide()
    res = verify(a, b, 30)
    assert res.space == "drivers" and res.only_a == ["slide", "left", "right"] and res.matched == ["palm"]
    assert res.ok and res.matched_by == "names"
    # the same tree with other names: matched by structure, and the map used is given
    b = gripper(("palm", "s", "l", "r"))
    res = verify(a, b, 30)
    assert res.ok and res.exact and res.space == "links" and res.matched_by == "structure"
    assert res.map == {"palm": "palm", "slide": "s", "left": "l", "right": "r"}
    res = verify(a, b, 30, link_map={"slide": "s", "left": "l", "right": "r"})
    assert res.ok and res.space == "links"
    res = verify(a, b, 30, link_map={"slide": "s", "left": "l", "right": "r"}, space="drivers")
    assert res.ok and res.space == "drivers"
    d = gripper()
    d.drivers[1].scale = [0.05, 0.2]   # a different coupling shows in driver space
    assert not verify(a, d, 30, space="drivers").ok


def test_prefix_maps():
    assert map_name("left_finger", {"left_*": "l_*"}) == "l_finger"
    assert map_name("x", {"*": "arm/*"}) == "arm/x"
    assert map_name("base", {"base": "root", "*": "arm/*"}) == "root"
    a = gripper()
    b = gripper(tuple("arm/" + n for n in ("palm", "slide", "left", "right")))
    assert verify(a, b, 10, link_map={"*": "arm/*"}).ok


def test_cli_verify(tmp_path, capsys):
    src = os.path.join(SAMPLES, "planar_arm.rob")
    out = str(tmp_path / "arm.urdf")
    roboio.save(roboio.load(src), out)
    assert main(["verify", src, out, "--samples", "20", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["ok"] and res["space"] == "links" and res["matched_links"] == 6
    assert main(["verify", src, out, "--samples", "0"]) == 2
    assert main(["verify", src, out, "--map", "nonsense"]) == 2
    assert main(["verify", src, out, "--map", "base=shoulder", "--samples", "5"]) == 1


def test_links_b_welds_are_held_and_listed():
    a = gripper()
    b = gripper()
    b.joints[0] = Joint("weld", [0])       # B cannot move the palm (a GraspIt! palm)
    b.config[0] = 0.3
    res = verify(a, b, 30)
    assert res.ok and not res.exact
    assert res.accounted == ["links B welds held at B's value in A's samples: palm"]
    assert res.to_dict()["exact"] is False and res.to_dict()["accounted"] == res.accounted


def test_a_base_pose_b_does_not_store_is_placed_and_measured():
    a = gripper()
    T = np.eye(4)
    T[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]      # a quarter turn about z
    T[:3, 3] = (0.3, 0.4, 0.0)
    a.links[0].parent_transform = T
    b = gripper()                                       # base at identity: not stored
    res = verify(a, b, 30)
    assert res.ok and not res.exact and len(res.accounted) == 1
    m = re.search(r"base placed as in B \(palm\).*?([0-9.]+) m and ([0-9.]+) rad", res.accounted[0])
    # inv(T) moves the origin back by |(0.3, 0.4, 0)| = 0.5 m and turns by pi/2
    assert abs(float(m.group(1)) - 0.5) < 1e-3 and abs(float(m.group(2)) - np.pi / 2) < 1e-3
    c = gripper()
    Tc = np.eye(4)
    Tc[:3, 3] = (0.3, 0.4, 0.01)                        # B stores a base, elsewhere
    c.links[0].parent_transform = Tc
    res = verify(a, c, 30)
    assert not res.ok and not res.accounted
    assert verify(gripper(), gripper(), 10).exact


def test_undriven_links_compare_by_name_as_drivers():
    # A moves 'left' and 'right' without drivers (each is a DOF of its own). B slides
    # 'right' on an added link 'spacer' (GraspIt! puts a link's motion on an added joint)
    # and turns 'right' itself by 0 x the DOF: the same kinematics, compared DOF by DOF
    a = gripper()
    a.drivers = [a.drivers[0]]
    T = np.eye(4)
    T[:3, 3] = (0.1, 0, 0)
    b = Robot("g")
    b.set_links([Link("palm", -1, "revolute", (0, 0, 1)), Link("slide", 0, "prismatic", (1, 0, 0), T),
                 Link("left", 1, "prismatic", (0, 1, 0), T), Link("spacer", 1, "prismatic", (0, -1, 0), T),
                 Link("right", 3, "revolute", (0, 0, 1))],
                qmin=[-1, 0, 0, 0, 0], qmax=[1, 0.09, 0.05, 0.1, 0])
    b.joints = [Joint("normal", [0]), Joint("weld", [1]), Joint("normal", [2]), Joint("normal", [3]),
                Joint("normal", [4])]
    b.config = np.array([0, 0.02, 0, 0, 0])
    b.drivers = [Driver("turn", "normal", [0], qmin=-1, qmax=1), Driver("left", "normal", [2]),
                 Driver("right", "affine", [4, 3], scale=[0.0, 1.0], offset=[0.0, 0.0])]
    res = verify(a, b, 30)
    # by link values, 'right' would turn by A's slide instead: only DOF by DOF matches
    assert res.ok and res.exact and res.space == "drivers", res
    assert not verify(a, b, 30, space="links").ok
    b.drivers[2] = Driver("right", "affine", [4, 3], scale=[0.0, 2.0], offset=[0.0, 0.0])
    assert not verify(a, b, 30).ok


def test_cli_verify_exact(tmp_path, capsys):
    a = gripper()
    b = gripper()
    b.joints[0] = Joint("weld", [0])
    pa, pb = str(tmp_path / "a.rob"), str(tmp_path / "b.rob")
    roboio.save(a, pa)
    roboio.save(b, pb)
    assert main(["verify", pa, pb, "--samples", "10"]) == 0
    out = capsys.readouterr().out
    assert "accounted for: links B welds held at B's value in A's samples: palm" in out
    assert "OK up to what B does not hold" in out
    assert main(["verify", pa, pb, "--samples", "10", "--exact"]) == 1


def _two_arm_world(path, shift: float):
    """A Klamp't world of two sample arms, the second ``shift`` m along y."""
    path.write_text(f"""<world>
  <robot name="left" file="{SAMPLES}/planar_arm.rob"/>
  <robot name="right" file="{SAMPLES}/planar_arm.rob" translation="0 {1 + shift} 0"/>
</world>
""")
    return str(path)


def test_cli_verify_compares_every_robot_of_a_world(tmp_path, capsys):
    # before, verify compared the first robot of a world and said OK whatever the others did
    a = _two_arm_world(tmp_path / "a.xml", 0.0)
    assert main(["verify", a, _two_arm_world(tmp_path / "same.xml", 0.0)]) == 0
    out = capsys.readouterr().out
    assert "robot 'left' of A vs 'left' of B" in out and "robot 'right' of A vs 'right' of B" in out
    assert main(["verify", a, _two_arm_world(tmp_path / "moved.xml", 0.002), "--json"]) == 1
    res = json.loads(capsys.readouterr().out)
    by_name = {r["a"]: r for r in res["robots"]}
    assert not res["ok"] and by_name["left"]["ok"] and not by_name["right"]["ok"]
    assert by_name["right"]["max_position_error"] == pytest.approx(0.002, abs=1e-9)
    # a world without robots is named as such, with what compares it
    (tmp_path / "empty.xml").write_text(f'<world><rigidObject name="c" file="{SAMPLES}/crate.obj"/></world>')
    assert main(["verify", str(tmp_path / "empty.xml"), a]) == 2
    assert "roboio diff" in capsys.readouterr().err
