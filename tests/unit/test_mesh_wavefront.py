"""Wavefront OBJ meshes (hand-written files; expected values worked by hand)."""
from pathlib import Path

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.errors import LoadContext
from roboio.formats import registry
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
f -4//1 -2//1 -1//1
"""
MTL = "newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\nd 0.5\n"


def test_polygons_slashes_negative_indices_and_materials(tmp_path):
    write(tmp_path, "colours.mtl", MTL)
    m = roboio.load(write(tmp_path, "q.obj", QUAD))
    assert m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]
    assert m.faces.tolist() == [[0, 1, 2], [0, 2, 3], [0, 2, 3]]
    assert m.face_colors.tolist() == [[1, 0, 0, 1], [1, 0, 0, 1], [0, 0, 1, 0.5]]
    assert m.extras["parts"] == [0, 2]           # two materials: Klamp't loads two meshes


def test_missing_material_library_warns_and_loads(tmp_path):
    with pytest.warns(roboio.RoboioWarning, match="material library 'colours.mtl' not found"):
        m = roboio.load(write(tmp_path, "q.obj", QUAD))
    assert m.face_colors is None and len(m.faces) == 3


def test_vertex_colours_weights_and_unknown_statements(tmp_path):
    text = ("v 0 0 0 1 0 0\nv 1 0 0 0 1 0 0.5\nv 0 1 0 0 0 1\nv 5 5 5 1\n"
            "s off\nfoo bar\nfoo baz\nl 1 2\np 3\n  f 1 2 3\n")
    with pytest.warns(roboio.RoboioWarning) as rec:
        m = roboio.load(write(tmp_path, "c.obj", text), format="wavefront-obj")
    msgs = [str(w.message) for w in rec]
    assert sum("'foo' ignored" in x for x in msgs) == 1           # one warning per statement
    assert any("only some vertices have colours" in x for x in msgs)
    assert m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0], [5, 5, 5]]
    assert m.faces.tolist() == [[0, 1, 2]]                          # indented f, l and p dropped
    assert m.vertex_colors.tolist() == [[1, 0, 0, 1], [0, 1, 0, 0.5], [0, 0, 1, 1], [1, 1, 1, 1]]


def test_negative_index_counts_from_vertices_defined_so_far(tmp_path):
    text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 0 0 1\nf -4 -3 -1\n"
    m = roboio.load(write(tmp_path, "n.obj", text))
    assert m.faces.tolist() == [[0, 1, 2], [0, 1, 3]]


@pytest.mark.parametrize("text, where, what", [
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", ":4:", "vertex index 4 out of range"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", ":4:", "vertex index 0 out of range"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 -4 2\n", ":4:", "vertex index -4 out of range"),
    ("v 0 0 0\nv 1 0\nv 0 1 0\nf 1 2 3\n", ":2:", "'v' needs x y z"),
    ("v 0 0 0\nv 1 x 0\nv 0 1 0\nf 1 2 3\n", ":2:", "expected a vertex coordinate, found 'x'"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", ":4:", "at least 3 vertices"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 a\n", ":4:", "expected an integer vertex index"),
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
    assert not registry.read_file(path, LoadContext(path), kinds=("geometry",)).is_loaded
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


def test_parts_use_klampt_group_rule_for_mass():
    a = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
    text = a + "g one\nf 1 3 2\nf 1 2 4\ng two\nf 1 4 3\nf 2 3 4\n"
    from roboio.formats.meshes.wavefront import parse_obj_bytes
    d = parse_obj_bytes(text.encode(), "t.obj")
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
