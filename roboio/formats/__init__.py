"""File formats, one package per ecosystem, all registered in :mod:`.registry`.

The package is also callable: ``roboio.formats()`` lists every format (the public API names
a function ``formats``, and this keeps ``import roboio.formats.registry`` working next to it).
"""
import sys as _sys
import types as _types


class _FormatsPackage(_types.ModuleType):
    def __call__(self):
        """Every registered format (see :func:`roboio.formats.registry.formats`)."""
        from .registry import formats
        return formats()


_sys.modules[__name__].__class__ = _FormatsPackage
