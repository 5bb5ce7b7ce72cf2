"""Fixed tendons of a model read from MJCF are written back with their joints' written names,
and the actuators on them with them: MuJoCo compiles the same tendon and actuator arrays
(limits resolved under the source's autolimits, a class's spatial-only defaults left out),
and write -> read -> write is a fixed point."""
import warnings

import numpy as np
import pytest

import roboio
from tests.conftest import rewrite_is_fixed_point

mujoco = pytest.importorskip("mujoco")

MODEL = """<mujoco model="tendons">
  <default><tendon rgba="1 0 0 1" width="0.01" stiffness="2"/></default>
  <worldbody>
    <body name="a"><joint name="ja" axis="0 1 0" range="-60 60"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body name="b" pos="0.3 0 0"><joint name="jb" axis="0 1 0" ref="10"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="c" pos="0.3 0 0"><joint name="jc" type="slide" axis="1 0 0" range="0 0.1"/><geom size="0.04"/></body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="coupling" range="-0.5 0.5" springlength="0.1" damping="0.3">
      <joint joint="ja" coef="1"/><joint joint="jb" coef="-0.5"/>
    </fixed>
    <fixed name="reach" limited="false" frictionloss="0.2"><joint joint="jc" coef="2"/></fixed>
  </tendon>
  <actuator>
    <motor name="pull" tendon="coupling" gear="3" ctrlrange="-1 1"/>
    <position name="hold" joint="ja" kp="10"/>
    <position name="extend" tendon="reach" kp="50" ctrlrange="0 0.2"/>
  </actuator>
</mujoco>"""

TENDON = ("tendon_num", "tendon_limited", "tendon_range", "tendon_stiffness", "tendon_damping",
          "tendon_frictionloss", "tendon_lengthspring", "tendon_length0", "tendon_invweight0",
          "tendon_solref_lim", "tendon_margin")
ACTUATOR = ("actuator_trntype", "actuator_gear", "actuator_gainprm", "actuator_biasprm",
            "actuator_ctrlrange", "actuator_ctrllimited", "actuator_forcelimited", "actuator_length0",
            "actuator_acc0", "actuator_lengthrange")


def test_fixed_tendons_and_their_actuators_compile_as_the_source(tmp_path):
    src = tmp_path / "tendons.xml"
    src.write_text(MODEL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = roboio.load(str(src))
    assert not any("<tendon>" in w for w in robot.warnings)
    assert [t["name"] for t in robot.extras["mjcf"]["tendons"]] == ["coupling", "reach"]
    out = str(tmp_path / "out.xml")
    rewrite_is_fixed_point(robot, out, "mjcf")
    ma, mb = mujoco.MjModel.from_xml_path(str(src)), mujoco.MjModel.from_xml_path(out)
    assert mb.ntendon == ma.ntendon == 2 and mb.nu == ma.nu == 3
    for t in range(ma.ntendon):
        k = mb.tendon(ma.tendon(t).name).id
        for array in TENDON:
            assert np.allclose(getattr(mb, array)[k], getattr(ma, array)[t], rtol=1e-12, atol=1e-12), array
        adr_a, adr_b = ma.tendon_adr[t], mb.tendon_adr[k]
        for w in range(ma.tendon_num[t]):
            assert mb.joint(mb.wrap_objid[adr_b + w]).name == ma.joint(ma.wrap_objid[adr_a + w]).name
            assert mb.wrap_prm[adr_b + w] == ma.wrap_prm[adr_a + w]
    for u in range(ma.nu):                                   # in the source's order
        assert mb.actuator(u).name == ma.actuator(u).name
        for array in ACTUATOR:
            assert np.allclose(getattr(mb, array)[u], getattr(ma, array)[u], rtol=1e-12, atol=1e-12), array
    assert ma.actuator_trnid[0][0] == ma.tendon("coupling").id and mb.actuator_trnid[0][0] == mb.tendon("coupling").id
    ds, do = mujoco.MjData(ma), mujoco.MjData(mb)
    ds.ctrl[:] = do.ctrl[:] = [0.7, 0.2, 0.1]
    for _ in range(100):
        mujoco.mj_step(ma, ds)
        mujoco.mj_step(mb, do)
    assert np.allclose(do.qpos, ds.qpos, rtol=0, atol=1e-9)


def test_tendon_actuators_rebuilt_mode_are_reported(tmp_path):
    src = tmp_path / "tendons.xml"
    src.write_text(MODEL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = roboio.load(str(src))
    report = roboio.save(robot, str(tmp_path / "out.xml"), format="mjcf", actuators="position")
    said = [x for x in report.lost if x.startswith("actuators that drive no hinge or slide joint")]
    assert len(said) == 1 and "pull (motor on tendon 'coupling')" in said[0] and "extend" in said[0]
    m = mujoco.MjModel.from_xml_path(str(tmp_path / "out.xml"))
    assert m.ntendon == 2 and not any(m.actuator_trntype == mujoco.mjtTrn.mjTRN_TENDON)
