"""Rigid transforms as position and quaternion rows, for tables of link poses.

:func:`pose_vectors` turns any stack of 4x4 transforms into ``(x, y, z, qw, qx, qy, qz)``
rows, and :func:`pose_columns` the link transforms of many frames into one column per link
and component (a table's layout), on the active kinematics backend (the compiled kernel's loop, or numpy's
:func:`~roboio.transforms.matrix_to_quat`: same arithmetic, same results).
"""
from __future__ import annotations

import numpy as np

from . import backends

__all__ = ["pose_vectors", "pose_columns"]


def pose_vectors(T) -> np.ndarray:
    """``(..., 7)`` float64: per transform of ``T`` ``(..., 4, 4)``, the translation
    ``(x, y, z)`` (the frame's origin in the outer frame, in ``T``'s length unit) and the
    unit quaternion ``(qw, qx, qy, qz)`` of its rotation block, ``qw >= 0`` (Shepperd's
    method, as :func:`roboio.transforms.matrix_to_quat`)."""
    T = np.asarray(T, dtype=np.float64)
    if T.shape[-2:] != (4, 4):
        raise ValueError(f"pose_vectors expects (..., 4, 4) transforms, got shape {T.shape}")
    batch = T.shape[:-2]
    flat = np.ascontiguousarray(T.reshape(-1, 4, 4))
    out = np.empty((len(flat), 7))
    backends.active().pose_vectors(flat, out)
    return out.reshape(batch + (7,))


def pose_columns(T) -> np.ndarray:
    """``(L, 7, F)`` float64: for the link transforms ``T`` ``(F, L, 4, 4)`` (F frames of L
    links), ``out[l, :, f]`` is :func:`pose_vectors` of ``T[f, l]`` (the same bits): each link
    and component ``(x, y, z, qw, qx, qy, qz)`` one contiguous column over the frames."""
    T = np.ascontiguousarray(T, dtype=np.float64)
    if T.ndim != 4 or T.shape[-2:] != (4, 4):
        raise ValueError(f"pose_columns expects (F, L, 4, 4) transforms, got shape {T.shape}")
    out = np.empty((T.shape[1], 7, T.shape[0]))
    backends.active().pose_columns(T, out)
    return out
