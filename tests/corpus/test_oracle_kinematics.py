"""roboio.kinematics against the Klamp't oracle, on the oracle's own link structure
(independent of any reader): transforms and Jacobians to 1e-9."""
import numpy as np
import pytest

from conftest import corpus_ids, load_oracle, oracle_entries, oracle_transform
from roboio.kinematics import KinematicModel

ROBOTS = oracle_entries("robot", "loaded")


@pytest.mark.parametrize("entry", ROBOTS, ids=corpus_ids(ROBOTS))
def test_kinematics_match_oracle(entry):
    o = load_oracle(entry["source"])
    km = KinematicModel(o["parents"], [oracle_transform(t) for t in o["parent_transforms"]],
                        o["link_axes"], o["link_is_prismatic"])
    for s in o["samples"]:
        ref = np.array([oracle_transform(t) for t in s["link_transforms"]])
        np.testing.assert_allclose(km.fk(s["q"]), ref, atol=1e-9, rtol=0)
    jac = o["jacobian"]
    q = o["samples"][jac["config_index"]]["q"]
    J = km.jacobian(q, jac["link_index"], jac["plocal"])
    np.testing.assert_allclose(J, np.array(jac["J"]), atol=1e-9, rtol=0)
