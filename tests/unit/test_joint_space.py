"""robot.joint_space and robot.config_from_joints on the sample arm, whose .rob file states
its drivers by hand: four normal drivers on links 0-3 and one affine driver moving both
fingers (links 4 and 5, scale 1 1, offset 0 0, limits 0..0.03 m); on the sample URDF (a
mimic with multiplier -1, URDF joint names); and on a .rob whose drivers are listed in the
opposite order of its links."""
import math
import os

import numpy as np
import pytest

import roboio
from conftest import SAMPLES

ARM = os.path.join(SAMPLES, "planar_arm.rob")
SWAPPED = """links "a" "b"
parents -1 0
jointtype r r
Tparent 1 0 0 0 1 0 0 0 1 0 0 0   1 0 0 0 1 0 0 0 1 1 0 0
axis 0 0 1 0 0 1
qmin -3 -2
qmax 3 2
joint normal 0
joint normal 1
driver normal 1
driver normal 0
"""


@pytest.fixture(scope="module")
def arm():
    return roboio.load(ARM)


def test_names_limits_and_links_from_the_drivers(arm):
    js = arm.joint_space
    assert js.names == ["base", "shoulder", "elbow", "wrist", "finger_left"] and len(js) == 5
    np.testing.assert_allclose(js.qmin, [-3.14159265358979, -1.5707963267949, -2.61799387799,
                                         -2.09439510239, 0.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(js.qmax[4], 0.03, rtol=0, atol=1e-15)
    assert js.dofs(4) == [4, 5] and js.dofs(0) == [0]
    assert list(js.prismatic) == [False, False, False, False, True]


def test_joint_vector_to_links_and_back(arm):
    js = arm.joint_space
    q = js.to_config([0.1, 0.2, 0.3, 0.4, 0.02])
    np.testing.assert_allclose(q, [0.1, 0.2, 0.3, 0.4, 0.02, 0.02], rtol=0, atol=0)
    np.testing.assert_allclose(js.from_config(q), [0.1, 0.2, 0.3, 0.4, 0.02], rtol=0, atol=1e-15)
    assert js.as_dict(q) == pytest.approx({"base": 0.1, "shoulder": 0.2, "elbow": 0.3,
                                           "wrist": 0.4, "finger_left": 0.02})
    with pytest.raises(ValueError, match="expected 5 joint values"):
        js.to_config([0.1, 0.2])


def test_names_keep_the_rest_and_a_follower_link_alone_breaks_the_coupling(arm):
    js = arm.joint_space
    base = np.array([0.5, 0.0, 0.0, 0.0, 0.01, 0.01])
    q = js.to_config({"elbow": -1.0, "finger_left": 0.03}, q=base)
    np.testing.assert_allclose(q, [0.5, 0, -1.0, 0, 0.03, 0.03], rtol=0, atol=0)
    # the affine driver sets both fingers to its own value (scale 1, offset 0): either name is it
    assert js.resolve("finger_left") == js.resolve("finger_right") == ("joint", 4)
    with pytest.raises(KeyError):
        js.resolve("nope")
    # a mimic with multiplier -1 (the sample URDF): its link is not the joint's value
    g = roboio.load(os.path.join(SAMPLES, "mobile_gripper.urdf"))
    gs = g.joint_space
    right = g.link_names.index("finger_right")
    assert gs.resolve("finger_left_joint") == gs.resolve("finger_left") == ("joint", 2)
    assert gs.resolve("finger_right") == gs.resolve("finger_right_joint") == ("link", right)
    assert gs.resolve("lift") == gs.resolve("carriage") == ("joint", 1)
    q = gs.to_config({"finger_left": 0.3})
    assert q[right] == pytest.approx(-0.3, abs=1e-15)
    q = gs.to_config({"finger_right": 0.1}, q=q)           # the follower alone
    assert q[right] == 0.1
    # read back as Klamp't reads an affine driver: the mean of (q - offset) / scale over its
    # links, (0.3 + 0.1 / -1) / 2
    assert gs.as_dict(q)["finger_left_joint"] == pytest.approx(0.1, abs=1e-15)


def test_config_from_joints_forms(arm):
    q = arm.config_from_joints([0, 0.2, 0, 0, 0.01])
    np.testing.assert_allclose(q, [0, 0.2, 0, 0, 0.01, 0.01], rtol=0, atol=0)
    np.testing.assert_allclose(arm.config_from_joints(shoulder=0.2, finger_left=0.01), q,
                               rtol=0, atol=0)
    np.testing.assert_allclose(arm.config_from_joints({"shoulder": 0.2}, finger_left=0.01), q,
                               rtol=0, atol=0)
    # a vector and keywords: the keywords win for what they name
    q2 = arm.config_from_joints([0, 0.2, 0, 0, 0.01], wrist=math.pi / 4)
    np.testing.assert_allclose(q2, [0, 0.2, 0, math.pi / 4, 0.01, 0.01], rtol=0, atol=0)


def test_samples_stay_within_the_limits_and_keep_the_coupling(arm):
    js = arm.joint_space
    Q = js.sample(500, seed=4)
    assert Q.shape == (500, 6)
    U = np.array([js.from_config(q) for q in Q])
    assert np.all(U >= js.qmin) and np.all(U <= js.qmax)
    np.testing.assert_array_equal(Q[:, 4], Q[:, 5])
    np.testing.assert_array_equal(js.sample(3, seed=4), Q[:3])     # seeded


def test_drivers_in_another_order_than_the_links(tmp_path):
    p = tmp_path / "swapped.rob"
    p.write_text(SWAPPED)
    robot = roboio.load(str(p))
    js = robot.joint_space
    assert js.names == ["b", "a"]
    np.testing.assert_allclose(js.to_config([0.1, 0.2]), [0.2, 0.1], rtol=0, atol=0)
    np.testing.assert_allclose(js.qmin, [-2, -3], rtol=0, atol=0)
    assert not js.identity
