"""Every OpenRAVE XML file of the corpus: loading, the spec's worked examples on the real
files, an independent forward-kinematics check of the model against OpenRAVE's rules, write ->
read round trips, conversions to URDF and .rob, and sniffing across every ecosystem."""
import glob
import importlib
import math
import os
import re
import warnings

import numpy as np
import pytest

import roboio
from conftest import CORPUS
from roboio.context import LoadContext
from roboio.convert import verify
from roboio.formats import registry
from roboio.formats.openrave.xml import read_records

OR = os.path.join(CORPUS, "openrave")
DATA = os.path.join(OR, "src")
FILES = sorted(os.path.relpath(p, OR) for p in glob.glob(os.path.join(OR, "**", "*.xml"),
                                                             recursive=True))
pytestmark = pytest.mark.skipif(not os.path.isdir(OR), reason="corpus ../shared/corpus absent")

#: files that include COLLADA (directly or through an included file)
COLLADA = {
    "src/data/dualarmmanipulation.env.xml", "src/data/hanoi.env.xml",
    "src/data/hanoi_complex.env.xml", "src/data/hanoi_complex2.env.xml",
    "src/data/hironxtable.env.xml", "src/data/katanatable.env.xml",
    "src/data/pa10calib.env.xml", "src/data/pa10calib_envcamera.env.xml",
    "src/data/pa10grasp.env.xml", "src/data/pa10grasp2.env.xml", "src/data/pr2test1.env.xml",
    "src/data/pr2test2.env.xml", "src/data/pr2wam_test1.env.xml", "src/data/puma.env.xml",
    "src/data/puma_tabletop.env.xml", "src/data/pumablocks.env.xml",
    "src/data/testphysics.env.xml", "src/data/youbot1.env.xml",
    "src/robots/pa10schunk.robot.xml", "src/robots/pr2-beta-sim.robot.xml",
    "src/robots/puma.robot.xml", "src/robots/pumabarrett.robot.xml",
    "src/robots/schunk-lwa3-dual.robot.xml"}


def _has_collada() -> bool:
    try:
        return hasattr(importlib.import_module("roboio.formats.openrave.collada"), "append_collada")
    except ImportError:
        return False


_CACHE = {}


def load(rel):
    if rel not in _CACHE:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _CACHE[rel] = roboio.load(os.path.join(OR, rel), search_paths=[DATA])
    return _CACHE[rel]


def robots():
    out = []
    for rel in FILES:
        if rel in COLLADA and not _has_collada():
            continue
        if rel.endswith(".env.xml") or rel.endswith(".sensor.xml"):
            continue
        out.append(rel)
    return out


def test_file_list_is_complete():
    assert len(FILES) == 82
    assert COLLADA <= set(FILES)


@pytest.mark.parametrize("rel", FILES)
def test_every_file_loads(rel):
    if rel in COLLADA and not _has_collada():
        with pytest.raises(roboio.FormatError, match=r"includes the COLLADA file .*\.zae"):
            roboio.load(os.path.join(OR, rel), search_paths=[DATA])
        return
    obj = load(rel)
    if rel.endswith(".env.xml") or rel.endswith(".sensor.xml"):
        assert isinstance(obj, roboio.World)
    else:
        assert isinstance(obj, roboio.Robot) and obj.num_links > 0


def test_data_path_is_needed_and_named():
    with pytest.raises(roboio.FormatError, match=r"lab1\.env\.xml:4: .*robots/barrettsegway"
                                                 r"\.robot\.xml.*--data-path"):
        roboio.load(os.path.join(OR, "src/data/lab1.env.xml"))


def test_lab1_environment():
    w = load("src/data/lab1.env.xml")
    assert [r.name for r in w.robots] == ["BarrettWAM", "dishwasher_table"]
    assert [o.name for o in w.rigid_objects][:7] == ["segway", "mug1", "mug2", "mug3", "mug4",
                                                     "mug5", "mug6"]
    assert [t.name for t in w.terrains] == ["floorwalls", "pole", "pole2", "pole3", "wall1"]
    mug = w.rigid_object("mug2")
    # mug1.kinbody.xml: RotationAxis 1 0 0 90 (KinBody level), then lab1's translation
    R = mug.transform[:3, :3]
    np.testing.assert_allclose(R, [[1, 0, 0], [0, 0, -1], [0, 1, 0]], atol=1e-15)
    np.testing.assert_allclose(mug.transform[:3, 3], (-0.02, 0.15, 0.755), atol=1e-15)


# -- the spec's worked examples on the real files ------------------------------------

def test_barrett_wam_append_and_dummy_joint():
    r = load("src/robots/barrettwam.robot.xml")
    assert r.link_names[0] == "wam0"
    np.testing.assert_allclose(r.fk()[0][:3, 3], (-0.22, -0.14, -0.346), atol=1e-15)
    T = r.fk()
    np.testing.assert_allclose(T[r.link_index("handbase")][:3, 3], (0, 0, 0.91), atol=1e-12)
    hb = r.link_index("handbase")
    assert r.joints[hb].type == "weld" and r.links[hb].parent == r.link_index("wam7")
    assert [d.name for d in r.drivers] == ["Shoulder_Yaw", "Shoulder_Pitch", "Shoulder_Roll",
                                           "Elbow", "Wrist_Yaw", "Wrist_Pitch", "Wrist_Roll",
                                           "JF1", "JF2", "JF3", "JF4"]
    m = r.manipulators[0]
    assert (r.links[m.base].name, r.links[m.effector].name, m.ik_solver) == ("wam0", "wam7",
                                                                            "WAM7ikfast 0.05")
    # the arm links are the links the seven arm DOFs move (the intermediate link of an
    # axis that does not pass through its OpenRAVE link's origin)
    assert m.arm_links == [d.dofs[0] for d in r.drivers[:7]]
    assert r.links[m.arm_links[-1]].name == "Wrist_Roll.axis0"


def test_barrett_hand_mimic_offset():
    r = load("src/robots/barretthand.kinbody.xml")
    i = r.link_index("Finger0-2")
    point = np.array([0.05, 0, 0, 1])
    np.testing.assert_allclose((r.fk()[i] @ point)[:3], (0.15214, -0.025, 0.12980), atol=5e-6)
    q = r.config_from_drivers([1.0, 0, 0, 0])
    np.testing.assert_allclose(r.fk(q)[i][:3, 3], (0.08782, -0.025, 0.15040), atol=5e-6)
    np.testing.assert_allclose((r.fk(q)[i] @ point)[:3], (0.05815, -0.025, 0.19065), atol=5e-6)
    jf1 = r.drivers[0]
    assert jf1.scale == pytest.approx([1, 1 / 3]) and jf1.offset == pytest.approx([0, 0.8727])


def test_schunk_prefixes_and_mimic():
    r = load("src/robots/schunk_manip.robot.xml")
    assert r.link_names == ["gripper_base", "L_finger", "R_finger"]
    (d,) = r.drivers
    assert (d.name, d.type, d.scale, d.offset) == ("jfinger_L", "affine", [1.0, -1.0], [0.0, 0.0])


# -- an independent check of the model against OpenRAVE's rules ------------------------

def _rot(u, a):
    u = np.asarray(u, float) / np.linalg.norm(u)
    K = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) + math.sin(a) * K + (1 - math.cos(a)) * K @ K


def _h(R=None, p=(0, 0, 0)):
    M = np.eye(4)
    M[:3, :3] = np.eye(3) if R is None else R
    M[:3, 3] = p
    return M


def _spec_fk(body, dofs):
    """Link poses of a body record by ``openrave.md`` §16 only: BFS depths from link 0 (static
    links at depth 0), parent = the shallower link, frozen frames, mimic equations evaluated by
    substituting joint values. Written for this test, independent of roboio's hierarchy."""
    links, joints = body.links, body.joints
    active = [j for j in joints if j.active and not j.is_mimic]
    value = {}
    k = 0
    for j in active:
        value[j.name] = list(dofs[k:k + j.dof])
        k += j.dof
    names = sorted((j.name for j in joints if j.name), key=len, reverse=True)

    def mimic(j):
        eq = j.mimic[0].pos
        for n in names:
            eq = eq.replace(n, f"__{names.index(n)}__")
        for n in names:
            if f"__{names.index(n)}__" in eq:
                eq = eq.replace(f"__{names.index(n)}__", f"({joint_value(n)})")
        assert re.fullmatch(r"[0-9eE+\-*/(). ]+", eq), eq
        return eval(eq, {"__builtins__": {}})

    def joint_value(n):
        j = next(x for x in joints if x.name == n)
        if j.name in value:
            return value[j.name][0]
        if j.is_mimic:
            return mimic(j)
        return 0.0

    depth = {0: 0}
    for i, l in enumerate(links):
        if l.static:
            depth[i] = 0
    while True:
        frontier = [i for i in depth]
        while frontier:
            nxt = []
            for i in frontier:
                for j in joints:
                    for a, b in ((j.link0, j.link1), (j.link1, j.link0)):
                        if a == i and b not in depth:
                            depth[b] = depth[i] + 1
                            nxt.append(b)
            frontier = nxt
        # links not connected to link 0 stay where declared; what hangs from them by joints
        # still moves with those joints (OpenRAVE evaluates every joint)
        rest = [i for i in range(len(links)) if i not in depth and any(
            i in (j.link0, j.link1) for j in joints)]
        if not rest:
            break
        depth[rest[0]] = 0
    T = {i: np.array(l.transform) for i, l in enumerate(links)}
    done = set(depth_i for depth_i, d in depth.items() if d == 0)
    for d in range(1, max(depth.values()) + 1 if depth else 0):
        for j in joints:
            a, b = j.link0, j.link1
            if depth.get(a) == d - 1 and depth.get(b) == d and b not in done:
                parent, child, flip = a, b, False
            elif depth.get(b) == d - 1 and depth.get(a) == d and a not in done:
                parent, child, flip = b, a, True
            else:
                continue
            if j.is_static:
                q = [0.0] * j.dof
            elif j.is_mimic:
                q = [mimic(j)]
            elif j.name in value and j.active:
                q = value[j.name]
            else:
                q = [0.0] * j.dof
            init = (list(j.initial) + [0.0] * j.dof)[:j.dof]
            a0 = np.asarray(j.anchor)
            if j.type == "slider":
                J = _h(None, np.asarray(j.axes[0]) * (q[0] - init[0]))
            else:
                R = np.eye(3)
                for ax, qq, ii in zip(j.axes, q, init):
                    R = R @ _rot(ax, qq - ii) if np.any(ax) else R
                J = _h(None, a0) @ _h(R) @ _h(None, -a0)
            M = J @ j.trel                # T1 = T0 @ M
            T[child] = T[parent] @ (np.linalg.inv(M) if flip else M)
            done.add(child)
    return T


# robots whose every joint OpenRAVE's rules above cover (affine mimics, no loops, no
# spherical joints, mimic values inside their limits over the DOF ranges)
NOT_CHECKABLE = {"src/data/balljoint.kinbody.xml",            # rotation-vector DOFs
                 "test/testdata/arm_bucket_assy_Amimic.robot.xml",   # closed loops, non-affine
                 "test/testdata/bobcat.robot.xml"}


def _checkable(rel):
    if rel in NOT_CHECKABLE or rel.endswith((".env.xml", ".sensor.xml")):
        return False
    return rel not in COLLADA or _has_collada()


@pytest.mark.parametrize("rel", [r for r in FILES if _checkable(r)])
def test_model_matches_openrave_rules(rel):
    robot = load(rel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = read_records(os.path.join(OR, rel), LoadContext(os.path.join(OR, rel),
                                                               search_paths=[DATA]))
    rng = np.random.default_rng(7)
    names = [l.name for l in body.links]
    for _ in range(5):
        dofs = []
        for d in robot.drivers:
            lo = d.qmin if np.isfinite(d.qmin) else -math.pi
            hi = d.qmax if np.isfinite(d.qmax) else math.pi
            dofs.append(rng.uniform(lo, hi))
        want = _spec_fk(body, dofs)
        got = robot.fk(robot.config_from_drivers(dofs))
        for i, n in enumerate(names):
            np.testing.assert_allclose(got[robot.link_index(n)], want[i], atol=1e-12,
                                       err_msg=f"{rel}: link {n}")


@pytest.mark.parametrize("rel", [r for r in FILES if not r.endswith((".env.xml", ".sensor.xml"))])
def test_model_reproduces_the_load_state(rel):
    """The model's FK at its initial configuration is OpenRAVE's load state (hierarchy)."""
    if rel in COLLADA and not _has_collada():
        pytest.skip("needs the COLLADA reader")
    from roboio.formats.openrave._hierarchy import compute
    robot = load(rel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = read_records(os.path.join(OR, rel), LoadContext(os.path.join(OR, rel),
                                                               search_paths=[DATA]))
        h = compute(body, body.jointvalues)
    T = robot.fk()
    for i, l in enumerate(body.links):
        np.testing.assert_allclose(T[robot.link_index(l.name)], h.poses[i], atol=1e-12,
                                   err_msg=f"{rel}: link {l.name}")


# -- writing ---------------------------------------------------------------------------

def _drivers(r):
    return [(d.name, d.type, [r.links[i].name for i in d.dofs], [float(x) for x in d.scale],
             [float(x) for x in d.offset], d.qmin, d.qmax, d.vmax, d.amax, d.tmax)
            for d in r.drivers]


LOSSY = {"test/testdata/arm_bucket_assy_Amimic.robot.xml", "test/testdata/bobcat.robot.xml"}


@pytest.mark.parametrize("rel", robots())
def test_write_read_write(rel, tmp_path):
    from roboio.model.coupling import RotationVectorCoupling, linearized
    r = load(rel)
    out = str(tmp_path / "a.robot.xml")
    report = roboio.save(r, out, format="openrave")
    r2 = roboio.load(out)
    common = [n for n in r.link_names if n in r2.link_names]
    # a spherical joint is written as three hinges: their values are its Euler angles, not
    # its rotation vector (reported); the written robot is the model with that change
    lost = list(report.lost)
    if any(isinstance(d.coupling, RotationVectorCoupling) for d in r.drivers):
        assert any("rotation-vector DOF" in x for x in lost)
        lost = [x for x in lost if "rotation-vector DOF" not in x]
        r = linearized(r, lambda d, i: not isinstance(d.coupling, RotationVectorCoupling))[0]
    if rel not in LOSSY:
        assert not lost, lost
        assert r2.link_names == r.link_names
        assert r2.self_collision_pairs == r.self_collision_pairs
        assert len(r2.manipulators) == len(r.manipulators)
    assert _drivers(r2) == _drivers(r)
    ia = [r.link_index(n) for n in common]
    ib = [r2.link_index(n) for n in common]
    rng = np.random.default_rng(3)
    for _ in range(5):
        u = [rng.uniform(d.qmin if np.isfinite(d.qmin) else -3, d.qmax if np.isfinite(d.qmax) else 3)
             for d in r.drivers]
        np.testing.assert_allclose(r2.fk(r2.config_from_drivers(u))[ib],
                                   r.fk(r.config_from_drivers(u))[ia], atol=1e-12)
    np.testing.assert_allclose(r2.fk()[ib], r.fk()[ia], atol=1e-12)
    out2 = str(tmp_path / "b.robot.xml")
    roboio.save(r2, out2, format="openrave")
    if rel in LOSSY:        # the first write drops the loop joints; from then on it is stable
        r3 = roboio.load(out2)
        out3 = str(tmp_path / "c.robot.xml")
        roboio.save(r3, out3, format="openrave")
        out, out2 = out2, out3
    with open(out) as f1, open(out2) as f2:
        assert f1.read() == f2.read()


@pytest.mark.parametrize("rel", [r for r in FILES if r.endswith(".robot.xml")])
@pytest.mark.parametrize("ext", ["urdf", "rob"])
def test_converted_robot_verifies(rel, ext, tmp_path):
    if rel in COLLADA and not _has_collada():
        pytest.skip("needs the COLLADA reader")
    out = str(tmp_path / f"out.{ext}")
    r = load(rel)
    roboio.save(r, out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = verify(r, roboio.load(out), samples=20)
    assert result.ok and not result.only_a, (result.max_position_error, result.only_a)


@pytest.mark.parametrize("ext", ["urdf", "rob"])
def test_cli_convert_and_verify(ext, tmp_path):
    from roboio.cli.main import main
    out = str(tmp_path / f"out.{ext}")
    src = os.path.join(OR, "src/robots/barrettwam.robot.xml")
    assert main(["convert", src, out, "--data-path", DATA]) == 0
    assert main(["verify", src, out, "--samples", "20", "--data-path", DATA]) == 0


# -- sniffing --------------------------------------------------------------------------

ALL_XML = sorted(glob.glob(os.path.join(CORPUS, "**", "*.xml"), recursive=True)
                 + glob.glob(os.path.join(CORPUS, "**", "*.urdf"), recursive=True))


def test_sniffers_agree_on_every_xml_file():
    """OpenRAVE files are OpenRAVE's and nobody else's; URDF files stay URDF."""
    openrave = registry.get("openrave").sniff
    urdf = registry.get("urdf").sniff
    assert len(ALL_XML) > 500
    for path in ALL_XML:
        with open(path, "rb") as f:
            head = f.read(registry.HEAD_BYTES)
        rel = os.path.relpath(path, CORPUS)
        is_or = rel.startswith("openrave" + os.sep)
        assert openrave(head, path) == is_or, rel
        is_urdf = path.endswith(".urdf")
        if is_or:
            assert not urdf(head, path), rel
            assert registry.find_reader(path).name == "openrave", rel
        if is_urdf:
            assert not openrave(head, path), rel
            assert registry.find_reader(path).name == "urdf", rel


@pytest.mark.parametrize("rel", [r for r in FILES if r.endswith(".env.xml")
                                 and (r not in COLLADA or _has_collada())])
def test_environment_write_read_write(rel, tmp_path):
    w = load(rel)
    out, out2 = str(tmp_path / "a.env.xml"), str(tmp_path / "b.env.xml")
    roboio.save(w, out, format="openrave")
    w2 = roboio.load(out)
    assert [r.name for r in w2.robots] == [r.name for r in w.robots]
    assert [o.name for o in w2.rigid_objects] == [o.name for o in w.rigid_objects]
    assert [t.name for t in w2.terrains] == [t.name for t in w.terrains]
    for a, b in zip(w.robots, w2.robots):
        np.testing.assert_allclose(b.fk(), a.fk(), atol=1e-12)
    for a, b in zip(w.rigid_objects + w.terrains, w2.rigid_objects + w2.terrains):
        np.testing.assert_allclose(b.transform, a.transform, atol=1e-12)
    roboio.save(w2, out2, format="openrave")
    with open(out) as f1, open(out2) as f2:
        assert f1.read() == f2.read()
