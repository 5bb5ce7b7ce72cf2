"""Reading and writing through roboio's registry, the Klamp't way: failures give a
``False``/``-1``/``None`` result with the reason issued as a :class:`RoboioWarning`."""
from __future__ import annotations

import os
import warnings

from ...errors import RoboioError, RoboioWarning

__all__ = ["load_file", "save_file"]


def load_file(fn, kinds=None):
    """``roboio.load(fn)`` (choosing among the formats holding ``kinds`` when given), or
    None with a RoboioWarning when the file cannot be read."""
    from ...api import load
    from ...formats import registry
    fn = os.fspath(fn)
    try:
        if not os.path.isfile(fn):
            raise FileNotFoundError(f"{fn}: no such file")
        fmt = None if kinds is None else registry.find_reader(fn, None, kinds).name
        return load(fn, format=fmt, flavor="klampt")
    except (RoboioError, OSError) as e:
        warnings.warn(f"cannot load {fn!r}: {e}", RoboioWarning, stacklevel=3)
        return None


def save_file(obj, fn) -> bool:
    """``roboio.save(obj, fn)``; what the format cannot hold is issued as RoboioWarnings.
    False (with a warning) when it cannot be written."""
    from ...api import save
    try:
        report = save(obj, os.fspath(fn))
    except (RoboioError, ValueError, OSError) as e:
        warnings.warn(f"cannot save {fn!r}: {e}", RoboioWarning, stacklevel=3)
        return False
    for item in report.lost:
        warnings.warn(f"{fn}: not saved: {item}", RoboioWarning, stacklevel=3)
    return True
