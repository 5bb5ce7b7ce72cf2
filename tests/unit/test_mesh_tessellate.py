"""Tessellated shapes (roboio.formats.meshes._tessellate), shared by the Inventor/VRML reader
and the mesh writers: closed, wound outwards, and the size the primitive says, checked
with volumes and extents computed here from the textbook formulas."""
import math

import numpy as np
import pytest

from roboio.model import tessellate as tess
from roboio.model import Primitive

N = tess.SEGMENTS
# a regular N-gon inscribed in a circle has N sin(2 pi / N) / (2 pi) of the circle's area
POLYGON = N * math.sin(2 * math.pi / N) / (2 * math.pi)


def signed_volume(v, f):
    """Divergence theorem: sum of det(a, b, c) / 6 over the triangles; positive when every
    triangle winds counter-clockwise seen from outside."""
    a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


def edges_pair_up(f):
    """Closed and consistently wound: each directed edge appears once, its reverse once."""
    e = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
    fwd = {tuple(x) for x in e.tolist()}
    return len(fwd) == len(e) and all((b, a) in fwd for a, b in fwd)


@pytest.mark.parametrize("up", [0, 1, 2])
def test_round_shapes_are_closed_and_wound_outwards_about_any_axis(up):
    r, h = 0.5, 3.0
    shapes = {
        "sphere": (tess.sphere(r, up=up), 4 / 3 * math.pi * r ** 3),
        "cylinder": (tess.cylinder(r, h, up=up), math.pi * r * r * h * POLYGON),
        "cone": (tess.cone(r, h, up=up), math.pi * r * r * h / 3 * POLYGON),
        "capsule": (tess.capsule(r, h, up=up), None),
    }
    for name, ((v, f), volume) in shapes.items():
        assert edges_pair_up(f), name
        vol = signed_volume(v, f)
        assert vol > 0, name
        if volume is not None and name != "sphere":   # prism and pyramid: exact
            assert vol == pytest.approx(volume, rel=1e-12), name
        # centred on the origin, extending along ``up``
        other = [k for k in range(3) if k != up]
        assert np.allclose(v[:, other].max(axis=0), r) and np.allclose(v[:, other].min(axis=0), -r)
    v, f = shapes["sphere"][0]
    assert np.allclose(np.linalg.norm(v, axis=1), r)
    assert 0.97 * shapes["sphere"][1] < signed_volume(v, f) < shapes["sphere"][1]
    v, _ = shapes["capsule"][0]
    assert v[:, up].max() == pytest.approx(h / 2 + r) and v[:, up].min() == pytest.approx(-h / 2 - r)


def test_inventor_parts_split_the_closed_cylinder_and_cone():
    full = tess.cylinder(1, 2)[1]
    sides = tess.cylinder(1, 2, True, False, False)[1]
    caps = tess.cylinder(1, 2, False, True, True)[1]
    assert len(full) == 4 * N and len(sides) == 2 * N and len(caps) == 2 * N
    assert {tuple(t) for t in full.tolist()} == {tuple(t) for t in sides.tolist() + caps.tolist()}
    assert len(tess.cone(1, 2, True, False)[1]) == N


AXIS = np.array([1.0, 2.0, 2.0]) / 3.0                 # a unit axis off the coordinate axes
C = np.array([1.0, -2.0, 0.5])


@pytest.mark.parametrize("kind, low, high, volume", [
    # Klamp't: cylinder and cone from the base centre up ``height`` along the axis; roboio's
    # capsule likewise (its cylinder part), with hemispheres beyond both ends
    ("Cylinder", 0.0, 3.0, math.pi * 0.25 * 3.0 * POLYGON),
    ("Cone", 0.0, 3.0, math.pi * 0.25 * 3.0 / 3 * POLYGON),
    ("Capsule", -0.5, 3.5, None),
])
def test_klampt_axial_primitives_start_at_the_base_centre(kind, low, high, volume):
    m = tess.primitive_to_mesh(Primitive(kind, {"center": C, "axis": AXIS, "radius": 0.5,
                                                "height": 3.0}))
    along = (m.vertices - C) @ AXIS
    radial = np.linalg.norm((m.vertices - C) - np.outer(along, AXIS), axis=1)
    assert along.min() == pytest.approx(low, abs=1e-12) and along.max() == pytest.approx(high)
    assert radial.max() == pytest.approx(0.5)
    assert edges_pair_up(m.faces) and signed_volume(m.vertices, m.faces) > 0
    if volume is not None:
        assert signed_volume(m.vertices, m.faces) == pytest.approx(volume, rel=1e-12)
    if kind == "Cone":            # the apex, on the axis at the top
        apex = m.vertices[np.argmax(along)]
        assert np.allclose(apex, C + 3.0 * AXIS)


def test_klampt_box_and_ellipsoid():
    # Box: o a corner, box = o + [0, dx] xb + [0, dy] yb + [0, dz] zb (xb, yb, zb columns)
    R = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]])
    m = tess.primitive_to_mesh(Primitive("Box", {"origin": [1, 2, 3], "xaxis": R[:, 0],
                                                 "yaxis": R[:, 1], "zaxis": R[:, 2],
                                                 "dims": [1, 2, 4]}))
    # x spans [1 - 2, 1], y spans [2, 2 + 1], z spans [3, 7]; volume 8
    assert m.bounds().tolist() == [[-1, 2, 3], [1, 3, 7]]
    assert len(m.faces) == 12 and edges_pair_up(m.faces)
    assert signed_volume(m.vertices, m.faces) == pytest.approx(8.0)
    e = tess.primitive_to_mesh(Primitive("Ellipsoid", {"center": [0, 0, 1], "xaxis": [1, 0, 0],
                                                       "yaxis": [0, 1, 0], "zaxis": [0, 0, 1],
                                                       "dims": [1, 2, 3]}))
    x, y, z = (e.vertices - [0, 0, 1]).T
    assert np.allclose(x ** 2 + (y / 2) ** 2 + (z / 3) ** 2, 1)
    assert np.allclose(e.bounds(), [[-1, -2, -2], [1, 2, 4]])


# -- rotation_between (replaces trimesh.geometry.align_vectors in the mesh writers) ---------

def is_rotation(R):
    return np.allclose(R @ R.T, np.eye(3), atol=1e-14) and np.linalg.det(R) == pytest.approx(1.0)


def test_rotation_between_turns_a_onto_b_about_their_common_normal():
    from roboio.transforms import rotation_between
    rng = np.random.default_rng(12)
    for a, b in rng.normal(size=(200, 2, 3)):
        R = rotation_between(a, b)
        ua, ub = a / np.linalg.norm(a), b / np.linalg.norm(b)
        assert is_rotation(R)
        assert np.allclose(R @ ua, ub, atol=1e-14)
        n = np.cross(ua, ub)                       # the smallest rotation fixes a x b
        assert np.allclose(R @ n, n, atol=1e-14)
        # and turns by the angle between them: trace = 1 + 2 cos(angle)
        assert np.trace(R) == pytest.approx(1 + 2 * (ua @ ub), abs=1e-13)


@pytest.mark.parametrize("a", [[0, 0, 1], [0, 0, -2], [1, 0, 0], [0, 3, 0], [1, 2, 2], [1e-9, 0, -1]])
def test_rotation_between_equal_and_opposite_directions(a):
    from roboio.transforms import rotation_between
    a = np.array(a, float)
    u = a / np.linalg.norm(a)
    assert np.allclose(rotation_between(a, 5 * a), np.eye(3), atol=1e-15)
    R = rotation_between(a, -a)
    assert is_rotation(R) and np.allclose(R @ u, -u, atol=1e-15)
    # a half turn: R is symmetric with trace -1
    assert np.allclose(R, R.T, atol=1e-15) and np.trace(R) == pytest.approx(-1.0)
    # nearly opposite directions stay accurate
    b = -u + np.array([1e-10, -2e-10, 1e-10])
    assert np.allclose(rotation_between(a, b) @ u, b / np.linalg.norm(b), atol=1e-15)
    assert np.array_equal(rotation_between([0, 0, 0], a), np.eye(3))


def test_axial_primitive_along_z_is_not_rotated():
    # +z onto +z is the identity, so the ring starts on +x as built (no roll about the axis)
    m = tess.primitive_to_mesh(Primitive("Cylinder", {"center": np.zeros(3), "axis": [0, 0, 2.0],
                                                      "radius": 1.0, "height": 1.0}))
    v, _ = tess.cylinder(1.0, 1.0, up=2)
    assert np.array_equal(m.vertices, v + [0.0, 0.0, 0.5])
