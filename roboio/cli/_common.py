"""Helpers shared by CLI commands.

Light at import (no numpy, no model, no format code): the command modules import from here
at module level, and registering commands must stay cheap (see :func:`.main.build_parser`).
``load``/``save`` are :func:`roboio.api.load`/``save`` imported on first use, with a progress
line on the terminal while a slow file is read or written.
"""
from __future__ import annotations

import math

from . import _progress
from ._words import cli_words, did_you_mean, name_list  # noqa: F401  (the commands take them from here)
from .main import UsageError


def load(path, *args, **kwargs):
    """:func:`roboio.api.load`, announcing itself on stderr when it takes over a second."""
    from ..api import load as _load
    with _progress.file_activity("reading", path):
        return _load(path, *args, **kwargs)


def save(obj, path, *args, **kwargs):
    """:func:`roboio.api.save`, announcing itself on stderr when it takes over a second."""
    from ..api import save as _save
    with _progress.activity(f"writing {path}"):
        return _save(obj, path, *args, **kwargs)


def to_jsonable(x):
    """numpy arrays and scalars to lists/floats; non-finite floats as "inf"/"-inf"/"nan"
    strings so the output stays strict JSON."""
    import numpy as np
    if isinstance(x, dict):
        return {str(k): to_jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set)):
        return [to_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return to_jsonable(x.tolist())
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if math.isfinite(x):
            return x
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def dump_json(obj) -> str:
    import json
    return json.dumps(to_jsonable(obj), indent=1)


def pick_robot(obj, name=None):
    """The robot to work on: the object itself, or the named / only robot of a world."""
    from ..model import Robot, World
    if isinstance(obj, Robot):
        if name is not None and name not in (obj.name, "0"):
            raise UsageError(f"--robot {name}: the file holds one robot, {obj.name!r} "
                             "(--robot chooses among the robots of a world)")
        return obj
    if isinstance(obj, World):
        if name is not None:
            try:
                return obj.robot(int(name) if name.isdigit() else name)
            except (KeyError, IndexError):
                names = [r.name for r in obj.robots]
                raise UsageError(f"--robot: no robot {name!r} in the world{did_you_mean(name, names)} "
                                 f"(robots: {name_list(names)})") from None
        if not obj.robots:
            raise UsageError("the world has no robot")
        return obj.robots[0]
    raise UsageError(f"the file holds a {type(obj).__name__}, not a robot")


def format_option(name, option: str, verb: str = "read"):
    """``name`` (the value of ``--from``/``--format``/``--to``) when roboio can ``verb``
    ("read" or "write") that format, else a :class:`UsageError` naming the option; None
    passes. The registry is imported only when the option is given."""
    if name is None:
        return None
    from ..formats.registry import formats
    able = sorted(f.name for f in formats() if (f.can_read if verb == "read" else f.can_write))
    if name in able:
        return name
    known = any(f.name == name for f in formats())
    raise UsageError((f"{option}: roboio cannot {verb} {name!r} files" if known else
                      f"{option}: unknown format {name!r}{did_you_mean(name, able)}") +
                     f"; formats it can {verb}: {', '.join(able)} (`roboio formats` describes them)")


def link_indices(robot, names, where: str, option: str = "--link") -> list:
    """Link indices of ``names`` (link names, or indices written as numbers) of ``robot``;
    a :class:`UsageError` for one it does not have, naming ``where`` (the file), the closest
    names and the links there are."""
    out = []
    for name in names:
        key = int(name) if str(name).lstrip("-").isdigit() else name
        try:
            out.append(robot.link_index(key))
        except (KeyError, IndexError):
            raise UsageError(f"{option} {name}: {where} has no link {name!r}"
                             f"{did_you_mean(name, robot.link_names)} (links: "
                             f"{name_list(robot.link_names)})") from None
    return out


def parse_numbers(text: str, what: str):
    import numpy as np
    try:
        return np.array([float(x) for x in text.replace(",", " ").split()], dtype=float)
    except ValueError:
        raise UsageError(f"{what} must be numbers separated by spaces") from None


def add_force_option(parser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="overwrite an output that is one of the input files (refused otherwise)")
