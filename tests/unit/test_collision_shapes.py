"""Geometry -> engine parts (roboio.collision.shapes), numpy only: exact shapes, frames,
scales, bounds, margins; hand-worked values."""
import numpy as np
import pytest

from roboio.collision.shapes import bounding_box, merge_meshes, parts_of
from roboio.model import Group, PointCloud, Primitive, TriangleMesh
from roboio.transforms import axis_angle_to_matrix


def T(R=np.eye(3), t=(0, 0, 0), s=1.0):
    M = np.eye(4)
    M[:3, :3] = np.asarray(R) * s
    M[:3, 3] = t
    return M


def one(g, M=None):
    parts = parts_of(g, M)
    assert len(parts) == 1
    return parts[0]


def test_sphere_keeps_its_radius_under_a_rotation_and_uniform_scale():
    R = axis_angle_to_matrix([1, 2, 3] / np.linalg.norm([1, 2, 3]), 0.7)
    g = Primitive("Sphere", {"center": [1, 0, 0], "radius": 0.5}, transform=T(R, (0, 2, 0), 2.0))
    p = one(g)
    assert p.kind == "sphere" and p.data["radius"] == pytest.approx(1.0, rel=1e-14)
    np.testing.assert_allclose(p.pose[:3, 3], 2 * R @ [1, 0, 0] + [0, 2, 0], atol=1e-14)
    np.testing.assert_allclose(p.lo, p.pose[:3, 3] - 1, atol=1e-14)


def test_a_sphere_scaled_unevenly_is_an_ellipsoid():
    g = Primitive("Sphere", {"center": [0, 0, 0], "radius": 1.0}, transform=T(np.diag([1, 2, 3])))
    p = one(g)
    assert p.kind == "ellipsoid"
    axes = p.pose[:3, :3] * p.data["radii"]       # the semi-axes, one per column
    assert sorted(np.linalg.norm(axes, axis=0)) == pytest.approx([1, 2, 3])
    np.testing.assert_allclose(p.hi, [1, 2, 3], atol=1e-12)       # exact bounds
    assert np.linalg.det(p.pose[:3, :3]) == pytest.approx(1.0)


def test_aabb_and_box_are_boxes_centred_in_their_frames():
    p = one(Primitive("AABB", {"bmin": [0, 0, 0], "bmax": [2, 4, 6]}))
    assert p.kind == "box"
    np.testing.assert_allclose(p.data["half"], [1, 2, 3])
    np.testing.assert_allclose(p.pose[:3, 3], [1, 2, 3])
    R = axis_angle_to_matrix([0, 0, 1], np.pi / 2)
    p = one(Primitive("Box", {"origin": [1, 1, 1], "xaxis": R[:, 0], "yaxis": R[:, 1],
                              "zaxis": R[:, 2], "dims": [2, 4, 6]}))
    assert p.kind == "box"
    np.testing.assert_allclose(p.pose[:3, 3], [1 - 2, 1 + 1, 1 + 3], atol=1e-14)
    np.testing.assert_allclose(p.lo, [-3, 1, 1], atol=1e-14)
    np.testing.assert_allclose(p.hi, [1, 3, 7], atol=1e-14)


def test_a_sheared_box_is_the_convex_hull_of_its_corners():
    shear = np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1.0]])
    p = one(Primitive("AABB", {"bmin": [0, 0, 0], "bmax": [1, 1, 1]}), T(shear))
    assert p.kind == "convex" and not p.approx and len(p.data["points"]) == 8
    corners = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], float) @ shear.T
    assert {tuple(np.round(x, 12)) for x in p.data["points"]} == {tuple(np.round(x, 12)) for x in corners}
    assert len(p.data["faces"]) == 12


@pytest.mark.parametrize("kind", ["Cylinder", "Capsule", "Cone"])
def test_round_shapes_are_centred_on_their_axis(kind):
    p = one(Primitive(kind, {"center": [0, 0, 1], "axis": [0, 2, 0], "radius": 0.1, "height": 0.6}))
    assert p.kind == kind.lower()
    assert p.data["half_length"] == pytest.approx(0.3) and p.data["radius"] == pytest.approx(0.1)
    np.testing.assert_allclose(p.pose[:3, 3], [0, 0.3, 1], atol=1e-15)    # the middle
    np.testing.assert_allclose(p.pose[:3, 2], [0, 1, 0], atol=1e-15)      # z along the axis
    # bounds: a capsule reaches its radius past both ends; a cylinder and cone their discs
    extra = 0.1 if kind == "Capsule" else 0.0
    np.testing.assert_allclose(p.lo, [-0.1, -extra, 0.9], atol=1e-15)
    np.testing.assert_allclose(p.hi, [0.1, 0.6 + extra, 1.1], atol=1e-15)


def test_a_cylinder_stretched_along_its_axis_stays_a_cylinder_across_it_does_not():
    cyl = Primitive("Cylinder", {"center": [0, 0, 0], "axis": [0, 0, 1], "radius": 1.0, "height": 1.0})
    p = one(cyl, T(np.diag([2, 2, 3])))
    assert p.kind == "cylinder" and p.data["radius"] == pytest.approx(2)
    assert p.data["half_length"] == pytest.approx(1.5)
    p = one(cyl, T(np.diag([1, 2, 1])))
    assert p.kind == "convex" and p.approx
    np.testing.assert_allclose(p.hi[:2], [1, 2], atol=1e-12)


def test_segment_point_triangle_polygon():
    p = one(Primitive("Segment", {"a": [0, 0, 0], "b": [0, 0, 2]}))
    assert p.kind == "capsule" and p.data["radius"] == 0 and p.data["half_length"] == pytest.approx(1)
    p = one(Primitive("Point", {"center": [1, 2, 3]}))
    assert p.kind == "points"
    np.testing.assert_allclose(p.data["points"], [[1, 2, 3]])
    p = one(Primitive("Triangle", {"a": [0, 0, 0], "b": [1, 0, 0], "c": [0, 1, 0]}))
    assert p.kind == "mesh" and p.data["faces"].tolist() == [[0, 1, 2]]


def test_a_non_convex_polygon_is_triangulated_inside_itself():
    # an L of area 3 (unit squares), counter-clockwise
    L = np.array([[0, 0, 0], [2, 0, 0], [2, 1, 0], [1, 1, 0], [1, 2, 0], [0, 2, 0]], float)
    p = one(Primitive("Polygon", {"vertices": L}))
    v, f = p.data["vertices"], p.data["faces"]
    assert len(f) == 4
    area = 0.5 * np.linalg.norm(np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]]), axis=1).sum()
    assert area == pytest.approx(3.0)
    centroids = v[f].mean(axis=1)
    assert not np.any((centroids[:, 0] > 1) & (centroids[:, 1] > 1))     # none in the notch


def test_meshes_are_baked_in_the_owner_frame_and_groups_add_margins():
    tri = TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], transform=T(s=2.0), margin=0.01)
    cloud = PointCloud([[0, 0, 5]], margin=0.02)
    g = Group([tri, cloud], transform=T(t=(0, 0, 1)), margin=0.1)
    parts = parts_of(g)
    assert [p.kind for p in parts] == ["mesh", "points"]
    np.testing.assert_allclose(parts[0].data["vertices"], [[0, 0, 1], [2, 0, 1], [0, 2, 1]])
    assert parts[0].margin == pytest.approx(0.11) and parts[1].margin == pytest.approx(0.12)
    lo, hi = bounding_box(parts)
    np.testing.assert_allclose(lo, [-0.12, -0.12, 0.89])
    np.testing.assert_allclose(hi, [2.11, 2.11, 6.12])


def test_empty_and_missing_geometry_have_no_parts():
    assert parts_of(None) == []
    assert parts_of(TriangleMesh()) == []
    assert parts_of(TriangleMesh([[0, 0, 0]], [], missing=True)) == []
    assert parts_of(Group([])) == []


def test_meshes_of_one_margin_merge():
    a = TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    b = TriangleMesh([[0, 0, 1], [1, 0, 1], [0, 1, 1]], [[0, 2, 1]])
    c = TriangleMesh([[0, 0, 2], [1, 0, 2], [0, 1, 2]], [[0, 1, 2]], margin=0.5)
    merged = merge_meshes(parts_of(Group([a, b, c])))
    assert len(merged) == 2
    m = [p for p in merged if p.margin == 0][0]
    assert m.data["faces"].tolist() == [[0, 1, 2], [3, 5, 4]]
