"""Shape data -> triangles and colours, for the Inventor / VRML scene walk (:mod:`._scene`).

:class:`Sink` collects the shapes of a file (vertices moved into the file frame, a
coordinate list shared by several shapes under one matrix stored once); :func:`indexed` and
:func:`sequential` triangulate index streams and vertex counts into a :class:`Shape`, which
also knows how to look up per-part / per-face / per-vertex colours (a per-vertex binding
gives each triangle the mean of its three corner colours); :func:`transform_matrix` is the
Inventor / VRML ``Transform`` product.
"""
from __future__ import annotations

import numpy as np

from ....limits import describe as over_limit
from ....transforms import axis_angle_to_matrix, compose, matrix_vector, rotate_tensor, transform_points
from . import _shapes as shapes

__all__ = ["Sink", "Shape", "indexed", "sequential", "transform_matrix", "to_rgba", "palette_colors",
           "DEFAULT_RGBA"]

DEFAULT_RGBA = np.array([0.8, 0.8, 0.8, 1.0])     # Inventor's default diffuse colour, opaque


def transform_matrix(translation=None, rotation=None, scale=None, scale_orientation=None,
                     center=None) -> np.ndarray:
    """T(t) T(c) R(r) R(so) S(s) R(so)^-1 T(-c), rotations given as (x, y, z, angle rad)."""
    M = np.eye(4)
    c = np.zeros(3) if center is None else np.asarray(center, float)
    if translation is not None:
        M[:3, 3] += translation
    M[:3, 3] += c
    if rotation is not None:
        M[:3, :3] = axis_angle_to_matrix(rotation[:3], rotation[3])
    if scale is not None:
        S = np.diag(np.asarray(scale, float))
        if scale_orientation is not None:
            SO = axis_angle_to_matrix(scale_orientation[:3], scale_orientation[3])
            S = rotate_tensor(SO, S)
        M[:3, :3] = compose(M[:3, :3], S)
    M[:3, 3] -= matrix_vector(M[:3, :3], c)
    return M


class Sink:
    """Accumulates shapes (vertices already in the file frame). A coordinate list shared by
    several shapes under the same matrix is stored once."""

    def __init__(self, limit: int):
        self.verts: list = []
        self.faces: list = []
        self.colors: list = []
        self.nv = 0
        self.nf = 0
        self.limit = limit
        self.colored = False
        self._cache: dict = {}

    def add(self, points: np.ndarray, M: np.ndarray, faces: np.ndarray, rgba, error):
        if len(faces) == 0:
            return
        if self.nf + len(faces) > self.limit:
            raise error(over_limit("triangles", self.nf + len(faces), self.limit,
                                   "Inventor/VRML triangles (DEF/USE and includes expanded)"))
        key = (id(points), M.tobytes())
        hit = self._cache.get(key)
        if hit is None:
            if np.array_equal(M, np.eye(4)):
                v = np.array(points, dtype=np.float64)
            else:
                v = transform_points(M, points)
            hit = (points, self.nv)
            self._cache[key] = hit
            self.verts.append(v)
            self.nv += len(v)
        self.faces.append(faces + hit[1])
        self.nf += len(faces)
        if rgba is not None:
            self.colored = True
        self.colors.append((rgba, len(faces)))

    def result(self) -> dict:
        if not self.faces:
            return {"vertices": np.zeros((0, 3)), "faces": np.zeros((0, 3), np.int64)}
        out = {"vertices": np.concatenate(self.verts), "faces": np.concatenate(self.faces)}
        if self.colored:
            out["face_colors"] = np.concatenate(
                [c if c is not None else np.tile(DEFAULT_RGBA, (n, 1)) for c, n in self.colors])
        return out


def to_rgba(rgb, alpha) -> np.ndarray:
    rgb = np.asarray(rgb, float).reshape(-1, 3)
    a = np.asarray(alpha, float).reshape(-1)
    if len(a) == 0:
        a = np.zeros(1)
    if len(a) < len(rgb):
        a = np.concatenate([a, np.full(len(rgb) - len(a), a[0])])
    return np.concatenate([rgb, 1.0 - a[: len(rgb), None]], axis=1)


def palette_colors(palette: np.ndarray, idx: np.ndarray, warn) -> np.ndarray:
    """Colours of (F,) or (F, 3) palette indices; per-corner colours are averaged."""
    if len(palette) == 0:
        return None
    if idx.size and (idx.min() < 0 or idx.max() >= len(palette)):
        warn(f"colour index {int(idx.max() if idx.max() >= len(palette) else idx.min())} outside "
             f"the {len(palette)} colours given; clamped", kind="changed")
        idx = np.clip(idx, 0, len(palette) - 1)
    c = palette[idx]
    return c.mean(axis=1) if c.ndim == 3 else c


class Shape:
    """Triangulation of one indexed or sequential shape, with what colour lookup needs."""

    def __init__(self, faces, corners, face_of, part_of, stream, counter):
        self.faces = faces            # (F, 3) coordinate indices
        self.corners = corners        # (F, 3) positions in the index stream
        self.face_of = face_of        # (F,) face number (polygon, or strip triangle)
        self.part_of = part_of        # (F,) part number (polygon or strip)
        self.stream = stream          # the coordinate index stream (with -1 separators)
        self.counter = counter        # (F, 3) running vertex number of each corner

    def color_indices(self, binding: str, index, warn):
        """Palette indices for a material ``binding`` (``index``: materialIndex or None)."""
        # Coin's default materialIndex is a single -1: "use coordIndex"
        has_index = index is not None and len(index) > 0 and not (len(index) == 1 and index[0] == -1)
        if binding in ("PER_PART", "PER_PART_INDEXED"):
            sel = self.part_of
        elif binding in ("PER_FACE", "PER_FACE_INDEXED"):
            sel = self.face_of
        elif binding == "PER_VERTEX":
            return self.counter
        elif binding == "PER_VERTEX_INDEXED":
            return _take(index, self.corners, warn) if has_index else self.stream[self.corners]
        else:
            return np.zeros(len(self.faces), np.int64)
        if binding.endswith("_INDEXED") and has_index:
            return _take(index, sel, warn)
        return sel


def _take(index, pos: np.ndarray, warn) -> np.ndarray:
    """``index[pos]``; positions beyond a too short index list take its last entry."""
    index = np.asarray(index, dtype=np.int64)
    need = int(pos.max()) + 1 if pos.size else 0
    if need > len(index):
        warn(f"colour/material index list has {len(index)} entries, {need} needed; "
             "the last one is repeated", kind="changed")
        pos = np.minimum(pos, len(index) - 1)
    return index[pos]


def indexed(stream: np.ndarray, points, convex: bool, strip: bool, node, field: str) -> Shape:
    """Triangulate an index stream (IndexedFaceSet / IndexedTriangleStripSet)."""
    stream = np.asarray(stream, dtype=np.int64).reshape(-1)
    bad = (stream < -1) | (stream >= (0 if points is None else len(points)))
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        have = "no coordinates precede it" if points is None else f"there are {len(points)} coordinates"
        raise node.error(f"{field}[{pos}] = {int(stream[pos])} is out of range ({have})", field)
    starts, lengths = shapes.runs(stream)
    corners, face_of, part_of = _triangulate(stream, starts, lengths, points, convex, strip)
    # running vertex number: position minus the -1 separators before it
    seps_before = np.cumsum(stream == -1) - (stream == -1)
    counter = corners - seps_before[corners] if len(corners) else corners
    return Shape(stream[corners], corners, face_of, part_of, stream, counter)


def _triangulate(stream, starts, lengths, points, convex: bool, strip: bool):
    """(corners, face_of, part_of) of the runs ``starts``/``lengths`` of ``stream``."""
    if strip:
        corners, part_of = shapes.strips(starts, lengths)
        return corners, np.arange(len(corners)), part_of
    if convex or not (lengths > 3).any():
        corners, face_of = shapes.fan(starts, lengths)
    else:
        corners, face_of = shapes.ear_clip_runs(
            starts, lengths, lambda i: points[stream[starts[i]:starts[i] + lengths[i]]])
    return corners, face_of, face_of


def sequential(start: int, counts, npoints: int, convex: bool, strip: bool, points, node) -> Shape:
    """FaceSet / TriangleStripSet: consecutive coordinates from ``start``; a count of -1
    takes all remaining coordinates."""
    counts = [int(c) for c in np.asarray(counts, dtype=np.int64).reshape(-1)]
    avail = npoints - start
    if start < 0 or avail < 0:
        raise node.error(f"startIndex {start} is outside the {npoints} coordinates", "startIndex")
    lengths = []
    used = 0
    for c in counts:
        if c == -1:
            c = avail - used
        if c < 0:
            raise node.error(f"numVertices {c} is negative", "numVertices")
        lengths.append(c)
        used += c
    if used > avail:
        raise node.error(f"numVertices needs {used} coordinates after startIndex {start}, "
                         f"there are {avail}", "numVertices")
    stream = np.arange(start, start + used, dtype=np.int64)
    starts, lengths = shapes.runs(stream, lengths)
    corners, face_of, part_of = _triangulate(stream, starts, lengths, points, convex, strip)
    # Coin numbers per-vertex materials of a FaceSet from 0, whatever startIndex is
    return Shape(stream[corners], corners, face_of, part_of, stream, corners)
