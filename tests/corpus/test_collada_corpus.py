"""Every COLLADA robot of the OpenRAVE corpus, read as OpenRAVE reads it.

* the worked examples of collada.md §14 (PUMA at zero and at a configuration, PA10);
* link poses computed two independent ways agree to 1e-12: (a) the reader's frozen joints
  (OpenRAVE's kinematics chain), (b) the visual scene's node chain, walked here with plain
  lxml, every joint-bound ``<rotate>``/``<translate>`` driven by the same joint values;
* DOF order and counts as the spec's inventory states them.
"""
import io
import math
import os
import warnings
import zipfile

import numpy as np
import pytest
from lxml import etree

from conftest import corpus_path
from roboio.context import LoadContext
from roboio.formats.fileio import read_bytes
from roboio.formats.openrave.collada._load import read_body

ROBOTS = ["pumaarm", "pumagripper", "mitsubishi-pa10", "schunk-lwa3", "kuka-youbot",
          "kawada-hironx", "pr2-beta-static", "neuronics-katana"]
TESTDATA = ["box0", "calibration_board"]
DEG = math.pi / 180

# spec §1 inventory: links / joints / DOF
INVENTORY = {"pumaarm": (7, 6, 6), "pumagripper": (3, 2, 1), "mitsubishi-pa10": (8, 7, 7),
             "schunk-lwa3": (8, 7, 7), "kuka-youbot": (9, 8, 7), "kawada-hironx": (24, 23, 23),
             "pr2-beta-static": (88, 87, 39), "neuronics-katana": (9, 8, 7),
             "box0": (1, 0, 0), "calibration_board": (1, 0, 0)}


def path_of(name):
    if name in TESTDATA:
        return corpus_path("openrave", "test", "testdata", name + ".dae")
    return corpus_path("openrave", "src", "robots", name + ".zae")


_CACHE = {}


def body_of(name):
    if name not in _CACHE:
        p = path_of(name)
        ctx = LoadContext(p)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _CACHE[name] = (read_body(read_bytes(p, ctx), ctx), list(ctx.warnings))
    return _CACHE[name]


def rot(axis, a):
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    R = np.eye(4)
    R[:3, :3] = np.eye(3) + math.sin(a) * K + (1 - math.cos(a)) * K @ K
    return R


def trans(v):
    T = np.eye(4)
    T[:3, 3] = v
    return T


def chain_fk(body, dof_values):
    """(a) OpenRAVE's kinematics chain from the reader's frozen joints."""
    vals = {}
    for j, v in zip(body.dof_joints(), dof_values):
        vals[j.name] = [v]
    for j in body.all_joints():
        vals.setdefault(j.name, [0.0] * j.dof)
    for j in body.all_joints():
        if j.mimic is not None:
            src, k, c = j.mimic.affine
            vals[j.name][0] = c + k * vals[src][0]
    T = {body.links[0].name: body.links[0].transform}
    todo = list(body.all_joints())
    while todo:
        j = todo.pop(0)
        if j.parent.name not in T:
            todo.append(j)
            continue
        M = np.eye(4)
        for kind, ax, v in zip(j.axis_types, j.axes, vals[j.name]):
            M = M @ (rot(ax, v) if kind == "revolute" else trans(np.asarray(ax) * v))
        A = trans(j.anchor)
        T[j.child.name] = T[j.parent.name] @ A @ M @ np.linalg.inv(A) @ j.trel
    return T


# ---------------------------------------------------------------- visual-scene walker (b)
C = "{http://www.collada.org/2008/03/COLLADASchema}"


def _document(name):
    data = open(path_of(name), "rb").read()
    if data[:2] == b"PK":
        z = zipfile.ZipFile(io.BytesIO(data))
        data = z.read([n for n in z.namelist() if n.endswith(".dae")][0])
    return etree.fromstring(data)


def _matrix(el):
    tag = el.tag[len(C):]
    v = [float(x) for x in el.text.split()]
    if tag == "translate":
        return trans(v)
    if tag == "rotate":
        return rot(v[:3], v[3] * DEG) if any(v[:3]) else np.eye(4)
    if tag == "matrix":
        return np.array(v).reshape(4, 4)
    return None


def visual_fk(name, joint_values):
    """(b) World transforms of every visual node named after a link, with each rotate/translate
    whose sid is ``node_<jointsid>_axis0`` driven by that joint's value (radians/metres). A
    bound translate is written ``0 0 0``: its direction is the kinematics joint's axis."""
    root = _document(name)
    slide = {j.get("sid"): [float(x) for x in j.find(f"{C}prismatic/{C}axis").text.split()]
             for j in root.iter(f"{C}joint") if j.find(f"{C}prismatic") is not None}
    ids = {e.get("id"): e for e in root.iter() if e.get("id")}
    scene = root.find(f"{C}library_visual_scenes/{C}visual_scene")
    out = {}

    def walk(node, T):
        for c in node:
            tag = c.tag[len(C):] if isinstance(c.tag, str) else ""
            sid = c.get("sid") or ""
            if tag in ("translate", "rotate", "matrix"):
                if sid.startswith("node_") and sid.endswith("_axis0"):
                    jsid = sid[len("node_"):-len("_axis0")]
                    v = joint_values[jsid]
                    if tag == "rotate":
                        T = T @ rot([float(x) for x in c.text.split()[:3]], v)
                    else:
                        ax = np.asarray(slide[jsid])
                        T = T @ trans(ax / np.linalg.norm(ax) * v)
                else:
                    T = T @ _matrix(c)
        out[node.get("name")] = T
        for c in node:
            if c.tag == f"{C}node":
                walk(c, T)
            elif c.tag == f"{C}instance_node":
                walk(ids[c.get("url")[1:]], T)

    for top in scene.findall(f"{C}node"):
        walk(top, np.eye(4))
    return out


def joint_sids(name):
    """joint name -> sid, read directly from the kinematics model."""
    root = _document(name)
    return {j.get("name"): j.get("sid") for j in root.iter(f"{C}joint")}


M = "{http://www.w3.org/1998/Math/MathML}"


def mimic_formulas(name):
    """target joint sid -> (source joint sid, offset): the corpus formulas are
    ``source`` or ``offset + source`` (MathML read here with plain lxml)."""
    root = _document(name)
    out = {}
    for f in root.iter(f"{C}formula"):
        target = f.find(f"{C}target/{C}param").text.strip().split("/")[-1]
        math_el = f.find(f"{C}technique_common/{M}math")
        syms = [c.text.strip().split("/")[-1] for c in math_el.iter(f"{M}csymbol")]
        nums = [float(c.text) for c in math_el.iter(f"{M}cn")]
        ops = [c.tag for a in math_el.iter(f"{M}apply") for c in a[:1]]
        assert len(syms) == 1 and ops in ([], [f"{M}plus"]) and len(nums) <= 1
        out[target] = (syms[0], sum(nums))
    return out


_MODELS = {}


def model_of(name):
    """roboio's model of a corpus file (through the registry, as a user loads it)."""
    if name not in _MODELS:
        import roboio
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _MODELS[name] = roboio.load(path_of(name))
    return _MODELS[name]


# ---------------------------------------------------------------- tests
@pytest.mark.parametrize("name", ROBOTS + TESTDATA)
def test_every_corpus_file_loads(name):
    body, warns = body_of(name)
    nl, nj, nd = INVENTORY[name]
    assert (len(body.links), len(body.all_joints()), len(body.dof_joints())) == (nl, nj, nd)
    assert warns == []


def test_pumaarm_worked_example():
    body, _ = body_of("pumaarm")
    assert body.name == "PUMA" and body.is_robot
    assert [j.name for j in body.dof_joints()] == ["J0", "J1", "J2", "J3", "J4", "J5"]
    zero = chain_fk(body, [0] * 6)
    expect0 = {"Base": (0, 0, 0), "Puma1": (0, 0, 1.371), "Puma2": (0, 0.2435, 1.371),
               "Puma3": (0.4318, 0.1501, 1.371), "Puma4": (0.4115, 0.1501, 1.8041),
               "Puma5": (0.4115, 0.1501, 1.8041), "Puma6": (0.4115, 0.1501, 1.8041)}
    for link, p in expect0.items():
        assert np.allclose(zero[link][:3, 3], p, atol=1e-12), link
        assert np.allclose(zero[link][:3, :3], np.eye(3), atol=1e-12), link
    q = [30, -45, 60, 20, -30, 45]
    T = chain_fk(body, [v * DEG for v in q])
    expect = {"Puma2": (-0.121750, 0.210877, 1.371000), "Puma3": (0.189372, 0.282655, 1.676329),
              "Puma4": (0.269468, 0.328898, 2.099925), "Puma6": (0.269468, 0.328898, 2.099925)}
    for link, p in expect.items():
        assert np.allclose(T[link][:3, 3], p, atol=1e-6), link
    R6 = [[-0.078647, -0.990430, -0.113415], [0.963694, -0.046414, -0.262945], [0.255165, -0.129977, 0.958121]]
    assert np.allclose(T["Puma6"][:3, :3], R6, atol=1e-6)
    m = body.manipulators[0]
    assert (m.name, m.base, m.effector) == ("arm_nogripper", "Base", "Puma6")
    assert np.allclose((zero["Puma6"] @ m.tool_transform)[:3, 3], (0.4115, 0.1501, 1.8981), atol=1e-12)
    assert np.allclose((T["Puma6"] @ m.tool_transform)[:3, 3], (0.258807, 0.304181, 2.189989), atol=1e-6)
    j0 = body.joints[0]
    assert j0.lower == pytest.approx([-160 * DEG]) and j0.max_velocity == pytest.approx([1.5])
    assert j0.max_acceleration == pytest.approx([20.0])
    puma1 = body.links[1]
    assert puma1.mass == 17.4 and np.allclose(puma1.mass_frame[:3, 3], (0, 0.05, 0), atol=1e-12)


def test_pa10_worked_example():
    body, _ = body_of("mitsubishi-pa10")
    q = [30, 45, -30, 60, 15, -45, 90]
    T = chain_fk(body, [v * DEG for v in q])
    zero = chain_fk(body, [0] * 7)
    for i in range(7):
        assert np.allclose(zero[f"link{i}"], np.eye(4), atol=1e-12)
    assert np.allclose(zero["link7"][:3, 3], (0, 0, 1.35), atol=1e-12)
    expect = {"link2": (-0.1929, -0.1114, 0.0923), "link3": (-0.1929, -0.1114, 0.0923),
              "link4": (-0.4756, 0.1079, 0.7684), "link5": (-0.4756, 0.1079, 0.7684),
              "link6": (-0.2623, 0.0279, -0.1726), "link7": (0.8357, 0.2036, 0.5930)}
    for link, p in expect.items():
        assert np.allclose(T[link][:3, 3], p, atol=1e-4), link
    anchors = {j.name: (T[j.parent.name] @ np.r_[j.anchor, 1])[:3] for j in body.joints}
    assert np.allclose(anchors["E1"], (0.2756, 0.1591, 0.6332), atol=1e-4)
    assert np.allclose(anchors["W1"], (0.7666, 0.1926, 0.5448), atol=1e-4)
    w2 = body.joint("W2")
    assert w2.circular == [True] and w2.lower == pytest.approx([-math.pi])
    assert body.joint("S2").upper == pytest.approx([91 * DEG])


@pytest.mark.parametrize("name", ROBOTS)
def test_kinematics_chain_equals_visual_node_chain(name):
    body, _ = body_of(name)
    sids = joint_sids(name)
    rng = np.random.default_rng(len(name))
    for _ in range(3):
        dofs = []
        for j in body.dof_joints():
            lo, hi = max(j.lower[0], -math.pi), min(j.upper[0], math.pi)
            dofs.append(rng.uniform(lo, hi) if hi > lo else lo)
        T = chain_fk(body, dofs)
        values = {}
        by_name = dict(zip([j.name for j in body.dof_joints()], dofs))
        for j in body.all_joints():
            v = by_name.get(j.name, 0.0)
            if j.mimic is not None:
                src, k, c = j.mimic.affine
                v = c + k * by_name[src]
            values[sids[j.name]] = v
        V = visual_fk(name, values)
        for link in body.links:
            assert np.max(np.abs(V[link.name] - T[link.name])) < 1e-12, link.name


def test_katana_quirks():
    body, _ = body_of("neuronics-katana")
    j1 = body.joint("j1")
    assert j1.max_velocity == pytest.approx([1.0])           # radians: old writer without version
    assert j1.lower == pytest.approx([-169.5 * DEG])          # limits still degrees
    gj2 = body.joint("gj2")
    assert gj2.mimic.equation == "gj1" and gj2.mimic.affine == ("gj1", 1.0, 0.0)
    geoms = [g for l in body.links for g in l.geometries]
    assert len(geoms) == 17 and all(len(g.faces) for g in geoms)   # broken VERTEX URIs not followed
    assert all(g.transparency == 0 for g in geoms)                 # alpha 0 without <transparency>: opaque
    arm = [m for m in body.manipulators if m.name == "arm"][0]
    assert arm.gripper_joints == ["gj1"] and arm.chucking_direction == [-1.0]
    assert arm.ik_solver == "ikfast_katana5d"


def test_youbot_and_pr2_details():
    body, _ = body_of("kuka-youbot")
    g1 = body.joint("gripper_1_joint")
    assert g1.axis_types == ["prismatic"] and g1.mimic.affine == ("gripper_0_joint", 1.0, 0.0)
    dummy = body.joint("dummy")
    assert dummy.active and dummy.lower == [0.0] and dummy.upper == [0.0]
    body, _ = body_of("pr2-beta-static")
    assert body.links[0].name == "base_footprint" and body.links[0].static
    assert len(body.sensors) == 6 and len(body.manipulators) == 8 and len(body.adjacent) == 31
    cam = [s for s in body.sensors if s.type == "base_pinhole_camera"]
    assert cam and cam[0].params["image_dimensions"].split() == ["640", "480", "1"]
    assert sum(1 for j in body.all_joints() if j.mimic is not None) == 6
    torso = body.joint("torso_lift_joint")
    assert torso.axis_types == ["prismatic"]


def test_testdata_primitives():
    body, _ = body_of("box0")
    assert not body.is_robot and body.name == "box0"
    (g,) = body.links[0].geometries
    assert g.kind == "box" and np.allclose(g.params["half_extents"], (0.1, 0.05, 0.1))
    assert np.allclose(g.transform[:3, 3], (0, 0, 0.1))
    body, _ = body_of("calibration_board")
    (g,) = body.links[0].geometries
    assert g.kind == "calibration_board" and g.params["num_dots_x"] == 5
    assert g.params["pattern_name"] == "threeBigDotsDotGrid"


@pytest.mark.parametrize("name", ROBOTS)
def test_model_links_equal_visual_node_chain_at_random_dof_values(name):
    """roboio's model (reader + OpenRAVE mapping + drivers) against the visual scene walked
    independently, at random OpenRAVE DOF values: every OpenRAVE link to 1e-12."""
    robot = model_of(name)
    sids = joint_sids(name)
    formulas = mimic_formulas(name)
    sid_name = {v: k for k, v in sids.items()}
    rng = np.random.default_rng(7 + len(name))
    for _ in range(4):
        u = np.array([rng.uniform(max(d.qmin, -math.pi), min(d.qmax, math.pi)) if d.qmax > d.qmin
                      else d.qmin for d in robot.drivers])
        T = robot.fk(robot.config_from_drivers(u))
        values = {sid: 0.0 for sid in sids.values()}
        for d, v in zip(robot.drivers, u):
            if not d.extras["openrave"].get("static"):
                values[sids[d.name]] = v
        for target, (source, offset) in formulas.items():
            values[target] = offset + values[source]
        V = visual_fk(name, values)
        for link_name, Tv in V.items():
            if link_name in robot.link_names and link_name != robot.name:
                err = np.max(np.abs(T[robot.link_index(link_name)] - Tv))
                assert err < 1e-12, (link_name, err)


def test_model_dof_order_and_names_are_openravess():
    robot = model_of("pr2-beta-static")
    body, _ = body_of("pr2-beta-static")
    assert [d.name for d in robot.drivers] == [j.name for j in body.dof_joints()]
    assert robot.link_names[:3] == ["base_footprint", "base_link", "bl_caster_rotation_link"]
    pa10 = model_of("mitsubishi-pa10")
    # anchors off the child origins: OpenRAVE's links keep their names, the joint frames are
    # the intermediate links of the mapping
    assert [n for n in pa10.link_names if not n.endswith(".axis0")] == [f"link{i}" for i in range(8)]


@pytest.mark.parametrize("name", ROBOTS)
def test_dof_order_equals_the_writers_index(name):
    """OpenRAVE's writer stores each axis' DOF index (``<index semantic="OpenRAVE">``, -1 for
    passive joints); the reader ignores it and recomputes the order, which must agree."""
    root = _document(name)
    joints = {j.get("sid"): j.get("name") for j in root.iter(f"{C}joint")}
    indexed = []
    for ai in root.iter(f"{C}axis_info"):
        idx = ai.find(f"{C}index")
        if idx is None or ai.get("axis") is None or idx.get("semantic") != "OpenRAVE":
            continue
        value = int(idx.find(f"{C}int").text)
        if value >= 0:
            indexed.append((value, joints[ai.get("axis").split("/")[1]]))
    if not indexed:
        pytest.skip("this file stores no DOF indices (older writer)")
    expect = [n for _, n in sorted(indexed)]
    assert [d.name for d in model_of(name).drivers] == expect
