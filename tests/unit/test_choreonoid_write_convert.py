"""Choreonoid .body writer, motion <-> Klamp't trajectory conversion, `roboio motion`."""
import math
import textwrap
import warnings

import numpy as np

import roboio
from roboio.cli.main import main
from roboio.model import Group, Joint, Link, Primitive, Robot, TriangleMesh, Trajectory
from roboio.model.body_motion import BodyMotion, Seq

from test_choreonoid_body import ARM, SHAPES


def write(tmp_path, text, name):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return str(p)


def load(p):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(p)


def world_points(link, g=None):
    """Bounding sample points of a link's geometry, in the link frame."""
    g = link.geometry if g is None else g
    return np.sort(np.round(g.sample_points(), 12), axis=0)


def test_body_round_trip_exact(tmp_path):
    r = load(write(tmp_path, ARM, "arm.body"))
    out = str(tmp_path / "out.body")
    rep = roboio.save(r, out)
    assert rep.lossless, rep.lost
    text = open(out).read()
    assert "formatVersion: 1.0" in text and "angleUnit: radian" in text and "jointType: free" in text
    r2 = load(out)
    assert r2.link_names == r.link_names
    assert r2.joint_id_links == r.joint_id_links
    for name in ("qmin", "qmax", "vmin", "vmax"):
        assert np.array_equal(getattr(r, name), getattr(r2, name)), name
    assert np.array_equal(r.config[6:], r2.config[6:])          # joints exact; root pose to 1 ulp
    assert np.allclose(r.config[:6], r2.config[:6], atol=1e-15)
    for a, b in zip(r.links, r2.links):
        assert np.allclose(a.parent_transform, b.parent_transform, atol=1e-15)
        assert np.array_equal(a.axis, b.axis) and a.joint_type == b.joint_type
    Q = roboio.convert.sample_configs(r, 10)
    assert np.allclose(r.fk_batch(Q), r2.fk_batch(Q), atol=1e-14)


def test_body_round_trip_shapes_and_masses(tmp_path):
    r = load(write(tmp_path, SHAPES, "s.body"))
    out = str(tmp_path / "out.body")
    roboio.save(r, out)
    r2 = load(out)
    a, b = r.links[0], r2.links[0]
    assert a.mass == b.mass and np.allclose(a.com, b.com) and np.allclose(a.inertia, b.inertia)
    assert np.allclose(world_points(a), world_points(b))
    va, vb = (l.visual_geometry for l in (a, b))
    assert np.allclose(world_points(a, va), world_points(b, vb))
    assert b.extras["choreonoid"]["devices"][0]["type"] == "ForceSensor"
    assert np.allclose(b.extras["choreonoid"]["devices"][0]["transform"][:3, 3], [0, 0, 0.5])


def test_klampt_style_robot_to_body(tmp_path):
    """A robot built in memory (Klamp't conventions: z-axis cylinder with base-disc centre,
    corner-origin rotated box, floating base, weld) written and read back."""
    r = Robot("k")
    links = [Link(n, i - 1, "prismatic" if i < 3 else "revolute", ax, mass=0.0) for i, (n, ax) in
             enumerate([("bx", (1, 0, 0)), ("by", (0, 1, 0)), ("bz", (0, 0, 1)), ("byaw", (0, 0, 1)),
                        ("bpitch", (0, 1, 0))])]
    base = Link("base", 4, "revolute", (1, 0, 0), mass=2.0, com=(0, 0, 0.1))
    base.geometry = Primitive("Cylinder", {"center": [0, 0, 0], "axis": [0, 0, 1], "radius": 0.1, "height": 0.4})
    Ta = np.eye(4)
    Ta[:3, :3] = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    Ta[:3, 3] = [0.1, 0.2, 0.3]
    arm = Link("arm", 5, "revolute", (0, 1, 0), Ta, mass=1.0)
    R = np.array([[0, 0, 1], [0, 1, 0], [-1, 0, 0]])
    arm.geometry = Group([Primitive("Box", {"origin": [0, 0, 0], "xaxis": R[:, 0], "yaxis": R[:, 1],
                                            "zaxis": R[:, 2], "dims": [0.1, 0.2, 0.3]}),
                          TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])])
    tool = Link("tool", 6, "revolute", (0, 0, 1), mass=0.5)
    r.set_links(links + [base, arm, tool], qmin=[-np.inf] * 6 + [-1, 0], qmax=[np.inf] * 6 + [1, 0],
                config=[0.5, 0, 1, 0.3, 0.2, 0.1, 0.25, 0])
    r.joints = [Joint("floating", [0, 1, 2, 3, 4, 5]), Joint("normal", [6], 5), Joint("weld", [7], 6)]
    out = str(tmp_path / "k.body")
    rep = roboio.save(r, out)
    assert not rep.lost
    r2 = load(out)
    assert r2.link_names[5:] == ["base", "arm", "tool"]
    assert [j.type for j in r2.joints] == ["floating", "normal", "weld"]
    assert r2.joint_id_links == [6]
    T1, T2 = r.fk(), r2.fk()
    for name in ("base", "arm", "tool"):
        assert np.allclose(T1[r.link_index(name)], T2[r2.link_index(name)], atol=1e-12)
    for name in ("base", "arm"):
        a, b = r.link(name), r2.link(name)
        assert np.allclose(world_points(a), world_points(b), atol=1e-12)
    assert r2.qmin[6] == -1 and r2.qmax[6] == 1 and r2.config[6] == 0.25


def test_writer_reports_losses(tmp_path):
    r = load(write(tmp_path, ARM, "arm.body"))
    r.links[6].geometry = Primitive("Segment", {"a": [0, 0, 0], "b": [1, 0, 0]})
    r.amax = np.full(r.num_links, 3.0)
    rep = roboio.save(r, str(tmp_path / "o.body"))
    assert any("Segment" in x for x in rep.lost) and "amax limits" in rep.lost


# -- motions <-> trajectories -------------------------------------------------------------

def _motion_with_root():
    q = np.array([[0.1, 0.2, 0.0, 0.3], [0.2, 0.1, 0.0, 0.05]])
    s2 = math.sqrt(0.5)
    lp = np.array([[[0, 0, 1, 1, 0, 0, 0]], [[0.5, 0.1, 1, s2, 0, 0, s2]]])
    return BodyMotion([Seq("MultiValueSeq", "JointDisplacement", q, frame_rate=10, role="joint_displacement"),
                       Seq("MultiSE3Seq", "LinkPosition", lp, frame_rate=10, role="link_position"),
                       Seq("Vector3Seq", "ZMP", np.zeros((2, 3)), frame_rate=10, role="zmp")])


def test_motion_to_path_and_back(tmp_path):
    r = load(write(tmp_path, ARM, "arm.body"))
    m = _motion_with_root()
    m.body = r
    out = str(tmp_path / "m.path")
    rep = roboio.save(m, out)
    assert rep.lost == ["component Vector3Seq ZMP (ZMP)"]
    traj = roboio.load(out)
    assert np.allclose(traj.times, [0, 0.1])
    jl = r.joint_id_links
    assert np.array_equal(traj.milestones[:, [jl[0], jl[1], jl[3]]], m.joint_displacement[:, [0, 1, 3]])
    # floating base from LinkPosition: frame 1 = (0.5, 0.1, 1) and yaw 90 deg
    assert np.allclose(traj.milestones[1, :6], [0.5, 0.1, 1, math.pi / 2, 0, 0])
    Tm = m.link_transforms(r)
    Tt = r.fk_batch(traj.milestones)
    assert np.allclose(Tm, Tt, atol=1e-12)
    traj.body = r
    back = str(tmp_path / "back.seq")
    assert roboio.save(traj, back).lossless
    m2 = load(back)
    assert m2.frame_rate == 10 and m2.times is None
    assert np.allclose(m2.joint_displacement[:, [0, 1, 3]], m.joint_displacement[:, [0, 1, 3]])
    assert np.allclose(m2.link_transforms(r), Tm, atol=1e-12)


def test_uneven_times_become_frame_times(tmp_path):
    r = load(write(tmp_path, ARM, "arm.body"))
    Q = np.tile(r.config, (3, 1))
    traj = Trajectory([0, 0.1, 0.35], Q)
    traj.body = r
    rep = roboio.save(traj, str(tmp_path / "t.seq"))
    assert any("frame times" in w for w in rep.warnings)
    m = load(str(tmp_path / "t.seq"))
    assert np.array_equal(m.times, [0, 0.1, 0.35]) and m.frame_rate == 10


def test_conversion_needs_a_body(tmp_path, capsys):
    p = str(tmp_path / "m.seq")
    roboio.save(_motion_with_root(), p)
    assert main(["convert", p, str(tmp_path / "m.path")]) == 2
    assert "--body" in capsys.readouterr().err
    body = write(tmp_path, ARM, "arm.body")
    assert main(["convert", p, str(tmp_path / "m.path"), "--body", body]) == 0
    assert main(["convert", str(tmp_path / "m.path"), str(tmp_path / "m2.seq"), "--body", body]) == 0
    assert main(["convert", p, str(tmp_path / "mp.xml"), "--to", "klampt-multipath", "--body", body]) == 0
    assert main(["convert", str(tmp_path / "mp.xml"), str(tmp_path / "m3.seq"), "--body", body]) == 0
    a, b = load(str(tmp_path / "m2.seq")), load(str(tmp_path / "m3.seq"))
    assert np.array_equal(a.joint_displacement, b.joint_displacement)


def test_motion_cli_resample_and_fk(tmp_path, capsys):
    text = """
    type: CompositeSeq
    formatVersion: 2
    frameRate: 10
    components:
      - { type: MultiValueSeq, content: JointDisplacement, numParts: 1, hasFrameTime: true,
          frames: [ [ 0, 1 ], [ 0.25, 2 ], [ 0.3, 3 ] ] }
    """
    p = write(tmp_path, text, "t.seq")
    out = str(tmp_path / "r.seq")
    assert main(["motion", "resample", p, out]) == 0
    assert np.array_equal(load(out).joint_displacement[:, 0], [1, 1, 2, 3])
    assert main(["motion", "resample", p, out, "--rate", "20", "--method", "linear", "--to", "choreonoid-seq-v4"]) == 0
    m = load(out)
    assert m.format_version == 4 and m.frame_rate == 20
    assert np.allclose(m.joint_displacement[:, 0], [1, 1.2, 1.4, 1.6, 1.8, 2.0, 3.0])
    body = write(tmp_path, ARM, "arm.body")
    capsys.readouterr()
    assert main(["motion", "fk", p, "--body", body, "--frames", "all", "--link", "BASE", "--json"]) == 0
    import json
    d = json.loads(capsys.readouterr().out)
    assert d["links"] == ["BASE"] and len(d["frames"]) == 3
    assert np.allclose(np.array(d["frames"][0]["transforms"][0])[:3, 3], [1, 2, 3])
    assert main(["motion", "resample", p, out, "--rate", "-1"]) == 2


def test_root_joint_named_as_its_link_keeps_its_name(tmp_path):
    """An OpenHRP VRML root (DEF WAIST Joint { jointType "free" } with a segment named
    WAIST too), or a .body whose root says joint_name: WAIST, keeps its joint name through
    the body writer: the reader names the root's joint only where the file does, so the
    key is written for the root even when it equals the link name (other links go without
    it, Choreonoid's default)."""
    named = ARM.replace("    name: BASE\n", "    name: BASE\n    joint_name: BASE\n", 1)
    for text, expect in ((named, "BASE"), (ARM, None)):
        src = load(write(tmp_path, text, "arm.body"))
        assert src.links[src.link_names.index("BASE")].joint_name == expect
        out = str(tmp_path / "out.body")
        roboio.save(src, out, overwrite_input=True)
        back = load(out)
        assert back.links[back.link_names.index("BASE")].joint_name == expect
        assert open(out).read().count("joint_name") == (1 if expect else 0)
        roboio.save(back, str(tmp_path / "again.body"), overwrite_input=True)
        assert open(out, "rb").read() == open(tmp_path / "again.body", "rb").read()
