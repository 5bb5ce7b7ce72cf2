"""roboio validate: load a file (or every file of a directory) and report every problem."""
import os

from ._common import dump_json, format_option, load
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "validate", help="load a file (or a directory's files) and report every problem, "
        "by severity (exit 1 on errors)",
        description="Load a file, every mesh it references and every robot in it, and list "
        "every problem by severity: errors (the model is wrong or incomplete: a referenced "
        "file missing or unreadable, a file cut short, NaN or inverted limits, negative "
        "masses, values the file gives that cannot be read), warnings (what roboio guessed, "
        "changed or dropped) and notes (what the original program ignores too, what is kept "
        "as data); then one line counting them. Exit status 1 when there is an error (with "
        "--strict, a warning too; notes never), else 0. With a directory, every file under it "
        "that roboio reads is checked and listed in a table, one row per file.",
        examples=["roboio validate ur5.urdf", "roboio validate tx90cuptable.xml --json",
                  "roboio validate robot.rob --strict   # warnings fail too",
                  "roboio validate models/               # a table, one row per file"])
    p.add_argument("path", help="file to check (any format roboio reads), or a directory")
    p.add_argument("--strict", action="store_true",
                   help="warnings fail validation too (exit 1); notes never do")
    p.add_argument("--verbose", action="store_true",
                   help="list every problem (by default, beyond the first few of one kind "
                        "they are counted); with a directory, every file's problems")
    p.add_argument("--format", metavar="FORMAT",
                   help="read as this format (default: by extension and content; see "
                        "`roboio formats`)")
    p.add_argument("--json", action="store_true",
                   help="machine-readable result: path, ok, counts, problems (each with its "
                        "severity, kind and hint); a directory: every file's")
    p.set_defaults(func=run)


def run(args):
    if os.path.isdir(args.path):
        if args.format:
            from .main import UsageError
            raise UsageError("--format applies to one file; a directory's files are read by "
                             "their extension and content")
        return _directory(args)
    from ..diagnostics import as_diagnostics, by_severity, count_line, counts, fold
    from ..validation import fails, problems as find_problems
    from . import _progress
    from ._common import cli_words
    from ..errors import CompanionFile
    format_option(args.format, "--format", "read")
    try:
        obj = load(args.path, args.format)     # never strict: a strict load stops at a note
    except CompanionFile as e:                 # checked with the model that names it
        if args.json:
            print(dump_json({"path": args.path, "ok": True, "skipped": e.message,
                             "counts": counts([]), "problems": []}))
        else:
            print(cli_words(f"{args.path}: not checked on its own: {e.message}"))
        return 0
    found = by_severity(as_diagnostics(find_problems(
        obj, bar=lambda n: _progress.bar(n, "loading meshes", "mesh"))))
    c, failed = counts(found), fails(found, args.strict)
    if args.json:
        print(dump_json({"path": args.path, "ok": not failed, "counts": c,
                         "problems": [d.to_dict() for d in found]}))
    else:
        for line in fold(found, args.verbose):
            print(cli_words(line))
        print(f"{args.path}: " + ("OK" if not found else
                                  f"{count_line(c)} ({_verdict(failed, args.strict)})"))
    return 1 if failed else 0


def _verdict(failed: bool, strict: bool) -> str:
    if not failed:
        return "OK"
    return "FAILED: --strict fails on warnings" if strict else "FAILED"


def _directory(args) -> int:
    from ..diagnostics import count_line, fold, hint_lines
    from ..errors import Diagnostic
    from . import _dirtable
    from ._common import cli_words
    outcomes = _dirtable.run_rows(args.path, args.strict, "validating")
    total = _dirtable.total_counts(o.counts for o in outcomes)
    failed = [o for o in outcomes if o.kind == "failed"]
    skipped = [o for o in outcomes if o.kind == "skipped"]
    if args.json:
        print(dump_json({"path": args.path, "ok": not failed, "counts": total,
                         "files": [_file_entry(o) for o in outcomes]}))
        return 1 if failed else 0
    if not outcomes:
        print(f"{args.path}: no file roboio reads")
        return 0
    rows = []
    for o in outcomes:
        c = o.counts or {}
        rows.append([_dirtable.relative(o.input, args.path), o.format or "?", o.object_kind or "",
                     o.holds or "",
                     *(str(c.get(s, 0)) if o.kind != "skipped" else "-"
                       for s in ("error", "warning", "note")),
                     {"ok": "OK", "failed": "FAILED", "skipped": "skipped"}[o.kind]])
    for line in _dirtable.table(["file", "format", "kind", "holds", "errors", "warnings",
                                 "notes", "result"], rows):
        print(cli_words(line))
    for o in failed:
        print(cli_words(f"{_dirtable.relative(o.input, args.path)}: {o.message}"))
    if args.verbose:
        for o in outcomes:
            if o.problems:
                print(f"{o.input}:")
                found = [Diagnostic(p["text"], p["severity"], p.get("kind"), p.get("hint"))
                         for p in o.problems]
                for line in fold(found, verbose=True):
                    print(cli_words("  " + line))
    checked = len(outcomes) - len(skipped)
    print(f"{args.path}: {checked} files, {len(failed)} failed"
          + (f" (--strict: warnings fail too)" if args.strict else "")
          + (f", {len(skipped)} skipped ({_dirtable.reasons([o.message for o in skipped], args.verbose)})"
             if skipped else "")
          + f"; {count_line(total)}")
    for line in hint_lines(o.problems for o in outcomes):
        print(line)
    return 1 if failed else 0


def _file_entry(o) -> dict:
    """One file of ``validate DIR --json``."""
    out = {"path": o.input, "format": o.format, "kind": o.object_kind, "holds": o.holds,
           "result": o.kind,
           "ok": o.kind != "failed", "counts": o.counts or {}, "problems": o.problems}
    if o.kind in ("failed", "skipped") and not o.problems:
        out["message"] = o.message
    return out
