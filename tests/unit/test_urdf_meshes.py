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
    assert any("several collision pieces" in x for x in rep.lost)
    first = out.read_bytes()
    roboio.save(reread(out), out, overwrite_input=True)
    assert out.read_bytes() == first
    pin = pytest.importorskip("pinocchio")
    _, cm, vm = pin.buildModelsFromUrdf(str(out), str(tmp_path))
    assert (cm.ngeoms, vm.ngeoms) == (2, 1)
