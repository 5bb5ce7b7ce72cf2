"""roboio verify: compare two robot models by forward kinematics."""
from ._common import dump_json, load, pick_robot
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "verify", help="compare two robot models link by link over random configurations",
        description="Load two robot models, match their links by name and compare the world "
        "transform of every matched link over random configurations within A's joint limits "
        "(the same values given to the links of the same name in B). Prints the largest "
        "position and rotation errors; exit status 0 when both are within --tol, 1 when not "
        "(a conversion that moved something).",
        examples=["roboio convert ur5.rob ur5.urdf && roboio verify ur5.rob ur5.urdf",
                  "roboio verify arm.rob arm.body --samples 1000 --seed 7 --tol 1e-6",
                  "roboio verify a.urdf b.urdf --json | jq .max_position_error"])
    p.add_argument("a", help="the first robot (or a world with one robot)")
    p.add_argument("b", help="the second robot, compared with the first")
    p.add_argument("--samples", type=int, default=100,
                   help="number of random configurations compared (default 100)")
    p.add_argument("--seed", type=int, default=0,
                   help="random seed: the same seed gives the same configurations (default 0)")
    p.add_argument("--tol", type=float, default=1e-9,
                   help="largest accepted error, metres for positions and radians for "
                        "rotations (default 1e-9)")
    p.add_argument("--json", action="store_true",
                   help="machine-readable result: ok, matched_links, only_a, only_b, "
                        "max_position_error, max_rotation_error, worst_link, samples, tol")
    p.set_defaults(func=run)


def run(args):
    from ..convert import verify
    from . import _progress
    ra = pick_robot(load(args.a))
    rb = pick_robot(load(args.b))
    with _progress.activity(f"comparing {args.samples} configurations"):
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
