"""Klamp't rigid-object (.obj) and terrain (.env) files: SimpleFile syntax, item semantics,
autoMass, writers. Expected values are worked by hand or computed independently here."""
import math
import os
import warnings

import numpy as np
import pytest

import roboio
from roboio import FormatError
from roboio.context import LoadContext
from roboio.formats.klampt import _simplefile
from roboio.formats.klampt.rigid_object import read as read_object
from roboio.formats.klampt.rigid_object import sniff
from roboio.formats.klampt.terrain import read as read_terrain

# unit cube [0,1]^3, outward-facing triangles (as Klamp't-examples objects/cube.off)
CUBE_OFF = """OFF
8 12 0
0 0 0
0 0 1
0 1 0
0 1 1
1 0 0
1 0 1
1 1 0
1 1 1
3 0 1 3
3 0 3 2
3 4 6 7
3 4 7 5
3 0 4 5
3 0 5 1
3 2 3 7
3 2 7 6
3 0 2 6
3 0 6 4
3 1 5 7
3 1 7 3
"""


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return str(p)


@pytest.fixture
def cube(tmp_path):
    return write(tmp_path, "cube.off", CUBE_OFF)


def obj(tmp_path, body, name="o.obj"):
    return write(tmp_path, name, body)


def read(path, strict=False):
    ctx = LoadContext(path, strict)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = read_object(path, ctx)
    return out, ctx.warnings


def box_surface_moments(a, b, c):
    """Per-unit-area second moments diag(Cxx, Cyy, Czz) of the surface of an a x b x c box
    about its centre (faces: two of each pair, x^2 averages a^2/4 on the x faces and a^2/12
    on the others)."""
    area = 2 * (b * c + a * c + a * b)
    def comp(u, v, w):          # second moment along u; v, w the other extents
        return (2 * v * w * u * u / 4 + 2 * u * w * u * u / 12 + 2 * u * v * u * u / 12) / area
    return np.array([comp(a, b, c), comp(b, a, c), comp(c, a, b)])


def inertia_from_C(m, C):
    return m * (np.trace(C) * np.eye(3) - C)


# ---------------------------------------------------------------------------- SimpleFile

def test_simplefile_values_comments_and_repeats():
    text = ('mesh "a b\\tc\\"d\\\\e.off"  # comment\n'
            '  # whole-line comment\n\n'
            'x 1 -2 +3 1. .5 1e3 -1.5E-2 inf -INF NaN +inf 1.5e 0x10 abc\n'
            'y 1\n'
            'y 2 3\n')
    e = _simplefile.parse(text, "f")
    assert list(e) == ["mesh", "x", "y"]
    assert e["mesh"].values == ['a b\tc"d\\e.off']
    v = e["x"].values
    assert v[:7] == [1.0, -2.0, 3.0, 1.0, 0.5, 1000.0, -0.015]
    assert v[7] == math.inf and v[8] == -math.inf and math.isnan(v[9])
    assert v[10:] == ["+inf", "1.5e", "0x10", "abc"]
    assert e["y"].values == [2.0, 3.0] and e["y"].line == 6


def test_simplefile_hash_inside_quotes_cuts_the_line():
    with pytest.raises(FormatError, match=r"f:1: unterminated quoted string"):
        _simplefile.parse('mesh "dir#1/a.off"\n', "f")


def test_simplefile_format_round_trip():
    items = [("mesh", ['we "ird" \\ name.off']), ("T", [1 / 3, -0.0, 1e-300, math.inf])]
    back = _simplefile.parse(_simplefile.format_entries(items), "f")
    assert back["mesh"].values == ['we "ird" \\ name.off']
    assert back["T"].values == [1 / 3, -0.0, 1e-300, math.inf]
    assert math.copysign(1, back["T"].values[1]) == -1


# ------------------------------------------------------------------------------- .obj

def test_obj_items_and_fixed_order(tmp_path, cube):
    # file order is scrambled on purpose: Klamp't applies items in a fixed order
    p = obj(tmp_path, "position 4 5 6\n"
                      "T 0 -1 0 5  1 0 0 6  0 0 1 7  9 9 9 9\n"
                      "kStiffness inf\nkDamping 3e3\nkFriction 0.25\nkRestitution 0\n"
                      "inertia 1 2 3\nmass 2.5\ncom 0.1 0.2 0.3\n"
                      "velocity 1 2 3\nangularVelocity 0 0 1\n"
                      'geomtranslate 1 2 3\ngeomscale 2\nmesh "cube.off"\n')
    o, warns = read(p)
    assert warns == []
    assert o.name == "o"
    np.testing.assert_array_equal(o.transform, [[0, -1, 0, 4], [1, 0, 0, 5], [0, 0, 1, 6], [0, 0, 0, 1]])
    np.testing.assert_array_equal(o.geometry.transform,
                                  [[2, 0, 0, 1], [0, 2, 0, 2], [0, 0, 2, 3], [0, 0, 0, 1]])
    assert o.mass == 2.5 and o.com.tolist() == [0.1, 0.2, 0.3]
    np.testing.assert_array_equal(o.inertia, np.diag([1, 2, 3]))
    assert o.kStiffness == math.inf and o.kDamping == 3000 and o.kFriction == 0.25 and o.kRestitution == 0
    assert o.velocity.tolist() == [1, 2, 3] and o.angular_velocity.tolist() == [0, 0, 1]
    # the geometry data stay as in the file
    assert o.geometry.vertices.max() == 1.0


def test_obj_T12_is_row_major_and_defaults(tmp_path, cube):
    o, _ = read(obj(tmp_path, 'mesh "cube.off"\nT 0 -1 0  1 0 0  0 0 1   1 2 3\n'
                              "inertia 1 2 3 4 5 6 7 8 9\ngeomscale 1 2 3\n"))
    np.testing.assert_array_equal(o.transform[:3, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    assert o.transform[:3, 3].tolist() == [1, 2, 3]
    np.testing.assert_array_equal(o.inertia, np.arange(1, 10).reshape(3, 3))
    np.testing.assert_array_equal(np.diag(o.geometry.transform), [1, 2, 3, 1])
    assert (o.mass, o.kFriction, o.kRestitution) == (1.0, 0.5, 0.5)
    assert o.kStiffness == math.inf and o.kDamping == math.inf


def test_obj_capitalisation_quirk_is_accepted_but_ignored(tmp_path, cube):
    o, warns = read(obj(tmp_path, "mesh cube.off\nmass 3\nMass 5\nkfriction 0.9\n"))
    assert o.mass == 3 and o.kFriction == 0.5
    assert len(warns) == 2 and "o.obj:3:" in warns[0] and "'mass'" in warns[0]
    with pytest.raises(FormatError, match="o.obj:3:.*Mass"):
        read(obj(tmp_path, "mesh cube.off\nmass 3\nMass 5\n"), strict=True)


BAD_OBJ = [
    ("mesh cube.off\ngeometry x.off\n", 2, "unknown item 'geometry'"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 1, "unknown item 'v'"),
    ("mesh cube.off\ncom 1 2\n", 2, "com: expected 3 value"),
    ("mesh cube.off\nmass abc\n", 2, "mass: expected numbers, got 'abc'"),
    ("mesh cube.off\nmass +inf\n", 2, "mass: expected numbers, got '\\+inf'"),
    ("mesh cube.off\nmass 1\nmass\n", 3, "mass: expected 1 value"),
    ("mesh cube.off\nT 1 0 0 0 1 0 0 0 1\n", 2, "T: expected 12 or 16"),
    ("mesh cube.off\ninertia 1 2\n", 2, "inertia: expected 3 or 9"),
    ("mesh cube.off\ngeomscale 1 2\n", 2, "geomscale: expected 1 or 3"),
    ("mesh cube.off\nautoMass 1 2\n", 2, "autoMass: expected 0 or 1"),
    ("mesh 12\n", 1, "mesh: expected a file name"),
    ("mesh a.off b.off\n", 1, "mesh: expected 1 value"),
    ('mesh ""\n', 1, "mesh: empty file name"),
    ("mass 1\n", None, "needs a 'mesh' item"),
]


@pytest.mark.parametrize("body,line,msg", BAD_OBJ)
def test_obj_bad_input(tmp_path, cube, body, line, msg):
    p = obj(tmp_path, body)
    loc = f"o.obj:{line}: " if line else "o.obj: "
    with pytest.raises(FormatError, match=loc.replace(".", r"\.") + ".*" + msg):
        read(p)


def test_obj_missing_mesh_warns_or_fails_when_strict(tmp_path):
    p = obj(tmp_path, 'mesh "nothere.off"\nmass 2\n')
    o, warns = read(p)
    assert o.geometry.missing and o.mass == 2
    assert any("nothere.off" in w and "o.obj:1" in w for w in warns)
    with pytest.raises(FormatError, match="nothere.off"):
        read(p, strict=True)


def test_sniff_tells_klampt_objects_from_wavefront():
    assert sniff(b'mesh "cube.off"\nT 1 0 0 0 1 0 0 0 1 0 0 0\n# c\nautoMass\n', "x.obj")
    assert sniff(b"# made by hand\nMass 3\nmesh a.off\n", "x.obj")
    assert not sniff(b"# Blender\nmtllib a.mtl\nv 0 0 0\nf 1 2 3\n", "x.obj")
    assert not sniff(b"v 0 0 0\n", "x.obj")
    assert not sniff(b"\n# only comments\n", "x.obj")


# ------------------------------------------------------------------------------ autoMass

def test_automass_surface_box_matches_closed_form(tmp_path, cube):
    o, _ = read(obj(tmp_path, "mesh cube.off\ngeomscale 0.4 0.2 0.1\ngeomtranslate -0.2 0 1\n"
                              "mass 0.1\nautoMass\ninertia 9 9 9\n"))
    np.testing.assert_allclose(o.com, [0.0, 0.1, 1.05], atol=1e-15)
    expect = inertia_from_C(0.1, np.diag(box_surface_moments(0.4, 0.2, 0.1)))
    np.testing.assert_allclose(o.inertia, expect, rtol=1e-12, atol=1e-18)


def test_automass_solid_box_and_given_com(tmp_path, cube):
    # surface fraction 0: solid box, C = diag(extent^2 / 12)
    o, _ = read(obj(tmp_path, "mesh cube.off\ngeomscale 2 1 3\nmass 6\nautoMass 0\n"))
    np.testing.assert_allclose(o.com, [1, 0.5, 1.5], atol=1e-15)
    C = np.diag([4 / 12, 1 / 12, 9 / 12])
    np.testing.assert_allclose(o.inertia, inertia_from_C(6, C), rtol=1e-12)
    # with com given, the inertia is taken about that point (parallel axes), com kept
    o, _ = read(obj(tmp_path, "mesh cube.off\ngeomscale 2 1 3\nmass 6\ncom 0 0 0\nautoMass 0\n"))
    d = np.array([1, 0.5, 1.5])
    assert o.com.tolist() == [0, 0, 0]
    np.testing.assert_allclose(o.inertia, inertia_from_C(6, C + np.outer(d, d)), rtol=1e-12)


# --------------------------------------------------------------------------------- .env

def env(tmp_path, body, name="t.env"):
    return write(tmp_path, name, body)


def read_env(path, strict=False):
    ctx = LoadContext(path, strict)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_terrain(path, ctx), ctx.warnings


def test_env_uniform_and_per_triangle_friction(tmp_path, cube):
    t, warns = read_env(env(tmp_path, 'mesh "cube.off"\nkFriction 0.8\nfriction 0.1\n'))
    assert t.name == "t" and t.kFriction == 0.8
    assert len(warns) == 1 and "t.env:3" in warns[0] and "'friction'" in warns[0]
    vals = " ".join(str(i / 10) for i in range(12))
    t, _ = read_env(env(tmp_path, f"mesh cube.off\nkFriction {vals}\n"))
    assert t.kFriction.tolist() == [i / 10 for i in range(12)]
    with pytest.raises(FormatError, match=r"t\.env:2: kFriction: expected 1 value or 12 .*got 3"):
        read_env(env(tmp_path, "mesh cube.off\nkFriction 1 2 3\n"))
    with pytest.raises(FormatError, match=r"t\.env: a terrain file needs a 'mesh'"):
        read_env(env(tmp_path, "kFriction 1\n"))


# ------------------------------------------------------------------------------ writers

def test_obj_writer_round_trip_relative_mesh_and_exact_numbers(tmp_path, cube):
    src = obj(tmp_path, 'mesh "cube.off"\ngeomscale 0.1 0.2 0.3\ngeomtranslate 1 2 3\n'
                        "T 0 -1 0 1 0 0 0 0 1 0.1 0.2 0.30000000000000004\n"
                        "mass 0.3333333333333333\ninertia 1 2 3 2 5 6 3 6 9\n"
                        "kStiffness inf\nkDamping 1e-7\nvelocity 0 0 1\n")
    o, _ = read(src)
    out = str(tmp_path / "sub" / "dir" / "copy.obj")
    report = roboio.save(o, out)
    assert report.lost == []
    text = open(out).read()
    assert 'mesh "../../cube.off"' in text and "kFriction 0.5" in text
    assert "geomscale 0.1 0.2 0.3" in text and "geomtranslate 1 2 3" in text
    back, _ = read(out)
    for k in ("transform", "com", "inertia", "velocity", "angular_velocity"):
        np.testing.assert_array_equal(getattr(back, k), getattr(o, k))
    np.testing.assert_array_equal(back.geometry.transform, o.geometry.transform)
    for k in ("mass", "kFriction", "kRestitution", "kStiffness", "kDamping"):
        assert getattr(back, k) == getattr(o, k)
    assert os.path.samefile(back.geometry.source.path, cube)


def test_obj_writer_bakes_a_rotated_geometry_and_reports_what_it_cannot_hold(tmp_path, cube):
    o, _ = read(obj(tmp_path, "mesh cube.off\n"))
    R = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]])
    M = np.eye(4)
    M[:3, :3] = R * 2
    o.geometry.transform = M
    o.geometry.margin = 0.01
    out = str(tmp_path / "w" / "rot.obj")
    report = roboio.save(o, out)
    assert any("margin" in x for x in report.lost)
    back, _ = read(out)
    assert back.geometry.source.path != cube and back.geometry.source.path.endswith(".off")
    np.testing.assert_allclose(back.geometry.world_vertices(), o.geometry.world_vertices(), atol=1e-15)


def test_env_writer_writes_kfriction_and_bakes_placement(tmp_path, cube):
    t, _ = read_env(env(tmp_path, "mesh cube.off\nkFriction 0.7\n"))
    out = str(tmp_path / "o" / "t2.env")
    assert roboio.save(t, out).lost == []
    text = open(out).read()
    assert text == 'mesh "../cube.off"\nkFriction 0.7\n'
    t.geometry.apply_transform(np.diag([1, 1, 0.5, 1.0]))
    out2 = str(tmp_path / "o" / "t3.env")
    roboio.save(t, out2)
    back, _ = read_env(out2)
    np.testing.assert_allclose(back.geometry.world_vertices(), t.geometry.world_vertices())
    assert back.kFriction == 0.7
