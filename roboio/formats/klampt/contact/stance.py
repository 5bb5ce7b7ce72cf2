"""Klamp't stances (``.stance``): ``begin stance``, holds (see :mod:`.hold`), ``end``. A
stance keeps one hold per link; the writer emits them sorted by link.
"""
from __future__ import annotations

from ....model.contact import Stance
from ...fileio import as_text, atomic_write, read_bytes
from .._sniff import sniff_stance as sniff
from .._text import Where
from .hold import parse_stance_text, stance_text

__all__ = ["sniff", "loads", "read", "dumps", "write"]


def loads(data, ctx) -> Stance:
    stance = parse_stance_text(as_text(data), Where(ctx.path), ctx)
    stance.source = ctx.path
    return stance


def read(path: str, ctx) -> Stance:
    return loads(read_bytes(path, ctx), ctx)


def dumps(stance: Stance, report, path=None) -> str:
    return stance_text(stance, report)


def write(stance: Stance, path: str, report) -> None:
    atomic_write(path, dumps(stance, report, path))
