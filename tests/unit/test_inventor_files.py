"""Inventor/VRML as files: includes, bad input, binary Inventor, registration and laziness."""
import struct
import warnings

import numpy as np
import pytest

from roboio.errors import FormatError, RoboioWarning
from roboio.context import LoadContext
from roboio.formats import loading, registry
from roboio.formats.meshes.inventor import mesh_data

IV = "#Inventor V2.1 ascii\n"
TRI = "Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0 ] } IndexedFaceSet { coordIndex [ 0 1 2 ] }"


def write(path, text):
    path.write_bytes(text.encode())
    return str(path)


def load(path, strict=False, limits=None):
    return mesh_data(str(path), LoadContext(str(path), strict=strict, limits=limits))


# -- includes ---------------------------------------------------------------------------------
def test_file_include_is_relative_and_acts_as_a_group(tmp_path):
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "part.iv", IV + "Translation { translation 0 0 5 }\n" + TRI)
    main = write(tmp_path / "main.iv", IV + 'Separator { File { name "sub/part.iv" } ' + TRI + " }")
    d = load(main)
    # the Translation inside the included file leaks to the next sibling (File is a Group)
    np.testing.assert_allclose(d["vertices"][3:], d["vertices"][:3])
    np.testing.assert_allclose(d["vertices"][:3, 2], 5)


def test_vrml2_inline_and_vrml1_wwwinline(tmp_path):
    write(tmp_path / "box.wrl", "#VRML V2.0 utf8\nShape { geometry Box { } }")
    main = write(tmp_path / "m.wrl", '#VRML V2.0 utf8\nTransform { translation 3 0 0 children '
                                     'Inline { url [ "http://x/none.wrl" "box.wrl" ] } }')
    d = load(main)
    np.testing.assert_allclose(d["vertices"].min(0), [2, -1, -1])
    v1 = write(tmp_path / "v1.wrl", '#VRML V1.0 ascii\nWWWInline { name "box.wrl" }')
    assert len(load(v1)["faces"]) == 12


def test_dialects_can_include_each_other(tmp_path):
    write(tmp_path / "v2.wrl", "#VRML V2.0 utf8\nShape { geometry Box { } }")
    write(tmp_path / "iv.iv", IV + "Cube { }")
    a = load(write(tmp_path / "a.iv", IV + 'Translation { translation 5 0 0 } File { name "v2.wrl" }'))
    np.testing.assert_allclose(a["vertices"].min(0), [4, -1, -1])
    b = load(write(tmp_path / "b.wrl", '#VRML V2.0 utf8\nTransform { translation 0 5 0 children '
                                       'Inline { url "iv.iv" } }'))
    np.testing.assert_allclose(b["vertices"].min(0), [-1, 4, -1])


def test_self_include_is_reported_not_followed(tmp_path):
    main = write(tmp_path / "self.iv", IV + 'Separator {\n  File { name "self.iv" }\n}')
    with pytest.raises(FormatError, match="include cycle") as e:
        load(main)
    assert (e.value.line, e.value.column) == (3, 10)


def test_mutual_include_cycle(tmp_path):
    write(tmp_path / "a.iv", IV + 'File { name "b.iv" }')
    write(tmp_path / "b.iv", IV + 'File { name "a.iv" }')
    with pytest.raises(FormatError, match=r"a\.iv -> .*b\.iv -> .*a\.iv"):
        load(tmp_path / "a.iv")


def test_same_file_included_twice_is_not_a_cycle(tmp_path):
    write(tmp_path / "p.iv", IV + TRI)
    main = write(tmp_path / "m.iv", IV + 'File { name "p.iv" } Translation { translation 1 0 0 } '
                                         'File { name "p.iv" }')
    assert len(load(main)["faces"]) == 2


def test_missing_include_warns_or_fails_in_strict_mode(tmp_path):
    main = write(tmp_path / "m.iv", IV + 'File { name "gone.iv" }\n' + TRI)
    with pytest.warns(RoboioWarning, match="gone.iv.*not found"):
        d = load(main)
    assert len(d["faces"]) == 1
    with pytest.raises(FormatError, match="gone.iv"):
        load(main, strict=True)


# -- bad input ------------------------------------------------------------------------------
def test_unclosed_brace_reported_at_the_opening_brace(tmp_path):
    p = write(tmp_path / "u.iv", IV + "Separator {\n  Group {\n    Cube { }\n")
    with pytest.raises(FormatError) as e:
        load(p)
    assert (e.value.line, e.value.column) == (3, 9)
    assert "never closed" in str(e.value) and "u.iv:3:9" in str(e.value)


def test_mismatched_bracket(tmp_path):
    p = write(tmp_path / "m.iv", IV + "Coordinate3 { point [ 0 0 0 } }")
    with pytest.raises(FormatError) as e:
        load(p)
    assert e.value.line == 2


def test_extra_closing_brace_at_the_end_warns_like_coin(tmp_path):
    p = write(tmp_path / "x.iv", IV + "Separator { Cube { } }\n}\n")
    with pytest.warns(RoboioWarning, match=r"extra '\}'"):
        d = load(p)
    assert len(d["faces"]) == 12
    with pytest.raises(FormatError, match="x.iv:3:1"):
        load(p, strict=True)


def test_unknown_node_is_skipped_with_a_warning_and_braces_still_balance(tmp_path):
    body = IV + ("Separator {\n  Gizmo { a [ 1 2 ] b { c { } } s \"}\" }\n  Gizmo { }\n  Cube { }\n}")
    p = write(tmp_path / "g.iv", body)
    with pytest.warns(RoboioWarning) as rec:
        d = load(p)
    assert len(d["faces"]) == 12
    msgs = [str(w.message) for w in rec]
    assert msgs == [f"{p}:3:3: unknown node type Gizmo skipped (2 times)"]


def test_malformed_number_in_a_field(tmp_path):
    p = write(tmp_path / "n.iv", IV + "Coordinate3 { point [\n 0 0 0,\n 1 O 0 ] }")
    with pytest.raises(FormatError) as e:
        load(p)
    assert (e.value.line, e.value.column) == (4, 4)


def test_wrong_number_count(tmp_path):
    p = write(tmp_path / "c.iv", IV + "Coordinate3 { point [ 0 0 0, 1 0 ] }")
    with pytest.raises(FormatError, match="groups of 3 numbers, got 5"):
        load(p)


def test_out_of_range_index_is_an_error(tmp_path):
    p = write(tmp_path / "i.iv", IV + "Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0 ] }\n"
                                      "IndexedFaceSet { coordIndex [ 0 1 3 -1 ] }")
    with pytest.raises(FormatError, match=r"coordIndex\[2\] = 3 is out of range") as e:
        load(p)
    assert e.value.line == 3
    p = write(tmp_path / "j.iv", IV + "IndexedFaceSet { coordIndex [ 0 1 2 ] }")
    with pytest.raises(FormatError, match="no coordinates precede it"):
        load(p)


def test_use_errors(tmp_path):
    with pytest.raises(FormatError, match="no node was defined with DEF X"):
        load(write(tmp_path / "a.iv", IV + "USE X"))
    with pytest.raises(FormatError, match="inside the definition of X"):
        load(write(tmp_path / "b.iv", IV + "DEF X Separator { USE X }"))


def test_def_use_explosion_is_refused(tmp_path):
    body = "DEF A0 Cube { }\n" + "".join(f"DEF A{i} Group {{ USE A{i - 1} USE A{i - 1} }}\n"
                                        for i in range(1, 12))
    with pytest.raises(FormatError, match="over the limit max_triangles=10,000"):
        load(write(tmp_path / "e.iv", IV + body), limits={"max_triangles": 10_000})
    with pytest.raises(FormatError, match="copied by USE .* over the limit max_copies=1,000"):
        load(write(tmp_path / "e.iv", IV + body), limits={"max_copies": 1000})


def test_too_deep_nesting_is_an_error_not_a_crash(tmp_path):
    body = "Separator { " * 500 + "}" * 500
    with pytest.raises(FormatError, match="over the limit max_depth"):
        load(write(tmp_path / "d.iv", IV + body))


def test_missing_or_unknown_header(tmp_path):
    with pytest.raises(FormatError, match="first line must be a header"):
        load(write(tmp_path / "h.iv", "Separator { }"))
    with pytest.raises(FormatError, match="unsupported VRML version"):
        load(write(tmp_path / "h.wrl", "#VRML V3.0 utf8\nGroup { }"))


def test_field_connection_is_rejected(tmp_path):
    with pytest.raises(FormatError, match="connections"):
        load(write(tmp_path / "f.iv", IV + "Translation { translation 0 0 0 = Calc { }.oA }"))


def test_ignored_field_keeps_its_default(tmp_path):
    d = load(write(tmp_path / "t.iv", IV + "Translation { translation 5 0 0 ~ }\n" + TRI))
    np.testing.assert_allclose(d["vertices"][:, 0], [0, 1, 0])


# -- binary Inventor --------------------------------------------------------------------------
def _s(text):
    b = text.encode()
    return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) % 4)


def _u(*vals):
    return b"".join(struct.pack(">I", v & 0xFFFFFFFF) for v in vals)


def _f(*vals):
    return b"".join(struct.pack(">f", v) for v in vals)


def binary_scene():
    """Hand-assembled: Separator { Material { diffuseColor [1 0 0, 0 0 1] }
    MaterialBinding { value PER_FACE } DEF C Coordinate3 { point [0 0 0, 1 0 0, 0 1 0, 1 1 0] }
    IndexedFaceSet { coordIndex [0 1 2 -1 1 3 2 -1] } Cylinder { parts (SIDES|TOP) radius 2 } }"""
    body = _s("Separator") + _u(2, 0, 5)
    body += _s("Material") + _u(0, 1) + _s("diffuseColor") + _u(2) + _f(1, 0, 0, 0, 0, 1) + _u(0)
    body += _s("MaterialBinding") + _u(0, 1) + _s("value") + _s("PER_FACE") + _u(0)
    body += (_s("DEF") + _s("C") + _s("Coordinate3") + _u(0, 1) + _s("point") + _u(4)
             + _f(0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0) + _u(0))
    body += (_s("IndexedFaceSet") + _u(0, 1) + _s("coordIndex") + _u(8, 0, 1, 2, -1, 1, 3, 2, -1)
             + _u(0))
    body += (_s("Cylinder") + _u(0, 2) + _s("parts") + _s("SIDES") + _s("TOP") + _u(0) + _u(0)
             + _s("radius") + _f(2.0) + _u(0))
    return b"#Inventor V2.1 binary  \n" + body


ASCII_TWIN = (IV + "Separator { Material { diffuseColor [1 0 0, 0 0 1] } "
              "MaterialBinding { value PER_FACE } DEF C Coordinate3 { point [0 0 0, 1 0 0, 0 1 0, 1 1 0] } "
              "IndexedFaceSet { coordIndex [0 1 2 -1 1 3 2 -1] } Cylinder { parts (SIDES|TOP) radius 2 } }")


def test_binary_inventor_matches_its_ascii_twin(tmp_path):
    (tmp_path / "b.iv").write_bytes(binary_scene())
    b = load(tmp_path / "b.iv")
    a = load(write(tmp_path / "a.iv", ASCII_TWIN))
    np.testing.assert_allclose(b["vertices"], a["vertices"], atol=1e-7)   # float32 in binary
    np.testing.assert_array_equal(b["faces"], a["faces"])
    np.testing.assert_allclose(b["face_colors"], a["face_colors"])
    np.testing.assert_allclose(b["face_colors"][:2, :3], [[1, 0, 0], [0, 0, 1]])


def test_truncated_binary_is_a_format_error(tmp_path):
    data = binary_scene()
    for cut in (30, 101, len(data) - 6):
        (tmp_path / "t.iv").write_bytes(data[:cut])
        with pytest.raises(FormatError, match="t.iv.*byte"):
            load(tmp_path / "t.iv")


def test_unknown_node_in_binary_is_an_error(tmp_path):
    (tmp_path / "u.iv").write_bytes(b"#Inventor V2.1 binary  \n" + _s("Gizmo") + _u(0, 0))
    with pytest.raises(FormatError, match="unknown node type 'Gizmo'"):
        load(tmp_path / "u.iv")


# -- registration and laziness ----------------------------------------------------------------
@pytest.mark.parametrize("name,fmt", [("a.iv", "inventor"), ("A.IV", "inventor"), ("a.wrl", "vrml"),
                                      ("a.wrl.or", "vrml"), ("a.vrml", "vrml")])
def test_formats_are_found_by_extension(tmp_path, name, fmt):
    p = write(tmp_path / name, "#VRML V2.0 utf8\nShape { geometry Box { } }")
    assert registry.find_reader(p, kinds=("geometry",)).name == fmt


def test_headerless_vrml_is_found_by_content(tmp_path):
    p = write(tmp_path / "x.wrl", "# exported\nDEF J1 Transform { children [ ] }")
    assert registry.find_reader(p).name == "vrml"


def test_read_is_lazy_and_loads_on_access(tmp_path):
    p = write(tmp_path / "m.iv", IV + "Cube { }")
    ctx = LoadContext(p)
    mesh = loading.read_file(p, ctx, kinds=("geometry",))
    assert not mesh.is_loaded and mesh.extras["dialect"] == "#Inventor V2.1 ascii"
    assert mesh.source.format == "inventor"
    assert mesh.faces.shape == (12, 3) and mesh.is_loaded
    np.testing.assert_array_equal(mesh.bounds(), [[-1, -1, -1], [1, 1, 1]])


def test_lazy_read_defers_parse_errors_but_checks_the_header(tmp_path):
    p = write(tmp_path / "bad.iv", IV + "Separator {")
    mesh = loading.read_file(p, LoadContext(p), kinds=("geometry",))
    with pytest.raises(FormatError, match="never closed"):
        mesh.vertices
    q = write(tmp_path / "nohead.iv", "Separator { }")
    with pytest.raises(FormatError):
        loading.read_file(q, LoadContext(q), kinds=("geometry",))


def test_copies_do_not_share_arrays(tmp_path):
    p = write(tmp_path / "m.iv", IV + "Cube { }")
    ctx = LoadContext(p)
    a = loading.load_geometry(p, ctx)
    b = loading.load_geometry(p, ctx)
    a.vertices[0, 0] = 99.0
    assert b.vertices[0, 0] == -1.0


def test_deep_include_chains_fail_cleanly(tmp_path):
    depth = 60
    for i in range(6):
        inner = f'File {{ name "f{i + 1}.iv" }}' if i < 5 else "Cube { }"
        write(tmp_path / f"f{i}.iv", IV + "Separator { " * depth + inner + " }" * depth)
    with pytest.raises(FormatError, match="through File/Inline includes: .* over the limit max_depth"):
        load(tmp_path / "f0.iv")
