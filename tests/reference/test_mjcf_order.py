"""MJCF worlds written back in MuJoCo's order: the top-level bodies (robots, free objects,
scenery) in the source's document order, so that MuJoCo's qpos addresses, keyframes and body
frames are the source's. Expected values: MuJoCo's compilation of the source file itself
(``jnt_qposadr``, ``body_pos``/``body_quat``, ``key_qpos``, and body poses after
``mj_resetDataKeyframe`` + ``mj_forward``), compared by name."""
import os

import numpy as np
import pytest

import roboio
from roboio.model import Link, Robot, World
from conftest import rewrite_is_fixed_point

mujoco = pytest.importorskip("mujoco")

# a crate (free) before the robot, the robot (a free torso and a hip), a rotated scenery body
# of several geoms and a nested static body, a ball (free) after it, a scenery body of one
# geom; keys that move the robot and both objects (and one without qpos: MuJoCo's qpos0)
INTERLEAVED = """
<mujoco model="interleaved">
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="crate" pos="-0.5 0.2 0.1" euler="0 0 0.3">
      <freejoint name="crate_joint"/>
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
    </body>
    <body name="torso" pos="0 0 0.5">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.1 0.05" mass="2"/>
      <body name="leg" pos="0.1 0 0">
        <joint name="hip" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="0.5"/>
      </body>
    </body>
    <body name="cup" pos="0.3 0 0.4" euler="0 -0.26 0">
      <geom type="capsule" size="0.008" fromto="-0.03 0 0.06 -0.03 0 -0.015"/>
      <geom type="capsule" size="0.008" fromto="0.03 0 -0.015 0.03 0 0.06"/>
      <body name="rim" pos="0 0 0.07"><geom type="sphere" size="0.01"/><site name="lip" pos="0.01 0 0"/></body>
    </body>
    <body name="ball" pos="1 0 0.1">
      <freejoint name="ball_joint"/>
      <geom type="sphere" size="0.05" mass="0.1"/>
    </body>
    <body name="target" pos="-0.2 0.001 0.4" quat="0.5 0.5 0.5 0.5">
      <geom type="box" size="0.01 0.02 0.03" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <keyframe>
    <key name="start"/>
    <key name="moved" time="0.5" qpos="-0.4 0.3 0.2 0.9 0 0 0.2  0.1 0.2 0.6 0.8 0.2 -0.1 0.3  0.7
                                        1.2 -0.1 0.3 0.6 0.4 0.2 0.1"/>
  </keyframe>
</mujoco>
"""


def _names(m, kind, n):
    return [mujoco.mj_id2name(m, kind, i) for i in range(n)]


def _qpos_addresses(m) -> dict:
    """``{joint: qpos address}``, an unnamed joint by its body's name (a writer names it)."""
    out = {}
    for j in range(m.njnt):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        out[name or mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, m.jnt_bodyid[j])] = int(m.jnt_qposadr[j])
    return out


def _compare(source: str, written: str, tol: float = 1e-9) -> None:
    """MuJoCo's compilations of ``source`` and ``written`` agree: every joint's qpos address,
    every body's frame in its parent (bodies both have, by name), the keys, and every body's
    pose at each key."""
    a, b = (mujoco.MjModel.from_xml_path(p) for p in (source, written))
    assert _qpos_addresses(a) == _qpos_addresses(b)
    ba = {n: i for i, n in enumerate(_names(a, mujoco.mjtObj.mjOBJ_BODY, a.nbody)) if n}
    bb = {n: i for i, n in enumerate(_names(b, mujoco.mjtObj.mjOBJ_BODY, b.nbody)) if n}
    both = sorted(set(ba) & set(bb))
    for n in both:
        i, j = ba[n], bb[n]
        assert np.allclose(a.body_pos[i], b.body_pos[j], rtol=0, atol=tol), n
        qa, qb = a.body_quat[i], b.body_quat[j]
        assert min(np.abs(qa - qb).max(), np.abs(qa + qb).max()) <= tol, n
    assert a.nkey == b.nkey and a.nq == b.nq
    assert np.allclose(a.key_qpos, b.key_qpos, rtol=0, atol=tol)
    da, db = mujoco.MjData(a), mujoco.MjData(b)
    for k in range(a.nkey):
        for m, d in ((a, da), (b, db)):
            mujoco.mj_resetDataKeyframe(m, d, k)
            mujoco.mj_forward(m, d)
        for n in both:
            assert np.allclose(da.xpos[ba[n]], db.xpos[bb[n]], rtol=0, atol=tol), (k, n)
            assert np.allclose(da.xmat[ba[n]], db.xmat[bb[n]], rtol=0, atol=tol), (k, n)


@pytest.fixture
def interleaved(tmp_path):
    path = tmp_path / "interleaved.xml"
    path.write_text(INTERLEAVED)
    return str(path)


def test_the_reading_records_the_order_and_each_objects_keys(interleaved):
    w = roboio.load(interleaved)
    assert w.extras["mjcf"]["bodies"] == [["object", "crate"], ["robot", "interleaved", "torso"],
                                          ["terrain", "cup"], ["object", "ball"], ["terrain", "target"]]
    robot = w.robots[0]
    keys = robot.extras["mjcf"]["keyframes"]
    assert [k["name"] for k in keys] == ["start", "moved"]
    # the robot's part of "moved": qpos[7:15] (the crate's seven values come first)
    assert np.allclose(keys[1]["qpos"], [0.1, 0.2, 0.6, 0.8, 0.2, -0.1, 0.3, 0.7], rtol=0, atol=0)
    crate, ball = w.rigid_objects
    assert crate.extras["mjcf"]["keyframes"][0] == {"name": "start", "qpos": None}
    assert np.allclose(ball.extras["mjcf"]["keyframes"][1]["qpos"], [1.2, -0.1, 0.3, 0.6, 0.4, 0.2, 0.1],
                       rtol=0, atol=0)


def test_scenery_terrains_are_posed_as_their_bodies(interleaved):
    m = mujoco.MjModel.from_xml_path(interleaved)
    w = roboio.load(interleaved)
    cup = next(t for t in w.terrains if t.name == "cup")
    i = m.body("cup").id
    w_, x, y, z = m.body_quat[i]
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w_), 2 * (x * z + y * w_)],
                  [2 * (x * y + z * w_), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w_)],
                  [2 * (x * z - y * w_), 2 * (y * z + x * w_), 1 - 2 * (x * x + y * y)]])
    assert np.allclose(cup.transform[:3, :3], R, rtol=0, atol=1e-12)
    assert np.allclose(cup.transform[:3, 3], m.body_pos[i], rtol=0, atol=1e-12)
    # its geometry in the body frame: the nested static body's sphere at (0, 0, 0.07)
    sphere = cup.geometry.children[-1]
    assert sphere.primitive == "Sphere"
    assert np.allclose(sphere.transform[:3, 3], [0, 0, 0.07], rtol=0, atol=1e-15)
    # its sites kept as a link's are, in the terrain frame; the nested body named in a note
    assert np.allclose(np.array(cup.extras["mjcf"]["sites"]["lip"])[:3, 3], [0.01, 0, 0.07], rtol=0, atol=1e-15)
    notes = [d for d in w.warnings if "'rim'" in str(d)]
    assert len(notes) == 1 and notes[0].kind == "restructured" and notes[0].severity == "note"


def test_written_world_compiles_as_the_source(interleaved, tmp_path):
    out = str(tmp_path / "out" / "interleaved.xml")
    rewrite_is_fixed_point(roboio.load(interleaved), out, "mjcf")
    _compare(interleaved, out)
    m = mujoco.MjModel.from_xml_path(out)
    # the scenery bodies are bodies again (the nested static one is part of its terrain)
    assert m.body("cup").id > 0 and m.body("target").id > 0
    assert "rim" not in _names(m, mujoco.mjtObj.mjOBJ_BODY, m.nbody)


def test_a_world_from_another_format_keeps_todays_order(tmp_path):
    """Without a reading's record (or once the names no longer match), terrains, then rigid
    objects, then robots."""
    w = roboio.load(_write(tmp_path, INTERLEAVED))
    w.extras["mjcf"].pop("bodies")
    out = str(tmp_path / "plain.xml")
    roboio.save(w, out, "mjcf")
    m = mujoco.MjModel.from_xml_path(out)
    order = [n for n in _names(m, mujoco.mjtObj.mjOBJ_BODY, m.nbody)[1:] if m.body(n).parentid[0] == 0]
    assert order == ["cup", "target", "crate", "ball", "torso"]


def _write(tmp_path, text: str) -> str:
    path = tmp_path / "src.xml"
    path.write_text(text)
    return str(path)


def test_joints_written_out_of_link_order_get_their_qpos(tmp_path):
    """qpos follows the joints' document order, not the links' order: a robot whose links
    are not in depth-first order (Klamp't allows any topological order) gets the initial
    key MuJoCo reads for each joint by name."""
    r = Robot("tree")
    T = np.eye(4)
    links = [Link("base", -1, "revolute", (0, 0, 1), T, mass=1.0, inertia=np.eye(3) * 0.01),
             Link("a", 0, "revolute", (0, 1, 0), T, mass=1.0, inertia=np.eye(3) * 0.01),
             Link("b", 0, "revolute", (1, 0, 0), T, mass=1.0, inertia=np.eye(3) * 0.01),
             Link("c", 1, "revolute", (0, 1, 0), T, mass=1.0, inertia=np.eye(3) * 0.01)]
    r.set_links(links, config=[0.1, 0.2, 0.3, 0.4])
    out = str(tmp_path / "tree.xml")
    roboio.save(r, out, "mjcf")
    m = mujoco.MjModel.from_xml_path(out)
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, m.key("initial").id)
    for name, want in zip(("base", "a", "b", "c"), (0.1, 0.2, 0.3, 0.4)):
        assert d.qpos[m.jnt_qposadr[m.joint(name).id]] == pytest.approx(want, abs=1e-15), name


def test_the_shipped_scene_writes_back_as_mujoco_compiles_it(tmp_path):
    scene = os.path.join(os.path.dirname(roboio.__file__), "data", "samples", "mjcf", "scene.xml")
    out = str(tmp_path / "scene.xml")
    rewrite_is_fixed_point(roboio.load(scene), out, "mjcf")
    _compare(scene, out)


def test_rotated_scenery_bodies_rewrite_to_the_same_bytes(tmp_path):
    """A scenery body at random rotations (and pitch 90 degrees): written at the pose a
    reading gives, write -> read -> write is a fixed point and MuJoCo's body frame and geom
    poses are the source's (1e-12)."""
    rng = np.random.default_rng(11)
    for k in range(20):
        e, p = rng.uniform(-180, 180, 3), rng.uniform(-1, 1, 3)
        if k % 10 == 0:
            e[1] = 90.0
        src = tmp_path / f"s{k}.xml"
        src.write_text(f"""<mujoco><compiler angle="degree"/><worldbody>
  <body name="arm"><joint name="j"/><geom size=".05"/></body>
  <body name="shelf" pos="{p[0]} {p[1]} {p[2]}" euler="{e[0]} {e[1]} {e[2]}">
    <geom type="box" size=".1 .2 .01" pos="0.1 0 0.3" euler="10 0 0"/><geom type="sphere" size=".02"/>
  </body></worldbody></mujoco>""")
        first, second = tmp_path / f"a{k}.xml", tmp_path / f"b{k}.xml"
        roboio.save(roboio.load(str(src)), str(first), "mjcf")
        roboio.save(roboio.load(str(first)), str(second), "mjcf")
        assert first.read_bytes() == second.read_bytes(), k
        m0, m1 = (mujoco.MjModel.from_xml_path(str(f)) for f in (src, first))
        i0, i1 = m0.body("shelf").id, m1.body("shelf").id
        assert np.allclose(m0.body_pos[i0], m1.body_pos[i1], rtol=0, atol=1e-12)
        q0, q1 = m0.body_quat[i0], m1.body_quat[i1]
        assert min(np.abs(q0 - q1).max(), np.abs(q0 + q1).max()) <= 1e-12, k
        d0, d1 = mujoco.MjData(m0), mujoco.MjData(m1)
        mujoco.mj_kinematics(m0, d0)
        mujoco.mj_kinematics(m1, d1)
        g0 = [g for g in range(m0.ngeom) if m0.geom_bodyid[g] == i0]
        g1 = [g for g in range(m1.ngeom) if m1.geom_bodyid[g] == i1]
        assert np.allclose(d0.geom_xpos[g0], d1.geom_xpos[g1], rtol=0, atol=1e-12)
        assert np.allclose(d0.geom_xmat[g0], d1.geom_xmat[g1], rtol=0, atol=1e-12)


def test_elements_added_since_the_reading_come_after_the_sources(interleaved, tmp_path):
    """An object added to a world read from MJCF is written after the source's bodies: every
    joint of the source keeps its qpos address. A renamed object is no longer the source's
    (it is written after them too)."""
    from roboio.model import Primitive, RigidObject
    w = roboio.load(interleaved)
    extra = RigidObject("extra", Primitive("Sphere", {"center": [0.0, 0.0, 0.0], "radius": 0.05}), np.eye(4))
    extra.mass, extra.inertia = 0.1, np.eye(3) * 1e-4
    w.add(extra)
    out = str(tmp_path / "added.xml")
    roboio.save(w, out, "mjcf")
    m, m0 = mujoco.MjModel.from_xml_path(out), mujoco.MjModel.from_xml_path(interleaved)
    assert _top_bodies(m) == ["crate", "torso", "cup", "ball", "target", "extra"]
    got, want = _qpos_addresses(m), _qpos_addresses(m0)
    assert {k: got[k] for k in want} == want
    w.rigid_objects[0].name = "box"
    roboio.save(w, out, "mjcf")
    assert _top_bodies(mujoco.MjModel.from_xml_path(out)) == ["torso", "cup", "ball", "target", "box", "extra"]


def _top_bodies(m) -> list:
    return [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(1, m.nbody) if m.body_parentid[b] == 0]


# two arms (robots), a free box between them, a mocap target (a robot without joints), keys
# that move all of them
TWO_ARMS = """
<mujoco model="two_arms">
  <worldbody>
    <body name="left" pos="-0.5 0 0"><joint name="l1"/><geom size=".05" mass="1"/>
      <body name="left_tip" pos="0 0 0.3"><joint name="l2" axis="0 1 0"/><geom size=".04" mass="1"/></body>
    </body>
    <body name="box" pos="0 0 0.1"><freejoint/><geom type="box" size=".03 .03 .03" mass="0.2"/></body>
    <body name="right" pos="0.5 0 0" quat="0 0 0 1"><joint name="r1"/><geom size=".05" mass="1"/>
      <body name="right_tip" pos="0 0 0.3"><joint name="r2" type="slide"/><geom size=".04" mass="1"/></body>
    </body>
    <body name="target" mocap="true" pos="0 0.3 0.3"><geom size=".01" contype="0" conaffinity="0"/></body>
  </worldbody>
  <keyframe>
    <key name="home" qpos="0.1 0.2  0.05 0.02 0.1 0.9 0.1 0.2 0.3  -0.3 0.04"/>
    <key name="reach" time="2" qpos="0.5 -0.4  0.01 0.03 0.2 1 0 0 0  0.6 -0.02"/>
  </keyframe>
</mujoco>
"""


def test_keys_of_several_robots_are_written_as_one_key_each(tmp_path):
    src = _write(tmp_path, TWO_ARMS)
    w = roboio.load(src)
    assert [r.name for r in w.robots] == ["left", "right", "target"]
    assert [k["qpos"] for k in w.robots[1].extras["mjcf"]["keyframes"]] == [[-0.3, 0.04], [0.6, -0.02]]
    out = str(tmp_path / "out" / "two_arms.xml")
    rewrite_is_fixed_point(w, out, "mjcf")
    _compare(src, out)
    assert [mujoco.MjModel.from_xml_path(out).key(k).name for k in range(2)] == ["home", "reach"]
