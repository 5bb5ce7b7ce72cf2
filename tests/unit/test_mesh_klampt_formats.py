"""Klamp't's own geometry files: .tri, .geom primitives, geometry streams (inline
geometry) and .group files; hand-written fixtures with hand-worked expectations."""
from pathlib import Path

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.context import LoadContext
from roboio.formats import loading
from roboio.formats.klampt.geometry.stream import bake_primitive, parse_stream, primitive_text
from roboio.model import Group, PointCloud, Primitive, TriangleMesh


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(p)


# ---------------------------------------------------------------------------------- .tri

def test_tri_tabs_and_several_blocks_merge_into_one_mesh(tmp_path):
    text = "3\n0\t0\t0\n1\t0\t0\n0\t1\t0\n1\n0\t1\t2\n 3 0 0 1 1 0 1 0 1 1 2 0 1 2 2 1 0"
    m = roboio.load(write(tmp_path, "m.tri", text))
    assert m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1]]
    assert m.faces.tolist() == [[0, 1, 2], [3, 4, 5], [5, 4, 3]]


@pytest.mark.parametrize("text, where, what", [
    ("3\n0 0 0\n1 0 0\n0 1 0\n1\n0 1 3\n", ":6:5:", "vertex index 3 out of range"),
    ("3\n0 0 0\n1 0 0\n0 1 0\n2\n0 1 2\n", ":7:", "expected 2 triangle triples"),
    ("0\n1\n0 1 2\n", ":1:1:", "vertex count 0 out of range"),
    ("3\n0 0 0\n1 zero 0\n0 1 0\n1\n0 1 2\n", ":3:3:", "expected a vertex coordinate"),
    ("3\n0 0 0\n1 0 0\n0 1 0\n", ":5:", "triangle count"),
    ("", ":1:", "empty .tri"),
])
def test_tri_errors(tmp_path, text, where, what):
    path = write(tmp_path, "bad.tri", text)
    with pytest.raises(FormatError) as e:
        roboio.load(path)
    assert str(e.value).startswith(path + where) and what in str(e.value), str(e.value)


def test_tri_is_lazy_and_round_trips(tmp_path):
    path = write(tmp_path, "m.tri", "3 0 0 0 1 0 0 0 1 0 1 0 1 2")
    m = loading.read_file(path, LoadContext(path), kinds=("geometry",))
    assert not m.is_loaded
    rng = np.random.default_rng(2)
    v, f = rng.normal(size=(9, 3)), rng.integers(0, 9, size=(5, 3))
    out = str(tmp_path / "out.tri")
    assert roboio.save(TriangleMesh(v, f), out).lossless
    back = roboio.load(out)
    assert np.array_equal(back.vertices, v) and np.array_equal(back.faces, f)


# ---------------------------------------------------------------------------------- .geom

PRIMS = {
    "Point": ("Point 1 2 3", {"center": [1, 2, 3]}),
    "Segment": ("Segment 0 0 0 1 1 1", {"a": [0, 0, 0], "b": [1, 1, 1]}),
    "Triangle": ("Triangle 0 0 0 1 0 0 0 1 0", {"a": [0, 0, 0], "b": [1, 0, 0], "c": [0, 1, 0]}),
    "Polygon": ("Polygon 4 0 0 0 1 0 0 1 1 0 0 1 0", {"vertices": [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]}),
    "Sphere": ("Sphere 0 0 1 0.5", {"center": [0, 0, 1], "radius": 0.5}),
    "Ellipsoid": ("Ellipsoid 0 0 0 1 0 0 0 1 0 0 0 1 1 2 3",
                  {"center": [0, 0, 0], "xaxis": [1, 0, 0], "yaxis": [0, 1, 0], "zaxis": [0, 0, 1], "dims": [1, 2, 3]}),
    "Cylinder": ("Cylinder 0 0 0 0 0 1 0.25 2", {"center": [0, 0, 0], "axis": [0, 0, 1], "radius": 0.25, "height": 2}),
    "AABB": ("AABB -1 -2 -3 1 2 3", {"bmin": [-1, -2, -3], "bmax": [1, 2, 3]}),
    "Box": ("Box 0 0 0 0 1 0 -1 0 0 0 0 1 1 2 3",
            {"origin": [0, 0, 0], "xaxis": [0, 1, 0], "yaxis": [-1, 0, 0], "zaxis": [0, 0, 1], "dims": [1, 2, 3]}),
}


@pytest.mark.parametrize("kind", sorted(PRIMS))
@pytest.mark.parametrize("header", ["", "Primitive\n"])
def test_geom_every_kind_with_and_without_header(tmp_path, kind, header):
    text, params = PRIMS[kind]
    p = roboio.load(write(tmp_path, "p.geom", header + text))
    assert isinstance(p, Primitive) and p.primitive == kind
    for k, v in params.items():
        assert np.array_equal(p.params[k], np.asarray(v, float)), k


@pytest.mark.parametrize("kind", sorted(PRIMS))
def test_geom_write_round_trip_header_less_and_legacy(tmp_path, kind):
    p = roboio.load(write(tmp_path, "p.geom", PRIMS[kind][0]))
    out = str(tmp_path / "o.geom")
    roboio.save(p, out)
    text = Path(out).read_text()
    assert text.startswith(kind + " ") and not text.endswith("\n")
    q = roboio.load(out)
    assert all(np.array_equal(q.params[k], p.params[k]) for k in p.params)
    roboio.save(p, out, format="klampt-geom-legacy")
    assert Path(out).read_text().startswith("Primitive\n" + kind)
    assert roboio.load(out).primitive == kind


def test_geom_writer_style_matches_klampt():
    assert primitive_text(Primitive("Sphere", {"center": [0, 0, 0], "radius": 0.5})) == "Sphere 0 0 0  0.5"
    assert primitive_text(Primitive("Cylinder", {"center": [0, 0, 0], "axis": [0, 0, 1], "radius": 0.5,
                                                 "height": 2})) == "Cylinder 0 0 0  0 0 1  0.5  2"


@pytest.mark.parametrize("text, what", [
    ("sphere 0 0 0 1", "unknown primitive type 'sphere'"),
    ("Sphere 0 0 0", "expected Sphere radius, found the end"),
    ("Sphere 0 0 inf 1", "expected Sphere center"),
    ("Polygon -1", "negative polygon vertex count"),
    ("Primitive\n", "expected a primitive type after 'Primitive'"),
])
def test_geom_errors(tmp_path, text, what):
    path = write(tmp_path, "bad.geom", text)
    with pytest.raises(FormatError) as e:
        roboio.load(path)
    assert str(e.value).startswith(path + ":") and what in str(e.value), str(e.value)


def test_geom_trailing_text_warns(tmp_path):
    with pytest.warns(roboio.RoboioWarning, match="text after the primitive"):
        roboio.load(write(tmp_path, "p.geom", "Point 1 2 3 junk"))


def test_geom_writer_bakes_transform():
    s = Primitive("Sphere", {"center": [1, 0, 0], "radius": 0.5})
    T = np.eye(4)
    T[:3, :3] = 2 * np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    T[:3, 3] = [0, 0, 5]
    b = bake_primitive(s, T)
    assert np.allclose(b.params["center"], [0, 2, 5]) and b.params["radius"] == 1.0
    box = bake_primitive(Primitive("AABB", {"bmin": [0, 0, 0], "bmax": [1, 2, 3]}), T)
    assert box.primitive == "Box" and np.allclose(box.params["dims"], [2, 4, 6])
    assert np.allclose(box.params["xaxis"], [0, 1, 0])
    assert bake_primitive(s, np.diag([1.0, 2.0, 1.0, 1.0])) is None


def test_geom_writer_refuses_non_uniform_scale(tmp_path):
    s = Primitive("Sphere", {"center": [0, 0, 0], "radius": 1.0})
    s.transform = np.diag([1.0, 2.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="non-uniform scale"):
        roboio.save(s, str(tmp_path / "s.geom"))


# ------------------------------------------------------------------- streams and .group

def test_inline_geometry_streams():
    ctx = LoadContext("robot.rob")
    g = parse_stream("Group 2 Primitive Point 0 0 0 Primitive Sphere 0 0 1 0.1", ctx, line=4)
    assert isinstance(g, Group) and [c.primitive for c in g.children] == ["Point", "Sphere"]
    m = parse_stream(r"TriangleMesh OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2", ctx)
    assert m.faces.tolist() == [[0, 1, 2]]
    m = parse_stream("TriangleMesh 3 0 0 0 1 0 0 0 1 0 1 0 1 2", ctx)
    assert m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]


@pytest.mark.parametrize("text, what", [
    ("Primitive Sphre 0 0 0 1", "unknown primitive type 'Sphre'"),
    ("Mesh 1", "unknown geometry type 'Mesh'"),
    ("Heightmap 1 2", "not supported"),
    ("Primitive Point 0 0 0 more", "unexpected 'more'"),
    ("TriangleMesh 3 0 0 0 1 0 0 0 1 0 1 0 1 5", "out of range"),
])
def test_inline_geometry_errors_are_located_at_the_referring_line(text, what):
    with pytest.raises(FormatError) as e:
        parse_stream(text, LoadContext("robot.rob"), line=12)
    assert str(e.value).startswith("robot.rob:12:") and what in str(e.value), str(e.value)


def test_inline_geometry_through_the_registry_reference():
    ctx = LoadContext("robot.rob")
    g = loading.load_geometry_ref("{Primitive Sphere 0 0 0 0.25}", "robot.rob", ctx, line=3)
    assert g.primitive == "Sphere" and g.params["radius"] == 0.25 and g.source.format == "inline"


KLAMPT_GROUP = ("2\nPrimitive\nSphere 0 0 0  1TriangleMesh\n3\n0 0 0\n1 0 0\n0 1 0\n1\n0 1 2\n\n")


def test_group_file_with_number_glued_to_type_name(tmp_path):
    g = roboio.load(write(tmp_path, "k.group", KLAMPT_GROUP))
    assert isinstance(g, Group) and len(g.children) == 2
    assert g.children[0].params["radius"] == 1.0
    assert g.children[1].faces.tolist() == [[0, 1, 2]]


def test_group_with_point_cloud_and_nested_group_round_trips(tmp_path):
    pc = PointCloud([[1, 2, 3], [4, 5, 6]], {"x": [1, 4], "y": [2, 5], "z": [3, 6], "rgb": [7, 8]})
    mesh = TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    mesh.transform = np.diag([2.0, 2.0, 2.0, 1.0])
    inner = Group([Primitive("AABB", {"bmin": [0, 0, 0], "bmax": [1, 1, 1]})])
    inner.transform = np.eye(4)
    inner.transform[:3, 3] = [10, 0, 0]
    out = str(tmp_path / "g.group")
    report = roboio.save(Group([pc, mesh, inner]), out)
    assert report.lossless, report.lost
    text = Path(out).read_text()
    assert text.startswith("3\nPointCloud\n") and "\nTriangleMesh\n" in text
    back = roboio.load(out)
    assert np.array_equal(back.children[0].points, pc.points)
    assert back.children[0].fields["rgb"].tolist() == [7, 8]
    assert back.children[1].vertices.tolist() == [[0, 0, 0], [2, 0, 0], [0, 2, 0]]
    assert back.children[2].children[0].params["bmin"].tolist() == [10, 0, 0]


def test_group_writer_tessellates_a_primitive_it_cannot_transform(tmp_path):
    s = Primitive("Sphere", {"center": [0, 0, 0], "radius": 1.0})
    s.transform = np.diag([1.0, 2.0, 1.0, 1.0])
    out = str(tmp_path / "g.group")
    report = roboio.save(Group([s]), out)
    assert any("approximation" in x for x in report.lost)
    back = roboio.load(out)
    assert isinstance(back.children[0], TriangleMesh)
    assert np.allclose(back.children[0].bounds(), [[-1, -2, -1], [1, 2, 1]])


@pytest.mark.parametrize("text, where, what", [
    ("2\nPrimitive\nPoint 0 0 0\n", ":4:", "expected a geometry type"),
    ("x\n", ":1:1:", "number of group elements"),
    ("1\nTriangleMesh\n3\n0 0 0\n1 0 0\n0 1 0\n1\n0 1 9\n", ":8:5:", "out of range"),
])
def test_group_errors(tmp_path, text, where, what):
    path = write(tmp_path, "bad.group", text)
    with pytest.raises(FormatError) as e:
        roboio.load(path)
    assert str(e.value).startswith(path + where) and what in str(e.value), str(e.value)
