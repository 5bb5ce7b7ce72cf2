"""roboio info: what a file holds; for robots the links, the joints (the joint vector of
``--config``) and, with ``--tree``, the kinematic tree as ``check_urdf`` draws it."""
from ._common import dump_json, format_option, load
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "info", help="show what a file holds (robots: links, joints, limits; --tree)",
        description="Load a file and describe it: kind, format, names, counts, masses, "
        "geometry, referenced files and warnings. For a robot: its links, and its joints in "
        "the order --config takes joint values, with limits in degrees and radians; --tree "
        "draws the kinematic tree with the joint types URDF users know (fixed, revolute, "
        "continuous, prismatic, floating, mimic with its leader and ratio).",
        examples=["roboio info roboio/data/samples/mobile_gripper.urdf",
                  "roboio info roboio/data/samples/mobile_gripper.urdf --tree",
                  "roboio info roboio/data/samples/graspit/TwoFinger/TwoFinger.xml --json "
                  "| jq '.joints[].name'",
                  "roboio info MY_ROBOT --format klampt-rob   # a file without its extension"])
    p.add_argument("path", help="file to describe (any format roboio reads)")
    p.add_argument("--tree", action="store_true",
                   help="robots: the kinematic tree (links joined by their joints) instead of "
                        "the link table")
    p.add_argument("--format", metavar="FORMAT",
                   help="read as this format (default: by extension and content; see "
                        "`roboio formats`)")
    p.add_argument("--json", action="store_true",
                   help="machine-readable output (schema in docs/cli.md)")
    p.add_argument("--strict", action="store_true",
                   help="treat warnings about the input as errors")
    p.set_defaults(func=run)


def run(args):
    from ..describe import summary
    format_option(args.format, "--format", "read")
    obj = load(args.path, args.format, strict=args.strict)
    s = summary(obj)
    fmt = _format_name(args.path, args.format)
    if fmt:
        s = {"format": fmt, **s}
    if args.json:
        print(dump_json(s))
        return 0
    from . import _infotext
    print("\n".join(_infotext.render(args.path, s, tree=args.tree)))
    return 0


def _format_name(path, fmt):
    from ..formats.registry import find_reader
    try:
        return find_reader(path, fmt).name
    except (ValueError, OSError):
        return None
