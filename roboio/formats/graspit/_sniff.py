"""Content test for GraspIt! XML (kept light: no lxml, no numpy)."""
from __future__ import annotations

from ..xmlsniff import graspit_kind

__all__ = ["sniff_graspit"]


def sniff_graspit(head: bytes, path: str) -> bool:
    """A GraspIt! robot (``<robot>`` with ``<palm>``/``<dof>``/``<chain>``), world
    (``<world>`` with GraspIt! elements), body (``<root>`` with ``<geometryFile>``), or one
    of the robot's data files (eigengrasps, virtual contacts), which the reader refuses
    with a message saying what they are."""
    return graspit_kind(head) is not None
