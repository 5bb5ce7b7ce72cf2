"""Klamp't geometry groups (``.group``): a count, then that many geometry streams
(``Primitive``, ``TriangleMesh``, ``PointCloud``, ``Group``; see :mod:`.stream`). The format
has no content signature: the ``.group`` extension decides.

Writing bakes each element's transform (and the group's) into its data: primitives stay
primitives where their transform allows it, anything else becomes a triangle mesh or point
cloud, which the report says.
"""
from __future__ import annotations

import numpy as np

from ....model import Geometry, GeometrySource, Group
from ...fileio import as_text, atomic_write, read_bytes
from .stream import parse_group_file, stream_text

__all__ = ["loads", "read", "dumps", "write"]


def loads(data, ctx) -> Group:
    g = parse_group_file(as_text(data), ctx)
    g.source = GeometrySource(ctx.path, ctx.path, "klampt-group")
    return g


def read(path: str, ctx) -> Group:
    return loads(read_bytes(path, ctx), ctx)


def dumps(geom: Geometry, report, path=None) -> str:
    if isinstance(geom, Group):
        M = geom.transform
        children = geom.children
    else:
        M, children = np.eye(4), [geom]
    parts = [stream_text(c, report, M) for c in children]
    return f"{len(parts)}\n" + "".join(parts)


def write(geom: Geometry, path: str, report) -> None:
    atomic_write(path, dumps(geom, report, path))
