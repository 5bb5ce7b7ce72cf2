"""Import every format module so that each registers itself.

Modules are found by walking the ecosystem packages under ``roboio.formats`` (modules whose
name starts with ``_`` are helpers and are skipped), so adding a format is adding a module.
"""
import importlib
import pkgutil

_pkg = importlib.import_module(__package__)

for _eco in sorted(m.name for m in pkgutil.iter_modules(_pkg.__path__) if m.ispkg):
    _sub = importlib.import_module(f"{_pkg.__name__}.{_eco}")
    for _m in sorted(m.name for m in pkgutil.iter_modules(_sub.__path__)):
        if not _m.startswith("_"):
            importlib.import_module(f"{_sub.__name__}.{_m}")
