"""docs/kinematics.md runs: each Python block is executed with each kinematics backend."""
import contextlib
import io
import os
import re

import pytest

from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "kinematics.md")
with open(DOC, encoding="utf-8") as _f:
    PYTHON = [code for lang, code in re.findall(r"```(\w+)\n(.*?)```", _f.read(), re.S)
              if lang == "python"]


def test_doc_has_examples():
    assert len(PYTHON) >= 5


@pytest.mark.usefixtures("kinematics_backend")
@pytest.mark.parametrize("code", PYTHON, ids=[f"python{i}" for i in range(len(PYTHON))])
def test_python_example(code, monkeypatch):
    monkeypatch.chdir(ROOT)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "docs/kinematics.md", "exec"), {"__name__": "__docs__"})
