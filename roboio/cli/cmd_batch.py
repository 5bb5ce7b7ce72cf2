"""roboio batch: convert, validate or compute link poses over whole trees, on Dask."""
from __future__ import annotations

import argparse
import sys

from ._common import dump_json, format_option
from ._help import add_command
from ._options import positive_int
from .main import UsageError


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (v > 0 and v != float("inf")):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return v


def _run_options(p) -> None:
    p.add_argument("--workers", type=positive_int, metavar="N",
                   help="worker processes of the local cluster (default: one per core)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on an existing Dask cluster (e.g. tcp://10.0.0.5:8786) instead of "
                        "a local one; its workers need roboio installed and the files at the "
                        "same paths")
    p.add_argument("--resume", action="store_true",
                   help="skip what the report of an earlier run lists as complete (outputs "
                        "still as written, inputs unchanged); redo the rest")
    p.add_argument("--report", metavar="R.json",
                   help="the JSON report of every file: ok, failed (one-line message), skipped, "
                        "seconds, files written (default: in the output; validate: none)")
    p.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                   help="seconds one file (or one chunk of frames) may take; it fails past that")
    p.add_argument("--strict", action="store_true", help="treat input warnings as errors")
    p.add_argument("--json", action="store_true",
                   help="print the report as JSON: counts, then every file's outcome")


def register(sub):
    p = add_command(
        sub, "batch", help="convert, validate or compute link poses over whole trees, on Dask",
        description="Work on every file of directory trees or globs, one task per file on a "
        "local Dask cluster (--workers) or an existing one (--scheduler): one bad file is a "
        "line in the report, never a stopped run; --resume skips what an earlier run "
        "completed; Ctrl-C leaves no half-written output. Needs the roboio[batch] extra.",
        examples=["roboio batch convert roboio/data/samples/choreonoid /tmp/urdf --to urdf --workers 2",
                  "roboio batch validate roboio/data/samples/choreonoid --report /tmp/check.json",
                  "roboio batch fk 'walks/**/*.seq' --model SR1.body --out poses.parquet"])
    bsub = p.add_subparsers(dest="batch_command", metavar="ACTION")
    c = add_command(
        bsub, "convert", help="convert every file a format can hold, mirroring the tree",
        description="Convert every file under SRC that --to's format can hold into the same "
        "place under DST, as `roboio convert DIR` does (same outputs, same names: SR1.body -> "
        "SR1.body.urdf), one task per file.",
        examples=["roboio batch convert roboio/data/samples/choreonoid /tmp/urdf --to urdf --workers 2",
                  "roboio batch convert ROBOTS/ OUT/ --to urdf --resume   # go on after a stop"])
    c.add_argument("src", nargs="+", metavar="SRC", help="directories, files or globs to convert")
    c.add_argument("dst", metavar="DST", help="the output directory")
    c.add_argument("--to", required=True, metavar="FORMAT", help="output format")
    c.add_argument("--meshes", choices=("keep", "copy", "convert"),
                   help="mesh files of targets that need converted meshes (as for convert)")
    _run_options(c)
    c.set_defaults(func=run_convert)
    v = add_command(
        bsub, "validate", help="validate every file roboio reads",
        description="`roboio validate` on every file under SRC that roboio reads, one task "
        "per file; exit status 1 when any has a problem.",
        examples=["roboio batch validate roboio/data/samples/choreonoid --report /tmp/check.json",
                  "roboio batch validate MODELS/ --kinds robot,world",
                  "roboio batch validate 'MESHES/**/*.stl' --report meshes.json --timeout 60"])
    v.add_argument("src", nargs="+", metavar="SRC", help="directories, files or globs to check")
    v.add_argument("--kinds", metavar="KIND,...",
                   help="only files of these kinds (robot, world, geometry, trajectory, ...)")
    _run_options(v)
    v.set_defaults(func=run_validate)
    f = add_command(
        bsub, "fk", help="link poses at every frame of motions, as a Parquet dataset",
        description="World position and orientation (quaternion w, x, y, z) of the model's "
        "links at every frame of each motion (Choreonoid .seq, Klamp't .path/.configs/"
        ".milestones/multipath; an MJCF model named as a motion: its keyframes), written as a "
        "Parquet dataset partitioned by source "
        "(docs/batch.md); long motions are split into chunks of frames.",
        examples=["roboio batch fk roboio/data/samples/klampt --model roboio/data/samples/planar_arm.rob "
                  "--out /tmp/arm.parquet --links wrist",
                  "roboio batch fk walks/ --model SR1.body --out poses.parquet --links WAIST,CHEST",
                  "roboio batch fk plans/*.path --model ur5.rob --out ur5.parquet --resume"])
    f.add_argument("motions", nargs="+", metavar="MOTION", help="motion files, directories or globs")
    f.add_argument("--model", required=True, metavar="ROBOT", help="the robot the motions move")
    f.add_argument("--out", required=True, metavar="OUT.parquet", help="the dataset directory")
    f.add_argument("--links", metavar="LINK,...",
                   help="only these links (names or indices; default: every link in the model's order)")
    f.add_argument("--chunk-frames", type=positive_int, default=10_000, metavar="N",
                   help="frames per task (default 10000)")
    _run_options(f)
    f.set_defaults(func=run_fk)
    p.set_defaults(func=lambda args: (_ for _ in ()).throw(
        UsageError("choose an action: convert, validate, fk")))


def _common(args, command: str) -> dict:
    from . import _progress
    from ..batch.runner import need_dask
    try:
        need_dask()
    except ImportError as e:
        raise UsageError(str(e)) from None
    _spawnable_main()
    if args.workers and args.scheduler:
        raise UsageError("--workers sizes a local cluster; --scheduler uses an existing one: "
                         "give one of them")

    from ._common import cli_words

    def failed(o):
        for w in o.shared:
            print(f"roboio batch {command}: warning: {o.input}: {w}", file=sys.stderr)
        if o.kind == "failed":
            message = cli_words(o.message)
            if not message.startswith(f"{o.input}:"):      # a message naming the file says it once
                message = f"{o.input}: {message}"
            print(f"roboio batch {command}: {message}", file=sys.stderr)
    return dict(workers=args.workers, scheduler=args.scheduler, resume=args.resume,
                report=args.report, timeout=args.timeout, strict=args.strict,
                progress=lambda n: _progress.bar(n, f"batch {command}", "file"), on_outcome=failed)


def _spawnable_main() -> None:
    """Let a local cluster's worker processes start without running this command again.

    They start by ``spawn``, which imports the parent's main script as ``__mp_main__``
    unless the main module is a package's ``__main__`` (``python -m roboio``). The
    ``roboio`` console script calls ``main()`` with no ``if __name__ == "__main__"`` guard,
    so each worker would run the batch command itself; naming the main module after
    ``roboio.__main__`` makes the workers skip it."""
    from importlib.machinery import ModuleSpec
    main = sys.modules.get("__main__")
    if main is not None and getattr(main, "__spec__", None) is None:
        main.__spec__ = ModuleSpec("roboio.__main__", None)


def _finish(args, summary) -> int:
    c = summary.counts()
    if args.json:
        print(dump_json({"counts": c, "report": summary.report, "failed": summary.failed,
                         "skipped": summary.skipped, "files": [o.to_dict() for o in summary.outcomes]}))
    else:
        from ..diagnostics import count_line, hint_lines
        from ._dirtable import reasons, total_counts
        extra = f"; {c['frames']:,} frames" if summary.command == "fk" else ""
        if summary.command == "validate":
            extra += f"; {count_line(total_counts(o.counts for o in summary.outcomes))}"
        why = f" ({reasons(summary.skipped.values())})" if summary.skipped else ""
        print(f"{c['ok']} ok, {c['failed']} failed, {c['skipped']} skipped{why}; "
              f"{c['written']} files written{extra}"
              + (f" (report: {summary.report})" if summary.report else ""))
        for line in hint_lines(list(o.problems) + list(o.lost) + list(o.warnings)
                               for o in summary.outcomes):
            print(line)
    return 1 if summary.failed else 0


def _refusal(e: Exception):
    from ..errors import RoboioError
    if isinstance(e, RoboioError):
        raise e
    raise UsageError(str(e)) from None


def run_convert(args):
    from ..batch import convert
    format_option(args.to, "--to", "write")
    opts = _common(args, "convert")
    try:
        s = convert(args.src, args.dst, args.to, meshes=args.meshes, **opts)
    except ValueError as e:
        _refusal(e)
    return _finish(args, s)


def run_validate(args):
    from ..batch import validate
    opts = _common(args, "validate")
    if args.resume and not args.report:
        raise UsageError("--resume needs --report R.json (the report of the earlier run)")
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()] if args.kinds else None
    try:
        s = validate(args.src, kinds=kinds, **opts)
    except ValueError as e:
        _refusal(e)
    return _finish(args, s)


def run_fk(args):
    from ..batch import fk
    opts = _common(args, "fk")
    links = [k.strip() for k in args.links.split(",") if k.strip()] if args.links else None
    try:
        s = fk(args.motions, args.model, args.out, links=links, chunk_frames=args.chunk_frames,
               **opts)
    except ValueError as e:
        _refusal(e)
    return _finish(args, s)
