"""roboio convert: read one file, write another (or a directory of files)."""
import os

from ._common import cli_words, dump_json, format_option, load, save
from ._configarg import HELP as CONFIG_HELP
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "convert", help="convert a file (or a directory of files) to another format",
        description="Read IN and write OUT in the format --to names, or else the one OUT's "
        "extension names, then print the conversion report: every file written and everything "
        "OUT's format cannot hold. An extension several formats write (.xml) needs --to unless "
        "only one of them can hold the input or the input already is one of them. With a "
        "directory IN, every file under it that --to's format can hold is converted into "
        "the same place under OUT, each output keeping its input's whole name plus the target's "
        "extension (SR1.body -> SR1.body.urdf; SR1.urdf stays SR1.urdf). With a directory OUT "
        "(or one ending with /), the file is written into it, named the same way.",
        examples=["roboio convert roboio/data/samples/planar_arm.rob /tmp/planar_arm.urdf",
                  "roboio convert roboio/data/samples/openrave/pick_table.env.xml /tmp/arm.urdf "
                  "--robot arm   # one robot of a world",
                  "roboio convert barrettwam.robot.xml wam.rob --data-path $OPENRAVE_DATA",
                  "roboio convert roboio/data/samples /tmp/samples_urdf --to urdf   # a directory",
                  "roboio convert roboio/data/samples/planar_arm.rob /tmp/ --to urdf   "
                  "# into /tmp/ as planar_arm.rob.urdf"])
    p.add_argument("input", help="file to read (or a directory: see above)")
    p.add_argument("output", help="file to write (a directory when IN is one, or to write into)")
    p.add_argument("--to", dest="to", metavar="FORMAT",
                   help="output format (default: by OUT's extension; `roboio formats` lists them)")
    p.add_argument("--from", dest="frm", metavar="FORMAT",
                   help="input format (default: by IN's extension and content)")
    p.add_argument("--strict", action="store_true", help="treat input warnings as errors")
    p.add_argument("--json", action="store_true",
                   help="print the report as JSON: path, format, lost, warnings, files, fk_error, "
                        "counts, items (every loss and remark with its severity, kind, hint)")
    p.add_argument("--verbose", action="store_true",
                   help="list every name a loss concerns and every remark (by default a group "
                        "shows its number and first few names); with a directory, every "
                        "skipped file")
    p.add_argument("--force", action="store_true", help="allow OUT to be an input file (the "
                   "input itself, or a file it was read from); refused otherwise")
    p.add_argument("--meshes", choices=("keep", "copy", "convert"),
                   help="mesh files of targets whose programs read only some mesh formats "
                   "(URDF, MJCF, Klamp't .rob and worlds): keep readable sources where they are, "
                   "copy them beside the output, or convert every mesh; the others are converted "
                   "in every mode (default: the format's own, keep for URDF and Klamp't, copy "
                   "for MJCF)")
    p.add_argument("--package", metavar="NAME", help="URDF output as a file of ROS package NAME: "
                   "mesh references as package://NAME/... URIs (meshes outside the package are "
                   "copied in) and a minimal package.xml at the package root (the nearest "
                   "directory named NAME, else OUT's directory)")
    p.add_argument("--actuators", choices=("position", "motor", "none"),
                   help="MJCF output: one actuator per driver, a position servo with the "
                   "driver's gains and limits, a motor (force), or none (default: drivers read "
                   "from MJCF and unchanged keep their actuators as read, others get a position servo)")
    p.add_argument("--body", metavar="MODEL", help="body model for motion conversions (Choreonoid "
                   ".seq <-> Klamp't .path/multipath): maps joint ids to the model's links")
    p.add_argument("--config", metavar="Q", help="pose of the (first) robot for a posed mesh "
                   "scene (.glb/.gltf/.obj/.stl/.ply); " + CONFIG_HELP)
    p.add_argument("--robot", metavar="NAME", help="write only this robot of a world (name or "
                   "index; default: a format that holds one robot takes the first); the "
                   "world's other robots, objects and terrains are reported lost")
    p.set_defaults(func=run)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.exists(b) and os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def run(args):
    from ..errors import RoboioError, severity_of
    from ..formats.registry import UnknownFormat
    from .main import UsageError
    format_option(args.frm, "--from", "read")
    format_option(args.to, "--to", "write")
    if os.path.isdir(args.input):
        from ._convertdir import convert_directory
        return convert_directory(args)
    if os.path.isdir(args.output) or args.output.endswith(("/", os.sep)):
        from ._convertdir import into_directory
        args.output = into_directory(args)      # FILE DIR/: into DIR, named as DIR conversions are
    from ..formats.fileio import write_target
    write_target(args.output)       # a device, FIFO or directory: refused before anything else
    if not args.force and _same_file(args.input, args.output):
        raise UsageError(f"{args.output} is the input file; refusing to overwrite it (--force to do so)")
    obj = load(args.input, args.frm, strict=args.strict)
    left_out = []
    if getattr(args, "robot", None) is not None:
        obj, left_out = _one_robot(obj, args.robot, args.input)
    if getattr(args, "config", None):
        _pose(obj, args.config, args.input)
    try:
        if getattr(args, "body", None):
            from ..convert import attach_body
            body = load(args.body, strict=args.strict)
            attach_body(obj, body)
            obj.input_files = list(getattr(obj, "input_files", [])) + list(body.input_files)
        from ._outformat import output_format
        to = output_format(obj, args.output, args.to, _input_format(args))
        report = save(obj, args.output, to, meshes=args.meshes, package=args.package,
                      actuators=args.actuators, overwrite_input=args.force)
        for item in left_out:
            report.lose(item, kind="not written")
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
        report.warn(f"input: {w}", severity=severity_of(w), kind=getattr(w, "kind", None),
                    hint=getattr(w, "hint", None))
    print(dump_json(report.to_dict()) if args.json else cli_words(report.render(args.verbose)))
    return 0


def _input_format(args):
    from ..formats.registry import find_reader
    try:
        return find_reader(args.input, args.frm).name
    except (ValueError, OSError):
        return None


def _one_robot(obj, name, path):
    """``--robot NAME``: the robot of a world to write alone, and what that leaves out."""
    from ..convert import left_out
    from ..model import World
    from ._common import pick_robot
    robot = pick_robot(obj, name, path)
    if not isinstance(obj, World):
        return robot, []
    return robot, left_out(obj, robot, f"--robot {name} writes one robot of the world")


def _pose(obj, text, path):
    """Set the first robot's ``config`` (what a posed mesh scene shows) from ``--config``."""
    from ..model import Robot, World
    from ._configarg import parse_config
    from .main import UsageError
    robot = obj if isinstance(obj, Robot) else (obj.robots[0] if isinstance(obj, World) and obj.robots else None)
    if robot is None:
        raise UsageError(f"--config needs a robot, and {path} has none")
    robot.config = parse_config(robot, text)
