"""Frames as MuJoCo's compiler computes them: quaternions ``(w, x, y, z)`` from every MJCF
orientation form, frame composition, ``fromto``.

Plain Python floats in the order of operations of MuJoCo's ``user_util.cc`` /
``ResolveOrientation`` (``user_objects.cc``), so that poses agree with MuJoCo's compiled
model to the last bits where possible. Angles are in radians unless ``degree``.
"""
from __future__ import annotations

import math
from typing import Optional

__all__ = ["MJ_EPS", "MJ_MINVAL", "normvec", "quat_mul", "quat_to_mat", "rot_vec", "accum",
           "resolve", "z2quat", "mat_to_quat", "UNIT", "quat_matrix", "inertia_matrix",
           "eig3", "mesh_inertia"]

MJ_EPS = 1e-14
MJ_MINVAL = 1e-15
UNIT = (1.0, 0.0, 0.0, 0.0)


def normvec(v) -> tuple:
    """``(normalised v, norm)`` as ``mjuu_normvec``: a vector whose squared norm is below
    ``mjEPS`` is returned unchanged with norm 0; one within ``mjEPS`` of unit length is kept."""
    n2 = 0.0
    for x in v:
        n2 += x * x
    if n2 < MJ_EPS:
        return tuple(v), 0.0
    n = math.sqrt(n2)
    if abs(n - 1) > MJ_EPS:
        return tuple(x / n for x in v), n
    return tuple(v), n


def quat_mul(a, b) -> tuple:
    """``a b``, normalised (``mjuu_mulquat``)."""
    return normvec((a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                    a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                    a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                    a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]))[0]


def quat_to_mat(q) -> tuple:
    """Row-major 3x3 rotation of a unit quaternion (``mjuu_quat2mat``)."""
    if q[0] == 1 and q[1] == 0 and q[2] == 0 and q[3] == 0:
        return (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    q00, q01, q02, q03 = q[0] * q[0], q[0] * q[1], q[0] * q[2], q[0] * q[3]
    q11, q12, q13 = q[1] * q[1], q[1] * q[2], q[1] * q[3]
    q22, q23, q33 = q[2] * q[2], q[2] * q[3], q[3] * q[3]
    return (q00 + q11 - q22 - q33, 2 * (q12 - q03), 2 * (q13 + q02),
            2 * (q12 + q03), q00 - q11 + q22 - q33, 2 * (q23 - q01),
            2 * (q13 - q02), 2 * (q23 + q01), q00 - q11 - q22 + q33)


def rot_vec(q, v) -> tuple:
    m = quat_to_mat(q)
    return (m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
            m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
            m[6] * v[0] + m[7] * v[1] + m[8] * v[2])


def accum(pos, quat, child_pos, child_quat) -> tuple:
    """``(pos, quat)`` of a child frame given in the frame ``(pos, quat)``
    (``mjuu_frameaccum``)."""
    v = rot_vec(quat, child_pos)
    return (pos[0] + v[0], pos[1] + v[1], pos[2] + v[2]), quat_mul(quat, child_quat)


def normquat(q) -> tuple:
    return normvec(q)[0]


def z2quat(vec) -> tuple:
    """The minimal rotation taking z to ``vec`` (``mjuu_z2quat``; ``vec`` unit length)."""
    c = (-vec[1], vec[0], 0.0)         # (0, 0, 1) x vec
    c, s = normvec(c)
    if s < 1e-10:
        c = (1.0, 0.0, 0.0)
    ang = math.atan2(s, vec[2])
    h = math.sin(ang / 2)
    return (math.cos(ang / 2), c[0] * h, c[1] * h, c[2] * h)


def mat_to_quat(x, y, z) -> tuple:
    """Quaternion of the frame whose axes are the columns ``x, y, z`` (``mjuu_frame2quat``)."""
    m = (x, y, z)       # m[c][r]
    if m[0][0] + m[1][1] + m[2][2] > 0:
        w = 0.5 * math.sqrt(1 + m[0][0] + m[1][1] + m[2][2])
        q = (w, 0.25 * (m[1][2] - m[2][1]) / w, 0.25 * (m[2][0] - m[0][2]) / w,
             0.25 * (m[0][1] - m[1][0]) / w)
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        a = 0.5 * math.sqrt(1 + m[0][0] - m[1][1] - m[2][2])
        q = (0.25 * (m[1][2] - m[2][1]) / a, a, 0.25 * (m[1][0] + m[0][1]) / a,
             0.25 * (m[2][0] + m[0][2]) / a)
    elif m[1][1] > m[2][2]:
        b = 0.5 * math.sqrt(1 - m[0][0] + m[1][1] - m[2][2])
        q = (0.25 * (m[2][0] - m[0][2]) / b, 0.25 * (m[1][0] + m[0][1]) / b, b,
             0.25 * (m[2][1] + m[1][2]) / b)
    else:
        c = 0.5 * math.sqrt(1 - m[0][0] - m[1][1] + m[2][2])
        q = (0.25 * (m[0][1] - m[1][0]) / c, 0.25 * (m[2][0] + m[0][2]) / c,
             0.25 * (m[2][1] + m[1][2]) / c, c)
    return normquat(q)


def _cross(a, b) -> tuple:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def resolve(kind: str, values, degree: bool, seq: str) -> tuple:
    """``(quat, error)``: the quaternion of an orientation given as ``kind`` (``axisangle``,
    ``xyaxes``, ``zaxis``, ``euler``) with ``values`` as written; ``error`` is MuJoCo's
    message when it refuses the values (then ``quat`` is None)."""
    if kind == "axisangle":
        axis, n = normvec(values[:3])
        if n < MJ_EPS:
            return None, "axisangle too small"
        a = values[3] / 180.0 * math.pi if degree else values[3]
        s = math.sin(a / 2)
        return (math.cos(a / 2), s * axis[0], s * axis[1], s * axis[2]), None
    if kind == "xyaxes":
        x, n = normvec(values[:3])
        if n < MJ_EPS:
            return None, "xaxis too small"
        y = values[3:6]
        d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2]
        y = (y[0] - x[0] * d, y[1] - x[1] * d, y[2] - x[2] * d)
        y, n = normvec(y)
        if n < MJ_EPS:
            return None, "yaxis too small"
        z, n = normvec(_cross(x, y))
        if n < MJ_EPS:
            return None, "cross(xaxis, yaxis) too small"
        return mat_to_quat(x, y, z), None
    if kind == "zaxis":
        z, n = normvec(values[:3])
        if n < MJ_EPS:
            return None, "zaxis too small"
        return z2quat(z), None
    # euler
    q = UNIT
    for i in range(3):
        a = values[i] / 180.0 * math.pi if degree else values[i]
        s = math.sin(a / 2)
        ch = seq[i]
        if ch in "xX":
            r = (math.cos(a / 2), s, 0.0, 0.0)
        elif ch in "yY":
            r = (math.cos(a / 2), 0.0, s, 0.0)
        else:
            r = (math.cos(a / 2), 0.0, 0.0, s)
        q = quat_mul(q, r) if ch.islower() else quat_mul(r, q)
    return normquat(q), None


def fromto_frame(ft) -> Optional[tuple]:
    """``(pos, quat, half_length)`` of a geom given by ``fromto`` (its z axis from the second
    point to the first, as MuJoCo orients it), or None when the points coincide."""
    vec = (ft[0] - ft[3], ft[1] - ft[4], ft[2] - ft[5])
    vec, n = normvec(vec)
    if n / 2 < MJ_EPS:
        return None
    pos = ((ft[0] + ft[3]) / 2, (ft[1] + ft[4]) / 2, (ft[2] + ft[5]) / 2)
    return pos, z2quat(vec), n / 2



def quat_matrix(q):
    """Rotation matrices ``(..., 3, 3)`` of quaternions ``(..., 4)`` as the MJCF reader
    builds a body's or geom's rotation from its ``quat`` attribute (:func:`normvec`, then
    :func:`quat_to_mat`; the same operations, vectorised). Writers use it to pick
    quaternions that read back exactly."""
    import numpy as np
    q = np.asarray(q, float)
    n2 = 0.0 + q[..., 0] * q[..., 0]
    n2 = n2 + q[..., 1] * q[..., 1]
    n2 = n2 + q[..., 2] * q[..., 2]
    n2 = n2 + q[..., 3] * q[..., 3]
    n = np.sqrt(n2)
    scale = (n2 >= MJ_EPS) & (np.abs(n - 1) > MJ_EPS)
    q = np.where(scale[..., None], q / np.where(scale, n, 1.0)[..., None], q)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    q00, q01, q02, q03 = w * w, w * x, w * y, w * z
    q11, q12, q13 = x * x, x * y, x * z
    q22, q23, q33 = y * y, y * z, z * z
    R = np.stack([q00 + q11 - q22 - q33, 2 * (q12 - q03), 2 * (q13 + q02),
                  2 * (q12 + q03), q00 - q11 + q22 - q33, 2 * (q23 - q01),
                  2 * (q13 - q02), 2 * (q23 + q01), q00 - q11 - q22 + q33], axis=-1)
    return R.reshape(q.shape[:-1] + (3, 3))


def inertia_matrix(p):
    """Inertia tensors ``(..., 3, 3)`` of ``(..., 7)`` parameters ``quat`` (4) and
    ``diaginertia`` (3), as the MJCF reader computes them: ``R diag R^T`` written out term by
    term (the same result on every machine, unlike a BLAS product)."""
    import numpy as np
    p = np.asarray(p, float)
    R = quat_matrix(p[..., :4])
    d = p[..., 4:]
    out = np.empty(p.shape[:-1] + (3, 3))
    for i in range(3):
        for j in range(3):
            out[..., i, j] = (R[..., i, 0] * d[..., 0] * R[..., j, 0] + R[..., i, 1] * d[..., 1] * R[..., j, 1]
                              + R[..., i, 2] * d[..., 2] * R[..., j, 2])
    return out



MESH_EIG_TOL = 1e-7     # the stop of MuJoCo's Jacobi for mesh inertias, of the largest element


def eig3(full, tol: float = MESH_EIG_TOL) -> tuple:
    """``(eigval, quat)`` of a symmetric 3x3 matrix (row-major 9-tuple) as MuJoCo's compiler
    decomposes a mesh's inertia (``mjuu_eig3`` in ``mjCMesh::Process``): Jacobi rotations,
    each by its half-angle tangent, accumulated in a quaternion until the largest
    off-diagonal element is at most ``tol`` of the largest element, then the eigenvalues in
    decreasing order (moved only when more than 1e-12 apart). MuJoCo keeps ``quat`` and
    ``eigval``, so the mesh's inertia is the matrix less what the stop left off the diagonal:
    up to 1e-7 of it (2e-8 for the Franka Panda's link0.stl). ``tol`` 1e-7 is what MuJoCo
    4.0's compiled meshes show (31 meshes of several scales agree to 1e-14; 1.2e-7 or 8e-8
    do not)."""
    tol = max(abs(x) for x in full) * tol
    quat = UNIT
    ev = [full[0], full[4], full[8]]
    for _ in range(500):
        V = quat_to_mat(quat)
        Vt = (V[0], V[3], V[6], V[1], V[4], V[7], V[2], V[5], V[8])
        D = _mulmat(_mulmat(Vt, full), V)
        ev = [D[0], D[4], D[8]]
        if abs(D[1]) > abs(D[2]) and abs(D[1]) > abs(D[5]):
            rk, ck, rotk = 0, 1, 2
        elif abs(D[2]) > abs(D[5]):
            rk, ck, rotk = 0, 2, 1
        else:
            rk, ck, rotk = 1, 2, 0
        if abs(D[3 * rk + ck]) <= tol:
            break
        tau = (D[4 * ck] - D[4 * rk]) / (2 * D[3 * rk + ck])
        root = math.sqrt(1 + tau * tau)
        t = 1.0 / (tau + root) if tau >= 0 else -1.0 / (-tau + root)
        h = t / (1 + math.sqrt(1 + t * t))
        r = [1 / math.sqrt(1 + h * h), 0.0, 0.0, 0.0]
        r[rotk + 1] = (h if rotk == 1 else -h) * r[0]
        quat = normvec(quat_mul(quat, r))[0]
    for j in range(3):                      # bubble sort, decreasing: pairs (0,1), (1,2), (0,1)
        j1 = j % 2
        if ev[j1] + 1e-12 < ev[j1 + 1]:
            ev[j1], ev[j1 + 1] = ev[j1 + 1], ev[j1]
            r = [0.707106781186548, 0.0, 0.0, 0.0]
            r[(j1 + 2) % 3 + 1] = r[0]
            quat = normvec(quat_mul(quat, r))[0]
    return tuple(ev), quat


def _mulmat(A, B) -> tuple:
    """Row-major 3x3 product ``A B`` (``mjuu_mulmat``)."""
    return tuple(A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j]
                 for i in range(3) for j in range(3))


def mesh_inertia(I):
    """The 3x3 inertia MuJoCo keeps for a mesh whose exact inertia is ``I``: the ``quat``
    and ``eigval`` of :func:`eig3`, recomposed as :func:`inertia_matrix` does."""
    import numpy as np
    I = np.asarray(I, float)
    ev, quat = eig3(tuple(float(I[i, j]) for i in range(3) for j in range(3)))
    return inertia_matrix(tuple(quat) + tuple(ev))
