"""Queries between placed geometries (roboio.collision), on every installed engine, against
hand-worked values: distances, margins, surfaces against solids, point clouds, groups, rays;
and the message when no engine is installed."""
import numpy as np
import pytest

from roboio.model import Group, PointCloud, Primitive, TriangleMesh
from roboio.transforms import axis_angle_to_matrix


def _engines():
    from roboio.collision import available_engines
    return available_engines()


@pytest.fixture(params=["coal", "fcl"])
def engine(request):
    if request.param not in _engines():
        pytest.skip(f"{request.param} is not installed")
    from roboio.collision import use_engine
    with use_engine(request.param):
        yield request.param


def box_mesh(half, center=(0, 0, 0), margin=0.0):
    h = np.asarray(half, float)
    v = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * h + center
    f = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
         [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return TriangleMesh(v, f, margin=margin)


def sphere(r, c=(0, 0, 0), margin=0.0):
    return Primitive("Sphere", {"center": c, "radius": r}, margin=margin)


def at(x=0.0, y=0.0, z=0.0, R=np.eye(3)):
    M = np.eye(4)
    M[:3, :3] = R
    M[:3, 3] = [x, y, z]
    return M


def test_sphere_and_box_distances(engine):
    from roboio.collision import collides, distance
    s = sphere(0.5)
    r = distance(s, s, None, at(1.2))
    assert r.distance == pytest.approx(0.2, abs=1e-9)
    np.testing.assert_allclose(r.point_a, [0.5, 0, 0], atol=1e-6)
    np.testing.assert_allclose(r.point_b, [0.7, 0, 0], atol=1e-6)
    assert not collides(s, s, None, at(1.2)) and collides(s, s, None, at(0.99))
    b = box_mesh([0.5, 0.5, 0.5])
    # a box turned 45 degrees about z: its edge comes sqrt(2)/2 from its centre
    R = axis_angle_to_matrix([0, 0, 1], np.pi / 4)
    d = distance(b, b, None, at(1.5, R=R)).distance
    assert d == pytest.approx(1.5 - 0.5 - np.sqrt(0.5), abs=1e-9)
    assert distance(b, s, None, at(0, 0, 2)).distance == pytest.approx(1.0, abs=1e-9)


def test_margins_inflate_both_geometries(engine):
    from roboio.collision import collides, distance, within_distance
    a, b = box_mesh([0.5] * 3, margin=0.02), box_mesh([0.5] * 3, margin=0.02)
    gap = at(1.05)                                  # 0.05 m between the faces
    assert not collides(a, b, None, gap)
    assert distance(a, b, None, gap).distance == pytest.approx(0.01, abs=1e-9)
    assert within_distance(a, b, 0.011, None, gap) and not within_distance(a, b, 0.009, None, gap)
    b.margin = 0.031
    assert collides(a, b, None, gap)
    assert distance(a, b, None, gap).distance == pytest.approx(-0.001, abs=1e-9)


def test_meshes_are_surfaces_primitives_are_solids(engine):
    from roboio.collision import collides, distance
    big, small = box_mesh([1, 1, 1]), box_mesh([0.1, 0.1, 0.1])
    assert not collides(big, small)                               # inside, no crossing
    assert distance(big, small).distance == pytest.approx(0.9, abs=1e-9)
    solid = Primitive("AABB", {"bmin": [-1, -1, -1], "bmax": [1, 1, 1]})
    assert collides(solid, sphere(0.1))
    assert not collides(big, sphere(0.1))                         # a ball inside a surface
    point = PointCloud([[0.2, 0, 0]])
    assert collides(point, sphere(0.5)) and not collides(point, big)
    assert distance(point, big).distance == pytest.approx(0.8, abs=1e-9)


def test_point_clouds_against_meshes_and_primitives(engine):
    from roboio.collision import collides, distance
    b = box_mesh([0.5] * 3)
    cloud = PointCloud([[0.52, 0, 0], [3, 0, 0], [0, 4, 0]])
    assert not collides(cloud, b)
    assert distance(cloud, b).distance == pytest.approx(0.02, abs=1e-9)
    cloud.margin = 0.021
    assert collides(cloud, b) and collides(b, cloud)
    far = at(0, 0, 10)
    assert distance(cloud, b, far, None).distance == pytest.approx(np.sqrt(9.5 ** 2 + 0.02 ** 2) - 0.021, abs=1e-6)
    # the box placed away from the cloud's frame (the broad phase must see it there)
    assert collides(PointCloud([[2, 0, 0]], margin=0.01), b, None, at(2.505))
    assert not collides(PointCloud([[2, 0, 0]], margin=0.01), b, None, at(2.52))
    other = PointCloud([[0.6, 0, 0]], margin=0.05)
    assert collides(PointCloud([[0.52, 0, 0]], margin=0.031), other)
    assert not collides(PointCloud([[0.52, 0, 0]], margin=0.02), other)


def test_groups_are_unions_and_poses_place_the_owner(engine):
    from roboio.collision import collides, distance
    g = Group([sphere(0.1, (1, 0, 0)), sphere(0.1, (-1, 0, 0))], transform=at(0, 0, 1))
    probe = sphere(0.1)
    assert collides(g, probe, None, at(1, 0, 1.15))
    assert not collides(g, probe, None, at(0, 0, 1))
    assert distance(g, probe, None, at(0, 0, 1)).distance == pytest.approx(0.8, abs=1e-9)
    R = axis_angle_to_matrix([0, 1, 0], np.pi / 2)                 # z -> x: sphere at (1,0,-1)->...
    assert collides(g, probe, at(R=R), at(1, 0, -1))


def test_empty_geometry_collides_with_nothing(engine):
    from roboio.collision import collides, distance
    assert not collides(None, sphere(1.0)) and not collides(TriangleMesh(), sphere(1.0))
    assert distance(Group([]), sphere(1.0)).distance == np.inf


_ROUND = -np.sqrt(0.25 - 0.01)          # a circle of radius 0.5 crossed 0.1 off its centre


@pytest.mark.parametrize("g,x", [
    (sphere(0.5), _ROUND),
    (Primitive("AABB", {"bmin": [-0.5] * 3, "bmax": [0.5] * 3}), -0.5),
    (Primitive("Cylinder", {"center": [0, 0, -1], "axis": [0, 0, 1], "radius": 0.5, "height": 2}), _ROUND),
    (Primitive("Capsule", {"center": [0, -1, 0], "axis": [0, 1, 0], "radius": 0.5, "height": 2}), -0.5),
    (Primitive("Cone", {"center": [0, 0, -1], "axis": [0, 0, 1], "radius": 1.0, "height": 2}), _ROUND),
    (box_mesh([0.5, 0.5, 0.5]), -0.5),
], ids=["sphere", "aabb", "cylinder", "capsule", "cone", "mesh"])
def test_ray_casts_hit_where_hand_worked(g, x):
    from roboio.collision import ray_cast
    hit, p = ray_cast(g, [-3, 0.1, 0], [2, 0, 0])      # the direction is normalised
    assert hit
    np.testing.assert_allclose(p, [x, 0.1, 0], atol=1e-12)


def test_ray_cast_inside_solids_margins_and_misses():
    from roboio.collision import ray_cast
    s = sphere(0.5)
    hit, p = ray_cast(s, [0.1, 0, 0], [1, 0, 0])
    assert hit and np.allclose(p, [0.1, 0, 0])              # inside a solid: the source
    hit, p = ray_cast(box_mesh([0.5] * 3), [0, 0, 0], [1, 0, 0])
    assert hit and np.allclose(p, [0.5, 0, 0])              # inside a surface: its crossing
    assert ray_cast(s, [2, 0, 0], [1, 0, 0]) == (False, None)
    s.margin = 0.1
    hit, p = ray_cast(s, [-3, 0, 0], [1, 0, 0])
    assert np.allclose(p, [-0.6, 0, 0])
    cloud = PointCloud([[1, 0, 0], [2, 0, 0]], margin=0.1)
    hit, p = ray_cast(cloud, [0, 0, 0], [1, 0, 0], at(0, 0.05))
    assert hit and np.allclose(p, [1 - np.sqrt(0.01 - 0.0025), 0, 0])
    with pytest.raises(ValueError):
        ray_cast(s, [0, 0, 0], [0, 0, 0])


def test_a_missing_engine_names_the_extra(monkeypatch):
    from roboio.collision import engine
    monkeypatch.setattr(engine, "_active", None)
    monkeypatch.setattr(engine, "_MODULES", {"coal": ".no_such_coal", "fcl": ".no_such_fcl"})
    monkeypatch.delenv(engine.ENV, raising=False)
    with pytest.raises(engine.CollisionEngineMissing, match=r'pip install "roboio\[collision\]"'):
        engine.get_engine()


def test_import_roboio_does_not_import_the_engine():
    import subprocess
    import sys
    code = ("import sys, roboio; r = roboio.load('roboio/data/samples/planar_arm.rob'); r.fk(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('coal', 'fcl') "
            "or m.startswith('roboio.collision')))")
    from conftest import ROOT
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
