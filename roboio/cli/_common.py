"""Helpers shared by CLI commands."""
from __future__ import annotations

import json
import math

import numpy as np

from ..model import Robot, World
from .main import UsageError


def to_jsonable(x):
    """numpy arrays and scalars to lists/floats; non-finite floats as "inf"/"-inf"/"nan"
    strings so the output stays strict JSON."""
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
    return json.dumps(to_jsonable(obj), indent=1)


def pick_robot(obj, name=None) -> Robot:
    """The robot to work on: the object itself, or the named / only robot of a world."""
    if isinstance(obj, Robot):
        return obj
    if isinstance(obj, World):
        if name is not None:
            try:
                return obj.robot(int(name) if name.isdigit() else name)
            except (KeyError, IndexError):
                raise UsageError(f"no robot {name!r} in the world") from None
        if not obj.robots:
            raise UsageError("the world has no robot")
        return obj.robots[0]
    raise UsageError(f"the file holds a {type(obj).__name__}, not a robot")


def parse_numbers(text: str, what: str) -> np.ndarray:
    try:
        return np.array([float(x) for x in text.replace(",", " ").split()], dtype=float)
    except ValueError:
        raise UsageError(f"{what} must be numbers separated by spaces") from None


def check_format(name, option: str, write: bool = False) -> None:
    """A usage error naming ``option`` (``--to``, ``--format``, ``--from``) when ``name`` is
    not a format roboio can read (or, with ``write``, write); the message lists the valid
    names. Checked before any file is read."""
    if name is None:
        return
    from ..formats import registry
    formats = registry.formats()
    valid = sorted(f.name for f in formats if (f.can_write if write else f.can_read))
    if name in valid:
        return
    why = "unknown format" if name not in {f.name for f in formats} else \
        f"format {'cannot be written' if write else 'cannot be read'}:"
    raise UsageError(f"{option}: {why} {name!r} (valid {'output' if write else 'input'} "
                     f"formats: {', '.join(valid)})")


def add_force_option(parser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="overwrite an output that is one of the input files (refused otherwise)")
