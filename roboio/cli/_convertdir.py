"""``roboio convert DIR OUTDIR --to FORMAT``: every file under ``DIR`` that holds what
``FORMAT`` holds, converted into the same place under ``OUTDIR``.

Files are found by walking ``DIR`` (sorted, hidden entries skipped); a file is converted
when a reader recognises it (extension, then content) and that reader's kinds meet the
target's, or when its extension is one of such a reader's but its content is not readable
(reported as a failure) (``--to urdf`` takes robot files: .rob, .urdf, .body, OpenRAVE and GraspIt!
robots; meshes and motions are left alone). Each output keeps the file's relative path with
the target's extension. Every file gets one line: converted (with the number of losses its
report lists), skipped (the target cannot hold what it is: a GraspIt! body file among
robots into URDF; a file read only with the model that names it), or failed (on stderr;
the others go on; exit status 1 when any failed). Then a summary with the counts. A
progress bar counts the files on a terminal.
"""
from __future__ import annotations

import os
import sys

from .main import UsageError

__all__ = ["convert_directory", "directory_jobs"]


def _files(root: str, skip: str = None):
    """Files under ``root``, sorted, hidden entries and the directory ``skip`` (an output
    directory inside the input) left out."""
    skip = os.path.realpath(skip) if skip else None
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                             and os.path.realpath(os.path.join(dirpath, d)) != skip)
        for f in sorted(filenames):
            if not f.startswith("."):
                yield os.path.join(dirpath, f)


def directory_jobs(src: str, dst: str, target) -> list:
    """``[(input path, output path, reader)]`` for the files under ``src`` that ``target``
    (a FormatInfo) can hold, outputs mirrored under ``dst``."""
    from ..errors import FormatError
    from ..formats.registry import find_reader, formats
    jobs = []
    for path in _files(src, skip=dst):
        try:
            reader = find_reader(path)
        except (FormatError, OSError):
            # content that no reader recognises: a failure to report when the extension says
            # it should hold what the target takes (a broken .urdf), else not ours (a README)
            reader = None
            named = [f for f in formats() if f.can_read and f.matches_extension(path)
                     and set(f.kinds) & set(target.kinds)]
            if not named:
                continue
            n = max(f.matches_extension(path) for f in named)
        else:
            if not set(reader.kinds) & set(target.kinds):
                continue
            n = reader.matches_extension(path)
        rel = os.path.relpath(path, src)
        stem = rel[:len(rel) - n] if n else os.path.splitext(rel)[0]
        jobs.append((path, os.path.join(dst, stem + target.extensions[0]), reader))
    return jobs


def convert_directory(args) -> int:
    from ..errors import CompanionFile, RoboioError
    from ..formats.registry import get
    from . import _progress
    from ._common import dump_json, load, save
    if not args.to:
        raise UsageError(f"{args.input} is a directory: name the output format with --to FORMAT")
    if os.path.exists(args.output) and not os.path.isdir(args.output):
        raise UsageError(f"{args.output} is a file; converting a directory needs an output "
                         f"directory")
    if getattr(args, "config", None) or getattr(args, "body", None):
        raise UsageError("--config and --body apply to converting one file")
    target = get(args.to)
    if not target.can_write:
        raise UsageError(f"--to: format {args.to!r} cannot be written")
    jobs = directory_jobs(args.input, args.output, target)
    if not jobs:
        print(f"{args.input}: no file that {args.to} can hold ({', '.join(target.kinds)})")
        return 0
    results, failed, skipped = [], 0, 0
    with _progress.bar(len(jobs), f"converting to {args.to}", "file") as bar:
        for src, dst, reader in jobs:
            try:
                obj = load(src, reader.name if reader else None, strict=args.strict)
                why = _cannot_hold(obj, target)
                if why is None:
                    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
                    report = save(obj, dst, args.to, meshes=getattr(args, "meshes", None),
                                  package=getattr(args, "package", None),
                                  actuators=getattr(args, "actuators", None))
            except CompanionFile as e:
                why = e.message          # read with the model that names it: not a model
            except (RoboioError, OSError, ValueError) as e:
                failed += 1
                bar.write(f"roboio convert: {src}: {' '.join(str(e).split())}", file=sys.stderr)
                results.append({"input": src, "output": dst, "ok": False, "error": str(e)})
                bar.update()
                continue
            if why is not None:
                skipped += 1
                results.append({"input": src, "output": None, "ok": True, "skipped": why})
                if not args.json:
                    bar.write(f"{src}: skipped: {why}")
            else:
                warned = list(getattr(obj, "warnings", []))
                results.append({"input": src, "output": dst, "ok": True, "lost": list(report.lost),
                                "warnings": warned, "files": list(report.files)})
                notes = [f"{len(report.lost)} lost" if report.lost else "",
                         _plural(len(warned), "input warning") if warned else ""]
                notes = ", ".join(n for n in notes if n)
                if not args.json:
                    bar.write(f"{src} -> {dst}" + (f"  ({notes})" if notes else ""))
            bar.update()
    converted = len(jobs) - failed - skipped
    if args.json:
        print(dump_json({"converted": converted, "skipped": skipped, "failed": failed,
                         "files": results}))
    else:
        print(f"{converted} of {len(jobs)} files converted to {args.to}"
              + (f"; {skipped} skipped" if skipped else "")
              + (f"; {failed} failed" if failed else "")
              + ("; see each file's report with roboio convert IN OUT" if any(
                  r.get("lost") or r.get("warnings") for r in results) else ""))
    return 1 if failed else 0


def _cannot_hold(obj, target):
    """Why ``target`` cannot hold ``obj`` at all (a GraspIt! body file among robots into
    URDF), or None when it can (perhaps with losses the report lists)."""
    from ..convert import adapt
    from ..errors import OutputError
    from ..report import ConversionReport
    try:
        adapt(obj, target, ConversionReport())
    except OutputError as e:
        return e.message
    except ValueError:
        return None              # needs an option: save reports it as the failure it is
    return None


def _plural(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")
