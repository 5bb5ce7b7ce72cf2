"""Mass properties (Klamp't automass formulas) against hand-worked values."""
import numpy as np
import pytest

from roboio.model import Group, PointCloud, Primitive, TriangleMesh
from roboio.model.massprops import (geometry_moments, inertia_from_moments, mass_properties,
                                    mesh_center, mesh_second_moment)

# unit cube [0,1]^3, outward-facing triangles
CUBE_V = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
CUBE_F = np.array([[0, 1, 2], [1, 3, 2], [4, 6, 5], [5, 6, 7], [0, 4, 1], [1, 4, 5],
                   [2, 3, 6], [3, 7, 6], [0, 2, 4], [2, 6, 4], [1, 5, 3], [3, 5, 7]])


def cube(T=None):
    m = TriangleMesh(CUBE_V, CUBE_F)
    if T is not None:
        m.transform = np.asarray(T, float)
    return m


def test_unit_cube_surface():
    # hollow unit cube: E[x^2] about the centre = (2 faces * 1/4 + 4 faces * 1/12) / 6 = 5/36
    com, C = geometry_moments(cube())
    assert np.allclose(com, 0.5, atol=1e-15)
    assert np.allclose(C, np.eye(3) * 5 / 36, atol=1e-15)
    assert np.allclose(inertia_from_moments(2.0, C), np.eye(3) * 2 * 10 / 36)


def test_unit_cube_solid_and_mixed():
    com, C = geometry_moments(cube(), surface_fraction=0.0)
    assert np.allclose(com, 0.5) and np.allclose(C, np.eye(3) / 12)
    com, C = geometry_moments(cube(), surface_fraction=0.5)
    assert np.allclose(C, np.eye(3) * (0.5 * 5 / 36 + 0.5 / 12))


def test_mesh_transform_scale_and_mirror_applied():
    T = np.diag([2.0, 1.0, 1.0, 1.0])
    T[:3, 3] = [-1, 5, 0]
    com, C = geometry_moments(cube(T), surface_fraction=0.0)
    assert np.allclose(com, [0, 5.5, 0.5])
    assert np.allclose(C, np.diag([4 / 12, 1 / 12, 1 / 12]))
    mirror = np.diag([1.0, 1.0, -1.0, 1.0])             # flips every signed volume
    com, C = geometry_moments(cube(mirror), surface_fraction=0.0)
    assert np.allclose(com, [0.5, 0.5, -0.5]) and np.allclose(C, np.eye(3) / 12)


def test_second_moment_about_other_point_is_parallel_axis_for_closed_mesh():
    p = np.array([2.0, 0.0, 0.0])
    d = np.array([0.5, 0.5, 0.5]) - p
    for f in (1.0, 0.0, 0.3):
        C0 = mesh_second_moment(CUBE_V, CUBE_F, [0.5, 0.5, 0.5], f)
        assert np.allclose(mesh_second_moment(CUBE_V, CUBE_F, p, f), C0 + np.outer(d, d))


def test_sphere_primitive_is_a_box():
    com, C = geometry_moments(Primitive("Sphere", {"center": [1, 2, 3], "radius": 0.5}))
    assert np.allclose(com, [1, 2, 3]) and np.allclose(C, np.eye(3) / 12)
    s = Primitive("Sphere", {"center": [1, 2, 3], "radius": 0.5})
    s.transform = np.diag([2.0, 2.0, 2.0, 1.0])               # uniform scale: radius 1
    com, C = geometry_moments(s)
    assert np.allclose(com, [2, 4, 6]) and np.allclose(C, np.eye(3) * 4 / 12)


def test_cylinder_primitive_bounding_box():
    com, C = geometry_moments(Primitive("Cylinder", {"center": [0, 0, 0], "axis": [0, 0, 1],
                                                     "radius": 1.0, "height": 2.0}))
    assert np.allclose(com, [0, 0, 1]) and np.allclose(C, np.eye(3) * 4 / 12)
    # axis (1,0,1)/sqrt2: disc half-widths r*sqrt(1-n^2) = (1/sqrt2, 1, 1/sqrt2); the axis
    # adds h/sqrt2 = sqrt2 to x and z. Extents: x,z = sqrt2 + sqrt2 = 2 sqrt2, y = 2.
    com, C = geometry_moments(Primitive("Cylinder", {"center": [0, 0, 0], "axis": [1, 0, 1],
                                                     "radius": 1.0, "height": 2.0}))
    r2 = np.sqrt(2)
    assert np.allclose(com, [r2 / 2, 0, r2 / 2])
    assert np.allclose(C, np.diag([8 / 12, 4 / 12, 8 / 12]))


def test_rotated_box_primitive():
    c, s = np.cos(np.pi / 4), np.sin(np.pi / 4)
    b = Primitive("Box", {"origin": [0, 0, 0], "xaxis": [c, s, 0], "yaxis": [-s, c, 0],
                          "zaxis": [0, 0, 1], "dims": [1, 1, 1]})
    com, C = geometry_moments(b)
    # the unit square turned 45 degrees spans x in [-1/sqrt2, 1/sqrt2], y in [0, sqrt2]
    assert np.allclose(com, [0, np.sqrt(2) / 2, 0.5])
    assert np.allclose(C, np.diag([2 / 12, 2 / 12, 1 / 12]))


def test_point_cloud_mean_and_covariance():
    pts = np.array([[0, 0, 0], [2, 0, 0], [0, 4, 0], [2, 4, 0]], float)
    com, C = geometry_moments(PointCloud(pts))
    assert np.allclose(com, [1, 2, 0])
    assert np.allclose(C, np.diag([1.0, 4.0, 0.0]))


def test_group_rule_unweighted_mean_and_sum_of_matrices():
    a = Primitive("Sphere", {"center": [0, 0, 0], "radius": 0.5})
    b = Primitive("Sphere", {"center": [2, 0, 0], "radius": 0.5})
    com, C = geometry_moments(Group([a, b]))
    # Klamp't: centre = mean of centres; primitives contribute their box matrix regardless
    # of the centre, and the matrices are summed (not averaged).
    assert np.allclose(com, [1, 0, 0]) and np.allclose(C, np.eye(3) * 2 / 12)
    pc = PointCloud([[0, 0, 0], [0, 0, 2]])
    com, C = geometry_moments(Group([cube(), pc]))
    assert np.allclose(com, [0.25, 0.25, 0.75])
    d = np.array([0.5, 0.5, 0.5]) - com
    expect_mesh = np.eye(3) * 5 / 36 + np.outer(d, d)
    q = np.array([[0, 0, 0], [0, 0, 2]]) - com
    assert np.allclose(C, expect_mesh + q.T @ q / 2)


def test_group_transform_and_child_transforms_compose():
    child = cube(np.diag([1.0, 1.0, 1.0, 1.0]))
    child.transform[:3, 3] = [1, 0, 0]
    g = Group([child])
    g.transform = np.diag([1.0, 1.0, 1.0, 1.0])
    g.transform[:3, 3] = [0, 0, 3]
    com, _ = geometry_moments(g)
    assert np.allclose(com, [1.5, 0.5, 3.5])


def test_multi_mesh_file_counts_as_group_of_parts():
    m = TriangleMesh(np.concatenate([CUBE_V, CUBE_V * 2 + [3, 0, 0]]),
                     np.concatenate([CUBE_F, CUBE_F + 8]))
    m.extras["parts"] = [0, 12]
    com, C = geometry_moments(m)
    assert np.allclose(com, [(0.5 + 4) / 2, 0.75, 0.75])
    big = mesh_second_moment(CUBE_V * 2 + [3, 0, 0], CUBE_F, com)
    small = mesh_second_moment(CUBE_V, CUBE_F, com)
    assert np.allclose(C, big + small)


def test_degenerate_inputs_do_not_divide_by_zero():
    com, C = geometry_moments(TriangleMesh())
    assert np.allclose(com, 0) and np.allclose(C, 0)
    flat = TriangleMesh([[0, 0, 0], [1, 0, 0], [2, 0, 0]], [[0, 1, 2]])
    com, C = geometry_moments(flat)
    assert np.allclose(com, [1, 0, 0]) and np.allclose(C, 0)
    com, C = geometry_moments(PointCloud())
    assert np.allclose(com, 0) and np.allclose(C, 0)
    assert np.allclose(mesh_center(CUBE_V, CUBE_F, 0.0), 0.5)


def test_mass_properties_shortcut():
    com, inertia = mass_properties(cube(), 6.0, surface_fraction=0.0)
    assert np.allclose(com, 0.5) and np.allclose(inertia, np.eye(3))     # m a^2 / 6 = 1


def test_unknown_geometry_type_is_an_error():
    from roboio.model import Geometry
    with pytest.raises(TypeError):
        geometry_moments(Geometry())


def test_moments_about_a_given_point():
    d = np.array([0.5, 0.5, 0.5])
    com, C = geometry_moments(cube(), surface_fraction=0.0, about=[0, 0, 0])
    assert np.allclose(com, 0.5) and np.allclose(C, np.eye(3) / 12 + np.outer(d, d))
    # Klamp't ignores the centre for primitives: the box matrix stays as it is
    com, C = geometry_moments(Primitive("Sphere", {"center": [1, 2, 3], "radius": 0.5}), about=[9, 9, 9])
    assert np.allclose(com, [1, 2, 3]) and np.allclose(C, np.eye(3) / 12)
