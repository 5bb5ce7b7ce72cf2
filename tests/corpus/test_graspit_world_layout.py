"""GraspIt! worlds written into one folder: each world's robots and bodies that are not
GraspIt!'s own unchanged files go to a folder named after the world file, so two worlds
holding a robot or body of one name with different content never overwrite each other's
files, whatever the order of the writes. The robot files a world names are checked by the
independent GraspIt! reading of graspit_reference.py (DH chains, spec sections 7-8)."""
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np

import graspit_reference as ref
import roboio
from conftest import corpus_path, tree_bytes
from roboio.model import RigidObject, Terrain, World
from roboio.transforms import make_transform

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit"))
from test_graspit_write import _rot, box_mesh, sample_robot  # noqa: E402


def graspit_link_frames(robot_xml: str, q) -> dict:
    """Link name (roboio's ``name`` attribute) -> its frame in the palm frame (metres) at
    GraspIt! DOF values ``q`` (rad, mm), by the independent reading of graspit_reference."""
    frames = ref.link_frames(robot_xml, q)
    root = ET.parse(robot_xml).getroot()
    return {link.get("name"): frames[(c, l)] for c, chain in enumerate(root.findall("chain"))
            for l, link in enumerate(chain.findall("link"))}


def _world_robot_files(world_xml: str) -> list:
    """(robot file path, DOF values) of every ``<robot>`` of a GraspIt! world (r DOFs)."""
    root = ET.parse(world_xml).getroot()
    base = os.path.dirname(world_xml)
    return [(os.path.join(base, r.findtext("filename")), [float(x) for x in r.findtext("dofValues").split()])
            for r in root.findall("robot")]


# -- two worlds holding different things of one name ----------------------------------------
def _world(name: str, reach: float, cup: float, floor: float) -> World:
    w = World(name)
    r = sample_robot()                      # named "arm" in both worlds
    elbow = r.link("elbow")
    elbow.parent_transform = make_transform(_rot((0, 1, 1), 1.0), (0.0, reach, 0.0))
    r.link("wrist").geometry = box_mesh(cup, 0.03, 0.04)
    r.links[0].parent_transform = make_transform(_rot((0, 0, 1), reach), (reach, 0, 0))
    r.config = r.config_from_drivers([0.1, reach, 0.03, -0.4])
    w.add(r)
    w.add(Terrain("floor", box_mesh(floor, floor, 0.02)))
    o = RigidObject("cup", box_mesh(cup, cup, 0.1))
    o.transform = make_transform(_rot((1, 0, 0), 0.2), (0.3, 0.1, 0.05))
    o.mass = 10 * cup
    w.add(o)
    return w


def _worlds():
    return {"left.xml": _world("left", 0.3, 0.05, 2.0), "right.xml": _world("right", 0.45, 0.08, 3.0)}


def _placed(mesh) -> np.ndarray:
    """The mesh's vertices in its element's frame (metres)."""
    T = np.asarray(mesh.transform, float)
    return np.asarray(mesh.vertices, float) @ T[:3, :3].T + T[:3, 3]


def test_two_worlds_in_one_folder_each_read_back_their_own_robot_and_bodies(tmp_path):
    worlds = _worlds()
    for name, w in worlds.items():
        roboio.save(w, tmp_path / name, format="graspit")
    robot_files = set()
    for name, w in worlds.items():
        back = roboio.load(tmp_path / name)
        (r,), (r2,) = w.robots, back.robots
        src = dict(zip(r.link_names, r.fk()))
        got = dict(zip(r2.link_names, r2.fk()))
        for link in r.link_names:
            np.testing.assert_allclose(got[link], src[link], rtol=0, atol=1e-9, err_msg=f"{name} {link}")
        # GraspIt!'s reading of the robot file the world names, at the world's DOF values
        ((rfile, q),) = _world_robot_files(str(tmp_path / name))
        robot_files.add(rfile)
        dh = graspit_link_frames(rfile, q)
        palm = np.linalg.inv(src[r.links[0].name])
        for link in r.link_names[1:]:
            np.testing.assert_allclose(dh[link], palm @ src[link], rtol=0, atol=1e-9, err_msg=f"{name} {link}")
        for a, b in ((w.rigid_objects[0], back.rigid_objects[0]), (w.terrains[0], back.terrains[0])):
            np.testing.assert_allclose(_placed(b.geometry).max(axis=0), _placed(a.geometry).max(axis=0),
                                       rtol=0, atol=1e-9)
        assert back.rigid_objects[0].mass == w.rigid_objects[0].mass
    assert len(robot_files) == 2                      # each world its own arm.xml


def test_the_order_of_the_writes_changes_no_byte(tmp_path):
    """Written left then right, right then left, or each alone into an empty folder: the same
    files with the same bytes; and writing again changes nothing (idempotent)."""
    worlds = _worlds()
    for order, folder in ((("left.xml", "right.xml"), "ab"), (("right.xml", "left.xml"), "ba")):
        for name in order:
            roboio.save(worlds[name], tmp_path / folder / name, format="graspit")
    for name in worlds:
        roboio.save(worlds[name], tmp_path / "alone" / name / name, format="graspit")
    ab = tree_bytes(tmp_path / "ab")
    assert ab == tree_bytes(tmp_path / "ba")
    alone = {}
    for name in worlds:
        alone.update(tree_bytes(tmp_path / "alone" / name))
    assert ab == alone                                 # no file of one world is the other's
    roboio.save(worlds["left.xml"], tmp_path / "ab" / "left.xml", format="graspit")
    assert tree_bytes(tmp_path / "ab") == ab


def test_world_layout_is_a_fixed_point(tmp_path):
    """A world read back from its own folder writes the same files again, over itself."""
    roboio.save(_worlds()["left.xml"], tmp_path / "left.xml", format="graspit")
    first = tree_bytes(tmp_path)
    roboio.save(roboio.load(tmp_path / "left.xml"), tmp_path / "left.xml", format="graspit",
                overwrite_input=True)
    assert tree_bytes(tmp_path) == first
    assert sorted(p for p in first if p.endswith("arm.xml")) == [os.path.join("models", "robots", "left", "arm", "arm.xml")]


# -- real worlds --------------------------------------------------------------------------------
OPENRAVE = corpus_path("openrave", "src")
GRASPIT = corpus_path("graspit")


def _load(path, **kw):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(path, **kw)


def test_openrave_worlds_with_different_barrettwams_keep_their_own(tmp_path):
    """lab1 (barrettsegway) and wam_cabinet (barrettwam) both hold a robot named BarrettWAM:
    written into one folder as GraspIt! worlds, each reads back with its own."""
    names = ("lab1", "wam_cabinet")
    sources = {n: _load(os.path.join(OPENRAVE, "data", f"{n}.env.xml"), search_paths=[OPENRAVE]) for n in names}
    for n, w in sources.items():
        roboio.save(w, tmp_path / f"{n}.xml", format="graspit")
    files = set()
    for n, w in sources.items():
        src = next(r for r in w.robots if r.name == "BarrettWAM")
        back = next(r for r in _load(tmp_path / f"{n}.xml").robots if r.name == "BarrettWAM")
        want, got = dict(zip(src.link_names, src.fk())), dict(zip(back.link_names, back.fk()))
        assert set(want) <= set(got)
        for link in want:
            np.testing.assert_allclose(got[link], want[link], rtol=0, atol=1e-9, err_msg=f"{n} {link}")
        rfile, q = next((f, q) for f, q in _world_robot_files(str(tmp_path / f"{n}.xml"))
                        if f.endswith("BarrettWAM.xml"))
        files.add(rfile)
        dh = graspit_link_frames(rfile, q)
        palm = np.linalg.inv(want[src.links[0].name])
        for link in src.link_names[1:]:
            np.testing.assert_allclose(dh[link], palm @ want[link], rtol=0, atol=1e-9, err_msg=f"{n} {link}")
    assert len(files) == 2


def _barrett_world(name, edit=None):
    w = _load(os.path.join(GRASPIT, "worlds", name), search_paths=[GRASPIT])
    if edit is not None:
        edit(next(r for r in w.robots if r.name == "Barrett"))
    return w


def _edit_limit(r):
    r.qmax[r.link_index("Barrett_chain0_joint1")] = 2.0


def test_graspit_worlds_share_unchanged_robot_files_and_keep_edited_ones_apart(tmp_path):
    """barrettGlassDyn and plannerMug name GraspIt!'s Barrett.xml: written back unchanged
    they keep models/robots/Barrett/Barrett.xml (and its iv/ bodies, the mount piece), with
    the bytes either writes alone; a world whose Barrett was edited writes it into its own
    folder and leaves the shared files as they were."""
    names = ("barrettGlassDyn.xml", "plannerMug.xml")
    for n in names:
        roboio.save(_barrett_world(n), tmp_path / "both" / n, format="graspit")
        roboio.save(_barrett_world(n), tmp_path / f"alone-{n}" / n, format="graspit")
    both = tree_bytes(tmp_path / "both")
    for n in names:
        alone = tree_bytes(tmp_path / f"alone-{n}")
        assert {k: both[k] for k in alone} == alone
        assert b"<filename>models/robots/Barrett/Barrett.xml</filename>" in alone[n]
    assert b"<mountFilename>models/robots/Barrett/iv/barrettmount.xml</mountFilename>" in both[names[0]]
    edited = _barrett_world("plannerMug.xml", _edit_limit)
    roboio.save(edited, tmp_path / "both" / "edited.xml", format="graspit")
    after = tree_bytes(tmp_path / "both")
    assert {k: after[k] for k in both} == both                 # nothing of the others changed
    assert b"<filename>models/robots/edited/Barrett/Barrett.xml</filename>" in after["edited.xml"]
    j = "Barrett_chain0_joint1"
    for n, qmax in (("edited.xml", 2.0), ("plannerMug.xml", _barrett_world("plannerMug.xml").robots[0].qmax)):
        r = next(r for r in _load(tmp_path / "both" / n).robots if r.name == "Barrett")
        want = 2.0 if n == "edited.xml" else qmax[r.link_index(j)]
        assert abs(r.qmax[r.link_index(j)] - want) < 1e-12, n
    # written back from its own folder, the edited world stays there (a fixed point)
    roboio.save(_load(tmp_path / "both" / "edited.xml"), tmp_path / "both" / "edited.xml",
                format="graspit", overwrite_input=True)
    assert tree_bytes(tmp_path / "both") == after


def test_side_file_renamed_in_one_save_is_referenced_by_its_new_name(tmp_path):
    """Two edited Barretts with different eigengrasps in one world share a folder: the
    second's eigengrasp file gets another name, and its robot file names that one."""
    w = _barrett_world("plannerMug.xml", _edit_limit)
    other = _load(os.path.join(GRASPIT, "models", "robots", "Barrett", "Barrett.xml"))
    _edit_limit(other)
    eg = other.extras["graspit"]["eigengrasps"]
    eg.grasps = eg.grasps[:1]
    w.add(other)
    roboio.save(w, tmp_path / "w.xml", format="graspit")
    back = [r for r in _load(tmp_path / "w.xml").robots]
    assert len(back) == 2
    assert [len(r.extras["graspit"]["eigengrasps"].grasps) for r in back] == [2, 1]


def test_a_kept_file_holding_other_bytes_is_reported_when_replaced(tmp_path):
    """Two GraspIt! trees may hold different files of one name: a kept file found with other
    bytes (here edited by hand, as another tree's Barrett.xml would be) is replaced, and the
    report says so; the same bytes again are not reported."""
    out = tmp_path / "w.xml"
    roboio.save(_barrett_world("plannerMug.xml"), out, format="graspit")
    robot = tmp_path / "models" / "robots" / "Barrett" / "Barrett.xml"
    text = robot.read_text()
    again = roboio.save(_barrett_world("plannerMug.xml"), out, format="graspit")
    assert not [w for w in again.warnings if "replaced a file" in str(w)]
    robot.write_text(text.replace("<maxValue>144</maxValue>", "<maxValue>150</maxValue>", 1))
    rep = roboio.save(_barrett_world("plannerMug.xml"), out, format="graspit")
    assert [w for w in rep.warnings if str(robot) in str(w) and "replaced a file" in str(w)]
    assert robot.read_text() == text


def test_two_robots_of_one_name_in_one_world(tmp_path):
    """Within one world, a second, different robot of the same name gets its own file
    (``arm_1.xml``: GraspIt! names it after the file, reported) and both read back with
    their own link poses."""
    w = World("two")
    for reach in (0.3, 0.45):
        w.add(_world(f"w{reach}", reach, 0.05, 2.0).robots[0])
    rep = roboio.save(w, tmp_path / "two.xml", format="graspit")
    assert rep.renamed["robots"] == {"arm": "arm_1"}
    back = _load(tmp_path / "two.xml")
    assert [r.name for r in back.robots] == ["arm", "arm_1"]
    for r, r2 in zip(w.robots, back.robots):
        got = dict(zip(r2.link_names, r2.fk()))
        for link, T in zip(r.link_names, r.fk()):
            if link in got:
                np.testing.assert_allclose(got[link], T, rtol=0, atol=1e-9, err_msg=link)
        assert sum(link in got for link in r.link_names) >= 7
