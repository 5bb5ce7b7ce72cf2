"""MJCF writing on hand-built models: joints, axes, floating bases, welds, couplings,
inertials, primitives, contacts, worlds, mesh files. Expected values are worked out here by
hand (rotations from conftest's Rx/Ry/Rz); where MuJoCo is installed the written file is also
compiled and its kinematics read back."""
import os
import struct
import warnings

import numpy as np
import pytest
from lxml import etree

import roboio
from roboio.cli.main import main
from roboio.model import (Driver, Group, Joint, Link, Primitive, RigidObject, Robot, Terrain,
                          TriangleMesh, World)
from roboio.formats.mesh_export import MeshExport
from roboio.report import ConversionReport

from conftest import SAMPLES, Rx, Ry, Rz

mujoco = pytest.importorskip("mujoco")


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)          # MuJoCo writes MUJOCO_LOG.TXT into the working directory


def T(R=None, t=(0, 0, 0)):
    M = np.eye(4)
    if R is not None:
        M[:3, :3] = R
    M[:3, 3] = t
    return M


def robot(links, joints=None, **limits):
    r = Robot("r")
    n = len(links)
    lim = {"qmin": [-1.0] * n, "qmax": [1.0] * n}
    lim.update(limits)
    r.set_links(links, **lim)
    r.joints = joints or [Joint("normal", [i]) for i in range(n)]
    return r


def write(obj, tmp_path, name="m.xml", **kw):
    out = str(tmp_path / name)
    rep = roboio.save(obj, out, format="mjcf", **kw)
    return out, rep, etree.parse(out).getroot()


def compiled(path):
    m = mujoco.MjModel.from_xml_path(path)
    return m, mujoco.MjData(m)


def body(m, d, name):
    b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, name)
    assert b >= 0, name
    return d.xpos[b].copy(), d.xmat[b].reshape(3, 3).copy()


def set_joint(m, d, name, value):
    j = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)
    assert j >= 0, name
    d.qpos[m.jnt_qposadr[j]] = value


def lost(rep, start):
    return [x for x in rep.lost if x.startswith(start)]


def test_non_unit_axes_scale_the_mujoco_coordinate(tmp_path):
    r = robot([Link("a", -1, "revolute", (0, 0, 2), T(t=(0, 0, 1))),
               Link("b", 0, "prismatic", (0, 3, 0), T(t=(1, 0, 0)))], qmin=[-0.5, 0], qmax=[0.5, 0.2])
    out, rep, root = write(r, tmp_path)
    ja, jb = root.find(".//joint[@name='a']"), root.find(".//joint[@name='b']")
    assert ja.get("type") == "hinge" and ja.get("axis") == "0 0 1" and ja.get("range") == "-1 1"
    assert jb.get("type") == "slide" and jb.get("axis") == "0 1 0" and jb.get("range") == "0 0.6000000000000001"
    assert ja.get("limited") == "true"
    item = lost(rep, "joint axes that are not unit length")[0]
    assert "a (|axis| = 2)" in item and "b (|axis| = 3)" in item
    m, d = compiled(out)
    q = (0.3, 0.1)
    set_joint(m, d, "a", 2 * q[0])           # MuJoCo coordinate = |axis| q
    set_joint(m, d, "b", 3 * q[1])
    mujoco.mj_kinematics(m, d)
    p, R = body(m, d, "b")
    Ra = Rz(2 * q[0])                          # Klamp't turns by q |axis|
    assert np.allclose(R, Ra, atol=1e-12)
    assert np.allclose(p, np.array([0, 0, 1]) + Ra @ np.array([1, 0, 0]) + Ra @ np.array([0, 0.3, 0]), atol=1e-12)


def floating_robot():
    axes = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (0, 1, 0), (1, 0, 0)]
    types = ["prismatic"] * 3 + ["revolute"] * 3
    links = [Link(f"base{k}", k - 1, types[k], axes[k], mass=0.0, inertia=np.zeros((3, 3)))
             for k in range(5)]
    links.append(Link("torso", 4, "revolute", axes[5], mass=3.0, inertia=np.diag([0.1, 0.2, 0.25]),
                      geometry=Primitive("Sphere", {"center": (0, 0, 0), "radius": 0.1})))
    links.append(Link("arm", 5, "revolute", (0, 1, 0), T(t=(0.2, 0, 0)), mass=1.0, inertia=np.eye(3) * 0.01))
    inf = np.inf
    r = robot(links, [Joint("floating", [0, 1, 2, 3, 4, 5]), Joint("normal", [6])],
              qmin=[-inf] * 6 + [-1], qmax=[inf] * 6 + [1])
    r.config = np.array([0.5, -0.25, 1.0, 0.3, -0.2, 0.1, 0.4])
    return r


def test_floating_base_is_one_freejoint(tmp_path):
    r = floating_robot()
    out, rep, root = write(r, tmp_path)
    assert [b.get("name") for b in root.iter("body")] == ["torso", "arm"]
    fj = root.findall(".//freejoint")
    assert len(fj) == 1 and fj[0].get("name") == "torso"
    m, d = compiled(out)
    assert m.nq == 7 + 1
    mujoco.mj_resetDataKeyframe(m, d, 0)     # the "initial" key holds robot.config
    mujoco.mj_kinematics(m, d)
    x, y, z, yaw, pitch, roll, a = r.config
    Rw = Rz(yaw) @ Ry(pitch) @ Rx(roll)
    p, R = body(m, d, "torso")
    assert np.allclose(p, (x, y, z), atol=1e-12) and np.allclose(R, Rw, atol=1e-12)
    p, R = body(m, d, "arm")
    assert np.allclose(R, Rw @ Ry(a), atol=1e-12)
    assert np.allclose(p, np.array([x, y, z]) + Rw @ [0.2, 0, 0], atol=1e-12)
    assert any("written as the free joint of body 'torso'" in w for w in rep.warnings)


def test_weld_at_its_configured_value_and_zero_axis(tmp_path):
    r = robot([Link("a", -1, "revolute", (0, 0, 1)), Link("b", 0, "revolute", (1, 0, 0), T(t=(1, 0, 0))),
               Link("c", 1, "revolute", (0, 0, 0), T(t=(0, 1, 0)))],
              [Joint("normal", [0]), Joint("weld", [1]), Joint("normal", [2])])
    r.config = np.array([0.0, 0.4, 0.0])
    out, rep, root = write(r, tmp_path)
    assert root.find(".//body[@name='b']/joint") is None
    assert root.find(".//body[@name='c']/joint") is None
    assert "c" in lost(rep, "joints with a zero axis")[0]
    m, d = compiled(out)
    mujoco.mj_kinematics(m, d)
    p, R = body(m, d, "c")
    assert np.allclose(R, Rx(0.4), atol=1e-12) and np.allclose(p, [1, np.cos(0.4), np.sin(0.4)], atol=1e-12)


def test_affine_driver_becomes_a_joint_equality(tmp_path):
    r = robot([Link("a", -1, "revolute", (0, 0, 1), mass=1), Link("b", 0, "revolute", (0, 0, 1), mass=1),
               Link("c", 1, "revolute", (0, 2, 0), mass=1)])
    r.drivers = [Driver("a", "normal", [0]),
                 Driver("grip", "affine", [1, 2], scale=[2.0, -1.0], offset=[0.1, 0.5])]
    out, rep, root = write(r, tmp_path)
    eq = root.findall(".//equality/joint")
    assert len(eq) == 1
    # q_c = 0.5 - u, u = (q_b - 0.1) / 2  ->  q_c = 0.55 - q_b / 2; MuJoCo's c is 2 q_c
    assert eq[0].get("joint1") == "c" and eq[0].get("joint2") == "b"
    assert [float(x) for x in eq[0].get("polycoef").split()] == pytest.approx([1.1, -1, 0, 0, 0], abs=1e-15)
    m, d = compiled(out)
    assert m.neq == 1


def test_couplings_of_a_second_robot_are_named_after_its_renamed_actuator(tmp_path):
    """graspit_bci's barrettGlassDyn world (two robots with drivers dof0..dof3): the second
    robot's actuator dof1 is written dof1_2, and its driver reads back so; its coupling was
    named dof1:<joint> and rewritten dof1_2:<joint>. Named after the actuator as written,
    the rewrite is the same bytes."""
    w = World("two")
    for name in ("left", "right"):
        r = robot([Link(f"{name}_a", -1, "revolute", (0, 0, 1), mass=1),
                   Link(f"{name}_b", 0, "revolute", (0, 0, 1), mass=1),
                   Link(f"{name}_c", 1, "revolute", (0, 1, 0), mass=1)])
        r.name = name
        r.drivers = [Driver("dof0", "normal", [0]),
                     Driver("dof1", "affine", [1, 2], scale=[1.0, 0.5], offset=[0.0, 0.0])]
        w.add(r)
    out, rep, root = write(w, tmp_path)
    names = [e.get("name") for e in root.findall(".//equality/joint")]
    acts = [e.get("name") for e in root.find("actuator")]
    assert acts == ["dof0", "dof1", "dof0_2", "dof1_2"]
    assert names == ["dof1:left_c", "dof1_2:right_c"]
    first = open(out, "rb").read()
    roboio.save(roboio.load(out), out, format="mjcf", overwrite_input=True)
    assert open(out, "rb").read() == first
    m, d = compiled(out)
    assert m.neq == 2


def test_link_whose_visual_files_are_missing_is_written_as_one_without_visuals(tmp_path):
    """asibot's OpenRAVE arm (render meshes missing from the repository, collision boxes):
    the boxes were written class="collision" beside no visual geom, read back as a link
    without visuals and rewritten as plain geoms (not a fixed point)."""
    (tmp_path / "v.urdf").write_text(
        '<robot name="v"><link name="world"/><link name="base"><inertial><mass value="1"/>'
        '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
        '<visual><geometry><mesh filename="gone.stl"/></geometry></visual>'
        '<collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>'
        '<joint name="j" type="revolute"><parent link="world"/><child link="base"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = roboio.load(str(tmp_path / "v.urdf"))
    assert r.link("base").visual_geometry is not None
    out, rep, root = write(r, tmp_path)
    (geom,) = root.iter("geom")
    assert geom.get("type") == "box" and geom.get("class") is None
    assert any("not found" in x for x in rep.lost)
    first = open(out, "rb").read()
    roboio.save(roboio.load(out), out, format="mjcf", overwrite_input=True)
    assert open(out, "rb").read() == first


def test_massless_moving_links_get_the_minimum_mass(tmp_path):
    # (frames rotated from one link to the next: a run of massless links a translation apart
    # is folded into one body instead, see test_massless_translated_links_fold_into_one_body)
    r = robot([Link("a", -1, "revolute", (0, 0, 1), mass=0.0, inertia=np.zeros((3, 3))),
               Link("b", 0, "revolute", (0, 1, 0), T(Rz(0.3), (1, 0, 0)), mass=0.0, inertia=np.zeros((3, 3))),
               Link("c", 1, "revolute", (0, 1, 0), T(Rx(0.2)), mass=2.0, inertia=np.zeros((3, 3))),
               Link("d", 2, "revolute", (0, 0, 1), mass=0.0, inertia=np.zeros((3, 3))),
               Link("e", 3, "revolute", (0, 0, 1), mass=1.0, inertia=np.eye(3))],
              [Joint("normal", [0]), Joint("normal", [1]), Joint("normal", [2]), Joint("normal", [3]),
               Joint("weld", [4])])
    out, rep, root = write(r, tmp_path)
    item = lost(rep, "moving bodies without the mass")[0]
    # a, b: massless; c: a point mass (no inertia); d: massless but welded to e, which has both
    assert " a (" in item and " b (" in item and " c (" in item and " d (" not in item
    m, d = compiled(out)
    mass = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, i): m.body_mass[i] for i in range(1, m.nbody)}
    assert mass == pytest.approx({"a": 1e-6, "b": 1e-6, "c": 2.0, "d": 0.0, "e": 1.0}, abs=1e-18)
    assert m.body_inertia[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "c")] == pytest.approx([1e-10] * 3)
    assert any("total mass changed by +2e-06 kg" in w for w in rep.warnings)


def test_inertias_mujoco_refuses_are_fixed_and_reported(tmp_path):
    R = Rz(0.3) @ Rx(0.2)
    full = R @ np.diag([0.1, 0.2, 0.25]) @ R.T          # valid, not diagonal
    r = robot([Link("ok", -1, "revolute", (0, 0, 1), mass=1, inertia=full),
               Link("tri", 0, "revolute", (0, 0, 1), mass=1, inertia=np.diag([1.0, 1.0, 3.0])),
               Link("neg", 1, "revolute", (0, 0, 1), mass=1, inertia=np.diag([-0.1, 1.0, 1.0]))])
    out, rep, root = write(r, tmp_path)
    assert root.find(".//body[@name='ok']/inertial").get("fullinertia") is not None
    item = lost(rep, "mass properties changed for MuJoCo")[0]
    assert "tri: principal inertias raised to satisfy A + B >= C (by 5.0e-01" in item
    assert "neg: negative principal inertia raised to 0 (by 1.0e-01" in item
    m, d = compiled(out)
    b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "ok")
    q = m.body_iquat[b]
    w, x, y, z = q
    Rq = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                   [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                   [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    assert np.allclose(Rq @ np.diag(m.body_inertia[b]) @ Rq.T, full, atol=1e-15)
    assert sorted(m.body_inertia[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "tri")]) == pytest.approx([1.5, 1.5, 3])


def test_primitives_are_mujoco_geoms(tmp_path):
    cyl = Primitive("Cylinder", {"center": (0, 0, 0), "axis": (1, 0, 0), "radius": 0.1, "height": 0.4})
    box = Primitive("Box", {"origin": (0, 0, 0), "xaxis": (0, 1, 0), "yaxis": (-1, 0, 0), "zaxis": (0, 0, 1),
                            "dims": (0.2, 0.4, 0.6)})
    sph = Primitive("Sphere", {"center": (1, 0, 0), "radius": 0.5}, transform=np.diag([1.0, 2.0, 3.0, 1.0]))
    cap = Primitive("Capsule", {"center": (0, 0, 0), "axis": (0, 0, 1), "radius": 0.05, "height": 0.3})
    cone = Primitive("Cone", {"center": (0, 0, 0), "axis": (0, 0, 1), "radius": 0.05, "height": 0.3})
    aabb = Primitive("AABB", {"bmin": (0, 0, 0), "bmax": (1, 2, 3)}, transform=T(Rz(0.5), (0, 0, 1)))
    r = robot([Link("l", -1, "revolute", (0, 0, 1), geometry=Group([cyl, box, sph, cap, cone, aabb]))])
    out, rep, root = write(r, tmp_path)
    assert "l (Cone)" in lost(rep, "primitives MuJoCo has no geom for")[0]
    m, d = compiled(out)
    mujoco.mj_kinematics(m, d)
    T_ = mujoco.mjtGeom
    want = [  # type, size, centre, rotation (hand-worked)
        (T_.mjGEOM_CYLINDER, [0.1, 0.2], [0.2, 0, 0], None),
        (T_.mjGEOM_BOX, [0.1, 0.2, 0.3], Rz(np.pi / 2) @ [0.1, 0.2, 0.3], Rz(np.pi / 2)),
        (T_.mjGEOM_ELLIPSOID, [0.5, 1.0, 1.5], [1, 0, 0], np.eye(3)),
        (T_.mjGEOM_CAPSULE, [0.05, 0.15], [0, 0, 0.15], np.eye(3)),
        (T_.mjGEOM_MESH, None, None, None),
        (T_.mjGEOM_BOX, [0.5, 1, 1.5], Rz(0.5) @ [0.5, 1, 1.5] + [0, 0, 1], Rz(0.5)),
    ]
    assert m.ngeom == len(want)
    for g, (typ, size, c, Rw) in enumerate(want):
        assert m.geom_type[g] == typ
        if size is None:
            continue
        assert m.geom_size[g][:len(size)] == pytest.approx(size, abs=1e-12)
        assert d.geom_xpos[g] == pytest.approx(c, abs=1e-12)
        if Rw is not None:
            assert np.allclose(d.geom_xmat[g].reshape(3, 3), Rw, atol=1e-12)
    # the cylinder's axis is the world x axis
    assert np.allclose(np.abs(d.geom_xmat[0].reshape(3, 3)[:, 2]), [1, 0, 0], atol=1e-12)


def test_self_collision_pairs_become_excludes_and_pairs(tmp_path):
    ball = Primitive("Sphere", {"center": (0, 0, 0), "radius": 0.1})
    links = [Link("base", -1, "revolute", (0, 0, 1), geometry=ball.copy()),
             Link("l1", 0, "revolute", (0, 0, 1), T(t=(0, 0, 1)), geometry=ball.copy()),
             Link("l2", 1, "revolute", (0, 1, 0), T(t=(0, 0, 1)), geometry=ball.copy()),
             Link("l3", 2, "revolute", (0, 1, 0), T(t=(0, 0, 1)), geometry=ball.copy())]
    r = robot(links, [Joint("weld", [0]), Joint("normal", [1]), Joint("normal", [2]), Joint("normal", [3])])
    # checked: base-l2 (MuJoCo would too), l2-l3 (parent/child: MuJoCo would skip it)
    r.self_collision_pairs = {(0, 2), (2, 3)}
    out, rep, root = write(r, tmp_path)
    excl = {(e.get("body1"), e.get("body2")) for e in root.iter("exclude")}
    # base-l1 is a parent/child pair that MuJoCo checks (base is welded to the world)
    assert excl == {("base", "l1"), ("base", "l3"), ("l1", "l3")}
    pairs = [(p.get("geom1"), p.get("geom2")) for p in root.iter("pair")]
    assert pairs == [("l2", "l3")]
    compiled(out)


def test_folded_ball_and_socket_matches_fk(tmp_path):
    links = [Link("b0", -1, "revolute", (0, 0, 1), T(Rx(0.3), (0, 0, 1)), mass=0, inertia=np.zeros((3, 3))),
             Link("b1", 0, "revolute", (0, 1, 0), T(Ry(-0.2), (0.1, 0, 0)), mass=0, inertia=np.zeros((3, 3))),
             Link("b2", 1, "revolute", (1, 0, 0), T(Rz(0.7), (0, 0.2, 0)), mass=1, inertia=np.eye(3)),
             Link("tip", 2, "prismatic", (0, 0, 1), T(t=(0, 0, 0.5)), mass=1, inertia=np.eye(3))]
    r = robot(links, [Joint("ballandsocket", [0, 1, 2]), Joint("normal", [3])])
    out, rep, root = write(r, tmp_path)
    assert [b.get("name") for b in root.iter("body")] == ["b2", "tip"]
    assert [j.get("name") for j in root.find(".//body[@name='b2']").findall("joint")] == ["b0", "b1", "b2"]
    m, d = compiled(out)
    rng = np.random.default_rng(0)
    for _ in range(5):
        q = rng.uniform(-1, 1, 4)
        for name, v in zip(("b0", "b1", "b2", "tip"), q):
            set_joint(m, d, name, v)
        mujoco.mj_kinematics(m, d)
        F = r.fk(q)
        for name in ("b2", "tip"):
            p, R = body(m, d, name)
            i = r.link_index(name)
            assert np.allclose(p, F[i][:3, 3], atol=1e-12) and np.allclose(R, F[i][:3, :3], atol=1e-12)


def test_names_are_made_unique(tmp_path):
    r = robot([Link("world", -1, "revolute", (0, 0, 1)), Link("x", 0, "revolute", (0, 0, 1)),
               Link("x", 1, "revolute", (0, 0, 1))])
    out, rep, root = write(r, tmp_path)
    assert [b.get("name") for b in root.iter("body")] == ["world_2", "x", "x_2"]
    # renamed, not lost: MuJoCo holds the same bodies, named as it allows
    assert rep.renamed["links"] == {"world": "world_2", "x": ["x", "x_2"]}
    assert not lost(rep, "names made unique")
    m, _ = compiled(out)
    assert [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(1, m.nbody)] == \
        ["world_2", "x", "x_2"]


def test_mesh_flat_to_float32_precision_collides_as_a_box(tmp_path):
    """A quad 3e-9 thick for its 0.16 m width (a KUKA KR210 COLLADA mesh): MuJoCo holds
    vertices as 32-bit floats and finds them coplanar ("cannot compute convex hull"),
    refusing the whole model; it is written as a thin box (reported) and compiles."""
    t = 4.6e-10
    quad = TriangleMesh([[0, 0, 0], [0.16, 0, t], [0.16, 0.09, 0], [0, 0.09, t]],
                        [[0, 1, 2], [0, 2, 3], [0, 2, 1], [0, 3, 2]])
    r = robot([Link("a", -1, "revolute", (0, 0, 1), T(), mass=1.0, inertia=np.eye(3) * 0.01,
                    geometry=quad)])
    out, rep, _ = write(r, tmp_path)
    assert "a" in lost(rep, "flat collision meshes")[0]
    m, _ = compiled(out)
    assert any(m.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX for g in range(m.ngeom))


def test_world_with_objects_and_flat_terrain(tmp_path):
    floor = TriangleMesh([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]], [[0, 1, 2], [0, 2, 3]])
    w = World("w")
    w.add(Terrain("floor", floor))
    o = RigidObject("crate", Primitive("AABB", {"bmin": (-0.1, -0.1, -0.1), "bmax": (0.1, 0.1, 0.1)}),
                    T(Rz(0.2), (0, 0, 0.5)))
    o.mass, o.inertia, o.kFriction = 2.0, np.eye(3) * 0.01, 0.7
    w.add(o)
    w.add(robot([Link("a", -1, "revolute", (0, 0, 1), T(t=(1, 0, 0)))]))
    out, rep, root = write(w, tmp_path)
    assert "floor" in lost(rep, "flat collision meshes")[0]
    m, d = compiled(out)
    mujoco.mj_forward(m, d)
    crate = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "crate")
    assert m.body_mass[crate] == 2.0 and d.xpos[crate] == pytest.approx([0, 0, 0.5])
    # the floor's two geoms (drawn mesh, colliding box) are one static body, named after it
    floor = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "floor")
    assert floor > 0 and m.body_weldid[floor] == 0 and m.body_jntnum[floor] == 0
    box = [g for g in range(m.ngeom) if m.geom_bodyid[g] == floor and m.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX][0]
    # the floor's collision box has its top face at z = 0 and spans the mesh
    assert d.geom_xpos[box][2] + m.geom_size[box][2] == pytest.approx(0, abs=1e-12)
    assert m.geom_size[box][:2] == pytest.approx([5, 5])
    cg = [g for g in range(m.ngeom) if m.geom_bodyid[g] == crate][0]
    assert m.geom_friction[cg][0] == 0.7


def write_stl(path, tris):
    tris = np.asarray(tris, np.float32)
    rec = np.zeros(len(tris), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    rec["v"] = tris
    with open(path, "wb") as f:
        f.write(b" " * 80 + struct.pack("<I", len(tris)) + rec.tobytes())


TET = [[[0, 0, 0], [0, 1, 0], [1, 0, 0]], [[0, 0, 0], [1, 0, 0], [0, 0, 1]],
       [[0, 0, 0], [0, 0, 1], [0, 1, 0]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]]]


@pytest.fixture
def mesh_robot(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    write_stl(src / "tet.stl", TET)
    with open(src / "tet.off", "w") as f:
        f.write("OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n")
    with open(src / "arm.rob", "w") as f:
        f.write('links "a" "b"\nparents -1 0\nTparent 1 0 0 0 1 0 0 0 1 0 0 0  1 0 0 0 1 0 0 0 1 1 0 0\n'
                'axis 0 0 1 0 1 0\nqmin -1 -1\nqmax 1 1\nmass 1 1\n'
                'geometry "tet.stl" "tet.off"\ngeomscale 1 2\n')
    return str(src / "arm.rob")


@pytest.mark.parametrize("mode", ["keep", "copy", "convert"])
def test_mesh_modes(mesh_robot, tmp_path, mode):
    r = roboio.load(mesh_robot)
    out, rep, root = write(r, tmp_path, f"out_{mode}.xml", meshes=mode)
    files = {m.get("name"): m.get("file") for m in root.iter("mesh")}
    # converted files are named after their source (tet.off -> tet.stl, or tet_1.stl when the
    # name is taken by the copied or converted tet.stl)
    stl_ref, off_ref = {"keep": ("src/tet.stl", f"out_{mode}_meshes/tet.stl"),
                        "copy": (f"out_{mode}_meshes/tet.stl", f"out_{mode}_meshes/tet_1.stl"),
                        "convert": (f"out_{mode}_meshes/tet.stl", f"out_{mode}_meshes/tet_1.stl")}[mode]
    assert sorted(files.values()) == sorted([stl_ref, off_ref])
    written = [os.path.relpath(f, tmp_path).replace(os.sep, "/") for f in rep.files]
    assert off_ref in written and f"out_{mode}.xml" in written
    assert (stl_ref in written) == (mode != "keep")
    scale = [m.get("scale") for m in root.iter("mesh") if m.get("file") == off_ref]
    assert scale == ["2 2 2"]        # the .off data are converted, the scale stays an attribute
    m, d = compiled(out)
    mujoco.mj_kinematics(m, d)
    b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "b")
    g = [k for k in range(m.ngeom) if m.geom_bodyid[k] == b][0]
    mid = m.geom_dataid[g]
    v = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]]
    world = v @ d.geom_xmat[g].reshape(3, 3).T + d.geom_xpos[g]
    # the scaled tetrahedron (0,0,0), (2,0,0), (0,2,0), (0,0,2) on link b at x = 1
    assert np.allclose(sorted(map(tuple, np.round(world, 6))),
                       sorted([(1, 0, 0), (3, 0, 0), (1, 2, 0), (1, 0, 2)]), atol=1e-6)
    assert "mesh vertices rounded to 32-bit floats" not in " ".join(rep.lost)   # exact in float32
    first = open(out, "rb").read()
    roboio.save(r, out, format="mjcf", meshes=mode)
    assert open(out, "rb").read() == first


def test_mesh_export_splits_colours_and_face_counts(tmp_path):
    rep = ConversionReport()
    V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    red, blue = (1, 0, 0, 1), (0, 0, 1, 1)
    mesh = TriangleMesh(V, F, face_colors=[red, blue, red, red])
    ex = MeshExport(str(tmp_path / "x.xml"), rep, mode="convert", split_colors=True, max_faces=2)
    pieces = ex.export(mesh, np.eye(4), "m")
    assert [(p.reference, p.rgba, len(p.faces)) for p in pieces] == [   # named after the label
        ("x_meshes/m.stl", red, 2), ("x_meshes/m_part1.stl", red, 1), ("x_meshes/m_1.stl", blue, 1)]
    ex.write_files()
    assert sorted(os.listdir(tmp_path / "x_meshes")) == ["m.stl", "m_1.stl", "m_part1.stl"]


def test_missing_mesh_is_reported_not_referenced(tmp_path):
    g = TriangleMesh(missing=True, source=roboio.model.GeometrySource("gone.stl"))
    r = robot([Link("a", -1, "revolute", (0, 0, 1), geometry=g)])
    out, rep, root = write(r, tmp_path)
    assert root.find(".//mesh") is None
    assert "a (gone.stl)" in " ".join(rep.lost)


def test_cli_convert_to_mjcf(tmp_path, capsys):
    out = str(tmp_path / "arm.xml")
    assert main(["convert", os.path.join(SAMPLES, "planar_arm.rob"), out, "--to", "mjcf",
                 "--meshes", "convert"]) == 0
    text = capsys.readouterr().out
    assert f"wrote {out} (mjcf)" in text and "also wrote" in text and "arm_meshes" in text
    m, d = compiled(out)
    assert m.njnt == 6
    with pytest.raises(SystemExit) as e:
        main(["convert", os.path.join(SAMPLES, "planar_arm.rob"), out, "--to", "mjcf", "--meshes", "x"])
    assert e.value.code == 2


@pytest.mark.parametrize("faces, kept", [
    ("f 1//1 2//1 3//1\nf 1//1 2//1 4//1\nf 1//1 3//1 4//1\nf 2//1 3//1 4//1\n", True),
    ("f 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n", False),         # normals declared, none used
    ("f 1//1 2//1 3//1\nf 1 2 4\nf 1 3 4\nf 2 3 4\n", False),  # pybullet_data's table_square
])
def test_obj_mujoco_refuses_is_converted(tmp_path, faces, kept):
    """MuJoCo refuses an OBJ declaring normals that some face corner does not name (or names
    beyond them): such a file is converted, not referenced, and MuJoCo compiles the output."""
    obj = tmp_path / "t.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvn 0 0 1\n" + faces)
    src = tmp_path / "t.urdf"
    src.write_text('<robot name="t"><link name="a"><collision><geometry><mesh filename="t.obj"/></geometry>'
                   '</collision><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" '
                   'iyz="0"/></inertial></link></robot>')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        r = roboio.load(str(src))
    out, rep, root = write(r, tmp_path, name="o.xml")
    files = [m.get("file") for m in root.iter("mesh")]
    assert len(files) == 1 and (files[0].endswith("t.obj") == kept), files
    m, d = compiled(out)
    assert m.nmesh == 1


def test_obj_naming_a_normal_beyond_the_file_is_refused_when_used(tmp_path):
    """A normal index beyond the file's ``vn`` statements: roboio's OBJ reader refuses the
    file at that line (trimesh would size arrays by the index); a lazy mesh of a URDF says
    so when the writer first needs it, and the CLI (which checks meshes at load) reports it
    as a missing mesh."""
    obj = tmp_path / "t.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvn 0 0 1\n"
                   "f 1//2 2//1 3//1\nf 1//1 2//1 4//1\nf 1//1 3//1 4//1\nf 2//1 3//1 4//1\n")
    src = tmp_path / "t.urdf"
    src.write_text('<robot name="t"><link name="a"><collision><geometry><mesh filename="t.obj"/></geometry>'
                   '</collision></link></robot>')
    r = roboio.load(str(src))
    with pytest.raises(roboio.FormatError, match=r"t\.obj:6: normal index 2 out of range"):
        roboio.save(r, tmp_path / "o.xml", format="mjcf")


# -- actuators, extension -----------------------------------------------------------------
def _gripper():
    """Two revolute links and a coupled pair whose driver value is the second finger's
    (leader 3: not the driver's first DOF), on an axis of length 2 for one finger."""
    links = [Link("a", -1, "revolute", (0, 0, 1), T(), mass=1.0, inertia=np.eye(3) * 0.01),
             Link("b", 0, "revolute", (0, 1, 0), T(t=(0, 0, 1)), mass=1.0, inertia=np.eye(3) * 0.01),
             Link("f1", 1, "prismatic", (2, 0, 0), T(t=(0, 0, 1)), mass=0.1, inertia=np.eye(3) * 1e-4),
             Link("f2", 1, "prismatic", (1, 0, 0), T(t=(0, 0.1, 1)), mass=0.1, inertia=np.eye(3) * 1e-4)]
    for l in links:
        l.joint_name = l.name             # (joints named after their links, drivers otherwise)
    r = Robot("g")
    r.set_links(links, qmin=[-1, -1, 0, 0], qmax=[1, 1, 0.05, 0.1], tmax=[5, 5, 3, 3])
    r.joints = [Joint("normal", [i]) for i in range(4)]
    r.drivers = [Driver("turn", "normal", [0], qmin=-1, qmax=1, tmin=-5, tmax=5, servo_p=100, servo_d=5),
                 Driver("lift", "normal", [1], qmin=-1, qmax=1, servo_p=50, servo_i=2),
                 Driver("grip", "affine", [2, 3], scale=[0.5, 1.0], offset=[0.0, 0.0], qmin=0, qmax=0.1,
                        tmin=-3, tmax=3, servo_p=20, servo_d=1, leader=3)]
    return r


def test_position_actuators(tmp_path):
    out = tmp_path / "g.xml"
    rep = roboio.save(_gripper(), str(out), format="mjcf")
    acts = etree.parse(str(out)).find("actuator")
    got = [(a.tag, a.get("name"), a.get("joint"), a.get("kp"), a.get("kv"), a.get("ctrlrange"),
            a.get("forcerange")) for a in acts]
    assert got == [("position", "turn", "a", "100", "5", "-1 1", "-5 5"),
                   ("position", "lift", "b", "50", "0", "-1 1", None),
                   ("position", "grip", "f2", "20", "1", "0 0.1", "-3 3")]
    eq = etree.parse(str(out)).find("equality/joint")
    assert (eq.get("joint1"), eq.get("joint2")) == ("f1", "f2")   # f1 follows the actuated f2
    # f1 = 0.5 u with qpos_f1 = 2 q_f1 = u: polycoef 0 1
    assert eq.get("polycoef") == "0 1 0 0 0"
    assert etree.parse(str(out)).find("option").get("integrator") == "implicitfast"
    assert any("integral gains" in x and "lift (2)" in x for x in rep.lost)
    m = mujoco.MjModel.from_xml_path(str(out))
    assert m.nu == 3


def test_actuator_leader_coordinates_and_other_modes(tmp_path):
    r = _gripper()
    r.drivers[2].leader = 2                  # the driver value is not f1's coordinate: qpos = 2 * 0.5 u
    r.drivers[2].scale = [0.25, 1.0]
    rep = roboio.save(r, str(tmp_path / "l.xml"), format="mjcf")
    grip = etree.parse(str(tmp_path / "l.xml")).find("actuator/position[@name='grip']")
    assert grip.get("joint") == "f1" and grip.get("ctrlrange") == "0 0.05"   # a = 2 * 0.25
    assert grip.get("kp") == "80" and grip.get("forcerange") == "-6 6"        # 20 / a^2, 3 / a
    assert any("'grip' works in joint 'f1'" in w and "qpos = 0.5 u + 0" in w for w in rep.warnings)
    roboio.save(_gripper(), str(tmp_path / "m.xml"), format="mjcf", actuators="motor")
    motors = etree.parse(str(tmp_path / "m.xml")).find("actuator")
    assert [(a.tag, a.get("ctrlrange")) for a in motors] == [("motor", "-5 5"), ("motor", None), ("motor", "-3 3")]
    rep = roboio.save(_gripper(), str(tmp_path / "n.xml"), format="mjcf", actuators="none")
    assert etree.parse(str(tmp_path / "n.xml")).find("actuator") is None
    assert any(x.startswith("drivers (3): MJCF is written without actuators") for x in rep.lost)
    with pytest.raises(ValueError, match="applies to MJCF"):
        roboio.save(_gripper(), str(tmp_path / "x.urdf"), actuators="motor")


def test_mjcf_is_written_as_xml(tmp_path, capsys):
    arm = os.path.join(SAMPLES, "planar_arm.rob")
    assert main(["convert", arm, str(tmp_path / "arm.xml"), "--to", "mjcf", "--actuators", "motor"]) == 0
    assert "extension is not one of" not in capsys.readouterr().err
    assert etree.parse(str(tmp_path / "arm.xml")).find("actuator/motor") is not None
    (tmp_path / "in").mkdir()
    import shutil
    shutil.copy(arm, tmp_path / "in" / "arm.rob")
    shutil.copytree(os.path.join(SAMPLES, "meshes"), tmp_path / "in" / "meshes")
    assert main(["convert", str(tmp_path / "in"), str(tmp_path / "out"), "--to", "mjcf"]) == 0
    assert (tmp_path / "out" / "arm.rob.xml").is_file()        # (the input's whole name + .xml)
    assert mujoco.MjSpec.from_file(str(tmp_path / "out" / "arm.rob.xml")).compile().nu == 5


def test_geom_colours_survive_a_rewrite(tmp_path):
    """MJCF -> read -> MJCF keeps each geom's colour: a geom of another colour than the
    link's is read with its own appearance, and MuJoCo's default colour (what a geom that
    names none is read with) is not written (pumaarm.zae -> MJCF -> MJCF changed colours)."""
    from roboio.model import Appearance
    red = (1.0, 0.0, 0.0, 1.0)
    a = Primitive("Box", {"origin": [-0.1, -0.1, -0.1], "xaxis": [1, 0, 0], "yaxis": [0, 1, 0],
                          "zaxis": [0, 0, 1], "dims": [0.2, 0.2, 0.2]})
    b = a.copy()
    b.transform = T(t=(0, 0, 0.5))
    b.appearance = Appearance(color=red)
    r = robot([Link("base", -1, "revolute", (0, 0, 1), T(), mass=1.0, inertia=np.eye(3) * 0.01,
                    geometry=Group([a, b]))])
    r.drivers = [Driver("base", "normal", [0], qmin=-1, qmax=1)]
    out1, _, root = write(r, tmp_path, "one.xml")
    rgbas = [g.get("rgba") for g in root.iter("geom")]
    assert rgbas == [None, "1 0 0 1"]                    # the first: MuJoCo's own grey
    m, _ = compiled(out1)
    assert np.allclose(m.geom_rgba, [[0.5, 0.5, 0.5, 1], red])
    back = roboio.load(out1)
    pieces = back.link("base").geometry.children
    assert pieces[0].appearance is None and pieces[1].appearance.color == red
    out2, _, _ = write(back, tmp_path, "two.xml")
    strip = lambda p: open(p, "rb").read().replace(b"two", b"one")      # (the model's name)
    assert strip(out1) == strip(out2)


def test_initial_configuration_reads_back_from_its_keyframe(tmp_path):
    """robot.config -> <key name="initial"> -> robot.config (a file roboio wrote), so that
    MJCF -> read -> MJCF keeps the keyframe (pumaarm.zae lost it)."""
    r = _gripper()
    r.config = np.array([0.25, -0.5, 0.01, 0.02])
    out1, _, root = write(r, tmp_path, "one.xml")
    assert root.find("keyframe/key").get("qpos") == "0.25 -0.5 0.02 0.02"    # f1: |axis| 2
    back = roboio.load(out1)
    # (read back with unit axes: f1's coordinate is MuJoCo's, 2 x 0.01)
    assert np.allclose(back.config[[back.link_index(n) for n in ("a", "b", "f1", "f2")]],
                       [0.25, -0.5, 0.02, 0.02], rtol=0, atol=1e-15)
    out2, _, _ = write(back, tmp_path, "two.xml")
    assert etree.parse(out2).getroot().find("keyframe/key").get("qpos") == "0.25 -0.5 0.02 0.02"


def test_torque_limits_read_back_from_actuatorfrcrange(tmp_path):
    """A link's torque limit tmax is written as the joint's actuatorfrcrange -t t (over the
    axis length) and read back as tmax, so that MJCF -> read -> MJCF keeps it (HRP4C, WAM)."""
    out1, _, root = write(_gripper(), tmp_path, "one.xml")
    got = {j.get("name"): j.get("actuatorfrcrange") for j in root.find("worldbody").iter("joint")}
    assert got == {"a": "-5 5", "b": "-5 5", "f1": "-1.5 1.5", "f2": "-3 3"}   # f1: |axis| 2
    back = roboio.load(out1)
    assert [back.tmax[back.link_index(n)] for n in ("a", "b", "f1", "f2")] == [5, 5, 1.5, 3]
    out2, _, root2 = write(back, tmp_path, "two.xml")
    assert {j.get("name"): j.get("actuatorfrcrange") for j in root2.find("worldbody").iter("joint")} == got


def test_rotation_within_rounding_of_identity_writes_no_quat(tmp_path):
    """A frame within rounding of the identity (diagonal 1 - 2^-53: kawada-hironx.zae) has the
    quaternion 1 0 0 0, which reads back as no rotation; written without quat from the
    start, so that a rewrite is the same."""
    R = np.diag([1.0, 1 - 2.0 ** -53, 1 - 2.0 ** -53])
    assert not np.array_equal(R, np.eye(3))
    r = robot([Link("a", -1, "revolute", (0, 0, 1), T(), mass=1.0, inertia=np.eye(3) * 0.01),
               Link("b", 0, "revolute", (0, 1, 0), T(R, (0, 0, 1)), mass=1.0, inertia=np.eye(3) * 0.01)])
    _, _, root = write(r, tmp_path)
    b = root.find(".//body[@name='b']")
    assert b.get("quat") is None and b.get("pos") == "0 0 1"


def test_joint_friction_reads_back_as_driver_friction(tmp_path):
    """frictionloss / damping come from a one-DOF driver's dry / viscous friction and are read
    back as them, so that MJCF -> read -> MJCF keeps them (robotiq_3finger lost them)."""
    r = _gripper()
    r.drivers[0].dry_friction, r.drivers[0].viscous_friction = 0.25, 4.0
    out1, _, root = write(r, tmp_path, "one.xml")
    a = root.find(".//joint[@name='a']")
    assert (a.get("frictionloss"), a.get("damping")) == ("0.25", "4")
    back = roboio.load(out1)
    d = back.driver("a")                    # (read back named after its joint)
    assert (d.dry_friction, d.viscous_friction) == (0.25, 4.0)
    assert back.driver("b").dry_friction == 0.0
    out2, _, root2 = write(back, tmp_path, "two.xml")
    a2 = root2.find(".//joint[@name='a']")
    assert (a2.get("frictionloss"), a2.get("damping")) == ("0.25", "4")


def test_actuators_and_couplings_follow_the_joint_order(tmp_path):
    """Actuators and equalities are listed in the document order of their joints, which a
    reading keeps (drivers are read one per joint, in that order), not in the drivers'
    order: MJCF -> read -> MJCF lists them the same (barrettwam's fingers swapped)."""
    r = _gripper()
    r.drivers = r.drivers[::-1]                      # grip, lift, turn
    out1, _, root = write(r, tmp_path, "one.xml")
    assert [a.get("joint") for a in root.find("actuator")] == ["a", "b", "f2"]
    out2, _, root2 = write(roboio.load(out1), tmp_path, "two.xml")
    assert [a.get("joint") for a in root2.find("actuator")] == ["a", "b", "f2"]


def test_world_written_reads_back_with_its_configuration_and_terrain_names(tmp_path):
    """The sample world (a robot at a configuration off its zero, a crate, a floor) through
    MJCF: the robot's configuration comes back from the 'initial' key (after the crate's free
    joint in qpos), the floor keeps its name; a lone robot's configuration too."""
    world = roboio.load(os.path.join(SAMPLES, "world.xml"))
    assert np.any(world.robots[0].config != 0)
    out = str(tmp_path / "world.xml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roboio.save(world, out, format="mjcf")
        back = roboio.load(out)
    np.testing.assert_allclose(back.robots[0].config, world.robots[0].config, atol=1e-15)
    assert [t.name for t in back.terrains] == [t.name for t in world.terrains]
    try:
        import mujoco
    except ImportError:
        mujoco = None
    if mujoco is not None:          # MuJoCo opens it: the floor geom by name, the robot's key
        m = mujoco.MjModel.from_xml_path(out)
        assert m.geom("floor").bodyid[0] == 0 and m.nkey == 1
    robot = world.robots[0]
    out = str(tmp_path / "arm.xml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roboio.save(robot, out, format="mjcf")
        back = roboio.load(out)
    np.testing.assert_allclose(back.config, robot.config, atol=1e-15)


def test_rewrite_is_stable_when_a_driver_reaches_past_its_joint(tmp_path):
    """A driver whose range maps past its joint's range (robotiq_3finger's: 0.296706 against
    17 degrees): the position actuator's ctrlrange is kept within the joint's range, which a
    reading takes as the driver's limits, and the excludes are listed in document order, so
    that write -> read -> write gives the same file."""
    robot = roboio.load(os.path.join(SAMPLES, "planar_arm.rob"))
    shoulder = robot.link_index("shoulder")
    d = next(d for d in robot.drivers if d.dofs == [shoulder])
    d.qmin, d.qmax = robot.qmin[shoulder] - 0.01, robot.qmax[shoulder] + 0.01
    first, second = str(tmp_path / "a.xml"), str(tmp_path / "b.xml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roboio.save(robot, first, format="mjcf", meshes="keep")
        back = roboio.load(first)
        roboio.save(back, second, format="mjcf", meshes="keep")
    text = open(first).read()
    assert text == open(second).read()
    assert f'ctrlrange="{float(robot.qmin[shoulder])!r} {float(robot.qmax[shoulder])!r}"' in text


def test_rewrite_keeps_a_principal_inertia_without_fixed_point(tmp_path):
    """atlas.rob's torso inertias are nearly flat (A + B = C to 1e-5): quat + diaginertia of
    them have no exact fixed point through the reader's tensor, and each rewrite moved their
    last digits. The reader keeps the principal form it read; a rewrite of the unchanged
    tensor writes it again: write -> read -> write -> read -> write gives one file."""
    from conftest import corpus_path
    path = corpus_path("klampt", "robots", "atlas.rob")
    if not os.path.exists(path):
        pytest.skip("atlas.rob not in the corpus")
    outs = [str(tmp_path / f"{k}.xml") for k in "abc"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roboio.save(roboio.load(path), outs[0], format="mjcf", meshes="keep")
        for src, dst in zip(outs, outs[1:]):
            roboio.save(roboio.load(src), dst, format="mjcf", meshes="keep")
    texts = [open(p).read() for p in outs]
    assert "quat=" in texts[0]
    assert texts[0] == texts[1] == texts[2]
    back = roboio.load(outs[1])
    link = back.links[[l.name for l in back.links].index("utorso")]
    link.inertia = link.inertia * 2              # changed: its own principal form again
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roboio.save(back, outs[2], format="mjcf", meshes="keep")
    assert open(outs[2]).read() != texts[1]


def test_mujocos_default_friction_is_left_to_mujoco(tmp_path):
    """A rigid object or terrain with kFriction 1 (what a reading gives a geom without
    friction, MuJoCo's default) is written without a friction attribute, so that a model
    written once, read back and written again keeps its bytes; any other value is written."""
    from conftest import rewrite_is_fixed_point
    box = Primitive("Sphere", {"center": (0, 0, 0), "radius": 0.05})
    w = World("w")
    a, b = RigidObject("a", box), RigidObject("b", box)
    a.kFriction, b.kFriction = 1.0, 0.7
    b.transform = np.array([[1, 0, 0, 0.5], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])
    w.add(a)
    w.add(b)
    out = str(tmp_path / "w.xml")
    rewrite_is_fixed_point(w, out, "mjcf")
    root = etree.parse(out).getroot()
    assert [g.get("friction") for g in root.iterfind(".//body[@name='a']/geom")] == [None]
    assert [g.get("friction") for g in root.iterfind(".//body[@name='b']/geom")] == ["0.7 0.005 0.0001"]
    m = mujoco.MjModel.from_xml_path(out)
    assert np.allclose(m.geom_friction, [[1.0, 0.005, 0.0001], [0.7, 0.005, 0.0001]], rtol=0, atol=0)
    back = roboio.load(out)
    assert [o.kFriction for o in back.rigid_objects] == [1.0, 0.7]
