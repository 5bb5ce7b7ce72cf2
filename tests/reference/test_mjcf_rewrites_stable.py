"""MJCF models written as OpenRAVE XML and COLLADA robots are fixed points (write -> read ->
write gives the same bytes) where what MuJoCo allows is more than the target holds, as in
dm_control's fish, dog, humanoid_CMU (a link whose only geometry is an ellipsoid, which
OpenRAVE XML does not hold), hopper (a joint whose range excludes 0, which OpenRAVE clamps at
load) and swimmer (a geom with alpha 0, which OpenRAVE draws opaque). Each rewrite keeps
MuJoCo's poses of the source (1e-9) and reports what it changes. Expected values: MuJoCo's
forward kinematics of the source, and degrees worked by hand."""
import math
import warnings

import numpy as np
import pytest

import roboio
from roboio.transforms import quat_to_matrix
from tests.conftest import rewrite_is_fixed_point

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9

# the fin of dm_control's fish: two hinges then an ellipsoid; MuJoCo never collides a body
# with its parent, OpenRAVE checks links with two moving joints between them
ELLIPSOID_CHILD = """<mujoco model="fin">
  <worldbody>
    <body name="torso" pos="0 0 0.1">
      <joint name="spin" axis="0 0 1"/>
      <geom type="box" size="0.02 0.03 0.01"/>
      <body name="fin" pos="0.01 0 0">
        <joint name="roll" axis="0 1 0"/>
        <joint name="pitch" axis="1 0 0" pos="0 0.005 0"/>
        <geom type="ellipsoid" pos="0.015 0 0" size="0.02 0.015 0.001"/>
      </body>
      <body name="tail" pos="0 -0.05 0">
        <joint name="tail" axis="0 0 1"/>
        <joint name="twist" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 -0.04 0" size="0.005"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""

# hopper's knee: a range of 5..150 degrees, so MuJoCo's qpos0 (0) is outside it
KNEE_RANGE = """<mujoco model="leg">
  <worldbody>
    <body name="thigh" pos="0 0 1">
      <joint name="hip" axis="0 1 0" range="-170 10" limited="true"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.05"/>
      <body name="calf" pos="0 0 -0.4">
        <joint name="knee" axis="0 1 0" range="5 150" limited="true"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.04"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""

# swimmer's invisible geom: rgba with alpha 0
INVISIBLE = """<mujoco model="ghost">
  <worldbody>
    <body name="base" pos="0 0 0.2">
      <joint name="yaw" axis="0 0 1"/>
      <geom type="box" size="0.01 0.05 0.01" rgba="0 0 0 0"/>
      <geom type="sphere" size="0.02" rgba="0.2 0.4 0.6 1"/>
    </body>
  </worldbody>
</mujoco>"""


def _load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(path, **kw)


def _source(tmp_path, text):
    p = tmp_path / "src.xml"
    p.write_text(text)
    r = _load(str(p))
    return str(p), (r.robots[0] if isinstance(r, roboio.World) else r)


def _rewrite(tmp_path, robot, fmt, name):
    out = str(tmp_path / name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rewrite_is_fixed_point(robot, out, fmt)
    return out


def _assert_poses_are_mujocos(src, robot, written):
    """The written robot's link poses equal MuJoCo's body poses of the source at qpos0 and
    random configurations (joint values matched by link name)."""
    m = mujoco.MjModel.from_xml_path(src)
    d = mujoco.MjData(m)
    back = written.robots[0] if isinstance(written, roboio.World) else written
    index = {l.name: i for i, l in enumerate(back.links)}
    rng = np.random.default_rng(3)
    for k in range(4):
        qpos = m.qpos0.copy() if k == 0 else rng.uniform(-1.5, 1.5, m.nq)
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        q = robot.config_from_qpos(qpos)
        q2 = np.zeros(back.num_links)
        for i, l in enumerate(robot.links):
            q2[index[l.name]] = q[i]
        T = back.fk(q2)
        for b in range(1, m.nbody):
            Ti = T[index[m.body(b).name]]
            assert np.allclose(Ti[:3, 3], d.xpos[b], atol=TOL, rtol=0), (m.body(b).name, k)
            assert np.allclose(Ti[:3, :3], quat_to_matrix(d.xquat[b]), atol=TOL, rtol=0)


def test_openrave_adjacency_of_a_link_whose_geometry_is_not_written(tmp_path):
    src, robot = _source(tmp_path, ELLIPSOID_CHILD)
    out = _rewrite(tmp_path, robot, "openrave", "fin.robot.xml")
    text = open(out).read()
    # the fin has no <Geom> in OpenRAVE: no pair of it to disable
    assert "<adjacent>torso fin</adjacent>" not in text
    # the tail (a capsule, written) is checked by OpenRAVE (two moving joints), not by MuJoCo
    assert "<adjacent>torso tail</adjacent>" in text
    _assert_poses_are_mujocos(src, robot, _load(out))


def test_openrave_initial_values_outside_the_limits_are_written_clamped(tmp_path):
    src, robot = _source(tmp_path, KNEE_RANGE)
    out = str(tmp_path / "leg.robot.xml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = roboio.save(robot, out, format="openrave")
    assert any("outside the joint limits" in x for x in report.lost), report.lost
    _rewrite(tmp_path, robot, "openrave", "leg.robot.xml")
    back = _load(out)
    knee = next(i for i, l in enumerate(back.links) if l.name == "calf")
    # OpenRAVE starts at the nearest limit: 5 degrees
    assert abs(back.config[knee] - math.radians(5)) < 1e-12
    _assert_poses_are_mujocos(src, robot, back)


def test_collada_fully_transparent_geometry_written_opaque(tmp_path):
    src, robot = _source(tmp_path, INVISIBLE)
    out = str(tmp_path / "ghost.dae")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = roboio.save(robot, out, format="collada-robot")
    assert any("fully transparent" in x for x in report.lost), report.lost
    _rewrite(tmp_path, robot, "collada-robot", "ghost.dae")
    back = _load(out)
    _assert_poses_are_mujocos(src, robot, back)


# rodent's wrist: an axis that is not unit length, which a reading normalises to within a
# few ulps of unit length (MuJoCo keeps such an axis as given)
SLANTED_AXES = """<mujoco model="paw">
  <worldbody>
    <body name="arm" pos="0 0 0.3" euler="10 20 30">
      <joint name="elbow" axis="0.6 -1 0" range="-20 120" damping="0.002"/>
      <geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.01"/>
      <body name="hand" pos="0.1 0 0">
        <joint name="wrist" axis="0.3 0.7 -0.2" range="-30 30"/>
        <joint name="slide" type="slide" axis="1 1 1" range="-0.01 0.02"/>
        <geom type="sphere" size="0.01"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""


def test_mjcf_axis_normalised_by_a_reading_is_written_as_it_is(tmp_path):
    src, robot = _source(tmp_path, SLANTED_AXES)
    out = _rewrite(tmp_path, robot, "mjcf", "paw.xml")
    a, b = mujoco.MjModel.from_xml_path(src), mujoco.MjModel.from_xml_path(out)
    for name in ("elbow", "wrist", "slide"):
        ja, jb = a.joint(name), b.joint(name)
        assert np.allclose(ja.range, jb.range, atol=1e-12, rtol=0), name
        assert np.allclose(ja.damping, jb.damping, atol=1e-15, rtol=1e-12), name
    da, db = mujoco.MjData(a), mujoco.MjData(b)
    rng = np.random.default_rng(5)
    for _ in range(4):
        da.qpos[:] = db.qpos[:] = rng.uniform(-0.3, 0.3, a.nq)
        mujoco.mj_kinematics(a, da)
        mujoco.mj_kinematics(b, db)
        for k in range(1, a.nbody):
            kb = b.body(a.body(k).name).id
            assert np.allclose(da.xpos[k], db.xpos[kb], atol=TOL, rtol=0)
            assert np.allclose(da.xmat[k], db.xmat[kb], atol=TOL, rtol=0)


def _assert_same_geom_frames(src: str, out: str, atol: float) -> None:
    """MuJoCo places every geom of ``out`` where it places ``src``'s (at qpos0, within
    ``atol``: rotation matrix entries and metres)."""
    a, b = mujoco.MjModel.from_xml_path(src), mujoco.MjModel.from_xml_path(out)
    da, db = mujoco.MjData(a), mujoco.MjData(b)
    mujoco.mj_kinematics(a, da)
    mujoco.mj_kinematics(b, db)
    assert np.allclose(da.geom_xmat, db.geom_xmat, atol=atol, rtol=0)
    assert np.allclose(da.geom_xpos, db.geom_xpos, atol=atol, rtol=0)


# mink's Shadow hand (right_hand.xml): a geom quaternion given unnormalised, whose rotation
# has no exact quaternion within an ulp; the derived one walked an ulp a rewrite
UNNORMALISED_QUAT = """<mujoco model="palm">
  <worldbody>
    <body name="palm"><joint name="wrist" axis="0 1 0"/>
      <geom type="cylinder" size="0.0135 0.015" quat="0.499998 0.5 0.5 -0.500002"/>
    </body>
  </worldbody>
</mujoco>"""


def test_mjcf_unnormalised_geom_quaternion_rewrites_to_the_same_bytes(tmp_path):
    src, robot = _source(tmp_path, UNNORMALISED_QUAT)
    out = str(tmp_path / "o" / "palm.xml")
    rewrite_is_fixed_point(robot, out, "mjcf")
    _assert_same_geom_frames(src, out, 1e-15)


def test_mjcf_rotated_mesh_of_a_small_scale_rewrites_to_the_same_bytes(tmp_path):
    """myo_sim's exosuit: a mesh asset of scale 0.0013 on a geom at euler 1.57 3.14 -1.57.
    The rotation x scale read back splits into a scale and a rotation each an ulp off;
    both walked at every rewrite. MuJoCo places the mesh as in the source."""
    (tmp_path / "box.obj").write_text("v 0 0 0\nv 1 0 0\nv 1 2 0\nv 0 2 0\nv 0 0 3\nv 1 0 3\nv 1 2 3\nv 0 2 3\n"
                                      "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\n"
                                      "f 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n")
    src, robot = _source(tmp_path, """<mujoco model="exo"><compiler angle="radian"/>
      <asset><mesh name="legs" file="box.obj" scale="0.0013 0.0013 0.0013"/></asset>
      <worldbody><body name="pelvis"><joint name="hip"/>
        <geom name="legs" type="mesh" mesh="legs" euler="1.57 3.14 -1.57" pos="-0.08 0.1 0"/></body>
      </worldbody></mujoco>""")
    out = str(tmp_path / "o" / "exo.xml")
    rewrite_is_fixed_point(robot, out, "mjcf")
    _assert_same_geom_frames(src, out, 1e-12)


def test_mjcf_free_object_with_two_equal_moments_rewrites_to_the_same_bytes(tmp_path):
    """A GraspIt! world's disc-like object (ana-GT/Graspit CS8750/allObjects) written as
    MJCF: two equal principal moments leave its axes free, and each rewrite chose others.
    The quat + diaginertia a reading finds are now kept for rigid objects as for links."""
    src = tmp_path / "src.xml"
    src.write_text("""<mujoco model="table"><worldbody>
      <body name="arm"><joint name="j" axis="0 0 1"/><geom type="sphere" size="0.1"/></body>
      <body name="can" pos="0.5 0 0.1"><freejoint/>
        <inertial pos="0 0 0" mass="0.44" quat="0.983025477881032 5.476214569096542e-05 7.934688197534699e-07 0.18346908959616778"
                  diaginertia="0.00022011302354559345 0.00022011302354559353 0.00044022604709118696"/>
        <geom type="cylinder" size="0.03 0.06" contype="0" conaffinity="0"/></body>
    </worldbody></mujoco>""")
    world = _load(str(src))
    assert world.rigid_objects
    out = str(tmp_path / "o" / "table.xml")
    rewrite_is_fixed_point(world, out, "mjcf")
    a, b = mujoco.MjModel.from_xml_path(str(src)), mujoco.MjModel.from_xml_path(out)
    ia, ib = a.body("can").id, b.body("can").id
    np.testing.assert_allclose(b.body_inertia[ib], a.body_inertia[ia], rtol=1e-12)
    np.testing.assert_allclose(b.body_mass[ib], a.body_mass[ia], rtol=1e-15)
