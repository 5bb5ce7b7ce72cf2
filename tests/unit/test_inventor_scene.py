"""Inventor / VRML 1.0 semantics: shapes, triangulation, transforms, state, colours, DEF/USE.

Expected values are worked by hand or computed here with scipy's rotations, independently of
roboio's transform code."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from roboio.errors import RoboioWarning
from roboio.context import LoadContext
from roboio.formats.meshes.inventor import mesh_data

IV = "#Inventor V2.1 ascii\n"


def load(tmp_path, body, name="t.iv", header=IV, strict=False):
    p = tmp_path / name
    p.write_bytes((header + body).encode())
    ctx = LoadContext(str(p), strict=strict)
    return mesh_data(str(p), ctx), ctx


def rot(axis_angle):
    ax = np.asarray(axis_angle[:3], float)
    return Rotation.from_rotvec(ax / np.linalg.norm(ax) * axis_angle[3]).as_matrix()


def tri_set(d):
    """Triangles as sets of vertex coordinates, order-free (for triangulation checks)."""
    v = d["vertices"]
    return sorted(tuple(sorted(map(tuple, v[f]))) for f in d["faces"])


SQUARE = "Coordinate3 { point [ 0 0 0, 1 0 0, 1 1 0, 0 1 0 ] }\n"


# -- polygons -------------------------------------------------------------------------------
def test_quad_is_fanned_from_its_first_vertex(tmp_path):
    d, _ = load(tmp_path, SQUARE + "IndexedFaceSet { coordIndex [ 0, 1, 2, 3, -1 ] }")
    np.testing.assert_array_equal(d["faces"], [[0, 1, 2], [0, 2, 3]])
    np.testing.assert_array_equal(d["vertices"], [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]])
    assert "face_colors" not in d


def test_polygon_runs_final_separator_optional_and_short_faces_dropped(tmp_path):
    pts = "Coordinate3 { point [ 0 0 0, 1 0 0, 2 1 0, 1 2 0, 0 1 0 ] }\n"
    d, _ = load(tmp_path, pts + "IndexedFaceSet { coordIndex [ 0 1 -1 0 1 2 3 4 -1 4 3 2 ] }")
    np.testing.assert_array_equal(d["faces"], [[0, 1, 2], [0, 2, 3], [0, 3, 4], [4, 3, 2]])


def test_non_convex_polygon_is_ear_clipped_when_shape_hints_say_so(tmp_path):
    # L-shape: area 3; a fan from vertex 0 would put a triangle over the notch
    pts = "Coordinate3 { point [ 0 0 0, 2 0 0, 2 1 0, 1 1 0, 1 2 0, 0 2 0 ] }\n"
    face = "IndexedFaceSet { coordIndex [ 2, 3, 4, 5, 0, 1, -1 ] }"
    d, _ = load(tmp_path, "ShapeHints { faceType UNKNOWN_FACE_TYPE }\n" + pts + face)
    v, f = d["vertices"], d["faces"]
    assert len(f) == 4
    a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    areas = 0.5 * np.cross(b - a, c - a)[:, 2]
    assert np.all(areas > 0) and np.isclose(areas.sum(), 3.0)   # no overlap, same winding
    centroids = (a + b + c) / 3
    assert not np.any((centroids[:, 0] > 1) & (centroids[:, 1] > 1))   # nothing in the notch
    fanned, _ = load(tmp_path, pts + face)
    np.testing.assert_array_equal(fanned["faces"], [[2, 3, 4], [2, 4, 5], [2, 5, 0], [2, 0, 1]])


def test_inventor_1_shape_hints_default_to_concave(tmp_path):
    pts = "Coordinate3 { point [ 0 0 0, 2 0 0, 2 1 0, 1 1 0, 1 2 0, 0 2 0 ] }\n"
    face = "IndexedFaceSet { coordIndex [ 2, 3, 4, 5, 0, 1, -1 ] }"
    fan = [[2, 3, 4], [2, 4, 5], [2, 5, 0], [2, 0, 1]]
    v1 = "#Inventor V1.0 ascii\n"
    d, _ = load(tmp_path, "ShapeHints { }\n" + pts + face, header=v1)
    assert d["faces"].tolist() != fan
    d, _ = load(tmp_path, "ShapeHints { hints (SOLID | ORDERED | CONVEX) }\n" + pts + face, header=v1)
    assert d["faces"].tolist() == fan


def test_face_set_uses_consecutive_coordinates_from_start_index(tmp_path):
    pts = "Coordinate3 { point [ 9 9 9, 0 0 0, 1 0 0, 1 1 0, 0 1 0, 5 5 5, 6 5 5, 6 6 5 ] }\n"
    d, _ = load(tmp_path, pts + "FaceSet { startIndex 1 numVertices [ 4, -1 ] }")
    np.testing.assert_array_equal(d["faces"], [[1, 2, 3], [1, 3, 4], [5, 6, 7]])
    d, _ = load(tmp_path, pts + "FaceSet { startIndex 1 numVertices 3 }")
    np.testing.assert_array_equal(d["faces"], [[1, 2, 3]])


def test_triangle_strips_alternate_winding(tmp_path):
    pts = "Coordinate3 { point [ 0 0 0, 0 1 0, 1 0 0, 1 1 0, 2 0 0, 9 9 9 ] }\n"
    d, _ = load(tmp_path, pts + "IndexedTriangleStripSet { coordIndex [ 0 1 2 3 4 -1 5 ] }")
    np.testing.assert_array_equal(d["faces"], [[0, 1, 2], [2, 1, 3], [2, 3, 4]])
    d, _ = load(tmp_path, pts + "TriangleStripSet { numVertices [ 5 ] }")
    np.testing.assert_array_equal(d["faces"], [[0, 1, 2], [2, 1, 3], [2, 3, 4]])


def test_quad_mesh(tmp_path):
    pts = "Coordinate3 { point [ 0 0 0, 1 0 0, 2 0 0, 0 1 0, 1 1 0, 2 1 0 ] }\n"
    d, _ = load(tmp_path, pts + "QuadMesh { verticesPerRow 3 verticesPerColumn 2 }")
    assert len(d["faces"]) == 4
    v, f = d["vertices"], d["faces"]
    area = 0.5 * np.abs(np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])[:, 2]).sum()
    assert np.isclose(area, 2.0)


def test_vertex_property_holds_the_coordinates(tmp_path):
    body = ("IndexedFaceSet { coordIndex [ 0 1 2 -1 ] vertexProperty VertexProperty {"
            " vertex [ 0 0 0, 3 0 0, 0 3 0 ] orderedRGBA 0xff0000ff } }")
    d, _ = load(tmp_path, body)
    np.testing.assert_array_equal(d["vertices"], [[0, 0, 0], [3, 0, 0], [0, 3, 0]])
    np.testing.assert_allclose(d["face_colors"], [[1, 0, 0, 1]])


# -- primitives -----------------------------------------------------------------------------
def bounds(d):
    return np.stack([d["vertices"].min(0), d["vertices"].max(0)])


def test_cube_defaults_to_two_units(tmp_path):
    d, _ = load(tmp_path, "Cube { }")
    np.testing.assert_array_equal(bounds(d), [[-1, -1, -1], [1, 1, 1]])
    assert len(d["faces"]) == 12
    d, _ = load(tmp_path, "Cube { width 4 height 6 depth 8 }")
    np.testing.assert_array_equal(bounds(d), [[-2, -3, -4], [2, 3, 4]])


def test_sphere_vertices_lie_on_the_sphere(tmp_path):
    d, _ = load(tmp_path, "Sphere { radius 2.5 }")
    np.testing.assert_allclose(np.linalg.norm(d["vertices"], axis=1), 2.5)
    np.testing.assert_allclose(bounds(d)[:, 1], [-2.5, 2.5])     # poles on the Y axis


def test_cylinder_is_along_y_with_parts(tmp_path):
    d, _ = load(tmp_path, "Cylinder { radius 0.5 height 3 }")
    v = d["vertices"]
    np.testing.assert_allclose([v[:, 1].min(), v[:, 1].max()], [-1.5, 1.5])
    radial = np.linalg.norm(v[:, [0, 2]], axis=1)
    assert np.all(np.isclose(radial, 0.5) | np.isclose(radial, 0))
    full = len(d["faces"])
    sides, _ = load(tmp_path, "Cylinder { parts SIDES }")
    caps, _ = load(tmp_path, "Cylinder { parts (TOP | BOTTOM) }")
    assert len(sides["faces"]) + len(caps["faces"]) == full
    ys = caps["vertices"][caps["faces"]][..., 1]
    assert np.allclose(ys.max(axis=1) - ys.min(axis=1), 0)                  # flat caps


def test_cone_apex_up(tmp_path):
    d, _ = load(tmp_path, "Cone { bottomRadius 2 height 4 }")
    v = d["vertices"]
    assert np.isclose(v[:, 1].max(), 2) and np.isclose(v[:, 1].min(), -2)
    top = v[np.isclose(v[:, 1], 2)]
    np.testing.assert_allclose(top[:, [0, 2]], 0)
    sides, _ = load(tmp_path, "Cone { parts SIDES bottomRadius 2 height 4 }")
    assert len(sides["faces"]) < len(d["faces"])


# -- transforms -----------------------------------------------------------------------------
POINT = "Coordinate3 { point [ 1 2 3, 4 5 6, -1 0 2 ] } IndexedFaceSet { coordIndex [ 0 1 2 ] }"
P = np.array([[1, 2, 3], [4, 5, 6], [-1, 0, 2]], float)


def test_transform_composes_like_inventor(tmp_path):
    t, c, s = np.array([1, -2, 0.5]), np.array([0.3, 0.1, -0.7]), np.array([2, 3, 0.5])
    r, so = [0.2, 1, 0.3, 0.9], [1, 0.5, -0.2, 0.4]
    body = (f"Transform {{ translation {' '.join(map(str, t))} rotation {' '.join(map(str, r))} "
            f"scaleFactor {' '.join(map(str, s))} scaleOrientation {' '.join(map(str, so))} "
            f"center {' '.join(map(str, c))} }}\n" + POINT)
    d, _ = load(tmp_path, body)
    R, SO = rot(r), rot(so)
    expected = (R @ SO @ np.diag(s) @ SO.T @ (P - c).T).T + c + t
    np.testing.assert_allclose(d["vertices"], expected, atol=1e-12)


def test_transform_nodes_post_multiply_in_document_order(tmp_path):
    body = ("Translation { translation 10 0 0 }\nRotationXYZ { axis Z angle 1.5707963267948966 }\n"
            "Scale { scaleFactor 2 2 2 }\nRotation { rotation 1 0 0 3.141592653589793 }\n" + POINT)
    d, _ = load(tmp_path, body)
    expected = (rot([0, 0, 1, np.pi / 2]) @ (2 * rot([1, 0, 0, np.pi]) @ P.T)).T + [10, 0, 0]
    np.testing.assert_allclose(d["vertices"], expected, atol=1e-12)


def test_matrix_transform_is_written_with_row_vectors(tmp_path):
    # translation in elements 12..14, rotation part as Inventor writes it (transposed)
    R = rot([0, 0, 1, 0.5])
    A = np.eye(4)
    A[:3, :3] = R.T
    A[3, :3] = [-0.044, 1, 2]
    body = "MatrixTransform { matrix " + " ".join(repr(float(x)) for x in A.ravel()) + " }\n" + POINT
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["vertices"], P @ R.T + [-0.044, 1, 2], atol=1e-12)


def test_units_scale_relative_to_the_current_unit(tmp_path):
    body = "Units { units CENTIMETERS }\nUnits { units MILLIMETERS }\n" + POINT
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["vertices"], P * 0.001)


def test_separator_scopes_state_but_group_leaks_it(tmp_path):
    sep = "Separator { Translation { translation 5 0 0 } }\n" + POINT
    d, _ = load(tmp_path, sep)
    np.testing.assert_allclose(d["vertices"], P)
    grp = "Group { Translation { translation 5 0 0 } }\n" + POINT
    d, _ = load(tmp_path, grp)
    np.testing.assert_allclose(d["vertices"], P + [5, 0, 0])


def test_transform_separator_restores_only_the_matrix(tmp_path):
    body = ("TransformSeparator { Translation { translation 5 0 0 } Material { diffuseColor 1 0 0 } }\n"
            + POINT)
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["vertices"], P)
    np.testing.assert_allclose(d["face_colors"], [[1, 0, 0, 1]])


def test_switch_selects_one_child(tmp_path):
    body = ("Switch { whichChild 1 Translation { translation 1 0 0 } Translation { translation 0 7 0 } }\n"
            + POINT)
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["vertices"], P + [0, 7, 0])
    d, _ = load(tmp_path, "Switch { Cube { } }")       # default -1: nothing
    assert len(d["faces"]) == 0


def test_repeated_field_takes_the_last_value(tmp_path):
    d, _ = load(tmp_path, "Transform { translation 1 0 0 translation 0 0 3 }\n" + POINT,
                header="#VRML V1.0 ascii\n")
    np.testing.assert_allclose(d["vertices"], P + [0, 0, 3])


def test_so_prefix_is_accepted(tmp_path):
    d, _ = load(tmp_path, "SoScale { scaleFactor 2 2 2 }\n" + POINT)
    np.testing.assert_allclose(d["vertices"], 2 * P)


# -- DEF / USE --------------------------------------------------------------------------------
def test_use_instantiates_again_under_the_current_state(tmp_path):
    body = ("DEF TRI Separator { " + POINT + " }\n"
            "Translation { translation 0 0 10 }\nUSE TRI\n")
    d, _ = load(tmp_path, body)
    assert len(d["faces"]) == 2
    np.testing.assert_allclose(d["vertices"], np.concatenate([P, P + [0, 0, 10]]))


def test_shared_coordinates_are_stored_once(tmp_path):
    body = (SQUARE + "IndexedFaceSet { coordIndex [ 0 1 2 -1 ] }\n"
                     "IndexedFaceSet { coordIndex [ 0 2 3 -1 ] }\n")
    d, _ = load(tmp_path, body)
    assert len(d["vertices"]) == 4
    np.testing.assert_array_equal(d["faces"], [[0, 1, 2], [0, 2, 3]])


def test_def_names_with_odd_characters(tmp_path):
    body = "DEF leg+0 Separator { Cube { } }\nDEF _<STL_BINARY> Group { USE leg+0 }"
    d, _ = load(tmp_path, body)
    assert len(d["faces"]) == 24


# -- colours --------------------------------------------------------------------------------
TWO_FACES = ("Coordinate3 { point [ 0 0 0, 1 0 0, 1 1 0, 0 1 0 ] }\n")


def test_overall_material_colour_and_transparency(tmp_path):
    body = ("Material { diffuseColor 0.2 0.4 0.6 transparency 0.25 }\n" + TWO_FACES +
            "IndexedFaceSet { coordIndex [ 0 1 2 -1 0 2 3 -1 ] }")
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["face_colors"], [[0.2, 0.4, 0.6, 0.75]] * 2)


def test_per_face_and_per_face_indexed_bindings(tmp_path):
    mat = "Material { diffuseColor [ 1 0 0, 0 1 0, 0 0 1 ] }\n"
    body = (mat + "MaterialBinding { value PER_FACE }\n" + TWO_FACES +
            "IndexedFaceSet { coordIndex [ 0 1 2 3 -1 0 2 3 -1 ] }")
    d, _ = load(tmp_path, body)      # the quad's two triangles share face 0's colour
    np.testing.assert_allclose(d["face_colors"][:, :3], [[1, 0, 0], [1, 0, 0], [0, 1, 0]])
    body = (mat + "MaterialBinding { value PER_FACE_INDEXED }\n" + TWO_FACES +
            "IndexedFaceSet { coordIndex [ 0 1 2 -1 0 2 3 -1 ] materialIndex [ 2, 0 ] }")
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["face_colors"][:, :3], [[0, 0, 1], [1, 0, 0]])


def test_per_vertex_indexed_gives_the_mean_of_the_corners(tmp_path):
    mat = "Material { diffuseColor [ 1 0 0, 0 1 0, 0 0 1, 1 1 1 ] }\n"
    body = (mat + "MaterialBinding { value PER_VERTEX_INDEXED }\n" + TWO_FACES +
            "IndexedFaceSet { coordIndex [ 0 1 2 -1 0 2 3 -1 ] }")
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["face_colors"][:, :3], [[1 / 3, 1 / 3, 1 / 3], [2 / 3, 1 / 3, 2 / 3]])


def test_face_set_per_vertex_colours_count_from_zero(tmp_path):
    mat = "Material { diffuseColor [ 1 0 0, 0 1 0, 0 0 1, 1 1 1, 0 0 0 ] }\n"
    pts = "Coordinate3 { point [ 9 9 9, 0 0 0, 1 0 0, 0 1 0, 1 1 0 ] }\n"
    body = mat + "MaterialBinding { value PER_VERTEX }\n" + pts + "FaceSet { startIndex 1 numVertices 4 }"
    d, _ = load(tmp_path, body)      # corners 0,1,2 then 0,2,3 of the material list
    np.testing.assert_allclose(d["face_colors"][:, :3], [[1 / 3, 1 / 3, 1 / 3], [2 / 3, 1 / 3, 2 / 3]])
    body = mat + "MaterialBinding { value PER_FACE }\n" + pts + "FaceSet { startIndex 2 numVertices [ 3 ] }"
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["face_colors"][:, :3], [[1, 0, 0]])


def test_material_index_minus_one_means_coord_index(tmp_path):
    mat = "Material { diffuseColor [ 1 0 0, 0 1 0, 0 0 1, 1 1 1 ] }\n"
    body = (mat + "MaterialBinding { value PER_VERTEX_INDEXED }\n" + TWO_FACES +
            "IndexedFaceSet { coordIndex [ 3 3 3 -1 ] materialIndex -1 }")
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["face_colors"], [[1, 1, 1, 1]])


def test_vrml1_emissive_only_material_is_the_colour(tmp_path):
    body = "Material { emissiveColor [ 0 1 0, 0 0 1 ] }\nCube { }"
    d, _ = load(tmp_path, body, name="e.wrl", header="#VRML V1.0 ascii\n")
    np.testing.assert_allclose(d["face_colors"], [[0, 1, 0, 1]] * 12)
    d, _ = load(tmp_path, body)                 # Inventor: emissive is not the diffuse colour
    np.testing.assert_allclose(d["face_colors"], [[0.8, 0.8, 0.8, 1]] * 12)


def test_uncoloured_shapes_get_default_grey_when_others_are_coloured(tmp_path):
    body = ("Separator { Material { diffuseColor 1 0 0 } Cube { } }\n"
            "Separator { Cube { } }\n")
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["face_colors"][:12], [[1, 0, 0, 1]] * 12)
    np.testing.assert_allclose(d["face_colors"][12:], [[0.8, 0.8, 0.8, 1]] * 12)


# -- VRML 1.0 -------------------------------------------------------------------------------
def test_vrml1_file_reads_like_inventor(tmp_path):
    body = ("Separator {\n Material { diffuseColor 0 0 1 }\n"
            " MatrixTransform { matrix 1 0 0 0  0 1 0 0  0 0 1 0  7 8 9 1 }\n"
            " Coordinate3 { point [ 1 2 3, 4 5 6, -1 0 2 ] }\n"
            " IndexedFaceSet { coordIndex [ 0, 1, 2, -1 ] }\n}\n")
    d, _ = load(tmp_path, body, name="t.wrl", header="#VRML V1.0 ascii\n")
    np.testing.assert_allclose(d["vertices"], P + [7, 8, 9])
    np.testing.assert_allclose(d["face_colors"], [[0, 0, 1, 1]])


def test_empty_file_is_an_empty_mesh(tmp_path):
    d, ctx = load(tmp_path, "\n", name="faux.wrl", header="#VRML V1.0 ascii\n")
    assert d["vertices"].shape == (0, 3) and d["faces"].shape == (0, 3)
    assert ctx.warnings == []


def test_crlf_and_comments_do_not_change_the_result(tmp_path):
    body = ("# comment { [ \nSeparator { # open {\n"
            "Coordinate3 { point [ 1 2 3, # ] } a comment inside the block\n 4 5 6, -1 0 2 ] }\n"
            "IndexedFaceSet { coordIndex [ 0 1 2 ] } # }\n}\n")
    lf, _ = load(tmp_path, body)
    crlf, _ = load(tmp_path, body.replace("\n", "\r\n"), header=IV.replace("\n", "\r\n"))
    np.testing.assert_array_equal(lf["vertices"], crlf["vertices"])
    np.testing.assert_array_equal(lf["faces"], crlf["faces"])
    np.testing.assert_allclose(lf["vertices"], P)


def test_coordinate4_is_homogeneous(tmp_path):
    d, _ = load(tmp_path, "Coordinate4 { point [ 2 4 6 2, 1 0 0 1, 0 3 0 3 ] }\n"
                          "IndexedFaceSet { coordIndex [ 0 1 2 ] }")
    np.testing.assert_allclose(d["vertices"], [[1, 2, 3], [1, 0, 0], [0, 1, 0]])


def test_base_color_and_packed_color(tmp_path):
    d, _ = load(tmp_path, "Material { transparency 0.5 }\nBaseColor { rgb 0 0 1 }\nCube { }")
    np.testing.assert_allclose(d["face_colors"][0], [0, 0, 1, 0.5])
    d, _ = load(tmp_path, "PackedColor { orderedRGBA 0x00ff0080 }\nCube { }")
    np.testing.assert_allclose(d["face_colors"][0], [0, 1, 0, 128 / 255])


def test_reset_transform_and_lod(tmp_path):
    body = ("Translation { translation 9 9 9 }\nResetTransform { }\n"
            "LOD { range [ 10 ] Separator { " + POINT + " } Cube { } }")
    d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["vertices"], P)            # first (most detailed) child only


def test_3d_text_is_skipped_with_a_warning(tmp_path):
    with pytest.warns(RoboioWarning, match="AsciiText skipped"):
        d, _ = load(tmp_path, 'AsciiText { string "hi" }\nCube { }', name="t.wrl",
                    header="#VRML V1.0 ascii\n")
    assert len(d["faces"]) == 12


def test_short_material_index_warns(tmp_path):
    body = ("Material { diffuseColor [ 1 0 0, 0 1 0 ] }\nMaterialBinding { value PER_FACE_INDEXED }\n"
            + TWO_FACES + "IndexedFaceSet { coordIndex [ 0 1 2 -1 0 2 3 -1 ] materialIndex [ 1 ] }")
    with pytest.warns(RoboioWarning, match="1 entries, 2 needed"):
        d, _ = load(tmp_path, body)
    np.testing.assert_allclose(d["face_colors"][:, :3], [[0, 1, 0], [0, 1, 0]])
