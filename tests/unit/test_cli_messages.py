"""The command line's messages name the file they concern; a file roboio cannot tell the
format of gets the option that names it; ``convert --robot`` picks one robot of a world."""
import contextlib
import io
import os
import shutil

import numpy as np
import pytest

from conftest import SAMPLES
import roboio
from roboio.cli.main import main

ARM = os.path.join(SAMPLES, "planar_arm.rob")
WORLD = os.path.join(SAMPLES, "world.xml")
REACH = os.path.join(SAMPLES, "klampt", "arm_reach.path")
WAVE = os.path.join(SAMPLES, "choreonoid", "arm_wave.seq")
BODY = os.path.join(SAMPLES, "choreonoid", "arm.body")


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in args])
    return rc, out.getvalue(), err.getvalue()


# -- a file without its extension ------------------------------------------------------------

@pytest.fixture
def bare_arm(tmp_path):
    """The planar arm's .rob without its extension (its meshes beside it)."""
    shutil.copytree(os.path.join(SAMPLES, "meshes"), tmp_path / "meshes")
    shutil.copy(ARM, tmp_path / "arm")
    return tmp_path / "arm"


@pytest.mark.parametrize("command,option", [("info", "--format FORMAT"), ("validate", "--format FORMAT"),
                                            ("convert", "--from FORMAT")])
def test_a_file_without_extension_names_the_option_and_the_formats(bare_arm, tmp_path, command, option):
    args = [command, bare_arm] + ([tmp_path / "out.urdf"] if command == "convert" else [])
    rc, out, err = run(*args)
    assert rc == 1 and err.count("\n") == 1
    assert f"{bare_arm}: unknown file type" in err and "(none)" in err
    assert f"name its format with {option}" in err
    # the formats known by extension only: the content cannot rule them out
    for name in ("klampt-rob (.rob)", "klampt-tri (.tri)", "klampt-terrain (.env)"):
        assert name in err
    assert "urdf" not in err.split("could read it:")[1]       # URDF is told by its content


def test_naming_the_format_reads_it(bare_arm, tmp_path):
    assert run("info", bare_arm, "--format", "klampt-rob")[0] == 0
    rc, out, err = run("validate", bare_arm, "--format", "klampt-rob")
    assert rc == 0 and out.strip() == f"{bare_arm}: OK"
    rc, out, err = run("convert", bare_arm, tmp_path / "arm.urdf", "--from", "klampt-rob")
    assert rc == 0
    a, b = roboio.load(ARM), roboio.load(tmp_path / "arm.urdf")
    assert np.allclose(a.fk(a.config), b.fk(a.config), atol=1e-12)


def test_a_command_without_a_format_option_says_to_give_the_extension(bare_arm):
    rc, out, err = run("fk", bare_arm)
    assert rc == 1 and str(bare_arm) in err and "give the file its format's extension" in err


def test_python_names_format_and_keeps_the_candidates(bare_arm):
    with pytest.raises(roboio.FormatError) as e:
        roboio.load(bare_arm)
    assert isinstance(e.value, roboio.errors.UnknownFileType)
    assert e.value.path == str(bare_arm) and "name its format with format=FORMAT" in str(e.value)
    assert ("klampt-rob", (".rob",)) in e.value.candidates
    assert roboio.load(bare_arm, format="klampt-rob").num_links == 6


# -- files named in messages -----------------------------------------------------------------

@pytest.mark.parametrize("args,named", [
    (["verify", ARM, REACH], REACH),                          # which file holds a trajectory
    (["verify", REACH, ARM], REACH),
    (["fk", REACH], REACH),
    (["dynamics", WAVE], WAVE),
    (["motion", "fk", WAVE, "--model", REACH], REACH),
    (["motion", "fk", WAVE, "--model", BODY, "--frames", "500"], WAVE),
    (["plot", WAVE, "-o", "OUT.png", "--model", REACH], REACH),
    (["render", REACH, "-o", "OUT.png"], REACH),
    (["collide", WORLD, "--random", "3"], WORLD),
    (["convert", REACH, "OUT.glb", "--config", "0 0"], REACH),
    (["fk", ARM, "--robot", "other"], ARM),
    (["fk", WORLD, "--robot", "nope"], WORLD),
    (["fk", ARM, "--config", "nope=1"], ARM),                 # --config names the robot's file
    (["fk", WORLD, "--config", "1 2"], ARM),
    (["fk", ARM, "--config", "joints: 1 2"], ARM),
    (["collide", ARM, "--motion", WAVE], ARM),
])
def test_usage_errors_name_their_file(args, named, tmp_path):
    args = [str(tmp_path / a) if a.startswith("OUT") else a for a in args]
    rc, out, err = run(*args)
    assert rc == 2 and named in err, err
    assert err.count("\n") == 1


def test_verify_says_which_file_is_not_a_robot():
    rc, out, err = run("verify", ARM, REACH)
    assert err.strip() == f"roboio verify: error: {REACH} holds a Trajectory, not a robot"


# -- convert --robot -------------------------------------------------------------------------

@pytest.fixture
def two_arms(tmp_path):
    """A Klamp't world of two planar arms (the second 1 m along y, turned a quarter turn),
    the sample's crate and floor."""
    for f in ("planar_arm.rob", "crate.obj", "floor.env"):
        shutil.copy(os.path.join(SAMPLES, f), tmp_path / f)
    shutil.copytree(os.path.join(SAMPLES, "meshes"), tmp_path / "meshes")
    (tmp_path / "two.xml").write_text(
        '<world>\n'
        '  <robot name="left" file="planar_arm.rob"/>\n'
        '  <robot name="right" file="planar_arm.rob" translation="0 1 0" rotateZ="1.5707963267948966"/>\n'
        '  <rigidObject name="crate" file="crate.obj"/>\n'
        '  <terrain name="floor" file="floor.env"/>\n'
        '</world>\n')
    return tmp_path / "two.xml"


def test_convert_robot_writes_that_robot_and_reports_the_rest(two_arms, tmp_path):
    out = tmp_path / "right.urdf"
    rc, text, err = run("convert", two_arms, out, "--robot", "right")
    assert rc == 0, err
    for lost in ("robot 'left' (--robot right writes one robot of the world)",
                 "rigid object 'crate' (--robot right", "terrain 'floor' (--robot right"):
        assert lost in text
    urdf = roboio.load(out)
    # by hand: the right arm's base stands at (0, 1, 0.1), turned a quarter turn about z, so
    # its wrist, 0.9 m along the arm's x at q = 0, lies at (0, 1.9, 0.3)
    assert np.allclose(urdf.fk(np.zeros(urdf.num_links))[urdf.link_index("wrist"), :3, 3],
                       (0, 1.9, 0.3), atol=1e-12)


def test_convert_robot_by_index_and_the_default_first_robot(two_arms, tmp_path):
    rc, text, err = run("convert", two_arms, tmp_path / "first.urdf", "--robot", "0")
    assert rc == 0 and "robot 'right' (--robot 0 writes one robot of the world)" in text
    rc, text, err = run("convert", two_arms, tmp_path / "default.urdf")
    assert rc == 0 and "robot 'right' (the target holds one robot)" in text
    a, b = roboio.load(tmp_path / "first.urdf"), roboio.load(tmp_path / "default.urdf")
    assert np.allclose(a.fk(np.zeros(a.num_links)), b.fk(np.zeros(b.num_links)), atol=1e-12)


def test_convert_robot_refusals_name_the_file(two_arms, tmp_path):
    rc, out, err = run("convert", two_arms, tmp_path / "x.urdf", "--robot", "rigth")
    assert rc == 2 and str(two_arms) in err and "did you mean 'right'?" in err and "'left'" in err
    rc, out, err = run("convert", ARM, tmp_path / "x.urdf", "--robot", "other")
    assert rc == 2 and ARM in err and "'planar_arm'" in err
    rc, out, err = run("convert", SAMPLES, tmp_path / "dir", "--to", "urdf", "--robot", "arm")
    assert rc == 2 and SAMPLES in err and "--robot" in err
    assert not os.path.exists(tmp_path / "x.urdf") and not os.path.exists(tmp_path / "dir")


@pytest.mark.parametrize("backend", ["compiled", "numpy"])
def test_dynamics_prints_the_same_centre_of_mass_on_every_backend(backend):
    """The planar arm is symmetric about its x-z plane: its centre of mass has y = 0, which
    one backend computes as -1e-17; the CLI prints 0.000000 (no -0.000000) on both."""
    from roboio.kinematics.backends import available_backends, use_backend
    if backend not in available_backends():
        pytest.skip(f"the {backend} kinematics backend is not available here")
    out = io.StringIO()
    with use_backend(backend), contextlib.redirect_stdout(out):
        assert main(["dynamics", os.path.join(SAMPLES, "planar_arm.rob"),
                     "--config", "shoulder=0.5 elbow=-0.8"]) == 0
    com = next(line for line in out.getvalue().splitlines() if line.startswith("centre of mass"))
    assert com == "centre of mass: 0.291540 0.000000 0.158360 m (world)"
