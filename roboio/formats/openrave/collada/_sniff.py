"""Telling a COLLADA robot (kinematics) from a COLLADA mesh, cheaply.

A ``.zae`` archive is always read as a robot. A ``.dae`` document is a robot file when it
instantiates a kinematics scene (``<instance_kinematics_scene>``, in ``<scene>`` at the end of
the file, so the whole file is scanned through a memory map, not parsed); every other
``.dae`` stays a mesh read by the meshes package. Imports nothing heavy.
"""
from __future__ import annotations

import mmap
import os

__all__ = ["sniff_collada_robot", "has_kinematics"]

_MARK = b"<instance_kinematics_scene"


def _zip_member_name(head: bytes) -> bytes:
    if len(head) < 30:
        return b""
    n = int.from_bytes(head[26:28], "little")
    return head[30:30 + n]


def has_kinematics(path: str) -> bool:
    """Whether the COLLADA document at ``path`` instantiates a kinematics scene."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                return False
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                return m.find(_MARK) >= 0
    except (OSError, ValueError):
        return False


def sniff_collada_robot(head: bytes, path: str) -> bool:
    low = path.lower()
    if head[:4] == b"PK\x03\x04":
        if low.endswith(".zae"):
            return True
        name = _zip_member_name(head).lower()
        return name.endswith(b".dae") or name == b"manifest.xml"
    if b"<COLLADA" not in head:
        return False
    if _MARK in head:
        return True
    return bool(path) and has_kinematics(path)
