"""A small z-buffer triangle rasteriser on numpy (no GPU, display or system library).

Triangles come in image coordinates (x right, y down, pixel centres at half-integers) with
a depth per corner (smaller is nearer) and are rasterised exactly: a pixel is covered when
its centre lies inside the triangle (edge functions, both windings), its depth interpolated
linearly (orthographic projection: exact), the nearest triangle wins. Work is vectorised
over candidate pixels (each triangle's bounding box), in chunks of bounded size so memory
stays small whatever the mesh.

Points (:func:`rasterize_points`) are discs of a given pixel radius facing the camera,
depth-tested against the triangles' z-buffer.
"""
from __future__ import annotations

import numpy as np

__all__ = ["rasterize", "rasterize_points", "CHUNK"]

CHUNK = 1 << 22      # candidate pixels per chunk (~150 MB of temporaries at most)


def rasterize(xy: np.ndarray, depth: np.ndarray, width: int, height: int):
    """Z-buffer ``T`` triangles: ``xy`` (T, 3, 2) corners in pixels, ``depth`` (T, 3).

    Returns ``(ids, zbuf)``: ``ids`` (height, width) int64, the index of the triangle seen
    at each pixel or -1; ``zbuf`` (height, width) float64 its depth (inf where empty)."""
    xy = np.asarray(xy, float).reshape(-1, 3, 2)
    depth = np.asarray(depth, float).reshape(-1, 3)
    n = width * height
    zbuf = np.full(n, np.inf)
    ids = np.full(n, -1, dtype=np.int64)
    x, y = xy[..., 0], xy[..., 1]
    # edge functions e_k(p) = a_k px + b_k py + c_k for the edge opposite corner k
    a = np.stack([y[:, 1] - y[:, 2], y[:, 2] - y[:, 0], y[:, 0] - y[:, 1]], axis=1)
    b = np.stack([x[:, 2] - x[:, 1], x[:, 0] - x[:, 2], x[:, 1] - x[:, 0]], axis=1)
    c = np.stack([x[:, 1] * y[:, 2] - x[:, 2] * y[:, 1], x[:, 2] * y[:, 0] - x[:, 0] * y[:, 2],
                  x[:, 0] * y[:, 1] - x[:, 1] * y[:, 0]], axis=1)
    area = c.sum(axis=1)                                  # twice the signed area
    x0 = np.clip(np.floor(x.min(axis=1) - 0.5), 0, width - 1).astype(np.int64)
    x1 = np.clip(np.ceil(x.max(axis=1) - 0.5), 0, width - 1).astype(np.int64)
    y0 = np.clip(np.floor(y.min(axis=1) - 0.5), 0, height - 1).astype(np.int64)
    y1 = np.clip(np.ceil(y.max(axis=1) - 0.5), 0, height - 1).astype(np.int64)
    visible = ((np.abs(area) > 1e-12) & (x.max(axis=1) >= 0) & (x.min(axis=1) <= width)
               & (y.max(axis=1) >= 0) & (y.min(axis=1) <= height) & np.all(np.isfinite(depth), axis=1))
    tri = np.nonzero(visible)[0]
    w = x1[tri] - x0[tri] + 1
    count = w * (y1[tri] - y0[tri] + 1)
    ends = np.cumsum(count)
    start = 0
    while start < len(tri):
        base = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, base + CHUNK, side="right")), start + 1)
        _chunk(tri[start:stop], count[start:stop], w[start:stop], x0, y0, a, b, c, area, depth,
               width, zbuf, ids)
        start = stop
    return ids.reshape(height, width), zbuf.reshape(height, width)


def _chunk(tri, count, w, x0, y0, a, b, c, area, depth, width, zbuf, ids):
    t = np.repeat(tri, count)
    k = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    wt = np.repeat(w, count)
    px = x0[t] + k % wt
    py = y0[t] + k // wt
    cx, cy = px + 0.5, py + 0.5
    e = a[t] * cx[:, None] + b[t] * cy[:, None] + c[t]    # (M, 3) = area * barycentric
    s = np.sign(area[t])[:, None]
    inside = np.all(e * s >= 0, axis=1)
    t, px, py, e = t[inside], px[inside], py[inside], e[inside]
    if len(t) == 0:
        return
    z = np.einsum("ij,ij->i", e, depth[t]) / area[t]
    pid = py * width + px
    order = np.lexsort((z, pid))
    pid_s = pid[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = pid_s[1:] != pid_s[:-1]
    sel = order[first]
    closer = z[sel] < zbuf[pid[sel]]
    sel = sel[closer]
    zbuf[pid[sel]] = z[sel]
    ids[pid[sel]] = t[sel]


def rasterize_points(xy: np.ndarray, depth: np.ndarray, radius, width: int, height: int,
                     zbuf: np.ndarray) -> np.ndarray:
    """Z-buffer ``N`` points drawn as discs: point ``k`` covers every pixel whose centre lies
    within ``radius[k]`` pixels of ``xy[k]`` (image coordinates as for triangles), at its
    own depth ``depth[k]`` over the whole disc (a disc faces the camera). A point is drawn
    where it is not farther than what ``zbuf`` (height, width) holds already (the triangles'
    depths); ``zbuf`` is updated in place. Returns ``ids`` (height, width) int64: the index
    of the point seen at each pixel or -1.

    Vectorised per distinct radius (a cloud has one), over chunks of at most :data:`CHUNK`
    candidate pixels; the nearest point per pixel is found with ``np.minimum.at``."""
    xy = np.asarray(xy, float).reshape(-1, 2)
    depth = np.asarray(depth, float).reshape(-1)
    radius = np.broadcast_to(np.asarray(radius, float), depth.shape)
    zb = zbuf.reshape(-1)
    ids = np.full(width * height, -1, dtype=np.int64)
    x, y = xy[:, 0], xy[:, 1]
    ok = (np.isfinite(x) & np.isfinite(y) & np.isfinite(depth) & (radius > 0)
          & (x >= -radius) & (x <= width + radius) & (y >= -radius) & (y <= height + radius))
    for r in np.unique(radius[ok]):
        sel = np.nonzero(ok & (radius == r))[0]
        # pixel offsets from the pixel holding the point that can reach within r of it
        R = int(np.ceil(r + 0.5))
        d = np.arange(-R, R + 1)
        ox, oy = (a.ravel() for a in np.meshgrid(d, d))
        keep = np.maximum(np.abs(ox) - 0.5, 0) ** 2 + np.maximum(np.abs(oy) - 0.5, 0) ** 2 <= r * r
        ox, oy = ox[keep], oy[keep]
        cx, cy = (ox + 0.5).astype(np.float32), (oy + 0.5).astype(np.float32)
        step = max(CHUNK // len(ox), 1)
        for start in range(0, len(sel), step):
            k = sel[start:start + step]
            ix, iy = np.floor(x[k]), np.floor(y[k])
            fx, fy = (x[k] - ix).astype(np.float32), (y[k] - iy).astype(np.float32)
            ix, iy = ix.astype(np.int64), iy.astype(np.int64)
            ddx = cx - fx[:, None]
            ddy = cy - fy[:, None]
            near = ddx * ddx + ddy * ddy <= np.float32(r * r)
            edge = (ix < R) | (ix >= width - R) | (iy < R) | (iy >= height - R)
            if np.any(edge):        # discs crossing the image border: drop pixels outside
                e = np.nonzero(edge)[0]
                px, py = ix[e, None] + ox, iy[e, None] + oy
                near[e] &= (px >= 0) & (px < width) & (py >= 0) & (py < height)
            rows, cols = np.nonzero(near)
            kk = k[rows]
            pid = (iy[rows] + oy[cols]) * width + ix[rows] + ox[cols]
            z = depth[kk]
            np.minimum.at(zb, pid, z)
            win = z <= zb[pid]
            ids[pid[win]] = kk[win]
    return ids.reshape(height, width)
