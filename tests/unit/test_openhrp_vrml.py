"""OpenHRP VRML97 robot models (format openhrp-vrml) and Choreonoid modelFile descriptions.

Expected values come from the test's own description of each model: the VRML text is
generated from it, and a second, minimal evaluator written from the format (a Joint's frame
is its parent's times translation times rotation, then the joint's motion about or along
``jointAxis``; Segments combine as Choreonoid's VRMLBodyLoader combines them) gives the
expected poses and mass properties.
"""
import math
import os
import warnings

import numpy as np
import pytest

import roboio
from conftest import SAMPLES
from roboio.errors import FormatError
from roboio.model import Group
from roboio.formats.registry import find_reader

# -- the model description and the VRML text made from it ---------------------------------

PROTOS = """#VRML V2.0 utf8
PROTO Joint [
  exposedField SFVec3f center 0 0 0
  exposedField MFNode children []
  exposedField MFFloat llimit []
  exposedField MFFloat lvlimit []
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFVec3f scale 1 1 1
  exposedField SFVec3f translation 0 0 0
  exposedField MFFloat ulimit []
  exposedField MFFloat uvlimit []
  exposedField SFString jointType ""
  exposedField SFInt32 jointId -1
  exposedField %(axis_type)s jointAxis %(axis_default)s
  exposedField SFFloat gearRatio 1
]
{ Transform { center IS center children IS children rotation IS rotation
              scale IS scale translation IS translation } }
PROTO Segment [
  exposedField SFVec3f centerOfMass 0 0 0
  exposedField MFNode children [ ]
  exposedField SFFloat mass 0
  exposedField MFFloat momentsOfInertia [ 0 0 0 0 0 0 0 0 0 ]
]
{ Group { children IS children } }
PROTO Humanoid [
  exposedField SFVec3f center 0 0 0
  exposedField MFNode humanoidBody [ ]
  exposedField MFString info [ ]
  exposedField MFNode joints [ ]
  exposedField SFString name ""
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFVec3f translation 0 0 0
  exposedField MFNode segments [ ]
  exposedField SFString version "1.1"
]
{ Transform { children IS humanoidBody } }
PROTO ForceSensor [
  exposedField SFVec3f maxForce -1 -1 -1
  exposedField SFVec3f translation 0 0 0
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFInt32 sensorId -1
]
{ Transform { translation IS translation rotation IS rotation } }
PROTO ExtraJoint [
  exposedField SFString link1Name ""
  exposedField SFString link2Name ""
  exposedField SFVec3f link1LocalPos 0 0 0
  exposedField SFVec3f link2LocalPos 0 0 0
  exposedField SFString jointType "xyz"
  exposedField SFVec3f jointAxis 1 0 0
]
{ Group { } }
"""


def protos(letter_axes=False):
    if letter_axes:
        return PROTOS % {"axis_type": "SFString", "axis_default": '"Z"'}
    return PROTOS % {"axis_type": "SFVec3f", "axis_default": "0 0 1"}


def v(x):
    return " ".join(repr(float(a)) for a in x)


# name, parent, jointType, axis, translation, rotation (axis, angle), limits, joint id,
# wrapped in a Group, segments [(mass, com, inertia 9, Transform (t, r) or None)]
ROBOT = [
    ("ROOT", None, "free", None, (0.1, -0.2, 0.7), (0, 0, 1, 0.3), None, -1, False,
     [(3.0, (0, 0, 0.05), (0.1, 0, 0, 0, 0.2, 0, 0, 0, 0.3), None)]),
    ("J1", "ROOT", "rotate", (0, 1, 0), (0, 0.1, 0.2), (1, 0, 0, 0.4), (-1.5, 1.2), 2, False,
     [(2.0, (0, 0, 0.1), (0.01, 0, 0, 0, 0.02, 0, 0, 0, 0.03), None),
      (1.0, (0.1, 0, 0), (0.01, 0.001, 0, 0.001, 0.02, 0, 0, 0, 0.03),
       ((0.2, 0, 0), (0, 0, 1, math.pi / 2)))]),
    ("J2", "J1", "slide", (0.6, 0, 0.8), (0.3, 0, 0), (0, 1, 1, -0.7), (-0.1, 0.25), 0, False,
     [(0.5, (0, 0, 0), (1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3), None)]),
    ("J3", "J1", "rotate", (1, 0, 0), (0, -0.15, 0.05), (1, 1, 0, 1.1), None, 1, True, []),
    ("J4", "J3", "fixed", None, (0.05, 0.05, 0.3), (0, 1, 0, -0.5), None, -1, False,
     [(0.2, (0.01, 0.02, 0.03), (1e-4, 0, 0, 0, 2e-4, 0, 0, 0, 3e-4), ((0, 0, 0.1), (1, 0, 0, 0.2)))]),
    ("J5", "J4", "rotate", (0, 0, 1), (0, 0, 0.1), (0, 0, 1, 0), (-3, 3), 3, False, []),
]


def joint_text(j, children_of, letter=False):
    name, _, jt, axis, t, r, lim, jid, grouped, segs = j
    out = [f"DEF {name} Joint {{", f"jointType \"{jt}\"", f"translation {v(t)}", f"rotation {v(r)}"]
    if jid >= 0:
        out.append(f"jointId {jid}")
    if axis is not None:
        out.append(f"jointAxis \"{'XYZ'[int(np.argmax(axis))]}\"" if letter else f"jointAxis {v(axis)}")
    if lim is not None:
        out += [f"llimit [ {lim[0]!r} ]", f"ulimit {lim[1]!r}"]
    kids = []
    for k, (m, c, inertia, tr) in enumerate(segs):
        seg = (f"DEF {name}_S{k} Segment {{ mass {m!r} centerOfMass {v(c)} momentsOfInertia [ {v(inertia)} ] "
               f"children Shape {{ geometry Box {{ size 0.1 0.2 0.3 }} }} }}")
        if tr is not None:
            seg = f"Transform {{ translation {v(tr[0])} rotation {v(tr[1])} children [ {seg} ] }}"
        kids.append(seg)
    for c in children_of.get(name, []):
        text = joint_text(c, children_of, letter)
        kids.append(f"Group {{ children [ {text} ] }}" if c[8] else text)
    out.append("children [\n" + "\n".join(kids) + "\n]")
    return "\n".join(out) + "\n}"


def vrml_text(robot=ROBOT, letter=False, extra=""):
    children_of = {}
    for j in robot[1:]:
        children_of.setdefault(j[1], []).append(j)
    body = joint_text(robot[0], children_of, letter)
    return (protos(letter) + f"DEF Model Humanoid {{ name \"model\" humanoidBody [ {body} ] "
            f"joints [ USE {robot[0][0]} ] }}\n" + extra)


# -- the independent evaluator ----------------------------------------------------------------

def rodrigues(axis, angle):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def frame(t, r):
    T = np.eye(4)
    T[:3, :3] = rodrigues(r[:3], r[3])
    T[:3, 3] = t
    return T


def expected_poses(robot, q):
    """World frame of every joint of the description at joint values ``q`` (by name)."""
    out = {}
    for name, parent, jt, axis, t, r, *_ in robot:
        T = (out[parent] if parent else np.eye(4)) @ frame(t, r)
        x = q.get(name, 0.0)
        if jt == "rotate":
            M = np.eye(4)
            M[:3, :3] = rodrigues(axis, x)
            T = T @ M
        elif jt == "slide":
            T = T.copy()
            T[:3, 3] += T[:3, :3] @ (np.asarray(axis, float) * x)
        out[name] = T
    return out


def expected_mass(segs):
    """VRMLBodyLoader::readJointNode: m = sum, c = mass-weighted mean of R c_i + p_i,
    I = sum R I_i R^T + m_i ((o.o) E - o o^T), o = c_i - c."""
    parts = []
    for m, c, inertia, tr in segs:
        T = np.eye(4) if tr is None else frame(*tr)
        R = T[:3, :3]
        parts.append((m, R @ np.asarray(c, float) + T[:3, 3], R @ np.reshape(inertia, (3, 3)) @ R.T))
    M = sum(p[0] for p in parts)
    if not parts:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    C = sum(p[0] * p[1] for p in parts) / M
    I = np.zeros((3, 3))
    for m, c, Ii in parts:
        o = c - C
        I += Ii + m * (o @ o * np.eye(3) - np.outer(o, o))
    return M, C, I


def write(tmp_path, text, name="robot.wrl"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def load(path, **kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        return roboio.load(path, **kw), [str(x.message) for x in w]


# -- kinematics and mass ------------------------------------------------------------------------

@pytest.mark.parametrize("letter", [False, True], ids=["vector-axes", "letter-axes"])
def test_link_poses_match_an_independent_evaluation(tmp_path, letter):
    robot_desc = ROBOT
    if letter:      # letter axes: unit axes only
        robot_desc = [j[:3] + ((None if j[3] is None else tuple(float(k == int(np.argmax(j[3])))
                                                                    for k in range(3))),) + j[4:]
                      for j in robot_desc]
    robot, _ = load(write(tmp_path, vrml_text(robot_desc, letter)))
    assert robot.name == "Model"
    rng = np.random.default_rng(4)
    names = [j[0] for j in robot_desc]
    for trial in range(6):
        q = {} if trial == 0 else {j[0]: rng.uniform(-1, 1) * 0.2 for j in robot_desc if j[2] in ("rotate", "slide")}
        config = robot.config.copy()
        for n, x in q.items():
            config[robot.link_index(n)] = x
        F = robot.fk(config)
        want = expected_poses(robot_desc, q)
        for n in names:
            assert np.allclose(F[robot.link_index(n)], want[n], atol=1e-9, rtol=0), (trial, n)


def test_segments_combine_into_the_link_mass_properties(tmp_path):
    robot, _ = load(write(tmp_path, vrml_text()))
    for name, *_, segs in ROBOT:
        m, c, inertia = expected_mass(segs)
        link = robot.link(name)
        assert link.mass == pytest.approx(m, abs=1e-12)
        assert np.allclose(link.com, c, atol=1e-12) and np.allclose(link.inertia, inertia, atol=1e-12)


def test_joint_data_names_ids_and_limits(tmp_path):
    robot, _ = load(write(tmp_path, vrml_text()))
    assert [robot.link_names[i] for i in robot.source_link_order] == ["ROOT", "J1", "J2", "J3", "J4", "J5"]
    assert [robot.link_names[i] for i in robot.joint_id_links] == ["J2", "J3", "J1", "J5"]
    assert robot.link("J1").joint_name == "J1" and robot.link("base0").joint_name is None
    assert [d.name for d in robot.drivers] == ["J1", "J2", "J3", "J5"]
    i = robot.link_index("J1")
    assert (robot.qmin[i], robot.qmax[i]) == (-1.5, 1.2)
    j3 = robot.link_index("J3")
    assert robot.qmin[j3] == -math.inf and robot.qmax[j3] == math.inf
    assert robot.link("J2").joint_type == "prismatic"
    types = {robot.links[j.link].name: j.type for j in robot.joints}
    assert types["J4"] == "weld" and types["ROOT"] == "floating"


def corners(g):
    """Points of a geometry in its owner's frame (a Box primitive's corners, mesh vertices)."""
    return g.sample_points()


def leaves(g):
    return [x for c in g.children for x in leaves(c)] if isinstance(g, Group) else [g]


def test_segment_shapes_are_link_geometry_in_the_link_frame(tmp_path):
    robot, _ = load(write(tmp_path, vrml_text()))
    parts = leaves(robot.link("J1").geometry)     # two segments: one at the origin, one moved
    assert [p.primitive for p in parts] == ["Box", "Box"]
    pts = np.concatenate([corners(p) for p in parts])
    # box 0.1 x 0.2 x 0.3 at the origin, and the same box turned 90 deg about z at x = 0.2
    assert np.allclose(pts.min(axis=0), [-0.05, -0.1, -0.15], atol=1e-12)
    assert np.allclose(pts.max(axis=0), [0.3, 0.1, 0.15], atol=1e-12)
    assert robot.link("J3").geometry is None


def test_primitives_are_exact_and_other_shapes_meshes(tmp_path):
    text = protos() + """DEF R Humanoid { humanoidBody [ DEF BASE Joint { jointType "fixed" children [
      DEF S Segment { mass 1 children [
        Transform { translation 0 0 1 rotation 1 0 0 1.5707963267948966 children [
          Shape { appearance Appearance { material Material { diffuseColor 1 0 0 } }
                  geometry Cylinder { radius 0.1 height 0.4 top FALSE } }
          Shape { geometry Cone { bottomRadius 0.2 height 0.3 } } ] }
        Transform { scale 2 1 1 children Shape { geometry Sphere { radius 0.5 } } }
        Shape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 0, 1 0 0, 0 1 0 ] }
                                          coordIndex [ 0 1 2 -1 ] } } ] } ] } ] }"""
    robot, _ = load(write(tmp_path, text))
    cyl, cone, scaled, tri = leaves(robot.link("BASE").geometry)
    assert (cyl.primitive, cyl.params["radius"], cyl.params["height"]) == ("Cylinder", 0.1, 0.4)
    assert cyl.extras["top"] is False
    assert cyl.extras["choreonoid_appearance"]["material"]["diffuseColor"] == [1.0, 0.0, 0.0]
    # the cylinder's axis (+y in its frame) is the link's +z after the Transform's rotation
    axis = np.asarray(cyl.transform)[:3, :3] @ cyl.params["axis"]
    assert np.allclose(axis, [0, 0, 1], atol=1e-12)
    assert np.allclose(np.asarray(cyl.transform)[:3, 3], [0, 0, 1], atol=1e-12)
    assert cone.primitive == "Cone" and cone.params["radius"] == 0.2
    assert type(scaled).__name__ == "TriangleMesh"                 # a scaled sphere: a mesh
    assert np.allclose(scaled.vertices.max(axis=0), [1.0, 0.5, 0.5], atol=1e-9)
    assert np.allclose(tri.vertices, [[0, 0, 0], [1, 0, 0], [0, 1, 0]])


def test_shapes_outside_segments_are_ignored_with_a_warning(tmp_path):
    text = protos() + """DEF R Humanoid { humanoidBody [ DEF BASE Joint { jointType "fixed"
      children [ Shape { geometry Box { size 1 1 1 } }
                 DEF S Segment { mass 1 children Shape { geometry Sphere { radius 0.1 } } } ] } ] }"""
    robot, msgs = load(write(tmp_path, text))
    assert any("outside any Segment" in m for m in msgs)
    g = robot.link("BASE").geometry
    assert g.primitive == "Sphere" and g.params["radius"] == 0.1


# -- the same robot as a Choreonoid .body ----------------------------------------------------------

BODY = """format: ChoreonoidBody
formatVersion: 1.0
angleUnit: radian
name: twin
links:
  - { name: BASE, jointType: free, translation: [0.5, 0, 0.9], rotation: [0, 0, 1, 0.7],
      mass: 5, centerOfMass: [0, 0, 0.1], inertia: [0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1] }
  - { name: HIP, parent: BASE, jointType: revolute, jointAxis: X, jointId: 0,
      translation: [0, -0.1, -0.05], rotation: [0, 1, 0, 0.25], jointRange: [-1, 1],
      mass: 1, centerOfMass: [0, 0, -0.1], inertia: [0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01] }
  - { name: KNEE, parent: HIP, jointType: revolute, jointAxis: [0, 1, 0], jointId: 1,
      translation: [0, 0, -0.3], jointRange: [0, 2.5],
      mass: 1, centerOfMass: [0, 0, -0.1], inertia: [0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01] }
  - { name: SLIDER, parent: KNEE, jointType: prismatic, jointAxis: [0, 0, -1], jointId: 2,
      translation: [0, 0, -0.3], rotation: [1, 0, 0, -0.3], jointRange: [0, 0.1],
      mass: 0.5, centerOfMass: [0, 0, 0], inertia: [0.001, 0, 0, 0, 0.001, 0, 0, 0, 0.001] }
  - { name: FOOT, parent: SLIDER, jointType: fixed, translation: [0.05, 0, -0.02],
      mass: 0.3, centerOfMass: [0, 0, 0], inertia: [0.001, 0, 0, 0, 0.001, 0, 0, 0, 0.001] }
"""

TWIN = """DEF twin Humanoid { humanoidBody [
 DEF BASE Joint { jointType "free" translation 0.5 0 0.9 rotation 0 0 1 0.7 children [
  DEF BASE_S Segment { mass 5 centerOfMass 0 0 0.1 momentsOfInertia [ 0.1 0 0 0 0.1 0 0 0 0.1 ] }
  DEF HIP Joint { jointType "rotate" jointAxis 1 0 0 jointId 0 translation 0 -0.1 -0.05
                  rotation 0 1 0 0.25 llimit -1 ulimit 1 children [
   DEF HIP_S Segment { mass 1 centerOfMass 0 0 -0.1 momentsOfInertia [ 0.01 0 0 0 0.01 0 0 0 0.01 ] }
   DEF KNEE Joint { jointType "rotate" jointAxis 0 1 0 jointId 1 translation 0 0 -0.3
                    llimit 0 ulimit 2.5 children [
    DEF KNEE_S Segment { mass 1 centerOfMass 0 0 -0.1 momentsOfInertia [ 0.01 0 0 0 0.01 0 0 0 0.01 ] }
    DEF SLIDER Joint { jointType "slide" jointAxis 0 0 -1 jointId 2 translation 0 0 -0.3
                       rotation 1 0 0 -0.3 llimit 0 ulimit 0.1 children [
     DEF SLIDER_S Segment { mass 0.5 momentsOfInertia [ 0.001 0 0 0 0.001 0 0 0 0.001 ] }
     DEF FOOT Joint { jointType "fixed" translation 0.05 0 -0.02 children [
      DEF FOOT_S Segment { mass 0.3 momentsOfInertia [ 0.001 0 0 0 0.001 0 0 0 0.001 ] } ] } ] } ] } ] } ] } ] }
"""


def test_same_link_poses_as_the_choreonoid_body_of_the_same_robot(tmp_path):
    """As the old Choreonoid SR1.wrl / PA10.wrl and their .body versions: one robot in both
    formats gives the same link poses (random configurations, floating base included),
    masses, limits and joint-id table."""
    body = roboio.load(write(tmp_path, BODY, "twin.body"))
    wrl, _ = load(write(tmp_path, protos() + TWIN, "twin.wrl"))
    assert wrl.link_names == body.link_names
    assert wrl.joint_id_links == body.joint_id_links
    assert np.allclose(wrl.qmin, body.qmin) and np.allclose(wrl.qmax, body.qmax)
    rng = np.random.default_rng(1)
    lo, hi = np.maximum(body.qmin, -3), np.minimum(body.qmax, 3)
    for _ in range(8):
        q = rng.uniform(lo, hi)
        assert np.abs(wrl.fk(q) - body.fk(q)).max() < 1e-12
    assert roboio.verify(wrl, body, samples=20, tol=1e-12).ok
    for a, b in zip(wrl.links, body.links):
        assert a.mass == pytest.approx(b.mass, abs=1e-12)
        assert np.allclose(a.com, b.com, atol=1e-12) and np.allclose(a.inertia, b.inertia, atol=1e-12)


def test_shipped_sample_matches_the_shipped_body():
    wrl = roboio.load(os.path.join(SAMPLES, "choreonoid", "arm_vrml.wrl"))
    body = roboio.load(os.path.join(SAMPLES, "choreonoid", "arm.body"))
    assert roboio.verify(wrl, body, samples=20, tol=1e-12).ok
    assert [s.name for s in wrl.sensors] == ["WristForce"]


# -- devices, closed loops, EXTERNPROTO --------------------------------------------------------------

def test_sensors_are_kept_in_their_link_frame(tmp_path):
    text = protos() + """DEF R Humanoid { humanoidBody [ DEF BASE Joint { jointType "fixed" children [
      Transform { translation 0 0 0.5 rotation 0 0 1 1.5707963267948966 children [
        DEF FS ForceSensor { sensorId 3 translation 0.1 0 0 maxForce 10 20 30 } ] } ] } ] }"""
    robot, _ = load(write(tmp_path, text))
    (s,) = robot.sensors
    assert (s.name, s.type, s.link, s.params["id"]) == ("FS", "ForceSensor", 0, 3)
    assert np.allclose(s.transform[:3, 3], [0, 0.1, 0.5], atol=1e-12)
    assert np.allclose(s.transform[:3, :3], rodrigues((0, 0, 1), math.pi / 2), atol=1e-12)
    dev = robot.links[0].extras["choreonoid"]["devices"][0]
    assert dev["type"] == "ForceSensor" and dev["maxForce"] == [10.0, 20.0, 30.0]


def test_extra_joints_are_kept_and_reported(tmp_path):
    extra = 'DEF LOOP ExtraJoint { link1Name "J2" link2Name "J5" link1LocalPos 0 0 0.1 jointType "ball" }'
    robot, msgs = load(write(tmp_path, vrml_text(extra=extra)))
    (j,) = robot.extras["choreonoid"]["extra_joints"]
    assert (j["link1Name"], j["link2Name"], j["jointType"]) == ("J2", "J5", "ball")
    assert j["link1LocalPos"] == [0.0, 0.0, 0.1]
    assert any("ExtraJoint 'LOOP'" in m and "kept as data" in m for m in msgs)
    body = tmp_path / "out.body"
    roboio.save(robot, str(body))
    assert "extraJoints" in body.read_text()


def test_externproto_takes_its_defaults_from_the_named_file(tmp_path):
    write(tmp_path, protos(letter_axes=True), "protos.wrl")
    decl = """#VRML V2.0 utf8
EXTERNPROTO Joint [ exposedField MFNode children exposedField SFRotation rotation
  exposedField SFVec3f translation exposedField SFString jointType exposedField SFInt32 jointId
  exposedField SFString jointAxis exposedField SFVec3f center exposedField MFFloat ulimit
  exposedField MFFloat llimit ] "protos.wrl#Joint"
EXTERNPROTO Humanoid [ exposedField MFNode humanoidBody exposedField SFVec3f center
  exposedField SFRotation rotation exposedField SFVec3f translation ] [ "missing.wrl", "protos.wrl" ]
DEF E Humanoid { humanoidBody DEF B Joint { jointType "fixed" children
  DEF A Joint { jointType "rotate" jointId 0 translation 0 0 1 } } }
"""
    robot, _ = load(write(tmp_path, decl, "robot.wrl"))
    assert robot.link("A").axis.tolist() == [0.0, 0.0, 1.0]       # the default "Z" of protos.wrl
    assert np.allclose(robot.fk([0.0, 0.0])[1][:3, 3], [0, 0, 1])
    with pytest.raises(FormatError, match="EXTERNPROTO Joint"):
        roboio.load(write(tmp_path, decl.replace("protos.wrl#Joint", "nowhere.wrl#Joint"), "bad.wrl"))


# -- refused input -----------------------------------------------------------------------------------

BAD = {
    "joint type": ('jointType "rotate"', 'jointType "hinge"', "JointType 'hinge' is not supported"),
    "joint in a moved transform": (
        'children [\nDEF J2_S0', 'children [\nTransform { translation 0 0 1 children [ DEF Q Joint { '
        'jointType "fixed" } ] }\nDEF J2_S0', "not in a correct place"),
    "zero rotation axis": ("rotation 0.0 1.0 1.0 -0.7", "rotation 0 0 0 1", "zero vector"),
    "two humanoids": ("DEF Model Humanoid", "DEF M2 Humanoid { humanoidBody [] }\nDEF Model Humanoid",
                      "more than one Humanoid"),
    "segment holding a joint": ('children Shape { geometry Box { size 0.1 0.2 0.3 } } }',
                                'children [ DEF X Joint { jointType "fixed" } ] }',
                                "Joint node is not in a correct place"),
    "extra joint link": ("", 'ExtraJoint { link1Name "J1" link2Name "NOPE" }', "does not name a link"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_what_choreonoid_refuses_is_a_located_format_error(tmp_path, case):
    old, new, message = BAD[case]
    text = vrml_text()
    text = text + new if not old else text.replace(old, new, 1)
    assert text != vrml_text()
    path = write(tmp_path, text)
    with pytest.raises(FormatError, match=message) as ex:
        roboio.load(path)
    assert ex.value.path == path and ex.value.line is not None


def test_a_prototype_without_the_fields_choreonoid_needs_is_refused(tmp_path):
    text = protos().replace("exposedField SFInt32 jointId -1", "", 1) + \
        'DEF R Humanoid { humanoidBody DEF B Joint { jointType "fixed" } }'
    with pytest.raises(FormatError, match="PROTO Joint must have the field 'jointId'") as ex:
        roboio.load(write(tmp_path, text))
    assert ex.value.line == 2


def test_letter_axis_other_than_xyz_is_refused(tmp_path):
    text = vrml_text(letter=True).replace('jointAxis "Y"', 'jointAxis "W"', 1)
    with pytest.raises(FormatError, match="jointAxis 'W'"):
        roboio.load(write(tmp_path, text))


def test_a_joint_used_twice_gets_a_second_name(tmp_path):
    text = protos() + """DEF R Humanoid { humanoidBody [ DEF BASE Joint { jointType "fixed" children [
      DEF ARM Joint { jointType "rotate" jointId 0 translation 1 0 0 }
      Group { children USE ARM } ] } ] }"""
    robot, msgs = load(write(tmp_path, text))
    assert robot.link_names == ["BASE", "ARM", "ARM_"] and any("ARM_" in m for m in msgs)


# -- sniffing ---------------------------------------------------------------------------------------

def test_plain_vrml_stays_geometry_and_openhrp_models_are_robots(tmp_path):
    plain = write(tmp_path, "#VRML V2.0 utf8\nPROTO Thing [ field SFFloat s 1 ] { Group { } }\n"
                            "Shape { geometry Box { size 1 2 3 } }\n", "plain.wrl")
    mesh = roboio.load(plain)
    assert type(mesh).__name__ == "TriangleMesh" and len(mesh.faces) == 12
    robot, _ = load(write(tmp_path, vrml_text()))
    assert type(robot).__name__ == "Robot"
    assert find_reader(write(tmp_path, vrml_text(), "r.wrl")).name == "openhrp-vrml"
    desc = write(tmp_path, "modelFile: r.wrl\n", "r.body")
    assert find_reader(desc).name == "choreonoid-model"
    assert find_reader(write(tmp_path, BODY, "t.body")).name == "choreonoid-body"


# -- modelFile descriptions -------------------------------------------------------------------------

def test_model_file_loads_the_model_and_keeps_the_description(tmp_path):
    write(tmp_path, vrml_text(), "model.wrl")
    desc = write(tmp_path, "modelFile: model.wrl\nstandardPose: [ 0, 10, 0, 0 ]\n"
                           "linkInfo:\n  J5: { isHand: true }\n  NOPE: { x: 1 }\n", "model.yaml")
    robot, msgs = load(desc)
    direct, _ = load(str(tmp_path / "model.wrl"))
    assert robot.link_names == direct.link_names
    assert np.abs(robot.fk() - direct.fk()).max() == 0.0
    assert robot.extras["choreonoid"]["info"]["standardPose"] == ["0", "10", "0", "0"]
    assert robot.link("J5").extras["choreonoid"]["info"]["isHand"] == "true"
    assert any("NOPE" in m for m in msgs)
    out = tmp_path / "out.body"
    roboio.save(robot, str(out))
    text = out.read_text()
    assert "standardPose" in text and "angleUnit: degree" in text
    assert roboio.verify(roboio.load(str(out)), robot, samples=10, tol=1e-12).ok


def test_model_file_as_body_and_errors(tmp_path):
    write(tmp_path, BODY, "twin.body")
    a = roboio.load(write(tmp_path, "model_file: twin.body\n", "ref.body"))
    assert a.name == "twin"
    b = roboio.load(write(tmp_path, BODY, "twin_copy.yaml"))        # format: ChoreonoidBody
    assert b.link_names == a.link_names
    with pytest.raises(FormatError, match="not found") as ex:
        roboio.load(write(tmp_path, "\nmodelFile: nowhere.wrl\n", "missing.yaml"))
    assert ex.value.line == 2
    with pytest.raises(FormatError, match="neither format nor modelFile"):
        roboio.load(write(tmp_path, "standardPose: [ 0 ]\n", "n.yaml"))


def test_vrml_extrusion_is_built(tmp_path):
    """VRML97 Extrusion (the OpenHRP crawler's tracks): the default square cross-section
    swept along a straight spine is a closed box (8 side and 4 cap triangles); scale and
    orientation per spine point as the VRML spec says."""
    text = ("#VRML V2.0 utf8\nShape { geometry Extrusion { spine [ 0 0 0, 0 2 0 ] } }\n"
            "Transform { translation 5 0 0 children Shape { geometry Extrusion {\n"
            "  crossSection [ 1 0, 0 1, -1 0, 0 -1, 1 0 ] spine [ 0 0 0, 0 1 0 ]\n"
            "  scale [ 2 1, 1 1 ] orientation [ 0 1 0 0, 0 1 0 0.7853981633974483 ]\n"
            "  beginCap FALSE } } }\n")
    mesh = roboio.load(write(tmp_path, text, "ext.wrl"))
    v, f = mesh.vertices, mesh.faces
    box = v[:10]                       # 2 spine points x 5 cross-section points
    assert np.allclose(box.min(axis=0), [-1, 0, -1]) and np.allclose(box.max(axis=0), [1, 2, 1])
    assert len(f) == 8 + 2 + 2 + 8 + 2            # box sides and caps, diamond sides, end cap
    diamond = v[10:]
    assert np.allclose(diamond[:5, 0] - 5, [2, 0, -2, 0, 2], atol=1e-12)   # scaled x at y = 0
    c = math.sqrt(0.5)                 # turned 45 deg about y at y = 1
    assert np.allclose(diamond[5:7] - [5, 0, 0], [[c, 1, -c], [c, 1, c]], atol=1e-12)


def test_a_field_choreonoid_reads_declared_with_another_type_is_refused(tmp_path):
    text = protos().replace("exposedField MFFloat ulimit []", "exposedField SFFloat ulimit 0", 1) + \
        'DEF R Humanoid { humanoidBody DEF B Joint { jointType "fixed" } }'
    with pytest.raises(FormatError, match="PROTO Joint may only have the field 'ulimit' of type MFFloat"):
        roboio.load(write(tmp_path, text))


def test_a_joint_without_def_name_gets_a_link_name_but_no_joint_name(tmp_path):
    text = protos() + """DEF R Humanoid { humanoidBody [ DEF BASE Joint { jointType "fixed" children [
      Joint { jointType "rotate" jointId 0 translation 1 0 0 } ] } ] }"""
    robot, msgs = load(write(tmp_path, text))
    assert robot.link_names == ["BASE", "JOINT1"] and any("without a DEF name" in m for m in msgs)
    assert robot.link("BASE").joint_name == "BASE" and robot.link("JOINT1").joint_name is None
