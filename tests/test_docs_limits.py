"""Every example of docs/limits.md runs: Python blocks are executed; the ``$ roboio ...``
lines of ``shell`` blocks (several show failures, so they are not ``bash`` blocks that
other doc tests expect to succeed) run through the CLI entry point in a scratch directory,
with ``S`` pointing at a copy of the samples; a trailing ``# exit N`` comment gives the
expected status (default 0), and a failure must be one line on stderr. The table of defaults
matches :class:`roboio.limits.Limits`."""
import contextlib
import io
import os
import re
import shlex
import shutil

import pytest

from conftest import ROOT, SAMPLES
from roboio.cli.main import main
from roboio.limits import Limits

with open(os.path.join(ROOT, "docs", "limits.md"), encoding="utf-8") as _f:
    PAGE = _f.read()
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", PAGE, re.S)
PYTHON = [code for lang, code in BLOCKS if lang == "python"]
COMMANDS = []
for lang, code in BLOCKS:
    if lang != "shell":
        continue
    for line in code.splitlines():
        if not line.startswith("$ "):
            continue
        words = shlex.split(line[2:], comments=True)
        if words and words[0] == "roboio":
            m = re.search(r"#\s*exit (\d+)", line)
            COMMANDS.append((words[1:], int(m.group(1)) if m else 0))


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    samples = tmp_path / "samples"
    shutil.copytree(SAMPLES, samples)
    for p in samples.rglob("*"):
        p.chmod(p.stat().st_mode | 0o200)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return samples


@pytest.mark.parametrize("code", PYTHON, ids=[f"python{i}" for i in range(len(PYTHON))])
def test_python_example(code, scratch):
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "docs/limits.md", "exec"), {"__name__": "__docs__"})


def test_command_examples_in_order(scratch):
    """The commands run in page order (later ones use files written by earlier ones)."""
    for args, expected in COMMANDS:
        args = [a.replace("$S", str(scratch)) for a in args]
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            try:
                rc = main(args)
            except SystemExit as e:        # argparse's own usage errors
                rc = e.code
        assert rc == expected, (args, err.getvalue())
        lines = err.getvalue().strip().splitlines()
        if expected:
            assert len(lines) == 1 and "Traceback" not in err.getvalue(), (args, err.getvalue())


def test_page_has_examples():
    assert len(PYTHON) >= 3 and len(COMMANDS) >= 12
    assert {c for c in (e for _, e in COMMANDS)} >= {0, 1, 2}


def test_defaults_table_matches_limits():
    rows = dict(re.findall(r"^\| `(max_\w+)` \| (\d+) \|", PAGE, re.M))
    assert set(rows) == set(Limits.names())
    defaults = Limits()
    for name, value in rows.items():
        assert getattr(defaults, name) == int(value), name
