"""The command line on corpus robots of other ecosystems, driven through ``python -m roboio``
as a user drives it: a GraspIt! hand (DOFs coupling several joints) and an OpenRAVE arm with
a hand (mimic joints, data directory given with --data-path).

Expected values are read from the robot files by the test itself (xml.etree, GraspIt!'s
``theta`` expressions ``dK*ratio+offset`` and degree limits; OpenRAVE's ``limitsdeg`` and
``mimic_pos`` formulas), not from roboio.
"""
import json
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, corpus_path


def roboio(*args):
    r = subprocess.run([sys.executable, "-m", "roboio", *map(str, args)], cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True,
                       timeout=300)
    return r.returncode, r.stdout, r.stderr


# -- GraspIt! Barrett hand ------------------------------------------------------------------

def _barrett_joints(path):
    """[(chain, joint, dof, ratio, min deg, max deg)] from the hand's XML."""
    out = []
    for c, chain in enumerate(ET.parse(path).getroot().iter("chain")):
        for j, joint in enumerate(chain.iter("joint")):
            m = re.fullmatch(r"d(\d+)(?:\*([0-9.]+(?:[eE][+-]?\d+)?))?([+-][0-9.]+)?", joint.findtext("theta").strip())
            out.append((c, j, int(m.group(1)), float(m.group(2) or 1.0),
                        float(joint.findtext("minValue")), float(joint.findtext("maxValue"))))
    return out


@pytest.fixture(scope="module")
def barrett():
    path = corpus_path("graspit", "models", "robots", "Barrett", "Barrett.xml")
    rc, out, err = roboio("info", path, "--json")
    assert rc == 0, err
    return path, json.loads(out), _barrett_joints(path)


def test_graspit_hand_joint_vector_is_its_dofs(barrett):
    path, info, joints = barrett
    ndof = len(ET.parse(path).getroot().findall("dof"))
    assert info["num_joints"] == ndof == 4
    assert [j["index"] for j in info["joints"]] == list(range(ndof))
    for j in info["joints"]:
        k = j["index"]
        driven = [(c, i) for c, i, d, *_ in joints if d == k]
        assert j["links"] == [f"Barrett_chain{c}_joint{i}" for c, i in driven]
        lo = min(mn for _, _, d, _, mn, _ in joints if d == k)
        hi = max(mx for _, _, d, _, _, mx in joints if d == k)
        assert j["type"] == "revolute" and j["unit"] == "rad"
        assert j["lower"] == pytest.approx(math.radians(lo), abs=1e-12)
        assert j["upper"] == pytest.approx(math.radians(hi), abs=1e-12)


def test_graspit_hand_tree_shows_couplings_with_their_ratio(barrett):
    path, info, joints = barrett
    tree = {t["child"]: t for t in info["tree"]}
    leader = {}
    for c, i, d, ratio, mn, mx in joints:
        t = tree[f"Barrett_chain{c}_joint{i}"]
        assert t["type"] == "revolute"
        assert t["lower"] == pytest.approx(math.radians(mn)) and t["upper"] == pytest.approx(math.radians(mx))
        if d not in leader:
            leader[d] = (f"Barrett_chain{c}_joint{i}", ratio)
            assert t["mimic"] is None
        else:
            name, r0 = leader[d]
            assert t["mimic"]["leader"] == name and t["mimic"]["driver"] == f"dof{d}"
            assert t["mimic"]["multiplier"] == pytest.approx(ratio / r0, rel=1e-12)
    # the bodies between the joints are fixed to them
    assert all(tree[f"Barrett_chain{c}_link{i}"]["type"] == "fixed" for c, i, *_ in joints)
    rc, out, err = roboio("info", path, "--tree")
    assert rc == 0, err
    assert "Barrett_chain0_joint2  [revolute, axis z, 0°..144° (0..2.5133 rad), " \
           "mimic Barrett_chain0_joint1 ×0.333333]" in out
    assert "Barrett_chain0_link0  [fixed]" in out


def test_graspit_hand_fk_by_dof_name_moves_every_coupled_joint(barrett):
    path, info, joints = barrett
    rc, out, err = roboio("fk", path, "--config", "dof1=0.6 dof3=30deg", "--link", "Barrett_chain2_link1",
                          "--json")
    assert rc == 0, err
    data = json.loads(out)
    [s] = data["samples"]
    q = dict(zip(data["config_names"], s["config"]))
    assert s["joints"] == pytest.approx({"dof0": 0.0, "dof1": 0.6, "dof2": 0.0, "dof3": math.radians(30)})
    for c, i, d, ratio, *_ in joints:
        value = {1: 0.6, 3: math.radians(30)}.get(d, 0.0)
        r0 = next(r for _, _, dd, r, *_ in joints if dd == d)
        assert q[f"Barrett_chain{c}_joint{i}"] == pytest.approx(value * ratio / r0, abs=1e-12)


# -- OpenRAVE Barrett WAM ---------------------------------------------------------------------

def _openrave_joints(*paths):
    """{joint name: (min deg, max deg, mimic formula or None)} from OpenRAVE kinbody files."""
    out = {}
    for p in paths:
        for j in ET.parse(p).getroot().iter():
            if j.tag.lower() != "joint" or not j.get("name"):
                continue
            lim = j.findtext("limitsdeg")
            out[j.get("name")] = (tuple(map(float, lim.split())) if lim else None, j.get("mimic_pos"))
    return out


@pytest.fixture(scope="module")
def wam():
    data = corpus_path("openrave", "src")
    robots = os.path.join(data, "robots")
    path = os.path.join(robots, "barrettwam.robot.xml")
    rc, out, err = roboio("info", path, "--json", "--data-path", data)
    assert rc == 0, err
    return path, data, json.loads(out), _openrave_joints(
        os.path.join(robots, "wam7.kinbody.xml"), os.path.join(robots, "barretthand.kinbody.xml"))


def test_openrave_robot_joint_vector_and_limits(wam):
    path, data, info, joints = wam
    actuated = [n for n, (_, mimic) in joints.items() if mimic is None]
    assert sorted(j["name"] for j in info["joints"]) == sorted(actuated)
    for j in info["joints"]:
        lo, hi = joints[j["name"]][0]
        assert j["lower"] == pytest.approx(math.radians(lo), abs=1e-9)
        assert j["upper"] == pytest.approx(math.radians(hi), abs=1e-9)


def test_openrave_robot_tree_mimics(wam):
    path, data, info, joints = wam
    mimics = [t for t in info["tree"] if t["mimic"]]
    formulas = {n: m for n, (_, m) in joints.items() if m}
    assert len(mimics) == len(formulas) == 4
    for t in mimics:
        m = t["mimic"]
        f = formulas[f"{m['driver']}mimic"]           # JF1mimic: mimic_pos="JF1/3+0.8727"
        mult = re.fullmatch(rf"{m['driver']}(?:/(\d+))?(?:\+([0-9.]+))?", f)
        assert m["multiplier"] == pytest.approx(1 / float(mult.group(1) or 1), rel=1e-12)
        assert m["offset"] == pytest.approx(float(mult.group(2) or 0), abs=1e-12)
    rc, out, err = roboio("info", path, "--tree", "--data-path", data)
    assert rc == 0, err
    # the OpenRAVE joint names are shown (JF1mimic mimics JF1, which moves Finger0-1)
    assert "Finger0-2  [revolute JF1mimic, axis z, 0°..97° (0..1.693 rad), mimic Finger0-1 ×0.333333 + 0.8727]" in out
    assert "└─ wam0  [fixed]" in out

