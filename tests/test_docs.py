"""Every example in the user documentation pages runs: Python blocks are executed in order
(one namespace per page), ``roboio ...`` command lines are run through the CLI entry point,
from the repository root as a reader would. Pages with a test of their own
(``tests/test_docs_<page>.py``, e.g. the viewer's) and the developer guide are left to it."""
import contextlib
import io
import os
import re

import pytest

from conftest import CORPUS, ROOT
from roboio.cli.main import main
from test_readme import _commands

DOCS = os.path.join(ROOT, "docs")
_OWN = {f"{f[len('test_docs_'):-3]}.md" for f in os.listdir(os.path.dirname(__file__))
        if f.startswith("test_docs_") and f.endswith(".py")}
PAGES = sorted(f for f in os.listdir(DOCS) if f.endswith(".md") and f != "development.md"
               and f not in _OWN) if os.path.isdir(DOCS) else []


def _blocks(page):
    with open(os.path.join(DOCS, page), encoding="utf-8") as f:
        return re.findall(r"```(\w+)\n(.*?)```", f.read(), re.S)


def _needs_corpus(code):
    if "../shared/corpus" in code and not os.path.isdir(CORPUS):
        pytest.skip("example reads ../shared/corpus, which is absent")


@pytest.mark.parametrize("page", PAGES)
def test_page_examples(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    blocks = _blocks(page)
    assert blocks, f"{page} has no examples"
    namespace = {"__name__": "__docs__"}
    for lang, code in blocks:
        if lang == "python":
            _needs_corpus(code)
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, f"docs/{page}", "exec"), namespace)
        elif lang == "bash":
            for args in _commands(code):
                _needs_corpus(" ".join(args))
                with contextlib.redirect_stdout(io.StringIO()), \
                        contextlib.redirect_stderr(io.StringIO()) as err:
                    rc = main(args)
                assert rc == 0, (args, err.getvalue())
