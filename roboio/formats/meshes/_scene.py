"""Flattening multi-mesh scene files (COLLADA, glTF) into one triangle mesh.

Each placed mesh part (one per material-bound primitive set and node instance: what
Assimp, and so Klamp't, loads as one mesh of a Group) arrives with its node transform
already applied. The parts are concatenated in scene traversal order; ``extras["parts"]``
records the first face of each part when there are several (see
:mod:`roboio.model.massprops`), and face colours come from the parts' material colours.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

__all__ = ["Part", "assemble", "strip"]

GREY = (0.5, 0.5, 0.5, 1.0)


@dataclass
class Part:
    """Vertices of one placed mesh instance and its primitive sets (``sets``: a list of
    ``(faces (F, 3) into vertices, material RGBA or None)``, one Assimp mesh each)."""

    vertices: np.ndarray                  # (V, 3), node transform applied
    sets: list
    vertex_colors: Optional[np.ndarray] = None


def strip(idx: np.ndarray) -> np.ndarray:
    """Triangles of a triangle strip (every other triangle reversed to keep the winding)."""
    idx = np.asarray(idx, np.int64)
    n = len(idx) - 2
    if n <= 0:
        return np.zeros((0, 3), np.int64)
    i = np.arange(n)
    a, b, c = idx[i], idx[i + 1], idx[i + 2]
    odd = (i % 2) == 1
    return np.stack([a, np.where(odd, c, b), np.where(odd, b, c)], axis=1)


def assemble(parts: list) -> dict:
    parts = [p for p in parts if any(len(f) for f, _ in p.sets)]
    if not parts:
        return {"vertices": np.zeros((0, 3)), "faces": np.zeros((0, 3), np.int64)}
    verts, faces, colors, starts = [], [], [], []
    n = nf = 0
    for p in parts:
        verts.append(np.asarray(p.vertices, np.float64).reshape(-1, 3))
        for f, color in p.sets:
            f = np.asarray(f, np.int64).reshape(-1, 3)
            if len(f) == 0:
                continue
            starts.append(nf)
            faces.append(f + n)
            colors.append(color)
            nf += len(f)
        n += len(verts[-1])
    out = {"vertices": np.concatenate(verts), "faces": np.concatenate(faces)}
    if any(c is not None for c in colors):
        out["face_colors"] = np.concatenate([np.tile(c if c is not None else GREY, (len(f), 1))
                                             for c, f in zip(colors, faces)]).astype(float)
    if any(p.vertex_colors is not None for p in parts):
        out["vertex_colors"] = np.concatenate([np.asarray(p.vertex_colors, float).reshape(-1, 4)
                                               if p.vertex_colors is not None else np.tile(GREY, (len(v), 1))
                                               for p, v in zip(parts, verts)])
    if len(starts) > 1:
        out["extras"] = {"parts": starts}
    return out
