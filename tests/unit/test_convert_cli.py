"""roboio convert on bad requests: one line, the right exit status, nothing written."""
import json
import os
import shutil

from roboio.cli.main import main

from conftest import SAMPLES


def test_target_that_cannot_hold_the_input(tmp_path, capsys):
    path = tmp_path / "two.path"
    path.write_text("0 2 0 0\n1 2 1 1\n")
    out = tmp_path / "x.urdf"
    assert main(["convert", str(path), str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot hold a Trajectory" in err[0]
    assert not out.exists()


def test_unknown_format_is_a_usage_error(tmp_path, capsys):
    assert main(["convert", os.path.join(SAMPLES, "planar_arm.rob"), str(tmp_path / "x"), "--to", "nope"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_output_equal_to_input_needs_force(tmp_path, capsys):
    src = tmp_path / "arm.rob"
    shutil.copy(os.path.join(SAMPLES, "planar_arm.rob"), src)
    shutil.copytree(os.path.join(SAMPLES, "meshes"), tmp_path / "meshes")
    before = src.read_bytes()
    same = str(tmp_path / "." / "arm.rob")
    assert main(["convert", str(src), same]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert src.read_bytes() == before
    assert main(["convert", str(src), same, "--force"]) == 0


def test_directory_skips_companion_files_and_what_the_target_cannot_hold(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(os.path.join(SAMPLES, "planar_arm.rob"), src / "arm.rob")
    shutil.copytree(os.path.join(SAMPLES, "meshes"), src / "meshes")
    (src / "sensors.xml").write_text('<sensors>\n  <JointPositionSensor name="q"/>\n</sensors>\n')
    assert main(["--quiet", "convert", str(src), str(tmp_path / "out"), "--to", "openrave", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    by = {os.path.basename(f["input"]): f for f in res["files"]}
    assert by["arm.rob"]["ok"] and not by["arm.rob"].get("skipped")
    assert "Klamp't sensors file" in by["sensors.xml"]["skipped"]
    assert (res["converted"], res["skipped"], res["failed"]) == (1, 1, 0)
