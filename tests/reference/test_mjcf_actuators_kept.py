"""The shipped arm.xml written back as MJCF by default keeps its actuators as MuJoCo had
them (a motor stays a motor, servos keep their gains): MuJoCo compiles the same actuator
arrays and simulates the same motion; a driver changed in Python is rebuilt and reported,
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


def test_arm_simulates_as_source(written):
    """50 steps of both models with the same controls from the same state reach the same
    qpos. Two known differences that are not the actuators' are taken out of both: the
    coupled fingers' joint damping (a loss the report names) and the constraints (joint
    limits, the finger coupling), whose softness MuJoCo scales by the inertia at qpos0,
    which moves with elbow's ``ref`` folded into its body."""
    out, report = written
    ma, mb = mujoco.MjModel.from_xml_path(ARM), mujoco.MjModel.from_xml_path(out)
    assert ma.opt.integrator == mb.opt.integrator and ma.opt.timestep == mb.opt.timestep
    assert "friction of drivers that are not one-DOF drivers" in " ".join(report.lost)
    for j in range(ma.njnt):
        name = ma.joint(j).name
        if name in ("left", "right"):
            ma.dof_damping[ma.jnt_dofadr[j]] = mb.dof_damping[mb.jnt_dofadr[mb.joint(name).id]]
    for m in (ma, mb):
        m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    da, db = mujoco.MjData(ma), mujoco.MjData(mb)
    for j in range(ma.njnt):    # the same start (the written qpos0 has elbow's ref folded in)
        db.qpos[mb.jnt_qposadr[mb.joint(ma.joint(j).name).id]] = ma.qpos0[ma.jnt_qposadr[j]]
    for name, u in {"yaw_motor": 0.7, "elbow_servo": 0.4, "grip": 0.02}.items():
        da.ctrl[ma.actuator(name).id] = u
        db.ctrl[mb.actuator(name).id] = u
    for _ in range(50):
        mujoco.mj_step(ma, da)
        mujoco.mj_step(mb, db)
    moved = 0.0
    for j in range(ma.njnt):
        name = ma.joint(j).name
        qa = da.qpos[ma.jnt_qposadr[j]]
        qb = db.qpos[mb.jnt_qposadr[mb.joint(name).id]]
        assert qb == pytest.approx(qa, abs=1e-9), name
        moved = max(moved, abs(qa - ma.qpos0[ma.jnt_qposadr[j]]))
    assert moved > 1e-3        # (the actuators did move the arm)


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


# dm_control point_mass's actuators drive tendons; a site and a ball joint's actuator too
TENDONS = """
<mujoco model="pm">
  <worldbody>
    <body name="mass" pos="0 0 0.01">
      <joint name="root_x" type="slide" axis="1 0 0"/>
      <joint name="root_y" type="slide" axis="0 1 0"/>
      <geom type="sphere" size="0.01" mass="0.3"/>
      <site name="tip" pos="0.01 0 0"/>
      <body name="arm" pos="0 0 0.05">
        <joint name="shoulder" type="ball"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.1" size="0.01" mass="0.1"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t1"><joint joint="root_x" coef="1"/><joint joint="root_y" coef="0"/></fixed>
  </tendon>
  <actuator>
    <motor name="t1" tendon="t1" gear="1" ctrlrange="-1 1"/>
    <motor name="push" site="tip" gear="1 0 0 0 0 0"/>
    <motor name="twist" joint="shoulder" gear="0 0 1"/>
    <motor name="x" joint="root_x"/>
  </actuator>
</mujoco>"""


def test_actuators_without_a_driver_are_reported_by_name(tmp_path):
    src = tmp_path / "pm.xml"
    src.write_text(TENDONS)
    out = str(tmp_path / "out.xml")
    report = roboio.save(roboio.load(str(src)), out, format="mjcf")
    lost = [x for x in report.lost if x.startswith("actuators that drive no hinge or slide joint")]
    assert len(lost) == 1
    for part in ("push (motor on site 'tip')", "twist (motor on joint 'shoulder')"):
        assert part in lost[0]
    assert "t1" not in lost[0]          # the fixed tendon is written, and its motor with it
    m = mujoco.MjModel.from_xml_path(out)
    assert [m.actuator(k).name for k in range(m.nu)] == ["t1", "x"] and m.ntendon == 1


# actuator kinds and class defaults: a <general> from a class, a velocity servo, an
# intvelocity with an activation range, a position servo by damping ratio with a gear, a
# filtered general on the same joint, a cylinder (3 bias parameters, a group)
KINDS = """<mujoco model="gen">
  <default>
    <default class="arm">
      <general biastype="affine" gainprm="2000" biasprm="0 -2000 -400" forcerange="-150 150" ctrlrange="-6.28 6.28"/>
    </default>
    <default class="vel">
      <velocity kv="3"/>
    </default>
  </default>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="j1" axis="0 0 1" range="-3 3"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
      <body name="b" pos="0.3 0 0">
        <joint name="j2" axis="0 1 0" range="-2 2"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
        <body name="c" pos="0.3 0 0">
          <joint name="j3" axis="0 1 0" range="-2 2"/>
          <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.5"/>
          <body name="d" pos="0.2 0 0">
            <joint name="j4" axis="1 0 0"/>
            <geom type="box" size="0.02 0.02 0.02" mass="0.1"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general class="arm" name="g1" joint="j1"/>
    <velocity class="vel" name="v2" joint="j2" ctrlrange="-1 1"/>
    <intvelocity name="iv3" joint="j3" kp="30" actlimited="true" actrange="-1 1"/>
    <position name="p4" joint="j4" kp="10" dampratio="1" gear="2"/>
    <general name="g4" joint="j4" dyntype="filter" dynprm="0.1" gainprm="5"/>
    <cylinder name="c2" joint="j2" area="0.01" timeconst="0.2" bias="0 -1 0" group="2"/>
  </actuator>
</mujoco>"""


def test_actuator_kinds_and_classes_compile_as_the_source(tmp_path):
    src = tmp_path / "gen.xml"
    src.write_text(KINDS)
    out = str(tmp_path / "out" / "gen.xml")
    report = roboio.save(roboio.load(str(src)), out, format="mjcf")
    ma, mb = mujoco.MjModel.from_xml_path(str(src)), mujoco.MjModel.from_xml_path(out)
    assert mb.nu == ma.nu == 6 and mb.na == ma.na == 3
    # MuJoCo's ctrl order is the source's (c2, on j2, is not moved up among its joint's)
    assert [mb.actuator(k).name for k in range(mb.nu)] == [ma.actuator(k).name for k in range(ma.nu)]
    arrays = ARRAYS + ("actuator_dynprm", "actuator_actrange", "actuator_actlimited", "actuator_actnum",
                       "actuator_actearly", "actuator_trnid", "actuator_acc0", "actuator_group")
    for array in arrays:
        want, got = _by_name(ma, array), _by_name(mb, array)
        for name in want:
            if array == "actuator_trnid":     # the joint, by name
                want[name] = ma.joint(int(want[name][0])).name
                got[name] = mb.joint(int(got[name][0])).name
                assert got[name] == want[name]
                continue
            assert np.allclose(got[name], want[name], rtol=1e-12, atol=1e-12), (array, name)
    # MuJoCo's <intvelocity> takes no actlimited, which the written autolimits="false" needs
    assert any(x.startswith("intvelocity actuators written as the equivalent <general>") and x.endswith("iv3")
               for x in report.lost)
    again = str(tmp_path / "again" / "gen.xml")
    roboio.save(roboio.load(out), again, format="mjcf")
    assert open(again, "rb").read() == open(out, "rb").read()


def test_actuator_of_a_kind_not_kept_is_rebuilt_and_reported(tmp_path):
    """A kind whose own attributes a reading does not keep (MuJoCo's dcmotor, pid,
    orientation) is not written as read with those attributes missing."""
    robot = roboio.load(ARM)
    robot.driver("yaw").extras["mjcf"]["actuators"][0]["kind"] = "dcmotor"
    out = str(tmp_path / "arm.xml")
    report = roboio.save(robot, out, format="mjcf")
    m = mujoco.MjModel.from_xml_path(out)
    assert m.actuator_biastype[m.actuator("yaw_motor").id] == mujoco.mjtBias.mjBIAS_AFFINE
    assert any(x.startswith("actuators read from MJCF, rebuilt") and "<dcmotor> actuators are not kept" in x
               for x in report.lost)
