"""Every Klamp't .rob of the corpus against what real Klamp't computed (oracle/INDEX.json).

Kinematics, limits, drivers and joints must match to 1e-9 (they do to ~1e-15). Masses
from ``automass`` are compared with a relative tolerance of 1e-6: Klamp't loads meshes with
float32 vertices (Assimp), roboio keeps the file's decimal values in float64. Measured on
this corpus: com error <= 1.7e-8 of the geometry's extent, inertia error <= 6.7e-8 of the
largest inertia entry -- float32 rounding (2^-24 = 6e-8); recomputing from float32-rounded
vertices agrees with the oracle to 1e-15.
"""
import os
import re
import warnings

import numpy as np
import pytest

import roboio
from roboio import FormatError, RoboioWarning

from conftest import KLAMPT, corpus_ids, corpus_path, load_oracle, oracle_entries, oracle_transform

TOL = 1e-9
ROB_LOADED = [e for e in oracle_entries(kind="robot", status="loaded") if e["source"].endswith(".rob")]
ROB_FAILED = [e for e in oracle_entries(kind="robot", status="failed") if e["source"].endswith(".rob")]


def load_quiet(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        return roboio.load(path, **kw)


def uses_automass(path) -> bool:
    """Whether the file, or a robot file it mounts, has an ``automass`` line."""
    text = open(path, encoding="latin-1").read()
    if re.search(r"^[ \t]*automass", text, re.I | re.M):
        return True
    for ref in re.findall(r'^[ \t]*mount\s+\S+\s+"?([^"\s]+\.rob)', text, re.I | re.M):
        if uses_automass(os.path.join(os.path.dirname(path), ref)):
            return True
    return False


def close(a, b, tol=TOL):
    a, b = np.asarray(a, float), np.asarray(b, float)
    with np.errstate(invalid="ignore"):
        return a.shape == b.shape and bool(np.all((np.abs(a - b) <= tol) | (a == b)
                                                  | (np.isnan(a) & np.isnan(b))))


@pytest.fixture(scope="module", params=ROB_LOADED, ids=corpus_ids(ROB_LOADED))
def case(request):
    src = request.param["source"]
    path = os.path.join(KLAMPT, src)
    return src, load_quiet(path), load_oracle(src), path


def test_structure(case):
    src, r, o, _ = case
    assert r.num_links == o["numLinks"]
    assert r.link_names == o["link_names"]
    assert list(r.parents) == o["parents"]
    assert [r.joint_of_link(i).type for i in range(r.num_links)] == o["joint_types"]
    assert [l.is_prismatic for l in r.links] == o["link_is_prismatic"]
    assert close([l.axis for l in r.links], o["link_axes"])
    for l, T in zip(r.links, o["parent_transforms"]):
        assert close(l.parent_transform, oracle_transform(T)), l.name


def test_limits_and_config(case):
    src, r, o, _ = case
    assert close(r.qmin, o["qmin"]) and close(r.qmax, o["qmax"])
    assert close(r.vmax, o["velocity_limits"])
    assert close(r.amax, o["acceleration_limits"])      # NaN where Klamp't computes NaN
    assert close(r.tmax, o["torque_limits"])
    assert close(r.config, o["q_init"])
    T = r.fk()
    for i, d in enumerate(o["init_link_transforms"]):
        assert close(T[i], oracle_transform(d)), r.link_names[i]


def test_samples_and_jacobian(case):
    src, r, o, _ = case
    for s in o["samples"]:
        T = r.fk(np.array(s["q"]))
        for i, d in enumerate(s["link_transforms"]):
            assert close(T[i], oracle_transform(d)), (s["index"], r.link_names[i])
    jac = o["jacobian"]
    q = np.array(o["samples"][jac["config_index"]]["q"])
    J = r.jacobian(jac["link_index"], jac["plocal"], q=q)
    assert close(J, jac["J"])


def test_masses(case):
    src, r, o, path = case
    auto = uses_automass(path)
    for l, m in zip(r.links, o["link_masses"]):
        assert l.mass == m["mass"], l.name
        I_o = np.array(m["inertia"]).reshape(3, 3).T      # Klamp't lists the columns
        if close(l.com, m["com"], 1e-12) and close(l.inertia, I_o, 1e-12):
            continue
        assert auto, f"{l.name}: com/inertia differ and the robot does not use automass"
        b = l.geometry.bounds()
        extent = np.abs(b).max()
        assert close(l.com, m["com"], 1e-6 * extent), l.name
        assert close(l.inertia, I_o, 1e-6 * np.abs(I_o).max()), l.name


def test_drivers(case):
    src, r, o, _ = case
    assert len(r.drivers) == o["numDrivers"]
    for d, od in zip(r.drivers, o["drivers"]):
        links = d.dofs + ([d.force_link] if d.type in ("translation", "rotation") else [])
        assert (d.name, d.type, links) == (od["name"], od["type"], od["affected_links"])


LAZY = [e for e in ROB_LOADED if not uses_automass(os.path.join(KLAMPT, e["source"]))]


@pytest.mark.parametrize("entry", LAZY, ids=corpus_ids(LAZY))
def test_meshes_not_parsed_without_automass(entry):
    r = load_quiet(os.path.join(KLAMPT, entry["source"]))
    counts = [l.geometry.mesh_count() for l in r.links if l.geometry is not None]
    assert sum(n for n, _ in counts) == sum(u for _, u in counts)     # none loaded yet


# -- files real Klamp't refuses ---------------------------------------------------------

def test_failed_files_are_known():
    corpus_path()
    assert sorted(e["source"] for e in ROB_FAILED) == [
        "robots/3cylinderhand.rob", "robots/blank.rob", "robots/sphere.rob", "robots/tx90ball_pair.rob"]


@pytest.mark.parametrize("src,line,fragment", [
    ("robots/3cylinderhand.rob", 26, "joint floating 2 -1 covers 3 links [0, 1, 2]; a floating joint must cover exactly 6"),
    ("robots/sphere.rob", 19, "joint floating 2 -1 covers 3 links [0, 1, 2]; a floating joint must cover exactly 6"),
    ("robots/blank.rob", 24, "unknown keyword 'axes'"),
])
def test_rejected_like_klampt(src, line, fragment):
    path = corpus_path("klampt", src)
    with pytest.raises(FormatError) as e:
        load_quiet(path)
    assert e.value.path == path and e.value.line == line and fragment in e.value.message


def test_tx90ball_pair_mount_to_world_loads():
    """Klamp't 0.10.1 (the oracle) refuses ``mount -1`` ("Invalid mount link -1"); current
    Klamp't master accepts it, and so does roboio: the pair is tx90ball twice, the second
    copy a root placed by the mount transform, its links prefixed ``tx90-right:``."""
    pair = load_quiet(corpus_path("klampt", "robots/tx90ball_pair.rob"))
    o = load_oracle("robots/tx90ball.rob")
    n = o["numLinks"]
    assert pair.num_links == 2 * n
    assert pair.link_names == o["link_names"] + ["tx90-right:" + s for s in o["link_names"]]
    assert list(pair.parents) == o["parents"] + [p if p < 0 else p + n for p in o["parents"]]
    own = np.eye(4)
    own[0, 3] = -0.7                                  # the pair file's "translation -0.7 0 0"
    mount = np.array([[-1, 0, 0, 0.7], [0, -1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], float)
    for s in o["samples"]:
        T = pair.fk(np.concatenate([s["q"], s["q"]]))
        for i, d in enumerate(s["link_transforms"]):
            assert close(T[i], own @ oracle_transform(d))
            assert close(T[n + i], mount @ oracle_transform(d))
    nd = len(o["drivers"])
    assert [d.name for d in pair.drivers] == [d["name"] for d in o["drivers"]] + \
        ["tx90-right:" + d["name"] for d in o["drivers"]]
    assert [d.dofs for d in pair.drivers][nd:] == [[k + n for k in d["affected_links"]] for d in o["drivers"]]
    assert (2, 9) not in pair.self_collision_pairs      # a deferred noselfcollision pair
