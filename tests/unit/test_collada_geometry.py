"""Geometry, colours and rigid bodies of COLLADA links, as OpenRAVE reads them."""
import math
import os
import warnings

import numpy as np
import pytest

from collada_docs import robot_dae
from roboio.context import LoadContext
from roboio.errors import FormatError
from roboio.formats.openrave.collada._load import read_body

SQUARE = "0 0 0  1 0 0  1 1 0  0 1 0  0 0 1"


def mesh(gid, prim, positions=SQUARE, extra="", stride=3):
    n = len(positions.split())
    return f"""<geometry id="{gid}" name="{gid}n"><mesh>
<source id="{gid}_pos"><float_array id="{gid}_arr" count="{n}">{positions}</float_array>
<technique_common><accessor source="#{gid}_arr" count="{n // stride}" stride="{stride}"/></technique_common></source>
<vertices id="{gid}_v"><input semantic="POSITION" source="#{gid}_pos"/></vertices>
{prim}</mesh>{extra}</geometry>"""


def effect(gid, phong):
    return (f'<effect id="{gid}_eff"><profile_COMMON><technique sid="t"><phong>{phong}</phong></technique>'
            f'</profile_COMMON></effect>')


def material(gid):
    return f'<library_materials><material id="{gid}_mat"><instance_effect url="#{gid}_eff"/></material></library_materials>'


def one_link(geoms, ids, effects="", mats="", own="", physics="", unit=""):
    links = [{"name": "base", "parent": None, "geoms": ids, "own": own},
             {"name": "arm", "parent": 0, "types": ["revolute"], "axes": ["0 0 1"],
              "att": "<translate>0 0 1</translate>"}]
    doc = robot_dae(links, geometries=geoms, effects=effects, physics=physics, unit=unit)
    return doc.replace("<library_kinematics_models>", mats + "<library_kinematics_models>")


def read(doc):
    ctx = LoadContext("g.dae")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = read_body(doc.encode(), ctx)
    return body, ctx.warnings


def test_primitive_sets_become_triangles():
    tri = '<triangles count="2" material="mat0"><input semantic="VERTEX" source="#x" offset="0"/>' \
          '<input semantic="NORMAL" source="#n" offset="1"/><p>0 9 1 9 2 9  0 9 2 9 3 9</p></triangles>'
    poly = '<polylist count="2"><input semantic="VERTEX" source="#x" offset="0"/><vcount>4 3</vcount>' \
           '<p>0 1 2 3  0 1 4</p></polylist>'
    strip = '<tristrips count="1"><input semantic="VERTEX" source="#x" offset="0"/><p>0 1 2 3 4</p></tristrips>'
    fan = '<trifans count="1"><input semantic="VERTEX" source="#x" offset="0"/><p>4 0 1 2</p></trifans>'
    poly2 = '<polygons count="1"><input semantic="VERTEX" source="#x" offset="0"/><p>0 1 2 3</p></polygons>'
    lines = '<lines count="1"><input semantic="VERTEX" source="#x" offset="0"/><p>0 1</p></lines>'
    g = mesh("g", tri + poly + strip + fan + poly2 + lines)
    body, warns = read(one_link(g, ["g"]))
    geoms = body.links[0].geometries
    # OpenRAVE's order: triangles, trifans, tristrips, polylist (then roboio's polygons);
    # corners as indices of the file's positions (each set keeps the positions it uses)
    P = np.array(SQUARE.split(), float).reshape(-1, 3)
    expect = [[[0, 1, 2], [0, 2, 3]],
              [[4, 0, 1], [4, 1, 2]],
              [[0, 1, 2], [1, 3, 2], [2, 3, 4]],
              [[0, 1, 2], [0, 2, 3], [0, 1, 4]],
              [[0, 1, 2], [0, 2, 3]]]
    assert len(geoms) == len(expect)
    for g_, e in zip(geoms, expect):
        assert np.array_equal(g_.vertices[g_.faces], P[e])
        assert np.array_equal(g_.vertices, P[np.unique(e)])        # only what it uses, in order
    assert all(g.kind == "trimesh" and g.name == "gn" for g in geoms)
    assert np.allclose(geoms[0].vertices[2], [1, 1, 0])
    assert any("polygons" in w for w in warns)


def test_incomplete_triangles_dropped_with_warning_and_bad_index_error():
    g = mesh("g", '<triangles count="3"><input semantic="VERTEX" source="#x" offset="0"/><p>0 1 2 0 2</p></triangles>')
    body, warns = read(one_link(g, ["g"]))
    assert body.links[0].geometries[0].faces.tolist() == [[0, 1, 2]]
    assert any("complete triangles" in w for w in warns)
    g = mesh("g", '<triangles count="1"><input semantic="VERTEX" source="#x" offset="0"/><p>0 1 7</p></triangles>')
    with pytest.raises(FormatError, match="index 7 out of range"):
        read(one_link(g, ["g"]))


def test_accessor_stride_units_and_geometry_frame():
    g = mesh("g", '<triangles count="1"><input semantic="VERTEX" source="#x" offset="0"/><p>0 1 2</p></triangles>',
             positions="0 0 0 9  1 0 0 9  0 1 0 9", stride=4)
    body, _ = read(one_link(g, ["g"], unit=' meter="0.5"'))
    v = body.links[0].geometries[0].vertices
    assert np.allclose(v, [[0, 0, 0], [0.5, 0, 0], [0, 0.5, 0]])


def info(shape, transform="<translate>0 0 0.1</translate>", visible="true"):
    return (f'<extra type="geometry_info"><technique profile="OpenRAVE">{transform}{shape}'
            f'<visible><bool>{visible}</bool></visible></technique></extra>')


def test_geometry_info_primitives_replace_the_mesh():
    tri = '<triangles count="1" material="mat0"><input semantic="VERTEX" source="#x" offset="0"/><p>0 1 2</p></triangles>'
    geoms = "".join([
        mesh("b", tri, extra=info("<box><half_extents>0.1 0.2 0.3</half_extents></box>")),
        mesh("s", tri, extra=info("<sphere><radius>0.5</radius></sphere>", visible="false")),
        mesh("c", tri, extra=info("<cylinder><radius>0.1</radius><height>2</height></cylinder>")),
        mesh("z", tri, extra=info("<cylinderz><radius>0.1</radius><height>2</height></cylinderz>")),
        mesh("k", tri, extra=info("<capsule><radius>1</radius></capsule>")),
    ])
    body, warns = read(one_link(geoms, ["b", "s", "c", "z", "k"]))
    gs = body.links[0].geometries
    assert [g.kind for g in gs] == ["box", "sphere", "cylinder", "cylinder", "trimesh"]
    assert np.allclose(gs[0].params["half_extents"], [0.1, 0.2, 0.3])
    assert np.allclose(gs[0].transform[:3, 3], [0, 0, 0.1])
    assert gs[1].params["radius"] == 0.5 and not gs[1].visible
    # <cylinder> is along the y axis: its z (the stored cylinder axis) maps onto +/- y
    zc = gs[2].transform[:3, :3] @ [0, 0, 1]
    assert np.allclose(abs(zc), [0, 1, 0])
    assert np.allclose(gs[3].transform[:3, :3], np.eye(3))
    assert any("capsule" in w for w in warns)                  # unsupported: the mesh stays


@pytest.mark.parametrize("phong, diffuse, transparency", [
    ("<diffuse><color>0.5 0.4 0.3 0</color></diffuse>", (0.5, 0.4, 0.3), 0.0),   # alpha 0 -> reset opaque
    ("<diffuse><color>0.5 0.4 0.3 0.25</color></diffuse>", (0.5, 0.4, 0.3), 0.75),
    ("<diffuse><color>1 1 1 0</color></diffuse><transparency><float>0.8</float></transparency>", (1, 1, 1), 0.2 + 0.0),
    ("<ambient><color>0 0 0 0.5</color></ambient><diffuse><color>1 0 0</color></diffuse>", (1, 0, 0), 0.5),
])
def test_phong_colours(phong, diffuse, transparency):
    tri = '<triangles count="1" material="mat0"><input semantic="VERTEX" source="#x" offset="0"/><p>0 1 2</p></triangles>'
    body, _ = read(one_link(mesh("g", tri), ["g"], effects=effect("g", phong), mats=material("g")))
    g = body.links[0].geometries[0]
    assert g.diffuse == pytest.approx(diffuse)
    assert g.transparency == pytest.approx(transparency)


PHYSICS = """<library_physics_scenes><physics_scene id="ps">
  <instance_physics_model url="#pm" parent="#visual1">
    <instance_rigid_body body="r0" target="#v.node0"/><instance_rigid_body body="r1" target="#v.node1"/>
  </instance_physics_model></physics_scene></library_physics_scenes>
<library_physics_models><physics_model id="pm">
  <rigid_body sid="r0"><technique_common><dynamic>false</dynamic><mass>3</mass>
    <mass_frame><translate>0 0 0.5</translate></mass_frame><inertia>1 2 3</inertia></technique_common></rigid_body>
  <rigid_body sid="r1"><technique_common><dynamic>true</dynamic><mass>2</mass>
    <mass_frame><translate>0.1 0 1.2</translate><rotate>0 0 1 90</rotate></mass_frame><inertia>4 5 6</inertia>
  </technique_common></rigid_body>
</physics_model></library_physics_models>"""


def test_rigid_bodies_mass_frames_are_in_the_body_frame():
    doc = one_link("", [], physics=PHYSICS).replace(
        "<instance_kinematics_scene url=", '<instance_physics_scene url="#ps"/><instance_kinematics_scene url=')
    body, _ = read(doc)
    base, arm = body.links
    assert base.static and base.mass == 3 and base.inertia_moments == (1, 2, 3)
    assert np.allclose(base.mass_frame[:3, 3], [0, 0, 0.5])
    assert not arm.static and arm.mass == 2
    # arm sits at z = 1: its centre of mass (0.1, 0, 1.2) in the body frame is (0.1, 0, 0.2) in its own
    assert np.allclose(arm.mass_frame[:3, 3], [0.1, 0, 0.2])
    assert np.allclose(arm.mass_frame[:3, :3] @ [1, 0, 0], [0, 1, 0])


def test_many_primitive_sets_keep_only_the_positions_they_use(tmp_path):
    """kuka-kr150/zange.zae: every <triangles> of a mesh got the whole position array
    (kr150: 2,472,090 vertices stored for 23,346 used; zange 7.5 GB). Each set now keeps
    what its faces use, and a URDF written from it has one mesh file per link."""
    import roboio
    n = 400                                  # 400 sets, each one triangle of a 1200-vertex mesh
    pos = " ".join(f"{k} {k % 7} {k % 5}" for k in range(3 * n))
    sets = "".join(f'<triangles count="1"><input semantic="VERTEX" source="#x" offset="0"/>'
                   f'<p>{3 * k} {3 * k + 1} {3 * k + 2}</p></triangles>' for k in range(n))
    doc = one_link(mesh("g", sets, positions=pos), ["g"])
    body, _ = read(doc)
    geoms = body.links[0].geometries
    assert len(geoms) == n and sum(len(g.vertices) for g in geoms) == 3 * n
    P = np.array(pos.split(), float).reshape(-1, 3)
    assert np.array_equal(geoms[7].vertices[geoms[7].faces], P[[[21, 22, 23]]])
    (tmp_path / "r.dae").write_text(doc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = roboio.load(str(tmp_path / "r.dae"))
        roboio.save(robot, str(tmp_path / "out" / "r.urdf"))
    files = [f for f in os.listdir(tmp_path / "out" / "r_meshes")]
    assert 1 <= len(files) <= 2, files          # one mesh of the link (collision, maybe visual)
    back = roboio.load(str(tmp_path / "out" / "r.urdf"))
    m = back.links[[l.name for l in back.links].index("base")].geometry
    v = np.asarray(m.vertices) @ m.transform[:3, :3].T + m.transform[:3, 3]
    assert len(m.faces) == n
    np.testing.assert_allclose(np.sort(v[m.faces].reshape(-1, 3), axis=0), np.sort(P, axis=0), atol=1e-6)
