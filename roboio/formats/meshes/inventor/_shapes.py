"""Triangles for Inventor / VRML shapes: polygon and strip index lists, and VRML
ElevationGrid. The analytic primitives (Cube/Box, Sphere, Cylinder, Cone) come from
:mod:`roboio.model.tessellate`, shared with the mesh writers.

Index lists are handled as whole numpy arrays. Each triangulation returns ``corners``, an
(F, 3) array of *positions in the index stream* (so that per-vertex colour indices, which
follow the same layout, can be looked up), and ``face_of``/``part_of``, the polygon (or
strip triangle) and part (polygon or strip) each triangle comes from, for per-face and
per-part colours.

Polygons: Coin triangulates convex faces (the default, ``ShapeHints faceType CONVEX`` /
VRML ``convex TRUE``) as a fan from the first vertex -- (v0 v1 v2), (v0 v2 v3), ... -- and
this reader does the same; faces declared non-convex are ear-clipped after projection onto
their best-fitting plane (Newell normal). Faces with fewer than 3 vertices give nothing.
"""
from __future__ import annotations

import numpy as np

__all__ = ["runs", "fan", "ear_clip_runs", "strips", "grid"]


def runs(index: np.ndarray, lengths=None):
    """Start positions and lengths of the runs of ``index`` separated by -1 (a final -1 is
    optional). With ``lengths`` given (FaceSet ``numVertices``), the runs are consecutive."""
    if lengths is not None:
        lengths = np.asarray(lengths, dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        return starts, lengths
    sep = np.flatnonzero(index == -1)
    if len(index) and (len(sep) == 0 or sep[-1] != len(index) - 1):
        sep = np.append(sep, len(index))
    starts = np.concatenate([[0], sep[:-1] + 1]).astype(np.int64)
    return starts, (sep - starts).astype(np.int64)


def fan(starts: np.ndarray, lengths: np.ndarray):
    """Fan triangles (s, s+k, s+k+1) of every run; returns (corners, face_of)."""
    ntri = np.maximum(lengths - 2, 0)
    total = int(ntri.sum())
    face_of = np.repeat(np.arange(len(starts)), ntri)
    first = np.cumsum(ntri) - ntri
    k = np.arange(total) - np.repeat(first, ntri) + 1
    s = starts[face_of]
    corners = np.stack([s, s + k, s + k + 1], axis=1)
    return corners, face_of


def strips(starts: np.ndarray, lengths: np.ndarray):
    """Triangle-strip triangles: (s+k, s+k+1, s+k+2), the first two swapped for odd k so
    that all triangles keep the strip's winding. Returns (corners, strip_of)."""
    ntri = np.maximum(lengths - 2, 0)
    total = int(ntri.sum())
    strip_of = np.repeat(np.arange(len(starts)), ntri)
    first = np.cumsum(ntri) - ntri
    k = np.arange(total) - np.repeat(first, ntri)
    a = starts[strip_of] + k
    odd = (k % 2) == 1
    c0 = np.where(odd, a + 1, a)
    c1 = np.where(odd, a, a + 1)
    return np.stack([c0, c1, a + 2], axis=1), strip_of


def ear_clip_runs(starts, lengths, points_of_run):
    """Triangulate runs as possibly non-convex polygons. ``points_of_run(i)`` gives the
    (n, 3) points of run ``i``. Triangles and quads are cut like a fan (any diagonal of a
    convex quad is fine; for a non-convex quad the ear test picks the right one)."""
    corners, face_of = [], []
    for i, (s, n) in enumerate(zip(starts.tolist(), lengths.tolist())):
        if n < 3:
            continue
        if n == 3:
            tris = [(0, 1, 2)]
        else:
            tris = _ear_clip(_project(points_of_run(i)))
        for a, b, c in tris:
            corners.append((s + a, s + b, s + c))
            face_of.append(i)
    return (np.array(corners, dtype=np.int64).reshape(-1, 3),
            np.array(face_of, dtype=np.int64))


def _project(pts: np.ndarray) -> np.ndarray:
    """2-D coordinates of a 3-D polygon in the plane its Newell normal is closest to."""
    nxt = np.roll(pts, -1, axis=0)
    normal = np.array([np.sum((pts[:, 1] - nxt[:, 1]) * (pts[:, 2] + nxt[:, 2])),
                       np.sum((pts[:, 2] - nxt[:, 2]) * (pts[:, 0] + nxt[:, 0])),
                       np.sum((pts[:, 0] - nxt[:, 0]) * (pts[:, 1] + nxt[:, 1]))])
    drop = int(np.argmax(np.abs(normal)))
    keep = [(drop + 1) % 3, (drop + 2) % 3]
    return pts[:, keep]


def _ear_clip(p2: np.ndarray) -> list:
    n = len(p2)
    area = 0.5 * float(np.sum(p2[:, 0] * np.roll(p2[:, 1], -1) - np.roll(p2[:, 0], -1) * p2[:, 1]))
    sign = 1.0 if area >= 0 else -1.0
    if area == 0.0 or not np.all(np.isfinite(p2)):
        return [(0, k, k + 1) for k in range(1, n - 1)]      # degenerate: fan
    idx = list(range(n))
    out = []
    while len(idx) > 3:
        m = len(idx)
        for j in range(m):
            a, b, c = idx[j - 1], idx[j], idx[(j + 1) % m]
            if sign * _cross(p2[a], p2[b], p2[c]) <= 0:
                continue                                       # reflex or flat corner
            if any(_inside(p2[q], p2[a], p2[b], p2[c], sign) for q in idx if q not in (a, b, c)):
                continue
            out.append((a, b, c))
            del idx[j]
            break
        else:                                                  # self-intersecting: fan the rest
            out.extend((idx[0], idx[k], idx[k + 1]) for k in range(1, len(idx) - 1))
            return out
    out.append(tuple(idx))
    return out


def _cross(a, b, c) -> float:
    return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))


def _inside(p, a, b, c, sign) -> bool:
    return (sign * _cross(a, b, p) >= 0 and sign * _cross(b, c, p) >= 0
            and sign * _cross(c, a, p) >= 0)


def grid(heights: np.ndarray, nx: int, nz: int, dx: float, dz: float):
    """VRML ElevationGrid: vertex (i, j) at (i*dx, heights[i + j*nx], j*dz); each cell
    split along its (i, j)-(i+1, j+1) diagonal."""
    i, j = np.meshgrid(np.arange(nx), np.arange(nz))
    v = np.stack([i.ravel() * dx, np.asarray(heights, float)[: nx * nz], j.ravel() * dz], axis=1)
    ci, cj = np.meshgrid(np.arange(nx - 1), np.arange(nz - 1))
    a = (ci + cj * nx).ravel()
    faces = np.concatenate([np.stack([a, a + nx, a + nx + 1], axis=1),
                            np.stack([a, a + nx + 1, a + 1], axis=1)])
    return v, faces
