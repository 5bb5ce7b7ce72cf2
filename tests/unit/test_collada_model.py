"""Hand-written COLLADA documents through the whole pipeline (reader -> OpenRAVE's body
records -> roboio's model), with expected poses computed in the test."""
import math
import warnings

import numpy as np
import pytest

from collada_docs import robot_dae
from roboio.context import LoadContext
from roboio.formats.openrave.collada import robot as collada
from roboio.report import ConversionReport


def model(doc):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return collada.loads(doc.encode(), LoadContext("m.dae"))


def H(R=np.eye(3), t=(0, 0, 0)):
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = t
    return T


def rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


RY90 = np.array([[0, 0, 1.0], [0, 1, 0], [-1, 0, 0]])


def test_multi_axis_joint_revolute_then_prismatic():
    links = [{"name": "a", "parent": None},
             {"name": "b", "parent": 0, "types": ["revolute", "prismatic"], "axes": ["0 0 1", "1 0 0"],
              "limits": [(-90, 90), (-1, 1)], "jname": "rp",
              "att": "<translate>1 0 0</translate><rotate>0 1 0 90</rotate>",
              "own": "<translate>0 0 0.5</translate>"}]
    robot = model(robot_dae(links))
    assert [d.name for d in robot.drivers] == ["rp", "rp_1"]
    for q0, q1 in ((0.3, 0.2), (-1.2, -0.7)):
        T = robot.fk(robot.config_from_drivers([q0, q1]))[robot.link_index("b")]
        expect = H(t=(1, 0, 0)) @ H(RY90) @ H(rz(q0)) @ H(t=(q1, 0, 0)) @ H(t=(0, 0, 0.5))
        assert np.allclose(T, expect, atol=1e-14)
    # and it survives a write/read
    back = collada.loads(collada.dumps(robot, ConversionReport()), LoadContext("b.dae"))
    for u in ([0.1, 0.4], [-0.5, -0.2]):
        assert np.allclose(back.fk(back.config_from_drivers(u))[back.link_index("b")],
                           robot.fk(robot.config_from_drivers(u))[robot.link_index("b")], atol=1e-12)


def test_mimic_becomes_affine_driver_and_nonlinear_a_nonlinear_driver():
    formula = ('<formula sid="f"><target><param>kmodel1/joint2</param></target><technique_common>'
               '<math xmlns="http://www.w3.org/1998/Math/MathML">{}</math></technique_common></formula>')
    links = [{"name": "a", "parent": None},
             {"name": "b", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"], "jname": "m1",
              "limits": [(-90, 90)]},
             {"name": "c", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"], "jname": "m2",
              "limits": [(-180, 180)], "att": "<translate>0 1 0</translate>"}]
    lin = '<apply><plus/><cn>0.25</cn><apply><times/><cn>-2</cn><csymbol encoding="COLLADA">kmodel1/joint1</csymbol></apply></apply>'
    robot = model(robot_dae(links, formulas=formula.format(lin)))
    (d,) = robot.drivers
    assert d.name == "m1" and d.type == "affine"
    assert d.dofs == [robot.link_index("b"), robot.link_index("c")]
    assert d.scale == [1.0, -2.0] and d.offset == [0.0, 0.25]
    nonlin = '<apply><sin/><csymbol encoding="COLLADA">kmodel1/joint1</csymbol></apply>'
    ctx = LoadContext("n.dae")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = collada.loads(robot_dae(links, formulas=formula.format(nonlin)).encode(), ctx)
    (d,) = robot.drivers
    assert d.type == "nonlinear" and d.dofs == [robot.link_index("b"), robot.link_index("c")]
    for u in (0.4, -1.1):                       # c turns by sin(m1) about z at (0, 1, 0)
        T = robot.fk(robot.config_from_drivers([u]))[robot.link_index("c")]
        assert np.allclose(T, H(t=(0, 1, 0)) @ H(rz(math.sin(u))), atol=1e-14)


MESH_ONLY = """<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2008/03/COLLADASchema" version="1.5.0">
<library_geometries><geometry id="g"><mesh>
<source id="p"><float_array id="pa" count="9">0 0 0 1 0 0 0 1 0</float_array>
<technique_common><accessor source="#pa" count="3" stride="3"/></technique_common></source>
<vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
<triangles count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles>
</mesh></geometry></library_geometries>
<library_visual_scenes><visual_scene id="vs"><node id="n" name="plate"><translate>0 0 2</translate>
<instance_geometry url="#g"/></node></visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#vs"/></scene></COLLADA>"""


def test_xml_includes_with_prefix_transform_and_mesh_only_kinbody(tmp_path):
    import roboio
    links = [{"name": "base", "parent": None},
             {"name": "tip", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"], "jname": "j",
              "limits": [(-90, 90)], "att": "<translate>1 0 0</translate>"}]
    (tmp_path / "arm.dae").write_text(robot_dae(links))
    (tmp_path / "plate.dae").write_text(MESH_ONLY)
    (tmp_path / "cell.robot.xml").write_text(
        '<Robot name="cell"><KinBody name="k"><Body name="floor" type="static"/></KinBody>'
        '<Robot prefix="a_" file="arm.dae"><Translation>0 0 1</Translation></Robot>'
        '<KinBody file="plate.dae"/>'
        '<KinBody><Joint name="fix" type="hinge" enable="false"><Body>floor</Body><Body>a_base</Body>'
        '<limits>0 0</limits></Joint><Joint name="fix2" type="hinge" enable="false"><Body>floor</Body>'
        '<Body>plate</Body><limits>0 0</limits></Joint></KinBody></Robot>')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = roboio.load(str(tmp_path / "cell.robot.xml"))
    assert robot.link_names == ["floor", "a_base", "a_tip", "plate"]
    assert [d.name for d in robot.drivers] == ["a_j"]
    T = robot.fk(robot.config_from_drivers([0.5]))
    expect = H(t=(0, 0, 1)) @ H(t=(1, 0, 0)) @ H(rz(0.5))
    assert np.allclose(T[robot.link_index("a_tip")], expect, atol=1e-14)
    assert np.allclose(T[robot.link_index("plate")][:3, 3], (0, 0, 2))


def test_broken_include_names_the_collada_file_and_the_including_element(tmp_path):
    import roboio
    from roboio.errors import FormatError
    links = [{"name": "a", "parent": None},
             {"name": "b", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"]}]
    (tmp_path / "arm.dae").write_text(robot_dae(links).replace('joint="kmodel1/joint1"', 'joint="kmodel1/nope"'))
    (tmp_path / "r.robot.xml").write_text('<Robot name="x">\n<Robot file="arm.dae"/>\n</Robot>')
    with pytest.raises(FormatError) as e:
        roboio.load(str(tmp_path / "r.robot.xml"))
    msg = str(e.value)
    assert msg.startswith(str(tmp_path / "arm.dae") + ":") and "kmodel1/nope" in msg
    assert "included by " + str(tmp_path / "r.robot.xml") + ":2 <robot file=\"arm.dae\">" in msg
