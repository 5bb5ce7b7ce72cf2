"""Small helpers for writing GraspIt! text: numbers in the form GraspIt! reads, transform
elements, and "keep what the file said when it still holds" (a record's text is written
again when it reads back to the model's value, so that write -> read -> write is stable and
unchanged files stay as written)."""
from __future__ import annotations

import math
import os
from typing import Callable, Optional

import numpy as np

from ..fileio import fmt_float, safe_file_stem
from ._records import Number, TransformRec
from ._transform import matrix_mm, parts_for

__all__ = ["num", "plain", "same", "keep_or", "transform_lines", "transform_for", "esc", "folder_name"]


def folder_name(path: str, default: str) -> str:
    """The name of the folder that holds what the file at ``path`` writes for itself alone:
    its file name without ``.xml`` (``SR1.body.xml`` -> ``SR1.body``, ``lab1.xml`` -> ``lab1``)."""
    name = os.path.basename(path)
    if name.lower().endswith(".xml"):
        name = name[:-4]
    return safe_file_stem(name, default=default)


def num(x) -> str:
    """Shortest exact text of ``x`` (``-0`` written as ``0``)."""
    return fmt_float(float(x) + 0.0)


def plain(x) -> str:
    """``x`` in plain decimal (no exponent): GraspIt!'s ratio scan stops at an ``e``."""
    s = np.format_float_positional(float(x) + 0.0, unique=True, trim="-")
    return s


def same(a, b, tol: float = 1e-12) -> bool:
    """Equal up to ``tol`` relative (both may be arrays); NaN never equals."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    if a.shape != b.shape:
        return False
    return bool(np.all(np.abs(a - b) <= tol * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))))


def keep_or(record: Optional[Number], value: float, to_si: Callable[[float], float],
            from_si: Callable[[float], float]) -> str:
    """``record``'s text when it reads back (``to_si``) to ``value``, else ``value`` in file
    units (``from_si``)."""
    if record is not None and record.ok and same(to_si(record.value), value):
        return record.text
    return num(from_si(value))


def esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _part_text(part) -> Optional[str]:
    k = part.kind
    if k == "translation":
        return f"<translation>{' '.join(num(v) for v in part.values)}</translation>"
    if k == "rotation":
        return f"<rotation>{num(part.values[0])} {part.axis}</rotation>"
    if k == "rotationMatrix":
        return f"<rotationMatrix>{' '.join(num(v) for v in part.values)}</rotationMatrix>"
    if k == "fullTransform":
        v = part.values
        return f"<fullTransform>({' '.join(num(x) for x in v[:4])})[{' '.join(num(x) for x in v[4:])}]</fullTransform>"
    return None


def transform_for(record: Optional[TransformRec], T_m, tol: float = 1e-12) -> TransformRec:
    """``record`` when it stands for ``T_m`` (metres), else exact parts for ``T_m``."""
    T_mm = np.array(T_m, float)
    T_mm[:3, 3] /= 1e-3
    if record is not None:
        R = matrix_mm(record)
        R_m = np.array(R)
        R_m[:3, 3] *= 1e-3
        if same(R_m, T_m, tol):
            return record
    return parts_for(T_mm)


def transform_lines(rec: TransformRec, indent: str) -> list:
    """``<transform>`` element lines (parts GraspIt! ignores are dropped)."""
    lines = [f"{indent}<transform>"]
    for p in rec.parts:
        t = _part_text(p)
        if t is not None:
            lines.append(f"{indent}    {t}")
    lines.append(f"{indent}</transform>")
    return lines


def degrees(x: float) -> float:
    return math.degrees(x)
