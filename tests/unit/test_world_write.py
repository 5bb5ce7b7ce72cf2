"""Writing Klamp't worlds: a world read, written and read again is the same world; a world
built in code gets its geometry files written; what Klamp't cannot hold is reported."""
import math
import os
import warnings

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.cli.main import main as cli_main
from roboio.formats.klampt.world._simulation import SimulationSettings, XmlNode
from roboio.model import (Appearance, Group, Link, PointCloud, Primitive, RigidObject, Robot,
                          Terrain, TriangleMesh, World)

from test_world_objects import CUBE_OFF
from test_world_xml import FOREST_ROB, SIM, TWO_ROB, Rz, Rx, affine

WORLD = """<?xml version="1.0"?>
<world>
  <display background="0.1 0.2 0.3 1"/>
  <robot name="arm" file="two.rob" config="2 0.1 -0.2" translation="1 0 0" rotateZ="0.3">
    <sensors><JointPositionSensor name="enc"/></sensors>
    <display link="b" faceColor="1 0 0 0.5" silhouette="0.01 1 1 0 0.5"/>
    <display link="a" color="0 1 0" edgeColor="0 0 0 1" edgeSize="2" pointColor="1 1 1"/>
  </robot>
  <robot file="forest.rob"/>
  <rigidObject name="box" file="o.obj" rotateX="0.2" position="0 0 1">
    <geometry scale="0.5 0.25 2" rotateZ="0.7" translation="0 0 0.1" margin="0.005"/>
    <physics mass="2" automass="1" automassSurfaceFraction="0.3" kStiffness="inf" kRestitution="0.1"/>
    <display vertexColor="0 0 1 0" emissiveColor="0.1 0.1 0.1 1" shininess="20" texture="noise"/>
    <graspGenerator type="x" file="g.xml"/>
  </rigidObject>
  <rigidObject name="box" position="1 2 3">
    <geometry mesh="cube.off" scale="0.1"/>
    <physics mass="1" com="0.05 0.05 0.05" inertia="1 0 0 0 1 0 0 0 1" kFriction="0.25"/>
  </rigidObject>
  <terrain file="t.env" scale="2 2 0.1" rotateRPY="0.1 0.2 0.3" translation="0 0 -0.1" margin="0.001">
    <display color="0.5 0.5 0.5" texture="tex.png" texture_projection="z"/>
  </terrain>
  <terrain name="floor" file="cube.off" kFriction="0.75"/>
  <goal position="1 1 1"/>
  <target position="2 2 2"/>
""" + SIM + "\n</world>\n"


@pytest.fixture
def src(tmp_path):
    d = tmp_path / "src"
    d.mkdir()
    (d / "cube.off").write_text(CUBE_OFF)
    (d / "two.rob").write_text(TWO_ROB)
    (d / "forest.rob").write_text(FOREST_ROB)
    (d / "o.obj").write_text("mesh cube.off\ngeomscale 1 2 3\ngeomtranslate -0.5 -1 -1.5\n"
                             "T 1 0 0 0 1 0 0 0 1 5 5 5\nvelocity 1 0 0\nkDamping 7\n")
    (d / "t.env").write_text("mesh cube.off\nkFriction " + " ".join(str(i / 12) for i in range(12)) + "\n")
    (d / "w.xml").write_text(WORLD)
    return d


def quiet_load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(str(path), **kw)


def assert_same_world(a, b, atol=1e-12):
    assert [r.name for r in a.robots] == [r.name for r in b.robots]
    assert [o.name for o in a.rigid_objects] == [o.name for o in b.rigid_objects]
    assert [t.name for t in a.terrains] == [t.name for t in b.terrains]
    for ra, rb in zip(a.robots, b.robots):
        assert ra.link_names == rb.link_names
        np.testing.assert_array_equal(ra.config, rb.config)
        np.testing.assert_allclose(ra.fk(), rb.fk(), rtol=0, atol=atol)
        for la, lb in zip(ra.links, rb.links):
            assert la.appearance == lb.appearance
        # (stripped: the .rob writer drops a trailing newline of a sensors property)
        assert (ra.properties.get("sensors") or "").strip() == (rb.properties.get("sensors") or "").strip()
    for oa, ob in zip(a.rigid_objects, b.rigid_objects):
        np.testing.assert_allclose(oa.transform, ob.transform, rtol=0, atol=atol)
        np.testing.assert_allclose(oa.geometry.transform, ob.geometry.transform, rtol=0, atol=atol)
        assert type(oa.geometry) is type(ob.geometry)
        np.testing.assert_allclose(oa.geometry.sample_points(), ob.geometry.sample_points(), atol=atol)
        assert oa.geometry.margin == ob.geometry.margin
        for k in ("mass", "kFriction", "kRestitution", "kStiffness", "kDamping"):
            assert getattr(oa, k) == getattr(ob, k), k
        for k in ("com", "inertia", "velocity", "angular_velocity"):
            np.testing.assert_array_equal(getattr(oa, k), getattr(ob, k), k)
        assert oa.appearance == ob.appearance
    for ta, tb in zip(a.terrains, b.terrains):
        np.testing.assert_allclose(ta.geometry.transform, tb.geometry.transform, rtol=0, atol=atol)
        np.testing.assert_array_equal(ta.kFriction, tb.kFriction)
        assert ta.geometry.margin == tb.geometry.margin
        assert ta.appearance == tb.appearance
    for k in ("background", "klampt_simulation", "klampt_world_xml"):
        assert a.extras.get(k) == b.extras.get(k), k
    assert [g.tolist() for g in a.extras.get("goals", [])] == [g.tolist() for g in b.extras.get("goals", [])]


def test_world_round_trip_is_lossless(src, tmp_path):
    a = quiet_load(src / "w.xml")
    out = tmp_path / "out" / "copy.xml"
    report = roboio.save(a, str(out))
    assert report.lost == []
    assert sorted(os.listdir(tmp_path / "out" / "copy")) == [
        "Robot.rob", "Terrain0.env", "arm.rob", "box.obj", "box_1.obj", "floor.env"]
    b = quiet_load(out)
    assert_same_world(a, b)
    text = out.read_text()
    assert 'config="2 0.1 -0.2"' in text and "<graspGenerator" in text and "<target" in text
    assert "pointColor" in text and '<display background="0.1 0.2 0.3 1"/>' in text
    # meshes are referenced where they are, relative to the file naming them
    assert 'mesh "../../src/cube.off"' in (tmp_path / "out" / "copy" / "box_1.obj").read_text()
    # a second round trip gives the same world again
    out2 = tmp_path / "out2" / "copy.xml"
    assert roboio.save(b, str(out2)).lost == []
    assert_same_world(a, quiet_load(out2))


def test_rotated_geometry_goes_to_the_geometry_element_and_terrain_placement_to_attributes(src, tmp_path):
    a = quiet_load(src / "w.xml")
    out = tmp_path / "o" / "w.xml"
    roboio.save(a, str(out))
    text = out.read_text()
    assert '<geometry scale=' in text and "rotateMoment=" in text and 'margin="0.005"' in text
    obj_text = (tmp_path / "o" / "w" / "box.obj").read_text()
    assert "geomscale" not in obj_text and "T 1 0 0 0 " in obj_text      # pose in the .obj
    env_text = (tmp_path / "o" / "w" / "Terrain0.env").read_text()
    assert env_text.startswith('mesh "../../src/cube.off"\nkFriction 0 0.08333333333333333 ')


def test_cli_convert_world(src, tmp_path, capsys):
    out = tmp_path / "c" / "conv.xml"
    assert cli_main(["convert", str(src / "w.xml"), str(out)]) == 0
    printed = capsys.readouterr().out
    assert "lossless" in printed and "conv/arm.rob" in printed
    assert_same_world(quiet_load(src / "w.xml"), quiet_load(out))


def cube_mesh(scale=1.0):
    v = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float) * scale
    f = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
         [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return TriangleMesh(v, f)


def built_world():
    w = World("built")
    r = Robot("arm")
    r.add_link(Link("base", -1, "revolute", (0, 0, 1), affine(Rz(0.1), (0, 0, 0.5)),
                    geometry=cube_mesh(0.2)), qmin=-1, qmax=1, q=0.25)
    r.add_link(Link("slide", 0, "prismatic", (1, 0, 0), affine(t=(0.2, 0, 0))), qmin=0, qmax=0.5, q=0.1)
    w.add(r)
    o = RigidObject("crate", cube_mesh(), affine(Rx(0.4), (1, 2, 0.3)))
    o.geometry.transform = affine(Rz(0.5), (-0.1, 0, 0), (0.2, 0.3, 0.4))
    o.mass, o.com, o.inertia = 0.7, np.array([0.1, 0.15, 0.2]), np.diag([1e-3, 2e-3, 3e-3])
    o.appearance = Appearance(color=(0.6, 0.4, 0.2, 1.0), vertex_color=(0.6, 0.4, 0.2, 1.0))
    w.add(o)
    ball = RigidObject("ball", Primitive("Sphere", {"center": [0, 0, 0.1], "radius": 0.1}),
                       affine(t=(0, 1, 0.5)))
    ball.geometry.transform = affine(Rx(0.3), s=(2, 2, 2))       # a rotated, scaled primitive
    w.add(ball)
    pair = Group([Primitive("Sphere", {"center": [0, 0, 0], "radius": 0.05}),
                  Primitive("AABB", {"bmin": [0, 0, 0], "bmax": [0.1, 0.2, 0.3]})])
    w.add(RigidObject("pair", pair, affine(t=(2, 0, 0))))
    cloud = PointCloud(np.random.default_rng(1).random((20, 3)))
    w.add(RigidObject("cloud", cloud, affine(t=(-2, 0, 0))))
    t = Terrain("ground", cube_mesh())
    t.geometry.transform = affine(t=(-5, -5, -1), s=(10, 10, 1))
    t.kFriction = 0.9
    w.add(t)
    w.extras["background"] = (1, 1, 1, 1)
    w.extras["klampt_simulation"] = SimulationSettings(XmlNode("simulation", children=[
        XmlNode("globals", {"gravity": "0 0 -9.8", "maxContacts": "10"})]))
    return w


def test_world_built_in_code_writes_its_meshes(tmp_path):
    w = built_world()
    out = tmp_path / "b" / "built.xml"
    report = roboio.save(w, str(out))
    assert report.lost == []
    back = quiet_load(out)
    assert back.warnings == []
    assert_same_world(w, back)
    files = sorted(os.listdir(tmp_path / "b" / "built"))
    # meshes and point clouds without a file get one (the robot's from the .rob writer)
    assert files == ["arm.off", "arm.rob", "ball.obj", "cloud.obj", "cloud.pcd", "crate.obj",
                     "crate.off", "ground.env", "ground.off", "pair.obj"]
    # primitives and groups are written inline (no .geom: Klamp't versions disagree on it)
    assert 'mesh "{Primitive Sphere 0 0 0.1 0.1}"\n' in (tmp_path / "b" / "built" / "ball.obj").read_text()
    assert ('mesh "{Group 2 Primitive Sphere 0 0 0 0.05 Primitive AABB 0 0 0 0.1 0.2 0.3}"\n'
            in (tmp_path / "b" / "built" / "pair.obj").read_text())


def test_what_klampt_cannot_hold_is_reported(tmp_path):
    w = built_world()
    sheared = np.eye(4)
    sheared[0, 1] = 0.5
    w.terrains[0].geometry.transform = sheared                 # re-written with the shear applied
    w.rigid_objects[0].appearance = Appearance(color=(1, 0, 0, 1), draw_faces=False)
    w.rigid_objects[0].extras["openrave_grabbed"] = True
    w.extras["camera"] = "somewhere"
    out = tmp_path / "x" / "w.xml"
    report = roboio.save(w, str(out))
    assert any("draw_faces" in x for x in report.lost)
    assert any("openrave_grabbed" in x for x in report.lost)
    assert any("camera" in x for x in report.lost)
    back = quiet_load(out)
    np.testing.assert_allclose(back.terrains[0].geometry.world_vertices(),
                               w.terrains[0].geometry.world_vertices(), atol=1e-15)


def test_group_of_meshes_without_a_file_becomes_one_mesh_file(tmp_path):
    w = built_world()
    a, b = cube_mesh(), cube_mesh()
    b.transform = affine(t=(2, 0, 0))
    w.rigid_objects[0].geometry = Group([a, b])
    out = tmp_path / "g" / "w.xml"
    report = roboio.save(w, str(out))
    assert any("group structure" in x for x in report.lost)
    back = quiet_load(out).rigid_objects[0].geometry
    assert isinstance(back, TriangleMesh) and len(back.faces) == 24
    np.testing.assert_allclose(back.world_vertices(), np.concatenate([a.world_vertices(), b.world_vertices()]))


def test_unwritable_geometry_fails_before_the_world_file_is_written(tmp_path):
    w = built_world()
    w.rigid_objects[0].geometry = Group([cube_mesh(), PointCloud(np.zeros((2, 3)))])
    out = tmp_path / "y" / "w.xml"
    with pytest.raises(FormatError, match="cannot write a group holding a point cloud"):
        roboio.save(w, str(out))
    assert not out.exists()


def test_terrain_rotation_with_a_zero_moment_component_rewrites_to_the_same_bytes(tmp_path):
    """asibot's VS4 kitchen (OpenRAVE <rotationaxis>1 0 0 -90</rotationaxis> then 0 0 1 180):
    written rotateMoment="0 -2.22 2.22", read back and written "-0 -2.22 2.22"."""
    R = np.array([[-1.0, -2.7192621468937821e-32, -1.2246467991473532e-16],
                  [1.2246467991473532e-16, -2.2204460492503131e-16, -1.0],
                  [0.0, -1.0, 2.2204460492503131e-16]])
    M = np.eye(4)
    M[:3, :3] = R
    w = World("room")
    w.add(Terrain("kitchen", Primitive("AABB", {"bmin": (0, 0, 0), "bmax": (1, 2, 0.5)}), M))
    roboio.save(w, str(tmp_path / "a.xml"))
    first = (tmp_path / "a.xml").read_text()
    assert 'rotateMoment="0 -2.22144146907918' in first
    roboio.save(quiet_load(tmp_path / "a.xml"), str(tmp_path / "a.xml"), overwrite_input=True)
    assert (tmp_path / "a.xml").read_text() == first
