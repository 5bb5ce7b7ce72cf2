"""Klamp't world files: ``.xml`` with root ``<world>`` (reader in ``_world_read``, writer in
``_world_write``; see their docstrings and the spec §5, §10.2).

``world.extras["klampt_simulation"]`` is a :class:`SimulationSettings`, whose ``node`` is an
:class:`XmlNode` tree; both are importable from here to build or edit the section in code.
"""
from __future__ import annotations

import re

from ...model import World
from ..registry import FormatInfo, register
from ._world_read import read_world
from ._world_sim import SimulationSettings, XmlNode
from ._world_write import write_world

__all__ = ["read_world", "write_world", "sniff", "SimulationSettings", "XmlNode"]

_ROOT = re.compile(rb"<([A-Za-z_][\w.:-]*)")
_PROLOG = re.compile(rb"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>)", re.S)
# Children that only GraspIt! worlds have (their root is <world> too).
_GRASPIT = (b"<graspableBody", b"<obstacle", b"<filename>")


def sniff(head: bytes, path: str) -> bool:
    """Root element ``<world>`` and no GraspIt!-only content in the first bytes."""
    data = head.lstrip(b"\xef\xbb\xbf")
    pos = 0
    while True:
        m = _PROLOG.match(data, pos)
        if not m:
            break
        pos = m.end()
    m = _ROOT.match(data, pos + len(data[pos:]) - len(data[pos:].lstrip()))
    if not m or m.group(1) != b"world":
        return False
    return not any(g in data for g in _GRASPIT)


register(FormatInfo(
    name="klampt-world", extensions=(".xml",), kinds=("world",),
    description="Klamp't world (<world> with robots, rigid objects, terrains, simulation settings)",
    ecosystem="klampt", sniff=sniff, read=read_world, write=write_world, writes=(World,),
    priority=1))
