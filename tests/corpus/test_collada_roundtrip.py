"""Writing COLLADA: every corpus COLLADA robot written and read back gives the same model
(links, drivers, FK at random DOF values, limits, masses, manipulators), a second write is
byte-identical, and other formats' robots survive the trip too."""
import io
import math
import os
import warnings
import zipfile

import numpy as np
import pytest

import roboio
from conftest import CORPUS, corpus_path
from roboio.cli.main import main

from test_collada_corpus import ROBOTS, TESTDATA, path_of


def load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(path)


def save(obj, path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.save(obj, path, format="collada-robot")


def same_model(a, b, samples=5, tol=1e-12, seed=3):
    assert b.link_names == a.link_names
    assert [d.name for d in b.drivers] == [d.name for d in a.drivers]
    assert [(d.type, d.dofs) for d in b.drivers] == [(d.type, d.dofs) for d in a.drivers]
    for d, e in zip(a.drivers, b.drivers):
        assert (e.qmin, e.qmax) == pytest.approx((d.qmin, d.qmax), abs=1e-12)
        assert e.vmax == pytest.approx(d.vmax, rel=1e-12) and e.amax == pytest.approx(d.amax, rel=1e-12)
        assert e.scale == pytest.approx(d.scale) and e.offset == pytest.approx(d.offset)
    rng = np.random.default_rng(seed)
    for _ in range(samples):
        u = np.array([rng.uniform(max(d.qmin, -3), min(d.qmax, 3)) if d.qmax > d.qmin else d.qmin
                      for d in a.drivers])
        err = np.max(np.abs(a.fk(a.config_from_drivers(u)) - b.fk(b.config_from_drivers(u))))
        assert err < tol
    for la, lb in zip(a.links, b.links):
        assert lb.mass == pytest.approx(la.mass, rel=1e-12, abs=1e-15)
        assert np.allclose(lb.com, la.com, atol=1e-12) and np.allclose(lb.inertia, la.inertia, atol=1e-12)
    assert b.self_collision_pairs == a.self_collision_pairs
    assert [(m.name, m.base, m.effector) for m in b.manipulators] == [(m.name, m.base, m.effector) for m in a.manipulators]
    for m, n in zip(a.manipulators, b.manipulators):
        assert np.allclose(n.tool_transform, m.tool_transform, atol=1e-15)
        assert n.gripper_links == m.gripper_links and n.closing_direction == pytest.approx(m.closing_direction)
    assert [(s.name, s.link, s.type) for s in b.sensors] == [(s.name, s.link, s.type) for s in a.sensors]


@pytest.mark.parametrize("name", ROBOTS + TESTDATA)
def test_corpus_robot_write_read_same_model_and_stable_bytes(name, tmp_path):
    a = load(path_of(name))
    out = str(tmp_path / f"{name}.dae")
    report = save(a, out)
    assert report.lost == [], report.lost
    b = load(out)
    same_model(a, b)
    data1 = open(out, "rb").read()
    out2 = str(tmp_path / f"{name}_2.dae")
    save(b, out2)
    assert open(out2, "rb").read() == data1


def test_zae_written_with_manifest_and_read_back(tmp_path):
    a = load(path_of("pumaarm"))
    out = str(tmp_path / "arm.zae")
    save(a, out)
    z = zipfile.ZipFile(out)
    assert sorted(z.namelist()) == ["arm.dae", "manifest.xml"]
    assert b"<dae_root>./arm.dae</dae_root>" in z.read("manifest.xml")
    same_model(a, load(out))
    data = open(out, "rb").read()
    os.makedirs(tmp_path / "again")
    save(load(out), str(tmp_path / "again" / "arm.zae"))
    assert open(str(tmp_path / "again" / "arm.zae"), "rb").read() == data


OTHER = ["klampt/robots/ur5.rob", "klampt/robots/puma760.rob",
         "choreonoid/share/model/PA10/PA10.body",
         "klampt/robots/mirobot.urdf"]


@pytest.mark.parametrize("rel", OTHER)
def test_other_formats_survive_collada(rel, tmp_path):
    a = load(corpus_path(*rel.split("/")))
    out = str(tmp_path / "r.dae")
    report = save(a, out)
    expected = ("joint torque limits", "unlimited (or zero) joint", "per-face/per-vertex", "capsules",
                "separate visual geometry",     # Choreonoid bodies' Visual nodes (Link.visual_geometry)
                "self-collision pairs OpenRAVE never checks")   # ur5: a pair of joined links
    assert [x for x in report.lost if not x.startswith(expected)] == []
    b = load(out)
    assert set(a.link_names) <= set(b.link_names)
    rng = np.random.default_rng(0)
    for _ in range(3):
        u = np.array([rng.uniform(max(d.qmin, -2), min(d.qmax, 2)) if d.qmax > d.qmin else d.qmin
                      for d in a.drivers])
        Ta, Tb = a.fk(a.config_from_drivers(u)), b.fk(b.config_from_drivers(u))
        for l in a.links:
            assert np.max(np.abs(Ta[l.index] - Tb[b.link_index(l.name)])) < 1e-9, l.name
    b2 = str(tmp_path / "r2.dae")
    save(b, b2)
    assert open(b2, "rb").read() == open(out, "rb").read()


def test_cli_convert_and_verify_pumaarm(tmp_path):
    src = corpus_path("openrave", "src", "robots", "pumaarm.zae")
    urdf = str(tmp_path / "puma.urdf")
    dae = str(tmp_path / "puma.dae")
    buf = io.StringIO()
    import contextlib
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        assert main(["convert", src, urdf]) == 0
        assert main(["verify", src, urdf]) == 0
        assert main(["convert", src, dae, "--to", "collada-robot"]) == 0
        assert main(["verify", src, dae]) == 0
        assert main(["verify", urdf, dae]) == 0
