"""MuJoCo bodies with several joints, or a hinge with a ``pos`` (read as a chain of one-DOF
links, see ``roboio/formats/mjcf/_bodies.py``), written back as one body with those joints:
the same bodies as the source (no massless link bodies with 1e-6 kg added), the same body
poses as MuJoCo's own model at random joint values (``mj_kinematics``, by body and joint
name), the same masses and inertias, and write -> read -> write gives the same bytes."""
import numpy as np
import pytest

import roboio

from conftest import rewrite_is_fixed_point

mujoco = pytest.importorskip("mujoco")

# abdomen: two hinges with anchors (humanoid.xml's lower_waist); thigh: three hinges at three
# anchors; shin: one hinge with a pos; slider: a slide then a hinge with an anchor
MODEL = """
<mujoco model="multi">
  <worldbody>
    <body name="torso" pos="0 0 1.4"><freejoint name="root"/>
      <geom type="capsule" fromto="0 -.07 0 0 .07 0" size=".07"/>
      <body name="lower_waist" pos="-.01 0 -.26">
        <joint name="abdomen_z" pos="0 0 .065" axis="0 0 1" range="-45 45"/>
        <joint name="abdomen_y" pos="0 0 .065" axis="0 1 0" range="-75 30"/>
        <geom type="capsule" fromto="0 -.06 0 0 .06 0" size=".06"/>
        <body name="thigh" pos="0 -.1 -.04" euler="3 -7 11">
          <joint name="hip_x" axis="1 0 0" range="-25 5" pos="0.013 -0.021 0.017"/>
          <joint name="hip_z" axis="0 0 1" range="-60 35" pos="0.0031 0.0117 -0.0293"/>
          <joint name="hip_y" axis="0 1 .3" range="-110 20" pos="0.1 0.7 0.3"/>
          <geom type="capsule" fromto="0 0 0 0 .01 -.34" size=".06"/>
          <body name="shin" pos="0 .01 -.403">
            <joint name="knee" pos="0 0 .02" axis="0 -1 0" range="-160 2"/>
            <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".049"/>
          </body>
        </body>
        <body name="slider" pos="0.2 0 0">
          <joint name="rail" type="slide" axis="1 0 0" range="-0.1 0.1"/>
          <joint name="swing" pos="0.031 0.007 -0.011" axis="0 1 0"/>
          <geom type="box" size="0.05 0.02 0.03"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""


def _names(m, kind, n):
    return [mujoco.mj_id2name(m, kind, k) for k in range(n)]


def test_several_joints_in_one_body_round_trip(tmp_path):
    src = tmp_path / "multi.xml"
    src.write_text(MODEL)
    robot = roboio.load(str(src))
    out = str(tmp_path / "out.xml")
    rewrite_is_fixed_point(robot, out, "mjcf")

    ma, mb = mujoco.MjModel.from_xml_path(str(src)), mujoco.MjModel.from_xml_path(out)
    bodies = _names(ma, mujoco.mjtObj.mjOBJ_BODY, ma.nbody)
    assert _names(mb, mujoco.mjtObj.mjOBJ_BODY, mb.nbody) == bodies     # no bodies added
    joints = _names(ma, mujoco.mjtObj.mjOBJ_JOINT, ma.njnt)
    assert _names(mb, mujoco.mjtObj.mjOBJ_JOINT, mb.njnt) == joints
    for k in range(1, ma.nbody):                                         # masses, inertias
        assert mb.body_mass[k] == pytest.approx(ma.body_mass[k], rel=1e-12), bodies[k]
        assert np.allclose(mb.body_inertia[k], ma.body_inertia[k], rtol=1e-12, atol=0), bodies[k]
        assert np.allclose(mb.body_ipos[k], ma.body_ipos[k], atol=1e-12), bodies[k]
    for k in range(ma.njnt):                                             # one body per joint as in the source
        assert mb.jnt_bodyid[k] == ma.jnt_bodyid[k], joints[k]
    da, db = mujoco.MjData(ma), mujoco.MjData(mb)
    rng = np.random.default_rng(3)
    for _ in range(6):
        qpos = rng.uniform(-1, 1, ma.nq)
        qpos[3:7] /= np.linalg.norm(qpos[3:7])
        da.qpos[:] = qpos
        db.qpos[:] = qpos              # joints in the same order: the same qpos layout
        mujoco.mj_kinematics(ma, da)
        mujoco.mj_kinematics(mb, db)
        assert np.allclose(db.xpos, da.xpos, rtol=0, atol=1e-12)
        assert np.allclose(db.xmat, da.xmat, rtol=0, atol=1e-12)
        assert np.allclose(db.xanchor, da.xanchor, rtol=0, atol=1e-12)


# dm_control's stacker and manipulator boxes: slides with refs (the body's own position),
# then a hinge; here also a slide along a tilted unit axis after another slide, and a
# hinge with an anchor before a slide with a ref
BOXES = """
<mujoco model="boxes">
  <worldbody>
    <body name="box0" pos=".5 0 .4">
      <joint name="box0_x" type="slide" axis="1 0 0" ref=".5"/>
      <joint name="box0_z" type="slide" axis="0 0 1" ref=".4"/>
      <joint name="box0_y" type="hinge" axis="0 1 0"/>
      <geom type="box" size=".022 .022 .022" mass="0.08"/>
    </body>
    <body name="box1" pos="-.3 .1 .25">
      <joint name="box1_x" type="slide" axis="1 0 0" ref="-.3"/>
      <joint name="box1_d" type="slide" axis="0.6 0 0.8" ref=".25"/>
      <joint name="box1_h" pos=".01 0 .02" axis="0 0 1"/>
      <joint name="box1_s" type="slide" axis="0 1 0" ref=".1"/>
      <geom type="box" size=".03 .02 .01" mass="0.05"/>
    </body>
  </worldbody>
</mujoco>"""


def test_slides_with_refs_fold_into_their_body(tmp_path):
    """No massless link body with MuJoCo's minimum mass for the slides: each box is one body
    with its joints, its bodies move as MuJoCo's own model does at the same qpos, and the
    rewrite is byte-identical."""
    src = tmp_path / "boxes.xml"
    src.write_text(BOXES)
    out = str(tmp_path / "out.xml")
    rewrite_is_fixed_point(roboio.load(str(src)), out, "mjcf")

    ma, mb = mujoco.MjModel.from_xml_path(str(src)), mujoco.MjModel.from_xml_path(out)
    bodies = _names(ma, mujoco.mjtObj.mjOBJ_BODY, ma.nbody)
    assert _names(mb, mujoco.mjtObj.mjOBJ_BODY, mb.nbody) == bodies
    assert np.allclose(mb.body_mass, ma.body_mass, rtol=1e-12, atol=0)
    joints = _names(ma, mujoco.mjtObj.mjOBJ_JOINT, ma.njnt)
    assert _names(mb, mujoco.mjtObj.mjOBJ_JOINT, mb.njnt) == joints
    da, db = mujoco.MjData(ma), mujoco.MjData(mb)
    rng = np.random.default_rng(5)
    for _ in range(6):
        da.qpos[:] = db.qpos[:] = rng.uniform(-1, 1, ma.nq)
        mujoco.mj_kinematics(ma, da)
        mujoco.mj_kinematics(mb, db)
        assert np.allclose(db.xpos, da.xpos, rtol=0, atol=1e-12)
        assert np.allclose(db.xmat, da.xmat, rtol=0, atol=1e-12)
