"""Klamp't IK objectives (``.ikgoal``): ``LINK DEST``, then the position constraint
(``N``, ``F local end``, ``P local end normal``, ``L local end direction``), then the
rotation constraint (``N``, ``F moment``, ``A localaxis endaxis``, ``T ...``). The same text
appears inside multipath ``<ikgoal>`` elements and grasp ``<IKGoal data>`` attributes.
The format has no content signature: the ``.ikgoal`` extension decides.
"""
from __future__ import annotations

from ....model.contact import IKObjective
from ...fileio import as_text, atomic_write, read_bytes
from .._text import Tokens, Where, fmt_vec3

__all__ = ["loads", "read", "dumps", "write", "read_ik_tokens", "parse_ik_text", "ik_text"]

_POS_LETTERS = {"N": "free", "F": "fixed", "P": "planar", "L": "linear"}
_ROT_LETTERS = {"N": "free", "F": "fixed", "A": "axis", "T": "twoaxis"}
_POS_CODES = {v: k for k, v in _POS_LETTERS.items()}
_ROT_CODES = {v: k for k, v in _ROT_LETTERS.items()}


# --------------------------------------------------------------------------- IK objectives

def read_ik_tokens(tokens: Tokens) -> IKObjective:
    """One IK objective ``LINK DEST P [pos data] R [rot data]`` from a token stream."""
    link = tokens.next_int("the link index")
    dest = tokens.next_int("the destination link index")
    pos = _POS_LETTERS[tokens.next_letter("NFPL", "a position constraint type")]
    kw = {}
    if pos != "free":
        kw["local_position"] = tokens.floats(3, "the local position")
        kw["end_position"] = tokens.floats(3, "the target position")
        if pos in ("planar", "linear"):
            kw["direction"] = tokens.floats(3, "the plane normal" if pos == "planar" else "the line direction")
    rot = _ROT_LETTERS[tokens.next_letter("NFAT", "a rotation constraint type")]
    if rot == "fixed":
        kw["end_rotation"] = tokens.floats(3, "the rotation (moment)")
    elif rot != "free":
        kw["local_axis"] = tokens.floats(3, "the local axis")
        kw["end_rotation"] = tokens.floats(3, "the target axis")
    return IKObjective(link, dest, pos, rot_constraint=rot, **kw)


def parse_ik_text(text: str, where: Where, ctx) -> IKObjective:
    tokens = Tokens(text, where)
    ik = read_ik_tokens(tokens)
    if not tokens.at_end:
        where.warn(ctx, f"text after the IK objective ignored (from {tokens.peek()!r})", *tokens.position(), kind="ignored")
    return ik


def ik_text(ik: IKObjective, report=None) -> str:
    """Klamp't's IK objective layout: ``LINK DEST`` / position line / rotation line."""
    if report is not None and (ik.rot_constraint == "twoaxis" or ik.pos_constraint == "planar"):
        report.warn("planar position or two-axis rotation constraint: Klamp't's C++ reader accepts "
                    "it, its Python read_IKObjective fails on it", kind="read differently")
    pos = _POS_CODES[ik.pos_constraint]
    if ik.pos_constraint != "free":
        pos += f" {fmt_vec3(ik.local_position)}   {fmt_vec3(ik.end_position)}"
        if ik.pos_constraint in ("planar", "linear"):
            pos += f"   {fmt_vec3(ik.direction)}"
    rot = _ROT_CODES[ik.rot_constraint]
    if ik.rot_constraint == "fixed":
        rot += f" {fmt_vec3(ik.end_rotation)}"
    elif ik.rot_constraint != "free":
        rot += f" {fmt_vec3(ik.local_axis)}   {fmt_vec3(ik.end_rotation)}"
    return f"{ik.link} {ik.dest_link}\n{pos}\n{rot}\n"


def loads(data, ctx) -> IKObjective:
    return parse_ik_text(as_text(data), Where(ctx.path), ctx)


def read(path: str, ctx) -> IKObjective:
    return loads(read_bytes(path, ctx), ctx)


def dumps(ik: IKObjective, report, path=None) -> str:
    return ik_text(ik, report)


def write(ik: IKObjective, path: str, report) -> None:
    atomic_write(path, dumps(ik, report, path))
