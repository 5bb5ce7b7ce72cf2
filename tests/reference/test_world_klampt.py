"""Worlds, rigid objects and terrains written by roboio, read back by the real Klamp't
(``klampt.WorldModel``): same counts, names, rigid-object transforms and mass data, robot
configurations and link transforms (1e-9); and by roboio itself, identically. Plus .obj
files whose semantics (T layout, position, inertia forms, autoMass about a given com)
are checked directly against Klamp't's loader."""
import os
import sys
import warnings

import numpy as np
import pytest

import roboio

from conftest import SAMPLES, corpus_path

# the unit tests' fixtures (cube mesh, a world built in code, world comparison)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit"))
from test_world_objects import CUBE_OFF  # noqa: E402
from test_world_write import assert_same_world, built_world  # noqa: E402

klampt = pytest.importorskip("klampt")

WORLDS = ["block.xml", "tx90cuptable.xml", "mirobot_6blocks.xml", "hubo_ladder.xml",
          "simulation_test_worlds/jointtest.xml", "simulation_test_worlds/displaytest.xml",
          "simulation_test_worlds/slideblock.xml", "tx90soft.xml"]


def quiet_load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(str(path), **kw)


def k_transform(Rt):
    R, t = Rt
    T = np.eye(4)
    T[:3, :3] = np.reshape(R, (3, 3)).T          # Klamp't gives R column by column
    T[:3, 3] = t
    return T


def k_world(path):
    w = klampt.WorldModel()
    assert w.readFile(str(path)), f"klampt cannot read {path}"
    return w


def assert_klampt_sees(kw, w, atol=1e-9):
    assert (kw.numRobots(), kw.numRigidObjects(), kw.numTerrains()) == (
        len(w.robots), len(w.rigid_objects), len(w.terrains))
    for i, r in enumerate(w.robots):
        kr = kw.robot(i)
        assert kr.getName() == r.name
        assert [kr.link(j).getName() for j in range(kr.numLinks())] == r.link_names
        np.testing.assert_allclose(kr.getConfig(), r.config, rtol=0, atol=atol)
        fk = r.fk()
        for j in range(kr.numLinks()):
            np.testing.assert_allclose(k_transform(kr.link(j).getTransform()), fk[j], rtol=0, atol=atol)
    for i, o in enumerate(w.rigid_objects):
        ko = kw.rigidObject(i)
        assert ko.getName() == o.name
        np.testing.assert_allclose(k_transform(ko.getTransform()), o.transform, rtol=0, atol=atol)
        m = ko.getMass()
        assert m.getMass() == pytest.approx(o.mass, rel=1e-12)
        np.testing.assert_allclose(m.getCom(), o.com, rtol=0, atol=atol)
        np.testing.assert_allclose(np.reshape(m.getInertia(), (3, 3)), o.inertia, rtol=0, atol=atol)
        cp = ko.getContactParameters()
        assert (cp.kFriction, cp.kRestitution, cp.kStiffness, cp.kDamping) == pytest.approx(
            (o.kFriction, o.kRestitution, o.kStiffness, o.kDamping))
    for i, t in enumerate(w.terrains):
        assert kw.terrain(i).getName() == t.name


@pytest.mark.parametrize("name", WORLDS + ["sample"])
def test_written_corpus_world_reads_back_in_klampt(name, tmp_path):
    src = os.path.join(SAMPLES, "world.xml") if name == "sample" else corpus_path("klampt", name)
    w = quiet_load(src)
    out = tmp_path / "w.xml"
    assert roboio.save(w, str(out)).lost == []
    assert_klampt_sees(k_world(out), w)
    assert_same_world(w, quiet_load(out))


def test_world_built_in_code_reads_back_in_klampt(tmp_path):
    w = built_world()
    out = tmp_path / "b.xml"
    roboio.save(w, str(out))
    kw = k_world(out)
    assert_klampt_sees(kw, w)
    # geometry placement: Klamp't's bounding boxes of the written object and terrain
    for k_el, el in ((kw.rigidObject(0), w.rigid_objects[0]), (kw.terrain(0), w.terrains[0])):
        lo, hi = k_el.geometry().getBB()
        pts = el.geometry.world_vertices() @ el.transform[:3, :3].T + el.transform[:3, 3]
        np.testing.assert_allclose([lo, hi], [pts.min(axis=0), pts.max(axis=0)], atol=1e-6)


OBJS = {
    "t16": "mesh cube.off\nT 0 -1 0 5  1 0 0 6  0 0 1 7  9 9 9 9\nposition 4 5 6\ninertia 1 2 3\n"
           "kStiffness inf\n",
    "t12": "mesh cube.off\nT 0.36 0.48 -0.8 -0.8 0.6 0 0.48 0.64 0.6  1 2 3\ninertia 1 2 3 2 5 6 3 6 9\n"
           "kFriction 0.25\nkRestitution 0\nkDamping 1e3\nmass 2\ncom 0.1 0.2 0.3\n",
    "auto_com": "mesh cube.off\nmass 2\ncom 0.1 0.2 0.3\nautoMass 0.5\nMass 5\nkfriction 0.9\n",
    "auto_scaled": "mesh cube.off\ngeomscale 0.4 0.2 0.1\ngeomtranslate -0.2 0 1\nmass 0.1\nautoMass 0\n",
    "auto_surface": "mesh cube.off\ngeomscale 3\nmass 0.1\nautoMass\n",
    # a primitive's second moment does not depend on the point it is taken about
    "auto_com_primitive": 'mesh "{Primitive Sphere 0 0 0 1}"\nmass 2\ncom 0.5 0 0\nautoMass 1\n',
}


@pytest.mark.parametrize("name", sorted(OBJS))
def test_obj_semantics_match_klampt(name, tmp_path):
    (tmp_path / "cube.off").write_text(CUBE_OFF)
    p = tmp_path / f"{name}.obj"
    p.write_text(OBJS[name])
    o = quiet_load(p)
    kw = klampt.WorldModel()
    assert kw.loadElement(str(p)) >= 0
    w = roboio.World()
    w.add(o)
    assert_klampt_sees(kw, w, atol=1e-12)
    # and the file roboio writes for it says the same to Klamp't
    out = tmp_path / "out" / f"{name}.obj"
    roboio.save(o, str(out))
    kw2 = klampt.WorldModel()
    assert kw2.loadElement(str(out)) >= 0
    assert_klampt_sees(kw2, w, atol=1e-12)


def test_env_friction_written_as_kfriction_reaches_klampt(tmp_path):
    (tmp_path / "cube.off").write_text(CUBE_OFF)
    p = tmp_path / "t.env"
    p.write_text("mesh cube.off\nkFriction 0.8\n")
    t = quiet_load(p)
    out = tmp_path / "o" / "t2.env"
    roboio.save(t, str(out))
    (tmp_path / "w.xml").write_text('<world><terrain file="o/t2.env"/></world>')
    kw = k_world(tmp_path / "w.xml")
    assert kw.terrain(0).geometry().getBB() == ([0, 0, 0], [1, 1, 1])
    # Klamp't keeps terrain friction in its per-element settings; the written item is kFriction
    assert (tmp_path / "o" / "t2.env").read_text().splitlines()[1] == "kFriction 0.8"
