"""Round trip of every corpus robot through roboio's .rob writer.

roboio load -> roboio .rob writer -> (a) real Klamp't loads the written file: link
transforms at the oracle's sample configurations equal the oracle to 1e-9, and its limits,
drivers and self-collision pairs equal what Klamp't read from the original; (b) roboio
re-reads its own output to the same model (numbers exactly: the writer prints repr).
"""
import math
import os
import warnings

import numpy as np
import pytest

import roboio
from roboio import RoboioWarning

from conftest import KLAMPT, corpus_ids, load_oracle, oracle_entries, oracle_transform

klampt = pytest.importorskip("klampt")

ROBS = [e for e in oracle_entries(kind="robot", status="loaded") if e["source"].endswith(".rob")]
_WORLDS = []          # klampt robots die with their WorldModel: keep the worlds alive


def klampt_robot(path):
    w = klampt.WorldModel()
    _WORLDS.append(w)
    r = w.loadRobot(path)
    assert r.numLinks() > 0, f"klampt could not load {path}"
    return r


def klampt_T(link):
    R, t = link.getTransform()
    T = np.eye(4)
    T[:3, :3] = np.array(R).reshape(3, 3).T        # column-major 9-list
    T[:3, 3] = t
    return T


def same(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


@pytest.fixture(scope="module", params=ROBS, ids=corpus_ids(ROBS))
def written(request, tmp_path_factory):
    src = request.param["source"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        robot = roboio.load(os.path.join(KLAMPT, src))
    out = str(tmp_path_factory.mktemp("rob") / os.path.basename(src))
    report = roboio.save(robot, out)
    return src, robot, out, report


def test_klampt_reads_the_written_file(written):
    src, robot, out, report = written
    assert report.lost == []
    o = load_oracle(src)
    k = klampt_robot(out)
    assert k.numLinks() == o["numLinks"]
    assert [k.link(i).getName() for i in range(k.numLinks())] == o["link_names"]
    assert [k.link(i).getParent() for i in range(k.numLinks())] == o["parents"]
    for s in o["samples"]:
        k.setConfig(s["q"])
        for i, d in enumerate(s["link_transforms"]):
            assert np.abs(klampt_T(k.link(i)) - oracle_transform(d)).max() <= 1e-9
    qmin, qmax = k.getJointLimits()
    assert same(qmin, o["qmin"]) and same(qmax, o["qmax"])
    assert same(k.getVelocityLimits(), o["velocity_limits"])
    assert same(k.getAccelerationLimits(), o["acceleration_limits"])
    assert same(k.getTorqueLimits(), o["torque_limits"])
    assert [(d.getName(), d.getType(), d.getAffectedLinks()) for d in k.drivers] == \
        [(d["name"], d["type"], d["affected_links"]) for d in o["drivers"]]
    n = k.numLinks()
    pairs = {(i, j) for i in range(n) for j in range(i + 1, n) if k.selfCollisionEnabled(i, j)}
    original = klampt_robot(os.path.join(KLAMPT, src))
    assert pairs == {(i, j) for i in range(n) for j in range(i + 1, n)
                     if original.selfCollisionEnabled(i, j)}
    for i in range(n):
        m, m0 = k.link(i).getMass(), original.link(i).getMass()
        assert m.mass == m0.mass
        assert np.allclose(m.com, m0.com, rtol=0, atol=1e-6 * max(1, np.abs(m0.com).max()))
        assert np.allclose(m.inertia, m0.inertia, rtol=0, atol=1e-6 * max(1e-12, np.abs(m0.inertia).max()))
    for d, d0 in zip(k.drivers, original.drivers):
        assert same(d.getLimits(), d0.getLimits()) and same(d.getVelocityLimits(), d0.getVelocityLimits())
        assert same(d.getTorqueLimits(), d0.getTorqueLimits())
        assert same(d.getAccelerationLimits(), d0.getAccelerationLimits())
        assert d.getAffineCoeffs() == d0.getAffineCoeffs()


def test_roboio_rereads_its_output(written):
    src, robot, out, report = written
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        again = roboio.load(out)
    assert again.link_names == robot.link_names
    assert list(again.parents) == list(robot.parents)
    for a, b in zip(again.links, robot.links):
        assert a.joint_type == b.joint_type
        assert np.array_equal(a.parent_transform, b.parent_transform)
        assert np.array_equal(a.axis, b.axis)
        assert a.mass == b.mass and np.array_equal(a.com, b.com)
        assert np.array_equal(a.inertia, b.inertia)
        ga, gb = a.geometry, b.geometry
        assert (ga is None) == (gb is None)
        if ga is not None:
            assert np.array_equal(ga.transform, gb.transform) and ga.margin == gb.margin
            assert os.path.samefile(_first_path(ga), _first_path(gb))
    for name in robot.LIMIT_NAMES + ("config",):
        assert same(getattr(again, name), getattr(robot, name)), name
    # a .rob file has no place for a single-link joint's base (Klamp't never uses it; a mount
    # sets it to the mount link, spec §3.12), so only multi-link joints keep theirs
    assert [_joint(j) for j in again.joints] == [_joint(j) for j in robot.joints]
    assert [_driver(d) for d in again.drivers] == [_driver(d) for d in robot.drivers]
    assert again.self_collision_pairs == robot.self_collision_pairs
    assert {k: v.strip() for k, v in again.properties.items()} == \
        {k: v.strip() for k, v in robot.properties.items()}


def _joint(j):
    return (j.type, j.links, j.base if len(j.links) > 1 else None)


def _first_path(g):
    while g.source is None:
        g = g.children[0]
    return g.source.path


def _driver(d):
    vals = [d.name, d.type, d.dofs, d.scale, d.offset, d.force_link, d.servo_p, d.servo_i,
            d.servo_d, d.dry_friction, d.viscous_friction]
    lims = [d.qmin, d.qmax, d.vmin, d.vmax, d.tmin, d.tmax, d.amin, d.amax]
    return vals + ["nan" if math.isnan(x) else x for x in lims]
