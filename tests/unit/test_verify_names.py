"""roboio verify never cries wolf: conversions that had to rename links (names a target
forbids, names a robot repeats, a GraspIt! robot named after its file) or approximate frames
(stated in the report) verify; the map used is shown; deliberately broken conversions still
fail. Files are built in the tests; expected sizes are hand-worked."""
import json
import os
import re
import warnings

import numpy as np
import pytest

import roboio
from roboio.cli.main import main
from roboio.link_match import match_links
from roboio.model import Driver, Joint, Link, Robot
from roboio.transforms import axis_angle_to_matrix
from roboio.verify import verify

from conftest import corpus_path

# four links in a chain; two names OpenRAVE would read as one ("hex x" up to its space)
HEX = """links "base" "hex x" "hex_x" "tip"
parents -1 0 1 2
axis 0 0 1  0 1 0  1 0 0  0 0 1
jointtype r r r r
Tparent 1 0 0 0 1 0 0 0 1 0 0 0  1 0 0 0 1 0 0 0 1 0.1 0 0  1 0 0 0 1 0 0 0 1 0 0.2 0  1 0 0 0 1 0 0 0 1 0 0 0.3
qmin -1 -1 -1 -1
qmax 1 1 1 1
joint normal 0
joint normal 1
joint normal 2
joint normal 3
"""

# a two-link gripper mounted twice without "as": its link names repeat
FINGER = """links "knuckle" "tip"
parents -1 0
axis 0 1 0  0 1 0
jointtype r r
Tparent 1 0 0 0 1 0 0 0 1 0 0 0  1 0 0 0 1 0 0 0 1 0 0 0.04
qmin 0 0
qmax 1 1
joint normal 0
joint normal 1
"""
PALM = """links "palm"
parents -1
axis 0 0 1
jointtype r
Tparent 1 0 0 0 1 0 0 0 1 0 0 0
qmin -3
qmax 3
joint normal 0
mount 0 "finger.rob" 1 0 0 0 1 0 0 0 1 0.03 0 0.05
mount 0 "finger.rob" -1 0 0 0 -1 0 0 0 1 -0.03 0 0.05
"""


def cli(*args):
    """(exit status, stdout) of ``roboio ARGS``."""
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main([str(a) for a in args])
    return rc, out.getvalue()


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def convert(src, out, *extra):
    rc, text = cli("convert", src, out, *extra)
    assert rc == 0, text


def test_names_with_spaces_to_openrave_verify(tmp_path):
    src = write(tmp_path, "hex.rob", HEX)
    out = tmp_path / "hex.robot.xml"
    convert(src, out)
    rc, text = cli("verify", src, out, "--samples", "20")
    assert rc == 0, text
    assert "  map: hex x -> hex_x_2" in text and text.rstrip().endswith("OK")
    rc, text = cli("verify", src, out, "--samples", "20", "--json", "--exact")
    res = json.loads(text)
    assert rc == 0 and res["exact"] and res["matched_by"] == "names"
    assert res["map"]["hex x"] == "hex_x_2" and res["map"]["hex_x"] == "hex_x"
    assert res["only_b"] == ["world"]                 # OpenRAVE's fixed first link


def test_repeated_link_names_to_urdf_verify(tmp_path):
    write(tmp_path, "finger.rob", FINGER)
    src = write(tmp_path, "palm.rob", PALM)
    a = roboio.load(str(src))
    assert a.link_names == ["palm", "knuckle", "tip", "knuckle", "tip"]
    out = tmp_path / "palm.urdf"
    rep = roboio.save(a, out)
    assert rep.renamed["links"] == {"knuckle": ["knuckle", "knuckle_2"], "tip": ["tip", "tip_2"]}
    rc, text = cli("verify", src, out, "--samples", "30", "--json")
    res = json.loads(text)
    assert rc == 0 and res["exact"], text
    assert res["map"]["knuckle"] == ["knuckle", "knuckle_2"] and res["map"]["tip"] == ["tip", "tip_2"]
    # the second finger is compared with the second finger: the fingers are 6 cm apart, so a
    # first-name-wins match would be off by that much
    b = roboio.load(str(out))
    res = verify(a, b, 30, stated=rep)
    assert res.exact
    # without the report, names pair first occurrences only; the tree structure pairs all
    m = match_links(a, b)
    assert m.by == "structure" and m.pairs == [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]


def test_a_graspit_robot_named_after_another_file_verifies(tmp_path):
    path = corpus_path("graspit", "models", "robots", "Barrett", "Barrett.xml")
    out = tmp_path / "robot.xml"
    convert(path, out)
    rc, text = cli("verify", path, out, "--samples", "20", "--exact")
    assert rc == 0 and text.rstrip().endswith("OK"), text


def bent_robot(stretch):
    """Two links; the first frame a rotation times ``diag(1 + stretch, 1 - stretch, 1)``
    (numbers written with few digits), whose nearest rotation is the rotation: the second
    link, 0.5 m out, moves by up to 0.5 x stretch as the first joint turns."""
    R = axis_angle_to_matrix(np.array([1.0, 2.0, 2.0]) / 3, 0.7) @ np.diag([1 + stretch, 1 - stretch, 1.0])
    T0, T1 = np.eye(4), np.eye(4)
    T0[:3, :3] = R
    T1[:3, 3] = (0.5, 0, 0)
    r = Robot("bent")
    r.set_links([Link("a", -1, "revolute", (0, 0, 1), T0), Link("b", 0, "revolute", (0, 1, 0), T1)],
                qmin=[-1, -1], qmax=[1, 1])
    r.joints = [Joint("normal", [0]), Joint("normal", [1])]
    r.drivers = [Driver("a", "normal", [0], qmin=-1, qmax=1), Driver("b", "normal", [1], qmin=-1, qmax=1)]
    return r


def test_frames_that_are_not_rotations_to_openrave_verify_within_what_is_stated(tmp_path):
    src = tmp_path / "bent.rob"
    roboio.save(bent_robot(4e-7), src)
    out = tmp_path / "bent.robot.xml"
    convert(src, out)
    rep = roboio.save(roboio.load(str(src)), tmp_path / "again.robot.xml")
    assert 1.0e-7 < rep.fk_error[0] <= 2e-7 + 1e-15     # at most 0.5 m x 4e-7, hand-worked
    rc, text = cli("verify", src, out, "--samples", "20", "--json")
    res = json.loads(text)
    assert rc == 0 and res["ok"] and not res["exact"], text
    assert any(x.startswith("the FK change the conversion states") for x in res["accounted"])
    assert res["max_position_error"] <= 2 * rep.fk_error[0]
    assert cli("verify", src, out, "--samples", "20", "--exact")[0] == 1


def test_a_broken_conversion_still_fails(tmp_path):
    # the stated error is a few 1e-7 m; an output moved by 1e-5 m more is not accepted
    src = tmp_path / "bent.rob"
    roboio.save(bent_robot(4e-7), src)
    out = tmp_path / "bent.robot.xml"
    convert(src, out)
    text = out.read_text()
    moved = re.sub(r"<anchor>([-0-9.e]+) ", lambda m: f"<anchor>{float(m.group(1)) + 1e-5!r} ", text, count=1)
    assert moved != text
    (tmp_path / "moved.robot.xml").write_text(moved)
    rc, out_text = cli("verify", src, tmp_path / "moved.robot.xml", "--samples", "20")
    assert rc == 1 and "MISMATCH" in out_text
    # names swapped between two links: names still pair every link, so the swap shows
    src = write(tmp_path, "hex.rob", HEX)
    swapped = write(tmp_path, "swapped.rob", HEX.replace('"hex x" "hex_x"', '"hex_x" "hex x"'))
    rc, out_text = cli("verify", src, swapped, "--samples", "20")
    assert rc == 1 and "MISMATCH" in out_text and "matched by" not in out_text
    # a joint origin moved in a URDF
    convert(src, tmp_path / "hex.urdf")
    urdf = (tmp_path / "hex.urdf").read_text()
    i = urdf.index('<origin xyz="0 0 0.3"')
    (tmp_path / "bad.urdf").write_text(urdf[:i] + '<origin xyz="0 0 0.31"' + urdf[i + len('<origin xyz="0 0 0.3"'):])
    rc, out_text = cli("verify", src, tmp_path / "bad.urdf", "--samples", "20")
    assert rc == 1 and "MISMATCH" in out_text


def test_other_names_same_tree_match_by_structure_and_print_the_map(tmp_path):
    src = write(tmp_path, "hex.rob", HEX)
    other = write(tmp_path, "other.rob", HEX.replace('"base" "hex x" "hex_x" "tip"', '"l0" "l1" "l2" "l3"'))
    rc, text = cli("verify", src, other, "--samples", "20")
    assert rc == 0 and "matched by structure" in text, text
    assert "  map: hex x -> l1" in text and "  map: tip -> l3" in text
    # with --map the user says which link is which: no structure matching then
    rc, text = cli("verify", src, other, "--samples", "20", "--map", "base=l0")
    assert rc == 0 and "matched by structure" not in text and "only in A: tip" in text


def test_joint_names_pair_links_names_do_not():
    a = bent_robot(0.0)
    b = bent_robot(0.0)
    for l, (n, j) in zip(a.links, (("a", "J0"), ("b", "J1"))):
        l.joint_name = j
    for l, (n, j) in zip(b.links, (("x", "J0"), ("y", "J1"))):
        l.name, l.joint_name = n, j
    b.links[0].parent_transform = a.links[0].parent_transform
    m = match_links(a, b, structure=False)
    assert m.by == "names and joint names" and m.pairs == [(0, 0), (1, 1)]
    assert verify(a, b, 10).exact
