"""roboio verify: compare two robot models by forward kinematics."""
from ..api import load
from ..convert import verify
from ._common import dump_json, pick_robot
from ._options import positive_int


def register(sub):
    p = sub.add_parser("verify", help="compare two robot models link by link over random configurations")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--samples", type=positive_int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tol", type=float, default=1e-9)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args):
    ra = pick_robot(load(args.a))
    rb = pick_robot(load(args.b))
    res = verify(ra, rb, args.samples, args.seed, args.tol)
    if args.json:
        print(dump_json({"ok": res.ok, "matched_links": len(res.matched), "only_a": res.only_a,
                         "only_b": res.only_b, "max_position_error": res.max_position_error,
                         "max_rotation_error": res.max_rotation_error, "worst_link": res.worst_link,
                         "samples": res.samples, "tol": res.tol}))
    else:
        print(f"matched links: {len(res.matched)} (only in A: {len(res.only_a)}, only in B: {len(res.only_b)})")
        for n in res.only_a:
            print(f"  only in A: {n}")
        for n in res.only_b:
            print(f"  only in B: {n}")
        print(f"samples: {res.samples}  seed: {args.seed}")
        print(f"max position error: {res.max_position_error:.3e} m")
        print(f"max rotation error: {res.max_rotation_error:.3e} rad  (worst link: {res.worst_link})")
        print("OK" if res.ok else f"MISMATCH (tolerance {res.tol:g})")
    return 0 if res.ok else 1
