"""``roboio info``, ``fk --json`` and ``validate`` on every corpus .rob (in-process)."""
import json
import os

import numpy as np
import pytest

from roboio.cli.main import main

from conftest import KLAMPT, corpus_ids, corpus_path, load_oracle, oracle_entries, oracle_transform

ROBS = [e for e in oracle_entries(kind="robot") if e["source"].endswith(".rob")]
LOADED = [e for e in ROBS if e["status"] == "loaded"]

# Files roboio rejects, as Klamp't does (see test_rob_corpus.py).
REJECTED = {"robots/3cylinderhand.rob", "robots/sphere.rob", "robots/blank.rob"}
# Files that load but have real problems, which ``validate`` reports (exit 1):
#   a trailing backslash makes Klamp't swallow the next keyword line, or NaN acc. limits.
PROBLEMS = {
    "robots/athlete.rob": "runs on into 'servoI'",
    "robots/tx90l.rob": "runs on into 'parents'",
    "robots/tx90pr2.rob": "runs on into 'parents'",
    "robots/tx90robotiq.rob": "runs on into 'parents'",
    "robots/pr2gripper_x2.rob": "NaN acceleration limits",
}


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("entry", ROBS, ids=corpus_ids(ROBS))
def test_validate(capsys, entry):
    src = entry["source"]
    path = os.path.join(KLAMPT, src)
    rc, out, err = run(capsys, "validate", path)
    if src in REJECTED:
        assert rc == 1 and out == ""
        line = err.strip()
        assert "\n" not in line and line.startswith(f"roboio: error: {path}:")
        assert "Traceback" not in err
    elif src in PROBLEMS:
        assert rc == 1 and PROBLEMS[src] in out, out
    else:
        assert rc == 0, out + err
        assert out.strip().endswith(": OK")


@pytest.mark.parametrize("entry", LOADED, ids=corpus_ids(LOADED))
def test_info_json(capsys, entry):
    rc, out, err = run(capsys, "info", "--json", os.path.join(KLAMPT, entry["source"]))
    assert rc == 0, err
    info = json.loads(out)
    assert info["kind"] == "robot"
    assert info["num_links"] == entry["numLinks"] and info["num_drivers"] == entry["numDrivers"]


@pytest.mark.parametrize("entry", LOADED, ids=corpus_ids(LOADED))
def test_fk_json_matches_oracle(capsys, entry):
    o = load_oracle(entry["source"])
    s = o["samples"][1]
    config = " ".join(repr(x) for x in s["q"])
    rc, out, err = run(capsys, "fk", "--json", "--config", config, os.path.join(KLAMPT, entry["source"]))
    assert rc == 0, err
    data = json.loads(out)
    assert data["links"] == o["link_names"]
    [sample] = data["samples"]
    assert np.array_equal(sample["config"], s["q"])
    for T, d in zip(sample["transforms"], s["link_transforms"]):
        assert np.abs(np.array(T) - oracle_transform(d)).max() <= 1e-9


def test_info_text_and_missing_file(capsys, tmp_path):
    rc, out, err = run(capsys, "info", corpus_path("klampt", "robots/ur5.rob"))
    assert rc == 0 and "ur5" in out
    rc, out, err = run(capsys, "info", str(tmp_path / "nope.rob"))
    assert rc == 1 and "nope.rob" in err and "Traceback" not in err
