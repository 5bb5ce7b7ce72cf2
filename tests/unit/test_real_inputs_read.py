"""Issue 21: files the original programs load, read as they read them (minimal files built
here reproduce each finding: XML Klamp't's TinyXML tolerates, URDF joints pinocchio, yourdfpy
and MuJoCo read, zero mass without <inertial>)."""
import warnings

import numpy as np
import pytest

import roboio
from roboio import FormatError

OFF = "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"


def _load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(str(path), **kw)


# -- XML that the original program's parser reads -----------------------------------------
@pytest.mark.parametrize("head", ["\n<?xml version=\"1.0\"?>\n", "<?xml version=\"1.0\"?>\n"])
def test_klampt_world_with_hyphens_in_a_comment_or_a_blank_line_first(tmp_path, head):
    (tmp_path / "t.off").write_text(OFF)
    (tmp_path / "w.xml").write_text(
        head + "<world>\n  <!-- ---- blocks -- for the ur5 -->\n"
        '  <terrain file="t.off" />\n  <rigidObject name="o" file="t.off" position="1 2 3"/>\n</world>\n')
    w = _load(tmp_path / "w.xml")
    assert len(w.terrains) == 1 and len(w.rigid_objects) == 1
    np.testing.assert_allclose(w.rigid_objects[0].transform[:3, 3], [1, 2, 3], atol=0)
    assert any("malformed XML" in m and "tolerant" in m for m in w.warnings)
    with pytest.raises(FormatError, match="malformed XML"):
        roboio.load(str(tmp_path / "w.xml"), strict=True)


def test_openrave_xml_with_hyphens_in_a_comment_reads_on_with_a_warning(tmp_path):
    (tmp_path / "b.kinbody.xml").write_text(
        '<KinBody name="b">\n<!-- a -- b -->\n<Body name="l"><Geom type="box"><extents>1 1 1</extents>'
        '</Geom></Body>\n</KinBody>\n')
    b = _load(tmp_path / "b.kinbody.xml")
    assert "OpenRAVE itself stops" in " ".join(b.warnings)


# -- URDF -----------------------------------------------------------------------------------
LIM = '<limit lower="-1" upper="1" effort="1" velocity="1"/>'


def _joint(name, parent, child, jtype, extra="", origin=""):
    return (f'<joint name="{name}" type="{jtype}">{origin}<parent link="{parent}"/>'
            f'<child link="{child}"/>{extra}</joint>\n')


def test_urdf_mimic_on_and_of_fixed_joints(tmp_path):
    """eve_r3.urdf: fixed joints carrying <mimic> of another fixed joint. A fixed follower
    does not move; a moving joint mimicking a fixed one holds offset + multiplier * 0
    (yourdfpy's reading)."""
    body = ('<robot name="m"><link name="world"/><link name="a"/><link name="b"/><link name="c"/>\n'
            + _joint("fa", "world", "a", "fixed", '<axis xyz="0 0 1"/>' + LIM)
            + _joint("fb", "a", "b", "fixed", LIM + '<mimic joint="fa" multiplier="2"/>')
            + _joint("rc", "b", "c", "revolute", '<axis xyz="0 0 1"/>' + LIM
                     + '<mimic joint="fa" multiplier="2" offset="0.3"/>', '<origin xyz="1 0 0"/>')
            + "</robot>")
    (tmp_path / "m.urdf").write_text(body)
    r = _load(tmp_path / "m.urdf")
    assert r.link_names == ["a", "b", "c"]
    assert r.config[2] == pytest.approx(0.3, abs=1e-15)
    T = r.fk()[2]
    np.testing.assert_allclose(T[:2, :2], [[np.cos(0.3), -np.sin(0.3)], [np.sin(0.3), np.cos(0.3)]],
                               atol=1e-12)
    assert any("fixed joint 'fb'" in m for m in r.warnings)
    assert any("constant value 0.3" in m for m in r.warnings)


def test_urdf_floating_joint_is_six_links_as_pinocchio_free_flyer(tmp_path):
    ine = ('<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>'
           '</inertial>')
    body = (f'<robot name="f"><link name="world"/><link name="a">{ine}</link><link name="b">{ine}</link>'
            f'<link name="c">{ine}</link>\n'
            + _joint("j0", "world", "a", "revolute", '<axis xyz="0 1 0"/>' + LIM, '<origin xyz="0 0 1"/>')
            + _joint("free", "a", "b", "floating", "", '<origin xyz="0.5 0 0" rpy="0 0 0.5"/>')
            + _joint("j2", "b", "c", "revolute", '<axis xyz="1 0 0"/>' + LIM, '<origin xyz="0 0.2 0"/>')
            + "</robot>")
    (tmp_path / "f.urdf").write_text(body)
    r = _load(tmp_path / "f.urdf")
    assert r.link_names == ["a", "free_base0", "free_base1", "free_base2", "free_base3",
                            "free_base4", "b", "c"]
    assert [(j.type, j.links) for j in r.joints if j.type == "floating"] == [("floating", [1, 2, 3, 4, 5, 6])]
    # hand-worked: b = origin * Trans(x, y, z) * Rz(yaw) Ry(pitch) Rx(roll)
    q = np.zeros(r.num_links)
    q[1:7] = [0.1, 0.2, 0.3, 0.4, -0.2, 0.7]
    T = r.fk(q)[6]

    def rot(axis, a):
        c, s = np.cos(a), np.sin(a)
        i, j = [(1, 2), (2, 0), (0, 1)][axis]
        R = np.eye(3)
        R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
        return R
    expect = np.eye(4)
    expect[:3, :3] = rot(2, 0.5) @ rot(2, 0.4) @ rot(1, -0.2) @ rot(0, 0.7)
    expect[:3, 3] = [0, 0, 1] + np.array([0.5, 0, 0]) + rot(2, 0.5) @ [0.1, 0.2, 0.3]
    np.testing.assert_allclose(T, expect, atol=1e-12)
    assert not r.warnings
    k = _load(tmp_path / "f.urdf", flavor="klampt")      # Klamp't refuses it: read, with a word
    assert k.num_links == r.num_links
    assert any("Klamp't cannot load URDF floating joints" in m for m in k.warnings)


def test_urdf_link_without_inertial_has_zero_mass_except_in_klampts_reading(tmp_path):
    (tmp_path / "z.urdf").write_text(
        '<robot name="z"><link name="world"/><link name="a"/>'
        + _joint("j", "world", "a", "revolute", LIM) + "</robot>")
    r = _load(tmp_path / "z.urdf")
    assert r.links[0].mass == 0.0 and not np.any(r.links[0].inertia)
    k = _load(tmp_path / "z.urdf", flavor="klampt")
    assert k.links[0].mass == pytest.approx(1e-4, rel=1e-12)
    np.testing.assert_allclose(k.links[0].inertia, np.eye(3) * 1e-8, rtol=1e-12)


# -- truncation noticed -----------------------------------------------------------------------
ROB = ("links a b c d\nparents -1 0 1 2\naxis 0 0 1 0 0 1 0 1 0 0 0 1\n"
       "Tparent 1 0 0 0 1 0 0 0 1 0 0 0  1 0 0 0 1 0 0 0 1 0 0 1  1 0 0 0 1 0 0 0 1 0 0 1  "
       "1 0 0 0 1 0 0 0 1 0 0 1\nqmin 0 -1 -1 0\nqmax 0 1 1 0\n"
       "joint weld 0\njoint normal 1\njoint normal 2\njoint weld 3\n")


def test_rob_cut_in_its_joint_lines_warns_truncated(tmp_path):
    """ur5.rob cut at 1500 bytes: the last links lost their joint lines and Klamp't reads
    them as normal joints, silently."""
    (tmp_path / "whole.rob").write_text(ROB)
    assert not _load(tmp_path / "whole.rob").warnings
    cut = ROB[:ROB.index("joint normal 2") + len("joint normal 2")]
    (tmp_path / "cut.rob").write_text(cut)
    r = _load(tmp_path / "cut.rob")
    (msg,) = [m for m in r.warnings if "truncated?" in m]
    assert msg.startswith(f"{tmp_path / 'cut.rob'}:9:")
    with pytest.raises(FormatError, match="truncated"):
        roboio.load(str(tmp_path / "cut.rob"), strict=True)


def test_rob_cut_in_a_list_says_truncated_in_its_error(tmp_path):
    cut = ROB[:ROB.index("qmax 0 1 1 0") + len("qmax 0 1")]
    (tmp_path / "cut.rob").write_text(cut)
    with pytest.raises(FormatError, match=r"qmax .*truncated\? line 6"):
        roboio.load(str(tmp_path / "cut.rob"))


BODY = """format: ChoreonoidBody
formatVersion: 1.0
name: two
links:
  -
    name: base
    jointType: free
    mass: 1
  -
    name: arm
    parent: base
    jointType: revolute
    jointAxis: Z
    jointId: 0
    mass: 1
"""


def test_yaml_body_cut_inside_its_link_list_warns_truncated(tmp_path):
    (tmp_path / "whole.body").write_text(BODY)
    assert not [m for m in _load(tmp_path / "whole.body").warnings if "truncated" in m]
    (tmp_path / "cut.body").write_text(BODY[:BODY.index("    jointId")] + "    jointId: 0")
    with pytest.warns(roboio.RoboioWarning, match=r"cut.body:14: .*truncated\?"):
        roboio.load(str(tmp_path / "cut.body"))


def test_yaml_body_without_its_last_newline_is_a_warning_not_a_failed_validation(tmp_path):
    """MasutaniLab's KobukiForChoreonoid box.body ends "shininess: 0.2" without a newline:
    a complete file that Choreonoid loads, and so does roboio; that it may be cut short is
    a guess, a warning, and ``roboio validate`` passes it (``--strict`` fails it)."""
    from roboio.validation import fails, problems
    (tmp_path / "box.body").write_text(BODY.rstrip("\n"))
    r = _load(tmp_path / "box.body")
    assert r.links[-1].name == "arm" and r.links[-1].mass == pytest.approx(1.0, abs=1e-12)
    (msg,) = [m for m in r.warnings if "truncated?" in m]
    assert (msg.severity, msg.kind) == ("warning", "truncated")
    assert not fails(problems(r)) and fails(problems(r), strict=True)


def test_upper_case_extension_warns_in_klampts_reading(tmp_path):
    (tmp_path / "ARM.ROB").write_text(ROB)
    assert not _load(tmp_path / "ARM.ROB").warnings
    r = _load(tmp_path / "ARM.ROB", flavor="klampt")
    assert any("not lower case: Klamp't refuses" in m for m in r.warnings)


# -- GLB in the file's coordinates ------------------------------------------------------------
def test_glb_mesh_keeps_the_files_coordinates_as_klampt_and_trimesh(tmp_path):
    """dex-urdf's inspire hand: GLB visuals sat 90 degrees off their OBJ collision meshes."""
    trimesh = pytest.importorskip("trimesh")
    v = np.array([[0.0, 0, 0], [1, 0, 0], [0, 0, 2]])
    trimesh.Trimesh(v, [[0, 1, 2]], process=False).export(str(tmp_path / "t.glb"))
    (tmp_path / "t.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 0 2\nf 1 2 3\n")
    glb, obj = _load(tmp_path / "t.glb"), _load(tmp_path / "t.obj")
    world = lambda m: np.asarray(m.vertices) @ m.transform[:3, :3].T + m.transform[:3, 3]
    np.testing.assert_allclose(world(glb), v, atol=1e-7)
    np.testing.assert_allclose(world(glb), world(obj), atol=1e-7)
    klampt = pytest.importorskip("klampt")
    g = klampt.Geometry3D()
    assert g.loadFile(str(tmp_path / "t.glb"))
    kv = np.asarray(g.getTriangleMesh().getVertices()).reshape(-1, 3)
    np.testing.assert_allclose(world(glb), kv, atol=1e-7)
    # written and read back in place
    roboio.save(glb, str(tmp_path / "back.glb"))
    np.testing.assert_allclose(world(_load(tmp_path / "back.glb")), v, atol=1e-7)


# -- COLLADA meshes through a tolerant path ---------------------------------------------------
def _box_dae(tmp_path, name, edit):
    trimesh = pytest.importorskip("trimesh")
    text = trimesh.exchange.dae.export_collada(trimesh.creation.box()).decode()
    text = edit(text)
    (tmp_path / name).write_text(text)
    return tmp_path / name


@pytest.mark.parametrize("name,edit,warn", [
    # valkyrie head_camera.dae: a commented-out <matrix> among a node's children
    ("comment.dae", lambda t: t.replace("<instance_geometry", "<!--matrix sid=\"m\">1 0</matrix-->"
                                                              "<instance_geometry", 1), None),
    ("unknown.dae", lambda t: t.replace("<instance_geometry", "<foo_unknown a=\"1\"><bar/></foo_unknown>"
                                                              "<instance_geometry", 1), "foo_unknown"),
    ("hyphens.dae", lambda t: t.replace("<instance_geometry", "<!-- a -- b --><instance_geometry", 1),
     "malformed XML"),
])
def test_collada_mesh_with_comments_or_unknown_node_children_reads_as_klampt(tmp_path, name, edit, warn):
    p = _box_dae(tmp_path, name, edit)
    m = _load(p)
    assert len(m.faces) == 12
    if warn:
        assert any(warn in w for w in m.warnings)
    klampt = pytest.importorskip("klampt")
    g = klampt.Geometry3D()
    assert g.loadFile(str(p))
    assert len(np.asarray(g.getTriangleMesh().getIndices()).reshape(-1, 3)) == 12


# -- the first mesh of a process imports no heavy module ---------------------------------------
def _ply_variants(tmp_path):
    import struct
    trimesh = pytest.importorskip("trimesh")
    rng = np.random.default_rng(0)
    out = []
    m = trimesh.creation.icosphere(1)
    m.visual.vertex_colors = rng.integers(0, 255, (len(m.vertices), 4), dtype=np.uint8)
    b = trimesh.creation.box()
    b.visual.face_colors = rng.integers(0, 255, (12, 4), dtype=np.uint8)
    for name, mesh in (("v", m), ("f", b)):
        for enc in ("binary", "ascii"):
            p = tmp_path / f"{name}_{enc}.ply"
            p.write_bytes(trimesh.exchange.ply.export_ply(mesh, encoding=enc))
            out.append(p)
    p = tmp_path / "quads.ply"
    p.write_text("ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
                 "property float z\nproperty float nx\nelement face 1\nproperty list uchar int "
                 "vertex_indices\nend_header\n0 0 0 1\n1 0 0 1\n1 1 0 1\n0 1 0 1\n4 0 1 2 3\n")
    out.append(p)
    p = tmp_path / "be.ply"
    p.write_bytes(b"ply\nformat binary_big_endian 1.0\nelement vertex 3\nproperty double x\n"
                  b"property double y\nproperty double z\nelement face 1\nproperty list uchar uint "
                  b"vertex_indices\nproperty uchar red\nproperty uchar green\nproperty uchar blue\n"
                  b"end_header\n" + struct.pack(">9d", 0, 0, 0, 1, 0, 0, 0, 1, 0)
                  + struct.pack(">B3I3B", 3, 0, 1, 2, 10, 20, 30))
    out.append(p)
    return out


def test_ply_read_without_trimesh_as_trimesh_reads_it(tmp_path, monkeypatch):
    from roboio.formats.meshes import ply
    for p in _ply_variants(tmp_path):
        data = p.read_bytes()
        direct = ply._read_direct(data, str(p))
        assert direct is not None, p.name
        with monkeypatch.context() as m:
            m.setattr(ply, "_read_direct", lambda *a: None)
            ref = ply.parse_ply_bytes(data, str(p))
        for key in ("vertices", "faces", "vertex_colors", "face_colors"):
            if ref.get(key) is None:
                assert direct.get(key) is None, (p.name, key)
            else:
                assert np.array_equal(direct[key], ref[key]), (p.name, key)


def test_first_ply_mesh_imports_no_trimesh(tmp_path):
    import subprocess
    import sys
    (p,) = [x for x in _ply_variants(tmp_path) if x.name == "v_binary.ply"]
    code = ("import sys, roboio; m = roboio.load(sys.argv[1]); assert len(m.faces) == 80; "
            "print(sorted(k for k in ('trimesh', 'scipy', 'networkx') if k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# -- roboio info prints the model's limits --------------------------------------------------------
ARM = ("links l0 l1 l2\nparents -1 0 1\naxis 0 0 1 0 0 1 0 0 1\n"
       "Tparent 1 0 0 0 1 0 0 0 1 0 0 0  1 0 0 0 1 0 0 0 1 0 0 1  1 0 0 0 1 0 0 0 1 0 0 1\n"
       "qMinDeg 0 -160 -200\nqMaxDeg 0 160 20\njoint weld 0\njoint normal 1\njoint normal 2\n"
       "mount 2 \"grip.rob\" 1 0 0 0 1 0 0 0 1 0 0 0.1 as \"gripper\"\n")
GRIP = ("links g0 g1 g2\nparents -1 0 0\naxis 0 0 1 0 0 1 0 0 1\n"
        "Tparent 1 0 0 0 1 0 0 0 1 0 0 0  1 0 0 0 1 0 0 0 1 0 0.01 0  1 0 0 0 1 0 0 0 1 0 -0.01 0\n"
        "qMinDeg 0 2.75 -62.75\nqMaxDeg 0 62.75 -2.75\njoint weld 0\n"
        "driver affine 2 1 2 1 -1 0.048 -0.048 0 1.047 -3 3 -2 2\n")


def test_info_prints_the_models_limits_of_a_mounted_robot(tmp_path, capsys):
    """puma760pr2.rob: an arm joint's limits were printed as the mounted gripper's."""
    import json
    import math
    from roboio.cli.main import main
    (tmp_path / "arm.rob").write_text(ARM)
    (tmp_path / "grip.rob").write_text(GRIP)
    r = _load(tmp_path / "arm.rob")
    assert main(["info", str(tmp_path / "arm.rob"), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    for row in info["tree"]:
        i = r.link_index(row["child"])
        if row["lower"] is not None:
            assert row["lower"] == pytest.approx(r.qmin[i], abs=1e-12)
            assert row["upper"] == pytest.approx(r.qmax[i], abs=1e-12)
    l1 = next(row for row in info["tree"] if row["child"] == "l1")
    assert (l1["lower"], l1["upper"]) == pytest.approx((-math.radians(160), math.radians(160)), abs=1e-12)
    assert main(["info", str(tmp_path / "arm.rob")]) == 0
    text = capsys.readouterr().out
    assert any(line.split()[1:2] == ["l1"] and "±160°" in line for line in text.splitlines())
