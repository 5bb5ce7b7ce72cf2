"""GraspIt!'s default mass properties of a dynamic body (``body.cpp``), for bodies whose
file gives no ``<cog>`` or ``<inertia_matrix>``. All in the body frame, millimetres.

* Triangles: every triangle of the geometry (scale and offset applied), coordinates in
  single precision as Coin hands them over; triangles with two identical corners are
  dropped.
* ``<cog>`` default: the **area-weighted centroid of the surface** (``computeDefaultCoG``,
  the "CGDB" rule -- not the volume centroid); (0, 0, 0) without triangles.
* ``<inertia_matrix>`` default: Mirtich's polyhedral volume integrals for unit total mass,
  about the **volume** centroid. GraspIt! gives up (and uses a matrix whose first column is
  ones) when the volume is below 1e-5 mm^3, the centroid is NaN (a zero-area triangle that
  is not caught by the identical-corner test poisons the sums) or farther than 500 mm from the
  origin on some axis; :func:`default_inertia` then returns None ("unknown").
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...transforms import transform_points, vector_dot, vector_norm

__all__ = ["body_triangles", "default_cog", "default_inertia"]


def body_triangles(vertices, faces, transform_mm) -> np.ndarray:
    """``(T, 3, 3)`` float64 triangle corners in the body frame (mm), rounded to single
    precision like Coin's, without triangles that have two identical corners."""
    v = np.asarray(vertices, float)
    f = np.asarray(faces, np.int64)
    if len(f) == 0:
        return np.zeros((0, 3, 3))
    M = np.asarray(transform_mm, float)
    p = transform_points(M, v).astype(np.float32)
    tri = p[f]
    same = (np.all(tri[:, 0] == tri[:, 1], axis=1) | np.all(tri[:, 1] == tri[:, 2], axis=1)
            | np.all(tri[:, 0] == tri[:, 2], axis=1))
    return tri[~same].astype(np.float64)


def default_cog(tri) -> np.ndarray:
    """Area-weighted mean of the triangle centroids (mm); zero when the area is zero."""
    if len(tri) == 0:
        return np.zeros(3)
    area = 0.5 * vector_norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]))
    total = area.sum()
    if total == 0:
        return np.zeros(3)
    return (area[:, None] * tri.mean(axis=1)).sum(axis=0) / total


def _pick(x, idx):
    return np.take_along_axis(x, idx[:, None], axis=1)[:, 0]


def default_inertia(tri) -> Optional[np.ndarray]:
    """Unit-mass inertia tensor (mm^2) about the volume centroid, or None where GraspIt!'s
    computation fails (see the module docstring)."""
    if len(tri) == 0:
        return None
    v0, v1, v2 = tri[:, 0], tri[:, 1], tri[:, 2]
    with np.errstate(all="ignore"):
        n = np.cross(v1 - v0, v2 - v1)
        n = n / vector_norm(n)[:, None]
        w = -vector_dot(n, v0)
        an = np.abs(n)
        C = np.where((an[:, 0] > an[:, 1]) & (an[:, 0] > an[:, 2]), 0,
                     np.where(an[:, 1] > an[:, 2], 1, 2))
        A = (C + 1) % 3
        B = (A + 1) % 3
        # projection integrals over each face's projection on its (A, B) plane
        P = dict.fromkeys(("1", "a", "aa", "aaa", "b", "bb", "bbb", "ab", "aab", "abb"), 0.0)
        for e in range(3):
            p0, p1 = tri[:, e], tri[:, (e + 1) % 3]
            a0, b0, a1, b1 = _pick(p0, A), _pick(p0, B), _pick(p1, A), _pick(p1, B)
            da, db = a1 - a0, b1 - b0
            a0_2, b0_2, a1_2, b1_2 = a0 * a0, b0 * b0, a1 * a1, b1 * b1
            a0_3, b0_3, a1_3, b1_3 = a0_2 * a0, b0_2 * b0, a1_2 * a1, b1_2 * b1
            C1 = a1 + a0
            Ca = a1 * C1 + a0_2
            Caa = a1 * Ca + a0_3
            Caaa = a1 * Caa + a0_3 * a0
            Cb = b1 * (b1 + b0) + b0_2
            Cbb = b1 * Cb + b0_3
            Cbbb = b1 * Cbb + b0_3 * b0
            Cab = 3 * a1_2 + 2 * a1 * a0 + a0_2
            Kab = a1_2 + 2 * a1 * a0 + 3 * a0_2
            Caab = a0 * Cab + 4 * a1_3
            Kaab = a1 * Kab + 4 * a0_3
            Cabb = 4 * b1_3 + 3 * b1_2 * b0 + 2 * b1 * b0_2 + b0_3
            Kabb = b1_3 + 2 * b1_2 * b0 + 3 * b1 * b0_2 + 4 * b0_3
            P["1"] = P["1"] + db * C1
            P["a"] = P["a"] + db * Ca
            P["aa"] = P["aa"] + db * Caa
            P["aaa"] = P["aaa"] + db * Caaa
            P["b"] = P["b"] + da * Cb
            P["bb"] = P["bb"] + da * Cbb
            P["bbb"] = P["bbb"] + da * Cbbb
            P["ab"] = P["ab"] + db * (b1 * Cab + b0 * Kab)
            P["aab"] = P["aab"] + db * (b1 * Caab + b0 * Kaab)
            P["abb"] = P["abb"] + da * (a1 * Cabb + a0 * Kabb)
        P1, Pa, Paa, Paaa = P["1"] / 2, P["a"] / 6, P["aa"] / 12, P["aaa"] / 20
        Pb, Pbb, Pbbb = P["b"] / -6, P["bb"] / -12, P["bbb"] / -20
        Pab, Paab, Pabb = P["ab"] / 24, P["aab"] / 60, P["abb"] / -60
        # face integrals
        nA, nB, nC = _pick(n, A), _pick(n, B), _pick(n, C)
        k1 = 1 / nC
        k2, k3, k4 = k1 * k1, k1 * k1 * k1, k1 * k1 * k1 * k1
        Fa, Fb = k1 * Pa, k1 * Pb
        Fc = -k2 * (nA * Pa + nB * Pb + w * P1)
        Faa, Fbb = k1 * Paa, k1 * Pbb
        Fcc = k3 * (nA * nA * Paa + 2 * nA * nB * Pab + nB * nB * Pbb
                    + w * (2 * (nA * Pa + nB * Pb) + w * P1))
        Faaa, Fbbb = k1 * Paaa, k1 * Pbbb
        Fccc = -k4 * (nA ** 3 * Paaa + 3 * nA * nA * nB * Paab + 3 * nA * nB * nB * Pabb + nB ** 3 * Pbbb
                      + 3 * w * (nA * nA * Paa + 2 * nA * nB * Pab + nB * nB * Pbb)
                      + w * w * (3 * (nA * Pa + nB * Pb) + w * P1))
        Faab = k1 * Paab
        Fbbc = -k2 * (nA * Pabb + nB * Pbbb + w * Pbb)
        Fcca = k3 * (nA * nA * Paaa + 2 * nA * nB * Paab + nB * nB * Pabb
                     + w * (2 * (nA * Paa + nB * Pab) + w * Pa))
        # volume integrals: the face values land on the axes A, B, C of each face
        x_first = np.where(A == 0, Fa, np.where(B == 0, Fb, Fc))
        T0 = np.sum(n[:, 0] * x_first)
        T1, T2, TP = np.zeros(3), np.zeros(3), np.zeros(3)
        for idx, v1_, v2_, vp in ((A, Faa, Faaa, Faab), (B, Fbb, Fbbb, Fbbc), (C, Fcc, Fccc, Fcca)):
            nn = _pick(n, idx)
            for axis in range(3):
                sel = idx == axis
                T1[axis] += np.sum(nn[sel] * v1_[sel])
                T2[axis] += np.sum(nn[sel] * v2_[sel])
                TP[axis] += np.sum(nn[sel] * vp[sel])
        T1 /= 2
        T2 /= 3
        TP /= 2
        r = T1 / T0
    if np.any(np.isnan(r)) or abs(T0) < 1.0e-5 or np.any(np.abs(r) > 5.0e2):
        return None
    density = 1.0 / T0
    I = np.empty((3, 3))
    I[0, 0] = density * (T2[1] + T2[2]) - (r[1] ** 2 + r[2] ** 2)
    I[1, 1] = density * (T2[2] + T2[0]) - (r[2] ** 2 + r[0] ** 2)
    I[2, 2] = density * (T2[0] + T2[1]) - (r[0] ** 2 + r[1] ** 2)
    I[0, 1] = I[1, 0] = -density * TP[0] + r[0] * r[1]
    I[1, 2] = I[2, 1] = -density * TP[1] + r[1] * r[2]
    I[0, 2] = I[2, 0] = -density * TP[2] + r[2] * r[0]
    return I
