"""Wavefront OBJ meshes, read through trimesh (hand-written files; expected values worked by
hand). Also pins what trimesh does not read, so a change in trimesh shows up here."""
from pathlib import Path

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.context import LoadContext
from roboio.formats import loading, registry
from roboio.model import TriangleMesh
from roboio.model.massprops import geometry_moments


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(p)


QUAD = """# a quad and a triangle
mtllib colours.mtl
o thing
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
vt 0 0
vn 0 0 1
usemtl red
f 1/1/1 2/1/1 3/1/1 4/1/1
usemtl blue
f 1//1 3//1 4//1
"""
MTL = "newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\nd 0.5\nnewmtl grey\nKd 0.3 0.3 0.3\nTr 0.25\n"


def test_polygons_slashes_and_materials(tmp_path):
    write(tmp_path, "colours.mtl", MTL)
    m = roboio.load(write(tmp_path, "q.obj", QUAD))
    assert m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]   # one list, not one per part
    assert m.faces.tolist() == [[0, 1, 2], [0, 2, 3], [0, 2, 3]]
    assert m.face_colors.tolist() == [[1, 0, 0, 1], [1, 0, 0, 1], [0, 0, 1, 0.5]]   # Kd, alpha from d
    assert m.extras["parts"] == [0, 2]           # two materials: Klamp't loads two meshes


def test_usemtl_runs_are_parts_in_file_order(tmp_path):
    write(tmp_path, "colours.mtl", MTL)
    text = ("mtllib colours.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 5 5 5\n"
            "f 1 2 3\nusemtl red\nf 1 2 4\nf 2 3 4\nusemtl grey\nf 1 3 4\nusemtl red\nf 3 4 5\n")
    m = roboio.load(write(tmp_path, "runs.obj", text))
    assert m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [5, 5, 5]]
    assert m.faces.tolist() == [[0, 1, 2], [0, 1, 3], [1, 2, 3], [0, 2, 3], [2, 3, 4]]
    assert m.extras["parts"] == [0, 1, 3, 4]      # the second 'red' run is a part of its own
    # trimesh keeps material colours as bytes: Kd 0.3 comes back to within 1/255
    assert np.allclose(m.face_colors, [[0.5, 0.5, 0.5, 1], [1, 0, 0, 1], [1, 0, 0, 1],
                                       [0.3, 0.3, 0.3, 0.75], [1, 0, 0, 1]], rtol=0, atol=1 / 255)
    assert m.face_colors[[1, 2, 4]].tolist() == [[1, 0, 0, 1]] * 3 and m.face_colors[3, 3] == 0.75


def test_quads_are_fanned_in_order(tmp_path):
    v = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\n"
    m = roboio.load(write(tmp_path, "quads.obj", v + "f 1 2 3 4\nf 2 3 4 5\n"))
    assert m.faces.tolist() == [[0, 1, 2], [0, 2, 3], [1, 2, 3], [1, 3, 4]]
    m = roboio.load(write(tmp_path, "mixed.obj", v + "f 1 2 3 4 5\nf 5 4 3\n"))
    assert m.faces.tolist() == [[0, 1, 2], [0, 2, 3], [0, 3, 4], [4, 3, 2]]
    # a quad among faces of other sizes: trimesh's split (1, 2, 3), (3, 4, 1)
    m = roboio.load(write(tmp_path, "mixed4.obj", v + "f 1 2 3 4\nf 5 4 3\n"))
    assert m.faces.tolist() == [[0, 1, 2], [2, 3, 0], [4, 3, 2]]


def test_objects_and_groups_start_parts(tmp_path):
    # Klamp't (Assimp) loads one mesh per object, group and material run
    v = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\n"
    m = roboio.load(write(tmp_path, "g.obj", v + "o a\nf 1 2 3 4 5\ng b\nf 5 4 3\nf 1 2 5\no c\ng d\nf 1 3 5\n"))
    assert len(m.faces) == 6 and m.extras["parts"] == [0, 3, 5]
    m = roboio.load(write(tmp_path, "u.obj", v + "usemtl x\nf 1 2 3\ng b\nf 1 2 4\nusemtl y\nf 2 3 4\n"))
    assert m.extras["parts"] == [0, 1, 2]


def test_missing_material_library_warns_and_loads(tmp_path):
    with pytest.warns(roboio.RoboioWarning, match="q.obj:2: material library 'colours.mtl' not found"):
        m = roboio.load(write(tmp_path, "q.obj", QUAD))
    assert m.face_colors is None and len(m.faces) == 3
    # a warning, not an error: the shape is whole
    from roboio.cli.main import main
    assert main(["validate", str(tmp_path / "q.obj")]) == 0
    assert main(["validate", "--strict", str(tmp_path / "q.obj")]) == 1
    # the mesh parser on its own (no one to tell) reads it too
    from roboio.formats.meshes.wavefront import parse_obj_bytes
    assert len(parse_obj_bytes(QUAD.encode(), None)["faces"]) == 3


def test_vertex_colours(tmp_path):
    m = roboio.load(write(tmp_path, "c.obj", "v 0 0 0 1 0 0\nv 1 0 0 0 1 0.25\nv 0 1 0 0 0 1\nf 1 2 3\n"))
    assert m.vertex_colors.tolist() == [[1, 0, 0, 1], [0, 1, 0.25, 1], [0, 0, 1, 1]]   # exact floats
    # what trimesh does not read: a seventh number (alpha), colours on only some vertices
    m = roboio.load(write(tmp_path, "a.obj", "v 0 0 0 1 0 0 0.5\nv 1 0 0 0 1 0 0.5\nv 0 1 0 0 0 1 1\nf 1 2 3\n"))
    assert m.vertex_colors[:, 3].tolist() == [1, 1, 1]
    m = roboio.load(write(tmp_path, "s.obj", "v 0 0 0 1 0 0\nv 1 0 0\nv 0 1 0\nv 5 5 5 1\nf 1 2 3\n"))
    assert m.vertex_colors is None and m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0], [5, 5, 5]]


def test_skipped_statements_and_vertices_only(tmp_path):
    text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\ns off\nfoo bar\nl 1 2\np 3\nf 1 2 3\n  f 1 2 4\n"
    m = roboio.load(write(tmp_path, "k.obj", text), format="wavefront-obj")
    assert m.faces.tolist() == [[0, 1, 2]]        # l, p and the indented f are not read
    m = roboio.load(write(tmp_path, "p.obj", "v 1 2 3\nv 4 5 6\n"))
    assert m.vertices.tolist() == [[1, 2, 3], [4, 5, 6]] and m.faces.shape == (0, 3)
    # with texture corners, vertices after the last one a face uses are not kept
    m = roboio.load(write(tmp_path, "t.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 9 9 9\nvt 0 0\nf 1/1 2/1 3/1\n"))
    assert len(m.vertices) == 3


@pytest.mark.parametrize("text, where, what", [
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", ":4:", "vertex index 0 out of range"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1/1 -4/1 2/1\n", ":5:", "negative) vertex index -4 is not supported"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 0 0 1\nf -4 -3 -1\n", ":4:", "vertex index -3 is not supported"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", ":4:", "vertex index 4 out of range (the file has 3 v"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 4//1\nvn 0 0 1\n", ":4:", "vertex index 4 out of range"),
    ("v 0 0 0\nv 1 0\nv 0 1 0\nf 1 2 3\n", ": ", "vertices must have 3 coordinates"),
    ("v 0 0 0\nv 1 x 0\nv 0 1 0\nf 1 2 3\n", ": ", "not a readable Wavefront OBJ file"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", ": ", "a face with 2 corners"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 a\n", ": ", "not a readable Wavefront OBJ file"),
])
def test_errors(tmp_path, text, where, what):
    path = write(tmp_path, "bad.obj", text)
    with pytest.raises(FormatError) as e:
        roboio.load(path)
    assert str(e.value).startswith(path + where) and what in str(e.value), str(e.value)


def test_klampt_object_files_are_not_wavefront(tmp_path):
    path = write(tmp_path, "crate.obj", 'mesh "crate.off"\nT 1 0 0 0 1 0 0 0 1 0 0 0\nmass 1\n')
    assert registry.find_reader(path).name != "wavefront-obj"
    path = write(tmp_path, "w.obj", "# comment\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    assert registry.find_reader(path).name == "wavefront-obj"
    assert registry.find_reader(path, kinds=("geometry",)).name == "wavefront-obj"


def test_lazy_and_round_trip_exact(tmp_path):
    path = write(tmp_path, "w.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    assert not loading.read_file(path, LoadContext(path), kinds=("geometry",)).is_loaded
    rng = np.random.default_rng(9)
    v, f = rng.normal(size=(10, 3)) * 1e3, rng.integers(0, 10, size=(7, 3))
    colors = np.ones((10, 4))
    colors[:, :3] = rng.random((10, 3))
    out = str(tmp_path / "o.obj")
    assert roboio.save(TriangleMesh(v, f, vertex_colors=colors), out).lossless
    back = roboio.load(out)
    assert np.array_equal(back.vertices, v) and np.array_equal(back.faces, f)
    assert np.array_equal(back.vertex_colors, colors)
    report = roboio.save(TriangleMesh(v, f, face_colors=np.ones((7, 4))), out)
    assert any("face colours" in x for x in report.lost)


def test_parts_use_klampt_group_rule_for_mass(tmp_path):
    a = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
    text = a + "g one\nf 1 3 2\nf 1 2 4\ng two\nf 1 4 3\nf 2 3 4\n"
    from roboio.formats.meshes.wavefront import parse_obj
    d = parse_obj(write(tmp_path, "t.obj", text))
    m = TriangleMesh(d["vertices"], d["faces"])
    m.extras.update(d["extras"])
    com, _ = geometry_moments(m)
    # group rule: mean of the two parts' own area-weighted centres
    from roboio.model.massprops import mesh_center
    V = d["vertices"]
    c1 = mesh_center(V, d["faces"][:2])
    c2 = mesh_center(V, d["faces"][2:])
    assert np.allclose(com, (c1 + c2) / 2)
    assert not np.allclose(com, mesh_center(V, d["faces"]))
