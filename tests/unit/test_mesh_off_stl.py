"""OFF and STL readers/writers on small hand-written files (expected values worked by hand)."""
import struct
import warnings

from pathlib import Path

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.context import LoadContext
from roboio.formats import loading, registry
from roboio.model import Group, Primitive, TriangleMesh


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return str(p)


def load_lazy(path):
    """Read through the registry like a robot reference does (no eager touch)."""
    return loading.read_file(path, LoadContext(path), kinds=("geometry",))


# ---------------------------------------------------------------------------------- OFF

SQUARE = "OFF\n4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n"


def test_off_polygon_is_fan_triangulated(tmp_path):
    m = roboio.load(write(tmp_path, "sq.off", SQUARE))
    assert m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]
    assert m.faces.tolist() == [[0, 1, 2], [0, 2, 3]]
    assert m.face_colors is None


def test_off_counts_on_header_line_comments_blank_lines_and_trailing_text(tmp_path):
    text = ("OFF 3 1 0\n# a comment\n\n0 0 0 9 9 9\n# another\n1 0 0\n"
            "0 1 0\n\n3 2 1 0\nthis text after the last face is ignored\n")
    m = roboio.load(write(tmp_path, "c.off", text))
    assert m.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    assert m.faces.tolist() == [[2, 1, 0]]


def test_off_crlf_and_exponents(tmp_path):
    text = "OFF\r\n3 1 0\r\n1e-3 -2.5E+1 .5\r\n1 0 0\r\n0 1 0\r\n3 0 1 2\r\n"
    m = roboio.load(write(tmp_path, "crlf.off", text))
    assert m.vertices[0].tolist() == [0.001, -25.0, 0.5]


def test_off_face_colours_divided_by_255(tmp_path):
    text = "OFF\n4 2 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2 255 0 51\n3 0 2 3 0 255 0\n"
    m = roboio.load(write(tmp_path, "col.off", text))
    assert np.allclose(m.face_colors, [[1, 0, 0.2, 1], [0, 1, 0, 1]])


def test_off_polygon_colour_repeats_per_triangle_and_mixed_faces_take_next_colour(tmp_path):
    text = "OFF\n4 3 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n4 0 1 2 3 0 0 255\n3 1 2 3\n"
    m = roboio.load(write(tmp_path, "mixed.off", text))
    assert m.faces.tolist() == [[0, 1, 2], [0, 1, 2], [0, 2, 3], [1, 2, 3]]
    assert np.allclose(m.face_colors[:, 2], 1) and np.allclose(m.face_colors[:, :2], 0)


def test_off_block_path_equals_line_path(tmp_path):
    """The same mesh parsed through the contiguous fast path and through the per-line path
    (a comment line between data lines forces the latter) gives identical arrays."""
    rng = np.random.default_rng(1)
    v = rng.normal(size=(50, 3))
    f = rng.integers(0, 50, size=(80, 3))
    lines = (["OFF", "50 80 0"] + [" ".join(repr(x) for x in r) for r in v.tolist()]
             + ["3 " + " ".join(map(str, r)) for r in f.tolist()])
    plain = roboio.load(write(tmp_path, "a.off", "\n".join(lines) + "\n"))
    lines.insert(30, "# comment in the middle")
    lines.insert(80, "# comment among the faces")
    commented = roboio.load(write(tmp_path, "b.off", "\n".join(lines) + "\n"))
    assert np.array_equal(plain.vertices, v) and np.array_equal(plain.faces, f)
    assert np.array_equal(commented.vertices, v) and np.array_equal(commented.faces, f)


@pytest.mark.parametrize("text, where, what", [
    ("COFF\n3 1 0\n", ":1:1:", "first word must be 'OFF'"),
    ("OFF\n3 1 0\n0 0 0\n1 x 0\n0 1 0\n3 0 1 2\n", ":4:3:", "expected a vertex coordinate, found 'x'"),
    ("OFF\n3 1 0\n0 0 0\n1 0\n0 1 0\n3 0 1 2\n", ":4:", "needs 3 numbers"),
    ("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", ":6:", "vertex index 3 out of range"),
    ("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 -1 2\n", ":6:", "vertex index -1 out of range"),
    ("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n4 0 1 2\n", ":6:", "lists 4 vertices but has only 3"),
    ("OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", ":7:", "expected 2 face lines"),
    ("OFF\n5 0 0\n0 0 0\n", ":4:", "expected 5 vertex lines"),
    ("OFF\nthree 1 0\n", ":2:1:", "integer count"),
    ("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1.5 2\n", ":6:5:", "expected an integer"),
    ("OFF\n", ":2:", "counts line"),
])
def test_off_errors_name_file_and_line(tmp_path, text, where, what):
    path = write(tmp_path, "bad.off", text)
    with pytest.raises(FormatError) as e:
        roboio.load(path)
    assert str(e.value).startswith(path + where), str(e.value)
    assert what in str(e.value)


def test_off_is_lazy_and_bad_content_fails_on_access(tmp_path):
    path = write(tmp_path, "lazy.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n")
    m = load_lazy(path)
    assert isinstance(m, TriangleMesh) and not m.is_loaded and m.mesh_count() == (1, 1)
    with pytest.raises(FormatError, match="out of range"):
        m.vertices


def test_off_lazy_copies_parse_independently(tmp_path):
    m = load_lazy(write(tmp_path, "sq.off", SQUARE))
    c = m.copy()
    c.vertices[0, 0] = 42.0
    assert m.vertices[0, 0] == 0.0 and c.vertices[0, 0] == 42.0


def test_off_header_checked_at_read_time(tmp_path):
    with pytest.raises(FormatError, match="first word must be 'OFF'"):
        load_lazy(write(tmp_path, "x.off", "ply\nformat ascii 1.0\n"))


def test_off_write_round_trip_is_exact(tmp_path):
    rng = np.random.default_rng(7)
    v = rng.normal(size=(30, 3)) * 10.0 ** rng.integers(-8, 8, size=(30, 1))
    v[0] = [0.1, 1 / 3, -0.0]
    f = rng.integers(0, 30, size=(40, 3))
    cols = np.ones((40, 4))
    cols[:, :3] = rng.integers(0, 256, size=(40, 3)) / 255.0
    mesh = TriangleMesh(v, f, face_colors=cols)
    out = str(tmp_path / "out.off")
    report = roboio.save(mesh, out)
    assert report.lossless, report.lost
    back = roboio.load(out)
    assert np.array_equal(back.vertices, v) and np.array_equal(back.faces, f)
    assert np.array_equal(back.face_colors, cols)
    assert Path(out).read_text().splitlines()[2 + 30].startswith("3  ")


def test_off_writer_reports_what_it_cannot_keep(tmp_path):
    mesh = TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]],
                        face_colors=[[0.3, 0.2, 0.1, 0.5]], vertex_colors=np.ones((3, 4)))
    report = roboio.save(mesh, str(tmp_path / "o.off"))
    text = " ".join(report.lost)
    assert "1/255" in text and "alpha" in text and "per-vertex colours" in text


def test_off_writer_bakes_transform_and_flattens_groups(tmp_path):
    a = TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    b = a.copy()
    T = np.diag([2.0, 3.0, 4.0, 1.0])
    T[:3, 3] = [1, 0, 0]
    b.transform = T
    g = Group([a, b])
    g.transform = np.diag([1.0, 1.0, -1.0, 1.0])        # a mirror: winding must flip
    out = str(tmp_path / "g.off")
    report = roboio.save(g, out)
    back = roboio.load(out)
    assert back.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 0, 0], [3, 0, 0], [1, 3, 0]]
    assert back.faces.tolist() == [[2, 1, 0], [5, 4, 3]]
    assert any("group structure" in x for x in report.lost)


def test_off_writer_tessellates_primitives_with_report(tmp_path):
    out = str(tmp_path / "box.off")
    report = roboio.save(Primitive("AABB", {"bmin": [0, 0, 0], "bmax": [1, 2, 3]}), out)
    back = roboio.load(out)
    assert len(back.faces) == 12 and back.bounds().tolist() == [[0, 0, 0], [1, 2, 3]]
    assert any("AABB primitive" in x for x in report.lost)
    report = roboio.save(Primitive("Sphere", {"center": [0, 0, 0], "radius": 1.0}), out)
    assert any("approximation" in x for x in report.lost)


# ---------------------------------------------------------------------------------- STL

def binary_stl(tris, header=b"x" * 80, count=None, extra=b""):
    tris = np.asarray(tris, dtype="<f4").reshape(-1, 3, 3)
    body = b"".join(struct.pack("<3f", 0, 0, 1) + t.tobytes() + b"\0\0" for t in tris)
    return header + struct.pack("<I", len(tris) if count is None else count) + body + extra


TRIS = [[[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 0, 1], [1, 0, 1], [0.5, 0.25, 1]]]


@pytest.mark.parametrize("name", ["m.stl", "m.STL"])
def test_stl_binary_keeps_three_vertices_per_triangle(tmp_path, name):
    m = roboio.load(write(tmp_path, name, binary_stl(TRIS)))
    assert m.vertices.tolist() == [p for t in TRIS for p in t]
    assert m.faces.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_stl_binary_with_solid_header_is_binary_when_size_matches(tmp_path):
    m = roboio.load(write(tmp_path, "s.stl", binary_stl(TRIS, header=b"solid exported".ljust(80))))
    assert len(m.faces) == 2


def test_stl_truncated_binary_fails_at_read_time_naming_the_byte(tmp_path):
    data = binary_stl(TRIS)[:-7]
    path = write(tmp_path, "t.stl", data)
    with pytest.raises(FormatError) as e:
        load_lazy(path)
    assert f"byte {len(data)}" in str(e.value) and "announces 2 triangles" in str(e.value)


def test_stl_trailing_bytes_warn(tmp_path):
    path = write(tmp_path, "tail.stl", binary_stl(TRIS, extra=b"\0" * 5))
    with pytest.warns(roboio.RoboioWarning, match="5 bytes after the last"):
        m = roboio.load(path)
    assert len(m.faces) == 2
    with pytest.raises(FormatError, match="5 bytes after"):
        roboio.load(path, strict=True)


ASCII = """solid test
  facet normal 0 0 1
    outer loop
      vertex 0 0 0
      vertex 1 0 0
      vertex 0 1 0
    endloop
  endfacet
  facet normal 0 0 1
    outer loop
      vertex 0 0 1
      vertex 1 0 1
      vertex 0.5 0.25 1
    endloop
  endfacet
endsolid test
"""


def test_stl_ascii_fast_and_token_paths_agree(tmp_path):
    m = roboio.load(write(tmp_path, "a.stl", ASCII))
    assert m.vertices.tolist() == [p for t in TRIS for p in t]
    upper = ASCII.upper().replace("SOLID TEST", "solid test", 1)     # forces the token path
    two = ASCII + ASCII.replace("test", "second")                     # two solids
    assert roboio.load(write(tmp_path, "b.stl", upper)).vertices.tolist() == m.vertices.tolist()
    assert len(roboio.load(write(tmp_path, "c.stl", two)).faces) == 4


@pytest.mark.parametrize("old, new, where, what", [
    ("vertex 1 0 0", "vertex 1 zero 0", ":5:16:", "expected a number"),
    ("      vertex 0 1 0\n", "      vertex 0 1 0\n      vertex 1 1 0\n", ":7:7:", "more than 3 vertices"),
    ("endsolid test\n", "", ":16:", "found the end of the file"),
    ("outer loop", "outer lop", ":3:11:", "expected 'loop'"),
])
def test_stl_ascii_errors(tmp_path, old, new, where, what):
    path = write(tmp_path, "bad.stl", ASCII.replace(old, new, 1))
    with pytest.raises(FormatError) as e:
        roboio.load(path)
    assert str(e.value).startswith(path + where) and what in str(e.value), str(e.value)


def test_stl_write_round_trip(tmp_path):
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    f = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    out = str(tmp_path / "tet.STL")
    report = roboio.save(TriangleMesh(v, f), out)
    assert not report.lost
    back = roboio.load(out)
    assert np.array_equal(back.vertices, v[f].reshape(-1, 3))
    data = Path(out).read_bytes()
    assert len(data) == 84 + 50 * 4
    normals = np.frombuffer(data[84:], dtype=[("n", "<f4", 3), ("v", "<f4", 9), ("a", "<u2")])["n"]
    assert np.allclose(normals[0], [0, 0, -1])
    report = roboio.save(TriangleMesh(v + 0.1, f), out)
    assert any("32-bit" in x for x in report.lost)


def test_stl_sniffed_without_extension(tmp_path):
    path = write(tmp_path, "mesh.bin", binary_stl(TRIS))
    assert registry.find_reader(path).name == "stl"
    path = write(tmp_path, "ascii_mesh", ASCII)
    assert registry.find_reader(path).name == "stl"
