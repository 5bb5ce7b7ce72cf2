"""Every ``--help`` example that names only files the package ships runs, as a user would
type it from the repository root (outputs under /tmp are redirected into a private folder);
examples with placeholders in capitals (a link name in capitals after ``--link`` is a
name, not a placeholder), or naming files the package does not ship
(``ur5.rob``, ``walks/``), are synopses. Each command has at least one runnable example."""
import contextlib
import glob
import io
import os
import re
import shlex

import pytest

from conftest import ROOT
from roboio.cli.main import build_parser, main

# exit status 1 is these commands' answer "found something" (a collision, a difference, a
# problem, a link that moved), which an example may well show
FINDINGS = {"collide", "diff", "validate", "verify"}
NOT_RUN = {"view"}
# options whose value is a link name, which may be in capitals (Choreonoid's HAND, WAIST)
NAME_OPTIONS = {"--link", "--links"}          # serves until interrupted (tests/corpus/test_viewer_browser.py drives it)


def _examples():
    """[(command path, example line)] of every parser's ``examples:`` epilog."""
    import argparse
    out = []

    def walk(p, name):
        epilog = p.epilog or ""
        if "examples:" in epilog:
            for line in epilog.split("examples:", 1)[1].splitlines():
                if line.startswith(" ") and line.strip():     # indented: an example
                    out.append((name, line.strip()))
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for n, sp in a.choices.items():
                    walk(sp, f"{name} {n}")
    walk(build_parser(), "roboio")
    return out


def _file_like(word: str) -> bool:
    return not word.startswith("-") and " " not in word and "=" not in word and \
        ("/" in word or re.search(r"\.[A-Za-z][\w.]*$", word) is not None)


def _shipped(word: str) -> bool:
    if word.startswith("/tmp/"):
        return True
    hits = glob.glob(os.path.join(ROOT, word), recursive=True)
    return bool(hits) and all(os.path.realpath(h).startswith(os.path.join(ROOT, "roboio", "data"))
                              for h in hits)


def _commands(line: str):
    """The roboio command lines an example runs (``a && b``: both; what a pipe or a
    redirection feeds is left out), or None for a synopsis."""
    words = shlex.split(line, comments=True)
    runs, current = [], []
    for w in words + ["&&"]:
        if w == "&&":
            runs.append(current)
            current = []
        else:
            current.append(w)
    out = []
    for run in runs:
        for stop in ("|", ">"):
            if stop in run:
                run = run[:run.index(stop)]
        if not run or run[0] != "roboio":
            return None                      # eval "$(roboio ...)", a shell construct
        args = run[1:]
        names = {args[i + 1] for i, w in enumerate(args[:-1]) if w in NAME_OPTIONS}
        if any((w.isupper() and w not in names) or "$" in w for w in args):
            return None                      # placeholders
        if not all(_shipped(w) for w in args if _file_like(w)):
            return None                      # files the package does not ship
        out.append(args)
    return out


EXAMPLES = _examples()
# each distinct example once (``roboio batch --help`` repeats its actions' examples)
RUNNABLE = list({line: (name, line, cmds) for name, line in reversed(EXAMPLES)
                 for cmds in [_commands(line)] if cmds and cmds[0][0] not in NOT_RUN}.values())[::-1]


def test_every_command_has_an_example_on_the_shipped_files():
    names = {name for name, _ in EXAMPLES}
    ran = {name for name, line in EXAMPLES if line in {r[1] for r in RUNNABLE}}
    missing = names - ran - {"roboio view"}
    assert not missing, f"no --help example on the package's files: {sorted(missing)}"
    assert len(RUNNABLE) >= 45


def _private(args, tmp):
    return [tmp + a[len("/tmp"):] if a.startswith("/tmp/") else a for a in args]


@pytest.mark.parametrize("name,line,cmds", RUNNABLE, ids=[line for _, line, _ in RUNNABLE])
def test_help_example_runs(name, line, cmds, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    for args in cmds:
        args = _private(args, str(tmp_path))
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = main(args)
        ok = (0, 1) if args[0] in FINDINGS else (0,)
        assert rc in ok, f"{name}: {line} -> exit status {rc}: {err.getvalue()}"
