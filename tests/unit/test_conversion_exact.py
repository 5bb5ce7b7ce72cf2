"""Conversions that are exact where the target can be, and checked where it cannot:
non-unit axes (URDF readers normalise them), link frames that are not rotations (a
rigid-body target holds their nearest rotation), and write -> read -> write fixed points of
the URDF ``rpy`` and Choreonoid axis-angle writers. Expected values are hand-worked (a joint
turns by q |axis|; a frame's nearest rotation) or come from the readers' own formulas."""
import math
import warnings

import numpy as np
import pytest

import roboio
from roboio.formats.urdf._writer import stable_rpy
from roboio.model import Driver, Joint, Link, Robot
from roboio.transforms import axis_angle_to_matrix, rpy_to_matrix
from roboio.verify import verify


def two_links(axis=(0, 0, 1), R=np.eye(3)):
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = (0.3, 0.0, 0.1)
    T2 = np.eye(4)
    T2[:3, 3] = (0.0, 0.2, 0.0)
    links = [Link("a", -1, "revolute", axis, T, mass=1.0, inertia=np.eye(3)),
             Link("b", 0, "revolute", (0, 1, 0), T2, mass=1.0, inertia=np.eye(3))]
    r = Robot("t")
    r.set_links(links, qmin=[-1, -1], qmax=[1, 1], vmax=[2, 2], amax=[10, 10], tmax=[3, 3])
    r.joints = [Joint("normal", [0]), Joint("normal", [1])]
    r.drivers = [Driver(l.name, "normal", [l.index], qmin=-1, qmax=1, vmin=-2, vmax=2, tmin=-3,
                        tmax=3, amin=-10, amax=10, servo_p=100, servo_d=10) for l in links]
    return r


def reread(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(path)


def test_verify_compares_scaled_axes_at_equal_angles():
    a = two_links(axis=(0, 0, 2))
    b = two_links(axis=(0, 0, 1))       # a turns by 2q: b at 2q is the same frame
    res = verify(a, b, 20)
    assert res.ok and any("equal angles" in n for n in res.notes)
    c = two_links(axis=(0, 0, -1))      # the opposite direction is a different joint
    assert not verify(a, c, 20).ok


def test_non_unit_axis_through_urdf_verifies(tmp_path):
    a = two_links(axis=(0, 0, 1 + 3.7e-7))      # as in atlas.rob
    rep = roboio.save(a, tmp_path / "t.urdf")
    assert any("not unit length" in x for x in rep.lost)
    b = reread(tmp_path / "t.urdf")
    assert b.qmax[0] == pytest.approx(1 + 3.7e-7, rel=1e-15)       # limits scaled by |axis|
    assert verify(a, b, 50).ok


def test_frames_that_are_not_rotations_are_compared_with_their_nearest_rotation(tmp_path):
    R = axis_angle_to_matrix(np.array([1.0, 2.0, 3.0]) / math.sqrt(14), 0.7)
    stretched = R * (1 + 4e-7)                  # a rotation written with few digits
    a = two_links(R=stretched)
    rep = roboio.save(a, tmp_path / "t.urdf")
    assert any("not rigid" in x for x in rep.lost)
    b = reread(tmp_path / "t.urdf")
    np.testing.assert_allclose(b.links[0].parent_transform[:3, :3], R, atol=1e-15, rtol=0)
    res = verify(a, b, 30)
    assert res.ok and not res.exact and any("not rotations" in n for n in res.accounted), res
    # a rotation that is off by more than the stretch still fails
    wrong = two_links(R=axis_angle_to_matrix(np.array([1.0, 2.0, 3.0]) / math.sqrt(14), 0.7 + 1e-6))
    assert not verify(a, wrong, 30).ok


def test_stable_rpy_is_a_fixed_point():
    rng = np.random.default_rng(3)
    for _ in range(300):
        R = axis_angle_to_matrix(rng.normal(size=3), rng.uniform(-np.pi, np.pi))
        rpy = stable_rpy(R)
        back = rpy_to_matrix(np.array(rpy))          # as the URDF reader builds it
        assert np.abs(back - R).max() < 1e-15
        assert stable_rpy(back) == rpy


@pytest.mark.parametrize("degree", [False, True])
def test_body_rotation_is_a_fixed_point(tmp_path, degree):
    from roboio.formats.choreonoid.body._writer import _Writer
    w = _Writer(Robot("x"), str(tmp_path / "x.body"), None)
    w.degree = degree
    rng = np.random.default_rng(4)
    angles = list(rng.uniform(0.01, np.pi, 40)) + [np.pi - 1e-8, np.pi - 2.5e-8, 2.0943951023875416]
    for angle in angles:
        axis = rng.normal(size=3)
        R = axis_angle_to_matrix(axis / np.linalg.norm(axis), angle)
        v = w.rotation_value(R)
        a = np.array(v[:3])
        ang = v[3] * math.pi / 180.0 if degree else v[3]      # the reader's conversion
        back = axis_angle_to_matrix(a / float(np.sqrt(np.sum(a * a))), ang)
        assert np.abs(back - R).max() < 1e-14
        assert w.rotation_value(back) == v


def test_body_mass_keys_are_read_as_written(tmp_path):
    # m c / m is not c for these numbers: Choreonoid combines only RigidBody elements
    m, c = 0.3, -0.0136946
    assert m * c / m != c
    text = ("format: ChoreonoidBody\nformatVersion: 1.0\nangleUnit: radian\nname: x\n"
            "links:\n  -\n    name: a\n    jointType: fixed\n"
            f"    mass: {m}\n    centerOfMass: [ 0, 0, {c} ]\n"
            "    inertia: [ 1, 0, 0, 0, 1, 0, 0, 0, 1 ]\n")
    p = tmp_path / "x.body"
    p.write_text(text)
    r = roboio.load(p)
    assert r.links[0].com[2] == c and r.links[0].mass == m


@pytest.mark.parametrize("ext", ["urdf", "body", "mjcf"])
def test_report_states_the_fk_change_of_nearest_rotations(tmp_path, ext):
    # a uniformly stretched rotation (1 + e) R: the nearest rotation is R, and link b, 0.2 m
    # from a's origin, moves by exactly e * 0.2 (hand-worked); matrix entries by at most e
    e = 4e-7
    R = axis_angle_to_matrix(np.array([1.0, 2.0, 3.0]) / math.sqrt(14), 0.7)
    rep = roboio.save(two_links(R=R * (1 + e)), tmp_path / f"t.{ext}")
    pos, rot = rep.fk_error
    assert pos == pytest.approx(0.2 * e, rel=1e-6)
    assert 0 < rot <= e * (1 + 1e-9)
    assert rep.to_dict()["fk_error"]["position"] == pos
    exact = roboio.save(two_links(R=R), tmp_path / f"u.{ext}")
    assert exact.fk_error == (0.0, 0.0)


def test_rob_writer_is_exact(tmp_path):
    a = two_links(R=axis_angle_to_matrix(np.array([1.0, 2.0, 3.0]) / math.sqrt(14), 0.7) * (1 + 4e-7))
    rep = roboio.save(a, tmp_path / "t.rob")
    assert rep.fk_error == (0.0, 0.0) and not rep.lost
    b = reread(tmp_path / "t.rob")
    assert np.array_equal(b.links[0].parent_transform, a.links[0].parent_transform)


def test_near_zero_angles_reach_a_fixed_point():
    # a roll of 7e-17 rad (JACO2 -> URDF) is below the rounding of the other angles: no
    # nearby value rebuilds the matrix exactly, 0 does
    T = rpy_to_matrix(np.array([-7.02747551439005e-17, -0.5235987755982988, -0.18500490071139886]))
    rpy = stable_rpy(T)
    assert np.abs(rpy_to_matrix(np.array(rpy)) - T).max() < 1e-16
    assert stable_rpy(rpy_to_matrix(np.array(rpy))) == rpy


def test_scaled_mesh_origin_is_a_fixed_point():
    from roboio.formats.affine import split_affine
    from roboio.formats.urdf._writer import stable_scaled_rpy
    rng = np.random.default_rng(5)
    for _ in range(30):
        R = axis_angle_to_matrix(rng.normal(size=3), rng.uniform(-np.pi, np.pi))
        s = np.array([0.001, 0.001, 0.001]) * rng.choice([1, 2.5, 1e3])
        rpy = stable_scaled_rpy(R, s)
        M = np.eye(4)
        M[:3, :3] = rpy_to_matrix(np.array(rpy))
        M = M @ np.diag([*s, 1.0])                   # as the URDF reader builds it
        s2, R2, _ = split_affine(M)                  # as the next write splits it
        assert np.abs(R2 - R).max() < 1e-15
        if np.array_equal(s2, s):
            assert stable_scaled_rpy(R2, s2) == rpy


def test_body_with_two_roots_is_readable_and_exact(tmp_path):
    # a second root becomes a child of the first (fixed) root, placed where it was
    r = two_links()
    r.links[1].parent = -1
    r.set_links(r.links, qmin=r.qmin, qmax=r.qmax, vmin=r.vmin, vmax=r.vmax, amax=r.amax, tmax=r.tmax)
    r.joints = [Joint("weld", [0]), Joint("normal", [1])]
    r.drivers = r.drivers[1:]
    r.qmin[0] = r.qmax[0] = 0.0
    roboio.save(r, tmp_path / "t.body")
    back = reread(tmp_path / "t.body")
    assert back.link_names == ["a", "b"] and back.links[1].parent == 0
    res = verify(r, back, 20)
    assert res.ok, res


def test_split_affine_gives_a_scale_near_a_short_number_as_that_number():
    """A mesh scale of 0.0013 under a rotation (myo_sim's exosuit meshes: euler 1.57 3.14
    -1.57) measures a few units in the last place off; written as measured, the next
    reading measured it further off at every write -> read -> write."""
    from roboio.formats.affine import split_affine
    from roboio.transforms import rpy_to_matrix
    R = rpy_to_matrix([1.57, 3.14, -1.57])
    M = np.eye(4)
    M[:3, :3] = R * 0.0013
    s, R2, _ = split_affine(M)
    assert list(s) == [0.0013, 0.0013, 0.0013]
    assert np.allclose(R2, R, rtol=0, atol=1e-15)
    M[:3, :3] = R * np.array([0.0012345678901234567, 1.0, 2.5])   # no shorter number near
    assert split_affine(M)[0][0] == pytest.approx(0.0012345678901234567, rel=1e-15)
