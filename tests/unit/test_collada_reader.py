"""OpenRAVE's COLLADA reading rules on small hand-written documents (spec collada.md).

Expected values are worked out by hand in each test (or with explicit rotation matrices
written in the test), never taken from the reader.
"""
import math
import warnings

import numpy as np
import pytest

from collada_docs import robot_dae
from roboio.context import LoadContext
from roboio.errors import FormatError
from roboio.formats.openrave.collada._load import read_body

DEG = math.pi / 180


def read(text, path="t.dae", **kw):
    ctx = LoadContext(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = read_body(text.encode() if isinstance(text, str) else text, ctx, **kw)
    return body, ctx.warnings


def rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def H(R=np.eye(3), t=(0, 0, 0)):
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = t
    return T


def rot(axis, a):
    """Rodrigues' rotation written out in the test."""
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(a) * K + (1 - math.cos(a)) * K @ K


def joint_pose(parent_T, j, q):
    """OpenRAVE's frozen-joint FK: T(parent) Tr(anchor) M(q) Tr(-anchor) trel."""
    M = np.eye(4)
    for kind, ax, v in zip(j.axis_types, j.axes, q):
        D = np.eye(4)
        if kind == "revolute":
            D[:3, :3] = rot(ax, v)
        else:
            D[:3, 3] = np.asarray(ax) * v
        M = M @ D
    A = H(t=j.anchor)
    return parent_T @ A @ M @ np.linalg.inv(A) @ j.trel


ARM = [
    {"name": "base", "parent": None, "own": "<translate>0 0 0</translate>"},
    {"name": "upper", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"], "limits": [(-90, 45)],
     "att": "<translate>0 0 1</translate><rotate>1 0 0 90</rotate>", "own": "<rotate>-1 0 0 90</rotate>"},
    {"name": "fore", "parent": 1, "types": ["prismatic"], "axes": ["1 0 0"], "limits": [(0, 500)],
     "att": "<translate>0.5 0 0</translate>", "own": "<translate>0 0.25 0</translate>"},
]


def test_chain_frames_and_fk():
    body, warns = read(robot_dae(ARM))
    assert [l.name for l in body.links] == ["base", "upper", "fore"]
    assert [j.name for j in body.joints] == ["J1", "J2"]
    up, fore = body.links[1], body.links[2]
    # upper at zero: Tr(0,0,1) Rx(90) Rx(-90) = Tr(0,0,1)
    assert np.allclose(up.transform, H(t=(0, 0, 1)), atol=1e-15)
    # fore: upper . Tr(0.5,0,0) . Tr(0,0.25,0)
    assert np.allclose(fore.transform, H(t=(0.5, 0.25, 1)), atol=1e-15)
    j1, j2 = body.joints
    assert np.allclose(j1.anchor, [0, 0, 1]) and np.allclose(j1.axes[0], rx(math.pi / 2) @ [0, 0, 1])
    q1, q2 = 0.7, 0.3
    T1 = joint_pose(body.links[0].transform, j1, [q1])
    # by hand: Tr(0,0,1) Rx(90) Rz(q1) Rx(-90)
    expect1 = H(t=(0, 0, 1)) @ H(rx(math.pi / 2)) @ H(rz(q1)) @ H(rx(-math.pi / 2))
    assert np.allclose(T1, expect1, atol=1e-14)
    T2 = joint_pose(T1, j2, [q2])
    expect2 = expect1 @ H(t=(0.5, 0, 0)) @ H(t=(q2, 0, 0)) @ H(t=(0, 0.25, 0))
    assert np.allclose(T2, expect2, atol=1e-14)
    # limits: degrees for revolute, length units for prismatic (metre here)
    assert j1.lower == pytest.approx([-90 * DEG]) and j1.upper == pytest.approx([45 * DEG])
    assert j2.lower == [0.0] and j2.upper == [500.0]


def test_units_scale_lengths_not_angles():
    body, _ = read(robot_dae(ARM, unit=' meter="0.001" name="millimeter"'))
    fore = body.links[2]
    assert np.allclose(fore.transform[:3, 3], [0.0005, 0.00025, 0.001], atol=1e-18)
    j1, j2 = body.joints
    assert j1.lower == pytest.approx([-90 * DEG])          # angles untouched
    assert j2.upper == pytest.approx([0.5])                 # 500 mm
    # an <asset><unit> on an element overrides the document unit for its subtree
    links = [dict(l) for l in ARM]
    body, _ = read(robot_dae(links, unit=' meter="0.001"',
                             kmodel_asset='<asset><unit meter="0.01"/></asset>'))
    assert np.allclose(body.links[2].transform[:3, 3], [0.005, 0.0025, 0.01], atol=1e-17)


@pytest.mark.parametrize("tool, radians", [("OpenRAVE Collada Writer", True),
                                           ("URDF Collada Writer", True),
                                           ("OpenRAVE Collada Writer v0.3.5", False),
                                           ("roboio", False)])
def test_authoring_tool_radians_quirk(tool, radians):
    mi = {1: "<speed><float>2</float></speed><acceleration><float>3</float></acceleration>"}
    body, _ = read(robot_dae(ARM, authoring=tool, motion_info=mi, bind_values={(1, 0): 10}))
    j1 = body.joints[0]
    f = 1.0 if radians else DEG
    assert j1.max_velocity[0] == pytest.approx(2 * f)
    assert j1.max_acceleration[0] == pytest.approx(3 * f)
    assert j1.initial[0] == pytest.approx(10 * f)
    assert j1.lower[0] == pytest.approx(-90 * DEG)           # limits always degrees


def test_soft_limits_locked_circular_active():
    links = [dict(l) for l in ARM]
    links.append({"name": "free", "parent": 1, "types": ["revolute"], "axes": ["0 1 0"],
                  "att": "<translate>0 0 2</translate>"})
    links.append({"name": "slide", "parent": 3, "types": ["prismatic"], "axes": ["0 0 1"]})
    ai = {1: "<limits><min><float>-10</float></min><max><float>20</float></max></limits>",
          2: "<locked><bool>true</bool></locked>",
          4: "<active><bool>false</bool></active>"}
    body, _ = read(robot_dae(links, axis_info=ai))
    by = {j.name: j for j in body.all_joints()}
    assert by["J1"].lower == pytest.approx([-10 * DEG]) and by["J1"].upper == pytest.approx([20 * DEG])
    assert by["J2"].lower == [0.0] and by["J2"].upper == [0.0]
    assert by["J3"].circular == [True] and by["J3"].lower == pytest.approx([-math.pi])
    assert by["J4"].lower == [-1e6] and by["J4"].upper == [1e6] and by["J4"].circular == [False]
    assert not by["J4"].active and by["J4"] in body.passive_joints
    assert [j.name for j in body.dof_joints()] == ["J1", "J2", "J3"]


def test_multi_axis_joint_composes_axes_in_order():
    links = [{"name": "a", "parent": None},
             {"name": "b", "parent": 0, "types": ["revolute", "revolute"], "axes": ["0 0 1", "1 0 0"],
              "att": "<translate>1 0 0</translate><rotate>0 1 0 90</rotate>", "own": "<translate>0 0 0.5</translate>"}]
    body, _ = read(robot_dae(links))
    j = body.joints[0]
    assert j.axis_types == ["revolute", "revolute"]
    q = [0.4, -1.1]
    T = joint_pose(np.eye(4), j, q)
    # visual-scene meaning: att . R(z, q0) . R(x, q1) . own
    ry90 = rot([0, 1, 0], math.pi / 2)
    expect = H(t=(1, 0, 0)) @ H(ry90) @ H(rz(q[0])) @ H(rx(q[1])) @ H(t=(0, 0, 0.5))
    assert np.allclose(T, expect, atol=1e-14)


def test_axis_is_in_the_attachment_frame_and_normalised():
    links = [{"name": "a", "parent": None},
             {"name": "b", "parent": 0, "types": ["revolute"], "axes": ["0 0 -2"],
              "att": "<rotate>1 0 0 90</rotate>"}]
    body, _ = read(robot_dae(links))
    # axis (0,0,-1) in the joint frame Rx(90) -> (0, 1, 0) in the parent frame
    assert np.allclose(body.joints[0].axes[0], [0, 1, 0], atol=1e-15)


FORMULA = """<formula sid="f"><target><param>kmodel1/joint2</param></target>
<technique_common><math xmlns="http://www.w3.org/1998/Math/MathML">{body}</math></technique_common></formula>"""


def two_joint_robot(formula_body):
    links = [{"name": "a", "parent": None},
             {"name": "b", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"], "jname": "m1"},
             {"name": "c", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"], "jname": "m2"}]
    ai = {2: "<active><bool>false</bool></active>"}
    return robot_dae(links, formulas=FORMULA.format(body=formula_body), axis_info=ai)


def test_linear_mimic_formula():
    body, _ = read(two_joint_robot(
        "<apply><plus/><cn>0.5</cn><apply><times/><cn>-2</cn><csymbol encoding=\"COLLADA\">kmodel1/joint1</csymbol></apply></apply>"))
    m2 = body.joint("m2")
    assert m2.mimic.equation == "(0.5+(-2*m1))"
    assert m2.mimic.affine == ("m1", -2.0, 0.5)
    assert [j.name for j in body.dof_joints()] == ["m1"]


def test_nonlinear_mimic_is_kept_not_affine():
    body, _ = read(two_joint_robot(
        "<apply><sin/><csymbol encoding=\"COLLADA\">kmodel1/joint1</csymbol></apply>"))
    m2 = body.joint("m2")
    assert m2.mimic.equation == "sin(m1)" and m2.mimic.affine is None


@pytest.mark.parametrize("bad, what", [
    ("<apply><factorial/><cn>3</cn></apply>", "factorial"),
    ("<apply><divide/><cn>3</cn></apply>", "operand"),
    ("<apply><plus/><cn>x</cn><cn>1</cn></apply>", "not a number"),
    ("<csymbol encoding=\"COLLADA\">kmodel1/nojoint</csymbol>", "nojoint"),
    ("<mtext>hi</mtext>", "mtext"),
])
def test_malformed_mathml_is_an_error_with_line(bad, what):
    with pytest.raises(FormatError) as e:
        read(two_joint_robot(bad))
    assert what in str(e.value) and e.value.line is not None and "t.dae" in str(e.value)


def test_instance_node_expansion_and_cycles():
    body, _ = read(robot_dae(ARM, library_nodes=True))
    assert [l.name for l in body.links] == ["base", "upper", "fore"]
    # a node that instances itself
    doc = robot_dae(ARM, library_nodes=True).replace(
        '<node id="v.node2" name="fore" sid="node2">',
        '<node id="v.node2" name="fore" sid="node2"><instance_node url="#v.node0"/>')
    with pytest.raises(FormatError, match="cyclic <instance_node>"):
        read(doc)


def test_unresolvable_references_are_errors():
    doc = robot_dae(ARM).replace('joint="kmodel1/joint2"', 'joint="kmodel1/joint9"')
    with pytest.raises(FormatError, match=r'joint="kmodel1/joint9".*no joint') as e:
        read(doc)
    assert e.value.line is not None and "attachment_full" in str(e.value)
    doc = robot_dae(ARM).replace('url="#kmodel1"', 'url="other.dae#kmodel1"')
    with pytest.raises(FormatError, match="external COLLADA reference"):
        read(doc)
    doc = robot_dae(ARM).replace('url="#kmodel1"', 'url="#nothing"')
    with pytest.raises(FormatError, match="no element has id 'nothing'"):
        read(doc)


def test_missing_axis_is_an_error():
    doc = robot_dae(ARM).replace("<axis>1 0 0</axis>", "")
    with pytest.raises(FormatError, match="has no <axis>"):
        read(doc)


def test_closed_loop_tree_loaded_and_loop_kept_as_data(tmp_path):
    """kuka-kr360.zae: OpenRAVE ignores <attachment_start>/<attachment_end> with a warning
    and loads the tree; roboio does the same, keeping the loop as data (issue 21)."""
    import roboio
    plain = robot_dae(ARM)
    doc = plain.replace('<attachment_full joint="kmodel1/joint2">',
                        '<attachment_start joint="kmodel1/joint2"><translate>0 0 1</translate>'
                        '</attachment_start><attachment_full joint="kmodel1/joint2">')
    (tmp_path / "loop.dae").write_text(doc)
    (tmp_path / "tree.dae").write_text(plain)
    with pytest.warns(roboio.RoboioWarning, match="closed kinematic loop"):
        r = roboio.load(str(tmp_path / "loop.dae"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = roboio.load(str(tmp_path / "tree.dae"))
    assert r.link_names == t.link_names
    u = np.linspace(-0.5, 0.5, len(t.drivers))
    np.testing.assert_allclose(r.fk(r.config_from_drivers(u)), t.fk(t.config_from_drivers(u)), atol=0)
    (loop,) = r.extras["collada"]["files"][0]["closed_loops"]
    assert loop["element"] == "attachment_start" and loop["joint"] == "kmodel1/joint2"
    assert loop["transforms"] == [("translate", "0 0 1")]
    assert any("closed kinematic loop" in w for w in r.warnings)


def test_not_a_robot_document():
    mesh_only = f'<COLLADA xmlns="{"http://www.collada.org/2008/03/COLLADASchema"}"><scene/></COLLADA>'
    with pytest.raises(FormatError, match="no <instance_kinematics_scene>"):
        read(mesh_only)
    with pytest.raises(FormatError, match="malformed XML"):
        read("<COLLADA><scene>")


def test_prefix_renames_links_joints_manipulators_and_mimic_equations():
    extras = ('<extra name="hand" type="manipulator"><technique profile="OpenRAVE">'
              '<frame_origin link="kmodel1/link0"/><frame_tip link="kmodel1/link2"><translate>0 0 0.1</translate>'
              '</frame_tip><gripper_joint joint="kmodel1/joint1"><closing_direction axis="./axis0"><float>-1</float>'
              '</closing_direction></gripper_joint></technique></extra>')
    doc = two_joint_robot("<csymbol encoding=\"COLLADA\">kmodel1/joint1</csymbol>").replace(
        "</articulated_system>\n  </library_articulated_systems>", extras + "</articulated_system>\n  </library_articulated_systems>")
    body, _ = read(doc, attributes={"prefix": "l_"})
    assert [l.name for l in body.links] == ["l_a", "l_b", "l_c"]
    assert body.joint("l_m2").mimic.equation == "l_m1"
    m = body.manipulators[0]
    assert (m.name, m.base, m.effector, m.gripper_joints, m.chucking_direction) == \
        ("l_hand", "l_a", "l_c", ["l_m1"], [-1.0])
    assert np.allclose(m.tool_transform[:3, 3], [0, 0, 0.1])


# OpenHRP3's export-collada (NEXTAGE OPEN's main.dae) declares the root link's joint
# (WAIST, fixed in the VRML) in the kinematics model, binds its axis to a visual element
# that does not exist and gives it an actuator, although no <attachment_full> uses it.
UNATTACHED_JOINT = '<joint name="WAIST" sid="joint1000"><revolute sid="axis0"><axis>0 0 1</axis></revolute></joint>'
UNATTACHED_BIND = ('<bind_joint_axis target="visual1/node_joint0_axis0"><axis><SIDREF>'
                   'body1_kinematics/kmodel1_inst/joint1000/axis0</SIDREF></axis>'
                   '<value><float>0</float></value></bind_joint_axis>')


def _actuator(name, joint):
    return (f'<extra name="{name}" type="attach_actuator"><technique profile="OpenRAVE">'
            f'<bind_actuator joint="{joint}"/></technique></extra>')


def _with_unattached_joint(text, bind=UNATTACHED_BIND):
    text = text.replace('<joint name="J1"', UNATTACHED_JOINT + '<joint name="J1"', 1)
    return text.replace("</instance_kinematics_scene>", bind + "</instance_kinematics_scene>", 1)


def test_a_joint_no_link_attaches_is_ignored_with_its_binding_and_actuator_as_openrave_does():
    from roboio.errors import severity_of
    text = _with_unattached_joint(robot_dae(ARM, system_extras=_actuator("WAIST", "kmodel1/joint1000")
                                            + _actuator("J1", "kmodel1/joint1")))
    body, warns = read(text)
    assert [j.name for j in body.joints] == ["J1", "J2"]          # WAIST is part of no chain
    assert not [w for w in warns if severity_of(w) == "error"], warns
    notes = [w for w in warns if "WAIST" in w]
    assert len(notes) == 2 and all(w.kind == "ignored" for w in notes), warns
    assert any("bind_joint_axis" in w for w in notes) and any("actuator 'WAIST'" in w for w in notes)


def test_an_attached_joints_binding_without_target_or_an_actuator_of_no_joint_stays_an_error():
    from roboio.errors import severity_of
    missing_target = robot_dae(ARM).replace('target="visual1/node_joint1_axis0"', 'target="visual1/nowhere"', 1)
    _, warns = read(missing_target)
    assert [w.kind for w in warns if "nowhere" in w] == ["invalid value"]
    _, warns = read(robot_dae(ARM, system_extras=_actuator("X", "kmodel1/joint77")))
    bad = [w for w in warns if "joint77" in w]
    assert len(bad) == 1 and severity_of(bad[0]) == "error"
