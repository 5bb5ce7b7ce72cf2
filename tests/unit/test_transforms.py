import numpy as np
import pytest

from roboio import transforms as tf


def test_elementary_rotations_hand_worked():
    # Ry(+90 deg) maps +x to -z (right-handed), Rz(+90) maps +x to +y, Rx(+90) maps +y to +z
    np.testing.assert_allclose(tf.rot_y(np.pi / 2) @ [1, 0, 0], [0, 0, -1], atol=1e-15)
    np.testing.assert_allclose(tf.rot_z(np.pi / 2) @ [1, 0, 0], [0, 1, 0], atol=1e-15)
    np.testing.assert_allclose(tf.rot_x(np.pi / 2) @ [0, 1, 0], [0, 0, 1], atol=1e-15)


def test_rpy_order_is_z_y_x():
    r, p, y = 0.3, -0.4, 1.1
    expected = tf.rot_z(y) @ tf.rot_y(p) @ tf.rot_x(r)
    np.testing.assert_allclose(tf.rpy_to_matrix([r, p, y]), expected, atol=1e-15)
    np.testing.assert_allclose(tf.matrix_to_rpy(expected), [r, p, y], atol=1e-12)


def test_rpy_vectorised_and_roundtrip():
    rng = np.random.default_rng(1)
    rpy = rng.uniform(-1.4, 1.4, size=(50, 3))
    R = tf.rpy_to_matrix(rpy)
    assert R.shape == (50, 3, 3)
    np.testing.assert_allclose(tf.matrix_to_rpy(R), rpy, atol=1e-12)


def test_quaternion_hand_worked():
    # 90 degrees about z: w = cos 45, z = sin 45
    q = [np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)]
    np.testing.assert_allclose(tf.quat_to_matrix(q), tf.rot_z(np.pi / 2), atol=1e-15)
    np.testing.assert_allclose(tf.matrix_to_quat(tf.rot_z(np.pi / 2)), q, atol=1e-15)


def test_quaternion_roundtrip_all_branches():
    rng = np.random.default_rng(2)
    q = rng.normal(size=(200, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    q *= np.sign(q[:, :1])
    np.testing.assert_allclose(tf.matrix_to_quat(tf.quat_to_matrix(q)), q, atol=1e-12)
    # 180-degree rotations exercise the non-trace branches
    for R in (tf.rot_x(np.pi), tf.rot_y(np.pi), tf.rot_z(np.pi)):
        np.testing.assert_allclose(tf.quat_to_matrix(tf.matrix_to_quat(R)), R, atol=1e-12)


def test_moment_is_exponential_map():
    m = np.array([0.2, -0.5, 0.7])
    angle = np.linalg.norm(m)
    np.testing.assert_allclose(tf.moment_to_matrix(m), tf.axis_angle_to_matrix(m / angle, angle))
    np.testing.assert_allclose(tf.matrix_to_moment(tf.moment_to_matrix(m)), m, atol=1e-12)
    np.testing.assert_allclose(tf.moment_to_matrix([0, 0, 0]), np.eye(3))


def test_rodrigues_against_series():
    # exp([w]x) by its power series, independently of the closed form
    w = np.array([0.3, 0.1, -0.8])
    K = tf.skew(w)
    E, term = np.eye(3), np.eye(3)
    for k in range(1, 30):
        term = term @ K / k
        E = E + term
    np.testing.assert_allclose(tf.moment_to_matrix(w), E, atol=1e-14)


def test_modified_dh_puma_link4():
    # spec section 3.15: alpha -90 deg, a 0, d 0.6, theta 0
    T = tf.dh_modified(np.radians(-90), 0.0, 0.0, 0.6)
    np.testing.assert_allclose(T[:3, :3], [[1, 0, 0], [0, 0, 1], [0, -1, 0]], atol=1e-15)
    np.testing.assert_allclose(T[:3, 3], [0, 0.6, 0], atol=1e-15)


def test_rows12_is_row_major():
    T = tf.rows12_to_transform([0, -1, 0, 1, 0, 0, 0, 0, 1, 1, 2, 3])
    np.testing.assert_allclose(T[:3, :3] @ [1, 0, 0], [0, 1, 0])
    np.testing.assert_allclose(T[:3, 3], [1, 2, 3])
    assert tf.transform_to_rows12(T) == [0, -1, 0, 1, 0, 0, 0, 0, 1, 1, 2, 3]


def test_inverse_transform():
    T = tf.make_transform(tf.rpy_to_matrix([0.1, 0.2, 0.3]), [1, -2, 0.5])
    np.testing.assert_allclose(tf.inverse_transform(T) @ T, np.eye(4), atol=1e-15)


@pytest.mark.parametrize("u", [0.0, 0.25, 1.0])
def test_slerp_endpoints_and_midpoint(u):
    q0 = tf.matrix_to_quat(np.eye(3))
    q1 = tf.matrix_to_quat(tf.rot_z(1.0))
    q = tf.slerp(q0, q1, u)
    np.testing.assert_allclose(tf.quat_to_matrix(q), tf.rot_z(u * 1.0), atol=1e-12)


def test_rpy_scalar_path_equals_vectorised_and_the_product():
    """rpy_rows / rpy_xyz_transform (readers' per-origin path, Python floats) give exactly
    rpy_to_matrix's numbers, which are Rz @ Ry @ Rx of the elementary rotations (to
    rounding), with no negative zeros."""
    rng = np.random.default_rng(5)
    special = [0.0, -0.0, np.pi / 2, -np.pi / 2, np.pi, 1e-300, -3.0]
    for i in range(3000):
        rpy = rng.uniform(-7, 7, 3)
        if i % 2:
            rpy[rng.integers(3)] = special[rng.integers(len(special))]
        if i % 3 == 0:
            rpy[rng.integers(3)] = 0.0
        xyz = rng.uniform(-2, 2, 3)
        R = tf.rpy_to_matrix(rpy)
        T = tf.rpy_xyz_transform([float(v) for v in rpy], [float(v) for v in xyz])
        assert np.array_equal(T[:3, :3], R) and not np.signbit(T[:3, :3][T[:3, :3] == 0]).any()
        assert np.array_equal(np.asarray(tf.rpy_rows(*[float(v) for v in rpy])), R)
        assert np.array_equal(T[:3, 3], xyz) and np.array_equal(T[3], [0, 0, 0, 1])
        product = tf.rot_z(rpy[2]) @ tf.rot_y(rpy[1]) @ tf.rot_x(rpy[0])
        assert np.allclose(R, product, rtol=0, atol=4e-16)
    assert np.array_equal(tf.rpy_rows(0.0, 0.0, 0.0), np.eye(3))
