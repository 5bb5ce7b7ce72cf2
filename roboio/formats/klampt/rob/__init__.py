"""Klamp't robot files (``.rob``): reader and writer.

Reading follows Klamp't's own loader: bytes -> logical lines (:mod:`._lexer`) -> keyword
records (:mod:`._records`, :mod:`._parse`) -> robot (:mod:`._build`, link geometry in
:mod:`._geometry`; mount and self-collision rules in :mod:`roboio.formats.klampt.mount`).
Writing (:mod:`._writer`) emits a file that Klamp't and roboio read back with the same
kinematics, limits, masses, joints, drivers, gains, self-collision pairs and properties.
The format has no content signature: the ``.rob`` extension decides.
"""
from __future__ import annotations

import os

from ....context import LoadContext
from ....model import Robot
from ...fileio import as_text, atomic_write, read_bytes
from ._build import build_robot
from ._lexer import logical_lines
from ._parse import parse_records

__all__ = ["loads", "read", "dumps", "write"]


def loads(data, ctx: LoadContext) -> Robot:
    """The robot of ``.rob`` text (bytes or str); ``ctx.path`` locates messages and is the
    base of relative references (mounted robots, geometry files)."""
    text = as_text(data)
    records = parse_records(logical_lines(text), ctx)
    if text and not text.endswith(("\n", "\r")):
        records.open_end_line = text.count("\n") + 1
    path = ctx.path or ""
    key = os.path.realpath(path)
    pushed = key not in ctx.stack
    if pushed:
        ctx.stack.append(key)
    try:
        return build_robot(records, path, ctx)
    finally:
        if pushed:
            ctx.stack.pop()


def read(path: str, ctx: LoadContext) -> Robot:
    return loads(read_bytes(path, ctx), ctx)


def dumps(robot: Robot, report, path=None) -> str:
    """The ``.rob`` text of ``robot``; geometry files are referenced relative to ``path``
    (the current directory when None)."""
    from ._writer import rob_text
    return rob_text(robot, path or "robot.rob", report)


def write(robot: Robot, path: str, report) -> None:
    atomic_write(path, dumps(robot, report, path))
