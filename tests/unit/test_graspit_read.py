"""GraspIt! reading on hand-written files: DOF-expression scanning, transform composition,
DH chains (revolute, prismatic, Universal), units, defaults, worlds, and every bad-input case
the issue names (a FormatError with file:line, never a traceback)."""
import math
import os
import textwrap

import numpy as np
import pytest

import roboio
from roboio.formats.graspit._scan import DofExprError, scan_dof_expr

CUBE_IV = """#Inventor V2.1 ascii
Separator {
  Coordinate3 { point [ -10 -10 -10, 10 -10 -10, 10 10 -10, -10 10 -10,
                        -10 -10 10, 10 -10 10, 10 10 10, -10 10 10 ] }
  IndexedFaceSet { coordIndex [ 0, 3, 2, 1, -1,  4, 5, 6, 7, -1,  0, 1, 5, 4, -1,
                                2, 3, 7, 6, -1,  1, 2, 6, 5, -1,  0, 4, 7, 3, -1 ] }
}
"""
DOF = """<dof type="{t}"><defaultVelocity>1.0</defaultVelocity><maxEffort>5.0e+9</maxEffort>
<Kp>1.0e+11</Kp><Kd>1.0e+7</Kd><draggerScale>20</draggerScale>{extra}</dof>"""


def rev(theta, d=0, a=0, alpha=0, lo=-180, hi=180, extra=""):
    return (f'<joint type="Revolute"><theta>{theta}</theta><d>{d}</d><a>{a}</a><alpha>{alpha}</alpha>'
            f"<minValue>{lo}</minValue><maxValue>{hi}</maxValue>{extra}</joint>")


def pri(d, theta=0, a=0, alpha=0, lo=-100, hi=100):
    return (f'<joint type="Prismatic"><theta>{theta}</theta><d>{d}</d><a>{a}</a><alpha>{alpha}</alpha>'
            f"<minValue>{lo}</minValue><maxValue>{hi}</maxValue></joint>")


def make_robot(tmp, chains, dofs=("r",), extra="", name="Hand", body="<mass>100</mass>"):
    """A robot folder ``tmp/name`` with a cube palm and cube links; returns the XML path."""
    d = tmp / name
    (d / "iv").mkdir(parents=True, exist_ok=True)
    (d / "iv" / "cube.iv").write_text(CUBE_IV)
    (d / "iv" / "cube.xml").write_text(f"<root><material>rubber</material>{body}"
                                       "<geometryFile>cube.iv</geometryFile></root>")
    xml = ('<?xml version="1.0" ?>\n<robot type="Hand">\n<palm>cube.xml</palm>\n'
           + "\n".join(DOF.format(t=t, extra="") if isinstance(t, str) else DOF.format(t=t[0], extra=t[1])
                       for t in dofs)
           + "\n" + "\n".join(f"<chain>{c}</chain>" for c in chains) + extra + "\n</robot>\n")
    p = d / f"{name}.xml"
    p.write_text(xml)
    return str(p)


def links(n, kind="Revolute"):
    return "".join(f'<link dynamicJointType="{kind}">cube.xml</link>' for _ in range(n))


# -- DOF expressions ---------------------------------------------------------------------------
@pytest.mark.parametrize("text,dof,ratio,offset,ignored", [
    ("d0+90", 0, 1.0, 90.0, ""), (" d0+10", 0, 1.0, 10.0, ""), ("d2*0.333333333+40", 2, 0.333333333, 40.0, ""),
    ("d11*.667", 11, 0.667, 0.0, ""), ("d0*-10", 0, -10.0, 0.0, ""), ("d0+-65", 0, 1.0, -65.0, ""),
    ("d0*-1+-32.75", 0, -1.0, -32.75, ""),
    ("d1-2.46", 1, 1.0, 0.0, "-2.46"),          # the minus stops the scan: offset dropped
    ("d0*1e-3", 0, 1.0, 0.0, "e-3"),            # the 'e' stops the ratio
    ("d1 * 0.5", 1, 1.0, 0.0, " * 0.5"),        # no spaces allowed
    ("x3+5", 3, 1.0, 5.0, ""),                  # the first character is skipped whatever it is
])
def test_dof_expression_scan(text, dof, ratio, offset, ignored):
    e = scan_dof_expr(text)
    assert (e.dof, e.ratio, e.offset, e.ignored) == (dof, ratio, offset, ignored)


@pytest.mark.parametrize("text", ["", "90", "-5", "d", "d*2", "d3*+1", "d5+inf", "d0+nan"])
def test_dof_expression_rejected(text):
    with pytest.raises(DofExprError):
        scan_dof_expr(text)


# -- kinematics ----------------------------------------------------------------------------
def test_planar_two_link_dh_by_hand(tmp_path):
    p = make_robot(tmp_path, [f'<transform><translation>10 0 0</translation></transform>'
                              f'{rev("d0", a=100)}{rev("d0*0.5+90", a=50)}{links(2)}'])
    r = roboio.load(p)
    assert r.name == "Hand" and r.link_names[0] == "HandBase"
    T = r.fk(r.config_from_drivers([math.radians(90)]))
    # link0 at Rz(90) Tx(100): (10, 100, 0) mm; link1 adds Rz(90 + 45 + 90) Tx(50)
    np.testing.assert_allclose(T[r.link_index("Hand_chain0_link0")][:3, 3], [0.010, 0.100, 0], atol=1e-15)
    ang = math.radians(90 + 45 + 90)
    np.testing.assert_allclose(T[r.link_index("Hand_chain0_link1")][:3, 3],
                               [0.010 + 0.050 * math.cos(ang), 0.100 + 0.050 * math.sin(ang), 0], atol=1e-15)
    d = r.drivers[0]
    # ranges: -180..180 and (-180..180)/0.5 intersect to -180..180 degrees
    assert (d.qmin, d.qmax) == (pytest.approx(-math.pi), pytest.approx(math.pi))
    assert d.type == "affine" and d.scale == [1.0, 0.5] and d.offset == [0.0, 0.0]
    # units: link mass 100 g, cube of 20 mm: cog at 0, inertia (20^2+20^2)/12 mm^2 per unit mass
    l0 = r.link("Hand_chain0_link0")
    assert l0.mass == pytest.approx(0.1)
    np.testing.assert_allclose(l0.com, 0, atol=1e-15)
    np.testing.assert_allclose(l0.inertia, np.eye(3) * 0.1 * (800 / 12) * 1e-6, rtol=1e-12)
    # geometry in metres, in the DH frame of the link
    assert np.abs(l0.geometry.world_vertices()).max() == pytest.approx(0.010)


def test_prismatic_chain_and_reversed_limits(tmp_path):
    p = make_robot(tmp_path, [f'{pri("d0*-1+-5", theta=90, alpha=90, lo=0, hi=-20)}{links(1, "Prismatic")}'])
    with pytest.warns(roboio.RoboioWarning, match="minValue > maxValue"):
        r = roboio.load(p)
    T = r.fk(r.config_from_drivers([0.002]))          # DOF in metres: d = -2 mm - 5 mm
    np.testing.assert_allclose(T[1][:3, 3], [0, 0, -0.007], atol=1e-15)
    np.testing.assert_allclose(T[1][:3, :3], [[0, 0, 1], [1, 0, 0], [0, 1, 0]], atol=1e-15)
    assert (r.qmin[1], r.qmax[1]) == (-0.02, 0.0)
    assert (r.drivers[0].qmin, r.drivers[0].qmax) == (0.0, 0.02)


def test_universal_link_and_trailing_joint(tmp_path):
    chain = f'{rev("d0", alpha=90)}{rev("d1", a=30)}{rev("d1", a=20)}' \
            '<link dynamicJointType="Universal">cube.xml</link>'
    p = make_robot(tmp_path, [chain], dofs=("r", "r"))
    with pytest.warns(roboio.RoboioWarning, match="carry no link"):
        r = roboio.load(p)
    # joint0 has no link (intermediate, massless); link0 after joint1 (a=30: welded child)
    assert r.link("Hand_chain0_joint0").mass == 0 and r.link("Hand_chain0_joint0").geometry is None
    link0 = r.link("Hand_chain0_link0")
    assert r.joint_of_link(link0.index).type == "weld"
    T = r.fk(r.config_from_drivers([math.radians(90), 0]))
    # Rz(90) Rx(90) Tx(30): x axis after Rz(90) is +y
    np.testing.assert_allclose(T[link0.index][:3, 3], [0, 0.030, 0], atol=1e-15)
    # the trailing joint (2) still moves with DOF 1
    assert r.drivers[1].dofs == [r.link_index("Hand_chain0_joint1"), r.link_index("Hand_chain0_joint2")]


def test_transform_order_and_rotation_matrix_columns(tmp_path):
    chains = ['<transform><rotation>-90 x</rotation><translation>165 110 -25</translation></transform>'
              f'{rev("d0")}{links(1)}',
              '<transform><rotationMatrix>1 0 0 0 2.22045e-16 1 0 -1 2.22045e-16</rotationMatrix>'
              f'</transform>{rev("d0")}{links(1)}',
              '<transform><fullTransform>(2 0 0 0)[1 2 3]</fullTransform></transform>'
              f'{rev("d0")}{links(1)}']
    r = roboio.load(make_robot(tmp_path, chains))
    T = r.fk(r.config_from_drivers([0]))
    np.testing.assert_allclose(T[1][:3, 3], [0.165, -0.025, -0.110], atol=1e-15)
    np.testing.assert_allclose(T[2][:3, :3], [[1, 0, 0], [0, 0, -1], [0, 1, 0]], atol=1e-15)  # Rx(+90)
    np.testing.assert_allclose(T[3], [[1, 0, 0, 0.001], [0, 1, 0, 0.002], [0, 0, 1, 0.003], [0, 0, 0, 1]],
                               atol=1e-15)


def test_default_value_degrees_and_quirk_warning(tmp_path):
    dofs = [("r", "<defaultValue>30</defaultValue>"), ("r", "<defaultValue>400</defaultValue>")]
    chain = f'{rev("d0")}{rev("d1-2.46", lo=0, hi=90)}{links(2)}'
    with pytest.warns(roboio.RoboioWarning, match="ignores '-2.46'"):
        r = roboio.load(make_robot(tmp_path, [chain], dofs=dofs))
    # DOF defaults are degrees, clamped into the DOF range (400 -> 90)
    np.testing.assert_allclose(r.drivers_from_config(), [math.radians(30), math.radians(90)], atol=1e-15)
    # the offset -2.46 is dropped, as GraspIt! does: theta = q exactly
    T = r.fk(r.config_from_drivers([0, 0]))
    np.testing.assert_allclose(T[2][:3, :3], np.eye(3), atol=1e-15)


def test_compliant_dof_ratio(tmp_path):
    """Spec §6.1: compliant joints other than 0, 2, 4, 6 get (k_ref/k_j) r1 rj / (r1 + rj)."""
    j = lambda th, k: rev(th, a=10, extra=f"<springStiffness>{k}</springStiffness>")   # noqa: E731
    chain = f'{j("d0", 100)}{j("d0*0.6", 200)}{links(2)}'
    r = roboio.load(make_robot(tmp_path, [chain], dofs=("c",)))
    assert r.drivers[0].scale == [1.0, pytest.approx((100 / 200) * 0.6 / 1.6)]


def test_missing_body_mass_defaults_and_mesh_props(tmp_path):
    p = make_robot(tmp_path, [f'{rev("d0")}{links(1)}'], body="")
    r = roboio.load(p)
    assert r.links[0].mass == pytest.approx(0.3)        # 300 g default
    np.testing.assert_allclose(r.links[0].com, 0, atol=1e-12)
    np.testing.assert_allclose(r.links[0].inertia, np.eye(3) * 0.3 * 800 / 12 * 1e-6, rtol=1e-9)


def test_approach_eigengrasps_virtual_contacts(tmp_path):
    extra = ("<approachDirection><referenceLocation>0 0 50</referenceLocation><direction>1 0 0</direction>"
             "</approachDirection><eigenGrasps>eigen/e.xml</eigenGrasps>"
             "<virtualContacts>virtual/v.xml</virtualContacts>")
    p = make_robot(tmp_path, [f'{rev("d0")}{links(1)}'], extra=extra)
    d = os.path.dirname(p)
    os.makedirs(os.path.join(d, "eigen"))
    os.makedirs(os.path.join(d, "virtual"))
    with open(os.path.join(d, "eigen", "e.xml"), "w") as f:
        f.write('<EigenGrasps dimensions="1"><EG><EigenValue value="0.5"/><DimVals d0="2"/></EG>'
                '<ORIGIN><DimVals d0="0.5"/></ORIGIN></EigenGrasps>')
    with open(os.path.join(d, "virtual", "v.xml"), "w") as f:
        f.write("<virtual_contacts><virtual_contact><finger_number>0</finger_number><link_number>0"
                "</link_number><num_friction_edges>1</num_friction_edges><friction_edges><friction_edge>"
                "1 0 0 0 0 0</friction_edge></friction_edges><location>1 2 3</location><rotation>1 0 0 0"
                "</rotation><translation>1 2 3</translation><normal>0 0 1</normal><sCof>0.5</sCof>"
                "</virtual_contact></virtual_contacts>")
    r = roboio.load(p)
    gx = r.extras["graspit"]
    # z = direction; x from (0, 1, 0) since z is along x; y = z cross x; x = y cross z
    np.testing.assert_allclose(gx["approach"].transform(),
                               [[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0.05], [0, 0, 0, 1]], atol=1e-15)
    eg = gx["eigengrasps"]
    np.testing.assert_allclose(eg.matrix(), [[1.0]])           # normalised
    assert eg.to_dofs([0.25], [0.5])[0] == pytest.approx(0.75)
    (vc,) = gx["virtual_contacts"]
    assert (vc.finger, vc.link, vc.location, vc.sCof) == (0, 0, (1.0, 2.0, 3.0), 0.5)


# -- worlds --------------------------------------------------------------------------------
def test_world_dof_values_breakaway_and_bare_geometry(tmp_path):
    root = tmp_path / "gr"
    make_robot(root / "models" / "robots", [f'{rev("d0", a=10)}{rev("d1", a=10)}{rev("d1*0.5", a=10)}{links(3)}'],
               dofs=("r", ("b", "<breakAwayTorque>0.5</breakAwayTorque>")))
    (root / "models" / "objects").mkdir(parents=True)
    (root / "models" / "objects" / "thing.iv").write_text(CUBE_IV.replace("10", "0.01"))
    (root / "models" / "objects" / "default.xml").write_text("<root><geometryScaling>1000</geometryScaling></root>")
    w = root / "worlds" / "w.xml"
    w.parent.mkdir()
    w.write_text("""<?xml version="1.0" ?>
<world>
  <graspableBody><filename>models/objects/thing.iv</filename>
    <transform><translation>0 0 100</translation></transform></graspableBody>
  <robot><filename>models/robots/Hand/Hand.xml</filename>
    <dofValues>+0.1 +0.8 +0 1 +0.4 </dofValues>
    <transform><fullTransform>(+1 0 0 0)[0 0 +50]</fullTransform></transform></robot>
</world>
""")
    world = roboio.load(str(w), search_paths=[str(root)])
    (obj,) = world.rigid_objects
    assert obj.name == "thing"
    np.testing.assert_allclose(obj.transform[:3, 3], [0, 0, 0.1])
    # a bare geometry file is in metres (default.xml scales by 1000)
    assert np.abs(obj.geometry.world_vertices()).max() == pytest.approx(0.01)
    (r,) = world.robots
    np.testing.assert_allclose(r.links[0].parent_transform[:3, 3], [0, 0, 0.05])
    # DOF 1 is breakaway: its first joint follows 0.8, the second is frozen at 0.4 * 0.5
    q = r.config
    assert q[r.link_index("Hand_chain0_joint1")] == pytest.approx(0.8)
    assert q[r.link_index("Hand_chain0_joint2")] == pytest.approx(0.2)
    assert r.extras["graspit"]["breakaway"][1] == [(0, None), (1, 0.4)]


def test_world_from_graspit_environment(tmp_path, monkeypatch):
    root = tmp_path / "gr"
    make_robot(root / "models" / "robots", [f'{rev("d0")}{links(1)}'])
    (tmp_path / "w.xml").write_text("<world><robot><filename>models/robots/Hand/Hand.xml</filename>"
                                    "</robot></world>")
    monkeypatch.setenv("GRASPIT", str(root))
    assert roboio.load(str(tmp_path / "w.xml")).robots[0].name == "Hand"


def test_world_in_a_subfolder_of_worlds_finds_the_graspit_root(tmp_path, monkeypatch):
    # GraspIt! trees keep worlds in subfolders ($GRASPIT/worlds/PSA/x.xml, ana-GT/Graspit):
    # without $GRASPIT the root is the folder holding "worlds", two levels up
    monkeypatch.delenv("GRASPIT", raising=False)
    root = tmp_path / "gr"
    make_robot(root / "models" / "robots", [f'{rev("d0")}{links(1)}'])
    w = root / "worlds" / "PSA" / "w.xml"
    w.parent.mkdir(parents=True)
    w.write_text("<world><robot><filename>models/robots/Hand/Hand.xml</filename></robot></world>")
    assert roboio.load(str(w)).robots[0].name == "Hand"


# -- bad input -----------------------------------------------------------------------------
def line_of(path, needle: str) -> int:
    """1-based line of the first occurrence of ``needle`` in the file."""
    with open(path) as f:
        text = f.read()
    return text[:text.index(needle)].count("\n") + 1


def _error(path, **kw) -> str:
    with pytest.raises(roboio.FormatError) as e:
        roboio.load(path, **kw)
    return str(e.value)


def test_wrong_number_count(tmp_path):
    p = make_robot(tmp_path, ["<transform>\n<translation>1 2</translation></transform>"
                              f'{rev("d0")}{links(1)}'])
    msg = _error(p)
    assert msg.startswith(f"{p}:{line_of(p, '<translation>1 2')}:") and "expected 3 numbers, got 2" in msg


def test_dof_expression_naming_a_missing_dof(tmp_path):
    p = make_robot(tmp_path, [f'{rev("d0")}\n{rev("d3")}{links(2)}'], dofs=("r", "r"))
    msg = _error(p)
    assert msg.startswith(f"{p}:{line_of(p, '<theta>d3')}:")
    assert "names DOF 3" in msg and "2 DOFs" in msg


def test_plain_number_in_dof_slot(tmp_path):
    assert "plain number" in _error(make_robot(tmp_path, [f'{rev("90")}{links(1)}']))


def test_chain_with_more_links_than_joints(tmp_path):
    p = make_robot(tmp_path, [f'{rev("d0")}\n<link dynamicJointType="Revolute">cube.xml</link>\n'
                              '<link dynamicJointType="Universal">cube.xml</link>'])
    msg = _error(p)
    assert msg.startswith(f"{p}:{line_of(p, 'Universal')}:") and "consume 3 joints" in msg and "only 1" in msg


def test_fixed_link_refused_like_graspit(tmp_path):
    assert "Fixed" in _error(make_robot(tmp_path, [f'{rev("d0")}{links(1, "Fixed")}']))


def test_file_that_includes_itself(tmp_path):
    p = make_robot(tmp_path, [f'{rev("d0")}{links(1)}'])
    text = open(p).read().replace("<palm>cube.xml</palm>", "<palm>../Hand.xml</palm>")
    with open(p, "w") as f:
        f.write(text)
    msg = _error(p)
    assert "includes itself" in msg and msg.count("Hand.xml") >= 3
    # a world naming itself as its robot
    w = tmp_path / "w.xml"
    w.write_text("<world><robot><filename>w.xml</filename></robot></world>")
    msg = _error(str(w), search_paths=[str(tmp_path)])
    assert "includes itself" in msg and "w.xml -> " in msg


def test_inventor_include_cycle_and_syntax_errors(tmp_path):
    p = make_robot(tmp_path, [f'{rev("d0")}{links(1)}'], body="")       # cog/inertia computed: parse now
    iv = os.path.join(os.path.dirname(p), "iv", "cube.iv")
    with open(iv, "w") as f:
        f.write('#Inventor V2.1 ascii\nSeparator {\n  File { name "cube.iv" }\n}\n')
    msg = _error(p)
    assert "cube.iv:3:" in msg and "cycle" in msg
    with open(iv, "w") as f:
        f.write("#Inventor V2.1 ascii\nSeparator {\n  Coordinate3 { point [ 0 0 0, 1 0 ] }\n"
                "  IndexedFaceSet { coordIndex [ 0, 1, 2, -1 ] }\n}\n")
    msg = _error(p)
    assert "cube.iv:" in msg


def test_unknown_inventor_node_skipped_with_a_warning(tmp_path):
    p = make_robot(tmp_path, [f'{rev("d0")}{links(1)}'], body="")
    iv = os.path.join(os.path.dirname(p), "iv", "cube.iv")
    with open(iv, "w") as f:
        f.write(CUBE_IV.replace("Separator {", "Separator {\n  Gizmo { size 3 }", 1))
    with pytest.warns(roboio.RoboioWarning, match="unknown node type Gizmo"):
        r = roboio.load(p)
    assert len(r.links[0].geometry.faces) == 12


@pytest.mark.parametrize("world,match", [
    ("<world><comment/></world>", "not a GraspIt! world element"),
    ("<world><camera><position>1 2 3</position></camera></world>", "without <orientation>"),
    ("<world><obstacle><transform/></obstacle></world>", "neither <filename> nor <body>"),
    ("<world><robot><dofValues>1</dofValues></robot></world>", "without <filename>"),
])
def test_world_errors(tmp_path, world, match):
    (tmp_path / "w.xml").write_text(world)
    msg = _error(str(tmp_path / "w.xml"), format="graspit")
    assert match in msg and ":1:" in msg


def test_link_budget(tmp_path):
    p = make_robot(tmp_path, [f'{rev("d0")}{rev("d0")}{links(2)}'])
    assert "max_links" in _error(p, limits={"max_links": 1})


def test_body_errors(tmp_path):
    (tmp_path / "b.xml").write_text("<root>\n<material>cheese</material><geometryFile>x.iv</geometryFile></root>")
    assert "b.xml:2:" in _error(str(tmp_path / "b.xml")) and "cheese" in _error(str(tmp_path / "b.xml"))
    (tmp_path / "c.xml").write_text("<root>\n<mass>5</mass>\n<cog>1 2</cog><geometryFile>x.iv</geometryFile></root>")
    assert "c.xml:3:" in _error(str(tmp_path / "c.xml"))
    (tmp_path / "d.xml").write_text("<root><material>wood</material></root>")
    assert "without <geometryFile>" in _error(str(tmp_path / "d.xml"))


def test_robot_data_files_are_not_loaded_alone(tmp_path):
    (tmp_path / "e.xml").write_text('<EigenGrasps dimensions="1"><EG><DimVals d0="1"/></EG></EigenGrasps>')
    assert "eigengrasp file" in _error(str(tmp_path / "e.xml"))


def test_friction_table():
    from roboio.formats.graspit.materials import friction
    assert friction("rubber", "stone") == friction("stone", "rubber") == (1.5, 1.4)
    assert friction("frictionless", "rubber") == (0.0, 0.0)
    assert friction("wood", "wood") == (0.4, 0.3)
    with pytest.raises(ValueError):
        friction("cheese", "wood")


@pytest.mark.parametrize("field", ["alpha", "a", "d"])
def test_dh_parameter_out_of_range(tmp_path, field):
    # found by the fuzzer: <alpha>1e999</alpha> reached math.sin(inf) (ValueError)
    kw = {"alpha": 0, "a": 0, "d": 0, field: "1e999"}
    p = make_robot(tmp_path, [f'{rev("d0", d=kw["d"], a=kw["a"], alpha=kw["alpha"])}{links(1)}'])
    with pytest.raises(roboio.FormatError, match=rf"<{field}>1e999</{field}> is out of range"):
        roboio.load(p)


def test_old_text_virtual_contacts_are_skipped_as_graspit_does(tmp_path):
    """GraspIt! 0.9 robots name ``.vgr`` text files; the XML GraspIt! logs "Failed to load
    virtual contacts" and loads the robot (issue 21)."""
    p = make_robot(tmp_path, [f'{rev("d0")}{links(1)}'],
                   extra="<virtualContacts>virtual/contacts.vgr</virtualContacts>")
    os.makedirs(os.path.join(os.path.dirname(p), "virtual"))
    with open(os.path.join(os.path.dirname(p), "virtual", "contacts.vgr"), "w") as f:
        f.write("Hand\n1\n0 0\n1 0 0 0 0 0\n1 2 3\n")
    with pytest.warns(roboio.RoboioWarning, match="not XML.*Failed to load virtual contacts"):
        r = roboio.load(p)
    assert r.num_links == 2 and r.extras["graspit"]["virtual_contacts"] is None
    with pytest.raises(roboio.FormatError, match="not XML"):
        roboio.load(p, strict=True)
