"""The ``roboio`` command line.

Each sub-command lives in its own module in :mod:`roboio.cli` named ``cmd_<name>.py`` and
defines ``register(subparsers)`` (adding its parser, with ``func=run``) and ``run(args)``
returning the exit status. Input errors print one line (``file:line: what``) on stderr and
exit 1; usage errors exit 2; ``--debug`` shows tracebacks.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import warnings

from ..errors import RoboioError, RoboioWarning


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="roboio", description="Read, write, convert and check robot, world and motion files "
        "of Klamp't, OpenRAVE, GraspIt!, Choreonoid, URDF and MJCF.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from .. import cli as pkg
    for m in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__)):
        if m.startswith("cmd_"):
            importlib.import_module(f"{pkg.__name__}.{m}").register(sub)
    for p in sub.choices.values():
        p.add_argument("--data-path", action="append", default=[], metavar="DIR",
                       help="extra root for files the input refers to (OpenRAVE data "
                            "directory, $GRASPIT, ...); repeatable, tried in order after the "
                            "referring file's directory")
        p.add_argument("--package-path", action="append", default=[], metavar="DIR",
                       help="a directory holding ROS packages (or a package itself) for "
                       "package://NAME references; repeatable; tried before ROS_PACKAGE_PATH, "
                       "AMENT_PREFIX_PATH and the referring file's ancestors")
        p.add_argument("--flavor", choices=("klampt",), default=None,
                       help="read files as Klamp't does where it differs from the format's "
                       "specification (URDF: unnormalised axes, mimics of later joints ignored)")
    return parser


def _version():
    from .. import __version__
    return f"roboio {__version__}"


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    if not args.debug:
        # warnings are reported by the commands themselves (from obj.warnings)
        warnings.simplefilter("ignore", RoboioWarning)
        from ..kinematics.backends import KernelUnavailableWarning
        warnings.simplefilter("default", KernelUnavailableWarning)    # slow kinematics: say so
    from ..api import default_flavor, default_package_dirs, default_search_paths
    try:
        with default_search_paths(getattr(args, "data_path", None)), \
                default_package_dirs(getattr(args, "package_path", None)), \
                default_flavor(getattr(args, "flavor", None)):
            return int(args.func(args) or 0)
    except (RoboioError, FileNotFoundError, IsADirectoryError, PermissionError) as e:
        if args.debug:
            raise
        msg = str(e)
        if isinstance(e, FileNotFoundError) and e.filename:
            msg = f"{e.filename}: file not found"
        print(f"roboio: error: {msg}", file=sys.stderr)
        return 1
    except UsageError as e:
        print(f"roboio {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


class UsageError(Exception):
    """Bad command-line arguments discovered after parsing (exit status 2)."""


if __name__ == "__main__":
    sys.exit(main())
