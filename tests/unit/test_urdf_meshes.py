"""URDF output and meshes: what ROS tools cannot read (.off, .wrl, ...) is converted beside
the output (STL for collision, OBJ for visuals), ``meshes=`` keep/copy/convert, every file
written is in the report, a missing mesh is reported and not referenced; visual and
collision geometry are read and written separately. Expected values: the meshes read back
(vertices within float32 rounding for STL) and the reference readers' geom counts."""
import os
import warnings

import numpy as np
import pytest
from lxml import etree

import roboio
from roboio.model import GeometrySource, Group, TriangleMesh

from conftest import SAMPLES

ARM = os.path.join(SAMPLES, "planar_arm.rob")
ROS_READS = (".stl", ".dae", ".obj")


def reread(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(path, **kw)


def refs(path, kind=None):
    root = etree.parse(str(path)).getroot()
    xpath = f".//{kind}/geometry/mesh" if kind else ".//mesh"
    return [m.get("filename") for m in root.iterfind(xpath)]


def test_default_converts_what_ros_tools_cannot_read(tmp_path):
    out = tmp_path / "arm.urdf"
    rep = roboio.save(roboio.load(ARM), out)
    assert refs(out) and all(r.lower().endswith(ROS_READS) for r in refs(out))
    assert all(r.endswith(".stl") for r in refs(out, "collision"))
    assert all(r.endswith(".obj") for r in refs(out, "visual"))
    written = {os.path.relpath(f, tmp_path).replace(os.sep, "/") for f in rep.files}
    assert {r for r in refs(out)} <= written
    assert all(os.path.isfile(f) for f in rep.files)
    # the meshes read back as the source meshes (STL: within 32-bit float rounding)
    src, back = roboio.load(ARM), reread(out)
    for a, b in zip(src.links, back.links):
        if a.geometry is None:
            continue
        ga = a.geometry.baked()
        corners = ga.vertices[ga.faces]                 # STL does not share vertices
        gb, gv = b.geometry.baked(), b.visual_geometry.baked()
        np.testing.assert_allclose(gb.vertices[gb.faces], corners, atol=1e-6 * max(1, np.abs(corners).max()))
        np.testing.assert_array_equal(gv.vertices[gv.faces], corners)   # OBJ: exact
    assert any("32-bit" in x for x in rep.lost)


@pytest.mark.parametrize("mode", ["keep", "copy", "convert"])
def test_meshes_modes(tmp_path, mode):
    stl = tmp_path / "src" / "part.stl"
    stl.parent.mkdir()
    roboio.save(TriangleMesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]]),
                             np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]])), stl)
    arm = roboio.load(ARM)
    arm.links[0].geometry = roboio.load(stl)
    out = tmp_path / "o" / "arm.urdf"
    rep = roboio.save(arm, out, meshes=mode)
    first = refs(out, "collision")[0]
    if mode == "keep":
        assert first == "../src/part.stl"
    elif mode == "copy":
        assert first == "arm_meshes/part.stl" and str(tmp_path / "o" / "arm_meshes" / "part.stl") in rep.files
        assert (tmp_path / "o" / "arm_meshes" / "part.stl").read_bytes() == stl.read_bytes()
    else:
        assert first.startswith("arm_meshes/part") and first != "../src/part.stl"
    assert not any(r.endswith(".off") for r in refs(out))


def test_package_references_are_kept_as_written(tmp_path):
    """URDF -> URDF keeps ``package://`` references (ROS tools resolve them; a relative path
    to wherever the package was found would not travel); ``package:///`` is written with
    two slashes; ``copy`` still makes the output self-contained."""
    pkg = tmp_path / "ws" / "mypkg"
    (pkg / "meshes").mkdir(parents=True)
    (pkg / "urdf").mkdir()
    roboio.save(TriangleMesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.0]]), np.array([[0, 1, 2]])),
                pkg / "meshes" / "part.stl")
    src = pkg / "urdf" / "r.urdf"
    src.write_text('<robot name="r"><link name="a">'
                   '<visual><geometry><mesh filename="package:///mypkg/meshes/part.stl"/></geometry></visual>'
                   '<collision><geometry><mesh filename="package://mypkg/meshes/part.stl"/></geometry></collision>'
                   '</link></robot>')
    robot = reread(src, package_dirs=[str(tmp_path / "ws")])
    out = tmp_path / "out" / "r.urdf"
    rep = roboio.save(robot, out)
    assert refs(out) == ["package://mypkg/meshes/part.stl"] * 2 and rep.lossless
    back = reread(out, package_dirs=[str(tmp_path / "ws")])
    a, a0 = back.links[back.link_names.index("a")], robot.links[robot.link_names.index("a")]
    assert not a.geometry.missing
    np.testing.assert_array_equal(a.geometry.vertices, a0.geometry.vertices)
    first = out.read_bytes()
    roboio.save(back, out, overwrite_input=True)
    assert out.read_bytes() == first
    copied = tmp_path / "copy" / "r.urdf"
    roboio.save(robot, copied, meshes="copy")
    assert refs(copied) == ["r_meshes/part.stl"] * 2


def test_missing_mesh_is_reported_not_referenced(tmp_path):
    arm = roboio.load(ARM)
    arm.links[1].geometry = TriangleMesh(source=GeometrySource("gone.off", None, None), missing=True)
    out = tmp_path / "arm.urdf"
    rep = roboio.save(arm, out)
    assert any("not found" in x and "gone.off" in x for x in rep.lost)
    assert not any("gone" in r for r in refs(out))


URDF = """<robot name="r">
  <link name="a">
    <visual><geometry><sphere radius="0.3"/></geometry>
      <material name="red"><color rgba="1 0 0 1"/></material></visual>
    <collision><geometry><box size="1 2 3"/></geometry></collision>
    <collision><origin xyz="0 0 1" rpy="0 0 0"/><geometry><sphere radius="0.5"/></geometry></collision>
  </link>
</robot>
"""


def test_visual_and_collision_read_and_written_separately(tmp_path):
    p = tmp_path / "r.urdf"
    p.write_text(URDF)
    r = reread(p)
    col, vis = r.links[5].geometry, r.links[5].visual_geometry     # a floating root
    assert isinstance(col, Group) and [c.primitive for c in col.children] == ["AABB", "Sphere"]
    assert vis.primitive == "Sphere" and vis.params["radius"] == 0.3
    assert r.links[5].appearance.color == (1, 0, 0, 1)
    k = reread(p, flavor="klampt")                   # Klamp't: the first collision only
    assert k.links[5].geometry.primitive == "AABB" and k.links[5].visual_geometry is None
    out = tmp_path / "w.urdf"
    rep = roboio.save(r, out)
    root = etree.parse(str(out)).getroot()
    assert len(root.findall("link/collision")) == 2 and len(root.findall("link/visual")) == 1
    assert root.find("link/visual/geometry/sphere").get("radius") == "0.3"
    assert rep.lossless               # URDF holds both pieces; Klamp't's importer would not
    assert any("several <collision> elements" in x and x.endswith(": a") for x in rep.warnings)
    first = out.read_bytes()
    roboio.save(reread(out), out, overwrite_input=True)
    assert out.read_bytes() == first
    pin = pytest.importorskip("pinocchio")
    _, cm, vm = pin.buildModelsFromUrdf(str(out), str(tmp_path))
    assert (cm.ngeoms, vm.ngeoms) == (2, 1)


# -- meshes opened at first use (roboio.load) or at load (check_meshes, strict, the CLI) ----

_CUT_STL = b"\0" * 80 + (10).to_bytes(4, "little")     # announces 10 triangles, holds none


def _robot_with_meshes(d, cut=True):
    """A URDF whose link 'a' has a truncated STL (``cut``) and link 'b' a good one."""
    tri = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], "<f4").tobytes()
    (d / "good.stl").write_bytes(b"x" * 80 + (1).to_bytes(4, "little") + b"\0" * 12 + tri + b"\0\0")
    (d / "part.stl").write_bytes(_CUT_STL if cut else (d / "good.stl").read_bytes())
    mesh = '<collision><geometry><mesh filename="{}"/></geometry></collision>'
    (d / "r.urdf").write_text(
        '<robot name="r"><link name="world"/>'
        f'<link name="a">{mesh.format("part.stl")}</link><link name="b">{mesh.format("good.stl")}</link>'
        '<joint name="ja" type="fixed"><parent link="world"/><child link="a"/></joint>'
        '<joint name="jb" type="fixed"><parent link="a"/><child link="b"/></joint></robot>')
    return str(d / "r.urdf")


def test_load_finds_meshes_but_opens_them_at_first_use(tmp_path):
    path = _robot_with_meshes(tmp_path)
    r = roboio.load(path)
    assert r.warnings == []
    a, b = (r.links[r.link_names.index(n)].geometry for n in ("a", "b"))
    assert not a.missing and not a.is_loaded and a.source.reference == "part.stl"
    with pytest.raises(roboio.FormatError, match=r"part\.stl.*truncated binary STL"):
        a.vertices
    assert b.faces.tolist() == [[0, 1, 2]]                       # the good one loads
    assert b.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]


def test_check_meshes_reports_a_broken_mesh_at_load_as_before(tmp_path):
    path = _robot_with_meshes(tmp_path)
    r = reread(path, check_meshes=True)
    a = r.links[r.link_names.index("a")].geometry
    assert a.missing and len(r.warnings) == 1
    assert "'part.stl' of link 'a' cannot be loaded" in r.warnings[0] and "truncated" in r.warnings[0]
    with pytest.raises(roboio.FormatError, match="truncated binary STL"):
        roboio.load(path, strict=True)                           # strict checks too
    from roboio.api import default_check_meshes
    with default_check_meshes(True):
        assert reread(path).links[r.link_names.index("a")].geometry.missing


def test_the_command_line_reports_a_broken_mesh(tmp_path, capsys):
    from roboio.cli.main import main
    path = _robot_with_meshes(tmp_path)
    assert main(["info", path]) == 0
    assert "truncated binary STL" in capsys.readouterr().out
    assert main(["validate", path]) == 1
    assert "truncated binary STL" in capsys.readouterr().out


def test_deferred_meshes_keep_the_budget(tmp_path):
    path = _robot_with_meshes(tmp_path, cut=False)
    r = reread(path, limits={"max_files": 1})                    # charged at load, unopened:
    assert r.links[r.link_names.index("b")].geometry.missing      # as before, the mesh over
    assert len(r.warnings) == 1 and "max_files=1" in r.warnings[0]   # the limit is left out
    r = roboio.load(path, limits={"max_triangles": 1})           # one triangle per file
    a, b = (r.links[r.link_names.index(n)].geometry for n in ("a", "b"))
    a.load()
    with pytest.raises(roboio.FormatError, match="max_triangles"):  # charged when parsed
        b.load()


def test_one_file_on_several_links_is_read_once_and_copied(tmp_path):
    d = tmp_path
    _robot_with_meshes(d, cut=False)
    text = (d / "r.urdf").read_text().replace("good.stl", "part.stl")
    (d / "r.urdf").write_text(text)
    r = roboio.load(str(d / "r.urdf"))
    a, b = (r.links[r.link_names.index(n)].geometry for n in ("a", "b"))
    assert a is not b and a.transform is not b.transform
    a.vertices[0, 0] = 7.0                                       # copies share no arrays
    assert b.vertices[0, 0] == 0.0
