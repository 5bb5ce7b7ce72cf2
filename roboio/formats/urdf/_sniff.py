"""Content test of URDF (cheap: standard library only)."""
from __future__ import annotations

import re

__all__ = ["sniff_urdf"]

_FIRST_TAG = re.compile(rb"<([A-Za-z_][\w:.-]*)")


def sniff_urdf(head: bytes, path: str) -> bool:
    """A ``<robot>`` root element that is not a GraspIt! robot (which has ``<palm>``)."""
    for m in _FIRST_TAG.finditer(head):
        before = head[:m.start()]
        if before.count(b"<!--") > before.count(b"-->"):
            continue          # a tag inside a comment
        return m.group(1) == b"robot" and b"<palm" not in head
    return False
