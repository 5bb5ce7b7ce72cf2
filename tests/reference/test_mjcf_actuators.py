"""Actuators of models read from MJCF, written back as MJCF and compiled by MuJoCo: a joint
the source leaves unactuated stays so (MuJoCo's meaning of a joint without an actuator; the
reader still gives it a driver, Klamp't's convention), an actuator keeps its name when the
reading names the driver after its joint, an actuator on the follower of an ``<equality>``
coupling is not lost, the bodies move as MuJoCo's own model does, and write -> read -> write
gives the same bytes."""
import numpy as np
import pytest

import roboio

from conftest import rewrite_is_fixed_point

mujoco = pytest.importorskip("mujoco")

# swing: no actuator (as cartpole's pole); slide: a servo named otherwise; left/right: the
# actuator drives the follower of the coupling; wrist: a motor with a gear
MODEL = """
<mujoco model="acts">
  <worldbody>
    <body name="cart" pos="0 0 1">
      <joint name="slide" type="slide" axis="1 0 0" range="-1 1"/>
      <geom type="box" size="0.2 0.1 0.05" mass="2"/>
      <body name="pole" pos="0 0 0.05">
        <joint name="swing" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.6" size="0.03" mass="0.5"/>
        <body name="hand" pos="0 0 0.6">
          <joint name="wrist" axis="0 0 1" range="-2 2"/>
          <geom type="box" size="0.05 0.02 0.02" mass="0.2"/>
          <body name="left" pos="0.02 0 0.03">
            <joint name="left" type="slide" axis="1 0 0" range="0 0.03"/>
            <geom type="box" size="0.005 0.01 0.02" mass="0.05"/>
          </body>
          <body name="right" pos="-0.02 0 0.03">
            <joint name="right" type="slide" axis="-1 0 0" range="0 0.03"/>
            <geom type="box" size="0.005 0.01 0.02" mass="0.05"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <equality>
    <joint joint1="right" joint2="left" polycoef="0 1 0 0 0"/>
  </equality>
  <actuator>
    <position name="cart_servo" joint="slide" kp="50" kv="5" ctrlrange="-0.5 0.5"/>
    <motor name="wrist_motor" joint="wrist" gear="1" ctrlrange="-3 3"/>
    <position name="grip" joint="right" kp="20" ctrlrange="0 0.03"/>
  </actuator>
</mujoco>"""


def _actuators(m):
    """{actuator name: name of the joint it drives}"""
    return {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, k):
            mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, int(m.actuator_trnid[k][0]))
            for k in range(m.nu)}


def test_mujoco_actuators_come_back(tmp_path):
    src = tmp_path / "acts.xml"
    src.write_text(MODEL)
    robot = roboio.load(str(src))
    assert "swing" in [d.name for d in robot.drivers]      # (every hinge has a driver)
    out = str(tmp_path / "out.xml")
    rewrite_is_fixed_point(robot, out, "mjcf")

    ma, mb = mujoco.MjModel.from_xml_path(str(src)), mujoco.MjModel.from_xml_path(out)
    assert mb.nu == ma.nu == 3
    got, want = _actuators(mb), _actuators(ma)
    assert set(got) == set(want)
    assert "swing" not in got.values()
    # kept as read: the follower's actuator stays on the follower's joint
    assert got == want and want["grip"] == "right"
    k_a, k_b = ma.actuator("cart_servo").id, mb.actuator("cart_servo").id
    assert np.allclose(mb.actuator_gainprm[k_b][:1], ma.actuator_gainprm[k_a][:1], rtol=1e-12)
    assert np.allclose(mb.actuator_biasprm[k_b][:3], ma.actuator_biasprm[k_a][:3], rtol=1e-12)
    assert np.allclose(mb.actuator_ctrlrange[k_b], ma.actuator_ctrlrange[k_a], rtol=1e-12)
    assert np.allclose(mb.body_mass, ma.body_mass, rtol=1e-12)

    rng = np.random.default_rng(3)
    da, db = mujoco.MjData(ma), mujoco.MjData(mb)
    joints = [mujoco.mj_id2name(ma, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(ma.njnt)]
    for _ in range(5):
        for j in joints:
            v = rng.uniform(-0.5, 0.5) if j not in ("left", "right") else rng.uniform(0, 0.03)
            da.qpos[ma.jnt_qposadr[ma.joint(j).id]] = v
            db.qpos[mb.jnt_qposadr[mb.joint(j).id]] = v
        mujoco.mj_kinematics(ma, da)
        mujoco.mj_kinematics(mb, db)
        for b in range(1, ma.nbody):
            name = mujoco.mj_id2name(ma, mujoco.mjtObj.mjOBJ_BODY, b)
            assert np.allclose(db.xpos[mb.body(name).id], da.xpos[b], atol=1e-12), name
            assert np.allclose(db.xmat[mb.body(name).id], da.xmat[b], atol=1e-12), name


def test_unactuated_joints_stay_without_actuators_in_every_mode(tmp_path):
    """``--actuators motor`` and ``none`` leave the unactuated joint alone too; ``none``
    reports the three actuated drivers, not the unactuated one."""
    src = tmp_path / "acts.xml"
    src.write_text(MODEL)
    robot = roboio.load(str(src))
    out = str(tmp_path / "motor.xml")
    roboio.save(robot, out, format="mjcf", actuators="motor")
    m = mujoco.MjModel.from_xml_path(out)
    assert m.nu == 3 and "swing" not in _actuators(m).values()
    report = roboio.save(robot, str(tmp_path / "none.xml"), format="mjcf", actuators="none")
    assert mujoco.MjModel.from_xml_path(str(tmp_path / "none.xml")).nu == 0
    assert any(x.startswith("drivers (3): MJCF is written without actuators") for x in report.lost)


def test_explicit_position_rebuilds_on_the_leader(tmp_path):
    """``actuators="position"`` rebuilds every actuator from the drivers: the follower's
    actuator drives the coupling through its leader (roboio's driver)."""
    src = tmp_path / "acts.xml"
    src.write_text(MODEL)
    out = str(tmp_path / "out.xml")
    roboio.save(roboio.load(str(src)), out, format="mjcf", actuators="position")
    got = _actuators(mujoco.MjModel.from_xml_path(out))
    assert got["grip"] == "left" and got["wrist_motor"] == "wrist"
    m = mujoco.MjModel.from_xml_path(out)
    # the motor became a position servo (an affine bias: -kp qpos - kv qvel)
    assert m.actuator_biastype[m.actuator("wrist_motor").id] == mujoco.mjtBias.mjBIAS_AFFINE
