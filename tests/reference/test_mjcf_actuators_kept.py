"""The shipped arm.xml written back as MJCF by default keeps its actuators as MuJoCo had
them (a motor stays a motor, servos keep their gains): MuJoCo compiles the same actuator
arrays ; a driver changed in Python is rebuilt and reported,
and an explicit ``actuators="position"`` rebuilds every actuator."""
import os

import numpy as np
import pytest

import roboio

mujoco = pytest.importorskip("mujoco")

ARM = os.path.join(os.path.dirname(roboio.__file__), "data", "samples", "mjcf", "arm.xml")
ARRAYS = ("actuator_trntype", "actuator_gear", "actuator_gainprm", "actuator_biasprm",
          "actuator_ctrlrange", "actuator_forcerange", "actuator_ctrllimited",
          "actuator_forcelimited", "actuator_gaintype", "actuator_biastype", "actuator_dyntype")


def _by_name(m, array):
    return {m.actuator(k).name: np.asarray(getattr(m, array)[k], dtype=float) for k in range(m.nu)}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("arm") / "arm.xml")
    report = roboio.save(roboio.load(ARM), out, format="mjcf")
    return out, report


def test_arm_actuators_kept(written):
    out, report = written
    text = open(out).read()
    assert '<motor name="yaw_motor" joint="yaw" gear="50" ctrllimited="true" ctrlrange="-1 1" forcelimited="false"' in text
    ma, mb = mujoco.MjModel.from_xml_path(ARM), mujoco.MjModel.from_xml_path(out)
    assert mb.nu == ma.nu == 3
    for array in ARRAYS:
        want, got = _by_name(ma, array), _by_name(mb, array)
        assert set(got) == set(want) == {"yaw_motor", "elbow_servo", "grip"}
        for name in want:
            assert np.allclose(got[name], want[name], rtol=0, atol=1e-12), (array, name)
    for name in want:       # on the joint of the same name
        ja, jb = ma.actuator(name).trnid[0], mb.actuator(name).trnid[0]
        assert ma.joint(ja).name == mb.joint(jb).name
    yaw = mb.actuator("yaw_motor").id
    assert mb.actuator_gaintype[yaw] == mujoco.mjtGain.mjGAIN_FIXED
    assert mb.actuator_biastype[yaw] == mujoco.mjtBias.mjBIAS_NONE
    assert mb.actuator_gear[yaw][0] == pytest.approx(50.0, abs=1e-12)
    assert np.allclose(mb.actuator_ctrlrange[yaw], [-1, 1], atol=1e-12)
    for name, kp in (("elbow_servo", 100.0), ("grip", 200.0)):
        k = mb.actuator(name).id
        assert mb.actuator_biastype[k] == mujoco.mjtBias.mjBIAS_AFFINE
        assert mb.actuator_gainprm[k][0] == pytest.approx(kp, abs=1e-12)
        assert mb.actuator_biasprm[k][1] == pytest.approx(-kp, abs=1e-12)
    assert not any("kp 0" in w or "no position gain" in w for w in report.warnings)


def test_arm_rewrite_identical(written, tmp_path):
    out, _ = written
    again = str(tmp_path / "arm.xml")      # (the same name: its mesh folder is named after it)
    roboio.save(roboio.load(out), again, format="mjcf")
    assert open(again, "rb").read() == open(out, "rb").read()


def test_changed_driver_falls_back_and_is_reported(tmp_path):
    robot = roboio.load(ARM)
    robot.driver("yaw").tmax = 5.0
    out = str(tmp_path / "arm.xml")
    report = roboio.save(robot, out, format="mjcf")
    m = mujoco.MjModel.from_xml_path(out)
    yaw = m.actuator("yaw_motor").id
    assert m.actuator_biastype[yaw] == mujoco.mjtBias.mjBIAS_AFFINE       # rebuilt: a servo
    assert m.actuator_gainprm[m.actuator("elbow_servo").id][0] == pytest.approx(100.0, abs=1e-12)
    lost = [x for x in report.lost if x.startswith("actuators read from MJCF, rebuilt")]
    assert len(lost) == 1 and "yaw_motor" in lost[0] and "tmax 5" in lost[0]


def test_explicit_position_rebuilds_every_actuator(tmp_path):
    out = str(tmp_path / "arm.xml")
    roboio.save(roboio.load(ARM), out, format="mjcf", actuators="position")
    m = mujoco.MjModel.from_xml_path(out)
    assert m.nu == 3
    assert all(m.actuator_biastype[k] == mujoco.mjtBias.mjBIAS_AFFINE for k in range(m.nu))
