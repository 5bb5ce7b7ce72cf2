"""Finding files that other files reference.

Klamp't's rule (every ecosystem uses a variant of it): a relative reference is joined to the
directory of the referring file; absolute references and URLs are used as they are. roboio
adds search roots (OpenRAVE data directories, ``$GRASPIT``), ``package://`` maps, and a
case-insensitive fallback (with a warning) for files written on case-insensitive systems.
"""
from __future__ import annotations

import os
from typing import Iterable, Optional


class Resolution:
    """Outcome of :func:`resolve`: ``path`` (None if not found) and every path ``tried``."""

    def __init__(self, path: Optional[str], tried: list, note: Optional[str] = None):
        self.path = path
        self.tried = tried
        self.note = note

    def __bool__(self):
        return self.path is not None

    def describe_tried(self) -> str:
        return ", ".join(self.tried)


def base_dir(referring_file) -> str:
    return os.path.dirname(os.fspath(referring_file)) if referring_file else ""


def _case_insensitive(path: str) -> Optional[str]:
    """Find ``path`` matching each component case-insensitively, or None."""
    path = os.path.normpath(path)
    drive, rest = os.path.splitdrive(path)
    parts = [p for p in rest.split(os.sep) if p]
    cur = drive + (os.sep if rest.startswith(os.sep) else "")
    for part in parts:
        cand = os.path.join(cur, part) if cur else part
        if os.path.exists(cand):
            cur = cand
            continue
        try:
            entries = os.listdir(cur or ".")
        except OSError:
            return None
        low = part.lower()
        match = [e for e in entries if e.lower() == low]
        if not match:
            return None
        cur = os.path.join(cur, match[0]) if cur else match[0]
    return cur if os.path.exists(cur) else None


def resolve(reference: str, referring_file=None, roots: Iterable[str] = (),
            packages=None) -> Resolution:
    """Resolve ``reference`` as written inside ``referring_file``.

    Order: absolute path; ``package://NAME/rest`` through ``packages`` (a mapping NAME ->
    directory, or a list of directories that hold package folders); relative to the referring
    file's directory; relative to each of ``roots``; then the same candidates matched
    case-insensitively (``note`` says so).
    """
    ref = reference.strip()
    tried: list[str] = []
    cands: list[str] = []
    if ref.startswith("package://"):
        rest = ref[len("package://"):]
        name, _, sub = rest.partition("/")
        if isinstance(packages, dict):
            if name in packages:
                cands.append(os.path.join(packages[name], sub))
        elif packages:
            cands.extend(os.path.join(p, name, sub) for p in packages)
        for root in roots:
            cands.append(os.path.join(root, name, sub))
        cands.append(os.path.join(base_dir(referring_file), sub))
    elif ref.startswith("file://"):
        cands.append(ref[len("file://"):])
    elif os.path.isabs(ref):
        cands.append(ref)
    else:
        cands.append(os.path.join(base_dir(referring_file), ref))
        for root in roots:
            cands.append(os.path.join(root, ref))
    for c in cands:
        c = os.path.normpath(c) if c else c
        tried.append(c)
        if c and os.path.isfile(c):
            return Resolution(c, tried)
    for c in tried:
        found = _case_insensitive(c) if c else None
        if found and os.path.isfile(found):
            return Resolution(found, tried, f"{reference!r} found as {found!r} (case differs)")
    return Resolution(None, tried)
