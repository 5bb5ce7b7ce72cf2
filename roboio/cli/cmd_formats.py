"""roboio formats: the table of formats."""
from ._common import dump_json
from ._help import add_command

WIDTH = 100        # the table fits this many columns (fewer on a narrower terminal)


def register(sub):
    p = add_command(
        sub, "formats", help="list the formats roboio reads and writes",
        description="The formats roboio reads and writes: name (what --to, --from and "
        "--format take), read/write, extensions, what the files hold, and a description. The "
        "table fits 100 columns, cells wrapped; --wide puts each format on one line.",
        examples=["roboio formats", "roboio formats --wide | grep -i urdf",
                  "roboio formats --json | jq -r '.[] | select(.write) | .name'"])
    out = p.add_mutually_exclusive_group()
    out.add_argument("--wide", action="store_true",
                     help="one line per format, nothing wrapped (wider than 100 columns)")
    out.add_argument("--json", action="store_true",
                     help="machine-readable: name, ecosystem, extensions, kinds, read, write, "
                          "description, module")
    out.add_argument("--markdown", action="store_true",
                     help="the table as Markdown (the README's formats table is this output)")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also print the module implementing each format")
    p.set_defaults(func=run)


def run(args):
    from ..formats.registry import formats
    fs = formats()
    if args.json:
        print(dump_json([{"name": f.name, "ecosystem": f.ecosystem, "extensions": list(f.extensions),
                          "kinds": list(f.kinds), "read": f.can_read, "write": f.can_write,
                          "description": f.description, "module": f.module} for f in fs]))
        return 0
    if args.markdown:
        print(markdown_table(fs))
        return 0
    if args.wide:
        rows = [("FORMAT", "EXTENSIONS", "HOLDS", "READ", "WRITE", "DESCRIPTION")]
        for f in fs:
            rows.append((f.name, " ".join(f.extensions), ",".join(f.kinds),
                         "yes" if f.can_read else "-", "yes" if f.can_write else "-", f.description))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        for f, r in zip([None] + fs, rows):
            print("  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5])
            if args.verbose and f is not None:
                print(" " * 4 + f"module: {f.module}")
        return 0
    print("\n".join(narrow_table(fs, _width(), args.verbose)))
    return 0


def _width() -> int:
    import shutil
    import sys
    if sys.stdout.isatty():
        return max(60, min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns))
    return WIDTH


def narrow_table(fs, width: int = WIDTH, verbose: bool = False) -> list:
    """The table in ``width`` columns: format, read/write, extensions, holds, description;
    extensions, kinds and descriptions wrap inside their columns."""
    import textwrap
    header = ("FORMAT", "R/W", "EXTENSIONS", "HOLDS", "DESCRIPTION")
    rows = [(f.name, ("r" if f.can_read else "-") + ("w" if f.can_write else "-"),
             " ".join(f.extensions), ", ".join(k.replace("_", " ") for k in f.kinds), f.description)
            for f in fs]
    w0 = max(len(h) for h in [header[0]] + [r[0] for r in rows])
    w1 = 3
    w2 = min(16, max(len(x) for r in rows for x in r[2].split()) if rows else 10)
    w3 = 16
    w4 = max(20, width - (w0 + w1 + w2 + w3 + 8))
    widths = (w0, w1, w2, w3, w4)
    out = []
    for f, row in zip([None] + list(fs), [header] + rows):
        cells = [textwrap.wrap(c, w, break_long_words=True, break_on_hyphens=False) or [""]
                 for c, w in zip(row, widths)]
        for k in range(max(len(c) for c in cells)):
            line = "  ".join((c[k] if k < len(c) else "").ljust(w) for c, w in zip(cells, widths))
            out.append(line.rstrip())
        if verbose and f is not None:
            out.append(" " * 4 + f"module: {f.module}")
    return out


def markdown_table(fs) -> str:
    """The formats as a Markdown table: name, extensions, what they hold, read/write."""
    out = ["| format | extensions | holds | read | write |", "|---|---|---|---|---|"]
    for f in fs:
        out.append(f"| `{f.name}` | {' '.join(f.extensions)} | {', '.join(f.kinds).replace('_', ' ')} | "
                   f"{'yes' if f.can_read else '-'} | {'yes' if f.can_write else '-'} |")
    return "\n".join(out)
