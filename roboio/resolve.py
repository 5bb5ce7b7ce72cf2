"""Finding files that other files reference.

Klamp't's rule (every ecosystem uses a variant of it): a relative reference is joined to the
directory of the referring file; absolute references and URLs are used as they are. roboio
adds search roots (OpenRAVE data directories, ``$GRASPIT``), ``package://`` maps, and a
case-insensitive fallback (with a warning) for files written on case-insensitive systems.
"""
from __future__ import annotations

import os
from typing import Iterable, Mapping, Optional

__all__ = ["Resolution", "resolve", "base_dir", "split_url", "package_candidates",
           "iter_package_candidates", "LazyCandidates", "package_xml_name"]


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


def split_url(reference: str) -> tuple:
    """``("package", NAME, rest)`` for ``package://NAME/rest`` and ``package:///NAME/rest``
    (ROS 2's spelling with an empty host) and for Gazebo's ``model://NAME/rest`` (a model
    directory, found as a package is, and in ``GAZEBO_MODEL_PATH``), ``("file", path)`` for
    ``file://path`` and ``file:///abs/path``, else ``(None, reference)``."""
    ref = reference.strip()
    scheme = next((s for s in ("package://", "model://") if ref.startswith(s)), None)
    if scheme is not None:
        rest = ref[len(scheme):].lstrip("/")
        name, _, sub = rest.partition("/")
        return ("package", name, sub)
    if ref.startswith("file://"):
        path = ref[len("file://"):]
        if path.startswith("localhost/"):
            path = path[len("localhost"):]
        return ("file", path)
    return (None, ref)


def _env_paths(environ, key: str) -> list:
    value = (environ if environ is not None else os.environ).get(key, "")
    return [p for p in value.split(os.pathsep) if p]


def package_candidates(name: str, referring_file=None, packages=None, environ=None) -> list:
    """Directories that may be package ``name``, in the order roboio tries them:

    1. ``packages`` (``roboio.load(..., package_dirs=...)``, ``--package-path``): a mapping
       NAME -> directory, or a list of directories holding packages (``DIR/NAME``, or DIR
       itself when it is named NAME);
    2. ``ROS_PACKAGE_PATH`` entries (``ENTRY/NAME``, ``ENTRY`` itself, ``ENTRY/*/NAME``);
    3. ``AMENT_PREFIX_PATH`` prefixes (``PREFIX/share/NAME``), then ``GAZEBO_MODEL_PATH``
       entries (``ENTRY/NAME``: Gazebo's ``model://NAME`` URIs);
    4. the referring file's ancestors: a directory named NAME, or holding one, or holding a
       ``package.xml`` whose ``<name>`` is NAME (as ROS finds a package).
    """
    return list(iter_package_candidates(name, referring_file, packages, environ))


def iter_package_candidates(name: str, referring_file=None, packages=None, environ=None):
    """:func:`package_candidates` one at a time, each looked for only when the previous
    ones have been used (a reader that finds its file in the first need not walk the
    referring file's ancestors)."""
    seen: set = set()

    def new(p):
        p = os.path.normpath(p)
        if p in seen:
            return None
        seen.add(p)
        return p
    if isinstance(packages, Mapping):
        if name in packages:
            p = new(os.fspath(packages[name]))
            if p is not None:
                yield p
    elif packages:
        for root in packages:
            root = os.fspath(root)
            for c in (os.path.join(root, name),
                      root if os.path.basename(os.path.normpath(root)) == name else None):
                p = None if c is None else new(c)
                if p is not None:
                    yield p
    for entry in _env_paths(environ, "ROS_PACKAGE_PATH"):
        for c in (os.path.join(entry, name),
                  entry if os.path.basename(os.path.normpath(entry)) == name else None):
            p = None if c is None else new(c)
            if p is not None:
                yield p
        try:
            subdirs = sorted(e for e in os.listdir(entry) if os.path.isdir(os.path.join(entry, e)))
        except OSError:
            subdirs = []
        for d in subdirs:
            if os.path.isdir(os.path.join(entry, d, name)):
                p = new(os.path.join(entry, d, name))
                if p is not None:
                    yield p
    for prefix in _env_paths(environ, "AMENT_PREFIX_PATH"):
        p = new(os.path.join(prefix, "share", name))
        if p is not None:
            yield p
    for entry in _env_paths(environ, "GAZEBO_MODEL_PATH"):      # (model:// URIs)
        p = new(os.path.join(entry, name))
        if p is not None:
            yield p
    if referring_file:
        d = os.path.dirname(os.path.abspath(os.fspath(referring_file)))
        while True:
            if os.path.basename(d) == name or package_xml_name(d) == name:
                p = new(d)
                if p is not None:
                    yield p
            if os.path.isdir(os.path.join(d, name)):
                p = new(os.path.join(d, name))
                if p is not None:
                    yield p
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent


def package_xml_name(directory: str) -> Optional[str]:
    """The ``<name>`` of the ROS ``package.xml`` in ``directory``, or None (no file, or no
    name in its first 64 KiB)."""
    import re
    try:
        with open(os.path.join(directory, "package.xml"), "rb") as f:
            head = f.read(65536)
    except OSError:
        return None
    m = re.search(rb"<name>\s*([^<\s]+)\s*</name>", head)
    return m.group(1).decode("utf-8", "replace") if m else None


class LazyCandidates:
    """The candidates of :func:`iter_package_candidates` as a sequence computed as far as it
    is read: iterate it (stops early without computing the rest) or call :meth:`all`."""

    def __init__(self, it):
        self._it = it
        self._seen: list = []

    def __iter__(self):
        i = 0
        while True:
            if i < len(self._seen):
                yield self._seen[i]
            elif self._it is None:
                return
            else:
                nxt = next(self._it, None)
                if nxt is None:
                    self._it = None
                    return
                self._seen.append(nxt)
                yield nxt
            i += 1

    def all(self) -> list:
        if self._it is not None:
            self._seen.extend(self._it)
            self._it = None
        return self._seen


def resolve(reference: str, referring_file=None, roots: Iterable[str] = (),
            packages=None, environ=None) -> Resolution:
    """Resolve ``reference`` as written inside ``referring_file``.

    Order: absolute path; ``package://NAME/rest`` (or ``package:///NAME/rest``) in the
    directories :func:`package_candidates` lists (``packages``, ``ROS_PACKAGE_PATH``,
    ``AMENT_PREFIX_PATH``, the referring file's ancestors), then below each of ``roots``;
    ``file://`` URLs as paths; relative references against the referring file's directory,
    then each of ``roots``; then the same candidates matched case-insensitively (``note``
    says so). ``environ`` replaces ``os.environ`` (tests).
    """
    ref = reference.strip()
    tried: list[str] = []
    cands: list[str] = []
    kind, *parts = split_url(ref)
    if kind == "package":
        name, sub = parts
        cands.extend(os.path.join(d, sub) for d in package_candidates(name, referring_file, packages, environ))
        for root in roots:
            cands.append(os.path.join(root, name, sub))
    elif kind == "file":
        cands.append(parts[0])
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
