"""The samples the package ships for the docs (one per ecosystem): they load without a
warning, and their link poses are the ones worked out here by hand from the files' numbers."""
import os

import numpy as np
import pytest

from conftest import SAMPLES

import roboio

OPENRAVE = os.path.join(SAMPLES, "openrave", "pick_arm.robot.xml")
COLLADA = os.path.join(SAMPLES, "collada", "pick_arm.dae")
GRASPIT = os.path.join(SAMPLES, "graspit", "TwoFinger", "TwoFinger.xml")


def _pos(robot, q, name):
    return robot.fk(q)[robot.link_index(name), :3, 3]


@pytest.mark.parametrize("path", [OPENRAVE, COLLADA])
def test_pick_arm(path):
    """Base at the origin; turret 0.08 m up; upper arm 0.08 m above it, 0.3 m long along x;
    forearm to the palm 0.24 m; fingers 0.04 m ahead of the palm, 0.035 m to each side,
    closing by `grip` each."""
    r = roboio.load(path)
    assert r.warnings == []
    assert [d.name for d in r.drivers][-1] == "grip"
    q = r.config_from_joints(grip=0.02)
    assert np.allclose(_pos(r, q, "palm"), [0.54, 0, 0.16], atol=1e-12)
    assert np.allclose(_pos(r, q, "finger_left"), [0.58, 0.015, 0.16], atol=1e-12)
    assert np.allclose(_pos(r, q, "finger_right"), [0.58, -0.015, 0.16], atol=1e-12)
    # yaw a quarter turn: the arm points along +y; the shoulder (axis -y) raises it
    q = r.config_from_joints(yaw=np.pi / 2)
    assert np.allclose(_pos(r, q, "palm"), [0, 0.54, 0.16], atol=1e-12)
    q = r.config_from_joints(shoulder=np.pi / 2)
    assert np.allclose(_pos(r, q, "palm"), [0, 0, 0.16 + 0.54], atol=1e-12)


def test_the_openrave_sample_includes_its_arm():
    r = roboio.load(OPENRAVE)
    assert [os.path.basename(p) for p in r.input_files] == ["pick_arm.robot.xml", "pick_arm.kinbody.xml"]
    assert r.link_names == ["base", "turret", "upper_arm", "forearm", "palm", "finger_left", "finger_right"]
    assert sum(l.mass for l in r.links) == pytest.approx(6.4)
    assert [m.name for m in r.manipulators] == ["gripper"]


def test_the_graspit_hand_couples_four_joints_to_one_dof():
    """GraspIt! millimetres: each finger's chain frame is at (0, -+35, 40) mm turned -90 deg
    about y (x along the palm's z, the joint axis along -+x). The proximal link's frame is at
    its distal end, 40 mm along x turned by d0; the distal one 30 mm further, turned by
    d0 + (-d0 + 10 deg) = 10 deg whatever d0."""
    r = roboio.load(GRASPIT)
    assert r.warnings == []
    assert len(r.drivers) == 1 and len(r.drivers[0].dofs) == 4
    assert (r.drivers[0].qmin, r.drivers[0].qmax) == pytest.approx((0.0, np.radians(45)))
    d0 = 0.7
    q = r.config_from_drivers([d0])
    ten = np.radians(10)
    for chain, side in ((0, -1), (1, 1)):
        prox = np.array([0, side * 35 - side * 40 * np.sin(d0), 40 + 40 * np.cos(d0)]) / 1000
        dist = prox + np.array([0, -side * 30 * np.sin(ten), 30 * np.cos(ten)]) / 1000
        assert np.allclose(_pos(r, q, f"TwoFinger_chain{chain}_link0"), prox, atol=1e-12)
        assert np.allclose(_pos(r, q, f"TwoFinger_chain{chain}_link1"), dist, atol=1e-12)
    masses = sorted(l.mass for l in r.links if l.mass > 0)
    assert masses == pytest.approx([0.025, 0.025, 0.04, 0.04, 0.4])


def test_the_gimbal_cart_reads_its_hinge2_and_universal_joints():
    """Front wheel at (0.25, 0, 0.06), steered about z and spun about the steered y through
    its own centre; the camera 5 cm above the universal joint's anchor (-0.15, 0, 0.5): a
    tilt of t about y swings it to (-0.15 + 0.05 sin t, 0, 0.5 + 0.05 cos t); a pan about z alone leaves it
    where it is (the pan axis passes through it)."""
    r = roboio.load(os.path.join(SAMPLES, "openrave", "gimbal_cart.robot.xml"))
    assert r.warnings == []
    assert [d.name for d in r.drivers] == ["front_wheel", "front_wheel_1", "camera_mount", "camera_mount_1"]
    q = r.config_from_joints(front_wheel=0.5, front_wheel_1=1.0)
    assert np.allclose(_pos(r, q, "front_wheel"), [0.25, 0, 0.06], atol=1e-12)
    R = r.fk(q)[r.link_index("front_wheel"), :3, :3]
    c, s = np.cos(0.5), np.sin(0.5)
    Rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    c, s = np.cos(1.0), np.sin(1.0)
    Ry = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    assert np.allclose(R, Rz @ Ry, atol=1e-12)
    assert np.allclose(_pos(r, r.config_from_joints(camera_mount=1.2), "camera"), [-0.15, 0, 0.55], atol=1e-12)
    q = r.config_from_joints(camera_mount_1=0.8)
    assert np.allclose(_pos(r, q, "camera"), [-0.15 + 0.05 * np.sin(0.8), 0, 0.5 + 0.05 * np.cos(0.8)],
                       atol=1e-12)
