"""OpenRAVE XML files of the corpus that include COLLADA robots (``<Robot file="x.zae">``)
load completely: the COLLADA links are appended to the body being built (merged by name,
prefixed), and the kinematics equal the included file's, moved by the XML transforms.

Expected poses are derived here from the stand-alone COLLADA model and the XML transform tags
written in the test (by hand from the XML files)."""
import math
import os
import warnings

import numpy as np
import pytest

import roboio
from conftest import corpus_path

OR = ("openrave", "src")

INCLUDERS = ["robots/puma.robot.xml", "robots/pa10schunk.robot.xml", "robots/schunk-lwa3-dual.robot.xml",
             "robots/pumabarrett.robot.xml", "robots/pr2-beta-sim.robot.xml", "data/katanatable.env.xml",
             "data/youbot1.env.xml", "data/pr2test1.env.xml", "data/pr2test2.env.xml",
             "data/hironxtable.env.xml"]


def load(*rel):
    p = corpus_path(*OR, *rel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(p, search_paths=[corpus_path(*OR)])


def rx(deg):
    a = math.radians(deg)
    T = np.eye(4)
    T[1:3, 1:3] = [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
    return T


def tr(*v):
    T = np.eye(4)
    T[:3, 3] = v
    return T


@pytest.mark.parametrize("rel", INCLUDERS)
def test_every_including_file_loads(rel):
    obj = load(*rel.split("/"))
    robots = obj.robots if isinstance(obj, roboio.World) else [obj]
    assert robots and all(r.num_links > 1 for r in robots)


def test_puma_gripper_merges_into_the_arm():
    robot = load("robots", "puma.robot.xml")
    arm = load("robots", "pumaarm.zae")
    assert robot.link_names == arm.link_names + ["RClaw", "LClaw"]
    assert [d.name for d in robot.drivers] == ["J0", "J1", "J2", "J3", "J4", "J5", "m1"]
    m1 = robot.drivers[-1]
    assert m1.type == "affine" and m1.scale == [1.0, 1.0]          # m2 = 0 + m1
    rng = np.random.default_rng(5)
    for _ in range(3):
        u = rng.uniform(-1, 1, 7)
        T = robot.fk(robot.config_from_drivers(u))
        Ta = arm.fk(arm.config_from_drivers(u[:6]))
        for i, name in enumerate(arm.link_names):
            assert np.max(np.abs(T[robot.link_index(name)] - Ta[i])) < 1e-12
        # pumagripper.zae: RClaw at Puma6 . Tr(0,0,0.1) Rx(90) Rz(m1) Rx(-90)
        c, s = math.cos(u[6]), math.sin(u[6])
        Rz = np.eye(4)
        Rz[:2, :2] = [[c, -s], [s, c]]
        expect = Ta[6] @ tr(0, 0, 0.1) @ rx(90) @ Rz @ rx(-90)
        assert np.max(np.abs(T[robot.link_index("RClaw")] - expect)) < 1e-12


def test_schunk_dual_prefixes_and_xml_transforms():
    robot = load("robots", "schunk-lwa3-dual.robot.xml")
    single = load("robots", "schunk-lwa3.zae")
    assert robot.link_names == ["chest"] + ["l_" + n for n in single.link_names] + \
        ["r_" + n for n in single.link_names]
    assert [d.name for d in robot.drivers] == ["l_" + d.name for d in single.drivers] + \
        ["r_" + d.name for d in single.drivers]
    u = np.linspace(-0.5, 0.6, len(single.drivers))
    T = robot.fk(robot.config_from_drivers(np.concatenate([u, -u])))
    Ts_l = single.fk(single.config_from_drivers(u))
    Ts_r = single.fk(single.config_from_drivers(-u))
    # the element's RotationAxis 1 0 0 +-90 and translation 0 -+0.1 0.7 move the included links
    left, right = tr(0, -0.1, 0.7) @ rx(90), tr(0, 0.1, 0.7) @ rx(-90)
    for i, name in enumerate(single.link_names):
        assert np.max(np.abs(T[robot.link_index("l_" + name)] - left @ Ts_l[i])) < 1e-12
        assert np.max(np.abs(T[robot.link_index("r_" + name)] - right @ Ts_r[i])) < 1e-12


def test_pa10schunk_appends_after_the_xml_base():
    robot = load("robots", "pa10schunk.robot.xml")
    pa10 = load("robots", "mitsubishi-pa10.zae")
    assert robot.link_names[0] == "staticbase"
    assert [d.name for d in robot.drivers] == [d.name for d in pa10.drivers] + ["jfinger_L"]
    u = np.linspace(-0.7, 0.7, 7)
    T = robot.fk(robot.config_from_drivers(np.concatenate([u, [0.01]])))
    Tp = pa10.fk(pa10.config_from_drivers(u))
    for i, name in enumerate(pa10.link_names):
        assert np.max(np.abs(T[robot.link_index(name)] - Tp[i])) < 1e-12


def test_pr2_sim_adds_xml_sensors_to_the_collada_robot():
    robot = load("robots", "pr2-beta-sim.robot.xml")
    pr2 = load("robots", "pr2-beta-static.zae")
    assert robot.name == "pr2" and robot.link_names == pr2.link_names
    assert [d.name for d in robot.drivers] == [d.name for d in pr2.drivers]
    names = [s.name for s in robot.sensors]
    assert "l_forearm_cam_optical_frame" in names and "base_laser" in names
