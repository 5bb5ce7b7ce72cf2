"""Klamp't IK objective text, .hold and .stance: C++ tokenizer corners, writers, bad input.

Expected values are written out by hand from the fixture text."""
import numpy as np
import pytest

import roboio
from roboio import FormatError, Hold, IKObjective, Stance
from roboio.formats.klampt._text import Where
from roboio.formats.klampt.contact.hold import hold_text, parse_hold_text
from roboio.formats.klampt.contact.ikgoal import ik_text, parse_ik_text
from roboio.context import LoadContext
from roboio.report import ConversionReport


def ctx(strict=False):
    return LoadContext("mem", strict)


def hold(text, **kw):
    return parse_hold_text(text, Where("mem"), ctx(**kw))


def ik(text):
    return parse_ik_text(text, Where("mem"), ctx())


# ------------------------------------------------------------------------------- IK text

def test_ik_text_fixed_fixed():
    g = ik("41 -1\nF 0.184 0 0   0.428842 -0.742765 0.123181\nF 0.815484 1.41246 -0.815477\n")
    assert (g.link, g.dest_link, g.pos_constraint, g.rot_constraint) == (41, -1, "fixed", "fixed")
    assert g.local_position.tolist() == [0.184, 0, 0]
    assert g.end_position.tolist() == [0.428842, -0.742765, 0.123181]
    assert g.end_rotation.tolist() == [0.815484, 1.41246, -0.815477]
    assert g.direction is None and g.local_axis is None


@pytest.mark.parametrize("text,expected", [
    ("3 -1 N N", dict(pos_constraint="free", rot_constraint="free")),
    ("3 2 P 1 2 3 4 5 6 0 0 1 N", dict(dest_link=2, pos_constraint="planar", local_position=[1, 2, 3],
                                      end_position=[4, 5, 6], direction=[0, 0, 1])),
    ("3 -1 L 1 2 3 4 5 6 1 0 0 A 1 0 0 0 1 0",
     dict(pos_constraint="linear", direction=[1, 0, 0], rot_constraint="axis", local_axis=[1, 0, 0],
          end_rotation=[0, 1, 0])),
    ("3 -1 N T 0 0 1 0 1 0", dict(rot_constraint="twoaxis", local_axis=[0, 0, 1], end_rotation=[0, 1, 0])),
    ("3 -1 F0.5 0 0 1 1 1 N", dict(pos_constraint="fixed", local_position=[0.5, 0, 0], end_position=[1, 1, 1])),
])
def test_ik_text_kinds(text, expected):
    g = ik(text)
    assert g.link == 3
    for k, v in expected.items():
        got = getattr(g, k)
        assert (got.tolist() if isinstance(got, np.ndarray) else got) == v, k


def test_ik_text_round_trip_exact():
    rng = np.random.default_rng(1)
    for pos, rot in [("fixed", "fixed"), ("planar", "axis"), ("linear", "twoaxis"), ("free", "free")]:
        kw = {}
        if pos != "free":
            kw.update(local_position=rng.normal(size=3), end_position=rng.normal(size=3))
        if pos in ("planar", "linear"):
            kw["direction"] = rng.normal(size=3)
        if rot != "free":
            kw["end_rotation"] = rng.normal(size=3)
        if rot in ("axis", "twoaxis"):
            kw["local_axis"] = rng.normal(size=3)
        g = IKObjective(5, 2, pos, rot_constraint=rot, **kw)
        assert ik(ik_text(g)) == g


def test_ik_text_layout():
    g = IKObjective(41, -1, "fixed", [0.184, 0, 0], [0.5, -0.25, 1], end_rotation=[0.1, 0, 0], rot_constraint="fixed")
    assert ik_text(g) == "41 -1\nF 0.184 0 0   0.5 -0.25 1\nF 0.1 0 0\n"


def test_ik_trailing_text_warns():
    c = ctx()
    with pytest.warns(roboio.RoboioWarning):
        g = parse_ik_text("1 -1 N N extra", Where("mem"), c)
    assert g.link == 1 and any("ignored" in w for w in c.warnings)


# ------------------------------------------------------------------------------- holds

KLAMPT_HOLD = (  # layout of Klamp't's C++ writer (two TABs, two spaces before the backslash)
    "begin hold\n"
    "link = 56\n"
    "contacts = 0.0791157 -0.0251362 -0.00522181\t\t-2.41913e-18 2.9834e-17 1\t\t0  \\\n"
    "           0.0697373 -0.0281027 -0.00500252\t\t-2.41913e-18 2.9834e-17 1\t\t0.5\n"
    "position = -0.0515094 0.00216398 -0.0693881  \\\n"
    "           -0.0106483 0.0310973 0.0327044\n"
    "rotation = -0.000649657 0.0228094 0.130152\n"
    "end\n")


def test_hold_klampt_layout():
    h = hold(KLAMPT_HOLD)
    assert h.link == 56
    assert [c.x.tolist() for c in h.contacts] == [[0.0791157, -0.0251362, -0.00522181],
                                                   [0.0697373, -0.0281027, -0.00500252]]
    assert [c.n.tolist() for c in h.contacts] == [[-2.41913e-18, 2.9834e-17, 1]] * 2
    assert [c.kFriction for c in h.contacts] == [0, 0.5]
    g = h.ik_constraint
    assert (g.link, g.dest_link, g.pos_constraint, g.rot_constraint) == (56, -1, "fixed", "fixed")
    assert g.local_position.tolist() == [-0.0515094, 0.00216398, -0.0693881]
    assert g.end_position.tolist() == [-0.0106483, 0.0310973, 0.0327044]
    assert g.end_rotation.tolist() == [-0.000649657, 0.0228094, 0.130152]


def test_hold_writer_reproduces_klampt_layout():
    assert hold_text(hold(KLAMPT_HOLD)) == KLAMPT_HOLD


def test_hold_continuation_inserts_no_space():
    # "...0.5\<newline>4 5 6..." joins to "0.54 5 6": 13 numbers, not two contacts
    with pytest.raises(FormatError, match="13 numbers is not a multiple of 7"):
        hold("begin hold\nlink = 1\ncontacts = 1 2 3 0 0 1 0.5\\\n4 5 6 0 0 1 0.5\nposition = 0 0 0 0 0 0\nend\n")
    h = hold("begin hold\nlink = 1\ncontacts = 1 2 3 0 0 1 0.5 \\\n4 5 6 0 0 1 0.5\nposition = 0 0 0 0 0 0\nend\n")
    assert [c.x.tolist() for c in h.contacts] == [[1, 2, 3], [4, 5, 6]]


def test_hold_backslash_escapes_and_crlf():
    h = hold("begin hold\r\nlink = 1\\2\r\ncontacts = 1 2 3 0 0 1 0.5  \\\r\n 4 5 6 0 0 1 1\r\n"
             "position = 1 2 3 \\\r\n4 5 6\r\nend\r\n")
    assert h.link == 12                     # backslash + other char = that char
    assert len(h.contacts) == 2
    assert h.ik_constraint.end_position.tolist() == [4, 5, 6]


def test_hold_cpp_extensions():
    """Comments, split 'begin hold', destLink, axis, free rotation, repeated items."""
    h = hold("# a hold\nbegin\n  hold   # trailing comment\n"
             "link = 7\ndestLink = 3\n"
             "contacts = 0 0 0 0 0 1 0.1\ncontacts = 1 0 0 0 0 1 0.2\n"
             "position = 0.1 0.2 0.3 1 2 3\n"
             "rotation = 0 0 1\naxis = 1 0 0 0 1 0\nend\n")
    assert h.link == 7 and h.dest_link == 3
    assert [c.kFriction for c in h.contacts] == [0.1, 0.2]          # contacts accumulate
    g = h.ik_constraint
    assert (g.rot_constraint, g.local_axis.tolist(), g.end_rotation.tolist()) == ("axis", [1, 0, 0], [0, 1, 0])
    free = hold("begin hold\nlink = 2\ncontacts = 0 0 0 0 0 1 1\nposition = 0 0 0 1 1 1\nend")
    assert free.ik_constraint.rot_constraint == "free"


def test_hold_python_writer_layout():
    # what klampt.io.loader.write_Hold produces (indented, one space before the backslash)
    h = hold("begin hold\n  link = 5\n  contacts = 1.0 2.0 3.0 0.0 0.0 1.0 0.5 \\\n    4.0 5.0 6.0 0.0 0.0 1.0 0.5\n"
             "  position = 0.0 0.0 0.0  \\\n    0.9 1.8 2.7\nrotation = 0.1 0.2 0.3\nend")
    assert h.link == 5 and len(h.contacts) == 2
    assert h.ik_constraint.end_position.tolist() == [0.9, 1.8, 2.7]


def test_hold_warnings():
    c = ctx()
    with pytest.warns(roboio.RoboioWarning):
        h = parse_hold_text("begin hold\nlink = 4 5\ncontacts = \nposition = 0 0 0 1 1 1 9\nend\ntrailing",
                            Where("mem"), c)
    assert h.link == 4 and h.contacts == []
    text = "\n".join(c.warnings)
    assert "values after 4 ignored" in text and "no contacts" in text and "1 values after" in text
    assert "text after the hold's 'end' ignored" in text


def test_hold_writer_round_trip_and_reports():
    rng = np.random.default_rng(2)
    h = Hold(9, [roboio.ContactPoint(rng.normal(size=3), rng.normal(size=3), rng.uniform()) for _ in range(3)],
             IKObjective(9, 4, "fixed", rng.normal(size=3), rng.normal(size=3), rot_constraint="axis",
                         local_axis=[0, 0, 1], end_rotation=[0, 1, 0]))
    r = ConversionReport()
    text = hold_text(h, r)
    assert "destLink = 4" in text and "axis = 0 0 1  \\\n       0 1 0" in text
    assert any("C++ reader only" in w for w in r.warnings)
    back = hold(text)
    assert back == h
    for line in text.splitlines():
        if line.endswith("\\"):
            assert line.endswith(" \\")       # continuation needs the space


def test_hold_writer_rejects_non_fixed_position():
    h = Hold(1, [], IKObjective(1, -1, "planar", [0, 0, 0], [0, 0, 0], [0, 0, 1]))
    with pytest.raises(ValueError, match="fixed"):
        hold_text(h)


BAD_HOLDS = [
    ("begin hold\nlink =5\nposition = 0 0 0 0 0 0\nend\n", 2, "must be followed by a space"),
    ("begin hold\nlink = 5\ndestLink =-1\nposition = 0 0 0 0 0 0\nend\n", 3, "expected '='"),
    ("begin hold\nlink 5\nend\n", 2, "expected '='"),
    ("begin hold\nlink = 5\nfriction = 0.5\nend\n", 3, "unknown hold item 'friction'"),
    ("begin hold\nlink = 5\nikparams = 0 0 0 0 0 0\nend\n", 3, "ikparams"),
    ("begin hold\nlink = 5\nposition = 0 0 0 0 0\nend\n", 3, "expected 6 numbers, got 5"),
    ("begin hold\nlink = 5\nposition = 0 0 0 0 0 x\nend\n", 3, "expected a number"),
    ("begin hold\nlink = 5\ncontacts = 1 2 3 0 0 1 0.5 # note\nposition = 0 0 0 0 0 0\nend\n", 3, "'#'"),
    ("begin hold\nlink = 5.5\nposition = 0 0 0 0 0 0\nend\n", 2, "integer"),
    ("begin hold\ncontacts = 1 2 3 0 0 1 0.5\nposition = 0 0 0 0 0 0\nend\n", 4, "valid 'link'"),
    ("begin hold\nlink = 5\ncontacts = 1 2 3 0 0 1 0.5\nend\n", 4, "without 'position'"),
    ("begin hold\nlink = 5\nposition = 0 0 0 0 0 0\n", 1, "expected 'end'"),
    ("begin stance\n", 1, "expected 'hold'"),
    ("hold\nlink = 5\n", 1, "expected 'begin hold'"),
    ("begin hold\nlink = 5\n: = 3\nend\n", 3, "expected a hold item"),
]


@pytest.mark.parametrize("text,line,message", BAD_HOLDS)
def test_bad_holds(tmp_path, text, line, message):
    p = tmp_path / "bad.hold"
    p.write_text(text)
    with pytest.raises(FormatError) as e:
        roboio.load(str(p))
    assert e.value.path == str(p) and e.value.line == line, str(e.value)
    assert message in str(e.value)


def test_hold_file_round_trip(tmp_path):
    h = hold(KLAMPT_HOLD)
    r = roboio.save(h, str(tmp_path / "a.hold"))
    assert not r.lost
    assert roboio.load(str(tmp_path / "a.hold")) == h


# ------------------------------------------------------------------------------- stances

def test_stance_replaces_and_sorts(tmp_path):
    body = "link = {0}\ncontacts = {1} 0 0 0 0 1 0.5\nposition = 0 0 0 {1} 0 0\n"
    text = ("begin stance\n" + "".join(f"begin hold\n{body.format(l, x)}end\n"
                                       for l, x in [(9, 1), (2, 2), (9, 3)]) + "end\n")
    p = tmp_path / "a.stance"
    p.write_text(text)
    with pytest.warns(roboio.RoboioWarning, match="replaces the first"):
        s = roboio.load(str(p))
    assert isinstance(s, Stance)
    assert [h.link for h in s.holds] == [2, 9]
    assert s.hold(9).contacts[0].x.tolist() == [3, 0, 0]
    roboio.save(s, str(tmp_path / "b.stance"))
    out = (tmp_path / "b.stance").read_text()
    assert out.startswith("begin stance\nbegin hold\nlink = 2\n") and out.endswith("end\nend\n")
    assert roboio.load(str(tmp_path / "b.stance")) == s


@pytest.mark.parametrize("text,line,message", [
    ("begin hold\nend\n", 1, "expected 'stance'"),
    ("begin stance\nlink = 3\nend\n", 2, "expected 'begin hold' or 'end'"),
    ("begin stance\nbegin hold\nlink = 1\ncontacts = 0 0 0 0 0 1 1\nposition = 0 0 0 0 0 0\nend\n", 7,
     "expected 'end'"),
])
def test_bad_stances(tmp_path, text, line, message):
    p = tmp_path / "bad.stance"
    p.write_text(text)
    with pytest.raises(FormatError) as e:
        roboio.load(str(p))
    assert e.value.line == line and message in str(e.value), str(e.value)


def test_ikgoal_file(tmp_path):
    p = tmp_path / "a.ikgoal"
    p.write_text("12 -1\nF 0 0 0   1 2 3\nN\n")
    g = roboio.load(str(p))
    assert isinstance(g, IKObjective) and g.end_position.tolist() == [1, 2, 3]
    roboio.save(g, str(tmp_path / "b.ikgoal"))
    assert (tmp_path / "b.ikgoal").read_text() == "12 -1\nF 0 0 0   1 2 3\nN\n"
