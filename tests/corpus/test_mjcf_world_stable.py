"""OpenRAVE environments written as MJCF: write -> read -> write gives the same bytes (a
terrain of several geoms is one static body and keeps its name; a flat mesh's drawn mesh and
collision slab, and a rigid object's drawn geoms, come back as written; a free object's key
quaternion is its body's), and MuJoCo compiles the first file with the source's objects
where the source puts them."""
import warnings

import numpy as np
import pytest

import roboio

from conftest import corpus_path

mujoco = pytest.importorskip("mujoco")

ENVIRONMENTS = ["door.env.xml", "puma_tabletop.env.xml", "katanatable.env.xml"]


def _load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(path, **kw)


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_world_rewrite_is_byte_identical(name, tmp_path):
    src = corpus_path("openrave", "src", "data", name)
    world = _load(src, search_paths=[corpus_path("openrave", "src")])
    out = str(tmp_path / "w.xml")
    roboio.save(world, out, format="mjcf")
    first = open(out, "rb").read()
    back = _load(out, format="mjcf")
    assert {t.name for t in back.terrains} == {t.name for t in world.terrains}
    roboio.save(back, out, format="mjcf", overwrite_input=True)
    assert open(out, "rb").read() == first
    m = mujoco.MjModel.from_xml_path(out)
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_kinematics(m, d)
    for o in world.rigid_objects:          # the objects where the environment puts them
        b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, o.name)
        assert np.allclose(d.xpos[b], o.transform[:3, 3], atol=1e-12), o.name
        assert np.allclose(d.xmat[b].reshape(3, 3), o.transform[:3, :3], atol=1e-12), o.name
    for t in world.terrains:               # every terrain keeps its name: a geom or a body
        assert (mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, t.name) >= 0
                or mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, t.name) >= 0), t.name
