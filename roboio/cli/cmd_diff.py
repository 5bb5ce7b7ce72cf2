"""roboio diff: semantic difference of two models (exit 1 when they differ)."""
from ._common import dump_json, load
from ._help import add_command

_FOCUS = ("kinematics", "dynamics", "geometry", "names")


def register(sub):
    p = add_command(
        sub, "diff", help="semantic difference of two models: what differs and by how much "
        "(kinematics, dynamics, geometry and colours, names; exit 1 when different)",
        description="Compare two models as models, not as files. Links are paired as roboio "
        "verify pairs them (by name, joint name or tree structure; --map). Kinematics: links "
        "added or removed, their order, parents, joint types, axes, frames, limits, initial "
        "values, drivers. Dynamics: masses, centres of mass and inertias in the link frame, "
        "torque limits, gains. Geometry: collision and visual shapes compared by their "
        "triangles and primitive solids in the link frame, whatever files hold them (sizes "
        "in metres), the colours they are drawn with, self-collision pairs. Names: renamed "
        "links, joint and driver names. Each difference is printed with its size; one that "
        "concerns many links is folded into one line (--verbose lists each). Worlds compare "
        "robot by robot, object by object; two geometry files as shapes. Exit status 0 when "
        "nothing differs, 1 when "
        "something does.",
        examples=["roboio diff roboio/data/samples/choreonoid/arm.body "
                  "roboio/data/samples/choreonoid/arm_vrml.wrl",
                  "roboio diff roboio/data/samples/openrave/pick_arm.robot.xml "
                  "roboio/data/samples/collada/pick_arm.dae --geometry --names",
                  "roboio diff old/robot.urdf new/robot.urdf --tol 1e-6 --kinematics --dynamics",
                  "roboio diff a.rob b.rob --json | jq '.differences[] | [.kind, .field, .size]'"])
    p.add_argument("a", help="the first model (robot, world, rigid object, terrain or geometry file)")
    p.add_argument("b", help="the second model, compared with the first")
    p.add_argument("--tol", type=float, default=1e-9,
                   help="tolerance: absolute for positions and vertices (m), angles (rad), axes "
                   "and colours; relative for masses, inertias, limits (default 1e-9)")
    for kind, what in (("kinematics", "links, joints, axes, frames, limits, drivers"),
                       ("dynamics", "masses, centres of mass, inertias, torque limits, gains"),
                       ("geometry", "shapes, colours, self-collision pairs"),
                       ("names", "renamed links, joint and driver names")):
        p.add_argument(f"--{kind}", action="store_true",
                       help=f"compare {what} (with several focus flags: each of them; without "
                       "any: everything)" if kind == "kinematics" else f"compare {what}")
    p.add_argument("--map", action="append", default=[], metavar="A=B",
                   help="link A of the first model is B in the second; '*' maps prefixes "
                   "('left_*=l_*', '*=arm/*'); repeatable")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="list every difference (by default a difference that concerns more "
                   "than 3 links is one line with their number and the largest size)")
    p.add_argument("--json", action="store_true",
                   help="machine-readable result: same, matched_links, matched_by, focus, "
                   "counts, differences (kind, what, name, field, a, b, size, unit, note)")
    p.set_defaults(func=run)


def run(args):
    from ..diff import diff
    from .cmd_verify import parse_map
    from .main import UsageError
    focus = [k for k in _FOCUS if getattr(args, k)] or None
    try:
        res = diff(load(args.a), load(args.b), args.tol, focus=focus, link_map=parse_map(args.map))
    except ValueError as e:
        if type(e) is ValueError:
            raise UsageError(f"{args.a} and {args.b}: {e}") from None
        raise
    if args.json:
        print(dump_json(res.to_dict()))
    else:
        if res.matched_links:
            how = "" if res.matched_by == "names" else f" (by {res.matched_by})"
            print(f"matched links: {res.matched_links}{how}")
        print("\n".join(res.lines(args.verbose)))
    return 0 if res.same else 1
