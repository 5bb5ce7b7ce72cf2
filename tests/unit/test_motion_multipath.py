"""Klamp't MultiPath XML and grasp XML: structure, references, whitespace, writers, bad input.

Expected values are written out by hand from the fixture text."""
import numpy as np
import pytest
from lxml import etree

import roboio
from roboio import FormatError, Grasp, MultiPath, Section, Trajectory
from roboio.formats import registry

HOLD = ("begin hold&#x0A;link = {link}&#x0A;contacts = {x} 0 0&#x09;&#x09;0 0 1&#x09;&#x09;0.5  \\&#x0A;"
        "           {x} 1 0&#x09;&#x09;0 0 1&#x09;&#x09;0.5&#x0A;position = 0 0 0  \\&#x0A;           {x} 0 0&#x0A;"
        "rotation = 0 0 0.5&#x0A;end&#x0A;")

FIXTURE = f"""<?xml version="1.0"?>
<!-- a comment before the root -->
<multipath program="test" resolution="0.01">
  <section name="first">
    <ikgoal>41 -1&#x0A;F 0.184 0 0   0.5 -0.25 0.125&#x0A;F 0 0 1.5&#x0A;</ikgoal>
    <hold>{HOLD.format(link=3, x=7)}</hold>
    <hold index="1"/>
    <hold name="left"/>
    <milestone time="0" config="2&#x09;0 1 " velocity="2 0 0"/>
    <milestone time="0.5" config="2	0.5 1" velocity="2 1 -1"/>
  </section>
  <section>
    <unknownThing/>
    <milestone time="0.5" config="2 0.5 1" velocity="2 1 -1"/>
    <milestone time="2" config="2 2 2" velocity="2 0 0"/>
  </section>
  <hold name="left">{HOLD.format(link=10, x=1)}</hold>
  <hold>{HOLD.format(link=20, x=2)}</hold>
</multipath>
"""


@pytest.fixture
def mp_file(tmp_path):
    p = tmp_path / "mp.xml"
    p.write_text(FIXTURE)
    return str(p)


def test_multipath_structure(mp_file):
    with pytest.warns(roboio.RoboioWarning, match="unknownThing"):
        mp = roboio.load(mp_file)
    assert isinstance(mp, MultiPath)
    assert mp.settings == {"program": "test", "resolution": "0.01"}
    assert [h.link for h in mp.holds] == [10, 20] and [h.name for h in mp.holds] == ["left", None]
    s0, s1 = mp.sections
    assert s0.settings == {"name": "first"} and s1.settings == {}
    assert s0.milestones.tolist() == [[0, 1], [0.5, 1]] and s0.times.tolist() == [0, 0.5]
    assert s0.velocities.tolist() == [[0, 0], [1, -1]]
    assert s1.milestones.tolist() == [[0.5, 1], [2, 2]] and s1.times.tolist() == [0.5, 2]
    # inline hold, index 1 (the unnamed global hold: indices count every global hold), name
    assert [h.link for h in s0.holds] == [3, 20, 10]
    assert s0.hold_refs == [None, 1, "left"]
    assert s0.holds[1] is mp.holds[1] and s0.holds[2] is mp.holds[0]
    inline = s0.holds[0]
    assert [c.x.tolist() for c in inline.contacts] == [[7, 0, 0], [7, 1, 0]]
    assert inline.ik_constraint.end_position.tolist() == [7, 0, 0]
    assert inline.ik_constraint.end_rotation.tolist() == [0, 0, 0.5]
    (g,) = s0.ik_goals
    assert (g.link, g.end_position.tolist(), g.end_rotation.tolist()) == (41, [0.5, -0.25, 0.125], [0, 0, 1.5])
    assert mp.num_milestones == 4 and mp.dimension == 2 and mp.timed and mp.duration == 2


def test_multipath_to_trajectory(mp_file):
    with pytest.warns(roboio.RoboioWarning):
        mp = roboio.load(mp_file)
    t = mp.to_trajectory()
    assert t.times.tolist() == [0, 0.5, 2]
    assert t.milestones.tolist() == [[0, 1], [0.5, 1], [2, 2]]
    assert t.velocities.tolist() == [[0, 0], [1, -1], [0, 0]]
    assert t.warnings == []


def test_to_trajectory_untimed_and_mixed():
    a = Section([[0, 0], [1, 0], [2, 0]])
    b = Section([[2, 0], [2, 1], [2, 2]])
    mp = MultiPath([a, b])
    t = mp.to_trajectory()
    assert t.times.tolist() == [0, 1, 2, 3, 4]          # Klamp't Python: index timing
    assert t.milestones.tolist() == [[0, 0], [1, 0], [2, 0], [2, 1], [2, 2]]
    assert mp.duration == 4 and not mp.timed
    mixed = MultiPath([Section([[0.0], [1.0]], [0.0, 0.5]), Section([[1.0], [3.0], [4.0]])])
    assert mixed.to_trajectory().times.tolist() == [0, 0.5, 1.5, 2.5]
    gap = MultiPath([Section([[0.0], [1.0]]), Section([[5.0], [6.0]])])
    assert gap.to_trajectory().milestones.tolist() == [[0], [5], [6]]
    assert "do not meet" in gap.to_trajectory().warnings[0]


def test_multipath_write_keeps_references_and_whitespace(mp_file, tmp_path):
    with pytest.warns(roboio.RoboioWarning):
        mp = roboio.load(mp_file)
    out = str(tmp_path / "out.xml")
    report = roboio.save(mp, out)
    assert not report.lost
    text = open(out).read()
    assert '<hold index="1" />' in text and '<hold name="left" />' in text
    assert 'config="2&#x09;0 1"' in text and "&#x0A;" in text
    root = etree.parse(out).getroot()
    texts = [h.text for h in root.iter("hold") if h.text]
    assert texts[0].startswith("begin hold\nlink = 3\ncontacts = 7 0 0\t\t0 0 1\t\t0.5  \\\n")
    back = roboio.load(out)
    assert back.settings == mp.settings and back.holds == mp.holds
    for a, b in zip(back.sections, mp.sections):
        assert a.hold_refs == b.hold_refs and a.holds == b.holds and a.ik_goals == b.ik_goals
        assert a.settings == b.settings
        assert np.array_equal(a.milestones, b.milestones) and np.array_equal(a.times, b.times)
        assert np.array_equal(a.velocities, b.velocities)


def test_trajectory_saved_as_multipath(tmp_path):
    t = Trajectory([0, 0.25], [[1.0, 2.0], [3.0, 1e-17]])
    out = str(tmp_path / "t.xml")
    assert not roboio.save(t, out).lost
    mp = roboio.load(out)
    assert len(mp.sections) == 1
    assert np.array_equal(mp.sections[0].milestones, t.milestones)
    assert mp.sections[0].times.tolist() == [0, 0.25]


def test_multipath_saved_as_path_reports_losses(mp_file, tmp_path):
    with pytest.warns(roboio.RoboioWarning):
        mp = roboio.load(mp_file)
    r = roboio.save(mp, str(tmp_path / "a.path"))
    lost = " | ".join(r.lost)
    for item in ("holds (3 in sections, 2 global)", "1 IK goals", "settings", "section boundaries", "velocities"):
        assert item in lost
    t = roboio.load(str(tmp_path / "a.path"))
    assert t.times.tolist() == [0, 0.5, 2] and t.milestones.tolist() == [[0, 1], [0.5, 1], [2, 2]]


def _mp(body, holds=""):
    return f'<multipath>\n<section>\n{body}\n</section>\n{holds}</multipath>\n'


GLOBAL = f"<hold name='a'>{HOLD.format(link=1, x=0)}</hold>\n"

BAD = [
    (_mp('<milestone time="0" config="1 0"/>\n<milestone config="1 1"/>'), 4, "mixed"),
    (_mp('<milestone config="1 0"/>\n<milestone time="1" config="1 1"/>'), 4, "mixed"),
    (_mp('<milestone config="1 0" velocity="1 0"/>\n<milestone config="1 1"/>'), 4, "velocity"),
    (_mp('<milestone config="2 0"/>\n<milestone config="1 1"/>'), 3, "only 1 numbers follow"),
    (_mp('<milestone config="1 0 5"/>\n<milestone config="1 1"/>'), 3, "more values"),
    (_mp('<milestone config="1 x"/>\n<milestone config="1 1"/>'), 3, "expected a number"),
    (_mp('<milestone time="zero" config="1 0"/>'), 3, "expected a number"),
    (_mp('<milestone/>'), 3, "without a config"),
    (_mp('<milestone config="1 0"/>\n<milestone config="2 1 1"/>'), 4, "the first of its section 1"),
    (_mp('<hold index="1"/>', GLOBAL), 3, "out of range"),
    (_mp('<hold index="-1"/>', GLOBAL), 3, "out of range"),
    (_mp('<hold index="one"/>', GLOBAL), 3, "integer"),
    (_mp('<hold name="b"/>', GLOBAL), 3, "no global hold"),
    (_mp('<hold/>'), 3, "has no text"),
    (_mp('<ikgoal>  </ikgoal>'), 3, "has no text"),
    (_mp("<ikgoal>1 -1 F 0 0 0 1 1 N</ikgoal>"), 3, "<ikgoal>: expected a number in the target position"),
    (_mp('<hold>begin hold&#x0A;link = 1&#x0A;bogus = 1&#x0A;end</hold>'), 3, "<hold> line 3: unknown hold item"),
    (_mp('<hold>begin hold&#x0A;link =1&#x0A;end</hold>'), 3, "followed by a space"),
    ("<multipath><section></multipath>", 1, "malformed XML"),
]


@pytest.mark.parametrize("text,line,message", BAD)
def test_bad_multipaths(tmp_path, text, line, message):
    p = tmp_path / "bad.xml"
    p.write_text(text)
    with pytest.raises(FormatError) as e:
        roboio.load(str(p), format="klampt-multipath")
    assert e.value.path == str(p) and e.value.line == line, str(e.value)
    assert message in str(e.value)


def test_short_section_warns(tmp_path):
    p = tmp_path / "a.xml"
    p.write_text(_mp('<milestone config="1 0"/>'))
    with pytest.warns(roboio.RoboioWarning, match="at least 2"):
        mp = roboio.load(str(p))
    assert mp.sections[0].milestones.tolist() == [[0]]


# ------------------------------------------------------------------------------- grasp

GRASP = """<Grasp object="2" robot="1" fixed="3 0.5  7 -1.25  ">
  <IKGoal data="12 -1&#x0A;F 0 0 0   1 2 3&#x0A;F 0 0 0.25&#x0A;" />
  <contact link="12" x="0.1 0.2 0.3" n="0 0 1" kFriction="0.8" force="1 2 3" />
  <contact link="13" x="-0.1 0 0" n="0 1 0" kFriction="0.5" />
  <comment/>
</Grasp>
"""


def test_grasp_read_write(tmp_path):
    p = tmp_path / "g.xml"
    p.write_text(GRASP)
    with pytest.warns(roboio.RoboioWarning, match="comment"):
        g = roboio.load(str(p))
    assert isinstance(g, Grasp)
    assert (g.object_index, g.robot_index, g.fixed_dofs, g.fixed_values) == (2, 1, [3, 7], [0.5, -1.25])
    (c,) = g.constraints
    assert (c.link, c.end_position.tolist(), c.end_rotation.tolist()) == (12, [1, 2, 3], [0, 0, 0.25])
    assert g.contact_links == [12, 13]
    assert [x.x.tolist() for x in g.contacts] == [[0.1, 0.2, 0.3], [-0.1, 0, 0]]
    assert [x.kFriction for x in g.contacts] == [0.8, 0.5]
    assert g.forces[0].tolist() == [1, 2, 3] and g.forces[1] is None
    out = str(tmp_path / "h.xml")
    assert not roboio.save(g, out).lost
    text = open(out).read()
    assert text.startswith('<Grasp object="2" robot="1" fixed="3 0.5  7 -1.25">')
    assert roboio.load(out) == g


@pytest.mark.parametrize("text,line,message", [
    ('<Grasp fixed="3 0.5 7"/>', 1, "value of DOF 7"),
    ('<Grasp object="x"/>', 1, "integer"),
    ('<Grasp>\n<contact link="1" x="0 0 0" n="0 0 1"/>\n</Grasp>', 2, "kFriction"),
    ('<Grasp>\n<contact link="1" x="0 0" n="0 0 1" kFriction="1"/>\n</Grasp>', 2, "expected 3 numbers"),
    ('<Grasp>\n<IKGoal/>\n</Grasp>', 2, "data"),
    ('<Grasp>\n<IKGoal data="1 -1 X"/>\n</Grasp>', 2, "position constraint type"),
])
def test_bad_grasps(tmp_path, text, line, message):
    p = tmp_path / "bad.xml"
    p.write_text(text)
    with pytest.raises(FormatError) as e:
        roboio.load(str(p), format="klampt-grasp")
    assert e.value.line == line and message in str(e.value), str(e.value)


# ------------------------------------------------------------------------------- sniffing

@pytest.mark.parametrize("head,expected", [
    (b'<?xml version="1.0"?>\n<!-- x -->\n<multipath a="1">', "klampt-multipath"),
    (b"\xef\xbb\xbf<multipath>", "klampt-multipath"),
    (b'<!DOCTYPE x>\n<Grasp object="1">', "klampt-grasp"),
])
def test_xml_roots_pick_format(tmp_path, head, expected):
    p = tmp_path / "x.xml"
    p.write_bytes(head + b"</x>")
    assert registry.find_reader(str(p)).name == expected


def test_xml_sniffs_reject_other_roots():
    from roboio.formats.klampt.contact import grasp
    from roboio.formats.klampt.motion import multipath
    for head in (b"<world>", b"<grasp>", b"<Robot>", b"<KinBody>", b"<multipathX>"):
        assert not multipath.sniff(head, "x.xml") and not grasp.sniff(head, "x.xml")


def test_trajectories_and_sections_check_their_arrays_alike():
    # one configuration is one milestone; untimed -> timed by index 0..N-1
    for seq in (Trajectory(None, [1.0, 2.0, 3.0]), Section([1.0, 2.0, 3.0])):
        assert (seq.num_milestones, seq.dimension) == (1, 3)
        assert (seq.start_time, seq.end_time, seq.duration) == (0.0, 0.0, 0.0)
    for make in (lambda m, t, v: Trajectory(t, m, v), Section):
        seq = make([[0, 0], [1, 1], [2, 2]], [1.0, 2.0, 4.0], None)
        assert (seq.start_time, seq.end_time, seq.duration) == (1.0, 4.0, 3.0)
        with pytest.raises(ValueError, match="2 times for 3 milestones"):
            make([[0, 0], [1, 1], [2, 2]], [0.0, 1.0], None)
        with pytest.raises(ValueError):            # 4 velocity values for 3 x 2 milestones
            make([[0, 0], [1, 1], [2, 2]], None, [[0, 0], [1, 1]])


def test_multipath_time_span_over_timed_and_untimed_sections():
    # section 0 timed [0, 1] (its last milestone repeats section 1's first and is dropped);
    # section 1 untimed, 3 milestones, continues from t = 1: 1, 2, 3 -> times 0, 1, 2, 3
    mp = MultiPath(sections=[Section([[0.0], [1.0]], [0.0, 1.0]), Section([[1.0], [2.0], [3.0]])])
    assert (mp.start_time, mp.end_time, mp.duration) == (0.0, 3.0, 3.0)
    assert MultiPath().duration == 0.0
