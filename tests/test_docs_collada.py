"""docs/collada.md runs: its Python blocks are executed in order in one namespace, and its
``roboio ...`` command lines are run in order through the CLI (from the repository root)."""
import contextlib
import io
import os
import re
import shlex

import pytest

from conftest import CORPUS, ROOT
from roboio.cli.main import main

DOC = os.path.join(ROOT, "docs", "collada.md")
with open(DOC, encoding="utf-8") as _f:
    _TEXT = _f.read()
_BLOCKS = re.findall(r"```(\w+)\n(.*?)```", _TEXT, re.S)
PYTHON = [code for lang, code in _BLOCKS if lang == "python"]
CMDS = [shlex.split(line, comments=True)[1:] for lang, code in _BLOCKS if lang == "bash"
        for line in code.splitlines() if line.startswith("roboio ")]


@pytest.fixture
def at_root(monkeypatch):
    if not os.path.isdir(CORPUS):
        pytest.skip("the examples read ../shared/corpus, which is absent")
    monkeypatch.chdir(ROOT)


def test_doc_has_examples():
    assert len(PYTHON) >= 5 and len(CMDS) >= 8


def test_python_examples(at_root):
    namespace = {"__name__": "__collada_doc__"}
    for code in PYTHON:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, DOC, "exec"), namespace)


def test_command_examples(at_root):
    for args in CMDS:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = main(args)
        assert rc in ((0, 1) if args[0] == "validate" else (0,)), (args, err.getvalue())
