"""docs/viewer.md shows the viewer's commands (tests/test_docs.py runs its examples; ``roboio
view`` lines are shown, not run: the browser tests drive the viewer). Also: .ci/run runs the
README's test command verbatim, and the images the docs show exist."""
import os
import re
import shlex

from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "viewer.md")
with open(DOC, encoding="utf-8") as _f:
    _TEXT = _f.read()
_BLOCKS = re.findall(r"```(\w+)\n(.*?)```", _TEXT, re.S)
PYTHON = [code for lang, code in _BLOCKS if lang == "python"]
CMDS = []
for lang, code in _BLOCKS:
    if lang != "bash":
        continue
    for line in code.splitlines():
        words = shlex.split(line, comments=True)
        if not words or words[0] != "roboio" or words[1] == "view":
            continue
        if any(w.isupper() or w.startswith("[") for w in words[1:]):
            continue
        CMDS.append(words[1:])


def test_doc_has_examples():
    assert len(PYTHON) >= 2 and len(CMDS) >= 8
    assert {c[0] for c in CMDS} == {"render", "plot", "convert"}


def test_images_exist():
    for doc in ("docs/viewer.md", "README.md"):
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            for ref in re.findall(r"!\[[^]]*\]\(([^)]+)\)", f.read()):
                assert os.path.exists(os.path.join(ROOT, os.path.dirname(doc), ref)), (doc, ref)


def test_ci_runs_the_readme_test_command_verbatim():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    cmd = next(line for line in readme.splitlines() if "pytest" in line and "pip install" in line)
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        assert cmd.strip() in [line.strip() for line in f]
