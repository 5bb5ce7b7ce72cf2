"""The COLLADA robot writer where a model is more than OpenRAVE's COLLADA holds: link names
OpenRAVE's reader would change (spaces, empty, duplicates), link frames that are not
rotations (OpenRAVE keeps unit quaternions), and stored joint values in degrees that must
not drift when read (degrees -> radians) and written again. Expected values are hand-worked:
the name rule of spec collada.md §3.2, a stretched rotation's nearest rotation, the degree
text of the first write."""
import math
import warnings

import numpy as np
import pytest

import roboio
from roboio.model import Driver, Joint, Link, Robot
from roboio.transforms import axis_angle_to_matrix
from roboio.verify import verify

from test_conversion_exact import two_links


def reread(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(path)


def renamed(report) -> dict:
    return report.renamed["links"]


def test_names_are_written_as_openrave_reads_them(tmp_path):
    a = two_links()
    links = a.links
    links[0].name, links[1].name = "hex x", "hex_x"     # spaces become '_': would be one link
    rep = roboio.save(a, tmp_path / "t.dae")
    # the added fixed root is 'world'; the real 'hex_x' keeps its name, and 'hex x', which
    # becomes 'hex_x', then takes a suffix
    assert renamed(rep) == {"hex x": "hex_x_2"}
    assert not any("name" in x for x in rep.lost)
    b = reread(tmp_path / "t.dae")
    assert b.link_names == ["world", "hex_x_2", "hex_x"]
    res = verify(a, b, 20, link_map=renamed(rep))
    assert res.ok and not res.only_a, res


def test_empty_link_name_gets_a_name(tmp_path):
    a = two_links()
    a.links[1].name = ""
    rep = roboio.save(a, tmp_path / "t.dae")
    assert renamed(rep) == {"": "link1"}
    assert reread(tmp_path / "t.dae").link_names == ["world", "a", "link1"]


def test_frames_that_are_not_rotations_are_written_as_the_nearest_rotation(tmp_path):
    # a uniformly stretched rotation (1 + e) R: the nearest rotation is R, and link b, 0.2 m
    # from a's origin, moves by e * 0.2 (hand-worked)
    e = 4e-7
    R = axis_angle_to_matrix(np.array([1.0, 2.0, 3.0]) / math.sqrt(14), 0.7)
    rep = roboio.save(two_links(R=R * (1 + e)), tmp_path / "t.dae")
    pos, rot = rep.fk_error
    assert pos == pytest.approx(0.2 * e, rel=1e-6)
    assert 0 < rot <= e * (1 + 1e-9)
    assert any("not rotations" in x for x in rep.lost)
    b = reread(tmp_path / "t.dae")
    np.testing.assert_allclose(b.links[1].parent_transform[:3, :3], R, atol=1e-15, rtol=0)
    exact = roboio.save(two_links(R=R), tmp_path / "u.dae")
    assert exact.fk_error == (0.0, 0.0)
    assert not any("not rotations" in x for x in exact.lost)


def fixed_root_arm():
    """base (fixed) -> a -> b: nothing for the COLLADA writer to add."""
    r = two_links()
    base = Link("base", -1, "revolute", (0, 0, 1), np.eye(4))
    links = [base] + [Link(l.name, l.parent + 1, l.joint_type, l.axis, l.parent_transform,
                           mass=l.mass, inertia=l.inertia) for l in r.links]
    out = Robot("t")
    out.set_links(links, qmin=[0, -1, -1], qmax=[0, 1, 1], vmax=[0, 2, 2], amax=[0, 10, 10],
                  tmax=[0, 3, 3])
    out.joints = [Joint("weld", [0]), Joint("normal", [1]), Joint("normal", [2])]
    out.drivers = [Driver(l.name, "normal", [i + 1], qmin=-1, qmax=1, vmin=-2, vmax=2, tmin=-3,
                          tmax=3, amin=-10, amax=10) for i, l in enumerate(r.links)]
    return out


def test_stored_degrees_do_not_drift(tmp_path):
    a = fixed_root_arm()
    a.config = np.array([0.0, 0.784, -0.3])
    deg = 0.784 * 180.0 / math.pi
    out = tmp_path / "t.dae"
    roboio.save(a, out)
    texts = [out.read_bytes()]
    assert f"<float>{deg!r}</float>".encode() in texts[0]
    for _ in range(2):
        roboio.save(reread(out), out, overwrite_input=True)
        texts.append(out.read_bytes())
    assert texts[1] == texts[2]
    assert f"<float>{deg!r}</float>".encode() in texts[2]


def test_mesh_vertices_no_triangle_uses_are_left_out(tmp_path):
    """COLLADA readers keep the vertices a triangle uses: a vertex written but unused would
    be gone when read back, and the next write would differ (barrettwam -> .dae)."""
    from roboio.model import TriangleMesh
    a = two_links()
    V = np.array([[0.0, 0, 0], [9, 9, 9], [1, 0, 0], [0, 1, 0]])      # vertex 1: unused
    a.links[1].geometry = TriangleMesh(V, np.array([[0, 2, 3]]))
    rep = roboio.save(a, tmp_path / "a.dae")
    assert any("vertices no triangle uses" in w and f"{a.links[1].name} (1)" in w for w in rep.warnings)
    b = reread(tmp_path / "a.dae")
    g = b.link(a.links[1].name).geometry
    got = g.baked() if hasattr(g, "baked") else g
    assert np.allclose(np.sort(got.vertices, axis=0), np.sort(V[[0, 2, 3]], axis=0), atol=1e-12)
    roboio.save(b, tmp_path / "b.dae")
    assert (tmp_path / "a.dae").read_bytes() == (tmp_path / "b.dae").read_bytes()
