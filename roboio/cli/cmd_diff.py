"""roboio diff: semantic difference of two models (exit 1 when they differ)."""
from ..api import load
from ..diff import diff
from ._common import dump_json


def register(sub):
    p = sub.add_parser("diff", help="semantic difference of two models: links, joints, axes, "
                       "frames, limits, masses, drivers, geometry (exit 1 when different)")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tol", type=float, default=1e-9,
                   help="tolerance: absolute for positions, angles, axes; relative for masses, "
                   "inertias, limits (default 1e-9)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args):
    from .main import UsageError
    try:
        res = diff(load(args.a), load(args.b), args.tol)
    except ValueError as e:
        if type(e) is ValueError:
            raise UsageError(str(e)) from None
        raise
    if args.json:
        print(dump_json(res.to_dict()))
    else:
        print(f"matched links: {res.matched_links}")
        print(str(res))
    return 0 if res.same else 1
