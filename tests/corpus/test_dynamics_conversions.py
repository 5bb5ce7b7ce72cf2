"""Every robot writer keeps the dynamics of corpus robots of every ecosystem, or its report
says what the target changed: each robot is written in each robot format roboio writes and
reads back, and :func:`roboio.verify_dynamics.verify_dynamics` compares mass matrices and
gravity torques over the moving coordinates (MJCF, which roboio does not read, is compared
with MuJoCo itself in tests/reference/test_dynamics_reference.py)."""
import os
import warnings

import pytest

import roboio
from roboio.verify_dynamics import verify_dynamics

from conftest import corpus_path

ROBOTS = ["klampt/robots/ur5.rob", "klampt/robots/robotiq_3finger.rob", "klampt/robots/atlas.rob",
          "openrave/src/robots/barrettwam.robot.xml", "openrave/src/robots/pumaarm.zae",
          "graspit/models/robots/Barrett/Barrett.xml", "choreonoid/share/model/PA10/PA10.body",
          "choreonoid/share/model/SR1/SR1.body"]
FORMATS = {"klampt-rob": "robot.rob", "urdf": "robot.urdf", "choreonoid-body": "robot.body",
           "graspit": "robot.xml", "openrave": "robot.robot.xml", "collada-robot": "robot.dae"}
TOL = 1e-9
# atlas.rob writes its link rotations with six digits (not quite rotations): every target
# holds the nearest rotations, which moves its dynamics by ~1e-7 (the kinematic verify
# accounts for it and says how far the links move)
LOOSE = {"klampt/robots/atlas.rob": 1e-6}


def _robot(obj):
    return obj.robots[0] if isinstance(obj, roboio.World) else obj


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("rel", ROBOTS)
def test_writer_keeps_the_dynamics(rel, fmt, tmp_path):
    path = corpus_path(*rel.split("/"))
    if not os.path.exists(path):
        pytest.skip(f"{rel} not in the corpus")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = _robot(roboio.load(path))
        out = str(tmp_path / FORMATS[fmt])
        report = roboio.save(robot, out, format=fmt)
        back = _robot(roboio.load(out))
    res = verify_dynamics(robot, back, samples=3, tol=LOOSE.get(rel, TOL))
    if res.ok:
        return
    said = " ".join(str(x) for x in report.lost + report.warnings)
    # GraspIt! chains do not branch: a branching robot's chains repeat their common links as
    # massless copies, which changes the tree the dynamics run on; the report says so
    assert fmt == "graspit" and "chains do not branch" in said, (
        f"{fmt} changed the dynamics of {rel} without saying so: mass matrix "
        f"{res.max_mass_matrix_error:.2g}, gravity {res.max_gravity_error:.2g}; "
        + "; ".join(d.describe() for d in res.links[:3]))


def test_graspit_dofs_of_a_floating_base_are_held(tmp_path):
    """A GraspIt! robot of a floating-base model has DOFs of its own for the base (and its
    joint space more names than the source's): the source's joints are compared by name,
    the others held, and the dynamics agree (they were not compared at all before)."""
    path = corpus_path("klampt", "robots", "hrp2.rob")
    if not os.path.exists(path):
        pytest.skip("hrp2.rob not in the corpus")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = roboio.load(path)
        out = str(tmp_path / "hrp2.xml")
        roboio.save(robot, out, format="graspit")
        back = roboio.load(out)
    assert len(back.joint_space) > len(robot.joint_space)
    res = verify_dynamics(robot, back, samples=3)
    assert res.space == "drivers" and any("joints only in B" in n for n in res.notes)
    assert res.ok, (res.max_mass_matrix_error, res.max_gravity_error)
