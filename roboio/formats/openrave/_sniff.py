"""Is this an OpenRAVE XML file? (cheap: first bytes only, no lxml, no numpy)."""
from __future__ import annotations

from ..xmlsniff import robot_flavour, root_element

__all__ = ["sniff_openrave"]

# Root elements of OpenRAVE XML files other than <Robot> (any case).
_ROOTS = {b"kinbody", b"environment", b"sensor"}


def sniff_openrave(head: bytes, path: str) -> bool:
    """Root ``<KinBody>``, ``<Environment>``, a stand-alone ``<Sensor>`` or an OpenRAVE
    ``<Robot>`` (any case; see :func:`roboio.formats.xmlsniff.robot_flavour` for how it is
    told from URDF and GraspIt! robots)."""
    root = root_element(head)
    if root is None:
        return False
    tag = root[0].lower()
    if tag in _ROOTS:
        return True
    return tag == b"robot" and robot_flavour(head) == "openrave"
