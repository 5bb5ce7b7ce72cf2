"""OpenRAVE XML files: ``<Robot>``, ``<KinBody>`` and ``<Environment>`` (``openrave.md``).

Reading follows OpenRAVE's own reader (:mod:`._parse` -> records -> :mod:`._build`): a
robot or kinbody file gives a :class:`~roboio.model.Robot`, an environment a
:class:`~roboio.model.World`. Writing produces the subset of OpenRAVE XML that OpenRAVE's
reader interprets exactly (:mod:`._writer`, ``openrave.md`` §20).
"""
from __future__ import annotations

from ...context import LoadContext
from .. import fileio
from ._build import build_robot, build_world
from ._parse import Reader
from ._records import BodyRecord
from ._sniff import sniff_openrave

__all__ = ["read", "loads", "dumps", "write", "sniff", "read_records"]

sniff = sniff_openrave


def read_records(path: str, ctx: LoadContext, data: bytes = None):
    """The records OpenRAVE's reader builds from ``path`` (a :class:`BodyRecord` or an
    :class:`EnvironmentRecord`), before any mapping to roboio's model."""
    if data is None:
        data = fileio.read_bytes(path, ctx)
    return Reader(ctx).read_document(path, data)


def loads(data, ctx: LoadContext):
    """Parse and build the file held in ``data`` (``ctx.path`` names it)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    rec = read_records(ctx.path, ctx, data)
    if isinstance(rec, BodyRecord):
        return build_robot(rec, ctx, ctx.path)
    return build_world(rec, ctx, ctx.path)


def read(path: str, ctx: LoadContext):
    """The Robot (``<Robot>``, ``<KinBody>``) or World (``<Environment>``) of ``path``."""
    return loads(fileio.read_bytes(path, ctx), ctx)


def dumps(obj, report, path: str = None) -> str:
    """OpenRAVE XML text of a Robot or World (see :mod:`._writer`)."""
    from ._writer import dumps as _dumps
    return _dumps(obj, report, path)


def write(obj, path: str, report) -> None:
    fileio.atomic_write(path, dumps(obj, report, path))
