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
from ..formats.registry import UnknownFormat
from ..limits import using as using_limits
from ._options import OneLineParser, add_shared_options, limits_of


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="roboio", description="Read, write, convert and check robot, world and motion files "
        "of Klamp't, OpenRAVE, GraspIt!, Choreonoid, URDF and MJCF.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from .. import cli as pkg
    for m in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__)):
        if m.startswith("cmd_"):
            importlib.import_module(f"{pkg.__name__}.{m}").register(sub)
    add_shared_options(sub)
    for p in sub.choices.values():
        p.add_argument("--data-path", action="append", default=[], metavar="DIR",
                       help="extra root for files the input refers to (OpenRAVE data "
                            "directory, $GRASPIT, ...); repeatable, tried in order after the "
                            "referring file's directory")
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
    from ..api import default_search_paths
    try:
        with using_limits(limits_of(args)), default_search_paths(getattr(args, "data_path", None)):
            return int(args.func(args) or 0)
    except KeyboardInterrupt:
        if args.debug:
            raise
        print("roboio: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except (RoboioError, OSError, MemoryError) as e:
        if args.debug:
            raise
        print(f"roboio: error: {_one_line(e)}", file=sys.stderr)
        return 1
    except (UsageError, UnknownFormat) as e:
        print(f"roboio {args.command}: error: {e}", file=sys.stderr)
        return 2


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
