"""Content test of URDF (cheap: standard library only)."""
from __future__ import annotations

from ..xmlsniff import robot_flavour

__all__ = ["sniff_urdf"]


def sniff_urdf(head: bytes, path: str) -> bool:
    """A ``<robot>`` root element that is neither a GraspIt! robot (``<palm>``) nor an
    OpenRAVE robot (``<KinBody>``, ``<Body>``, ``<Manipulator>``... children, ``file=``);
    the rule is shared with the other sniffers (:func:`roboio.formats.xmlsniff.robot_flavour`)."""
    return robot_flavour(head) == "urdf"
