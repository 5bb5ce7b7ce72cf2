"""``roboio validate DIR`` and ``roboio info DIR``: one row per file, in a table.

The files are those ``roboio batch validate`` works on (:func:`roboio.batch.walk.readable`
over :func:`roboio.batch.walk.expand`, the walk ``roboio convert DIR`` makes: sorted, hidden
entries left out): every file roboio reads by extension and content, or whose extension
names a format it reads (a broken file is a row that says why it cannot be read). Files read
only with the model that names them (a GraspIt! eigengrasp file) are counted as skipped.
Each file is read by :func:`roboio.batch.tasks.validate_file` (what the batch workers run).
"""
from __future__ import annotations

import os
from collections import Counter

__all__ = ["sources", "table", "reasons", "run_rows", "info_rows", "total_counts"]

#: the columns of the severity counts
SEVERITY_COLUMNS = ("errors", "warnings", "notes")


def sources(path: str) -> list:
    """``[(Source, reader or None)]``: every file under the directory ``path`` roboio reads."""
    from ..batch.walk import expand, readable
    return readable(expand(path))


def run_rows(path: str, strict: bool, verb: str) -> list:
    """The :class:`~roboio.batch.tasks.Outcome` of :func:`~roboio.batch.tasks.validate_file`
    for every file under ``path``, with a progress bar on a terminal."""
    from ..batch.tasks import Options, validate_file
    from . import _progress
    found = sources(path)
    options = Options.current(strict=strict)
    outcomes = []
    with _progress.bar(len(found), verb, "file") as bar:
        for s, reader in found:
            with _progress.file_activity("reading", s.path):
                outcomes.append(validate_file(s.path, reader, options))
            bar.update()
    return outcomes


def info_rows(path: str, strict: bool) -> list:
    """``roboio info`` of every file under ``path``: ``{"path", "format", "kind", "holds",
    "counts"}`` (the load's warnings by severity), or ``{"path", "format", "error"}`` for a
    file that cannot be read, ``{"path", "format", "skipped"}`` for one read only with the
    model that names it."""
    from ..api import load
    from ..batch.tasks import one_line
    from ..describe import holds, summary
    from ..diagnostics import counts
    from ..errors import CompanionFile
    from . import _progress
    found = sources(path)
    out = []
    with _progress.bar(len(found), "describing", "file") as bar:
        for s, reader in found:
            row = {"path": s.path, "format": reader}
            try:
                with _progress.file_activity("reading", s.path):
                    obj = load(s.path, reader, strict=strict)
                    d = summary(obj)
            except CompanionFile as e:
                row["skipped"] = " ".join(e.message.split())
            except (ValueError, OSError) as e:
                row["error"] = one_line(e)
            else:
                row.update(kind=d.get("kind"), holds=holds(d),
                           counts=counts(getattr(obj, "warnings", [])))
            out.append(row)
            bar.update()
    return out


def table(headers, rows) -> list:
    """Lines of a table: ``headers`` then ``rows`` (lists of str), columns left-aligned, two
    spaces apart; a column of numbers right-aligned."""
    rows = [[str(c) for c in r] for r in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    numeric = [bool(rows) and all(r[i].isdigit() or r[i] == "-" for r in rows)
               for i in range(len(headers))]

    def line(cells):
        return "  ".join((c.rjust(w) if num else c.ljust(w))
                         for c, w, num in zip(cells, widths, numeric)).rstrip()
    return [line([str(h) for h in headers])] + [line(r) for r in rows]


def reasons(messages, verbose: bool = False, shown: int = 3) -> str:
    """``"290: format 'urdf' cannot hold a RigidObject; 15: a GraspIt! virtual-contact
    file"``: the messages counted, most frequent first (the first ``shown`` unless
    ``verbose``); a single reason is given alone."""
    counted = Counter(" ".join(m.split()) for m in messages).most_common()
    if len(counted) == 1:
        return counted[0][0]            # one reason: the count is the number skipped
    keep = counted if verbose else counted[:shown]
    text = "; ".join(f"{n}: {m}" for m, n in keep)
    if len(keep) < len(counted):
        text += f"; {len(counted) - len(keep)} other reasons (--verbose lists them)"
    return text


def total_counts(counted) -> dict:
    """Severity counts (``{"error": n, ...}`` dicts, or None) added up."""
    total = Counter()
    for c in counted:
        total.update(c or {})
    return {k: total.get(k, 0) for k in ("error", "warning", "note")}


def relative(path: str, root: str) -> str:
    """``path`` relative to the directory ``root`` (as the rows name files)."""
    return os.path.relpath(path, root)
