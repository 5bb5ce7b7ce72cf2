"""The examples of docs/compat-klampt.md (roboio.compat.klampt) run from the repository root
and print what the page says."""
import contextlib
import io
import os
import re

import pytest

from conftest import ROOT, corpus_path

PAGE = os.path.join(ROOT, "docs", "compat-klampt.md")


def _examples():
    with open(PAGE, encoding="utf-8") as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def _numbers(line):
    return [float(x) for x in re.findall(r"-?\d+\.\d+(?:e-?\d+)?|-?\d+", line)]


def test_page_has_the_two_examples():
    assert len(_examples()) == 2


@pytest.mark.parametrize("index", [0, 1])
def test_page_example_runs(index, monkeypatch):
    corpus_path("klampt")
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_examples()[index], f"docs/compat-klampt.md example {index}", "exec"), {})
    lines = out.getvalue().splitlines()
    if index == 0:
        # 1 + sqrt(1/2), 0, -1 - sqrt(1/2): computed by the kinematics, so up to rounding
        assert _numbers(lines[0]) == pytest.approx([1 + 0.5 ** 0.5, 0.0, -1 - 0.5 ** 0.5], abs=1e-12)
    else:
        assert lines[0] == "1 5"
        # colours are single precision, as in Klamp't: exactly the float32 values of 0.2, 0.6, 0.3
        assert lines[2].startswith("[0.20000000298023224, 0.6000000238418579, 0.30000001192092896")
