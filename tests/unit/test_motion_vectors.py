"""Klamp't .config / .configs / .milestones / .path: grammar corners, writers, bad input.

Expected arrays are written out by hand from the fixture text."""
import os

import numpy as np
import pytest

import roboio
from roboio import FormatError, Trajectory


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def load(tmp_path, name, text, **kw):
    return roboio.load(write(tmp_path, name, text), **kw)


# ------------------------------------------------------------------------------- .config

@pytest.mark.parametrize("text", [
    "3\t1 2 3",                    # Klamp't Python writer
    "3\t1 2 3 \n",                 # C++ writer: trailing space
    "3\n1\n  2 3\n\n",             # C++ reader ignores line structure
    "3 1.0 2e0 +3",                # stream number forms
])
def test_config_forms(tmp_path, text):
    t = load(tmp_path, "a.config", text)
    assert t.times is None
    assert t.milestones.shape == (1, 3)
    assert t.milestones.tolist() == [[1.0, 2.0, 3.0]]


def test_config_number_spellings(tmp_path):
    t = load(tmp_path, "a.config", "6 -0 .5 5. 1e-3 -2.5E+2 inf")
    assert t.milestones[0, :5].tolist() == [0.0, 0.5, 5.0, 0.001, -250.0]
    assert np.signbit(t.milestones[0, 0])
    assert t.milestones[0, 5] == np.inf


def test_config_empty_vector(tmp_path):
    t = load(tmp_path, "a.config", "0\n")
    assert t.milestones.shape == (1, 0)


# ------------------------------------------------------------------------------- .configs

def test_configs_no_leading_count(tmp_path):
    t = load(tmp_path, "a.configs", "2\t1 2\n2\t3 4\n2\t5 6\n")
    assert t.times is None
    assert t.milestones.tolist() == [[1, 2], [3, 4], [5, 6]]


def test_configs_stream_layout(tmp_path):
    # one line or split anywhere: the vectors are a stream
    t = load(tmp_path, "a.configs", "2 1 2 2\n3\n4")
    assert t.milestones.tolist() == [[1, 2], [3, 4]]


def test_configs_empty_file_warns(tmp_path):
    with pytest.warns(roboio.RoboioWarning, match="no configurations"):
        t = load(tmp_path, "a.configs", "\n")
    assert t.num_milestones == 0


# ------------------------------------------------------------------------------- .milestones

def test_milestones_pairs(tmp_path):
    t = load(tmp_path, "a.milestones", "2\t1 2 \t2 0.5 -0.5\n2 3 4 2 0 0\n")
    assert t.times is None
    assert t.milestones.tolist() == [[1, 2], [3, 4]]
    assert t.velocities.tolist() == [[0.5, -0.5], [0, 0]]


# ------------------------------------------------------------------------------- .path

@pytest.mark.parametrize("text", [
    "0\t2\t1 2\n1.5\t2\t3 4\n",                    # Klamp't Python writer layout
    "0    2\t1 2 \n1.5    2\t3 4 \n",              # C++ writer layout
    "\n0 2 1 2\n\n\n1.5 2 3 4\n\n",                # blank lines
    "0 2\n1\n2 1.5 2 3\n4",                        # milestones split over lines (C++ stream)
    "0 2 1 2 1.5 2 3 4",                           # all on one line
])
def test_path_forms(tmp_path, text):
    t = load(tmp_path, "a.path", text)
    assert t.times.tolist() == [0.0, 1.5]
    assert t.milestones.tolist() == [[1, 2], [3, 4]]
    assert t.velocities is None


def test_path_txt_extension(tmp_path):
    t = load(tmp_path, "sway.txt", "0\t3\t 0 0 0\n2\t3\t 0 1.5 0\n")
    assert t.times.tolist() == [0, 2]
    assert t.milestones.tolist() == [[0, 0, 0], [0, 1.5, 0]]


def test_path_decreasing_times_warn(tmp_path):
    with pytest.warns(roboio.RoboioWarning, match="times decrease"):
        t = load(tmp_path, "a.path", "0 1 0\n2 1 1\n1 1 2\n")
    assert t.times.tolist() == [0, 2, 1]
    with pytest.raises(FormatError, match="times decrease"):
        load(tmp_path, "b.path", "0 1 0\n2 1 1\n1 1 2\n", strict=True)


def test_trajectory_eval_clamps():
    t = Trajectory([0.0, 1.0, 3.0], [[0.0, 0.0], [1.0, 2.0], [3.0, 2.0]])
    assert t.eval(0.5).tolist() == [0.5, 1.0]
    assert t.eval(2.0).tolist() == [2.0, 2.0]
    assert t.eval(-1.0).tolist() == [0.0, 0.0]
    assert t.eval(10.0).tolist() == [3.0, 2.0]
    assert t.duration == 3.0


# ------------------------------------------------------------------------------- writers

def test_writers_exact_text(tmp_path):
    t = Trajectory([0.0, 0.1], [[1.0, 0.1 + 0.2], [-0.0, 1e-300]])
    for name, fmt, expected in [
        ("a.path", None, "0\t2\t1 0.30000000000000004\n0.1\t2\t-0 1e-300\n"),
        ("a.configs", None, "2\t1 0.30000000000000004\n2\t-0 1e-300\n"),
    ]:
        roboio.save(t, str(tmp_path / name), fmt)
        assert (tmp_path / name).read_text() == expected
    one = Trajectory(None, [[1.0, 2.5]])
    r = roboio.save(one, str(tmp_path / "b.config"))
    assert (tmp_path / "b.config").read_text() == "2\t1 2.5\n"
    assert not r.lost


def test_milestones_writer_text(tmp_path):
    t = Trajectory(None, [[1.0, 2.0]], [[0.25, -1.0]])
    r = roboio.save(t, str(tmp_path / "a.milestones"))
    assert (tmp_path / "a.milestones").read_text() == "2\t1 2\t2\t0.25 -1\n"
    assert not r.lost


def test_full_precision_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    q = rng.normal(size=(7, 5)) * 10.0 ** rng.integers(-8, 8, size=(7, 5))
    times = np.cumsum(rng.uniform(0, 1, 7)) / 3
    vel = rng.normal(size=(7, 5))
    cases = [("a.path", Trajectory(times, q)), ("a.configs", Trajectory(None, q)),
             ("a.milestones", Trajectory(None, q, vel)), ("a.config", Trajectory(None, q[:1]))]
    for name, traj in cases:
        roboio.save(traj, str(tmp_path / name))
        back = roboio.load(str(tmp_path / name))
        assert np.array_equal(back.milestones, traj.milestones), name
        assert (back.times is None) == (traj.times is None)
        if traj.times is not None:
            assert np.array_equal(back.times, traj.times)
        if traj.velocities is not None:
            assert np.array_equal(back.velocities, traj.velocities)


def test_writers_report_losses(tmp_path):
    timed = Trajectory([0, 1], [[1, 2], [3, 4]], [[0, 0], [1, 1]])
    r = roboio.save(timed, str(tmp_path / "a.configs"))
    assert any("times" in x for x in r.lost) and any("velocities" in x for x in r.lost)
    r = roboio.save(timed, str(tmp_path / "a.config"))
    assert any("milestones 2-2" in x for x in r.lost)
    r = roboio.save(timed, str(tmp_path / "a.path"))
    assert r.lost == ["velocities (a .path is piecewise linear)"]
    untimed = Trajectory(None, [[1, 2], [3, 4]])
    r = roboio.save(untimed, str(tmp_path / "b.path"))
    assert any("untimed" in x for x in r.lost)
    assert roboio.load(str(tmp_path / "b.path")).times.tolist() == [0, 1]
    r = roboio.save(untimed, str(tmp_path / "b.milestones"))
    assert not r.lost and any("zeros" in w for w in r.warnings)
    with pytest.raises(ValueError):
        roboio.save(Trajectory(None, np.zeros((0, 3))), str(tmp_path / "c.config"))


def test_failed_write_leaves_no_file(tmp_path):
    with pytest.raises(ValueError):
        roboio.save(Trajectory(None, np.zeros((0, 3))), str(tmp_path / "c.config"))
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------------------------- bad input

BAD = [
    ("a.config", "3 1 2", 1, "only 2 numbers follow"),
    ("a.config", "3 1 x 3", 1, "expected a number"),
    ("a.config", "3\n1\n2 3 4", 3, "after the configuration"),
    ("a.config", "3.0 1 2 3", 1, "integer"),
    ("a.config", "-1", 1, "negative length"),
    ("a.config", "", 1, "empty file"),
    ("a.config", "<?xml version='1.0'?>\n<model/>", 1, "XML"),
    ("a.config", "2 1_0 2", 1, "expected a number"),
    ("a.configs", "2 1 2\n3 1 2 3\n", 2, "the first has 2"),
    ("a.configs", "2 1 2\n3 1 2\n", 2, "only 2 numbers follow"),
    ("a.configs", "2 1 2\n# comment\n", 2, "integer"),
    ("a.milestones", "2 1 2 2 0 0\n2 3 4\n", 2, "no velocity"),
    ("a.milestones", "2 1 2 3 0 0 0\n", 1, "velocities have 3 values"),
    ("a.path", "0 2 1 2\n1 2 3\n", 2, "only 1 numbers follow"),
    ("a.path", "0 2 1 2\n1 3 3 4 5\n", 2, "the first has 2"),
    ("a.path", "0 2 1 2\nx 2 3 4\n", 2, "expected a number"),
    ("a.path", "0 2 1 abc\n", 1, "expected a number"),
    ("a.path", "0 2.5 1 2\n", 1, "integer"),
]


@pytest.mark.parametrize("name,text,line,message", BAD)
def test_bad_input(tmp_path, name, text, line, message):
    p = write(tmp_path, name, text)
    with pytest.raises(FormatError) as e:
        roboio.load(p)
    assert e.value.path == p
    assert e.value.line == line, str(e.value)
    assert message in str(e.value)
