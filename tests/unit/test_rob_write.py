"""The .rob writer: what it emits for models that did not come from a .rob, and what it
reports as lost. Round trips are checked by re-reading with roboio (the corpus and
reference tests also check them with klampt)."""
import math
import os
import warnings

import numpy as np
import pytest

import roboio
from roboio import RoboioWarning
from roboio.model import Driver, Group, Joint, Link, Primitive, Robot, TriangleMesh
from roboio.formats.klampt.rob import loads
from roboio.context import LoadContext


def Rz(a):
    T = np.eye(4)
    c, s = math.cos(a), math.sin(a)
    T[:2, :2] = [[c, -s], [s, c]]
    return T


def chain(n, names=None):
    r = Robot("arm")
    links = [Link(names[i] if names else f"l{i}", i - 1, "revolute", (0, 0, 1), Rz(0.1 * i))
             for i in range(n)]
    r.set_links(links, qmin=[-1.0] * n, qmax=[1.0] * n, amax=[2.0] * n, tmax=[3.0] * n)
    r.joints = [Joint("normal", [i]) for i in range(n)]
    r.drivers = [Driver(f"d{i}", "normal", [i], qmin=-1, qmax=1, vmin=-np.inf, vmax=np.inf,
                        tmin=-3, tmax=3, amin=-2, amax=2) for i in range(n)]
    return r


def save_and_reload(robot, path):
    report = roboio.save(robot, str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        return report, roboio.load(str(path))


def test_plain_robot_round_trip(tmp_path):
    r = chain(3)
    r.links[1].mass = 0.25
    r.links[1].com = (0.1, 1 / 3, -2e-9)
    r.links[2].inertia = [[1, 2, 3], [4, 5, 6], [7, 8, 9.5]]      # not symmetric
    r.config = np.array([0.1, math.pi / 7, -0.3])
    r.vmin = np.array([-1.0, 0.0, -np.inf])
    r.amax = np.array([np.nan, 2.0, 2.0])
    r.drivers[0].amin = r.drivers[0].amax = np.nan
    for d, v in zip(r.drivers, r.vmin):
        d.vmin = v                       # normal drivers carry their link's limits
    r.drivers[1].servo_p, r.drivers[2].viscous_friction = 12.5, 0.125
    report, again = save_and_reload(r, tmp_path / "arm.rob")
    assert report.lost == []
    for a, b in zip(again.links, r.links):
        assert np.array_equal(a.parent_transform, b.parent_transform)
        assert a.mass == b.mass and np.array_equal(a.com, b.com) and np.array_equal(a.inertia, b.inertia)
    assert np.array_equal(again.config, r.config)
    assert np.array_equal(again.vmin, r.vmin)
    assert np.isnan(again.amax[0]) and again.amax[1] == 2
    assert [d.name for d in again.drivers] == ["d0", "d1", "d2"]
    assert again.drivers[1].servo_p == 12.5 and again.drivers[2].viscous_friction == 0.125
    text = (tmp_path / "arm.rob").read_text()
    assert "accmax\tnan 2 2" in text and "velmin\t-1 0 -inf" in text


def test_floating_base_and_affine_driver(tmp_path):
    r = Robot("float")
    types = ["prismatic"] * 3 + ["revolute"] * 5
    axes = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (0, 1, 0), (1, 0, 0), (0, 0, 1), (0, 0, 1)]
    parents = [-1, 0, 1, 2, 3, 4, 5, 5]
    r.set_links([Link(f"l{i}", parents[i], types[i], axes[i]) for i in range(8)],
                amax=[1, 1, 1, 1, 1, 1, 4, 8])
    r.joints = [Joint("floating", [0, 1, 2, 3, 4, 5], -1), Joint("normal", [6]), Joint("spin", [7])]
    r.drivers = [Driver("grip", "affine", [6, 7], [2.0, -1.0], [0.5, 0.0], -1, 1, -2, 2, -3, 3,
                        amin=-2.0, amax=8.0)]
    report, again = save_and_reload(r, tmp_path / "f.rob")
    assert report.lost == []
    assert [(j.type, j.links, j.base) for j in again.joints] == \
        [("floating", [0, 1, 2, 3, 4, 5], -1), ("normal", [6], -1), ("spin", [7], -1)]
    d = again.drivers[0]
    assert (d.name, d.dofs, d.scale, d.offset) == ("grip", [6, 7], [2.0, -1.0], [0.5, 0.0])
    assert (d.qmin, d.qmax, d.vmin, d.vmax, d.tmin, d.tmax, d.amin, d.amax) == (-1, 1, -2, 2, -3, 3, -2, 8)


def test_what_cannot_be_written_is_reported(tmp_path):
    r = chain(2, names=['a "quoted" name', "hash#name"])
    r.drivers[0].qmin = -0.5                       # differs from the link's limit
    r.links[0].appearance.color = (1, 0, 0, 1)
    r.joints.append(Joint("ballandsocket", [0, 1], -1))   # 2 links: not writable
    report, again = save_and_reload(r, tmp_path / "x.rob")
    lost = "\n".join(report.lost)
    # names a .rob cannot quote are renamed, not lost
    assert report.renamed["links"] == {'a "quoted" name': "a _quoted_ name", "hash#name": "hash_name"}
    assert "name" not in lost.replace("quoted\" name", "")
    assert "driver 'd0': limits qmin differ" in lost
    assert "appearance" in lost
    assert "ballandsocket joint over links [0, 1]" in lost
    assert again.link_names == ["a _quoted_ name", "hash_name"]


def test_primitive_and_group_geometry(tmp_path):
    (tmp_path / "src").mkdir()
    mesh = TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    roboio.save(mesh, str(tmp_path / "src" / "tri.off"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        part = roboio.load(str(tmp_path / "src" / "tri.off"))
    r = chain(3)
    r.links[0].geometry = Primitive("Sphere", {"center": [0, 0, 0], "radius": 0.5},
                                    transform=Rz(0.3) @ np.diag([2, 2, 2, 1.0]))
    second = part.copy()
    second.apply_transform(Rz(1.0))
    r.links[1].geometry = Group([part.copy(), second])
    scaled = part.copy()
    scaled.apply_transform(np.diag([1, 2, 1, 1.0]))
    r.links[2].geometry = Group([part.copy(), scaled])
    r.links[2].geometry.margin = 0.01
    out = tmp_path / "out" / "geo.rob"
    report, again = save_and_reload(r, out)
    text = out.read_text()
    assert "{Primitive Sphere " in text                           # inline, placement baked
    assert '"../src/tri.off"' in text                             # relative to the new file
    assert 'mount\t1 "../src/tri.off"' in text
    g0 = again.links[0].geometry
    # baked scale: 0.5 * 2 recovered from a rotation-scale product, so up to rounding
    assert g0.primitive == "Sphere" and abs(g0.params["radius"] - 1.0) < 1e-12
    assert np.allclose(g0.params["center"], [0, 0, 0])
    g1 = again.links[1].geometry
    assert isinstance(g1, Group) and np.allclose(g1.children[1].transform, Rz(1.0), atol=1e-15)
    assert any("scaled or sheared" in x for x in report.lost)
    assert abs(again.links[2].geometry.margin - 0.01) < 1e-15


def test_self_collision_pairs_are_written_explicitly(tmp_path):
    r = chain(4)
    for l in r.links:
        l.geometry = Primitive("Sphere", {"center": [0, 0, 0], "radius": 0.1})
    default = {(0, 2), (0, 3), (1, 3)}
    for pairs in (default, {(0, 2)}, set(), {(0, 1), (0, 3)}):
        r.self_collision_pairs = set(pairs)
        report, again = save_and_reload(r, tmp_path / "p.rob")
        assert again.self_collision_pairs == pairs
        assert report.lost == []
    r.links[3].geometry = None
    r.self_collision_pairs = {(0, 3)}
    report, again = save_and_reload(r, tmp_path / "p.rob")
    assert again.self_collision_pairs == set() and "a link without geometry" in report.lost[0]


@pytest.mark.parametrize("value", [
    "plain", "two\nlines\r\n", "hash # inside", '"leading quote', "back\\slash \\n literal",
    "<sensors>\n  <A name=\"x\" link=\"0\"/>\n</sensors>", "tab\tinside"])
def test_property_values_round_trip(tmp_path, value):
    r = chain(1)
    r.properties = {"note": value, "sensors": "<sensors><B/></sensors>"}
    report, again = save_and_reload(r, tmp_path / "prop.rob")
    assert again.properties["note"] == value.strip()
    assert again.properties["sensors"] == "<sensors><B/></sensors>"


def test_non_finite_stream_values_are_refused_and_nothing_is_written(tmp_path):
    r = chain(2)
    r.links[1].mass = math.inf
    out = tmp_path / "bad.rob"
    with pytest.raises(ValueError, match="masses"):
        roboio.save(r, str(out))
    assert not out.exists() and os.listdir(tmp_path) == []


def test_sample_planar_arm_round_trip(tmp_path):
    from conftest import SAMPLES
    src = os.path.join(SAMPLES, "planar_arm.rob")
    r = roboio.load(src)
    assert r.warnings == []
    report, again = save_and_reload(r, tmp_path / "arm.rob")
    assert report.lost == []
    Q = np.random.default_rng(1).uniform(-1, 1, (4, r.num_links))
    assert np.array_equal(again.fk_batch(Q), r.fk_batch(Q))


def test_loads_from_text(tmp_path):
    r = loads("links a\ntparent 1 0 0 0 1 0 0 0 1 0 0 0\n", LoadContext(str(tmp_path / "t.rob")))
    assert r.link_names == ["a"] and r.name == "t"


# -- mesh files Klamp't opens ------------------------------------------------------------------
SAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "roboio", "data", "samples")


def _arm_with_meshes(tmp_path):
    """The sample arm with a VRML bracket, an OBJ whose material library is missing, a
    header-less .geom and an empty mesh on its links."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        arm = roboio.load(os.path.join(SAMPLES, "planar_arm.rob"))
        arm.link("wrist").geometry = roboio.load(os.path.join(SAMPLES, "meshes", "bracket.wrl"))
        src = tmp_path / "src"
        src.mkdir()
        (src / "part.obj").write_text("mtllib gone.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
        arm.link("finger_left").geometry = roboio.load(str(src / "part.obj"))
        (src / "ball.geom").write_text("Sphere 0 0 0 0.25\n")
        arm.link("finger_right").geometry = roboio.load(str(src / "ball.geom"))
        (src / "empty.off").write_text("OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n")
        arm.link("base").geometry = roboio.load(str(src / "empty.off"))
    return arm


def _geometry_refs(path):
    import re
    lines = open(path).read().split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith("geometry\t"))
    block = [lines[k]]
    while block[-1].endswith("\\"):
        k += 1
        block.append(lines[k])
    return re.findall(r'"([^"]*)"', "\n".join(block))


@pytest.mark.parametrize("mode", ["keep", "copy", "convert"])
def test_meshes_klampt_cannot_open_are_converted(tmp_path, mode):
    arm = _arm_with_meshes(tmp_path)
    out = tmp_path / mode / "arm.rob"
    report = roboio.save(arm, str(out), meshes=mode)
    refs = _geometry_refs(out)
    # base (empty mesh) has none; the bracket, the OBJ and the .geom are written as OFF files
    assert refs[0] == ""
    assert refs[arm.link("wrist").index] == "arm_meshes/bracket.off"
    assert refs[arm.link("finger_left").index] == "arm_meshes/part.off"
    assert refs[arm.link("finger_right").index].startswith("{Primitive Sphere") or \
        refs[arm.link("finger_right").index].endswith(".off")
    shoulder = refs[arm.link("shoulder").index]
    if mode == "keep":
        assert os.path.normpath(os.path.join(out.parent, shoulder)) == \
            os.path.normpath(os.path.join(SAMPLES, "meshes", "upper_arm.off"))
    else:
        assert shoulder == "arm_meshes/upper_arm.off" and (out.parent / shoulder).is_file()
    assert any("empty meshes" in x and "link 'base'" in x for x in report.lost), report.lost
    assert any("converted to OFF in arm_meshes/" in w for w in report.warnings), report.warnings
    for ref in refs:
        if ref and not ref.startswith("{"):
            assert os.path.join(str(out.parent), ref) in report.files or mode == "keep"
    # what roboio reads back: the same vertices (OFF keeps every digit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RoboioWarning)
        again = roboio.load(str(out))
    for name in ("wrist", "finger_left"):
        a, b = arm.link(name).geometry, again.link(name).geometry
        assert np.array_equal(a.vertices, b.vertices) and np.array_equal(a.faces, b.faces)
    assert again.link("base").geometry is None
    # write -> read -> write: the same text and no new mesh files
    again_report = roboio.save(again, str(out), meshes=mode, overwrite_input=True)
    assert _geometry_refs(out) == refs
    assert all(f == str(out) or f.endswith(".off") for f in again_report.files)


def test_klampt_reads_rule(tmp_path):
    from roboio.formats.klampt._geometry_refs import klampt_reads
    (tmp_path / "a.obj").write_text("mtllib a.mtl\nv 0 0 0\n")
    assert not klampt_reads(str(tmp_path / "a.obj"))
    (tmp_path / "a.mtl").write_text("newmtl x\nKd 1 0 0\n")
    assert klampt_reads(str(tmp_path / "a.obj"))
    (tmp_path / "p.geom").write_text("Primitive\nSphere 0 0 0 1\n")
    (tmp_path / "q.geom").write_text("Sphere 0 0 0 1\n")
    assert klampt_reads(str(tmp_path / "p.geom")) and not klampt_reads(str(tmp_path / "q.geom"))
    for name, ok in (("m.wrl", False), ("m.iv", False), ("m.STL", True), ("m.dae", True), ("m.off", True)):
        assert klampt_reads(str(tmp_path / name)) is ok, name
