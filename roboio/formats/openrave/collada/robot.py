"""Format ``collada-robot``: OpenRAVE COLLADA 1.5 robots and bodies (``.dae``, ``.zae``).

Reading follows OpenRAVE's COLLADA reader (:mod:`._reader`) into OpenRAVE's body records
(:mod:`.._records`), which :mod:`.._build` maps onto roboio's model exactly as it does for
OpenRAVE XML. Writing (:mod:`._writer`) produces files OpenRAVE reads back.
"""
from __future__ import annotations

from ...fileio import atomic_write, read_bytes
from .._records import BodyRecord
from ._append import append_to_record, proxy_body
from ._load import read_body

__all__ = ["read", "loads", "dumps", "write", "append_collada", "read_record"]


def append_collada(body: BodyRecord, path: str, ctx, attributes=None) -> BodyRecord:
    """Append the COLLADA file ``path`` to ``body`` (see :func:`..collada.append_collada`)."""
    data = read_bytes(path, ctx)
    cb, maps = proxy_body(body)
    read_body(data, ctx, cb, attributes, as_robot=(body.kind == "robot"))
    return append_to_record(cb, maps, body, path)


def read_record(data: bytes, ctx) -> BodyRecord:
    """The body records of a stand-alone COLLADA file (robot unless the file says kinbody)."""
    cb = read_body(data, ctx, None, as_robot=True)
    body = BodyRecord(kind="robot" if cb.is_robot else "kinbody")
    _, maps = proxy_body(body)
    append_to_record(cb, maps, body, ctx.path)
    body.files.append(ctx.path)
    return body


def loads(data: bytes, ctx):
    """The roboio model of a COLLADA robot/body file's content ``data``."""
    from .. import _build
    return _build.build_body(read_record(data, ctx), ctx)


def read(path: str, ctx):
    return loads(read_bytes(path, ctx), ctx)


def dumps(obj, report, path: str | None = None) -> bytes:
    from ._writer import dumps as _dumps
    return _dumps(obj, report, path)


def write(obj, path: str, report) -> None:
    atomic_write(path, dumps(obj, report, path), mode="wb")
