"""docs/graspit.md runs: its Python blocks are executed and its ``roboio`` command lines run
through the CLI entry point, from the repository root (as a reader would)."""
import contextlib
import io
import os
import re
import shlex

import pytest

from conftest import CORPUS, ROOT
from roboio.cli.main import main

DOC = os.path.join(ROOT, "docs", "graspit.md")
with open(DOC, encoding="utf-8") as _f:
    _TEXT = _f.read()
_BLOCKS = re.findall(r"```(\w+)\n(.*?)```", _TEXT, re.S)
PYTHON = [code for lang, code in _BLOCKS if lang == "python"]
CMDS = [shlex.split(line, comments=True)[1:] for lang, code in _BLOCKS if lang == "bash"
        for line in code.splitlines() if line.startswith("roboio ")]

pytestmark = pytest.mark.filterwarnings("ignore::roboio.RoboioWarning")


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def _needs_corpus():
    if not os.path.isdir(CORPUS):
        pytest.skip("examples read ../shared/corpus, which is absent")


def test_doc_has_examples():
    assert len(PYTHON) >= 4 and len(CMDS) >= 5


@pytest.mark.parametrize("code", PYTHON, ids=[f"python{i}" for i in range(len(PYTHON))])
def test_python_example(code, at_root):
    _needs_corpus()
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, DOC, "exec"), {"__name__": "__doc__"})


def test_commands_in_order(at_root):
    """The command lines run in page order (verify reads what convert wrote)."""
    _needs_corpus()
    for args in CMDS:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = main(args)
        assert rc == 0, (args, err.getvalue())
