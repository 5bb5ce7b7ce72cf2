"""Which files a directory conversion (``roboio convert DIR``, ``roboio batch ...``) works on,
and what each output is called.

One implementation for the single-process ``convert DIR`` and for the Dask batch commands:
the walk of directory trees and globs (:func:`expand`), the naming of outputs
(:func:`output_name`) and the plan of a conversion (:func:`convert_jobs`), which refuses,
before anything is written, two inputs that would share an output.

Output names keep the whole input name: ``SR1.body`` -> ``SR1.body.urdf``, so that
``SR1.body`` and ``SR1.urdf`` never both become ``SR1.urdf``. An input whose name already
ends with one of the target's extensions keeps its name (``SR1.urdf`` -> ``SR1.urdf``). The
name depends on the input's own relative path only, never on which other files are present,
so a rerun over a grown tree never gives an output to another input.

Imports nothing heavy (no numpy, no Dask): the command line imports it to plan.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import Iterable, Optional

from ..errors import RoboioError

__all__ = ["Source", "ConvertJob", "OutputClash", "files_under", "expand", "output_name",
           "convert_jobs", "readable", "recognised", "claimed_by_extension"]


class OutputClash(RoboioError):
    """Two inputs would be written to one output (or an output would replace an input)."""


@dataclass(frozen=True)
class Source:
    """A file to work on: ``path`` as found, ``rel`` its path relative to the root it was
    found under (what the output mirrors)."""
    path: str
    rel: str


@dataclass(frozen=True)
class ConvertJob:
    """One conversion: ``src`` -> ``dst`` read with the format ``reader`` (None: the file's
    extension says it holds what the target takes, but no reader recognises its content;
    loading it reports why)."""
    src: str
    dst: str
    reader: Optional[str]


def _hidden(name: str) -> bool:
    return name.startswith(".")


def files_under(root: str, skip: Optional[str] = None) -> Iterable[str]:
    """Files under ``root``, sorted, hidden entries and the directory ``skip`` (an output
    directory inside the input) left out."""
    skip = os.path.realpath(skip) if skip else None
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not _hidden(d)
                             and os.path.realpath(os.path.join(dirpath, d)) != skip)
        for f in sorted(filenames):
            if not _hidden(f):
                yield os.path.join(dirpath, f)


def _glob_root(pattern: str) -> str:
    """The directory part of ``pattern`` before its first wildcard (what outputs mirror)."""
    parts = []
    for part in pattern.split(os.sep):
        if glob.has_magic(part):
            break
        parts.append(part)
    return os.sep.join(parts) or (os.sep if pattern.startswith(os.sep) else ".")


def expand(sources, skip: Optional[str] = None) -> list:
    """:class:`Source` for every file that ``sources`` (paths of files or directories, or
    glob patterns with ``*``, ``?``, ``[...]`` and ``**``) names, in order, each once.

    A directory contributes every file under it (sorted; hidden entries and ``skip`` left
    out), relative to the directory; a glob its matches (sorted), relative to the part of the
    pattern before the first wildcard; a file itself, by its name. A file that two sources
    name (a directory and a file in it) is listed once. A source that names nothing raises
    :class:`FileNotFoundError`."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    out, seen = [], set()

    def add(path, root):
        key = os.path.abspath(path)         # (a symbolic link is an input of its own)
        if key not in seen:
            seen.add(key)
            out.append(Source(path, os.path.relpath(path, root)))

    for s in map(os.fspath, sources):
        if os.path.isdir(s):
            for p in files_under(s, skip):
                add(p, s)
        elif os.path.isfile(s):
            add(s, os.path.dirname(s) or ".")
        elif glob.has_magic(s):
            root = _glob_root(s)
            matches = sorted(glob.glob(s, recursive=True))
            matches = [m for m in matches if os.path.isfile(m)
                       and not any(_hidden(part) for part in os.path.relpath(m, root).split(os.sep))]
            for m in matches:
                if not (skip and _inside(m, skip)):
                    add(m, root)
            if not matches:
                raise FileNotFoundError(2, "no file matches the pattern", s)
        else:
            raise FileNotFoundError(2, "no such file or directory", s)
    return out


def _inside(path: str, directory: str) -> bool:
    d = os.path.realpath(directory)
    return os.path.realpath(path).startswith(d + os.sep)


def output_name(rel: str, target) -> str:
    """The output's path for the input ``rel`` converted to ``target`` (a FormatInfo): the
    whole input name plus the target's extension (``SR1.body`` -> ``SR1.body.urdf``), or
    the input name itself when it already ends with one of the target's extensions."""
    if target.matches_extension(rel):
        return rel
    return rel + target.extensions[0]


# extensions many kinds of files have (ROS package.xml, launch files, README.txt, config.yaml):
# a file under one of these that no reader recognises is not a broken roboio file
_GENERIC = (".txt", ".xml", ".json", ".yaml", ".yml")


def claimed_by_extension(path: str, kinds=None) -> list:
    """Readable formats whose specific extension ``path`` has (``.urdf``, ``.rob``,
    ``.robot.xml``; not a generic one such as ``.xml`` or ``.txt``), holding one of ``kinds``
    (None: any): a file of theirs that no reader recognises is a broken file to report."""
    from ..formats.registry import formats
    low = path.lower()
    return [f for f in formats() if f.can_read and (kinds is None or set(f.kinds) & set(kinds))
            and any(low.endswith(e.lower()) and e.lower() not in _GENERIC for e in f.extensions)]


def recognised(path: str):
    """The format that reads ``path``, or None when no reader recognises it: neither its
    content nor a specific extension (a ``README.txt`` or ROS ``package.xml`` is not a
    broken Klamp't path or world). Raises FormatError/OSError for a file whose specific
    extension names formats that do not recognise its content (a broken ``.urdf``)."""
    from ..formats.registry import find_reader, recognises
    info = find_reader(path)
    low = path.lower()
    ext = max((e.lower() for e in info.extensions if low.endswith(e.lower())), key=len, default="")
    if ext in _GENERIC and not recognises(info, path):
        return None
    return info


def _reader_for(path: str, target):
    """``(reader name or None, convert?)`` for one file: converted when a reader recognises
    it and its kinds meet the target's, or when its extension is one of such a reader's but
    no reader recognises its content (a broken ``.urdf``: a failure to report)."""
    from ..errors import FormatError
    try:
        reader = recognised(path)
    except (FormatError, OSError):
        return None, bool(claimed_by_extension(path, target.kinds))
    if reader is None:
        return None, False
    return reader.name, bool(set(reader.kinds) & set(target.kinds))


def convert_jobs(src, dst: str, target) -> list:
    """:class:`ConvertJob` for every file under ``src`` (a directory, a file, a glob, or a
    list of them) that ``target`` (a FormatInfo) can hold, outputs mirrored under ``dst``.

    Raises :class:`OutputClash` naming both inputs, before anything is written, when two
    inputs would share an output or an output would be one of the inputs."""
    jobs, found = [], expand(src, skip=dst)
    for s in found:
        reader, wanted = _reader_for(s.path, target)
        if wanted:
            jobs.append(ConvertJob(s.path, os.path.join(dst, output_name(s.rel, target)), reader))
    check_clashes(jobs, [s.path for s in found])
    return jobs


def check_clashes(jobs, inputs=()) -> None:
    """:class:`OutputClash` when two ``jobs`` write one file, or a job writes over one of
    ``inputs`` (every file found, converted or not)."""
    by_output, input_of = {}, {os.path.realpath(p): p for p in inputs}
    for job in jobs:
        key = os.path.realpath(job.dst)
        if key in by_output:
            raise OutputClash(f"{job.dst}: would be written for both {by_output[key].src} and "
                              f"{job.src}; nothing was written (rename one of them)")
        if key in input_of and key != os.path.realpath(job.src):
            raise OutputClash(f"{job.dst}: the output of {job.src} would replace the input "
                              f"{input_of[key]}; nothing was written (choose another output "
                              f"directory)")
        by_output[key] = job


def readable(sources: list, kinds=None) -> list:
    """``[(Source, reader or None)]`` for the files roboio reads (by extension and content),
    or whose extension names a format it reads (a broken file: a failure to report);
    ``kinds`` keeps those whose format holds one of them (``("robot", "world")``). What
    ``roboio batch validate``, ``validate DIR`` and ``info DIR`` work on."""
    from ..errors import FormatError
    out = []
    for s in sources:
        try:
            info = recognised(s.path)
            if info is None:
                continue
            reader, fkinds = info.name, set(info.kinds)
        except (FormatError, OSError):
            named = claimed_by_extension(s.path)
            if not named:
                continue
            reader, fkinds = None, {k for f in named for k in f.kinds}
        if kinds is None or fkinds & set(kinds):
            out.append((s, reader))
    return out
