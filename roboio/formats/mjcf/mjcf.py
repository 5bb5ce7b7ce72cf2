"""MJCF entry module: ``sniff`` / ``loads`` / ``read`` and ``dumps`` / ``write``.

Reading follows MuJoCo's compiler (:mod:`._reader`: what becomes a Robot or a World; the
modules it uses for defaults, frames, bodies, masses and meshes); writing maps roboio's
model as described in :mod:`._writer`. Both are described for users in ``docs/mjcf.md``.
Meshes MuJoCo cannot read (or all of them, see ``meshes``) are written beside the output by
:class:`roboio.formats.mesh_export.MeshExport`.
"""
from __future__ import annotations

from ...context import LoadContext
from ..fileio import atomic_write, read_bytes
from ._sniff import sniff_mjcf as sniff
from ._writer import MjcfWriter

__all__ = ["sniff", "loads", "read", "dumps", "write", "DEFAULT_MESHES"]

DEFAULT_MESHES = "copy"     # a MuJoCo model folder is self-contained


def loads(data, ctx: LoadContext):
    """The Robot or World of MJCF ``data`` (bytes or text); ``ctx.path`` names the file and is
    the base of relative references (includes, mesh files)."""
    from ._reader import build
    if isinstance(data, str):
        data = data.encode("utf-8")
    return build(data, ctx)


def read(path: str, ctx: LoadContext):
    """Read the MJCF file ``path`` (a Robot, or a World: see :mod:`._reader`)."""
    return loads(read_bytes(path, ctx), ctx)


def _mode(report) -> str:
    return (getattr(report, "options", None) or {}).get("meshes") or DEFAULT_MESHES


def _actuators(report):
    """The ``actuators`` option, or None (not given: actuators read from MJCF are kept)."""
    return (getattr(report, "options", None) or {}).get("actuators")


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
