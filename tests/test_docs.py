"""Every example of the user documentation runs: README.md and every page of docs/.

Per page, in order: ``python`` blocks are executed in one namespace (so a block may use what
an earlier block of the same page defined), and the ``roboio ...`` lines of ``bash`` blocks
run through the CLI entry point, from the repository root as a reader would. Lines with
placeholders in capitals (``roboio info FILE``) are synopses and are not run; ``NAME=value``
lines set variables for the following lines. Examples that read ``../shared/corpus`` are
skipped when it is absent. ``text`` blocks (layouts, pictures) are not code.

``console`` blocks show real output: each ``$ roboio ...`` line is run the same way (with
100 terminal columns) and what it prints on stdout and stderr must be the lines that follow
it, up to the next ``$`` line (trailing blanks ignored; a line ``...`` stands for any number
of lines). The command must exit 0 unless its output ends with ``[exit status N]``.

Pages about the kinematics (``BACKEND_PAGES``) run once with each kinematics backend, so
both the compiled kernel and the numpy fallback execute their examples.

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
BACKEND_PAGES = {os.path.join("docs", "kinematics.md"), os.path.join("docs", "dynamics.md")}
RUNS = [(page, backend) for page in PAGES
        for backend in (("compiled", "numpy") if page in BACKEND_PAGES else (None,))]
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


def _console(code):
    """``[(args, expected lines)]`` of a ``console`` block."""
    out = []
    for line in code.splitlines():
        if line.startswith("$ "):
            words = shlex.split(line[2:], comments=True)
            assert words[0] == "roboio", f"console blocks show roboio commands: {line}"
            out.append((words[1:], []))
        elif out:
            out[-1][1].append(line)
    return out


def run_console(args):
    """(exit status, what ``roboio ARGS`` prints on stdout and stderr, in order)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            rc = main(args)
        except SystemExit as e:         # argparse: --help, usage errors
            rc = e.code or 0
    return rc, buf.getvalue()


def _matches(expected, actual):
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(_matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and _matches(expected[1:], actual[1:])


def check_console(page, args, expected, rc, out):
    def trim(lines):
        lines = [l.rstrip() for l in lines]
        while lines and not lines[-1]:
            lines.pop()
        return lines
    expected = trim(expected)
    status = 0
    m = re.fullmatch(r"\[exit status (\d+)\]", expected[-1]) if expected else None
    if m:
        status, expected = int(m.group(1)), trim(expected[:-1])
    command = "roboio " + " ".join(shlex.quote(a) for a in args)
    assert rc == status, f"{page}: {command} -> exit status {rc}, expected {status}:\n{out}"
    assert _matches(expected, trim(out.splitlines())), \
        f"{page}: the output of {command} is not what the page shows; it is:\n{out}"


def _needs_corpus(code):
    if "../shared/corpus" in code and not os.path.isdir(CORPUS):
        pytest.skip("an example reads ../shared/corpus, which is absent")


@pytest.mark.parametrize("page,backend", RUNS,
                         ids=[p if b is None else f"{p}-{b}" for p, b in RUNS])
def test_page_examples_run(page, backend, monkeypatch):
    monkeypatch.chdir(ROOT)
    with contextlib.ExitStack() as stack:
        if backend is not None:
            from roboio.kinematics import available_backends, use_backend
            if backend not in available_backends():
                pytest.skip("the compiled kinematics kernel is not built in this tree")
            stack.enter_context(use_backend(backend))
        _run_page(page, monkeypatch)


def _run_page(page, monkeypatch):
    blocks = [(lang, code) for lang, code in _blocks(page) if lang in ("python", "bash", "console")]
    assert blocks, f"{page} has no examples"
    _needs_corpus("".join(code for _, code in blocks))
    monkeypatch.setenv("COLUMNS", "100")
    namespace = {"__name__": "__docs__"}
    for lang, code in blocks:
        if lang == "console":
            for args, expected in _console(code):
                rc, out = run_console(args)
                check_console(page, args, expected, rc, out)
            continue
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


def test_cli_page_shows_every_command():
    """docs/cli.md shows the real output of every command (the viewer's commands, which need
    the ``view`` extra, are shown in docs/viewer.md)."""
    from roboio.cli.main import build_parser
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    shown = {args[0] for lang, code in _blocks("docs/cli.md") if lang == "console"
             for args, _ in _console(code) if args}
    assert set(sub.choices) - {"view", "render", "plot"} <= shown
