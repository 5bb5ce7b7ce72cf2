"""Klamp't world XML on small hand-written worlds: transform attributes, robots, rigid
objects, terrains, displays, physics, simulation, and bad input. Expected values are
computed here with plain numpy (own rotation formulas) or worked by hand."""
import math
import os
import warnings

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.formats.klampt.world._simulation import SimulationSettings

from conftest import Rx, Ry, Rz
from test_world_objects import CUBE_OFF, box_surface_moments, inertia_from_C

TWO_ROB = """links "a" "b"
parents -1 0
axis 0 0 1  0 1 0
jointtype r p
Tparent 1 0 0 0 1 0 0 0 1 0 0 0.5   1 0 0 0 1 0 0 0 1 1 0 0
qmin -1 -1
qmax 1 1
geometry "cube.off" ""
"""
# two root links (a forest): the world transform must reach both
FOREST_ROB = """links "r1" "r2" "c"
parents -1 -1 1
axis 0 0 1  0 0 1  1 0 0
Tparent 1 0 0 0 1 0 0 0 1 1 0 0   0 1 0 -1 0 0 0 0 1 0 2 0   1 0 0 0 1 0 0 0 1 0 0 1
geometry "" "" ""
"""


def rodrigues(m):
    m = np.asarray(m, float)
    th = np.linalg.norm(m)
    if th == 0:
        return np.eye(3)
    k = m / th
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(th) * K + (1 - math.cos(th)) * K @ K


def affine(R=np.eye(3), t=(0, 0, 0), s=(1, 1, 1)):
    T = np.eye(4)
    T[:3, :3] = np.asarray(R) @ np.diag(s)
    T[:3, 3] = t
    return T


@pytest.fixture
def wdir(tmp_path):
    (tmp_path / "cube.off").write_text(CUBE_OFF)
    (tmp_path / "two.rob").write_text(TWO_ROB)
    (tmp_path / "forest.rob").write_text(FOREST_ROB)
    return tmp_path


def world(wdir, body, name="w.xml", strict=False):
    p = wdir / name
    p.write_text('<?xml version="1.0"?>\n<world>\n' + body + "\n</world>\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(str(p), strict=strict)


# ------------------------------------------------------------------- transform attributes

TRANSFORMS = [
    ('translation="1 2 3"', affine(t=(1, 2, 3))),
    ('position="1 2 3"', affine(t=(1, 2, 3))),
    ('translation="1 2 3" position="5 5 5"', affine(t=(1, 2, 3))),
    ('translation="1 2 3 4"', affine(t=(1, 2, 3))),
    ('rotateX="0.3"', affine(Rx(0.3))),
    ('rotateY="-0.7"', affine(Ry(-0.7))),
    ('rotateZ="1.5707963"', affine(Rz(1.5707963))),
    # fixed order X, then Y, then Z about world axes, whatever the attribute order
    ('rotateZ="0.5" rotateX="0.2" rotateY="0.3"', affine(Rz(0.5) @ Ry(0.3) @ Rx(0.2))),
    ('rotateRPY="0.1 0.2 0.3"', affine(Rz(0.3) @ Ry(0.2) @ Rx(0.1))),
    ('rotateMoment="0.1 -0.2 0.4"', affine(rodrigues([0.1, -0.2, 0.4]))),
    # rotateMoment replaces rotateRPY
    ('rotateRPY="0.1 0.2 0.3" rotateMoment="0 0 0.4"', affine(Rz(0.4))),
    ('rotateX="0.25" rotateRPY="0.1 0.2 0.3" position="0 0 1"',
     affine(Rx(0.25) @ Rz(0.3) @ Ry(0.2) @ Rx(0.1), (0, 0, 1))),
    ('rotateY="0.5" rotateMoment="1 1 0" translation="1 0 0" rotateZ="-1"',
     affine(Rz(-1) @ Ry(0.5) @ rodrigues([1, 1, 0]), (1, 0, 0))),
]


@pytest.mark.parametrize("attrs,expect", TRANSFORMS, ids=[a for a, _ in TRANSFORMS])
def test_transform_attributes_on_objects_robots_and_terrains(wdir, attrs, expect):
    w = world(wdir, f'<robot file="forest.rob" {attrs}/>\n'
                    f'<rigidObject file="cube.off" {attrs}/>\n'
                    f'<terrain file="cube.off" {attrs}/>')
    o = w.rigid_objects[0]
    np.testing.assert_allclose(o.transform, expect, atol=1e-15)
    np.testing.assert_array_equal(o.geometry.transform, np.eye(4))
    t = w.terrains[0]
    np.testing.assert_array_equal(t.transform, np.eye(4))
    np.testing.assert_allclose(t.geometry.transform, expect, atol=1e-15)
    r = w.robots[0]
    forest = roboio.load(str(wdir / "forest.rob"))
    for i in (0, 1):        # both roots pre-multiplied, the child untouched
        np.testing.assert_allclose(r.links[i].parent_transform, expect @ forest.links[i].parent_transform,
                                   atol=1e-15)
    np.testing.assert_array_equal(r.links[2].parent_transform, forest.links[2].parent_transform)


SCALES = [("2", (2, 2, 2)), ("1 2 3", (1, 2, 3)), ("2 3", (2, 2, 2)), ("1 2 3 4", (1, 2, 3))]


@pytest.mark.parametrize("scale,s", SCALES)
def test_scale_is_applied_first_on_terrains_and_geometry(wdir, scale, s):
    w = world(wdir, f'<terrain file="cube.off" scale="{scale}" rotateZ="1.5707963" translation="0 0 -1"/>\n'
                    f'<rigidObject position="5 0 0"><geometry mesh="cube.off" scale="{scale}" rotateY="0.4" '
                    f'translation="0 0 1" margin="0.02"/></rigidObject>')
    T = affine(Rz(1.5707963), (0, 0, -1), s)
    np.testing.assert_allclose(w.terrains[0].geometry.transform, T, atol=1e-15)
    g = w.rigid_objects[0].geometry
    np.testing.assert_allclose(g.transform, affine(Ry(0.4), (0, 0, 1), s), atol=1e-15)
    assert g.margin == 0.02
    # spec §5.2 verified example: scale "2 1 1", translation 0 0 -1, rotateZ pi/2
    w = world(wdir, '<terrain file="cube.off" scale="2 1 1" translation="0 0 -1" rotateZ="1.5707963"/>',
              name="v.xml")
    np.testing.assert_allclose(w.terrains[0].geometry.bounds(), [[-1, 0, -1], [0, 2, 0]], atol=1e-7)


def test_translate_is_ignored_with_a_warning(wdir):
    w = world(wdir, '<rigidObject position="0 0 1"><geometry mesh="cube.off" scale="0.1" '
                    'translate="-0.05 -0.05 -0.05"/></rigidObject>')
    np.testing.assert_array_equal(w.rigid_objects[0].geometry.transform, np.diag([0.1, 0.1, 0.1, 1]))
    assert any("translate>: ignored" in x and "w.xml:3" in x for x in w.warnings)


# --------------------------------------------------------------------------------- robots

def test_robot_defaults_config_configfile_and_order(wdir):
    (wdir / "q.config").write_text("2 0.1 0.2\n")
    w = world(wdir, '<terrain file="cube.off"/>\n'
                    '<rigidObject file="cube.off"/>\n'
                    '<robot file="two.rob" config="2\t0.5   -0.25"/>\n'
                    '<robot name="second" file="two.rob" config="2 1 1" configfile="q.config"/>\n'
                    '<terrain name="named" file="cube.off"/>\n<terrain file="cube.off"/>')
    assert [r.name for r in w.robots] == ["Robot", "second"]
    assert w.robots[0].config.tolist() == [0.5, -0.25]
    assert w.robots[1].config.tolist() == [0.1, 0.2]          # configfile wins
    assert [t.name for t in w.terrains] == ["Terrain0", "named", "Terrain2"]
    assert [o.name for o in w.rigid_objects] == ["Object"]
    # Klamp't IDs: terrains, then objects, then each robot followed by its links
    assert w.num_ids == 3 + 1 + 3 + 3
    assert w.element(4) is w.robots[0] and w.element(5) is w.robots[0].links[0]


def test_robot_sensors_and_displays(wdir):
    w = world(wdir, '<robot file="two.rob">\n'
                    '  <appearance color="1 1 1"/>\n'
                    '  <sensors><JointPositionSensor name="enc"/></sensors>\n'
                    '  <display link="b" faceColor="1 0 0 0.5"/>\n'
                    '  <display link="0" edgeColor="0 1 0" edgeSize="2"/>\n'
                    '  <display link="nope" color="1 1 1"/>\n'
                    '  <appearance link="1" shininess="5"/>\n'
                    '  <foo link="a" specularColor="0.5 0.5 0.5 1"/>\n'
                    '  <display color="0 0 1"/>\n'
                    '</robot>\n'
                    '<robot name="f" file="two.rob"><sensors file="s.xml"/></robot>')
    r = w.robots[0]
    a, b = r.links[0].appearance, r.links[1].appearance
    # the last <display> (no link) colours every link; earlier ones set other fields
    assert a.color == b.color == a.vertex_color == b.vertex_color == (0, 0, 1, 1)
    assert b.draw_faces is None and a.draw_faces is None      # alpha 0.5: faces drawn (default)
    assert a.edge_color == (0, 1, 0, 1) and a.edge_size == 2 and a.draw_edges is True
    assert b.shininess == 5                             # <appearance> after a <display>
    assert a.specular_color == (0.5, 0.5, 0.5, 1)       # any element after a <display> (quirk)
    assert "<JointPositionSensor" in r.properties["sensors"]
    assert w.robots[1].properties["sensors"] == "s.xml"
    msgs = "\n".join(w.warnings)
    assert "w.xml:4: <appearance> ignored" in msgs
    assert "w.xml:8: <display link=\"nope\">: no such link" in msgs
    assert "w.xml:10: <foo> after a <display>" in msgs


# ------------------------------------------------------------------------- rigid objects

def test_rigid_object_processing_order(wdir):
    (wdir / "o.obj").write_text("mesh cube.off\nT 1 0 0 0 1 0 0 0 1 7 8 9\nmass 3\ninertia 1 2 3\n"
                                "kFriction 0.9\n")
    w = world(wdir, '<rigidObject name="plain" file="o.obj"/>\n'
                    # transform attributes replace the .obj T completely
                    '<rigidObject name="moved" file="o.obj" rotateZ="0.6" translation="0.2 0.05 0.015" margin="1">\n'
                    '  <geometry scale="2"/>\n'
                    '  <physics mass="0.5" com="1 2 3" inertia="1 0 0 0 2 0 0 0 3" kStiffness="inf" kDamping="5"/>\n'
                    '  <display color="1 0 0"/>\n  <appearance color="0 1 0"/>\n'
                    '</rigidObject>\n'
                    '<rigidObject name="auto" position="0 0 1"><geometry mesh="cube.off" scale="0.4 0.2 0.1" '
                    'translation="-0.2 0 1"/><physics mass="0.1" automass="1" com="9 9 9" inertia="9 9 9 9 9 9 9 9 9"/>'
                    '</rigidObject>\n'
                    '<rigidObject name="solid"><geometry mesh="cube.off" scale="2 1 3"/>'
                    '<physics mass="6" automass="1" automassSurfaceFraction="0"/></rigidObject>\n'
                    '<rigidObject name="none"><geometry mesh="cube.off"/><appearance color="0 1 0"/></rigidObject>\n'
                    '<rigidObject name="geomfile" file="cube.off"/>')
    plain, moved, auto, solid, none, geomfile = w.rigid_objects
    np.testing.assert_array_equal(plain.transform[:3, 3], [7, 8, 9])
    assert plain.mass == 3 and plain.kFriction == 0.9
    np.testing.assert_allclose(moved.transform, affine(Rz(0.6), (0.2, 0.05, 0.015)), atol=1e-15)
    np.testing.assert_array_equal(moved.geometry.transform, np.diag([2, 2, 2, 1.0]))
    assert moved.geometry.margin == 0                   # <rigidObject margin> is not read
    assert moved.mass == 0.5 and moved.com.tolist() == [1, 2, 3] and moved.kFriction == 0.9
    np.testing.assert_array_equal(moved.inertia, np.diag([1, 2, 3]))
    assert moved.kStiffness == math.inf and moved.kDamping == 5
    assert moved.appearance.color == (1, 0, 0, 1)       # first <display> wins over <appearance>
    assert none.appearance.color == (0, 1, 0, 1)        # else the first <appearance>
    # automass overrides com and inertia, from the transformed geometry
    np.testing.assert_allclose(auto.com, [0, 0.1, 1.05], atol=1e-15)
    np.testing.assert_allclose(auto.inertia, inertia_from_C(0.1, np.diag(box_surface_moments(0.4, 0.2, 0.1))),
                               rtol=1e-12, atol=1e-18)
    np.testing.assert_allclose(solid.inertia, inertia_from_C(6, np.diag([4, 1, 9]) / 12), rtol=1e-12, atol=1e-15)
    # no file: mass 1, com 0, inertia 0; a geometry file: automass with surface fraction 1
    assert none.mass == 1 and none.com.tolist() == [0, 0, 0] and not none.inertia.any()
    np.testing.assert_allclose(geomfile.com, [0.5] * 3, atol=1e-15)
    np.testing.assert_allclose(geomfile.inertia, inertia_from_C(1, np.diag(box_surface_moments(1, 1, 1))),
                               rtol=1e-12, atol=1e-15)
    assert any("<rigidObject margin>: ignored" in x for x in w.warnings)


def test_terrain_env_friction_margin_and_display(wdir):
    (wdir / "t.env").write_text("mesh cube.off\nkFriction 0.3\n")
    w = world(wdir, '<terrain file="t.env" margin="0.01"><display faceColor="1 0 0 0" vertexSize="3" '
                    'silhouette="2" texture="checker" texture_projection="z" emissiveColor="0.1 0.2 0.3 0.4"/>'
                    '</terrain>\n<terrain file="t.env" kFriction="0.9"/>\n'
                    '<terrain name="x" file="cube.off"><appearance color="1 1 1" texture="img.png" '
                    'texture_projection="sphere"/></terrain>')
    a, b, c = w.terrains
    assert (a.name, b.name, c.name) == ("Terrain0", "Terrain1", "x")
    assert a.kFriction == 0.3 and b.kFriction == 0.9 and c.kFriction == 0.5
    assert a.geometry.margin == 0.01
    app = a.appearance
    assert app.color == (1, 0, 0, 0) and app.draw_faces is False
    assert app.vertex_size == 3 and app.draw_vertices is True
    assert app.silhouette == (2, 0, 0, 0, 1)
    assert app.texture == "checker" and app.texture_projection == "z"
    assert app.emissive_color == (0.1, 0.2, 0.3, 0.4)
    assert c.appearance.texture == os.path.join(str(wdir), "img.png")
    assert c.appearance.texture_projection == "xy"
    assert any("texture_projection=\"sphere\"" in x for x in w.warnings)


# ------------------------------------------------------------- world-level elements

SIM = """<simulation>
  <globals gravity="0 0 -9.81" maxContacts="5" ERP="0.2"/>
  <object index="0"><geometry kFriction="0.5" padding="0.01" preshink="1"/><velocity linear="1 0 0"/></object>
  <terrain name="Terrain0"><geometry padding="0" kStiffness="inf"/></terrain>
  <robot index="0" body="1"><geometry padding="0.002" preshrink="2"/><controller type="PID" rate="100"/></robot>
  <robot index="0"><sensors><JointPositionSensor name="q"/></sensors></robot>
  <joint type="hinge" axis="0 0 1" point="0 0 0" min="-1" minimax="1" friction="0.2"><object name="Object"/></joint>
  <state data="AAAA"/>
</simulation>"""


def test_background_goals_simulation_and_unknown_elements(wdir):
    w = world(wdir, '<display background="1 1 1 0" color="1 0 0"/>\n<display background="0 0 0 1"/>\n'
                    '<goal position="1 2 3"/>\n<goal position="4 5 6"/>\n'
                    '<robot file="two.rob"/><rigidObject file="cube.off"/><terrain file="cube.off"/>\n'
                    '<target position="1 1 1"/>\n' + SIM)
    assert w.extras["background"] == (1, 1, 1, 0)
    assert [g.tolist() for g in w.extras["goals"]] == [[1, 2, 3], [4, 5, 6]]
    sim = w.extras["klampt_simulation"]
    assert isinstance(sim, SimulationSettings)
    g = sim.globals
    assert g["gravity"] == (0, 0, -9.81) and g["maxContacts"] == 5 and g["ERP"] == 0.2
    assert g["robotRobotCollisions"] == 1 and g["timestep"] is None
    b = sim.bodies
    assert [(x.ref.kind, x.ref.index, x.ref.name, x.ref.body) for x in b] == [
        ("object", 0, None, None), ("terrain", None, "Terrain0", None), ("robot", 0, None, 1),
        ("robot", 0, None, None)]
    assert b[0].geometry == {"kFriction": 0.5, "padding": 0.01} and b[0].velocity == {"linear": (1, 0, 0)}
    assert b[1].geometry["kStiffness"] == math.inf
    assert b[2].geometry == {"padding": 0.002, "preshrink": 2} and b[2].controller == {"type": "PID", "rate": "100"}
    assert "JointPositionSensor" in b[3].sensors
    (j,) = sim.joints
    assert (j.type, j.axis, j.point, j.min, j.max, j.friction) == ("hinge", (0, 0, 1), (0, 0, 0), -1, 1, 0.2)
    assert sim.state == "AAAA"
    msgs = "\n".join(w.warnings)
    assert "preshink> is ignored" in msgs and "without a valid body" in msgs
    assert "<target> ignored" in msgs and "only background is read" in msgs
    assert [n.tag for n in w.extras["klampt_world_xml"]] == ["display", "target"]


# ------------------------------------------------------------------------------ bad input

BAD = [
    ('<rigidObject file="cube.off" translation="1 x 3"/>', 3, 'translation="1 x 3">: expected numbers'),
    ('<rigidObject file="cube.off" translation="1 2"/>', 3, "translation.*expected 3 numbers, got 2"),
    ('<rigidObject file="cube.off" rotateZ="ninety"/>', 3, "rotateZ.*expected a finite angle|rotateZ.*a number"),
    ('<terrain file="cube.off" scale="big"/>', 3, "scale=\"big\">: expected numbers"),
    ('<rigidObject file="cube.off"><physics mass="heavy"/></rigidObject>', 3, "mass=\"heavy\">: expected a number"),
    ('<rigidObject file="cube.off"><physics kFriction="+1"/></rigidObject>', 3, "leading '\\+'"),
    ('<rigidObject file="cube.off"><physics automass="yes"/></rigidObject>', 3, "automass=\"yes\">: expected an integer"),
    ('<robot file="two.rob" config="3 0 0 0"/>', 3, "3 values for a robot with 2 links"),
    ('<robot file="two.rob" config="2 0"/>', 3, "expected 2 numbers after the count"),
    ('<robot file="two.rob" config="two 0 0"/>', 3, "expected 'N q1 ... qN'"),
    ('<robot file="two.rob" config="2 0 inf"/>', 3, "expected 2 numbers"),
    ('<robot file="cube.off"/>', 3, "a robot file must be .rob or .urdf"),
    ('<robot file="nothere.rob"/>', 3, "file not found \\(looked for: .*nothere.rob\\)"),
    ('<robot/>', 3, "<robot> needs a file attribute"),
    ('<robot file="two.rob" configfile="none.config"/>', 3, "none.config.*file not found"),
    ('<rigidObject file="none.obj"/>', 3, "none.obj.*file not found"),
    ('<terrain file="none.env"/>', 3, "none.env.*file not found"),
    ('<terrain/>', 3, "<terrain> needs a file attribute"),
    ('<rigidObject name="x"/>', 3, "<rigidObject name=\"x\"> has no geometry"),
    ('<goal/>', 3, "<goal> needs a position"),
    ('<display background="1 1 1"/>', 3, "background>: expected 4 numbers"),
    ('<display color="1 1"/><rigidObject file="cube.off"><display color="1"/></rigidObject>', 3,
     "color>: expected r g b \\[a\\]"),
    ('<robot file="two.rob">\n<display silhouette=""/></robot>', 4, "silhouette>: expected width"),
]


@pytest.mark.parametrize("body,line,msg", BAD, ids=[b[:40] for b, _, _ in BAD])
def test_bad_worlds_fail_with_the_line(wdir, body, line, msg):
    with pytest.raises(FormatError, match=rf"w\.xml:{line}: .*({msg})"):
        world(wdir, body)


def test_errors_inside_element_files_name_the_world_line_and_the_file(wdir):
    (wdir / "bad.obj").write_text("mesh cube.off\nmass 1 2\n")
    with pytest.raises(FormatError, match=r"w\.xml:5: cannot load <rigidObject name=\"b\">: .*bad\.obj:2: mass"):
        world(wdir, '<terrain file="cube.off"/>\n\n<rigidObject name="b" file="bad.obj"/>')
    (wdir / "bad.rob").write_text("links a b\nparents -1\n")
    with pytest.raises(FormatError, match=r"w\.xml:3: cannot load <robot>: .*bad\.rob"):
        world(wdir, '<robot file="bad.rob"/>')


def test_not_a_world_and_malformed_xml(wdir):
    p = wdir / "m.xml"
    p.write_text("<world><robot file='two.rob'></world>")
    with pytest.raises(FormatError, match=r"m\.xml:1:\d+: malformed XML"):
        roboio.load(str(p), format="klampt-world")
    p.write_text("<multipath/>")
    with pytest.raises(FormatError, match=r"not <world>"):
        roboio.load(str(p), format="klampt-world")


def test_missing_mesh_is_a_warning_unless_strict(wdir):
    w = world(wdir, '<terrain file="gone.off"/>')
    assert w.terrains[0].geometry.missing
    assert any("w.xml:3" in x and "gone.off" in x for x in w.warnings)
    with pytest.raises(FormatError, match=r"w\.xml:3: .*gone\.off"):
        world(wdir, '<terrain file="gone.off"/>', strict=True)


# ------------------------------------------------------------------------- shipped sample

def test_sample_world_loads():
    from conftest import SAMPLES
    w = roboio.load(os.path.join(SAMPLES, "world.xml"), strict=True)
    assert ([r.name for r in w.robots], [o.name for o in w.rigid_objects], [t.name for t in w.terrains]) == (
        ["arm"], ["crate"], ["floor"])
    arm = w.robots[0]
    assert arm.config.tolist() == [0, 0.3, -0.6, 0.3, 0.01, 0.01]
    alone = roboio.load(os.path.join(SAMPLES, "planar_arm.rob"))
    np.testing.assert_allclose(arm.links[0].parent_transform, affine(Rz(0.1)) @ alone.links[0].parent_transform,
                               atol=1e-15)
    assert arm.links[1].appearance.color == (0.9, 0.5, 0.1, 1)
    crate = w.rigid_objects[0]
    np.testing.assert_array_equal(crate.transform, affine(t=(0.7, 0.2, 0.1)))
    assert crate.mass == 0.5 and crate.kFriction == 0.6
    np.testing.assert_allclose(crate.com, 0, atol=1e-15)          # the crate mesh is centred
    np.testing.assert_allclose(crate.inertia, inertia_from_C(0.5, np.diag(box_surface_moments(0.2, 0.2, 0.2))),
                               rtol=1e-12, atol=1e-18)
    floor = w.terrains[0]
    assert floor.kFriction == 0.8 and floor.appearance.color == (0.5, 0.5, 0.5, 1)


def test_world_sniff_and_dispatch(wdir):
    from roboio.formats.klampt.world import sniff
    assert sniff(b'\xef\xbb\xbf<?xml version="1.0"?>\n<!-- a <world> -->\n<world>\n<terrain file="x"/>', "w.xml")
    assert sniff(b"<world/>", "w.xml")
    assert not sniff(b"<?xml version='1.0'?><multipath><section/></multipath>", "m.xml")
    assert not sniff(b"<world>\n<robot>\n<filename>models/robots/Barrett/Barrett.xml</filename>", "g.xml")
    assert not sniff(b"<Environment><Robot file='x'/></Environment>", "e.xml")
    # an .xml without a format name is read as a Klamp't world by content
    assert isinstance(world(wdir, '<terrain file="cube.off"/>'), roboio.World)
