"""roboio's URDF reader and writer against the real klampt and pinocchio packages.

* Random URDF files generated here (trees, fixed/continuous/prismatic/revolute joints,
  mimic chains, odd rpy angles, non-unit and zero axes, joint names that make Klamp't's
  depth-first order differ from document order, <klampt> settings) are read by roboio
  and by klampt: same links, order, frames, limits, masses, drivers, self-collision pairs.
* Every corpus robot roboio loads is written as URDF; klampt and pinocchio read that file
  and place every link where roboio's reading of it does (1e-9), and where the original
  model does (1e-9 unless the writer reported frames it had to change).
"""
import os
import tempfile
import warnings

import numpy as np
import pytest
from lxml import etree

import roboio
from roboio.convert import sample_configs
from roboio.transforms import matrix_to_quat

from conftest import KLAMPT, corpus_ids, oracle_entries

TOL = 1e-9


def _load(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(os.fspath(path), flavor="klampt")   # compared with klampt


# -- reference readers ------------------------------------------------------------------
_RESET = ('<robot name="reset"><link name="a"/>'
          '<klampt use_vis_geom="0" flip_yz="0"/></robot>')


def _reset_klampt_urdf_settings(klampt):
    with tempfile.TemporaryDirectory() as d:
        reset = os.path.join(d, "reset.urdf")
        with open(reset, "w") as f:
            f.write(_RESET)
        klampt.WorldModel().loadRobot(reset)


def klampt_robot(path, geometry=True):
    """klampt's reading of ``path`` (without loading meshes unless ``geometry``). Klamp't
    keeps use_vis_geom and flip_yz from the previous URDF it loaded, and geometry loading
    is switched for the whole process (process-global settings): they are reset before, and
    left as a fresh process has them after, so that no other test sees them."""
    klampt = pytest.importorskip("klampt")
    _reset_klampt_urdf_settings(klampt)
    world = klampt.WorldModel()
    world.enableGeometryLoading(geometry)
    try:
        r = world.loadRobot(os.fspath(path))
    finally:
        world.enableGeometryLoading(True)
        _reset_klampt_urdf_settings(klampt)
    assert r.index >= 0, f"klampt could not load {path}"
    return world, r


def klampt_transform(link) -> np.ndarray:
    R, t = link.getTransform()
    T = np.eye(4)
    T[:3, :3] = np.array(R).reshape(3, 3).T      # klampt lists R column by column
    T[:3, 3] = t
    return T


def index_map(names, other) -> list:
    """For each of ``names``, its index in ``other`` (virtual floating-base links, which a
    URDF reader renames base0..base4, by position), or None."""
    out = []
    for i, n in enumerate(names):
        if n in other:
            out.append(other.index(n))
        elif i < 5 and len(other) > i and other[i] == f"base{i}":
            out.append(i)
        else:
            out.append(None)
    return out


def klampt_fk(path, names, Q, links):
    """(N, len(links), 4, 4) klampt poses of roboio links ``links`` (indices into
    ``names``), configurations given per roboio link."""
    _, kr = klampt_robot(path, geometry=False)
    kn = [kr.link(i).getName() for i in range(kr.numLinks())]
    m = index_map(names, kn)
    out = np.zeros((len(Q), len(links), 4, 4))
    for s, q in enumerate(Q):
        kq = np.zeros(kr.numLinks())
        for i, k in enumerate(m):
            if k is not None:
                kq[k] = q[i]
        kr.setConfig(kq.tolist())
        for c, i in enumerate(links):
            out[s, c] = klampt_transform(kr.link(m[i]))
    return out


def urdf_structure(path):
    """(link names, {joint name: (type, parent, child, axis)}) of a URDF file."""
    root = etree.parse(os.fspath(path)).getroot()
    joints = {}
    for j in root.iter("joint"):
        ax = j.find("axis")
        axis = np.array([float(x) for x in ax.get("xyz").split()]) if ax is not None else np.array([1.0, 0, 0])
        joints[j.get("name")] = (j.get("type"), j.find("parent").get("link"), j.find("child").get("link"), axis)
    return [l.get("name") for l in root.iter("link")], joints


def pinocchio_fk(path, robot, Q, links):
    """(N, len(links), 4, 4) pinocchio body poses; joint values mapped through the joints'
    child links (times |axis|: pinocchio normalises axes). A URDF whose root is not the
    ``world`` link gets a free-flyer root, placed where ``robot`` puts that link."""
    pin = pytest.importorskip("pinocchio")
    lnames, joints = urdf_structure(path)
    children = {c for _, _, c, _ in joints.values()}
    root = [l for l in lnames if l not in children][0]
    free = root in robot.link_names      # a link of the model; else the added world frame
                                         # ('world', or '_world' when a link is named so)
    model = (pin.buildModelFromUrdf(os.fspath(path), pin.JointModelFreeFlyer()) if free
             else pin.buildModelFromUrdf(os.fspath(path)))
    data = model.createData()
    index = {n: i for i, n in enumerate(robot.link_names)}
    fids = [model.getFrameId(robot.link_names[i], pin.FrameType.BODY) for i in links]
    assert all(f < model.nframes for f in fids)
    out = np.zeros((len(Q), len(links), 4, 4))
    for s, q in enumerate(Q):
        qp = pin.neutral(model)
        for jid in range(1, model.njoints):
            if model.names[jid] not in joints:
                continue
            _, _, child, axis = joints[model.names[jid]]
            v = q[index[child]] * np.linalg.norm(axis)
            iq = model.joints[jid].idx_q
            if model.joints[jid].nq == 2:            # continuous: (cos, sin)
                qp[iq:iq + 2] = np.cos(v), np.sin(v)
            else:
                qp[iq] = v
        if free:
            T = robot.fk(q)[index[root]]
            w, x, y, z = matrix_to_quat(T[:3, :3])
            qp[:7] = [*T[:3, 3], x, y, z, w]
        pin.framesForwardKinematics(model, data, qp)
        for c, f in enumerate(fids):
            out[s, c] = data.oMf[f].homogeneous
    return out


# -- written URDF of every corpus robot ------------------------------------------------
ROBOTS = oracle_entries("robot", "loaded")


def _configs(robot, n, seed):
    """Random configurations; welded links stay at their configured value."""
    Q = sample_configs(robot, n, seed)
    for j in robot.joints:
        if j.type == "weld":
            Q[:, j.links] = robot.config[j.links]
    return Q


@pytest.mark.parametrize("entry", ROBOTS, ids=corpus_ids(ROBOTS))
def test_written_urdf_reads_the_same_in_klampt_and_pinocchio(entry, tmp_path):
    pytest.importorskip("klampt")
    pytest.importorskip("pinocchio")
    robot = _load(os.path.join(KLAMPT, entry["source"]))
    out = tmp_path / "robot.urdf"
    report = roboio.save(robot, out)
    back = _load(out)
    written, _ = urdf_structure(out)
    _, kr = klampt_robot(out, geometry=False)
    assert back.link_names == [kr.link(i).getName() for i in range(kr.numLinks())]
    assert list(back.parents) == [kr.link(i).getParent() for i in range(kr.numLinks())]

    names = robot.link_names
    links = [i for i, n in enumerate(names) if n in written and names.count(n) == 1]
    assert links, "no link to compare"
    Q = _configs(robot, 4, seed=7)
    m = index_map(names, back.link_names)
    # an axis that is not unit length is written normalised, its coordinate scaled by |axis|
    scale = np.array([np.linalg.norm(robot.links[i].axis) / np.linalg.norm(back.links[k].axis)
                      if k is not None and np.any(back.links[k].axis) else 1.0 for i, k in enumerate(m)])
    Qs = Q * scale
    Qb = np.zeros((len(Q), back.num_links))
    for i, k in enumerate(m):
        if k is not None:
            Qb[:, k] = Qs[:, i]
    mine = back.fk_batch(Qb)[:, [m[i] for i in links]]
    np.testing.assert_allclose(klampt_fk(out, names, Qs, links), mine, atol=TOL, rtol=0)
    np.testing.assert_allclose(pinocchio_fk(out, robot, Qs, links), mine, atol=TOL, rtol=0)
    changed = any(x.startswith("transforms that are not rigid") for x in report.lost)
    np.testing.assert_allclose(robot.fk_batch(Q)[:, links], mine, atol=1e-5 if changed else TOL, rtol=0)


# -- random URDF files: roboio reads them as klampt does -------------------------------
_ALPHABET = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _name(rng, used):
    while True:
        n = "".join(rng.choice(_ALPHABET, size=int(rng.integers(1, 7))))
        if n not in used and n != "world" and not n.isdigit() and not n.startswith("base"):
            used.add(n)
            return n


def _num(x) -> str:
    return repr(float(x))


def _vec(v) -> str:
    return " ".join(_num(x) for x in v)


def random_urdf(rng) -> str:
    """A random but valid URDF document exercising Klamp't's conversion rules."""
    used = set()
    n = int(rng.integers(2, 11))
    fixed_base = rng.random() < 0.6
    links = ["world" if fixed_base else _name(rng, used)] + [_name(rng, used) for _ in range(n - 1)]
    parent = [-1] + [int(rng.integers(0, k)) for k in range(1, n)]
    jnames = [None] + [_name(rng, used) for _ in range(1, n)]
    jtypes = [None] + list(rng.choice(["revolute", "prismatic", "continuous", "fixed"], size=n - 1,
                                      p=[0.4, 0.2, 0.2, 0.2]))
    driven = [k for k in range(1, n) if jtypes[k] != "fixed"]
    elements = []
    materials = []
    if rng.random() < 0.5:
        materials.append(("mat_a", rng.random(4)))
        elements.append(f'<material name="mat_a"><color rgba="{_vec(materials[0][1])}"/></material>')
    for k, name in enumerate(links):
        if name == "world":
            elements.append('<link name="world"/>')
            continue
        body = []
        if rng.random() < 0.7:
            A = rng.normal(size=(3, 3))
            I = A @ A.T + np.eye(3) * 0.1
            body.append(f'<inertial><origin xyz="{_vec(rng.normal(size=3))}" rpy="{_vec(rng.uniform(-3, 3, 3))}"/>'
                        f'<mass value="{_num(rng.uniform(0.1, 5))}"/><inertia ixx="{_num(I[0,0])}" ixy="{_num(I[0,1])}" '
                        f'ixz="{_num(I[0,2])}" iyy="{_num(I[1,1])}" iyz="{_num(I[1,2])}" izz="{_num(I[2,2])}"/></inertial>')
        for tag in ("visual", "collision"):
            if rng.random() < 0.6:
                kind = rng.choice(["box", "cylinder", "sphere"])
                shape = {"box": f'<box size="{_vec(rng.uniform(0.1, 1, 3))}"/>',
                         "cylinder": f'<cylinder radius="{_num(rng.uniform(0.1, 1))}" length="{_num(rng.uniform(0.1, 1))}"/>',
                         "sphere": f'<sphere radius="{_num(rng.uniform(0.1, 1))}"/>'}[kind]
                mat = ""
                if tag == "visual":
                    c = rng.random()
                    if c < 0.3:
                        mat = f'<material name=""><color rgba="{_vec(rng.random(4))}"/></material>'
                    elif c < 0.5 and materials:
                        mat = '<material name="mat_a"/>'
                body.append(f'<{tag}><origin xyz="{_vec(rng.normal(size=3))}" rpy="{_vec(rng.uniform(-3, 3, 3))}"/>'
                            f'<geometry>{shape}</geometry>{mat}</{tag}>')
        elements.append(f'<link name="{name}">{"".join(body)}</link>')
    for k in range(1, n):
        jt = jtypes[k]
        rpy = rng.uniform(-np.pi, np.pi, 3)
        if rng.random() < 0.2:
            rpy[1] = rng.choice([np.pi / 2, -np.pi / 2])       # gimbal lock
        body = [f'<origin xyz="{_vec(rng.normal(size=3))}" rpy="{_vec(rpy)}"/>',
                f'<parent link="{links[parent[k]]}"/>', f'<child link="{links[k]}"/>']
        a = rng.random()
        if a < 0.15:
            body.append(f'<axis xyz="{_vec(rng.normal(size=3))}"/>')      # not unit length
        elif a < 0.2:
            body.append('<axis xyz="0 0 0"/>')
        elif a < 0.85:
            body.append(f'<axis xyz="{_vec(np.eye(3)[rng.integers(3)])}"/>')
        if jt in ("revolute", "prismatic") or (jt != "fixed" and rng.random() < 0.5):
            lo = rng.uniform(-2, 0)
            lim = f'effort="{_num(rng.uniform(1, 100))}" velocity="{_num(rng.uniform(0.5, 5))}"'
            if rng.random() < 0.8:
                lim += f' lower="{_num(lo)}" upper="{_num(lo + rng.uniform(0.1, 3))}"'
            body.append(f"<limit {lim}/>")
        if rng.random() < 0.3:
            body.append(f'<dynamics damping="{_num(rng.random())}" friction="{_num(rng.random())}"/>')
        targets = [t for t in driven if t != k]
        if targets and rng.random() < 0.3:
            t = targets[int(rng.integers(len(targets)))]
            body.append(f'<mimic joint="{jnames[t]}" multiplier="{_num(rng.uniform(-2, 2))}" '
                        f'offset="{_num(rng.uniform(-1, 1))}"/>')
        elements.append(f'<joint name="{jnames[k]}" type="{jt}">{"".join(body)}</joint>')
    order = rng.permutation(len(elements))
    doc = [elements[i] for i in order]
    if rng.random() < 0.7:
        attrs = []
        if rng.random() < 0.5:
            attrs.append(f'default_mass="{_num(rng.uniform(0.01, 1))}"')
        if rng.random() < 0.5:
            attrs.append(f'default_inertia="{_vec(rng.uniform(0.1, 1, int(rng.choice([1, 3, 9]))))}"')
        if rng.random() < 0.5:
            attrs.append(f'default_acc_max="{_num(rng.uniform(1, 20))}"')
        if rng.random() < 0.3:
            attrs.append('use_vis_geom="1"')
        if not fixed_base and rng.random() < 0.3:
            attrs.append('freeze_root_link="1"')
        kids = []
        real = [l for l in links if l != "world"]
        for l in rng.choice(real, size=min(3, len(real)), replace=False):
            opts = [f'accMax="{_num(rng.uniform(1, 9))}"', 'physical="0"', f'servoP="{_num(rng.uniform(1, 9))}"']
            kids.append(f'<link name="{l}" {opts[int(rng.integers(3))]}/>')
        nk = len(links) - 1 + (0 if fixed_base else 5)
        if rng.random() < 0.5 and len(real) >= 2:
            a, b = rng.choice(real, size=2, replace=False)
            kids.append(f'<noselfcollision pairs="{a} {b} {int(rng.integers(nk))} {int(rng.integers(nk))}"/>')
        if rng.random() < 0.3 and len(real) >= 3:
            g = rng.choice(real, size=3, replace=False)
            kids.append(f'<noselfcollision group1="{g[0]} {g[1]}" group2="{g[1]} {g[2]}"/>')
        if rng.random() < 0.2 and len(real) >= 2:
            a, b = rng.choice(real, size=2, replace=False)
            kids.append(f'<selfcollision pairs="{a} {b}"/>')
        doc.append(f'<klampt {" ".join(attrs)}>{"".join(kids)}</klampt>')
    return '<?xml version="1.0"?>\n<robot name="random">\n' + "\n".join(doc) + "\n</robot>\n"


def compare_with_klampt(path, colours=True):
    """roboio's and klampt's readings of ``path`` field by field. (``colours=False`` for
    files whose links share mesh files: Klamp't's mesh cache then shares one appearance
    between those links, so which colour it shows depends on the load order.)"""
    robot = _load(path)
    _, kr = klampt_robot(path)
    n = kr.numLinks()
    assert robot.link_names == [kr.link(i).getName() for i in range(n)]
    assert list(robot.parents) == [kr.link(i).getParent() for i in range(n)]
    assert [robot.joint_of_link(i).type for i in range(n)] == [kr.getJointType(i) for i in range(n)]
    assert [l.joint_type == "prismatic" for l in robot.links] == [kr.link(i).isPrismatic() for i in range(n)]
    np.testing.assert_allclose([l.axis for l in robot.links], [kr.link(i).getAxis() for i in range(n)], atol=TOL)
    for i, l in enumerate(robot.links):
        R, t = kr.link(i).getParentTransform()
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = np.array(R).reshape(3, 3).T, t
        np.testing.assert_allclose(l.parent_transform, T, atol=TOL, rtol=0, err_msg=l.name)
        m = kr.link(i).getMass()
        assert l.mass == pytest.approx(m.getMass(), abs=TOL)
        np.testing.assert_allclose(l.com, m.getCom(), atol=TOL, rtol=0)
        np.testing.assert_allclose(l.inertia.T.ravel(), m.getInertia(), atol=TOL, rtol=0)
        g = kr.link(i).geometry()
        assert (l.geometry is not None and not l.geometry.missing) == (not g.empty()), l.name
        if colours and not g.empty():
            want = kr.link(i).appearance().getColor()
            have = l.appearance.color if l.appearance.color is not None else (0.5, 0.5, 0.5, 1.0)
            np.testing.assert_allclose(have, want, atol=1e-6, err_msg=l.name)
    qmin, qmax = kr.getJointLimits()
    np.testing.assert_array_equal(robot.qmin, qmin)
    np.testing.assert_array_equal(robot.qmax, qmax)
    np.testing.assert_array_equal(robot.vmax, kr.getVelocityLimits())
    np.testing.assert_array_equal(robot.amax, kr.getAccelerationLimits())
    np.testing.assert_array_equal(robot.tmax, kr.getTorqueLimits())
    assert len(robot.drivers) == kr.numDrivers()
    for d, k in zip(robot.drivers, [kr.driver(i) for i in range(kr.numDrivers())]):
        assert (d.name, d.type, d.dofs) == (k.getName(), k.getType(), list(k.getAffectedLinks()))
        if d.type == "affine":
            scale, offset = k.getAffineCoeffs()
            np.testing.assert_allclose(d.scale, scale, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(d.offset, offset, rtol=1e-12, atol=1e-15)
        for mine, theirs in (((d.qmin, d.qmax), k.getLimits()), ((d.vmin, d.vmax), k.getVelocityLimits()),
                             ((d.tmin, d.tmax), k.getTorqueLimits()), ((d.amin, d.amax), k.getAccelerationLimits())):
            np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-15, err_msg=d.name)
    pairs = {(i, j) for i in range(n) for j in range(i + 1, n) if kr.selfCollisionEnabled(i, j)}
    assert robot.self_collision_pairs == pairs
    Q = sample_configs(robot, 3, 1)
    np.testing.assert_allclose(robot.fk_batch(Q), klampt_fk(path, robot.link_names, Q, range(n)), atol=TOL, rtol=0)
    return robot


RANDOM_SEEDS = range(40)


@pytest.mark.parametrize("seed", RANDOM_SEEDS)
def test_random_urdf_reads_as_in_klampt(seed, tmp_path):
    pytest.importorskip("klampt")
    path = tmp_path / "random.urdf"
    path.write_text(random_urdf(np.random.default_rng(seed)))
    robot = compare_with_klampt(path)
    # roboio writes it back: klampt reads the written file as roboio does, and when the
    # report lists no loss, that reading is the model that was written
    out = tmp_path / "written.urdf"
    report = roboio.save(robot, out)
    back = compare_with_klampt(out)
    if not report.lost:
        assert back.link_names == robot.link_names
        assert list(back.parents) == list(robot.parents)
        assert [j.type for j in back.joints] == [j.type for j in robot.joints]
        np.testing.assert_allclose([l.parent_transform for l in back.links],
                                   [l.parent_transform for l in robot.links], atol=1e-15, rtol=0)
        np.testing.assert_array_equal([l.axis for l in back.links], [l.axis for l in robot.links])
        for k in ("qmin", "qmax", "vmin", "vmax", "amax", "tmax", "pmax"):
            np.testing.assert_array_equal(getattr(back, k), getattr(robot, k), err_msg=k)
        for a, b in zip(back.links, robot.links):
            assert (a.mass, a.com.tolist(), a.inertia.tolist()) == (b.mass, b.com.tolist(), b.inertia.tolist())
            assert a.appearance.color == b.appearance.color
        assert back.self_collision_pairs == robot.self_collision_pairs
        fields = ("name", "type", "dofs", "scale", "offset", "qmin", "qmax", "vmin", "vmax", "tmin", "tmax",
                  "amin", "amax", "servo_p", "servo_i", "servo_d", "dry_friction", "viscous_friction")
        assert [[getattr(d, f) for f in fields] for d in back.drivers] == \
            [[getattr(d, f) for f in fields] for d in robot.drivers]


def test_random_urdfs_are_mostly_written_losslessly(tmp_path):
    """The lossless branch of the test above must not be vacuous: at least a quarter of the
    random robots are written with nothing reported lost."""
    lossless = 0
    for seed in RANDOM_SEEDS:
        path = tmp_path / f"r{seed}.urdf"
        path.write_text(random_urdf(np.random.default_rng(seed)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = roboio.save(roboio.load(path), tmp_path / f"w{seed}.urdf")
        lossless += not report.lost
    assert lossless >= len(RANDOM_SEEDS) // 4


@pytest.mark.parametrize("entry", [e for e in ROBOTS if e["source"].endswith(".urdf")] + [None],
                         ids=corpus_ids([e for e in ROBOTS if e["source"].endswith(".urdf")]) + ["SR1.urdf"])
def test_corpus_urdf_geometry_colours_and_collisions_as_klampt(entry):
    """What the oracle does not record: geometry presence, colours, self-collision pairs
    and driver limits, against klampt itself."""
    pytest.importorskip("klampt")
    from conftest import corpus_path
    path = (os.path.join(KLAMPT, entry["source"]) if entry else
            corpus_path("choreonoid", "share", "model", "SR1", "SR1.urdf"))
    if not os.path.exists(path):
        pytest.skip("corpus not present")
    compare_with_klampt(path, colours=entry is None)


# -- what other programs refuse ----------------------------------------------------------------
def test_clamped_colours_and_per_visual_materials_in_yourdfpy_and_pinocchio(tmp_path):
    """A colour outside [0, 1] (hironx's rgba 0 2 2 1) makes yourdfpy fail and urdfdom
    (pinocchio's parser) drop the material; roboio's output is read by both, with each
    visual's own colour."""
    yourdfpy = pytest.importorskip("yourdfpy")
    pin = pytest.importorskip("pinocchio")
    src = tmp_path / "bad.urdf"
    src.write_text('<robot name="r"><link name="world"/><link name="a">'
                   '<visual><geometry><box size="0.1 0.1 0.1"/></geometry>'
                   '<material name="cyan"><color rgba="0 2 2 1"/></material></visual>'
                   '<visual><origin xyz="0 0 0.2"/><geometry><sphere radius="0.05"/></geometry>'
                   '<material name="green"><color rgba="0 1 0 1"/></material></visual></link>'
                   '<joint name="j" type="continuous"><parent link="world"/><child link="a"/>'
                   '<axis xyz="0 0 1"/></joint></robot>')
    with pytest.raises(Exception):
        yourdfpy.URDF.load(str(src))
    out = tmp_path / "out.urdf"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        rep = roboio.save(roboio.load(str(src)), str(out))
    assert any("clamped" in x for x in rep.lost)
    u = yourdfpy.URDF.load(str(out))
    colors = [v.material.color.rgba.tolist() for v in u.link_map["a"].visuals]
    assert colors == [[0.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0]]
    _, _, vgeom = pin.buildModelsFromUrdf(str(out))
    assert [list(g.meshColor) for g in vgeom.geometryObjects] == colors


def _mujoco_refuses(path) -> str:
    mujoco = pytest.importorskip("mujoco")
    try:
        mujoco.MjModel.from_xml_path(os.fspath(path))
    except ValueError as e:
        return str(e)
    return ""


@pytest.mark.parametrize("moments, refused", [
    ((2.5e-05, 6.9e-05, 4.59e-04), "A + B >= C"), ((0.0, 1e-3, 1e-3), "positive eigenvalues"),
    ((1e-3, 2e-3, 3e-3), ""), ((1e-3, 1e-3, 1.5e-3), "")])
def test_inertia_warning_exactly_when_mujoco_refuses(tmp_path, moments, refused):
    """The URDF writer warns about an inertia exactly when MuJoCo's compiler refuses it
    (principal moments from a rotated full inertia too)."""
    from roboio.model import Driver, Joint, Link, Robot
    from roboio.transforms import rpy_to_matrix
    R = rpy_to_matrix((0.3, -0.2, 0.7))
    links = [Link("a", -1, "revolute", (0, 0, 1), np.eye(4), mass=1.0,
                  inertia=R @ np.diag(moments) @ R.T if moments[0] else np.diag(moments))]
    r = Robot("m")
    r.set_links(links, qmin=[-1.0], qmax=[1.0], vmax=[1.0], tmax=[1.0])
    r.joints = [Joint("normal", [0])]
    r.drivers = [Driver("a", "normal", [0], qmin=-1, qmax=1, vmin=-1, vmax=1, tmin=-1, tmax=1)]
    out = tmp_path / "m.urdf"
    rep = roboio.save(r, str(out))
    warned = [w for w in rep.warnings if "MuJoCo refuses" in w]
    error = _mujoco_refuses(out)
    assert bool(warned) == bool(error), (warned, error)
    if refused:
        assert refused in error and refused in warned[0]
