"""Masses and inertias as MuJoCo's compiler computes them (``user_objects.cc``,
``user_mesh.cc``): each geom's volume (or surface, ``shellinertia``) and inertia, a mesh's
volume, centre and inertia by its asset's ``inertia`` mode (``legacy``, ``exact``,
``convex``, ``shell``), and a body's inertial from its geoms (``inertiafromgeom``).

Everything is a full inertia tensor about the centre of mass in the body frame (MuJoCo keeps
principal moments and a rotation: the same tensor). Units: kg, m, kg m^2.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...transforms import compose, matrix_vector, rotate_tensor, symmetric_eigen3, vector_dot, vector_norm
from ._orient import MJ_EPS, MJ_MINVAL, mesh_inertia, quat_to_mat

__all__ = ["MassProps", "MeshProps", "primitive_volume", "primitive_inertia", "mesh_props",
           "combine", "geom_props", "rotation"]


@dataclass
class MassProps:
    """``mass`` (kg), centre ``com`` (3,) and ``inertia`` (3x3 about the centre), in one
    frame. (MuJoCo keeps principal moments and axes, ``body_inertia`` and ``body_iquat``:
    the same tensor, which MuJoCo 4 decomposes to machine precision.)"""

    mass: float
    com: np.ndarray
    inertia: np.ndarray

    @property
    def diag(self) -> np.ndarray:
        """Principal moments (increasing)."""
        return symmetric_eigen3((self.inertia + self.inertia.T) / 2)[0]


@dataclass
class MeshProps:
    """A mesh's measure (volume, or area for ``shell``), centre of mass and inertia per
    unit density about that centre, in the mesh's (scaled) coordinates."""

    measure: float
    com: np.ndarray
    inertia: np.ndarray


def primitive_volume(kind: str, size, shell: bool) -> float:
    """Volume (or surface area when ``shell``) of a MuJoCo primitive (``mjCGeom::GetVolume``)."""
    pi = math.pi
    if kind == "sphere":
        r = size[0]
        return 4 * pi * r * r if shell else 4 * pi * r * r * r / 3
    if kind == "capsule":
        r, h = size[0], 2 * size[1]
        return 4 * pi * r * r + 2 * pi * r * h if shell else pi * (r * r * h + 4 * r * r * r / 3)
    if kind == "cylinder":
        r, h = size[0], 2 * size[1]
        return 2 * pi * r * r + 2 * pi * r * h if shell else pi * r * r * h
    if kind == "ellipsoid":
        if shell:
            p = 1.6075
            t = (size[0] * size[1]) ** p + (size[1] * size[2]) ** p + (size[2] * size[0]) ** p
            return 4 * pi * (t / 3) ** (1 / p)
        return 4 * pi * size[0] * size[1] * size[2] / 3
    if kind in ("box", "hfield"):
        if shell:
            return 8 * (size[0] * size[1] + size[1] * size[2] + size[2] * size[0])
        return size[0] * size[1] * size[2] * 8
    return 0.0


def primitive_inertia(kind: str, size, mass: float, shell: bool) -> tuple:
    """Principal moments about the centre, in the geom frame (``mjCGeom::SetInertia``)."""
    pi = math.pi
    if kind == "sphere":
        v = 2 * mass * size[0] * size[0] / (3 if shell else 5)
        return (v, v, v)
    if kind == "capsule":
        r, hh = size[0], size[1]
        h = 2 * hh
        if not shell:
            ms = mass * 4 * r / (4 * r + 3 * h)
            mc = mass - ms
            ixy = mc * (3 * r * r + h * h) / 12
            iz = mc * r * r / 2
            si = 2 * ms * r * r / 5
            ixy += si + ms * h * (3 * r + 2 * h) / 8
            return (ixy, ixy, iz + si)
        a_s, a_c = 4 * pi * r * r, 2 * pi * r * h
        ms = mass * a_s / (a_s + a_c)
        mc = mass - ms
        ixy = mc * (6 * r * r + h * h) / 12
        iz = mc * r * r
        si = 2 * ms * r * r / 3
        hc = r / 2
        hp = hh + hc
        ixy += si + ms * (hp * hp - hc * hc)
        return (ixy, ixy, iz + si)
    if kind == "cylinder":
        r, hh = size[0], size[1]
        h = 2 * hh
        if not shell:
            ixy = mass * (3 * r * r + h * h) / 12
            return (ixy, ixy, mass * r * r / 2)
        a_d, a_c = pi * r * r, 2 * pi * r * h
        md = mass * a_d / (2 * a_d + a_c)
        mc = mass - 2 * md
        ixy = mc * (6 * r * r + h * h) / 12
        iz = mc * r * r
        ixy += 2 * (md * r * r / 4 + md * hh * hh)
        iz += 2 * (md * r * r / 2)
        return (ixy, ixy, iz)
    if kind == "ellipsoid":
        s0, s1, s2 = size[0] ** 2, size[1] ** 2, size[2] ** 2
        if not shell:
            return (mass * (s1 + s2) / 5, mass * (s0 + s2) / 5, mass * (s0 + s1) / 5)
        eps = 1e-6
        va = 4 * pi * size[0] * size[1] * size[2] / 3
        ae, be, ce = size[0] + eps, size[1] + eps, size[2] + eps
        vb = 4 * pi * ae * be * ce / 3
        dens = mass / (vb - va)
        ma, mb = va * dens, vb * dens
        return (mb * (be * be + ce * ce) / 5 - ma * (s1 + s2) / 5,
                mb * (ae * ae + ce * ce) / 5 - ma * (s0 + s2) / 5,
                mb * (ae * ae + be * be) / 5 - ma * (s0 + s1) / 5)
    if kind in ("box", "hfield"):
        s0, s1, s2 = size[0] ** 2, size[1] ** 2, size[2] ** 2
        if not shell:
            return (mass * (s1 + s2) / 3, mass * (s0 + s2) / 3, mass * (s0 + s1) / 3)
        lx, ly, lz = 2 * size[0], 2 * size[1], 2 * size[2]
        a0, a1, a2 = lx * ly, ly * lz, lz * lx
        at = 2 * (a0 + a1 + a2)
        m0, m1, m2 = mass * a0 / at, mass * a1 / at, mass * a2 / at
        return (2 * (m0 * s2 + m2 * s1 + m0 * ly * ly / 12 + m1 * (ly * ly + lz * lz) / 12 + m2 * lz * lz / 12),
                2 * (m0 * s2 + m1 * s0 + m0 * lx * lx / 12 + m1 * lz * lz / 12 + m2 * (lx * lx + lz * lz) / 12),
                2 * (m1 * s0 + m2 * s1 + m0 * (lx * lx + ly * ly) / 12 + m1 * ly * ly / 12 + m2 * lx * lx / 12))
    return (0.0, 0.0, 0.0)


def _triangles(V, F):
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    n = np.cross(b - a, c - a)
    ln = vector_norm(n)
    ok = ln >= MJ_MINVAL
    area = np.where(ok, ln / 2, 0.0)
    unit = np.zeros_like(n)
    unit[ok] = n[ok] / ln[ok, None]
    return a, b, c, area, unit, (a + b + c) / 3


def mesh_props(V, F, mode: str) -> tuple:
    """``(MeshProps, error)`` of a mesh (vertices already scaled, float64) by MuJoCo's
    ``mjCMesh::Process`` for inertia ``mode``; ``error`` is MuJoCo's message when it refuses
    the mesh (then the props are None). ``convex`` expects ``F`` to be the hull's faces."""
    V = np.asarray(V, float)
    F = np.asarray(F, np.int64).reshape(-1, 3)
    if len(V) < 4:
        return None, "at least 4 vertices required"
    a, b, c, area, unit, cen = _triangles(V, F)
    total = area.sum()
    if total < MJ_MINVAL:
        return None, "mesh surface area is too small"
    facecen = (area[:, None] * cen).sum(axis=0) / total
    if mode == "shell":
        w = area
        measure = w.sum()
        if measure < MJ_MINVAL:
            return None, "mesh surface area is too small"
    else:
        w = vector_dot(cen - facecen, unit) * area / 3
        if mode == "legacy":
            w = np.abs(w)
        measure = w.sum()
        if measure < MJ_MINVAL:
            if measure < 0:
                return None, "mesh volume is negative (misoriented triangles)"
            return None, "mesh volume is too small; try setting inertia to shell"
    com = (w[:, None] * (cen * 0.75 + facecen * 0.25)).sum(axis=0) / measure
    # inertia about the centre (ComputeInertia), with the measure recomputed about it
    D, E, G = a - com, b - com, c - com
    cc = (D + E + G) / 3
    if mode == "shell":
        w = area
        C = 12.0
    else:
        w = vector_dot(cc, unit) * area / 3
        if mode == "legacy":
            w = np.abs(w)
        C = 20.0
    measure = w.sum()
    P = np.empty((3, 3))
    for i in range(3):
        for j in range(i, 3):
            s = (2 * (D[:, i] * D[:, j] + E[:, i] * E[:, j] + G[:, i] * G[:, j])
                 + D[:, i] * E[:, j] + D[:, j] * E[:, i] + D[:, i] * G[:, j] + D[:, j] * G[:, i]
                 + E[:, i] * G[:, j] + E[:, j] * G[:, i])
            P[i, j] = P[j, i] = (w / C * s).sum()
    tr = np.trace(P)
    # MuJoCo keeps the principal form its eigen-solver stops at (1e-8 off: _orient.eig3)
    full = mesh_inertia(np.eye(3) * tr - P)
    ev = symmetric_eigen3(full)[0]
    if ev[2] <= 0:
        return None, "eigenvalue of mesh inertia must be positive"
    if ev[0] + ev[1] < ev[2] * (1 - 1e-6) - 1e-9:
        return None, "eigenvalues of mesh inertia violate A + B >= C"
    return MeshProps(float(measure), com, full), None


def rotation(quat) -> np.ndarray:
    return np.array(quat_to_mat(quat), float).reshape(3, 3)


def geom_props(kind: str, size, pos, quat, mass: Optional[float], density: float, shell: bool,
               mesh: Optional[MeshProps]) -> Optional[MassProps]:
    """The mass properties a geom adds to its body (body frame), or None when MuJoCo
    leaves it out (mass at most ``mjEPS``)."""
    vol = mesh.measure if mesh is not None else primitive_volume(kind, size, shell)
    if mass is not None:
        if mass == 0 or vol <= MJ_EPS:
            return None
        m = mass
    else:
        if density == 0:
            return None
        m = density * vol
    if m <= MJ_EPS:
        return None
    R = rotation(quat)
    if mesh is not None:
        return MassProps(m, np.asarray(pos, float) + matrix_vector(R, mesh.com),
                         rotate_tensor(R, mesh.inertia * (m / vol)))
    d = primitive_inertia(kind, size, m, shell)
    return MassProps(m, np.array(pos, float), compose(R * np.asarray(d), R.T))


def combine(parts: list) -> Optional[MassProps]:
    """One body's mass properties from its geoms' (``mjCBody::InertiaFromGeom``)."""
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    m = sum(p.mass for p in parts)
    com = sum(p.mass * p.com for p in parts) / m
    I = np.zeros((3, 3))
    for p in parts:
        d = p.com - com
        I = I + p.inertia + p.mass * (vector_dot(d, d) * np.eye(3) - np.outer(d, d))
    return MassProps(m, com, I)
