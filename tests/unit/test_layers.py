"""The import structure of roboio, checked by walking every module's imports (ast).

Layers, top to bottom (a module may import its own layer and the layers below it)::

    roboio, roboio.__main__
    roboio.cli, roboio.compat          command line; Klamp't-compatible API
    roboio.batch                       datasets on Dask (convert, validate, fk over trees)
    roboio.api                         load / save
    roboio.convert, .verify, .diff,    any -> any through the model; comparing models;
    roboio.describe, .validation       summaries; validate's checks
    roboio.formats                     the registry, shared file helpers, one package per ecosystem
    roboio.model                       World, Robot, Link, geometry, motions
    roboio.collision                   collision queries over an external engine (knows no
                                       model class, no file: geometry read by duck typing)
    roboio.kinematics                  compiled kinematic structure (knows no model, no file)
    roboio.transforms                  rotations and transforms
    roboio.errors, .limits, .context, .resolve, .report, .diagnostics   foundations every layer may use

Besides the order: no import cycle between modules (function-level imports count too);
formats never import kinematics; the registry, the loading helpers and the shared format
modules import no ecosystem package; a private module (a name starting with ``_``) is
imported only from inside the package that holds it, so one ecosystem never reaches into
another's private modules (inside an ecosystem, its packages share them); the command line, load/save and conversion know no ecosystem
package (they go through the registry).
"""
import ast
import importlib
import os

import pytest

from conftest import ROOT

PACKAGE = os.path.join(ROOT, "roboio")

LAYERS = [
    ("foundation", ("roboio.errors", "roboio.limits", "roboio.context", "roboio.resolve",
                    "roboio.report", "roboio.diagnostics")),
    ("transforms", ("roboio.transforms",)),
    ("kinematics", ("roboio.kinematics",)),
    ("collision", ("roboio.collision",)),
    ("model", ("roboio.model",)),
    ("formats", ("roboio.formats",)),
    ("convert", ("roboio.convert", "roboio.verify", "roboio.verify_dynamics", "roboio.link_match",
                 "roboio.reference_readers", "roboio.diff", "roboio.describe", "roboio.validation")),
    ("api", ("roboio.api",)),
    ("batch", ("roboio.batch",)),
    ("front", ("roboio.cli", "roboio.compat", "roboio.view")),
    ("top", ("roboio", "roboio.__main__")),
]


def _modules() -> dict:
    """module name -> (path, is_package) for every roboio module."""
    out = {}
    for dirpath, _, files in os.walk(PACKAGE):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
            pkg = rel.endswith(".__init__")
            out[rel[:-9] if pkg else rel] = (path, pkg)
    return out


MODULES = _modules()
# compiled extension modules (C sources built by setup.py): leaves that import no roboio module
EXTENSIONS = {os.path.relpath(os.path.join(d, f), ROOT)[:-2].replace(os.sep, ".")
              for d, _, files in os.walk(PACKAGE) for f in files if f.endswith(".c")}


def _target(name: str):
    """The roboio module an import names (``pkg.mod.attr`` -> ``pkg.mod``); None for a
    compiled extension module, which imports nothing of roboio."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> set:
    path, is_pkg = MODULES[module]
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    base = module if is_pkg else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                src = ".".join(parts + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            names = [f"{src}.{a.name}" for a in node.names]
            names = [n for n in names if n not in EXTENSIONS]
            names += [src] if names else []
        for n in names:
            if n.split(".")[0] != "roboio":
                continue
            t = _target(n)
            if t is not None and t != module:
                out.add(t)
    # "from pkg import mod" also names pkg; keep the most specific target only
    return {t for t in out if not any(u != t and u.startswith(t + ".") and t in MODULES
                                      and MODULES[t][1] for u in out)} | \
           {t for t in out if not MODULES[t][1]}


GRAPH = {m: _imports(m) for m in MODULES}


def _unresolved(module: str) -> list:
    """Relative or roboio imports of ``module`` (module level or inside functions) that name
    no existing roboio module, or a name the module does not have."""
    path, is_pkg = MODULES[module]
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    base = module if is_pkg else module.rpartition(".")[0]
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                src = ".".join(parts + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            if src.split(".")[0] != "roboio":
                continue
            if src not in MODULES:
                bad.append(f"{module}:{node.lineno}: from {'.' * node.level}{node.module or ''}")
                continue
            target = importlib.import_module(src)
            for a in node.names:
                if a.name != "*" and not hasattr(target, a.name) and f"{src}.{a.name}" not in MODULES \
                        and f"{src}.{a.name}" not in EXTENSIONS:
                    bad.append(f"{module}:{node.lineno}: {a.name} is not in {src}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "roboio" and a.name not in MODULES:
                    bad.append(f"{module}:{node.lineno}: import {a.name}")
    return bad


def test_every_import_names_an_existing_module():
    """Imports inside functions run only when called: check them all (modules and names)."""
    bad = [b for m in MODULES for b in _unresolved(m)]
    assert not bad, "imports of modules that do not exist:\n" + "\n".join(sorted(bad))


def _layer(module: str) -> int:
    best = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            # the top package holds everything: only its own modules are in the top layer
            if module == p or (p != "roboio" and module.startswith(p + ".")):
                if best is None or len(p) > best[1]:
                    best = (rank, len(p))
    assert best is not None, f"{module} belongs to no layer: add it to LAYERS"
    return best[0]


def _ecosystem(module: str):
    """``roboio.formats.<eco>`` of a module inside an ecosystem package, else None."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "formats":
        name = "roboio.formats." + parts[2]
        if name in MODULES and MODULES[name][1]:
            return name
    return None


def test_every_module_has_a_layer():
    for m in MODULES:
        _layer(m)


def test_no_import_against_the_layers():
    bad = [f"{m} -> {t}" for m, ts in GRAPH.items() for t in ts if _layer(t) > _layer(m)]
    assert not bad, "imports against the layers:\n" + "\n".join(sorted(bad))


def test_no_import_cycle():
    state, stack, cycles = {}, [], []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for t in sorted(GRAPH[m]):
            if state.get(t) == 1:
                cycles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(GRAPH):
        if m not in state:
            visit(m)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_formats_never_import_kinematics():
    bad = [f"{m} -> {t}" for m, ts in GRAPH.items() if m.startswith("roboio.formats")
           for t in ts if t.startswith("roboio.kinematics")]
    assert not bad, bad


def test_registry_and_shared_format_modules_import_no_ecosystem():
    shared = [m for m in MODULES if m.startswith("roboio.formats") and _ecosystem(m) is None
              and m != "roboio.formats._all"]
    bad = [f"{m} -> {t}" for m in shared for t in GRAPH[m] if _ecosystem(t) is not None]
    assert not bad, bad


def _private_owner(module: str):
    """Where a private module may be imported from: its ecosystem package for a module of a
    format package (any part of one ecosystem may use its own private modules), else the
    package holding its first private (``_``) component. None for a public module."""
    parts = module.split(".")
    for i, p in enumerate(parts):
        if p.startswith("_") and not p.startswith("__"):
            eco = _ecosystem(module)
            return eco if eco is not None and i > len(eco.split(".")) - 1 else ".".join(parts[:i])
    return None


def test_private_modules_are_imported_only_inside_their_package():
    bad = []
    for m, ts in GRAPH.items():
        for t in ts:
            owner = _private_owner(t)
            if owner is not None and not (m == owner or m.startswith(owner + ".")):
                bad.append(f"{m} -> {t}")
    assert not bad, "private modules imported from outside their package:\n" + "\n".join(sorted(bad))


def test_command_line_and_conversion_know_no_file_grammar():
    """cli, api, convert and describe reach formats through the registry only (model-to-model
    conversions live in roboio.model or roboio.convert, not in a format package)."""
    front = ("roboio.cli", "roboio.api", "roboio.convert", "roboio.describe")
    bad = [f"{m} -> {t}" for m, ts in GRAPH.items()
           if any(m == p or m.startswith(p + ".") for p in front)
           for t in ts if _ecosystem(t) is not None]
    assert not bad, bad


@pytest.mark.parametrize("module", ["roboio.formats.registry", "roboio.formats.loading"])
def test_the_registry_is_a_table(module):
    assert not [t for t in GRAPH[module] if _ecosystem(t) is not None]
