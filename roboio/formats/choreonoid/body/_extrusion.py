"""VRML97-style ``Extrusion`` geometry of Choreonoid ``.body`` shapes as a triangle mesh.

A 2-D ``cross_section`` (x, z pairs) is scaled (``scale``, per spine point or one for all),
rotated (``orientation``: axis-angle, the file's angle unit), placed in the spine-aligned
cross-section plane (SCP) of each ``spine`` point and joined into a tube; ``begin_cap`` /
``end_cap`` close it (fan triangulation: exact for convex cross sections).
"""
from __future__ import annotations

import numpy as np

from .... import transforms as tf
from ....errors import FormatError
from ....model import TriangleMesh
from .. import _yaml as Y

__all__ = ["extrusion_mesh"]


def _floats(g, keys, path, width, default):
    """Groups of ``width`` numbers; an incomplete last group is ignored, as Choreonoid does."""
    node = Y.get(g, *keys)
    if node is None:
        return np.array(default, dtype=float).reshape(-1, width)
    v = np.array(Y.to_floats(node, path, keys[0]))
    n = len(v) // width
    return v[:n * width].reshape(n, width)


def _scp(spine: np.ndarray) -> np.ndarray:
    """(n, 3, 3) columns X, Y, Z of the spine-aligned cross-section plane per spine point."""
    n = len(spine)
    closed = n > 2 and np.allclose(spine[0], spine[-1])
    ys, zs = np.zeros((n, 3)), np.zeros((n, 3))
    for i in range(n):
        prev_i = i - 1 if i > 0 else (n - 2 if closed else 0)
        next_i = i + 1 if i < n - 1 else (1 if closed else n - 1)
        y = spine[next_i] - spine[prev_i]
        ys[i] = y
        if 0 < i < n - 1 or closed:
            zs[i] = np.cross(spine[next_i] - spine[i], spine[prev_i] - spine[i])
    ny = np.linalg.norm(ys, axis=1)
    nz = np.linalg.norm(zs, axis=1)
    if np.all(nz < 1e-12):                       # collinear spine: rotate +y onto the spine
        d = spine[-1] - spine[0]
        d = d / np.linalg.norm(d) if np.linalg.norm(d) > 0 else np.array([0.0, 1.0, 0.0])
        axis = np.cross([0.0, 1.0, 0.0], d)
        s, c = np.linalg.norm(axis), d[1]
        R = np.eye(3) if s < 1e-12 and c > 0 else (
            tf.axis_angle_to_matrix([1.0, 0.0, 0.0], np.pi) if s < 1e-12 else
            tf.axis_angle_to_matrix(axis / s, np.arctan2(s, c)))
        return np.repeat(R[None], n, axis=0)
    good = np.flatnonzero(nz >= 1e-12)
    for i in range(n):                           # undefined Z: use the nearest defined one
        if nz[i] < 1e-12:
            zs[i] = zs[good[np.argmin(np.abs(good - i))]]
    if not closed and n > 2:
        zs[0], zs[-1] = zs[1], zs[-2]
    for i in range(1, n):                        # keep Z from flipping
        if np.dot(zs[i], zs[i - 1]) < 0:
            zs[i] = -zs[i]
    ys = ys / np.where(ny > 0, ny, 1.0)[:, None]
    zs = zs / np.linalg.norm(zs, axis=1, keepdims=True)
    xs = np.cross(ys, zs)
    return np.stack([xs, ys, zs], axis=2)


def extrusion_mesh(g, path, to_radian) -> TriangleMesh:
    cross = _floats(g, ("cross_section", "crossSection"), path, 2,
                    [1, 1, 1, -1, -1, -1, -1, 1, 1, 1])
    spine = _floats(g, ("spine",), path, 3, [0, 0, 0, 0, 1, 0])
    scale = _floats(g, ("scale",), path, 2, [1, 1])
    orient = _floats(g, ("orientation",), path, 4, [0, 0, 1, 0])
    n, m = len(spine), len(cross)
    if n < 2 or m < 2:
        raise FormatError(path, Y.line_of(g), None, "Extrusion needs 2+ spine and cross-section points")
    scale = np.resize(scale, (n, 2)) if len(scale) != n else scale
    orient = np.resize(orient, (n, 4)) if len(orient) != n else orient
    scp = _scp(spine)
    verts = np.zeros((n, m, 3))
    for i in range(n):
        local = np.zeros((m, 3))
        local[:, 0] = cross[:, 0] * scale[i, 0]
        local[:, 2] = cross[:, 1] * scale[i, 1]
        ax = orient[i, :3]
        R = tf.axis_angle_to_matrix(ax, to_radian(orient[i, 3])) if np.linalg.norm(ax) > 0 else np.eye(3)
        verts[i] = spine[i] + local @ (scp[i] @ R).T
    idx = np.arange(n * m).reshape(n, m)
    a, b = idx[:-1, :-1].ravel(), idx[:-1, 1:].ravel()
    c, d = idx[1:, :-1].ravel(), idx[1:, 1:].ravel()
    faces = [np.stack([a, b, d], 1), np.stack([a, d, c], 1)]
    closed_cross = np.allclose(cross[0], cross[-1])
    ring = m - 1 if closed_cross else m
    begin = Y.get(g, "begin_cap", "beginCap")
    end = Y.get(g, "end_cap", "endCap")
    if begin is None or Y.to_bool(begin, path, "begin_cap"):
        r = idx[0, :ring]
        faces.append(np.stack([np.full(ring - 2, r[0]), r[2:], r[1:-1]], 1))
    if end is None or Y.to_bool(end, path, "end_cap"):
        r = idx[-1, :ring]
        faces.append(np.stack([np.full(ring - 2, r[0]), r[1:-1], r[2:]], 1))
    return TriangleMesh(verts.reshape(-1, 3), np.concatenate(faces).astype(np.int64))
