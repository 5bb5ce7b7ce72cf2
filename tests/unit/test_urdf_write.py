"""URDF writing: frames, joint naming and order, floating bases, drivers, geometry and
what the report says is lost. Expected values are hand-worked or the written file read
back (by roboio's reader, itself checked against klampt in tests/reference)."""
import os
import warnings

import numpy as np
import pytest
from lxml import etree

import roboio
from roboio.cli.main import main
from roboio.model import Driver, Joint, Link, Primitive, Robot, TriangleMesh
from roboio.formats.urdf._writer import rpy_of

from conftest import SAMPLES


def chain(specs, joints=None):
    """Robot from (name, parent, type, axis, xyz) tuples; normal joints, normal drivers."""
    links = []
    for name, parent, jt, axis, xyz in specs:
        T = np.eye(4)
        T[:3, 3] = xyz
        links.append(Link(name, parent, jt, axis, T, mass=1.0))
    r = Robot("t")
    n = len(links)
    r.set_links(links, qmin=[-1] * n, qmax=[1] * n, vmax=[2] * n, amax=[10] * n, tmax=[3] * n)
    r.joints = joints or [Joint("normal", [i]) for i in range(n)]
    r.drivers = [Driver(l.name, "normal", [l.index], qmin=-1, qmax=1, vmin=-2, vmax=2, tmin=-3, tmax=3,
                        amin=-10, amax=10, servo_p=100, servo_d=10)
                 for l in r.links if r.joint_of_link(l.index).type == "normal"]
    return r


def reread(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(path)


def test_rpy_round_trip_including_gimbal_lock():
    rng = np.random.default_rng(0)
    cases = [np.eye(3), np.diag([1.0, -1.0, -1.0]), np.diag([-1.0, 1.0, -1.0])]
    for _ in range(300):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        w, x, y, z = q
        cases.append(np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                               [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                               [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]))
    for s in (1, -1):          # pitch exactly and nearly +-90 degrees: R[2, 0] = -+1
        for eps in (0, 1e-14, 1e-10, 1e-7):
            a, b = rng.uniform(-np.pi, np.pi, 2)
            p = s * (np.pi / 2 - eps)
            cz, sz, cy, sy, cx, sx = np.cos(a), np.sin(a), np.cos(p), np.sin(p), np.cos(b), np.sin(b)
            cases.append(np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]) @
                         np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]]) @
                         np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]]))
    for R in cases:
        rpy, err = rpy_of(R)
        r, p, y = rpy
        back = (np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]]) @
                np.array([[np.cos(p), 0, np.sin(p)], [0, 1, 0], [-np.sin(p), 0, np.cos(p)]]) @
                np.array([[1, 0, 0], [0, np.cos(r), -np.sin(r)], [0, np.sin(r), np.cos(r)]]))
        assert np.abs(back - R).max() < 1e-15 and err < 1e-15


def test_readme_command_converts_the_sample(tmp_path, capsys):
    out = tmp_path / "planar_arm.urdf"
    assert main(["convert", os.path.join(SAMPLES, "planar_arm.rob"), str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    src = roboio.load(os.path.join(SAMPLES, "planar_arm.rob"))
    back = reread(out)
    assert back.link_names == src.link_names and list(back.parents) == list(src.parents)
    Q = roboio.convert.sample_configs(src, 5)
    np.testing.assert_allclose(back.fk_batch(Q), src.fk_batch(Q), atol=1e-12, rtol=0)
    # the gripper's affine driver is a <mimic>; meshes are referenced relative to the file
    (d,) = [d for d in back.drivers if d.type == "affine"]
    assert [back.link_names[i] for i in d.dofs] == ["finger_left", "finger_right"]
    mesh = etree.parse(str(out)).find(".//mesh")
    assert os.path.isfile(os.path.join(tmp_path, mesh.get("filename")))


def test_joint_names_reproduce_link_order(tmp_path):
    # children of the root listed as "zeta" before "alpha": natural joint names would sort
    # the other way round, so the writer renames those two joints
    r = chain([("root", -1, "revolute", (0, 0, 1), (0, 0, 0)), ("zeta", 0, "revolute", (0, 1, 0), (1, 0, 0)),
               ("alpha", 0, "revolute", (0, 1, 0), (0, 1, 0)), ("tip", 2, "prismatic", (1, 0, 0), (0, 0, 1))])
    rep = roboio.save(r, tmp_path / "t.urdf")
    assert not rep.lost, rep.lost
    back = reread(tmp_path / "t.urdf")
    assert back.link_names == ["root", "zeta", "alpha", "tip"]
    names = {j.find("child").get("link"): j.get("name") for j in etree.parse(str(tmp_path / "t.urdf")).iter("joint")}
    assert names["zeta"] < names["alpha"] and names["tip"] == "tip_joint"


def test_link_order_that_is_not_depth_first_is_reported(tmp_path):
    # breadth-first: a, b (children of root), then their children
    r = chain([("r", -1, "revolute", (0, 0, 1), (0, 0, 0)), ("a", 0, "revolute", (0, 0, 1), (1, 0, 0)),
               ("b", 0, "revolute", (0, 0, 1), (0, 1, 0)), ("a2", 1, "revolute", (0, 0, 1), (1, 0, 0)),
               ("b2", 2, "revolute", (0, 0, 1), (0, 1, 0))])
    rep = roboio.save(r, tmp_path / "t.urdf")
    assert any(x.startswith("link order") and "r, a, a2, b, b2" in x for x in rep.lost)


def test_floating_base_becomes_the_urdf_root(tmp_path):
    specs = [(f"base{i}", i - 1, "prismatic" if i < 3 else "revolute", ax, (0, 0, 0)) for i, ax in
             enumerate([(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (0, 1, 0), (1, 0, 0)])]
    specs[5] = ("body",) + specs[5][1:]
    r = chain(specs + [("arm", 5, "revolute", (0, 1, 0), (0.1, 0, 0))],
              [Joint("floating", list(range(6))), Joint("normal", [6])])
    for i in range(6):
        r.links[i].mass = 0.0 if i < 5 else 2.0
        r.links[i].inertia = np.zeros((3, 3)) if i < 5 else np.eye(3)
    r.qmin[:6], r.qmax[:6], r.vmin[:6], r.vmax[:6] = -np.inf, np.inf, -np.inf, np.inf
    r.amax[:6], r.tmax[:6], r.pmax[5] = np.inf, 0.0, 0.0
    r.drivers = r.drivers[-1:]
    rep = roboio.save(r, tmp_path / "t.urdf")
    assert not rep.lost, rep.lost
    root = etree.parse(str(tmp_path / "t.urdf")).getroot()
    assert [l.get("name") for l in root.iter("link")] == ["body", "arm"]
    back = reread(tmp_path / "t.urdf")
    assert back.link_names == r.link_names and [j.type for j in back.joints] == ["floating", "normal"]
    # a floating base whose virtual links carry something says so
    r.links[1].mass = 1.0
    rep = roboio.save(r, tmp_path / "t.urdf")
    assert any("floating base" in x and "mass of base1" in x for x in rep.lost)


def test_limits_and_joint_types(tmp_path):
    r = chain([("a", -1, "revolute", (0, 0, 1), (0, 0, 0)), ("b", 0, "revolute", (0, 0, 1), (1, 0, 0)),
               ("c", 1, "prismatic", (0, 0, 1), (1, 0, 0)), ("d", 2, "revolute", (0, 0, 2), (1, 0, 0))],
              [Joint("weld", [0]), Joint("spin", [1]), Joint("normal", [2]), Joint("normal", [3])])
    r.qmin[0] = r.qmax[0] = r.vmin[0] = r.vmax[0] = r.amax[0] = 0
    r.qmin[1], r.qmax[1] = -np.inf, np.inf
    r.qmin[2], r.tmax[2] = -np.inf, np.inf
    r.drivers = [d for d in r.drivers if d.dofs[0] != 0]
    r.drivers[1].qmin, r.drivers[1].tmin, r.drivers[1].tmax = -np.inf, -np.inf, np.inf
    rep = roboio.save(r, tmp_path / "t.urdf")
    types = {j.find("child").get("link"): j.get("type") for j in etree.parse(str(tmp_path / "t.urdf")).iter("joint")}
    assert types == {"a": "fixed", "b": "continuous", "c": "prismatic", "d": "revolute"}
    assert any("infinite position limits" in x and ": c" in x for x in rep.lost)
    assert any("infinite effort limits" in x for x in rep.lost)
    assert any("not unit length" in x and "d (|axis| = 2)" in x for x in rep.lost)
    back = reread(tmp_path / "t.urdf")
    assert back.qmin[2] == -np.finfo(float).max and back.qmax[2] == 1
    # written normalised: the URDF coordinate is 2 q, so limits double and effort halves
    np.testing.assert_array_equal(back.links[3].axis, [0, 0, 1])
    assert (back.qmin[3], back.qmax[3], back.tmax[3]) == (2 * r.qmin[3], 2 * r.qmax[3], r.tmax[3] / 2)


def test_affine_drivers_and_mimic(tmp_path):
    r = chain([("a", -1, "revolute", (0, 0, 1), (0, 0, 0)), ("b", 0, "revolute", (0, 0, 1), (1, 0, 0)),
               ("c", 1, "revolute", (0, 0, 1), (1, 0, 0))])
    r.drivers = [Driver("a", "affine", [0, 2], [1.0, -2.0], [0.0, 0.5]), r.drivers[1]]
    rep = roboio.save(r, tmp_path / "t.urdf")
    mimic = etree.parse(str(tmp_path / "t.urdf")).find(".//mimic")
    assert (mimic.get("joint"), mimic.get("multiplier"), mimic.get("offset")) == ("a_joint", "-2", "0.5")
    back = reread(tmp_path / "t.urdf")
    d = back.drivers[0]
    assert (d.type, d.dofs, d.scale, d.offset) == ("affine", [0, 2], [1, -2], [0, 0.5])
    assert any("driver limits" in x for x in rep.lost)        # Klamp't derives other limits
    # a driver whose first scale is not 1 changes meaning: q_c = 1 + 3 u, q_a = 2 u
    r.drivers[0] = Driver("a", "affine", [2, 0], [3.0, 2.0], [1.0, 0.0])
    rep = roboio.save(r, tmp_path / "t.urdf")
    assert any("re-parameterised" in x for x in rep.lost)
    mimic = etree.parse(str(tmp_path / "t.urdf")).find(".//mimic")
    assert (mimic.get("multiplier"), mimic.get("offset")) == ("1.5", "1")     # q_c = 1 + 1.5 q_a
    r.drivers[0] = Driver("a", "translation", [0], force_link=2)
    assert any("translation/rotation" in x for x in roboio.save(r, tmp_path / "t.urdf").lost)


def test_geometry(tmp_path):
    (tmp_path / "m.stl").write_bytes(b"\0" * 80 + np.uint32(1).tobytes() + np.zeros(3, "<f4").tobytes() +
                                     np.array([0, 0, 0, 1, 0, 0, 0, 1, 0], "<f4").tobytes() + b"\0\0")
    r = chain([("a", -1, "revolute", (0, 0, 1), (0, 0, 0)), ("b", 0, "revolute", (0, 0, 1), (1, 0, 0)),
               ("c", 1, "revolute", (0, 0, 1), (1, 0, 0)), ("d", 2, "revolute", (0, 0, 1), (1, 0, 0))])
    mesh = roboio.load(tmp_path / "m.stl")
    g = mesh.copy()
    g.transform = np.array([[0, -2, 0, 1], [1, 0, 0, 2], [0, 0, 3, 3], [0, 0, 0, 1]], float)  # Rz(90) diag(1,2,3)
    r.links[0].geometry = g
    sheared = mesh.copy()
    sheared.transform = np.array([[1, 0.5, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], float)
    r.links[1].geometry = sheared
    r.links[2].geometry = Primitive("Cylinder", {"center": (0, 0, 0), "axis": (1, 0, 0), "radius": 0.5, "height": 2})
    r.links[2].appearance.color = (0.1, 0.2, 0.3, 1.0)
    r.links[3].geometry = Primitive("Ellipsoid", {"center": (0, 0, 0), "xaxis": (1, 0, 0), "yaxis": (0, 1, 0),
                                                  "zaxis": (0, 0, 1), "dims": (1, 2, 3)})
    out = tmp_path / "out" / "t.urdf"
    rep = roboio.save(r, out)
    root = etree.parse(str(out)).getroot()
    m0 = root.find("link[@name='a']/visual/geometry/mesh")
    assert m0.get("filename") == "../m.stl" and m0.get("scale") == "1 2 3"
    assert root.find("link[@name='a']/visual/origin").get("xyz") == "1 2 3"
    # a sheared mesh is written anew: STL for collision, OBJ for the visual
    assert root.find("link[@name='b']/collision/geometry/mesh").get("filename") == "t_meshes/m.stl"
    assert root.find("link[@name='b']/visual/geometry/mesh").get("filename") == "t_meshes/m.obj"
    assert {str(tmp_path / "out" / "t_meshes" / f) for f in ("m.stl", "m.obj")} <= set(rep.files)
    assert any("converted" in w for w in rep.warnings)
    cyl = root.find("link[@name='c']/collision/geometry/cylinder")
    assert (cyl.get("radius"), cyl.get("length")) == ("0.5", "2")
    assert root.find("link[@name='c']/visual/material/color").get("rgba") == "0.1 0.2 0.3 1"
    assert any("Ellipsoid" in x for x in rep.lost)
    back = reread(out)
    np.testing.assert_allclose(back.links[0].geometry.transform, g.transform, atol=1e-15)
    np.testing.assert_allclose(back.links[1].geometry.baked().vertices, sheared.baked().vertices, atol=1e-6)
    c = back.links[2].geometry        # a z cylinder from -1 to 1, turned onto x, centred at x = 1
    np.testing.assert_allclose(c.transform[:3, :3] @ [0, 0, 1], [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(c.transform[:3, 3], [1, 0, 0], atol=1e-15)


def test_self_collision_pairs_and_welded_pose(tmp_path):
    r = chain([("a", -1, "revolute", (0, 0, 1), (0, 0, 0)), ("b", 0, "revolute", (0, 0, 1), (1, 0, 0)),
               ("c", 1, "revolute", (0, 0, 1), (1, 0, 0)), ("d", 0, "revolute", (0, 0, 1), (0, 1, 0))],
              [Joint("normal", [0]), Joint("normal", [1]), Joint("weld", [2]), Joint("normal", [3])])
    r.drivers = [d for d in r.drivers if d.dofs[0] != 2]
    r.qmin[2] = r.qmax[2] = r.config[2] = 0.5
    r.vmin[2] = r.vmax[2] = r.amax[2] = 0
    for l in r.links:
        l.geometry = Primitive("Sphere", {"center": (0, 0, 0), "radius": 0.1})
    # Klamp't's default would be (a,c), (b,d), (c,d); keep only (b,d) and the parent/child pair (a,b)
    r.self_collision_pairs = {(1, 3), (0, 1)}
    rep = roboio.save(r, tmp_path / "t.urdf")
    assert etree.parse(str(tmp_path / "t.urdf")).find(".//selfcollision") is not None
    back = reread(tmp_path / "t.urdf")
    assert back.self_collision_pairs == {(1, 3), (0, 1)}
    r.self_collision_pairs = {(1, 3)}
    roboio.save(r, tmp_path / "t.urdf")
    assert reread(tmp_path / "t.urdf").self_collision_pairs == {(1, 3)}
    # the weld sits at q = 0.5: that rotation about z is built into the fixed joint
    np.testing.assert_allclose(back.fk()[2], r.fk()[2], atol=1e-15)
    assert any("welded link 'c'" in w for w in rep.warnings)
    assert any("limits of welded links" in x for x in rep.lost)


def test_write_is_atomic_and_replaces(tmp_path):
    r = chain([("a", -1, "revolute", (0, 0, 1), (0, 0, 0))])
    out = tmp_path / "t.urdf"
    out.write_text("old")
    roboio.save(r, out)
    assert out.read_text().startswith("<?xml") and os.listdir(tmp_path) == ["t.urdf"]
    r.links[0].geometry = TriangleMesh(missing=True)
    rep = roboio.save(r, out)
    assert any("not found on reading" in x for x in rep.lost)


def test_properties_and_a_link_named_world(tmp_path):
    r = chain([("world", -1, "revolute", (0, 0, 1), (0, 0, 0)), ("b", 0, "revolute", (0, 0, 1), (1, 0, 0))])
    r.properties = {"sensors": '<sensors><JointPositionSensor name="enc"/></sensors>', "notes": "x"}
    rep = roboio.save(r, tmp_path / "t.urdf")
    assert rep.lost == ["robot properties other than sensors and controller: notes"]
    root = etree.parse(str(tmp_path / "t.urdf")).getroot()
    assert root.find("klampt").get("world_frame") == "_world"
    back = reread(tmp_path / "t.urdf")
    assert back.link_names == ["world", "b"] and list(back.parents) == [-1, 0]
    assert list(back.properties) == ["sensors"]     # the same XML (indented in the file)
    assert etree.canonicalize(back.properties["sensors"], strip_text=True) == \
        etree.canonicalize(r.properties["sensors"], strip_text=True)


def test_mesh_origin_rotation_is_not_a_scale(tmp_path):
    """icub (example-robot-data): ``<mesh scale="1 1 1">`` under ``rpy="0 -1.5708 0"``. The
    columns of that rotation have length 1 only to rounding; written as a scale, they shrank
    by one ulp at every write -> read -> write (0.9999999999999999, ...98, ...97)."""
    (tmp_path / "m.stl").write_text("solid m\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                                    "vertex 0 1 0\nendloop\nendfacet\nendsolid m\n")
    src = tmp_path / "src.urdf"
    src.write_text('<robot name="r"><link name="a"><visual><origin xyz="-0.0055 0 0" rpy="-1.5708 -1.5708 0"/>'
                   '<geometry><mesh filename="m.stl" scale="1 1 1"/></geometry></visual></link></robot>')
    out = tmp_path / "out.urdf"
    roboio.save(reread(src), out)
    first = out.read_bytes()
    assert b"scale=" not in first
    roboio.save(reread(out), out, overwrite_input=True)
    assert out.read_bytes() == first
    # a real scale next to unit columns is kept, and stays a fixed point too
    src.write_text(src.read_text().replace('scale="1 1 1"', 'scale="1 0.001 1"'))
    roboio.save(reread(src), out, overwrite_input=True)
    first = out.read_bytes()
    assert b'scale="1 0.001 1"' in first
    roboio.save(reread(out), out, overwrite_input=True)
    assert out.read_bytes() == first


# -- outputs other programs open: colours, continuous joints, visuals, inertias, packages --------
def test_colour_components_outside_0_1_are_clamped_and_reported(tmp_path):
    from roboio.model import Appearance
    r = chain([("a", -1, "revolute", (0, 0, 1), (0, 0, 0))])
    r.links[0].geometry = Primitive("Sphere", {"center": [0, 0, 0], "radius": 0.1})
    r.links[0].appearance = Appearance(color=(0.0, 2.0, 2.0, 1.0))       # hironx's rgba 0 2 2 1
    out = tmp_path / "c.urdf"
    rep = roboio.save(r, str(out))
    rgba = etree.parse(str(out)).find("link/visual/material/color").get("rgba")
    assert rgba == "0 1 1 1"
    assert any("outside [0, 1] clamped" in x and "a (0 2 2 1 -> 0 1 1 1: 1)" in x for x in rep.lost), rep.lost
    again = reread(str(out))
    assert again.links[0].appearance.color == (0.0, 1.0, 1.0, 1.0)


def test_unbounded_revolute_joints_are_continuous(tmp_path):
    r = chain([("a", -1, "revolute", (0, 0, 1), (0, 0, 0)), ("b", 0, "prismatic", (1, 0, 0), (1, 0, 0))])
    r.qmin[:] = -np.inf
    r.qmax[:] = np.inf
    r.drivers[0].qmin, r.drivers[0].qmax = -np.inf, np.inf
    out = tmp_path / "u.urdf"
    rep = roboio.save(r, str(out))
    joints = {j.get("name"): j for j in etree.parse(str(out)).findall("joint")}
    assert joints["a_joint"].get("type") == "continuous"
    assert joints["a_joint"].find("limit").get("lower") is None
    assert joints["b_joint"].get("type") == "prismatic"          # URDF has no unbounded prismatic
    assert not any("position limits" in x and "a" in x.split(": ")[-1].split(", ") for x in rep.lost)
    again = reread(str(out))
    assert again.qmin[0] == -np.inf and again.qmax[0] == np.inf
    assert again.joint_of_link(0).type == "spin"
    q = np.array([2.5, 0.3])
    assert np.allclose(again.fk(q), r.fk(q), atol=1e-12)


TWO_COLOURS = """<robot name="ring">
  <material name="pink"><color rgba="1 0.5 0.5 1"/></material>
  <link name="world"/>
  <link name="elbow">
    <visual><geometry><box size="0.1 0.1 0.1"/></geometry><material name="pink"/></visual>
    <visual><origin xyz="0 0 0.1"/><geometry><cylinder radius="0.05" length="0.01"/></geometry>
      <material name="green"><color rgba="0 1 0 1"/></material></visual>
    <visual><origin xyz="0 0 0.2"/><geometry><sphere radius="0.02"/></geometry></visual>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
  </link>
  <joint name="j" type="revolute"><parent link="world"/><child link="elbow"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""


def test_visuals_keep_their_own_colours(tmp_path):
    """A link with several visuals of different colours (the WAM's green elbow ring) keeps
    each colour on read, on write and in what the viewer draws."""
    from roboio.model.posed import scene_elements
    src = tmp_path / "ring.urdf"
    src.write_text(TWO_COLOURS)
    r = reread(str(src))
    link = r.link("elbow")
    assert link.appearance.color == (1.0, 0.5, 0.5, 1.0)                 # the first visual's
    pieces = link.visual_geometry.children
    assert [p.appearance.color for p in pieces] == [(1.0, 0.5, 0.5, 1.0), (0.0, 1.0, 0.0, 1.0), None]
    out = tmp_path / "out.urdf"
    roboio.save(r, str(out))
    vis = etree.parse(str(out)).findall("link[@name='elbow']/visual")
    assert [v.find("material/color").get("rgba") if v.find("material") is not None else None
            for v in vis] == ["1 0.5 0.5 1", "0 1 0 1", None]
    again = reread(str(out))
    assert [p.appearance.color for p in again.link("elbow").visual_geometry.children] == \
        [p.appearance.color for p in pieces]
    text = out.read_bytes()
    roboio.save(again, str(out), overwrite_input=True)
    assert out.read_bytes() == text
    elbow = [e for e in scene_elements(again) if e.name == "elbow"][0]
    assert [p.color for p in elbow.visual][:2] == [(1.0, 0.5, 0.5, 1.0), (0.0, 1.0, 0.0, 1.0)]


def test_inertias_mujoco_refuses_are_reported(tmp_path):
    r = chain([("a", -1, "revolute", (0, 0, 1), (0, 0, 0)), ("b", 0, "revolute", (0, 0, 1), (1, 0, 0)),
               ("c", 1, "revolute", (0, 0, 1), (1, 0, 0))])
    r.links[0].inertia = np.diag([2.5e-05, 6.9e-05, 4.59e-04])         # the WAM finger's
    r.links[1].inertia = np.diag([0.0, 1e-3, 1e-3])                     # a rod: not positive
    r.links[2].inertia = np.diag([1e-3, 2e-3, 3e-3])                    # A + B == C: accepted
    rep = roboio.save(r, str(tmp_path / "i.urdf"))
    text = "\n".join(rep.warnings)
    assert "A + B >= C" in text and "a (2.5e-05 + 6.9e-05 < 0.000459 kg m^2, short by 0.00036)" in text
    assert "positive eigenvalues" in text and "b (smallest 0 kg m^2)" in text
    assert "c (" not in text
    assert not rep.lost or not any("inertia" in x for x in rep.lost)    # the URDF holds them as they are


def test_package_uris_and_package_xml(tmp_path):
    arm = reread(os.path.join(SAMPLES, "planar_arm.rob"))
    out = tmp_path / "ws" / "arm_pkg" / "urdf" / "arm.urdf"
    rep = roboio.save(arm, str(out), package="arm_pkg")
    root = tmp_path / "ws" / "arm_pkg"
    assert (root / "package.xml").is_file() and str(root / "package.xml") in rep.files
    assert "<name>arm_pkg</name>" in (root / "package.xml").read_text()
    assert any(w.startswith(f"package 'arm_pkg': root {root}") for w in rep.warnings)
    names = [m.get("filename") for m in etree.parse(str(out)).iter("mesh")]
    assert names and all(n.startswith("package://arm_pkg/urdf/arm_meshes/") for n in names)
    for n in names:
        assert (root / n[len("package://arm_pkg/"):]).is_file()
    again = reread(str(out))                       # found through the ancestor named arm_pkg
    assert not any(l.geometry is not None and l.geometry.missing for l in again.links)
    text = out.read_bytes()
    roboio.save(again, str(out), package="arm_pkg", overwrite_input=True)
    assert out.read_bytes() == text                # write -> read -> write
    # keep: a readable mesh outside the package is copied in
    off = tmp_path / "src" / "tri.stl"
    off.parent.mkdir()
    roboio.save(TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]]), str(off))
    arm.link("wrist").geometry = reread(str(off))
    elsewhere = tmp_path / "plain" / "arm.urdf"
    rep = roboio.save(arm, str(elsewhere), package="arm_pkg")
    assert (tmp_path / "plain" / "package.xml").is_file()
    assert any("not named 'arm_pkg'" in w for w in rep.warnings)
    assert 'filename="package://arm_pkg/arm_meshes/tri.stl"' in elsewhere.read_text()
    assert (tmp_path / "plain" / "arm_meshes" / "tri.stl").is_file()
    again = reread(str(elsewhere))                 # found through package.xml's <name>
    assert np.array_equal(again.link("wrist").geometry.vertices, arm.link("wrist").geometry.vertices)


def test_package_refusals(tmp_path):
    from roboio.errors import OutputError
    arm = reread(os.path.join(SAMPLES, "planar_arm.rob"))
    with pytest.raises(ValueError, match="not a ROS package name"):
        roboio.save(arm, str(tmp_path / "a.urdf"), package="Bad-Name")
    (tmp_path / "package.xml").write_text("<package><name>other_pkg</name></package>")
    with pytest.raises(OutputError, match="another package"):
        roboio.save(arm, str(tmp_path / "a.urdf"), package="arm_pkg")
    assert "other_pkg" in (tmp_path / "package.xml").read_text()
    with pytest.raises(ValueError, match="applies to URDF"):
        roboio.save(arm, str(tmp_path / "a.rob"), package="arm_pkg")
