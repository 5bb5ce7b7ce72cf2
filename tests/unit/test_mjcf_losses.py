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


SCENERY = """<mujoco model="s">
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="table" pos="1 0 0" euler="0 0 30">
      <inertial pos="0.1 0 0" mass="2000" fullinertia="3 2 4 0.1 0.2 0.3"/>
      <geom type="box" size=".1 .1 .1"/>
    </body>
    <body name="shelf" pos="0 1 0">
      <geom type="box" size=".1 .2 .3" pos="0 0 .3" euler="0.3 0 0"/>
      <geom type="sphere" size=".1" density="500"/>
      <body name="inner" pos="0 0 1" euler="0 0.5 0">
        <geom type="capsule" size=".05 .1"/>
      </body>
    </body>
    <body name="ball" pos="0 0 1">
      <freejoint/>
      <geom type="sphere" size=".1"/>
    </body>
  </worldbody>
</mujoco>
"""


def _bodies(model, mujoco):
    return {model.body(i).name: i for i in range(model.nbody)}


def test_static_body_mass_kept_for_mujoco(tmp_path):
    """MuJoCo compiles the written scenery bodies with the source's body_mass, body_ipos
    and body_inertia (a static body nested in another adds its mass to its terrain's)."""
    mujoco = pytest.importorskip("mujoco")
    src = tmp_path / "s.xml"
    src.write_text(SCENERY)
    world = roboio.load_world(str(src))
    out = tmp_path / "out.xml"
    report = roboio.save(world, str(out), format="mjcf")
    assert not any("static" in str(d) for d in report.lost)
    a = mujoco.MjModel.from_xml_path(str(src))
    b = mujoco.MjModel.from_xml_path(str(out))
    ia, ib = _bodies(a, mujoco), _bodies(b, mujoco)
    ka, kb = ia["table"], ib["table"]
    assert b.body_mass[kb] == pytest.approx(2000.0, rel=1e-12)
    assert np.allclose(b.body_inertia[kb], a.body_inertia[ka], rtol=1e-10, atol=0)
    assert np.allclose(b.body_ipos[kb], a.body_ipos[ka], rtol=0, atol=1e-12)
    # frames of the principal axes: the same tensor in the body frame
    Ra, Rb = np.zeros(9), np.zeros(9)
    mujoco.mju_quat2Mat(Ra, a.body_iquat[ka])
    mujoco.mju_quat2Mat(Rb, b.body_iquat[kb])
    Ta = Ra.reshape(3, 3) @ np.diag(a.body_inertia[ka]) @ Ra.reshape(3, 3).T
    Tb = Rb.reshape(3, 3) @ np.diag(b.body_inertia[kb]) @ Rb.reshape(3, 3).T
    assert np.allclose(Ta, Tb, rtol=0, atol=1e-9)
    # the shelf and the static body inside it: one body of their total mass and centre
    shelf, inner = ia["shelf"], ia["inner"]
    total = a.body_mass[shelf] + a.body_mass[inner]
    assert b.body_mass[ib["shelf"]] == pytest.approx(total, rel=1e-12)
    mujoco.mj_forward(a, d := mujoco.MjData(a))
    mujoco.mj_forward(b, e := mujoco.MjData(b))
    centre = (a.body_mass[shelf] * d.xipos[shelf] + a.body_mass[inner] * d.xipos[inner]) / total
    assert np.allclose(e.xipos[ib["shelf"]], centre, rtol=0, atol=1e-12)
    # written again from its own reading: the same bytes
    again = tmp_path / "again.xml"
    roboio.save(roboio.load_world(str(out)), str(again), format="mjcf")
    assert again.read_bytes() == out.read_bytes()


@pytest.mark.parametrize("fmt,name", [("klampt-world", "w.xml"), ("openrave", "w.env.xml"),
                                      ("graspit", "w.xml")])
def test_static_body_mass_reported_elsewhere(tmp_path, fmt, name):
    src = tmp_path / "s.xml"
    src.write_text(SCENERY)
    world = roboio.load_world(str(src))
    report = roboio.save(world, str(tmp_path / name), format=fmt)
    said = [d for d in report.lost if "mass of static bodies" in str(d)]
    assert said and "table" in str(said[0]) and "shelf" in str(said[0])
    assert said[0].severity == "warning"


KEPT_AND_NOT = """<mujoco model="m">
  <option integrator="RK4"/>
  <worldbody>
    <body name="base" mocap="true"><geom type="box" size=".1 .1 .1"/></body>
    <body name="a" pos="0 0 1">
      <joint name="ball" type="ball" range="0 40"/>
      <geom type="sphere" size=".1" mass="1"/>
      <site name="tip" pos="0 0 .1"/>
      <body name="b" pos="0 0 .2">
        <joint name="j" axis="0 1 0" ref="10"/>
        <inertial pos="0 0 0" mass="1" quat="0.9 0.1 0.3 0.2" diaginertia="0.03 0.02 0.015"/>
      </body>
    </body>
  </worldbody>
  <equality><connect body1="b" anchor="0 0 0"/></equality>
  <keyframe><key qpos="1 0 0 0 0.2"/></keyframe>
</mujoco>
"""


def test_mjcf_rewrite_reports_only_what_it_does_not_write(tmp_path):
    """MJCF -> MJCF: what the reading kept and the writer gives back (a site, a ball's cone,
    a joint's ref, the inertia's quat + diaginertia, <option>, a key) is not reported lost
    (every link with a site was, as 'format-specific link data'); the mocap flag and the
    <connect>, which it does not write, are."""
    src = tmp_path / "m.xml"
    src.write_text(KEPT_AND_NOT)
    with pytest.warns(roboio.RoboioWarning):
        world = roboio.load(str(src))
    out = tmp_path / "out" / "m.xml"
    report = roboio.save(world, str(out), "mjcf")
    lost = [str(x) for x in report.lost]
    link_data = [x for x in lost if x.startswith("format-specific link data")]
    robot_data = [x for x in lost if x.startswith("format-specific robot data")]
    assert link_data == [] or all("mjcf.mocap" in x and "sites" not in x for x in link_data), lost
    assert any("mjcf.equality" in x for x in robot_data), lost
    assert not any(k in x for x in robot_data for k in ("option", "keyframes", "sites")), lost
    text = out.read_text()
    assert 'name="tip"' in text and 'integrator="RK4"' in text and "<key" in text
