"""Rotations and rigid transforms on numpy arrays.

Conventions (the same everywhere in roboio):

* a transform is a 4x4 float64 array ``T`` with ``p_parent = T @ [p_child, 1]``;
* a rotation is a 3x3 matrix; quaternions are ``(w, x, y, z)``;
* roll-pitch-yaw ``(r, p, y)`` means ``R = Rz(y) @ Ry(p) @ Rx(r)`` (URDF and Klamp't);
* a "moment" is the exponential-map vector ``axis * angle`` (radians).

Every function accepts stacked inputs (leading batch dimensions) where it makes sense.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = [
    "rot_x", "rot_y", "rot_z", "rpy_to_matrix", "matrix_to_rpy", "axis_angle_to_matrix",
    "moment_to_matrix", "matrix_to_moment", "quat_to_matrix", "matrix_to_quat", "slerp",
    "make_transform", "inverse_transform", "transform_points", "rows12_to_transform",
    "transform_to_rows12", "dh_modified", "skew", "translation", "rotation_between",
    "rpy_rows", "rpy_xyz_transform", "compose", "vector_norm", "UNIT_TOL", "unit_vector", "det3",
    "symmetric_eigen3", "vector_dot", "matrix_vector", "rotate_tensor", "inverse_affine",
]

# A vector whose length differs from 1 by no more than this is a unit vector as far as
# rounding can tell: readers keep it as written and writers write it as it is, so that
# normalising never drifts in the last digit from one write -> read -> write to the next.
UNIT_TOL = 1e-15


def compose(A, B) -> np.ndarray:
    """Matrix product ``A @ B`` of small matrices (``(..., n, k)`` by ``(..., k, m)``, batch
    dimensions broadcast) in a fixed order of element-wise multiplications and additions:
    the same bits on every machine, whatever BLAS kernel numpy's ``@`` would use (writers
    whose output digits come from a product use this, so that their files do not depend on
    the CPU)."""
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    out = A[..., :, 0:1] * B[..., 0:1, :]
    for k in range(1, A.shape[-1]):
        out = out + A[..., :, k:k + 1] * B[..., k:k + 1, :]
    return out


def vector_norm(v) -> np.ndarray:
    """Euclidean length of ``(..., n)`` vectors, summed element-wise in a fixed order (no
    BLAS dot product: the same bits on every machine)."""
    v = np.asarray(v, dtype=float)
    s = v[..., 0] * v[..., 0]
    for k in range(1, v.shape[-1]):
        s = s + v[..., k] * v[..., k]
    return np.sqrt(s)


def vector_dot(a, b):
    """``a . b`` of ``(..., n)`` vectors (broadcast), summed element-wise in a fixed order
    (no BLAS dot product: the same bits on every machine); a float for 1-D inputs."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    s = a[..., 0] * b[..., 0]
    for k in range(1, a.shape[-1]):
        s = s + a[..., k] * b[..., k]
    return float(s) if np.ndim(s) == 0 else s


def matrix_vector(A, v) -> np.ndarray:
    """``A @ v`` of ``(..., n, k)`` matrices and ``(..., k)`` vectors, batch dimensions
    broadcast (a 3x3 ``A`` and ``(N, 3)`` points give the ``(N, 3)`` rotated points), in a
    fixed order of element-wise operations: the same bits on every machine."""
    A = np.asarray(A, dtype=float)
    v = np.asarray(v, dtype=float)
    out = A[..., :, 0] * v[..., 0:1]
    for k in range(1, A.shape[-1]):
        out = out + A[..., :, k] * v[..., k:k + 1]
    return out


def rotate_tensor(R, S) -> np.ndarray:
    """``R @ S @ R.T`` (a second-moment or inertia tensor ``S`` expressed in the frame that
    ``R`` rotates into), element-wise: the same bits on every machine."""
    R = np.asarray(R, dtype=float)
    return compose(compose(R, S), np.swapaxes(R, -1, -2))


def inverse_affine(T) -> np.ndarray:
    """Inverse of one 4x4 affine transform (any invertible linear part: rotation, scale,
    shear) by cofactors in a fixed order, with no LAPACK: the same bits on every machine.
    A singular linear part gives infinities or NaN, as dividing by a zero determinant does."""
    a = [[float(x) for x in row] for row in np.asarray(T, dtype=float)[:3, :3]]
    cof = [[a[(j + 1) % 3][(i + 1) % 3] * a[(j + 2) % 3][(i + 2) % 3]
            - a[(j + 1) % 3][(i + 2) % 3] * a[(j + 2) % 3][(i + 1) % 3] for j in range(3)]
           for i in range(3)]                   # cof[i][j]: cofactor of a[j][i] (the adjugate)
    det = a[0][0] * cof[0][0] + a[0][1] * cof[1][0] + a[0][2] * cof[2][0]
    with np.errstate(divide="ignore", invalid="ignore"):
        Ainv = np.array(cof) / det
    out = make_transform(Ainv, -matrix_vector(Ainv, np.asarray(T, dtype=float)[:3, 3]))
    return out


def det3(A) -> float:
    """Determinant of a 3x3 matrix by cofactors, in a fixed order (no LAPACK)."""
    a = [[float(x) for x in row] for row in np.asarray(A, dtype=float)]
    return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
            - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
            + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))


def symmetric_eigen3(S) -> tuple:
    """``(w, V)``: eigenvalues (ascending) and eigenvectors (columns, a rotation: det +1) of
    the symmetric 3x3 matrix ``S`` (its upper triangle), by cyclic Jacobi rotations in scalar
    arithmetic: the same bits on every machine, where LAPACK's ``eigh`` depends on the
    BLAS kernel. A diagonal ``S`` gives its diagonal exactly."""
    S = np.asarray(S, dtype=float)
    a = [[float(S[i][j]) if i <= j else float(S[j][i]) for j in range(3)] for i in range(3)]
    v = [[1.0 if i == j else 0.0 for j in range(3)] for i in range(3)]
    for _ in range(64):
        off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
        if off == 0.0:
            break
        for p, q in ((0, 1), (0, 2), (1, 2)):
            apq = a[p][q]
            if apq == 0.0:
                continue
            theta = (a[q][q] - a[p][p]) / (2.0 * apq)
            t = 1.0 / (abs(theta) + math.sqrt(theta * theta + 1.0))
            if theta < 0:
                t = -t
            c = 1.0 / math.sqrt(t * t + 1.0)
            s_ = t * c
            for k in range(3):              # columns p, q of A J
                akp, akq = a[k][p], a[k][q]
                a[k][p], a[k][q] = c * akp - s_ * akq, s_ * akp + c * akq
            for k in range(3):              # rows p, q of J^T (A J)
                apk, aqk = a[p][k], a[q][k]
                a[p][k], a[q][k] = c * apk - s_ * aqk, s_ * apk + c * aqk
            a[p][q] = a[q][p] = 0.0
            for k in range(3):
                vkp, vkq = v[k][p], v[k][q]
                v[k][p], v[k][q] = c * vkp - s_ * vkq, s_ * vkp + c * vkq
    order = sorted(range(3), key=lambda i: (a[i][i], i))
    w = np.array([a[i][i] for i in order])
    V = np.array([[v[k][i] for i in order] for k in range(3)])
    if det3(V) < 0:
        V[:, 0] = -V[:, 0]
    return w, V


def unit_vector(v) -> tuple:
    """``(u, n)``: the direction of the 1-D vector ``v`` and its length ``n``; ``u`` is
    ``v`` itself when its length is 1 to rounding (:data:`UNIT_TOL`), so that a unit vector
    written and read back is not divided again (and ``u`` is ``v`` for a zero vector)."""
    v = np.asarray(v, dtype=float)
    n = float(vector_norm(v))
    if n == 0 or abs(n - 1.0) <= UNIT_TOL:
        return v, n
    return v / n, n


def _angles(a):
    return np.asarray(a, dtype=float)


def rot_x(a) -> np.ndarray:
    """Rotation about +x by ``a`` radians; shape ``a.shape + (3, 3)``."""
    a = _angles(a)
    c, s = np.cos(a), np.sin(a)
    o, z = np.ones_like(a), np.zeros_like(a)
    return np.stack([o, z, z, z, c, -s, z, s, c], axis=-1).reshape(a.shape + (3, 3))


def rot_y(a) -> np.ndarray:
    """Rotation about +y by ``a`` radians (maps +x toward -z for a > 0)."""
    a = _angles(a)
    c, s = np.cos(a), np.sin(a)
    o, z = np.ones_like(a), np.zeros_like(a)
    return np.stack([c, z, s, z, o, z, -s, z, c], axis=-1).reshape(a.shape + (3, 3))


def rot_z(a) -> np.ndarray:
    """Rotation about +z by ``a`` radians."""
    a = _angles(a)
    c, s = np.cos(a), np.sin(a)
    o, z = np.ones_like(a), np.zeros_like(a)
    return np.stack([c, -s, z, s, c, z, z, z, o], axis=-1).reshape(a.shape + (3, 3))


def rpy_to_matrix(rpy) -> np.ndarray:
    """``R = Rz(yaw) Ry(pitch) Rx(roll)`` from ``(..., 3)`` roll, pitch, yaw in radians."""
    rpy = np.asarray(rpy, dtype=float)
    # the product written out element by element (the same operations as rpy_rows, so a
    # reader's scalar origins equal this; a BLAS matrix product would round differently
    # from machine to machine)
    cr, sr = np.cos(rpy[..., 0]), np.sin(rpy[..., 0])
    cp, sp = np.cos(rpy[..., 1]), np.sin(rpy[..., 1])
    cy, sy = np.cos(rpy[..., 2]), np.sin(rpy[..., 2])
    a, c = cy * cp, cy * sp
    d, f = sy * cp, sy * sp
    R = np.stack([a, -sy * cr + c * sr, -sy * -sr + c * cr,
                  d, cy * cr + f * sr, cy * -sr + f * cr,
                  -sp, cp * sr, cp * cr], axis=-1)
    R += 0.0                  # -0.0 -> 0.0, as the sums of the matrix product give
    return R.reshape(rpy.shape[:-1] + (3, 3))


def rpy_rows(roll: float, pitch: float, yaw: float) -> list:
    """:func:`rpy_to_matrix` of one ``(roll, pitch, yaw)`` in plain Python floats, as a
    row-major nested list (for readers: one element's origin costs no numpy calls). The
    products and sums are those of the matrix product, in its order, so the result equals
    ``rpy_to_matrix`` (libm's sin/cos are numpy's on the platforms tested)."""
    if roll == 0.0 and pitch == 0.0 and yaw == 0.0:
        return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    # Rz Ry = [[cy cp, -sy, cy sp], [sy cp, cy, sy sp], [-sp, 0, cp]], then (Rz Ry) Rx
    a, c = cy * cp, cy * sp
    d, f = sy * cp, sy * sp
    # (+ 0.0: -0.0 -> 0.0, as the sums of the matrix product give)
    return [[a + 0.0, -sy * cr + c * sr + 0.0, -sy * -sr + c * cr + 0.0],
            [d + 0.0, cy * cr + f * sr + 0.0, cy * -sr + f * cr + 0.0],
            [0.0 - sp, cp * sr + 0.0, cp * cr + 0.0]]


def rpy_xyz_transform(rpy, xyz) -> np.ndarray:
    """4x4 transform ``make_transform(rpy_to_matrix(rpy), xyz)`` of one origin, built in
    Python floats with a single array allocation (readers make one per element: a copy
    of the identity when there is no rotation, else one flat list)."""
    x, y, z = xyz
    roll, pitch, yaw = rpy
    if roll == 0.0 and pitch == 0.0 and yaw == 0.0:
        T = _EYE4.copy()
        T[0, 3] = x
        T[1, 3] = y
        T[2, 3] = z
        return T
    (r0, r1, r2), (r3, r4, r5), (r6, r7, r8) = rpy_rows(roll, pitch, yaw)
    return np.array([r0, r1, r2, x, r3, r4, r5, y, r6, r7, r8, z, 0.0, 0.0, 0.0, 1.0]).reshape(4, 4)


_EYE4 = np.eye(4)           # (copied, never handed out)


def matrix_to_rpy(R) -> np.ndarray:
    """Inverse of :func:`rpy_to_matrix`; pitch in [-pi/2, pi/2]."""
    R = np.asarray(R, dtype=float)
    pitch = np.arctan2(-R[..., 2, 0], np.hypot(R[..., 0, 0], R[..., 1, 0]))
    gimbal = np.hypot(R[..., 0, 0], R[..., 1, 0]) < 1e-12
    roll = np.where(gimbal, 0.0, np.arctan2(R[..., 2, 1], R[..., 2, 2]))
    yaw = np.where(gimbal, np.arctan2(-R[..., 0, 1], R[..., 1, 1]),
                   np.arctan2(R[..., 1, 0], R[..., 0, 0]))
    return np.stack([roll, pitch, yaw], axis=-1)


def skew(v) -> np.ndarray:
    """Cross-product matrix ``[v]x`` with ``skew(v) @ u == cross(v, u)``."""
    v = np.asarray(v, dtype=float)
    z = np.zeros(v.shape[:-1])
    return np.stack([z, -v[..., 2], v[..., 1], v[..., 2], z, -v[..., 0],
                     -v[..., 1], v[..., 0], z], axis=-1).reshape(v.shape[:-1] + (3, 3))


def axis_angle_to_matrix(axis, angle) -> np.ndarray:
    """Rotation by ``angle`` about ``axis`` (normalised here; a zero axis gives identity)."""
    axis = np.asarray(axis, dtype=float)
    angle = np.asarray(angle, dtype=float)
    n = vector_norm(axis)[..., None]
    u = np.divide(axis, n, out=np.zeros_like(axis), where=n > 0)
    K = skew(u)
    s = np.sin(angle)[..., None, None]
    c = np.cos(angle)[..., None, None]
    return np.eye(3) + s * K + (1.0 - c) * compose(K, K)


def rotation_between(a, b) -> np.ndarray:
    """The smallest rotation (3x3) turning direction ``a`` onto direction ``b``: about
    ``a x b`` by the angle between them (single 3-vectors, normalised here; a zero vector
    gives identity). For obtuse angles it is built as a half turn about ``a x b`` (made
    exactly perpendicular to ``a``; for exactly opposite directions, the perpendicular
    nearest the coordinate axis along which ``a`` is smallest) followed by the acute turn
    from ``-a`` onto ``b``, which keeps ``R @ a == b`` accurate for nearly opposite
    directions."""
    a = np.asarray(a, dtype=float).reshape(3)
    b = np.asarray(b, dtype=float).reshape(3)
    na, nb = float(vector_norm(a)), float(vector_norm(b))
    if na == 0 or nb == 0:
        return np.eye(3)
    a, b = a / na, b / nb
    if vector_dot(a, b) >= 0:
        return _acute_rotation(a, b)
    p = np.cross(a, b)
    if not p.any():
        p = np.cross(a, np.eye(3)[np.argmin(np.abs(a))])
    p -= vector_dot(p, a) * a
    return compose(_acute_rotation(-a, b), axis_angle_to_matrix(p, np.pi))


def _acute_rotation(a, b) -> np.ndarray:
    """Rotation about ``a x b`` by the angle between unit vectors at most 90 degrees apart."""
    axis = np.cross(a, b)
    return axis_angle_to_matrix(axis, np.arctan2(float(vector_norm(axis)), vector_dot(a, b)))


def moment_to_matrix(m) -> np.ndarray:
    """Exponential map: rotation by ``|m|`` about ``m / |m|``."""
    m = np.asarray(m, dtype=float)
    return axis_angle_to_matrix(m, vector_norm(m))


def matrix_to_moment(R) -> np.ndarray:
    """Logarithm map of a rotation matrix: ``axis * angle`` with angle in [0, pi]."""
    R = np.asarray(R, dtype=float)
    return quat_to_moment(matrix_to_quat(R))


def quat_to_moment(q) -> np.ndarray:
    q = np.asarray(q, dtype=float)
    q = q * np.where(q[..., :1] < 0, -1.0, 1.0)
    v = q[..., 1:]
    s = vector_norm(v)
    angle = 2.0 * np.arctan2(s, q[..., 0])
    scale = np.divide(angle, s, out=np.full_like(s, 2.0), where=s > 1e-300)
    return v * scale[..., None]


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrix from a ``(w, x, y, z)`` quaternion (normalised first)."""
    q = np.asarray(q, dtype=float)
    q = q / vector_norm(q)[..., None]
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    out = np.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1)
    return out.reshape(q.shape[:-1] + (3, 3))


def matrix_to_quat(R) -> np.ndarray:
    """``(w, x, y, z)`` unit quaternion with w >= 0 from a rotation matrix (Shepperd's method)."""
    R = np.asarray(R, dtype=float)
    shape = R.shape[:-2]
    R = R.reshape(-1, 3, 3)
    tr = np.trace(R, axis1=1, axis2=2)
    diag = np.stack([tr, R[:, 0, 0], R[:, 1, 1], R[:, 2, 2]], axis=1)
    k = np.argmax(diag, axis=1)
    q = np.empty((len(R), 4))
    for case in range(4):
        idx = np.nonzero(k == case)[0]
        if len(idx) == 0:
            continue
        m = R[idx]
        if case == 0:
            s = np.sqrt(1.0 + tr[idx]) * 2
            q[idx] = np.stack([0.25 * s, (m[:, 2, 1] - m[:, 1, 2]) / s,
                               (m[:, 0, 2] - m[:, 2, 0]) / s, (m[:, 1, 0] - m[:, 0, 1]) / s], 1)
        elif case == 1:
            s = np.sqrt(1.0 + m[:, 0, 0] - m[:, 1, 1] - m[:, 2, 2]) * 2
            q[idx] = np.stack([(m[:, 2, 1] - m[:, 1, 2]) / s, 0.25 * s,
                               (m[:, 0, 1] + m[:, 1, 0]) / s, (m[:, 0, 2] + m[:, 2, 0]) / s], 1)
        elif case == 2:
            s = np.sqrt(1.0 + m[:, 1, 1] - m[:, 0, 0] - m[:, 2, 2]) * 2
            q[idx] = np.stack([(m[:, 0, 2] - m[:, 2, 0]) / s, (m[:, 0, 1] + m[:, 1, 0]) / s,
                               0.25 * s, (m[:, 1, 2] + m[:, 2, 1]) / s], 1)
        else:
            s = np.sqrt(1.0 + m[:, 2, 2] - m[:, 0, 0] - m[:, 1, 1]) * 2
            q[idx] = np.stack([(m[:, 1, 0] - m[:, 0, 1]) / s, (m[:, 0, 2] + m[:, 2, 0]) / s,
                               (m[:, 1, 2] + m[:, 2, 1]) / s, 0.25 * s], 1)
    q *= np.where(q[:, :1] < 0, -1.0, 1.0)
    q /= vector_norm(q)[:, None]
    return q.reshape(shape + (4,))


def slerp(q0, q1, u) -> np.ndarray:
    """Spherical interpolation between ``(w, x, y, z)`` quaternions, the short way round.

    ``q0``, ``q1`` of shape ``(..., 4)`` and ``u`` broadcastable to their batch shape.
    """
    q0 = np.asarray(q0, dtype=float)
    q1 = np.asarray(q1, dtype=float)
    u = np.asarray(u, dtype=float)[..., None]
    dot = np.sum(q0 * q1, axis=-1, keepdims=True)
    q1 = np.where(dot < 0, -q1, q1)
    dot = np.abs(dot)
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    sin_t = np.sin(theta)
    near = sin_t < 1e-9
    safe = np.where(near, 1.0, sin_t)
    w0 = np.where(near, 1.0 - u, np.sin((1.0 - u) * theta) / safe)
    w1 = np.where(near, u, np.sin(u * theta) / safe)
    out = w0 * q0 + w1 * q1
    return out / vector_norm(out)[..., None]


def make_transform(R=None, t=None) -> np.ndarray:
    """4x4 transform from a rotation (default identity) and a translation (default zero)."""
    R = np.eye(3) if R is None else np.asarray(R, dtype=float)
    t = np.zeros(R.shape[:-2] + (3,)) if t is None else np.asarray(t, dtype=float)
    shape = np.broadcast_shapes(R.shape[:-2], t.shape[:-1])
    T = np.zeros(shape + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = t
    T[..., 3, 3] = 1.0
    return T


def translation(t) -> np.ndarray:
    return make_transform(None, t)


def inverse_transform(T) -> np.ndarray:
    """Inverse of a rigid transform (rotation part assumed orthonormal)."""
    T = np.asarray(T, dtype=float)
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    return make_transform(Rt, -compose(Rt, T[..., :3, 3:4])[..., 0])


def transform_points(T, points) -> np.ndarray:
    """Apply a 4x4 (affine) transform to ``(..., 3)`` points: coordinate ``i`` of each
    result is ``((x T[i,0] + y T[i,1]) + z T[i,2]) + T[i,3]``, element-wise in that order
    (no BLAS: the same bits on every machine), one contiguous column at a time (the speed
    of numpy's ``@`` on large meshes, where whole ``(N, 3)`` temporaries were 2-4x slower)."""
    T = np.asarray(T, dtype=float)
    p = np.asarray(points, dtype=float)
    cols = [np.array(p[..., k]) for k in range(3)]
    out = np.empty(p.shape)
    tmp = np.empty(p.shape[:-1])
    for i in range(3):
        o = np.multiply(cols[0], T[i, 0])
        o += np.multiply(cols[1], T[i, 1], out=tmp)
        o += np.multiply(cols[2], T[i, 2], out=tmp)
        o += T[i, 3]
        out[..., i] = o
    return out


def rows12_to_transform(values) -> np.ndarray:
    """12 numbers ``r11 r12 r13 r21 ... r33 t1 t2 t3`` (rotation row by row) -> 4x4."""
    v = np.asarray(values, dtype=float).reshape(-1, 12)
    T = make_transform(v[:, :9].reshape(-1, 3, 3), v[:, 9:])
    return T[0] if np.ndim(values) == 1 else T


def transform_to_rows12(T) -> list:
    """Inverse of :func:`rows12_to_transform` for one transform, as a list of floats."""
    T = np.asarray(T, dtype=float)
    return [float(x) for x in T[:3, :3].reshape(9)] + [float(x) for x in T[:3, 3]]


def dh_modified(alpha, a, theta, d) -> np.ndarray:
    """Modified (Craig) Denavit-Hartenberg: ``Rx(alpha) Tx(a) Rz(theta) Tz(d)``."""
    alpha, a, theta, d = (np.asarray(x, dtype=float) for x in (alpha, a, theta, d))
    R = compose(rot_x(alpha), rot_z(theta))
    t = np.stack([a, -np.sin(alpha) * d, np.cos(alpha) * d], axis=-1)
    return make_transform(R, t)
