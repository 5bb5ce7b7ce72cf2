"""An OpenHRP VRML robot converted by roboio reads the same in the reference libraries: the
shipped sample (arm_vrml.wrl: free base, rotated Segment shapes, limits, a fixed hand and a
force sensor) written as URDF gives pinocchio's link poses, written as MJCF gives MuJoCo's
body poses, masses and inertias."""
import os
import warnings

import numpy as np
import pytest

import roboio
from conftest import SAMPLES
from test_mjcf_mujoco import check_model, sample
from test_urdf_reference import pinocchio_fk

MODEL = os.path.join(SAMPLES, "choreonoid", "arm_vrml.wrl")


def _robot():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(MODEL)


def test_vrml_robot_as_urdf_in_pinocchio(tmp_path):
    robot = _robot()
    out = str(tmp_path / "arm.urdf")
    roboio.save(robot, out)
    links = [robot.link_index(n) for n in ("BASE", "SHOULDER", "ELBOW", "HAND")]
    Q = sample(robot, 6, 3)
    got = pinocchio_fk(out, robot, Q, links)
    want = np.stack([robot.fk(q)[links] for q in Q])
    assert np.abs(got - want).max() < 1e-9


def test_vrml_robot_as_mjcf_in_mujoco(tmp_path, monkeypatch):
    pytest.importorskip("mujoco")
    monkeypatch.chdir(tmp_path)
    robot = _robot()
    out = str(tmp_path / "arm.xml")
    report = roboio.save(robot, out, format="mjcf", meshes="convert")
    check_model(robot, out, report, nsamples=6)
