"""roboio.kinematics against the Klamp't oracle, on the oracle's own link structure
(independent of any reader): transforms and Jacobians to 1e-9, single and batched, with
each backend; and the two backends against each other to 1e-14 on every oracle robot."""
import numpy as np
import pytest

from conftest import corpus_ids, load_oracle, oracle_entries, oracle_transform
from kinematics_helpers import assert_close
from roboio.kinematics import KinematicModel, available_backends, use_backend

ROBOTS = oracle_entries("robot", "loaded")


def _model(o):
    return KinematicModel(o["parents"], [oracle_transform(t) for t in o["parent_transforms"]],
                          o["link_axes"], o["link_is_prismatic"])


@pytest.mark.usefixtures("kinematics_backend")
@pytest.mark.parametrize("entry", ROBOTS, ids=corpus_ids(ROBOTS))
def test_kinematics_match_oracle(entry):
    o = load_oracle(entry["source"])
    km = _model(o)
    Q = np.array([s["q"] for s in o["samples"]])
    batch = km.fk_batch(Q)
    for k, s in enumerate(o["samples"]):
        ref = np.array([oracle_transform(t) for t in s["link_transforms"]])
        np.testing.assert_allclose(km.fk(s["q"]), ref, atol=1e-9, rtol=0)
        np.testing.assert_allclose(batch[k], ref, atol=1e-9, rtol=0)
    jac = o["jacobian"]
    q = o["samples"][jac["config_index"]]["q"]
    J = km.jacobian(q, jac["link_index"], jac["plocal"])
    np.testing.assert_allclose(J, np.array(jac["J"]), atol=1e-9, rtol=0)
    Jb = km.jacobian_batch(np.array([q]), jac["link_index"], jac["plocal"])
    np.testing.assert_allclose(Jb[0], np.array(jac["J"]), atol=1e-9, rtol=0)


@pytest.mark.parametrize("entry", ROBOTS, ids=corpus_ids(ROBOTS))
def test_backends_agree_on_oracle_robots(entry):
    if "compiled" not in available_backends():
        pytest.skip("the compiled kinematics kernel is not built in this tree")
    o = load_oracle(entry["source"])
    km = _model(o)
    rng = np.random.default_rng(7)
    Q = rng.uniform(-np.pi, np.pi, size=(40, km.n))
    last = km.n - 1
    got = {}
    for name in ("numpy", "compiled"):
        with use_backend(name):
            got[name] = (km.fk_batch(Q), np.array([km.fk(q) for q in Q[:5]]),
                         km.jacobian_batch(Q, last, (0.1, -0.2, 0.3)),
                         km.jacobian(Q[0], last, (0.1, -0.2, 0.3)))
    for a, b in zip(got["compiled"], got["numpy"]):
        assert_close(a, b)
    assert_close(got["compiled"][1], got["compiled"][0][:5])
