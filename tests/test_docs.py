"""Every example of the user documentation runs: README.md and every page of docs/.

Per page, in order: ``python`` blocks are executed in one namespace (so a block may use what
an earlier block of the same page defined), and the ``roboio ...`` lines of ``bash`` blocks
run through the CLI entry point, from the repository root as a reader would. Lines with
placeholders in capitals (``roboio info FILE``) are synopses and are not run; ``NAME=value``
lines set variables for the following lines. Examples that read ``../shared/corpus`` are
skipped when it is absent. ``text`` blocks (layouts, pictures) are not code.

The README's formats table is also checked against ``roboio formats --markdown``.
"""
import contextlib
import io
import os
import re
import shlex

import pytest

from conftest import CORPUS, ROOT
from roboio.cli.main import main

DOCS = os.path.join(ROOT, "docs")
PAGES = ["README.md"] + sorted(os.path.join("docs", f) for f in os.listdir(DOCS) if f.endswith(".md"))
# commands that do not return (the viewer serves until interrupted; its own tests drive it)
NOT_RUN = {"view"}


def _read(page):
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        return f.read()


def _blocks(page):
    return re.findall(r"```(\w*)\n(.*?)```", _read(page), re.S)


def _commands(code):
    """The ``roboio`` command lines of a bash block, as argument lists."""
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
        if len(words) > 1 and words[1] in NOT_RUN:
            continue
        yield words[1:]


def _needs_corpus(code):
    if "../shared/corpus" in code and not os.path.isdir(CORPUS):
        pytest.skip("an example reads ../shared/corpus, which is absent")


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    blocks = [(lang, code) for lang, code in _blocks(page) if lang in ("python", "bash")]
    assert blocks, f"{page} has no examples"
    _needs_corpus("".join(code for _, code in blocks))
    namespace = {"__name__": "__docs__"}
    for lang, code in blocks:
        if lang == "python":
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, page, "exec"), namespace)
            continue
        for args in _commands(code):
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()) as err:
                rc = main(args)
            # validate and diff exit 1 when they find something, which examples set out to show
            ok = (0, 1) if args[0] in ("validate", "diff") else (0,)
            assert rc in ok, f"{page}: roboio {' '.join(args)} -> {rc}: {err.getvalue()}"


def test_docs_reference_nothing_outside_the_repository():
    for page in PAGES:
        text = _read(page)
        assert not re.search(r"\bspec\b[^.\n]*§|§\s*\d|\.\./shared/specs", text), page


def test_readme_formats_table_is_the_registry():
    text = _read("README.md")
    m = re.search(r"<!-- formats table[^\n]*-->\n(.*?)\n<!-- end of formats table -->", text, re.S)
    assert m, "README.md has no formats table between its markers"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["formats", "--markdown"]) == 0
    assert m.group(1).strip() == out.getvalue().strip(), \
        "README.md's formats table is out of date: paste the output of `roboio formats --markdown`"


def test_readme_fits_on_a_page():
    assert len(_read("README.md").encode("utf-8")) <= 10_500
