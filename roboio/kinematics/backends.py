"""Which implementation evaluates kinematics: the compiled kernel or numpy.

Two backends compute the same results (to 1e-14) from the same compiled structure
(:class:`~roboio.kinematics.KinematicModel`):

``"compiled"``
    a small C extension (``roboio.kinematics._kernel``, built by ``pip install``); fast.
``"numpy"``
    pure numpy; the reference implementation, always available.

The backend is chosen once, on first use: ``ROBOIO_KINEMATICS=compiled|numpy|auto`` in the
environment, else ``auto`` (compiled when the extension imports, numpy otherwise; the
fallback is announced by one :class:`~roboio.RoboioWarning`). :func:`set_backend` changes it
at any time, :func:`use_backend` for a ``with`` block.
"""
from __future__ import annotations

import contextlib
import os
import warnings

from ..errors import RoboioWarning

ENV = "ROBOIO_KINEMATICS"


class KernelUnavailableWarning(RoboioWarning):
    """The compiled kernel could not be imported; kinematics run on numpy (said once)."""


NAMES = ("compiled", "numpy")

#: The backend in use (a module with ``NAME`` and ``evaluator(model)``); None until first use.
_active = None


def _load(name: str):
    if name == "numpy":
        from . import _numpy
        return _numpy
    from . import _compiled       # ImportError when the extension was not built
    return _compiled


def _choose():
    want = os.environ.get(ENV, "").strip().lower() or "auto"
    if want not in ("auto",) + NAMES:
        warnings.warn(f"{ENV}={want!r} is not one of auto, compiled, numpy; using auto",
                      RoboioWarning, stacklevel=4)
        want = "auto"
    if want == "numpy":
        return _load("numpy")
    try:
        return _load("compiled")
    except ImportError as e:
        how = f"{ENV}=compiled was asked for, but" if want == "compiled" else "roboio:"
        warnings.warn(f"{how} the compiled kinematics kernel is not available ({e}); using "
                      "the numpy backend (same results, slower). Reinstall roboio with a C "
                      "compiler present to build it.", KernelUnavailableWarning, stacklevel=4)
        return _load("numpy")


def active():
    """The backend in use, chosen now if this is the first use."""
    global _active
    if _active is None:
        _active = _choose()
    return _active


def get_backend() -> str:
    """Name of the backend in use: ``"compiled"`` or ``"numpy"``."""
    return active().NAME


def set_backend(name: str | None) -> str:
    """Use backend ``name`` (``"compiled"``, ``"numpy"``, or ``"auto"``/None to choose again
    as on first use); returns the previous backend's name. Asking for ``"compiled"`` when the
    extension is not built raises ImportError."""
    global _active
    previous = active().NAME
    if name is None or name == "auto":
        _active = None
        active()
    elif name in NAMES:
        _active = _load(name)
    else:
        raise ValueError(f"unknown kinematics backend {name!r}; expected one of "
                         f"{', '.join(NAMES)} or 'auto'")
    return previous


@contextlib.contextmanager
def use_backend(name: str):
    """``with use_backend("numpy"): ...`` evaluates with ``name`` inside the block."""
    previous = set_backend(name)
    try:
        yield
    finally:
        set_backend(previous)


def available_backends() -> list:
    """Names of the backends that can be used here."""
    out = []
    for name in NAMES:
        try:
            _load(name)
        except ImportError:
            continue
        out.append(name)
    return out


_UNBOUND = object()


class PerBackend:
    """Base of compiled structures that evaluate through the backend in use: the evaluator
    (``_make_evaluator(backend)``) is made once per backend, and left out of copies and
    pickles (it holds compiled objects; a copy makes its own when first used)."""

    _ev = None
    _ev_backend = _UNBOUND      # never the backend in use, even before one is chosen (None)

    def _make_evaluator(self, backend):
        raise NotImplementedError

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_ev", None)
        state.pop("_ev_backend", None)
        return state

    def evaluator(self):
        """This structure's evaluator for the backend in use (made once per backend)."""
        b = _active or active()
        if self._ev_backend is not b:
            self._ev = self._make_evaluator(b)
            self._ev_backend = b
        return self._ev
