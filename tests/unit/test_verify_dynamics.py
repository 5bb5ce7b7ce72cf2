"""`roboio verify --dynamics`, `roboio diff` on inertias and `roboio dynamics`: a 1% mass
change, a 1 mm COM shift and an inertia turned by 1 degree in one link of a converted file are
caught and the link is named; torques along a motion against hand-computed values."""
import json
import os
import re

import numpy as np
import pytest

import roboio
from roboio.cli.main import main
from roboio.transforms import rpy_to_matrix
from roboio.verify_dynamics import rigid_groups, verify_dynamics

from conftest import SAMPLES

ARM = os.path.join(SAMPLES, "planar_arm.rob")


def _urdf(tmp_path):
    out = str(tmp_path / "arm.urdf")
    roboio.save(roboio.load(ARM), out)
    return out


def _edit_inertial(path, link, edit, out):
    """Rewrite the <inertial> of ``link`` in a URDF text with ``edit(mass, xyz, I)``."""
    text = open(path).read()
    start = text.index(f'<link name="{link}"')
    end = text.index("</link>", start)
    seg = text[start:end]
    mass = float(re.search(r'<mass value="([^"]+)"', seg).group(1))
    xyz = np.array([float(v) for v in re.search(r'<origin xyz="([^"]+)"', seg[seg.index("<inertial"):]).group(1).split()])
    keys = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    vals = {k: float(re.search(f'{k}="([^"]+)"', seg).group(1)) for k in keys}
    I = np.array([[vals["ixx"], vals["ixy"], vals["ixz"]], [vals["ixy"], vals["iyy"], vals["iyz"]],
                  [vals["ixz"], vals["iyz"], vals["izz"]]])
    mass, xyz, I = edit(mass, xyz, I)
    f = lambda v: repr(float(v))   # noqa: E731
    inertial = (f'<inertial><origin xyz="{f(xyz[0])} {f(xyz[1])} {f(xyz[2])}"/>'
                f'<mass value="{f(mass)}"/><inertia ixx="{f(I[0, 0])}" ixy="{f(I[0, 1])}" '
                f'ixz="{f(I[0, 2])}" iyy="{f(I[1, 1])}" iyz="{f(I[1, 2])}" izz="{f(I[2, 2])}"/>'
                '</inertial>')
    seg = re.sub(r"<inertial>.*?</inertial>", inertial, seg, flags=re.S)
    open(out, "w").write(text[:start] + seg + text[end:])
    return out


def _turned(deg):
    R = rpy_to_matrix([0.0, 0.0, np.radians(deg)])       # the x and y moments differ
    return lambda m, c, I: (m, c, R @ I @ R.T)


EDITS = {"mass": lambda m, c, I: (1.01 * m, c, I),
         "com": lambda m, c, I: (m, c + np.array([0.0, 0.001, 0.0]), I),
         "inertia": _turned(1.0)}


@pytest.mark.parametrize("what", sorted(EDITS))
def test_verify_dynamics_catches_small_inertial_changes(what, tmp_path, capsys):
    good = _urdf(tmp_path)
    bad = _edit_inertial(good, "elbow", EDITS[what], str(tmp_path / "bad.urdf"))
    assert main(["verify", ARM, good, "--dynamics", "--samples", "10"]) == 0
    capsys.readouterr()
    assert main(["verify", ARM, bad, "--dynamics", "--samples", "10"]) == 1
    out = capsys.readouterr().out
    assert "DYNAMICS MISMATCH" in out and "differs: elbow:" in out
    word = {"mass": "mass 1 -> 1.01 kg (+1%)", "com": "COM moved 0.001 m",
            "inertia": "principal axes turned 1 deg"}[what]
    assert word in out, out
    assert main(["verify", ARM, bad, "--dynamics", "--json", "--samples", "10"]) == 1
    res = json.loads(capsys.readouterr().out)
    assert res["ok"] is False and res["dynamics"]["links"][0]["link"] == "elbow"
    # the kinematics alone do not see it
    assert main(["verify", ARM, bad, "--samples", "10"]) == 0


def test_rigid_groups_carry_welded_links():
    r = roboio.load(ARM)
    g = rigid_groups(r)
    assert sorted(g) == list(range(r.num_links))          # no welds in the sample arm
    m, c, I = g[2]
    assert m == r.links[2].mass and np.allclose(c, r.links[2].com)
    r.joints[5].type = "weld"                              # finger_right rides on the wrist
    g = rigid_groups(r)
    assert 5 not in g and g[3][0] == pytest.approx(r.links[3].mass + r.links[5].mass)


def test_verify_dynamics_by_joint_when_links_differ():
    a = roboio.load(ARM)
    b = a.copy()
    b.links[5].name = "other_finger"                       # no namesake: compare by joint
    res = verify_dynamics(a, b, samples=4)
    assert res.space == "drivers" and res.ok
    b.links[5].mass = 0.06
    res = verify_dynamics(a, b, samples=4)
    assert not res.ok and res.max_mass_matrix_error > 1e-4


def test_diff_shows_inertial_sizes(tmp_path, capsys):
    good = _urdf(tmp_path)
    bad = _edit_inertial(good, "elbow", lambda m, c, I: (
        1.01 * m, c + [0.001, 0, 0], _turned(1.0)(m, c, I)[2]), str(tmp_path / "bad.urdf"))
    main(["diff", good, bad])
    out = capsys.readouterr().out
    assert "link 'elbow': mass 1 -> 1.01 kg (+1%)" in out
    assert "moved 0.001 m in the link frame" in out
    assert "principal axes turned 1 deg" in out


# -- roboio dynamics ---------------------------------------------------------------------------

def test_dynamics_command_at_a_configuration(capsys):
    assert main(["dynamics", ARM, "--config", "shoulder=0.5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    r = roboio.load(ARM)
    assert out["total_mass"] == pytest.approx(5.1)
    q = r.config_from_joints(shoulder=0.5)
    assert np.allclose(out["com"], r.com(q), atol=1e-15)
    assert out["joints"] == r.joint_space.names
    # shoulder: the arm beyond it (COMs along x at height 0.3) held against gravity, by hand
    T = r.fk(q)
    hand = sum(l.mass * np.cross(T[i, :3, :3] @ l.com + T[i, :3, 3] - T[1, :3, 3],
                                 [0, 0, -9.81])[1] for i, l in enumerate(r.links) if i >= 1)
    assert out["gravity_torques"][1] == pytest.approx(-hand, rel=1e-12)
    assert out["torque_limits"][1] == [-20.0, 20.0]
    assert main(["dynamics", ARM]) == 0
    assert "total mass: 5.1 kg" in capsys.readouterr().out


def test_dynamics_command_along_a_motion(tmp_path, capsys):
    """A timed Klamp't path that swings the shoulder: torques from second differences, and
    the intervals beyond the torque limits."""
    r = roboio.load(ARM)
    t = np.linspace(0, 1, 51)
    Q = np.tile(r.config, (len(t), 1))
    Q[:, 1] = 1.2 * np.sin(2 * np.pi * t)                  # fast: beyond 20 N m at times
    path = tmp_path / "swing.path"
    path.write_text("".join(f"{float(ti)!r}\t{len(q)}\t" + " ".join(repr(float(v)) for v in q)
                            + "\n" for ti, q in zip(t, Q)))
    status = main(["dynamics", ARM, "--motion", str(path), "--json"])
    out = json.loads(capsys.readouterr().out)
    dQ = np.gradient(Q, t, axis=0)
    ddQ = np.gradient(dQ, t, axis=0)
    D = r.joint_space.jacobian()
    expect = np.array([r.inverse_dynamics(q, v, a) for q, v, a in zip(Q, dQ, ddQ)]) @ D
    assert np.allclose(out["torques"], expect, rtol=0, atol=1e-9 * np.abs(expect).max())
    over = np.abs(expect[:, 1]) > 20.0
    assert status == (1 if over.any() else 0) and over.any()
    first = out["exceeded"][0]
    assert first["joint"] == "shoulder" and first["start"] == pytest.approx(t[np.argmax(over)])
    assert main(["dynamics", ARM, "--motion", str(path)]) == 1
    assert "torque limits exceeded:" in capsys.readouterr().out


def test_dynamics_command_errors(tmp_path, capsys):
    assert main(["dynamics", ARM, "--gravity", "0 0"]) == 2
    bad = tmp_path / "bad.path"
    bad.write_text("0\t2\t0 0\n")
    assert main(["dynamics", ARM, "--motion", str(bad)]) == 2
    assert "values" in capsys.readouterr().err
