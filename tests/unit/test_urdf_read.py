"""URDF reading, Klamp't semantics, on small hand-written files with hand-worked results
(klampt.md §4)."""
import os
import textwrap
import warnings

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.formats.urdf.urdf import sniff


def load(tmp_path, body, name="robot.urdf", strict=False, robot_attrs='name="r"'):
    p = tmp_path / name
    p.write_text(f'<?xml version="1.0"?>\n<robot {robot_attrs}>\n{textwrap.dedent(body)}\n</robot>\n')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(p, strict=strict, flavor="klampt")   # Klamp't's reading


LIM = '<limit effort="3" velocity="4" lower="-1" upper="2"/>'


def joint(name, parent, child, jtype="revolute", extra=LIM):
    return (f'<joint name="{name}" type="{jtype}"><parent link="{parent}"/><child link="{child}"/>'
            f'{extra}</joint>')


# -- link order and base ------------------------------------------------------------------
def test_links_are_ordered_depth_first_by_joint_name(tmp_path):
    # document order a b c d e; joint names make the depth-first order world: [e, a], a: [c, b], c: [d]
    r = load(tmp_path, "\n".join([
        '<link name="world"/>', *[f'<link name="{n}"/>' for n in "abcde"],
        joint("z_wa", "world", "a"), joint("m_ab", "a", "b"), joint("k_ac", "a", "c"),
        joint("q_cd", "c", "d"), joint("b_we", "world", "e")]))
    assert r.link_names == ["e", "a", "c", "d", "b"]
    assert list(r.parents) == [-1, -1, 1, 2, 1]
    assert [l.joint_name for l in r.links] == ["b_we", "z_wa", "k_ac", "q_cd", "m_ab"]


def test_fixed_base_drops_the_world_link_and_keeps_its_joint(tmp_path):
    r = load(tmp_path, '<link name="world"/><link name="a"/>' +
             joint("j", "world", "a", extra='<origin xyz="1 2 3"/>' + LIM))
    assert r.link_names == ["a"] and list(r.parents) == [-1]
    assert [j.type for j in r.joints] == ["normal"]
    np.testing.assert_array_equal(r.links[0].parent_transform[:3, 3], [1, 2, 3])


def test_custom_world_frame(tmp_path):
    r = load(tmp_path, '<link name="ground"/><link name="a"/>' + joint("j", "ground", "a", "fixed", "") +
             '<klampt world_frame="ground"/>')
    assert r.link_names == ["a"]


def test_floating_base_adds_five_virtual_links(tmp_path):
    r = load(tmp_path, '<link name="body"><inertial><mass value="2"/>'
                       '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'
                       '<link name="arm"/>' + joint("j", "body", "arm"))
    assert r.link_names == ["base0", "base1", "base2", "base3", "base4", "body", "arm"]
    assert list(r.parents) == [-1, 0, 1, 2, 3, 4, 5]
    assert [l.joint_type for l in r.links[:6]] == ["prismatic"] * 3 + ["revolute"] * 3
    np.testing.assert_array_equal([l.axis for l in r.links[:6]],
                                  [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1], [0, 1, 0], [1, 0, 0]])
    assert [(j.type, j.links, j.base) for j in r.joints] == [("floating", [0, 1, 2, 3, 4, 5], -1),
                                                             ("normal", [6], -1)]
    assert [l.mass for l in r.links[:6]] == [0, 0, 0, 0, 0, 2]
    assert list(r.qmin[:6]) == [-np.inf] * 6 and list(r.vmax[:6]) == [np.inf] * 6
    assert list(r.amax[:6]) == [np.inf] * 6 and list(r.tmax[:6]) == [0.0] * 6
    assert list(r.pmax[:6]) == [np.inf] * 5 + [0.0]
    assert [d.name for d in r.drivers] == ["arm"]


def test_freeze_root_link_welds_the_six_base_links(tmp_path):
    r = load(tmp_path, '<link name="body"/><klampt freeze_root_link="1"/>')
    assert [(j.type, j.links) for j in r.joints] == [("weld", [i]) for i in range(6)]
    assert list(r.qmin) == [-np.inf] * 6          # Klamp't leaves their limits unbounded


# -- joints -------------------------------------------------------------------------------
def test_joint_conversion_and_limits(tmp_path):
    r = load(tmp_path, '<link name="world"/>' + "".join(f'<link name="{n}"/>' for n in "abcde") +
             joint("j1", "world", "a", "continuous", '<limit effort="5" velocity="6" lower="-1" upper="1"/>') +
             joint("j2", "a", "b", "continuous", "") +
             joint("j3", "b", "c", "fixed", '<axis xyz="1 0 0"/>') +
             joint("j4", "c", "d", "prismatic", '<axis xyz="0 2 0"/>' + LIM) +
             joint("j5", "d", "e", "revolute", '<axis xyz="0 0 0"/><limit effort="1" velocity="2"/>'))
    assert [j.type for j in r.joints] == ["spin", "spin", "weld", "normal", "normal"]
    assert [l.joint_type for l in r.links] == ["revolute"] * 3 + ["prismatic", "revolute"]
    # no <axis>: x; fixed: z; axes kept as written (not normalised); zero axis: z
    np.testing.assert_array_equal([l.axis for l in r.links],
                                  [[1, 0, 0], [1, 0, 0], [0, 0, 1], [0, 2, 0], [0, 0, 1]])
    np.testing.assert_array_equal(r.qmin, [-np.inf, -np.inf, 0, -1, 0])
    np.testing.assert_array_equal(r.qmax, [np.inf, np.inf, 0, 2, 0])   # lower/upper default 0
    np.testing.assert_array_equal(r.vmax, [6, np.inf, 0, 4, 2])
    np.testing.assert_array_equal(r.vmin, [-6, -np.inf, 0, -4, -2])
    np.testing.assert_array_equal(r.tmax, [5, np.inf, np.inf, 3, 1])
    np.testing.assert_array_equal(r.amax, [10, 10, 0, 10, 10])
    assert [d.name for d in r.drivers] == ["a", "b", "d", "e"]


def test_origin_rpy(tmp_path):
    r = load(tmp_path, '<link name="world"/><link name="a"/>' +
             joint("j", "world", "a", "fixed", '<origin xyz="0.5 0 0" rpy="0 0 1.5707963267948966"/>'))
    np.testing.assert_allclose(r.links[0].parent_transform,
                               [[0, -1, 0, 0.5], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], atol=1e-15)


def test_planar_joints_are_rejected(tmp_path):
    with pytest.raises(FormatError, match="is planar") as e:
        load(tmp_path, '<link name="world"/><link name="a"/>\n' + joint("j", "world", "a", "planar", ""))
    assert e.value.line == 4


# -- mass properties ----------------------------------------------------------------------
def test_inertia_is_rotated_as_klampt_does(tmp_path):
    # rpy (pi/2, 0, pi/2): R = Rz(90) Rx(90) = [[0,0,1],[1,0,0],[0,1,0]]; with I = diag(1,2,3)
    # Klamp't stores R^T I R = diag(2, 3, 1) (the physical R I R^T would be diag(3, 1, 2))
    r = load(tmp_path, '<link name="a"><inertial><origin xyz="1 2 3" rpy="1.5707963267948966 0 1.5707963267948966"/>'
                       '<mass value="4"/><inertia ixx="1" ixy="0" ixz="0" iyy="2" iyz="0" izz="3"/></inertial></link>')
    l = r.links[5]
    assert l.mass == 4
    np.testing.assert_array_equal(l.com, [1, 2, 3])
    np.testing.assert_allclose(l.inertia, np.diag([2.0, 3.0, 1.0]), atol=1e-15)


def test_default_mass_and_inertia(tmp_path):
    r = load(tmp_path, '<link name="a"/>')
    assert r.links[5].mass == 0.0001
    np.testing.assert_array_equal(r.links[5].inertia, np.eye(3) * 1e-8)
    r = load(tmp_path, '<link name="a"/><klampt default_mass="2" default_inertia="1 2 3"/>')
    assert r.links[5].mass == 2
    # the 3-number quirk: third value at row 2, column 1; (2, 2) stays 1
    np.testing.assert_array_equal(r.links[5].inertia, [[1, 0, 0], [0, 2, 0], [0, 3, 1]])
    r = load(tmp_path, '<link name="a"/><klampt default_inertia="5"/>')
    np.testing.assert_array_equal(r.links[5].inertia, np.eye(3) * 5)
    r = load(tmp_path, '<link name="a"/><klampt default_inertia="1 2 3 4 5 6 7 8 9"/>')
    np.testing.assert_array_equal(r.links[5].inertia, [[1, 2, 3], [4, 5, 6], [7, 8, 9]])


def test_physical_0_zeroes_mass(tmp_path):
    r = load(tmp_path, '<link name="a"><inertial><mass value="4"/><inertia ixx="1" ixy="0" ixz="0" '
                       'iyy="2" iyz="0" izz="3"/></inertial></link><klampt><link name="a" physical="0"/></klampt>')
    assert r.links[5].mass == 0 and not np.any(r.links[5].inertia)


# -- drivers and mimic --------------------------------------------------------------------
def test_driver_defaults_and_klampt_overrides(tmp_path):
    r = load(tmp_path, '<link name="world"/><link name="a"/><link name="b"/>' +
             joint("j1", "world", "a", extra=LIM + '<dynamics damping="0.5" friction="0.25"/>') +
             joint("j2", "a", "b") +
             '<klampt default_acc_max="7"><link name="b" servoP="1" servoI="2" servoD="3" accMax="2" '
             'dryFriction="0.1" viscousFriction="0.2"/></klampt>')
    a, b = r.drivers
    assert (a.servo_p, a.servo_i, a.servo_d, a.dry_friction, a.viscous_friction) == (100, 0, 10, 0.25, 0.5)
    assert (b.servo_p, b.servo_i, b.servo_d, b.dry_friction, b.viscous_friction) == (1, 2, 3, 0.1, 0.2)
    assert (a.qmin, a.qmax, a.vmin, a.vmax, a.tmin, a.tmax, a.amin, a.amax) == (-1, 2, -4, 4, -3, 3, -7, 7)
    assert (b.amin, b.amax) == (-2, 2)


def test_mimic_makes_an_affine_driver(tmp_path):
    # klampt.md §4.8: prismatic a_joint in [0, 1] mimicked by c_joint (m=2, o=0.5)
    lim = '<limit effort="3" velocity="4" lower="0" upper="1"/>'
    r = load(tmp_path, '<link name="world"/><link name="a"/><link name="c"/>' +
             joint("a_joint", "world", "a", "prismatic", lim) +
             joint("c_joint", "a", "c", "prismatic", lim + '<mimic joint="a_joint" multiplier="2" offset="0.5"/>'))
    (d,) = r.drivers
    assert (d.name, d.type, d.dofs, d.scale, d.offset) == ("a", "affine", [0, 1], [1, 2], [0, 0.5])
    # limits: intersection of [0, 1]/1 and [0, 1]/2 (offsets ignored); torque 3/2; acc 10/2
    assert (d.qmin, d.qmax, d.tmin, d.tmax, d.amin, d.amax) == (0, 0.5, -1.5, 1.5, -5, 5)
    np.testing.assert_array_equal(r.config_from_drivers([0.25]), [0.25, 1.0])


def test_mimic_of_a_mimic_is_collapsed(tmp_path):
    r = load(tmp_path, '<link name="world"/><link name="a"/><link name="b"/><link name="c"/>' +
             joint("j1", "world", "a") +
             joint("j2", "a", "b", extra=LIM + '<mimic joint="j1" multiplier="-2" offset="0.5"/>') +
             joint("j3", "b", "c", extra=LIM + '<mimic joint="j2" multiplier="3" offset="0.25"/>'))
    (d,) = r.drivers
    # q_c = 0.25 + 3 (0.5 - 2 u) = 1.75 - 6 u
    assert (d.dofs, d.scale, d.offset) == ([0, 1, 2], [1, -2, -6], [0, 0.5, 1.75])
    # velocity: Klamp't's [max v/|s|, min v/|s|] = [4, 4/6]
    assert (d.vmin, d.vmax) == (4, 4 / 6)


def test_mimic_of_a_later_joint_is_ignored_as_in_klampt(tmp_path):
    r = load(tmp_path, '<link name="world"/><link name="a"/><link name="b"/>' +
             joint("j1", "world", "a", extra=LIM + '<mimic joint="j2"/>') + joint("j2", "a", "b"))
    assert [(d.name, d.type) for d in r.drivers] == [("a", "normal"), ("b", "normal")]
    assert any("j2" in w and "ignored" in w for w in r.warnings)


# -- geometry -----------------------------------------------------------------------------
def test_primitives(tmp_path):
    r = load(tmp_path, '<link name="a"><collision><origin xyz="1 0 0"/><geometry><box size="1 2 3"/></geometry></collision></link>'
                       '<link name="b"><collision><geometry><cylinder radius="0.5" length="2"/></geometry></collision></link>'
                       '<link name="c"><collision><geometry><sphere radius="0.25"/></geometry></collision></link>'
                       + joint("j1", "a", "b", "fixed", "") + joint("j2", "a", "c", "fixed", ""))
    box, cyl, sph = (r.links[i].geometry for i in (5, 6, 7))
    assert box.primitive == "AABB"
    np.testing.assert_array_equal(box.params["bmin"], [-0.5, -1, -1.5])
    np.testing.assert_array_equal(box.params["bmax"], [0.5, 1, 1.5])
    np.testing.assert_array_equal(box.transform[:3, 3], [1, 0, 0])
    assert cyl.primitive == "Cylinder" and (cyl.params["radius"], cyl.params["height"]) == (0.5, 2)
    np.testing.assert_array_equal(cyl.params["center"], [0, 0, -1])
    np.testing.assert_array_equal(cyl.params["axis"], [0, 0, 1])
    assert sph.primitive == "Sphere" and sph.params["radius"] == 0.25


def test_mesh_scale_origin_and_flip_yz(tmp_path):
    (tmp_path / "m.off").write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    body = ('<link name="a"><collision><origin xyz="1 2 3"/><geometry><mesh filename="m.off" scale="2 3 4"/>'
            '</geometry></collision></link>')
    g = load(tmp_path, body).links[5].geometry
    assert not g.is_loaded                                         # lazy
    np.testing.assert_array_equal(g.transform, [[2, 0, 0, 1], [0, 3, 0, 2], [0, 0, 4, 3], [0, 0, 0, 1]])
    assert g.source.reference == "m.off" and g.source.path == str(tmp_path / "m.off")
    g = load(tmp_path, body + '<klampt flip_yz="1"/>').links[5].geometry
    # p' = T S F p with F (x, y, z) -> (x, -z, y)
    np.testing.assert_array_equal(g.transform, [[2, 0, 0, 1], [0, 0, -3, 2], [0, 4, 0, 3], [0, 0, 0, 1]])


def test_package_uri_and_missing_mesh(tmp_path):
    pkg = tmp_path / "share" / "mypkg" / "meshes"
    pkg.mkdir(parents=True)
    (pkg / "m.off").write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    body = '<link name="a"><collision><geometry><mesh filename="package://mypkg/meshes/m.off"/></geometry></collision></link>'
    r = load(tmp_path, body + '<klampt package_root="share"/>')
    assert r.links[5].geometry.source.path == str(pkg / "m.off")
    r = load(tmp_path, body.replace("mypkg/meshes/m.off", "mypkg/nothere.off") + '<klampt package_root="share"/>')
    g = r.links[5].geometry
    assert g.missing and g.source.reference == "package://mypkg/nothere.off"
    assert any(str(tmp_path / "share" / "mypkg" / "nothere.off") in w for w in r.warnings)
    with pytest.raises(FormatError, match="not found"):
        load(tmp_path, body.replace("m.off", "nothere.off"), strict=True)


def test_use_vis_geom_and_colours(tmp_path):
    body = ('<material name="red"><color rgba="1 0 0 1"/></material>'
            '<link name="a"><visual><geometry><sphere radius="1"/></geometry><material name="red"/></visual>'
            '<collision><geometry><box size="1 1 1"/></geometry></collision></link>'
            '<link name="b"><visual><geometry><sphere radius="1"/></geometry><material name="blue"/></visual></link>'
            '<link name="c"><visual><geometry><sphere radius="1"/></geometry>'
            '<material name=""><color rgba="0 1 0 0.5"/></material></visual></link>'
            + joint("j1", "a", "b", "fixed", "") + joint("j2", "a", "c", "fixed", ""))
    r = load(tmp_path, body)
    a, b, c = r.links[5:]
    assert a.geometry.primitive == "AABB" and a.appearance.color == (1, 0, 0, 1)   # colour of the visual
    assert b.geometry is None and c.geometry is None
    r = load(tmp_path, body + '<klampt use_vis_geom="1"/>')
    a, b, c = r.links[5:]
    assert a.geometry.primitive == "Sphere"
    assert b.appearance.color == (0, 0, 0, 1)        # undefined material: Klamp't shows black
    assert c.appearance.color == (0, 1, 0, 0.5)


# -- self-collision, <klampt> children, mounts ----------------------------------------------
def _geo(n):
    return f'<link name="{n}"><collision><geometry><sphere radius="1"/></geometry></collision></link>'


def test_default_and_listed_self_collision_pairs(tmp_path):
    # world -> a -> b -> c, a -> d; every link but world has geometry
    body = ('<link name="world"/>' + "".join(_geo(n) for n in "abcd") + joint("j1", "world", "a") +
            joint("j2", "a", "b") + joint("j3", "b", "c") + joint("j4", "a", "d"))
    r = load(tmp_path, body)
    assert r.link_names == ["a", "b", "c", "d"]
    # all pairs but the direct parent/child ones (a,b), (b,c), (a,d)
    assert r.self_collision_pairs == {(0, 2), (1, 3), (2, 3)}
    r = load(tmp_path, body + '<klampt><noselfcollision pairs="c a 3 2 b b"/></klampt>')
    assert r.self_collision_pairs == {(1, 3)}
    r = load(tmp_path, body + '<klampt><noselfcollision group1="a b" group2="c d"/></klampt>')
    assert r.self_collision_pairs == {(2, 3)}
    r = load(tmp_path, body + '<klampt><selfcollision pairs="a b"/></klampt>')
    assert r.self_collision_pairs == {(0, 1)}


def test_sensors_and_controller_properties(tmp_path):
    (tmp_path / "s.xml").write_text("<sensors><A/></sensors>")
    r = load(tmp_path, '<link name="a"/><klampt sensors="s.xml"><controller type="x"/></klampt>')
    assert r.properties == {"sensors": "<sensors><A/></sensors>", "controller": '<controller type="x"/>'}


def test_mount_of_a_rob_file(tmp_path):
    (tmp_path / "sub.rob").write_text(
        "links s0 s1\nparents -1 0\naxis 0 0 1 1 0 0\n"
        "Tparent 1 0 0 0 1 0 0 0 1 0 0 0.5  1 0 0 0 1 0 0 0 1 0 0 1\nqmin -1 -1\nqmax 1 1\n"
        'geometry "{Primitive Sphere 0 0 0 0.1}" "{Primitive Sphere 0 0 0 0.1}"\n')
    r = load(tmp_path, '<link name="world"/>' + _geo("a") + _geo("b") + joint("j1", "world", "a") +
             joint("j2", "a", "b") + '<klampt><mount link="b" file="sub.rob" transform="0 -1 0 1 0 0 0 0 1 1 2 3" '
             'prefix="p" as="q"/><noselfcollision pairs="a q:s1"/></klampt>')
    assert r.link_names == ["a", "b", "q:s0", "q:s1"]
    assert list(r.parents) == [-1, 0, 1, 2]
    # sub-root frame: T (rotation rows [0 -1 0], [1 0 0], [0 0 1], translation 1 2 3) times its Tparent
    np.testing.assert_allclose(r.links[2].parent_transform,
                               [[0, -1, 0, 1], [1, 0, 0, 2], [0, 0, 1, 3.5], [0, 0, 0, 1]], atol=1e-15)
    assert [d.name for d in r.drivers] == ["a", "b", "q:s0", "q:s1"]
    # new links pair with all earlier ones (a, b) except the sub-root with its mount link b:
    # (a, q:s0), (a, q:s1), (b, q:s1); then (a, q:s1) is removed after the mount
    assert r.self_collision_pairs == {(0, 2), (1, 3)}


# -- bad input ------------------------------------------------------------------------------
BAD = [
    ("missing effort", '<link name="world"/><link name="a"/>\n<joint name="j" type="revolute"><parent link="world"/>'
     '<child link="a"/><limit velocity="1"/></joint>', 4, "'effort'"),
    ("joint to a missing link", '<link name="world"/>\n' + joint("j", "world", "nope"), 4, "'nope'"),
    ("two roots", '<link name="a"/>\n<link name="b"/>', 4, "several root links"),
    ("link with two parents", '<link name="a"/><link name="b"/><link name="c"/>\n' + joint("j1", "a", "c") +
     "\n" + joint("j2", "b", "c"), 5, "two parent joints"),
    ("cycle", '<link name="world"/><link name="a"/>\n<link name="b"/><link name="c"/>\n' + joint("j0", "world", "a") +
     joint("j1", "b", "c") + joint("j2", "c", "b"), 4, "not connected"),
    ("non-numeric xyz", '<link name="world"/><link name="a"/>\n<joint name="j" type="fixed"><parent link="world"/>'
     '<child link="a"/>\n<origin xyz="1 a 2"/></joint>', 5, "'a' is not a number"),
    ("inf is not a URDF number", '<link name="world"/><link name="a"/>\n' +
     joint("j", "world", "a", extra='<limit effort="inf" velocity="1"/>'), 4, "'inf' is not a number"),
    ("wrong count", '<link name="world"/><link name="a"/>\n' + joint("j", "world", "a", "fixed", '<origin xyz="1 2"/>'),
     4, "expected 3 numbers"),
    ("bad joint type", '<link name="world"/><link name="a"/>\n' + joint("j", "world", "a", "hinge", ""), 4, "'hinge'"),
    ("revolute without limit", '<link name="world"/><link name="a"/>\n' + joint("j", "world", "a", "revolute", ""),
     4, "needs a <limit"),
    ("duplicate link", '<link name="a"/>\n<link name="a"/>', 4, "defined twice"),
    ("box without size", '<link name="a"><collision>\n<geometry><box/></geometry></collision></link>', 4, "'size'"),
    ("unknown shape", '<link name="a"><collision>\n<geometry><cone/></geometry></collision></link>', 4, "cone"),
    ("mount without file", '<link name="a"/><klampt>\n<mount link="a"/></klampt>', 4, "'file'"),
]


@pytest.mark.parametrize("what,body,line,text", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_a_located_format_error(tmp_path, what, body, line, text):
    with pytest.raises(FormatError) as e:
        load(tmp_path, body)
    assert e.value.line == line and text in e.value.message, str(e.value)
    assert str(e.value).startswith(f"{tmp_path / 'robot.urdf'}:{line}:")


def test_robot_without_name_and_not_xml(tmp_path):
    with pytest.raises(FormatError, match="without a 'name'"):
        load(tmp_path, '<link name="a"/>', robot_attrs="")
    p = tmp_path / "x.urdf"
    p.write_text("<robot name='x'><link name='a'></robot")
    with pytest.raises(FormatError):
        roboio.load(p, strict=True)


def test_recovers_from_an_unclosed_klampt_element_like_klampt(tmp_path):
    # Klamp't-examples human_hand.urdf: <klampt ...> closed by <klampt/>
    r = load(tmp_path, '<link name="a"/><klampt default_mass="3">\n<klampt/>')
    assert r.links[5].mass == 3
    assert any("malformed XML" in w for w in r.warnings)


def test_sniff():
    assert sniff(b'<?xml version="1.0"?>\n<!-- <world> -->\n<robot name="x">', "x.urdf")
    assert not sniff(b'<robot type="Hand"><palm>x.xml</palm>', "x.xml")
    assert not sniff(b"<world><robot/></world>", "x.xml")
    assert not sniff(b"links a b\n", "x.rob")


def test_geometry_mount_joins_the_link_geometry(tmp_path):
    (tmp_path / "m.off").write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    r = load(tmp_path, _geo("a") + '<link name="b"/>' + joint("j", "a", "b") +
             '<klampt><mount link="a" file="m.off" transform="1 0 0 0 1 0 0 0 1 0 0 2"/>'
             '<mount link="b" file="m.off"/></klampt>')
    a, b = r.links[5].geometry, r.links[6].geometry
    assert a.kind == "Group" and [c.kind for c in a.children] == ["Primitive", "TriangleMesh"]
    np.testing.assert_array_equal(a.children[1].transform[:3, 3], [0, 0, 2])
    assert b.kind == "TriangleMesh"
    # b got geometry from the mount, so the pair (a, b) is excluded only as parent/child
    assert r.self_collision_pairs == set()


def test_package_uri_without_package_root(tmp_path):
    d = tmp_path / "mypkg" / "urdf"
    d.mkdir(parents=True)
    (tmp_path / "mypkg" / "meshes").mkdir()
    (tmp_path / "mypkg" / "meshes" / "m.off").write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    body = '<link name="a"><collision><geometry><mesh filename="package://mypkg/meshes/m.off"/></geometry></collision></link>'
    (d / "r.urdf").write_text(f'<robot name="r">{body}</robot>')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        r = roboio.load(d / "r.urdf")
    # Klamp't would look for /mypkg/meshes/m.off; roboio finds the package above the URDF and says so
    assert r.links[5].geometry.source.path == str(tmp_path / "mypkg" / "meshes" / "m.off")
    assert any("package_root" in w for w in r.warnings)
    with pytest.raises(FormatError, match="package_root"):
        roboio.load(d / "r.urdf", strict=True)


XACRO_NS = 'xmlns:xacro="http://www.ros.org/wiki/xacro"'


@pytest.mark.parametrize("name, text, xacro", [
    # NEXTAGE's nxo_gz.xacro: an include and gazebo tags, no link
    ("a.xacro", f'<robot name="r" {XACRO_NS}><xacro:include filename="$(find p)/r.urdf"/></robot>', True),
    ("b.urdf", f'<robot {XACRO_NS}><xacro:macro name="m"/><link name="a"/></robot>', True),
    ("c.urdf.xacro", '<robot><material name="Black"/></robot>', True),   # materials.urdf.xacro
    # example-robot-data's ur3.urdf: expanded by xacro (its namespace kept), no robot name
    ("ur3.urdf", f'<robot {XACRO_NS}><link name="a"/></robot>', False),
])
def test_a_xacro_source_is_refused_with_what_to_do(tmp_path, name, text, xacro):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(FormatError) as e:
        roboio.load(str(p), format="urdf")
    assert ("expand it first, `xacro FILE > robot.urdf`" in str(e.value)) == xacro


SRDF = b"""<?xml version="1.0" ?>
<robot name="falcon">
    <group name="arm"><chain base_link="base" tip_link="tool"/></group>
    <group name="links"><link name="base"/></group>
    <disable_collisions link1="base" link2="tool" reason="Adjacent"/>
</robot>
"""


def test_an_srdf_is_not_read_as_a_urdf(tmp_path):
    """example-robot-data ships MoveIt's semantic descriptions (.srdf, a <robot> root) beside
    its URDFs: roboio batch validate/convert failed them as robots without links."""
    assert not sniff(SRDF, "falcon.srdf")
    assert not sniff(b'<robot name="r"><virtual_joint name="w" type="floating"/></robot>', "r.srdf")
    assert sniff(b'<robot name="r"><link name="a"/><gazebo reference="a"/></robot>', "r.xml")
    p = tmp_path / "falcon.srdf"
    p.write_bytes(SRDF)
    from roboio.errors import UnknownFileType
    with pytest.raises(UnknownFileType) as e:
        roboio.load(str(p))
    assert "no reader recognises its content" in str(e.value)


def test_a_material_used_but_never_defined_is_black_and_not_an_error(tmp_path):
    """example-robot-data talos_reduced_corrected.urdf: <material name="FlatBlack"/> with no
    top-level definition. urdfdom keeps the name-only material (opaque black, its colour's
    default; pinocchio and yourdfpy load the file); only releases before 2013 refused it."""
    from roboio.cli.main import main
    from roboio.errors import severity_of
    p = tmp_path / "r.urdf"
    p.write_text('<robot name="r"><link name="a"><visual><geometry><box size="1 1 1"/></geometry>'
                 '<material name="FlatBlack"/></visual></link></robot>')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = roboio.load(str(p))
    bad = [w for w in r.warnings if "FlatBlack" in w]
    assert len(bad) == 1 and severity_of(bad[0]) == "warning"
    assert tuple(r.links[-1].appearance.color) == (0.0, 0.0, 0.0, 1.0)
    assert main(["validate", str(p)]) == 0
