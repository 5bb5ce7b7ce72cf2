"""Source names as model data (Link.joint_name, Driver.name, Driver.leader) and every writer
keeping them: joint names, the actuated joint of a mimic group (the one users command, even
when it comes after its followers in link order: romeo's LHand), sanitising only what a
target forbids, and report.renamed. Expected names are the ones written in the test files."""
import json
import os
import warnings

import numpy as np
import pytest
from lxml import etree

import roboio
from roboio.cli.main import main
from roboio.model import Driver, Joint, Link, Robot

# LHand is the commanded joint; LFinger21 and LFinger22 mimic it and come first in link order
# (children are visited in byte order of their joint names: "LFinger21" < "LHand")
HAND = """<?xml version="1.0"?>
<robot name="hand">
  <link name="world"/>
  <link name="palm"/>
  <link name="lever"/>
  <link name="finger_a"/>
  <link name="finger_b"/>
  <joint name="mount" type="fixed"><parent link="world"/><child link="palm"/>
    <origin xyz="0 0 0.5"/></joint>
  <joint name="LHand" type="revolute"><parent link="palm"/><child link="lever"/>
    <origin xyz="0.1 0 0"/><axis xyz="0 0 1"/><limit lower="0" upper="1" effort="1" velocity="1"/></joint>
  <joint name="LFinger21" type="revolute"><parent link="palm"/><child link="finger_a"/>
    <origin xyz="0 0.1 0"/><axis xyz="0 1 0"/><limit lower="0" upper="0.5" effort="1" velocity="1"/>
    <mimic joint="LHand" multiplier="0.5" offset="0"/></joint>
  <joint name="LFinger22" type="revolute"><parent link="finger_a"/><child link="finger_b"/>
    <origin xyz="0 0.05 0"/><axis xyz="0 1 0"/><limit lower="0" upper="0.25" effort="1" velocity="1"/>
    <mimic joint="LHand" multiplier="0.25" offset="0"/></joint>
</robot>
"""


def quiet_load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(str(path), **kw)


@pytest.fixture
def hand(tmp_path):
    p = tmp_path / "hand.urdf"
    p.write_text(HAND)
    return p


def test_urdf_names_are_model_data(hand):
    r = quiet_load(hand)
    assert r.link_names == ["palm", "finger_a", "finger_b", "lever"]
    assert [l.joint_name for l in r.links] == ["mount", "LFinger21", "LFinger22", "LHand"]
    (d,) = r.drivers
    # named after the actuated joint; its leader is that joint's link, not the first follower
    assert (d.name, d.type, d.leader) == ("LHand", "affine", r.link_index("lever"))
    js = r.joint_space
    assert js.names == ["LHand"] and js.links == [r.link_index("lever")]
    q = r.config_from_joints(LHand=0.4)
    assert (q[1], q[2], q[3]) == pytest.approx((0.2, 0.1, 0.4), abs=1e-15)
    assert js.resolve("LFinger21") == ("link", 1)        # a follower's name sets it alone
    # Klamp't names URDF drivers after their links (and ignores mimics of later joints)
    k = quiet_load(hand, flavor="klampt")
    assert [d.name for d in k.drivers] == ["finger_a", "finger_b", "lever"]
    assert [l.joint_name for l in k.links] == ["mount", "LFinger21", "LFinger22", "LHand"]


def test_urdf_writer_keeps_joint_names_and_the_mimic_leader(hand, tmp_path):
    r = quiet_load(hand)
    out = tmp_path / "out.urdf"
    rep = roboio.save(r, out)
    assert rep.renamed == {"links": {}, "joints": {}}
    joints = {j.get("name"): j for j in etree.parse(str(out)).iter("joint")}
    assert set(joints) == {"mount", "LHand", "LFinger21", "LFinger22"}
    assert joints["LHand"].find("mimic") is None
    assert [joints[n].find("mimic").get("joint") for n in ("LFinger21", "LFinger22")] == ["LHand"] * 2
    assert [joints[n].find("mimic").get("multiplier") for n in ("LFinger21", "LFinger22")] == ["0.5", "0.25"]
    # Klamp't ignores a mimic of a joint it numbers later: said, not lost (URDF holds it)
    assert any("LFinger21 (mimics LHand), LFinger22 (mimics LHand)" in w and "Klamp't" in w
               for w in rep.warnings)
    back = quiet_load(out)
    assert [d.name for d in back.drivers] == ["LHand"] and back.drivers[0].leader == back.link_index("lever")
    assert [l.joint_name for l in back.links] == [l.joint_name for l in r.links]


def test_real_urdf_readers_see_the_source_joint_names(hand, tmp_path):
    yourdfpy = pytest.importorskip("yourdfpy")
    pin = pytest.importorskip("pinocchio")
    out = tmp_path / "out.urdf"
    roboio.save(quiet_load(hand), out)
    u = yourdfpy.URDF.load(str(out), load_meshes=False, build_scene_graph=False)
    assert set(u.joint_map) == {"mount", "LHand", "LFinger21", "LFinger22"}
    assert u.joint_map["LFinger21"].mimic.joint == "LHand"
    assert u.actuated_joint_names == ["LHand"]
    m = pin.buildModelFromUrdf(str(out))
    assert set(m.names) == {"universe", "LHand", "LFinger21", "LFinger22"}


def test_mjcf_keeps_joint_names_and_the_equality_leader(hand, tmp_path):
    mujoco = pytest.importorskip("mujoco")
    out = tmp_path / "hand.xml"
    roboio.save(quiet_load(hand), out, format="mjcf")
    m = mujoco.MjModel.from_xml_path(str(out))
    names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(m.njnt)]
    assert sorted(names) == ["LFinger21", "LFinger22", "LHand"]
    # each follower is tied to LHand (joint2), with its multiplier as the linear coefficient
    pairs = {(names[m.eq_obj1id[e]], names[m.eq_obj2id[e]]): m.eq_data[e][1] for e in range(m.neq)}
    assert pairs == pytest.approx({("LFinger21", "LHand"): 0.5, ("LFinger22", "LHand"): 0.25})


@pytest.mark.parametrize("name,fmt", [("h.robot.xml", "openrave"), ("h.dae", "collada-robot"),
                                      ("h.body", "choreonoid-body")])
def test_writers_keep_joint_names(hand, tmp_path, name, fmt):
    r = quiet_load(hand)
    rep = roboio.save(r, tmp_path / name, format=fmt)
    assert not rep.renamed["joints"] and not rep.renamed["links"]
    back = quiet_load(tmp_path / name)
    names = {l.name: l.joint_name for l in back.links}
    assert {k: names[k] for k in ("finger_a", "finger_b", "lever")} == \
        {"finger_a": "LFinger21", "finger_b": "LFinger22", "lever": "LHand"}
    if fmt != "choreonoid-body":          # a body has no coupled joints (reported lost)
        assert [d.name for d in back.drivers] == ["LHand"]
        assert back.links[back.drivers[0].leader].name == "lever"


def test_rob_and_graspit_keep_driver_names(hand, tmp_path):
    r = quiet_load(hand)
    rep = roboio.save(r, tmp_path / "h.rob")
    # .rob holds links and drivers: the driver keeps the actuated joint's name; the other
    # joints' names are said
    assert any("mount (palm)" in w and "LFinger21 (finger_a)" in w for w in rep.warnings)
    back = quiet_load(tmp_path / "h.rob")
    assert [d.name for d in back.drivers] == ["LHand"]
    roboio.save(r, tmp_path / "h.xml", format="graspit")
    g = quiet_load(tmp_path / "h.xml", format="graspit")
    assert "LHand" in [d.name for d in g.drivers]
    klampt = pytest.importorskip("klampt")          # Klamp't itself reads the driver names
    world = klampt.WorldModel()
    kr = world.loadRobot(str(tmp_path / "h.rob"))
    assert [kr.driver(k).getName() for k in range(kr.numDrivers())] == ["LHand"]


def two_link_robot(names, joint_names=(None, None), siblings=False):
    T = np.eye(4)
    T[0, 3] = 0.3
    r = Robot("r")
    r.set_links([Link(names[0], -1, "revolute", (0, 0, 1), joint_name=joint_names[0]),
                 Link(names[1], -1 if siblings else 0, "revolute", (0, 1, 0), T,
                      joint_name=joint_names[1])],
                qmin=[-1, -1], qmax=[1, 1])
    r.joints = [Joint("normal", [0]), Joint("normal", [1])]
    r.drivers = [Driver(joint_names[k] or names[k], "normal", [k], qmin=-1, qmax=1) for k in range(2)]
    return r


def test_sanitising_only_what_the_target_forbids_and_saying_so(tmp_path):
    # OpenRAVE reads a name up to its first space: 'a b' becomes 'a_b', which the other link
    # already has, so it takes a suffix; the link that needed no change keeps its name
    r = two_link_robot(["a b", "a_b"], ["wrist yaw", "elbow"])
    rep = roboio.save(r, tmp_path / "r.robot.xml")
    assert rep.renamed == {"links": {"a b": "a_b_2"}, "joints": {"wrist yaw": "wrist_yaw"}}
    assert not any("name" in x for x in rep.lost)
    back = quiet_load(tmp_path / "r.robot.xml")
    assert back.link_names == ["world", "a_b_2", "a_b"]       # (a moving root hangs from a fixed one)
    assert [d.name for d in back.drivers] == ["wrist_yaw", "elbow"]
    # URDF holds spaces; it needs unique names: a repeated name maps to its occurrences' names
    r = two_link_robot(["x", "x"], ["j", "j"], siblings=True)
    rep = roboio.save(r, tmp_path / "r.urdf")
    assert rep.renamed == {"links": {"x": ["x", "x_2"]}, "joints": {"j": ["j", "j_2"]}}
    r = two_link_robot(["a b", "c"], ["wrist yaw", "elbow"])
    assert roboio.save(r, tmp_path / "s.urdf").renamed == {"links": {}, "joints": {}}
    assert [l.joint_name for l in quiet_load(tmp_path / "s.urdf").links] == ["wrist yaw", "elbow"]


def test_convert_json_lists_the_renames(tmp_path, capsys):
    src = tmp_path / "r.rob"
    roboio.save(two_link_robot(["a b", "a_b"]), src)
    assert main(["convert", str(src), str(tmp_path / "r.robot.xml"), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["renamed"]["links"] == {"a b": "a_b_2"}


BODY = """format: ChoreonoidBody
formatVersion: 1.0
angleUnit: radian
name: PanTilt
links:
  - { name: Chassis, jointType: free, mass: 1 }
  - { name: PanLink, parent: Chassis, joint_name: PanJoint, jointType: revolute, jointAxis: Z,
      translation: [ 0.1, 0, 0.2 ], jointId: 0, mass: 0.1 }
  - { name: TiltLink, parent: PanLink, joint_name: TiltJoint, jointType: revolute, jointAxis: Y,
      translation: [ 0, 0, 0.05 ], jointId: 1, mass: 0.1 }
"""


def test_choreonoid_joint_names_address_joints(tmp_path, capsys):
    p = tmp_path / "pt.body"
    p.write_text(BODY)
    r = quiet_load(p)
    assert [l.joint_name for l in r.links[5:]] == [None, "PanJoint", "TiltJoint"]   # the root: unnamed
    assert r.joint_space.names == ["PanJoint", "TiltJoint"]
    assert main(["fk", str(p), "--config", "PanJoint=0.3", "--link", "TiltLink", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["samples"][0]["joints"] == {"PanJoint": 0.3, "TiltJoint": 0.0}
    # TiltLink = Trans(0.1, 0, 0.2) Rz(0.3) Trans(0, 0, 0.05): its origin is not turned
    T = np.array(data["samples"][0]["transforms"][0])
    np.testing.assert_allclose(T[:3, 3], [0.1, 0, 0.25], atol=1e-15)
    np.testing.assert_allclose(T[:2, :2], [[np.cos(0.3), -np.sin(0.3)], [np.sin(0.3), np.cos(0.3)]],
                               atol=1e-15)
    assert main(["info", str(p)]) == 0
    assert "PanJoint" in capsys.readouterr().out
    # written back (and to URDF) with the same joint names
    roboio.save(r, tmp_path / "again.body")
    assert "joint_name: \"PanJoint\"" in (tmp_path / "again.body").read_text()
    roboio.save(r, tmp_path / "pt.urdf")
    names = [j.get("name") for j in etree.parse(str(tmp_path / "pt.urdf")).iter("joint")]
    assert "PanJoint" in names and "TiltJoint" in names


def test_mounted_robots_prefix_joint_names_and_keep_leaders(hand, tmp_path):
    (tmp_path / "arm.rob").write_text(
        'links "base"\nparents -1\naxis 0 0 1\njointtype r\nTparent 1 0 0 0 1 0 0 0 1 0 0 0\n'
        'qmin -1\nqmax 1\njoint normal 0\n'
        f'mount 0 "{hand.name}" 1 0 0 0 1 0 0 0 1 0 0 0.1 as "left"\n')
    r = quiet_load(tmp_path / "arm.rob")
    # a .rob mounts a URDF as Klamp't reads it: drivers named after their links
    d = r.driver("left:lever")
    assert r.links[d.leader].name == "left:lever" and d.type == "affine"
    assert r.link("left:finger_a").joint_name == "left:LFinger21"
    assert r.link("left:lever").joint_name == "left:LHand"


def test_openrave_environment_gives_repeated_element_names_unique_names(tmp_path):
    """GraspIt! worlds repeat an obstacle's name (graspit_bci's cvap.xml: six dinner_chair
    obstacles); OpenRAVE refuses a second body of one name, so the environment written was
    refused by OpenRAVE and by roboio's reader. Repeats are renamed name_2, ... and said."""
    from roboio.model import Primitive, RigidObject, Terrain, World
    from roboio.transforms import make_transform
    w = World("room")
    poses = [(0, 0, 0), (1, 0, 0), (0, 2, 0)]
    for k, p in enumerate(poses):
        t = Terrain("chair", Primitive("AABB", {"bmin": (-0.2, -0.2, 0), "bmax": (0.2, 0.2, 0.8)}))
        t.transform = make_transform(np.eye(3), p)
        w.add(t)
    cup = RigidObject("chair", Primitive("Sphere", {"center": (0, 0, 0), "radius": 0.05}))
    cup.transform = make_transform(np.eye(3), (0, 0, 1))
    w.add(cup)
    report = roboio.save(w, tmp_path / "room.env.xml", format="openrave")
    # written in the order robots, rigid objects, terrains: the first keeps its name
    assert report.renamed["elements"] == {"chair": ["chair", "chair_2", "chair_3", "chair_4"]}
    assert report.counts()["error"] == 0
    back = roboio.load(tmp_path / "room.env.xml")
    assert [t.name for t in back.terrains] == ["chair_2", "chair_3", "chair_4"]
    assert [o.name for o in back.rigid_objects] == ["chair"]
    for t, p in zip(back.terrains, poses):
        np.testing.assert_allclose(t.transform[:3, 3], p, atol=1e-15)
    np.testing.assert_allclose(back.rigid_objects[0].transform[:3, 3], (0, 0, 1), atol=1e-15)
    roboio.save(back, tmp_path / "again.env.xml", format="openrave")
    assert (tmp_path / "again.env.xml").read_bytes() == (tmp_path / "room.env.xml").read_bytes()
