"""What MJCF says that other formats cannot hold is kept or reported, never dropped silently:
a free joint's name, the mass of static scenery bodies."""
from __future__ import annotations

import numpy as np
import pytest

import roboio

FREE_BASE = """<mujoco model="m">
  <worldbody>
    <body name="torso" pos="0 0 1">
      {free}
      <geom type="sphere" size=".1" mass="1"/>
      <body name="arm" pos="0 0 .2">
        <joint name="j1" type="hinge" axis="0 1 0"/>
        <geom type="box" size=".05 .05 .15" pos="0 0 .15" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""

WRITERS = [("urdf", "urdf"), ("choreonoid-body", "body"), ("klampt-rob", "rob"),
           ("openrave", "robot.xml"), ("collada-robot", "dae"), ("graspit", "gr.xml"),
           ("mjcf", "mjcf.xml")]


def _said(report, name: str) -> bool:
    return any(name in str(d) for d in list(report.lost) + list(report.warnings))


@pytest.mark.parametrize("free", ['<freejoint name="floater"/>', '<joint type="free" name="floater"/>'])
@pytest.mark.parametrize("fmt,ext", WRITERS)
def test_free_joint_name_kept_or_reported(tmp_path, free, fmt, ext):
    src = tmp_path / "m.xml"
    src.write_text(FREE_BASE.format(free=free))
    robot = roboio.load_world(str(src)).robots[0]
    out = tmp_path / f"out.{ext}"
    report = roboio.save(robot, str(out), format=fmt)
    back = roboio.load(str(out))
    back = back.robots[0] if hasattr(back, "robots") else back
    kept = "floater" in [l.joint_name for l in back.links]
    assert kept or _said(report, "floater"), (fmt, str(report))


def test_free_joint_name_on_choreonoid_root(tmp_path):
    """Choreonoid names a root's joint with its joint_name key: the free joint's name is
    written there and read back on the free link."""
    src = tmp_path / "m.xml"
    src.write_text(FREE_BASE.format(free='<freejoint name="floater"/>'))
    robot = roboio.load_world(str(src)).robots[0]
    report = roboio.save(robot, str(tmp_path / "m.body"))
    text = (tmp_path / "m.body").read_text()
    assert 'joint_name: "floater"' in text
    back = roboio.load(str(tmp_path / "m.body"))
    torso = next(l for l in back.links if l.name == "torso")
    assert torso.joint_name == "floater"
    assert not _said(report, "floater")
    roboio.save(back, str(tmp_path / "again.body"))
    assert (tmp_path / "again.body").read_bytes() == (tmp_path / "m.body").read_bytes()
    # and back to MJCF: MuJoCo compiles a free joint named floater
    mujoco = pytest.importorskip("mujoco")
    roboio.save(back, str(tmp_path / "again.xml"), format="mjcf")
    model = mujoco.MjModel.from_xml_path(str(tmp_path / "again.xml"))
    j = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "floater")
    assert j >= 0 and model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE


def test_free_joint_name_reported_by_urdf(tmp_path):
    src = tmp_path / "m.xml"
    src.write_text(FREE_BASE.format(free='<freejoint name="floater"/>'))
    robot = roboio.load_world(str(src)).robots[0]
    report = roboio.save(robot, str(tmp_path / "m.urdf"))
    assert any("floater" in str(w) and "floating base" in str(w) for w in report.warnings)
