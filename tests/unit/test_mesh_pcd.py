"""PCD point clouds: ascii and binary, COUNT expansion, the rgb packing rule, and errors
when header and data disagree (hand-written files, hand-worked values)."""
import struct
from pathlib import Path

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.model import PointCloud, TriangleMesh

KLAMPT_WRITTEN = """# .PCD v0.7 - Point Cloud Data file format
VERSION 0.7
FIELDS x y z rgb
TYPE F F F F
POINTS 2
DATA ascii
1 2 3 46003 
4 5 6 16711680 
"""


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(p)


def test_klampt_written_pcd_integer_rgb_kept(tmp_path):
    pc = roboio.load(write(tmp_path, "k.pcd", KLAMPT_WRITTEN))
    assert isinstance(pc, PointCloud)
    assert pc.points.tolist() == [[1, 2, 3], [4, 5, 6]]
    assert list(pc.fields) == ["x", "y", "z", "rgb"]
    assert pc.fields["rgb"].tolist() == [46003, 16711680]          # no value in (0,1): no cast
    assert pc.settings == {"version": "0.7"}


def test_packed_float_rgb_is_reinterpreted_as_int32(tmp_path):
    # 0x00FF8000 (orange) as a float32 is a tiny positive number: the PCL packing
    packed = struct.unpack("<f", struct.pack("<I", 0x00FF8000))[0]
    text = KLAMPT_WRITTEN.replace("46003", repr(packed)).replace("16711680", "0.5")
    pc = roboio.load(write(tmp_path, "p.pcd", text))
    assert pc.fields["rgb"].tolist() == [0x00FF8000, 0x3F000000]   # 0.5f has bits 0x3F000000


def test_xyz_only_has_no_fields_and_settings_are_kept(tmp_path):
    text = ("# comment line\nVERSION .7\nFIELDS x y z # trailing comment\nSIZE 4 4 4\nTYPE F F F\n"
            "COUNT 1 1 1\nWIDTH 2\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 2\nDATA ascii\n"
            "0.5 -1e-3 inf\n1   2  3\n")
    pc = roboio.load(write(tmp_path, "xyz.pcd", text))
    assert pc.fields == {}
    assert pc.points.tolist() == [[0.5, -0.001, float("inf")], [1, 2, 3]]
    assert pc.settings == {"version": ".7", "width": "2", "height": "1", "viewpoint": "0 0 0 1 0 0 0"}


def test_count_expands_fields_in_file_order(tmp_path):
    text = ("VERSION 0.7\nFIELDS x y z normal\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 3\n"
            "POINTS 1\nDATA ascii\n0 0 0 0.1 0.2 0.3\n")
    pc = roboio.load(write(tmp_path, "n.pcd", text))
    assert list(pc.fields) == ["x", "y", "z", "normal_0", "normal_1", "normal_2"]
    assert pc.fields["normal_1"].tolist() == [0.2]


def binary_pcd(header_fields, records: bytes, points: int, extra=b""):
    return ("VERSION 0.7\n" + header_fields + f"POINTS {points}\nDATA binary\n").encode() + records + extra


BIN_FIELDS = "FIELDS x y z intensity label\nSIZE 4 4 8 2 1\nTYPE F F F U I\nCOUNT 1 1 1 1 1\n"
BIN_REC = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f8"), ("i", "<u2"), ("l", "u1")])


def bin_records():
    r = np.zeros(2, BIN_REC)
    r["x"], r["y"], r["z"] = [1.5, -2], [0.25, 3], [1 / 3, 7]
    r["i"], r["l"] = [65535, 2], [255, 1]        # label 255 as I1: no sign extension -> 255
    return r.tobytes()


def test_binary_fields_types_and_sizes(tmp_path):
    pc = roboio.load(write(tmp_path, "b.pcd", binary_pcd(BIN_FIELDS, bin_records(), 2)))
    assert pc.points.tolist() == [[1.5, 0.25, 1 / 3], [-2, 3, 7]]
    assert pc.fields["intensity"].tolist() == [65535, 2]
    assert pc.fields["label"].tolist() == [255, 1]


def test_binary_trailing_bytes_warn_and_truncation_fails(tmp_path):
    path = write(tmp_path, "t.pcd", binary_pcd(BIN_FIELDS, bin_records(), 2, extra=b"\0\0\0"))
    with pytest.warns(roboio.RoboioWarning, match="3 bytes after the binary point data"):
        assert len(roboio.load(path).points) == 2
    data = binary_pcd(BIN_FIELDS, bin_records()[:-4], 2)
    path = write(tmp_path, "short.pcd", data)
    with pytest.raises(FormatError, match=f"byte {len(data)}: truncated binary PCD"):
        roboio.load(path)


@pytest.mark.parametrize("text, where, what", [
    (KLAMPT_WRITTEN.replace("4 5 6", "4\t5 6"), ":8:", "TAB between values"),
    (KLAMPT_WRITTEN.replace("1 2 3 46003 ", "1 2 46003"), ":7:", "has 3 values but the header declares 4"),
    (KLAMPT_WRITTEN.replace("POINTS 2", "POINTS 3"), ":9:", "POINTS says 3 points but the data has only 2"),
    (KLAMPT_WRITTEN + "7 8 9 1\n", ":9:", "1 more data line"),
    (KLAMPT_WRITTEN.replace("TYPE F F F F", "TYPE F F F"), ":4:", "TYPE has 3 entries but FIELDS names 4"),
    (KLAMPT_WRITTEN.replace("TYPE F F F F", "TYPE F F F D"), ":4:", "TYPE must be F, U or I"),
    (KLAMPT_WRITTEN.replace("POINTS 2\n", ""), ":5:", "DATA before POINTS"),
    (KLAMPT_WRITTEN.replace("DATA ascii", "DATA binary_compressed"), ":6:", "compressed PCD is not supported"),
    (KLAMPT_WRITTEN.replace("4 5 6", "4 x 6"), ":8:3:", "expected a number, found 'x'"),
    (KLAMPT_WRITTEN.replace("4 5 6", "4 +5 6"), ":8:3:", "leading '+'"),
    ("VERSION 0.7\nFIELDS x y z\n", ":3:", "no DATA line"),
])
def test_pcd_errors(tmp_path, text, where, what):
    path = write(tmp_path, "bad.pcd", text)
    with pytest.raises(FormatError) as e:
        roboio.load(path)
    assert str(e.value).startswith(path + where) and what in str(e.value), str(e.value)


def test_binary_unsupported_size_is_an_error(tmp_path):
    path = write(tmp_path, "u8.pcd", binary_pcd("FIELDS x y z t\nSIZE 4 4 4 8\nTYPE F F F U\n", b"", 0))
    with pytest.raises(FormatError, match="TYPE U SIZE 8"):
        roboio.load(path)


def test_version_and_missing_xyz_warn(tmp_path):
    text = "VERSION 0.6\nFIELDS a b\nTYPE F F\nPOINTS 1\nDATA ascii\n1 2\n"
    with pytest.warns(roboio.RoboioWarning) as rec:
        pc = roboio.load(write(tmp_path, "w.pcd", text))
    msgs = " ".join(str(w.message) for w in rec)
    assert "0.7 expected" in msgs and "no x, y, z" in msgs
    assert len(pc.points) == 0 and pc.fields["b"].tolist() == [2]


def test_fields_without_xyz_are_reported_lost_when_written(tmp_path):
    # Klamp't keeps the fields of a PCD without x, y, z but has no points to write them with
    text = "FIELDS a b\nTYPE F F\nPOINTS 2\nDATA ascii\n1 2\n3 4\n"
    with pytest.warns(roboio.RoboioWarning):
        pc = roboio.load(write(tmp_path, "w.pcd", text))
    out = str(tmp_path / "out.pcd")
    report = roboio.save(pc, out)
    assert any("a (2 values)" in x and "b (2 values)" in x for x in report.lost), report.lost
    assert len(roboio.load(out).points) == 0


def test_write_round_trip_full_precision(tmp_path):
    rng = np.random.default_rng(5)
    pts = rng.normal(size=(20, 3))
    fields = {"x": pts[:, 0], "y": pts[:, 1], "z": pts[:, 2], "rgb": rng.integers(0, 2 ** 24, 20).astype(float),
              "normal_0": rng.normal(size=20)}
    pc = PointCloud(pts, fields, {"viewpoint": "0 0 0 1 0 0 0", "width": "20", "height": "1"})
    out = str(tmp_path / "o.pcd")
    assert roboio.save(pc, out).lossless
    text = Path(out).read_text()
    assert "SIZE 8 8 8 8 8\n" in text and "COUNT 1 1 1 1 1\n" in text
    back = roboio.load(out)
    assert np.array_equal(back.points, pts)
    assert list(back.fields) == list(fields)
    assert all(np.array_equal(back.fields[k], fields[k]) for k in fields)


def test_write_bakes_transform_into_points_and_normals(tmp_path):
    pc = PointCloud([[1, 0, 0]], {"normal_x": [1.0], "normal_y": [0.0], "normal_z": [0.0]})
    T = np.eye(4)
    T[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    T[:3, 3] = [0, 0, 2]
    pc.transform = T
    out = str(tmp_path / "t.pcd")
    roboio.save(pc, out)
    back = roboio.load(out)
    assert np.allclose(back.points, [[0, 1, 2]])
    assert np.allclose([back.fields[k][0] for k in ("normal_x", "normal_y", "normal_z")], [0, 1, 0])


def test_mesh_to_pcd_keeps_vertices_and_reports_triangles(tmp_path):
    out = str(tmp_path / "m.pcd")
    report = roboio.save(TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]]), out)
    assert any("triangles" in x for x in report.lost)
    assert roboio.load(out).points.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]


def test_absurd_count_is_an_error_not_a_memory_blowup(tmp_path):
    text = "FIELDS x y z h\nCOUNT 1 1 1 1000000000\nPOINTS 1\nDATA ascii\n1 2 3 4\n"
    with pytest.raises(FormatError, match="COUNT declares"):
        roboio.load(write(tmp_path, "c.pcd", text))
