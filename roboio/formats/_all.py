"""Import every ecosystem package so that each declares its formats.

An ecosystem package declares its formats in its ``__init__.py`` (cheap: names, extensions,
sniffers from a light ``_sniff`` module, and ``"module:function"`` entry points; the format
code is imported on first use) and sets ``DECLARES_FORMATS = True``. Nothing else is
imported here: listing the formats imports no reader or writer.
"""
import importlib
import os

_pkg = importlib.import_module(__package__)

# the sub-packages of roboio.formats (os.scandir: pkgutil costs a cold process milliseconds)
_ECOSYSTEMS = sorted({e.name for d in _pkg.__path__ for e in os.scandir(d)
                      if e.is_dir() and e.name.isidentifier()
                      and os.path.isfile(os.path.join(e.path, "__init__.py"))})
for _eco in _ECOSYSTEMS:
    importlib.import_module(f"{_pkg.__name__}.{_eco}")
