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
import sys
import warnings

from ..errors import RoboioError, RoboioWarning
from ..limits import using as using_limits
from ._options import OneLineParser, add_shared_options, limits_of


def build_parser(only: str = None) -> argparse.ArgumentParser:
    """The whole parser, or with ``only`` the parser of that one command (what ``main``
    builds to run it: the other commands are neither imported nor registered). Registering a
    command imports only its ``cmd_*`` module, which imports nothing heavy at module level (no
    numpy, no model, no format code): ``roboio --help`` and shell completion stay fast; a
    command imports what it needs when it runs."""
    from ._help import HelpFormatter, examples_epilog
    parser = OneLineParser(
        prog="roboio", description="Read, write, convert and check robot, world and motion files "
        f"of {_ecosystems()} through one kinematic model (`roboio formats` lists every format).",
        epilog=examples_epilog(EXAMPLES) + "\n\n`roboio COMMAND --help` shows a command's "
        "options and examples; docs/cli.md has them all.", formatter_class=HelpFormatter)
    parser.add_argument("--debug", action="store_true",
                        help="show tracebacks (of input errors and of internal errors)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress bars (they appear only on a terminal, for work "
                             "taking over a second)")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for m in _command_modules() if only is None else [f"cmd_{only}"]:
        importlib.import_module(f"{__package__}.{m}").register(sub)
    add_shared_options(sub)
    for p in _leaf_parsers(sub):
        p.add_argument("--data-path", action="append", default=[], metavar="DIR",
                       help="extra root for files the input refers to (OpenRAVE data "
                            "directory, $GRASPIT, ...); repeatable, tried in order after the "
                            "referring file's directory")
        # also accepted after the command; SUPPRESS keeps the global flag's value otherwise
        p.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                       help="no progress bars")
        p.add_argument("--package-path", action="append", default=[], metavar="DIR",
                       help="a directory holding ROS packages (or a package itself) for "
                       "package://NAME references; repeatable; tried before ROS_PACKAGE_PATH, "
                       "AMENT_PREFIX_PATH and the referring file's ancestors")
        p.add_argument("--flavor", choices=("klampt",), default=None,
                       help="read files as Klamp't does where it differs from the format's "
                       "specification (URDF: unnormalised axes, mimics of later joints ignored)")
    return parser


# examples on the files the package ships (paths from a clone's root; an installed roboio has
# them at roboio.sample_path()); tests/unit/test_help_examples.py runs them
EXAMPLES = (
    "roboio info roboio/data/samples/mobile_gripper.urdf --tree   # joint types and limits",
    "roboio fk roboio/data/samples/planar_arm.rob --config \"shoulder=0.5 elbow=-1\" --link wrist",
    "roboio convert roboio/data/samples/planar_arm.rob /tmp/planar_arm.urdf",
    "roboio verify roboio/data/samples/planar_arm.rob /tmp/planar_arm.urdf   # same link poses?",
)


def _command_modules() -> list:
    here = os.path.dirname(os.path.abspath(__file__))
    return sorted(f[:-3] for f in os.listdir(here) if f.startswith("cmd_") and f.endswith(".py"))


def _command_of(argv) -> str:
    """The command ``argv`` runs when it names one (after the global flags, which take no
    value), else None: a help request, a mistyped command, no command."""
    for a in argv:
        if a in ("-h", "--help", "--version"):
            return None
        if not a.startswith("-"):
            return a if f"cmd_{a}" in _command_modules() else None
    return None


def _leaf_parsers(sub):
    """Every parser that runs something: the commands, and the actions of commands that
    have actions (``roboio motion fk``)."""
    seen = []
    for p in dict.fromkeys(sub.choices.values()):
        inner = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if inner:
            for a in inner:
                seen.extend(_leaf_parsers(a))
        else:
            seen.append(p)
    return seen


# How the help names the ecosystems that have formats, in the order it names them. A fixed
# text, so that ``roboio --help`` imports no format registry; tests/unit/test_cli_acceptance.py
# checks that it names exactly the registry's ecosystems.
ECOSYSTEM_NAMES = {"klampt": "Klamp't", "openrave": "OpenRAVE", "graspit": "GraspIt!",
                   "choreonoid": "Choreonoid", "urdf": "URDF", "mjcf": "MJCF",
                   "meshes": "common mesh formats"}


def _ecosystems() -> str:
    names = list(ECOSYSTEM_NAMES.values())
    return ", ".join(names[:-1]) + " and " + names[-1]


def _version():
    from .. import __version__
    return f"roboio {__version__}"


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(_command_of(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    from . import _progress
    _progress.set_quiet(getattr(args, "quiet", False))
    if not args.debug:
        # warnings are reported by the commands themselves (from obj.warnings)
        warnings.simplefilter("ignore", RoboioWarning)
        from ..kinematics.backends import KernelUnavailableWarning
        warnings.simplefilter("default", KernelUnavailableWarning)    # slow kinematics: say so
    from ..api import default_check_meshes, default_flavor, default_package_dirs, default_search_paths
    from ..formats.registry import UnknownFormat
    try:
        with using_limits(limits_of(args)), \
                default_search_paths(getattr(args, "data_path", None)), \
                default_package_dirs(getattr(args, "package_path", None)), \
                default_flavor(getattr(args, "flavor", None)), \
                default_check_meshes(True):
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
        from ._words import cli_words
        print(f"roboio: error: {cli_words(_one_line(e, args))}", file=sys.stderr)
        return EXIT_INPUT
    except (UsageError, UnknownFormat) as e:
        from ._words import cli_words
        print(f"roboio {args.command}: error: {cli_words(str(e))}", file=sys.stderr)
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


def _one_line(e: BaseException, args=None) -> str:
    from ..errors import UnknownFileType
    if isinstance(e, UnknownFileType):
        return f"{e.path}: {e.advice(_format_option(args))}"
    if isinstance(e, OSError) and e.filename:
        where = f"{e.filename}" + (f" -> {e.filename2}" if e.filename2 else "")
        what = "file not found" if isinstance(e, FileNotFoundError) else (e.strerror or str(e))
        return f"{where}: {what}"
    if isinstance(e, MemoryError):
        return "out of memory (lower the limits with --limit NAME=VALUE; see docs/limits.md)"
    return " ".join(str(e).split("\n"))


def _format_option(args):
    """How the running command names an input's format (``--format FORMAT``, ``--from
    FORMAT``), or None when it has no such option."""
    for dest, option in (("format", "--format"), ("frm", "--from")):
        if hasattr(args, dest):
            return f"{option} FORMAT"
    return None


class UsageError(Exception):
    """Bad command-line arguments discovered after parsing (exit status 2)."""


if __name__ == "__main__":
    sys.exit(main())
