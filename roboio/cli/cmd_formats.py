"""roboio formats: the table of formats."""
from ..api import formats
from ._common import dump_json


def register(sub):
    p = sub.add_parser("formats", help="list the formats roboio reads and writes")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also print the module implementing each format")
    p.add_argument("--markdown", action="store_true",
                   help="the table as Markdown (the README's formats table is this output)")
    p.set_defaults(func=run)


def run(args):
    fs = formats()
    if args.json:
        print(dump_json([{"name": f.name, "ecosystem": f.ecosystem, "extensions": list(f.extensions),
                          "kinds": list(f.kinds), "read": f.can_read, "write": f.can_write,
                          "description": f.description, "module": f.module} for f in fs]))
        return 0
    if args.markdown:
        print(markdown_table(fs))
        return 0
    rows = [("FORMAT", "EXTENSIONS", "HOLDS", "READ", "WRITE", "DESCRIPTION")]
    for f in fs:
        rows.append((f.name, " ".join(f.extensions), ",".join(f.kinds), "yes" if f.can_read else "-",
                     "yes" if f.can_write else "-", f.description))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for f, r in zip([None] + fs, rows):
        print("  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5])
        if args.verbose and f is not None:
            print(" " * 4 + f"module: {f.module}")
    return 0


def markdown_table(fs) -> str:
    """The formats as a Markdown table: name, extensions, what they hold, read/write."""
    out = ["| format | extensions | holds | read | write |", "|---|---|---|---|---|"]
    for f in fs:
        out.append(f"| `{f.name}` | {' '.join(f.extensions)} | {', '.join(f.kinds).replace('_', ' ')} | "
                   f"{'yes' if f.can_read else '-'} | {'yes' if f.can_write else '-'} |")
    return "\n".join(out)
