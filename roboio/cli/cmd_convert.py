"""roboio convert: read one file, write another."""
from ..api import load, save
from ._common import add_force_option, check_format, dump_json


def register(sub):
    p = sub.add_parser("convert", help="convert a file to another format")
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--to", dest="to", metavar="FORMAT", help="output format name (default: by extension)")
    p.add_argument("--from", dest="frm", metavar="FORMAT", help="input format name")
    p.add_argument("--strict", action="store_true", help="treat input warnings as errors")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--body", metavar="MODEL", help="body model for motion conversions (Choreonoid "
                   ".seq <-> Klamp't .path/multipath): maps joint ids to the model's links")
    p.add_argument("--config", help="configuration of the (first) robot for a posed mesh scene "
                   "(.glb/.gltf/.obj/.stl/.ply): link vector, driver vector, or name=value pairs")
    add_force_option(p)
    p.set_defaults(func=run)


def run(args):
    check_format(args.frm, "--from")
    check_format(args.to, "--to", write=True)
    obj = load(args.input, args.frm, strict=args.strict)
    if getattr(args, "config", None):
        _pose(obj, args.config)
    try:
        if getattr(args, "body", None):
            from ..convert import attach_body
            body = load(args.body, strict=args.strict)
            attach_body(obj, body)
            obj.input_files = list(getattr(obj, "input_files", [])) + list(body.input_files)
        report = save(obj, args.output, args.to, overwrite_input=args.force)
    except ValueError as e:
        from .main import UsageError
        if type(e) is ValueError:
            raise UsageError(str(e)) from None
        raise
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
