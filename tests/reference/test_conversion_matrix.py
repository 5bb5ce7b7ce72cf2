"""Conversion matrix (issue 13 acceptance), sampled: robots of every ecosystem in the corpus x
the robot writers, checked exactly as tools/conversion_matrix.py checks the whole corpus:
convert, read back, ``verify`` as ``roboio verify`` runs it (no extra placement by the
test), and write -> read -> write to the same path gives the same bytes.

``OK`` pairs must verify exactly (1e-9, nothing accounted for). ``LOSS`` pairs are the
targets that cannot hold something the source has, for reasons stated beside each; verify
must then pass with what it accounted for stated in the report (held links by name, a base
offset at least as large as measured). MJCF outputs are checked by MuJoCo in
test_mjcf_mujoco.py; URDF outputs by klampt and pinocchio in test_urdf_reference.py."""
import json
import os
import sys

import pytest

import roboio
from roboio.cli.main import main
from roboio.verify import verify

from conftest import CORPUS, ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import conversion_matrix  # noqa: E402

ROBOTS = ["klampt/robots/ur5.rob", "klampt/robots/robotiq_85.rob", "klampt/robots/robotiq_140.urdf",
          "choreonoid/share/model/SR1/SR1.body", "choreonoid/share/model/PA10/PA10.body",
          "graspit/models/robots/Barrett/Barrett.xml", "openrave/src/robots/barrettwam.robot.xml",
          "openrave/src/robots/pumaarm.zae"]
EXACT_WRITERS = ["klampt-rob", "urdf", "choreonoid-body", "openrave"]

PAIRS = ([(src, fmt, "OK") for fmt in EXACT_WRITERS for src in ROBOTS]
         + [(src, "collada-robot", "OK") for src in ROBOTS if "SR1" not in src]
         # GraspIt! chains do not branch (repeated links are copies) and a link's motion may
         # sit on an added joint: verify compares these DOF by DOF by itself
         + [(src, "graspit", "OK") for src in (ROBOTS[0], ROBOTS[5], ROBOTS[7])]
         # frames that are not rotations (stated FK change), composed shape rotations
         + [("klampt/robots/jaco.rob", "collada-robot", "LOSS"), ("klampt/robots/jaco.rob", "graspit", "LOSS"),
            ("choreonoid/share/model/HRP4C/HRP4C.body", "choreonoid-body", "OK"),
            ("choreonoid/share/model/JACO2/JACO2.body", "choreonoid-body", "OK"),
            # the AL5D's root turns and sits 1 cm up: a GraspIt! palm neither moves nor has a
            # base pose (verify holds the palm and places the base, the report states both)
            ("klampt/robots/AL5D.rob", "graspit", "LOSS"),
            # SR1's undriven joints become OpenRAVE passive joints (welds where SR1's
            # configuration holds them: verify holds them at SR1's values, the report says so)
            ("choreonoid/share/model/SR1/SR1.body", "collada-robot", "LOSS"),
            # a floating base with frame offsets: a Choreonoid free link folds them into its pose
            ("klampt/robots/athlete.rob", "choreonoid-body", "LOSS")])


@pytest.mark.parametrize("src, fmt, expected", PAIRS)
def test_convert_verify_and_rewrite(src, fmt, expected, tmp_path):
    path = os.path.join(CORPUS, src)
    if not os.path.isfile(path):
        pytest.skip("corpus absent")
    if fmt not in {f.name for f in roboio.formats() if f.can_write}:
        pytest.skip(f"no {fmt} writer")
    status, msg = conversion_matrix.check(path, fmt, str(tmp_path))
    assert status == expected, msg


def test_stated_loss_is_not_ok_without_its_statement(tmp_path):
    """The matrix counts a pair as LOSS only when the report states what verify accounted
    for: the AL5D's base offset (1 cm, measured by verify) must be in the report."""
    path = os.path.join(CORPUS, "klampt/robots/AL5D.rob")
    if not os.path.isfile(path):
        pytest.skip("corpus absent")
    robot = conversion_matrix.load(path)
    out = str(tmp_path / "AL5D.xml")
    rep = roboio.save(robot, out, format="graspit")
    res = verify(robot, conversion_matrix.load(out, format="graspit"), 20, seed=1)
    assert res.ok and not res.exact and res.space == "drivers"
    assert not conversion_matrix.unstated(res, rep.lost)
    # the report's base pose size is the root link's offset: |(0, 0, 0.01)| m, no turn
    assert any("base pose of 'Link_0'" in x and "0.01 m, 0 rad" in x for x in rep.lost), rep.lost
    lost = [x for x in rep.lost if "base pose" not in x]
    assert conversion_matrix.unstated(res, lost) == ["base offset 0.01 m, 0 rad not stated"]
    lost = [x for x in rep.lost if "Link_0" not in x]
    assert conversion_matrix.unstated(res, lost) == ["held link 'Link_0' not in the report",
                                                     "base offset 0.01 m, 0 rad not stated"]


def test_directory_of_corpus_robots(tmp_path, capsys):
    """``roboio convert DIR OUT --to FORMAT`` over a GraspIt! robot folder: the robot is
    converted, its body, eigengrasp and virtual-contact files are skipped with a reason
    (counted by reason; one line each with --verbose); the converted robot verifies against
    its source."""
    src = os.path.join(CORPUS, "graspit/models/robots/Barrett")
    if not os.path.isdir(src):
        pytest.skip("corpus absent")
    out = tmp_path / "out"
    assert main(["--quiet", "convert", src, str(out), "--to", "klampt-rob", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    files = {os.path.relpath(f["input"], src): f for f in res["files"]}
    assert files["Barrett.xml"]["ok"] and not files["Barrett.xml"].get("skipped")
    bodies = [k for k in files if k.startswith("iv" + os.sep)]
    assert bodies and all("RigidObject" in files[k]["skipped"] for k in bodies)
    companions = [k for k in files if k.startswith(("eigen", "virtual"))]
    assert companions and all("read with the robot that names it" in files[k]["skipped"] for k in companions)
    assert (res["converted"], res["skipped"], res["failed"]) == (1, len(files) - 1, 0)
    a = conversion_matrix.load(os.path.join(src, "Barrett.xml"))
    assert verify(a, conversion_matrix.load(str(out / "Barrett.xml.rob")), 20).exact   # whole name kept
    # the text form: a line per converted file, then the counts, skips counted by reason
    # (--verbose: a line per file)
    assert main(["--quiet", "convert", src, str(tmp_path / "out2"), "--to", "klampt-rob"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and not any("skipped:" in ln for ln in lines)
    assert lines[-1].startswith(f"1 of {len(files)} files converted to klampt-rob (")
    assert f"files written); {len(files) - 1} skipped (" in lines[-1]
    assert f"{len(bodies)}: format 'klampt-rob' cannot hold a RigidObject" in lines[-1]
    assert main(["--quiet", "convert", "--verbose", src, str(tmp_path / "out3"), "--to",
                 "klampt-rob"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(files) + 1 and sum("skipped:" in ln for ln in lines) == len(files) - 1
