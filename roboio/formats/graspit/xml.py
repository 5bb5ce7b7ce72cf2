"""GraspIt! XML files: robots (``<robot>``), worlds (``<world>``) and bodies (``<root>``),
told apart by their root element.

Reading: :mod:`._parse` (XML -> records), :mod:`._load` (the referenced files, found as
GraspIt! finds them), :mod:`._build` (records -> model, SI). Writing: :mod:`._writer`.
``docs/graspit.md`` describes the mapping and every deviation from GraspIt!.
"""
from __future__ import annotations

import os

from ...context import LoadContext
from ..fileio import read_bytes
from ._load import load_root
from ._parse import parse_xml
from ._sniff import sniff_graspit as sniff
from ._writer import GraspitWriter

__all__ = ["read", "loads", "write", "dumps", "sniff"]


def loads(data, ctx: LoadContext):
    """Robot, World or RigidObject of the GraspIt! XML ``data`` (``ctx.path`` names the file
    and anchors its references)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    path = ctx.path or "<string>"
    root = parse_xml(data, path, ctx)
    return load_root(root, os.path.abspath(path) if ctx.path else path, ctx)


def read(path: str, ctx: LoadContext):
    return loads(read_bytes(path, ctx), ctx)


def dumps(obj, report, path=None):
    """The text of the main file (side files are written by :func:`write`)."""
    return GraspitWriter(report).main_text(obj, path)


def write(obj, path: str, report) -> None:
    """Write ``obj`` (Robot, World, RigidObject or Terrain) as GraspIt! XML at ``path``,
    with its side files (link bodies in ``iv/``, meshes GraspIt! cannot read, eigengrasp and
    virtual-contact files; a world's robots and bodies under ``models/``)."""
    GraspitWriter(report).write(obj, path)
