"""MJCF entry module: ``dumps`` / ``write`` (roboio writes MJCF; it does not read it).

The mapping from roboio's model is described in :mod:`._writer` and, for users, in
``docs/mjcf.md``. Meshes MuJoCo cannot read (or all of them, see ``meshes``) are written
beside the output by :class:`roboio.formats.mesh_export.MeshExport`.
"""
from __future__ import annotations

from ..fileio import atomic_write
from ._actuators import DEFAULT as DEFAULT_ACTUATORS
from ._writer import MjcfWriter

__all__ = ["dumps", "write", "DEFAULT_MESHES"]

DEFAULT_MESHES = "copy"     # a MuJoCo model folder is self-contained


def _mode(report) -> str:
    return (getattr(report, "options", None) or {}).get("meshes") or DEFAULT_MESHES


def _actuators(report) -> str:
    return (getattr(report, "options", None) or {}).get("actuators") or DEFAULT_ACTUATORS


def dumps(obj, report, path=None) -> bytes:
    """The MJCF text of ``obj`` (Robot, World, RigidObject or Terrain). Mesh references are
    planned relative to ``path`` but no mesh file is written (see :func:`write`)."""
    w = MjcfWriter(obj, path, report, _mode(report), _actuators(report))
    data = w.document()
    w.meshes.summarise()
    return data


def write(obj, path: str, report) -> None:
    """Write ``obj`` as MJCF to ``path`` (atomically) and its mesh files beside it."""
    w = MjcfWriter(obj, path, report, _mode(report), _actuators(report))
    data = w.document()
    w.meshes.write_files()
    atomic_write(path, data)
