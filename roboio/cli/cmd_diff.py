"""roboio diff: semantic difference of two models (exit 1 when they differ)."""
from ._common import dump_json, load
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "diff", help="semantic difference of two models: links, joints, axes, frames, "
        "limits, masses, drivers, geometry (exit 1 when different)",
        description="Compare two models as models, not as text: links added, removed or renamed "
        "(by position), parents, joint types, axes, frames, limits, masses, inertias, geometry "
        "files, drivers, self-collision pairs, and for worlds their robots, objects and "
        "terrains. Exit status 0 when nothing differs, 1 when something does.",
        examples=["roboio diff roboio/data/samples/openrave/pick_arm.robot.xml "
                  "roboio/data/samples/collada/pick_arm.dae",
                  "roboio diff old/robot.urdf new/robot.urdf --tol 1e-6",
                  "roboio diff a.rob b.rob --json | jq '.differences[].field'"])
    p.add_argument("a", help="the first model (robot or world)")
    p.add_argument("b", help="the second model, compared with the first")
    p.add_argument("--tol", type=float, default=1e-9,
                   help="tolerance: absolute for positions, angles, axes; relative for masses, "
                   "inertias, limits (default 1e-9)")
    p.add_argument("--json", action="store_true",
                   help="machine-readable result: same, matched_links, differences (what, name, "
                   "field, a, b, note)")
    p.set_defaults(func=run)


def run(args):
    from ..diff import diff
    from .main import UsageError
    try:
        res = diff(load(args.a), load(args.b), args.tol)
    except ValueError as e:
        if type(e) is ValueError:
            raise UsageError(f"{args.a} vs {args.b}: {e}") from None
        raise
    if args.json:
        print(dump_json(res.to_dict()))
    else:
        print(f"matched links: {res.matched_links}")
        print(str(res))
    return 0 if res.same else 1
