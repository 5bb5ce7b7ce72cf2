"""Counting, ordering and printing diagnostics by severity (errors, warnings, notes).

One implementation for ``roboio validate`` (a file's problems), ``roboio convert`` (the
conversion report, :meth:`roboio.report.ConversionReport.render`) and the directory tables of
``validate DIR`` / ``info DIR``: the one-line summary ``3 errors, 5 warnings, 12 notes``,
items most severe first, and items of one kind beyond the first few counted instead of
listed (``--verbose`` lists them).
"""
from __future__ import annotations

from .errors import SEVERITIES, Diagnostic, severity_of

__all__ = ["SHOWN", "counts", "count_line", "by_severity", "fold", "plural", "name_list",
           "worst", "hint_lines"]

#: items (or names) of one group printed before the rest is counted
SHOWN = 3

_PLURALS = {"mesh": "meshes", "body": "bodies", "is": "are", "pass": "passes", "axis": "axes",
            "property": "properties", "geometry": "geometries", "entry": "entries"}


def plural(n: int, noun: str) -> str:
    """``"1 joint"``, ``"29 joints"``, ``"2 meshes"``."""
    if n == 1:
        return f"{n} {noun}"
    last = noun.rsplit(" ", 1)[-1]
    many = _PLURALS.get(last, last + "s")
    return f"{n} {noun[:len(noun) - len(last)]}{many}"


def name_list(names, more: int = 0) -> str:
    """``"a, b, c"``, or ``"a, b, c, +26 more"`` when ``more`` names are left out."""
    return ", ".join(list(names) + ([f"+{more} more"] if more else []))


def counts(items) -> dict:
    """``{"error": n, "warning": n, "note": n}`` of ``items`` (a plain string is a warning)."""
    c = dict.fromkeys(SEVERITIES, 0)
    for x in items:
        c[severity_of(x)] += 1
    return c


def count_line(c: dict) -> str:
    """``"3 errors, 5 warnings, 12 notes"`` (``"no problems"`` when all are 0)."""
    if not any(c.values()):
        return "no problems"
    return ", ".join(plural(c.get(s, 0), s) for s in SEVERITIES)


def worst(items):
    """The most severe severity among ``items``, or None when there are none."""
    found = {severity_of(x) for x in items}
    return next((s for s in SEVERITIES if s in found), None)


def by_severity(items, key=severity_of) -> list:
    """``items`` ordered errors, warnings, notes (in their own order within each)."""
    return sorted(items, key=lambda x: SEVERITIES.index(key(x)))


def fold(items, verbose: bool = False, shown: int | None = SHOWN) -> list:
    """Lines ``severity: text`` for ``items`` (diagnostics), grouped by kind in the order
    each kind first appears; of a kind with more than ``shown`` items only the first
    ``shown`` unless ``verbose``, then one line counting the rest; after a group with a
    hint, one ``hint:`` line. Items of no kind are never folded."""
    groups: dict = {}
    for i, x in enumerate(items):
        kind = getattr(x, "kind", None)
        groups.setdefault((severity_of(x), kind) if kind else ("", i), []).append(x)
    lines = []
    for (severity, kind), members in groups.items():
        keep = members if verbose or shown is None else members[:shown]
        lines += [f"{severity_of(x)}: {x}" for x in keep]
        if len(keep) < len(members):
            rest = len(members) - len(keep)
            lines.append(f"  ... {plural(rest, f'more {kind} {severity}')} (--verbose lists them)")
        hint = next((x.hint for x in members if getattr(x, "hint", None)), None)
        if hint:
            lines.append(f"  hint: try {hint}")
    return lines


def as_diagnostics(items) -> list:
    """``items`` as :class:`~roboio.errors.Diagnostic` (a plain string is a warning)."""
    return [x if isinstance(x, Diagnostic) else Diagnostic(str(x)) for x in items]


def hint_lines(per_file) -> list[str]:
    """``hint: 18 files name files that are not found: try --data-path DIR``: for a directory
    run, each hint of the items of ``per_file`` (one list of diagnostics, or of
    ``{"hint": ...}`` dicts, per file) with the number of files it concerns."""
    from collections import Counter
    files = Counter()
    for items in per_file:
        hints = {x.get("hint") if isinstance(x, dict) else getattr(x, "hint", None) for x in items}
        files.update(h for h in hints if h)
    return [f"hint: {plural(n, 'file')} with problems an option fixes: try {h}"
            for h, n in files.most_common()]
