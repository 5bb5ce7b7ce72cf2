"""roboio verify: compare two robot models by forward kinematics."""
from ._common import dump_json, load, pick_robot
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "verify", help="compare two robot models link by link over sampled configurations",
        description="Load two robot models, match their links by name (or by --map) and compare "
        "the world transform of every matched link over random configurations within A's joint "
        "limits (welds stay at their value, coupled links move through their drivers; the same "
        "values are given to B by driver or by link name, see --space). What B cannot hold is "
        "accounted for and listed: links B welds are held at B's value, and a base pose B does "
        "not store (a GraspIt! robot file has none) is placed as B's, with its size. Prints "
        "the largest position and rotation errors; exit status 0 when both are within --tol "
        "(with --exact: and nothing was accounted for), 1 when not (a conversion that moved "
        "something).",
        examples=["roboio convert roboio/data/samples/planar_arm.rob /tmp/arm.urdf && "
                  "roboio verify roboio/data/samples/planar_arm.rob /tmp/arm.urdf",
                  "roboio verify roboio/data/samples/choreonoid/arm.body "
                  "roboio/data/samples/choreonoid/arm_vrml.wrl --samples 1000 --seed 7 --tol 1e-6",
                  "roboio verify a.urdf b.urdf --map 'left_*=l_*' --json | jq .max_position_error"])
    p.add_argument("a", help="the first robot (or a world with one robot)")
    p.add_argument("b", help="the second robot, compared with the first")
    p.add_argument("--samples", type=int, default=100,
                   help="number of random configurations compared (at least 1; default 100)")
    p.add_argument("--seed", type=int, default=0,
                   help="random seed: the same seed gives the same configurations (default 0)")
    p.add_argument("--tol", type=float, default=1e-9,
                   help="largest accepted error, metres for positions and radians for "
                        "rotations (default 1e-9)")
    p.add_argument("--map", action="append", default=[], metavar="A=B",
                   help="link A of the first model is B in the second; '*' maps prefixes "
                   "('left_*=l_*', '*=arm/*'); repeatable")
    p.add_argument("--space", choices=("auto", "links", "drivers"), default="auto",
                   help="carry samples over by driver values (when both models' drivers "
                   "correspond) or by link name (default: auto)")
    p.add_argument("--exact", action="store_true",
                   help="exit 1 unless the comparison is exact: every link of A matched and "
                   "nothing accounted for (no link held, no base placed)")
    p.add_argument("--dynamics", action="store_true",
                   help="also compare mass matrices and gravity torques over the moving links "
                   "(relative error within --dynamics-tol) and name the links whose mass, COM "
                   "or inertia differ (docs/dynamics.md)")
    p.add_argument("--dynamics-tol", type=float, default=1e-9, metavar="TOL",
                   help="largest accepted relative difference of the dynamics (default 1e-9)")
    p.add_argument("--collision", action="store_true",
                   help="also compare self-collision over the same samples: the checked pairs, "
                   "the colliding pairs of each sample and the smallest distance (needs "
                   "pip install \"roboio[collision]\"); names the first pair that differs")
    p.add_argument("--collision-tol", type=float, default=1e-6, metavar="M",
                   help="largest accepted difference of the smallest distances with --collision "
                   "(metres; default 1e-6)")
    p.add_argument("--json", action="store_true",
                   help="machine-readable result: ok, exact, space, accounted, matched_links, "
                        "only_a, only_b, max_position_error, max_rotation_error, worst_link, "
                        "samples, tol, notes, per_link (and dynamics with --dynamics)")
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
    from ..verify import verify
    from . import _progress
    from .main import UsageError
    if args.samples < 1:
        raise UsageError("--samples must be at least 1")
    link_map = parse_map(args.map)
    ra = pick_robot(load(args.a), path=args.a)
    rb = pick_robot(load(args.b), path=args.b)
    try:
        with _progress.activity(f"comparing {args.samples} configurations"):
            res = verify(ra, rb, args.samples, args.seed, args.tol, link_map=link_map,
                         space=args.space, collision=args.collision,
                         collision_tol=args.collision_tol)
    except ValueError as e:
        raise UsageError(f"{args.a} vs {args.b}: {e}") from None
    dyn = _dynamics(args, ra, rb, link_map) if args.dynamics else None
    if args.json:
        out = res.to_dict()
        if dyn is not None:
            out["dynamics"] = dyn.to_dict()
            out["ok"] = out["ok"] and dyn.ok
        print(dump_json(out))
    else:
        print(f"matched links: {len(res.matched)} (only in A: {len(res.only_a)}, only in B: {len(res.only_b)})")
        for n in res.only_a:
            print(f"  only in A: {n}")
        for n in res.only_b:
            print(f"  only in B: {n}")
        for n in res.notes:
            print(f"  note: {n}")
        for n in res.accounted:
            print(f"  accounted for: {n}")
        how = "driver values" if res.space == "drivers" else "link values, by name"
        print(f"samples: {res.samples}  seed: {args.seed}  space: {res.space} (B gets A's {how})")
        print(f"max position error: {res.max_position_error:.3e} m")
        print(f"max rotation error: {res.max_rotation_error:.3e} rad  (worst link: {res.worst_link})")
        if res.collision is not None:
            print_collision(res.collision)
        if not res.ok:
            print(f"MISMATCH (tolerance {res.tol:g})")
        elif res.exact:
            print("OK")
        else:
            print("OK up to what B does not hold (accounted for above; --exact refuses it)"
                  if res.accounted else "OK for the matched links (links only in A above)")
        if dyn is not None:
            _print_dynamics(dyn)
    ok = res.exact if args.exact else res.ok
    return 0 if ok and (dyn is None or dyn.ok) else 1


def _dynamics(args, ra, rb, link_map):
    from ..verify_dynamics import verify_dynamics
    from . import _progress
    from .main import UsageError
    try:
        with _progress.activity(f"comparing dynamics at {min(args.samples, 100)} configurations"):
            return verify_dynamics(ra, rb, min(args.samples, 100), args.seed, args.dynamics_tol,
                                   link_map=link_map)
    except ValueError as e:
        raise UsageError(f"{args.a} vs {args.b}: {e}") from None


def _print_dynamics(dyn):
    print(f"dynamics: {len(dyn.coordinates)} moving coordinates compared by {dyn.space}")
    for n in dyn.notes:
        print(f"  note: {n}")
    print(f"  max mass matrix error: {dyn.max_mass_matrix_error:.3e} (relative)")
    print(f"  max gravity torque error: {dyn.max_gravity_error:.3e} (relative)")
    for d in dyn.links:
        print(f"  differs: {d.describe()}")
    print("  dynamics OK" if dyn.ok else f"  DYNAMICS MISMATCH (tolerance {dyn.tol:g})")


def print_collision(c) -> None:
    """The --collision part of the report."""
    print(f"self-collision: {c.pairs_a} pairs; colliding samples A {c.colliding_a}, B "
          f"{c.colliding_b}; verdicts differ in {c.verdict_mismatches}; smallest distances "
          f"differ by up to {c.max_distance_error:.3e} m")
    for label, items in (("checked in A only", c.only_a), ("checked in B only", c.only_b),
                         ("with a link B does not have", c.unmatched)):
        if items:
            more = f" (+{len(items) - 5} more)" if len(items) > 5 else ""
            print(f"  pairs {label}: " + ", ".join(f"({a}, {b})" for a, b in items[:5]) + more)
    first = c.first_difference()
    if first:
        print(f"  first difference: {first}")
