"""docs/openrave.md runs: its Python blocks are executed and its ``roboio ...`` command lines
run through the CLI from the repository root (skipped without the corpus when they read it)."""
import contextlib
import io
import os
import re
import shlex

import pytest

from conftest import CORPUS, ROOT
from roboio.cli.main import main

DOC = os.path.join(ROOT, "docs", "openrave.md")
with open(DOC, encoding="utf-8") as _f:
    _TEXT = _f.read()
_BLOCKS = re.findall(r"```(\w+)\n(.*?)```", _TEXT, re.S)
PYTHON = [code for lang, code in _BLOCKS if lang == "python"]
CMDS = [shlex.split(line)[1:] for lang, code in _BLOCKS if lang == "bash"
        for line in code.splitlines() if line.startswith("roboio ")]


def _needs_corpus(text):
    if "../shared/corpus" in text and not os.path.isdir(CORPUS):
        pytest.skip("example reads ../shared/corpus, which is absent")


def test_doc_has_examples():
    assert len(PYTHON) >= 3 and len(CMDS) >= 5


@pytest.mark.parametrize("code", PYTHON, ids=[f"python{i}" for i in range(len(PYTHON))])
def test_python_example(code, monkeypatch):
    monkeypatch.chdir(ROOT)
    _needs_corpus(code)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "docs/openrave.md", "exec"), {"__name__": "__docs__"})


@pytest.mark.parametrize("args", CMDS, ids=[" ".join(c)[:60] for c in CMDS])
def test_command_example(args, monkeypatch):
    monkeypatch.chdir(ROOT)
    _needs_corpus(" ".join(args))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        rc = main(args)
    assert rc == 0, err.getvalue()
