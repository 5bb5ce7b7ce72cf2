"""Still images of robots, objects and worlds (``roboio render``), without a display or GPU.

The scene's meshes (see :mod:`roboio.model.posed`) are posed by roboio's forward
kinematics, projected by an orthographic :class:`~roboio.view.camera.Camera` of a named
view fitted to the scene, rasterised by the numpy z-buffer of :mod:`roboio.view.raster` at
``supersample`` times the size, shaded flat (ambient plus a light at the camera, two-sided)
and averaged down. Pixels no triangle covers keep the background colour. PNG is written by
Pillow.
"""
from __future__ import annotations

import numpy as np

from ..model.posed import scene_elements
from . import camera as cam
from .raster import rasterize

__all__ = ["render", "render_image", "scene_triangles", "BACKGROUND"]

BACKGROUND = (1.0, 1.0, 1.0)


def scene_triangles(obj, configs=None, visual: bool = True):
    """World-frame triangles of ``obj``: ``(tris (T, 3, 3), colors (T, 3))``."""
    tris, cols = [], []
    for em in scene_elements(obj, configs):
        R, p = em.transform[:3, :3], em.transform[:3, 3]
        for part in (em.visual if visual else em.collision):
            v = part.vertices @ R.T + p
            tris.append(v[part.faces])
            if part.vertex_colors is not None:
                cols.append(part.vertex_colors[part.faces][:, :, :3].mean(axis=1))
            else:
                cols.append(np.tile(np.asarray(part.color[:3], float), (len(part.faces), 1)))
    if not tris:
        return np.zeros((0, 3, 3)), np.zeros((0, 3))
    return np.concatenate(tris), np.concatenate(cols)


def render_image(obj, *, configs=None, view: str = "iso", size=(640, 480), visual: bool = True,
                 supersample: int = 2, camera=None, background=BACKGROUND):
    """(height, width, 3) uint8 image of ``obj`` and the camera used (fitted to the scene
    at the final image size unless ``camera`` is given)."""
    width, height = int(size[0]), int(size[1])
    tris, cols = scene_triangles(obj, configs, visual)
    if camera is None:
        camera = cam.fit(tris.reshape(-1, 3), view, width, height)
    s = max(int(supersample), 1)
    big = cam.Camera(camera.forward, camera.up, camera.right, camera.center, camera.scale * s,
                     width * s, height * s)
    proj = big.project(tris.reshape(-1, 3)).reshape(-1, 3, 3)
    ids, _ = rasterize(proj[..., :2], proj[..., 2], width * s, height * s)
    n = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    norm = np.linalg.norm(n, axis=1)
    n = n / np.where(norm > 0, norm, 1.0)[:, None]
    light = -camera.forward + 0.5 * camera.up - 0.3 * camera.right
    light /= np.linalg.norm(light)
    shade = 0.35 + 0.65 * np.abs(n @ light)
    tri_rgb = np.clip(cols * shade[:, None], 0, 1)
    img = np.empty(ids.shape + (3,))
    img[:] = np.asarray(background, float)
    hit = ids >= 0
    img[hit] = tri_rgb[ids[hit]]
    img = img.reshape(height, s, width, s, 3).mean(axis=(1, 3))
    return (np.round(img * 255)).astype(np.uint8), camera


def render(obj, path: str, **kw):
    """Render ``obj`` (see :func:`render_image`) and write a PNG to ``path``; returns the
    camera."""
    from . import require
    Image = require("PIL.Image", "writing PNG images")
    img, camera = render_image(obj, **kw)
    from ..formats.fileio import atomic_write
    import io
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG", optimize=True)
    atomic_write(path, buf.getvalue())
    return camera
