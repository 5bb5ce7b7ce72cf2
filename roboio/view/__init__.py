"""Seeing models: a browser viewer (``roboio view``), still images (``roboio render``) and
joint plots (``roboio plot``).

Nothing here is imported by ``import roboio``. The viewer needs the optional extra
``pip install "roboio[view]"`` (viser, matplotlib); :func:`require` turns a missing one into
a :class:`MissingExtra` error whose message is the one-line install hint.
"""
from __future__ import annotations

import importlib

__all__ = ["MissingExtra", "require", "INSTALL_HINT"]

INSTALL_HINT = 'pip install "roboio[view]"'


class MissingExtra(ImportError):
    """An optional dependency of the viewer is not installed."""


def require(module: str, what: str):
    """Import ``module`` or raise :class:`MissingExtra` naming ``what`` needs it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MissingExtra(f"{what} needs the '{module.split('.')[0]}' package: {INSTALL_HINT}") from e
