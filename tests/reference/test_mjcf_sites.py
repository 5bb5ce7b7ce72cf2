"""MJCF sites: read as data (pose, type, size) on the link, rigid object, scenery terrain or
world that holds them, and written back by the MJCF writer where they were, so that MuJoCo
compiles the output with the source's ``site_*`` arrays. Expected values: MuJoCo's compiled
source model (``mujoco`` is a test dependency)."""
import warnings

import numpy as np
import pytest

import roboio

mujoco = pytest.importorskip("mujoco")

# class defaults (type and a partial size that keeps the class's third value), a fromto
# cylinder and ellipsoid, an unnamed site, sites on scenery, on a free object, on the
# world body itself and on a static body without geoms (Gymnasium-Robotics' floor0 target:
# kept as a site of the world at its world pose)
MODEL = """
<mujoco>
  <default><site type="box" size="0.02 0.03 0.04"/><default class="s"><site type="capsule"/></default></default>
  <worldbody>
    <site name="target" pos="1 2 3" euler="0 0 45"/>
    <body name="table" pos="1 0 0" euler="0 0 30"><geom type="box" size="0.5 0.5 0.02"/><site name="slot" pos="0.1 0 0.05"/></body>
    <body name="arm" pos="0 0 0.5">
      <joint name="j0" axis="0 0 1"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <site name="tip" pos="0.3 0 0" euler="10 20 30" class="s" size="0.01 0.05"/>
      <site pos="0.1 0 0" type="sphere" size="0.007"/>
      <site name="ft" type="cylinder" fromto="0 0 0 0 0.2 0.1" size="0.01"/>
      <body name="hand" pos="0.3 0 0"><joint name="j1" axis="0 1 0"/><geom size="0.04"/>
        <site name="grip" type="ellipsoid" fromto="0 0 0 0.1 0 0" size="0.02"/></body>
    </body>
    <body name="box" pos="0.5 0.5 0.1"><freejoint/><geom type="box" size="0.05 0.05 0.05"/><site name="box_center" size="0.01"/></body>
    <body name="floor0" pos="1 1 0" euler="0 0 90"><site name="target0" pos="0.1 0 0.5" type="sphere"/></body>
  </worldbody>
</mujoco>
"""


def _load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(str(path))


def _sites(path, qpos):
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    d.qpos[:len(qpos)] = qpos
    mujoco.mj_kinematics(m, d)
    return m, d


def test_sites_are_read_and_written_back_as_mujoco_compiles_them(tmp_path):
    src = tmp_path / "m.xml"
    src.write_text(MODEL)
    world = _load(src)
    shapes = world.robots[0].links[0].extras["mjcf"]["site_shapes"]
    assert shapes["tip"] == {"type": "capsule", "size": [0.01, 0.05, 0.04]}
    assert shapes["site1"]["unnamed"] and world.extras["mjcf"]["sites"]["target"][2][3] == 3
    out = tmp_path / "o" / "m.xml"
    roboio.save(world, str(out), format="mjcf")
    q = [0.4, -0.7]
    a, da = _sites(src, q)
    b, db = _sites(out, q)
    assert a.nsite == b.nsite == 8
    names = [a.site(i).name for i in range(a.nsite)]
    order = [names.index(n) for n in [b.site(i).name for i in range(b.nsite)]]
    assert [b.site(i).name for i in range(b.nsite)] == ["target", "target0"] + [n for n in names if "target" not in n]
    bodies_b = [b.body(i).name for i in b.site_bodyid]
    assert bodies_b[:2] == ["world", "world"]             # target0 now a site of the world
    assert [a.body(i).name for i in a.site_bodyid[order]] == ["world", "floor0"] + bodies_b[2:]
    assert np.array_equal(a.site_type[order], b.site_type)
    assert np.allclose(a.site_size[order], b.site_size, rtol=1e-12, atol=0)
    assert np.allclose(da.site_xpos[order], db.site_xpos, rtol=0, atol=1e-12)
    assert np.allclose(da.site_xmat[order], db.site_xmat, rtol=0, atol=1e-12)
    again = tmp_path / "o" / "m2.xml"
    roboio.save(_load(out), str(again), format="mjcf")
    assert again.read_bytes() == out.read_bytes()
