"""Attribute values of Klamp't world files: numbers and transforms (spec §5.1, §5.2).

Klamp't silently skips attribute values it cannot parse (a bad ``translation`` falls back
to ``position``, a bad ``rotateX`` is ignored). roboio reports them as FormatErrors
instead, since a silently misplaced element is worse than a refused file; where Klamp't
ignores something well-formed (extra numbers, ``translate``, a ``position`` next to a
``translation``) roboio follows it and warns.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ....transforms import compose, moment_to_matrix, rot_x, rot_y, rot_z, rpy_to_matrix
from ...numeric_text import int64_or_none
from ...xmlutil import local_name, where

__all__ = ["numbers", "vector", "double", "kparam", "integer", "transform", "has_transform",
           "TRANSFORM_ATTRS", "STREAM_NUMBER", "INT_TOKEN"]

# (S) stream numbers: no inf/nan; (F) safe floats: no leading '+', but inf/infinity/nan.
STREAM_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
_F = re.compile(r"(?:-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|-?(?:inf|infinity|nan))\Z", re.I)
INT_TOKEN = re.compile(r"\s*[+-]?\d+\s*\Z")

TRANSFORM_ATTRS = ("translation", "position", "rotateRPY", "rotateMoment", "rotateX",
                   "rotateY", "rotateZ")


def _bad(ctx, el, name, expected):
    return ctx.error(f"<{local_name(el)} {name}=\"{el.get(name)}\">: expected {expected}", where(el))


def numbers(ctx, el, name: str) -> list | None:
    """All whitespace-separated (S) numbers of attribute ``name`` (None if absent)."""
    text = el.get(name)
    if text is None:
        return None
    toks = text.split()
    if not all(STREAM_NUMBER.match(t) for t in toks):
        raise _bad(ctx, el, name, "numbers")
    return [float(t) for t in toks]


def vector(ctx, el, name: str, count: int) -> np.ndarray | None:
    """The first ``count`` numbers of attribute ``name`` (None if absent); extra numbers
    are ignored, as in Klamp't, with a warning."""
    vals = numbers(ctx, el, name)
    if vals is None:
        return None
    if len(vals) < count:
        raise _bad(ctx, el, name, f"{count} numbers, got {len(vals)}")
    if len(vals) > count:
        ctx.warn(f"<{local_name(el)} {name}>: {len(vals) - count} extra number(s) ignored", where(el), kind="ignored")
    return np.array(vals[:count])


def double(ctx, el, name: str) -> float | None:
    """A single number (TinyXML double: ``inf``/``nan`` allowed)."""
    text = el.get(name)
    if text is None:
        return None
    t = text.strip()
    if not _F.match(t) and not STREAM_NUMBER.match(t):
        raise _bad(ctx, el, name, "a number")
    return float(t)


def kparam(ctx, el, name: str) -> float | None:
    """A contact parameter (flavour (F): ``inf`` allowed, no leading ``+``)."""
    text = el.get(name)
    if text is None:
        return None
    t = text.strip()
    if not _F.match(t):
        raise _bad(ctx, el, name, "a number ('inf' allowed; Klamp't rejects a leading '+')")
    return float(t)


def integer(ctx, el, name: str) -> int | None:
    text = el.get(name)
    if text is None:
        return None
    if not INT_TOKEN.match(text):
        raise _bad(ctx, el, name, "an integer")
    v = int64_or_none(text)
    if v is None or not -2 ** 31 <= v < 2 ** 31:
        raise _bad(ctx, el, name, "an integer in the range of a C int")
    return v


def has_transform(el, scale: bool = False) -> bool:
    return any(el.get(a) is not None for a in TRANSFORM_ATTRS + (("scale",) if scale else ()))


def _angle(ctx, el, name):
    v = double(ctx, el, name)
    if v is not None and not math.isfinite(v):
        raise _bad(ctx, el, name, "a finite angle in radians")
    return v


def transform(ctx, el, scale: bool = False) -> np.ndarray | None:
    """The 4x4 (affine when ``scale``) transform of Klamp't's transform attributes, or None
    when the element has none of them (spec §5.2):

    ``t`` = ``translation`` (else ``position``); ``R0`` = ``rotateRPY`` (roll pitch yaw:
    ``Rz Ry Rx``), replaced by ``rotateMoment`` (exponential map) when given;
    ``R = Rz(rotateZ) Ry(rotateY) Rx(rotateX) R0``; with ``scale`` (3 numbers, or 1 for all
    axes) ``p -> R (s * p) + t``.
    """
    line = where(el)
    tag = local_name(el)
    if el.get("translate") is not None:
        ctx.warn(f"<{tag} translate>: ignored (Klamp't does not read it; use translation)", line, kind="ignored")
    if not scale and el.get("scale") is not None:
        ctx.warn(f"<{tag} scale>: ignored (only <terrain> and <geometry> can scale)", line, kind="ignored")
    if not has_transform(el, scale):
        return None
    t = vector(ctx, el, "translation", 3)
    pos = vector(ctx, el, "position", 3)
    if t is None:
        t = pos if pos is not None else np.zeros(3)
    elif pos is not None:
        ctx.warn(f"<{tag} position>: ignored because translation is given", line, kind="ignored")
    R0 = np.eye(3)
    rpy = vector(ctx, el, "rotateRPY", 3)
    moment = vector(ctx, el, "rotateMoment", 3)
    if moment is not None:
        if rpy is not None:
            ctx.warn(f"<{tag} rotateRPY>: ignored because rotateMoment is given", line, kind="ignored")
        R0 = moment_to_matrix(moment)
    elif rpy is not None:
        R0 = rpy_to_matrix(rpy)
    R = R0
    for name, rot in (("rotateX", rot_x), ("rotateY", rot_y), ("rotateZ", rot_z)):
        a = _angle(ctx, el, name)
        if a is not None:
            R = compose(rot(a), R)
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = t
    if scale:
        s = numbers(ctx, el, "scale")
        if s is not None:
            if not s:
                raise _bad(ctx, el, "scale", "1 or 3 numbers")
            if len(s) > 3:
                ctx.warn(f"<{tag} scale>: {len(s) - 3} extra number(s) ignored", line, kind="ignored")
            elif len(s) == 2:
                ctx.warn(f"<{tag} scale>: 2 numbers; Klamp't scales all axes by the first", line, kind="quirk")
            s = s[:3] if len(s) >= 3 else [s[0]] * 3
            T[:3, :3] = R * np.asarray(s, float)
    return T
