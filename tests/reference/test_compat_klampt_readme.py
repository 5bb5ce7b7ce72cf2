"""The README examples of roboio.compat.klampt run (from the repository root) and print
what the README says."""
import contextlib
import io
import os
import re

import pytest

from conftest import ROOT, corpus_path

HEADING = "## Klamp't-style Python API (roboio.compat.klampt)"


def _examples():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index(HEADING):]
    section = section[:section.find("\n## ", len(HEADING))]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_readme_has_the_two_examples():
    assert len(_examples()) == 2


@pytest.mark.parametrize("index", [0, 1])
def test_readme_example_runs(index, monkeypatch):
    corpus_path("klampt")
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_examples()[index], f"README example {index}", "exec"), {})
    lines = out.getvalue().splitlines()
    if index == 0:
        assert lines[0] == "[1.7071067811865477, 0.0, -1.7071067811865475]"
    else:
        assert lines[0] == "1 5"
        assert lines[2].startswith("[0.20000000298023224, 0.6000000238418579, 0.30000001192092896")
