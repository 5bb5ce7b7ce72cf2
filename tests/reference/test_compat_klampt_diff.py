"""Differential tests: the same Klamp't scripts (``klampt_scripts.py``) run against the real
``klampt`` package and against ``roboio.compat.klampt``; every recorded value must agree
(1e-9, or float32 precision for values derived from mesh vertices, which Klamp't stores in
single precision)."""
import math
import types
import warnings

import pytest

from roboio import RoboioWarning

import klampt_scripts as S
from conftest import corpus_path

klampt = pytest.importorskip("klampt")


def _namespace(mod, so3, se3, vectorops):
    return types.SimpleNamespace(__name__=mod.__name__.replace(".", "_"), WorldModel=mod.WorldModel, Geometry3D=mod.Geometry3D,
                                 Appearance=mod.Appearance, Mass=mod.Mass, so3=so3, se3=se3,
                                 vectorops=vectorops)


def _real():
    from klampt.math import se3, so3, vectorops
    return _namespace(klampt, so3, se3, vectorops)


def _compat():
    import roboio.compat.klampt as ck
    return _namespace(ck, ck.so3, ck.se3, ck.vectorops)


def _close(a, b, tol):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isinf(a) or math.isinf(b) or math.isnan(a) or math.isnan(b):
            return a == b or (math.isnan(a) and math.isnan(b))
        return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
    return a == b


def run_both(script, *args, **kwargs):
    """Run ``script`` with klampt and with the compat layer; assert equal recordings."""
    real, ours = S.Recorder(), S.Recorder()
    script(_real(), real, *args, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        script(_compat(), ours, *args, **kwargs)
    failures = [str(w.message) for w in caught if str(w.message).startswith("cannot ")]
    assert not failures, failures
    labels_real = [r[0] for r in real.records]
    labels_ours = [r[0] for r in ours.records]
    assert labels_ours == labels_real
    bad = [(label, a, b) for (label, a, tol), (_, b, _) in zip(real.records, ours.records)
           if not _close(a, b, tol)]
    assert not bad, "\n".join(f"{label}:\n  klampt {a}\n  roboio {b}" for label, a, b in bad[:8])
    return real.records


def robot(name):
    return corpus_path("klampt", "robots", name)


def test_manual_kinematics_example_planar3r():
    records = run_both(S.planar3r_example, robot("planar3R.rob"))
    assert dict((l, v) for l, v, _ in records)["loadElement"] == 0


def test_manual_make_shelf_example():
    records = run_both(S.make_shelf_example, corpus_path("klampt", "objects", "cube.off"),
                       robot("planar3R.rob"))
    values = {l: v for l, v, _ in records}
    assert values["type / elements"] == ["Group", 5]
    assert values["counts"] == [1, 0, 1, 5]


ROBOTS = ["planar3R.rob", "AL5D.rob", "robotiq_85.rob", "cartpole.rob", "free_cube.rob",
          "sphere1cm.rob", "footed_2d_biped.rob", "ur5.rob", "puma760.rob", "tx90l.rob",
          "athlete.rob", "kinova_gen3_7dof.urdf", "robotiq_140.urdf"]
NO_DISTANCE = {"footed_2d_biped.rob"}      # Klamp't aborts on floating planar joints


@pytest.mark.parametrize("name", ROBOTS)
def test_robot_api(name):
    # Klamp't 0.10.1 ignores URDF <material> colours (every link grey); roboio keeps them
    run_both(S.robot_api, robot(name), distance=name not in NO_DISTANCE,
             colours=not name.endswith(".urdf"))


@pytest.mark.parametrize("name", ["planar3R.rob", "ur5.rob", "robotiq_140.urdf"])
def test_link_editing(name):
    run_both(S.link_editing, robot(name))


@pytest.mark.parametrize("name", ["tx90blocks.xml", "athlete_plane.xml", "block.xml"])
def test_world_api(name):
    run_both(S.world_api, corpus_path("klampt", name))


def test_world_building(tmp_path):
    run_both(S.world_building, corpus_path("klampt"), str(tmp_path))


def test_mass_estimates():
    run_both(S.mass_estimates, corpus_path("klampt"))


def test_math_helpers():
    run_both(S.math_helpers)


def _compare(expected, got):
    assert [r[0] for r in got.records] == [r[0] for r in expected.records]
    bad = [(label, a, b) for (label, a, tol), (_, b, _) in zip(expected.records, got.records)
           if not _close(a, b, tol)]
    assert not bad, "\n".join(f"{label}:\n  klampt  {a}\n  re-read {b}" for label, a, b in bad[:8])


@pytest.mark.parametrize("name", ["planar3R.rob", "ur5.rob"])
def test_edits_saved_by_roboio_read_back_by_klampt(tmp_path, name):
    """Edit with the compat API, save, read back with real Klamp't: the same values as the
    same edits made in real Klamp't's memory."""
    cube = corpus_path("klampt", "objects", "cube.off")
    expected, got = S.Recorder(), S.Recorder()
    S.observe_world(S.edit_world(_real(), robot(name), cube), expected)

    ours = S.edit_world(_compat(), robot(name), cube)
    assert ours.saveFile(str(tmp_path / "edited.xml"))
    back = klampt.WorldModel()
    assert back.readFile(str(tmp_path / "edited.xml"))
    S.observe_world(back, got)
    _compare(expected, got)

    # the robot, terrain and object saved on their own
    assert ours.robot(0).saveFile(str(tmp_path / "r.rob"))
    # .env / .obj files cannot hold colours: the loss is reported, not silent
    with pytest.warns(RoboioWarning, match="appearance"):
        assert ours.terrain(0).saveFile(str(tmp_path / "t.env"))
    with pytest.warns(RoboioWarning, match="appearance"):
        assert ours.rigidObject(0).saveFile(str(tmp_path / "o.obj"))
    alone = klampt.WorldModel()
    assert [alone.loadElement(str(tmp_path / f)) for f in ("r.rob", "t.env", "o.obj")] == [0, 0, 1]
    expected_alone, got_alone = S.Recorder(), S.Recorder()
    real = S.edit_world(_real(), robot(name), cube)
    S.observe_world(real, expected_alone)
    S.observe_world(alone, got_alone)
    # loaded alone, the elements get their file names and Klamp't's default look
    for rec in (expected_alone, got_alone):
        rec.records = [r for r in rec.records if r[0] not in ("terrain 0", "object 0")]
        rec.records = [r if r[0] != "robot 0" else (r[0], r[1][1:], r[2]) for r in rec.records]
    _compare(expected_alone, got_alone)
