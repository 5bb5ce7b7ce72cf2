"""A clone named ``roboio`` imported from its parent directory (a script next to the clone):
without the clone's root ``__init__.py`` Python makes it an empty namespace package
(``module 'roboio' has no attribute 'load'``); with it, the import warns once and loads the
package inside the clone."""
import os
import subprocess
import sys

from conftest import ROOT

CODE = ("import warnings; warnings.simplefilter('always'); import roboio; "
        "print(type(roboio.load).__name__, os.path.realpath(roboio.__file__))")


def _clone(tmp_path, with_root_init=True):
    clone = tmp_path / "roboio"
    clone.mkdir()
    os.symlink(os.path.join(ROOT, "roboio"), clone / "roboio")
    if with_root_init:
        with open(os.path.join(ROOT, "__init__.py"), "rb") as src:
            (clone / "__init__.py").write_bytes(src.read())
    return clone


def _run(cwd, *flags):
    return subprocess.run([sys.executable, *flags, "-c", "import os; " + CODE], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_a_clone_named_roboio_imported_from_its_parent_warns_and_works(tmp_path):
    _clone(tmp_path)
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "function"
    assert r.stdout.split()[1] == os.path.realpath(os.path.join(ROOT, "roboio", "__init__.py"))
    assert "found the repository folder" in r.stderr and r.stderr.count("UserWarning") == 1


def test_without_it_python_makes_the_clone_an_empty_namespace_package(tmp_path):
    """What the root __init__.py is for. (-S: no site-packages, so that an installed roboio
    cannot win; an editable install, as the README's, does not win either.)"""
    _clone(tmp_path, with_root_init=False)
    r = _run(tmp_path, "-S")
    assert r.returncode != 0 and "has no attribute 'load'" in r.stderr
