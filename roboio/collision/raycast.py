"""Ray casts against collision parts, in numpy (the engines have no ray queries).

The ray starts at ``source`` and runs along ``direction`` (normalised here). A solid
(primitive, convex part) whose inside holds the source is hit at the source; a mesh is a
surface, hit where the ray crosses a triangle (from inside too). A point is a sphere of the
part's margin (no extent without one). On any other part a margin moves the hit back along
the ray by the margin (Klamp't's rule: a face met head-on is inflated exactly, an edge
grazed by less than the margin is not).
"""
from __future__ import annotations

import numpy as np

__all__ = ["ray_parts"]

_EPS = 1e-12


def ray_parts(parts, pose, source, direction) -> tuple:
    """``(hit, point)``: the first hit of the ray on ``parts`` placed by ``pose`` (4x4)."""
    s = np.asarray(source, dtype=float).reshape(3)
    d = np.asarray(direction, dtype=float).reshape(3)
    n = float(np.linalg.norm(d))
    if not n > 0 or not np.isfinite(n) or not np.all(np.isfinite(s)):
        raise ValueError("a ray needs a finite source and a nonzero finite direction")
    d = d / n
    best = np.inf
    for p in parts:
        P = pose @ p.pose
        R, t = P[:3, :3], P[:3, 3]
        ls, ld = R.T @ (s - t), R.T @ d
        hit = _FUNCS[p.kind](p, ls, ld)
        if hit < np.inf and p.kind != "points":
            hit = max(hit - p.margin, 0.0)
        best = min(best, hit)
    if best == np.inf:
        return False, None
    return True, s + best * d


def _triangles(v, f, s, d, solid: bool) -> float:
    """Moller-Trumbore over every triangle: the smallest t >= 0 (inf: none); for a solid,
    0 when the source is inside (an odd number of crossings ahead)."""
    if not len(f):
        return np.inf
    a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    e1, e2 = b - a, c - a
    h = np.cross(d, e2)
    det = np.einsum("ij,ij->i", e1, h)
    ok = np.abs(det) > _EPS * np.maximum(np.linalg.norm(e1, axis=1) * np.linalg.norm(e2, axis=1), 1e-300)
    inv = np.divide(1.0, det, out=np.zeros_like(det), where=ok)
    sv = s - a
    u = np.einsum("ij,ij->i", sv, h) * inv
    q = np.cross(sv, e1)
    w = (q @ d) * inv
    t = np.einsum("ij,ij->i", e2, q) * inv
    tol = 1e-12
    hit = ok & (u >= -tol) & (w >= -tol) & (u + w <= 1 + tol) & (t >= 0)
    if not hit.any():
        return np.inf
    if solid and np.count_nonzero(hit & (t > 0)) % 2 == 1:
        return 0.0
    return float(t[hit].min())


def _mesh(p, s, d):
    return _triangles(p.data["vertices"], p.data["faces"], s, d, solid=False)


def _convex(p, s, d):
    return _triangles(p.data["points"], p.data["faces"], s, d, solid=True)


def _spheres(centers, r, s, d) -> float:
    """First t >= 0 at which the ray meets one of the balls (0 inside one)."""
    oc = s - centers
    b = oc @ d
    c = np.einsum("ij,ij->i", oc, oc) - r * r
    inside = c <= 0
    if inside.any():
        return 0.0
    disc = b * b - c
    ok = (disc >= 0) & (b < 0)
    if not ok.any():
        return np.inf
    t = -b[ok] - np.sqrt(disc[ok])
    return float(max(t.min(), 0.0))


def _points(p, s, d):
    return _spheres(p.data["points"], p.margin, s, d)


def _sphere(p, s, d):
    return _spheres(np.zeros((1, 3)), p.data["radius"], s, d)


def _ellipsoid(p, s, d):
    r = np.asarray(p.data["radii"], float)
    ls, ld = s / r, d / r
    k = float(np.linalg.norm(ld))
    t = _spheres(np.zeros((1, 3)), 1.0, ls, ld / k)
    return t / k if t < np.inf else t


def _box(p, s, d):
    h = np.asarray(p.data["half"], float)
    if np.all(np.abs(s) <= h):
        return 0.0
    t0, t1 = -np.inf, np.inf
    for k in range(3):
        if abs(d[k]) < 1e-300:
            if abs(s[k]) > h[k]:
                return np.inf
            continue
        a, b = (-h[k] - s[k]) / d[k], (h[k] - s[k]) / d[k]
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
    return float(t0) if t0 <= t1 and t0 >= 0 else np.inf


def _disc(s, d, z, r) -> float:
    """The ray meeting the disc of radius r at height z (axis z)."""
    if abs(d[2]) < 1e-300:
        return np.inf
    t = (z - s[2]) / d[2]
    if t < 0:
        return np.inf
    x, y = s[0] + t * d[0], s[1] + t * d[1]
    return float(t) if x * x + y * y <= r * r * (1 + 1e-12) else np.inf


def _side(s, d, r, zlo, zhi) -> float:
    """The ray meeting the side of the cylinder of radius r between zlo and zhi."""
    a = d[0] ** 2 + d[1] ** 2
    if a < 1e-300:
        return np.inf
    b = s[0] * d[0] + s[1] * d[1]
    c = s[0] ** 2 + s[1] ** 2 - r * r
    disc = b * b - a * c
    if disc < 0:
        return np.inf
    for t in sorted(((-b - np.sqrt(disc)) / a, (-b + np.sqrt(disc)) / a)):
        if t >= 0 and zlo <= s[2] + t * d[2] <= zhi:
            return float(t)
    return np.inf


def _cylinder(p, s, d):
    r, h = p.data["radius"], p.data["half_length"]
    if s[0] ** 2 + s[1] ** 2 <= r * r and abs(s[2]) <= h:
        return 0.0
    return min(_side(s, d, r, -h, h), _disc(s, d, -h, r), _disc(s, d, h, r))


def _capsule(p, s, d):
    r, h = p.data["radius"], p.data["half_length"]
    ends = np.array([[0.0, 0.0, -h], [0.0, 0.0, h]])
    if r == 0:
        return np.inf
    return min(_spheres(ends, r, s, d),
               0.0 if (s[0] ** 2 + s[1] ** 2 <= r * r and abs(s[2]) <= h) else _side(s, d, r, -h, h))


def _cone(p, s, d):
    r, h = p.data["radius"], p.data["half_length"]

    def radius_at(z):
        return r * (h - z) / (2 * h) if h > 0 else 0.0
    if abs(s[2]) <= h and s[0] ** 2 + s[1] ** 2 <= radius_at(s[2]) ** 2:
        return 0.0
    # x^2 + y^2 = k^2 (h - z)^2 with k = r / (2h): a quadratic in t
    k = r / (2 * h) if h > 0 else 0.0
    zs, zd = h - s[2], -d[2]
    a = d[0] ** 2 + d[1] ** 2 - k * k * zd * zd
    b = s[0] * d[0] + s[1] * d[1] - k * k * zs * zd
    c = s[0] ** 2 + s[1] ** 2 - k * k * zs * zs
    best = _disc(s, d, -h, r)
    roots = []
    if abs(a) > 1e-300:
        disc = b * b - a * c
        if disc >= 0:
            roots = [(-b - np.sqrt(disc)) / a, (-b + np.sqrt(disc)) / a]
    elif abs(b) > 1e-300:
        roots = [-c / (2 * b)]
    for t in roots:
        if t >= 0 and -h <= s[2] + t * d[2] <= h:
            best = min(best, float(t))
    return best


_FUNCS = {"mesh": _mesh, "convex": _convex, "points": _points, "sphere": _sphere,
          "ellipsoid": _ellipsoid, "box": _box, "cylinder": _cylinder, "capsule": _capsule,
          "cone": _cone}
