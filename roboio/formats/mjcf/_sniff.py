"""Is this an MJCF (MuJoCo) file? (cheap: first bytes only, no lxml, no numpy)."""
from __future__ import annotations

from ..xmlsniff import root_element

__all__ = ["sniff_mjcf"]


def sniff_mjcf(head: bytes, path: str) -> bool:
    """A ``<mujoco>`` root element (MuJoCo's parser accepts no other)."""
    root = root_element(head)
    return root is not None and root[0] == b"mujoco"
