"""Klamp't robot mounts (spec klampt.md §3.12), the same rules through both readers that
mount: a ``.rob`` ``mount`` line and a URDF ``<klampt><mount>``. Every expected value is
worked out by hand in the comments."""
import warnings

import numpy as np
import pytest
from lxml import etree

import roboio
from roboio import RoboioWarning

I12 = "1 0 0  0 1 0  0 0 1  "
ID = I12 + "0 0 0 "
# the mount transform: 90 degrees about z (rows 0 -1 0 / 1 0 0 / 0 0 1), then (10, 20, 30)
T12 = "0 -1 0  1 0 0  0 0 1  10 20 30"

# seven links s0..s6 in a chain; s1..s6 form a floating joint based on s0
SUB = ("links s0 s1 s2 s3 s4 s5 s6\nparents -1 0 1 2 3 4 5\ntparent " + ID * 7 + "\n"
       "joint weld 0\njoint floating 6 0\n"
       "property sensors <sensors>"
       '<A name="a" link="2"/>'
       '<B name="b" link="-1" Tsensor="0 -1 0 1 0 0 0 0 1 1 2 3"/>'
       '<C name="c" link="s1"/>'
       '<D link="1x"/>'
       '<E name="e" indices="0 1.5 2"/>'
       '<F name="f" link="nope"/>'
       "</sensors>\n")


def host_rob(tmp_path):
    (tmp_path / "host.rob").write_text(
        "links h0 h1\ntparent " + ID * 2 + "\nproperty sensors <sensors><H name=\"h\" link=\"0\"/></sensors>\n"
        f"mount h1 sub.rob {T12} as \"m\"\n")
    return tmp_path / "host.rob"


def host_urdf(tmp_path):
    (tmp_path / "host.urdf").write_text(
        '<robot name="host"><link name="world"/><link name="h0"/><link name="h1"/>'
        '<joint name="j0" type="fixed"><parent link="world"/><child link="h0"/></joint>'
        '<joint name="j1" type="revolute"><parent link="h0"/><child link="h1"/>'
        '<limit effort="1" velocity="1" lower="-1" upper="1"/></joint>'
        '<klampt><sensors><H name="h" link="0"/></sensors>'
        f'<mount link="h1" file="sub.rob" transform="{T12}" as="m"/></klampt></robot>')
    return tmp_path / "host.urdf"


@pytest.fixture(params=["rob", "urdf"])
def mounted(request, tmp_path):
    (tmp_path / "sub.rob").write_text(SUB)
    path = (host_rob if request.param == "rob" else host_urdf)(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        return roboio.load(path)


def test_links_and_sub_root_frame(mounted):
    # two host links (N0 = 2), mounted on h1 (L = 1)
    assert mounted.link_names == ["h0", "h1"] + [f"m:s{k}" for k in range(7)]
    assert list(mounted.parents) == [-1, 0, 1, 2, 3, 4, 5, 6, 7]
    # the sub-root's Tparent (identity) becomes T
    expected = np.array([[0, -1, 0, 10], [1, 0, 0, 20], [0, 0, 1, 30], [0, 0, 0, 1]], float)
    assert np.array_equal(mounted.links[2].parent_transform, expected)


def test_joint_links_and_bases_are_remapped(mounted):
    # sub joints: weld 0 (base -1) and floating over 1..6 based on 0.
    # Negative -> L = 1, else + N0 = 2: weld [2] base 1; floating [3..8] base 2
    sub_joints = [(j.type, j.links, j.base) for j in mounted.joints][-2:]
    assert sub_joints == [("weld", [2], 1), ("floating", [3, 4, 5, 6, 7, 8], 2)]


def test_sensors_are_prefixed_renumbered_and_placed(mounted):
    root = etree.fromstring(mounted.properties["sensors"])
    got = [(e.tag, dict(e.attrib)) for e in root]
    assert got[0] == ("H", {"name": "h", "link": "0"})          # the host's own, untouched
    sensors = {tag: attrib for tag, attrib in got[1:]}
    assert list(sensors) == ["A", "B", "C", "D", "E", "F"]
    # integer link 2 -> 2 + N0 = 4
    assert sensors["A"] == {"name": "m:a", "link": "4"}
    # link -1 -> L = 1; the sensor sat in the sub-robot's world frame, so Tsensor <- T . Tsensor:
    # Rz(90) . Rz(90) = Rz(180) = diag(-1, -1, 1); t = Rz(90) (1, 2, 3) + (10, 20, 30) = (8, 21, 33)
    b = dict(sensors["B"])
    assert [float(x) for x in b.pop("Tsensor").split()] == [-1, 0, 0, 0, -1, 0, 0, 0, 1, 8, 21, 33]
    assert b == {"name": "m:b", "link": "1"}
    # a link name of the sub-robot gets the prefix, and keeps its frame
    assert sensors["C"] == {"name": "m:c", "link": "m:s1"}
    # "1x" starts with an integer (TinyXML's sscanf): 1 + N0 = 3; no name, none added
    assert sensors["D"] == {"link": "3"}
    # indices read as a C++ stream reads ints: 0, 1, then ".5" stops it -> shifted by N0
    assert sensors["E"] == {"name": "m:e", "indices": "2 3"}
    # a name the sub-robot lacks: prefixed, and placed in the world frame like -1 (Tsensor = T)
    f = dict(sensors["F"])
    assert [float(x) for x in f.pop("Tsensor").split()] == [0, -1, 0, 1, 0, 0, 0, 0, 1, 10, 20, 30]
    assert f == {"name": "m:f", "link": "m:nope"}


def test_mounted_controller_is_dropped_with_a_warning(tmp_path):
    (tmp_path / "sub.rob").write_text("tparent " + ID + "\nproperty controller <c/>\n")
    (tmp_path / "host.rob").write_text("tparent " + ID + "\nmount 0 sub.rob\n")
    with pytest.warns(RoboioWarning, match="controller property of the mounted robot"):
        r = roboio.load(tmp_path / "host.rob")
    assert "controller" not in r.properties


def test_invalid_mounted_sensors_are_dropped_with_a_warning(tmp_path):
    (tmp_path / "sub.rob").write_text("tparent " + ID + "\nproperty sensors <sensors><A></sensors>\n")
    (tmp_path / "host.rob").write_text("tparent " + ID + "\nmount 0 sub.rob\n")
    with pytest.warns(RoboioWarning, match="not valid XML"):
        r = roboio.load(tmp_path / "host.rob")
    assert "sensors" not in r.properties


def test_mounted_urdf_keeps_its_visual_geometry(tmp_path):
    """A mounted URDF link whose <visual> differs from its <collision> keeps both (the
    visual was dropped by the mount): a box visual and a sphere collision, mounted 0.5 m up."""
    (tmp_path / "tool.urdf").write_text(
        '<robot name="tool"><link name="t0">'
        '<visual><geometry><box size="0.1 0.2 0.3"/></geometry></visual>'
        '<collision><geometry><sphere radius="0.05"/></geometry></collision></link></robot>')
    (tmp_path / "host.rob").write_text(
        "links h0\ntparent " + ID + "\n" f"mount 0 tool.urdf {I12}0 0 0.5 as \"tool\"\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        robot = roboio.load(str(tmp_path / "host.rob"))
    link = robot.link("tool:t0")
    assert link.geometry is not None and link.visual_geometry is not None
    lo, hi = link.visual_geometry.bounds()
    np.testing.assert_allclose(hi - lo, [0.1, 0.2, 0.3], atol=1e-12)
    lo, hi = link.geometry.bounds()
    np.testing.assert_allclose(hi - lo, [0.1, 0.1, 0.1], atol=1e-12)
