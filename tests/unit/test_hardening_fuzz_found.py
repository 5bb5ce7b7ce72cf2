"""Minimal reproducers of what the long fuzz run (tools/fuzz_readers.py) found: each was a
non-FormatError exception, or a load over the per-input bound (2 s, 500 MB), before its fix."""
import io
import os
import zipfile

import numpy as np

import pytest

import roboio
from roboio.errors import FormatError

from collada_docs import robot_dae
from test_graspit_read import CUBE_IV


def _write(path, text):
    path.write_text(text)
    return str(path)


def test_pseq_joint_id_beyond_a_64_bit_integer(tmp_path):
    # was OverflowError from numpy (strtol saturates; the id is refused with its line)
    p = _write(tmp_path / "big.pseq", "type: PoseSeq\nname: x\nrefs:\n  - time: 0\n    refer:\n"
               "      type: Pose\n      joints: [ 18446744073709551616 ]\n      q: [ 0 ]\n")
    with pytest.raises(FormatError, match=r"big\.pseq:7: .*out of the range of a 64-bit integer"):
        roboio.load(p)


def test_off_face_vertex_count_near_int64_max(tmp_path):
    # was "ValueError: negative dimensions" (1 + k overflowed)
    p = _write(tmp_path / "k.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n9223372036854775807 0 1 2\n")
    with pytest.raises(FormatError, match=r"k\.off:6: face lists 9223372036854775807 vertices but has only 3"):
        roboio.load(p).vertices


def test_zae_with_corrupt_deflate_stream(tmp_path):
    # was zlib.error out of the archive reader
    dae = robot_dae([{"name": "base", "parent": None}]).encode() * 4
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("robot.dae", dae)
    data = bytearray(buf.getvalue())
    start = 30 + len("robot.dae")              # the member's compressed data
    data[start + 2:start + 40] = bytes(range(200, 238))
    p = tmp_path / "bad.zae"
    p.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=r"bad\.zae.*robot\.dae"):
        roboio.load(str(p))


def _world_with_copies(tmp_path, element, n):
    (tmp_path / "tri.off").write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    (tmp_path / "thing.obj").write_text('mesh "tri.off"\nmass 1\nautoMass\n')
    (tmp_path / "arm.rob").write_text('links a b\nparents -1 0\naxis 0 0 1 0 0 1\njointtype r r\n'
                                      'Tparent 1 0 0 0 1 0 0 0 1 0 0 0  1 0 0 0 1 0 0 0 1 0 0 1\n'
                                      'q 0 0\nqmin -1 -1\nqmax 1 1\ngeometry "tri.off" "tri.off"\n'
                                      'mass 1 1\nautomass\n')
    body = "".join(element.format(i=i) for i in range(n))
    return _write(tmp_path / "w.xml", f"<world>\n{body}</world>\n")


def test_world_copies_of_a_parsed_object_mesh_are_charged(tmp_path):
    # 505 <rigidObject>s of one automass object: the mesh, parsed once, was copied 505 times
    # uncharged (518 MB); every copy now counts against max_triangles
    p = _world_with_copies(tmp_path, '<rigidObject name="o{i}" file="thing.obj"/>\n', 10)
    assert len(roboio.load(p, limits={"max_triangles": 10}).rigid_objects) == 10
    with pytest.raises(FormatError, match=r"max_triangles=9\b"):
        roboio.load(p, limits={"max_triangles": 9})


def test_world_placing_one_robot_file_many_times(tmp_path):
    # 502 <robot>s of baxter.rob reparsed each time: 5 s of CPU before a limit; now read once,
    # each further placement charged to links and copies before it is copied
    p = _world_with_copies(tmp_path, '<robot name="r{i}" file="arm.rob"/>\n', 10)
    arm = roboio.load(str(tmp_path / "arm.rob"))
    # a copy makes 2 links, their joints and drivers and 2 geometries (counted independently)
    size = 2 + len(arm.joints) + len(arm.drivers) + 2
    w = roboio.load(p, limits={"max_copies": 9 * size})
    assert len(w.robots) == 10 and w.robots[0] is not w.robots[1]
    assert w.robots[0].links[0] is not w.robots[1].links[0]
    with pytest.raises(FormatError, match=rf"w\.xml:\d+: .*arm\.rob again.*max_copies={9 * size - 1}\b"):
        roboio.load(p, limits={"max_copies": 9 * size - 1})
    with pytest.raises(FormatError, match=r"max_triangles"):
        roboio.load(p, limits={"max_triangles": 19})


def test_geom_number_beyond_a_double(tmp_path):
    # "1e999" read as inf, then the writer raised ValueError; iostream's >> fails on it
    p = _write(tmp_path / "p.geom", "Primitive\nSphere 0 0 1e999 0.5\n")
    with pytest.raises(FormatError, match=r"p\.geom:2:\d+: .*out of the range of a double"):
        roboio.load(p)


@pytest.mark.parametrize("digits", ["0" * 10_000 + "1", "9" * 10_000])
def test_integers_of_thousands_of_digits(tmp_path, digits):
    # Python's int() refuses more than 4,300 digits (ValueError); these are numbers in range
    # (leading zeros) or out of every range
    grasp = _write(tmp_path / "g.xml", f'<Grasp object="-1" robot="{digits}" />\n')
    seq = _write(tmp_path / "s.pseq", "type: PoseSeq\nname: x\nrefs:\n  - time: 0\n    refer:\n"
                 f"      type: Pose\n      joints: [ {digits} ]\n      q: [ 0 ]\n")
    for p in (grasp, seq):
        try:
            roboio.load(p)
        except FormatError:
            pass


HUGE = "9" * 5000


@pytest.mark.parametrize("name, text", [
    ("w.xml", f'<world><rigidObject name="o" file="tri.off"><physics automass="{HUGE}"/></rigidObject></world>\n'),
    ("r.rob", f"links a\nparents {HUGE}\n"),
    ("m.iv", "#Inventor V2.1 ascii\nSeparator { Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0 ] }\n"
             " IndexedFaceSet { coordIndex [ 0, 1, 0xfffffffffffffffff, -1 ] } }\n"),
    ("u.urdf", f'<robot name="r"><link name="a"/><klampt><link name="a" servoP="{HUGE}"/></klampt></robot>\n'),
])
def test_integers_out_of_every_range_are_format_errors(tmp_path, name, text):
    # was ValueError (Python's int() of 4,300+ digits) or OverflowError (numpy int64)
    (tmp_path / "tri.off").write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    p = _write(tmp_path / name, text)
    try:
        obj = roboio.load(p)
        getattr(obj, "vertices", None)
    except FormatError as e:
        assert str(e).startswith(p), str(e)


@pytest.mark.parametrize("tag, values", [("rotationaxis", "0 0 1 1e999"), ("rotationaxis", "0 0 1 1e308"),
                                         ("translation", "0 1e999 0")])
def test_openrave_transform_out_of_range(tmp_path, tag, values):
    # was "ValueError: math domain error" (sin of inf)
    p = _write(tmp_path / "t.kinbody.xml", f'<KinBody name="t">\n<Body name="b">\n<{tag}>{values}</{tag}>\n'
               '</Body>\n</KinBody>\n')
    with pytest.raises(FormatError, match=rf"t\.kinbody\.xml:3: .*<{tag}>: a number out of range"):
        roboio.load(p)


def test_openrave_joint_between_a_link_and_itself(tmp_path):
    # was KeyError out of the robot builder (a link whose joint makes it its own parent)
    p = _write(tmp_path / "c.kinbody.xml", '<KinBody name="c">\n<Body name="a"/>\n<Body name="b"/>\n'
               '<Joint name="j" type="hinge"><Body>a</Body><Body>b</Body></Joint>\n'
               '<Joint name="k" type="hinge"><Body>b</Body><Body>b</Body></Joint>\n</KinBody>\n')
    try:
        roboio.load(p)
    except FormatError as e:
        assert str(e).startswith(p)


def test_seq_writer_refuses_a_motion_without_frame_rate(tmp_path):
    # a component without 'type' inherits CompositeSeq from the top and is kept as read; with
    # the top's frameRate misspelt, the writer raised a bare ValueError
    p = _write(tmp_path / "m.seq", "type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2\n"
               "components:\n  - numParts: 1\n    hasFrameTime: true\n    frames:\n      - [ 0, 0 ]\n")
    try:
        m = roboio.load(p)
    except FormatError:
        return
    with pytest.raises(roboio.RoboioError, match="frame rate"):
        roboio.save(m, str(tmp_path / "out.seq"))


def test_graspit_full_transform_out_of_range(tmp_path):
    # was "ValueError: quaternion of zero or non-finite length" out of the transform helper
    p = _write(tmp_path / "w.xml", "<?xml version='1.0'?>\n<world>\n<graspableBody>\n<filename>x.xml</filename>\n"
               "<transform><fullTransform>(1 inf 0 0)[0 0 0]</fullTransform></transform>\n"
               "</graspableBody>\n</world>\n")
    with pytest.raises(FormatError, match=r"w\.xml:5: <fullTransform>: a number out of range"):
        roboio.load(p, format="graspit")


def test_openrave_body_repeated_many_times(tmp_path):
    # ~500 <Body> elements of one name (a fuzzed kinbody): OpenRAVE recomputes the mass over
    # all the link's geometry at every </Body> (7.5 s of CPU, quadratic); only the last
    # counts, so it is computed once. Hand-worked: each box has half extents 0.1 0.2 0.3
    # (0.048 m^3, 48 kg at 1000 kg/m^3), the k-th at x = k.
    n = 300
    body = ('<Body name="b"><Geom type="box"><Extents>0.1 0.2 0.3</Extents>'
            '<Translation>{k} 0 0</Translation></Geom>'
            '<Mass type="mimicgeom"><density>1000</density></Mass></Body>')
    p = _write(tmp_path / "k.kinbody.xml",
               '<KinBody name="k">' + "".join(body.format(k=k) for k in range(n)) + "</KinBody>")
    link = roboio.load(p).links[0]
    assert abs(link.mass - 48.0 * n) < 1e-9 * n
    assert abs(link.com[0] - (n - 1) / 2) < 1e-9 and abs(link.com[1]) < 1e-12


def test_openrave_mass_of_the_last_body_element_counts(tmp_path):
    # the second <Body name="b"> changes the mass type: OpenRAVE's last computation wins
    p = _write(tmp_path / "k.kinbody.xml", """<KinBody name="k">
      <Body name="b"><Geom type="box"><Extents>0.1 0.2 0.3</Extents></Geom>
        <Mass type="mimicgeom"><density>1000</density></Mass></Body>
      <Body name="b"><Mass type="box"><total>5</total></Mass></Body>
    </KinBody>""")
    assert abs(roboio.load(p).links[0].mass - 5.0) < 1e-12


@pytest.mark.parametrize("attr", ['rpy="1e999 0 0"', 'xyz="0 -1e999 0"'])
def test_urdf_numbers_beyond_a_double(tmp_path, attr):
    # the scalar rpy path (math.cos) raised ValueError on inf; urdfdom refuses such numbers
    p = _write(tmp_path / "r.urdf", f'<robot name="r"><link name="a"/><link name="b"/>'
               f'<joint name="j" type="fixed"><parent link="a"/><child link="b"/>'
               f'<origin {attr}/></joint></robot>')
    with pytest.raises(FormatError, match=r"r\.urdf:1: .*'-?1e999' is beyond the range of a double"):
        roboio.load(p)


@pytest.mark.parametrize("angle", ["inf", "-inf", "1e999"])
def test_graspit_rotation_angle_not_finite(tmp_path, angle):
    # math.cos(inf) raised ValueError inside the transform of a fuzzed GraspIt! robot
    from lxml import etree
    from roboio.context import LoadContext
    from roboio.formats.graspit._parse import parse_transform
    el = etree.fromstring(f"<transform><rotation>{angle} x</rotation></transform>")
    p = str(tmp_path / "b.xml")
    with pytest.raises(FormatError, match=r"<rotation>: (angle .* not a finite number|.* not a number)"):
        parse_transform(el, p, LoadContext(p))


@pytest.mark.parametrize("numbers", ["1e999 0 0 0 1 0 0 0 1", "1 0 0 0 1 0 0 0 -1e999"])
def test_graspit_rotation_matrix_without_a_rotation(tmp_path, numbers):
    # Eigen's quaternion of these numbers has zero or non-finite length (ValueError before)
    from lxml import etree
    from roboio.context import LoadContext
    from roboio.formats.graspit._parse import parse_transform
    el = etree.fromstring(f"<transform><rotationMatrix>{numbers}</rotationMatrix></transform>")
    p = str(tmp_path / "b.xml")
    with pytest.raises(FormatError, match=r"<rotationMatrix>"):
        parse_transform(el, p, LoadContext(p))


def test_openrave_joint_initial_value_not_finite(tmp_path):
    # math.sin(inf) in the joint's frames raised ValueError; OpenRAVE's frames would be NaN
    p = _write(tmp_path / "k.kinbody.xml", """<KinBody name="k">
      <Body name="a"/><Body name="b"/>
      <Joint name="j" type="hinge"><Body>a</Body><Body>b</Body><axis>0 0 1</axis>
        <initial>1e999</initial></Joint>
    </KinBody>""")
    with pytest.raises(FormatError, match=r"k\.kinbody\.xml:\d+: joint 'j': <initial> value inf is not finite"):
        roboio.load(p)


def test_rob_writer_refusal_is_a_clean_output_error(tmp_path):
    # a NaN centre of mass (read from a damaged file) cannot go into a .rob: the writer's
    # refusal names the output, and the CLI says it in one line (was an internal error)
    from roboio.errors import OutputError
    from roboio.model import Link, Robot
    r = Robot("r")
    r.set_links([Link("a", -1, "revolute", (0, 0, 1), mass=1.0, com=(float("nan"),) * 3)],
                qmin=[-1], qmax=[1])
    out = tmp_path / "o.rob"
    with pytest.raises(OutputError, match=r"o\.rob: cannot write link 'a' com to a \.rob: it holds non-finite"):
        roboio.save(r, str(out))
    assert not out.exists()


def test_zae_with_an_unsupported_zip_version(tmp_path):
    # zipfile raises NotImplementedError for a member needing a newer ZIP version
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("r.dae", robot_dae([{"name": "base", "parent": None}]))
    data = bytearray(buf.getvalue())
    cd = data.rfind(b"PK\x01\x02")
    data[cd + 6:cd + 8] = (242).to_bytes(2, "little")      # "version needed to extract" 24.2
    loc = data.find(b"PK\x03\x04")
    data[loc + 4:loc + 6] = (242).to_bytes(2, "little")
    p = tmp_path / "r.zae"
    p.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=r"r\.zae"):
        roboio.load(str(p))


def test_target_that_cannot_hold_the_object_is_an_output_error(tmp_path):
    from roboio.errors import OutputError
    from roboio.model import Trajectory
    traj = Trajectory([0.0, 1.0], [[0.0], [1.0]])
    out = tmp_path / "x.urdf"
    with pytest.raises(OutputError, match=r"x\.urdf: format 'urdf' cannot hold a Trajectory"):
        roboio.save(traj, str(out), "urdf")
    assert not out.exists()


def test_urdf_mesh_path_of_thousands_of_components(tmp_path):
    # the per-load directory memo recursed once per path component: RecursionError (666 MB)
    deep = "/".join(["d"] * 5000) + "/m.stl"
    p = _write(tmp_path / "r.urdf", f'<robot name="r"><link name="a"><collision><geometry>'
               f'<mesh filename="{deep}"/></geometry></collision></link></robot>')
    r = roboio.load(p)
    assert r.link_names[-1] == "a" and any("not found" in w for w in r.warnings)


def test_graspit_full_transform_whose_squares_overflow(tmp_path):
    # hypot() of (1, 0, 0, -1e308) is finite, its squared length is not (ValueError before)
    from lxml import etree
    from roboio.context import LoadContext
    from roboio.formats.graspit._parse import parse_transform
    el = etree.fromstring("<transform><fullTransform>(+1 0 0 -1e308)[0 0 0]</fullTransform></transform>")
    p = str(tmp_path / "w.xml")
    with pytest.raises(FormatError, match=r"<fullTransform>: .*overflow"):
        parse_transform(el, p, LoadContext(p))


_GUARDED_LOAD = ("import sys, roboio\n"
                 "try:\n"
                 "    roboio.load(sys.argv[1], sys.argv[2] or None)\n"
                 "except roboio.RoboioError as e:\n"
                 "    print(' '.join(str(e).split()), file=sys.stderr)\n"
                 "    sys.exit(1)\n")


def _guarded_load(path, fmt=None, cpu_seconds=20, address_space_mb=2500):
    """Load ``path`` in a subprocess under RLIMIT_CPU and RLIMIT_AS; its Outcome (CPU
    seconds, peak MB, return code, stderr)."""
    from hostile import run_guarded
    out = run_guarded(["-c", _GUARDED_LOAD, str(path), fmt or ""], timeout=120,
                      cpu_seconds=cpu_seconds, address_space_mb=address_space_mb)
    assert not out.timed_out and out.returncode >= 0, (out.returncode, out.stderr[-2000:])
    return out


def test_urdf_mesh_path_of_thousands_of_long_components(tmp_path):
    # each ancestor of a 300 KB mesh path was kept while walking up: 3000 ancestors of
    # 150 KB on average (a MemoryError at 2.8 GB); a path over PATH_MAX names nothing
    deep = "/".join(["c" * 99] * 3000) + "/m.stl"
    p = _write(tmp_path / "r.urdf", f'<robot name="r"><link name="a"><collision><geometry>'
               f'<mesh filename="{deep}"/></geometry></collision></link></robot>')
    out = _guarded_load(p)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.peak_mb < 250, out.peak_mb


def _openrave_fan_out(tmp_path, n, links=3, collada=False):
    """A robot including one hand file ``n`` times (each with its own prefix); returns the
    robot's path and the number of elements of the hand file."""
    parts = ['<KinBody name="hand">']
    for i in range(links):
        parts.append(f'<Body name="l{i}" type="dynamic"><Geom type="box"><Extents>1 1 1</Extents>'
                     '</Geom></Body>')
        if i:
            parts.append(f'<Joint name="j{i}" type="hinge"><Body>l{i - 1}</Body><Body>l{i}</Body>'
                         '</Joint>')
    parts.append("</KinBody>")
    hand = "\n".join(parts)
    elements = 1 + links * 3 + (links - 1) * 3        # KinBody; Body Geom Extents; Joint Body Body
    assert hand.count("<") - hand.count("</") == elements
    if collada:
        (tmp_path / "hand.dae").write_text(robot_dae([{"name": "base", "parent": None},
                                                      {"name": "l1", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"]}]))
        ref = "hand.dae"
    else:
        (tmp_path / "hand.kinbody.xml").write_text(hand)
        ref = "hand.kinbody.xml"
    tag = "Robot" if collada else "KinBody"          # (a KinBody include ignores prefix there)
    body = "".join(f'<{tag} prefix="c{i}_" file="{ref}"/>\n' for i in range(n))
    return _write(tmp_path / "r.robot.xml", f'<Robot name="r">\n{body}</Robot>\n'), elements


def test_openrave_include_of_one_file_many_times_is_charged_as_copies(tmp_path):
    # 502 includes of barretthand.kinbody.xml: every include re-read the file (2.5 s of CPU
    # before an error at the end; a COLLADA file included 502 times passed 10 s). An include
    # of an already included file is now charged to max_copies (its element count) first.
    p, size = _openrave_fan_out(tmp_path, 4)
    r = roboio.load(p, limits={"max_copies": 3 * size})
    assert len(r.links) == 4 * 3 and r.links[-1].name == "c3_l2"
    with pytest.raises(FormatError, match=rf"r\.robot\.xml:5: .*including .*hand\.kinbody\.xml "
                                          rf"once more.*max_copies={3 * size - 1}\b"):
        roboio.load(p, limits={"max_copies": 3 * size - 1})


def test_openrave_collada_include_of_one_file_many_times_is_charged_as_copies(tmp_path):
    from lxml import etree
    p, _ = _openrave_fan_out(tmp_path, 3, collada=True)
    size = sum(1 for _ in etree.parse(str(tmp_path / "hand.dae")).iter())
    assert roboio.load(p, limits={"max_copies": 2 * size}).num_links > 0
    with pytest.raises(FormatError, match=rf"max_copies={2 * size - 1}\b"):
        roboio.load(p, limits={"max_copies": 2 * size - 1})


def test_openrave_include_fan_out_is_refused_within_bounds(tmp_path):
    # 600 includes of a 30-link hand: about 15 s of CPU before; refused after a few dozen
    p, _ = _openrave_fan_out(tmp_path, 600, links=30)
    out = _guarded_load(p, cpu_seconds=5)
    assert out.returncode == 1 and "max_copies" in out.stderr, out.stderr[-2000:]
    assert out.peak_mb < 300, out.peak_mb


def test_document_over_max_document_bytes_is_refused_before_reading(tmp_path):
    # a 226 MB grasp file (one attribute repeated 10,000 times) passed 10 s; documents are now
    # refused by their size (a stat) before a byte is read; meshes keep max_file_bytes
    p = tmp_path / "g.xml"
    with open(p, "wb") as f:
        f.write(b'<Grasp object="-1" robot="0">\n  <IKGoal data="3 -1')
        f.truncate(300 << 20)                       # sparse: no disk space used
    out = _guarded_load(p, "klampt-grasp", cpu_seconds=5)
    assert out.returncode == 1, out.stderr[-2000:]
    assert f"document bytes {300 << 20:,}, over the limit max_document_bytes=" in out.stderr
    assert out.peak_mb < 200, out.peak_mb
    off = tmp_path / "tri.off"
    off.write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n" + "#" * 2000 + "\n")
    assert len(roboio.load(str(off), limits={"max_document_bytes": 100}).faces) == 1
    with pytest.raises(FormatError, match=r"max_file_bytes=100\b"):
        roboio.load(str(off), limits={"max_file_bytes": 100}).faces


def test_multipath_of_many_milestones_reads_every_number(tmp_path):
    # the 12.8 MB multipath took 2.2 s (a Tokens object and a numpy call per attribute); the
    # well-formed attributes now take a direct conversion, with the same values
    import numpy as np
    rng = np.random.default_rng(3)
    q = rng.normal(size=(300, 4)) * 10.0 ** rng.integers(-8, 8, size=(300, 4))
    rows = "".join(f'<milestone time="{i * 0.5!r}" config="4\t{" ".join(repr(float(x)) for x in r)}"/>\n'
                   for i, r in enumerate(q))
    p = _write(tmp_path / "m.xml", f"<multipath><section>\n{rows}</section></multipath>\n")
    mp = roboio.load(p)
    s = mp.sections[0]
    np.testing.assert_allclose(s.milestones, q, rtol=1e-16, atol=0)
    np.testing.assert_allclose(s.times, 0.5 * np.arange(300), rtol=0, atol=1e-12)
    bad = p.replace("m.xml", "b.xml")
    _write(tmp_path / "b.xml", f"<multipath><section>\n{rows}<milestone config=\"4 1 2 x 4\"/>\n"
                               "</section></multipath>\n")
    with pytest.raises(FormatError, match=r"b\.xml:302: <milestone config>.*'x'"):
        roboio.load(bad)




def _graspit_arm(tmp_path, n_links, mesh="cube.iv"):
    """A GraspIt! robot whose palm and ``n_links`` links all use body file cube.xml (100 g,
    no <cog>/<inertia_matrix>: GraspIt! computes them from the mesh)."""
    d = tmp_path / "Arm"
    (d / "iv").mkdir(parents=True)
    (d / "iv" / "cube.iv").write_text(CUBE_IV)
    (d / "iv" / "cube.xml").write_text(f"<root><mass>100</mass><geometryFile>{mesh}</geometryFile></root>")
    dof = ("<dof type=\"r\"><defaultVelocity>1.0</defaultVelocity><maxEffort>1</maxEffort><Kp>1</Kp>"
           "<Kd>1</Kd><draggerScale>1</draggerScale></dof>")
    joint = ('<joint type="Revolute"><theta>d0</theta><d>0</d><a>30</a><alpha>0</alpha>'
             "<minValue>-90</minValue><maxValue>90</maxValue></joint>")
    chain = "<chain><transform><translation>0 0 0</translation></transform>" + joint * n_links + \
        '<link dynamicJointType="Revolute">cube.xml</link>' * n_links + "</chain>"
    return _write(d / "Arm.xml", f'<robot type="Hand"><palm>cube.xml</palm>{dof}{chain}</robot>')


def test_graspit_body_file_used_by_many_links_computes_mass_properties_once(tmp_path):
    # SimpleArm.xml with 1003 links of one body file: GraspIt!'s default cog and inertia were
    # computed from the mesh for every link (2.4 s); now once per body file and load. Every
    # link still gets the values of a 20 mm cube of 100 g: com 0, inertia m (a^2 + a^2) / 12
    import numpy as np
    r = roboio.load(_graspit_arm(tmp_path, 5))
    bodies = [link for link in r.links if link.mass > 0]     # (the others are DH frames)
    assert len(bodies) == 6
    expect = 0.1 * (0.02 ** 2 + 0.02 ** 2) / 12 * np.eye(3)
    for link in bodies:
        assert abs(link.mass - 0.1) < 1e-12
        np.testing.assert_allclose(link.com, 0.0, atol=1e-9)
        np.testing.assert_allclose(link.inertia, expect, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("value", ["9" * 5000, "x" * 5000])
def test_error_quoting_a_long_value_shortens_it(tmp_path, value):
    # a 5000-digit attribute was quoted whole; every FormatError message cuts a long value
    p = _write(tmp_path / "r.urdf", f'<robot name="r"><link name="a"/><link name="b"/>'
               f'<joint name="j" type="{value}"><parent link="a"/><child link="b"/></joint></robot>')
    with pytest.raises(FormatError) as e:
        roboio.load(p)
    text = str(e.value)
    assert len(text) < 400 and "(5,000 characters)" in text and value[:60] in text, text


_GUARDED_SAVE = ("import sys, roboio\n"
                 "r = roboio.load(sys.argv[1])\n"
                 "for out, fmt in zip(sys.argv[2::2], sys.argv[3::2]):\n"
                 "    roboio.save(r, out, fmt)\n")


def test_writing_a_chain_of_thousands_of_links_is_linear(tmp_path):
    # OpenRAVE XML enumerated every pair of links for <adjacent> (4000 links: 12 s, 8 million
    # pairs held in a set); .body, COLLADA and GraspIt! asked Robot.joint_of_link of every
    # link (16,000 links to .body: 3.8 s). 6000 links now write in well under a second each.
    from hostile import run_guarded
    n = 6000
    rob = tmp_path / "chain.rob"
    rob.write_text("\n".join([
        "links " + " ".join(f"l{i}" for i in range(n)), "parents " + " ".join(str(i - 1) for i in range(n)),
        "axis " + " ".join("0 0 1" for _ in range(n)), "jointtype " + " ".join("r" for _ in range(n)),
        "Tparent " + "  ".join("1 0 0 0 1 0 0 0 1 0.1 0 0" for _ in range(n)),
        "q " + " ".join("0" for _ in range(n)), "qmin " + " ".join("-1" for _ in range(n)),
        "qmax " + " ".join("1" for _ in range(n)), "mass " + " ".join("1" for _ in range(n)), "automass"]) + "\n")
    outs = [str(tmp_path / "c.robot.xml"), "openrave", str(tmp_path / "c.body"), "choreonoid-body"]
    out = run_guarded(["-c", _GUARDED_SAVE, str(rob), *outs], timeout=300, cpu_seconds=15,
                      address_space_mb=2500)
    assert not out.timed_out and out.returncode == 0, (out.returncode, out.stderr[-2000:])
    xml = (tmp_path / "c.robot.xml").read_text()
    # no link has geometry: OpenRAVE checks no pair, so no <adjacent> is needed
    assert xml.count('<Body name="l') == n and "<adjacent>" not in xml
    assert roboio.load(str(tmp_path / "c.body")).num_links == n


@pytest.mark.parametrize("values", ["1 0 0 0.5 0 1 -inf 0 0 0 1 0 0 0 0 1",
                                    "-1e308 0 0 0.5 0 1 0 0 0 0 1 0 0 0 0 1"])
def test_collada_matrix_out_of_range(tmp_path, values):
    # an infinite <matrix> number (LinAlgError from the SVD) or one whose products overflow
    # (NaN joint angle: ValueError) is a FormatError at the element
    dae = robot_dae([{"name": "base", "parent": None},
                     {"name": "l1", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"],
                      "att": f"<matrix>{values}</matrix>"}])
    p = _write(tmp_path / "m.dae", dae)
    with pytest.raises(FormatError, match=r"m\.dae:\d+: <matrix>: a number out of range") as e:
        roboio.load(p)
    assert values in dae.splitlines()[e.value.line - 1]


@pytest.mark.parametrize("element", ["<rotate>0 0 1 -inf</rotate>", "<translate>1e308 nan 0</translate>",
                                     "<scale>1 inf 1</scale>"])
def test_collada_transform_element_not_finite(tmp_path, element):
    # a <rotate> angle of -inf was "ValueError: math domain error" out of math.cos
    dae = robot_dae([{"name": "base", "parent": None},
                     {"name": "l1", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"], "att": element}])
    p = _write(tmp_path / "t.dae", dae)
    tag = element[1:element.index(">")]
    with pytest.raises(FormatError, match=rf"t\.dae:\d+: <{tag}>: a number out of range") as e:
        roboio.load(p)
    assert element in dae.splitlines()[e.value.line - 1]


def test_hold_text_with_megabytes_of_continued_lines(tmp_path):
    # a multipath whose holds held 5 MB of contacts joined by backslash continuations took
    # > 10 s (the line scanner copied one character at a time); every contact is still read
    contact = "0 0 0 0 0 1 0.5"
    n = 20000
    text = ("begin hold\nlink = 3\nposition = 0 0 0 1 1 1\ncontacts = "
            + " \\\n".join([contact] * n) + "\nend\n")       # lines joined by "\" newline
    hold = text
    p = _write(tmp_path / "m.xml", f"<multipath><hold>{hold}</hold><section>"
               '<hold index="0"/><milestone config="1 0"/><milestone config="1 1"/></section></multipath>')
    mp = roboio.load(p)
    h = mp.holds[0]
    assert h.link == 3 and len(h.contacts) == n
    assert abs(h.contacts[-1].kFriction - 0.5) < 1e-12


def test_urdf_many_copies_of_one_mesh_refused_within_memory(tmp_path):
    # kinova_gen3_7dof.urdf with 502 <collision>s of one 30,000-vertex STL held 585 MB of
    # copies when max_vertices (then 15 million) refused it; the default is now 10 million
    import struct
    tris = 10_000
    body = b"".join(struct.pack("<12fH", 0, 0, 1, i, 0, 0, i + 1, 0, 0, i, 1, 0, 0) for i in range(tris))
    (tmp_path / "m.stl").write_bytes(b"\0" * 80 + struct.pack("<I", tris) + body)
    coll = '<collision><geometry><mesh filename="m.stl"/></geometry></collision>' * 400
    p = _write(tmp_path / "r.urdf", f'<robot name="r"><link name="a">{coll}</link></robot>')
    script = ("import sys, roboio\n"
              f"sys.path.insert(0, {os.path.join(os.path.dirname(__file__), '..', '..', 'tools')!r})\n"
              "from fuzz_readers import touch\n"
              "try:\n"
              "    touch(roboio.load(sys.argv[1]))      # what a user does next: meshes, fk\n"
              "except roboio.RoboioError as e:\n"
              "    print(' '.join(str(e).split()), file=sys.stderr)\n"
              "    sys.exit(1)\n")
    from hostile import run_guarded
    out = run_guarded(["-c", script, p], timeout=120, cpu_seconds=20, address_space_mb=2500)
    assert out.returncode == 1 and "max_vertices=10,000,000" in out.stderr, out.stderr[-2000:]
    assert out.peak_mb < 450, out.peak_mb


@pytest.mark.parametrize("face, what", [("f 1/1 2/2 2111222/3", "vertex index 2111222"),
                                        ("f 1/1 2/2 3/22256", "texture coordinate index 22256"),
                                        ("f 1/1/1 2/2/1 3/3/99999999999999999999", "normal index 9999")])
def test_obj_face_index_beyond_the_file(tmp_path, face, what):
    # a fuzzed L_ELBOW_P.obj corner "2111222/258": trimesh sized arrays by the index (> 10 s)
    p = _write(tmp_path / "m.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\n"
               f"{face}\n")
    with pytest.raises(FormatError, match=rf"m\.obj:8: {what}\d* out of range"):
        roboio.load(p).vertices


@pytest.mark.parametrize("key,value,what", [("translation", "[ 0.1, -inf, 0 ]", "translation"),
                                            ("rotation", "[ 0, 0, 1, nan ]", "rotation"),
                                            ("scale", "[ 1, inf, 1 ]", "scale")])
def test_body_shape_transform_not_finite(tmp_path, key, value, what):
    # was "LinAlgError: SVD did not converge" when written back: an inf translation makes
    # every frame below it NaN (inf * 0 in the matrix product)
    p = _write(tmp_path / "inf.body", "format: ChoreonoidBody\nformatVersion: 1.0\nname: b\n"
               "links:\n  -\n    name: root\n    jointType: free\n    elements:\n"
               "      -\n        type: Transform\n"
               f"        {key}: {value}\n"
               "        elements:\n          - { type: Shape, geometry: { type: Box, size: [ 1, 1, 1 ] } }\n")
    with pytest.raises(FormatError, match=rf"inf\.body:11: {what}: .* is not finite"):
        roboio.load(p)


def test_world_element_named_by_a_very_long_name(tmp_path):
    # was "OSError: File name too long": the world writer names element files after them
    from roboio.model import Primitive, RigidObject, World
    w = World("w")
    w.rigid_objects = [RigidObject("target" * 100, Primitive("Sphere", {"center": np.zeros(3), "radius": r}))
                       for r in (0.1, 0.2)]
    rep = roboio.save(w, tmp_path / "w.xml", format="klampt-world")
    names = [os.path.basename(f) for f in rep.files if f.endswith(".obj")]
    assert len(names) == 2 and len(set(names)) == 2 and all(len(n) < 120 for n in names)
    back = roboio.load(tmp_path / "w.xml")
    assert [o.name for o in back.rigid_objects] == ["target" * 100] * 2


@pytest.mark.parametrize("host", ["urdf", "rob"])
def test_many_mounts_of_one_gripper_refused_by_their_pairs(tmp_path, host):
    # a fuzzed URDF mounting robotiq_85.rob 500 times built 10^7 self-collision pairs (over
    # 10 s, copying the pair set at every mount); the pairs are now counted before each mount
    (tmp_path / "tri.off").write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    (tmp_path / "g.rob").write_text("TParent " + "1 0 0 0 1 0 0 0 1 0 0 0 " * 3 + "\nparents -1 0 1\n"
                                     "axis 0 0 1 0 0 1 0 0 1\nqMin 0 0 0\nqMax 1 1 1\nq 0 0 0\n"
                                     'geometry "tri.off" "tri.off" "tri.off"\n')
    n = 600
    if host == "urdf":
        mounts = '<mount link="a" file="g.rob" transform="1 0 0 0 1 0 0 0 1 0 0 0" prefix="g"/>' * n
        text = (f'<robot name="r"><link name="a"><collision><geometry><box size="1 1 1"/></geometry>'
                f'</collision></link><klampt>{mounts}</klampt></robot>')
    else:
        text = ("TParent 1 0 0 0 1 0 0 0 1 0 0 0\nparents -1\naxis 0 0 1\nqMin 0\nqMax 0\nq 0\n"
                'geometry "tri.off"\n' + "".join(f'mount 0 "g.rob" 1 0 0 0 1 0 0 0 1 0 0 0 as "g{i}"\n'
                                                  for i in range(n)))
    p = _write(tmp_path / f"many.{host}", text)
    with pytest.raises(FormatError, match=rf"many\.{host}:\d+: self-collision pairs after the mount: "
                                          r"pairs [\d,]+, over the limit max_collision_pairs=1,000,000"):
        roboio.load(p)
    r = roboio.load(p, limits={"max_collision_pairs": 10 ** 8, "max_copies": 10 ** 6})
    mounted = [nm for nm in r.link_names if ":" in nm]
    assert len(mounted) == 3 * n and len(r.self_collision_pairs) > 10 ** 6


def test_mjcf_geom_size_whose_inertia_overflows(tmp_path):
    """A box of size 1e308 (its squared size overflows a double: OverflowError from the mass
    properties) is a FormatError at the geom's line; MuJoCo itself compiles an infinite
    inertia, which nothing downstream could use."""
    path = _write(tmp_path / "big.xml",
                  '<mujoco>\n<worldbody>\n<body name="a">\n<joint/>\n'
                  '<geom type="box" size="1e308 0.03 0.03" mass="0.2"/>\n'
                  '</body>\n</worldbody>\n</mujoco>\n')
    with pytest.raises(FormatError, match=r"big\.xml:5: .*overflow"):
        roboio.load(path)


def test_choreonoid_rotation_angle_overflowing_in_radians(tmp_path):
    """rotation [1, 0, 0, 1e308] in degrees is inf in radians (the frame NaN, and the body
    writer's nearest rotation 'SVD did not converge'): a FormatError at its line."""
    path = _write(tmp_path / "r.body",
                  "format: ChoreonoidBody\nformatVersion: 1.0\nangleUnit: degree\nname: r\n"
                  "links:\n  - name: a\n    jointType: fixed\n  - name: b\n    parent: a\n"
                  "    jointType: revolute\n    jointAxis: Z\n    rotation: [ 1, 0, 0, 1e308 ]\n")
    with pytest.raises(FormatError, match=r"r\.body:12: .*out of range"):
        roboio.load(path)
