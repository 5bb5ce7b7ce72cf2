"""The Klamp't motion samples the docs use (roboio/data/samples/klampt/) read by the real
klampt package: the same times and milestones as roboio reads, and their IK goal and hold
at the arm's own link positions as Klamp't computes them (so the samples say what their
comments say)."""
import os

import numpy as np
import pytest

import roboio
from conftest import SAMPLES

klampt = pytest.importorskip("klampt")
from klampt.model.multipath import MultiPath as KMultiPath  # noqa: E402
from klampt.model.trajectory import Trajectory as KTrajectory  # noqa: E402

ARM = os.path.join(SAMPLES, "planar_arm.rob")
REACH = os.path.join(SAMPLES, "klampt", "arm_reach.path")
PICK = os.path.join(SAMPLES, "klampt", "arm_pick.xml")
FILE_DIGITS = 1e-6          # the samples' positions are written with 6 significant digits


@pytest.fixture(scope="module")
def klampt_arm():
    world = klampt.WorldModel()
    assert world.readFile(ARM)
    return world, world.robot(0)


def test_reach_path_reads_as_klampt_reads_it():
    k = KTrajectory()
    k.load(REACH)
    t = roboio.load(REACH)
    assert np.allclose(t.times, k.times, rtol=0, atol=1e-15)
    assert np.allclose(t.milestones, k.milestones, rtol=0, atol=1e-15)
    assert t.milestones.shape[1] == roboio.load(ARM).num_links


def test_pick_multipath_reads_as_klampt_reads_it():
    k = KMultiPath()
    k.load(PICK)
    m = roboio.load(PICK)
    assert len(k.sections) == len(m.sections) == 3
    assert [s.settings.get("name") for s in m.sections] == ["reach", "grip", "lift"]
    assert [s.hold_refs for s in m.sections] == [[], [], ["crate"]]
    for ks, s in zip(k.sections, m.sections):
        assert np.allclose(s.times, ks.times, rtol=0, atol=1e-15)
        assert np.allclose(s.milestones, ks.configs, rtol=0, atol=1e-15)
    assert sorted(k.holdSet) == ["crate"] and k.sections[2].holdIndices == ["crate"]


def test_pick_ik_goal_pins_the_wrist_where_klampt_puts_it(klampt_arm):
    """The grip section's IK goal holds link 3 (wrist) at its world position, which both of
    the section's milestones reach (only the fingers move)."""
    _, robot = klampt_arm
    k = KMultiPath()
    k.load(PICK)
    grip = k.sections[1]
    goal = grip.ikObjectives[0]
    assert goal.link() == 3 and goal.destLink() == -1
    local, world = goal.getPosition()
    for q in grip.configs:
        robot.setConfig(q)
        assert np.allclose(robot.link(3).getWorldPosition(local), world, rtol=0, atol=FILE_DIGITS)


def test_pick_hold_is_at_the_left_fingertip(klampt_arm):
    """The crate hold: link 4 (finger_left), 0.1 m along the finger, where the lift section
    starts; its contact point is that point and its normal a unit vector."""
    _, robot = klampt_arm
    k = KMultiPath()
    k.load(PICK)
    hold = k.holdSet["crate"]
    local, world = hold.ikConstraint.getPosition()
    assert hold.link == 4 and np.allclose(local, (0.1, 0, 0), atol=1e-15)
    robot.setConfig(k.sections[2].configs[0])
    tip = robot.link(4).getWorldPosition([0.1, 0, 0])
    assert np.allclose(tip, world, rtol=0, atol=FILE_DIGITS)
    (contact,) = hold.contacts
    assert np.allclose(contact.x, tip, rtol=0, atol=FILE_DIGITS)
    assert abs(np.linalg.norm(contact.n) - 1) < FILE_DIGITS
    # roboio reads the same hold
    (h,) = roboio.load(PICK).holds
    assert h.name == "crate"
    assert h.link == 4 and np.allclose(h.contacts[0].x, contact.x, rtol=0, atol=1e-15)
