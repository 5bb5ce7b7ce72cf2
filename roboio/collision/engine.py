"""Which library does the narrow phase: coal (preferred) or python-fcl (the fallback where coal
has no wheel: Windows).

Both come with the optional extra ``pip install "roboio[collision]"`` (coal on Linux and
macOS, python-fcl on Windows). The engine is chosen once, on first use:
``ROBOIO_COLLISION_ENGINE=coal|fcl|auto`` in the environment, else ``auto`` (coal when it
imports, else python-fcl). :func:`set_engine` changes it; :func:`use_engine` for a ``with``
block. Without either library, every collision query raises :class:`CollisionEngineMissing`
(an ImportError) whose message is the install hint.

An engine is a module with ``NAME``, ``version()``, ``shape(part)``, ``new_pose()``,
``set_pose(pose, M)``, ``pose_of(M)``, ``collider(a, b)`` and ``distancer(a, b)`` (see
:mod:`roboio.collision._coal`).
"""
from __future__ import annotations

import contextlib
import importlib
import os

ENV = "ROBOIO_COLLISION_ENGINE"
INSTALL_HINT = 'pip install "roboio[collision]"'
NAMES = ("coal", "fcl")
_MODULES = {"coal": "._coal", "fcl": "._fcl"}
_LIBRARIES = {"coal": "coal", "fcl": "python-fcl"}

_active = None


class CollisionEngineMissing(ImportError):
    """No collision library is installed (or not the one asked for)."""


def _load(name: str):
    try:
        return importlib.import_module(_MODULES[name], __package__)
    except ImportError as e:
        raise CollisionEngineMissing(
            f"collision queries need the '{_LIBRARIES[name]}' package ({e}): {INSTALL_HINT}") from e


def _choose():
    want = os.environ.get(ENV, "").strip().lower() or "auto"
    if want in NAMES:
        return _load(want)
    if want != "auto":
        raise CollisionEngineMissing(f"{ENV}={want!r} is not one of auto, coal, fcl")
    errors = []
    for name in NAMES:
        try:
            return _load(name)
        except CollisionEngineMissing as e:
            errors.append(f"{_LIBRARIES[name]}: {e.__cause__ or e}")
    raise CollisionEngineMissing("collision queries need coal (or python-fcl where coal has no "
                                 f"wheel), and neither imports ({'; '.join(errors)}): {INSTALL_HINT}")


def get_engine():
    """The engine in use (chosen on first call)."""
    global _active
    if _active is None:
        _active = _choose()
    return _active


def available_engines() -> list:
    """Names of the engines that import here."""
    out = []
    for name in NAMES:
        try:
            _load(name)
            out.append(name)
        except CollisionEngineMissing:
            pass
    return out


def set_engine(name: str) -> None:
    """Use engine ``name`` (``"coal"`` or ``"fcl"``) from now on. Models compiled before keep
    the engine objects they made; queries on them use the new engine's objects (made anew)."""
    global _active
    if name not in NAMES:
        raise ValueError(f"unknown collision engine {name!r}; expected one of {', '.join(NAMES)}")
    _active = _load(name)


@contextlib.contextmanager
def use_engine(name: str):
    """``with use_engine("fcl"): ...`` runs the block on that engine."""
    global _active
    before = _active
    set_engine(name)
    try:
        yield get_engine()
    finally:
        _active = before
