"""roboio convert: read one file, write another."""
import os

from ..api import load, save
from ..errors import RoboioError
from ._common import check_format, dump_json


def register(sub):
    p = sub.add_parser("convert", help="convert a file to another format")
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--to", dest="to", metavar="FORMAT", help="output format name (default: by extension)")
    p.add_argument("--from", dest="frm", metavar="FORMAT", help="input format name")
    p.add_argument("--strict", action="store_true", help="treat input warnings as errors")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--force", action="store_true", help="overwrite an output that is one of the input files "
                   "(refused otherwise)")
    p.add_argument("--meshes", choices=("keep", "copy", "convert"),
                   help="mesh files of targets that need converted meshes (MJCF): keep readable "
                   "sources where they are, copy them beside the output, or convert every mesh "
                   "(default: the format's own, copy for MJCF)")
    p.add_argument("--body", metavar="MODEL", help="body model for motion conversions (Choreonoid "
                   ".seq <-> Klamp't .path/multipath): maps joint ids to the model's links")
    p.add_argument("--config", help="configuration of the (first) robot for a posed mesh scene "
                   "(.glb/.gltf/.obj/.stl/.ply): link vector, driver vector, or name=value pairs")
    p.set_defaults(func=run)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.exists(b) and os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def run(args):
    from ..formats.registry import UnknownFormat
    from .main import UsageError
    check_format(args.frm, "--from")
    check_format(args.to, "--to", write=True)
    if not args.force and _same_file(args.input, args.output):
        raise UsageError(f"{args.output} is the input file; refusing to overwrite it (--force to do so)")
    obj = load(args.input, args.frm, strict=args.strict)
    if getattr(args, "config", None):
        _pose(obj, args.config)
    try:
        if getattr(args, "body", None):
            from ..convert import attach_body
            body = load(args.body, strict=args.strict)
            attach_body(obj, body)
            obj.input_files = list(getattr(obj, "input_files", [])) + list(body.input_files)
        report = save(obj, args.output, args.to, meshes=args.meshes, overwrite_input=args.force)
    except UnknownFormat as e:
        raise UsageError(str(e)) from None
    except RoboioError:
        raise
    except ValueError as e:
        if "pass --" in str(e):          # the conversion needs an option (e.g. --body MODEL)
            raise UsageError(str(e)) from None
        # the target cannot hold what the input is (a trajectory into URDF, ...): one line, exit 1
        raise RoboioError(f"cannot convert {args.input} to {args.output}: {e}") from None
    for w in getattr(obj, "warnings", []):
        report.warn(f"input: {w}")
    print(dump_json(report.to_dict()) if args.json else str(report))
    return 0


def _pose(obj, text):
    """Set the first robot's ``config`` (what a posed mesh scene shows) from ``--config``."""
    from ..model import Robot, World
    from ._configarg import parse_config
    from .main import UsageError
    robot = obj if isinstance(obj, Robot) else (obj.robots[0] if isinstance(obj, World) and obj.robots else None)
    if robot is None:
        raise UsageError("--config needs a robot, and the input has none")
    robot.config = parse_config(robot, text)
