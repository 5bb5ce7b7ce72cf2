"""Every example in README.md runs: Python blocks are executed, ``roboio ...`` command lines
are run through the CLI entry point (from the repository root, as a reader would)."""
import contextlib
import io
import os
import re
import shlex

import pytest

from conftest import CORPUS, ROOT
from roboio.cli.main import main

with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as _f:
    _README = _f.read()
_BLOCKS = re.findall(r"```(\w+)\n(.*?)```", _README, re.S)
PYTHON = [code for lang, code in _BLOCKS if lang == "python"]
BASH = [code for lang, code in _BLOCKS if lang == "bash"]


def _needs_corpus(code):
    if "../shared/corpus" in code and not os.path.isdir(CORPUS):
        pytest.skip("example reads ../shared/corpus, which is absent")


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("code", PYTHON, ids=[f"python{i}" for i in range(len(PYTHON))])
def test_python_example(code, at_root):
    _needs_corpus(code)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})


def _commands(code):
    env = {}
    for line in code.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if len(words) == 1 and re.match(r"[A-Za-z_]\w*=", words[0]):
            k, v = words[0].split("=", 1)
            env[k] = v
            continue
        words = [re.sub(r"\$(\w+)", lambda m: env.get(m.group(1), m.group(0)), w) for w in words]
        if words[0] != "roboio" or any(w.isupper() or w.startswith("[") for w in words[1:]):
            continue   # install lines, and synopsis lines with placeholders
        yield words[1:]


CMDS = [c for code in BASH for c in _commands(code)]


@pytest.mark.parametrize("args", CMDS, ids=[" ".join(c)[:60] for c in CMDS])
def test_command_example(args, at_root):
    _needs_corpus(" ".join(args))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        rc = main(args)
    # validate exits 1 when it finds problems, which some examples set out to show
    assert rc in ((0, 1) if args[0] == "validate" else (0,)), err.getvalue()


def test_readme_has_examples():
    assert len(PYTHON) >= 5 and len(CMDS) >= 10
