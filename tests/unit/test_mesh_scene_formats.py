"""PLY, COLLADA and glTF meshes: hand-written files (hand-worked values) and files made by
trimesh (an independent writer) read back by roboio."""
import json
import struct
from pathlib import Path

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.errors import LoadContext
from roboio.formats import registry
from roboio.formats.meshes.gltf import Y_UP_TO_Z_UP
from roboio.model import TriangleMesh

trimesh = pytest.importorskip("trimesh")


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(p)


# ---------------------------------------------------------------------------------- PLY

PLY_ASCII = """ply
format ascii 1.0
comment hand written
element vertex 5
property float x
property float y
property float z
property uchar red
property uchar green
property uchar blue
element face 2
property list uchar int vertex_indices
property uchar red
property uchar green
property uchar blue
element edge 1
property int vertex1
property int vertex2
end_header
0 0 0 255 0 0
1 0 0 0 255 0

1 1 0 0 0 255
0 1 0 0 0 0
0.5 2 0 255 255 255
4 0 1 2 3 255 0 0
3 2 4 3 0 0 255
0 1
"""


def test_ply_ascii_polygons_colours_and_extra_elements(tmp_path):
    m = roboio.load(write(tmp_path, "a.ply", PLY_ASCII))
    assert m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 2, 0]]
    assert m.faces.tolist() == [[0, 1, 2], [0, 2, 3], [2, 4, 3]]
    assert m.vertex_colors[:, :3].tolist()[:3] == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert m.face_colors[:, :3].tolist() == [[1, 0, 0], [1, 0, 0], [0, 0, 1]]


def ply_binary(order="<", faces=((0, 1, 2),), nv=3, truncate=0):
    fmt = {"<": "binary_little_endian", ">": "binary_big_endian"}[order]
    head = (f"ply\nformat {fmt} 1.0\nelement vertex {nv}\nproperty double x\nproperty double y\n"
            f"property double z\nelement face {len(faces)}\nproperty list uchar uint vertex_indices\nend_header\n")
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 1 / 3]][:nv], dtype=order + "f8").tobytes()
    f = b"".join(struct.pack(order + "B" + "I" * len(x), len(x), *x) for x in faces)
    data = head.encode() + v + f
    return data[:len(data) - truncate]


@pytest.mark.parametrize("order", ["<", ">"])
def test_ply_binary_uniform_and_mixed_lists(tmp_path, order):
    m = roboio.load(write(tmp_path, "b.ply", ply_binary(order)))
    assert m.faces.tolist() == [[0, 1, 2]]
    m = roboio.load(write(tmp_path, "c.ply", ply_binary(order, faces=((0, 1, 2), (0, 1, 3, 2)), nv=4)))
    assert m.faces.tolist() == [[0, 1, 2], [0, 1, 3], [0, 3, 2]]
    assert m.vertices[3, 2] == 1 / 3


@pytest.mark.parametrize("data, what", [
    (ply_binary(truncate=3), "truncated binary PLY"),
    (ply_binary(faces=((0, 1, 7),)), "face vertex index 7 out of range"),
    (PLY_ASCII.replace("0.5 2 0 255 255 255", "0.5 2 x 255 255 255"), "expected a number, found 'x'"),
    (PLY_ASCII.replace("1 0 0 0 255 0", "1 0 0 0 255"), "vertex line has 5 values"),
    (PLY_ASCII.replace("format ascii", "format binary_middle_endian"), "unknown PLY format"),
    ("solid x\n", "not a PLY file"),
])
def test_ply_errors(tmp_path, data, what):
    path = write(tmp_path, "bad.ply", data)
    with pytest.raises(FormatError, match=what):
        roboio.load(path, format="ply")


def test_ply_reads_trimesh_output_in_order(tmp_path):
    ref = trimesh.creation.icosphere(2)
    for enc in ("binary", "ascii"):
        path = write(tmp_path, f"t_{enc}.ply", trimesh.exchange.ply.export_ply(ref, encoding=enc))
        m = roboio.load(path)
        assert np.array_equal(m.faces, ref.faces)
        assert np.allclose(m.vertices, ref.vertices, rtol=0, atol=1e-7)   # trimesh writes float32


def test_ply_write_round_trip_exact_and_lazy(tmp_path):
    rng = np.random.default_rng(11)
    v, f = rng.normal(size=(20, 3)), rng.integers(0, 20, size=(30, 3))
    vc = np.ones((20, 4))
    vc[:, :3] = rng.integers(0, 256, (20, 3)) / 255
    out = str(tmp_path / "o.ply")
    assert roboio.save(TriangleMesh(v, f, vertex_colors=vc), out).lossless
    m = registry.read_file(out, LoadContext(out), kinds=("geometry",))
    assert not m.is_loaded
    assert np.array_equal(m.vertices, v) and np.array_equal(m.faces, f) and np.array_equal(m.vertex_colors, vc)
    ref = trimesh.load(out, process=False)
    assert np.array_equal(ref.vertices, v) and np.array_equal(ref.faces, f)
    report = roboio.save(TriangleMesh(v, f, face_colors=np.full((30, 4), 0.3)), out)
    assert any("1/255" in x for x in report.lost)


# ------------------------------------------------------------------------------ COLLADA

DAE = """<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="0.01" name="centimeter"/><up_axis>Y_UP</up_axis></asset>
  <library_effects>
    <effect id="red-fx"><profile_COMMON><technique sid="t"><phong>
      <diffuse><color>1 0 0 1</color></diffuse></phong></technique></profile_COMMON></effect>
  </library_effects>
  <library_materials><material id="red"><instance_effect url="#red-fx"/></material></library_materials>
  <library_geometries>
    <geometry id="quad"><mesh>
      <source id="pos"><float_array id="pos-a" count="12">0 0 0 1 0 0 1 1 0 0 1 0</float_array>
        <technique_common><accessor source="#pos-a" count="4" stride="3"/></technique_common></source>
      <source id="nrm"><float_array id="nrm-a" count="3">0 0 1</float_array>
        <technique_common><accessor source="#nrm-a" count="1" stride="3"/></technique_common></source>
      <vertices id="verts"><input semantic="POSITION" source="#pos"/></vertices>
      <polylist count="1" material="m"><input semantic="VERTEX" source="#verts" offset="0"/>
        <input semantic="NORMAL" source="#nrm" offset="1"/><vcount>4</vcount><p>0 0 1 0 2 0 3 0</p></polylist>
      <triangles count="1"><input semantic="VERTEX" source="#verts" offset="0"/><p>0 2 1</p></triangles>
      <lines count="1"><input semantic="VERTEX" source="#verts" offset="0"/><p>0 1</p></lines>
    </mesh></geometry>
  </library_geometries>
  <library_nodes><node id="lib"><translate>0 0 5</translate>
    <instance_geometry url="#quad"/></node></library_nodes>
  <library_visual_scenes><visual_scene id="scene">
    <node id="a"><translate>10 0 0</translate><rotate>0 0 1 90</rotate>
      <instance_geometry url="#quad"><bind_material><technique_common>
        <instance_material symbol="m" target="#red"/></technique_common></bind_material></instance_geometry>
      <node id="b"><scale>2 2 2</scale><instance_node url="#lib"/></node>
    </node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
"""


def test_collada_nodes_primitives_materials(tmp_path):
    with pytest.warns(roboio.RoboioWarning, match="is not applied"):
        m = roboio.load(write(tmp_path, "s.dae", DAE))
    quad = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
    rot = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]], float)
    first = quad @ rot.T + [10, 0, 0]                   # node a: translate then rotate
    second = (quad + [0, 0, 5]) * 2 @ rot.T + [10, 0, 0]  # a * b(scale 2) * lib(translate z 5)
    assert np.allclose(m.vertices, np.concatenate([first, second]))
    tri = [[0, 1, 2], [0, 2, 3], [0, 2, 1]]
    assert m.faces.tolist() == tri + [[a + 4, b + 4, c + 4] for a, b, c in tri]
    assert m.face_colors[:2].tolist() == [[1, 0, 0, 1]] * 2          # bound material
    assert m.extras["parts"] == [0, 2, 3, 5]          # one part per primitive set and instance


@pytest.mark.parametrize("old, new, what", [
    ("<p>0 2 1</p>", "<p>0 2 9</p>", "vertex index 9 out of range"),
    ("<vcount>4</vcount>", "<vcount>5</vcount>", "sums to 5 corners"),
    ('url="#lib"', 'url="#nowhere"', "refers to '#nowhere'"),
    ("<translate>10 0 0</translate>", "<translate>10 0</translate>", "needs 3 numbers"),
    ("0 0 0 1 0 0 1 1 0 0 1 0</float_array>", "0 0 0 1 0 0 1 1 0 0 1 x</float_array>", "found 'x'"),
    ("</COLLADA>", "", "malformed XML"),
])
@pytest.mark.filterwarnings("ignore::roboio.RoboioWarning")
def test_collada_errors(tmp_path, old, new, what):
    path = write(tmp_path, "bad.dae", DAE.replace(old, new))
    with pytest.raises(FormatError, match=what) as e:
        roboio.load(path)
    assert str(e.value).startswith(path + ":")


# --------------------------------------------------------------------------------- glTF

def two_mesh_scene():
    s = trimesh.Scene()
    T = np.eye(4)
    T[:3, 3] = [5, 0, 0]
    s.add_geometry(trimesh.creation.box(), node_name="box", geom_name="box")
    s.add_geometry(trimesh.creation.icosphere(1), node_name="ball", geom_name="ball", transform=T)
    return s


@pytest.mark.parametrize("ext", ["glb", "gltf"])
def test_gltf_scene_is_placed_and_converted_to_z_up(tmp_path, ext):
    s = two_mesh_scene()
    if ext == "glb":
        path = write(tmp_path, "s.glb", s.export(file_type="glb"))
    else:
        for name, data in s.export(file_type="gltf").items():
            write(tmp_path, name, data)
        path = str(tmp_path / "model.gltf")
    m = roboio.load(path)
    ref = trimesh.load(path, process=False).dump(concatenate=True)
    assert np.allclose(m.transform, Y_UP_TO_Z_UP)
    assert len(m.faces) == len(ref.faces) == 12 + 80
    assert np.allclose(m.vertices.min(0), ref.bounds[0]) and np.allclose(m.vertices.max(0), ref.bounds[1])
    x, y, z = ref.bounds[1]
    assert np.allclose(m.bounds()[1], [x, -ref.bounds[0][2], y])     # (x, y, z) -> (x, -z, y)
    assert m.extras["parts"] == [0, 12]


def test_gltf_hand_written_trs_strip_and_material(tmp_path):
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], "<f4").tobytes()
    idx = np.array([0, 1, 2, 3], "<u2").tobytes()
    buf = pos + idx
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
           "nodes": [{"translation": [0, 0, 2], "rotation": [0, 0, 0.7071067811865476, 0.7071067811865476],
                      "scale": [2, 2, 2], "mesh": 0}],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "mode": 5, "material": 0},
                                      {"attributes": {"POSITION": 0}, "mode": 1}]}],
           "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 0.5]}}],
           "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"},
                         {"bufferView": 1, "componentType": 5123, "count": 4, "type": "SCALAR"}],
           "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                           {"buffer": 0, "byteOffset": 48, "byteLength": 8}],
           "buffers": [{"byteLength": len(buf), "uri": "data.bin"}]}
    write(tmp_path, "data.bin", buf)
    m = roboio.load(write(tmp_path, "h.gltf", json.dumps(doc)))
    # rotation 90 degrees about z, scale 2, then translation (0, 0, 2)
    assert np.allclose(m.vertices, [[0, 0, 2], [0, 2, 2], [-2, 0, 2], [-2, 2, 2]], atol=1e-12)
    assert m.faces.tolist() == [[0, 1, 2], [1, 3, 2]]       # strip (glTF's order); lines dropped
    assert m.face_colors.tolist() == [[0, 1, 0, 0.5]] * 2


def test_gltf_errors(tmp_path):
    with pytest.raises(FormatError, match="malformed glTF JSON"):
        roboio.load(write(tmp_path, "bad.gltf", '{"asset": {"version": "2.0"'), format="gltf")
    glb = two_mesh_scene().export(file_type="glb")
    with pytest.raises(FormatError, match="truncated GLB"):
        roboio.load(write(tmp_path, "short.glb", glb[:len(glb) // 2]))
    doc = {"asset": {"version": "2.0"}, "extensionsRequired": ["KHR_draco_mesh_compression"]}
    with pytest.raises(FormatError, match="compressed glTF"):
        roboio.load(write(tmp_path, "d.gltf", json.dumps(doc)))


def test_collada_instance_bomb_is_an_error(tmp_path):
    nodes = ['<node id="n0"><instance_geometry url="#quad"/></node>']
    for i in range(1, 30):      # each level instances the previous one twice: 2^29 placements
        nodes.append(f'<node id="n{i}"><instance_node url="#n{i - 1}"/><instance_node url="#n{i - 1}"/></node>')
    text = DAE.replace('<library_nodes>', '<library_nodes>' + "".join(nodes)).replace(
        '<node id="b">', '<node id="b"><instance_node url="#n29"/>')
    with pytest.raises(FormatError, match="node instances"):
        roboio.load(write(tmp_path, "bomb.dae", text))
