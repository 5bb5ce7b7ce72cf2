"""Rigid transforms as position and quaternion rows, for tables of link poses.

:func:`pose_vectors` turns any stack of 4x4 transforms into ``(x, y, z, qw, qx, qy, qz)``
rows on the active kinematics backend (the compiled kernel's loop, or numpy's
:func:`~roboio.transforms.matrix_to_quat`: same arithmetic, same results).
"""
from __future__ import annotations

import numpy as np

from . import backends

__all__ = ["pose_vectors"]


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
