"""Multi-axis joints written as such (issue 27): an OpenRAVE ``universal``/``hinge2`` joint or
a COLLADA ``<joint>`` with several axes, read as a chain of one-DOF links, is written back by
the COLLADA and OpenRAVE XML writers as **one** joint with its axes in order.

The written COLLADA is checked the way OpenRAVE's COLLADA reader takes it (spec collada.md
§8.1, §9.3, §9.4), with a small reader written here from the format: each ``<joint>`` is one
joint whose ``<revolute>``/``<prismatic>`` children are its DOFs in order, and a child link's
pose is ``T(parent) . T_att . M_0(q_0) ... M_n(q_n) . own``. Its poses are compared with
roboio's reading of the *source* file, so the expected values never come from the writer.
"""
import math

import numpy as np
import pytest
from lxml import etree

from collada_docs import robot_dae

import roboio
from roboio.cli.main import main
from roboio.verify import sample_configs

NS = {"c": "http://www.collada.org/2008/03/COLLADASchema"}

# Two multi-axis joints whose frames are not trivial: the hinge2 anchor is off the wheel
# body's origin, the universal's first axis is tilted, and the bodies are rotated.
CART_XML = """<?xml version="1.0" encoding="utf-8"?>
<Robot name="cart">
  <KinBody name="cart">
    <Body name="base" type="dynamic">
      <Geom type="box"><Extents>0.2 0.1 0.05</Extents></Geom>
      <mass type="custom"><total>2</total><inertia>0.008 0 0 0 0.03 0 0 0 0.033</inertia></mass>
    </Body>
    <Body name="wheel" type="dynamic">
      <Translation>0.3 0.1 0.02</Translation>
      <RotationAxis>0 0 1 30</RotationAxis>
      <Geom type="cylinder"><radius>0.05</radius><height>0.02</height></Geom>
      <mass type="custom"><total>0.2</total><inertia>1e-4 0 0 0 2e-4 0 0 0 1e-4</inertia></mass>
    </Body>
    <Joint name="steer" type="hinge2">
      <Body>base</Body><Body>wheel</Body>
      <anchor>0.3 0.1 0.05</anchor>
      <axis1>0 0 1</axis1>
      <axis2>0 1 0</axis2>
      <limitsdeg>-40 40 -180 180</limitsdeg>
    </Joint>
    <Body name="head" type="dynamic">
      <Translation>-0.1 0 0.4</Translation>
      <RotationAxis>1 0 0 20</RotationAxis>
      <Geom type="sphere"><radius>0.03</radius></Geom>
      <mass type="custom"><total>0.1</total><inertia>4e-5 0 0 0 4e-5 0 0 0 4e-5</inertia></mass>
    </Body>
    <Joint name="neck" type="universal">
      <Body>base</Body><Body>head</Body>
      <anchor>-0.1 0 0.3</anchor>
      <axis1>0.6 0 0.8</axis1>
      <axis2>1 0 0</axis2>
      <limitsdeg>-90 90 -45 30</limitsdeg>
    </Joint>
  </KinBody>
</Robot>
"""


# --- an OpenRAVE-style reading of a written COLLADA document (spec collada.md) --------------

def _rot(axis, angle):
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    T = np.eye(4)
    T[:3, :3] = np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K
    return T


def _transforms(el, scale):
    """The product of the transform children of ``el`` in document order (metres)."""
    T = np.eye(4)
    for c in el:
        tag = etree.QName(c).localname
        v = [float(x) for x in (c.text or "").split()]
        if tag == "matrix":
            M = np.array(v).reshape(4, 4)
            M[:3, 3] *= scale
            T = T @ M
        elif tag == "translate":
            M = np.eye(4)
            M[:3, 3] = np.array(v) * scale
            T = T @ M
        elif tag == "rotate":
            T = T @ _rot(v[:3], math.radians(v[3]))
    return T


class OpenraveView:
    """Joints (name, axes) and links (name, joint, parent) of a COLLADA robot, and their FK."""

    def __init__(self, path):
        doc = etree.parse(str(path))
        unit = doc.find(".//c:asset/c:unit", NS)
        self.scale = float(unit.get("meter", "1")) if unit is not None else 1.0
        km = doc.find(".//c:library_kinematics_models/c:kinematics_model", NS)
        tc = km.find("c:technique_common", NS)
        self.joints = {}
        for j in tc.findall("c:joint", NS):
            axes = []
            for ax in j:
                kind = etree.QName(ax).localname
                if kind not in ("revolute", "prismatic"):
                    continue
                lim = ax.find("c:limits", NS)
                axes.append((kind, [float(x) for x in ax.find("c:axis", NS).text.split()],
                             None if lim is None else (float(lim.find("c:min", NS).text),
                                                       float(lim.find("c:max", NS).text))))
            self.joints[f"{km.get('id')}/{j.get('sid')}"] = (j.get("name"), axes)
        self.links = []      # (name, joint key or None, parent index, T_att, own)
        self._walk(tc.find("c:link", NS), None, None, np.eye(4))

    def _walk(self, link, joint, parent, att):
        own = _transforms(link, self.scale)
        me = len(self.links)
        self.links.append((link.get("name"), joint, parent, att, own))
        for a in link.findall("c:attachment_full", NS):
            self._walk(a.find("c:link", NS), a.get("joint"), me, _transforms(a, self.scale))

    def dof_joints(self):
        """Joints in creation order (depth-first order of their attachments), §9.4."""
        return [self.joints[j][0] for _, j, _, _, _ in self.links if j is not None]

    def fk(self, q):
        """World pose of each link by name; ``q``: the DOFs, each joint's axes consecutive."""
        out, poses, k = {}, [], 0
        for name, joint, parent, att, own in self.links:
            T = att.copy() if parent is None else poses[parent] @ att
            if joint is not None:
                for kind, axis, _ in self.joints[joint][1]:
                    if kind == "revolute":
                        T = T @ _rot(axis, q[k])
                    else:
                        M = np.eye(4)
                        M[:3, 3] = np.asarray(axis) / np.linalg.norm(axis) * q[k]
                        T = T @ M
                    k += 1
            T = T @ own
            poses.append(T)
            out[name] = T
        assert k == len(q)
        return out


# --- helpers ------------------------------------------------------------------------------

def _write(src, tmp_path, name):
    out = tmp_path / name
    report = roboio.save(src, str(out))
    return out, report


def _same_model(a, b):
    assert b.link_names == a.link_names
    assert [l.joint_name for l in b.links] == [l.joint_name for l in a.links]
    assert [d.name for d in b.drivers] == [d.name for d in a.drivers]
    for d, e in zip(a.drivers, b.drivers):
        assert (e.qmin, e.qmax) == pytest.approx((d.qmin, d.qmax), abs=1e-12)
    for q in sample_configs(a, 6, seed=3):
        assert np.allclose(a.fk(q), b.fk(q), atol=1e-12)


@pytest.fixture
def cart(tmp_path):
    p = tmp_path / "cart.robot.xml"
    p.write_text(CART_XML)
    return p


# --- tests --------------------------------------------------------------------------------

def test_openrave_universal_and_hinge2_become_one_collada_joint_each(cart, tmp_path, capsys):
    src = roboio.load(str(cart))
    assert src.warnings == []
    # read as a chain: two axis links and the wheel welded behind them (off the anchor)
    assert [l.joint_name for l in src.links].count("steer") == 3
    out, report = _write(src, tmp_path, "cart.dae")
    assert report.renamed == {"links": {}, "joints": {}}
    assert report.lossless, report.lost

    view = OpenraveView(out)
    joints = sorted(view.joints.values(), key=lambda j: j[0])
    assert [(n, [a[0] for a in axes]) for n, axes in joints] == [
        ("neck", ["revolute", "revolute"]), ("steer", ["revolute", "revolute"])]
    # limits per axis, in degrees as the source states them
    lims = {n: [a[2] for a in axes] for n, axes in joints}
    assert lims["steer"] == [pytest.approx((-40, 40)), pytest.approx((-180, 180))]
    assert lims["neck"] == [pytest.approx((-90, 90)), pytest.approx((-45, 30))]
    # one link per source body: the body sits on the link of the chain's last axis
    assert sorted(n for n, *_ in view.links) == ["base", "head", "wheel"]
    # OpenRAVE's DOFs: each joint's axes consecutive, in creation order = roboio's drivers
    order = view.dof_joints()
    assert [d.name for d in src.drivers] == [n if k == 0 else f"{n}_1" for n in order for k in range(2)]
    for q in sample_configs(src, 8, seed=1):
        poses = view.fk(src.drivers_from_config(q))
        T = src.fk(q)
        for name, P in poses.items():
            assert np.allclose(P, T[src.link_index(name)], atol=1e-9), name

    back = roboio.load(str(out))
    assert back.warnings == []
    _same_model(src, back)
    again, _ = _write(back, tmp_path, "cart2.dae")
    assert again.read_bytes() == out.read_bytes()
    assert roboio.verify(src, roboio.load(str(out))).ok
    capsys.readouterr()
    assert main(["verify", str(cart), str(out)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("OK")


def test_openrave_xml_keeps_universal_and_hinge2_and_reads_back_the_same(cart, tmp_path):
    src = roboio.load(str(cart))
    out, report = _write(src, tmp_path, "out.robot.xml")
    assert report.renamed == {"links": {}, "joints": {}}
    assert report.lossless, report.lost
    doc = etree.parse(str(out))
    types = {j.get("name"): j.get("type") for j in doc.iter("Joint")}
    assert types == {"steer": "hinge2", "neck": "universal"}
    back = roboio.load(str(out))
    _same_model(src, back)
    again, _ = _write(back, tmp_path, "again.robot.xml")
    assert again.read_bytes() == out.read_bytes()
    assert roboio.verify(src, roboio.load(str(out))).ok


# A COLLADA robot with a two-axis joint (RR, its child link off the joint's frame) and a
# three-axis joint (revolute, prismatic, revolute), as OpenRAVE writes them.
DAE_LINKS = [
    {"name": "base", "parent": None},
    {"name": "wrist", "parent": 0, "jname": "wrist_joint", "types": ["revolute", "revolute"],
     "axes": ["0 0 1", "0 1 0"], "limits": [(-120, 120), (-30, 60)],
     "att": "<translate>0.5 0 0.2</translate><rotate>1 0 0 90</rotate>",
     "own": "<translate>0.1 0 0</translate>"},
    {"name": "tool", "parent": 1, "jname": "tool_joint", "types": ["revolute", "prismatic", "revolute"],
     "axes": ["1 0 0", "0 0 1", "0 0 1"], "limits": [(-90, 90), (0, 0.2), (-180, 180)],
     "att": "<translate>0.2 0 0</translate>", "own": ""},
]


def test_collada_multi_axis_joints_are_rewritten_as_one_joint(tmp_path):
    src_path = tmp_path / "src.dae"
    src_path.write_text(robot_dae(DAE_LINKS))
    src = roboio.load(str(src_path))       # (warns: no rigid_body, so no masses)
    # independent: the source document as OpenRAVE reads it
    expect = OpenraveView(src_path)
    out, report = _write(src, tmp_path, "out.dae")
    assert report.renamed == {"links": {}, "joints": {}}
    view = OpenraveView(out)
    assert sorted((n, [a[0] for a in axes]) for n, axes in view.joints.values()) == [
        ("tool_joint", ["revolute", "prismatic", "revolute"]), ("wrist_joint", ["revolute", "revolute"])]
    assert [n for n, *_ in view.links] == ["base", "wrist", "tool"]
    rng = np.random.default_rng(7)
    for _ in range(6):
        q = rng.uniform(-1, 1, 5) * [2, 0.5, 1.5, 0.2, 3]
        a, b = expect.fk(q), view.fk(q)
        for name in a:
            assert np.allclose(a[name], b[name], atol=1e-12), name
    back = roboio.load(str(out))
    _same_model(src, back)
    again, _ = _write(back, tmp_path, "again.dae")
    assert again.read_bytes() == out.read_bytes()
    assert roboio.verify(src, roboio.load(str(out))).ok


def test_collada_two_revolute_axes_written_as_openrave_xml_hinge2(tmp_path):
    links = DAE_LINKS[:2]
    src_path = tmp_path / "rr.dae"
    src_path.write_text(robot_dae(links))
    src = roboio.load(str(src_path))
    out, report = _write(src, tmp_path, "rr.robot.xml")
    assert report.renamed == {"links": {}, "joints": {}}
    assert report.lossless, report.lost
    joints = list(etree.parse(str(out)).iter("Joint"))
    assert [(j.get("name"), j.get("type")) for j in joints] == [("wrist_joint", "hinge2")]
    _same_model(src, roboio.load(str(out)))
    assert roboio.verify(src, roboio.load(str(out))).ok


def test_collada_three_axis_joint_to_openrave_xml_is_one_joint_per_axis_and_reported(tmp_path):
    """OpenRAVE XML has no joint type for revolute-prismatic-revolute: one joint per axis,
    named after the axes' drivers, and the report says so."""
    src_path = tmp_path / "rpr.dae"
    src_path.write_text(robot_dae(DAE_LINKS))
    src = roboio.load(str(src_path))
    out, report = _write(src, tmp_path, "rpr.robot.xml")
    assert any("tool_joint" in item and "one joint per axis" in item for item in report.lost)
    back = roboio.load(str(out))
    for q in sample_configs(src, 4, seed=2):
        Ta, Tb = src.fk(q), back.fk(q)
        for name in ("base", "wrist", "tool"):
            assert np.allclose(Ta[src.link_index(name)], Tb[back.link_index(name)], atol=1e-9)


TWO_HINGES = """<KinBody name="two">
  <Body name="base"><Geom type="box"><Extents>0.1 0.1 0.1</Extents></Geom></Body>
  <Body name="gimbal"><Translation>0 0 0.3</Translation><mass type="custom"><total>0</total></mass></Body>
  <Body name="tip"><Translation>0 0 0.3</Translation>
    <Geom type="sphere"><radius>0.02</radius></Geom></Body>
  <Joint name="pan" type="hinge"><Body>base</Body><Body>gimbal</Body>
    <anchor>0 0 0.3</anchor><axis>0 0 1</axis></Joint>
  <Joint name="tilt" type="hinge"><Body>gimbal</Body><Body>tip</Body>
    <anchor>0 0 0.3</anchor><axis>0 1 0</axis></Joint>
</KinBody>
"""


def test_a_chain_of_separate_joints_with_the_same_shape_stays_separate(tmp_path):
    """Two hinges through one point with a bare body there between them (massless, no
    geometry, its origin on both axes) have the shape of a universal joint, but the source
    kept them as two joints: the writers keep them so."""
    p = tmp_path / "two.kinbody.xml"
    p.write_text(TWO_HINGES)
    src = roboio.load(str(p))
    assert src.link_names == ["base", "gimbal", "tip"] and src.links[1].mass == 0
    dae, report = _write(src, tmp_path, "two.dae")
    assert report.renamed == {"links": {}, "joints": {}}
    view = OpenraveView(dae)
    assert sorted((n, len(axes)) for n, axes in view.joints.values()) == [("pan", 1), ("tilt", 1)]
    assert sorted(n for n, *_ in view.links) == ["base", "gimbal", "tip"]
    out, _ = _write(src, tmp_path, "out.kinbody.xml")
    types = {j.get("name"): j.get("type") for j in etree.parse(str(out)).iter("Joint")}
    assert types == {"pan": "hinge", "tilt": "hinge"}
    assert roboio.verify(src, roboio.load(str(dae))).ok


def test_a_model_that_says_two_links_are_one_joint_is_written_as_one(tmp_path):
    """The same links, now sharing one joint name (a model built by hand): one joint with two
    axes; the intermediate link comes back under OpenRAVE's name for it, which the report
    states as a rename."""
    p = tmp_path / "two.kinbody.xml"
    p.write_text(TWO_HINGES)
    src = roboio.load(str(p))
    src.links[1].joint_name = src.links[2].joint_name = "wrist"
    for l in src.links:
        l.extras.pop("openrave", None)
    dae, report = _write(src, tmp_path, "wrist.dae")
    assert report.renamed["links"] == {"gimbal": "wrist.axis0"}
    view = OpenraveView(dae)
    assert [(n, [a[0] for a in axes]) for n, axes in view.joints.values()] == [
        ("wrist", ["revolute", "revolute"])]
    for q in sample_configs(src, 4, seed=5):
        poses = view.fk(src.drivers_from_config(q))
        for name in ("base", "tip"):
            assert np.allclose(poses[name], src.fk(q)[src.link_index(name)], atol=1e-12)
    xml, report = _write(src, tmp_path, "wrist.kinbody.xml")
    assert report.renamed["links"] == {"gimbal": "wrist.axis0"}
    assert [(j.get("name"), j.get("type")) for j in etree.parse(str(xml)).iter("Joint")] == [
        ("wrist", "hinge2")]
    for out in (dae, xml):
        back = roboio.load(str(out))
        assert back.link_names == ["base", "wrist.axis0", "tip"]
        assert roboio.verify(src, back, link_map={"gimbal": "wrist.axis0"}).ok




def test_the_shipped_gimbal_cart_converts_to_collada_with_two_joints(tmp_path):
    path = roboio.sample_path("openrave/gimbal_cart.robot.xml")
    src = roboio.load(path)
    out, report = _write(src, tmp_path, "gimbal_cart.dae")
    assert report.lossless and report.renamed == {"links": {}, "joints": {}}
    view = OpenraveView(out)
    assert sorted((n, len(a)) for n, a in view.joints.values()) == [("camera_mount", 2), ("front_wheel", 2)]
    assert roboio.verify(src, roboio.load(str(out))).ok


def test_openrave_xml_start_values_of_a_multi_axis_joint_clamped_to_its_first_axis(cart, tmp_path):
    """OpenRAVE clamps every axis of a joint to the joint's first axis's limits
    (kinbody.cpp, KinBody::SetDOFValues: GetLowerLimit(0)/GetUpperLimit(0)); the writer
    clamps ``<jointvalues>`` the same way, so that a reading starts where the file says and
    write -> read -> write is a fixed point. The hinge2's second axis (+-180 deg) at 1 rad
    starts at the first axis's 40 deg; the universal's second axis (-45..30 deg) at 0.7 rad
    stays at 0.7 (within the first axis's +-90 deg)."""
    src = roboio.load(str(cart))
    q = np.array(src.config, float)
    q[src.link_index("steer.axis1")] = 1.0
    q[src.link_index("neck.axis1")] = 0.7
    src.config = q
    out, report = _write(src, tmp_path, "start.robot.xml")
    values = [float(x) for x in etree.parse(str(out)).find(".//jointvalues").text.split()]
    # DOFs in driver order: steer (2 axes), neck (2 axes)
    assert values == pytest.approx([0.0, math.radians(40), 0.0, 0.7], abs=1e-15)
    assert any("steer.axis1 (1.0 -> " in x and "first axis's limits" in x for x in report.lost), report.lost
    assert not any("neck.axis1" in x for x in report.lost), report.lost
    back = roboio.load(str(out))
    assert back.config[back.link_index("steer.axis1")] == pytest.approx(math.radians(40), abs=1e-15)
    assert back.config[back.link_index("neck.axis1")] == pytest.approx(0.7, abs=1e-15)
    again, _ = _write(back, tmp_path, "again.robot.xml")
    assert again.read_bytes() == out.read_bytes()
