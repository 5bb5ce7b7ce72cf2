"""Klamp't world files: ``.xml`` with root ``<world>`` (reader in ``_world_read``, writer in
``_world_write``; see their docstrings and the spec §5, §10.2).

``world.extras["klampt_simulation"]`` is a :class:`SimulationSettings`, whose ``node`` is an
:class:`XmlNode` tree; both are importable from here to build or edit the section in code.
"""
from __future__ import annotations

from ...model import World
from ..registry import FormatInfo, register
from ..xmlsniff import is_graspit_world, outline
from ._world_read import read_world
from ._world_sim import SimulationSettings, XmlNode
from ._world_write import write_world

__all__ = ["read_world", "write_world", "sniff", "SimulationSettings", "XmlNode"]


def sniff(head: bytes, path: str) -> bool:
    """Root element ``<world>`` that is not a GraspIt! world (see
    :func:`roboio.formats.xmlsniff.is_graspit_world`: the two sniffers are complements)."""
    root = outline(head)
    return root is not None and root.name == "world" and not is_graspit_world(root)


register(FormatInfo(
    name="klampt-world", extensions=(".xml",), kinds=("world",),
    description="Klamp't world (<world> with robots, rigid objects, terrains, simulation settings)",
    ecosystem="klampt", sniff=sniff, read=read_world, write=write_world, writes=(World,),
    priority=1))
