"""Kinematics on hand-built robots: hand-worked poses and finite-difference Jacobians."""
import numpy as np
import pytest

from kinematics_helpers import reference_fk
from roboio import Link, Robot
from roboio.transforms import make_transform, rot_y, rpy_to_matrix

# every test runs with each kinematics backend
pytestmark = pytest.mark.usefixtures("kinematics_backend")


def planar3r():
    r = Robot("planar3R")
    for i in range(3):
        r.add_link(Link(f"L{i}", parent=i - 1, axis=(0, 1, 0),
                        parent_transform=make_transform(None, [0 if i == 0 else 1, 0, 0])))
    return r


def test_planar3r_spec_example():
    # klampt spec 3.15: q = (0, pi/4, pi/4), point (1, 0, 0) of link 2 -> (1.70711, 0, -1.70711)
    r = planar3r()
    T = r.fk([0, np.pi / 4, np.pi / 4])
    p = T[2] @ [1, 0, 0, 1]
    np.testing.assert_allclose(p[:3], [1 + np.sqrt(0.5), 0, -1 - np.sqrt(0.5)], atol=1e-12)


def random_tree(rng, n=9):
    r = Robot("random")
    for i in range(n):
        parent = -1 if i == 0 else int(rng.integers(-1, i))
        T = make_transform(rpy_to_matrix(rng.uniform(-3, 3, 3)), rng.uniform(-1, 1, 3))
        axis = rng.normal(size=3) * rng.uniform(0.5, 2.0)   # deliberately not unit length
        r.add_link(Link(f"l{i}", parent, "prismatic" if rng.random() < 0.3 else "revolute", axis, T))
    return r


@pytest.mark.parametrize("seed", range(5))
def test_fk_matches_reference_recursion(seed):
    rng = np.random.default_rng(seed)
    r = random_tree(rng)
    Q = rng.uniform(-2, 2, size=(7, r.num_links))
    batch = r.fk_batch(Q)
    for k, q in enumerate(Q):
        ref = reference_fk(r, q)
        np.testing.assert_allclose(batch[k], ref, atol=1e-12)
        np.testing.assert_allclose(r.fk(q), ref, atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_jacobian_matches_finite_differences(seed):
    rng = np.random.default_rng(seed)
    r = random_tree(rng)
    q = rng.uniform(-2, 2, r.num_links)
    point = rng.uniform(-1, 1, 3)
    link = r.num_links - 1
    J = r.jacobian(link, point, q)
    h = 1e-6
    for j in range(r.num_links):
        dq = np.zeros(r.num_links)
        dq[j] = h
        Tp, Tm = reference_fk(r, q + dq)[link], reference_fk(r, q - dq)[link]
        v = ((Tp @ np.append(point, 1)) - (Tm @ np.append(point, 1)))[:3] / (2 * h)
        dR = (Tp[:3, :3] - Tm[:3, :3]) / (2 * h)
        W = dR @ reference_fk(r, q)[link][:3, :3].T
        w = np.array([W[2, 1], W[0, 2], W[1, 0]])
        np.testing.assert_allclose(J[3:, j], v, atol=1e-6)
        np.testing.assert_allclose(J[:3, j], w, atol=1e-6)
    Jb = r.jacobian_batch(np.array([q, q]), link, point)
    np.testing.assert_allclose(Jb[1], J, atol=1e-15)


def test_fk_does_not_mutate_and_edit_invalidates_cache():
    r = planar3r()
    before = r.fk([0.1, 0.2, 0.3])
    cfg = r.config.copy()
    r.fk_batch(np.ones((3, 3)))
    np.testing.assert_array_equal(r.config, cfg)
    r.link(1).parent_transform = make_transform(rot_y(0.0), [2, 0, 0])
    after = r.fk([0.1, 0.2, 0.3])
    assert not np.allclose(before, after)
    with pytest.raises(ValueError):
        r.link(1).axis[0] = 5.0   # arrays are read-only: assign instead


def test_base_world_transform_applies_to_every_root():
    r = Robot()
    B = make_transform(rpy_to_matrix([0.1, 0.2, 0.3]), [1, 2, 3])
    r.add_link(Link("a", -1, parent_transform=B))
    r.add_link(Link("b", -1, parent_transform=B))
    T = r.fk([0.0, 0.0])
    np.testing.assert_allclose(T[0], B)
    np.testing.assert_allclose(T[1], B)


def test_cycle_and_bad_parent_rejected():
    from roboio.kinematics import KinematicModel
    with pytest.raises(ValueError):
        KinematicModel([1, 0], np.tile(np.eye(4), (2, 1, 1)), np.zeros((2, 3)), [False, False])
    with pytest.raises(ValueError):
        KinematicModel([5], np.eye(4)[None], np.zeros((1, 3)), [False])


def test_drivers_roundtrip_affine():
    from roboio import Driver
    r = planar3r()
    r.drivers = [Driver("a", "normal", [0]), Driver("b", "affine", [1, 2], [2.0, -1.0], [0.1, 0.0])]
    q = r.config_from_drivers([0.5, 0.3])
    np.testing.assert_allclose(q, [0.5, 0.1 + 0.6, -0.3])
    np.testing.assert_allclose(r.drivers_from_config(q), [0.5, 0.3])
