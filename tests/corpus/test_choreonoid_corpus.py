"""Choreonoid corpus: the SR1 walk motions against PyYAML, both parser paths, round trips,
every .body with its meshes, every .pseq, and the spec's SR1 worked example (§7)."""
import glob
import os
import warnings

import numpy as np
import pytest

import roboio
from roboio.describe import _walk
from roboio.formats.choreonoid import _seq_fast

from conftest import CORPUS, corpus_path

SEQ_DIR = ("choreonoid", "sample", "SimpleController")
SR1 = ("choreonoid", "share", "model", "SR1", "SR1.body")


def choreonoid_files(pattern):
    if not os.path.isdir(CORPUS):
        return []
    return sorted(glob.glob(os.path.join(CORPUS, "choreonoid", "**", pattern), recursive=True))


def rel(p):
    return os.path.relpath(p, CORPUS)


def bits(a):
    return np.ascontiguousarray(a, dtype=float).view(np.int64)


@pytest.fixture(scope="module")
def sr1():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(corpus_path(*SR1))


@pytest.fixture(scope="module")
def walk1():
    return roboio.load(corpus_path(*SEQ_DIR, "SR1WalkPattern1.seq"))


@pytest.mark.parametrize("name", ["SR1WalkPattern1.seq", "SR1WalkPattern2.seq", "SR1WalkPattern3.seq"])
def test_walk_patterns_equal_pyyaml_both_paths_and_round_trip(name, tmp_path, monkeypatch):
    yaml = pytest.importorskip("yaml")
    path = corpus_path(*SEQ_DIR, name)
    m = roboio.load(path)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path) as f:
        d = yaml.load(f.read(), Loader=loader)
    assert len(d["components"]) == len(m.components)
    for c, s in zip(d["components"], m.components):
        ref = np.array(c["frames"], dtype=float)
        assert np.array_equal(bits(ref), bits(s.data.reshape(len(ref), -1)))
    assert m.frame_rate == 500 and m.joint_displacement.shape[1] == 29 and m.link_positions is None
    if name == "SR1WalkPattern2.seq":
        assert m.component("zmp").is_root_relative and m.zmp.shape == (7146, 3)
    out = tmp_path / name
    roboio.save(m, str(out))
    back = roboio.load(str(out))
    assert all(np.array_equal(bits(a.data), bits(b.data)) for a, b in zip(m.components, back.components))
    # the general YAML path (what the fast path falls back to) gives the same bits
    monkeypatch.setattr(_seq_fast, "parse_block", lambda *a, **k: None)
    slow = roboio.load(path)
    assert all(np.array_equal(bits(a.data), bits(b.data)) for a, b in zip(m.components, slow.components))


def test_walk_pattern1_duration(walk1):
    assert walk1.num_frames == 6701 and walk1.duration == pytest.approx(13.402)


@pytest.mark.parametrize("path", choreonoid_files("*.body"), ids=rel)
def test_every_body_loads_with_its_meshes(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = roboio.load(path, strict=False)
    assert not [w for w in r.warnings if "not found" in w]
    meshes = 0
    for link in r.links:
        for root in (link.geometry, link.visual_geometry):
            for g in _walk(root):
                assert not g.missing
                if hasattr(g, "load"):
                    g.load()
                    assert len(g.vertices) and len(g.faces)
                    meshes += 1
    uses_meshes = any(s in open(path).read() for s in (".stl", ".wrl", ".obj", "Extrusion"))
    assert meshes > 0 or not uses_meshes
    assert sorted(r.source_link_order) == sorted(set(r.source_link_order))
    assert r.fk().shape == (r.num_links, 4, 4)


@pytest.mark.parametrize("path", choreonoid_files("*.pseq"), ids=rel)
def test_every_pseq_loads(path, tmp_path):
    ps = roboio.load(path)
    assert ps.keys and all(len(k.joints) == len(k.q) for k in ps.keys)
    assert np.all(np.diff(ps.times) >= 0)
    out = tmp_path / "x.pseq"
    roboio.save(ps, str(out))
    back = roboio.load(str(out))
    for a, b in zip(ps.keys, back.keys):
        assert a.time == b.time and np.array_equal(a.joints, b.joints) and np.array_equal(bits(a.q), bits(b.q))
        for x, y in zip(a.ik_links, b.ik_links):
            assert np.array_equal(bits(x.rotation), bits(y.rotation)) and x.index == y.index
    target = os.path.join(CORPUS, "choreonoid", "share", "model", ps.target_body.replace("-", ""),
                          ps.target_body.replace("-", "") + ".body")
    if ps.target_body == "RIC30":
        assert not os.path.exists(target)          # the model is not in the corpus: keys only
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            robot = roboio.load(target)
        T = ps.key_link_transforms(robot, 0)
        assert T.shape == (robot.num_links, 4, 4)


def _pos(robot, T, name):
    return T[robot.link_index(name), :3, 3]


def test_sr1_worked_example(sr1, walk1):
    """Spec §7: link order, joint ids, zero pose, frames 0 and 1000 of SR1WalkPattern1."""
    order = [sr1.links[i].name for i in sr1.source_link_order]
    assert order[:4] == ["WAIST", "WAIST_P", "WAIST_R", "CHEST"]
    assert order[4] == "LARM_SHOULDER_P" and order[10] == "LARM_WRIST_R"
    assert order[11] == "RARM_SHOULDER_P" and order[17] == "RARM_WRIST_R"
    assert order[18] == "LLEG_HIP_R" and order[23] == "LLEG_ANKLE_R"
    assert order[24] == "RLEG_HIP_R" and order[29] == "RLEG_ANKLE_R"
    ids = [sr1.links[i].name for i in sr1.joint_id_links]
    assert ids[:6] == ["RLEG_HIP_R", "RLEG_HIP_P", "RLEG_HIP_Y", "RLEG_KNEE", "RLEG_ANKLE_P", "RLEG_ANKLE_R"]
    assert ids[6] == "RARM_SHOULDER_P" and ids[13] == "LLEG_HIP_R" and ids[19] == "LARM_SHOULDER_P"
    assert ids[26:] == ["WAIST_P", "WAIST_R", "CHEST"]
    T0 = sr1.fk()
    for name, p in [("RLEG_HIP_Y", (0, -0.09, 0.36)), ("RLEG_ANKLE_R", (0, -0.09, 0.06)),
                    ("RARM_SHOULDER_P", (0, -0.21, 1.2395)), ("RARM_WRIST_R", (0, -0.21, 0.7295))]:
        assert np.allclose(_pos(sr1, T0, name), p, atol=1e-12)
    T = walk1.link_transforms(sr1)
    assert T.shape == (6701, sr1.num_links, 4, 4)
    assert np.allclose(walk1.joint_displacement[1000, :6], [0.0193, -0.286, 0, 0.774, -0.488, -0.0193], atol=5e-5)
    assert np.allclose(_pos(sr1, T[0], "RLEG_HIP_Y"), [0.012723, -0.09, 0.360229], atol=1e-6)
    assert np.allclose(_pos(sr1, T[0], "RLEG_ANKLE_R"), [-0.0000229, -0.09, 0.0604999], atol=1e-6)
    assert np.allclose(T[0, sr1.link_index("RLEG_ANKLE_R"), :3, :3], np.eye(3), atol=1e-3)
    f = T[1000]
    assert np.allclose(_pos(sr1, f, "RLEG_HIP_Y"), [0.099728, -0.083455, 0.374422], atol=1e-6)
    R = f[sr1.link_index("RLEG_HIP_Y"), :3, :3]
    assert np.allclose(R, [[0.95938, 0, -0.282117], [-0.005445, 0.999814, -0.018515],
                           [0.282064, 0.019299, 0.959201]], atol=1e-6)
    assert np.allclose(_pos(sr1, f, "RLEG_ANKLE_R"), [-0.04093, -0.078341, 0.10949], atol=1e-5)
    assert np.allclose(_pos(sr1, f, "CHEST"), [0.011522, -0.003142, 1.239296], atol=1e-6)
    assert np.allclose(_pos(sr1, f, "RARM_WRIST_R"), [0.194176, -0.215582, 0.929016], atol=1e-6)
    assert np.allclose(T[:, sr1.link_index("WAIST"), :3, 3], [0, 0, 0.7135])   # root fixed


def test_sr1_pseq_ankle_cross_check(sr1):
    ps = roboio.load(corpus_path("choreonoid", "sample", "PoseSeq", "motion", "SR1", "SR1WalkPattern2.pseq"))
    k = ps.keys[0]
    q = k.joint_values()
    assert np.allclose(q[:10], [0, -0.036652, 0, 0.07854, -0.041888, 0, 0.174533, -0.003491, 0, -1.570796])
    base = k.base_link()
    assert base.name == "WAIST" and np.allclose(base.translation, [9.14417e-06, 0, 0.707499435])
    T = ps.key_link_transforms(sr1, 0)
    order = sr1.source_link_order
    found = {}
    for lk in k.ik_links:
        i = order[lk.index]
        assert sr1.links[i].name == lk.name                   # link index = depth-first order
        found[lk.name] = (T[i, :3, 3], lk.translation)
    assert found["LLEG_ANKLE_R"][1].tolist() == [0.0004, 0.09, 0.0545000013] and lk.index == 29
    for name in ("LLEG_ANKLE_R", "RLEG_ANKLE_R"):
        got, want = found[name]
        assert np.allclose(got, want, atol=1e-9, rtol=0)
