"""``roboio info``, ``fk --json`` and ``validate`` on every corpus URDF (in-process),
checked against the Klamp't oracle."""
import json
import os
import warnings

import numpy as np
import pytest

import roboio
from roboio.cli.main import main

from conftest import KLAMPT, corpus_ids, load_oracle, oracle_entries, oracle_transform

URDFS = [e for e in oracle_entries("robot", "loaded") if e["source"].endswith(".urdf")]


@pytest.mark.parametrize("entry", URDFS, ids=corpus_ids(URDFS))
def test_cli_on_corpus_urdf(entry, capsys):
    path = os.path.join(KLAMPT, entry["source"])
    o = load_oracle(entry["source"])

    assert main(["info", "--json", path]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["kind"], info["num_links"], info["num_drivers"]) == ("robot", o["numLinks"], o["numDrivers"])
    assert [l["name"] for l in info["links"]] == o["link_names"]
    assert main(["info", path]) == 0
    assert f"{o['numLinks']} links" in capsys.readouterr().out

    assert main(["fk", "--json", "--flavor", "klampt", path]) == 0    # compared with Klamp't
    fk = json.loads(capsys.readouterr().out)
    assert fk["links"] == o["link_names"]
    np.testing.assert_allclose(fk["samples"][0]["transforms"],
                               [oracle_transform(t) for t in o["init_link_transforms"]], atol=1e-9, rtol=0)
    q = o["samples"][1]["q"]
    assert main(["fk", "--json", "--flavor", "klampt", "--config", " ".join(repr(x) for x in q), path]) == 0
    fk = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(fk["samples"][0]["transforms"],
                               [oracle_transform(t) for t in o["samples"][1]["link_transforms"]], atol=1e-9, rtol=0)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        expected = roboio.load(path).warnings
    code = main(["validate", "--verbose", path])
    out = capsys.readouterr().out
    errors = [w for w in expected if w.severity == "error"]
    assert code == (1 if errors else 0)         # notes and warnings do not fail a file
    assert all(f"{w.severity}: {w}" in out for w in expected)
    n = {s: sum(w.severity == s for w in expected) for s in ("error", "warning", "note")}
    summary = (f"{n['error']} error{'s' * (n['error'] != 1)}, {n['warning']} warning"
               f"{'s' * (n['warning'] != 1)}, {n['note']} note{'s' * (n['note'] != 1)}")
    assert out.rstrip().endswith("OK" if not expected else
                                 f"{summary} ({'FAILED' if errors else 'OK'})"), out
