"""Joints no driver moves, written as COLLADA robots: OpenRAVE holds a passive joint at 0
and roboio reads it as a weld, so the writer puts the joint's motion at ``robot.config`` into
the weld's frame. A floating base read from MJCF (six links without drivers holding
MuJoCo's ``qpos0``) keeps its height and turn: every body of the written robot is where
MuJoCo puts it at ``qpos0``, as roboio reads the file back and as pycollada composes its
visual scene (an independent reading of the node transforms); the report names each
held value; write -> read -> write stays a fixed point."""
import math
import os
import re
import warnings

import numpy as np
import pytest

import roboio
from roboio.verify import verify
from tests.conftest import SAMPLES, rewrite_is_fixed_point

mujoco = pytest.importorskip("mujoco")
pycollada = pytest.importorskip("collada")

# a free torso, turned and raised; an arm on a ball joint (three links, no drivers) at
# MuJoCo's qpos0 (identity), and a hinge the reading gives a driver
MODEL = """<mujoco model="held">
  <worldbody>
    <body name="torso" pos="0.1 -0.2 0.5" quat="0.9 0.1 0.3 0.2">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.05 0.05" mass="1"/>
      <body name="arm" pos="0.2 0 0">
        <joint name="shoulder" type="ball"/>
        <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.03" mass="0.3"/>
        <body name="hand" pos="0.2 0 0.02">
          <joint name="wrist" axis="0 1 0" range="-1 1"/>
          <geom type="sphere" size="0.04" pos="0.03 0 0" mass="0.1"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""
BODIES = ["torso", "arm", "hand"]


def _mujoco_poses(path):
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)           # at qpos0
    out = {}
    for name in BODIES:
        b = m.body(name).id
        T = np.eye(4)
        T[:3, :3] = d.xmat[b].reshape(3, 3)
        T[:3, 3] = d.xpos[b]
        out[name] = T
    return out


def _pycollada_poses(path):
    """World matrix of every visual-scene node by name, composed by pycollada from the
    node's own transform elements (the joints' rotate/translate elements at 0, where
    OpenRAVE binds a passive joint)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = pycollada.Collada(str(path), ignore=[pycollada.common.DaeUnsupportedError,
                                                    pycollada.common.DaeBrokenRefError])
    out = {}

    def walk(node, T):
        for c in node.children:
            if isinstance(c, pycollada.scene.Node):
                M = T @ c.matrix
                out[c.xmlnode.get("name")] = M
                walk(c, M)

    for n in doc.scene.nodes:
        walk(n, n.matrix)
    return out


@pytest.fixture
def written(tmp_path):
    src = tmp_path / "held.xml"
    src.write_text(MODEL)
    robot = roboio.load(str(src))
    out = tmp_path / "held.dae"
    report = roboio.save(robot, str(out), format="collada-robot")
    return src, robot, out, report


def test_floating_base_written_where_mujoco_puts_it(written):
    src, robot, out, report = written
    expect = _mujoco_poses(src)
    assert expect["torso"][2, 3] == pytest.approx(0.5, abs=1e-12)     # (what was lost before)
    back = roboio.load(str(out))
    Tb = back.fk(back.config)
    Ts = robot.fk(robot.config)
    scene = _pycollada_poses(out)
    for name in BODIES:
        # every link where MuJoCo puts it at qpos0 (the reading of MJCF rounds: 1e-9) and
        # exactly where the source model has it at its configuration
        assert np.allclose(Tb[back.link_index(name)], expect[name], atol=1e-9), name
        assert np.allclose(Tb[back.link_index(name)], Ts[robot.link_index(name)], atol=1e-12), name
        assert np.allclose(scene[name], Ts[robot.link_index(name)], atol=1e-12), name
    # the held joints read back as welds at 0; the hinge is still the robot's DOF
    assert [d.name for d in back.drivers] == ["wrist"]
    held = [l.name for l in robot.links if l.name not in ("hand",)]
    assert np.all(back.qmin[[back.link_index(n) for n in held]] == 0)
    assert np.all(back.qmax[[back.link_index(n) for n in held]] == 0)


def test_report_names_each_held_value(written):
    _, robot, _, report = written
    line = next((x for x in report.lost if x.startswith("joints no driver moves")), None)
    assert line is not None, report.lost
    held = {m.group(1): (float(m.group(2)), m.group(3))
            for m in re.finditer(r"(\w+) \(held at (\S+) (m|rad);", line)}
    # the floating base's six links and the ball joint's three, each with its value
    names = [l.name for l in robot.links]
    assert set(held) == set(names) - {"hand"}, line
    # the torso's height: MuJoCo's qpos0 z (metres), the value written as text
    assert held["base2"] == (0.5, "m")
    for k, name in enumerate(names):
        if name in held:
            assert held[name][0] == pytest.approx(robot.config[k], abs=0), name
            assert held[name][1] == ("m" if robot.links[k].is_prismatic else "rad"), name
    # its turn: the quaternion's rotation is not the identity, and the ball joint's links
    # hold MuJoCo's qpos0 for a ball (the identity)
    assert 2 * math.acos(0.9 / math.sqrt(0.95)) > 0.1
    assert any(abs(held[n][0]) > 0.05 for n in ("base3", "base4", "torso"))
    assert held["arm"] == (0.0, "rad")


def test_rewrite_is_a_fixed_point_and_verify_holds_at_the_source_values(written, tmp_path):
    _, robot, out, report = written
    rewrite_is_fixed_point(robot, str(tmp_path / "again.dae"), "collada-robot")
    res = verify(robot, roboio.load(str(out)), 30, stated=report)
    assert res.ok, res
    assert any("held at A's configured value" in a for a in res.accounted), res.accounted


def test_undriven_revolute_joint_of_an_arm_held_at_its_value(tmp_path):
    """A hand-worked case: the planar arm's wrist without its driver, at 0.7 rad. Its link
    (and the fingers after it) are written where the configuration puts them; the masses'
    frames too (the reading measures the centre of mass from the written pose)."""
    robot = roboio.load(os.path.join(SAMPLES, "planar_arm.rob"))
    wrist = robot.link_index("wrist")
    robot.drivers[:] = [d for d in robot.drivers if wrist not in d.dofs]
    q = np.array(robot.config, float)
    q[robot.link_index("shoulder")] = 0.4
    q[wrist] = 0.7
    robot.config = q
    out = tmp_path / "arm.dae"
    report = roboio.save(robot, str(out), format="collada-robot")
    assert any("wrist (held at 0.7 rad; range [-2.094, 2.094])" in x for x in report.lost), report.lost
    back = roboio.load(str(out))
    # B's configuration: the driven links' values carried over (the COLLADA reading starts
    # at 0), the wrist a weld at 0
    qb = np.zeros(back.num_links)
    for l in robot.links:
        if l.index != wrist:
            qb[back.link_index(l.name)] = q[l.index]
    assert back.qmin[back.link_index("wrist")] == back.qmax[back.link_index("wrist")] == 0
    Ta, Tb = robot.fk(q), back.fk(qb)
    # hand-worked: the wrist sits 0.1 + 0.2 up the base, then 0.5 and 0.4 along the arm
    # turned by the shoulder's 0.4 about y (the elbow at 0); the finger 0.1 further along
    # the wrist's x axis turned by 0.4 + 0.7
    c, s = math.cos(0.4), math.sin(0.4)
    wrist_at = np.array([0.9 * c, 0.0, 0.3 - 0.9 * s])
    assert np.allclose(Tb[back.link_index("wrist")][:3, 3], wrist_at, atol=1e-12)
    c2, s2 = math.cos(1.1), math.sin(1.1)
    finger_at = wrist_at + np.array([0.1 * c2, 0.02, -0.1 * s2])
    assert np.allclose(Tb[back.link_index("finger_left")][:3, 3], finger_at, atol=1e-12)
    for l in robot.links:
        j = back.link_index(l.name)
        assert np.allclose(Tb[j], Ta[l.index], atol=1e-12), l.name
        assert np.allclose(back.links[j].com, l.com, atol=1e-12), l.name
        assert np.allclose(back.links[j].inertia, l.inertia, atol=1e-12), l.name
    rewrite_is_fixed_point(robot, str(tmp_path / "again.dae"), "collada-robot")
