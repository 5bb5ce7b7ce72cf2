"""Klamp't robot files (``.rob``): reader and writer.

Reading follows Klamp't's own loader (spec klampt.md §3): bytes -> logical lines
(:mod:`._rob_lexer`) -> keyword records (:mod:`._rob_parse`) -> robot (:mod:`._rob_build`;
mount and self-collision rules in :mod:`._mount`). Writing (:mod:`._rob_write`) emits a file
that Klamp't and roboio read back with the same kinematics, limits, masses, joints, drivers,
gains, self-collision pairs and properties (spec §3.16, §10.6).
"""
from __future__ import annotations

import os

from ...context import LoadContext
from ...model import Robot
from ..fileio import read_text
from ..registry import FormatInfo, register
from ._rob_build import build_robot
from ._rob_lexer import logical_lines
from ._rob_parse import parse_records

__all__ = ["read", "write", "loads"]


def loads(text: str, path: str, ctx: LoadContext) -> Robot:
    """Parse ``.rob`` text; ``path`` locates messages and resolves referenced files."""
    records = parse_records(logical_lines(text), ctx)
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
    return loads(read_text(path), path, ctx)


def write(robot: Robot, path: str, report) -> None:
    from ._rob_write import write_rob
    write_rob(robot, path, report)


register(FormatInfo(
    name="klampt-rob", extensions=(".rob",), kinds=("robot",),
    description="Klamp't robot file (.rob)", ecosystem="klampt",
    read=read, write=write, writes=(Robot,)))
