"""The top-level API, registry dispatch, errors, reports, verify and the CLI contract."""
import contextlib
import io
import os

import numpy as np
import pytest

import roboio
from conftest import SAMPLES
from roboio.cli.main import main
from roboio.formats import registry
from roboio.formats.fileio import atomic_write, fmt_float
from roboio.resolve import resolve
from roboio.transforms import make_transform, rot_z

ARM = os.path.join(SAMPLES, "planar_arm.rob")


def run_cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as e:     # argparse usage errors
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def test_formats_table_is_unique_and_complete():
    fs = roboio.formats()
    names = [f.name for f in fs]
    assert len(names) == len(set(names))
    for f in fs:
        assert f.extensions and f.kinds and (f.can_read or f.can_write)
    for name in ("klampt-rob", "urdf", "klampt-world", "off", "stl", "choreonoid-seq", "vrml"):
        assert name in names


@pytest.mark.parametrize("text,expected", [
    ('<?xml version="1.0"?>\n<world>\n</world>\n', "klampt-world"),
    ('<multipath><section><milestone config="1 0"/><milestone config="1 1"/></section></multipath>',
     "klampt-multipath"),
    ('<Grasp object="0" robot="0"/>', "klampt-grasp"),
])
def test_xml_dispatch_by_root_element(tmp_path, text, expected):
    p = tmp_path / "x.xml"
    p.write_text(text)
    assert registry.find_reader(str(p)).name == expected


def test_urdf_saved_as_xml_is_read_as_urdf(tmp_path):
    # xacro and ROS tools often name a URDF robot.xml: no .xml format's content test takes
    # it, the URDF one does (before: read as a Klamp't world, "root element is <robot>")
    p = tmp_path / "arm.xml"
    p.write_text('<?xml version="1.0"?>\n<robot name="arm">\n  <link name="base"/>\n'
                 '  <link name="tip"/>\n  <joint name="j" type="revolute">\n'
                 '    <parent link="base"/><child link="tip"/><origin xyz="0 0 0.5"/>\n'
                 '    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/>\n'
                 '  </joint>\n</robot>\n')
    assert registry.find_reader(str(p)).name == "urdf"
    robot = roboio.load(p)
    assert robot.link_names[-2:] == ["base", "tip"]
    # a broken file of the extension's own formats still reaches the native reader
    q = tmp_path / "w.xml"
    q.write_text("<nothing/>")
    with pytest.raises(roboio.FormatError) as e:
        roboio.load(q)
    assert str(q) in str(e.value)


def test_obj_dispatch_by_content(tmp_path):
    (tmp_path / "m.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    (tmp_path / "o.obj").write_text('mesh "m.obj"\nmass 2\n')
    assert registry.find_reader(str(tmp_path / "o.obj")).name == "klampt-object"
    assert registry.find_reader(str(tmp_path / "m.obj")).name == "wavefront-obj"
    # a mesh referenced as geometry always reaches the mesh reader
    assert registry.find_reader(str(tmp_path / "m.obj"), kinds=("geometry",)).name == "wavefront-obj"
    obj = roboio.load(tmp_path / "o.obj")
    assert isinstance(obj, roboio.RigidObject) and obj.mass == 2.0
    assert obj.geometry.faces.tolist() == [[0, 1, 2]]


def test_missing_and_unknown_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        roboio.load(tmp_path / "nope.rob")
    p = tmp_path / "x.unknownext"
    p.write_bytes(b"\x00\x01 nothing known")
    with pytest.raises(roboio.FormatError) as e:
        roboio.load(p)
    assert str(p) in str(e.value)


def test_format_error_text_and_pickling():
    import pickle
    e = roboio.FormatError("a.rob", 14, 3, "tparent expects 12 numbers")
    assert str(e) == "a.rob:14:3: tparent expects 12 numbers"
    assert isinstance(e, ValueError) and isinstance(e, roboio.RoboioError)
    e2 = pickle.loads(pickle.dumps(e))
    assert (e2.path, e2.line, e2.column, str(e2)) == ("a.rob", 14, 3, str(e))


def test_load_world_wraps_single_elements():
    w = roboio.load_world(ARM)
    assert isinstance(w, roboio.World) and len(w.robots) == 1 and w.robots[0].num_links == 6
    # Klamp't numbering: the robot, then one ID per link
    assert w.num_ids == 7 and w.element(0) is w.robots[0] and w.element(3) is w.robots[0].links[2]
    m = roboio.load_world(os.path.join(SAMPLES, "meshes", "crate.off"))
    assert len(m.terrains) == 1


def test_world_ids_follow_klampt_order():
    w = roboio.load(os.path.join(SAMPLES, "world.xml"))
    # terrains first, then rigid objects, then each robot followed by its links
    assert w.element(0) is w.terrains[0]
    assert w.element(1) is w.rigid_objects[0]
    assert w.element(2) is w.robots[0]
    assert w.id_of(w.robots[0].links[5]) == 8
    with pytest.raises(IndexError):
        w.element(w.num_ids)


def test_save_picks_writer_by_what_it_can_hold(tmp_path):
    traj = roboio.Trajectory([0.0, 1.0], [[0.0, 1.0], [1.0, 2.0]])
    rep = roboio.save(traj, tmp_path / "t.xml")
    assert rep.format == "klampt-multipath" and not rep.lost
    back = roboio.load(tmp_path / "t.xml")
    np.testing.assert_array_equal(back.sections[0].milestones, traj.milestones)
    rep = roboio.save(traj, tmp_path / "t.configs")
    assert rep.lost          # times cannot be stored in .configs
    assert roboio.load(tmp_path / "t.configs").times is None


def test_verify_detects_a_moved_frame(tmp_path):
    a = roboio.load(ARM)
    b = roboio.load(ARM)
    assert roboio.verify(a, b, samples=20).ok
    link = b.link("elbow")
    link.parent_transform = make_transform(rot_z(1e-6), link.parent_transform[:3, 3])
    res = roboio.verify(a, b, samples=20)
    assert not res.ok and res.max_rotation_error > 5e-7 and res.worst_link in ("elbow", "wrist", "finger_left", "finger_right")


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    class Boom:
        pass
    target = tmp_path / "out.txt"
    with pytest.raises(TypeError):
        atomic_write(str(target), Boom())
    assert os.listdir(tmp_path) == []
    atomic_write(str(target), "ok\n")
    assert target.read_text() == "ok\n" and os.listdir(tmp_path) == ["out.txt"]


@pytest.mark.parametrize("x", [0.1, 1 / 3, -0.0, 1e-300, 6.02214076e23, 1.0, float("inf"), -float("inf")])
def test_fmt_float_round_trips(x):
    s = fmt_float(x)
    assert float(s) == x and np.signbit(float(s)) == np.signbit(x)


def test_resolve_relative_then_case_insensitive(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "Mesh.OFF").write_text("OFF\n0 0 0\n")
    ref = str(tmp_path / "robot.rob")
    r = resolve("sub/Mesh.OFF", ref)
    assert r.path == str(tmp_path / "sub" / "Mesh.OFF") and r.note is None
    r = resolve("sub/mesh.off", ref)
    assert r.path == str(tmp_path / "sub" / "Mesh.OFF") and "case" in r.note
    r = resolve("sub/none.off", ref)
    assert r.path is None and r.tried


def test_strict_turns_warnings_into_errors(tmp_path):
    p = tmp_path / "r.rob"
    p.write_text('TParent 1 0 0 0 1 0 0 0 1 0 0 0\ngeometry "missing.off"\n')
    r = roboio.load(p)
    assert r.links[0].geometry.missing and any("missing.off" in w for w in r.warnings)
    with pytest.raises(roboio.FormatError, match="missing.off"):
        roboio.load(p, strict=True)


def test_cli_exit_codes_and_one_line_errors(tmp_path):
    rc, out, err = run_cli("info", ARM, "--json")
    assert rc == 0 and '"num_links": 6' in out
    rc, out, err = run_cli("fk", ARM, "--config", "1 2")          # wrong length: usage error
    assert rc == 2 and "6 links" in err
    bad = tmp_path / "bad.rob"
    bad.write_text("TParent 1 0 0 0 1 0 0 0 1 0 0 0\nqmin 0 1\n")   # 2 values, 1 link
    rc, out, err = run_cli("info", str(bad))
    assert rc == 1 and err.count("\n") == 1 and f"{bad}:2" in err and "Traceback" not in err
    rc, out, err = run_cli("info", str(tmp_path / "absent.rob"))
    assert rc == 1 and "file not found" in err
    rc, out, err = run_cli("frobnicate")
    assert rc == 2


def test_cli_fk_json_matches_python(tmp_path):
    import json
    rc, out, _ = run_cli("fk", ARM, "--random", "3", "--seed", "5", "--json")
    data = json.loads(out)
    arm = roboio.load(ARM)
    assert data["links"] == arm.link_names and len(data["samples"]) == 3
    for s in data["samples"]:
        np.testing.assert_allclose(np.array(s["transforms"]), arm.fk(s["config"]), atol=1e-15)


def test_cli_verify_and_convert_round_trip(tmp_path):
    urdf = tmp_path / "arm.urdf"
    rc, out, _ = run_cli("convert", ARM, str(urdf))
    assert rc == 0 and "wrote" in out
    rc, out, _ = run_cli("verify", ARM, str(urdf), "--samples", "50")
    assert rc == 0 and "OK" in out


def test_save_to_an_ambiguous_extension_keeps_the_format_read(tmp_path):
    """.xml is written by several formats: a robot keeps the format it was read from (the
    registry's priority would make an MJCF or OpenRAVE robot a GraspIt! one)."""
    import os
    samples = os.path.join(os.path.dirname(roboio.__file__), "data", "samples")
    for src, fmt in ((os.path.join(samples, "mjcf", "arm.xml"), "mjcf"),
                     (os.path.join(samples, "openrave", "pick_arm.robot.xml"), "openrave")):
        obj = roboio.load(src)
        report = roboio.save(obj, str(tmp_path / f"{fmt}.xml"))
        assert report.format == fmt
    robot = roboio.load(os.path.join(samples, "planar_arm.rob"))
    assert roboio.save(robot, str(tmp_path / "arm.xml"), format="mjcf").format == "mjcf"
