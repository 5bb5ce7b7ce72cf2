"""roboio diff answers "is B the same robot as A, and if not, what differs and by how much":
geometry compared as shapes (not file names), colours compared, identical sides never
printed, focus flags, sizes in --json, and conversions through the writers diffing clean or
listing what their reports state. Expected values are worked by hand in each test."""
import json
import math
import os
import re

import numpy as np
import pytest

import roboio
from roboio.cli.main import main
from roboio.diff import diff
from roboio.model import Appearance, Primitive, TriangleMesh

from conftest import CORPUS, SAMPLES

ARM = os.path.join(SAMPLES, "planar_arm.rob")
SR1 = os.path.join(CORPUS, "choreonoid", "share", "model", "SR1", "SR1.body")
needs_corpus = pytest.mark.skipif(not os.path.exists(SR1), reason="needs the test corpus (../shared/corpus)")


def arm():
    return roboio.load(ARM)


def found(res):
    return {(d.kind, d.name, d.field) for d in res.differences}


def mesh_of(r, name):
    g = r.link(name).geometry
    return TriangleMesh(g.vertices.copy(), g.faces.copy(), transform=g.transform)


def test_same_meshes_in_other_files_and_orders_are_the_same_shape(tmp_path):
    """A conversion renames and re-encodes mesh files and may reorder vertices and triangles:
    still the same shape, so no difference."""
    b = arm()
    for k, name in enumerate(("base", "shoulder", "elbow")):
        path = str(tmp_path / f"part{k}.ply")
        roboio.save(mesh_of(b, name), path)
        b.link(name).geometry = roboio.load(path)
    g = mesh_of(b, "finger_left")                 # vertices and triangles shuffled,
    perm = np.random.default_rng(1).permutation(len(g.vertices))   # corners rolled
    inverse = np.argsort(perm)
    faces = np.roll(inverse[g.faces], 1, axis=1)[::-1]
    b.link("finger_left").geometry = TriangleMesh(g.vertices[perm], faces)
    out = str(tmp_path / "arm.rob")
    roboio.save(b, out)
    assert diff(arm(), roboio.load(out)).same
    assert main(["diff", ARM, out]) == 0
    # corners whose coordinates tie but for rounding (1e-15 m) start each triangle elsewhere
    b = arm()
    g = mesh_of(b, "base")
    noise = np.random.default_rng(2).uniform(-1e-15, 1e-15, g.vertices.shape)
    b.link("base").geometry = TriangleMesh(g.vertices + noise, np.roll(g.faces, 1, axis=1))
    assert diff(arm(), b).same
    g.vertices[0] += (0.002, 0, 0)
    b.link("base").geometry = TriangleMesh(g.vertices + noise, np.roll(g.faces, 1, axis=1))
    d, = diff(arm(), b).differences
    assert d.size == pytest.approx(0.002, abs=1e-12)


def test_a_moved_vertex_is_found_with_how_far_it_moved(capsys):
    b = arm()
    g = mesh_of(b, "elbow")
    g.vertices[3] += (0, 0.003, 0.004)            # moved 5 mm
    b.link("elbow").geometry = g
    res = diff(arm(), b)
    assert found(res) == {("geometry", "elbow", "geometry")}
    d = res.differences[0]
    assert d.size == pytest.approx(0.005, abs=1e-12) and d.unit == "m"
    assert "vertices moved by up to 0.005 m" in str(d)
    # a triangle turned inside out is found too, even where no vertex moved
    b = arm()
    g = mesh_of(b, "base")
    g.faces[0] = g.faces[0][::-1]
    b.link("base").geometry = g
    d, = diff(arm(), b).differences
    assert "1 triangle turned the other way" in str(d)


def test_a_changed_colour_is_found_with_its_size():
    a, b = arm(), arm()
    a.link("shoulder").appearance = Appearance(color=(0.2, 0.4, 0.6, 1.0))
    b.link("shoulder").appearance = Appearance(color=(0.2, 0.4, 0.75, 1.0))
    res = diff(a, b)
    d, = res.differences
    assert (d.kind, d.name, d.field) == ("geometry", "shoulder", "colour")
    assert d.size == pytest.approx(0.15, abs=1e-12)
    assert str(d) == "link 'shoulder': colour (0.2, 0.4, 0.6, 1) -> (0.2, 0.4, 0.75, 1)"
    # a colour one side leaves unset is the grey Klamp't and MuJoCo draw it in
    b.link("shoulder").appearance = None
    d, = diff(a, b).differences
    assert d.b == (0.5, 0.5, 0.5, 1.0) and d.size == pytest.approx(0.3, abs=1e-12)
    a.link("shoulder").appearance = Appearance(color=(0.5, 0.5, 0.5, 1.0))
    assert diff(a, b).same
    # colours a mesh carries per triangle are compared triangle by triangle
    a, b = arm(), arm()
    g = mesh_of(a, "elbow")
    n = len(g.faces)
    colours = np.tile([0.1, 0.2, 0.3, 1.0], (n, 1))
    a.link("elbow").geometry = TriangleMesh(g.vertices, g.faces, face_colors=colours)
    changed = colours.copy()
    changed[[2, 5]] = (0.1, 0.2, 0.9, 1.0)
    b.link("elbow").geometry = TriangleMesh(g.vertices, g.faces, face_colors=changed)
    d, = diff(a, b).differences
    assert d.field == "colour" and d.size == pytest.approx(0.6, abs=1e-12)
    assert f"2 of {n} pieces or triangles drawn in other colours" in str(d)


def test_mass_axis_and_name_changes_are_found_with_sizes():
    b = arm()
    b.link("elbow").mass += 0.25                  # 1.0 kg in the sample
    b.link("wrist").axis = (0.0, math.cos(0.1), math.sin(0.1))     # was (0, 1, 0)
    b.link("finger_right").name = "right_finger"
    res = diff(arm(), b)
    by_field = {d.field: d for d in res.differences}
    assert found(res) == {("dynamics", "elbow", "mass"), ("kinematics", "wrist", "axis"),
                          ("names", "finger_right", "renamed")}
    assert by_field["mass"].size == pytest.approx(0.25, abs=1e-12) and by_field["mass"].unit == "kg"
    assert "(+25%)" in str(by_field["mass"])
    assert by_field["axis"].size == pytest.approx(0.1, abs=1e-12) and by_field["axis"].unit == "rad"
    assert "turned 0.1 rad" in str(by_field["axis"])
    assert str(by_field["renamed"]) == "link 'finger_right': renamed to 'right_finger'"
    assert res.matched_links == 6                 # the renamed link is still paired


def test_centre_of_mass_and_inertia_differ_in_the_link_frame():
    b = arm()
    b.link("shoulder").com = np.asarray(b.link("shoulder").com) + (0, 0.03, 0.04)
    I = np.array(b.link("shoulder").inertia, float).reshape(3, 3)
    I[2, 2] += 0.01
    b.link("shoulder").inertia = I
    res = diff(arm(), b)
    d = {x.field: x for x in res.differences}
    assert set(d) == {"com", "inertia"}
    assert d["com"].size == pytest.approx(0.05, abs=1e-12) and "in the link frame" in str(d["com"])
    assert d["inertia"].size == pytest.approx(0.01, abs=1e-12) and d["inertia"].unit == "kg m^2"


_PAIR = re.compile(r"(\([^()]*\)|'[^']*'|[-+\w.]+) -> (\([^()]*\)|'[^']*'|[-+\w.]+)")


def _no_identical_sides(lines):
    for line in lines:
        for x, y in _PAIR.findall(line):
            assert x != y, line


def test_identical_sides_are_never_printed():
    """A cylinder whose only change is its colour or a far-off digit prints the change, not
    ``('Cylinder primitive') -> ('Cylinder primitive')``."""
    cyl = {"center": (0, 0, 0), "axis": (0, 0, 1), "radius": 0.05, "height": 0.2}
    a, b = arm(), arm()
    a.link("wrist").geometry = Primitive("Cylinder", dict(cyl))
    b.link("wrist").geometry = Primitive("Cylinder", dict(cyl, radius=0.05 + 3e-9))
    b.link("wrist").appearance = Appearance(color=(1.0, 0.0, 0.0, 1.0))
    for r, z in ((a, 12.5), (b, 12.5 + 4e-9)):    # alike at 10 digits: printed at 17
        T = r.link("wrist").parent_transform.copy()
        T[2, 3] = z
        r.link("wrist").parent_transform = T
    res = diff(a, b)
    assert {d.field for d in res.differences} == {"geometry", "colour", "origin translation"}
    lines = res.lines(verbose=True)
    _no_identical_sides(lines)
    assert "  link 'wrist': geometry Cylinder: surface moved by up to 3e-09 m (radius 0.05 -> 0.050000003 m)" in lines
    assert "  link 'wrist': origin translation (0.4, 0, 12.5) -> (0.4, 0, 12.500000004)" in lines


def test_focus_flags_and_json_kinds_and_sizes(tmp_path, capsys):
    b = arm()
    b.link("elbow").mass = 1.5
    b.link("wrist").axis = (0.0, 0.0, 1.0)
    b.link("shoulder").appearance = Appearance(color=(1.0, 0.0, 0.0, 1.0))
    b.link("finger_right").name = "right_finger"
    out = str(tmp_path / "b.rob")
    roboio.save(b, out)
    kinds = {"kinematics": ("wrist", "axis"), "dynamics": ("elbow", "mass"),
             "names": ("finger_right", "renamed")}
    for kind, expect in kinds.items():
        assert main(["diff", ARM, out, f"--{kind}", "--json"]) == 1
        res = json.loads(capsys.readouterr().out)
        assert res["focus"] == [kind] and {d["kind"] for d in res["differences"]} == {kind}
        assert {(d["name"], d["field"]) for d in res["differences"]} == {expect}
    # a .rob holds no colours (the red is lost, as the report says): no geometry differs
    assert main(["diff", ARM, out, "--geometry"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "no geometry differences"
    res = diff(roboio.load(ARM), b, focus=["geometry"])
    assert found(res) == {("geometry", "shoulder", "colour")}
    res = diff(roboio.load(ARM), b, focus=["geometry", "names"])
    assert found(res) == {("geometry", "shoulder", "colour"), ("names", "finger_right", "renamed")}
    assert main(["diff", ARM, out, "--json"]) == 1
    res = json.loads(capsys.readouterr().out)
    sizes = {d["field"]: (d["kind"], d["size"], d["unit"]) for d in res["differences"]}
    assert sizes["mass"] == ("dynamics", pytest.approx(0.5), "kg")
    assert sizes["axis"] == ("kinematics", pytest.approx(math.pi / 2), "rad")
    assert res["counts"]["names"] == 1 and res["same"] is False
    assert main(["diff", ARM, ARM, "--dynamics"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "no dynamics differences"


def test_many_alike_differences_fold_into_one_line():
    b = arm()
    for link in b.links:
        link.mass *= 1.01
    res = diff(arm(), b)
    lines = res.lines()
    assert len(lines) == 3 and lines[1].startswith("  link mass: 6 links, by up to")
    assert "+3 more" in lines[1] and "--verbose" in lines[2]
    assert len(res.lines(verbose=True)) == 8


# -- conversions through the writers: clean, or exactly what the report states ---------------

def _convert(src, tmp_path, name, fmt):
    out = str(tmp_path / name)
    report = roboio.save(roboio.load(src), out, format=fmt)
    return out, report


@pytest.mark.parametrize("src,name,fmt", [
    ("planar_arm.rob", "a.rob", "klampt-rob"),
    ("mobile_gripper.urdf", "a.urdf", "urdf"),
    ("choreonoid/arm.body", "a.body", "choreonoid-body"),
    ("openrave/pick_arm.robot.xml", "a.xml", "mjcf"),
    ("openrave/pick_arm.robot.xml", "a.xml", "openrave"),
    ("openrave/pick_arm.robot.xml", "a.dae", "collada-robot"),
    ("collada/pick_arm.dae", "a.dae", "collada-robot"),
])
def test_faithful_conversions_diff_clean(tmp_path, src, name, fmt):
    src = os.path.join(SAMPLES, src)
    out, _ = _convert(src, tmp_path, name, fmt)
    res = diff(roboio.load(src), roboio.load(out))
    assert res.same, res.lines(verbose=True)


def test_rob_to_urdf_lists_what_the_report_states(tmp_path):
    out, report = _convert(ARM, tmp_path, "arm.urdf", "urdf")
    lost = "\n".join(report.lost)
    res = diff(arm(), roboio.load(out))
    assert found(res) == {("kinematics", "finger_left", "vmin"), ("geometry", "base", "geometry"),
                          ("geometry", "shoulder", "geometry"), ("geometry", "elbow", "geometry")}
    assert "driver limits that differ from the limits Klamp't derives from the links: finger_left" in lost
    stated = float(re.search(r"rounded to 32-bit floats.*largest change ([0-9.e+-]+) m", lost).group(1))
    moved = max(d.size for d in res.differences if d.field == "geometry")
    assert moved == pytest.approx(stated, rel=0.05)           # the report rounds to 2 digits
    assert diff(arm(), roboio.load(out), tol=1e-6).differences[0].field == "vmin"


def test_rob_to_openrave_lists_what_the_report_states(tmp_path):
    out, report = _convert(ARM, tmp_path, "arm.robot.xml", "openrave")
    lost = "\n".join(report.lost)
    res = diff(arm(), roboio.load(out))
    assert {(d.name, d.field) for d in res.differences if d.kind == "kinematics"} == {("world", "added")}
    assert "a fixed link 'world' is added" in lost
    gains = {(d.name, d.field) for d in res.differences if d.kind == "dynamics"}
    assert gains == {(n, g) for n in ("base", "shoulder", "elbow", "wrist", "finger_left")
                     for g in ("servo_p", "servo_d")}
    assert "driver gains and friction" in lost
    assert not [d for d in res.differences if d.kind in ("geometry", "names")]


@needs_corpus
def test_sr1_to_urdf_lists_only_the_stated_order_and_initial_value(tmp_path):
    out, report = _convert(SR1, tmp_path, "SR1.urdf", "urdf")
    lost = "\n".join(report.lost)
    res = diff(roboio.load(SR1), roboio.load(out))
    assert found(res) == {("kinematics", "SR1", "link order"), ("kinematics", "base2", "initial value")}
    assert "lost: link order" in "\n".join(f"lost: {x}" for x in report.lost)
    assert "the initial configuration (URDF starts at 0): base2" in lost
    d = [x for x in res.differences if x.field == "initial value"][0]
    assert d.size == pytest.approx(0.7135, abs=1e-12) and d.unit == "m"


@needs_corpus
def test_sr1_to_rob_sizes_agree_with_the_report(tmp_path):
    """Klamp't has no cylinder collision and no colour: the writer states, per link, how far
    the 32-sided mesh's surface is from the cylinder, and each colour lost; diff measures the
    same sizes and finds the same links."""
    out, report = _convert(SR1, tmp_path, "SR1.rob", "klampt-rob")
    res = diff(roboio.load(SR1), roboio.load(out))
    assert {d.kind for d in res.differences} == {"geometry"}
    colours = {d.name for d in res.differences if d.field == "colour"}
    # the links whose colours the report states lost (one item naming them all)
    stated_colours = {n for item in report.to_dict()["items"]
                      if item["text"].startswith("appearance") for n in item["concerning"]}
    grey = {n for n in stated_colours
            if np.allclose(roboio.load(SR1).link(n).appearance.color, (0.5, 0.5, 0.5, 1.0))}
    assert colours == stated_colours - grey and colours
    stated: dict = {}                 # per cylinder: a link's largest
    for x in report.lost:
        for m in re.finditer(r"([0-9.e-]+) m \(link '(\w+)' geometry\)", x):
            stated[m.group(2)] = max(stated.get(m.group(2), 0.0), float(m.group(1)))
    sizes = {d.name: d.size for d in res.differences if d.field == "geometry"}
    assert set(sizes) == set(stated)
    for name, size in sizes.items():
        assert size == pytest.approx(stated[name], rel=0.05), name
    _no_identical_sides(res.lines(verbose=True))


@needs_corpus
def test_sr1_body_against_its_urdf_names_what_really_differs():
    """The corpus's hand-written SR1.urdf is a different model (rounded limits, colours
    that are not defined, a root that does not float, no self-collision filter); verify
    finds the same motion, diff names those differences in a few lines, sides never alike."""
    res = diff(roboio.load(SR1), roboio.load(SR1.replace(".body", ".urdf")))
    lines = res.lines()
    assert len(lines) < 20
    _no_identical_sides(res.lines(verbose=True))
    q = {d.name: d for d in res.differences if d.field == "qmin"}
    assert q["WAIST_P"].size == pytest.approx(math.pi / 2 - 1.57, abs=1e-12)
    colour = {d.name: d for d in res.differences if d.field == "colour"}
    assert colour["CHEST"].b == (0.0, 0.0, 0.0, 1.0)      # an undefined material: black in Klamp't


@needs_corpus
@pytest.mark.parametrize("fmt,name,expected,stated", [
    ("mjcf", "SR1.xml", set(), []),
    ("choreonoid-body", "SR1b.body", set(), []),
    # OpenRAVE: a fixed 'world' link first; the floating base's six links become active
    # joints with drivers of their own
    ("openrave", "SR1.robot.xml",
     {("world", "added")} | {(f"base{k}", "joint") for k in range(5)} | {("WAIST", "joint")}
     | {(f"base{k}", "added") for k in range(5)} | {("WAIST", "added")},
     ["a fixed link 'world' is added",
      "links without a driver, written as active OpenRAVE joints (extra DOFs after the drivers'): "
      "base0, base1, base2, base3, base4, WAIST"]),
    # COLLADA: the same 'world' link; the base's links written passive (welds whose frames
    # hold the base's height: base2's value becomes its origin's translation)
    ("collada-robot", "SR1.dae",
     {("world", "added"), ("base2", "initial value"), ("base2", "origin translation")}
     | {(f"base{k}", "joint") for k in range(5)} | {("WAIST", "joint")},
     ["written with an added fixed root link 'world'", "joints no driver moves (written passive",
      "base2 (held at 0.7135 m"]),
])
def test_sr1_through_the_writers_lists_what_the_report_states(tmp_path, fmt, name, expected, stated):
    out, report = _convert(SR1, tmp_path, name, fmt)
    res = diff(roboio.load(SR1), roboio.load(out))
    assert {(d.name, d.field) for d in res.differences} == expected, res.lines(verbose=True)
    lost = "\n".join(report.lost)
    for words in stated:
        assert words in lost
    joints = [d for d in res.differences if d.field == "joint"]
    assert all(d.a == "floating prismatic" or d.a == "floating revolute" for d in joints)


def test_a_large_reordered_mesh_with_some_vertices_moved_measures_the_largest_move():
    """Triangles reordered and a few vertices moved: the size is the largest vertex move
    (worked out directly), for 5,120 triangles."""
    import trimesh
    from roboio.diff._shapes import compare_shapes, shape_of
    m = trimesh.creation.icosphere(subdivisions=4)
    V, F = np.asarray(m.vertices), np.asarray(m.faces)
    rng = np.random.default_rng(5)
    W = V.copy()
    moved = rng.choice(len(V), 40, replace=False)
    W[moved] += rng.normal(size=(40, 3)) * 0.01
    shuffled = F[rng.permutation(len(F))]
    res = compare_shapes(shape_of(TriangleMesh(V, F)), shape_of(TriangleMesh(W, shuffled)), 1e-9)
    assert not res.same
    assert res.size == pytest.approx(np.linalg.norm(W - V, axis=1).max(), abs=1e-12)
    same = compare_shapes(shape_of(TriangleMesh(V, F)), shape_of(TriangleMesh(V, shuffled)), 1e-9)
    assert same.same and same.size == 0.0


def test_links_renamed_pair_by_structure_or_by_the_users_map(tmp_path, capsys):
    b = arm()
    b.link("finger_right").name = "right"
    b.link("finger_left").name = "left"
    out = str(tmp_path / "renamed.rob")
    roboio.save(b, out)
    assert main(["diff", ARM, out]) == 1
    text = capsys.readouterr().out.splitlines()
    assert text[0] == "matched links: 6 (by structure)"
    assert "  link 'finger_left': renamed to 'left'" in text and "different: 2 names" in text
    assert main(["diff", ARM, out, "--map", "finger_*=*", "--kinematics", "--dynamics", "--geometry"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "matched links: 6", "no kinematics, dynamics or geometry differences"]


def test_geometry_files_compare_as_shapes_and_other_objects_are_refused(tmp_path, capsys):
    crate = os.path.join(SAMPLES, "meshes", "crate.off")
    ply = str(tmp_path / "crate_copy.ply")
    roboio.save(roboio.load(crate), ply)            # another file, another format, same mesh
    assert main(["diff", crate, ply]) == 0
    assert capsys.readouterr().out.splitlines() == ["no differences"]
    g = roboio.load(crate)
    V = g.vertices.copy()
    V[V[:, 2] == V[:, 2].max(), 2] += 0.01          # the lid raised 1 cm
    moved = str(tmp_path / "raised.ply")
    roboio.save(TriangleMesh(V, g.faces), moved)
    assert main(["diff", crate, moved, "--json"]) == 1
    d, = json.loads(capsys.readouterr().out)["differences"]
    assert (d["kind"], d["what"], d["field"]) == ("geometry", "geometry", "shape")
    assert d["size"] == pytest.approx(0.01, abs=1e-12)
    seq = os.path.join(SAMPLES, "choreonoid", "arm_wave.seq")
    assert main(["diff", ARM, seq]) == 2
    err = capsys.readouterr().err
    assert ARM in err and seq in err and "cannot compare a Robot with a BodyMotion" in err
