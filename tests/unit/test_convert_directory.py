"""Directory conversion that cannot lose data (issue 21, item 1): outputs keep their input's
whole name so two inputs never share one, a clash that remains is refused before anything is
written, the summary counts what was written, a rerun never takes another input's output,
and ``convert FILE DIR/`` writes into DIR. Every robot here is a minimal file built in the
test; expected outputs are those of the single-file API (``roboio.save``)."""
import os

import pytest

import roboio
from roboio.cli.main import main

ROB = """links "base" "arm"
parents -1 0
jointtype r r
Tparent 1 0 0 0 1 0 0 0 1 0 0 0  1 0 0 0 1 0 0 0 1 0.5 0 0
axis 0 0 1 0 1 0
qmin -1 -2
qmax 1 2
mass 1 0.5
com 0 0 0 0.25 0 0
inertiaDiag 0.01 0.01 0.01 0.001 0.02 0.02
joint normal 0
joint normal 1
driver normal 0
driver normal 1
"""

URDF = """<?xml version="1.0"?>
<robot name="other">
  <link name="base"/>
  <link name="tip"/>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="tip"/>
    <origin xyz="0 0 0.3" rpy="0 0 0"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
"""


def _expected(tmp_path, src, to="urdf", name="expected.urdf"):
    """The single-file API's output for ``src`` (what a directory conversion must write)."""
    out = tmp_path / "single" / name
    out.parent.mkdir(exist_ok=True)
    roboio.save(roboio.load(str(src)), str(out), to)
    return out.read_bytes()


def _tree(tmp_path, files: dict):
    src = tmp_path / "in"
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    return src


def _files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs)


def test_inputs_sharing_a_stem_get_outputs_of_their_own(tmp_path, capsys):
    """arm.rob and arm.urdf both became arm.urdf (one lost, "2 of 2 converted")."""
    src = _tree(tmp_path, {"arm.rob": ROB, "arm.urdf": URDF})
    out = tmp_path / "out"
    assert main(["convert", str(src), str(out), "--to", "urdf"]) == 0
    stdout = capsys.readouterr().out
    assert _files(out) == ["arm.rob.urdf", "arm.urdf"]
    assert (out / "arm.rob.urdf").read_bytes() == _expected(tmp_path, src / "arm.rob")
    assert (out / "arm.urdf").read_bytes() == _expected(tmp_path, src / "arm.urdf")
    assert "2 of 2 files converted to urdf (2 files written)" in stdout


def test_a_clash_that_remains_is_refused_before_anything_is_written(tmp_path, capsys):
    """a.rob -> a.rob.urdf, and the URDF a.rob.urdf keeps its name: one output, two inputs."""
    src = _tree(tmp_path, {"a.rob": ROB, "a.rob.urdf": URDF, "b.rob": ROB})
    out = tmp_path / "out"
    rc = main(["convert", str(src), str(out), "--to", "urdf"])
    err = capsys.readouterr().err
    assert rc == 1 and len(err.strip().splitlines()) == 1, err
    assert str(src / "a.rob") in err and str(src / "a.rob.urdf") in err and "nothing was written" in err
    assert not out.exists()


def test_an_output_replacing_another_input_is_refused(tmp_path, capsys):
    """Converting a directory into itself: x.rob -> x.rob.urdf would replace the input
    x.rob.urdf (a URDF, whose own output is itself)."""
    src = _tree(tmp_path, {"x.rob": ROB, "y.urdf": URDF})
    assert main(["convert", str(src), str(src), "--to", "urdf"]) == 1    # y.urdf onto itself
    capsys.readouterr()
    (src / "x.rob.urdf").write_text(URDF)
    before = (src / "x.rob.urdf").read_bytes()
    rc = main(["convert", str(src), str(src), "--to", "urdf"])
    err = capsys.readouterr().err
    assert rc == 1 and "would replace the input" in err and "nothing was written" in err
    assert len(err.strip().splitlines()) == 1
    assert (src / "x.rob.urdf").read_bytes() == before


def test_counts_say_what_was_really_written(tmp_path, capsys):
    """A broken file fails (one line naming it and its line), a mesh is not a robot, and
    the summary counts the outputs on disk."""
    src = _tree(tmp_path, {"a.rob": ROB, "sub/b.urdf": URDF, "sub/c.urdf": "<robot name='x'>\n<link name='a'>\n",
                           "m.off": "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"})
    out = tmp_path / "out"
    rc = main(["convert", str(src), str(out), "--to", "urdf"])
    cap = capsys.readouterr()
    assert rc == 1
    err = cap.err.strip().splitlines()
    assert len(err) == 1 and "c.urdf:" in err[0] and "Traceback" not in cap.err
    assert _files(out) == ["a.rob.urdf", "sub/b.urdf"]
    assert "2 of 3 files converted to urdf (2 files written); 1 failed" in cap.out
    assert not any(f.startswith(".") for f in _files(out))     # no temporary file left


def test_a_rerun_never_replaces_another_inputs_output(tmp_path, capsys):
    src = _tree(tmp_path, {"arm.rob": ROB})
    out = tmp_path / "out"
    assert main(["convert", str(src), str(out), "--to", "urdf"]) == 0
    first = (out / "arm.rob.urdf").read_bytes()
    (src / "arm.urdf").write_text(URDF)              # the tree grows a file with the same stem
    assert main(["convert", str(src), str(out), "--to", "urdf"]) == 0
    capsys.readouterr()
    assert (out / "arm.rob.urdf").read_bytes() == first == _expected(tmp_path, src / "arm.rob")
    assert (out / "arm.urdf").read_bytes() == _expected(tmp_path, src / "arm.urdf", name="u.urdf")


@pytest.mark.parametrize("slash", [False, True])
def test_convert_file_into_a_directory(tmp_path, capsys, slash):
    rob = tmp_path / "arm.rob"
    rob.write_text(ROB)
    out = tmp_path / "dest"
    if not slash:
        out.mkdir()                                  # an existing directory
    target = str(out) + (os.sep if slash else "")     # or a path ending with a slash
    assert main(["convert", str(rob), target, "--to", "urdf"]) == 0
    assert "wrote " + str(out / "arm.rob.urdf") in capsys.readouterr().out
    assert _files(out) == ["arm.rob.urdf"]
    assert (out / "arm.rob.urdf").read_bytes() == _expected(tmp_path, rob)


def test_output_names_depend_on_the_input_name_only(tmp_path):
    from roboio.batch.walk import output_name
    from roboio.formats.registry import get
    urdf, rob = get("urdf"), get("klampt-rob")
    assert output_name("SR1.body", urdf) == "SR1.body.urdf"
    assert output_name("SR1.urdf", urdf) == "SR1.urdf"
    assert output_name(os.path.join("d", "barretthand.kinbody.xml"), urdf) == \
        os.path.join("d", "barretthand.kinbody.xml.urdf")
    assert output_name("robotiq_140.rob", urdf) == "robotiq_140.rob.urdf"
    assert output_name("robotiq_140.urdf", rob) == "robotiq_140.urdf.rob"


def test_globs_and_lists_are_walked_like_directories(tmp_path):
    from roboio.batch.walk import expand
    src = _tree(tmp_path, {"a.rob": ROB, "s/b.urdf": URDF, "s/.hidden/c.urdf": URDF, "s/t/d.urdf": URDF})
    found = expand([str(src / "**" / "*.urdf")])
    assert [s.rel for s in found] == [os.path.join("s", "b.urdf"), os.path.join("s", "t", "d.urdf")]
    both = expand([str(src / "a.rob"), str(src / "s")])
    assert [s.rel for s in both] == ["a.rob", "b.urdf", os.path.join("t", "d.urdf")]
    with pytest.raises(FileNotFoundError):
        expand([str(src / "*.nothing")])
