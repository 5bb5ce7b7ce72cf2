"""roboio's mesh readers and writers against the real klampt package.

Klamp't loads OFF through Assimp, which merges identical vertices and drops triangles with
two equal corners, and stores coordinates as float32. So the comparison is: the same
bounds (to float32 precision) and the same number of triangles once roboio's triangles
with two float32-equal corners are discounted.
"""
import glob
import os

import numpy as np
import pytest

import roboio
from roboio.model import TriangleMesh

from conftest import CORPUS

klampt = pytest.importorskip("klampt")


def klampt_mesh(path):
    g = klampt.Geometry3D()
    assert g.loadFile(path), path
    m = g.getTriangleMesh()
    # copy while g is alive: klampt's arrays are views into its memory
    return np.array(m.vertices, dtype=float), np.array(m.indices)


def assimp_triangle_count(m: TriangleMesh) -> int:
    c = m.vertices[m.faces].astype(np.float32)
    degenerate = (np.all(c[:, 0] == c[:, 1], axis=1) | np.all(c[:, 1] == c[:, 2], axis=1)
                  | np.all(c[:, 0] == c[:, 2], axis=1))
    return int(len(m.faces) - degenerate.sum())


def close_bounds(a, b):
    scale = max(1.0, float(np.abs(b).max()))
    return np.abs(np.asarray(a) - np.asarray(b)).max() <= 2e-7 * scale


def test_every_klampt_off_file_agrees_with_klampt():
    if not os.path.isdir(CORPUS):
        pytest.skip("corpus absent")
    files = sorted(glob.glob(os.path.join(CORPUS, "klampt", "**", "*.off"), recursive=True))
    for path in files:
        m = roboio.load(path)
        kv, kf = klampt_mesh(path)
        assert len(kf) == assimp_triangle_count(m), path
        assert close_bounds(m.bounds(), [kv.min(0), kv.max(0)]), path


def test_off_written_by_roboio_reads_back_in_klampt(tmp_path):
    rng = np.random.default_rng(3)
    v = rng.normal(size=(40, 3))
    f = np.array([[i, (i + 1) % 40, (i + 7) % 40] for i in range(40)])
    out = str(tmp_path / "w.off")
    roboio.save(TriangleMesh(v, f), out)
    kv, kf = klampt_mesh(out)
    # Assimp merges vertices and parses numbers to float32 with its own (not correctly
    # rounded) atof: compare the triangles as corner positions, to float32 precision
    assert kf.shape == f.shape
    assert np.allclose(kv[kf], v[f], rtol=1e-6, atol=1e-7)


def test_tri_corpus_files_equal_klampt():
    files = sorted(glob.glob(os.path.join(CORPUS, "klampt", "**", "*.tri"), recursive=True))
    if not files:
        pytest.skip("corpus absent")
    for path in files:
        m = roboio.load(path)
        kv, kf = klampt_mesh(path)          # Klamp't's native .tri reader: no merging
        assert np.array_equal(kf, m.faces), path
        assert np.allclose(kv, m.vertices, rtol=0, atol=1e-12), path


def test_geom_corpus_files_equal_klampt():
    for name, kind in (("cube.geom", "AABB"), ("sphere.geom", "Sphere")):
        path = os.path.join(CORPUS, "klampt", "objects", name)
        if not os.path.exists(path):
            pytest.skip("corpus absent")
        p = roboio.load(path)
        g = klampt.Geometry3D()
        assert g.loadFile(path)
        assert p.primitive == kind and g.getGeometricPrimitive().saveString().split()[0] == kind
        assert np.allclose(p.bounds(), g.getBB())


GEOMS = ["Point 1 2 3", "Segment 0 0 0 1 1 1", "Triangle 0 0 0 1 0 0 0 1 0",
         "Polygon 3 0 0 0 1 0 0 0 1 0", "Sphere 0 0 1 0.5", "Cylinder 0 0 0 0 0 1 0.25 2",
         "AABB -1 -2 -3 1 2 3", "Box 0 0 0 0 1 0 -1 0 0 0 0 1 1 2 3"]


@pytest.mark.parametrize("text", GEOMS)
def test_geom_written_by_roboio_reads_back_in_klampt(tmp_path, text):
    src = tmp_path / "src.geom"
    src.write_text(text)
    p = roboio.load(str(src))
    # header-less form: what Klamp't writes and master reads; the string API reads it too
    out = str(tmp_path / "out.geom")
    roboio.save(p, out)
    kp = klampt.GeometricPrimitive()
    with open(out) as f:
        assert kp.loadString(f.read())
    # Klamp't 0.10.1's file loader needs the legacy header
    roboio.save(p, out, format="klampt-geom-legacy")
    g = klampt.Geometry3D()
    assert g.loadFile(out)
    assert np.allclose(g.getBB(), klampt.Geometry3D(kp).getBB())
    assert kp.saveString().split()[0] == text.split()[0]
    if text.split()[0] != "Cylinder":        # Primitive.bounds() is a loose box for cylinders
        assert np.allclose(g.getBB(), p.bounds())


def test_tri_written_by_roboio_reads_back_in_klampt(tmp_path):
    rng = np.random.default_rng(4)
    v, f = rng.normal(size=(12, 3)), rng.integers(0, 12, size=(20, 3))
    out = str(tmp_path / "w.tri")
    roboio.save(TriangleMesh(v, f), out)
    kv, kf = klampt_mesh(out)
    assert np.array_equal(kf, f) and np.array_equal(kv, v)


def test_pcd_written_by_roboio_reads_back_in_klampt(tmp_path):
    from roboio.model import PointCloud
    rng = np.random.default_rng(6)
    pts = rng.normal(size=(15, 3))
    fields = {"x": pts[:, 0], "y": pts[:, 1], "z": pts[:, 2], "rgb": rng.integers(0, 2 ** 24, 15).astype(float)}
    out = str(tmp_path / "w.pcd")
    roboio.save(PointCloud(pts, fields), out)
    g = klampt.Geometry3D()
    assert g.loadFile(out)
    pc = g.getPointCloud()
    assert np.array_equal(np.array(pc.points), pts)
    names = [pc.getPropertyName(i) for i in range(pc.numProperties())]
    assert names == list(fields)
    assert np.array_equal(np.array(pc.properties)[:, 3], fields["rgb"])


def test_klampt_written_group_and_pcd_read_by_roboio(tmp_path):
    p = klampt.GeometricPrimitive()
    p.setSphere([0, 0, 0], 1)
    m = klampt.TriangleMesh()
    m.setVertices(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], float))
    m.setIndices(np.array([[0, 1, 2]], np.int32))
    g = klampt.Geometry3D()
    g.setGroup()
    g.setElement(0, klampt.Geometry3D(p))
    g.setElement(1, klampt.Geometry3D(m))
    out = str(tmp_path / "k.group")
    assert g.saveFile(out)
    with open(out) as f:
        assert "1TriangleMesh" in f.read()             # Klamp't's missing separator
    back = roboio.load(out)
    assert back.children[0].primitive == "Sphere" and back.children[0].params["radius"] == 1
    assert back.children[1].faces.tolist() == [[0, 1, 2]]
    pc = klampt.PointCloud()
    pc.setPoints(np.array([[1, 2, 3], [4, 5, 6]], float))
    pc.addProperty("rgb", np.array([46003.0, 7.0]))
    out = str(tmp_path / "k.pcd")
    assert klampt.Geometry3D(pc).saveFile(out)
    back = roboio.load(out)
    assert back.points.tolist() == [[1, 2, 3], [4, 5, 6]] and back.fields["rgb"].tolist() == [46003, 7]


@pytest.mark.parametrize("ext", ["stl", "obj", "ply", "off"])
def test_meshes_written_by_roboio_read_back_by_klampt(tmp_path, ext):
    rng = np.random.default_rng(8)
    v = rng.normal(size=(30, 3)).astype(np.float32).astype(float)     # STL stores float32
    f = np.array([[i, (i + 3) % 30, (i + 11) % 30] for i in range(30)])
    out = str(tmp_path / f"w.{ext}")
    roboio.save(TriangleMesh(v, f), out)
    kv, kf = klampt_mesh(out)
    assert kf.shape == f.shape, ext
    assert np.allclose(kv[kf], v[f], rtol=1e-6, atol=1e-7), ext


# Assimp (inside Klamp't 0.10.1) applies COLLADA's <up_axis> (turning the file to Assimp's
# Y-up: Z_UP gives (x, y, z) -> (x, z, -y)) and <unit meter>; roboio does not (spec §8.1
# says Klamp't ignores both), so the comparison turns roboio's bounds the same way. Every
# corpus .dae file is Z_UP with unit 1.
Z_UP_TO_ASSIMP = np.array([[1.0, 0, 0], [0, 0, 1], [0, -1, 0]])


def klampt_summary(path):
    """(type, bounds, triangles or None, Group elements or None); a Group's elements are not
    read (Geometry3D.getElement crashes on a Group loaded from a mesh file)."""
    g = klampt.Geometry3D()
    assert g.loadFile(path), path
    bounds = np.array(g.getBB())
    if g.type() == "Group":
        return "Group", bounds, None, g.numElements()
    assert g.type() == "TriangleMesh", path
    return "TriangleMesh", bounds, len(g.getTriangleMesh().indices), None


def corpus_meshes(eco, pattern):
    files = sorted(glob.glob(os.path.join(CORPUS, eco, "**", pattern), recursive=True))
    if not files:
        pytest.skip("corpus absent")
    return files


@pytest.mark.parametrize("eco, pattern", [("klampt", "*.dae"), ("choreonoid", "*.obj")])
@pytest.mark.filterwarnings("ignore::roboio.RoboioWarning")
def test_collada_and_wavefront_corpus_files_agree_with_klampt(eco, pattern):
    for path in corpus_meshes(eco, pattern):
        m = roboio.load(path)
        kind, kb, ktris, kparts = klampt_summary(path)
        v = m.vertices @ Z_UP_TO_ASSIMP.T if path.endswith(".dae") else m.vertices
        assert close_bounds([v.min(0), v.max(0)], kb), path
        parts = m.extras.get("parts")
        if kind == "Group":                       # one Assimp mesh per part
            assert parts is not None and len(parts) == kparts, path
        else:
            assert parts is None and ktris == assimp_triangle_count(m), path


def test_hand_written_obj_parts_are_klampt_group_elements(tmp_path):
    (tmp_path / "c.mtl").write_text("newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\n")
    v = "mtllib c.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\n"
    for body in ("o a\nf 1 2 3 4 5\ng b\nf 5 4 3\nf 1 2 5\no c\ng d\nf 1 3 5\n",
                 "usemtl red\nf 1 2 3\nusemtl blue\nf 1 2 4\nusemtl red\nf 2 3 4\nf 1 3 5\n",
                 "g a\nusemtl red\nf 1 2 3\nusemtl blue\nf 1 2 4\ng b\nf 2 3 4\n"):
        path = str(tmp_path / "m.obj")
        with open(path, "w") as f:
            f.write(v + body)
        m = roboio.load(path)
        kind, kb, _, kparts = klampt_summary(path)
        assert kind == "Group" and len(m.extras["parts"]) == kparts, body
        used = m.vertices[np.unique(m.faces)]        # Assimp drops vertices no face uses
        assert close_bounds([used.min(0), used.max(0)], kb), body


def test_collada_unit_and_up_axis_are_what_separates_roboio_from_klampt(tmp_path):
    dae = ('<?xml version="1.0"?><COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" '
           'version="1.4.1"><asset><unit meter="0.01"/><up_axis>X_UP</up_axis></asset><library_geometries>'
           '<geometry id="t"><mesh><source id="p"><float_array id="a" count="9">1 2 3 4 5 6 7 8 10</float_array>'
           '<technique_common><accessor source="#a" count="3" stride="3"><param name="X" type="float"/>'
           '<param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>'
           '<vertices id="v"><input semantic="POSITION" source="#p"/></vertices><triangles count="1">'
           '<input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles></mesh></geometry>'
           '</library_geometries><library_visual_scenes><visual_scene id="s"><node id="n">'
           '<instance_geometry url="#t"/></node></visual_scene></library_visual_scenes>'
           '<scene><instance_visual_scene url="#s"/></scene></COLLADA>')
    path = tmp_path / "u.dae"
    path.write_text(dae)
    with pytest.warns(roboio.RoboioWarning, match="is not applied"):
        m = roboio.load(str(path))
    assert m.vertices.tolist() == [[1, 2, 3], [4, 5, 6], [7, 8, 10]]        # the file's numbers
    g = klampt.Geometry3D()
    assert g.loadFile(str(path))
    kv = np.array(g.getTriangleMesh().vertices, dtype=float)
    # Klamp't: scaled by 0.01 and X_UP turned to Y-up, (x, y, z) -> (-y, x, z)
    assert np.allclose(kv, 0.01 * np.array([[-2, 1, 3], [-5, 4, 6], [-8, 7, 10]]), rtol=1e-6)
