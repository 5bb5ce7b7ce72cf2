"""The command line driven as a user drives it: ``python -m roboio ...`` in a subprocess, with
the worktree's code (PYTHONPATH), checking what is printed, the ``--json`` schemas and the
exit statuses. Expected values are worked out by hand from the files written here.

The tree, limits, joint vector and name forms are checked on a URDF with fixed, continuous,
prismatic, mimic and (Klamp't's) floating-base joints; corpus robots (a GraspIt! hand, an
OpenRAVE arm, a Choreonoid body, Klamp't .rob files) are in tests/corpus/test_cli_corpus.py.
"""
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT

SAMPLES = os.path.join(ROOT, "roboio", "data", "samples")
ARM = os.path.join(SAMPLES, "planar_arm.rob")

MIXED_URDF = """<?xml version="1.0"?>
<robot name="mixed">
  <link name="base">
    <inertial><mass value="4"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
  </link>
  <link name="torso">
    <inertial><mass value="2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
  </link>
  <link name="wheel"/>
  <link name="slider"/>
  <link name="finger_a"/>
  <link name="finger_b"/>
  <joint name="torso_fixed" type="fixed">
    <parent link="base"/><child link="torso"/><origin xyz="0 0 0.1"/>
  </joint>
  <joint name="wheel_joint" type="continuous">
    <parent link="base"/><child link="wheel"/><axis xyz="0 1 0"/>
  </joint>
  <joint name="lift" type="prismatic">
    <parent link="torso"/><child link="slider"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0.5" effort="10" velocity="1"/>
  </joint>
  <joint name="finger_a_joint" type="revolute">
    <parent link="slider"/><child link="finger_a"/><axis xyz="0 0 1"/>
    <limit lower="-0.5" upper="1.0" effort="10" velocity="1"/>
  </joint>
  <joint name="finger_b_joint" type="revolute">
    <parent link="slider"/><child link="finger_b"/><axis xyz="0 0 1"/>
    <limit lower="-1.0" upper="0.5" effort="10" velocity="1"/>
    <mimic joint="finger_a_joint" multiplier="-1" offset="0.1"/>
  </joint>
</robot>
"""

# two links, drivers listed in the opposite order: as many joints as links, read differently
SWAPPED_ROB = """links "a" "b"
parents -1 0
jointtype r r
Tparent 1 0 0 0 1 0 0 0 1 0 0 0   1 0 0 0 1 0 0 0 1 1 0 0
axis 0 0 1 0 0 1
qmin -3 -3
qmax 3 3
joint normal 0
joint normal 1
driver normal 1
driver normal 0
"""


def roboio(*args, env=None, cwd=ROOT):
    """``python -m roboio ARGS`` as a user runs it: (exit status, stdout, stderr)."""
    e = dict(os.environ, PYTHONPATH=ROOT, ROBOIO_NO_PROGRESS="")
    e.pop("ROBOIO_NO_PROGRESS")
    e.update(env or {})
    r = subprocess.run([sys.executable, "-m", "roboio", *map(str, args)], cwd=cwd, env=e,
                       capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    p = tmp_path_factory.mktemp("mixed") / "mixed.urdf"
    p.write_text(MIXED_URDF)
    return str(p)


@pytest.fixture(scope="module")
def mixed_info(mixed):
    rc, out, err = roboio("info", mixed, "--json")
    assert rc == 0, err
    return json.loads(out)


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


# -- info ---------------------------------------------------------------------------------

def test_info_json_schema(mixed_info):
    s = mixed_info
    assert (s["kind"], s["format"], s["name"]) == ("robot", "urdf", "mixed")
    # Klamp't's layout: five virtual base links, then base, torso, slider, fingers, wheel
    assert s["num_links"] == 11 and s["num_joints"] == 3 and s["num_drivers"] == 3
    assert s["mass"] == pytest.approx(4 + 2)        # no <inertial>: zero mass (URDF specification)
    assert s["joint_types"] == {"floating": 1, "fixed": 1, "prismatic": 1, "revolute": 2,
                                "continuous": 1}
    assert s["joint_groups"]["floating"] == 1 and s["joint_groups"]["weld"] == 1
    # a URDF joint vector is named after the URDF's actuated joints
    joints = {j["name"]: j for j in s["joints"]}
    assert set(joints) == {"lift", "finger_a_joint", "wheel_joint"}
    assert [j["index"] for j in s["joints"]] == [0, 1, 2]
    a = joints["finger_a_joint"]
    assert (a["type"], a["unit"], a["file_joint"]) == ("revolute", "rad", "finger_a_joint")
    assert (a["lower"], a["upper"], a["links"]) == (-0.5, 1.0, ["finger_a", "finger_b"])
    assert (joints["lift"]["type"], joints["lift"]["unit"]) == ("prismatic", "m")
    assert joints["wheel_joint"]["type"] == "continuous"
    assert (joints["wheel_joint"]["lower"], joints["wheel_joint"]["upper"]) == ("-inf", "inf")
    tree = {t["child"]: t for t in s["tree"]}
    assert set(tree) == {"base", "torso", "slider", "finger_a", "finger_b", "wheel"}
    assert tree["base"]["type"] == "floating" and tree["base"]["parent"] is None
    assert tree["base"]["links"] == ["base0", "base1", "base2", "base3", "base4", "base"]
    assert (tree["torso"]["type"], tree["torso"]["name"], tree["torso"]["parent"]) == \
        ("fixed", "torso_fixed", "base")
    assert tree["wheel"]["type"] == "continuous" and tree["wheel"]["axis"] == [0, 1, 0]
    assert tree["slider"]["type"] == "prismatic" and tree["slider"]["upper"] == 0.5
    assert tree["finger_b"]["mimic"] == {"leader": "finger_a", "driver": "finger_a_joint",
                                         "multiplier": -1.0, "offset": 0.1}
    assert tree["finger_a"]["mimic"] is None and tree["finger_a"]["joint"] == "finger_a_joint"
    assert tree["base"]["geometry"] == {"AABB": 1} and tree["base"]["mass"] == 4
    links = {l["name"]: l for l in s["links"]}
    assert links["base0"]["joint"] == "virtual" and links["torso"]["joint"] == "fixed"
    assert links["torso"]["joint_group"] == "weld"


def test_info_tree_text(mixed):
    rc, out, err = roboio("info", mixed, "--tree")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == f"{mixed}: robot 'mixed' (urdf)"
    assert "weld" not in out and "base0" not in out.split("\njoints (the order")[0].split("world")[1]
    i = lines.index("  world")
    tree = "\n".join(lines[i:i + 7])
    deg = lambda x: f"{math.degrees(x):.5g}°"     # noqa: E731
    expect = [
        "  └─ base  [floating, 5 virtual links]  4 kg, box",
        "     ├─ torso  [fixed torso_fixed]  2 kg, no geometry",
        "     │  └─ slider  [prismatic lift, axis z, 0..0.5 m]",
        f"     │     ├─ finger_a  [revolute finger_a_joint, axis z, {deg(-0.5)}..{deg(1.0)} "
        "(-0.5..1 rad)]",
        f"     │     └─ finger_b  [revolute finger_b_joint, axis z, {deg(-1.0)}..{deg(0.5)} "
        "(-1..0.5 rad), mimic finger_a ×-1 + 0.1]",
        "     └─ wheel  [continuous wheel_joint, axis y]",
    ]
    for e in expect:
        assert e in tree, f"{e!r} not in\n{tree}"


def test_info_default_lists_links_and_the_joint_vector(mixed, mixed_info):
    rc, out, err = roboio("info", mixed)
    assert rc == 0, err
    assert "11 links (5 virtual), mass 6 kg" in out        # 4 significant digits
    assert "joints: 1 floating, 1 fixed, 1 prismatic, 2 revolute, 1 continuous (1 mimic)" in out
    names = [j["name"] for j in mixed_info["joints"]]
    assert f"3 actuated joints (the --config joint vector): {', '.join(names)}" in out
    table = out.split("joints (the order of --config joint values")[1].splitlines()[2:5]
    assert [row.split()[1] for row in table] == names       # same order as --json
    link_rows = out.split("\nlinks:\n")[1].split("\njoints")[0].splitlines()
    torso = next(r for r in link_rows if r.split()[1] == "torso")
    assert "fixed torso_fixed" in torso and "revolute" not in torso
    assert "weld" not in out


# -- --config forms -----------------------------------------------------------------------

def _finger_b(out):
    data = json.loads(out)
    [s] = data["samples"]
    return data, s, np.array(s["transforms"][0])


def test_fk_joint_vector_link_vector_and_names_agree_with_the_hand_computation(mixed, mixed_info):
    order = [j["name"] for j in mixed_info["joints"]]
    values = {"lift": 0.2, "finger_a_joint": 0.5, "wheel_joint": 1.0}
    vector = " ".join(str(values[n]) for n in order)
    rc, out, err = roboio("fk", mixed, "--config", vector, "--link", "finger_b", "--json")
    assert rc == 0, err
    data, s, T = _finger_b(out)
    # finger_b = base (identity) * torso (z 0.1) * lift (z 0.2) * Rz(0.1 - finger_a)
    np.testing.assert_allclose(T[:3, 3], [0, 0, 0.3], atol=1e-12)
    np.testing.assert_allclose(T[:3, :3], rot_z(0.1 - 0.5), atol=1e-12)
    assert data["links"] == ["finger_b"] and data["joints"] == order
    assert data["config_names"] == [l["name"] for l in mixed_info["links"]]
    assert s["joints"] == pytest.approx(values)
    link_vector = s["config"]
    # the same pose from the link vector, and from names (URDF joint names, degrees)
    rc, out2, err = roboio("fk", mixed, "--config", " ".join(map(repr, link_vector)),
                           "--link", "finger_b", "--json")
    assert rc == 0, err
    np.testing.assert_allclose(_finger_b(out2)[2], T, atol=1e-15)
    rc, out3, err = roboio("fk", mixed, "--config", f"lift=0.2 finger_a_joint={math.degrees(0.5)!r}deg",
                           "--link", "finger_b", "--json")
    assert rc == 0, err
    data3, s3, T3 = _finger_b(out3)
    np.testing.assert_allclose(T3, T, atol=1e-12)
    assert s3["joints"]["wheel_joint"] == 0.0     # unnamed joints at their initial values


def test_fk_text_names_the_joints(mixed):
    rc, out, err = roboio("fk", mixed, "--config", "finger_a=0.25", "--link", "finger_a")
    assert rc == 0, err
    # named by its link, shown by its joint's URDF name
    assert "finger_a_joint=0.25" in out.splitlines()[1] and out.splitlines()[1].startswith("joints: ")
    assert out.splitlines()[2].split()[0] == "finger_a"


def test_config_errors_say_what_each_length_means(mixed):
    rc, out, err = roboio("fk", mixed, "--config", "0.1 0.2")
    assert rc == 2 and out == ""
    assert "--config has 2 values" in err and "3 joints" in err and "11 links" in err
    assert "finger_a_joint" in err and "name=value" in err and err.count("\n") == 1
    rc, _, err = roboio("fk", mixed, "--config", "nope=1")
    assert rc == 2 and "no joint or link named 'nope'" in err
    rc, _, err = roboio("fk", mixed, "--config", "lift=3deg")
    assert rc == 2 and "prismatic" in err
    rc, _, err = roboio("fk", mixed, "--config", "0.1 lift=0.2")
    assert rc == 2 and "not both" in err


def test_equal_lengths_read_as_links_with_a_note_and_prefixes_choose(tmp_path):
    rob = tmp_path / "swapped.rob"
    rob.write_text(SWAPPED_ROB)
    rc, out, err = roboio("fk", rob, "--config", "0.1 0.2", "--json")
    assert rc == 0
    assert json.loads(out)["samples"][0]["config"] == [0.1, 0.2]
    assert "read as the link vector" in err and "joints:" in err
    rc, out, err = roboio("fk", rob, "--config", "joints: 0.1 0.2", "--json")
    assert rc == 0 and err == ""
    s = json.loads(out)["samples"][0]
    assert s["config"] == [0.2, 0.1]              # joint 0 drives link b, joint 1 link a
    assert json.loads(out)["joints"] == ["b", "a"] and s["joints"] == {"b": 0.1, "a": 0.2}
    rc, out, err = roboio("fk", rob, "--config", "links:0.1,0.2", "--json")
    assert rc == 0 and err == "" and json.loads(out)["samples"][0]["config"] == [0.1, 0.2]


def test_fk_random_samples_joints_and_keeps_couplings(mixed):
    rc, out, err = roboio("fk", mixed, "--random", "20", "--seed", "3", "--json")
    assert rc == 0, err
    data = json.loads(out)
    names = data["config_names"]
    for s in data["samples"]:
        q = dict(zip(names, s["config"]))
        assert q["finger_b"] == pytest.approx(0.1 - q["finger_a"])       # the mimic holds
        assert -0.5 <= q["finger_a"] <= 1.0 and 0 <= q["slider"] <= 0.5
        assert all(q[f"base{i}"] == 0 for i in range(5)) and q["torso"] == 0


# -- help, formats -----------------------------------------------------------------------

def test_help_imports_no_numpy_and_every_command_has_examples():
    code = ("import sys; from roboio.cli.main import build_parser; p = build_parser(); "
            "p.format_help(); heavy = ('numpy', 'lxml', 'yaml', 'trimesh', 'roboio.model', "
            "'roboio.api', 'tqdm'); print([m for m in heavy if m in sys.modules])")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr
    rc, out, err = roboio("--help")
    assert rc == 0 and "examples:" in out and "COMMAND --help" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def _leaf_parsers():
    import argparse
    from roboio.cli.main import build_parser

    def walk(p, name):
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        yield name, p
        for a in subs:
            for n, sp in a.choices.items():
                yield from walk(sp, f"{name} {n}")
    return list(walk(build_parser(), "roboio"))


def test_every_command_has_examples_and_every_option_a_description():
    import argparse
    parsers = _leaf_parsers()
    names = {n for n, _ in parsers}
    assert {"roboio info", "roboio fk", "roboio verify", "roboio convert", "roboio formats",
            "roboio completion", "roboio motion fk"} <= names
    for name, p in parsers:
        if name == "roboio":
            continue
        text = p.format_help()
        examples = [line for line in text.split("examples:")[-1].splitlines()
                    if line.strip().startswith("roboio ") or "roboio " in line]
        assert "examples:" in text and len(examples) >= 2, f"{name}: needs two examples"
        for a in p._actions:
            if isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            assert a.help and a.help != argparse.SUPPRESS, f"{name} {a.option_strings or a.dest}: no help"
    verify = dict(parsers)["roboio verify"].format_help()
    for opt in ("--samples", "--seed", "--tol"):
        line = verify.split(opt, 1)[1].split("\n  -")[0]
        assert len(line.split()) > 3, f"verify {opt} is not described"


def test_formats_fits_100_columns_wide_and_json_have_everything():
    rc, out, err = roboio("formats")
    assert rc == 0 and max(len(line) for line in out.splitlines()) <= 100
    rc, wide, err = roboio("formats", "--wide")
    assert rc == 0 and max(len(line) for line in wide.splitlines()) > 100
    rc, js, err = roboio("formats", "--json")
    fs = json.loads(js)
    for f in fs:
        # every name and description is in both text forms (descriptions wrapped in the narrow one)
        assert f["name"] in out and f["description"] in wide
        words = f["description"].split()
        assert " ".join(words[:2]) in out.replace("\n", " ") or words[0] in out


# -- convert -------------------------------------------------------------------------------

def test_xml_output_without_to_is_refused_when_ambiguous(tmp_path):
    out = tmp_path / "arm.xml"
    rc, _, err = roboio("convert", ARM, out)
    assert rc == 2 and not out.exists()
    assert "--to FORMAT" in err and "graspit" in err and "openrave" in err and "format=" not in err
    rc, stdout, err = roboio("convert", ARM, out, "--to", "openrave")
    assert rc == 0 and "(openrave)" in stdout and out.exists()
    # a Klamp't world stays a Klamp't world (the input's own format); a trajectory has one home
    rc, stdout, err = roboio("convert", os.path.join(SAMPLES, "world.xml"), tmp_path / "w.xml")
    assert rc == 0 and "(klampt-world)" in stdout, err
    path = tmp_path / "m.path"
    path.write_text("0 2 0 0\n1 2 0.5 0.5\n")
    rc, stdout, err = roboio("convert", path, tmp_path / "m.xml")
    assert rc == 0 and "(klampt-multipath)" in stdout, err


def test_extension_that_does_not_match_to_is_warned(tmp_path):
    rc, out, err = roboio("convert", ARM, tmp_path / "x.rob", "--to", "urdf")
    assert rc == 0 and "(urdf)" in out
    assert "warning" in err and "x.rob" in err and ".urdf" in err


def test_directory_conversion(tmp_path):
    src = tmp_path / "in"
    shutil.copytree(os.path.join(SAMPLES, "meshes"), src / "meshes")
    shutil.copy(ARM, src / "arm.rob")
    (src / "sub").mkdir()
    (src / "sub" / "mixed.urdf").write_text(MIXED_URDF)
    rc, out, err = roboio("convert", src, tmp_path / "out", "--to", "klampt-rob")
    assert rc == 0, err
    # an output keeps its input's whole name (a .rob stays a .rob)
    assert (tmp_path / "out" / "arm.rob").exists() and (tmp_path / "out" / "sub" / "mixed.urdf.rob").exists()
    assert not (tmp_path / "out" / "meshes").exists()         # meshes are not robots
    assert "2 of 2 files converted to klampt-rob (2 files written)" in out
    rc, _, err = roboio("convert", src, tmp_path / "out2")
    assert rc == 2 and "--to" in err


# -- progress, exit statuses, completion -----------------------------------------------------

def _with_tty_stderr(*args, env=None):
    """Run with stderr on a pseudo-terminal (stdout a pipe): what the user's terminal shows."""
    import pty
    master, slave = pty.openpty()
    e = dict(os.environ, PYTHONPATH=ROOT, ROBOIO_PROGRESS_DELAY="0", COLUMNS="100")
    e.pop("ROBOIO_NO_PROGRESS", None)
    e.update(env or {})
    p = subprocess.Popen([sys.executable, "-m", "roboio", *map(str, args)], cwd=ROOT, env=e,
                         stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    import threading
    stdout = []
    reader = threading.Thread(target=lambda: stdout.append(p.stdout.read()), daemon=True)
    reader.start()                   # a full stdout pipe must not block the child
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:              # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    p.wait(timeout=120)
    reader.join(timeout=120)
    out = stdout[0] if stdout else ""
    os.close(master)
    return p.returncode, out, b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals")
def test_progress_on_a_terminal_only_and_quiet_silences_it(mixed):
    rc, out, tty = _with_tty_stderr("fk", mixed, "--random", "5000", "--json")
    assert rc == 0 and "forward kinematics" in tty and json.loads(out)["samples"]
    rc, out, tty = _with_tty_stderr("--quiet", "fk", mixed, "--random", "5000", "--json")
    assert rc == 0 and tty == ""
    rc, out, tty = _with_tty_stderr("fk", mixed, "--random", "5000", "--json", "-q")
    assert rc == 0 and tty == ""                    # --quiet after the command too
    rc, out, err = roboio("fk", mixed, "--random", "5000", "--json",
                          env={"ROBOIO_PROGRESS_DELAY": "0"})
    assert rc == 0 and err == ""                    # not a terminal: nothing


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals")
def test_progress_of_motion_frames_and_directory_conversion(tmp_path):
    seq, body = (os.path.join(SAMPLES, "choreonoid", f) for f in ("arm_wave.seq", "arm.body"))
    rc, out, tty = _with_tty_stderr("motion", "fk", seq, "--body", body, "--frames", "all", "--json")
    assert rc == 0 and "frames:" in tty and "/21" in tty
    assert len(json.loads(out)["frames"]) == 21
    rc, out, tty = _with_tty_stderr("convert", SAMPLES, tmp_path / "out", "--to", "klampt-rob")
    assert rc == 0 and "converting to klampt-rob" in tty and "/15 " in tty
    assert out.count(" -> ") == 12 and "12 of 15 files converted" in out   # lines outside the bar


def test_exit_statuses(tmp_path):
    assert roboio("info", tmp_path / "absent.urdf")[0] == 1
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='x'><link name='a'/><joint name='j' type='revolute'>")
    rc, out, err = roboio("info", bad)
    assert rc == 1 and err.startswith("roboio: error: ") and str(bad) in err and err.count("\n") == 1
    assert roboio("frobnicate")[0] == 2
    assert roboio("fk", ARM, "--config", "1 2", "--random", "2")[0] == 2
    rc, out, err = roboio("fk", ARM, "--robot", "other")       # a robot file holds one robot
    assert rc == 2 and "--robot other" in err and "'planar_arm'" in err
    rc, out, err = roboio("fk", os.path.join(SAMPLES, "world.xml"), "--robot", "nope")
    assert rc == 2 and "'arm'" in err
    (tmp_path / "other.urdf").write_text(MIXED_URDF.replace('xyz="0 0 0.1"', 'xyz="0 0 0.2"'))
    (tmp_path / "mixed.urdf").write_text(MIXED_URDF)
    rc, out, err = roboio("verify", tmp_path / "mixed.urdf", tmp_path / "other.urdf", "--samples", "5")
    assert rc == 1 and "MISMATCH" in out


def test_bash_completion_from_the_parser():
    if not shutil.which("bash"):
        pytest.skip("no bash")
    rc, script, err = roboio("completion", "bash")
    assert rc == 0 and "complete " in script
    probe = script + r'''
t() { COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _roboio; echo "${COMPREPLY[*]}"; }
t roboio in
t roboio info --tr
t roboio convert a.rob b.urdf --to ur
t roboio --debug motion ""
t roboio render x.rob --view ""
t roboio completion ""
'''
    r = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["info", "--tree", "urdf", "resample fk", "front iso side top",
                                     "bash zsh"]


def test_zsh_completion_loads():
    if not shutil.which("zsh"):
        pytest.skip("no zsh")
    rc, script, err = roboio("completion", "zsh")
    assert rc == 0 and script.startswith("#compdef roboio")
    probe = script + '''
COMP_WORDS=(roboio motion ""); COMP_CWORD=2; COMPREPLY=(); _roboio; echo "${COMPREPLY[*]}"
'''
    r = subprocess.run(["zsh", "-f", "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.split() == ["resample", "fk"], r.stdout + r.stderr


def test_help_names_exactly_the_ecosystems_of_the_registry():
    from roboio.cli.main import ECOSYSTEM_NAMES
    from roboio.formats.registry import formats
    assert {f.ecosystem for f in formats()} == set(ECOSYSTEM_NAMES)


def test_errors_use_the_command_line_words(tmp_path):
    rc, out, err = roboio("convert", ARM, tmp_path / "out.xyz")
    assert rc == 2 and "--to FORMAT" in err and "format=" not in err and "Python" not in err
    for args, option in ((("convert", ARM, tmp_path / "a.urdf", "--from", "nope"), "--from"),
                         (("convert", ARM, tmp_path / "a.urdf", "--to", "inventor"), "--to"),
                         (("info", ARM, "--format", "nope"), "--format")):
        rc, out, err = roboio(*args)
        assert rc == 2 and err.startswith(f"roboio {args[0]}: error: {option}: ") and "urdf" in err
        assert err.count("\n") == 1
        assert "Traceback" not in err and "internal error" not in err
    seq = os.path.join(SAMPLES, "choreonoid", "arm_wave.seq")
    rc, out, err = roboio("convert", seq, tmp_path / "a.path")
    assert rc == 2 and "--body MODEL" in err and "Python" not in err and "obj.body" not in err


def test_json_schemas_of_every_command(tmp_path, mixed):
    def js(*args, status=0):
        rc, out, err = roboio(*args, "--json")
        assert rc == status, err
        return json.loads(out)
    urdf = tmp_path / "arm.urdf"
    rep = js("convert", ARM, urdf)
    assert set(rep) == {"path", "format", "lost", "warnings", "files", "fk_error", "renamed",
                        "counts", "items"}
    assert rep["renamed"] == {"links": {}, "joints": {}}
    assert set(rep["counts"]) == {"error", "warning", "note"}
    assert all({"type", "text", "severity", "kind", "hint"} <= set(x) for x in rep["items"])
    assert (rep["path"], rep["format"]) == (str(urdf), "urdf") and str(urdf) in rep["files"]
    assert set(rep["fk_error"]) == {"position", "rotation"}
    v = js("verify", ARM, urdf, "--samples", "20")
    assert set(v) == {"ok", "exact", "space", "accounted", "matched_links", "only_a", "only_b",
                      "max_position_error", "max_rotation_error", "worst_link", "samples", "tol",
                      "notes", "per_link", "matched_by", "map", "reader", "allowed"}
    assert v["matched_by"] == "names" and v["map"]["finger_left"] == "finger_left" and v["reader"] == "roboio"
    assert v["ok"] is True and v["exact"] is True and v["accounted"] == [] and v["matched_links"] == 6 and v["samples"] == 20
    assert v["max_position_error"] <= 1e-9 and set(v["per_link"]) == {
        "base", "shoulder", "elbow", "wrist", "finger_left", "finger_right"}
    # the .rob's affine driver says "-0.1 0.1" for the finger's velocity; the URDF derives it
    d = js("diff", ARM, urdf, status=1)
    assert set(d) == {"same", "matched_links", "matched_by", "focus", "counts", "differences"}
    assert d["same"] is False
    assert all(set(x) == {"kind", "what", "name", "field", "a", "b", "size", "unit", "note"}
               for x in d["differences"])
    assert {"kind": "kinematics", "what": "driver", "name": "finger_left", "field": "vmin", "a": -0.1,
            "b": 0.1, "size": pytest.approx(0.2), "unit": "", "note": ""} in d["differences"]
    assert js("validate", ARM) == {"path": ARM, "ok": True, "problems": [],
                                   "counts": {"error": 0, "warning": 0, "note": 0}}
    fs = js("formats")
    assert all(set(f) == {"name", "ecosystem", "extensions", "kinds", "read", "write",
                          "description", "module"} for f in fs)
    assert {"urdf", "klampt-rob", "openrave", "graspit", "choreonoid-body"} <= {f["name"] for f in fs}
    seq, body = (os.path.join(SAMPLES, "choreonoid", f) for f in ("arm_wave.seq", "arm.body"))
    m = js("motion", "fk", seq, "--body", body, "--frames", "0,10", "--link", "HAND")
    assert m["links"] == ["HAND"] and [f["frame"] for f in m["frames"]] == [0, 10]
    assert all(set(f) == {"frame", "time", "transforms"} for f in m["frames"])
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(mixed, src / "mixed.urdf")
    (src / "broken.urdf").write_text("this is not XML")
    # malformed mid-document (a document cut short is an error since issue 9)
    (src / "recovered.urdf").write_text("<robot name='x'><link name='a' x=1/></robot>")
    dj = js("convert", src, tmp_path / "out", "--to", "klampt-rob", status=1)
    assert (dj["converted"], dj["failed"]) == (2, 1)
    files = {os.path.basename(f["input"]): f for f in dj["files"]}
    assert files["mixed.urdf"]["ok"] is True and files["broken.urdf"]["ok"] is False
    assert files["mixed.urdf"]["warnings"] == [] and "malformed XML" in files["recovered.urdf"]["warnings"][0]
    assert files["recovered.urdf"]["counts"] == {"error": 0, "warning": 1, "note": 0}
    assert "broken.urdf" in files["broken.urdf"]["error"]
    rc, out, err = roboio("convert", src, tmp_path / "out2", "--to", "klampt-rob")
    assert rc == 1 and err.count("\n") == 1 and "broken.urdf" in err
    assert "recovered.urdf.rob  (0 errors, 1 warning, 0 notes)" in out
    assert "2 of 3 files converted" in out


def test_a_command_runs_with_only_its_own_parser():
    """main() registers only the command it runs (start-up time); what it accepts is the same."""
    from roboio.cli.main import _command_of
    assert _command_of(["-q", "--debug", "info", "x.urdf"]) == "info"
    assert _command_of(["motion", "fk", "--help"]) == "motion"
    assert _command_of(["--help"]) is None and _command_of(["infoo"]) is None
    assert _command_of([]) is None and _command_of(["--version", "info"]) is None
    code = ("import sys; from roboio.cli.main import main; main(['info', sys.argv[1]]); "
            "print(sorted(m for m in sys.modules if m.startswith('roboio.cli.cmd_')))")
    r = subprocess.run([sys.executable, "-c", code, ARM], cwd=ROOT, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "['roboio.cli.cmd_info']", r.stderr


def test_directory_conversion_into_a_directory_inside_the_input(tmp_path):
    src = tmp_path / "robots"
    src.mkdir()
    shutil.copy(os.path.join(SAMPLES, "mobile_gripper.urdf"), src / "gripper.urdf")
    for _ in range(2):              # the second run must not take the first run's outputs
        rc, out, err = roboio("convert", src, src / "rob", "--to", "klampt-rob")
        assert rc == 0 and "1 of 1 files converted" in out, out + err
    # the wheels' cylinders are meshes for Klamp't (0.10.1 never collides a cylinder)
    assert sorted(os.listdir(src / "rob")) == ["gripper.urdf.off", "gripper.urdf.rob", "gripper.urdf_1.off"]


def test_motion_resample_holds_each_frame_until_the_next_time(tmp_path):
    """arm_timed.seq has frames at 0, 0.1, 0.3, 0.4, 0.7 s; at 20 fps (hold) frame k (t = k/20)
    takes the last frame whose time is <= t: 15 frames over 0..0.7 s."""
    out = tmp_path / "fixed.seq"
    rc, stdout, err = roboio("motion", "resample", os.path.join(SAMPLES, "choreonoid", "arm_timed.seq"),
                             out, "--rate", "20")
    assert rc == 0 and "5 frames with frame times -> 15 frames at 20 fps (hold)" in stdout, err
    times, values = [0, 0.1, 0.3, 0.4, 0.7], [[0, 0], [0.2, 0.5], [0.6, 1.0], [0.8, 1.2], [1.0, 1.5]]
    expect = [values[max(i for i, t in enumerate(times) if t <= k / 20 + 1e-12)] for k in range(15)]
    import roboio as rio
    m = rio.load(str(out))
    [joints] = [c for c in m.components if c.content == "JointDisplacement"]
    assert joints.frame_rate == 20 and joints.times is None
    np.testing.assert_allclose(joints.data, expect, rtol=0, atol=1e-12)
    rc, _, err = roboio("motion", "resample", os.path.join(SAMPLES, "choreonoid", "arm_timed.seq"),
                        tmp_path / "x.seq", "--rate", "0")
    assert rc == 2 and "--rate" in err
