"""Klamp't world files: ``.xml`` with root ``<world>`` (reader in :mod:`._reader`, writer in
:mod:`._writer`; ``<display>`` attributes in :mod:`._display`, number and transform
attributes in :mod:`._attrs`, ``<simulation>`` in :mod:`._simulation`).

``world.extras["klampt_simulation"]`` is a :class:`SimulationSettings`, whose ``node`` is an
:class:`XmlNode` tree; both are importable from here to build or edit the section in code.
"""
from __future__ import annotations

from ....context import LoadContext
from ....model import World
from ...fileio import as_bytes, atomic_write, read_bytes
from .._sniff import sniff_world as sniff
from ._reader import world_from_xml
from ._simulation import SimulationSettings, XmlNode
from ._writer import world_xml

__all__ = ["sniff", "loads", "read", "dumps", "write", "SimulationSettings", "XmlNode"]


def loads(data, ctx: LoadContext) -> World:
    """The world of Klamp't world XML; robots, objects and terrains are read from the
    files it references, relative to ``ctx.path``."""
    return world_from_xml(as_bytes(data), ctx)


def read(path: str, ctx: LoadContext) -> World:
    return loads(read_bytes(path, ctx), ctx)


def dumps(world: World, report, path=None) -> bytes:
    """The world XML. The element files (``.rob``, ``.obj``, ``.env``, meshes) are side
    files: they are written now, into the directory named after ``path`` (required), and
    listed in ``report.files``."""
    if path is None:
        raise ValueError("a Klamp't world is written with its element files: dumps() needs the path")
    return world_xml(world, path, report)


def write(world: World, path: str, report) -> None:
    atomic_write(path, dumps(world, report, path))
