"""Klamp't primitive files (``.geom``): an optional legacy ``Primitive`` word (Klamp't <=
0.10.1 requires it, later versions reject it), then ``TypeName`` and its numbers (see
:mod:`.stream` for the types and their numbers).

The writer emits the header-less form current Klamp't writes and reads (format
``klampt-geom``); format ``klampt-geom-legacy`` (:func:`dumps_legacy`) prepends the
``Primitive`` line that Klamp't 0.10.1 needs. A primitive's transform is baked into its
parameters; a transform that cannot be (a non-uniform scale of a sphere, ...) is an error.
"""
from __future__ import annotations

from ....errors import OutputError
from ....model import Geometry, GeometrySource, Group, Primitive
from ...fileio import as_text, atomic_write, read_bytes
from .._sniff import sniff_geom as sniff
from .stream import bake_primitive, parse_primitive_file, primitive_text

__all__ = ["sniff", "loads", "read", "dumps", "write", "dumps_legacy", "write_legacy"]


def loads(data, ctx) -> Primitive:
    p = parse_primitive_file(as_text(data), ctx)
    p.source = GeometrySource(ctx.path, ctx.path, "klampt-geom")
    return p


def read(path: str, ctx) -> Primitive:
    return loads(read_bytes(path, ctx), ctx)


def _text(geom: Geometry, legacy: bool) -> str:
    if isinstance(geom, Group) and len(geom.children) == 1:
        inner = geom.children[0].copy()
        inner.apply_transform(geom.transform)
        geom = inner
    if not isinstance(geom, Primitive):
        raise OutputError(None, f".geom holds one primitive, not a {type(geom).__name__}")
    b = bake_primitive(geom, geom.transform)
    if b is None:
        raise OutputError(None, f"the transform of this {geom.primitive} primitive (a non-uniform scale) "
                         "cannot be expressed in a .geom file")
    return ("Primitive\n" if legacy else "") + primitive_text(b)


def dumps(geom: Geometry, report, path=None) -> str:
    return _text(geom, False)


def write(geom: Geometry, path: str, report) -> None:
    atomic_write(path, dumps(geom, report, path))


def dumps_legacy(geom: Geometry, report, path=None) -> str:
    """The ``.geom`` text with the ``Primitive`` header line of Klamp't <= 0.10.1."""
    return _text(geom, True)


def write_legacy(geom: Geometry, path: str, report) -> None:
    atomic_write(path, dumps_legacy(geom, report, path))
