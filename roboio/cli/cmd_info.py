"""roboio info: what a file holds; for robots the links, the joints (the joint vector of
``--config``) and, with ``--tree``, the kinematic tree as ``check_urdf`` draws it."""
from ._common import dump_json, format_option, load
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "info", help="show what a file holds (robots: links, joints, limits; --tree)",
        description="Load a file and describe it: kind, format, names, counts, masses, "
        "geometry, referenced files and warnings. For a robot: its links, and its joints in "
        "the order --config takes joint values, with limits in degrees and radians; --tree "
        "draws the kinematic tree with the joint types URDF users know (fixed, revolute, "
        "continuous, prismatic, floating, mimic with its leader and ratio).",
        examples=["roboio info ur5.urdf", "roboio info ur5.urdf --tree",
                  "roboio info Barrett.xml --json | jq '.joints[].name'",
                  "roboio info models/      # a table: one row per file"])
    p.add_argument("path", help="file to describe (any format roboio reads), or a directory "
                                "(a table, one row per file: format, kind, what it holds, "
                                "its warnings by severity)")
    p.add_argument("--tree", action="store_true",
                   help="robots: the kinematic tree (links joined by their joints) instead of "
                        "the link table")
    p.add_argument("--format", metavar="FORMAT",
                   help="read as this format (default: by extension and content; see "
                        "`roboio formats`)")
    p.add_argument("--json", action="store_true",
                   help="machine-readable output (schema in docs/cli.md)")
    p.add_argument("--strict", action="store_true",
                   help="treat warnings about the input as errors")
    p.set_defaults(func=run)


def run(args):
    import os
    from ..describe import summary
    if os.path.isdir(args.path):
        return _directory(args)
    format_option(args.format, "--format", "read")
    obj = load(args.path, args.format, strict=args.strict)
    s = summary(obj)
    fmt = _format_name(args.path, args.format)
    if fmt:
        s = {"format": fmt, **s}
    if args.json:
        print(dump_json(s))
        return 0
    from . import _infotext
    print("\n".join(_infotext.render(args.path, s, tree=args.tree)))
    return 0


def _format_name(path, fmt):
    from ..formats.registry import find_reader
    try:
        return find_reader(path, fmt).name
    except (ValueError, OSError):
        return None


def _directory(args) -> int:
    from ..diagnostics import count_line
    from . import _dirtable
    from ._common import cli_words
    from .main import UsageError
    if args.format or args.tree:
        raise UsageError("--format and --tree apply to one file; a directory's files are read "
                         "by their extension and content")
    rows = _dirtable.info_rows(args.path, args.strict)
    if args.json:
        print(dump_json({"path": args.path, "files": rows}))
        return 0
    if not rows:
        print(f"{args.path}: no file roboio reads")
        return 0
    table = []
    for r in rows:
        c = r.get("counts") or {}
        state = "cannot be read" if "error" in r else ("skipped" if "skipped" in r else None)
        table.append([_dirtable.relative(r["path"], args.path), r.get("format") or "?",
                      r.get("kind") or "-", state or r.get("holds") or "",
                      *((str(c.get(s, 0)) for s in ("error", "warning", "note")) if state is None
                        else ("-", "-", "-"))])
    for line in _dirtable.table(["file", "format", "kind", "holds", "errors", "warnings",
                                 "notes"], table):
        print(cli_words(line))
    for r in rows:
        if "error" in r:
            print(cli_words(f"{_dirtable.relative(r['path'], args.path)}: {r['error']}"))
    bad = sum("error" in r for r in rows)
    skipped = [r["skipped"] for r in rows if "skipped" in r]
    total = _dirtable.total_counts(r.get("counts") for r in rows)
    print(f"{args.path}: {len(rows) - len(skipped)} files"
          + (f", {bad} cannot be read" if bad else "")
          + (f", {len(skipped)} skipped ({_dirtable.reasons(skipped)})" if skipped else "")
          + f"; warnings of the readers: {count_line(total)} (roboio validate DIR checks more)")
    return 0

