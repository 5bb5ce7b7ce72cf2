"""Geometry compared as what it is, not as how it is stored: the shapes and colours of
:func:`roboio.diff.diff`.

A geometry tree (the collision or visual geometry of a link, rigid object or terrain) is
flattened into a :class:`Shape` in its owner's frame (metres), whatever files, groups and
transforms spell it:

* **triangles**: every mesh's triangles as their three corners, in tree order (a mirroring
  transform reverses the corner order, keeping the outward side), each with its colour;
* **solids**: every primitive, as its support function ``h(u) = max over the solid of
  p . u`` sampled on a fixed set of :data:`DIRECTIONS` (primitives are convex: two are the same
  solid when their supports agree, and the largest difference of the supports is the
  Hausdorff distance between them, so a Klamp't AABB and a URDF ``<box>``, or a Choreonoid
  cylinder along y and a URDF cylinder along z, compare by the space they fill);
* **points** of point clouds;
* the references whose file was not found or could not be read (``missing``).

Two geometries are the same shape when their triangles pair up (in order, or in any order:
triangles whose corners fall on the same points of a fine grid pair first, those left over
each with its nearest on the other side, in any corner order; one turned the other way
round is a difference), their solids pair up within ``tol`` and their points do. The size
of a difference is how far the worst vertex (or solid surface) moved, in metres (when too
many triangles are left over to measure one by one, a stated lower bound). When the two are
made of different pieces (a cylinder written as a triangle mesh, a mesh missing on one
side), the pieces are paired by their convex outlines, measured along :data:`DIRECTIONS`
and the meshes' face normals (exact for a mesh inscribed in a solid); one convex piece with
the same outline as the other side's is the same shape. Colours are compared triangle by
triangle (and solid by solid) along the same pairing: a piece's own colour (a mesh file's
face or vertex colours), else its owner's ``appearance.color``.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ..errors import RoboioError
from ..model import Group, PointCloud, Primitive, TriangleMesh
from ._record import shortest

__all__ = ["Shape", "shape_of", "compare_shapes", "compare_colours", "DIRECTIONS",
           "ShapeMatch"]


def _directions() -> np.ndarray:
    """Unit directions: the 26 of the unit cube's faces, edges and corners, and 100 spread
    evenly over the sphere (a Fibonacci lattice)."""
    cube = np.array([(x, y, z) for x in (-1, 0, 1) for y in (-1, 0, 1) for z in (-1, 0, 1)
                     if (x, y, z) != (0, 0, 0)], float)
    k = np.arange(100) + 0.5
    polar = np.arccos(1 - 2 * k / 100)
    turn = np.pi * (1 + 5 ** 0.5) * k
    spread = np.stack([np.cos(turn) * np.sin(polar), np.sin(turn) * np.sin(polar), np.cos(polar)], 1)
    d = np.concatenate([cube, spread])
    return d / np.linalg.norm(d, axis=1, keepdims=True)


#: directions the support functions are sampled on
DIRECTIONS = _directions()


@dataclass
class Solid:
    """One primitive in its owner's frame: ``support`` over :data:`DIRECTIONS` (m), its
    ``kind`` and its size as written (``dims``: radius, height, extents, scaled by the
    transform), its colour (RGBA or None)."""

    kind: str
    support: np.ndarray
    dims: dict
    rgba: Optional[tuple]
    support_at: Optional[Callable] = None    # the support over unit directions (n, 3) -> (n,)


@dataclass
class Shape:
    """A geometry flattened into its owner's frame (see the module docstring)."""

    tris: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 3)))
    tri_rgba: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    solids: list = field(default_factory=list)
    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    point_rgba: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    missing: list = field(default_factory=list)      # references not found / unreadable
    meshes: int = 0
    mesh_sizes: list = field(default_factory=list)   # triangles of each mesh, in order
    clouds: int = 0

    @property
    def empty(self) -> bool:
        return not (len(self.tris) or self.solids or len(self.points) or self.missing)

    def summary(self) -> str:
        """What the geometry is made of: ``"mesh (1,204 triangles)"``, ``"Cylinder, 2
        Boxes"``, ``"mesh 'wam0.iv' (not found)"``, ``"none"``."""
        parts = []
        if self.meshes:
            n = len(self.tris)
            parts.append(("mesh" if self.meshes == 1 else f"{self.meshes} meshes")
                         + f" ({n:,} triangle{'s' if n != 1 else ''})")
        kinds = Counter("Box" if s.kind == "AABB" else s.kind for s in self.solids)
        parts += [k if n == 1 else f"{n} {k}{'es' if k.endswith('x') else 's'}" for k, n in kinds.items()]
        if self.clouds:
            parts.append(f"{'point cloud' if self.clouds == 1 else f'{self.clouds} point clouds'} "
                         f"({len(self.points):,} points)")
        parts += [f"{'mesh'} {os.path.basename(m)!r} (not found)" for m in self.missing]
        return ", ".join(parts) or "none"

    def outline(self, directions: np.ndarray = DIRECTIONS) -> Optional[np.ndarray]:
        """The support of everything (the convex outline) over ``directions`` (unit rows;
        default :data:`DIRECTIONS`), or None when there is nothing."""
        hs = [s.support_at(directions) for s in self.solids]
        for pts in (_corners(self.tris), self.points):
            if len(pts):
                hs.append((directions @ pts.T).max(axis=1))
        return np.max(hs, axis=0) if hs else None

    def face_normals(self) -> np.ndarray:
        """The unit normals of the triangles (degenerate ones left out)."""
        if not len(self.tris):
            return np.zeros((0, 3))
        n = np.cross(self.tris[:, 1] - self.tris[:, 0], self.tris[:, 2] - self.tris[:, 0])
        length = np.linalg.norm(n, axis=1)
        keep = length > 0
        return n[keep] / length[keep, None]


def _rgba(c) -> Optional[tuple]:
    if c is None:
        return None
    c = tuple(float(x) for x in np.asarray(c, float).ravel())
    if len(c) == 3:
        return c + (1.0,)
    return c if len(c) == 4 else None


def _color_rows(c, n: int) -> Optional[np.ndarray]:
    """``c`` as (n, 4) RGBA rows (alpha 1 when it has 3 channels), or None."""
    if c is None:
        return None
    c = np.asarray(c, float)
    if c.ndim != 2 or len(c) != n or c.shape[1] not in (3, 4):
        return None
    return c if c.shape[1] == 4 else np.hstack([c, np.ones((n, 1))])


def shape_of(geometry, color=None) -> Shape:
    """``geometry`` (or None) flattened into its owner's frame; ``color``: the owner's
    RGBA colour (``appearance.color``) or None. Meshes are loaded (a file that cannot be read
    counts as missing)."""
    out = Shape()
    tris, rgba, pts, prgba = [], [], [], []

    def walk(g, T, col):
        T = T @ np.asarray(g.transform, float)
        own = getattr(g, "appearance", None)
        if own is not None and own.color is not None:
            col = _rgba(own.color)
        if g.missing:
            out.missing.append(g.source.reference if g.source is not None else type(g).__name__)
            return
        if isinstance(g, Group):
            for c in g.children:
                walk(c, T, col)
        elif isinstance(g, Primitive):
            out.solids.append(_solid(g, T, col))
        elif isinstance(g, TriangleMesh):
            try:
                V, F = g.vertices, g.faces
                fc, vc = g.face_colors, g.vertex_colors
            except (RoboioError, OSError, ValueError) as e:
                ref = g.source.reference if g.source is not None else "mesh"
                out.missing.append(f"{ref}: {e}")
                return
            out.meshes += 1
            V = V @ T[:3, :3].T + T[:3, 3]
            if np.linalg.det(T[:3, :3]) < 0:
                F = F[:, ::-1]
            tris.append(V[F])
            out.mesh_sizes.append(len(F))
            c = _color_rows(fc, len(F))
            if c is None:
                v = _color_rows(vc, len(V))
                c = v[F].mean(axis=1) if v is not None else None
            if c is None:
                c = np.tile(np.asarray(col if col is not None else (np.nan,) * 4, float), (len(F), 1))
            rgba.append(c)
        elif isinstance(g, PointCloud):
            out.clouds += 1
            P = g.points @ T[:3, :3].T + T[:3, 3]
            pts.append(P)
            c = g.colors()
            prgba.append(c if c is not None else
                         np.tile(np.asarray(col if col is not None else (np.nan,) * 4, float), (len(P), 1)))
        else:
            out.missing.append(f"{type(g).__name__} (not compared)")
    if geometry is not None:
        walk(geometry, np.eye(4), _rgba(color))
    if tris:
        out.tris = np.concatenate(tris)
        out.tri_rgba = np.concatenate(rgba)
    if pts:
        out.points = np.concatenate(pts)
        out.point_rgba = np.concatenate(prgba)
    return out


def _perpendicular(a: np.ndarray) -> tuple:
    """Two unit vectors perpendicular to the unit ``a`` and to each other."""
    helper = np.array([1.0, 0, 0]) if abs(a[0]) < 0.9 else np.array([0, 1.0, 0])
    p = np.cross(a, helper)
    p /= np.linalg.norm(p)
    return p, np.cross(a, p)


def _solid(p: Primitive, T: np.ndarray, rgba) -> Solid:
    """The support of primitive ``p`` placed by ``T`` (its full transform into the owner
    frame, affine)."""
    L, t = T[:3, :3], T[:3, 3]
    P = p.params
    k = p.primitive
    scale = abs(np.linalg.det(L)) ** (1 / 3)

    def of_points(pts):
        placed = np.asarray(pts, float).reshape(-1, 3) @ L.T + t
        return lambda U: (U @ placed.T).max(axis=1)

    def at(x):
        placed = L @ np.asarray(x, float) + t
        return lambda U: U @ placed

    dims = {}
    if k == "Point":
        h = of_points(P["center"])
    elif k == "Segment":
        h = of_points([P["a"], P["b"]])
    elif k == "Triangle":
        h = of_points([P["a"], P["b"], P["c"]])
    elif k == "Polygon":
        h = of_points(P["vertices"])
    elif k in ("AABB", "Box"):
        corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
        if k == "AABB":
            lo, hi = P["bmin"], P["bmax"]
            pts, size = lo + corners * (hi - lo), hi - lo
        else:
            axes = np.stack([P["xaxis"], P["yaxis"], P["zaxis"]], axis=1)
            pts, size = P["origin"] + (corners * P["dims"]) @ axes.T, P["dims"]
        h = of_points(pts)
        dims["size"] = np.sort(np.abs(size))[::-1] * scale
    elif k in ("Sphere", "Ellipsoid"):
        if k == "Sphere":
            A = L * P["radius"]
            dims["radius"] = P["radius"] * scale
        else:
            A = L @ np.stack([P["xaxis"] * P["dims"][0], P["yaxis"] * P["dims"][1],
                              P["zaxis"] * P["dims"][2]], axis=1)
            dims["radii"] = np.sort(np.abs(P["dims"]))[::-1] * scale
        c = at(P["center"])

        def h(U):
            return c(U) + np.linalg.norm(U @ A, axis=1)
    else:                          # Cylinder, Capsule, Cone: base-disc centre, axis, height
        ax = np.asarray(P["axis"], float)
        n = np.linalg.norm(ax)
        ax = ax / n if n > 0 else np.array([0, 0, 1.0])
        base, top = at(P["center"]), at(P["center"] + ax * P["height"])
        p1, p2 = _perpendicular(ax)
        D = L @ np.stack([p1, p2], axis=1) * P["radius"]
        r = P["radius"]

        def disc(U):
            return np.linalg.norm(U @ D, axis=1)
        if k == "Cylinder":
            def h(U):
                return np.maximum(base(U), top(U)) + disc(U)
        elif k == "Capsule":
            def h(U):
                return np.maximum(base(U), top(U)) + r * np.linalg.norm(U @ L, axis=1)
        else:
            def h(U):
                return np.maximum(base(U) + disc(U), top(U))
        dims["radius"] = P["radius"] * scale
        dims["height"] = P["height"] * scale
    return Solid(k, h(DIRECTIONS), dims, rgba, h)


# -- pairing ---------------------------------------------------------------------------------

@dataclass
class ShapeMatch:
    """How two shapes compare: ``same`` (within tol), ``size`` (m; None when one side has
    nothing to measure), ``note`` (what differs, in words), and the pairing of their
    triangles (``tri_pairs``: indices in A, in B), solids and points, for the colours
    (None where the two are made of different pieces)."""

    same: bool
    size: Optional[float]
    note: str = ""
    tri_pairs: Optional[tuple] = None
    solid_pairs: Optional[list] = None
    point_pairs: Optional[tuple] = None


def _corner_distance(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Per triangle, the largest distance between corresponding corners (m)."""
    return np.sqrt(((A - B) ** 2).sum(axis=2)).max(axis=1)


def _snapped(T: np.ndarray, grid: float, offset: float) -> tuple:
    """``(keys, rotated)``: each triangle's corners snapped to a grid of ``grid`` m (shifted
    by ``offset`` cells), starting at the smallest snapped corner (the cyclic order kept,
    so a triangle turned the other way has another key), as bytes; and the triangles with
    their corners in that same order."""
    n = len(T)
    R = np.floor(T / grid + offset).astype(np.int64)
    first = np.lexsort((R[..., 2], R[..., 1], R[..., 0]), axis=-1)[:, 0]
    idx = (first[:, None] + np.arange(3)) % 3
    rows = np.arange(n)[:, None]
    keys = np.ascontiguousarray(R[rows, idx].reshape(n, 9))
    return [k.tobytes() for k in keys], T[rows, idx]


def _pair_by_grid(A: np.ndarray, B: np.ndarray, grid: float) -> tuple:
    """``(ia, ib, distances)``: triangles of A and B whose corners snap to the same grid
    points (twice: the grid shifted by half a cell the second time, for corners near a cell
    border), each with the largest distance between its paired corners (m)."""
    free_a, free_b = np.arange(len(A)), np.arange(len(B))
    ia, ib, dist = [], [], []
    for offset in (0.0, 0.5):
        if not len(free_a) or not len(free_b):
            break
        ka, Ra = _snapped(A[free_a], grid, offset)
        kb, Rb = _snapped(B[free_b], grid, offset)
        slots: dict = {}
        for j, k in enumerate(kb):
            slots.setdefault(k, []).append(j)
        pa, pb = [], []
        for i, k in enumerate(ka):
            js = slots.get(k)
            if js:
                pa.append(i)
                pb.append(js.pop())
        if not pa:
            continue
        pa, pb = np.array(pa), np.array(pb)
        ia.append(free_a[pa])
        ib.append(free_b[pb])
        dist.append(_corner_distance(Ra[pa], Rb[pb]))
        free_a = np.delete(free_a, pa)
        free_b = np.delete(free_b, pb)
    if not ia:
        return np.zeros(0, int), np.zeros(0, int), np.zeros(0)
    return np.concatenate(ia), np.concatenate(ib), np.concatenate(dist)


_BRUTE = 4_000_000       # at most this many (A, B) triangle pairs are measured one by one


def _rotations(T: np.ndarray) -> np.ndarray:
    """(n, 6, 3, 3): each triangle's three rotations of its corners, then the three of the
    reversed order (the same triangle turned the other way)."""
    rev = T[:, [0, 2, 1]]
    return np.stack([np.roll(T, -r, axis=1) for r in range(3)]
                    + [np.roll(rev, -r, axis=1) for r in range(3)], axis=1)


def _nearest(X: np.ndarray, Y: np.ndarray) -> tuple:
    """For each triangle of X, the nearest of Y (all corner rotations, either orientation):
    ``(index in Y, distance (m; the largest corner distance), turned (the nearest is the
    other way round and no same-way triangle is as near))``."""
    rot = _rotations(X)
    best = np.full(len(X), np.inf)
    which = np.zeros(len(X), int)
    turned = np.zeros(len(X), bool)
    chunk = max(1, 200_000 // max(len(Y), 1))
    for s in range(0, len(X), chunk):
        R = rot[s:s + chunk]                                        # (c, 6, 3, 3)
        D = np.sqrt(((R[:, :, None] - Y[None, None]) ** 2).sum(axis=4)).max(axis=3)   # (c, 6, m)
        same, other = D[:, :3].min(axis=1), D[:, 3:].min(axis=1)    # (c, m)
        j_same, j_other = same.argmin(axis=1), other.argmin(axis=1)
        rows = np.arange(len(R))
        d_same, d_other = same[rows, j_same], other[rows, j_other]
        flip = d_other < d_same
        best[s:s + chunk] = np.where(flip, d_other, d_same)
        which[s:s + chunk] = np.where(flip, j_other, j_same)
        turned[s:s + chunk] = flip
    return which, best, turned


def _match_triangles(A: np.ndarray, B: np.ndarray, tol: float) -> tuple:
    """``(size (m), pairs (ia, ib), triangles turned the other way, every triangle
    measured)`` of two triangle lists of equal length. In order when that pairs them within
    ``tol``; else triangles are paired by their corners on a grid (a millionth of the mesh's
    size: files that round or reorder the same mesh), and those left over each with its
    nearest on the other side (any corner order or orientation), so the size is the largest
    distance from a triangle of either to its partner: how far the worst vertex moved. When
    too many are left over to measure one by one, ``every triangle measured`` is False and
    the size is that of the triangles paired."""
    n = len(A)
    every = np.arange(n)
    if n == 0:
        return 0.0, (every, every), 0, True
    direct = _corner_distance(A, B)
    if direct.max() <= tol:
        return float(direct.max()), (every, every), 0, True
    extent = float(np.ptp(np.concatenate([A, B]).reshape(-1, 3), axis=0).max())
    grid = max(tol, 1e-6 * extent, 1e-300)
    ia, ib, dist = _pair_by_grid(A, B, grid)
    size = float(dist.max(initial=0.0))
    rest_a = np.setdiff1d(every, ia)
    rest_b = np.setdiff1d(every, ib)
    if not len(rest_a):
        return size, (ia, ib), 0, True
    if len(rest_a) * len(rest_b) > _BRUTE:
        # a lower bound: how far the convex outlines of those left over differ
        U = DIRECTIONS
        ha = (U @ A[rest_a].reshape(-1, 3).T).max(axis=1)
        hb = (U @ B[rest_b].reshape(-1, 3).T).max(axis=1)
        return max(size, float(np.abs(ha - hb).max()), tol * 2), (ia, ib), 0, False
    ja, da, fa = _nearest(A[rest_a], B[rest_b])
    _, db, _ = _nearest(B[rest_b], A[rest_a])
    size = max(size, float(da.max()), float(db.max()))
    turned = int((fa & (da <= tol)).sum())
    return size, (np.concatenate([ia, rest_a]), np.concatenate([ib, rest_b[ja]])), turned, True


def _match_solids(sa: list, sb: list) -> tuple:
    """``(size (m), pairs)``: the solids of two lists of equal length paired greedily,
    nearest supports first; size: the largest support difference of a pair."""
    return _pair_supports([x.support for x in sa], [y.support for y in sb])


def _pair_supports(ha: list, hb: list) -> tuple:
    """``(size (m), pairs)``: two equally long lists of supports (of convex pieces) paired
    greedily, nearest first; size: the largest difference of a pair's supports (the
    Hausdorff distance of their convex outlines)."""
    if not ha:
        return 0.0, []
    D = np.array([[float(np.abs(x - y).max()) for y in hb] for x in ha])
    pairs, used_a, used_b, size = [], set(), set(), 0.0
    for flat in np.argsort(D, axis=None, kind="stable"):
        i, j = divmod(int(flat), len(hb))
        if i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        pairs.append((i, j))
        size = max(size, float(D[i, j]))
    return size, sorted(pairs)


def _match_points(A: np.ndarray, B: np.ndarray, tol: float) -> tuple:
    """``(size (m), pairs)`` of two point lists of equal length: in order, else sorted."""
    every = np.arange(len(A))
    if len(A) == 0:
        return 0.0, (every, every)
    direct = np.linalg.norm(A - B, axis=1).max()
    if direct <= tol:
        return float(direct), (every, every)
    oa, ob = np.lexsort(A.T[::-1]), np.lexsort(B.T[::-1])
    d = np.linalg.norm(A[oa] - B[ob], axis=1).max()
    return (float(direct), (every, every)) if direct <= d else (float(d), (oa, ob))


def _dims_change(x: Solid, y: Solid) -> str:
    """``"radius 0.025 -> 0.03 m"`` for the sizes of two solids of one kind that differ."""
    if x.kind != y.kind and {x.kind, y.kind} != {"Box", "AABB"}:
        return ""
    out = []
    for k, va in x.dims.items():
        vb = y.dims.get(k)
        if vb is None or np.allclose(va, vb, rtol=0, atol=1e-12):
            continue
        ta, tb = _num(va, 6), _num(vb, 6)
        if ta == tb:                      # alike at 6 digits: as many as tell them apart
            ta, tb = _num(va, None), _num(vb, None)
        out.append(f"{k} {ta} -> {tb} m")
    return "; ".join(out)


def _num(v, digits) -> str:
    v = np.asarray(v, float)
    if v.ndim == 0:
        return shortest(v, digits)
    return "(" + ", ".join(shortest(x, digits) for x in v) + ")"


def compare_shapes(a: Shape, b: Shape, tol: float) -> ShapeMatch:
    """Whether shapes ``a`` and ``b`` are the same within ``tol`` (m), and how far apart
    they are (see the module docstring)."""
    if Counter(map(_missing_key, a.missing)) != Counter(map(_missing_key, b.missing)):
        rest = _compare_present(a, b, tol)       # (the summaries name the files not found)
        return ShapeMatch(False, rest.size if not rest.same else None,
                          "" if rest.same else rest.note,
                          rest.tri_pairs, rest.solid_pairs, rest.point_pairs)
    return _compare_present(a, b, tol)


def _missing_key(ref: str) -> str:
    return os.path.basename(ref.split(": ")[0])


def _compare_present(a: Shape, b: Shape, tol: float) -> ShapeMatch:
    """Compare what both shapes have (their files that were found)."""
    if (len(a.tris), len(a.solids), len(a.points)) == (len(b.tris), len(b.solids), len(b.points)):
        size_t, tpairs, flipped, exact = _match_triangles(a.tris, b.tris, tol)
        n_moved = len(a.tris) - len(tpairs[0])
        size_s, spairs = _match_solids(a.solids, b.solids)
        size_p, ppairs = _match_points(a.points, b.points, tol)
        size = max(size_t, size_s, size_p)
        if size <= tol and not flipped:
            return ShapeMatch(True, size, "", tpairs, spairs, ppairs)
        notes = []
        if size_t > tol:
            notes.append(f"vertices moved by up to {size_t:.3g} m" if exact else
                         f"{n_moved:,} triangles moved, by at least {size_t:.3g} m (too many to"
                         " pair one by one: the largest of the pairs and of their outlines)")
        if flipped:
            notes.append(f"{flipped:,} triangle{'s' if flipped > 1 else ''} turned the other way")
        if size_s > tol:
            worst = max(spairs, key=lambda p: np.abs(a.solids[p[0]].support - b.solids[p[1]].support).max())
            x, y = a.solids[worst[0]], b.solids[worst[1]]
            change = _dims_change(x, y)
            what = "surface" if len(a.solids) == 1 else f"{x.kind} surface"
            notes.append(f"{what} moved by up to {size_s:.3g} m" + (f" ({change})" if change else ""))
        if size_p > tol:
            notes.append(f"points moved by up to {size_p:.3g} m")
        return ShapeMatch(False, size, "; ".join(notes), tpairs, spairs, ppairs)
    U = _outline_directions(a, b)
    ha, hb = a.outline(U), b.outline(U)
    if ha is None or hb is None:
        return ShapeMatch(False, None, "")
    pa, pb = _pieces(a, U), _pieces(b, U)
    if len(pa) == len(pb) and not a.points.size and not b.points.size:
        size, _ = _pair_supports(pa, pb)
        if size > tol:
            return ShapeMatch(False, size, f"piece by piece, convex outlines differ by up to "
                                           f"{size:.3g} m")
    size = float(np.abs(ha - hb).max())
    if size <= tol and _convex(a, tol) and _convex(b, tol):
        return ShapeMatch(True, size, "")
    if size <= tol:
        return ShapeMatch(False, size, "made of other pieces, whose convex outlines agree")
    return ShapeMatch(False, size, f"convex outlines differ by up to {size:.3g} m")


def _pieces(s: Shape, U: np.ndarray) -> list:
    """The support over ``U`` of each piece of ``s``: each solid, then each mesh."""
    out = [x.support_at(U) for x in s.solids]
    start = 0
    for n in s.mesh_sizes:
        out.append((U @ _corners(s.tris[start:start + n]).T).max(axis=1))
        start += n
    return out


def _corners(tris: np.ndarray) -> np.ndarray:
    """The distinct corners of triangles (a mesh's vertices, each once)."""
    return np.unique(tris.reshape(-1, 3), axis=0) if len(tris) else np.zeros((0, 3))


_NORMALS = 2000          # face normals added to the directions an outline is measured along


def _outline_directions(a: Shape, b: Shape) -> np.ndarray:
    """:data:`DIRECTIONS` and the face normals of both shapes' triangles: the support of a
    polyhedron differs most from that of a solid it is inscribed in along its face normals
    (a cylinder written as 32 facets: the distance of a facet from the curved surface)."""
    normals = np.concatenate([a.face_normals(), b.face_normals()])
    if len(normals):
        normals = np.unique(np.round(normals, 12), axis=0)
    if len(normals) > _NORMALS:       # (evenly chosen: a tessellated primitive has few)
        normals = normals[np.linspace(0, len(normals) - 1, _NORMALS).astype(int)]
    return np.concatenate([DIRECTIONS, normals])


_CONVEXITY = 5000       # meshes of more triangles are not checked for convexity


def _convex(s: Shape, tol: float) -> bool:
    """Whether ``s`` is one convex piece, so that its convex outline is all of it: one
    primitive solid (they are convex), or one mesh of at most :data:`_CONVEXITY` triangles
    with every vertex behind (within ``tol``) the plane of every triangle (a box written as
    12 triangles)."""
    if s.missing or s.clouds or len(s.solids) + s.meshes != 1:
        return False
    if s.solids:
        return True
    if len(s.tris) > _CONVEXITY:
        return False
    n = np.cross(s.tris[:, 1] - s.tris[:, 0], s.tris[:, 2] - s.tris[:, 0])
    length = np.linalg.norm(n, axis=1)
    keep = length > 0
    n = n[keep] / length[keep, None]
    V = np.unique(s.tris.reshape(-1, 3), axis=0)
    height = (n @ V.T).max(axis=1) - (n * s.tris[keep, 0]).sum(axis=1)
    return bool(height.max(initial=0.0) <= tol)


# -- colours ---------------------------------------------------------------------------------

def _colour_value(rows: np.ndarray):
    """The colour of ``rows`` (RGBA rows): one colour as an RGBA tuple, None when unset,
    ``"3 colours"`` when several."""
    distinct = _distinct(rows)
    if len(distinct) == 1:
        c = distinct[0]
        return None if np.isnan(c).any() else tuple(float(x) for x in c)
    return f"{len(distinct)} colours"


def _distinct(rows: np.ndarray) -> list:
    if len(rows) == 0:
        return []
    keyed = np.where(np.isnan(rows), -1.0, rows)
    return [np.where(r < 0, np.nan, r) for r in np.unique(keyed, axis=0)]


def compare_colours(a: Shape, b: Shape, match: ShapeMatch, tol: float) -> Optional[tuple]:
    """``(A's colour, B's colour (:func:`_colour_value`), size, note)`` when the colours the two shapes are drawn
    with differ (along the pairing of ``match``; by the set of colours used when the shapes
    are made of different pieces), else None. Size: the largest channel difference (None
    where one side sets no colour)."""
    ca = [a.tri_rgba, np.array([s.rgba or (np.nan,) * 4 for s in a.solids]).reshape(-1, 4), a.point_rgba]
    cb = [b.tri_rgba, np.array([s.rgba or (np.nan,) * 4 for s in b.solids]).reshape(-1, 4), b.point_rgba]
    all_a, all_b = np.concatenate(ca), np.concatenate(cb)
    if len(all_a) == 0 or len(all_b) == 0:
        return None
    if match.tri_pairs is not None and match.solid_pairs is not None and match.point_pairs is not None:
        ia, ib = match.tri_pairs
        sp = np.array(match.solid_pairs, int).reshape(-1, 2)
        pa, pb = match.point_pairs
        xa = np.concatenate([ca[0][ia], ca[1][sp[:, 0]], ca[2][pa]])
        xb = np.concatenate([cb[0][ib], cb[1][sp[:, 1]], cb[2][pb]])
        unset_a, unset_b = np.isnan(xa).any(axis=1), np.isnan(xb).any(axis=1)
        both = ~unset_a & ~unset_b
        d = np.abs(xa[both] - xb[both]).max(axis=1) if both.any() else np.zeros(0)
        bad = (unset_a != unset_b)
        bad[both] |= d > tol
        if not bad.any():
            return None
        size = None if (unset_a != unset_b).any() else float(d.max())
        ta, tb = _colour_value(xa), _colour_value(xb)
        note = ""
        if len(_distinct(xa)) > 1 or len(_distinct(xb)) > 1:
            note = f"{int(bad.sum()):,} of {len(bad):,} pieces or triangles drawn in other colours"
        return ta, tb, size, note
    da, db = _distinct(all_a), _distinct(all_b)
    if len(da) == len(db) and all(_near(x, db, tol) for x in da) and all(_near(y, da, tol) for y in db):
        return None
    return _colour_value(all_a), _colour_value(all_b), None, ""


def _near(c, others, tol) -> bool:
    for o in others:
        if np.isnan(c).any() or np.isnan(o).any():
            if np.isnan(c).any() and np.isnan(o).any():
                return True
            continue
        if np.abs(c - o).max() <= tol:
            return True
    return False
