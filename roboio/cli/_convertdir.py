"""``roboio convert DIR OUTDIR --to FORMAT``: every file under ``DIR`` that holds what
``FORMAT`` holds, converted into the same place under ``OUTDIR``; and ``roboio convert FILE
DIR/`` (into an existing directory).

Which files, and what each output is called, is :mod:`roboio.batch.walk` (shared with
``roboio batch convert``): a file is converted when a reader recognises it (extension, then
content) and that reader's kinds meet the target's, or when its extension is one of such a
reader's but its content is not readable (reported as a failure) (``--to urdf`` takes robot
files: .rob, .urdf, .body, OpenRAVE and GraspIt! robots; meshes and motions are left
alone). Each output keeps the file's relative path and whole name, with the target's
extension added (``SR1.body`` -> ``SR1.body.urdf``; ``SR1.urdf`` stays ``SR1.urdf``), so two
inputs never share an output; when they still would (``a.body`` and ``a.body.urdf``), the
conversion is refused, naming both, before anything is written. Each file is converted by
:func:`roboio.batch.tasks.convert_file` (what the batch workers run) and gets one line:
converted (with the number of losses its report lists), or failed (on stderr; the others
go on; exit status 1 when any failed); files skipped (the target cannot hold what they are:
a GraspIt! body file among robots into URDF; a file read only with the model that names it)
are counted, with their reasons, in the summary (``--verbose`` lists them). Then a summary
counting the files converted and the files really written (outputs and side files such as
meshes). A progress bar counts the files on a terminal.
"""
from __future__ import annotations

import os
import sys

from .main import UsageError

__all__ = ["convert_directory", "into_directory"]


def _target(args):
    from ..formats.registry import get
    target = get(args.to)
    if not target.can_write:
        raise UsageError(f"--to: format {args.to!r} cannot be written")
    return target


def into_directory(args) -> str:
    """The output path of ``roboio convert FILE DIR`` (DIR an existing directory, or a path
    ending with a slash): the file's whole name plus the target's extension, in DIR."""
    from ..batch.walk import output_name
    if not args.to:
        raise UsageError(f"{args.output} is a directory: name the output format with --to FORMAT")
    return os.path.join(args.output, output_name(os.path.basename(args.input), _target(args)))


def convert_directory(args) -> int:
    from ..batch.tasks import Options, convert_file, note_shared_writes
    from ..batch.walk import convert_jobs
    from . import _progress
    from ..diagnostics import hint_lines
    from ._common import cli_words, dump_json
    if not args.to:
        raise UsageError(f"{args.input} is a directory: name the output format with --to FORMAT")
    if os.path.exists(args.output) and not os.path.isdir(args.output):
        raise UsageError(f"{args.output} is a file; converting a directory needs an output "
                         f"directory")
    if getattr(args, "config", None) or getattr(args, "body", None) or getattr(args, "robot", None):
        raise UsageError(f"{args.input} is a directory: --config, --body and --robot apply to "
                         "converting one file")
    target = _target(args)
    jobs = convert_jobs(args.input, args.output, target)     # refuses clashes, writes nothing
    if not jobs:
        print(f"{args.input}: no file that {args.to} can hold ({', '.join(target.kinds)})")
        return 0
    options = Options.current(strict=args.strict, meshes=getattr(args, "meshes", None),
                              package=getattr(args, "package", None),
                              actuators=getattr(args, "actuators", None))
    results, outcomes, writers = [], [], {}
    with _progress.bar(len(jobs), f"converting to {args.to}", "file") as bar:
        for job in jobs:
            with _progress.file_activity("reading", job.src):
                o = convert_file(job.src, job.dst, job.reader, args.to, options)
            note_shared_writes(o, writers)
            outcomes.append(o)
            results.append(_result(o, job))
            for w in o.shared:
                bar.write(f"roboio convert: warning: {job.src}: {w}", file=sys.stderr)
            if o.kind == "failed":
                bar.write(f"roboio convert: {job.src}: {cli_words(o.message)}", file=sys.stderr)
            elif not args.json and (o.kind == "ok" or getattr(args, "verbose", False)):
                bar.write(f"{job.src}: skipped: {o.message}" if o.kind == "skipped" else
                          f"{job.src} -> {job.dst}" + (f"  ({o.message})" if o.message else ""))
            bar.update()
    from ._dirtable import reasons
    why = [o.message for o in outcomes if o.kind == "skipped"]
    converted = sum(o.kind == "ok" for o in outcomes)
    failed = sum(o.kind == "failed" for o in outcomes)
    skipped = sum(o.kind == "skipped" for o in outcomes)
    written = _written(outcomes)
    if args.json:
        print(dump_json({"converted": converted, "skipped": skipped, "failed": failed,
                         "written": len(written), "files": results}))
    else:
        print(f"{converted} of {len(jobs)} files converted to {args.to}"
              + f" ({_plural(len(written), 'file')} written)"
              + (f"; {skipped} skipped ({reasons(why, getattr(args, 'verbose', False))})"
                 if skipped else "")
              + (f"; {failed} failed" if failed else "")
              + ("; see each file's report with roboio convert IN OUT" if any(
                  r.get("lost") or r.get("warnings") for r in results) else ""))
        # failures name their option in their message; converted files' items carry hints
        for line in hint_lines(list(o.lost) + list(o.warnings) for o in outcomes):
            print(line)
    return 1 if failed else 0


def _result(o, job) -> dict:
    """One file's entry of ``--json``."""
    if o.kind == "failed":
        return {"input": job.src, "output": job.dst, "ok": False, "error": o.message}
    if o.kind == "skipped":
        return {"input": job.src, "output": None, "ok": True, "skipped": o.message}
    out = {"input": job.src, "output": job.dst, "ok": True, "lost": o.lost,
           "warnings": o.warnings, "counts": o.counts, "files": [w["path"] for w in o.written]}
    if o.shared:
        out["shared"] = o.shared        # files another input wrote too (the later write stands)
    return out


def _written(outcomes) -> list:
    """Files that exist after the run, each once (an output, a mesh beside it)."""
    seen = {}
    for o in outcomes:
        for w in o.written:
            if os.path.exists(w["path"]):
                seen.setdefault(os.path.realpath(w["path"]), None)
    return list(seen)


def _plural(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")
