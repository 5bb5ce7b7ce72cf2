"""Mesh files read through trimesh: Wavefront OBJ, PLY, COLLADA (with pycollada), glTF/GLB.

:func:`load` runs one of trimesh's ``trimesh.exchange`` loaders on a file's bytes and
returns what it parsed, the "scene kwargs": a ``geometry`` dict (per mesh ``vertices``,
``faces``, optional ``vertex_colors``/``face_colors`` and ``visual``) and a ``graph`` of
node transforms, or a single mesh's kwargs. No ``trimesh.Trimesh`` is built from them, so
nothing is merged, reordered or dropped (what ``process=False`` asks for) and vertex and
face colours are not rounded to bytes (material colours are: trimesh keeps them as bytes,
so they come back to 1/255). Any exception trimesh or pycollada raise becomes a FormatError naming
the file (with the line when the message gives one); what trimesh logs as a warning
becomes a roboio warning.

:func:`flatten` makes the one mesh a reader returns. Parts are the geometry nodes of
trimesh's scene graph in the graph's order, each placed with its world transform
``graph[node]``; polygons are fan-triangulated ``(1, j, j+1)`` in order; ``extras["parts"]``
is the first face of each part when there are several (Klamp't loads them as a Group: see
:mod:`roboio.model.massprops`). Face colours come from per-face colours or the material's
main colour (TextureVisuals), vertex colours as given; RGBA in [0, 1], mid grey for the
parts without colours when others have them.

trimesh is imported here, inside the functions: importing it takes about 0.6 s, which only
a load that reads one of these files should pay.
"""
from __future__ import annotations

import io
import json
import logging
import re
import warnings

import numpy as np

from ...errors import FormatError
from ..meshfile import fan
from ...transforms import transform_points

__all__ = ["load", "flatten", "material_color"]

GREY = (0.5, 0.5, 0.5, 1.0)


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def load(path: str, data: bytes, loader, what: str, warn, **kwargs) -> dict:
    """``loader(file_obj, **kwargs)`` (a ``trimesh.exchange`` function) on ``data``.
    ``what`` names the format in error messages; ``warn(message)`` receives trimesh's
    logged warnings (after a successful load)."""
    log = logging.getLogger("trimesh")
    collect = _Collect()
    log.addHandler(collect)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            result = loader(io.BytesIO(data), **kwargs)
    except FormatError:
        raise
    except Exception as e:      # trimesh and pycollada raise anything on bad input
        raise _format_error(path, e, what) from None
    finally:
        log.removeHandler(collect)
    for message in dict.fromkeys(collect.messages):
        warn(f"trimesh: {message}", kind="guessed")
    if not isinstance(result, dict):
        raise FormatError(path, None, None, f"trimesh read nothing from this {what} file")
    return result


def _format_error(path: str, e: Exception, what: str) -> FormatError:
    message = str(e) or type(e).__name__
    line = column = None
    if isinstance(e, json.JSONDecodeError):
        line, column = e.lineno, e.colno
    else:
        m = re.search(r"line (\d+), column (\d+)", message) or re.search(r"\bline (\d+)", message)
        if m:
            line = int(m.group(1))
            column = int(m.group(2)) if m.re.groups == 2 else None
    return FormatError(path, line, column, f"not a readable {what} file (trimesh: {type(e).__name__}: {message})")


def flatten(scene: dict, path: str, what: str, warn, shared_vertices: bool = False,
            breaks=None) -> dict:
    """One mesh dict (``vertices``, ``faces``, optional ``face_colors``, ``vertex_colors``,
    ``extras``) from scene kwargs. With ``shared_vertices`` every part indexes one vertex
    list whose prefixes the parts hold (trimesh's OBJ reader with ``maintain_order``): the
    longest is used once, faces keep their indices. ``breaks`` = ``(triangles, count)``:
    further parts start at these triangles (numbered over all parts in order), used when the
    parts hold ``count`` triangles in all (else a warning says the breaks are not kept)."""
    if "geometry" not in scene and scene.get("faces") is None:      # points only, or nothing
        v = _vertices(scene, path, what) if scene.get("vertices") is not None else np.zeros((0, 3))
        return {"vertices": v, "faces": np.zeros((0, 3), np.int64),
                "vertex_colors": _vertex_colors(scene, len(v), path, what)}
    parts = []
    for T, kw in _placed(scene, path, what, warn):
        if kw.get("faces") is None:
            continue                              # points and lines: no surface
        v = _vertices(kw, path, what)
        tris, poly, npoly = _triangles(kw["faces"], len(v), path, what)
        if len(tris) == 0:
            continue
        if T is not None and not np.array_equal(T, np.eye(4)):
            v = transform_points(T, v)
        parts.append((v, tris, _face_colors(kw, poly, npoly, len(tris), path, what),
                      _vertex_colors(kw, len(v), path, what)))
    if not parts:
        return {"vertices": np.zeros((0, 3)), "faces": np.zeros((0, 3), np.int64)}
    longest = max((p[0] for p in parts), key=len)
    if shared_vertices and not all(np.array_equal(p[0], longest[:len(p[0])]) for p in parts):
        shared_vertices = False
    starts = set(np.cumsum([0] + [len(p[1]) for p in parts[:-1]]).tolist())
    if breaks is not None and np.any(breaks[0] > 0):
        at, count = breaks
        ntris = sum(len(p[1]) for p in parts)
        if ntris == count:
            starts.update(at[at < count].tolist())
        else:
            warn(f"the faces make {count} triangles, trimesh read {ntris}: object and group "
                 "boundaries are not recorded as parts", kind="dropped")
    if shared_vertices:
        vertices, faces = longest, np.concatenate([p[1] for p in parts])
        vcols = next((p[3] for p in parts if len(p[0]) == len(longest)), None)
    else:
        offsets = np.cumsum([0] + [len(p[0]) for p in parts[:-1]])
        vertices = np.concatenate([p[0] for p in parts])
        faces = np.concatenate([p[1] + o for p, o in zip(parts, offsets)])
        vcols = _join([p[3] for p in parts], [len(p[0]) for p in parts])
    out = {"vertices": vertices, "faces": faces, "vertex_colors": vcols,
           "face_colors": _join([p[2] for p in parts], [len(p[1]) for p in parts])}
    if len(starts) > 1:
        out["extras"] = {"parts": sorted(starts)}
    return out


def _placed(scene: dict, path, what, warn):
    """(world transform or None, geometry kwargs) of each geometry node, in graph order."""
    if "geometry" not in scene:
        return [(None, scene)]                    # a single mesh (PLY)
    geometry = scene["geometry"]
    from trimesh.scene.transforms import SceneGraph
    graph = SceneGraph(base_frame=scene.get("base_frame", "world"))
    for edge in scene.get("graph") or []:
        graph.update(**edge)
    nodes = graph.nodes_geometry
    if not nodes and geometry:
        warn("the file places no mesh in a scene: every mesh is read once, without node transforms", kind="guessed")
        return [(None, kw) for kw in geometry.values()]
    out = []
    for node in nodes:
        T, name = graph[node]
        T = np.asarray(T, np.float64)
        if not np.array_equal(T[3], [0.0, 0.0, 0.0, 1.0]):     # pycollada's <lookat>
            raise FormatError(path, None, None, f"{what}: the transform trimesh gives node {node!r} is not "
                                                f"affine (last row {T[3].tolist()})")
        out.append((T, geometry[name]))
    return out


def _vertices(kw, path, what) -> np.ndarray:
    try:
        v = np.asarray(kw.get("vertices"), dtype=np.float64)
    except (TypeError, ValueError):
        raise FormatError(path, None, None, f"{what}: malformed vertex data (trimesh read rows of different lengths)") from None
    if v.ndim != 2 or v.shape[1] != 3:
        raise FormatError(path, None, None, f"{what}: vertices must have 3 coordinates, trimesh read an array of shape {v.shape}")
    return v


def _triangles(faces, nv: int, path, what):
    """Fan triangles of the polygons ``faces`` ((n, k) or a list of index lists), each
    triangle's polygon (None when the polygons are triangles already) and the number of
    polygons."""
    try:
        f = np.asarray(faces)
        if f.dtype == object or f.ndim != 2:
            lists = [np.asarray(p, np.int64).ravel() for p in f]
            k = np.array([len(p) for p in lists], np.int64)
            flat = np.concatenate(lists) if lists else np.zeros(0, np.int64)
        else:
            f = f.astype(np.int64)
            k, flat = np.full(len(f), f.shape[1], np.int64), f.ravel()
    except (TypeError, ValueError):
        raise FormatError(path, None, None, f"{what}: malformed face data") from None
    if len(k) and k.min() < 3:
        raise FormatError(path, None, None, f"{what}: a face with {int(k.min())} corners (at least 3 needed)")
    if flat.size and (flat.min() < 0 or flat.max() >= nv):
        bad = int(flat.min()) if flat.min() < 0 else int(flat.max())
        raise FormatError(path, None, None, f"{what}: vertex index {bad} out of range (0..{nv - 1})")
    if len(k) and k.max() == 3 and k.min() == 3:
        return flat.reshape(-1, 3), None, len(k)
    return (*fan(k, flat), len(k))


def _rgba(colors, n: int, path, what):
    """(n, 4) float RGBA from trimesh colours (integers are scaled by their type's maximum,
    as trimesh does; a missing alpha is 1), or None when they do not fit ``n`` items."""
    if colors is None:
        return None
    from trimesh.visual.color import to_float
    try:
        c = to_float(np.asarray(colors))
    except (TypeError, ValueError):
        raise FormatError(path, None, None, f"{what}: malformed colour data (trimesh read rows of different lengths)") from None
    if c.ndim != 2 or len(c) != n or c.shape[1] not in (3, 4):
        return None
    return np.concatenate([c, np.ones((n, 1))], axis=1) if c.shape[1] == 3 else c


def _face_colors(kw, poly, npoly: int, ntris: int, path, what):
    per_face = _rgba(kw.get("face_colors"), npoly, path, what)
    if per_face is not None:
        return per_face if poly is None else per_face[poly]
    color = material_color(getattr(kw.get("visual"), "material", None))
    return None if color is None else np.tile(color, (ntris, 1))


def _vertex_colors(kw, nv: int, path, what):
    colors = kw.get("vertex_colors")
    if colors is None:              # glTF COLOR_0 next to a material
        colors = getattr(kw.get("visual"), "vertex_attributes", {}).get("color")
    return _rgba(colors, nv, path, what)


def material_color(material):
    """RGBA in [0, 1] of a trimesh material's main colour (None without a material). MTL
    opacity (``d``, or ``Tr`` = 1 - opacity), which trimesh keeps unparsed in ``kwargs``,
    is the alpha."""
    if material is None:
        return None
    c = np.asarray(material.main_color, np.float64).reshape(-1)[:4] / 255.0
    extra = getattr(material, "kwargs", None) or {}
    try:
        if "d" in extra:
            c[3] = float(extra["d"][0])
        elif "tr" in extra:
            c[3] = 1.0 - float(extra["tr"][0])
    except (TypeError, ValueError, IndexError):
        pass
    return c


def _join(arrays, sizes):
    """Concatenate per-part colours; None when no part has any, grey for those without."""
    if all(a is None for a in arrays):
        return None
    return np.concatenate([a if a is not None else np.tile(GREY, (n, 1)) for a, n in zip(arrays, sizes)])
