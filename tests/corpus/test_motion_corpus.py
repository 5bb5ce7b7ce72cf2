"""Every Klamp't motion/contact file of the corpus against what real Klamp't read
(oracle/motions.json), plus roboio round trips, `roboio info` and `roboio convert`."""
import json
import os

import numpy as np
import pytest

import roboio
from roboio import MultiPath, Stance, Trajectory
from roboio.cli.main import main

from conftest import KLAMPT, ORACLE

TOL = 1e-12


def _oracle():
    p = os.path.join(ORACLE, "motions.json")
    if not os.path.exists(p):
        return {}
    with open(p) as f:
        return json.load(f)["files"]


ORACLE_FILES = _oracle()
SOURCES = sorted(ORACLE_FILES)


@pytest.fixture(scope="module")
def loaded():
    if not SOURCES:
        pytest.skip("corpus ../shared/corpus not present")
    return {src: roboio.load(os.path.join(KLAMPT, src)) for src in SOURCES}


def close(a, b):
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=0, atol=TOL)


@pytest.mark.parametrize("src", SOURCES)
def test_against_oracle(loaded, src):
    exp, obj = ORACLE_FILES[src], loaded[src]
    assert exp["loaded"]
    kind = exp["klampt_type"]
    if kind == "Stance":
        assert isinstance(obj, Stance)
        assert [h.link for h in obj.holds] == exp["hold_links"]
        assert [len(h.contacts) for h in obj.holds] == exp["num_contacts"]
        assert len(obj.holds) == exp["num_holds"]
    elif kind == "MultiPath":
        assert isinstance(obj, MultiPath)
        assert len(obj.sections) == exp["num_sections"]
        assert obj.num_milestones == exp["num_milestones"] and obj.dimension == exp["dimension"]
        assert obj.timed == exp["has_times"] and len(obj.holds) == exp["num_global_holds"]
        if exp["duration"] is None:
            assert not obj.timed
        else:
            assert abs(obj.duration - exp["duration"]) <= TOL
        for s, e in zip(obj.sections, exp["sections"]):
            assert (s.num_milestones, s.dimension) == (e["num_milestones"], e["dimension"])
            assert len(s.holds) == e["num_holds"] and len(s.ik_goals) == e["num_ikgoals"]
            if e["t_first"] is None:
                assert s.times is None
            else:
                assert abs(s.times[0] - e["t_first"]) <= TOL and abs(s.times[-1] - e["t_last"]) <= TOL
    else:
        assert isinstance(obj, Trajectory)
        if src.endswith(".milestones"):
            # the oracle read it as Configs: vectors alternate configuration, velocity
            vectors = np.stack([obj.milestones, obj.velocities], axis=1).reshape(-1, obj.dimension)
            assert obj.times is None
        else:
            vectors = obj.milestones
        assert len(vectors) == exp["num_milestones"] and vectors.shape[1] == exp["dimension"]
        if kind == "Config":
            assert obj.times is None and close(vectors[0], exp["config"])
        else:
            assert close(vectors[0], exp["first_milestone"]) and close(vectors[-1], exp["last_milestone"])
        if kind == "Trajectory":
            assert abs(obj.times[0] - exp["t_first"]) <= TOL and abs(obj.times[-1] - exp["t_last"]) <= TOL
        else:
            assert obj.times is None


def test_gazebo_model_config_is_a_clear_error():
    path = os.path.join(KLAMPT, "objects", "apc", "kiva_pod", "model.config")
    if not os.path.exists(path):
        pytest.skip("corpus ../shared/corpus not present")
    with pytest.raises(roboio.FormatError, match="XML content"):
        roboio.load(path)


def _same(a, b):
    if isinstance(a, Trajectory):
        return (np.array_equal(a.milestones, b.milestones)
                and (a.times is None) == (b.times is None) and (a.times is None or np.array_equal(a.times, b.times))
                and (a.velocities is None) == (b.velocities is None)
                and (a.velocities is None or np.array_equal(a.velocities, b.velocities)))
    if isinstance(a, MultiPath):
        return (a.settings == b.settings and a.holds == b.holds and len(a.sections) == len(b.sections)
                and all(x.settings == y.settings and x.holds == y.holds and x.hold_refs == y.hold_refs
                        and x.ik_goals == y.ik_goals and _same(Trajectory(x.times, x.milestones, x.velocities),
                                                               Trajectory(y.times, y.milestones, y.velocities))
                        for x, y in zip(a.sections, b.sections)))
    return a == b


@pytest.mark.parametrize("src", SOURCES)
def test_round_trip_same_format(loaded, src, tmp_path):
    obj = loaded[src]
    out = str(tmp_path / os.path.basename(src))
    report = roboio.save(obj, out)
    assert not report.lost
    back = roboio.load(out)
    assert type(back) is type(obj) and _same(back, obj)
    again = str(tmp_path / ("again_" + os.path.basename(src)))
    roboio.save(back, again)
    assert open(again).read() == open(out).read()


@pytest.mark.parametrize("src", SOURCES)
def test_cli_info(src, capsys):
    path = os.path.join(KLAMPT, src)
    assert main(["info", "--json", path]) == 0
    info = json.loads(capsys.readouterr().out)
    kind = ORACLE_FILES[src]["klampt_type"]
    assert info["kind"] == {"Stance": "stance", "MultiPath": "multipath"}.get(kind, "trajectory")
    assert main(["info", path]) == 0
    assert "kind:" in capsys.readouterr().out


def test_cli_convert_chain(tmp_path, capsys):
    src = os.path.join(KLAMPT, "motions", "athlete_flex.path")
    if not os.path.exists(src):
        pytest.skip("corpus ../shared/corpus not present")
    original = roboio.load(src)
    steps = [(src, "a.configs"), ("a.configs", "b.xml"), ("b.xml", "c.json"), ("c.json", "d.path"),
             (src, "e.xml"), ("e.xml", "f.json"), ("f.json", "g.path")]
    for a, b in steps:
        a = a if os.path.isabs(a) else str(tmp_path / a)
        assert main(["convert", a, str(tmp_path / b)]) == 0
    out = capsys.readouterr().out
    assert "lost (warning): times" in out                    # .path -> .configs
    for name in ("a.configs", "b.xml", "c.json", "d.path"):
        assert np.array_equal(roboio.load(str(tmp_path / name)).milestones
                              if name != "b.xml" else roboio.load(str(tmp_path / name)).sections[0].milestones,
                              original.milestones)
    assert roboio.load(str(tmp_path / "d.path")).times.tolist() == [0, 1, 2]      # untimed -> by index
    g = roboio.load(str(tmp_path / "g.path"))
    assert np.array_equal(g.times, original.times) and np.array_equal(g.milestones, original.milestones)


def test_cli_convert_multipath_to_path_reports(tmp_path, capsys):
    src = os.path.join(KLAMPT, "motions", "hubo_sway_path_contacts.xml")
    if not os.path.exists(src):
        pytest.skip("corpus ../shared/corpus not present")
    assert main(["convert", "--json", src, str(tmp_path / "a.path")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["lost"] == ["holds (2 in sections, 0 global)"]
    t = roboio.load(str(tmp_path / "a.path"))
    mp = roboio.load(src)
    assert np.array_equal(t.milestones, mp.sections[0].milestones)


def test_xml_files_routed_by_root():
    """World and multipath .xml files of the corpus go to their readers by root element."""
    import glob
    from lxml import etree
    from roboio.formats import registry
    paths = glob.glob(os.path.join(KLAMPT, "**", "*.xml"), recursive=True)
    if not paths:
        pytest.skip("corpus ../shared/corpus not present")
    expected = {"world": "klampt-world", "multipath": "klampt-multipath"}
    seen = set()
    for p in paths:
        root = etree.parse(p).getroot().tag
        if root in expected:
            assert registry.find_reader(p).name == expected[root], p
            seen.add(root)
    assert seen == set(expected)
