"""Malformed .rob input: every case is a FormatError naming the file and the line, with
what was expected (never a bare traceback)."""
import os
import warnings

import pytest

import roboio
from roboio import FormatError, RoboioWarning

ID = "1 0 0  0 1 0  0 0 1  0 0 0 "     # one identity transform
T2 = "tparent " + ID * 2 + "\n"         # a two-link robot on line 1
SIX = "links a b c d e f\nparents -1 0 1 2 3 4\n"


CASES = [
    # (name, text, line, message fragment)
    ("tparent count", SIX + "tparent " + "0 " * 70 + "\n", 3,
     "tparent expects 12 numbers per link, got 70 for 6 links"),
    ("tparent count over continued lines", SIX + "#\ntparent " + ID + "\\\n" + ID + "\n", 4,
     "tparent expects 12 numbers per link, got 24 for 6 links"),
    ("non-number", T2 + "links a b\nqmin 0 abc\n", 3,
     "qmin expects 1 number per link, got 1 for 2 links (reading stopped at 'abc', not a number)"),
    ("qmindeg spelled", T2 + "qMinDeg 1 2 3\n", 2, "qMinDeg expects 1 number per link, got 3"),
    ("names count", T2 + 'links "a b" c d\n', 2, "links expects 1 name per link, got 3 for 2 links"),
    ("geometry count", T2 + 'geometry "" "" ""\n', 2, "geometry expects 1 name per link, got 3"),
    ("accmax count", T2 + "accmax 1\n", 2, "accmax expects 1 number per link, got 1 for 2 links"),
    ("geomscale count", T2 + "geomscale 1 1 1\n", 2, "geomscale expects 1 number per link (or 1 for all links)"),
    ("unknown keyword", T2 + "\naxes 0 0 1\n", 3, "unknown keyword 'axes'"),
    ("bad jointtype letter", T2 + "jointtype r R\n", 2, "invalid joint type 'R'"),
    ("bad joint type", T2 + "joint hinge 0\n", 2, "invalid joint type 'hinge'"),
    ("floating link 0", T2 + "joint floating 0\n", 2, "link index must be an integer > 0"),
    ("joint out of range", T2 + "joint normal 2\n", 2, "link index 2 out of range"),
    ("joint overlap", T2 + "joint normal 0\njoint weld 1\njoint spin 0\n", 4,
     "link 0 already belongs to the joint on line 2"),
    ("bad driver type", T2 + "driver Normal 0\n", 2, "invalid driver type 'Normal'"),
    ("driver without type", T2 + "driver\n", 2, "missing driver type"),
    ("affine count 0", T2 + "driver affine 0\n", 2, "positive number of links"),
    ("affine missing limits", T2 + "driver affine 2 0 1 1 1 0 0 -1 1 -1 1\n", 2,
     "expects 2 link indices, 2 scales, 2 offsets and 6 limits"),
    ("driver out of range", T2 + "driver normal 5\n", 2, "link index 5 out of range"),
    ("translation driver needs two links", T2 + "driver translation 0\n", 2, "two link indices"),
    ("driver overlap", T2 + "driver normal 1\ndriver affine 2 0 1 1 1 0 0 -1 1 -1 1 -1 1\n", 3,
     "link 1 is already driven"),
    ("servo count", T2 + "servoP 1 2 3\n", 2, "servoP expects 1 number per driver, got 3 for 2 drivers"),
    ("servo negative", T2 + "servoI 1 -2\n", 2, "negative value"),
    ("driver names count", T2 + "drivers a\n", 2, "gives 1 names for 2 drivers"),
    ("geomtransform index", T2 + "geomtransform 2 " + "1 0 0 0 " * 4 + "\n", 2,
     "link index 2 out of range"),
    ("geomtransform numbers", T2 + "geomtransform 0 1 0 0 0 1 0\n", 2,
     "expects a link index and 16 numbers"),
    ("geomtransform w", T2 + "geomtransform 0 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 2\n", 2, "must end with 1"),
    ("unbalanced quote", T2 + 'links "a b\n', 2, "unbalanced quote"),
    ("unbalanced quote continued", T2 + 'links a \\\n "b c\n', 3, "unbalanced quote"),
    ("empty file", "", 1, "empty robot file"),
    ("comments only", "# nothing\n\n   # here\n", 1, "empty robot file"),
    ("no transforms", "links a b\nalpha 0 0\n", 1, "no link transforms"),
    ("parent after child", T2 + "parents -1 1\n", 2, "link 1 has parent 1"),
    ("parent out of range", T2 + "parents -2 0\n", 2, "link 0 has parent -2"),
    ("scale", T2 + "scale 2\n", 2, "whole-robot scaling"),
    ("collision", T2 + "collision 0\n", 2, "environment-collision"),
    ("translation", T2 + "translation 1 2\n", 2, "translation expects 3 numbers, got 2"),
    ("self pair", T2 + "noselfcollision 1 1\n", 2, "cannot be paired with itself"),
    ("unknown pair link", T2 + "selfcollision 0 nosuch\n", 2, "names a link that does not exist"),
    ("mount link", T2 + "mount 7 x.rob\n", 2, "link '7' does not exist"),
    ("mount file missing", T2 + "mount 1 \"missing.rob\"\n", 2, "robot file 'missing.rob' not found"),
    ("geometry mount to world", T2 + "mount -1 \"{Primitive Sphere 0 0 0 1}\"\n", 2,
     "must be mounted on a link"),
    ("property without name", T2 + "property\n", 2, "expects a name and a value"),
    ("sensors file missing", T2 + "property sensors \"nope.xml\"\n", 2, "file 'nope.xml' not found"),
]


@pytest.mark.parametrize("name,text,line,fragment", CASES, ids=[c[0] for c in CASES])
def test_bad_input(tmp_path, name, text, line, fragment):
    p = tmp_path / "bad.rob"
    p.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        with pytest.raises(FormatError) as e:
            roboio.load(str(p))
    err = e.value
    assert err.path == str(p)
    assert err.line == line, str(err)
    assert fragment in err.message, str(err)
    assert str(err).startswith(f"{p}:{line}: ")


def test_mount_cycle(tmp_path):
    (tmp_path / "a.rob").write_text(T2 + "mount 0 b.rob\n")
    (tmp_path / "b.rob").write_text("tparent " + ID + "\n\nmount 0 \"a.rob\" as x\n")
    with pytest.raises(FormatError) as e:
        roboio.load(str(tmp_path / "a.rob"))
    assert e.value.path == str(tmp_path / "b.rob") and e.value.line == 3
    assert "cycle a.rob -> b.rob -> a.rob" in e.value.message


def test_error_inside_mounted_file_names_that_file(tmp_path):
    (tmp_path / "sub.rob").write_text("tparent " + ID + "\nqmin 1 2\n")
    (tmp_path / "top.rob").write_text(T2 + "mount 0 sub.rob\n")
    with pytest.raises(FormatError) as e:
        roboio.load(str(tmp_path / "top.rob"))
    assert e.value.path.endswith("sub.rob") and e.value.line == 2


def test_missing_geometry_is_a_warning_or_strict_error(tmp_path):
    p = tmp_path / "g.rob"
    p.write_text(T2 + 'geometry "nope.off" ""\n')
    with pytest.warns(RoboioWarning, match="nope.off"):
        r = roboio.load(str(p))
    assert r.links[0].geometry.missing and r.links[0].geometry.source.reference == "nope.off"
    with pytest.raises(FormatError) as e:
        roboio.load(str(p), strict=True)
    assert e.value.line == 2


def test_ignored_text_is_a_warning(tmp_path):
    p = tmp_path / "w.rob"
    p.write_text(T2 + "mass 1 2 kg\njoint\n")
    with pytest.warns(RoboioWarning) as rec:
        r = roboio.load(str(p))
    msgs = [str(w.message) for w in rec]
    assert any(":2: mass: 'kg' is not a number" in m for m in msgs)
    assert any(":3: joint: line without a joint type ignored" in m for m in msgs)
    assert [l.mass for l in r.links] == [1, 2]
    with pytest.raises(FormatError):
        roboio.load(str(p), strict=True)


def test_binary_garbage_does_not_crash(tmp_path):
    p = tmp_path / "x.rob"
    p.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(FormatError):
        roboio.load(str(p))
