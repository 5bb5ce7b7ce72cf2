"""roboio verify: compare two robot models by forward kinematics."""
from . import _progress
from ._common import dump_json, load, pick_robot
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "verify", help="compare two robot models link by link over sampled configurations",
        description="Load two robot models, match their links (by name, through the renames the "
        "conversion states and --map; then by joint name; by tree structure when names do not "
        "pair every link one to one: the map used is printed) and compare the world transform "
        "of every matched link over random configurations within A's joint limits (welds stay at "
        "their value, coupled links move through their drivers; the same values are given to B "
        "by driver or by link name, see --space). What B cannot hold is accounted for and "
        "listed: links B welds are held at B's value (or at A's configured value, when B's frame "
        "holds them there), a base pose B does not store (a GraspIt! "
        "robot file has none) is placed as B's, with its size, and the FK change that writing A "
        "in B's format states (frames that are not rotations), found by running that writer "
        "again into a temporary directory. --reader reads B with the program it is for "
        "(Klamp't, pinocchio, MuJoCo) instead of roboio. Prints the largest position and "
        "rotation errors; exit status 0 when both are within --tol or what the conversion "
        "states (with --exact: within --tol and nothing accounted for), 1 when not (a "
        "conversion that moved something, or a B the --reader program refuses).",
        examples=["roboio convert roboio/data/samples/planar_arm.rob /tmp/arm.urdf && "
                  "roboio verify roboio/data/samples/planar_arm.rob /tmp/arm.urdf",
                  "roboio verify roboio/data/samples/planar_arm.rob /tmp/arm.urdf --reader pinocchio"
                  "   # B as pinocchio reads it",
                  "roboio verify roboio/data/samples/choreonoid/arm.body "
                  "roboio/data/samples/choreonoid/arm_vrml.wrl --samples 1000 --seed 7 --tol 1e-6",
                  "roboio verify a.urdf b.urdf --map 'left_*=l_*' --json | jq .max_position_error"])
    p.add_argument("a", help="the first robot, or a world: each of its robots is compared with "
                   "its robot in B (same name, else most shared link names)")
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
                   help="exit 1 unless the comparison is exact: every link of A matched, within "
                   "--tol, and nothing accounted for (no link held, no base placed, no stated "
                   "error accepted)")
    p.add_argument("--reader", choices=("roboio", "klampt", "pinocchio", "mujoco", "auto"),
                   default="roboio",
                   help="who reads B: roboio (default), or the real program's Python library -- "
                   "klampt (.rob, .urdf, worlds), pinocchio (URDF), mujoco (MJCF) -- so that a B "
                   "the program refuses fails; auto: the program of B's format (Klamp't for .rob "
                   "and worlds, pinocchio for URDF, MuJoCo for MJCF; roboio for the others)")
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
                   help="machine-readable result: ok, exact, space, accounted, matched_by, map, "
                        "reader, allowed, matched_links, only_a, only_b, max_position_error, "
                        "max_rotation_error, worst_link, samples, tol, notes, per_link (and "
                        "dynamics with --dynamics, collision with --collision)")
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
    from ..model import World
    from .main import UsageError
    if args.samples < 1:
        raise UsageError("--samples must be at least 1")
    link_map = parse_map(args.map)
    a = load(args.a)
    if isinstance(a, World) and not a.robots:
        raise UsageError(f"{args.a}: the world has no robot to verify (roboio diff A B compares "
                         "its rigid objects and terrains)")
    if _several_robots(a) and args.reader == "roboio":
        return _run_world(args, a, load(args.b), link_map)
    ra = pick_robot(a, path=args.a)
    rb, fk_b, reader, note = _read_b(args.b, args.reader)
    if rb is None:                       # the program refuses B
        return _refused(args, reader, note)
    if _several_robots(a):
        note = "; ".join(filter(None, [note, f"A holds {len(a.robots)} robots: --reader "
                                       f"{args.reader} compares the first, {ra.name!r}"]))
    res, dyn = _compare(args, ra, rb, fk_b, reader, link_map, note)
    if args.json:
        print(dump_json(_result_dict(res, dyn)))
    else:
        _print(res, args)
        if dyn is not None:
            _print_dynamics(dyn)
    return 0 if _passed(args, res, dyn) else 1


def _compare(args, ra, rb, fk_b, reader, link_map, note=""):
    """``(VerifyResult, dynamics result or None)`` of robot ``ra`` (from A) against ``rb``."""
    from ..verify import verify
    from .main import UsageError

    def compare(stated=None):
        try:
            with _progress.activity(f"comparing {args.samples} configurations"):
                return verify(ra, rb, args.samples, args.seed, args.tol, link_map=link_map,
                              space=args.space, stated=stated, fk_b=fk_b, reader=reader,
                              collision=args.collision, collision_tol=args.collision_tol)
        except ValueError as e:
            raise UsageError(f"{args.a} vs {args.b}: {e}") from None
    res = compare()
    if not res.exact:
        # what converting A into B's format states: its renames and its FK change
        stated = _stated(ra, args.b)
        if stated is not None:
            res = compare(stated)
            res.notes.append(f"stated: what writing A as {stated.format} states (its writer run "
                             "again into a temporary directory)")
    if note:
        res.notes.append(note)
    dyn = _dynamics(args, ra, rb, res, link_map) if args.dynamics else None
    return res, dyn


def _result_dict(res, dyn) -> dict:
    out = res.to_dict()
    if dyn is not None:
        out["dynamics"] = dyn.to_dict()
        out["ok"] = out["ok"] and dyn.ok
    return out


def _passed(args, res, dyn) -> bool:
    return (res.exact if args.exact else res.ok) and (dyn is None or dyn.ok)


def _several_robots(obj) -> bool:
    from ..model import World
    return isinstance(obj, World) and len(obj.robots) > 1


def _run_world(args, a, b, link_map) -> int:
    """A world holding several robots: each robot of A against its robot in B (same name,
    else most shared link names, else same place); exit 0 when every one passes."""
    from ..model import Robot, World
    b_robots = [b] if isinstance(b, Robot) else list(b.robots) if isinstance(b, World) else []
    results, ok = [], True
    from ..verify import pair_robots
    for ra, rb in pair_robots(list(a.robots), b_robots):
        if rb is None:
            results.append((ra, None, None, None))
            ok = False
            continue
        res, dyn = _compare(args, ra, rb, None, "roboio", link_map)
        results.append((ra, rb, res, dyn))
        ok = ok and _passed(args, res, dyn)
    if args.json:
        print(dump_json({"ok": ok, "robots": [
            {"a": ra.name, "b": rb.name if rb is not None else None,
             **(_result_dict(res, dyn) if res is not None else {"ok": False})}
            for ra, rb, res, dyn in results]}))
        return 0 if ok else 1
    for ra, rb, res, dyn in results:
        if rb is None:
            print(f"robot {ra.name!r} of A: no robot of B matches it (by name or links)\n")
            continue
        print(f"robot {ra.name!r} of A vs {rb.name!r} of B:")
        _print(res, args)
        if dyn is not None:
            _print_dynamics(dyn)
        print()
    print(f"{'OK' if ok else 'MISMATCH'}: {sum(r[2] is not None and _passed(args, r[2], r[3]) for r in results)} "
          f"of {len(results)} robots of A pass (rigid objects and terrains: roboio diff A B)")
    return 0 if ok else 1


def _read_b(path, reader):
    """``(robot, fk_b, reader name, note)``: B read by roboio or by the program's library
    (``robot`` None: the program refuses B, ``note`` says why)."""
    from .main import UsageError
    if reader == "roboio":
        return pick_robot(load(path), path=path), None, "roboio", ""
    from .. import reference_readers as refs
    from ..api import file_format
    fmt = file_format(path)
    name = refs.auto_reader(fmt) if reader == "auto" else reader
    if name is None:
        return (pick_robot(load(path), path=path), None, "roboio",
                f"--reader auto: no reference library reads {fmt} files; roboio read B")
    if not refs.available(name):
        if reader == "auto":
            return (pick_robot(load(path), path=path), None, "roboio",
                    f"--reader auto: {refs.install_hint(name)}; roboio read B")
        raise UsageError(refs.install_hint(name))
    try:
        with _progress.file_activity(f"reading with {name}", path):
            ref = refs.read_reference(path, name, fmt)
    except refs.ReferenceRefused as e:
        return None, None, name, str(e)
    return ref.robot, ref.fk_batch, name, f"B read by {name}"


def _stated(ra, path):
    """The report of writing ``ra`` in B's format (None when roboio cannot write it)."""
    from ..api import restate
    from ..errors import RoboioError
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _progress.activity("writing A in B's format again, for what it states"):
                return restate(ra, path)
    except (RoboioError, ValueError, OSError):
        return None


def _refused(args, reader, why) -> int:
    if args.json:
        print(dump_json({"ok": False, "exact": False, "reader": reader, "refused": why}))
    else:
        print(f"B refused by {reader}: {why}")
        print("MISMATCH (the program B is for cannot read it)")
    return 1


def _print(res, args):
    print(f"matched links: {len(res.matched)} (only in A: {len(res.only_a)}, only in B: {len(res.only_b)})"
          + ("" if res.matched_by == "names" else f", matched by {res.matched_by}"))
    changed = {a: b for a, b in res.map.items()
               if (b != a if isinstance(b, str) else any(x != a for x in b))}
    for a, b in changed.items():
        print(f"  map: {a} -> {b if isinstance(b, str) else ', '.join(b)}")
    for n in res.only_a:
        print(f"  only in A: {n}")
    for n in res.only_b:
        print(f"  only in B: {n}")
    for n in res.notes:
        print(f"  note: {n}")
    for n in res.accounted:
        print(f"  accounted for: {n}")
    how = "driver values" if res.space == "drivers" else "link values, by name"
    print(f"samples: {res.samples}  seed: {args.seed}  space: {res.space} (B gets A's {how})"
          + (f"  reader: {res.reader}" if res.reader != "roboio" else ""))
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


def _dynamics(args, ra, rb, res, link_map):
    """The --dynamics comparison, with links paired as the kinematic comparison paired them
    (``res.map``: names, stated renames or tree structure; a name A repeats is left out)."""
    from ..verify_dynamics import verify_dynamics
    from . import _progress
    from .main import UsageError
    link_map = {**{a: b for a, b in res.map.items() if isinstance(b, str)}, **link_map}
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
