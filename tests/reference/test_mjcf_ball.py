"""MJCF ball joints written as MuJoCo ball joints (not a z-y-x gimbal of hinges), against
MuJoCo itself: the written model's body poses (``mj_kinematics``, qpos from the re-read
robot's ``qpos_from_config``) equal roboio's link poses and the source model's body poses at
random configurations; write -> read -> write gives the same bytes; what a ball joint cannot
hold (Euler limits, drivers) is reported."""
import numpy as np
import pytest
from lxml import etree

import roboio
from roboio.model import Driver, Joint, Link, Primitive, Robot
from roboio.transforms import quat_to_matrix

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9

MODELS = {
    # a fixed base, a ball without anchor, a hinge below it
    "plain": """
<mujoco model="plain">
  <worldbody>
    <body name="base" pos="0 0 0.5"><geom type="box" size="0.1 0.1 0.1" mass="2"/>
      <body name="upper" pos="0 0 -0.1"><joint name="shoulder" type="ball"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="1"/>
        <body name="lower" pos="0 0 -0.3"><joint name="elbow" axis="0 1 0" range="-90 90"/>
          <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.5"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>""",
    # below a free joint: a ball with an anchor and a cone in a rotated body, a second ball
    # (unnamed: read and written after its body) in the same model
    "free_two_balls": """
<mujoco model="two">
  <worldbody>
    <body name="torso" pos="0.1 -0.2 1" euler="10 -5 30"><freejoint name="root"/>
      <geom type="box" size="0.15 0.1 0.25" mass="5"/>
      <body name="arm" pos="0.2 0.013 0.21" euler="17 -29 41">
        <joint name="sh" type="ball" pos="-0.031 0.07 0.011" range="0 75"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04" mass="1"/>
        <body name="fore" pos="0.3 0 0"><joint name="el" axis="0 1 0" range="-100 10"/>
          <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03" mass="0.6"/>
        </body>
      </body>
      <body name="head" pos="0 0 0.3"><joint type="ball"/>
        <geom type="sphere" size="0.1" pos="0 0 0.1" mass="1.5"/>
      </body>
    </body>
  </worldbody>
</mujoco>""",
    # an anchored ball in a body whose rotation has no quaternion that reads back exactly
    # (found by a random search: a body position computed from it did not rewrite stably)
    "skewed_anchor": """
<mujoco model="skewed">
  <worldbody>
    <body name="base" pos="0 0 1"><geom size="0.1" mass="1"/>
      <body name="arm" pos="-0.452 -0.986 0.291" euler="120.8 -78.5 -102.5">
        <joint name="sh" type="ball" pos="0.0836 0.183 0.2782"/><geom size="0.1" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>""",
}


def _source(tmp_path, name) -> str:
    path = tmp_path / f"{name}.xml"
    path.write_text(MODELS[name])
    return str(path)


def _bodies(m, d) -> dict:
    return {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b): (d.xpos[b].copy(), d.xmat[b].reshape(3, 3).copy())
            for b in range(1, m.nbody)}


def _posed(m, qpos) -> dict:
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_kinematics(m, d)
    return _bodies(m, d)


def _configs(robot, rng, n=5):
    """Random link vectors (every moving link within +-1.2 rad or m of its value), then one
    at the Euler angles' singular pitch (+-pi/2), where a gimbal of hinges locks."""
    moving = np.array([robot.joint_of_link(i).type != "weld" for i in range(robot.num_links)])
    out = [robot.config + moving * rng.uniform(-1.2, 1.2, robot.num_links) for _ in range(n)]
    q = out[-1].copy()
    for j in robot.joints:
        if j.type == "ballandsocket":
            q[j.links[1]] = np.pi / 2
    return out + [q]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_written_ball_poses_as_mujocos_and_roboios(name, tmp_path):
    src = _source(tmp_path, name)
    robot = roboio.load(src)
    out = str(tmp_path / "out" / "m.xml")
    roboio.save(robot, out, "mjcf")
    m0, m1 = mujoco.MjModel.from_xml_path(src), mujoco.MjModel.from_xml_path(out)
    assert list(m1.jnt_type) == list(m0.jnt_type)            # each ball one ball joint
    balls = [k for k in range(m0.njnt) if m0.jnt_type[k] == mujoco.mjtJoint.mjJNT_BALL]
    for k in balls:
        assert np.allclose(m1.jnt_pos[k], m0.jnt_pos[k], rtol=0, atol=1e-15)
        assert bool(m1.jnt_limited[k]) == bool(m0.jnt_limited[k])
        assert np.allclose(m1.jnt_range[k], m0.jnt_range[k], rtol=0, atol=1e-15)
    back = roboio.load(out)
    assert back.link_names == robot.link_names
    last = {n: i for i, n in enumerate(robot.link_names)}   # a body is its name's last link
    for q in _configs(robot, np.random.default_rng(11)):
        want = _posed(m0, robot.qpos_from_config(q))
        got = _posed(m1, back.qpos_from_config(q))
        F = robot.fk(q)
        assert set(got) == set(want)
        for body, (p, R) in got.items():
            assert np.allclose(p, want[body][0], rtol=0, atol=TOL), body
            assert np.allclose(R, want[body][1], rtol=0, atol=TOL), body
            assert np.allclose(p, F[last[body]][:3, 3], rtol=0, atol=TOL), body
            assert np.allclose(R, F[last[body]][:3, :3], rtol=0, atol=TOL), body


@pytest.mark.parametrize("name", sorted(MODELS))
def test_ball_rewrites_to_the_same_bytes(name, tmp_path):
    """(The torso upright: a free body's rotation goes through Euler angles on reading and
    settles only on the second rewrite, with or without balls.)"""
    src = _source(tmp_path, name)
    with open(src) as f:
        text = f.read()
    with open(src, "w") as f:
        f.write(text.replace(' euler="10 -5 30"', ""))
    first, second = tmp_path / "a" / "m.xml", tmp_path / "b" / "m.xml"
    roboio.save(roboio.load(src), str(first), "mjcf")
    rep = roboio.save(roboio.load(str(first)), str(second), "mjcf")
    assert first.read_bytes() == second.read_bytes()
    assert not any("one-DOF joints" in e for e in rep.lost + rep.warnings)
    root = etree.parse(str(first)).getroot()
    assert root.find("actuator") is None or all(
        a.get("joint") in {j.get("name") for j in root.iter("joint") if j.get("type") != "ball"}
        for a in root.find("actuator"))
    assert root.find("contact") is None                  # no virtual bodies to exclude


def test_initial_configuration_is_the_balls_quaternion(tmp_path):
    """A ball away from zero: the ``initial`` key holds its quaternion (w x y z) of
    R = Rz(a) Ry(b) Rx(c), worked out here from the angle-axis product."""
    robot = roboio.load(_source(tmp_path, "plain"))
    a, b, c = 0.4, -0.7, 1.1
    for link, v in zip(("shoulder_rz", "shoulder_ry", "upper"), (a, b, c)):
        robot.config[robot.link_index(link)] = v
    out = str(tmp_path / "m.xml")
    roboio.save(robot, out, "mjcf")
    key = etree.parse(out).getroot().find("keyframe/key[@name='initial']")
    qz = np.array([np.cos(a / 2), 0, 0, np.sin(a / 2)])
    qy = np.array([np.cos(b / 2), 0, np.sin(b / 2), 0])
    qx = np.array([np.cos(c / 2), np.sin(c / 2), 0, 0])

    def mul(p, q):
        w1, v1, w2, v2 = p[0], p[1:], q[0], q[1:]
        return np.concatenate([[w1 * w2 - v1 @ v2], w1 * v2 + w2 * v1 + np.cross(v1, v2)])
    want = mul(mul(qz, qy), qx)
    want = want if want[0] >= 0 else -want
    got = np.array([float(x) for x in key.get("qpos").split()])
    assert np.allclose(got[:4], want, rtol=0, atol=1e-15)
    m = mujoco.MjModel.from_xml_path(out)
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_kinematics(m, d)
    F = robot.fk(robot.config)
    b_ = m.body("upper").id
    assert np.allclose(quat_to_matrix(d.xquat[b_]), F[robot.link_index("upper")][:3, :3], rtol=0, atol=TOL)


def _klampt_style_robot() -> Robot:
    """A Klamp't robot built here: a welded base, a ballandsocket group over three links
    (s_z, s_y virtual; s_x the upper arm) with Euler limits, torque limits and a driver
    with friction, and an elbow whose driver also moves s_y."""
    sphere = Primitive("Sphere", {"center": (0, 0, 0), "radius": 0.05})
    eye = np.eye(3)
    z = np.zeros((3, 3))
    T0 = np.eye(4)
    T0[:3, 3] = (0, 0, 0.4)
    T3 = np.eye(4)
    T3[:3, 3] = (0.3, 0, 0)
    links = [Link("base", -1, "revolute", (0, 0, 1), mass=1, inertia=eye, geometry=sphere.copy()),
             Link("s_z", 0, "revolute", (0, 0, 1), T0, mass=0, inertia=z),
             Link("s_y", 1, "revolute", (0, 1, 0), mass=0, inertia=z),
             Link("s_x", 2, "revolute", (1, 0, 0), mass=1, inertia=0.01 * eye, geometry=sphere.copy()),
             Link("fore", 3, "revolute", (0, 1, 0), T3, mass=0.5, inertia=0.01 * eye, geometry=sphere.copy())]
    r = Robot("klampt_ball")
    r.set_links(links, qmin=[0, -1, -0.5, -2, -1.5], qmax=[0, 1, 0.5, 2, 1.5],
                tmax=[np.inf, 10, 10, 10, 5])
    r.joints = [Joint("weld", [0]), Joint("ballandsocket", [1, 2, 3]), Joint("normal", [4])]
    sx = Driver("s_x", "normal", [3], leader=3, qmin=-2, qmax=2, tmin=-10, tmax=10, servo_p=50, servo_d=1,
                dry_friction=0.2, viscous_friction=0.1)
    fore = Driver("fore", "affine", [4, 2], leader=4, scale=[1.0, 0.5], offset=[0.0, 0.0], qmin=-1.5, qmax=1.5,
                  tmin=-5, tmax=5, servo_p=20, servo_d=0.5)
    r.drivers = [sx, fore]
    return r


def test_klampt_ballandsocket_with_limits_and_drivers(tmp_path):
    r = _klampt_style_robot()
    out = str(tmp_path / "k.xml")
    rep = roboio.save(r, out, "mjcf")
    text = "\n".join(rep.lost)
    assert "Euler angle limits of links written as a MuJoCo ball joint" in text
    for link in ("s_z", "s_y", "s_x"):
        assert link in text
    assert "drivers of links written as a MuJoCo ball joint" in text and "s_x" in text
    assert "friction of drivers of links written as a MuJoCo ball joint" in text
    assert "torque limits of links written as a MuJoCo ball joint" in text
    assert "coupled DOFs without a MuJoCo hinge or slide joint" in text and "fore: s_y" in text
    root = etree.parse(out).getroot()
    joints = [(j.get("name"), j.get("type")) for j in root.find("worldbody").iter("joint")]
    assert joints == [("s_x", "ball"), ("fore", "hinge")]
    assert [a.get("joint") for a in root.find("actuator")] == ["fore"]
    assert root.find("equality") is None
    m = mujoco.MjModel.from_xml_path(out)
    assert m.nu == 1 and m.jnt_type[m.joint("s_x").id] == mujoco.mjtJoint.mjJNT_BALL
    back = roboio.load(out)
    assert back.link_names == ["base", "s_x_rz", "s_x_ry", "s_x", "fore"]   # MuJoCo's reading names the virtual links
    for q in _configs(r, np.random.default_rng(5), n=3):
        got = _posed(m, back.qpos_from_config(q))
        F = r.fk(q)
        for body in ("s_x", "fore"):
            i = r.link_index(body)
            assert np.allclose(got[body][0], F[i][:3, 3], rtol=0, atol=TOL), body
            assert np.allclose(got[body][1], F[i][:3, :3], rtol=0, atol=TOL), body


def test_a_ball_group_not_about_one_point_stays_three_hinges(tmp_path):
    r = _klampt_style_robot()
    M = np.eye(4)
    M[:3, 3] = (0, 0, 0.01)
    r.links[2].parent_transform = M                       # s_y off s_z's origin
    out = str(tmp_path / "k.xml")
    rep = roboio.save(r, out, "mjcf")
    assert any("ballandsocket joints written as their one-DOF joints" in e for e in rep.lost)
    m = mujoco.MjModel.from_xml_path(out)
    assert mujoco.mjtJoint.mjJNT_BALL not in list(m.jnt_type) and m.njnt == 4


def test_klampt_ball_link_names_a_reading_changes_are_reported(tmp_path):
    """MuJoCo's ball joint has one name; a reading names its first two links after it
    (``s_x_rz``, ``s_x_ry``), so the Klamp't names ``s_z``, ``s_y`` are reported, and
    links already named so are not."""
    r = _klampt_style_robot()
    out = str(tmp_path / "k.xml")
    rep = roboio.save(r, out, "mjcf")
    items = [x for x in rep.lost if x.startswith("names of links written as a MuJoCo ball joint")]
    assert len(items) == 1 and "s_z -> s_x_rz" in items[0] and "s_y -> s_x_ry" in items[0]
    back = roboio.load(out)
    assert back.link_names[1:3] == ["s_x_rz", "s_x_ry"]
    rep2 = roboio.save(back, str(tmp_path / "k2.xml"), "mjcf")
    assert not any(x.startswith("names of links written as a MuJoCo ball joint") for x in rep2.lost)
