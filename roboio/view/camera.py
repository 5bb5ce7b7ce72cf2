"""Orthographic cameras for still images: named views and fitting to a scene's bounds.

World frame is Z-up (roboio's convention). A :class:`Camera` has a unit ``forward``
direction (from the eye into the scene), ``up`` and ``right`` (``forward x up``), a centre
``center`` (world point at the middle of the image) and ``scale`` (pixels per metre).
Image coordinates: x to the right, y down, pixel (0, 0) the top-left corner, pixel centres
at half-integers.

Named views (the eye's direction from the scene): ``front`` from +x (y to the right),
``side`` from -y (x to the right), ``top`` from +z (x to the right, y up), ``iso`` from
(1, -1, 0.7) (z up). :func:`fit` centres the bounding box of the points on the image plane
and scales it to fill the image less a ``margin`` fraction on every side.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Camera", "VIEWS", "view_axes", "fit"]

# eye direction (scene -> eye), up vector
VIEWS = {
    "front": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
    "side": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)),
    "top": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
    "iso": ((1.0, -1.0, 0.7), (0.0, 0.0, 1.0)),
}


def view_axes(view: str):
    """(forward, up, right) unit vectors of a named view."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r} (one of {', '.join(VIEWS)})")
    eye, up = (np.asarray(v, float) for v in VIEWS[view])
    forward = -eye / np.linalg.norm(eye)
    right = np.cross(forward, up)
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    return forward, up, right


@dataclass
class Camera:
    forward: np.ndarray
    up: np.ndarray
    right: np.ndarray
    center: np.ndarray
    scale: float
    width: int
    height: int

    def project(self, points) -> np.ndarray:
        """(N, 3) world points -> (N, 3): image x, image y (pixels), depth (m along
        ``forward``; smaller is nearer)."""
        p = np.asarray(points, float).reshape(-1, 3) - self.center
        # einsum, not a BLAS product: N x 3 times 3 is faster this way (points can be millions)
        u, v, d = np.einsum("nj,kj->kn", p, np.stack([self.right, self.up, self.forward]))
        return np.stack([u * self.scale + self.width / 2.0, self.height / 2.0 - v * self.scale, d], axis=1)


def fit(points, view: str, width: int, height: int, margin: float = 0.05) -> Camera:
    """The camera of ``view`` whose image shows all ``points`` (N, 3), centred, filling
    the image less ``margin`` (fraction of width/height) on each side."""
    forward, up, right = view_axes(view)
    pts = np.asarray(points, float).reshape(-1, 3)
    if len(pts) == 0:
        pts = np.zeros((1, 3))
    u, v, d = np.einsum("nj,kj->kn", pts, np.stack([right, up, forward]))
    umid, vmid = (u.min() + u.max()) / 2, (v.min() + v.max()) / 2
    du, dv = max(u.max() - u.min(), 1e-9), max(v.max() - v.min(), 1e-9)
    scale = min(width * (1 - 2 * margin) / du, height * (1 - 2 * margin) / dv)
    center = umid * right + vmid * up + (d.min() + d.max()) / 2 * forward
    return Camera(forward, up, right, center, float(scale), int(width), int(height))
