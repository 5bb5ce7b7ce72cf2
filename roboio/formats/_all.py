"""Import every ecosystem package so that each declares its formats.

An ecosystem package declares its formats in its ``__init__.py`` (cheap: names, extensions,
sniffers from a light ``_sniff`` module, and ``"module:function"`` entry points; the format
code is imported on first use) and sets ``DECLARES_FORMATS = True``. Nothing else is
imported here: listing the formats imports no reader or writer.
"""
import importlib
import pkgutil

_pkg = importlib.import_module(__package__)

for _eco in sorted(m.name for m in pkgutil.iter_modules(_pkg.__path__) if m.ispkg):
    importlib.import_module(f"{_pkg.__name__}.{_eco}")
