"""Still images of robots, objects and worlds (``roboio render``), without a display or GPU.

The scene's meshes (see :mod:`roboio.model.posed`) are posed by roboio's forward
kinematics, projected by an orthographic :class:`~roboio.view.camera.Camera` of a named
view fitted to the scene, rasterised by the numpy z-buffer of :mod:`roboio.view.raster` at
``supersample`` times the size, shaded flat (:func:`shade`: ambient, a key and a fill
light, a highlight; dark materials lifted toward grey so their shape reads; two-sided) and
averaged down. Pixels no triangle covers keep the background colour. The camera frames the
robots and objects of a world (a floor is drawn, not framed). PNG or JPEG, by the output's
extension, is written by Pillow.

Point clouds are drawn as discs facing the camera, in their own colours (unshaded), with
the diameter :func:`roboio.model.posed.point_size` gives in metres but never smaller than
:data:`MIN_POINT_PIXELS` pixels of the final image (nor larger than
:data:`MAX_POINT_PIXELS`), depth-tested against the triangles: a point behind a surface is
hidden, a point in front of it (or on it) is drawn. The camera is fitted to the triangles
and the points together.
"""
from __future__ import annotations

import numpy as np

from ..model.posed import _transform_points, framed, scene_elements
from . import camera as cam
from .raster import rasterize, rasterize_points

__all__ = ["render", "render_image", "image_format", "IMAGE_FORMATS", "shade", "scene_triangles", "scene_points", "BACKGROUND",
           "MIN_POINT_PIXELS", "MAX_POINT_PIXELS"]

BACKGROUND = (1.0, 1.0, 1.0)
MIN_POINT_PIXELS = 1.5      # smallest drawn point diameter, pixels of the final image
MAX_POINT_PIXELS = 40.0     # largest


def scene_triangles(obj, configs=None, visual: bool = True):
    """World-frame triangles of ``obj``: ``(tris (T, 3, 3), colors (T, 3))``."""
    return _triangles(scene_elements(obj, configs), visual)


def _triangles(elements, visual):
    tris, cols = [], []
    for em in elements:
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


def scene_points(obj, configs=None, visual: bool = True):
    """World-frame points of ``obj``'s point clouds: ``(points (N, 3), colors (N, 3),
    sizes (N,))``, sizes the drawing diameter in metres (one per cloud, repeated)."""
    return _points(scene_elements(obj, configs), visual)


def _points(elements, visual):
    pts, cols, sizes = [], [], []
    for em in elements:
        for part in (em.visual_points if visual else em.collision_points):
            pts.append(_transform_points(em.transform, part.points))
            cols.append(part.rgba()[:, :3])
            sizes.append(np.full(len(part.points), part.size))
    if not pts:
        return np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0)
    return np.concatenate(pts), np.concatenate(cols), np.concatenate(sizes)


def render_image(obj, *, configs=None, view: str = "iso", size=(640, 480), visual: bool = True,
                 supersample: int = 2, camera=None, background=BACKGROUND):
    """(height, width, 3) uint8 image of ``obj`` and the camera used (fitted to the scene
    at the final image size unless ``camera`` is given)."""
    width, height = int(size[0]), int(size[1])
    elements = scene_elements(obj, configs)
    tris, cols = _triangles(elements, visual)
    pts, pcols, psizes = _points(elements, visual)
    if camera is None:
        focus = framed(elements)
        ftris, _ = _triangles(focus, visual)
        fpts, _, _ = _points(focus, visual)
        camera = cam.fit(np.concatenate([ftris.reshape(-1, 3), fpts]), view, width, height)
    s = max(int(supersample), 1)
    big = cam.Camera(camera.forward, camera.up, camera.right, camera.center, camera.scale * s,
                     width * s, height * s)
    proj = big.project(tris.reshape(-1, 3)).reshape(-1, 3, 3)
    ids, zbuf = rasterize(proj[..., :2], proj[..., 2], width * s, height * s)
    pids = None
    if len(pts):
        pp = big.project(pts)
        diameter = np.clip(psizes * camera.scale, MIN_POINT_PIXELS, MAX_POINT_PIXELS)
        pids = rasterize_points(pp[:, :2], pp[:, 2], diameter * s / 2, width * s, height * s, zbuf)
    tri_rgb = shade(tris, cols, camera)
    img = np.empty(ids.shape + (3,))
    img[:] = np.asarray(background, float)
    hit = ids >= 0
    img[hit] = tri_rgb[ids[hit]]
    if pids is not None:
        on = pids >= 0
        img[on] = np.clip(pcols[pids[on]], 0, 1)
    img = img.reshape(height, s, width, s, 3).mean(axis=(1, 3))
    return (np.round(img * 255)).astype(np.uint8), camera


# Lighting of still images: an ambient term, a key light above-left of the camera, a weaker
# fill light from the other side, and a white highlight of the key light. Dark materials (a
# GraspIt! Barrett is diffuse 0 to 0.1) are lifted toward grey first, so that their shape
# reads instead of a black silhouette; light colours barely change.
AMBIENT, KEY, FILL = 0.32, 0.58, 0.22
HIGHLIGHT, SHININESS = 0.35, 24.0
DARK_LIFT = 0.22           # grey added to a black material (less to lighter ones, none to any
                           # colour with a full channel: saturated colours keep their hue)


def shade(tris, colors, camera) -> np.ndarray:
    """(T, 3) RGB in [0, 1] of triangles ``tris`` (T, 3, 3) of base ``colors`` (T, 3) seen
    by ``camera`` (two-sided: a normal facing away is flipped toward the eye)."""
    n = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    norm = np.linalg.norm(n, axis=1)
    n = n / np.where(norm > 0, norm, 1.0)[:, None]
    eye = -np.asarray(camera.forward, float)
    n = np.where((n @ eye < 0)[:, None], -n, n)
    key = _unit(eye + 0.5 * camera.up - 0.3 * camera.right)
    fill = _unit(eye - 0.3 * camera.up + 0.6 * camera.right)
    diffuse = AMBIENT + KEY * np.clip(n @ key, 0, 1) + FILL * np.clip(n @ fill, 0, 1)
    half = _unit(key + eye)
    highlight = HIGHLIGHT * np.clip(n @ half, 0, 1) ** SHININESS
    c = np.clip(colors, 0, 1)
    base = c + DARK_LIFT * (1.0 - c.max(axis=1, keepdims=True))
    return np.clip(base * diffuse[:, None] + highlight[:, None], 0, 1)


def _unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


#: image formats :func:`render` writes, by the output's extension (Pillow's names)
IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}


def image_format(path: str) -> str:
    """Pillow's name of the image format ``path``'s extension names; ValueError for any
    other extension (an image is never written in a format its name does not say)."""
    import os
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in IMAGE_FORMATS:
        raise ValueError(f"{path}: cannot write an image with extension {ext or '(none)'!r}: "
                         f"use one of {', '.join(IMAGE_FORMATS)}")
    return IMAGE_FORMATS[ext]


def render(obj, path: str, **kw):
    """Render ``obj`` (see :func:`render_image`) and write it to ``path`` as PNG or JPEG, by
    its extension (:data:`IMAGE_FORMATS`); returns the camera."""
    fmt = image_format(path)
    from . import require
    Image = require("PIL.Image", "writing images")
    img, camera = render_image(obj, **kw)
    from ..formats.fileio import atomic_write
    import io
    buf = io.BytesIO()
    if fmt == "JPEG":
        Image.fromarray(img).save(buf, format="JPEG", quality=92)
    else:
        Image.fromarray(img).save(buf, format="PNG", optimize=True)
    atomic_write(path, buf.getvalue())
    return camera
