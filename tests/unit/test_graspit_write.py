"""GraspIt! writing: any robot model becomes DH chains GraspIt! reads with the same link
frames; bodies and worlds; write -> read -> write is stable; what a GraspIt! file cannot hold
is reported. Also GraspIt!'s default mass properties on hand-worked meshes."""
import math
import os
import re

import numpy as np
import pytest

import roboio
from roboio.formats.graspit._massprops import body_triangles, default_cog, default_inertia
from roboio.formats.graspit._robot_generic import line_joint, zxz
from roboio.model import Driver, Joint, Link, Primitive, RigidObject, Robot, Terrain, TriangleMesh, World
from roboio.transforms import axis_angle_to_matrix, make_transform


def _rot(axis, ang):
    return axis_angle_to_matrix(np.asarray(axis, float) / np.linalg.norm(axis), ang)


def box_mesh(sx, sy, sz):
    v = np.array([[x, y, z] for x in (-sx, sx) for y in (-sy, sy) for z in (-sz, sz)], float) / 2
    f = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
         [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return TriangleMesh(v, f)


def sample_robot():
    """Root, an arm with skewed axes and offsets, a prismatic link, a weld, and a branch
    into two fingers (one coupled to the other by an affine driver with an offset)."""
    r = Robot("arm")
    specs = [  # name, parent, type, axis, R, t, weld
        ("base", -1, "revolute", (0, 0, 1), np.eye(3), (0, 0, 0), True),
        ("shoulder", 0, "revolute", (0, 0, 1), _rot((1, 0, 0), 0.3), (0.1, 0.0, 0.2), False),
        ("elbow", 1, "revolute", (1, 1, 0), _rot((0, 1, 1), 1.0), (0.0, 0.3, 0.0), False),
        ("slider", 2, "prismatic", (0.2, 0, 1), _rot((1, 2, 3), 0.7), (0.05, -0.02, 0.1), False),
        ("wrist", 3, "revolute", (0, 0, 1), _rot((0, 0, 1), 0.0), (0.0, 0.0, 0.0), True),
        ("finger_a", 4, "revolute", (0, 1, 0), _rot((1, 0, 0), -0.5), (0.02, 0.0, 0.03), False),
        ("finger_b", 4, "revolute", (0, -1, 0), _rot((1, 0, 0), 0.5), (-0.02, 0.0, 0.03), False),
    ]
    for name, parent, jt, axis, R, t, weld in specs:
        link = Link(name, parent, jt, axis, make_transform(R, t), mass=0.5, com=(0.01, 0, 0),
                    inertia=np.diag([1e-3, 2e-3, 3e-3]))
        link.geometry = box_mesh(0.02, 0.03, 0.04)
        r.add_link(link, qmin=0 if weld else -1.0, qmax=0 if weld else 1.2, q=0.0)
        r.joints.append(Joint("weld" if weld else "normal", [link.index]))
    r.drivers = [Driver("shoulder", "normal", [1]), Driver("elbow", "normal", [2]),
                 Driver("slider", "normal", [3]),
                 Driver("grip", "affine", [5, 6], scale=[1.0, -0.5], offset=[0.0, 0.1])]
    return r


def _frames_by_name(r, u):
    return dict(zip(r.link_names, r.fk(r.config_from_drivers(u))))


def test_any_robot_written_as_dh_chains(tmp_path):
    r = sample_robot()
    report = roboio.save(r, tmp_path / "arm" / "arm.xml", format="graspit")
    assert any("do not branch" in x for x in report.lost)       # finger_b's chain repeats the arm
    text = (tmp_path / "arm" / "arm.xml").read_text()
    assert "+-" in text or "+0" in text                          # offsets in GraspIt!'s '+-x' grammar
    assert not re.search(r"<theta>d\d+\*[^<]*e", text)          # ratios without exponents
    r2 = roboio.load(tmp_path / "arm" / "arm.xml")
    assert set(r.link_names) <= set(r2.link_names)
    rng = np.random.default_rng(5)
    for _ in range(10):
        u = rng.uniform(-0.9, 0.9, 4)
        a = _frames_by_name(r, u)
        u2 = np.r_[u, r2.drivers_from_config(r2.config)[4:]]
        b = _frames_by_name(r2, u2)
        for name in r.link_names:
            np.testing.assert_allclose(b[name], a[name], atol=1e-12, err_msg=name)
    # masses, centres and inertias survive (g, mm, mm^2 per unit mass)
    for l in r.links:
        l2 = r2.link(l.name)
        assert l2.mass == pytest.approx(l.mass, rel=1e-14)
        np.testing.assert_allclose(l2.com, l.com, atol=1e-15)
        np.testing.assert_allclose(l2.inertia, l.inertia, atol=1e-15)
    # the driver offset moved into the DH offset: GraspIt! joint values shift by it
    assert r2.drivers[3].offset == [0.0, 0.0]


def test_write_read_write_stable_in_place(tmp_path):
    roboio.save(sample_robot(), tmp_path / "arm.xml", format="graspit")
    before = {p: open(tmp_path / p, "rb").read() for p in os.listdir(tmp_path) if p.endswith(".xml")}
    roboio.save(roboio.load(tmp_path / "arm.xml"), tmp_path / "arm.xml", format="graspit",
                overwrite_input=True)
    after = {p: open(tmp_path / p, "rb").read() for p in os.listdir(tmp_path) if p.endswith(".xml")}
    assert before == after


def test_unrepresentable_parts_reported(tmp_path):
    r = sample_robot()
    r.links[0].parent_transform = make_transform(np.eye(3), (1, 2, 3))
    r.vmax[:] = 2.0
    r.links[1].visual_geometry = box_mesh(1, 1, 1)
    report = roboio.save(r, tmp_path / "a.xml", format="graspit")
    lost = " | ".join(report.lost)
    assert "base pose" in lost and "vmax" in lost and "visual geometry" in lost


def test_bodies_and_primitives(tmp_path):
    o = RigidObject("blockish", Primitive("Box", {"origin": (0, 0, 0), "xaxis": (1, 0, 0), "yaxis": (0, 1, 0),
                                                   "zaxis": (0, 0, 1), "dims": (0.1, 0.2, 0.3)}))
    o.mass = 0.25
    o.com = np.array([0.05, 0.1, 0.15])
    o.inertia = np.diag([1e-3, 2e-3, 3e-3])
    roboio.save(o, tmp_path / "b.xml", format="graspit")
    assert "Cube" in (tmp_path / "b.iv").read_text()
    o2 = roboio.load(tmp_path / "b.xml")
    np.testing.assert_allclose(o2.geometry.bounds(), [[0, 0, 0], [0.1, 0.2, 0.3]], atol=1e-12)
    assert o2.mass == pytest.approx(0.25)
    np.testing.assert_allclose(o2.com, o.com, atol=1e-15)
    np.testing.assert_allclose(o2.inertia, o.inertia, atol=1e-15)


def test_world_written_and_read_back(tmp_path):
    w = World("scene")
    r = sample_robot()
    r.links[0].parent_transform = make_transform(_rot((0, 0, 1), 0.4), (0.5, 0, 0))
    r.config = r.config_from_drivers([0.1, 0.2, 0.03, -0.4])
    w.add(r)
    t = Terrain("floor", box_mesh(2, 2, 0.02))
    w.add(t)
    o = RigidObject("cup", box_mesh(0.05, 0.05, 0.1))
    o.transform = make_transform(_rot((1, 0, 0), 0.2), (0.3, 0.1, 0.05))
    o.mass = 0.2
    w.add(o)
    roboio.save(w, tmp_path / "w.xml", format="graspit")
    w2 = roboio.load(tmp_path / "w.xml")
    (r2,) = w2.robots
    a, b = dict(zip(r.link_names, r.fk())), dict(zip(r2.link_names, r2.fk()))
    for name in r.link_names:
        np.testing.assert_allclose(b[name], a[name], atol=1e-12)
    np.testing.assert_allclose(w2.rigid_objects[0].transform, o.transform, atol=1e-15)
    assert w2.terrains[0].name == "floor"
    text = (tmp_path / "w.xml").read_text()
    # a robot written from the model goes to the world's own folder under models/robots/
    assert "<filename>models/robots/w/arm/arm.xml</filename>" in text


# -- the generic DH helpers ------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(8))
def test_line_joint_reaches_any_line(seed):
    rng = np.random.default_rng(seed)
    o = rng.normal(size=3)
    w = rng.normal(size=3)
    w /= np.linalg.norm(w)
    if seed == 0:
        w = np.array([0, 0, -1.0])                 # antiparallel to z
    if seed == 1:
        w = np.array([1e-4, 0, 1.0]) / np.linalg.norm([1e-4, 0, 1.0])    # almost parallel
    if seed == 6:
        # alex's IMU frames (example-robot-data): rpy (-3.141592, 0, -pi/2), 6.5e-7 rad from
        # antiparallel; the common normal's foot lies 20 km away
        o = np.array([0.01432621, 0.0755071, -0.00245783])
        w = _rot((0, 0, 1), -1.57079632679) @ _rot((1, 0, 0), -3.141592) @ np.array([0, 0, 1.0])
    if seed == 7:
        # icub's (example-robot-data): 3.7e-6 rad from parallel, 5.5e-8 m apart, the feet of
        # the common normal 4 km away (the lines were taken as meeting: 1.2e-7 m off)
        o = np.array([-0.015, 0, 0])
        w = np.array([-3.673205103383026e-06, 1.3492546753476235e-11, 0.9999999999932538])
    _, K = line_joint(o, w)
    np.testing.assert_allclose(K[:3, 2], w, atol=1e-12)
    # K's origin lies on the line
    d = K[:3, 3] - o
    np.testing.assert_allclose(d - (d @ w) * w, 0, atol=1e-11)


@pytest.mark.parametrize("seed", range(5))
def test_zxz(seed):
    rng = np.random.default_rng(seed)
    R = _rot(rng.normal(size=3), rng.uniform(-3, 3))
    if seed == 0:
        R = np.diag([1.0, -1.0, -1.0]) @ _rot((0, 0, 1), 0.3)
    c, a, t2 = zxz(R)
    np.testing.assert_allclose(_rot((0, 0, 1), c) @ _rot((1, 0, 0), a) @ _rot((0, 0, 1), t2), R, atol=1e-12)


# -- default mass properties -----------------------------------------------------------------
def test_default_inertia_of_a_box():
    m = box_mesh(20, 40, 60)                      # mm
    tri = body_triangles(m.vertices, m.faces, np.eye(4))
    I = default_inertia(tri)
    np.testing.assert_allclose(I, np.diag([40**2 + 60**2, 20**2 + 60**2, 20**2 + 40**2]) / 12, rtol=1e-12)
    # off-centre box: inertia still about its centre; the default cog is the surface centroid
    tri = body_triangles(m.vertices, m.faces, make_transform(np.eye(3), (5, 6, 7)))
    np.testing.assert_allclose(default_inertia(tri), np.diag([40**2 + 60**2, 20**2 + 60**2, 20**2 + 40**2]) / 12,
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(default_cog(tri), [5, 6, 7], atol=1e-12)


def test_default_cog_is_the_surface_centroid():
    """An open box (no top): GraspIt!'s CGDB rule weights faces by area. Faces of a 2x2x2
    cube without its top: bottom (area 4) at z=-1, four sides (area 4 each) at z=0: the
    area-weighted z is -4/20 = -0.2 (a volume centroid would be 0)."""
    m = box_mesh(2, 2, 2)
    keep = [i for i, f in enumerate(m.faces) if not np.all(m.vertices[f][:, 2] > 0)]
    tri = body_triangles(m.vertices, m.faces[keep], np.eye(4))
    np.testing.assert_allclose(default_cog(tri), [0, 0, -0.2], atol=1e-12)


def test_default_inertia_fails_like_graspit():
    """No triangles, a zero-area triangle that is not a repeated corner (NaN normal), or a
    centroid beyond 500 mm: GraspIt! gives up (roboio: None)."""
    assert default_inertia(np.zeros((0, 3, 3))) is None
    m = box_mesh(2, 2, 2)
    tri = body_triangles(np.r_[m.vertices, [[0, 0, 0], [1, 1, 1], [2, 2, 2]]], np.r_[m.faces, [[8, 9, 10]]], np.eye(4))
    assert default_inertia(tri) is None
    tri = body_triangles(m.vertices, m.faces, make_transform(np.eye(3), (600, 0, 0)))
    assert default_inertia(tri) is None
    # a triangle with two identical corners is dropped before the sums (Coin's callback)
    tri = body_triangles(np.r_[m.vertices, [[0, 0, 0]]], np.r_[m.faces, [[8, 8, 1]]], np.eye(4))
    assert len(tri) == 12 and default_inertia(tri) is not None


def test_driver_names_survive_and_verify_follows_the_drivers(tmp_path):
    from roboio.verify import verify
    r = sample_robot()
    report = roboio.save(r, tmp_path / "arm.xml", format="graspit")
    assert '<dof type="r" name="grip">' in (tmp_path / "arm.xml").read_text()
    # grip's offset 0.1 on finger_b moves into the DH offset: finger_b's values shift by -0.1
    assert any("'finger_b' reads back with joint values shifted by -0.1" in x for x in report.lost)
    r2 = roboio.load(tmp_path / "arm.xml")
    assert [d.name for d in r2.drivers[:4]] == ["shoulder", "elbow", "slider", "grip"]
    # equal driver values give equal frames (the frames are compared link by link by name)
    res = verify(r, r2, 30, seed=2, space="drivers")
    assert res.ok and not res.only_a, res


def test_a_file_named_otherwise_renames_the_robot_and_says_so(tmp_path):
    r = sample_robot()                            # robot "arm"
    same = roboio.save(r, tmp_path / "a" / "arm.xml", format="graspit")
    assert "robots" not in same.renamed
    other = roboio.save(r, tmp_path / "b" / "hand.xml", format="graspit")
    assert other.renamed["robots"] == {"arm": "hand"} and not other.renamed["links"]
    back = roboio.load(tmp_path / "b" / "hand.xml")
    assert back.name == "hand" and set(r.link_names) <= set(back.link_names)


def test_frames_that_are_not_rotations_are_written_as_nearest_rotations(tmp_path):
    from test_conversion_exact import two_links
    # a uniformly stretched rotation (1 + e) R on b's frame has nearest rotation R; b has no
    # child, so no origin moves, and rotation entries change by at most e (hand-worked)
    e = 4e-7
    R = _rot((1.0, 2.0, 3.0), 0.7)
    r = two_links()
    T = np.array(r.links[1].parent_transform, float)
    T[:3, :3] = R * (1 + e)
    r.links[1].parent_transform = T
    rep = roboio.save(r, tmp_path / "t.xml", format="graspit")
    pos, rot = rep.fk_error
    assert pos < 1e-15 and 0 < rot <= e * (1 + 1e-9)
    assert any("not rotations" in x for x in rep.lost)
    back = roboio.load(tmp_path / "t.xml")
    F = back.fk(np.zeros(back.num_links))
    rel = np.linalg.inv(F[back.link_names.index("a")]) @ F[back.link_names.index("b")]
    np.testing.assert_allclose(rel[:3, :3], R, atol=1e-12)
    np.testing.assert_allclose(rel[:3, 3], T[:3, 3], atol=1e-12)
    exact = roboio.save(two_links(), tmp_path / "u" / "t.xml", format="graspit")
    assert exact.fk_error == (0.0, 0.0)


def test_an_undriven_link_gets_a_dof_named_after_it(tmp_path):
    from roboio.verify import verify
    r = sample_robot()
    r.drivers = [d for d in r.drivers if d.name != "slider"]
    roboio.save(r, tmp_path / "arm.xml", format="graspit")
    assert '<dof type="r" name="slider">' in (tmp_path / "arm.xml").read_text()
    back = roboio.load(tmp_path / "arm.xml")
    assert "slider" in [d.name for d in back.drivers]
    # the same model with the slider driven by a driver of that name: equal DOF by DOF
    r.drivers.append(Driver("slider", "normal", [3], qmin=-1.0, qmax=1.2))
    res = verify(r, back, 30, seed=3, space="drivers")
    assert res.ok and not res.only_a, res


def test_robots_written_side_by_side_keep_their_own_link_bodies(tmp_path):
    """Two robots with the same link names written into one folder (what `roboio convert`
    of a tree and `roboio batch convert` do): each robot file's link bodies are its own,
    whichever was written last (GraspIt! looks link files up under <robot dir>/iv/, which the
    two share)."""
    light, heavy = sample_robot(), sample_robot()
    for link in heavy.links:
        link.mass = 2.0
        link.geometry = box_mesh(0.2, 0.3, 0.4)
    roboio.save(light, tmp_path / "light.xml", format="graspit")
    roboio.save(heavy, tmp_path / "heavy.xml", format="graspit")
    for name, source in (("light.xml", light), ("heavy.xml", heavy)):
        back = roboio.load(tmp_path / name)
        for link in source.links:
            assert back.link(link.name).mass == pytest.approx(link.mass, rel=1e-14), (name, link.name)
            lo, hi = back.link(link.name).geometry.bounds()
            np.testing.assert_allclose(hi - lo, source.link(link.name).geometry.bounds()[1]
                                       - source.link(link.name).geometry.bounds()[0], atol=1e-12)
    # rewriting a robot read back is still a fixed point (its link files keep their names)
    before = {os.path.relpath(os.path.join(d, f), tmp_path): open(os.path.join(d, f), "rb").read()
              for d, _, fs in os.walk(tmp_path) for f in fs}
    roboio.save(roboio.load(tmp_path / "light.xml"), tmp_path / "light.xml", format="graspit",
                overwrite_input=True)
    after = {os.path.relpath(os.path.join(d, f), tmp_path): open(os.path.join(d, f), "rb").read()
             for d, _, fs in os.walk(tmp_path) for f in fs}
    assert before == after


UNNAMED_BODY = """<KinBody name="TibitsBox1">
  <RotationAxis>0 0 1 90</RotationAxis>
  <Body type="dynamic">
    <Mass type="mimicgeom"><total>0.285</total></Mass>
    <Geom type="box"><Extents>0.003 0.0735 0.066</Extents><Translation>0 0 0.066</Translation></Geom>
  </Body>
</KinBody>
"""


def test_link_the_source_left_unnamed_is_written_named_and_reported(tmp_path):
    """crazy-robot/youbot_OpenRAVE's tibitsbox1.kinbody.xml: a <Body> without a name is the
    palm; written without a name it read back as '<robot>Base', a rename no report stated,
    and verify found no link to compare (infinite error)."""
    (tmp_path / "box.kinbody.xml").write_text(UNNAMED_BODY)
    a = roboio.load(tmp_path / "box.kinbody.xml")
    assert a.links[0].name == ""
    report = roboio.save(a, tmp_path / "box.xml", format="graspit")
    assert report.renamed["links"] == {"": "link0"}
    b = roboio.load(tmp_path / "box.xml")
    assert b.links[0].name == "link0"
    assert b.links[0].mass == pytest.approx(0.285, rel=1e-12)
    res = roboio.verify(a, b, stated=report)
    assert res.ok and res.max_position_error <= 1e-9 and not res.only_a


def test_names_the_reader_gives_by_default_are_not_written_so_the_rewrite_is_stable(tmp_path):
    """asibot's kinect robot (palm 'kinectBase') written into a GraspIt! world as kinect.xml:
    the first write, from the model, wrote <palm name="kinectBase">; the rewrite, from the
    GraspIt! record, leaves out a name the reader gives anyway (<stem>Base, and
    <stem>_chain<c>_link<l> for links), so the two differed."""
    r = sample_robot()
    r.links[0].name = "armBase"
    r.links[1].name = "arm_chain0_link0"
    roboio.save(r, tmp_path / "arm.xml", format="graspit")
    text = (tmp_path / "arm.xml").read_text()
    assert "<palm>" in text and 'name="arm_chain0_link0"' not in text
    back = roboio.load(tmp_path / "arm.xml")
    assert back.link_names[:2] == ["armBase", "arm_chain0_link0"]
    before = {p: open(tmp_path / p, "rb").read() for p in os.listdir(tmp_path) if p.endswith(".xml")}
    roboio.save(back, tmp_path / "arm.xml", format="graspit", overwrite_input=True)
    after = {p: open(tmp_path / p, "rb").read() for p in os.listdir(tmp_path) if p.endswith(".xml")}
    assert before == after


def test_copies_of_a_link_share_one_file(tmp_path):
    """A tree branching below the palm repeats the shared links in every later chain: the
    copies of one link are one file (ias_kitchen.urdf's 242 leaves wrote 1,200 copy files,
    more than roboio's reader opens), each copy still named in the robot file."""
    r = sample_robot()
    link = Link("finger_c", 4, "revolute", (1, 0, 0), make_transform(np.eye(3), (0.0, 0.02, 0.03)),
                mass=0.5, com=(0.01, 0, 0), inertia=np.diag([1e-3, 2e-3, 3e-3]))
    r.add_link(link, qmin=-1.0, qmax=1.0, q=0.0)
    r.joints.append(Joint("normal", [link.index]))
    r.drivers.append(Driver("finger_c", "normal", [link.index]))
    out = tmp_path / "arm.xml"
    rep = roboio.save(r, str(out), format="graspit")
    text = out.read_text()
    files = re.findall(r"<link[^>]*>([^<]+)</link>", text)
    copies = [f for f in files if "_copy" in f]
    # chains: finger_a, finger_b, finger_c; shoulder, elbow, slider, wrist repeated twice
    assert len(copies) == 8 and sorted(set(copies)) == ["arm/elbow_copy.xml", "arm/shoulder_copy.xml",
                                                        "arm/slider_copy.xml", "arm/wrist_copy.xml"]
    names = re.findall(r'<link[^>]*name="([^"]+)"', text)
    assert len([n for n in names if "_copy" in n]) == 8 == len(set(n for n in names if "_copy" in n))
    from roboio.verify import verify
    back = roboio.load(str(out))
    res = verify(r, back, 20, seed=3, space="drivers")
    assert res.ok and not res.only_a, res
    assert any("massless copy" in str(x) for x in rep.lost)
    roboio.save(back, str(out), format="graspit", overwrite_input=True)
    assert out.read_text() == text
