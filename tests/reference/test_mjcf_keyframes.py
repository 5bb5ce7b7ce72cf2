"""MuJoCo keyframes: read as a motion (one milestone per ``<key>``), written back, against
MuJoCo itself. Expected poses: MuJoCo's ``mj_resetDataKeyframe`` + ``mj_kinematics`` body
poses, by body name (``mujoco`` is a test dependency)."""
import contextlib
import io
import json
import os
import warnings

import numpy as np
import pytest

import roboio
from roboio.cli.main import main
from roboio.model.timeline import as_motion

mujoco = pytest.importorskip("mujoco")

SAMPLES = os.path.join(os.path.dirname(roboio.__file__), "data", "samples", "mjcf")

# a free base, a ball joint, a hinge with a ref and a slide; keys: one without qpos (MuJoCo
# fills qpos0), one with an unnormalised quaternion, times that go back (-> untimed)
HUMANOIDISH = """
<mujoco model="keys">
  <compiler angle="degree"/>
  <worldbody>
    <body name="pelvis" pos="0 0 1">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.1 0.1" mass="3"/>
      <body name="thigh" pos="0 0.1 -0.1">
        <joint name="hip" type="ball"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.04" mass="1"/>
        <body name="shin" pos="0 0 -0.4">
          <joint name="knee" axis="0 1 0" ref="20"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.04" mass="1"/>
          <body name="foot" pos="0 0 -0.4">
            <joint name="ankle" type="slide" axis="0 0 1"/>
            <geom type="box" size="0.1 0.05 0.02" mass="0.5"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <keyframe>
    <key name="rest"/>
    <key name="step" time="2" qpos="0.1 0.2 0.9  0.9 0.1 -0.2 0.3  0.8 0.3 0.2 0.1  0.7  0.05"/>
    <key name="crouch" time="1" qpos="0 0 0.7  1 0 0 0  0.9 -0.4 0 0  1.5  -0.02"/>
  </keyframe>
</mujoco>
"""


def _mujoco_poses(path, by_name=False):
    """``[{body name: (xpos, xmat)}]`` for every key of the model at ``path`` (``by_name``:
    ``{key name: ...}``)."""
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    out = []
    for k in range(m.nkey):
        mujoco.mj_resetDataKeyframe(m, d, k)
        mujoco.mj_kinematics(m, d)
        out.append({mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b): (d.xpos[b].copy(), d.xmat[b].reshape(3, 3).copy())
                    for b in range(1, m.nbody)})
    if by_name:
        return {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_KEY, k): poses for k, poses in enumerate(out)}
    return out


def _check(robot, traj, expected, tol=1e-12):
    T = robot.fk_batch(traj.milestones)
    names = robot.link_names
    for k, bodies in enumerate(expected):
        for name, (p, R) in bodies.items():
            if name not in names:
                continue
            i = max(j for j, n in enumerate(names) if n == name)    # the body's last link
            assert np.allclose(T[k, i, :3, 3], p, rtol=0, atol=tol), (k, name)
            assert np.allclose(T[k, i, :3, :3], R, rtol=0, atol=tol), (k, name)


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "keys.xml"
    path.write_text(HUMANOIDISH)
    return str(path)


def test_keyframes_are_a_motion_with_mujocos_poses(model):
    robot = roboio.load(model)
    traj = as_motion(robot)
    assert traj.num_milestones == 3 and traj.times is None         # 0, 2, 1: not a timeline
    keys = robot.extras["mjcf"]["keyframes"]
    assert [k["name"] for k in keys] == ["rest", "step", "crouch"]
    assert [k["time"] for k in keys] == [0.0, 2.0, 1.0]
    _check(robot, traj, _mujoco_poses(model))


def test_the_shipped_scene_keys_on_the_robot_of_a_world():
    scene = os.path.join(SAMPLES, "scene.xml")
    world = roboio.load(scene)
    traj = as_motion(world)
    assert np.allclose(traj.times, [0.0, 1.5], rtol=0, atol=0)
    _check(world.robots[0], traj, _mujoco_poses(scene))


def test_written_mjcf_keeps_the_keys(model, tmp_path):
    """roboio's MJCF writes the keys in the coordinates of the joints it writes (the free
    joint, the ball joint, the hinge and the slide as read): MuJoCo poses the written model
    as the original at every key."""
    robot = roboio.load(model)
    first = tmp_path / "a" / "k.xml"
    roboio.save(robot, str(first), "mjcf")
    want, got = _mujoco_poses(model, True), _mujoco_poses(str(first), True)
    # the knee's ref is kept as the written joint's ref: qpos0 is the source's, no initial key
    assert set(got) == {"rest", "step", "crouch"}
    assert np.allclose(mujoco.MjModel.from_xml_path(str(first)).qpos0,
                       mujoco.MjModel.from_xml_path(model).qpos0, rtol=0, atol=1e-12)
    for k in want:
        for name, (p, R) in want[k].items():
            assert np.allclose(got[k][name][0], p, rtol=0, atol=1e-12), (k, name)
            assert np.allclose(got[k][name][1], R, rtol=0, atol=1e-12), (k, name)
    back = roboio.load(str(first))
    assert [k["name"] for k in back.extras["mjcf"]["keyframes"]] == ["rest", "step", "crouch"]
    m = mujoco.MjModel.from_xml_path(str(first))
    assert m.jnt_type[m.joint("hip").id] == mujoco.mjtJoint.mjJNT_BALL


def test_keys_of_a_ball_written_as_hinges_are_its_euler_angles(tmp_path):
    """A key read from a model whose ball joint MuJoCo can no longer hold as a ball (its
    first link got a mass): the writer writes three hinges and the key their Euler angles
    (of the key's quaternion), which MuJoCo poses as the original key."""
    src = tmp_path / "keys.xml"
    src.write_text(HUMANOIDISH)
    robot = roboio.load(str(src))
    robot.link("hip_rz").mass = 0.1
    robot.link("hip_rz").inertia = 1e-3 * np.eye(3)
    first = tmp_path / "a" / "k.xml"
    roboio.save(robot, str(first), "mjcf")
    m = mujoco.MjModel.from_xml_path(str(first))
    assert mujoco.mjtJoint.mjJNT_BALL not in list(m.jnt_type)
    want, got = _mujoco_poses(str(src), True), _mujoco_poses(str(first), True)
    for k in ("step", "crouch"):
        for name in ("thigh", "shin", "foot"):
            assert np.allclose(got[k][name][0], want[k][name][0], rtol=0, atol=1e-12), (k, name)
            assert np.allclose(got[k][name][1], want[k][name][1], rtol=0, atol=1e-12), (k, name)


@pytest.mark.parametrize("source", ["hinged", "anchored", "scene"])
def test_keys_rewrite_to_the_same_bytes(source, tmp_path):
    """write -> read -> write gives the same bytes: the keys' values (unnormalised
    quaternions of the free and the ball joint included) are kept as the file has them
    where the joint is written as read; "anchored": the ball has a ``pos`` and a range in
    a rotated body."""
    if source != "scene":
        text = HUMANOIDISH
        if source == "anchored":
            text = text.replace('<body name="thigh" pos="0 0.1 -0.1">',
                                '<body name="thigh" pos="0.013 0.1 -0.1" euler="17 -29 41">').replace(
                '<joint name="hip" type="ball"/>', '<joint name="hip" type="ball" pos="0.031 -0.07 0.11" range="0 55"/>')
        path = tmp_path / "hinged.xml"
        path.write_text(text)
        path = str(path)
    else:
        path = os.path.join(SAMPLES, "scene.xml")
    first, second = tmp_path / "a" / "k.xml", tmp_path / "b" / "k.xml"
    roboio.save(roboio.load(path), str(first), "mjcf")
    roboio.save(roboio.load(str(first)), str(second), "mjcf")
    assert first.read_bytes() == second.read_bytes()
    assert b"<key" in first.read_bytes()
    if source != "scene":
        assert b'qpos="0.1 0.2 0.9 0.9 0.1 -0.2 0.3 0.8 0.3 0.2 0.1 0.7' in first.read_bytes()
        assert first.read_bytes().count(b'type="ball"') == 1
        # the source's joint names: the free joint's too (shared by its six links)
        assert b'<freejoint name="root"/>' in first.read_bytes()
        assert b'<joint name="hip" type="ball"' in first.read_bytes()
    else:           # the floor, a plane read as a square mesh, is a plane again (by its name)
        assert b'<geom type="plane" size="1 1 0.1" rgba="0.8 0.8 0.8 1" name="floor"' in first.read_bytes()
        m = mujoco.MjModel.from_xml_path(str(first))
        assert m.geom_type[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "floor")] == mujoco.mjtGeom.mjGEOM_PLANE


def test_urdf_says_the_keys_are_not_in_it(model, tmp_path):
    rep = roboio.save(roboio.load(model), str(tmp_path / "k.urdf"), "urdf")
    assert any("keyframes" in str(e) for e in rep.lost), rep.lost


def test_a_key_of_the_wrong_size_is_left_out_with_a_warning(tmp_path):
    bad = HUMANOIDISH.replace('qpos="0 0 0.7  1 0 0 0  0.9 -0.4 0 0  1.5  -0.02"', 'qpos="0 0 0.7"')
    path = tmp_path / "bad.xml"
    path.write_text(bad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        robot = roboio.load(str(path))
    assert [k["name"] for k in robot.extras["mjcf"]["keyframes"]] == ["rest", "step"]
    assert any("'crouch' has 3 qpos values, the model 13" in str(w.message) for w in caught)


def test_motion_fk_reads_the_keys(model):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["motion", "fk", model, "--model", model, "--frames", "all", "--link", "foot", "--json"])
    assert rc == 0
    frames = json.loads(out.getvalue())["frames"]
    want = _mujoco_poses(model)
    assert len(frames) == 3
    for f in frames:
        M = np.array(f["transforms"][0])
        p, R = want[f["frame"]]["foot"]
        assert np.allclose(M[:3, 3], p, rtol=0, atol=1e-12) and np.allclose(M[:3, :3], R, rtol=0, atol=1e-12)


def test_a_rotated_free_body_rewrites_to_the_same_bytes(tmp_path):
    """A free body's rotation goes through the reader's Euler angles of the floating links;
    the writer writes the rotation that survives that round trip, so write -> read -> write
    is a fixed point (it drifted by an ulp on most rewrites), and MuJoCo poses the written
    body as the source's (1e-12), at random rotations and at pitch 90 degrees."""
    rng = np.random.default_rng(5)
    for k in range(30):
        e, p = rng.uniform(-180, 180, 3), rng.uniform(-1, 1, 3)
        if k % 10 == 0:
            e[1] = 90.0
        src = tmp_path / f"g{k}.xml"
        src.write_text(f"""<mujoco><worldbody>
  <body name="pelvis" pos="{p[0]} {p[1]} {p[2]}" euler="{e[0]} {e[1]} {e[2]}">
    <freejoint name="root"/><geom type="box" size=".1 .1 .1"/>
    <body name="thigh" pos="0 0 -0.2"><joint name="hip"/><geom size=".05"/></body>
  </body></worldbody></mujoco>""")
        first, second = tmp_path / f"a{k}.xml", tmp_path / f"b{k}.xml"
        roboio.save(roboio.load(str(src)), str(first), "mjcf")
        roboio.save(roboio.load(str(first)), str(second), "mjcf")
        assert first.read_bytes() == second.read_bytes(), k
        m0, m1 = (mujoco.MjModel.from_xml_path(str(f)) for f in (src, first))
        d0, d1 = mujoco.MjData(m0), mujoco.MjData(m1)
        mujoco.mj_kinematics(m0, d0)
        mujoco.mj_kinematics(m1, d1)
        assert np.allclose(d0.xmat, d1.xmat, rtol=0, atol=1e-12) and np.allclose(d0.xpos, d1.xpos, rtol=0, atol=1e-12)


def test_size_nkey_and_memory_are_kept_and_written_back(tmp_path):
    """``<size nkey>`` pads the keys with blank ones (qpos0, unnamed) and ``memory`` (with
    the legacy ``njmax``/``nconmax`` of another ``<size>``, myo_sim's) sizes the
    simulation: all written back, so MuJoCo compiles the output with the source's key
    count, blank keys and arena; what ``<size>`` sets beyond them is warned about."""
    src = tmp_path / "s.xml"
    src.write_text(HUMANOIDISH.replace("<compiler angle=\"degree\"/>",
                                       "<compiler angle=\"degree\"/><size nkey=\"6\" memory=\"3M\" nuserdata=\"2\"/>"
                                       "<size njmax=\"500\" nconmax=\"100\"/>"))
    with pytest.warns(roboio.RoboioWarning, match="nuserdata"):
        robot = roboio.load(str(src))
    out = tmp_path / "o" / "k.xml"
    roboio.save(robot, str(out), "mjcf")
    a, b = mujoco.MjModel.from_xml_path(str(src)), mujoco.MjModel.from_xml_path(str(out))
    assert a.nkey == b.nkey == 6
    assert [b.key(i).name for i in range(b.nkey)] == ["rest", "step", "crouch", "", "", ""]
    assert np.allclose(b.key_qpos[3:], a.key_qpos[3:], rtol=0, atol=1e-12)
    assert b.narena == a.narena == 3 * 2 ** 20
    assert (b.njmax, b.nconmax) == (a.njmax, a.nconmax) == (500, 100)
    again = tmp_path / "o" / "k2.xml"
    roboio.save(roboio.load(str(out)), str(again), "mjcf")
    assert again.read_bytes() == out.read_bytes()
