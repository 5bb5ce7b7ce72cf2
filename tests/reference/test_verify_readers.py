"""roboio verify --reader: B read by the program it is meant for (Klamp't, pinocchio, MuJoCo),
its link frames that program's forward kinematics. Correct outputs verify; a B the program
refuses, or one that moves a link, fails; a missing library is a clear usage error. The
files are roboio's shipped samples and files written in the tests."""
import contextlib
import io
import json
import os
import warnings

import pytest

import roboio
from roboio import reference_readers
from roboio.cli.main import main

from conftest import SAMPLES

ARM = os.path.join(SAMPLES, "planar_arm.rob")
GRIPPER = os.path.join(SAMPLES, "mobile_gripper.urdf")      # floating base, mimic, continuous


def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main([str(a) for a in args])
    return rc, out.getvalue(), err.getvalue()


def verdict(*args):
    rc, out, err = cli("verify", *args, "--samples", "20", "--json")
    return rc, (json.loads(out) if out.strip() else {}), err


def saved(obj_path, out, fmt=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roboio.save(roboio.load(obj_path), out, format=fmt)
    return out


def test_klampt_reads_rob_and_world_files(tmp_path):
    pytest.importorskip("klampt")
    out = saved(ARM, tmp_path / "arm.rob")
    rc, res, err = verdict(ARM, out, "--reader", "klampt")
    assert rc == 0 and res["reader"] == "klampt" and res["exact"], err
    world = os.path.join(SAMPLES, "world.xml")           # the arm placed in a world
    rc, res, err = verdict(world, world, "--reader", "auto")
    assert rc == 0 and res["reader"] == "klampt" and res["ok"], err
    # Klamp't drops a robot whose mesh it cannot open; roboio warns and reads it
    text = (tmp_path / "arm.rob").read_text()
    bad = tmp_path / "bad.rob"
    bad.write_text(text.replace('"arm_meshes/base.off"', '"arm_meshes/nowhere.off"', 1)
                   if "arm_meshes/base.off" in text else text + 'geometry "nowhere.off"\n')
    rc, res, err = verdict(ARM, bad, "--reader", "klampt")
    assert rc == 1 and res["ok"] is False and "Klamp't cannot load" in res["refused"]


def test_pinocchio_reads_urdf_with_a_floating_base_mimic_and_continuous_joints(tmp_path):
    pytest.importorskip("pinocchio")
    rc, res, err = verdict(GRIPPER, GRIPPER, "--reader", "pinocchio")
    assert rc == 0 and res["exact"] and res["reader"] == "pinocchio", err
    assert res["matched_links"] == 12          # base0..base4 are pinocchio's free flyer
    out = saved(ARM, tmp_path / "arm.urdf")
    rc, res, err = verdict(ARM, out, "--reader", "auto")
    assert rc == 0 and res["reader"] == "pinocchio" and res["exact"], err
    # an output whose joint moved (its first coordinate replaced) fails as pinocchio reads it
    text = out.read_text()
    i = text.index('<joint name="elbow_joint"')
    j = text.index("<origin xyz=", i) + len('<origin xyz="')
    (tmp_path / "bad.urdf").write_text(text[:j] + "0.001 " + text[text.index(" ", j) + 1:])
    rc, res, err = verdict(ARM, tmp_path / "bad.urdf", "--reader", "pinocchio")
    assert rc == 1 and not res["ok"] and res["max_position_error"] > 1e-4


def test_mujoco_reads_mjcf(tmp_path):
    pytest.importorskip("mujoco")
    out = saved(GRIPPER, tmp_path / "gripper.xml", "mjcf")
    rc, res, err = verdict(GRIPPER, out, "--reader", "mujoco")
    assert rc == 0 and res["ok"] and res["reader"] == "mujoco", err
    assert res["max_position_error"] <= 1e-9
    out = saved(ARM, tmp_path / "arm.xml", "mjcf")
    rc, res, err = verdict(ARM, out, "--reader", "auto")
    assert rc == 0 and res["reader"] == "mujoco" and res["exact"], err
    # MuJoCo refuses a moving body without mass; the message is MuJoCo's
    (tmp_path / "massless.xml").write_text(
        '<mujoco><worldbody><body name="base"><joint name="j" type="hinge"/>'
        '<inertial pos="0 0 0" mass="0" diaginertia="0 0 0"/></body></worldbody></mujoco>')
    rc, res, err = verdict(ARM, tmp_path / "massless.xml", "--reader", "mujoco")
    assert rc == 1 and "MuJoCo refuses" in res["refused"]


def test_a_missing_library_is_a_clear_usage_error(tmp_path, monkeypatch):
    monkeypatch.setattr(reference_readers, "available", lambda name: False)
    out = saved(ARM, tmp_path / "arm.urdf")
    rc, out_text, err = cli("verify", ARM, out, "--reader", "pinocchio")
    assert rc == 2 and "pip install pin" in err
    rc, res, err = verdict(ARM, out, "--reader", "auto")     # auto falls back, and says so
    assert rc == 0 and res["reader"] == "roboio" and any("pip install pin" in n for n in res["notes"])


def test_import_roboio_imports_no_reference_library():
    import subprocess
    import sys
    code = ("import sys, roboio, roboio.verify, roboio.reference_readers\n"
            "print(sorted(m for m in ('klampt', 'pinocchio', 'mujoco') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
