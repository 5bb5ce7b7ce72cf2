"""Choreonoid .body reader on hand-written models; expected poses computed independently here
with the rules of the spec (§4.7), written out with plain numpy."""
import math
import textwrap
import warnings

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.model import Primitive, TriangleMesh


def write(tmp_path, text, name="b.body"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return str(p)


def load(p, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(p, **kw)


def rot(axis, deg):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    t = math.radians(deg)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(t) * K + (1 - math.cos(t)) * K @ K


ARM = """
format: ChoreonoidBody
formatVersion: 1.0
angleUnit: degree
name: Arm
rootLink: BASE
links:
  -
    name: TIP
    parent: ELBOW
    translation: [ 0, 0, 0.3 ]
    jointType: prismatic
    jointAxis: -X
    jointId: 3
    jointRange: [ -0.1, unlimited ]
  -
    name: BASE
    jointType: free
    translation: [ 1, 2, 3 ]
    rotation: [ 0, 0, 1, 90 ]
  -
    name: SHOULDER
    parent: BASE
    translation: [ 0, 0.1, 0 ]
    rotation: [ [ 1, 0, 0, 90 ], [ 0, 1, 0, 30 ] ]
    jointType: revolute
    jointAxis: [ 0, 1, 0 ]
    jointId: 0
    jointRange: 45
    maxJointVelocity: 90
  -
    name: ELBOW
    parent: SHOULDER
    translation: [ [ 0, 0, 0.2 ], [ 0.05, 0, 0 ] ]
    jointType: revolute
    jointId: 1
    jointRange: [ -150, 0 ]
    jointAngle: -10
  -
    name: HAND
    parent: BASE
    jointType: fixed
    translation: [ 0, -0.1, 0 ]
"""


def choreonoid_fk(q):
    """Spec §4.7 by hand for ARM: q = joint values by joint id (0, 1, 3); root at its pose."""
    R0, p0 = rot([0, 0, 1], 90), np.array([1.0, 2, 3])
    Rs = R0 @ rot([1, 0, 0], 90) @ rot([0, 1, 0], 30) @ rot([0, 1, 0], math.degrees(q[0]))
    ps = p0 + R0 @ np.array([0, 0.1, 0])
    Re = Rs @ rot([0, 0, 1], math.degrees(q[1]))
    pe = ps + Rs @ np.array([0.05, 0, 0.2])
    Rt = Re
    pt = pe + Re @ (np.array([0, 0, 0.3]) + np.array([-1.0, 0, 0]) * q[3])
    ph = p0 + R0 @ np.array([0, -0.1, 0])
    return {"BASE": (R0, p0), "SHOULDER": (Rs, ps), "ELBOW": (Re, pe), "TIP": (Rt, pt), "HAND": (R0, ph)}


def test_link_order_floating_base_and_fk(tmp_path):
    r = load(write(tmp_path, ARM))
    # depth-first from BASE, children in file order: SHOULDER (-> ELBOW -> TIP), HAND
    names = [r.links[i].name for i in r.source_link_order]
    assert names == ["BASE", "SHOULDER", "ELBOW", "TIP", "HAND"]
    assert r.link_names[:6] == ["base0", "base1", "base2", "base3", "base4", "BASE"]
    assert [j.type for j in r.joints][0] == "floating" and r.joints[0].links == [0, 1, 2, 3, 4, 5]
    assert [d.name for d in r.drivers] == ["SHOULDER", "ELBOW", "TIP"]          # one per joint
    # joint ids 0, 1, 3; id 2 is a gap
    jl = r.joint_id_links
    assert [r.links[i].name if i >= 0 else None for i in jl] == ["SHOULDER", "ELBOW", None, "TIP"]
    assert any("joint ids [2]" in w for w in r.warnings)
    # initial configuration: root pose (x, y, z, yaw, pitch, roll) and jointAngle -10 deg
    assert np.allclose(r.config[:6], [1, 2, 3, math.pi / 2, 0, 0])
    assert r.config[r.link_index("ELBOW")] == pytest.approx(math.radians(-10))
    # limits: degrees for revolute only, unlimited, scalar range, velocities
    i_s, i_e, i_t = (r.link_index(n) for n in ("SHOULDER", "ELBOW", "TIP"))
    assert r.qmin[i_s] == pytest.approx(-math.pi / 4) and r.qmax[i_s] == pytest.approx(math.pi / 4)
    assert r.vmax[i_s] == pytest.approx(math.pi / 2) and r.vmin[i_s] == pytest.approx(-math.pi / 2)
    assert r.qmin[i_e] == pytest.approx(math.radians(-150)) and r.qmax[i_e] == 0
    assert r.qmin[i_t] == -0.1 and r.qmax[i_t] == math.inf
    assert r.links[i_t].joint_type == "prismatic" and np.array_equal(r.links[i_t].axis, [-1, 0, 0])
    assert np.array_equal(r.links[i_e].axis, [0, 0, 1])                 # default axis z
    # FK at several configurations against the hand-written rules
    rng = np.random.default_rng(0)
    for _ in range(5):
        qid = rng.uniform(-1, 1, 4)
        q = np.array(r.config)
        for j, link in enumerate(jl):
            if link >= 0:
                q[link] = qid[j]
        T = r.fk(q)
        for name, (R, p) in choreonoid_fk(qid).items():
            i = r.link_index(name)
            assert np.allclose(T[i, :3, :3], R, atol=1e-12) and np.allclose(T[i, :3, 3], p, atol=1e-12)


def test_fixed_root_radian_units_and_welds(tmp_path):
    text = """
    format: ChoreonoidBody
    format_version: 1.0
    angle_unit: radian
    links:
      - { name: R, joint_type: fixed, translation: [ 0, 0, 1 ], rotation: [ 0, 1, 0, 1.0 ] }
      - { name: A, parent: R, joint_type: revolute, joint_axis: Y, joint_range: [ -1, 1 ], joint_id: 0 }
      - { name: F, parent: A, joint_type: fixed, translation: [ 1, 0, 0 ] }
    """
    r = load(write(tmp_path, text, "w.body"))
    assert r.name == "w" and r.num_links == 3
    assert [j.type for j in r.joints] == ["weld", "normal", "weld"]
    assert r.qmin[1] == -1 and r.qmax[1] == 1 and r.qmin[2] == r.qmax[2] == 0
    T = r.fk([0, 0.5, 0])
    R0 = rot([0, 1, 0], math.degrees(1.0))
    assert np.allclose(T[0, :3, 3], [0, 0, 1]) and np.allclose(T[0, :3, :3], R0)
    assert np.allclose(T[2, :3, 3], [0, 0, 1] + R0 @ rot([0, 1, 0], math.degrees(0.5)) @ [1, 0, 0])


SHAPES = """
format: ChoreonoidBody
formatVersion: 1.0
angleUnit: degree
name: S
links:
  -
    name: L
    jointType: fixed
    mass: 2.0
    centerOfMass: [ 0, 0, 1 ]
    inertia: [ 1, 0, 0, 0, 1, 0, 0, 0, 1 ]
    elements:
      - type: Shape
        geometry: { type: Box, size: [ 1, 2, 3 ] }
        appearance: &App { material: { diffuse: [ 0.5, 0.25, 1 ], transparency: 0.5 } }
      - type: Transform
        translation: [ 1, 0, 0 ]
        rotation: [ 0, 0, 1, 90 ]
        scale: [ 2, 2, 2 ]
        elements:
          Shape:
            geometry: { type: Cylinder, radius: 0.5, height: 2 }
            appearance: *App
      - type: Visual
        elements:
          - { type: Shape, geometry: { type: Sphere, radius: 3 } }
      - type: Collision
        elements:
          Shape: { translation: [ 0, 0, 5 ], geometry: { type: Capsule, radius: 1, height: 4 } }
      - type: RigidBody
        translation: [ 0, 0, -1 ]
        mass: 2.0
        inertia: [ 2, 0, 0, 0, 2, 0, 0, 0, 2 ]
      - type: ForceSensor
        name: FS
        id: 0
        translation: [ 0, 0, 0.5 ]
      - type: Shape
        geometry:
          type: TriangleMesh
          vertices: [ 0, 0, 0, 1, 0, 0, 0, 1, 0 ]
          faces: [ 0, 1, 2 ]
"""


def test_elements_shapes_visual_collision_mass(tmp_path):
    r = load(write(tmp_path, SHAPES))
    link = r.links[0]
    geoms = link.geometry.children
    kinds = [g.primitive if isinstance(g, Primitive) else g.kind for g in geoms]
    assert kinds == ["Box", "Cylinder", "Capsule", "TriangleMesh"]       # no visual-only sphere
    box, cyl, cap, tri = geoms
    assert np.allclose(box.params["origin"], [-0.5, -1, -1.5]) and np.allclose(box.params["dims"], [1, 2, 3])
    # cylinder: axis +y, centred: base disc at y = -h/2; placed by translate * rotate * scale
    assert np.allclose(cyl.params["center"], [0, -1, 0]) and np.allclose(cyl.params["axis"], [0, 1, 0])
    M = np.eye(4)
    M[:3, :3] = rot([0, 0, 1], 90) @ np.diag([2, 2, 2])
    M[:3, 3] = [1, 0, 0]
    assert np.allclose(cyl.transform, M)
    assert np.allclose(cap.transform[:3, 3], [0, 0, 5]) and cap.params["height"] == 4
    assert np.array_equal(tri.faces, [[0, 1, 2]])
    vis = link.visual_geometry.children
    assert [g.primitive if isinstance(g, Primitive) else g.kind for g in vis] == ["Box", "Cylinder", "Sphere", "TriangleMesh"]
    assert link.appearance.color == (0.5, 0.25, 1.0, 0.5)
    # mass: link (2 kg at z=1, I=1) + rigid body (2 kg at z=-1, I=2): COM 0, I about it
    assert link.mass == 4.0 and np.allclose(link.com, [0, 0, 0])
    expected = np.diag([1, 1, 1]) + np.diag([2, 2, 2]) + 2 * np.diag([1, 1, 0]) * 2   # parallel axis: m d^2 twice
    assert np.allclose(link.inertia, expected)
    dev = link.extras["choreonoid"]["devices"][0]
    assert dev["type"] == "ForceSensor" and np.allclose(dev["transform"][:3, 3], [0, 0, 0.5])


def test_link_defaults_mass_one(tmp_path):
    text = """
    format: ChoreonoidBody
    formatVersion: 1.0
    links:
      - { name: A, jointType: fixed }
      - { name: B, parent: A, jointType: revolute, jointId: 0, mass: 3 }
    """
    r = load(write(tmp_path, text))
    assert r.links[0].mass == 1.0 and np.allclose(r.links[0].inertia, np.eye(3))
    assert r.links[1].mass == 3.0 and np.allclose(r.links[1].inertia, np.eye(3))


def test_extrusion_square_prism(tmp_path):
    text = """
    format: ChoreonoidBody
    formatVersion: 1.0
    links:
      - name: A
        elements:
          Shape:
            geometry:
              type: Extrusion
              cross_section: [ 1, 1, 1, -1, -1, -1, -1, 1, 1, 1 ]
              spine: [ 0, 0, 0, 0, 0, 2 ]
              scale: [ 0.5, 0.5, 9 ]
    """
    r = load(write(tmp_path, text))
    m = r.links[0].geometry
    assert isinstance(m, TriangleMesh)
    v = m.vertices
    # spine along +z: the cross-section plane (x, z) is rotated so that +y -> +z, i.e. a
    # rotation of 90 deg about x: (x, 0, z) -> (x, -z, 0)
    assert np.allclose(v[:5], [[0.5, -0.5, 0], [0.5, 0.5, 0], [-0.5, 0.5, 0], [-0.5, -0.5, 0], [0.5, -0.5, 0]])
    assert np.allclose(v[5:, 2], 2) and len(m.faces) == 2 * 4 + 2 * 2


def test_mapping_links_and_merge_keys(tmp_path):
    text = """
    format: ChoreonoidBody
    formatVersion: 1.0
    common: &c { jointType: revolute, jointAxis: [ 1, 0, 0 ], jointRange: [ -10, 10 ] }
    links:
      - { name: A, jointType: fixed }
      - { <<: *c, name: B, parent: A, jointId: 0 }
      - { <<: *c, name: C, parent: B, jointId: 1, jointAxis: Z }
    """
    r = load(write(tmp_path, text))
    assert np.array_equal(r.link("B").axis, [1, 0, 0]) and np.array_equal(r.link("C").axis, [0, 0, 1])
    assert r.qmax[r.link_index("C")] == pytest.approx(math.radians(10))


def test_sub_body(tmp_path):
    write(tmp_path, """
    format: ChoreonoidBody
    formatVersion: 1.0
    links:
      - { name: HEAD, jointType: free }
      - { name: EYE, parent: HEAD, jointType: revolute, jointId: 0, translation: [ 0, 0, 1 ] }
    """, "sub.body")
    main = write(tmp_path, """
    format: ChoreonoidBody
    formatVersion: 1.0
    links:
      - { name: BODY, jointType: fixed }
      - { name: NECK, parent: BODY, jointType: revolute, jointId: 0, translation: [ 0, 0, 2 ] }
      - { type: SubBody, uri: sub.body, parent: NECK, prefix: "H_", jointIdOffset: 1, translation: [ 0, 0, 0.5 ], jointType: fixed }
    """)
    r = load(main)
    names = [r.links[i].name for i in r.source_link_order]
    assert names == ["BODY", "NECK", "H_HEAD", "H_EYE"]
    jl = r.joint_id_links
    assert [r.links[i].name for i in jl] == ["NECK", "H_EYE"]
    assert np.allclose(r.fk()[r.link_index("H_EYE"), :3, 3], [0, 0, 3.5])


@pytest.mark.parametrize("edit,msg", [
    (("parent: ELBOW", "parent: NOPE"), "parent link 'NOPE' of 'TIP' is not defined"),
    (("    parent: BASE\n    translation: [ 0, 0.1, 0 ]", "    parent: TIP\n    translation: [ 0, 0.1, 0 ]"),
     "not connected to the root"),
    (("name: HAND", "name: TIP"), "duplicated link name 'TIP'"),
    (("jointType: prismatic", "jointType: hinge"), "illegal joint_type 'hinge'"),
    (("rotation: [ 0, 0, 1, 90 ]", "rotation: [ 0, 0, 0, 90 ]"), "rotation axis is the zero vector"),
    (("format: ChoreonoidBody", "format: Other"), "cannot be loaded as a Choreonoid body"),
    (("formatVersion: 1.0", "formatVersion: 2.1"), "not supported"),
    (("jointRange: [ -150, 0 ]", "jointRange: [ -150, lots ]"), "unknown symbol 'lots'"),
    (("jointAxis: -X", "jointAxis: W"), "illegal joint_axis 'W'"),
    (("    jointType: fixed\n", "    jointType: fixed\n    elements: [ { type: Shape, geometry: { size: [1, 1, 1] } } ]\n"),
     "geometry has no 'type'"),
])
def test_bad_bodies(tmp_path, edit, msg):
    text = textwrap.dedent(ARM).lstrip("\n")
    assert edit[0] in text
    p = tmp_path / "bad.body"
    p.write_text(text.replace(edit[0], edit[1], 1))
    with pytest.raises(FormatError, match=msg) as e:
        load(str(p))
    assert e.value.line is not None and str(p) in str(e.value)


def test_radian_unit_not_allowed_in_version_2(tmp_path):
    p = write(tmp_path, "format: ChoreonoidBody\nformat_version: 2.0\nangle_unit: radian\nlinks: [ { name: A } ]\n")
    with pytest.raises(FormatError, match="radian is not allowed") as e:
        load(p)
    assert e.value.line == 3


def test_alias_bomb_is_bounded(tmp_path):
    lines = ["format: ChoreonoidBody", "formatVersion: 1.0", "e0: &e0 [ { type: Shape, geometry: { type: Sphere } } ]"]
    for i in range(1, 25):
        lines.append(f"e{i}: &e{i} [ {{ type: Group, elements: *e{i - 1} }}, {{ type: Group, elements: *e{i - 1} }} ]")
    lines.append("links: [ { name: A, elements: *e24 } ]")
    p = tmp_path / "bomb.body"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError, match="max_copies|max_nodes"):
        load(str(p))


def test_missing_mesh_warns(tmp_path):
    p = write(tmp_path, """
    format: ChoreonoidBody
    formatVersion: 1.0
    links:
      - { name: A, elements: { Resource: { uri: nothere.stl } } }
    """)
    with pytest.warns(roboio.RoboioWarning, match="nothere.stl"):
        r = roboio.load(p)
    assert r.links[0].geometry.missing
    with pytest.raises(FormatError, match="nothere.stl"):
        roboio.load(p, strict=True)


def test_control_character_is_located(tmp_path):
    p = tmp_path / "bad.body"
    p.write_bytes(b"format: ChoreonoidBody\nformatVersion: 1.0\nname: x\x01y\nlinks: []\n")
    with pytest.raises(roboio.FormatError) as e:
        roboio.load(p)
    assert e.value.line == 3 and e.value.column == 8 and "not allowed" in str(e.value)


TRIANGLE_DAE = """<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <library_geometries>{geoms}</library_geometries>
  <library_visual_scenes><visual_scene id="S">
    <node id="P-node" name="P"><translate>1 0 0.5</translate><rotate>0 0 1 90</rotate>
      <instance_geometry url="#tri0"/>
      <node id="C-node" name="C"><translate>0 2 0</translate><instance_geometry url="#tri1"/></node>
      <node id="D-node" name="D"><translate>0 0 3</translate><instance_geometry url="#tri2"/></node>
    </node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#S"/></scene>
</COLLADA>
"""
GEOM = """<geometry id="tri{k}"><mesh>
  <source id="p{k}"><float_array id="a{k}" count="9">{x} 0 0  {x} 1 0  {x} 0 1</float_array>
    <technique_common><accessor source="#a{k}" count="3" stride="3">
      <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
    </accessor></technique_common></source>
  <vertices id="v{k}"><input semantic="POSITION" source="#p{k}"/></vertices>
  <triangles count="1"><input semantic="VERTEX" source="#v{k}" offset="0"/><p>0 1 2</p></triangles>
</mesh></geometry>"""


def test_collada_resource_nodes_picked_as_choreonoid_does(tmp_path):
    # Choreonoid 1.x models (the tank: uri resource/tank.dae, node CHASSIS, ...) pick nodes
    # of a COLLADA scene: a picked node keeps its own and its ancestors' rotation but no
    # translation, and loses the nodes the file picks elsewhere (Choreonoid takes each picked
    # node out of the scene it loads once); before, the .dae was read as Inventor and failed
    (tmp_path / "parts.dae").write_text(TRIANGLE_DAE.format(
        geoms="".join(GEOM.format(k=k, x=x) for k, x in enumerate((0.1, 0.2, 0.3)))))
    p = write(tmp_path, """
    format: ChoreonoidBody
    formatVersion: 1.0
    links:
      - { name: A, jointType: free, elements: { Resource: { uri: parts.dae, node: P } } }
      - { name: B, parent: A, jointType: fixed, elements: { Resource: { uri: parts.dae, node: C } } }
    """)
    r = load(p)
    Rz = rot((0, 0, 1), 90)

    def placed(points):
        return np.array(points, dtype=float) @ Rz.T
    a = r.links[r.link_index("A")].geometry
    # P's own triangle and D (not picked: kept with its translation in P's frame), not C
    np.testing.assert_allclose(np.sort(a.world_vertices(), axis=0), np.sort(np.vstack([
        placed([[0.1, 0, 0], [0.1, 1, 0], [0.1, 0, 1]]),
        placed([[0.3, 0, 3], [0.3, 1, 3], [0.3, 0, 4]])]), axis=0), atol=1e-6)
    b = r.links[r.link_index("B")].geometry
    np.testing.assert_allclose(b.world_vertices(), placed([[0.2, 0, 0], [0.2, 1, 0], [0.2, 0, 1]]),
                               atol=1e-6)
    bad = write(tmp_path, """
    format: ChoreonoidBody
    formatVersion: 1.0
    links:
      - { name: A, elements: { Resource: { uri: parts.dae, node: NOPE } } }
    """, "bad.body")
    with pytest.raises(FormatError, match="NOPE"):
        load(bad).links[0].geometry.world_vertices()
