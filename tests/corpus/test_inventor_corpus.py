"""Every Inventor/VRML file of the corpus parses; triangle counts and bounding boxes of files
of each dialect agree with an independent count made here (regular expressions over the
text, scipy for a rotation), and hand-worked values for small files.

No reference library reads these files: trimesh has no Inventor/VRML loader, and klampt
0.10.1's Assimp build returns an empty geometry for them."""
import glob
import os
import re
import struct
import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from roboio.errors import FormatError
from roboio.context import LoadContext
from roboio.formats.meshes.inventor import mesh_data

from conftest import CORPUS, corpus_path

ROOTS = ["graspit", "openrave/src/models", "openrave/test/testdata", "choreonoid"]
PATTERNS = ("*.iv", "*.IV", "*.wrl", "*.wrl.or", "*.vrml")


def corpus_files():
    out = []
    for root in ROOTS:
        for pat in PATTERNS:
            out += glob.glob(os.path.join(CORPUS, root, "**", pat), recursive=True)
    return sorted(set(out))


# Warnings the corpus is known to produce: (substring of the message, number of files).
KNOWN_WARNINGS = {
    "extra '}' after the last node": 5,          # arizonaObject_revised, BarrettBH8_280_Tactile
    "file not found": 13,                        # Karlsruhe 'armar/hands/...', OpenRAVE ketchup
    "has no node type": 1,                       # Choreonoid Tank: "DEF Transform {"
    "Inventor node Cube in a VRML 2.0 file": 1,  # GraspIt! ashtray.IV
    "outside the 1 colours given": 2,            # cobra_gripper: one colour, per-face binding
}


def test_every_corpus_file_parses():
    files = corpus_files()
    if not files:
        pytest.skip("corpus not present")
    assert len(files) == 329
    seen = {k: set() for k in KNOWN_WARNINGS}
    failures = []
    total = 0
    for path in files:
        ctx = LoadContext(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                d = mesh_data(path, ctx)
            except FormatError as e:
                failures.append(str(e))
                continue
        v, f = d["vertices"], d["faces"]
        assert v.dtype == np.float64 and f.dtype == np.int64
        assert len(f) == 0 or (f.min() >= 0 and f.max() < len(v)), path
        if "face_colors" in d:
            assert d["face_colors"].shape == (len(f), 4)
        total += len(f)
        for w in ctx.warnings:
            key = next((k for k in KNOWN_WARNINGS if k in w), None)
            assert key is not None, f"unexpected warning: {w}"
            seen[key].add(path)
    assert failures == []
    assert {k: len(v) for k, v in seen.items()} == KNOWN_WARNINGS
    assert total > 500_000


# -- independent counts --------------------------------------------------------------------
def _text(path):
    with open(path, "rb") as f:
        t = f.read().decode("latin-1")
    return re.sub(r"#[^\n]*", "", t.split("\n", 1)[1] if t.startswith("#") else t)


def _blocks(text, pattern):
    return [np.array([float(x) for x in m.group(1).replace(",", " ").split()])
            for m in re.finditer(pattern + r"\s*\[([^\]]*)\]", text)]


def independent(path, coordinate_node="Coordinate3", face_sets=False):
    """(number of triangles, all coordinates) counted from the text: every polygon of n
    vertices gives n - 2 triangles; the coordinates are every point list of the file."""
    text = _text(path)
    pts = np.concatenate([b.reshape(-1, 3) for b in _blocks(text, coordinate_node + r"\s*\{\s*point")])
    if face_sets:
        counts = np.concatenate(_blocks(text, r"numVertices"))
        assert (counts > 0).all()
    else:
        idx = np.concatenate([np.append(b, -1) for b in _blocks(text, r"coordIndex")])
        sep = np.flatnonzero(idx == -1)
        counts = np.diff(np.concatenate([[-1], sep])) - 1
    return int(np.maximum(counts - 2, 0).sum()), pts


CASES = [   # file, coordinate node, FaceSet?
    ("openrave/src/models/WAM/wam2.iv", "Coordinate3", True),                       # Inventor 1.0
    ("graspit/models/robots/Karlsruhe/iv/anthropomorphic/thumb_fixed_part_1.iv", "Coordinate3", True),
    ("graspit/models/robots/Barrett/iv/link1.iv", "Coordinate3", True),             # Inventor 2.0
    ("graspit/models/objects/icosahedron.iv", "Coordinate3", False),
    ("graspit/models/robots/RobotIQ/iv/RIQ_link_0.iv", "Coordinate3", False),       # Inventor 2.1
    ("graspit/models/objects/phone.iv", "Coordinate3", False),
    ("openrave/src/models/furniture/shelf.wrl", "Coordinate3", False),              # VRML 1.0
    ("graspit/models/robots/TX60L/iv/6.wrl", "Coordinate3", False),
    ("graspit/models/robots/ReFlex/iv/distal-with-pad.wrl", "Coordinate3", False),
    ("graspit/models/objects/gun.iv", "Coordinate", False),                         # VRML 2.0 in .iv
]


@pytest.mark.parametrize("rel,coord,face_sets", CASES, ids=[c[0].rsplit("/", 1)[-1] for c in CASES])
def test_triangles_and_bounds_match_an_independent_count(rel, coord, face_sets):
    path = corpus_path(rel)
    ntri, pts = independent(path, coord, face_sets)
    d = mesh_data(path, LoadContext(path))
    assert len(d["faces"]) == ntri
    assert len(d["vertices"]) == len(pts)          # every point list used once, nothing merged
    np.testing.assert_array_equal(d["vertices"].min(0), pts.min(0))
    np.testing.assert_array_equal(d["vertices"].max(0), pts.max(0))


def test_headerless_vrml2_with_a_root_rotation():
    path = corpus_path("choreonoid/share/model/PA10/parts/J2.wrl")
    ntri, pts = independent(path, "Coordinate")
    R = Rotation.from_rotvec([1.570796326795, 0, 0]).as_matrix()   # "rotation 1 0 0 1.570796326795"
    moved = pts @ R.T
    d = mesh_data(path, LoadContext(path))
    assert len(d["faces"]) == ntri
    np.testing.assert_allclose(d["vertices"].min(0), moved.min(0), atol=1e-12)
    np.testing.assert_allclose(d["vertices"].max(0), moved.max(0), atol=1e-12)
    np.testing.assert_allclose(d["face_colors"], np.tile([0.85, 0.9, 0.85, 1.0], (ntri, 1)))


def test_vrml2_with_header_and_a_scale_transform():
    path = corpus_path("graspit/models/robots/cobra_gripper/iv/rotating_jaw.wrl")
    ntri, pts = independent(path, "Coordinate")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = mesh_data(path, LoadContext(path))
    assert len(d["faces"]) == ntri
    np.testing.assert_allclose(d["vertices"], pts * 25.4)     # "Transform { scale 25.4 25.4 25.4"


def test_floor_by_hand():
    """graspit/models/obstacles/floor.iv: 28 points, 7 quads, one material."""
    path = corpus_path("graspit/models/obstacles/floor.iv")
    d = mesh_data(path, LoadContext(path))
    assert d["vertices"].shape == (28, 3) and d["faces"].shape == (14, 3)
    np.testing.assert_array_equal(d["faces"][2:4], [[1, 4, 3], [1, 3, 2]])   # quad 1 4 3 2, fanned
    np.testing.assert_array_equal(d["vertices"].min(0), [-200, -500, 0])
    np.testing.assert_array_equal(d["vertices"].max(0), [5330, 8835, 0])
    np.testing.assert_allclose(d["face_colors"], np.tile([0.8, 0.72302, 0.308673, 1], (14, 1)))


def test_binary_inventor_file():
    """openrave coffeepot.iv (binary V2.1): IndexedTriangleStripSets; the strips are counted
    here by scanning the bytes for each ``coordIndex`` field (count word + indices)."""
    path = corpus_path("openrave/src/models/objects/coffeepot.iv")
    data = open(path, "rb").read()
    ntri = 0
    for m in re.finditer(rb"\x00\x00\x00\x0acoordIndex\x00\x00", data):
        n = struct.unpack(">i", data[m.end():m.end() + 4])[0]
        idx = np.array(struct.unpack(f">{n}i", data[m.end() + 4:m.end() + 4 + 4 * n]))
        sep = np.flatnonzero(np.append(idx, -1) == -1)
        ntri += int(np.maximum(np.diff(np.concatenate([[-1], sep])) - 3, 0).sum())
    d = mesh_data(path, LoadContext(path))
    assert ntri > 0 and len(d["faces"]) == ntri
    assert "face_colors" in d


def test_file_includes_in_graspit_hands():
    """Karlsruhe ring_whole.iv = File ring.iv, four transforms, File tip.iv (inside one
    Separator): the included files act as Groups, so the transforms between them move tip."""
    folder = corpus_path("graspit/models/robots/Karlsruhe/iv/anthropomorphic")
    whole = mesh_data(os.path.join(folder, "ring_whole.iv"), LoadContext(folder))
    ring = mesh_data(os.path.join(folder, "ring.iv"), LoadContext(folder))
    tip = mesh_data(os.path.join(folder, "tip.iv"), LoadContext(folder))
    rz = Rotation.from_euler("z", 0.3490658503988659).as_matrix()
    M = np.eye(4)
    for step in ([38.65, 0, 0], rz, [21.9, 0, 0], rz):
        T = np.eye(4)
        if np.shape(step) == (3,):
            T[:3, 3] = step
        else:
            T[:3, :3] = step
        M = M @ T
    nr = len(ring["vertices"])
    assert len(whole["faces"]) == len(ring["faces"]) + len(tip["faces"])
    np.testing.assert_array_equal(whole["vertices"][:nr], ring["vertices"])
    np.testing.assert_allclose(whole["vertices"][nr:], tip["vertices"] @ M[:3, :3].T + M[:3, 3],
                               atol=1e-9)


def test_choreonoid_resource_nodes_of_the_tank():
    """AgxTank.body picks nodes of tank.wrl by name (``uri: resource/tank.wrl``, ``node: X``)."""
    from roboio.formats.meshes.inventor import node_mesh
    body = corpus_path("choreonoid/share/model/Tank/AgxTank.body")
    wrl = os.path.join(os.path.dirname(body), "resource", "tank.wrl")
    names = sorted(set(re.findall(r"node:\s*(\w+)", open(body).read())))
    assert len(names) >= 10
    ctx = LoadContext(wrl)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = mesh_data(wrl, ctx)
        sizes = {n: len(node_mesh(wrl, ctx, n).faces) for n in names}
    assert all(v > 0 for v in sizes.values()), sizes
    assert sum(sizes.values()) <= len(whole["faces"])


def test_tank_turret_does_not_carry_its_gun():
    """Tank.body picks TURRET_Y and TURRET_P of tank.wrl, where TURRET_P's Transform sits
    inside TURRET_Y's: Choreonoid takes each picked node out of the scene, so the turret's
    visual holds its own Shape only (its points span x in [-0.1, 0.1] in the file) and the
    gun (out to x = 0.3) moves with the pitch joint alone. Before, it was drawn twice."""
    import roboio
    body = corpus_path("choreonoid/share/model/Tank/Tank.body")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = roboio.load(body)
    yaw = robot.links[robot.link_index("TURRET_Y")].visual_geometry.world_vertices()
    pitch = robot.links[robot.link_index("TURRET_P")].visual_geometry.world_vertices()
    assert np.abs(yaw[:, 0]).max() <= 0.1 + 1e-9
    assert pitch[:, 0].max() > 0.25
