"""Robot self-collision (Robot.self_collisions / self_collides / self_distance / batches) on
a hand-built arm with hand-worked answers, the compiled model's cache, worker processes, the
broad phase (compiled against numpy, and never dropping touching boxes), World.collisions."""
import numpy as np
import pytest

import roboio
from roboio.model import Joint, Link, Primitive, RigidObject, Robot, Terrain, World

pytest.importorskip("coal")


def arm(reach=0.95) -> Robot:
    """A base box (half 0.1) at the origin; an arm turning about z (no geometry); a tip
    link 1 m out turning about z, carrying a ball of radius 0.1 ``reach`` m further out."""
    r = Robot("arm")
    base = Link("base", geometry=Primitive("AABB", {"bmin": [-0.1] * 3, "bmax": [0.1] * 3}))
    r.add_link(base, qmin=0, qmax=0)
    r.add_link(Link("upper", 0, axis=(0, 0, 1)), qmin=-np.pi, qmax=np.pi)
    T = np.eye(4)
    T[0, 3] = 1.0
    tip = Link("tip", 1, axis=(0, 0, 1), parent_transform=T,
               geometry=Primitive("Sphere", {"center": [reach, 0, 0], "radius": 0.1}))
    r.add_link(tip, qmin=-np.pi, qmax=np.pi)
    r.joints = [Joint("weld", [0]), Joint("normal", [1], 0), Joint("normal", [2], 1)]
    r.self_collision_pairs = {(0, 2)}
    return r


def expected_distance(q2, reach=0.95, margin=0.0):
    """Ball (r 0.1) to box (half 0.1) distance, worked by hand: the ball's centre is at
    (1 + reach cos q2, reach sin q2, 0) in the base frame (q1 = 0)."""
    c = np.array([1 + reach * np.cos(q2), reach * np.sin(q2), 0.0])
    outside = np.maximum(np.abs(c) - 0.1, 0.0)
    inside = np.max(np.abs(c) - 0.1)
    d = np.linalg.norm(outside) if inside > 0 else inside
    return d - 0.1 - margin


def test_folded_arm_collides_straight_one_does_not(kinematics_backend):
    r = arm()
    assert r.self_collisions([0, 0, np.pi]) == [(0, 2)]
    assert r.self_collides([0, 0, np.pi]) and not r.self_collides([0, 0, 0])
    assert r.self_collisions() == []                     # the initial configuration
    for q2 in np.linspace(0, np.pi, 13):
        d, pair = r.self_distance([0, 0, q2])
        assert pair == (0, 2)
        want = expected_distance(q2)
        assert d == pytest.approx(want, abs=1e-6 if want < 0 else 1e-9)
        assert r.self_collides([0, 0, q2]) == (want <= 0)


def test_the_compiled_model_follows_edits():
    r = arm()
    q = [0, 0, 2.5]
    d = expected_distance(2.5)
    assert r.self_distance(q)[0] == pytest.approx(d, abs=1e-9)
    r.links[2].geometry.margin = 0.05                 # a margin shrinks the distance
    assert r.self_distance(q)[0] == pytest.approx(d - 0.05, abs=1e-9)
    r.links[0].geometry = Primitive("AABB", {"bmin": [-0.2] * 3, "bmax": [0.2] * 3})
    assert r.self_distance(q)[0] < d - 0.05 - 0.05
    r.self_collision_pairs.discard((0, 2))            # edited in place
    assert r.self_distance(q) == (np.inf, None) and not r.self_collides([0, 0, np.pi])
    r.self_collision_pairs = {(1, 2), (0, 2)}         # a link without geometry never collides
    assert r.self_collisions([0, 0, np.pi]) == [(0, 2)]
    T = np.array(r.links[2].parent_transform)
    T[0, 3] = 2.0                                     # the kinematics changed
    r.links[2].parent_transform = T
    assert not r.self_collides([0, 0, np.pi])


def test_batches_and_worker_processes_give_the_single_answers():
    r = arm()
    Q = np.zeros((40, 3))
    Q[:, 2] = np.linspace(-np.pi, np.pi, 40)
    single = [r.self_collides(q) for q in Q]
    assert any(single) and not all(single)
    assert r.self_collides_batch(Q).tolist() == single
    assert r.self_collides_batch(Q, workers=2).tolist() == single
    np.testing.assert_allclose(r.self_distance_batch(Q, workers=2),
                               [r.self_distance(q)[0] for q in Q], atol=1e-12)
    with pytest.raises(ValueError):
        r.self_collides_batch(np.zeros((3, 2)))


def test_the_broad_phase_keeps_every_pair_whose_boxes_touch():
    from roboio.collision.cull import Culler, make_culler
    rng = np.random.default_rng(4)
    n = 12
    centers = rng.uniform(-0.2, 0.2, (n, 3))
    halves = rng.uniform(0.02, 0.3, (n, 3))
    radii = np.linalg.norm(halves, axis=1)
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)])
    ref = Culler(centers, halves, radii, pairs)
    fast = make_culler(centers, halves, radii, pairs)
    from roboio.transforms import axis_angle_to_matrix
    kept_total = 0
    for _ in range(30):
        F = np.zeros((n, 4, 4))
        for i in range(n):
            a = rng.normal(size=3)
            F[i, :3, :3] = axis_angle_to_matrix(a / np.linalg.norm(a), rng.uniform(0, np.pi))
            F[i, :3, 3] = rng.uniform(-1, 1, 3)
            F[i, 3, 3] = 1
        kept = ref.overlapping(F)
        assert fast.overlapping(F) == kept
        kept_total += len(kept)
        # independent check: points of box i inside box j (sampled) mean the pair is kept
        u = rng.uniform(-1, 1, (400, 3))
        for k, (i, j) in enumerate(pairs):
            world = (centers[i] + u * halves[i]) @ F[i, :3, :3].T + F[i, :3, 3]
            local = (world - F[j, :3, 3]) @ F[j, :3, :3] - centers[j]
            if np.any(np.all(np.abs(local) <= halves[j], axis=1)):
                assert k in kept
        lb_ref, lb_fast = np.empty(len(pairs)), np.empty(len(pairs))
        ref.lower_bounds(F, lb_ref)
        fast.lower_bounds(F, lb_fast)
        np.testing.assert_allclose(lb_fast, lb_ref, atol=1e-12)
    assert 0 < kept_total < 30 * len(pairs)


def test_world_collisions_pair_what_klampt_pairs():
    r = arm()
    w = World("w")
    w.add(r)
    crate = RigidObject("crate", Primitive("Sphere", {"center": [0, 0, 0], "radius": 0.1}))
    crate.transform[:3, 3] = [1.95, 0, 0]             # touching the tip's ball at q = 0
    w.add(crate)
    floor = Terrain("floor", Primitive("AABB", {"bmin": [-5, -5, -1], "bmax": [5, 5, -0.15]}))
    w.add(floor)
    w.add(Terrain("wall", Primitive("AABB", {"bmin": [-5, -5, -1], "bmax": [5, 5, -0.15]})))
    names = [(a.name, b.name) for a, b in w.collisions()]
    # the base rests on the floor: root links are not checked against terrains; two terrains
    # never are
    assert names == [("crate", "tip")]
    assert [(a.name, b.name) for a, b in w.collisions({"arm": [0, 0, np.pi]})] == [("base", "tip")]
    crate.transform[:3, 3] = [0, 0, -0.1]
    assert [(a.name, b.name) for a, b in w.collisions({0: [0, 0, 1]})] == \
        [("floor", "crate"), ("wall", "crate"), ("crate", "base")]
    with pytest.raises(KeyError):
        w.collisions({"nobody": [0, 0, 0]})


def test_corpus_free_sample_collides():
    arm_ = roboio.load("roboio/data/samples/planar_arm.rob")
    assert arm_.self_collisions([0, -0.96, -2.6, -1, 0.03, 0.03]) == [(0, 4), (0, 5)]
