"""The ``roboio`` command line.

Each sub-command lives in its own module in :mod:`roboio.cli` named ``cmd_<name>.py`` and
defines ``register(subparsers)`` (adding its parser, with ``func=run``) and ``run(args)``
returning the exit status.

Exit status: 0 success; 1 a problem of the input (one line ``file:line: what`` on stderr) or
a check that failed (``verify``, ``validate``); 2 a usage error; 3 an internal error of
roboio (a bug: the message asks to report it; ``--debug`` shows the traceback); 130 after
Ctrl-C.
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import warnings

from ..errors import RoboioError, RoboioWarning
from ..formats.registry import UnknownFormat
from ..limits import using as using_limits
from ._options import OneLineParser, add_shared_options, limits_of


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="roboio", description="Read, write, convert and check robot, world and motion files "
        f"of {_ecosystems()} through one kinematic model (`roboio formats` lists every format).")
    parser.add_argument("--debug", action="store_true",
                        help="show tracebacks (of input errors and of internal errors)")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    here = os.path.dirname(os.path.abspath(__file__))
    for m in sorted(m.name for m in pkgutil.iter_modules([here])):
        if m.startswith("cmd_"):
            importlib.import_module(f"{__package__}.{m}").register(sub)
    add_shared_options(sub)
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


# How the help names the ecosystems that have formats (the registry decides which do).
ECOSYSTEM_NAMES = {"klampt": "Klamp't", "openrave": "OpenRAVE", "graspit": "GraspIt!",
                   "choreonoid": "Choreonoid", "urdf": "URDF", "mjcf": "MJCF",
                   "meshes": "common mesh formats"}


def _ecosystems() -> str:
    from ..formats.registry import formats
    found = []
    for f in formats():
        name = ECOSYSTEM_NAMES.get(f.ecosystem, f.ecosystem)
        if name not in found:
            found.append(name)
    order = list(ECOSYSTEM_NAMES.values())
    found.sort(key=lambda n: order.index(n) if n in order else len(order))
    return ", ".join(found[:-1]) + " and " + found[-1] if len(found) > 1 else "".join(found)


def _version():
    from .. import __version__
    return f"roboio {__version__}"


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    if not args.debug:
        # warnings are reported by the commands themselves (from obj.warnings)
        warnings.simplefilter("ignore", RoboioWarning)
    from ..api import default_flavor, default_package_dirs, default_search_paths
    try:
        with using_limits(limits_of(args)), \
                default_search_paths(getattr(args, "data_path", None)), \
                default_package_dirs(getattr(args, "package_path", None)), \
                default_flavor(getattr(args, "flavor", None)):
            return int(args.func(args) or 0)
    except KeyboardInterrupt:
        if args.debug:
            raise
        print("roboio: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0
    except (RoboioError, OSError, MemoryError) as e:
        if args.debug:
            raise
        print(f"roboio: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_INPUT
    except (UsageError, UnknownFormat) as e:
        print(f"roboio {args.command}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as e:      # a bug in roboio, not a problem of the user's input
        if args.debug:
            raise
        print(f"roboio: internal error in roboio (please report it, with the command line and "
              f"the input files; --debug shows the traceback): {type(e).__name__}: {e}",
              file=sys.stderr)
        return EXIT_INTERNAL


EXIT_INPUT = 1        # a problem of the input, or a check that failed
EXIT_USAGE = 2        # bad command-line arguments
EXIT_INTERNAL = 3     # a bug in roboio
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)


def _one_line(e: BaseException) -> str:
    if isinstance(e, OSError) and e.filename:
        where = f"{e.filename}" + (f" -> {e.filename2}" if e.filename2 else "")
        what = "file not found" if isinstance(e, FileNotFoundError) else (e.strerror or str(e))
        return f"{where}: {what}"
    if isinstance(e, MemoryError):
        return "out of memory (lower the limits with --limit NAME=VALUE; see docs/limits.md)"
    return " ".join(str(e).split("\n"))


class UsageError(Exception):
    """Bad command-line arguments discovered after parsing (exit status 2)."""


if __name__ == "__main__":
    sys.exit(main())
