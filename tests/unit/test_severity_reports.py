"""Reports that rank problems (issue 25, item 1): conversion reports grouped by item with
counts and the first few names, errors first; ``validate`` exiting on errors only
(``--strict``: warnings too; notes never) with a summary by severity; directory runs
(``validate DIR``, ``info DIR``, ``convert DIR``) as tables and counts, with the hints of
the options that fix their problems."""
import json
import os
import shutil
import sys

import numpy as np
import pytest

import roboio
from roboio.cli.main import main
from roboio.report import ConversionReport

from conftest import SAMPLES

sys.path.insert(0, os.path.dirname(__file__))
from test_urdf_write import chain  # noqa: E402

#: a URDF with one problem of each severity: a missing package (error, fixed by
#: --package-path), an axis of length 2 (normalised: warning), an element no URDF reader
#: knows (ignored: note)
FLAWED = """<robot name="flawed">
  <link name="base">
    <visual><geometry><mesh filename="package://flawed_description/meshes/base.stl"/></geometry></visual>
  </link>
  <link name="arm"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 0 2"/>
    <limit lower="-1" upper="1" effort="10" velocity="1"/>
    <rotorinertia>0.1</rotorinertia>
  </joint>
</robot>
"""


def _flawed(tmp_path, missing_mesh=True, name="flawed.urdf"):
    text = FLAWED if missing_mesh else FLAWED.replace(
        '<visual><geometry><mesh filename="package://flawed_description/meshes/base.stl"/>'
        '</geometry></visual>', "")
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def _run(capsys, *args):
    rc = main(["-q", *map(str, args)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_group_prints_its_count_and_first_names_errors_first():
    rep = ConversionReport("out.xml", "openrave")
    joints = [f"J{i}" for i in range(29)]
    for j in joints:
        rep.lose("unbounded maxvel", j, kind="target default", noun="joint")
    rep.lose("mesh rounded", kind="rounding")
    rep.lose("mesh missing", "base", kind="missing file", noun="link")
    lines = rep.render().splitlines()
    assert lines[1:] == ["  lost (error): mesh missing (link base)",
                         "  lost (warning): unbounded maxvel (29 joints: J0, J1, J2, +26 more)",
                         "  lost (note): mesh rounded",
                         "  1 error, 1 warning, 1 note"]
    # --verbose: every name; the API keeps one item per group with every name
    assert f"(29 joints: {', '.join(joints)})" in rep.render(verbose=True)
    assert rep.lost[0] == "unbounded maxvel: " + ", ".join(joints)
    assert [x.severity for x in rep.lost] == ["warning", "note", "error"]
    items = rep.to_dict()["items"]
    assert [i["severity"] for i in items] == ["error", "warning", "note"]
    assert items[1]["concerning"] == joints and items[1]["kind"] == "target default"


def test_renames_beyond_the_first_few_are_counted():
    rep = ConversionReport("out.urdf", "urdf")
    for i in range(5):
        rep.rename("links", f"link {i}", f"link_{i}")
    text = rep.render()
    assert text.count("renamed link") == 3 and "  renamed 2 more links (--verbose lists them)" in text
    assert rep.render(verbose=True).count("renamed link '") == 5
    assert rep.to_dict()["renamed"]["links"]["link 4"] == "link_4"


def test_a_loss_on_every_joint_is_one_grouped_item(tmp_path):
    # OpenRAVE applies a default maxvel where the model has none: one item naming all joints
    names = [f"j{i}" for i in range(6)]
    r = chain([(n, i - 1, "revolute", (0, 0, 1), (0.1, 0, 0)) for i, n in enumerate(names)])
    r.vmin[:], r.vmax[:] = -np.inf, np.inf
    for d in r.drivers:
        d.vmin, d.vmax = -np.inf, np.inf
    rep = roboio.save(r, tmp_path / "c.robot.xml")
    maxvel = [x for x in rep.lost if "unbounded maxvel" in x]
    assert len(maxvel) == 1 and maxvel[0].endswith(": " + ", ".join(names))
    assert maxvel[0].severity == "warning"
    assert "unbounded maxvel (OpenRAVE applies its default 10) (6 joints: j0, j1, j2, +3 more)" \
        in rep.render()


def test_float32_rounding_of_meshes_is_one_note_with_its_largest_change(tmp_path):
    rep = roboio.save(roboio.load(os.path.join(SAMPLES, "world.xml")), tmp_path / "w.glb")
    rounded = [i for i in rep.to_dict()["items"] if "32-bit floats" in i["text"]]
    assert len(rounded) == 1
    item = rounded[0]
    # float32 keeps about 7 digits: metre-sized meshes move by well under a micrometre
    assert item["severity"] == "note" and item["kind"] == "rounding" and item["unit"] == "m"
    assert 0 < item["largest"] < 1e-6
    assert len(item["concerning"]) == 7           # floor, crate and the arm's five link meshes


def test_validate_fails_on_errors_only_and_strict_on_warnings(tmp_path, capsys):
    bad = _flawed(tmp_path)
    rc, out, _ = _run(capsys, "validate", bad)
    assert rc == 1
    lines = out.splitlines()
    assert lines[0].startswith("error: ") and "flawed_description" in lines[0]
    assert lines[1] == "  hint: try --package-path DIR"
    assert lines[2].startswith("warning: ") and "|axis| = 2" in lines[2]
    assert lines[3].startswith("note: ") and "<rotorinertia>" in lines[3]
    assert lines[-1] == f"{bad}: 1 error, 1 warning, 1 note (FAILED)"

    rc, out, _ = _run(capsys, "validate", "--json", bad)
    report = json.loads(out)
    assert rc == 1 and not report["ok"]
    assert report["counts"] == {"error": 1, "warning": 1, "note": 1}
    assert [(p["severity"], p["kind"], p["hint"]) for p in report["problems"]] == [
        ("error", "missing file", "--package-path DIR"), ("warning", "read differently", None),
        ("note", "ignored", None)]

    warned = _flawed(tmp_path, missing_mesh=False, name="warned.urdf")
    rc, out, _ = _run(capsys, "validate", warned)
    assert rc == 0 and out.splitlines()[-1] == f"{warned}: 0 errors, 1 warning, 1 note (OK)"
    rc, out, _ = _run(capsys, "validate", "--strict", warned)
    assert rc == 1 and out.splitlines()[-1].endswith("(FAILED: --strict fails on warnings)")

    noted = tmp_path / "noted.urdf"
    noted.write_text(open(warned).read().replace('xyz="0 0 2"', 'xyz="0 0 1"'))
    rc, out, _ = _run(capsys, "validate", "--strict", noted)
    assert rc == 0 and out.splitlines()[-1] == f"{noted}: 0 errors, 0 warnings, 1 note (OK)"


def test_validate_and_info_of_a_directory_print_a_table(tmp_path, capsys):
    shutil.copy(os.path.join(SAMPLES, "mobile_gripper.urdf"), tmp_path)
    _flawed(tmp_path)
    rc, out, _ = _run(capsys, "validate", tmp_path)
    lines = out.splitlines()
    assert rc == 1
    assert lines[0].split() == ["file", "format", "kind", "holds", "errors", "warnings", "notes",
                                "result"]
    rows = {l.split()[0]: l.split() for l in lines[1:3]}
    assert rows["flawed.urdf"][1:3] == ["urdf", "robot"] and rows["flawed.urdf"][-4:] == \
        ["1", "1", "1", "FAILED"]
    assert rows["mobile_gripper.urdf"][1:3] == ["urdf", "robot"] and \
        rows["mobile_gripper.urdf"][-4:] == ["0", "0", "0", "OK"]
    assert f"{tmp_path}: 2 files, 1 failed; 1 error, 1 warning, 1 note" in out
    assert lines[-1] == "hint: 1 file with problems an option fixes: try --package-path DIR"

    rc, out, _ = _run(capsys, "info", tmp_path)
    assert rc == 0
    rows = {l.split()[0]: l for l in out.splitlines()[1:3]}
    # what the load holds: the URDF's two links after the six of the floating base Klamp't
    # gives a URDF root; one joint, the shoulder, in the joint vector
    loaded = roboio.load(str(tmp_path / "flawed.urdf"), strict=False)
    assert len(loaded.links) == 7 and "7 links, 1 joint" in rows["flawed.urdf"]
    assert "12 links, 4 joints" in rows["mobile_gripper.urdf"]


def test_directory_conversions_count_skips_and_give_hints(tmp_path, capsys):
    src = tmp_path / "src"
    shutil.copytree(os.path.join(SAMPLES, "graspit"), src)
    _flawed(src)
    rc, out, _ = _run(capsys, "convert", src, tmp_path / "out", "--to", "klampt-rob")
    assert rc == 0
    assert "skipped:" not in out            # three GraspIt! body files: counted, not listed
    assert "2 of 5 files converted to klampt-rob" in out
    assert "3 skipped (format 'klampt-rob' cannot hold a RigidObject)" in out
    # the input's three problems, and the .rob's loss of the visual geometry (a warning)
    assert "flawed.urdf.rob  (1 error, 2 warnings, 1 note)" in out
    assert out.splitlines()[-1] == "hint: 1 file with problems an option fixes: try --package-path DIR"
    rc, out, _ = _run(capsys, "convert", "--verbose", src, tmp_path / "out2", "--to", "klampt-rob")
    assert out.count("skipped: format 'klampt-rob' cannot hold a RigidObject") == 3


def test_info_lists_the_problems_of_a_load_by_severity(tmp_path, capsys):
    rc, out, _ = _run(capsys, "info", _flawed(tmp_path))
    tail = out.splitlines()[-4:]
    assert rc == 0
    assert tail[0].startswith("error: ") and "flawed_description" in tail[0]
    assert tail[1:] == ["  hint: try --package-path DIR", tail[2], tail[3]]
    assert tail[2].startswith("warning: ") and tail[3].startswith("note: ")


def test_a_file_of_unknown_type_is_told_to_name_its_format(tmp_path, capsys):
    p = tmp_path / "arm_without_extension"
    shutil.copy(os.path.join(SAMPLES, "planar_arm.rob"), p)
    rc, out, err = _run(capsys, "info", p)
    assert rc == 1 and not out
    assert err.strip().endswith("name its format with --format NAME (`roboio formats` lists them)")
    rc, out, err = _run(capsys, "info", p, "--format", "klampt-rob")
    assert rc == 0 and "6 links" in out


def test_files_written_beside_the_output_beyond_the_first_few_are_counted():
    rep = ConversionReport("out.rob", "klampt-rob")
    rep.files = ["out.rob"] + [f"out_{i}.off" for i in range(10)]
    lines = rep.render().splitlines()
    assert lines[1:5] == ["  also wrote out_0.off", "  also wrote out_1.off", "  also wrote out_2.off",
                          "  also wrote 7 more files (--verbose lists them)"]
    assert rep.render(verbose=True).count("also wrote out_") == 10
    rep.files = rep.files[:5]                      # four: all listed (a count saves no line)
    assert rep.render().count("also wrote out_") == 4
