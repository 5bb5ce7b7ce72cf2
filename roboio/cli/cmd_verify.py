"""roboio verify: compare two robot models by forward kinematics."""
from ..api import load
from ..verify import verify
from ._common import dump_json, pick_robot
from ._options import positive_int


def register(sub):
    p = sub.add_parser("verify", help="compare two robot models link by link over sampled "
                       "configurations (welds fixed, coupled links through their drivers)")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--samples", type=positive_int, default=100, help="configurations to compare (>= 1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tol", type=float, default=1e-9, help="largest position (m) and rotation "
                   "(rad) error accepted")
    p.add_argument("--map", action="append", default=[], metavar="A=B",
                   help="link A of the first model is B in the second; '*' maps prefixes "
                   "('left_*=l_*', '*=arm/*'); repeatable")
    p.add_argument("--space", choices=("auto", "links", "drivers"), default="auto",
                   help="carry samples over by driver values (when both models' drivers "
                   "correspond) or by link name (default: auto)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def parse_map(items) -> dict:
    from .main import UsageError
    out = {}
    for it in items:
        a, sep, b = it.partition("=")
        if not sep or not a or not b or a.count("*") > 1 or (a.count("*") != b.count("*") and b.count("*") > 1):
            raise UsageError(f"--map {it!r}: expected A=B (or PREFIX*=PREFIX*)")
        out[a] = b
    return out


def run(args):
    from .main import UsageError
    if args.samples < 1:
        raise UsageError("--samples must be at least 1")
    link_map = parse_map(args.map)
    ra = pick_robot(load(args.a))
    rb = pick_robot(load(args.b))
    try:
        res = verify(ra, rb, args.samples, args.seed, args.tol, link_map=link_map, space=args.space)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(dump_json(res.to_dict()))
    else:
        print(f"matched links: {len(res.matched)} (only in A: {len(res.only_a)}, only in B: {len(res.only_b)})")
        for n in res.only_a:
            print(f"  only in A: {n}")
        for n in res.only_b:
            print(f"  only in B: {n}")
        for n in res.notes:
            print(f"  note: {n}")
        print(f"samples: {res.samples}  seed: {args.seed}  space: {res.space}")
        print(f"max position error: {res.max_position_error:.3e} m")
        print(f"max rotation error: {res.max_rotation_error:.3e} rad  (worst link: {res.worst_link})")
        print("OK" if res.ok else f"MISMATCH (tolerance {res.tol:g})")
    return 0 if res.ok else 1
