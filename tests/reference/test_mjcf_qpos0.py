"""MuJoCo's reset pose kept: a model read from MJCF is written with its joints' ``ref``
(hinges in rotated bodies, a hinge at an anchor, a lone slide, slides and a hinge of one
body as dm_control's boxes have them), so that the written model's ``qpos0`` is the
source's while every body is where MuJoCo puts the source's for the same qpos; its
``<option>`` integrator and timestep are written back; MuJoCo then simulates the same
motion from ``mj_resetData``; write -> read -> write stays a fixed point."""
import warnings

import numpy as np
import pytest

import roboio
from tests.conftest import rewrite_is_fixed_point

mujoco = pytest.importorskip("mujoco")

MODEL = """<mujoco model="refs">
  <option integrator="RK4" timestep="0.004"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="upper" pos="0 0 1" euler="10 20 30">
      <joint name="shoulder" axis="0 1 0" ref="30" range="-90 120" damping="0.5"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="fore" pos="0.3 0 0" quat="0.9 0.1 0.3 -0.2">
        <joint name="elbow" axis="0.2 1 0.1" ref="-45" pos="0.02 0 0.01" range="-100 100"/>
        <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03"/>
        <body name="slider" pos="0.25 0 0">
          <joint name="extend" type="slide" axis="1 0 0" ref="0.07" range="0 0.2"/>
          <geom type="box" size="0.03 0.02 0.02"/>
        </body>
      </body>
    </body>
    <body name="box" pos="0 0.5 0">
      <joint name="box_x" type="slide" axis="1 0 0" ref="0.4"/>
      <joint name="box_z" type="slide" axis="0 0 1" ref="0.1"/>
      <joint name="box_y" type="hinge" axis="0 1 0" ref="17"/>
      <geom type="box" size="0.05 0.05 0.05"/>
    </body>
  </worldbody>
  <actuator><position joint="shoulder" kp="20"/><motor joint="elbow" gear="3"/></actuator>
</mujoco>"""


def _load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(path)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("qpos0")
    src = tmp / "refs.xml"
    src.write_text(MODEL)
    out = str(tmp / "out.xml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rewrite_is_fixed_point(_load(str(src)), out, "mjcf")
    return mujoco.MjModel.from_xml_path(str(src)), mujoco.MjModel.from_xml_path(out), out


def test_qpos0_is_the_sources(models):
    src, out, _ = models
    assert out.nq == src.nq
    assert np.allclose(out.qpos0, src.qpos0, rtol=0, atol=1e-12)
    assert np.abs(src.qpos0).min() > 0.05                 # every joint has a ref


def test_bodies_where_mujoco_puts_the_sources(models):
    src, out, _ = models
    ds, do = mujoco.MjData(src), mujoco.MjData(out)
    rng = np.random.default_rng(7)
    for qpos in [src.qpos0] + [src.qpos0 + rng.uniform(-0.5, 0.5, src.nq) for _ in range(5)]:
        ds.qpos[:] = do.qpos[:] = qpos
        mujoco.mj_kinematics(src, ds)
        mujoco.mj_kinematics(out, do)
        for b in range(1, src.nbody):
            k = out.body(src.body(b).name).id
            assert np.allclose(do.xpos[k], ds.xpos[b], rtol=0, atol=1e-9), src.body(b).name
            assert np.allclose(do.xmat[k], ds.xmat[b], rtol=0, atol=1e-9), src.body(b).name


def test_option_kept_and_the_same_motion(models):
    src, out, path = models
    assert out.opt.integrator == src.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
    assert out.opt.timestep == src.opt.timestep == 0.004
    assert 'ref="0.5235987755982988"' in open(path).read()      # shoulder: 30 degrees
    ds, do = mujoco.MjData(src), mujoco.MjData(out)
    mujoco.mj_resetData(src, ds)
    mujoco.mj_resetData(out, do)
    ds.ctrl[:] = do.ctrl[:] = [0.9, 0.4]
    for _ in range(200):
        mujoco.mj_step(src, ds)
        mujoco.mj_step(out, do)
    assert np.allclose(do.qpos, ds.qpos, rtol=0, atol=1e-9)
    assert np.allclose(do.qvel, ds.qvel, rtol=0, atol=1e-8)


def test_a_coupled_joints_ref_is_reported(tmp_path):
    src = tmp_path / "coupled.xml"
    src.write_text("""<mujoco><compiler angle="radian"/><worldbody>
        <body name="a"><joint name="ja" ref="0.2"/><geom size="0.1"/>
        <body name="b" pos="1 0 0"><joint name="jb" ref="-0.1"/><geom size="0.1"/></body></body></worldbody>
      <equality><joint joint1="jb" joint2="ja" polycoef="0 2 0 0 0"/></equality></mujoco>""")
    report = roboio.save(_load(str(src)), str(tmp_path / "out.xml"), format="mjcf")
    said = [x for x in report.lost if x.startswith("joint refs built into body frames")]
    assert len(said) == 1 and "ja (0.2)" in said[0] and "jb (-0.1)" in said[0]
