"""Reading Klamp't .rob files: hand-worked examples of every keyword's semantics
(spec klampt.md §3). Expected values are computed independently in the tests (explicit
rotation matrices, the spec's worked examples, textbook inertias)."""
import math
import os
import warnings

import numpy as np
import pytest

import roboio
from conftest import Rx, Ry, Rz
from roboio import FormatError, RoboioWarning

I12 = "1 0 0  0 1 0  0 0 1  "
ID = I12 + "0 0 0 "        # one identity transform (12 numbers)


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return str(p)


def load(tmp_path, text, name="r.rob", **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        return roboio.load(write(tmp_path, name, text), **kw)


CUBE_OFF = """OFF
8 12 0
0 0 0
1 0 0
1 1 0
0 1 0
0 0 1
1 0 1
1 1 1
0 1 1
3 0 2 1
3 0 3 2
3 4 5 6
3 4 6 7
3 0 1 5
3 0 5 4
3 2 3 7
3 2 7 6
3 1 2 6
3 1 6 5
3 0 4 7
3 0 7 3
"""


# -- kinematics -------------------------------------------------------------------------

def test_planar3R_worked_example(tmp_path):
    # spec §3.15: the point (1,0,0) of link 2 at q = (0, pi/4, pi/4) is at (1.70711, 0, -1.70711)
    r = load(tmp_path, "TParent " + I12 + "0 0 0 " + I12 + "1 0 0 " + I12 + "1 0 0\n"
             "axis 0 1 0  0 1 0  0 1 0\n")
    T = r.fk([0, math.pi / 4, math.pi / 4])[2]
    p = T[:3, :3] @ [1, 0, 0] + T[:3, 3]
    assert np.allclose(p, [1 + math.sqrt(0.5), 0, -1 - math.sqrt(0.5)], atol=1e-15)


def test_tparent_rotation_is_row_major(tmp_path):
    r = load(tmp_path, "tparent 0 -1 0  1 0 0  0 0 1  1 2 3\n")
    assert np.array_equal(r.links[0].parent_transform[:3, :3], Rz(math.pi / 2).round())
    assert np.array_equal(r.links[0].parent_transform[:3, 3], [1, 2, 3])


def test_modified_dh_and_forced_z_axes(tmp_path):
    # spec §3.15 (puma760 link 4): alphaDeg -90, a 0, d 0.6, theta 0
    r = load(tmp_path, "alphaDeg 0 -90\na 0.1 0\nd 0 0.6\ntheta 0.3 0\naxis 1 0 0  1 0 0\n")
    T1 = r.links[1].parent_transform
    assert np.allclose(T1[:3, :3], [[1, 0, 0], [0, 0, 1], [0, -1, 0]], atol=1e-15)
    assert np.allclose(T1[:3, 3], [0, 0.6, 0], atol=1e-15)
    T0 = r.links[0].parent_transform   # Rx(0) Tx(0.1) Rz(0.3) Tz(0)
    assert np.allclose(T0[:3, :3], Rz(0.3), atol=1e-15) and np.allclose(T0[:3, 3], [0.1, 0, 0])
    assert all(np.array_equal(l.axis, [0, 0, 1]) for l in r.links)
    assert list(r.parents) == [-1, 0]


def test_tparent_wins_over_dh(tmp_path):
    r = load(tmp_path, "tparent " + I12 + "5 0 0\nalpha 1\na 1\nd 1\ntheta 1\n")
    assert np.array_equal(r.links[0].parent_transform[:3, 3], [5, 0, 0])


def test_base_transform_premultiplies_every_root(tmp_path):
    r = load(tmp_path, "tparent " + I12 + "1 0 0 " + I12 + "0 1 0 " + I12 + "0 0 1\n"
             "parents -1 0 -1\ntranslation 0 0 2\nrotation 0 -1 0  1 0 0  0 0 1\n")
    B = np.eye(4)
    B[:3, :3] = Rz(math.pi / 2).round()
    B[:3, 3] = [0, 0, 2]
    T = np.eye(4)
    assert np.array_equal(r.links[0].parent_transform, B @ np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]))
    assert np.array_equal(r.links[1].parent_transform[:3, 3], [0, 1, 0])   # not a root
    T[:3, 3] = [0, 0, 1]
    assert np.array_equal(r.links[2].parent_transform, B @ T)


def test_non_unit_axis_scales_the_rate(tmp_path):
    r = load(tmp_path, "tparent " + I12 + "0 0 0\naxis 0 0 2\n")
    assert np.allclose(r.fk([0.5])[0][:3, :3], Rz(1.0), atol=1e-15)


def test_keywords_are_case_insensitive_and_lists_accumulate(tmp_path):
    r = load(tmp_path, "TPARENT " + I12 + "0 0 0\nTParent " + I12 + "1 0 0\n"
             "Q 0.5\nqDeg 90\nLinks a\nLINKS \"b c\"\n")
    assert r.link_names == ["a", "b c"]
    assert np.allclose(r.config, [0.5, math.pi / 2])


# -- limits and defaults -----------------------------------------------------------------

def test_defaults(tmp_path):
    r = load(tmp_path, "tparent " + ID * 2 + "\n" + "velmax 1 2\n")
    assert r.link_names == ["Link_0", "Link_1"]
    assert list(r.parents) == [-1, 0]
    assert np.array_equal(r.config, [0, 0])
    assert np.array_equal(r.qmin, [-np.inf, -np.inf]) and np.array_equal(r.qmax, [np.inf, np.inf])
    assert np.array_equal(r.vmin, [-1, -2])
    assert np.array_equal(r.amax, [np.inf, np.inf]) and np.array_equal(r.tmax, [np.inf, np.inf])
    assert all(l.mass == 1 and np.array_equal(l.inertia, np.eye(3)) for l in r.links)
    assert [l.joint_type for l in r.links] == ["revolute", "revolute"]


def test_accmax_is_nan_when_only_torquemax_given(tmp_path):
    # what klampt computes (oracle robots/pr2gripper_x2.rob records NaN), with a warning
    p = write(tmp_path, "r.rob", "tparent " + I12 + "0 0 0\ntorquemax 3\n")
    with pytest.warns(RoboioWarning, match="NaN acceleration"):
        r = roboio.load(p)
    assert np.isnan(r.amax).all()
    with pytest.raises(FormatError):
        roboio.load(p, strict=True)


def test_deg_keywords_and_qmindeg_order_quirk(tmp_path):
    d = math.pi / 180
    # jointtype before qmindeg: the prismatic entry stays in metres
    r = load(tmp_path, "tparent " + ID * 2 + "\njointtype r p\nqMinDeg -90 0.5\n"
             "qmaxdeg 90 0.7\nvelMaxDeg 10 2\naccmaxdeg 20 4\nqdeg 30 0.1\n")
    assert np.allclose(r.qmin, [-90 * d, 0.5]) and np.allclose(r.qmax, [90 * d, 0.7])
    assert np.allclose(r.vmax, [10 * d, 2 * d])          # every entry converted
    assert np.allclose(r.amax, [20 * d, 4 * d])
    assert np.allclose(r.config, [30 * d, 0.1 * d])
    # the index is the position within the qmaxdeg line (measured with klampt 0.10.1)
    r = load(tmp_path, "tparent " + ID * 3 + "\njointtype p r r\nqmaxdeg 10\nqmaxdeg 0.5 20\n")
    assert np.allclose(r.qmax, [10, 0.5, 20 * d])
    # jointtype after qmindeg: converted too (Klamp't's order dependence)
    r = load(tmp_path, "tparent " + ID * 2 + "\nqmindeg -90 0.5\njointtype r p\n")
    assert np.allclose(r.qmin, [-90 * d, 0.5 * d])
    assert r.links[1].is_prismatic


def test_inf_limits_only_in_safe_float_keywords(tmp_path):
    r = load(tmp_path, "tparent " + I12 + "0 0 0\nqmin -inf\nqmax Infinity\nvelmax inf\n")
    assert r.qmin[0] == -np.inf and r.qmax[0] == np.inf and r.vmax[0] == np.inf
    # "mass inf" reads no number: the mass list stays empty (default 1), with a warning
    r = load(tmp_path, "tparent " + ID + "\nmass inf\n")
    assert r.links[0].mass == 1 and "not a number" in r.warnings[0]
    with pytest.raises(FormatError, match=r"r\.rob:2: mass: 'inf' is not a number"):
        load(tmp_path, "tparent " + ID + "\nmass inf\n", strict=True)


def test_inertia_is_read_column_by_column(tmp_path):
    r = load(tmp_path, "tparent " + ID * 2 + "\ninertia 1 2 3 4 5 6 7 8 9\n"
             "inertiaDiag 1 2 3\n")
    assert np.array_equal(r.links[0].inertia, [[1, 4, 7], [2, 5, 8], [3, 6, 9]])
    assert np.array_equal(r.links[1].inertia, np.diag([1, 2, 3]))


def test_autotorque(tmp_path):
    # spec §3.7 recurrence by hand for a 2-link chain, factor 2 (links taken N-1 down to 0):
    # i=1: Cprev = 0 + |t1| = 1, M = 3, C = (|com1|*3 + 1*0)/3 = 0.5 -> tmax1 = 0.5*3*9.8*2
    # i=0: Cprev = 0.5 + |t0| = 1.2, M = 5, C = (0*2 + 1.2*3)/5 = 0.72 -> tmax0 = 0.72*5*9.8*2
    r = load(tmp_path, "tparent " + I12 + "0 0 0.7 " + I12 + "1 0 0\nmass 2 3\n"
             "com 0 0 0  0.3 0.4 0\nautotorque 2\ntorquemax 1 1\naccmax 1 1\n")
    assert np.allclose(r.tmax, [0.72 * 5 * 9.8 * 2, 0.5 * 3 * 9.8 * 2], rtol=1e-15)


# -- joints and drivers --------------------------------------------------------------------

def test_default_joints_and_drivers(tmp_path):
    r = load(tmp_path, "tparent " + ID * 3 + "\nvelmax 0 1 0\nlinks base a b\n")
    assert [(j.type, j.links) for j in r.joints] == [("weld", [0]), ("normal", [1]), ("normal", [2])]
    assert [(d.name, d.type, d.dofs) for d in r.drivers] == [("a", "normal", [1]), ("b", "normal", [2])]


def test_floating_joint_chain_and_base(tmp_path):
    text = ("tparent " + ID * 7 + "\njointtype p p p r r r r\n"
            "joint floating 5 -1\njoint spin 6\n")
    r = load(tmp_path, text)
    assert r.joints[0].type == "floating" and r.joints[0].links == [0, 1, 2, 3, 4, 5]
    assert r.joints[0].base == -1
    assert [(d.type, d.dofs) for d in r.drivers] == [("normal", [6])]   # spin gets a driver


def test_floating_joint_must_cover_six_links(tmp_path):
    with pytest.raises(FormatError, match=r"r\.rob:2: joint floating 2 -1 covers 3 links"):
        load(tmp_path, "tparent " + ID * 3 + "\njoint floating 2 -1\n")


def test_drivers_with_names_limits_and_gains(tmp_path):
    r = load(tmp_path, "tparent " + ID * 4 + "\nqmin -1 -2 -3 -4\nqmax 1 2 3 4\n"
             "accmax 10 3 6 8\ntorquemax 5 6 7 8\n"
             "drivers \"d one\" two three\n"
             "driver normal 0\n"
             "driver affine 2  1 2  2 -1  0.1 0.2  -1 1 -inf inf -9 9\n"
             "driver translation 3 1\n"
             "servoP 1 2 3\nservoI 0 0 0\nservoD 4 5 6\ndryFriction 0.5 0 0\nviscousFriction 0 0 7\n")
    d0, d1, d2 = r.drivers
    assert (d0.name, d0.type, d0.dofs, d0.qmin, d0.qmax, d0.tmin, d0.tmax, d0.amin, d0.amax) == \
        ("d one", "normal", [0], -1, 1, -5, 5, -10, 10)
    assert (d1.type, d1.dofs, d1.scale, d1.offset) == ("affine", [1, 2], [2, -1], [0.1, 0.2])
    assert (d1.qmin, d1.qmax, d1.vmin, d1.vmax, d1.tmin, d1.tmax) == (-1, 1, -np.inf, np.inf, -9, 9)
    # scale 2 on link 1 (accmax 3): [-1.5, 1.5]; scale -1 on link 2 (accmax 6): Klamp't's
    # rule lo = max(lo, 6/-1), hi = max(hi, 6) -> [-1.5, 6] (measured with klampt 0.10.1)
    assert (d1.amin, d1.amax) == (-1.5, 6.0)
    assert (d2.type, d2.dofs, d2.force_link, d2.qmin, d2.qmax) == ("translation", [3], 1, -4, 4)
    assert [d.servo_p for d in r.drivers] == [1, 2, 3]
    assert [d.servo_d for d in r.drivers] == [4, 5, 6]
    assert [d.dry_friction for d in r.drivers] == [0.5, 0, 0]
    assert [d.viscous_friction for d in r.drivers] == [0, 0, 7]
    q = r.config_from_drivers([0.5, 0.3, 0.25])
    assert np.allclose(q, [0.5, 0.1 + 2 * 0.3, 0.2 - 0.3, 0.25])
    assert np.allclose(r.drivers_from_config(q), [0.5, 0.3, 0.25])


# -- geometry, automass, self-collision --------------------------------------------------

def test_geometry_scale_and_transform_compose(tmp_path):
    write(tmp_path, "cube.off", CUBE_OFF)
    r = load(tmp_path, "tparent " + ID * 2 + "\ngeometry \"cube.off\" \"\"\n"
             "geomscale 2\ngeomtransform 0  0 -1 0 1  1 0 0 2  0 0 1 3  0 0 0 1\n"
             "geomtransform 1  1 0 0 0  0 1 0 0  0 0 1 0  0 0 0 1\n")
    g = r.links[0].geometry
    assert not g.is_loaded                      # no mesh parsed without automass
    M = np.array([[0, -1, 0, 1], [1, 0, 0, 2], [0, 0, 1, 3], [0, 0, 0, 1]], float)
    assert np.array_equal(g.transform, M @ np.diag([2, 2, 2, 1.0]))   # p' = M (s p)
    assert r.links[1].geometry is None
    assert g.source.reference == "cube.off"


def test_automass_surface_and_solid_cube(tmp_path):
    write(tmp_path, "cube.off", CUBE_OFF)
    base = "tparent " + ID * 2 + "\ngeometry \"cube.off\" \"cube.off\"\nmass 6 3\n"
    # thin-walled unit cube: I = 5/18 m a^2 about its centre (0.5, 0.5, 0.5)
    r = load(tmp_path, base + "automass\n")
    assert np.allclose(r.links[0].com, [0.5] * 3, atol=1e-15)
    assert np.allclose(r.links[0].inertia, 6 * 5 / 18 * np.eye(3), atol=1e-14)
    # solid: m a^2 / 6; a given com keeps the com and moves the inertia (parallel axes)
    r = load(tmp_path, base + "automass 0\ncom 0 0 0  0.5 0.5 0.5\n")
    assert np.array_equal(r.links[0].com, [0, 0, 0])
    d = np.array([0.5, 0.5, 0.5])
    expect = 6 * (np.eye(3) / 6 + (d @ d) * np.eye(3) - np.outer(d, d))
    assert np.allclose(r.links[0].inertia, expect, atol=1e-14)
    assert np.allclose(r.links[1].inertia, 3 * np.eye(3) / 6, atol=1e-14)


def test_automass_without_geometry_gives_zero_inertia(tmp_path):
    r = load(tmp_path, "tparent " + I12 + "0 0 0\nmass 2\nautomass\n")
    assert np.array_equal(r.links[0].inertia, np.zeros((3, 3)))
    assert np.array_equal(r.links[0].com, [0, 0, 0])


def test_self_collision_defaults_and_lists(tmp_path):
    write(tmp_path, "cube.off", CUBE_OFF)
    text = ("tparent " + ID * 4 + "\nparents -1 0 1 0\nlinks a b c d\n"
            "geometry cube.off cube.off cube.off \"\"\n")
    r = load(tmp_path, text)
    assert r.self_collision_pairs == {(0, 2)}      # 0-1 and 1-2 are parent/child, d has none
    r = load(tmp_path, text.replace("cube.off \"\"", "cube.off cube.off") + "noselfcollision a c  3 1\n")
    assert r.self_collision_pairs == {(2, 3)}          # (0, 2) and (1, 3) removed
    r = load(tmp_path, text + "selfcollision 0 1  a d  c 0\n")
    assert r.self_collision_pairs == {(0, 1), (0, 2)}   # (0, 3): d has no geometry


def test_geometry_mount_merges(tmp_path):
    write(tmp_path, "cube.off", CUBE_OFF)
    r = load(tmp_path, "tparent " + ID * 2 + "\ngeometry cube.off \"\"\n"
             "mount 0 \"cube.off\" " + I12 + "0 0 5\nmount 1 cube.off\n")
    g0, g1 = r.links[0].geometry, r.links[1].geometry
    assert g0.kind == "Group" and len(g0.children) == 2
    assert np.array_equal(g0.children[1].transform[:3, 3], [0, 0, 5])
    assert g1.kind == "TriangleMesh" and np.array_equal(g1.transform, np.eye(4))
    assert r.self_collision_pairs == set()          # parent/child


# -- robot mounts --------------------------------------------------------------------------

def test_robot_mount_with_prefix_transform_and_renumbering(tmp_path):
    write(tmp_path, "sub/finger.rob", "tparent " + I12 + "0 0 0 " + I12 + "1 0 0\n"
          "links base tip\ndriver normal 1\ngeometry \"\" \"../cube.off\"\n"
          "joint weld 0\njoint normal 1\nservoP 7\n")
    write(tmp_path, "cube.off", CUBE_OFF)
    r = load(tmp_path, "tparent " + ID * 2 + "\nlinks palm wrist\n"
             "geometry cube.off cube.off\n"
             "mount 1 \"sub/finger.rob\" 0 -1 0  1 0 0  0 0 1  0 0 2 as \"f1\"\n"
             "mount palm sub/finger.rob\n"
             "noselfcollision wrist f1:tip\n")
    assert r.link_names == ["palm", "wrist", "f1:base", "f1:tip", "base", "tip"]
    assert list(r.parents) == [-1, 0, 1, 2, 0, 4]
    T = np.eye(4)
    T[:3, :3] = Rz(math.pi / 2).round()
    T[:3, 3] = [0, 0, 2]
    assert np.array_equal(r.links[2].parent_transform, T)
    assert np.array_equal(r.links[3].parent_transform[:3, 3], [1, 0, 0])
    assert [(d.name, d.dofs, d.servo_p) for d in r.drivers] == [
        ("palm", [0], 0), ("wrist", [1], 0), ("f1:tip", [3], 7), ("tip", [5], 7)]
    assert [(j.type, j.links) for j in r.joints][2:] == [
        ("weld", [2]), ("normal", [3]), ("weld", [4]), ("normal", [5])]
    # every new link with geometry against every old one, except sub-root vs mount link
    # (the sub-roots have none here); the deferred noselfcollision removed (1, 3)
    assert r.self_collision_pairs == {(0, 3), (0, 5), (1, 5), (3, 5)}


def test_mount_to_world_is_accepted(tmp_path):
    # current Klamp't accepts "mount -1" (0.10.1 rejects it): the sub-robot stays a root
    write(tmp_path, "arm.rob", "tparent " + I12 + "0 0 0\n")
    r = load(tmp_path, "tparent " + I12 + "0 0 0\nmount -1 arm.rob " + I12 + "1 0 0 as right\n")
    assert r.link_names == ["Link_0", "right:Link_0"] and list(r.parents) == [-1, -1]
    assert np.array_equal(r.links[1].parent_transform[:3, 3], [1, 0, 0])


def test_assembly_file_without_links(tmp_path):
    write(tmp_path, "arm.rob", "tparent " + I12 + "0 0 0\n")
    r = load(tmp_path, "mount -1 arm.rob as a\nmount -1 arm.rob as b\n")
    assert r.link_names == ["a:Link_0", "b:Link_0"]


# -- properties ----------------------------------------------------------------------------

def test_properties(tmp_path):
    write(tmp_path, "s.xml", "<sensors><JointPositionSensor name=\"enc\"/></sensors>\n")
    r = load(tmp_path, "tparent " + I12 + "0 0 0\nproperty sensors s.xml\n"
             "property controller <controller type=\\\"x\\\"/>\n"
             "property note \"a \\n b\"\nproperty other  x\\ty  \n")
    assert r.properties["sensors"] == "<sensors><JointPositionSensor name=\"enc\"/></sensors>\n"
    assert r.properties["controller"] == '<controller type="x"/>'
    assert r.properties["note"] == "a \\n b"           # quoted: kept as written
    assert r.properties["other"] == "x\ty"             # unquoted: escapes translated


def test_mounted_sensors_are_renumbered(tmp_path):
    write(tmp_path, "sub.rob", "tparent " + ID * 2 + "\nproperty sensors "
          "<sensors><A link=\"1\"/><B link=\"base\"/><C indices=\"0 1\"/></sensors>\n")
    r = load(tmp_path, "tparent " + I12 + "0 0 0\nproperty sensors <sensors><Z link=\"0\"/></sensors>\n"
             "mount 0 sub.rob as s\n")
    from lxml import etree
    root = etree.fromstring(r.properties["sensors"])
    # "base" is no link of sub.rob (Link_0, Link_1): the sensor sat in sub.rob's world
    # frame, so it gets the mount transform (identity here) as its Tsensor
    assert [(e.tag, dict(e.attrib)) for e in root] == [
        ("Z", {"link": "0"}), ("A", {"link": "2"}),
        ("B", {"link": "s:base", "Tsensor": "1 0 0 0 1 0 0 0 1 0 0 0"}), ("C", {"indices": "1 2"})]


def test_default_drivers_follow_the_joints_links_with_a_warning(tmp_path):
    # klampt 0.10.1 (measured) would put joint line i's driver on link i: [0, 1, 2]
    p = write(tmp_path, "r.rob", "tparent " + ID * 3 + "\njoint normal 0\njoint normal 2\n"
              "joint normal 1\n")
    with pytest.warns(RoboioWarning, match="Klamp't 0.10.1 puts the driver of the i-th joint"):
        r = roboio.load(p)
    assert [d.dofs for d in r.drivers] == [[0], [2], [1]]
