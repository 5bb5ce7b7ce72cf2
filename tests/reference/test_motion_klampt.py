"""Motion and contact files written by roboio, read back by the real klampt package (and
files written by klampt, read by roboio) with the same values."""
import json
import os
import re

import numpy as np
import pytest

import roboio
from roboio import ContactPoint, Hold, IKObjective, MultiPath, Section, Trajectory
from roboio.formats.klampt._text import Where
from roboio.formats.klampt.contact.hold import hold_text, parse_hold_text
from roboio.formats.klampt.contact.ikgoal import ik_text, parse_ik_text
from roboio.context import LoadContext

from conftest import KLAMPT, ORACLE

klampt = pytest.importorskip("klampt")
from klampt import IKObjective as KIK  # noqa: E402
from klampt.io import loader  # noqa: E402
from klampt.math import so3  # noqa: E402
from klampt.model.multipath import MultiPath as KMultiPath  # noqa: E402
from klampt.model.trajectory import Trajectory as KTrajectory  # noqa: E402

RNG = np.random.default_rng(11)


def _sources():
    p = os.path.join(ORACLE, "motions.json")
    if not os.path.exists(p):
        return []
    with open(p) as f:
        return sorted(json.load(f)["files"])


def _read_stance_blocks(path):
    """What the oracle did: klampt's read_Hold on each 'begin hold ... end' block."""
    text = open(path).read()
    return [loader.read_Hold(b) for b in re.findall(r"begin hold.*?\nend", text, re.S)]


def _klampt_view(path):
    """Plain values of a file as klampt reads it."""
    ext = os.path.splitext(path)[1]
    if ext in (".path", ".txt"):
        t = KTrajectory()
        t.load(path)
        return {"times": t.times, "milestones": t.milestones}
    if ext in (".config", ".configs", ".milestones"):
        return loader.load({".config": "Config"}.get(ext, "Configs"), path)
    if ext == ".stance":
        return [_hold_view(h) for h in _read_stance_blocks(path)]
    m = KMultiPath()
    m.load(path)
    return {"settings": m.settings,
            "holdSet": {k: _hold_view(h) for k, h in m.holdSet.items()},
            "sections": [{"settings": s.settings, "configs": s.configs, "times": s.times,
                          "velocities": s.velocities, "holdIndices": s.holdIndices,
                          "holds": [_hold_view(h) for h in s.holds],
                          "ik": [o.saveString() for o in s.ikObjectives]} for s in m.sections]}


def _hold_view(h):
    ik = h.ikConstraint
    return {"link": h.link, "contacts": [c.tolist() for c in h.contacts], "position": ik.getPosition(),
            "rotation": ik.getRotation(), "rotdims": ik.numRotDims()}


@pytest.mark.parametrize("src", _sources())
def test_corpus_rewritten_reads_the_same_in_klampt(src, tmp_path):
    """roboio reads a corpus file and writes it again; klampt reads both files identically."""
    original = os.path.join(KLAMPT, src)
    obj = roboio.load(original)
    out = str(tmp_path / os.path.basename(src))
    roboio.save(obj, out)
    assert _klampt_view(out) == _klampt_view(original)


# ------------------------------------------------------------------ full-precision values

def test_path_configs_config_milestones_full_precision(tmp_path):
    q = RNG.normal(size=(6, 4)) * 10.0 ** RNG.integers(-9, 9, size=(6, 4))
    times = np.cumsum(RNG.uniform(0, 0.3, 6)) + 1 / 3
    roboio.save(Trajectory(times, q), str(tmp_path / "a.path"))
    t = KTrajectory()
    t.load(str(tmp_path / "a.path"))
    assert t.times == times.tolist() and t.milestones == q.tolist()
    roboio.save(Trajectory(None, q), str(tmp_path / "a.configs"))
    assert loader.load("auto", str(tmp_path / "a.configs")) == q.tolist()
    roboio.save(Trajectory(None, q[:1]), str(tmp_path / "a.config"))
    assert loader.load("auto", str(tmp_path / "a.config")) == q[0].tolist()
    dq = RNG.normal(size=q.shape)
    roboio.save(Trajectory(None, q, dq), str(tmp_path / "a.milestones"))
    assert loader.load("Configs", str(tmp_path / "a.milestones")) == [v.tolist() for pair in zip(q, dq) for v in pair]


def _random_hold(link, rot="fixed", n=3):
    kw = {"rot_constraint": "fixed", "end_rotation": RNG.normal(size=3) * 0.5} if rot == "fixed" else {}
    return Hold(link, [ContactPoint(RNG.normal(size=3), RNG.normal(size=3), RNG.uniform()) for _ in range(n)],
                IKObjective(link, -1, "fixed", RNG.normal(size=3), RNG.normal(size=3), **kw))


def _check_klampt_hold(kh, h):
    assert kh.link == h.link
    assert [c.tolist() for c in kh.contacts] == [c.x.tolist() + c.n.tolist() + [c.kFriction] for c in h.contacts]
    ik = h.ik_constraint
    local, world = kh.ikConstraint.getPosition()
    if ik.rot_constraint == "fixed":
        # Python read_Hold stores the fixed transform: R = exp(moment), t = world - R local
        R = so3.from_moment(ik.end_rotation.tolist())
        assert np.allclose(kh.ikConstraint.getRotation(), R, atol=1e-15, rtol=0)
        assert np.allclose(world, ik.end_position - np.array(so3.apply(R, ik.local_position.tolist())),
                           atol=1e-14, rtol=0)
    else:
        assert kh.ikConstraint.numRotDims() == 0
        assert local == ik.local_position.tolist() and world == ik.end_position.tolist()


def test_hold_and_stance_text_read_by_klampt():
    for h in (_random_hold(4), _random_hold(9, rot="free"), _random_hold(2, n=0)):
        _check_klampt_hold(loader.read_Hold(hold_text(h)), h)


def test_ik_text_read_by_klampt_cpp_and_python():
    for pos, rot in [("fixed", "fixed"), ("fixed", "axis"), ("planar", "free"), ("linear", "axis"),
                     ("free", "fixed"), ("fixed", "twoaxis"), ("free", "free")]:
        kw = {}
        if pos != "free":
            kw.update(local_position=RNG.normal(size=3), end_position=RNG.normal(size=3))
        if pos in ("planar", "linear"):
            kw["direction"] = RNG.normal(size=3)
        if rot != "free":
            kw["end_rotation"] = RNG.normal(size=3)
        if rot in ("axis", "twoaxis"):
            kw["local_axis"] = RNG.normal(size=3)
        g = IKObjective(int(RNG.integers(0, 50)), int(RNG.integers(-1, 5)), pos, rot_constraint=rot, **kw)
        k = KIK()
        assert k.loadString(ik_text(g)), ik_text(g)                     # C++ reader
        assert (k.link(), k.destLink()) == (g.link, g.dest_link)
        assert k.numPosDims() == {"free": 0, "fixed": 3, "planar": 1, "linear": 2}[pos]
        assert k.numRotDims() == {"free": 0, "fixed": 3, "axis": 2, "twoaxis": 1}[rot]
        if pos != "free":
            assert k.getPosition() == (g.local_position.tolist(), g.end_position.tolist())
        if pos in ("planar", "linear"):
            assert k.getPositionDirection() == g.direction.tolist()
        if rot in ("axis", "twoaxis"):
            assert k.getRotationAxis() == (g.local_axis.tolist(), g.end_rotation.tolist())
        if rot == "fixed":
            assert np.allclose(k.getRotation(), so3.from_moment(g.end_rotation.tolist()), atol=1e-15, rtol=0)
        if pos in ("free", "fixed") and rot in ("free", "fixed", "axis"):
            p = loader.read_IKObjective(ik_text(g))                        # Python reader
            assert (p.link(), p.destLink(), p.numPosDims(), p.numRotDims()) == \
                (k.link(), k.destLink(), k.numPosDims(), k.numRotDims())


def test_multipath_read_by_klampt(tmp_path):
    held = [_random_hold(13), _random_hold(56, rot="free")]
    glob = [_random_hold(62), _random_hold(7)]
    glob[0].name = "foot"
    ik = IKObjective(41, -1, "fixed", RNG.normal(size=3), RNG.normal(size=3), rot_constraint="fixed",
                     end_rotation=RNG.normal(size=3))
    q = RNG.normal(size=(5, 3))
    s0 = Section(q[:3], [0, 0.1, 1 / 3], RNG.normal(size=(3, 3)), [held[0], glob[1], held[1]], [None, 1, None],
                 [ik], {"name": "first section", "note": "a\tb\nc"})
    s1 = Section(q[2:], [1 / 3, 0.5, 2.0], RNG.normal(size=(3, 3)), [glob[0]], ["foot"])
    mp = MultiPath([s0, s1], glob, {"program": "roboio test", "resolution": "0.01"})
    out = str(tmp_path / "mp.xml")
    assert not roboio.save(mp, out).lost
    k = KMultiPath()
    k.load(out)
    assert k.settings == mp.settings
    assert [s.settings for s in k.sections] == [s0.settings, {}]
    for ks, s in zip(k.sections, mp.sections):
        assert ks.configs == s.milestones.tolist() and ks.times == s.times.tolist()
        assert ks.velocities == s.velocities.tolist()
    assert k.sections[0].holdIndices == [1] and k.sections[1].holdIndices == ["foot"]
    for kh, h in zip(k.sections[0].holds, held):
        _check_klampt_hold(kh, h)
    _check_klampt_hold(k.holdSet["foot"], glob[0])
    _check_klampt_hold(k.holdSet[1], glob[1])
    (ko,) = k.sections[0].ikObjectives
    assert ko.getPosition() == (ik.local_position.tolist(), ik.end_position.tolist())
    # klampt's own trajectory of it equals roboio's (Hermite: q then dq)
    kt = k.getTrajectory()
    t = mp.to_trajectory()
    assert kt.times == t.times.tolist()
    assert kt.milestones == np.hstack([t.milestones, t.velocities]).tolist()


def test_json_read_by_klampt(tmp_path):
    def save_load(obj):
        p = str(tmp_path / "x.json")
        roboio.save(obj, p)
        with open(p) as f:
            return loader.from_json(json.load(f))
    q = RNG.normal(size=(4, 3))
    times = np.cumsum(RNG.uniform(0, 1, 4))
    kt = save_load(Trajectory(times, q))
    assert type(kt).__name__ == "Trajectory" and kt.times == times.tolist() and kt.milestones == q.tolist()
    dq = RNG.normal(size=q.shape)
    kh = save_load(Trajectory(times, q, dq))
    assert type(kh).__name__ == "HermiteTrajectory" and kh.milestones == np.hstack([q, dq]).tolist()
    assert save_load(Trajectory(None, q)) == q.tolist()
    g = IKObjective(5, -1, "fixed", RNG.normal(size=3), RNG.normal(size=3), rot_constraint="fixed",
                    end_rotation=RNG.normal(size=3))
    kg = save_load(g)
    assert kg.getPosition() == (g.local_position.tolist(), g.end_position.tolist())
    assert np.allclose(kg.getRotation(), so3.from_moment(g.end_rotation.tolist()), atol=1e-15, rtol=0)
    c = ContactPoint(RNG.normal(size=3), RNG.normal(size=3), 0.3)
    kc = save_load(c)
    assert (kc.x, kc.n, kc.kFriction) == (c.x.tolist(), c.n.tolist(), 0.3)
    h = _random_hold(3)
    _check_klampt_hold(save_load(h), h)


# ------------------------------------------------------------------ klampt writes, roboio reads

def test_klampt_written_files_read_by_roboio(tmp_path):
    q = RNG.normal(size=(3, 4)).tolist()
    t = KTrajectory([0.0, 0.5, 1.25], q)
    t.save(str(tmp_path / "k.path"))                 # times with %f
    r = roboio.load(str(tmp_path / "k.path"))
    assert r.times.tolist() == [0, 0.5, 1.25] and r.milestones.tolist() == q
    loader.save(q, "Configs", str(tmp_path / "k.configs"))
    assert roboio.load(str(tmp_path / "k.configs")).milestones.tolist() == q
    loader.save(q[0], "Config", str(tmp_path / "k.config"))
    assert roboio.load(str(tmp_path / "k.config")).milestones.tolist() == [q[0]]
    with open(tmp_path / "k.json", "w") as f:
        json.dump(loader.to_json(t), f)
    assert roboio.load(str(tmp_path / "k.json")).milestones.tolist() == q

    kik = KIK()
    kik.setFixedPosConstraint([0.1, 0.2, 0.3], [1, 2, 3])
    kik.setAxialRotConstraint([0, 0, 1], [0, 1, 0])
    kik.setLinks(7, 2)
    g = parse_ik_text(kik.saveString(), Where("mem"), LoadContext("mem"))
    assert g == IKObjective(7, 2, "fixed", [0.1, 0.2, 0.3], [1, 2, 3], rot_constraint="axis",
                            local_axis=[0, 0, 1], end_rotation=[0, 1, 0])
    with open(tmp_path / "ik.json", "w") as f:
        json.dump(loader.to_json(kik), f)
    assert roboio.load(str(tmp_path / "ik.json")).local_axis.tolist() == [0, 0, 1]

    kh = loader.read_Hold("begin hold\nlink = 5\ncontacts = 1 2 3 0 0 1 0.5 \\\n 4 5 6 0 0 1 0.25\n"
                          "position = 0.1 0.2 0.3 1 2 3\nend")
    h = parse_hold_text(loader.write_Hold(kh), Where("mem"), LoadContext("mem"))    # Python writer layout
    assert h.link == 5 and [c.kFriction for c in h.contacts] == [0.5, 0.25]
    assert h.ik_constraint.end_position.tolist() == [1, 2, 3]


def test_grasp_ik_goals_read_by_klampt(tmp_path):
    """Klamp't's Python has no grasp reader: its C++ IK reader checks every <IKGoal data>, an
    lxml parse (independent of roboio's reader) the rest."""
    from lxml import etree
    goals = [IKObjective(3, -1, "fixed", RNG.normal(size=3), RNG.normal(size=3), rot_constraint="fixed",
                         end_rotation=RNG.normal(size=3)),
             IKObjective(8, 2, "planar", RNG.normal(size=3), RNG.normal(size=3), RNG.normal(size=3))]
    contacts = [ContactPoint(RNG.normal(size=3), RNG.normal(size=3), 0.4) for _ in range(2)]
    g = roboio.Grasp(4, 1, goals, [2, 5], [0.125, 1 / 7], contacts, [3, 8], [RNG.normal(size=3), None])
    out = str(tmp_path / "g.xml")
    roboio.save(g, out)
    root = etree.parse(out).getroot()
    assert root.tag == "Grasp" and (root.get("object"), root.get("robot")) == ("4", "1")
    fixed = root.get("fixed").split()
    assert [int(x) for x in fixed[0::2]] == [2, 5] and [float(x) for x in fixed[1::2]] == [0.125, 1 / 7]
    for el, goal in zip(root.iter("IKGoal"), goals):
        k = KIK()
        assert k.loadString(el.get("data"))
        assert (k.link(), k.destLink()) == (goal.link, goal.dest_link)
        assert k.getPosition() == (goal.local_position.tolist(), goal.end_position.tolist())
    cs = list(root.iter("contact"))
    assert [int(c.get("link")) for c in cs] == [3, 8]
    assert [[float(x) for x in c.get("x").split()] for c in cs] == [c.x.tolist() for c in contacts]
    assert [float(x) for x in cs[0].get("force").split()] == g.forces[0].tolist() and cs[1].get("force") is None
