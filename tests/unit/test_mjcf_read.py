"""The MJCF reader on small hand-written files: what becomes a Robot or a World, the link
chain of a body, drivers from joints, actuators and couplings, self-collision pairs, qpos
conversion, and located errors for what MuJoCo refuses. Expected values are worked out by
hand in each test (MuJoCo itself is the reference in tests/reference/test_mjcf_read_mujoco.py)."""
import math
import warnings

import numpy as np
import pytest

import roboio
from roboio.errors import FormatError
from roboio.model import Robot, World


def read(tmp_path, text, name="m.xml", **kw):
    p = tmp_path / name
    p.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(str(p), **kw)


def test_sniffed_by_root_element(tmp_path):
    r = read(tmp_path, '<mujoco><worldbody><body name="b"><joint/><geom size="1"/></body></worldbody></mujoco>',
             name="model.xml")
    assert isinstance(r, Robot)
    assert r.link_names == ["b"]
    assert roboio.formats.__call__ is not None
    info = {f.name: f for f in roboio.formats()}["mjcf"]
    assert info.can_read and info.can_write


def test_degrees_by_default_and_radians_when_asked(tmp_path):
    body = '<worldbody><body name="b" euler="0 0 90"><joint range="-45 45" ref="30"/><geom size="1"/></body></worldbody>'
    deg = read(tmp_path, f"<mujoco>{body}</mujoco>")
    rad = read(tmp_path, f'<mujoco><compiler angle="radian"/>{body}</mujoco>', name="r.xml")
    assert deg.qmin[0] == pytest.approx(-math.pi / 4, abs=1e-15)
    assert deg.config[0] == pytest.approx(math.pi / 6, abs=1e-15)       # qpos0 = ref
    assert rad.qmax[0] == pytest.approx(45.0)
    # at q = ref the body is where the file puts it: rotated 90 degrees about z
    T = deg.fk(deg.config)[0]
    assert np.allclose(T[:3, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)


def test_several_joints_make_a_chain_with_anchor(tmp_path):
    r = read(tmp_path, """<mujoco><worldbody><body name="b" pos="1 0 0">
      <joint name="h" axis="0 0 1" pos="0.5 0 0"/><joint name="s" type="slide" axis="0 1 0"/>
      <geom size="0.1"/></body></worldbody></mujoco>""")
    assert r.link_names == ["h", "b"]
    assert [l.joint_name for l in r.links] == ["h", "s"]
    assert [j.type for j in r.joints] == ["spin", "normal"]      # unlimited hinge, slide
    # hinge about the anchor (1.5, 0, 0), then slide along y: hand-worked pose
    q = np.array([math.pi / 2, 0.25])
    T = r.fk(q)[1]
    assert np.allclose(T[:3, 3], [1.5 - 0.25, -0.5, 0.0], atol=1e-15)
    assert np.allclose(T[:3, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)


def test_joint_anchor_on_the_last_joint_adds_a_welded_body_link(tmp_path):
    r = read(tmp_path, """<mujoco><worldbody><body name="b">
      <joint name="j" pos="0 0 1" axis="1 0 0"/><geom size="0.1"/></body></worldbody></mujoco>""")
    assert r.link_names == ["j", "b"]
    assert [j.type for j in r.joints] == ["spin", "weld"]
    assert r.links[1].mass > 0 and r.links[0].mass == 0
    T = r.fk([math.pi, 0.0])[1]                 # half a turn about x through (0, 0, 1)
    assert np.allclose(T[:3, 3], [0, 0, 2], atol=1e-15)


def test_friction_of_ball_and_free_joints_is_said_to_be_dropped(tmp_path):
    """A one-DOF joint's damping is its driver's; a ball's (or free joint's) has nowhere to
    go: one warning per joint, not one per link, and nothing silently."""
    r = read(tmp_path, """<mujoco><worldbody><body name="a" pos="0 0 1">
      <joint name="root" type="free" damping="0.2"/><geom size="0.1"/>
      <body name="b"><joint name="hip" type="ball" damping="0.5" frictionloss="0.1"/><geom size="0.1"/>
      <body name="c"><joint name="knee" damping="0.3"/><geom size="0.1"/></body></body>
      </body></worldbody></mujoco>""")
    said = [str(w) for w in r.warnings if "not read" in str(w)]
    assert len(said) == 2 and any("ball joint 'hip'" in m for m in said) and any("free joint 'root'" in m for m in said)
    knee = r.driver("knee")
    assert knee.viscous_friction == pytest.approx(0.3)


def test_ball_and_free_joints_and_qpos(tmp_path):
    r = read(tmp_path, """<mujoco><worldbody><body name="torso" pos="1 2 3"><freejoint name="root"/><geom size="0.1"/>
      <body name="head" pos="0 0 1"><joint name="neck" type="ball"/><geom size="0.1"/></body>
      </body></worldbody></mujoco>""")
    assert r.link_names == ["base0", "base1", "base2", "base3", "base4", "torso", "neck_rz", "neck_ry", "head"]
    assert [j.type for j in r.joints] == ["floating", "ballandsocket"]
    assert np.allclose(r.config[:6], [1, 2, 3, 0, 0, 0])
    assert all(l.joint_name == "root" for l in r.links[:6])
    # 90 degrees about z for the free joint, 90 degrees about x for the ball
    s = math.sqrt(0.5)
    qpos = [0.5, 0.0, 1.0, s, 0, 0, s, s, s, 0, 0]
    q = r.config_from_qpos(qpos)
    assert np.allclose(q, [0.5, 0, 1, math.pi / 2, 0, 0, 0, 0, math.pi / 2], atol=1e-15)
    assert np.allclose(r.qpos_from_config(q), qpos, atol=1e-15)
    T = r.fk(q)
    assert np.allclose(T[8][:3, 3], [0.5, 0, 2], atol=1e-15)
    assert np.allclose(T[8][:3, :3], [[0, 0, 1], [1, 0, 0], [0, 1, 0]], atol=1e-15)
    with pytest.raises(ValueError):
        r.config_from_qpos([0.0] * 10)


def test_world_of_robots_objects_and_terrains(tmp_path):
    w = read(tmp_path, """<mujoco model="scene"><worldbody>
      <geom name="floor" type="plane" size="2 2 0.1"/>
      <body name="table" pos="1 0 0"><geom type="box" size="0.5 0.5 0.02"/></body>
      <body name="cup" pos="1 0 0.1"><freejoint/><geom type="cylinder" size="0.03 0.05"/></body>
      <body name="arm1"><joint/><geom size="0.1"/></body>
      <body name="arm2" pos="0 1 0"><joint/><geom size="0.1"/></body>
    </worldbody></mujoco>""")
    assert isinstance(w, World)
    assert [t.name for t in w.terrains] == ["floor", "table"]
    assert [o.name for o in w.rigid_objects] == ["cup"]
    assert [r.name for r in w.robots] == ["arm1", "arm2"]
    cup = w.rigid_objects[0]
    assert np.allclose(cup.transform[:3, 3], [1, 0, 0.1])
    assert cup.mass == pytest.approx(1000 * math.pi * 0.03 ** 2 * 0.1)
    # the table's box, in the frame of its body, whose pose is the terrain's
    table = w.terrains[1]
    assert np.allclose(table.transform, [[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], atol=1e-15)
    lo, hi = table.geometry.bounds()
    assert np.allclose(lo, [-0.5, -0.5, -0.02]) and np.allclose(hi, [0.5, 0.5, 0.02])


def test_roboio_written_file_is_one_robot(tmp_path):
    """A robot with two roots written by roboio reads back as one robot, not a world."""
    src = read(tmp_path, """<mujoco><worldbody><body name="a"><joint/><geom size="0.1"/></body>
      <body name="b" pos="1 0 0"><joint/><geom size="0.1"/></body></worldbody></mujoco>""")
    assert isinstance(src, World) and len(src.robots) == 2
    r = src.robots[0]
    r2 = src.robots[1]
    both = Robot("two")
    both.set_links([r.links[0], r2.links[0]])
    both.joints = r.joints + [type(j)(j.type, [1]) for j in r2.joints]
    out = tmp_path / "two.xml"
    roboio.save(both, str(out), format="mjcf")
    back = read(tmp_path, out.read_text(), name="two_back.xml")
    assert isinstance(back, Robot) and back.link_names == ["a", "b"]


def test_drivers_actuators_and_linear_coupling(tmp_path):
    r = read(tmp_path, """<mujoco><compiler angle="radian"/><worldbody>
      <body name="a"><joint name="ja" range="-1 1"/><geom size="0.1"/>
        <body name="b" pos="1 0 0"><joint name="jb" ref="0.5"/><geom size="0.1"/></body></body>
    </worldbody>
    <equality><joint joint1="jb" joint2="ja" polycoef="0.1 2 0 0 0"/></equality>
    <actuator><motor name="m" joint="ja" gear="10" ctrlrange="-2 3"/><position name="p" joint="ja" kp="50"/></actuator>
    </mujoco>""")
    assert len(r.drivers) == 1
    d = r.drivers[0]
    assert d.name == "ja" and d.type == "affine" and d.dofs == [0, 1]
    # jb - 0.5 = 0.1 + 2 (ja - 0): jb = 0.6 + 2 ja
    assert d.scale == [1.0, 2.0] and d.offset == pytest.approx([0.0, 0.6])
    assert (d.tmin, d.tmax) == (-20.0, 30.0)
    assert d.servo_p == 50.0
    assert [a["name"] for a in d.extras["mjcf"]["actuators"]] == ["m", "p"]
    q = r.config_from_drivers([0.25])
    assert np.allclose(q, [0.25, 1.1])


def test_polynomial_coupling_is_a_nonlinear_driver(tmp_path):
    """MuJoCo: jb - ref_b = a0 + a1 (ja - ref_a) + a2 (ja - ref_a)^2; link values are qpos."""
    r = read(tmp_path, """<mujoco><compiler angle="radian"/><worldbody>
        <body name="a"><joint name="ja" ref="0.2"/><geom size="0.1"/>
        <body name="b" pos="1 0 0"><joint name="jb" ref="-0.1"/><geom size="0.1"/></body></body></worldbody>
      <equality><joint joint1="jb" joint2="ja" polycoef="0.05 1 0.5 0 0"/></equality></mujoco>""")
    assert [d.name for d in r.drivers] == ["ja"]
    d = r.drivers[0]
    assert d.type == "nonlinear" and d.dofs == [0, 1] and d.leader == 0
    for ja in (-0.7, 0.2, 1.3):
        x = ja - 0.2
        q = r.config_from_drivers([ja])
        assert q == pytest.approx([ja, -0.1 + 0.05 + x + 0.5 * x * x], abs=1e-15)
        assert r.drivers_from_config(q) == pytest.approx([ja])


def test_a_coupling_to_a_coupled_joint_that_leads_others_is_kept(tmp_path):
    p = tmp_path / "m.xml"
    p.write_text("""<mujoco><worldbody><body name="a"><joint name="ja"/><geom size="0.1"/>
        <body name="b" pos="1 0 0"><joint name="jb"/><geom size="0.1"/>
        <body name="c" pos="1 0 0"><joint name="jc"/><geom size="0.1"/></body></body></body></worldbody>
      <equality><joint joint1="jc" joint2="jb" polycoef="0 2 0 0 0"/>
                <joint joint1="jb" joint2="ja" polycoef="0 1 0.5 0 0"/></equality></mujoco>""")
    with pytest.warns(roboio.RoboioWarning, match="not composed"):
        r = roboio.load(str(p))
    assert [d.name for d in r.drivers] == ["ja", "jb"]
    assert r.drivers[1].extras["mjcf"]["polycoef"]["coef"] == [0.0, 1.0, 0.5, 0.0, 0.0]


def test_self_collision_pairs_follow_mujoco_filters(tmp_path):
    r = read(tmp_path, """<mujoco><worldbody>
      <body name="base"><geom size="0.1"/>
        <body name="l1"><joint/><geom size="0.1"/>
          <body name="l2"><joint/><geom size="0.1"/>
            <body name="l3"><joint/><geom size="0.1"/>
              <body name="l4"><joint/><geom size="0.1" contype="2" conaffinity="2"/></body></body></body></body>
        <body name="ghost"><joint/><geom size="0.1" contype="0" conaffinity="0"/></body>
      </body></worldbody>
      <contact><exclude body1="base" body2="l3"/></contact></mujoco>""")
    idx = {n: i for i, n in enumerate(r.link_names)}
    pairs = {(r.link_names[a], r.link_names[b]) for a, b in r.self_collision_pairs}
    # parent/child filtered, except where one side is welded to the world (base-l1);
    # base-l3 excluded; l4 collides only with bit-2 geoms (none); the ghost with nothing
    assert pairs == {("base", "l1"), ("base", "l2"), ("l1", "l3")}
    assert idx["ghost"] not in {i for p in r.self_collision_pairs for i in p}


def test_visual_and_collision_geometry(tmp_path):
    r = read(tmp_path, """<mujoco><worldbody><body name="b"><joint/>
      <geom type="box" size="0.1 0.1 0.1" group="3"/>
      <geom type="sphere" size="0.2" contype="0" conaffinity="0" group="2" rgba="1 0 0 1"/>
    </body></worldbody></mujoco>""")
    l = r.links[0]
    assert l.geometry.primitive == "Box"
    assert l.visual_geometry.primitive == "Sphere"
    assert l.appearance.color == (1.0, 0.0, 0.0, 1.0)


FUSED = """<mujoco><compiler fusestatic="{fuse}"/><worldbody>
  <geom name="floor" type="plane" size="1 1 0.1"/>
  <body name="stand" pos="0 0 1"><geom name="stand" size="0.1"/>
    <body name="arm"><joint/><geom name="arm" size="0.1"/>
      <body name="bracket" pos="1 0 0" euler="0 0 90"><geom name="bracket" pos="0.5 0 0" size="0.1"/><site name="s"/>
        <body name="hand" pos="0 1 0"><joint/><geom name="hand" size="0.1"/></body>
        <body name="tag" pos="0 0 1"><geom name="tag" size="0.1"/></body>
      </body>
    </body>
  </body></worldbody>
  <contact><exclude body1="tag" body2="hand"/></contact></mujoco>"""


def _names(geo):
    kids = getattr(geo, "children", None)
    return [n for c in kids for n in _names(c)] if kids is not None else [geo.extras["mjcf"]["name"]]


def test_fusestatic_moves_static_bodies_into_their_parents(tmp_path):
    kept = read(tmp_path, FUSED.format(fuse="false"), name="kept.xml")
    w = read(tmp_path, FUSED.format(fuse="true"))
    # without fusestatic every body is a link ("stand" roots the robot; the floor a terrain)
    assert kept.robots[0].link_names == ["stand", "arm", "bracket", "hand", "tag"]
    # fused: "stand" into the world (its geom a terrain, "arm" a top-level robot), "bracket"
    # into "arm" (its geom and site, poses composed; "hand" now a child of "arm");
    # "tag" is named by <exclude>, so it stays
    assert sorted(t.name for t in w.terrains) == ["floor", "stand"]
    r = w.robots[0]
    assert r.link_names == ["arm", "hand", "tag"]
    assert [r.links[i].parent for i in range(3)] == [-1, 0, 0]
    arm = r.links[0]
    assert _names(arm.geometry) == ["arm", "bracket"]
    Rz = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    T = arm.geometry.children[1].transform
    assert np.allclose(T[:3, 3], [1.0, 0.5, 0.0], atol=1e-12) and np.allclose(T[:3, :3], Rz, atol=1e-12)
    S = np.array(arm.extras["mjcf"]["sites"]["s"])
    assert np.allclose(S[:3, 3], [1.0, 0.0, 0.0], atol=1e-12) and np.allclose(S[:3, :3], Rz, atol=1e-12)
    hand, tag = r.links[1].parent_transform, r.links[2].parent_transform
    assert np.allclose(hand[:3, 3], 0.0, atol=1e-12) and np.allclose(hand[:3, :3], Rz, atol=1e-12)
    assert np.allclose(tag[:3, 3], [1.0, 0.0, 1.0], atol=1e-12)
    assert arm.mass == pytest.approx(2 * 4 / 3 * math.pi * 0.1 ** 3 * 1000)


@pytest.mark.parametrize("text, line, message", [
    ('<mujoco><worldbody>\n<body><joint class="nope"/></body></worldbody></mujoco>', 2, "unknown default class"),
    ('<mujoco><worldbody>\n<body quat="1 0 0 0" euler="0 0 1"/></worldbody></mujoco>', 2, "multiple orientation"),
    ('<mujoco><worldbody><body>\n<body><freejoint/></body></body></worldbody></mujoco>', 2, "top level"),
    ('<mujoco><compiler fusestatic="true"/><worldbody><body name="s">\n<body><freejoint/><geom size="1"/></body></body>'
     '</worldbody><sensor><framepos objtype="body" objname="s"/></sensor></mujoco>', 2, "top level"),
    ('<mujoco><worldbody><body>\n<joint range="1 x"/></body></worldbody></mujoco>', 2, "expected numbers"),
    ('<mujoco><compiler autolimits="false"/><worldbody><body>\n<joint range="0 1"/></body></worldbody></mujoco>',
     2, "autolimits"),
    ('<mujoco><worldbody><body>\n<joint type="ball" range="10 20"/></body></worldbody></mujoco>', 2, "ball"),
    ('<mujoco><worldbody><body>\n<geom type="sphere" fromto="0 0 0 1 0 0" size="1"/></body></worldbody></mujoco>',
     2, "fromto requires"),
    ('<mujoco><worldbody><body><joint/>\n<geom size="1"/><inertial pos="0 0 0" mass="1" diaginertia="1 1 3"/>'
     '</body></worldbody></mujoco>', 2, "A \\+ B >= C"),
    ('<mujoco>\n<include file="missing.xml"/></mujoco>', 2, "not found"),
    ('<mujoco><worldbody><body name="a"/>\n<body name="a"/></worldbody></mujoco>', 2, "repeated name"),
    ('<mujoco><worldbody><body>\n<geom type="mesh" mesh="m"/></body></worldbody></mujoco>', 2, "unknown mesh"),
    ('<mujoco><worldbody>\n<geom type="plane" size="1 1 0"/></worldbody></mujoco>', 2, "plane size\\(3\\) must be positive"),
])
def test_what_mujoco_refuses_is_a_located_error(tmp_path, text, line, message):
    p = tmp_path / "bad.xml"
    p.write_text(text)
    with pytest.raises(FormatError, match=message) as e:
        roboio.load(str(p))
    assert e.value.line == line and e.value.path == str(p)


def test_include_cycle_and_double_include(tmp_path):
    (tmp_path / "a.xml").write_text('<mujoco><include file="a.xml"/></mujoco>')
    (tmp_path / "m.xml").write_text('<mujoco><include file="a.xml"/></mujoco>')
    with pytest.raises(FormatError, match="more than once"):
        roboio.load(str(tmp_path / "m.xml"))


def test_what_mujoco_ignores_or_roboio_cannot_hold_is_warned(tmp_path):
    p = tmp_path / "m.xml"
    p.write_text("""<mujoco><worldbody><geom type="plane" size="0 0 1"/>
      <body name="b"><joint/><geom size="1"/><composite type="particle" count="2 2 2"/></body>
      </worldbody><equality><connect body1="b" anchor="0 0 0"/></equality></mujoco>""")
    with pytest.warns(roboio.RoboioWarning) as rec:
        w = roboio.load(str(p))
    text = " ".join(str(r.message) for r in rec)
    assert "infinite plane" in text and "<composite>" in text and "connect" in text
    assert w.robots[0].extras["mjcf"]["equality"][0]["type"] == "connect"
    with pytest.raises(FormatError):
        roboio.load(str(p), strict=True)


def test_plane_of_negative_half_sizes_is_infinite(tmp_path):
    """MuJoCo checks only a plane's third size (> 0); half sizes <= 0 make it infinite, as
    robohive's scene_sim floor size="-1 -1 .1" (refused as 'plane size must be
    non-negative' before). Read as the square of an infinite plane, written back as given."""
    text = """<mujoco><worldbody><geom name="floor" type="plane" size="-1 -1 .1"/>
      <body name="b"><joint/><geom size="0.1"/></body></worldbody></mujoco>"""
    (tmp_path / "m.xml").write_text(text)
    with pytest.warns(roboio.RoboioWarning, match="infinite plane"):
        w = roboio.load(str(tmp_path / "m.xml"))
    floor = w.terrains[0].geometry
    assert np.allclose(np.abs(np.asarray(floor.vertices)).max(axis=0), [50.0, 50.0, 0.0], rtol=0, atol=0)
    out = tmp_path / "out.xml"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roboio.save(w, str(out), "mjcf")
    assert '<geom type="plane" size="-1 -1 0.1" name="floor"/>' in out.read_text()
