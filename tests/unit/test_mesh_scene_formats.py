"""PLY, COLLADA and glTF meshes, read through trimesh: hand-written files with hand-worked
vertices, faces, transforms and colours, and files made by trimesh's writers compared with
the data written (and header counts). Also pins what trimesh does not read, so a change in
trimesh shows up here. tests/reference compares corpus files with klampt."""
import json
import struct

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.context import LoadContext
from roboio.formats import loading
from roboio.model import TriangleMesh

trimesh = pytest.importorskip("trimesh")


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(p)


def same_triangles(a, b):
    """Equal triangle lists, each triangle up to a cyclic turn of its corners (same winding)."""
    def norm(t):
        t = list(t)
        i = t.index(min(t))
        return tuple(t[i:] + t[:i])
    return [norm(t) for t in np.asarray(a).tolist()] == [norm(t) for t in np.asarray(b).tolist()]


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
element face 3
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
0.5 2 0 255 255 51
4 0 1 2 3 255 0 0
3 2 4 3 0 0 255
5 0 1 2 4 3 0 255 0
0 1
"""


def test_ply_ascii_polygons_in_order_colours_and_extra_elements(tmp_path):
    m = roboio.load(write(tmp_path, "a.ply", PLY_ASCII))
    assert m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 2, 0]]
    # quad, triangle, pentagon fanned in file order (trimesh alone would put the triangle first)
    assert m.faces.tolist() == [[0, 1, 2], [0, 2, 3], [2, 4, 3], [0, 1, 2], [0, 2, 4], [0, 4, 3]]
    assert m.vertex_colors.tolist() == [[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1], [0, 0, 0, 1], [1, 1, 0.2, 1]]
    assert m.face_colors.tolist() == [[1, 0, 0, 1]] * 2 + [[0, 0, 1, 1]] + [[0, 1, 0, 1]] * 3


def ply_binary(order="<", faces=((0, 1, 2),), nv=3, truncate=0):
    fmt = {"<": "binary_little_endian", ">": "binary_big_endian"}[order]
    head = (f"ply\nformat {fmt} 1.0\nelement vertex {nv}\nproperty double x\nproperty double y\n"
            f"property double z\nelement face {len(faces)}\nproperty list uchar uint vertex_indices\nend_header\n")
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 1 / 3]][:nv], dtype=order + "f8").tobytes()
    f = b"".join(struct.pack(order + "B" + "I" * len(x), len(x), *x) for x in faces)
    data = head.encode() + v + f
    return data[:len(data) - truncate]


@pytest.mark.parametrize("order", ["<", ">"])
def test_ply_binary_triangles_and_quads(tmp_path, order):
    m = roboio.load(write(tmp_path, "b.ply", ply_binary(order)))
    assert m.faces.tolist() == [[0, 1, 2]] and m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    m = roboio.load(write(tmp_path, "c.ply", ply_binary(order, faces=((0, 1, 3, 2), (3, 2, 1, 0)), nv=4)))
    assert m.faces.tolist() == [[0, 1, 3], [0, 3, 2], [3, 2, 1], [3, 1, 0]]
    assert m.vertices[3, 2] == 1 / 3


@pytest.mark.parametrize("data, what", [
    (ply_binary(truncate=3), "PLY is unexpected length"),
    # what trimesh does not read: binary face lists of different lengths, a blank data line
    (ply_binary(faces=((0, 1, 2), (0, 1, 3, 2)), nv=4), "PLY is unexpected length"),
    (PLY_ASCII.replace("1 0 0 0 255 0\n", "1 0 0 0 255 0\n\n"), "rows of different lengths"),
    (ply_binary(faces=((0, 1, 7),)), "vertex index 7 out of range"),
    (PLY_ASCII.replace("0.5 2 0 255 255 51", "0.5 2 x 255 255 51"), "could not be read"),
    (PLY_ASCII.replace("1 0 0 0 255 0", "1 0 0 0 255"), "malformed colour data"),
    (PLY_ASCII.replace("format ascii", "format binary_middle_endian"), "not a readable PLY file"),
    ("solid x\n", "not a PLY file"),
])
def test_ply_errors(tmp_path, data, what):
    path = write(tmp_path, "bad.ply", data)
    with pytest.raises(FormatError, match=what) as e:
        roboio.load(path, format="ply")
    assert str(e.value).startswith(path + ":")


def header_counts(data: bytes) -> dict:
    head = data[:data.index(b"end_header")].decode().split("\n")
    return {w[1]: int(w[2]) for w in (line.split() for line in head) if w and w[0] == "element"}


def test_ply_reads_trimesh_output_in_order(tmp_path):
    ref = trimesh.creation.icosphere(2)               # the data written, not trimesh's reading
    for enc in ("binary", "ascii"):
        data = trimesh.exchange.ply.export_ply(ref, encoding=enc)
        m = roboio.load(write(tmp_path, f"t_{enc}.ply", data))
        counts = header_counts(data)
        assert (len(m.vertices), len(m.faces)) == (counts["vertex"], counts["face"]) == (162, 320)
        assert np.array_equal(m.faces, ref.faces)
        assert np.allclose(m.vertices, ref.vertices, rtol=0, atol=1e-7)   # trimesh writes float32


def test_ply_write_round_trip_exact_and_lazy(tmp_path):
    rng = np.random.default_rng(11)
    v, f = rng.normal(size=(20, 3)), rng.integers(0, 20, size=(30, 3))
    vc = np.ones((20, 4))
    vc[:, :3] = rng.integers(0, 256, (20, 3)) / 255
    out = str(tmp_path / "o.ply")
    assert roboio.save(TriangleMesh(v, f, vertex_colors=vc), out).lossless
    m = loading.read_file(out, LoadContext(out), kinds=("geometry",))
    assert not m.is_loaded
    assert np.array_equal(m.vertices, v) and np.array_equal(m.faces, f) and np.array_equal(m.vertex_colors, vc)
    # the bytes, decoded here from the header's counts and property types
    data = open(out, "rb").read()
    assert header_counts(data) == {"vertex": 20, "face": 30}
    body = data[data.index(b"end_header\n") + 11:]
    vrec = np.frombuffer(body, [("p", "<f8", 3), ("c", "u1", 4)], 20)
    frec = np.frombuffer(body, [("n", "u1"), ("i", "<i4", 3)], 30, vrec.nbytes)
    assert np.array_equal(vrec["p"], v) and np.array_equal(vrec["c"] / 255, vc)
    assert np.all(frec["n"] == 3) and np.array_equal(frec["i"], f)
    report = roboio.save(TriangleMesh(v, f, face_colors=np.full((30, 4), 0.3)), out)
    assert any("1/255" in x for x in report.lost)


# ------------------------------------------------------------------------------ COLLADA

XYZ = '<param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>'
DAE = f"""<?xml version="1.0"?>
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
        <technique_common><accessor source="#pos-a" count="4" stride="3">{XYZ}</accessor></technique_common></source>
      <source id="nrm"><float_array id="nrm-a" count="3">0 0 1</float_array>
        <technique_common><accessor source="#nrm-a" count="1" stride="3">{XYZ}</accessor></technique_common></source>
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
    with pytest.warns(roboio.RoboioWarning, match=":3: <unit meter=\"0.01\"> is not applied"):
        m = roboio.load(write(tmp_path, "s.dae", DAE))
    quad = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
    # node a: translate (10, 0, 0) then rotate 90 degrees about z: (x, y, z) -> (10 - y, x, z)
    first = np.stack([10 - quad[:, 1], quad[:, 0], quad[:, 2]], axis=1)
    # a * b (scale 2) * lib (translate z 5): (x, y, z) -> (10 - 2y, 2x, 2z + 10)
    second = np.stack([10 - 2 * quad[:, 1], 2 * quad[:, 0], 2 * quad[:, 2] + 10], axis=1)
    tris = [[0, 1, 2], [0, 2, 3], [0, 2, 1]]             # polylist fanned, then the triangle
    corners = np.concatenate([first[tris], second[tris]])
    assert len(m.vertices) == 18                          # every triangle its own 3 vertices
    assert np.allclose(m.vertices[m.faces], corners, rtol=0, atol=1e-5)    # float32 (pycollada)
    assert m.face_colors.tolist() == [[1, 0, 0, 1]] * 2 + [[0.5, 0.5, 0.5, 1]] * 4   # bound material
    assert m.extras["parts"] == [0, 2, 3, 5]          # one part per primitive set and instance


@pytest.mark.parametrize("old, new, where, what", [
    ("<p>0 2 1</p>", "<p>0 2 9</p>", "", "go beyond the limits of the source"),
    ("<p>0 2 1</p>", "<p>0 2 -1</p>", ":18:", "<p>: negative index"),
    ("<vcount>4</vcount>", "<vcount>5</vcount>", "", "not a readable COLLADA file"),
    ('url="#lib"', 'url="#nowhere"', "", "Node #nowhere not found"),
    ('target="#red"', 'target="#blue"', "", "Material #blue not found"),
    ("<translate>10 0 0</translate>", "<translate>10 0</translate>", "", "requires three float values"),
    ("0 0 0 1 0 0 1 1 0 0 1 0</float_array>", "0 0 0 1 0 0 1 1 0 0 1 x</float_array>", "", "Corrupted float array"),
    ("</COLLADA>", "", ":33:", "malformed XML"),
    ('<?xml version="1.0"?>', '<?xml version="1.0"?><!DOCTYPE COLLADA [<!ENTITY e "1">]>', ":1:", "DOCTYPE"),
    ('<scene><instance_visual_scene url="#scene"/></scene>', "", "", "not a readable COLLADA file"),
    (' xmlns="http://www.collada.org/2005/11/COLLADASchema"', "", ":2:", "without its xmlns namespace"),
    # pycollada builds a matrix with the eye position in its last row from <lookat>
    ("<translate>0 0 5</translate>", "<lookat>0 0 5 0 0 0 0 1 0</lookat>", "", "is not affine"),
    ("<translate>0 0 5</translate>", "<skew>45 1 0 0 0 1 0</skew>", "", "not a readable COLLADA file"),
])
@pytest.mark.filterwarnings("ignore::roboio.RoboioWarning")
def test_collada_errors(tmp_path, old, new, where, what):
    assert old in DAE
    path = write(tmp_path, "bad.dae", DAE.replace(old, new))
    with pytest.raises(FormatError, match=what) as e:
        roboio.load(path)
    assert str(e.value).startswith(path + (where or ": ")), str(e.value)


@pytest.mark.filterwarnings("ignore::roboio.RoboioWarning")
def test_collada_instance_bomb_and_cycle_are_errors(tmp_path):
    nodes = ['<node id="n0"><instance_geometry url="#quad"/></node>']
    for i in range(1, 30):      # each level instances the previous one twice: 2^29 placements
        nodes.append(f'<node id="n{i}"><instance_node url="#n{i - 1}"/><instance_node url="#n{i - 1}"/></node>')
    text = DAE.replace('<library_nodes>', '<library_nodes>' + "".join(nodes)).replace(
        '<node id="b">', '<node id="b"><instance_node url="#n29"/>')
    with pytest.raises(FormatError, match="node instances"):
        roboio.load(write(tmp_path, "bomb.dae", text))
    text = DAE.replace('<node id="lib"><translate>0 0 5</translate>',
                       '<node id="lib"><translate>0 0 5</translate><node id="c"><instance_node url="#lib"/></node>')
    with pytest.raises(FormatError, match="cycle"):
        roboio.load(write(tmp_path, "cycle.dae", text))


def test_collada_sampler_of_a_missing_surface_loses_only_the_texture(tmp_path):
    """anymal_b's foot (example-robot-data): a <sampler2D> names a surface its effect does
    not declare. pycollada then drops the effect, the material and the geometry bound to it;
    Assimp (Klamp't, pinocchio) loses the texture only: so does roboio, with a warning."""
    fx = ('<effect id="red-fx"><profile_COMMON>'
          '<newparam sid="img-surface"><surface type="2D"><init_from>img</init_from></surface></newparam>'
          '<newparam sid="img-sampler"><sampler2D><source>img_001-surface</source></sampler2D></newparam>'
          '<technique sid="t"><phong>')
    text = DAE.replace('<effect id="red-fx"><profile_COMMON><technique sid="t"><phong>', fx).replace(
        "<library_effects>", '<library_images><image id="img"><init_from>img.jpg</init_from></image></library_images>'
        "<library_effects>")
    assert text != DAE
    with pytest.warns(roboio.RoboioWarning, match=r":5: <sampler2D> 'img-sampler' of effect 'red-fx' names a surface "
                      r"'img_001-surface' the effect does not declare"):
        m = roboio.load(write(tmp_path, "tex.dae", text))
    with pytest.warns(roboio.RoboioWarning):
        ref = roboio.load(write(tmp_path, "ref.dae", DAE))
    assert np.array_equal(m.vertices, ref.vertices) and np.array_equal(m.faces, ref.faces)
    assert m.face_colors.tolist() == ref.face_colors.tolist()


def test_collada_text_node_over_libxml2_limit(tmp_path):
    """b1's trunk.dae (example-robot-data) keeps 24 MB in one <float_array>: beyond libxml2's
    10 MB text-node limit, which the hardened parser lifts for COLLADA (the file size stays
    bounded by max_file_bytes)."""
    pad = " " * (11 << 20)
    text = DAE.replace('<float_array id="pos-a" count="12">0 0 0', f'<float_array id="pos-a" count="12">{pad}0 0 0')
    with pytest.warns(roboio.RoboioWarning):
        m = roboio.load(write(tmp_path, "big.dae", text))
        ref = roboio.load(write(tmp_path, "ref.dae", DAE))
    assert np.array_equal(m.vertices, ref.vertices)


# --------------------------------------------------------------------------------- glTF

def two_mesh_scene():
    s = trimesh.Scene()
    T = np.eye(4)
    T[:3, 3] = [5, 0, 0]
    s.add_geometry(trimesh.creation.box(), node_name="box", geom_name="box")
    s.add_geometry(trimesh.creation.icosphere(1), node_name="ball", geom_name="ball", transform=T)
    return s


@pytest.mark.parametrize("ext", ["glb", "gltf"])
def test_gltf_scene_is_placed_in_the_files_coordinates(tmp_path, ext):
    s = two_mesh_scene()
    if ext == "glb":
        path = write(tmp_path, "s.glb", s.export(file_type="glb"))
    else:
        for name, data in s.export(file_type="gltf").items():
            write(tmp_path, name, data)
        path = str(tmp_path / "model.gltf")
    m = roboio.load(path)
    assert np.array_equal(m.transform, np.eye(4))     # Klamp't and trimesh: no Y-up turn
    # unit box (12 triangles) at the origin, icosphere(1) (80) of radius 1 at x = 5; parts in
    # trimesh's scene-graph order (the ball first)
    assert len(m.faces) == 12 + 80 and m.extras["parts"] == [0, 80]
    ball, box = m.vertices[np.unique(m.faces[:80])], m.vertices[np.unique(m.faces[80:])]
    assert np.allclose(np.linalg.norm(ball - [5, 0, 0], axis=1), 1, atol=1e-6)
    assert np.allclose([box.min(0), box.max(0)], [[-0.5] * 3, [0.5] * 3])
    assert np.allclose(m.bounds(), [[-0.5, -1, -1], [6, 1, 1]], atol=1e-6)


def gltf_doc(mode=5, indices=(0, 1, 2, 3), scenes=True, extra_primitive=True):
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], "<f4").tobytes()
    buf = pos + np.array(indices, "<u2").tobytes()
    prims = [{"attributes": {"POSITION": 0}, "indices": 1, "mode": mode, "material": 0}]
    if extra_primitive:
        prims.append({"attributes": {"POSITION": 0}, "mode": 1})           # lines
    doc = {"asset": {"version": "2.0"},
           "nodes": [{"translation": [0, 0, 2], "rotation": [0, 0, 0.7071067811865476, 0.7071067811865476],
                      "scale": [2, 2, 2], "mesh": 0}],
           "meshes": [{"primitives": prims}],
           "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 0.5]}}],
           "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"},
                         {"bufferView": 1, "componentType": 5123, "count": len(indices), "type": "SCALAR"}],
           "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                           {"buffer": 0, "byteOffset": 48, "byteLength": 2 * len(indices)}],
           "buffers": [{"byteLength": len(buf), "uri": "data.bin"}]}
    if scenes:
        doc.update(scene=0, scenes=[{"nodes": [0]}])
    return doc, buf


def test_gltf_hand_written_trs_strip_and_material(tmp_path):
    doc, buf = gltf_doc()
    write(tmp_path, "data.bin", buf)
    with pytest.warns(roboio.RoboioWarning, match=r"line primitives not read.*meshes\[0\]\.primitives\[1\]"):
        m = roboio.load(write(tmp_path, "h.gltf", json.dumps(doc)))
    # rotation 90 degrees about z, scale 2, then translation (0, 0, 2)
    assert np.allclose(m.vertices, [[0, 0, 2], [0, 2, 2], [-2, 0, 2], [-2, 2, 2]], atol=1e-12)
    assert same_triangles(m.faces, [[0, 1, 2], [1, 3, 2]])     # the strip; lines dropped
    # trimesh keeps material colours as bytes: alpha 0.5 -> 128/255
    assert m.face_colors.tolist() == [[0, 1, 0, 128 / 255]] * 2


def test_gltf_fans_are_dropped_with_a_warning_and_no_scene_means_unplaced(tmp_path):
    doc, buf = gltf_doc(mode=6, extra_primitive=False)
    doc["accessors"].append({"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"})
    doc["meshes"][0]["primitives"].append({"attributes": {"POSITION": 0}, "indices": 2, "material": 0})
    write(tmp_path, "data.bin", buf)
    with pytest.warns(roboio.RoboioWarning, match=r"triangle-fan primitives not read.*meshes\[0\]\.primitives\[0\]"):
        m = roboio.load(write(tmp_path, "fan.gltf", json.dumps(doc)))
    assert m.faces.tolist() == [[0, 1, 2]]                     # the mode-4 primitive only
    doc, buf = gltf_doc(scenes=False, extra_primitive=False)
    with pytest.warns(roboio.RoboioWarning, match="no mesh in a scene"):
        m = roboio.load(write(tmp_path, "noscene.gltf", json.dumps(doc)))
    assert m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]   # no node transform


def test_gltf_point_primitives_are_named_when_left_out(tmp_path):
    """A posed scene with a point cloud (written as a POINTS primitive) reloads as its
    triangles, with a warning that the points were not read."""
    doc, buf = gltf_doc(mode=4, indices=(0, 1, 2), extra_primitive=False)
    doc["meshes"].append({"primitives": [{"attributes": {"POSITION": 0}, "mode": 0}]})
    doc["nodes"].append({"mesh": 1})
    doc["scenes"][0]["nodes"].append(1)
    write(tmp_path, "data.bin", buf)
    with pytest.warns(roboio.RoboioWarning, match=r"point primitives not read .*: meshes\[1\]\.primitives\[0\]$"):
        m = roboio.load(write(tmp_path, "pts.gltf", json.dumps(doc)))
    assert m.faces.tolist() == [[0, 1, 2]]


def test_gltf_errors(tmp_path):
    with pytest.raises(FormatError, match=r"bad.gltf:1:28: malformed glTF JSON"):
        roboio.load(write(tmp_path, "bad.gltf", '{"asset": {"version": "2.0"'), format="gltf")
    glb = two_mesh_scene().export(file_type="glb")
    with pytest.raises(FormatError, match="chunk was not expected length"):
        roboio.load(write(tmp_path, "short.glb", glb[:len(glb) // 2]))
    with pytest.raises(FormatError, match="byte 10: truncated GLB header"):
        roboio.load(write(tmp_path, "tiny.glb", glb[:10]))
    doc = {"asset": {"version": "2.0"}, "extensionsRequired": ["KHR_draco_mesh_compression"]}
    with pytest.raises(FormatError, match="compressed glTF"):
        roboio.load(write(tmp_path, "d.gltf", json.dumps(doc)))
    doc, buf = gltf_doc(mode=4, indices=(0, 1, 9), extra_primitive=False)
    write(tmp_path, "data.bin", buf)
    with pytest.raises(FormatError, match=r"vertex index 9 out of range \(0..3\)"):
        roboio.load(write(tmp_path, "oor.gltf", json.dumps(doc)))
    doc["buffers"][0]["uri"] = "missing.bin"
    with pytest.raises(FormatError, match="missing.bin"):
        roboio.load(write(tmp_path, "nobuf.gltf", json.dumps(doc)))
