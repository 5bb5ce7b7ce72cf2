"""The root of a roboio clone, not the roboio package (that is ``roboio/`` below).

A clone named ``roboio`` whose parent directory is on ``sys.path`` (a script run from that
parent, or Python started there) would be imported as an empty namespace package in place of
the installed one (``module 'roboio' has no attribute 'load'``). This file makes that import
say so, once, and load the package inside the clone instead.
"""
import os as _os
import warnings as _warnings

_here = _os.path.dirname(_os.path.abspath(__file__))
_package = _os.path.join(_here, "roboio")
_init = _os.path.join(_package, "__init__.py")
if __name__ == "roboio" and _os.path.isfile(_init):
    _warnings.warn(
        f"'import roboio' found the repository folder {_here} (a clone named roboio in the "
        f"current directory or another folder on sys.path) before the installed package; using "
        f"the package inside it, {_package}. Run Python from another directory, or rename the "
        "clone, to import the installed roboio.", UserWarning, stacklevel=2)
    __path__ = [_package]
    __file__ = _init
    with open(_init, encoding="utf-8") as _f:
        exec(compile(_f.read(), _init, "exec"))
