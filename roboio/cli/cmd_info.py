"""roboio info: what a file holds."""
from ..api import load
from ..describe import summary
from ._common import check_format, dump_json


def register(sub):
    p = sub.add_parser("info", help="show what a file holds")
    p.add_argument("path")
    p.add_argument("--format", help="read as this format (default: by extension and content)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")
    p.set_defaults(func=run)


def run(args):
    check_format(args.format, "--format")
    obj = load(args.path, args.format, strict=args.strict)
    s = summary(obj)
    if args.json:
        print(dump_json(s))
    else:
        print(f"{args.path}:")
        _print(s, 1)
    return 0


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, list) and v and all(isinstance(x, (int, float)) for x in v) and len(v) <= 12:
        return " ".join(_fmt(x) for x in v)
    return str(v)


def _print(s, depth):
    pad = "  " * depth
    for k, v in s.items():
        if k == "limits" or (isinstance(v, list) and not v):
            continue
        if k == "links":
            print(f"{pad}links:")
            for l in v:
                extra = f" joint={l['joint']}" if l["joint"] else ""
                print(f"{pad}  {l['index']:3d} {l['name']!r} parent={l['parent']} {l['type']}{extra} "
                      f"q=[{_fmt(l['qmin'])}, {_fmt(l['qmax'])}] mass={_fmt(l['mass'])} geometry={l['geometry']}")
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            print(f"{pad}{k}:")
            for item in v:
                print(f"{pad}  -")
                _print(item, depth + 2)
        elif isinstance(v, list) and len(v) > 12:
            print(f"{pad}{k}: [{len(v)} values] " + " ".join(_fmt(x) for x in v[:6]) + " ...")
        elif isinstance(v, list) and v and isinstance(v[0], str):
            print(f"{pad}{k}:")
            for x in v:
                print(f"{pad}  {x}")
        elif isinstance(v, dict):
            print(f"{pad}{k}: " + ", ".join(f"{a}={_fmt(b)}" for a, b in v.items()))
        else:
            print(f"{pad}{k}: {_fmt(v)}")
