"""GraspIt! corpus: every robot, body and world loads with its geometry (what GraspIt! itself
refuses fails with a clear error); link frames agree with an independent DH/coupling
computation (tests/corpus/graspit_reference.py); the spec's Barrett worked example; the
Barrett on the Puma in barrettGlassDyn.xml; write -> read -> write gives identical bytes."""
import glob
import math
import os
import warnings

import numpy as np
import pytest

import roboio
from conftest import CORPUS, tree_bytes
import graspit_reference as ref

GRASPIT = os.path.join(CORPUS, "graspit")
ROBOTS = sorted(glob.glob(os.path.join(GRASPIT, "models", "robots", "*", "*.xml")))
WORLDS = sorted(glob.glob(os.path.join(GRASPIT, "worlds", "*.xml")))
BODIES = sorted(glob.glob(os.path.join(GRASPIT, "models", "objects", "**", "*.xml"), recursive=True)
                + glob.glob(os.path.join(GRASPIT, "models", "obstacles", "**", "*.xml"), recursive=True))
#: what GraspIt! itself refuses to load (spec §7.4, §14): the error roboio gives instead
REFUSED = {"ShadowHand/ShadowHand.xml": "Fixed",
           "objects/default.xml": "without <geometryFile>"}

pytestmark = [pytest.mark.skipif(not os.path.isdir(GRASPIT), reason="corpus ../shared/corpus/graspit absent"),
              pytest.mark.filterwarnings("ignore::roboio.RoboioWarning")]


def _rel(p):
    return os.path.relpath(p, GRASPIT).replace("models/robots/", "").replace("models/", "")


def _load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(path, **kw)


_CACHE = {}


def robot(path):
    if path not in _CACHE:
        _CACHE[path] = _load(path)
    return _CACHE[path]


def _triangles(geoms):
    return sum(len(g.faces) for g in geoms if g is not None and not g.missing)


@pytest.mark.parametrize("path", ROBOTS, ids=_rel)
def test_every_robot_loads_with_geometry(path):
    name = _rel(path)
    if name in REFUSED:
        with pytest.raises(roboio.FormatError, match=REFUSED[name]) as e:
            _load(path)
        assert ":243:" in str(e.value)          # the <link dynamicJointType="Fixed"> line
        return
    r = robot(path)
    tri = _triangles(l.geometry for l in r.links)
    print(f"{name}: {r.num_links} links, {len(r.drivers)} DOFs, {tri} triangles")
    assert r.num_links >= 2 and r.drivers and tri > 0
    # every GraspIt! link has a geometry (missing files would be marked)
    rec = r.extras["graspit"]["record"]
    for c, chain in enumerate(rec.chains):
        for l in range(len(chain.links)):
            assert r.link(f"{r.name}_chain{c}_link{l}").geometry is not None


@pytest.mark.parametrize("path", BODIES, ids=_rel)
def test_every_body_loads(path):
    name = _rel(path)
    if name in REFUSED:
        with pytest.raises(roboio.FormatError, match=REFUSED[name]):
            _load(path)
        return
    o = _load(path)
    assert isinstance(o, roboio.RigidObject)
    assert o.mass > 0
    assert o.geometry is not None and not o.geometry.missing   # soap.iv is found as soap.IV
    if name != "obstacles/wall1.xml":           # wall1.iv is an empty Separator
        assert len(o.geometry.faces) > 0


@pytest.mark.parametrize("path", WORLDS, ids=_rel)
def test_every_world_loads(path):
    w = _load(path, search_paths=[GRASPIT])
    tri = sum(_triangles(l.geometry for l in r.links) for r in w.robots)
    tri += _triangles(o.geometry for o in w.rigid_objects + w.terrains)
    print(f"{_rel(path)}: robots {[r.name for r in w.robots]}, {len(w.rigid_objects)} graspable, "
          f"{len(w.terrains)} obstacles, {tri} triangles")
    assert w.robots and tri > 0


def test_soap_found_case_insensitively_with_a_warning():
    with pytest.warns(roboio.RoboioWarning, match="case differs"):
        o = roboio.load(os.path.join(GRASPIT, "models", "objects", "soap.xml"))
    assert len(o.geometry.faces) > 0


# -- independent DH / coupling computation ----------------------------------------------------
KINEMATICS = [p for p in ROBOTS if _rel(p) not in REFUSED]


@pytest.mark.parametrize("path", KINEMATICS, ids=_rel)
def test_link_frames_match_independent_dh(path):
    """Every GraspIt! link frame, at random DOF values, against graspit_reference.py (its own
    XML reading, DOF scan, DH and compliant-coupling formula)."""
    r = robot(path)
    n, prismatic = ref.dof_count_and_units(path)
    assert len(r.drivers) == n
    rng = np.random.default_rng(12)
    for _ in range(8):
        u = np.where(prismatic, rng.uniform(-30, 30, n), rng.uniform(-1.5, 1.5, n))
        want = ref.link_frames(path, u)
        T = r.fk(r.config_from_drivers(np.where(prismatic, u * 1e-3, u)))
        for (c, l), F in want.items():
            np.testing.assert_allclose(T[r.link_index(f"{r.name}_chain{c}_link{l}")], F, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["HumanHand/HumanHand20DOF.xml", "Robonaut/Robonaut.xml",
                                  "fetch_gripper/fetch_gripper.xml", "XR4000/XR4000.xml"])
def test_named_robots_exercise_what_they_should(name):
    """The robots the issue names cover Universal links, rotationMatrix, transform order and
    prismatic chains."""
    path = os.path.join(GRASPIT, "models", "robots", name)
    text = open(path).read()
    r = robot(path)
    if "HumanHand" in name:
        assert 'dynamicJointType="Universal"' in text
        # a Universal link: one intermediate (joint) link between the two joints it consumes
        assert r.link(f"{r.name}_chain0_joint0").mass == 0
    if "Robonaut" in name:
        assert "<rotationMatrix>" in text
    if "fetch" in name or "XR4000" in name:
        assert any(l.is_prismatic for l in r.links)


def test_fetch_gripper_transform_order():
    """Spec §3.2: chain 1 is Rx(-90) then a translation along the rotated axes."""
    r = robot(os.path.join(GRASPIT, "models", "robots", "fetch_gripper", "fetch_gripper.xml"))
    T = r.fk(r.config_from_drivers([0.0]))
    np.testing.assert_allclose(T[r.link_index("fetch_gripper_chain0_link0")][:3, 3], [0.165, 0.025, -0.110], atol=1e-12)
    np.testing.assert_allclose(T[r.link_index("fetch_gripper_chain1_link0")][:3, 3], [0.165, -0.025, -0.110], atol=1e-12)
    np.testing.assert_allclose(T[r.link_index("fetch_gripper_chain0_link0")][:3, 2], [0, -1, 0], atol=1e-12)
    np.testing.assert_allclose(T[r.link_index("fetch_gripper_chain1_link0")][:3, 2], [0, 1, 0], atol=1e-12)
    # d0*-10: both fingers close by 10 mm per mm of DOF, limits given reversed
    T = r.fk(r.config_from_drivers([0.001]))
    np.testing.assert_allclose(T[r.link_index("fetch_gripper_chain0_link0")][:3, 3], [0.165, 0.035, -0.110], atol=1e-12)


# -- the spec's Barrett worked example (§8.1) ------------------------------------------------
BARRETT_TABLE = [
    ((0, 0, 0, 0), {"chain0_link0": (25, 50, -1), "chain0_link1": (25, 119.7336, 5.1009),
                    "chain0_link2": (25, 158.6245, 43.9918), "chain2_link1": (0, -158.6245, 43.9918)}),
    ((0, 0.5, 0, 0), {"chain0_link0": (25, 50, -1), "chain0_link1": (25, 108.2721, 37.7861),
                      "chain0_link2": (25, 114.7870, 92.3989), "chain2_link1": (0, -158.6245, 43.9918)}),
    ((4.98626e-6, 0.9, 0.9, 0.9), {"chain0_link0": (25.0002, 50, -1), "chain0_link1": (25.0004, 88.5681, 57.4166),
                                   "chain0_link2": (25.0003, 66.4127, 107.7568),
                                   "chain2_link1": (0, -66.4127, 107.7568)}),
]


@pytest.mark.parametrize("dofs,table", BARRETT_TABLE, ids=["zero", "dof1=0.5", "glassdyn"])
def test_barrett_worked_example_origins(dofs, table):
    r = robot(os.path.join(GRASPIT, "models", "robots", "Barrett", "Barrett.xml"))
    T = r.fk(r.config_from_drivers(dofs))
    for link, mm in table.items():
        np.testing.assert_allclose(T[r.link_index("Barrett_" + link)][:3, 3] * 1000, mm, atol=6e-5)


def test_barrett_worked_example_rotation_and_dof_range():
    r = robot(os.path.join(GRASPIT, "models", "robots", "Barrett", "Barrett.xml"))
    T = r.fk(r.config_from_drivers([0, 0, 0, 0]))
    s = math.sqrt(0.5)
    np.testing.assert_allclose(T[r.link_index("Barrett_chain0_link2")][:3, :3],
                               [[0, 0, 1], [s, -s, 0], [s, s, 0]], atol=1e-12)
    # DOF 1: J1 0..144 deg and J2 0..144/0.333333333 deg intersect to 0..144 deg
    d = r.drivers[1]
    assert d.qmin == 0 and d.qmax == pytest.approx(math.radians(144), abs=1e-15)
    assert d.dofs == [r.link_index("Barrett_chain0_joint1"), r.link_index("Barrett_chain0_joint2")]
    assert d.scale == [1.0, 0.333333333]
    # hand check in the spec: link1 = link0 + 70 (cos 5, sin 5) in the finger plane
    p0, p1 = T[r.link_index("Barrett_chain0_link0")][:3, 3], T[r.link_index("Barrett_chain0_link1")][:3, 3]
    np.testing.assert_allclose((p1 - p0)[1:], 0.070 * np.array([math.cos(math.radians(5)), math.sin(math.radians(5))]),
                               atol=1e-15)
    # drivers_from_config inverts config_from_drivers
    u = np.array([0.3, 1.1, 0.2, 2.0])
    np.testing.assert_allclose(r.drivers_from_config(r.config_from_drivers(u)), u, atol=1e-15)


# -- worlds ----------------------------------------------------------------------------------
def test_barrett_mounted_on_the_puma():
    """barrettGlassDyn.xml: the Barrett's base is the Puma's last link times the connection
    offset (GraspIt! saved both poses with 6 significant digits)."""
    w = _load(os.path.join(GRASPIT, "worlds", "barrettGlassDyn.xml"), search_paths=[GRASPIT])
    puma, barrett = w.robots
    (con,) = w.extras["graspit"]["connections"]
    assert (con["parent"], con["chain"], con["child"]) == (0, 0, 1)
    np.testing.assert_allclose(con["offset"][:3, 3], [0, 0, 0.17505], atol=1e-15)
    last = puma.link_index("Puma560_chain0_link5")
    expect = puma.fk()[last] @ con["offset"]
    np.testing.assert_allclose(barrett.links[0].parent_transform, expect, atol=2e-5)
    # the mount piece is welded to the Barrett's palm; dofValues with breakaway flags
    mount = barrett.link("Barrett_mount")
    assert mount.parent == 0 and mount.geometry is not None
    np.testing.assert_allclose(barrett.drivers_from_config(), [4.98626e-6, 0.9, 0.9, 0.9], atol=1e-15)
    assert barrett.extras["graspit"]["breakaway"][1] == [(0, None), (0, None)]
    cam = w.extras["graspit"]["camera"]
    assert cam.orientation == (-0.0133373, 0.554021, 0.832395, -0.00105661)


def test_world_found_through_graspit_environment(monkeypatch):
    monkeypatch.setenv("GRASPIT", GRASPIT)
    w = _load(os.path.join(GRASPIT, "worlds", "plannerMug.xml"))
    assert [r.name for r in w.robots] == ["Barrett"] and w.rigid_objects[0].name == "mug"


# -- write -> read -> write ------------------------------------------------------------------
@pytest.mark.parametrize("path", KINEMATICS, ids=_rel)
def test_robot_write_read_write_identical(path, tmp_path):
    r = robot(path)
    stem = os.path.basename(path)
    rep = roboio.save(r, tmp_path / "a" / stem, format="graspit")
    assert not rep.lost
    r2 = _load(tmp_path / "a" / stem)
    roboio.save(r2, tmp_path / "b" / stem, format="graspit")
    a, b = tree_bytes(tmp_path / "a"), tree_bytes(tmp_path / "b")
    assert a == b
    assert r2.link_names == r.link_names
    u = np.array([0.5 * (d.qmin + d.qmax) for d in r.drivers])
    np.testing.assert_array_equal(r2.fk(r2.config_from_drivers(u)), r.fk(r.config_from_drivers(u)))
    for l1, l2 in zip(r.links, r2.links):
        assert l1.mass == l2.mass
        np.testing.assert_array_equal(l1.com, l2.com)
        np.testing.assert_array_equal(l1.inertia, l2.inertia)


@pytest.mark.parametrize("path", WORLDS, ids=_rel)
def test_world_write_read_write_identical(path, tmp_path):
    w = _load(path, search_paths=[GRASPIT])
    rep = roboio.save(w, tmp_path / "a" / "w.xml", format="graspit")
    assert not rep.lost
    w2 = _load(tmp_path / "a" / "w.xml")
    roboio.save(w2, tmp_path / "b" / "w.xml", format="graspit")
    assert tree_bytes(tmp_path / "a") == tree_bytes(tmp_path / "b")
    for r1, r2 in zip(w.robots, w2.robots):
        np.testing.assert_array_equal(r1.config, r2.config)
        np.testing.assert_allclose(r1.fk(), r2.fk(), atol=1e-15)
    for o1, o2 in zip(w.rigid_objects + w.terrains, w2.rigid_objects + w2.terrains):
        np.testing.assert_array_equal(o1.transform, o2.transform)


def test_edited_robot_written_with_its_edits(tmp_path):
    """A GraspIt! robot edited in memory keeps its records where they still hold and writes
    the model's new values elsewhere: DOF defaults (degrees), limits, masses."""
    r = _load(os.path.join(GRASPIT, "models", "robots", "Barrett", "Barrett.xml"))
    r.config = r.config_from_drivers([0.3, 1.0, 0.5, 0.25])
    j = r.link_index("Barrett_chain0_joint1")
    r.qmax[j] = 2.0
    link = r.link("Barrett_chain2_link1")
    link.mass = 0.125
    roboio.save(r, tmp_path / "Barrett.xml", format="graspit")
    text = (tmp_path / "Barrett.xml").read_text()
    assert "<defaultValue>" in text and "<theta>d1+5</theta>" in text
    r2 = _load(tmp_path / "Barrett.xml")
    np.testing.assert_allclose(r2.drivers_from_config(), [0.3, 1.0, 0.5, 0.25], atol=1e-15)
    assert r2.qmax[j] == 2.0 and r2.link("Barrett_chain2_link1").mass == 0.125
    np.testing.assert_allclose(r2.link("Barrett_chain2_link1").inertia, link.inertia, atol=1e-18)
