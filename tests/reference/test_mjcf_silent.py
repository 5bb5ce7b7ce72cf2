"""Nothing of an MJCF file is dropped silently: actuator attributes the writer can give back
(every gear component, nsample, interp, delay, user) are kept and compile in MuJoCo to the
source's actuator arrays; what roboio's model does not hold (joint armature and springs,
geom contact parameters, body gravcomp, an asymmetric actuatorfrcrange, tendons, sensors,
an actuator's unread attributes, an actuator on a body when there is no robot) is named in
a warning, element and attribute."""
import warnings

import numpy as np
import pytest

import roboio
from tests.conftest import rewrite_is_fixed_point

mujoco = pytest.importorskip("mujoco")

ARM = """<mujoco model="silent">
  <default><joint armature="0.1"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1" friction="0.5"/>
    <body name="b" gravcomp="1"><joint name="j" axis="0 0 1" stiffness="3" actuatorfrcrange="-1 2"/>
      <geom size="0.1" mass="1" condim="1" friction="0.8"/><site name="s"/>
      <body name="c" pos="0.3 0 0"><site name="s2"/><joint name="k" axis="0 1 0"/><geom size="0.1" mass="1"/></body>
    </body>
  </worldbody>
  <tendon><fixed name="t"><joint joint="j" coef="1"/></fixed>
    <spatial name="sp"><site site="s"/><site site="s2"/></spatial></tendon>
  <actuator>
    <general name="g" joint="j" gear="2 0 0 1 0 0" dyntype="filter" dynprm="0.1" actdim="1"
             nsample="3" interp="linear" delay="0.01" user="4 5"/>
    <motor name="m" site="s" gear="0 0 0 1 0 0"/>
    <motor name="d" joint="k" gear="5" refsite="s"/>
    <dcmotor name="dc" joint="k" motorconst="0.1" resistance="2"/>
  </actuator>
  <sensor><jointpos joint="j"/></sensor>
</mujoco>"""


def _load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(path)


def test_unread_attributes_are_warned_by_element_and_attribute(tmp_path):
    src = tmp_path / "silent.xml"
    src.write_text(ARM.replace(' refsite="s"', ""))
    said = "\n".join(_load(str(src)).warnings)
    for item in ("<joint armature> not read (2 joints: j, k)", "<joint stiffness>", "<geom friction> not read (1 geom)",
                 "<geom condim>", "<body gravcomp> not read (1 body: b)", 'actuatorfrcrange "-1 2" not read',
                 "<sensor> not read (1 elements: jointpos)",
                 "<tendon> not read (1 elements: spatial)",
                 "actuator 'dc' (<dcmotor>): motorconst, resistance not read"):
        assert item in said, item
    # what is kept is not warned about: the floor's friction is its kFriction
    assert "actuator 'g'" not in said and "nsample not read" not in said
    # a joint actuator with a site transmission's attribute: named (MuJoCo refuses it anyway)
    src.write_text(ARM)
    assert "actuator 'd': refsite not read" in "\n".join(_load(str(src)).warnings)


def test_kept_actuator_attributes_compile_as_the_source(tmp_path):
    src = tmp_path / "kept.xml"
    src.write_text(ARM.replace(' refsite="s"', "").replace('    <dcmotor name="dc" joint="k" motorconst="0.1" resistance="2"/>\n', ""))
    world = _load(str(src))
    robot = world.robots[0]
    info = robot.driver("j").extras["mjcf"]["actuators"][0]
    assert info["gear_full"] == [2.0, 0.0, 0.0, 1.0, 0.0, 0.0] and info["nsample"] == 3.0
    site = robot.extras["mjcf"]["actuators"][0]
    assert site["site"] == "s" and site["gear_full"] == [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    assert world.terrains[0].kFriction == 0.5
    out = str(tmp_path / "out.xml")
    rewrite_is_fixed_point(world, out, "mjcf")
    ma, mb = mujoco.MjModel.from_xml_path(str(src)), mujoco.MjModel.from_xml_path(out)
    assert np.array_equal(ma.geom("floor").friction, mb.geom("floor").friction)
    for name in ("g", "d"):
        a, b = ma.actuator(name).id, mb.actuator(name).id
        for array in ("actuator_gear", "actuator_history", "actuator_delay", "actuator_user",
                      "actuator_dynprm", "actuator_dyntype", "actuator_actnum"):
            assert np.allclose(getattr(ma, array)[a], getattr(mb, array)[b], rtol=0, atol=1e-15), (name, array)


def test_body_actuator_without_a_robot_is_reported_dropped(tmp_path):
    src = tmp_path / "box.xml"
    src.write_text("""<mujoco><worldbody><body name="box"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
      </worldbody><actuator><adhesion name="stick" body="box" gain="3" ctrlrange="0 1"/></actuator></mujoco>""")
    mujoco.MjModel.from_xml_path(str(src))          # a valid model
    said = [w for w in _load(str(src)).warnings if "'stick'" in w]
    assert len(said) == 1 and "not read (the model holds no robot" in said[0]
    assert "kept as data" not in said[0]


def test_contact_pair_parameters_are_warned(tmp_path):
    src = tmp_path / "pair.xml"
    src.write_text("""<mujoco><worldbody><body name="a"><joint/><geom name="g1" size=".1"/>
      <body name="b" pos=".3 0 0"><joint/><geom name="g2" size=".1"/></body></body></worldbody>
      <contact><pair geom1="g1" geom2="g2" condim="1"/><exclude body1="a" body2="b"/></contact></mujoco>""")
    mujoco.MjModel.from_xml_path(str(src))
    said = [w for w in _load(str(src)).warnings if "<contact>" in w]
    assert len(said) == 1 and "<contact><pair> condim not read" in said[0]
