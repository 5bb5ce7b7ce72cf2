"""VRML 2.0 (VRML97) semantics, with expectations worked by hand or with scipy."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from roboio.errors import FormatError, RoboioWarning
from roboio.context import LoadContext
from roboio.formats.meshes.inventor import mesh_data

V2 = "#VRML V2.0 utf8\n"
P = np.array([[1, 2, 3], [4, 5, 6], [-1, 0, 2]], float)
TRI = ("Shape { geometry IndexedFaceSet { coord Coordinate { point [ 1 2 3, 4 5 6, -1 0 2 ] } "
       "coordIndex [ 0 1 2 -1 ] } }")


def load(tmp_path, body, name="t.wrl", header=V2, strict=False):
    p = tmp_path / name
    p.write_bytes((header + body).encode())
    ctx = LoadContext(str(p), strict=strict)
    return mesh_data(str(p), ctx), ctx


def rot(r):
    ax = np.asarray(r[:3], float)
    return Rotation.from_rotvec(ax / np.linalg.norm(ax) * r[3]).as_matrix()


def test_transform_applies_translation_rotation_scale_about_center(tmp_path):
    t, c, s = [1, 2, 3], [0.5, -0.5, 0.25], [2, 1, 0.5]
    r, so = [0, 1, 0, 0.7], [1, 1, 0, 0.3]
    body = (f"Transform {{ translation 1 2 3 rotation 0 1 0 0.7 scale 2 1 0.5 "
            f"scaleOrientation 1 1 0 0.3 center 0.5 -0.5 0.25 children [ {TRI} ] }}")
    d, _ = load(tmp_path, body)
    R, SO = rot(r), rot(so)
    expected = (R @ SO @ np.diag(s) @ SO.T @ (P - c).T).T + np.add(c, t)
    np.testing.assert_allclose(d["vertices"], expected, atol=1e-12)


def test_nested_transforms_and_children_without_brackets(tmp_path):
    body = ("Transform { translation 10 0 0 children Group { children [ "
            "Transform { scale 2 2 2 children " + TRI + " } ] } }")
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["vertices"], 2 * P + [10, 0, 0])


def test_transform_state_does_not_leak_to_siblings(tmp_path):
    body = "Transform { translation 5 5 5 children [ ] }\n" + TRI
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["vertices"], P)


def test_box_sphere_cylinder_cone(tmp_path):
    d, _ = load(tmp_path, "Shape { geometry Box { size 2 4 6 } }")
    np.testing.assert_array_equal([d["vertices"].min(0), d["vertices"].max(0)],
                                  [[-1, -2, -3], [1, 2, 3]])
    d, _ = load(tmp_path, "Shape { geometry Box { } }")
    np.testing.assert_array_equal(d["vertices"].max(0), [1, 1, 1])
    d, _ = load(tmp_path, "Shape { geometry Sphere { radius 3 } }")
    np.testing.assert_allclose(np.linalg.norm(d["vertices"], axis=1), 3)
    full, _ = load(tmp_path, "Shape { geometry Cylinder { radius 1 height 4 } }")
    side, _ = load(tmp_path, "Shape { geometry Cylinder { radius 1 height 4 top FALSE bottom FALSE } }")
    assert 0 < len(side["faces"]) < len(full["faces"])
    np.testing.assert_allclose([full["vertices"][:, 1].min(), full["vertices"][:, 1].max()], [-2, 2])
    cone, _ = load(tmp_path, "Shape { geometry Cone { bottomRadius 2 height 2 bottom FALSE } }")
    assert np.isclose(cone["vertices"][:, 1].max(), 1)


def test_material_colour_and_transparency(tmp_path):
    body = ("Shape { appearance Appearance { material Material { diffuseColor 0.1 0.2 0.3 "
            "transparency 0.5 } } geometry Box { } }")
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["face_colors"], [[0.1, 0.2, 0.3, 0.5]] * 12)
    d, _ = load(tmp_path, "Shape { appearance Appearance { } geometry Box { } }")
    assert "face_colors" not in d


def test_color_per_face_with_and_without_index(tmp_path):
    ifs = ("Shape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 0, 1 0 0, 1 1 0, 0 1 0 ] } "
           "coordIndex [ 0 1 2 -1 0 2 3 -1 ] color Color { color [ 1 0 0, 0 1 0, 0 0 1 ] } "
           "colorPerVertex FALSE %s } }")
    d, _ = load(tmp_path, ifs % "")
    np.testing.assert_allclose(d["face_colors"][:, :3], [[1, 0, 0], [0, 1, 0]])
    d, _ = load(tmp_path, ifs % "colorIndex [ 2 2 ]")
    np.testing.assert_allclose(d["face_colors"][:, :3], [[0, 0, 1], [0, 0, 1]])


def test_color_per_vertex_is_averaged(tmp_path):
    ifs = ("Shape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 0, 1 0 0, 1 1 0 ] } "
           "coordIndex [ 0 1 2 -1 ] color Color { color [ 1 0 0, 0 1 0, 0 0 1 ] } %s } }")
    d, _ = load(tmp_path, ifs % "")
    np.testing.assert_allclose(d["face_colors"], [[1 / 3, 1 / 3, 1 / 3, 1]])
    d, _ = load(tmp_path, ifs % "colorIndex [ 0 0 1 -1 ]")
    np.testing.assert_allclose(d["face_colors"], [[2 / 3, 1 / 3, 0, 1]])


def test_coordinate_def_use_and_non_convex_faces(tmp_path):
    body = ("Shape { geometry IndexedFaceSet { coord DEF C Coordinate { point "
            "[ 0 0 0, 2 0 0, 2 1 0, 1 1 0, 1 2 0, 0 2 0 ] } coordIndex [ 2 3 4 5 0 1 -1 ] convex FALSE } }\n"
            "Shape { geometry IndexedFaceSet { coord USE C coordIndex [ 0 1 2 -1 ] } }")
    d, _ = load(tmp_path, body)
    assert len(d["vertices"]) == 6          # one coordinate list, stored once
    assert len(d["faces"]) == 5
    v, f = d["vertices"], d["faces"][:4]
    area = 0.5 * np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])[:, 2]
    assert np.all(area > 0) and np.isclose(area.sum(), 3)


def test_switch_lod_collision_billboard_anchor(tmp_path):
    body = ("Switch { whichChoice 1 choice [ Shape { geometry Box { } } " + TRI + " ] }\n"
            "Switch { choice [ Shape { geometry Box { } } ] }\n"
            "LOD { level [ " + TRI + " Shape { geometry Box { } } ] }\n"
            "Collision { children [ " + TRI + " ] }\n"
            "Billboard { children [ " + TRI + " ] }\n"
            "Anchor { url \"x.html\" children [ " + TRI + " ] }\n")
    d, _ = load(tmp_path, body)
    assert len(d["faces"]) == 5


def test_headerless_wrl_is_vrml2(tmp_path):
    d, ctx = load(tmp_path, "DEF J2 Transform { translation 0 0 1 children [ " + TRI + " ] }",
                  header="")
    np.testing.assert_allclose(d["vertices"], P + [0, 0, 1])
    assert ctx.warnings == []


def test_def_without_node_type_reads_like_choreonoid(tmp_path):
    with pytest.warns(RoboioWarning, match="has no node type"):
        d, _ = load(tmp_path, "DEF Transform { translation 1 0 0 children [ " + TRI + " ] }\n"
                              "Transform { translation 2 0 0 children [ USE Transform ] }")
    np.testing.assert_allclose(d["vertices"], np.concatenate([P + [1, 0, 0], P + [3, 0, 0]]))


def test_proto_route_and_non_geometry_nodes_are_skipped(tmp_path):
    body = ("PROTO Joint [ exposedField MFNode children [ ] field SFVec3f t 0 0 0 ] "
            "{ Transform { children IS children } }\n"
            "Viewpoint { position 0 0 10 description \"a { b\" }\nNavigationInfo { type [ \"EXAMINE\" ] }\n"
            "DEF T TimeSensor { loop TRUE }\n"
            "Joint { children [ Shape { geometry Box { } } ] }\n" + TRI + "\nROUTE T.fraction_changed TO X.set_y\n")
    with pytest.warns(RoboioWarning) as rec:
        d, ctx = load(tmp_path, body)
    assert len(d["faces"]) == 1
    text = " ".join(ctx.warnings)
    assert "PROTO Joint" in text and "instance of PROTO Joint" in text and "ROUTE" in text
    assert "Viewpoint" not in text and "NavigationInfo" not in text
    assert len(rec) == len(ctx.warnings)


def test_inventor_nodes_inside_vrml2_are_read_as_coin_does(tmp_path):
    body = "Transform { translation 0 5 0 children [ Cube { width 60 height 1 depth 60 } ] }"
    with pytest.warns(RoboioWarning, match="Inventor node Cube"):
        d, _ = load(tmp_path, body)
    np.testing.assert_allclose([d["vertices"].min(0), d["vertices"].max(0)],
                               [[-30, 4.5, -30], [30, 5.5, 30]])


def test_elevation_grid(tmp_path):
    body = ("Shape { geometry ElevationGrid { xDimension 3 zDimension 2 xSpacing 0.5 zSpacing 2 "
            "height [ 0 1 2 3 4 5 ] } }")
    d, _ = load(tmp_path, body)
    assert len(d["faces"]) == 4
    np.testing.assert_allclose(d["vertices"][4], [0.5, 4, 2])


def test_unknown_field_of_a_known_node_is_an_error(tmp_path):
    with pytest.raises(FormatError, match="unknown field 'sizes' of Box") as e:
        load(tmp_path, "Shape { geometry Box { sizes 1 2 3 } }")
    assert (e.value.line, e.value.column) == (2, 24)


def test_one_named_node_in_its_file_frame_or_by_a_custom_rule(tmp_path):
    from roboio.formats.meshes.inventor import node_mesh
    body = ("DEF ROOT Transform { translation 0 0 1 rotation 0 0 1 1.5707963267948966 children [\n"
            "  DEF PART Transform { translation 5 0 0 scale 2 2 2 children [ " + TRI + " ] }\n"
            "  DEF PART Shape { geometry Box { } }\n] }")
    p = tmp_path / "n.wrl"
    p.write_text(V2 + body)
    whole, _ = load(tmp_path, body, name="n.wrl")
    mesh = node_mesh(str(p), LoadContext(str(p)), "PART")
    assert not mesh.is_loaded
    np.testing.assert_allclose(mesh.vertices, whole["vertices"][:3], atol=1e-12)  # first PART wins
    Rz = rot([0, 0, 1, np.pi / 2])

    def rotation_only(parent, local):          # e.g. Choreonoid's older node rule
        out = np.eye(4)
        out[:3, :3] = parent[:3, :3] @ local[:3, :3]
        return out

    mesh = node_mesh(str(p), LoadContext(str(p)), "PART", rotation_only)
    np.testing.assert_allclose(mesh.vertices, (Rz @ (2 * P).T).T, atol=1e-12)
    with pytest.raises(FormatError, match="no node named 'NONE'"):
        node_mesh(str(p), LoadContext(str(p)), "NONE").vertices


def test_coordinate_defined_in_a_line_set_is_used_by_a_face_set(tmp_path):
    # Choreonoid's DoubleArmV7 parts DEF their Coordinate inside an IndexedLineSet (edges)
    # and USE it in the IndexedFaceSet: lines draw nothing, but their nodes are read
    body = ("Shape { geometry IndexedLineSet { coord DEF pts Coordinate { point [ 1 2 3, 4 5 6, "
            "-1 0 2 ] } coordIndex [ 0 1 -1 ] } } "
            "Shape { geometry PointSet { coord USE pts } } "
            "Shape { geometry IndexedFaceSet { coord USE pts coordIndex [ 0 1 2 -1 ] } }")
    d, ctx = load(tmp_path, body)
    assert len(d["faces"]) == 1
    np.testing.assert_array_equal(d["vertices"][d["faces"][0]], P)
