"""OpenRAVE XML reading against hand-worked expectations (``openrave.md``).

Every expected pose here is composed by hand in the test (elementary rotations from
conftest, rotations about an axis through a point written out), never by roboio's FK."""
import math
import os

import numpy as np
import pytest

import roboio
from conftest import Rx, Ry, Rz
from roboio.errors import FormatError, RoboioWarning

D = math.pi / 180


def T(R=None, p=(0, 0, 0)):
    M = np.eye(4)
    if R is not None:
        M[:3, :3] = R
    M[:3, 3] = p
    return M


def about(axis_R, point, M=None):
    """Rotation ``axis_R`` (3x3) about an axis through ``point`` as a 4x4."""
    p = np.asarray(point, float)
    return T(axis_R, p - axis_R @ p)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def load(tmp_path, text, name="r.robot.xml", **kw):
    return roboio.load(write(tmp_path, name, text), **kw)


def pose(robot, name, q=None):
    return robot.fk(q)[robot.link_index(name)]


def at_dofs(robot, dofs):
    return robot.config_from_drivers(dofs)


# -- the spec's worked example 19.1: the seed's 3-DOF planar arm ------------------------

SEED_ARM = """<Robot name="3DOFRobot">
  <KinBody>
    <Body name="Base" type="dynamic">
      <Translation>0.0 0.0 0.0</Translation>
      <Geom type="cylinder"><rotationaxis>1 0 0 90</rotationaxis>
        <radius>0.03</radius><height>0.02</height></Geom>
    </Body>
    <Body name="Arm0" type="dynamic">
      <offsetfrom>Base</offsetfrom>
      <Translation>0 0.005 0</Translation>
      <Geom type="box"><Translation>0.1 0 0</Translation><Extents>0.1 0.01 0.01</Extents></Geom>
    </Body>
    <Joint circular="true" name="Arm0" type="hinge">
      <Body>Base</Body><Body>Arm0</Body><offsetfrom>Arm0</offsetfrom>
      <weight>4</weight><limitsdeg>-180 180</limitsdeg><axis>0 1 0</axis>
      <maxvel>3</maxvel><resolution>1</resolution>
    </Joint>
    <Body name="Arm1" type="dynamic">
      <offsetfrom>Arm0</offsetfrom><Translation>0.14 0.01 0</Translation>
      <Geom type="box"><Translation>0.1 0 0</Translation><Extents>0.1 0.01 0.01</Extents></Geom>
    </Body>
    <Joint circular="true" name="Arm1" type="hinge">
      <Body>Arm0</Body><Body>Arm1</Body><offsetfrom>Arm1</offsetfrom>
      <weight>3</weight><limitsdeg>-180 180</limitsdeg><axis>0 1 0</axis><maxvel>4</maxvel>
    </Joint>
    <Body name="Arm2" type="dynamic">
      <offsetfrom>Arm1</offsetfrom><Translation>0.14 0.01 0</Translation>
      <Geom type="box"><Translation>0.05 0 0</Translation><Extents>0.05 0.01 0.01</Extents></Geom>
    </Body>
    <Joint circular="true" name="Arm2" type="hinge">
      <Body>Arm1</Body><Body>Arm2</Body><offsetfrom>Arm2</offsetfrom>
      <limitsdeg>-180 180</limitsdeg><axis>0 1 0</axis><maxvel>2</maxvel>
    </Joint>
    <Body name="RClaw" type="dynamic">
      <offsetfrom>Arm2</offsetfrom><Translation>0.08 0.005 0</Translation>
      <RotationMat>0 1 0 0 0 -1 -1 0 0</RotationMat>
      <Geom type="box"><Extents>0.01 0.01 0.02</Extents></Geom>
    </Body>
    <Joint name="j1" type="hinge">
      <Body>Arm2</Body><Body>RClaw</Body><offsetfrom>RClaw</offsetfrom>
      <limitsdeg>-16 30</limitsdeg><axis>0 0 1</axis>
    </Joint>
    <Body name="LClaw" type="dynamic">
      <offsetfrom>Arm2</offsetfrom><Translation>0.08 0.005 0</Translation>
      <RotationMat>0 1 0 0 0 -1 -1 0 0</RotationMat>
      <Geom type="box"><Extents>0.01 0.01 0.02</Extents></Geom>
    </Body>
    <Joint name="j2" type="hinge">
      <Body>Arm2</Body><Body>LClaw</Body><offsetfrom>LClaw</offsetfrom>
      <limitsdeg>-16 30</limitsdeg><axis>0 0 -1</axis>
    </Joint>
  </KinBody>
  <Manipulator name="arm">
    <effector>Arm2</effector><base>Base</base><joints>j1 j2</joints>
    <closingdirection>1 1</closingdirection><direction>1 0 0</direction>
    <Translation>0.125 0 0</Translation><RotationAxis>1 0 0 90</RotationAxis>
  </Manipulator>
</Robot>
"""
CLAW_R = np.array([[0, 1, 0], [0, 0, -1], [-1, 0, 0]], float)


def test_seed_arm_structure(tmp_path):
    r = load(tmp_path, SEED_ARM)
    assert r.link_names == ["Base", "Arm0", "Arm1", "Arm2", "RClaw", "LClaw"]
    assert [d.name for d in r.drivers] == ["Arm0", "Arm1", "Arm2", "j1", "j2"]
    assert [l.parent for l in r.links] == [-1, 0, 1, 2, 3, 3]
    assert [j.type for j in r.joints] == ["weld", "spin", "spin", "spin", "normal", "normal"]
    assert r.qmin[4] == pytest.approx(-16 * D) and r.qmax[4] == pytest.approx(30 * D)
    # axes in the world at q = 0: +Y for the arm, -Y for j1 (z of RClaw), +Y for j2
    T0 = r.fk(np.zeros(6))
    world_axis = [T0[i][:3, :3] @ r.links[i].axis for i in range(1, 6)]
    for got, want in zip(world_axis, [(0, 1, 0)] * 3 + [(0, -1, 0), (0, 1, 0)]):
        np.testing.assert_allclose(got, want, atol=1e-15)


def test_seed_arm_poses(tmp_path):
    r = load(tmp_path, SEED_ARM)
    expect0 = {"Base": (0, 0, 0), "Arm0": (0, 0.005, 0), "Arm1": (0.14, 0.015, 0),
               "Arm2": (0.28, 0.025, 0), "RClaw": (0.36, 0.030, 0), "LClaw": (0.36, 0.030, 0)}
    for name, p in expect0.items():
        np.testing.assert_allclose(pose(r, name)[:3, 3], p, atol=1e-15)
    np.testing.assert_allclose(pose(r, "RClaw")[:3, :3], CLAW_R, atol=1e-15)
    # q = (90 deg, 0, 0, 0, 0): the spec's values
    q = at_dofs(r, [90 * D, 0, 0, 0, 0])
    for name, p in {"Arm1": (0, 0.015, -0.14), "Arm2": (0, 0.025, -0.28),
                    "RClaw": (0, 0.03, -0.36)}.items():
        np.testing.assert_allclose(pose(r, name, q)[:3, 3], p, atol=1e-12)
    m = r.manipulators[0]
    tool = r.fk(q)[m.effector] @ m.tool_transform
    np.testing.assert_allclose(tool[:3, 3], (0, 0.025, -0.405), atol=1e-12)
    np.testing.assert_allclose(tool[:3, :3], CLAW_R, atol=1e-12)
    # q = (30, -45, 60, 10, 0) degrees: the spec's numbers, and a hand composition
    q = at_dofs(r, np.array([30, -45, 60, 10, 0]) * D)
    spec = {"Arm1": (0.121244, 0.015, -0.070000), "Arm2": (0.256473, 0.025, -0.033765),
            "RClaw": (0.313042, 0.03, -0.090334)}
    for name, p in spec.items():
        np.testing.assert_allclose(pose(r, name, q)[:3, 3], p, atol=1e-6)
    A0 = about(Ry(30 * D), (0, 0.005, 0))
    A1 = A0 @ about(Ry(-45 * D), (0.14, 0.015, 0))
    A2 = A1 @ about(Ry(60 * D), (0.28, 0.025, 0))
    RC = A2 @ T(CLAW_R, (0.36, 0.03, 0)) @ T(Rz(10 * D))     # about the claw's own z
    np.testing.assert_allclose(pose(r, "Arm2", q), A2 @ T(None, (0.28, 0.025, 0)), atol=1e-12)
    np.testing.assert_allclose(pose(r, "RClaw", q), RC, atol=1e-12)
    np.testing.assert_allclose(RC[:3, :3], [[-0.573576, 0.819152, 0], [0, 0, -1],
                                            [-0.819152, -0.573576, 0]], atol=1e-6)
    tool = r.fk(q)[m.effector] @ m.tool_transform
    np.testing.assert_allclose(tool[:3, 3], (0.344862, 0.025, -0.122154), atol=1e-6)


def test_manipulator_fields(tmp_path):
    r = load(tmp_path, SEED_ARM)
    m = r.manipulators[0]
    assert (m.name, r.links[m.base].name, r.links[m.effector].name) == ("arm", "Base", "Arm2")
    assert [r.links[i].name for i in m.arm_links] == ["Arm0", "Arm1", "Arm2"]
    assert [r.links[i].name for i in m.gripper_links] == ["RClaw", "LClaw"]
    assert m.closing_direction == [1.0, 1.0]
    np.testing.assert_allclose(m.direction, (1, 0, 0))
    np.testing.assert_allclose(m.tool_transform, T(Rx(90 * D), (0.125, 0, 0)), atol=1e-15)


# -- transform tags ------------------------------------------------------------------

def body_file(tags: str, geom_tags: str = "", kb_tags: str = "") -> str:
    return f"""<KinBody name="k">{kb_tags}
  <Body name="a">{tags}<Geom type="box">{geom_tags}<extents>1 2 3</extents></Geom></Body>
</KinBody>"""


@pytest.mark.parametrize("tags, want", [
    ("<translation>1 2 3</translation>", T(None, (1, 2, 3))),
    ("<Translation>1 0 0</Translation><TRANSLATION>0 2 0</TRANSLATION>", T(None, (1, 2, 0))),
    # a rotation never rotates the translation, whatever the order
    ("<rotationaxis>1 0 0 90</rotationaxis><translation>0 1 0</translation>", T(Rx(90 * D), (0, 1, 0))),
    ("<translation>0 1 0</translation><rotationaxis>1 0 0 90</rotationaxis>", T(Rx(90 * D), (0, 1, 0))),
    # later rotations pre-multiply: about the fixed axes
    ("<rotationaxis>1 0 0 90</rotationaxis><rotationaxis>0 0 1 90</rotationaxis>",
     T(Rz(90 * D) @ Rx(90 * D))),
    ("<rotationaxis>0 0 2 30</rotationaxis>", T(Rz(30 * D))),        # axis normalised
    ("<rotationmat>0 -1 0 1 0 0 0 0 1</rotationmat>", T(Rz(90 * D))),  # row by row
    ("<quat>0.7071067811865476 0 0 0.7071067811865476</quat>", T(Rz(90 * D))),   # w x y z
    ("<quat>2 0 0 2</quat>", T(Rz(90 * D))),                           # normalised
    ("<rotationaxis>0 0 1 90</rotationaxis><quat>0.7071067811865476 0.7071067811865476 0 0</quat>",
     T(Rx(90 * D) @ Rz(90 * D))),
])
def test_body_transform_tags(tmp_path, tags, want):
    r = load(tmp_path, body_file(tags), "k.kinbody.xml")
    np.testing.assert_allclose(pose(r, "a"), want, atol=1e-15)


def test_geometry_and_kinbody_transforms(tmp_path):
    text = body_file("<translation>1 0 0</translation>",
                     "<rotationaxis>0 1 0 90</rotationaxis><translation>0 0 2</translation>",
                     "<rotationaxis>0 0 1 90</rotationaxis><translation>0 5 0</translation>")
    r = load(tmp_path, text, "k.kinbody.xml")
    # the KinBody's transform moves the links created inside it at its end
    np.testing.assert_allclose(pose(r, "a"), T(Rz(90 * D), (0, 5, 0)) @ T(None, (1, 0, 0)), atol=1e-15)
    g = r.links[0].geometry
    np.testing.assert_allclose(g.transform, T(Ry(90 * D), (0, 0, 2)), atol=1e-15)
    np.testing.assert_allclose(g.params["dims"], (2, 4, 6))       # extents are half sizes


def test_offsetfrom_chain(tmp_path):
    text = """<KinBody name="k">
  <Body name="A"><translation>1 0 0</translation><rotationaxis>0 0 1 90</rotationaxis></Body>
  <Body name="B"><offsetfrom>A</offsetfrom><translation>0 2 0</translation>
    <rotationaxis>1 0 0 90</rotationaxis></Body>
  <Body name="C"><rotationaxis>0 1 0 -90</rotationaxis><translation>0 0 3</translation>
    <offsetfrom>B</offsetfrom></Body>
</KinBody>"""
    r = load(tmp_path, text, "k.kinbody.xml")
    TA = T(Rz(90 * D), (1, 0, 0))
    TB = TA @ T(Rx(90 * D), (0, 2, 0))
    TC = TB @ T(Ry(-90 * D), (0, 0, 3))
    for name, want in (("A", TA), ("B", TB), ("C", TC)):
        np.testing.assert_allclose(pose(r, name), want, atol=1e-15)


# -- joint types ------------------------------------------------------------------------

def two_links(joint: str, child_pose: str = "<translation>1 0 0</translation>") -> str:
    return f"""<KinBody name="k">
  <Body name="p"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
  <Body name="c">{child_pose}<Geom type="sphere"><radius>0.1</radius></Geom></Body>
  {joint}
</KinBody>"""


def test_hinge_anchor_off_the_child_origin(tmp_path):
    # the axis passes through (0, 0, 1), not through c's origin (1, 0, 0)
    r = load(tmp_path, two_links("""<Joint name="j" type="hinge"><Body>p</Body><Body>c</Body>
        <anchor>0 0 1</anchor><axis>0 1 0</axis><limitsdeg>-90 90</limitsdeg></Joint>"""),
             "k.kinbody.xml")
    assert r.link_names == ["p", "j.axis0", "c"]          # an intermediate link at the anchor
    q = at_dofs(r, [0.7])
    want = about(Ry(0.7), (0, 0, 1)) @ T(None, (1, 0, 0))
    np.testing.assert_allclose(pose(r, "c", q), want, atol=1e-12)
    assert r.qmax[1] == pytest.approx(math.pi / 2)


def test_slider_initial_and_limits(tmp_path):
    r = load(tmp_path, two_links("""<Joint name="s" type="slider"><Body>p</Body><Body>c</Body>
        <axis>0 0 2</axis><limits>0.5 -0.25</limits><initial>0.1</initial></Joint>"""),
             "k.kinbody.xml")
    # limits sorted; the declared pose corresponds to q = 0.1 (the initial value)
    assert (r.qmin[1], r.qmax[1]) == (-0.25, 0.5)
    assert r.config[1] == pytest.approx(0.1)
    np.testing.assert_allclose(pose(r, "c"), T(None, (1, 0, 0)), atol=1e-15)
    np.testing.assert_allclose(pose(r, "c", at_dofs(r, [0.3]))[:3, 3], (1, 0, 0.2), atol=1e-15)


def test_universal_and_hinge2(tmp_path):
    for jt in ("universal", "hinge2"):
        r = load(tmp_path, two_links(f"""<Joint name="u" type="{jt}"><Body>p</Body><Body>c</Body>
            <anchor>1 0 0</anchor><axis1>0 0 1</axis1><axis2>0 1 0</axis2></Joint>""",
                                     "<translation>1 0 0</translation>"), f"{jt}.kinbody.xml")
        assert [d.name for d in r.drivers] == ["u", "u_1"]
        q = at_dofs(r, [0.4, -0.9])
        want = T(None, (1, 0, 0)) @ T(Rz(0.4) @ Ry(-0.9))       # second axis carried by the first
        np.testing.assert_allclose(pose(r, "c", q), want, atol=1e-12)


def test_spherical(tmp_path):
    r = load(tmp_path, two_links("""<Joint name="b" type="spherical"><Body>p</Body><Body>c</Body>
        <anchor>1 0 0</anchor></Joint>""", "<translation>2 0 0</translation>"), "s.kinbody.xml")
    assert len(r.drivers) == 3
    for k, R in enumerate((Rx, Ry, Rz)):       # one non-zero component: exact
        u = np.zeros(3)
        u[k] = 0.6
        want = about(R(0.6), (1, 0, 0)) @ T(None, (2, 0, 0))
        np.testing.assert_allclose(pose(r, "c", at_dofs(r, u)), want, atol=1e-12)


def test_circular_passive_static_and_dummy(tmp_path):
    text = """<KinBody name="k">
  <Body name="a"/><Body name="b"><translation>1 0 0</translation></Body>
  <Body name="c"><translation>2 0 0</translation></Body>
  <Body name="d"><translation>3 0 0</translation></Body>
  <Body name="e"><translation>4 0 0</translation></Body>
  <Joint name="spin" type="hinge" circular="yes"><Body>a</Body><Body>b</Body><axis>1 0 0</axis>
    <anchor>1 0 0</anchor></Joint>
  <Joint name="passive" type="hinge" enable="0"><Body>b</Body><Body>c</Body><axis>0 0 1</axis>
    <anchor>2 0 0</anchor></Joint>
  <Joint name="static" type="hinge"><Body>c</Body><Body>d</Body><axis>0 0 1</axis>
    <limits>0 0</limits><anchor>3 0 0</anchor></Joint>
  <Joint name="dummy" type="hinge" enable="false"><Body>d</Body><Body>e</Body>
    <limitsdeg>0 0</limitsdeg></Joint>
</KinBody>"""
    r = load(tmp_path, text, "k.kinbody.xml")
    types = {r.links[j.links[0]].name: j.type for j in r.joints}
    assert types == {"a": "weld", "b": "spin", "c": "weld", "d": "weld", "e": "weld"}
    assert np.isinf(r.qmax[r.link_index("b")])
    # DOFs: the circular joint and the enabled static joint (which keeps a DOF slot)
    assert [d.name for d in r.drivers] == ["spin", "static"]
    static = r.drivers[1]
    assert static.type == "affine" and static.scale == [0.0]
    q = at_dofs(r, [0.5, 0.3])
    np.testing.assert_allclose(pose(r, "e", q)[:3, 3], (4, 0, 0), atol=1e-12)
    np.testing.assert_allclose(pose(r, "e", q)[:3, :3], Rx(0.5), atol=1e-12)


def test_limit_forms(tmp_path):
    def lims(tags, jt="hinge"):
        r = load(tmp_path, two_links(f"""<Joint name="j" type="{jt}"><Body>p</Body><Body>c</Body>
            <anchor>1 0 0</anchor><axis>0 0 1</axis>{tags}</Joint>"""), "k.kinbody.xml")
        return r.qmin[1], r.qmax[1]
    assert lims("") == (-math.pi, math.pi)
    assert lims("", "slider") == (-10, 10)
    assert lims("<limitsrad>-1 2</limitsrad>") == (-1, 2)
    assert lims("<limitsdeg>-90 45</limitsdeg>") == pytest.approx((-math.pi / 2, math.pi / 4))
    assert lims("<limitsdeg>-0.5 0.25</limitsdeg>", "slider") == (-0.5, 0.25)   # metres
    assert lims("<limits>1 2 3</limits>") == (-math.pi, math.pi)                 # wrong count


def test_lostop_histop_negate_the_axis(tmp_path):
    r = load(tmp_path, two_links("""<Joint name="j" type="hinge"><Body>p</Body><Body>c</Body>
        <anchor>1 0 0</anchor><axis>0 0 1</axis><lostop>-30</lostop><histop>60</histop></Joint>"""),
             "k.kinbody.xml")
    assert (r.qmin[1], r.qmax[1]) == pytest.approx((-30 * D, 60 * D))
    np.testing.assert_allclose(pose(r, "c", at_dofs(r, [0.5]))[:3, :3], Rz(-0.5), atol=1e-12)
    assert any("lostop" in w for w in r.warnings)


def test_dof_order_is_declaration_order(tmp_path):
    text = """<KinBody name="k">
  <Body name="a"/><Body name="b"><translation>1 0 0</translation></Body>
  <Body name="c"><translation>2 0 0</translation></Body>
  <Joint name="second" type="hinge"><Body>b</Body><Body>c</Body><axis>0 0 1</axis>
    <anchor>2 0 0</anchor></Joint>
  <Joint name="first" type="hinge"><Body>a</Body><Body>b</Body><axis>0 0 1</axis>
    <anchor>1 0 0</anchor></Joint>
</KinBody>"""
    r = load(tmp_path, text, "k.kinbody.xml")
    assert [d.name for d in r.drivers] == ["second", "first"]
    q = at_dofs(r, [0.2, 0.5])
    want = about(Rz(0.5), (1, 0, 0)) @ about(Rz(0.2), (2, 0, 0)) @ T(None, (2, 0, 0))
    np.testing.assert_allclose(pose(r, "c", q), want, atol=1e-12)
    np.testing.assert_allclose(r.drivers_from_config(q), [0.2, 0.5], atol=1e-15)


def test_joint_declared_child_first_is_flipped(tmp_path):
    # body0 is the deeper link: OpenRAVE swaps the links, the value keeps its meaning
    text = """<KinBody name="k">
  <Body name="a"/><Body name="b"><translation>1 0 0</translation></Body>
  <Body name="c"><translation>2 0 0</translation></Body>
  <Joint name="j0" type="hinge"><Body>a</Body><Body>b</Body><axis>0 0 1</axis>
    <anchor>1 0 0</anchor></Joint>
  <Joint name="j1" type="hinge"><Body>c</Body><Body>b</Body><axis>0 0 1</axis>
    <anchor>2 0 0</anchor></Joint>
</KinBody>"""
    r = load(tmp_path, text, "k.kinbody.xml")
    assert r.links[r.link_index("c")].parent == r.link_index("b")
    # positive j1 turns b positively about +z relative to c, i.e. c by -j1 relative to b
    want = about(Rz(-0.4), (2, 0, 0)) @ T(None, (2, 0, 0))
    np.testing.assert_allclose(pose(r, "c", at_dofs(r, [0.0, 0.4])), want, atol=1e-12)


# -- mimic joints -----------------------------------------------------------------------

MIMIC = """<KinBody name="k">
  <Body name="a"/><Body name="b"><translation>1 0 0</translation></Body>
  <Body name="c"><translation>2 0 0</translation></Body>
  <Joint name="J-1" type="hinge"><Body>a</Body><Body>b</Body><axis>0 0 1</axis>
    <anchor>1 0 0</anchor></Joint>
  <Joint name="m" type="hinge" enable="false" {attr}><Body>b</Body><Body>c</Body>
    <axis>0 0 1</axis><anchor>2 0 0</anchor><limitsdeg>-180 180</limitsdeg></Joint>
</KinBody>"""


def test_mimic_affine_driver(tmp_path):
    r = load(tmp_path, MIMIC.format(attr='mimic_pos="-2*J-1/4+0.25" mimic_vel="|J-1 -0.5"'),
             "k.kinbody.xml")
    (d,) = r.drivers
    assert d.type == "affine" and d.dofs == [1, 2]
    assert d.scale == pytest.approx([1, -0.5]) and d.offset == pytest.approx([0, 0.25])
    # with J-1 = 0 the mimic value (0.25) moves c at load
    assert r.config[2] == pytest.approx(0.25)
    q = at_dofs(r, [0.6])
    want = about(Rz(0.6), (1, 0, 0)) @ about(Rz(-0.05), (2, 0, 0)) @ T(None, (2, 0, 0))
    np.testing.assert_allclose(pose(r, "c", q), want, atol=1e-12)


def test_mimic_deprecated_attribute(tmp_path):
    with pytest.warns(RoboioWarning, match="deprecated"):
        r = load(tmp_path, MIMIC.format(attr='mimic="J-1 2 0.1"'), "k.kinbody.xml")
    assert r.drivers[0].scale == pytest.approx([1, 2]) and r.drivers[0].offset == pytest.approx([0, 0.1])


def test_mimic_not_affine_is_a_nonlinear_driver_evaluated_as_openrave(tmp_path):
    r = load(tmp_path, MIMIC.format(attr='mimic_pos="SASA(2, J-1 + 0.5, 3) + sin(J-1)"'),
             "k.kinbody.xml")
    (d,) = r.drivers
    assert d.type == "nonlinear" and d.dofs == [1, 2]
    assert r.links[2].extras["openrave"]["joint"]["mimic"][0]["pos"] == "SASA(2, J-1 + 0.5, 3) + sin(J-1)"
    for j in (0.0, 0.6, -1.0):
        # OpenRAVE's SASA(a, gamma, b) = atan2(a sin(gamma), b - a cos(gamma)), clamped to +-180 deg
        m = math.atan2(2 * math.sin(j + 0.5), 3 - 2 * math.cos(j + 0.5)) + math.sin(j)
        want = about(Rz(j), (1, 0, 0)) @ about(Rz(m), (2, 0, 0)) @ T(None, (2, 0, 0))
        np.testing.assert_allclose(pose(r, "c", at_dofs(r, [j])), want, atol=1e-12)
        assert r.drivers_from_config(at_dofs(r, [j]))[0] == pytest.approx(j, abs=1e-15)


def test_mimic_clamped_to_its_limits_as_openrave(tmp_path):
    r = load(tmp_path, MIMIC.format(attr='mimic_pos="J-1*J-1*10"').replace(
        "<limitsdeg>-180 180</limitsdeg>", "<limitsdeg>-90 90</limitsdeg>"), "k.kinbody.xml")
    q = at_dofs(r, [0.9])                         # 8.1 rad -> clamped to pi/2
    assert q[2] == pytest.approx(math.pi / 2, abs=1e-12)
    assert at_dofs(r, [0.3])[2] == pytest.approx(0.9, abs=1e-12)


@pytest.mark.parametrize("attr, match", [
    ('mimic_pos="J-1 +* 2"', "does not parse"),
    ('mimic_pos="nosuchjoint*2"', "unknown name"),
    ('mimic_pos="J-1" mimic_vel="|m 1"', "does not use"),
])
def test_mimic_errors(tmp_path, attr, match):
    with pytest.raises(FormatError, match=match) as e:
        load(tmp_path, MIMIC.format(attr=attr), "k.kinbody.xml")
    assert e.value.line == 6


def test_mimic_cycle(tmp_path):
    text = """<KinBody name="k"><Body name="a"/><Body name="b"/><Body name="c"/>
  <Joint name="x" type="hinge" mimic_pos="y"><Body>a</Body><Body>b</Body><axis>0 0 1</axis></Joint>
  <Joint name="y" type="hinge" mimic_pos="x"><Body>b</Body><Body>c</Body><axis>0 0 1</axis></Joint>
</KinBody>"""
    with pytest.raises(FormatError, match="circular mimic"):
        load(tmp_path, text, "k.kinbody.xml")


# -- includes, prefixes, appends --------------------------------------------------------

FINGER = """<KinBody name="finger">
  <Body name="f0"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Body name="f1"><offsetfrom>f0</offsetfrom><translation>0 0 1</translation>
    <Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Joint name="fj" type="hinge"><Body>f0</Body><Body>f1</Body><offsetfrom>f1</offsetfrom>
    <axis>1 0 0</axis></Joint>
  <Body name="f2"><offsetfrom>f1</offsetfrom><translation>0 0 1</translation>
    <Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Joint name="fm" type="hinge" enable="false" mimic_pos="fj*2"><Body>f1</Body><Body>f2</Body>
    <offsetfrom>f2</offsetfrom><axis>1 0 0</axis></Joint>
</KinBody>"""


FINGER_PLAIN = FINGER[:FINGER.index('  <Body name="f2"')] + "</KinBody>"


def test_kinbody_prefix_and_append(tmp_path):
    write(tmp_path, "finger.kinbody.xml", FINGER_PLAIN)
    text = """<KinBody name="hand">
  <Body name="palm"><Geom type="box"><extents>1 1 1</extents></Geom></Body>
  <KinBody prefix="L_" file="finger.kinbody.xml">
    <Body name="L_f0"><offsetfrom>palm</offsetfrom><translation>2 0 0</translation>
      <rotationaxis>0 0 1 90</rotationaxis></Body>
  </KinBody>
  <KinBody prefix="R_" file="finger.kinbody.xml"/>
  <Joint name="attach" type="hinge" enable="false"><Body>palm</Body><Body>L_f0</Body>
    <limits>0 0</limits></Joint>
</KinBody>"""
    r = load(tmp_path, text, "hand.kinbody.xml")
    assert r.name == "hand"
    assert [n for n in r.link_names if not n.endswith("axis0")] == \
        ["palm", "L_f0", "L_f1", "R_f0", "R_f1"]
    assert [d.name for d in r.drivers] == ["L_fj", "R_fj"]
    # the re-opened L_f0 moved; L_f1, jointed to it before the move, follows
    TL0 = T(Rz(90 * D), (2, 0, 0))
    np.testing.assert_allclose(pose(r, "L_f0"), TL0, atol=1e-15)
    np.testing.assert_allclose(pose(r, "L_f1"), TL0 @ T(None, (0, 0, 1)), atol=1e-15)
    q = at_dofs(r, [0.3, 0.0])
    np.testing.assert_allclose(pose(r, "L_f1", q), TL0 @ T(Rx(0.3), (0, 0, 1)), atol=1e-12)
    np.testing.assert_allclose(pose(r, "R_f1", q), T(None, (0, 0, 1)), atol=1e-15)


def test_robot_prefix_rewrites_mimic_and_manipulators(tmp_path):
    write(tmp_path, "finger.robot.xml", f"""<Robot name="F">{FINGER}
  <Manipulator name="m"><base>f0</base><effector>f1</effector><joints>fj</joints></Manipulator>
</Robot>""")
    text = """<Robot name="two">
  <Robot prefix="l_" file="finger.robot.xml"/>
  <Robot prefix="r_" file="finger.robot.xml"><translation>5 0 0</translation></Robot>
</Robot>"""
    r = load(tmp_path, text)
    assert [d.name for d in r.drivers] == ["l_fj", "r_fj"]
    assert [(d.type, r.links[d.dofs[1]].name) for d in r.drivers] == \
        [("affine", "l_f2"), ("affine", "r_f2")]
    assert r.drivers[1].scale == [1.0, 2.0]
    assert sorted(m.name for m in r.manipulators) == ["l_m", "r_m"]
    m = next(m for m in r.manipulators if m.name == "r_m")
    assert (r.links[m.base].name, r.links[m.effector].name) == ("r_f0", "r_f1")
    np.testing.assert_allclose(pose(r, "r_f2")[:3, 3], (5, 0, 2), atol=1e-15)
    q = at_dofs(r, [0.0, 0.25])
    want = T(None, (5, 0, 1)) @ T(Rx(0.25)) @ T(Rx(0.5), (0, 0, 1))
    np.testing.assert_allclose(pose(r, "r_f2", q), want, atol=1e-12)


def test_kinbody_prefix_does_not_rewrite_mimic(tmp_path):
    write(tmp_path, "finger.kinbody.xml", FINGER)
    with pytest.raises(FormatError, match="unknown name 'fj'"):
        load(tmp_path, '<KinBody name="k"><KinBody prefix="p_" file="finger.kinbody.xml"/></KinBody>',
             "k.kinbody.xml")


def test_include_search_order_and_errors(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    (data / "finger.kinbody.xml").write_text(FINGER_PLAIN)
    text = '<KinBody name="k"><KinBody file="finger.kinbody.xml"/></KinBody>'
    with pytest.raises(FormatError, match="file not found.*--data-path"):
        load(tmp_path, text, "k.kinbody.xml")
    r = load(tmp_path, text, "k.kinbody.xml", search_paths=[str(data)])
    assert r.link_names[0] == "f0"
    monkeypatch.setenv("OPENRAVE_DATA", f"/nonexistent:{data}")
    assert load(tmp_path, text, "k.kinbody.xml").link_names[0] == "f0"


def test_include_cycle_names_the_chain(tmp_path):
    write(tmp_path, "a.kinbody.xml", '<KinBody><KinBody file="b.kinbody.xml"/></KinBody>')
    write(tmp_path, "b.kinbody.xml", '<KinBody><KinBody file="a.kinbody.xml"/></KinBody>')
    with pytest.raises(FormatError, match=r"include cycle: .*a\.kinbody\.xml -> .*b\.kinbody\.xml -> .*a\.kinbody\.xml"):
        roboio.load(str(tmp_path / "a.kinbody.xml"))


def test_collada_include_without_a_collada_reader(tmp_path, monkeypatch):
    import importlib
    real = importlib.import_module

    def fake(name, *a):
        if name == "roboio.formats.openrave.collada":
            raise ImportError(name)
        return real(name, *a)
    monkeypatch.setattr(importlib, "import_module", fake)
    (tmp_path / "arm.zae").write_bytes(b"PK")
    with pytest.raises(FormatError, match=r"r\.robot\.xml:1: <robot file=\"arm\.zae\"> includes the COLLADA file .*arm\.zae"):
        load(tmp_path, '<Robot name="x"><Robot file="arm.zae"/></Robot>')


def test_mesh_file_as_a_body(tmp_path):
    (tmp_path / "cube.off").write_text("OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n")
    env = load(tmp_path, '<Environment><KinBody file="cube.off" name="c"/></Environment>',
               "e.env.xml")
    assert env.rigid_objects[0].name == "c"
    assert len(env.rigid_objects[0].geometry.faces) == 1


# -- masses -----------------------------------------------------------------------------

def mass_of(tmp_path, mass, geoms=""):
    r = load(tmp_path, f'<KinBody name="k"><Body name="a">{geoms}{mass}</Body></KinBody>',
             "k.kinbody.xml")
    l = r.links[0]
    return l.mass, np.asarray(l.com), np.asarray(l.inertia)


def test_masses(tmp_path):
    m, c, I = mass_of(tmp_path, "")
    assert (m, list(c)) == (1.0, [0, 0, 0]) and np.allclose(I, 0.4 * np.eye(3))
    m, c, I = mass_of(tmp_path, '<mass type="sphere"><radius>0.5</radius><density>2</density></mass>')
    mm = 4 / 3 * math.pi * 0.125 * 2
    assert m == pytest.approx(mm) and np.allclose(I, 0.4 * mm * 0.25 * np.eye(3))
    m, c, I = mass_of(tmp_path, '<mass type="box"><total>3</total><extents>5 5 5</extents></mass>')
    # Body-level box extents are ignored by OpenRAVE's reader: half extents 1 1 1
    assert m == 3 and np.allclose(I, np.diag([2.0, 2.0, 2.0]))
    m, c, I = mass_of(tmp_path, '<mass type="custom"><total>2</total><com>1 2 3</com>'
                                '<inertia>1 0 0 0 2 0 0 0 3</inertia></mass>')
    assert m == 2 and list(c) == [1, 2, 3] and np.allclose(I, np.diag([1, 2, 3]))
    # mimicgeom: a 2 x 4 x 6 box at (1, 0, 0) and a cylinder (radius 1, height 2, axis Y)
    geoms = ('<Geom type="box"><translation>1 0 0</translation><extents>1 2 3</extents></Geom>'
             '<Geom type="cylinder"><radius>1</radius><height>2</height></Geom>')
    m, c, I = mass_of(tmp_path, '<mass type="mimicgeom"><density>1</density></mass>', geoms)
    mb, mc = 48.0, 2 * math.pi
    assert m == pytest.approx(mb + mc)
    np.testing.assert_allclose(c, (mb / (mb + mc), 0, 0))
    Ib = mb / 3 * np.diag([4 + 9, 1 + 9, 1 + 4])
    Ic = mc * np.diag([0.25 + 4 / 12, 0.5, 0.25 + 4 / 12])      # axis along Y
    dx = np.array([1, 0, 0]) - c
    dc = -c
    par = lambda mass, d: mass * ((d @ d) * np.eye(3) - np.outer(d, d))
    np.testing.assert_allclose(I, Ib + par(mb, dx) + Ic + par(mc, dc), atol=1e-12)


def test_reopening_a_link_resets_its_mass(tmp_path):
    r = load(tmp_path, """<KinBody name="k">
  <Body name="a"><mass type="custom"><total>5</total></mass></Body>
  <Body name="a"><translation>1 0 0</translation></Body></KinBody>""", "k.kinbody.xml")
    assert r.links[0].mass == 1.0          # OpenRAVE's default sphere again


# -- lexing and bad input ---------------------------------------------------------------

def test_case_insensitive_tags_and_attributes(tmp_path):
    r = load(tmp_path, """<KINBODY NAME="k"><BODY Name="a"><TRANSLATION>1 2 3</TRANSLATION>
  <GEOM TYPE="Sphere"><RADIUS>2</RADIUS></GEOM></BODY></KINBODY>""", "k.kinbody.xml")
    assert r.name == "k" and r.links[0].geometry.params["radius"] == 2
    np.testing.assert_allclose(pose(r, "a")[:3, 3], (1, 2, 3))


@pytest.mark.parametrize("text, match, line", [
    ('<KinBody>\n<Body name="a">\n<translation>1,2,3</translation></Body></KinBody>',
     "',2,3' is not a number", 3),
    ('<KinBody>\n<Body name="a"/>\n<Joint type="ball"><Body>a</Body><Body>a</Body></Joint></KinBody>',
     "unknown joint type 'ball'", 3),
    ('<KinBody>\n<Body name="a"/>\n<Joint>\n<Body>a</Body><Body>b</Body></Joint></KinBody>',
     "no link named 'b'", 4),
    ('<KinBody><Body name="a"></KinBody>', "malformed XML", 1),
])
def test_bad_input_is_located(tmp_path, text, match, line):
    with pytest.raises(FormatError, match=match) as e:
        load(tmp_path, text, "k.kinbody.xml")
    assert e.value.line == line and e.value.path.endswith("k.kinbody.xml")


def test_unknown_elements_warn_and_are_kept(tmp_path):
    text = '<KinBody name="k"><Body name="a"/><rotorinertia>1</rotorinertia></KinBody>'
    with pytest.warns(RoboioWarning, match="unknown element <rotorinertia>"):
        r = load(tmp_path, text, "k.kinbody.xml")
    assert r.extras["openrave"]["unknown"][0].tag == "rotorinertia"
    with pytest.raises(FormatError, match="rotorinertia"):
        load(tmp_path, text, "k.kinbody.xml", strict=True)


def test_missing_mesh_is_a_warning_then_strict_error(tmp_path):
    text = '<KinBody name="k"><Body name="a"><Geom type="trimesh"><data>no.iv 0.5</data></Geom></Body></KinBody>'
    with pytest.warns(RoboioWarning, match="no.iv"):
        r = load(tmp_path, text, "k.kinbody.xml")
    g = r.links[0].geometry
    assert g.missing and g.source.reference == "no.iv"
    with pytest.raises(FormatError, match="no.iv"):
        load(tmp_path, text, "k.kinbody.xml", strict=True)


def test_depth_budget(tmp_path):
    text = "<KinBody>" * 50 + "</KinBody>" * 50
    with pytest.raises(FormatError, match="nesting"):
        load(tmp_path, text, "k.kinbody.xml", limits={"max_depth": 20})


def test_jointed_links_bound(tmp_path, monkeypatch):
    from roboio.formats.openrave import _hierarchy
    monkeypatch.setattr(_hierarchy, "MAX_JOINTED_LINKS", 3)
    bodies = "".join(f'<Body name="b{i}"/>' for i in range(5))
    joints = "".join(f'<Joint name="j{i}" type="hinge"><Body>b{i}</Body><Body>b{i+1}</Body></Joint>'
                     for i in range(4))
    with pytest.raises(FormatError, match="reads at most 3"):
        load(tmp_path, f"<KinBody>{bodies}{joints}</KinBody>", "k.kinbody.xml")


# -- environments and adjacency ---------------------------------------------------------

ENV = """<Environment>
  <bkgndcolor>0.1 0.2 0.3</bkgndcolor><camtrans>1 2 3</camtrans>
  <camrotationaxis>0 0 1 90</camrotationaxis>
  <KinBody name="floor"><Body type="static"><Geom type="box"><extents>1 1 0.1</extents></Geom></Body></KinBody>
  <KinBody name="cup"><translation>0 0 1</translation>
    <Body name="c"><Geom type="sphere"><radius>0.1</radius></Geom>
      <mass type="custom"><total>0.3</total></mass></Body></KinBody>
  <KinBody name="door">
    <Body name="frame"/><Body name="leaf"><translation>1 0 0</translation></Body>
    <Joint name="hinge" type="hinge"><Body>frame</Body><Body>leaf</Body><axis>0 0 1</axis></Joint>
    <jointvalues>0.5</jointvalues>
  </KinBody>
  <physicsengine type="ode"><gravity>0 0 -9.8</gravity></physicsengine>
</Environment>"""


def test_environment(tmp_path):
    w = load(tmp_path, ENV, "e.env.xml")
    assert [t.name for t in w.terrains] == ["floor"]
    assert [o.name for o in w.rigid_objects] == ["cup"]
    assert w.rigid_objects[0].mass == 0.3
    np.testing.assert_allclose(w.rigid_objects[0].transform[:3, 3], (0, 0, 1))
    (door,) = w.robots
    assert door.config[1] == pytest.approx(0.5)              # <jointvalues> applied
    ex = w.extras["openrave"]
    assert ex["bkgndcolor"] == [0.1, 0.2, 0.3]
    np.testing.assert_allclose(np.array(ex["camera"]["transform"]), T(Rz(90 * D), (1, 2, 3)), atol=1e-15)
    assert ex["interfaces"][0].tag == "physicsengine"


def test_duplicate_body_names_in_an_environment(tmp_path):
    text = '<Environment><KinBody name="a"><Body/></KinBody><KinBody name="a"><Body/></KinBody></Environment>'
    with pytest.raises(FormatError, match="two bodies named 'a'"):
        load(tmp_path, text, "e.env.xml")


def test_self_collision_pairs(tmp_path):
    text = """<KinBody name="k" makejoinedlinksadjacent="1">
  <Body name="a"><Geom type="sphere"><radius>1</radius></Geom></Body>
  <Body name="b"><Geom type="sphere"><radius>1</radius></Geom></Body>
  <Body name="c"><Geom type="sphere"><radius>1</radius></Geom></Body>
  <Body name="d"><Geom type="sphere"><radius>1</radius></Geom></Body>
  <Body name="e"/>
  <Joint name="ab" type="hinge"><Body>a</Body><Body>b</Body><axis>0 0 1</axis></Joint>
  <Joint name="bc" type="hinge"><Body>b</Body><Body>c</Body><axis>0 0 1</axis></Joint>
  <Joint name="cd" type="hinge"><Body>c</Body><Body>d</Body><axis>0 0 1</axis></Joint>
  <Joint name="de" type="hinge"><Body>d</Body><Body>e</Body><axis>0 0 1</axis></Joint>
  <adjacent>a d</adjacent>
</KinBody>"""
    r = load(tmp_path, text, "k.kinbody.xml")
    names = {tuple(sorted((r.links[i].name, r.links[j].name))) for i, j in r.self_collision_pairs}
    # joined or one joint apart: adjacent; e has no geometry; a-d forced adjacent
    assert names == {("a", "c"), ("b", "d")}


def test_one_link_object_keeps_its_custom_com_to_the_last_digit(tmp_path):
    """graspit_bci's allGrasp1 world written as an OpenRAVE environment: the object 'all'
    (mass 0.3, <com> z 0.10885333386718579) read back with z ...578, the rounding of
    (0.3 * z) / 0.3 from summing its one link onto an empty mass, so every rewrite changed
    the file."""
    (tmp_path / "e.env.xml").write_text(
        '<Environment><KinBody name="all"><Body name="all" type="dynamic">'
        '<Geom type="box"><Extents>0.1 0.1 0.1</Extents></Geom>'
        '<mass type="custom"><total>0.3</total>'
        '<com>-0.009447786168845196 -0.007514649093709692 0.10885333386718579</com>'
        '<inertia>0.0016 0 0 0 0.0014 0 0 0 0.0005</inertia></mass>'
        '</Body></KinBody></Environment>')
    w = roboio.load(tmp_path / "e.env.xml")
    (o,) = w.rigid_objects
    assert o.mass == pytest.approx(0.3, rel=1e-15)
    np.testing.assert_allclose(o.com, [-0.009447786168845196, -0.007514649093709692,
                                       0.10885333386718579], rtol=0, atol=1e-18)
    roboio.save(w, tmp_path / "a.env.xml", format="openrave")
    roboio.save(roboio.load(tmp_path / "a.env.xml"), tmp_path / "b.env.xml", format="openrave")
    assert (tmp_path / "a.env.xml").read_bytes() == (tmp_path / "b.env.xml").read_bytes()
    assert "<com>-0.009447786168845196 -0.007514649093709692 0.10885333386718579</com>" in \
        (tmp_path / "a.env.xml").read_text()
