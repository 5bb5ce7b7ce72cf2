"""GraspIt!'s number and DOF-expression scanning, reproduced character for character.

* :func:`qt_double`: Qt's ``QString::toDouble`` (surrounding whitespace allowed; anything
  else unparsable gives ``(0.0, False)``).
* :func:`scan_dof_expr`: the joint's DOF slot (``joint.cpp``): strip, skip the first
  character whatever it is, ``%[0-9]`` -> DOF index, ``*`` then ``%[0-9.-]`` -> ratio
  (``atof``), ``+`` then ``%lf`` -> offset; the rest is silently ignored by GraspIt!.
"""
from __future__ import annotations

import math

import re
from typing import Optional

from ._records import DofExpr, Number

__all__ = ["qt_double", "number", "c_strtod_prefix", "scan_dof_expr", "DofExprError"]

_QT_DOUBLE = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)\Z", re.I | re.A)
_STRTOD = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", re.I | re.A)
_STRTOD_NOEXP = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)", re.A)


def qt_double(text: Optional[str]) -> tuple[float, bool]:
    """``QString::toDouble`` of ``text``: ``(value, ok)``; not a number -> ``(0.0, False)``."""
    if text is None:
        return 0.0, False
    t = text.strip()
    if not _QT_DOUBLE.match(t):
        return 0.0, False
    return float(t), True


def number(text: Optional[str]) -> Number:
    v, ok = qt_double(text)
    return Number("" if text is None else text.strip(), v, ok)


def c_strtod_prefix(s: str, allow_exponent: bool = True) -> tuple[float, int]:
    """C ``strtod``/``atof`` on ``s``: the value of the longest numeric prefix and its
    length (``(0.0, 0)`` when there is none). Leading whitespace is not skipped here."""
    m = (_STRTOD if allow_exponent else _STRTOD_NOEXP).match(s)
    if not m:
        return 0.0, 0
    # "1e" or "1e+" is the number 1 followed by text: strtod stops before the 'e'
    txt = m.group(0)
    return float(txt), len(txt)


class DofExprError(ValueError):
    """A DOF slot GraspIt! would misread silently (reported as an error by roboio)."""


def scan_dof_expr(raw: Optional[str]) -> DofExpr:
    """The DOF expression in a joint's ``<theta>`` (revolute) or ``<d>`` (prismatic), as
    GraspIt! scans it. Raises :class:`DofExprError` where GraspIt! would read garbage (no
    DOF index, a plain number, an empty ratio)."""
    text = (raw or "").strip()
    if not text:
        raise DofExprError("empty DOF expression (expected d<k>[*<ratio>][+<offset>])")
    if _QT_DOUBLE.match(text):
        raise DofExprError(f"{text!r} is a plain number where GraspIt! expects a DOF expression "
                           f"d<k>[*<ratio>][+<offset>]; GraspIt! would skip its first character "
                           f"and couple the joint to a DOF")
    rest = text[1:]
    m = re.match(r"[0-9]*", rest)
    digits = m.group(0)
    if not digits:
        raise DofExprError(f"DOF expression {text!r} has no DOF index after its first character "
                           f"(expected d<k>[*<ratio>][+<offset>])")
    pos = len(digits)
    out = DofExpr(text=text, dof=int(digits))
    ignored = []
    if rest[pos:pos + 1] == "*":
        pos += 1
        rt = re.match(r"[0-9.\-]*", rest[pos:]).group(0)
        if not rt:
            raise DofExprError(f"DOF expression {text!r}: no ratio after '*'")
        out.ratio, n = c_strtod_prefix(rt, allow_exponent=False)
        out.ratio_text = rt[:n]
        ignored.append(rt[n:])               # atof stops early ("1-2" reads as 1)
        pos += len(rt)
    if rest[pos:pos + 1] == "+":
        pos += 1
        tail = rest[pos:]
        lead = len(tail) - len(tail.lstrip())        # %lf skips leading whitespace
        value, n = c_strtod_prefix(tail[lead:])
        if n and not math.isfinite(value):
            raise DofExprError(f"DOF expression {text!r}: offset {tail[lead:lead + n]!r} is not a "
                               "finite number (a joint angle of inf or nan places nothing)")
        if n:
            out.offset = value
            out.offset_text = tail[lead:lead + n]
            pos += lead + n
        else:
            ignored.append("+")
    ignored.append(rest[pos:])
    out.ignored = "".join(ignored)
    return out
