"""Import every ecosystem package so that each registers its formats.

An ecosystem package declares its formats in its ``__init__.py`` (cheap: names, extensions,
sniffers and ``"module:function"`` entry points; the format code is imported on first use)
and sets ``DECLARES_FORMATS = True``. Packages not yet converted to that template register
from their modules, which are then imported here (modules starting with ``_`` are helpers).
"""
import importlib
import pkgutil

_pkg = importlib.import_module(__package__)

for _eco in sorted(m.name for m in pkgutil.iter_modules(_pkg.__path__) if m.ispkg):
    _sub = importlib.import_module(f"{_pkg.__name__}.{_eco}")
    if getattr(_sub, "DECLARES_FORMATS", False):
        continue
    for _m in sorted(m.name for m in pkgutil.iter_modules(_sub.__path__)):
        if not _m.startswith("_"):
            importlib.import_module(f"{_sub.__name__}.{_m}")
