"""The records of :func:`roboio.diff.diff`: one :class:`Difference` per thing that differs,
and the :class:`DiffResult` that lists, folds and counts them."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

__all__ = ["Difference", "DiffResult", "KINDS", "SHOWN"]

#: the kinds of difference, in the order they are printed (and the focus flags of roboio diff)
KINDS = ("kinematics", "dynamics", "geometry", "names")
#: differences of one sort printed one by one before the rest are folded into a count
SHOWN = 3

_PLURAL = {"self-collision pair": "self-collision pairs", "link": "links", "driver": "drivers",
           "robot": "robots", "rigid object": "rigid objects", "terrain": "terrains"}


@dataclass
class Difference:
    """One difference between model A and model B.

    ``kind``: ``kinematics`` (structure, joints, axes, frames, limits, initial values,
    drivers, orders), ``dynamics`` (mass, centre of mass, inertia, torque and power limits,
    servo gains, friction), ``geometry`` (collision and visual shapes, colours, self-collision
    pairs) or ``names`` (renamed links, joint and driver names). ``what`` is the element
    (``link``, ``driver``, ``robot``, ``rigid object``, ``terrain``, ``self-collision pair``),
    ``name`` its name in A (in B for what only B has), ``field`` what differs, ``a`` and
    ``b`` the two values, ``size`` how large the difference is (in ``unit``: ``m``,
    ``rad``, ``kg``, ...; None where it has no size), ``note`` what it means in words."""

    kind: str
    what: str
    name: str
    field: str
    a: object = None
    b: object = None
    size: Optional[float] = None
    unit: str = ""
    note: str = ""

    def __str__(self):
        head = f"{self.what} {self.name!r}"
        if self.field in ("added", "removed"):
            return f"{head}: only in {'B' if self.field == 'added' else 'A'}"
        if self.field == "renamed":
            return f"{head}: renamed to {self.b!r}"
        return f"{head}: {self.field} {self.detail()}"

    def detail(self) -> str:
        """The change in words: ``"-1.570796327 -> -1.57"``, ``"Cylinder: surface moved by up
        to 2e-05 m"``. Two sides that print alike are never printed (the note, or the size,
        says what differs)."""
        quote = self.kind == "names" or self.field == "parent"
        values = "" if "->" in self.note else _values(self.a, self.b, quote)
        if values and self.note:
            return f"{values}: {self.note}"
        if self.note:
            same = _shown(self.a, quote) if _short(self.a) and _shown(self.a) == _shown(self.b) else ""
            return f"{same}: {self.note}" if same else self.note
        if values:
            return values
        return f"differs by {self.size:.3g} {self.unit}".rstrip() if self.size is not None else "differs"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "what": self.what, "name": self.name, "field": self.field,
                "a": _jsonable(self.a), "b": _jsonable(self.b), "size": _jsonable(self.size),
                "unit": self.unit, "note": self.note}


def _short(x) -> bool:
    """Whether ``x`` prints in a few words (a number, a text, a short vector), not a matrix."""
    if x is None:
        return False
    a = np.asarray(x, dtype=object)
    return a.ndim == 0 or (a.ndim == 1 and len(a) <= 4) or isinstance(x, (list, tuple)) and all(
        isinstance(v, str) for v in x)


def _values(a, b, quote: bool = False) -> str:
    """``"A -> B"``, with enough digits to tell them apart; empty when they are not short or
    print alike. ``quote``: names, printed quoted."""
    if not (_short(a) or a is None) or not (_short(b) or b is None) or (a is None and b is None):
        return ""
    ta, tb = _shown(a, quote), _shown(b, quote)
    if ta == tb:
        ta, tb = _shown(a, quote, None), _shown(b, quote, None)
        if ta == tb:
            return ""
    return f"{ta} -> {tb}"


def _shown(x, quote: bool = False, digits: Optional[int] = 10) -> str:
    """``x`` in words, numbers to ``digits`` significant digits (None: the shortest text
    that reads back as the same float)."""
    if x is None:
        return "none"
    if isinstance(x, np.ndarray):
        x = x.tolist()
    if isinstance(x, (float, np.floating)):
        return shortest(x, digits)
    if isinstance(x, (list, tuple)):
        return "(" + ", ".join(_shown(v, quote, digits) for v in x) + ")"
    return repr(x) if quote and isinstance(x, str) else str(x)


def shortest(x: float, digits: Optional[int] = None) -> str:
    """``x`` to ``digits`` significant digits, or (None) as the shortest text that reads back
    as the same float (``0.4``, ``12.500000004``), integers without a point."""
    x = float(x)
    if digits is not None:
        return f"{x:.{digits}g}"
    if x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(x)


def _jsonable(x):
    if isinstance(x, np.ndarray):
        return [_jsonable(v) for v in x.tolist()]
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
    if isinstance(x, np.integer):
        return int(x)
    return x


def _plural(n: int, what: str) -> str:
    return f"{n} {what if n == 1 else _PLURAL.get(what, what + 's')}"


@dataclass
class DiffResult:
    """The differences of two models (:func:`roboio.diff.diff`): ``differences`` (in the
    order found), ``matched_links`` and how links were paired (``matched_by``: names, joint
    names or tree structure, as ``roboio verify`` pairs them), ``focus``: the kinds compared."""

    differences: list = field(default_factory=list)
    matched_links: int = 0
    matched_by: str = "names"
    focus: tuple = KINDS

    @property
    def same(self) -> bool:
        return not self.differences

    def counts(self) -> dict:
        """``{kind: number of differences}`` for the kinds compared."""
        return {k: sum(d.kind == k for d in self.differences) for k in self.focus}

    def lines(self, verbose: bool = False) -> list:
        """The differences by kind, each sort of difference (a field of one kind of element)
        on one line when it concerns more than :data:`SHOWN` elements (unless ``verbose``),
        with its number, the largest size and the first few."""
        if self.same:
            if self.focus == KINDS:
                return ["no differences"]
            kinds = list(self.focus)
            named = kinds[0] if len(kinds) == 1 else f"{', '.join(kinds[:-1])} or {kinds[-1]}"
            return [f"no {named} differences"]
        out = []
        for kind in KINDS:
            items = [d for d in self.differences if d.kind == kind]
            if not items:
                continue
            out.append(f"{kind}: {len(items)} difference{'s' if len(items) > 1 else ''}")
            groups: dict = {}
            for d in items:
                groups.setdefault((d.what, d.field), []).append(d)
            for (what, fld), members in groups.items():
                if verbose or len(members) <= SHOWN:
                    out += [f"  {d}" for d in members]
                else:
                    out.append("  " + _folded(what, fld, members))
        folded = any(len(g) > SHOWN for g in _groups(self.differences))
        counts = ", ".join(f"{n} {k}" for k, n in self.counts().items() if n)
        out.append(f"different: {counts}" + (" (--verbose lists every one)" if folded and not verbose else ""))
        return out

    def __str__(self):
        return "\n".join(self.lines())

    def to_dict(self) -> dict:
        return {"same": self.same, "matched_links": self.matched_links, "matched_by": self.matched_by,
                "focus": list(self.focus), "counts": self.counts(),
                "differences": [d.to_dict() for d in self.differences]}


def _groups(diffs) -> list:
    g: dict = {}
    for d in diffs:
        g.setdefault((d.kind, d.what, d.field), []).append(d)
    return list(g.values())


def _folded(what: str, fld: str, members: list) -> str:
    """``link qmin: 20 links, by up to 0.0016 rad (WAIST_P -1.570796327 -> -1.57; ...; +17
    more)``: the largest differences shown first."""
    n = len(members)
    if fld not in ("added", "removed", "renamed"):      # the largest first (no size: first of all)
        members = sorted(members, key=lambda d: -math.inf if d.size is None else -d.size)
    shown = members[:SHOWN]
    more = f"; +{n - SHOWN} more" if n > SHOWN else ""
    if fld in ("added", "removed"):
        names = ", ".join(d.name for d in shown) + (f", +{n - SHOWN} more" if n > SHOWN else "")
        return f"{_PLURAL.get(what, what + 's')} only in {'B' if fld == 'added' else 'A'}: {n} ({names})"
    if fld == "renamed":
        names = "; ".join(f"{d.name} -> {d.b}" for d in shown)
        return f"{what}s renamed: {n} ({names}{more})"
    sizes = [d.size for d in members if d.size is not None]
    unit = next((d.unit for d in members if d.size is not None), "")
    by = f", by up to {max(sizes):.3g}{(' ' + unit) if unit else ''}" if sizes else ""
    examples = "; ".join(f"{d.name} {d.detail()}" for d in shown)
    return f"{what} {fld}: {_plural(n, what)}{by} ({examples}{more})"
