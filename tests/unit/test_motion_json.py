"""Klamp't JSON forms of motions and contacts (Python to_json and C++ Convert shapes).

Fixtures are the JSON shapes written out by hand from the spec (§9.10)."""
import json

import numpy as np
import pytest

import roboio
from roboio import ContactPoint, FormatError, Grasp, Hold, IKObjective, Stance, Trajectory
from roboio.formats.klampt.motion import json_motion


def load(tmp_path, value, name="a.json"):
    p = tmp_path / name
    p.write_text(value if isinstance(value, str) else json.dumps(value))
    return roboio.load(str(p))


def test_config_and_configs(tmp_path):
    t = load(tmp_path, [1, 2.5, -3])
    assert t.times is None and t.milestones.tolist() == [[1, 2.5, -3]]
    t = load(tmp_path, [[1, 2], [3, 4]])
    assert t.times is None and t.milestones.tolist() == [[1, 2], [3, 4]]


def test_trajectories(tmp_path):
    t = load(tmp_path, {"times": [0, 1.5], "milestones": [[0, 1], [2, 3]]})
    assert t.times.tolist() == [0, 1.5] and t.milestones.tolist() == [[0, 1], [2, 3]]
    h = load(tmp_path, {"type": "HermiteTrajectory", "times": [0, 1], "milestones": [[0, 1, 5, 6], [2, 3, 7, 8]]})
    assert h.milestones.tolist() == [[0, 1], [2, 3]] and h.velocities.tolist() == [[5, 6], [7, 8]]
    se3 = [1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0, 0]
    s = load(tmp_path, {"type": "SE3Trajectory", "times": [0], "milestones": [se3]})
    assert s.milestones.tolist() == [se3] and s.extras["klampt_type"] == "SE3Trajectory"


def test_ik_contact_hold_stance_grasp(tmp_path):
    ik = load(tmp_path, {"type": "IKObjective", "link": 4, "destLink": 2, "posConstraint": "fixed",
                         "localPosition": [0, 0, 0.1], "endPosition": [1, 2, 3],
                         "rotConstraint": "axis", "localAxis": [0, 0, 1], "endRotation": [1, 0, 0]})
    assert ik == IKObjective(4, 2, "fixed", [0, 0, 0.1], [1, 2, 3], rot_constraint="axis",
                             local_axis=[0, 0, 1], end_rotation=[1, 0, 0])
    cpp_ik = load(tmp_path, {"link": 4, "posConstraint": "planar", "localPosition": [0, 0, 0],
                             "endPosition": [0, 0, 1], "direction": [0, 0, 1]})
    assert cpp_ik.pos_constraint == "planar" and cpp_ik.direction.tolist() == [0, 0, 1]
    assert load(tmp_path, {"link": 3}) == IKObjective(3)
    cp = load(tmp_path, {"x": [1, 2, 3], "n": [0, 0, 1], "kFriction": 0.25})
    assert cp == ContactPoint([1, 2, 3], [0, 0, 1], 0.25)
    text = "begin hold\nlink = 5\ncontacts = 1 2 3 0 0 1 0.5\nposition = 0 0 0 1 2 3\nend\n"
    h = load(tmp_path, {"type": "Hold", "data": text})
    assert isinstance(h, Hold) and h.link == 5 and h.ik_constraint.end_position.tolist() == [1, 2, 3]
    cpp_hold = {"ik": {"link": 5, "posConstraint": "fixed", "localPosition": [0, 0, 0], "endPosition": [1, 2, 3]},
                "contacts": [{"x": [1, 2, 3], "n": [0, 0, 1], "kFriction": 0.5}]}
    assert load(tmp_path, cpp_hold) == h
    s = load(tmp_path, {"holds": [cpp_hold]})
    assert isinstance(s, Stance) and s.holds == [h]
    g = load(tmp_path, {"objectIndex": 1, "robotIndex": 0, "constraints": [{"link": 5}], "fixedValues": [0.5],
                        "fixedDofs": [3], "contacts": [{"x": [0, 0, 0], "n": [1, 0, 0], "kFriction": 1}],
                        "contactLinks": [5], "forces": []})
    assert isinstance(g, Grasp) and g.fixed_dofs == [3] and g.contact_links == [5] and g.forces == [None]


@pytest.mark.parametrize("obj", [
    Trajectory([0, 0.1], [[0.1 + 0.2, -0.0], [1e-300, 7]]),
    Trajectory([0, 0.1], [[1, 2], [3, 4]], [[0.5, 0.5], [0, 0]]),
    Trajectory(None, [[1, 2], [3, 4]]),
    Trajectory(None, [[1, 2]]),
    IKObjective(1, 3, "linear", [0, 0, 0], [1, 1, 1], [0, 1, 0], "twoaxis", [1, 0, 0], [0, 0, 1]),
    ContactPoint([0.1, 0.2, 0.3], [0, 0, 1], 0.7),
    Hold(2, [ContactPoint([1, 0, 0], [0, 0, 1], 0.5)], IKObjective(2, -1, "fixed", [0, 0, 0], [1, 0, 0],
                                                                   rot_constraint="fixed", end_rotation=[0, 0, 0.3])),
    Stance([Hold(2, [], IKObjective(2, -1, "fixed", [0, 0, 0], [1, 0, 0])),
            Hold(7, [], IKObjective(7, 1, "fixed", [0, 0, 0], [2, 0, 0]))]),
    Grasp(1, 0, [IKObjective(4)], [3], [0.25], [ContactPoint([0, 0, 0], [0, 0, 1], 1)], [4], [np.array([1, 2, 3])]),
])
def test_round_trip(tmp_path, obj):
    out = str(tmp_path / "x.json")
    roboio.save(obj, out)
    back = roboio.load(out)
    if isinstance(obj, Trajectory):
        assert np.array_equal(back.milestones, obj.milestones)
        assert (back.times is None) == (obj.times is None)
        if obj.times is not None:
            assert np.array_equal(back.times, obj.times)
        assert (back.velocities is None) == (obj.velocities is None)
        if obj.velocities is not None:
            assert np.array_equal(back.velocities, obj.velocities)
    else:
        assert back == obj


def test_json_layouts(tmp_path):
    out = tmp_path / "t.json"
    roboio.save(Trajectory([0, 1], [[1, 2], [3, 4]]), str(out))
    assert json.loads(out.read_text()) == {"times": [0, 1], "milestones": [[1, 2], [3, 4]]}
    roboio.save(Trajectory(None, [[1, 2]]), str(out))
    assert json.loads(out.read_text()) == [1, 2]
    roboio.save(IKObjective(3, -1, "fixed", [0, 0, 0], [1, 2, 3]), str(out))
    assert json.loads(out.read_text()) == {"type": "IKObjective", "link": 3, "posConstraint": "fixed",
                                          "localPosition": [0, 0, 0], "endPosition": [1, 2, 3]}
    r = roboio.save(Trajectory(None, [[1, 2]], [[0, 0]]), str(out))
    assert any("untimed" in x for x in r.lost)


def test_sniff_accepts_klampt_rejects_heightmap():
    yes = [b"[0, 1, 2]", b"[[1, 2], [3, 4]]", b'{"times": [0], "milestones": [[1]]}',
           b'{"type": "Hold", "data": "begin hold"}', b'{"holds": []}', b'{"link": 1, "posConstraint": "fixed"',
           b'{"objectIndex": 0, "robotIndex": 0}', b'{"x": [0,0,0], "n": [0,0,1], "kFriction": 1}',
           b'{"type":"SE3Trajectory","times":[]}']
    no = [b'{\n "#comment": "x",\n "type":"Heightmap",\n "xsize":18.00}', b'["a", "b"]', b"<xml/>",
          b'{"type": "TriangleMesh", "vertices": []}', b'{"name": "x"}']
    assert all(json_motion.sniff(h, "a.json") for h in yes)
    assert not any(json_motion.sniff(h, "a.json") for h in no)


@pytest.mark.parametrize("text,line,message", [
    ('{"times": [0, 1], "milestones": [[1]]}', None, "2 times for 1 milestones"),
    ('{"times": [0], "milestones": [[1, "x"]]}', None, "expected a list of numbers"),
    ('[[1, 2], [3]]', None, "has 1 values"),
    ('{"type": "IKObjective", "link": 1, "posConstraint": "fixed", "localPosition": [0, 0]}', None,
     "expected 3 numbers"),
    ('{"type": "Hold", "data": "begin hold\\nlink = 1\\nend"}', 1, "without 'position'"),
    ('{"times": [0,\n 1,, 2]}', 2, "malformed JSON"),
    ('{"type": "HermiteTrajectory", "times": [0], "milestones": [[1, 2, 3]]}', None, "even"),
])
def test_bad_json(tmp_path, text, line, message):
    p = tmp_path / "bad.json"
    p.write_text(text)
    with pytest.raises(FormatError) as e:
        roboio.load(str(p), format="klampt-json-motion")
    assert e.value.path == str(p) and e.value.line == line and message in str(e.value), str(e.value)
