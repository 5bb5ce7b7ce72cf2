"""MJCF export checked by MuJoCo itself: every corpus robot that loads is written as MJCF,
compiled by MuJoCo, and MuJoCo's forward kinematics (``mj_kinematics``: body ``xpos`` /
``xmat`` by body name), masses, inertias, joint couplings and collision filtering are
compared with roboio's model.

The map from a roboio configuration to MuJoCo's ``qpos`` is written here from the documented
rules, not taken from the writer: a joint is named as the source names it -- the name of the
driver whose actuated link it moves, else the link's ``joint_name`` (a moving one where
several links share it; the body link of a floating base whose links share it), else the
link's name; a hinge or slide joint of link ``i`` has
``qpos = |axis_i| q_i``; a free joint has its link's world pose (x, y, z, then a unit
quaternion computed here with scipy).
"""
import glob
import os
import re
import warnings

import numpy as np
import pytest

from conftest import CORPUS

mujoco = pytest.importorskip("mujoco")
Rotation = pytest.importorskip("scipy.spatial.transform").Rotation

import roboio  # noqa: E402

TOL = 1e-9


def corpus_robots():
    if not os.path.isdir(CORPUS):
        return []
    pats = ["klampt/robots/**/*.rob", "klampt/robots/**/*.urdf", "choreonoid/share/model/*/*.body",
            "openrave/**/*.robot.xml", "graspit/models/robots/*/*.xml", "openrave/**/*.zae"]
    out = []
    for p in pats:
        out += glob.glob(os.path.join(CORPUS, p), recursive=True)
    return sorted(out)


def load_robot(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            obj = roboio.load(path)
        except (roboio.FormatError, ValueError) as e:
            pytest.skip(f"does not load: {e}")
    if isinstance(obj, roboio.World):
        if not obj.robots:
            pytest.skip("no robot")
        obj = obj.robots[0]
    if not isinstance(obj, roboio.Robot):
        pytest.skip(f"holds a {type(obj).__name__}")
    return obj


def sample(robot, n, seed):
    """Configurations within the limits (±pi / ±1 m where infinite); welded links stay at
    their configured value (a weld does not move whatever its limits say)."""
    rng = np.random.default_rng(seed)
    span = np.where([l.is_prismatic for l in robot.links], 1.0, np.pi)
    # a URDF's unlimited prismatic joint reads back with limits of +-1.8e308 (finite, but
    # their range overflows uniform())
    lo = np.where(np.isfinite(robot.qmin) & (robot.qmin > -1e100), robot.qmin, -span)
    hi = np.where(np.isfinite(robot.qmax) & (robot.qmax < 1e100), robot.qmax, span)
    Q = rng.uniform(np.minimum(lo, hi), np.maximum(lo, hi), size=(n, robot.num_links))
    for j in robot.joints:
        if j.type == "weld":
            Q[:, j.links] = robot.config[j.links]
    return Q


def link_of_joint(robot, name):
    """The link a MuJoCo joint named ``name`` moves (see the module docstring), or None."""
    welded = {i for j in robot.joints if j.type == "weld" for i in j.links}
    by_driver = [d.leader for d in robot.drivers if d.name == name and d.leader is not None]
    by_joint = [i for i, l in enumerate(robot.links) if l.joint_name == name and i not in welded]
    # the six links of a floating base named once (an MJCF <freejoint name="root"/>, read
    # as the name of each): MuJoCo's free joint moves the last, the body
    for j in robot.joints:
        if j.type == "floating" and by_joint and set(by_joint) <= set(j.links):
            by_joint = [j.links[-1]]
    by_link = [i for i, l in enumerate(robot.links) if l.name == name]
    for found in (by_driver, by_joint, by_link):
        if len(found) == 1:
            return found[0]
    return None


def qpos_of(m, robot, q, T):
    """MuJoCo qpos for roboio configuration ``q`` (``T``: roboio FK at ``q``)."""
    qpos = np.array(m.qpos0, copy=True)
    start = 0
    for j in range(m.njnt):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        adr = m.jnt_qposadr[j]
        i = link_of_joint(robot, name)
        if i is None:
            continue            # rigid objects of a world
        if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            U, _, Vt = np.linalg.svd(T[i][:3, :3])
            x, y, z, w = Rotation.from_matrix(U @ Vt).as_quat()
            qpos[adr:adr + 7] = list(T[i][:3, 3]) + [w, x, y, z]
        else:
            qpos[adr] = q[i] * np.linalg.norm(robot.links[i].axis)
        start += 1
    return qpos


def reported(report, prefix, name):
    """Whether the report's item starting with ``prefix`` names ``name``."""
    return any(item.startswith(prefix) and (f" {name} (" in item or f" {name}: " in item)
               for item in report.lost)


def check_model(robot, path, report, nsamples=4, seed=0, from_mjcf=False):
    """Compile ``path`` with MuJoCo and compare it with ``robot`` (see the module doc).
    ``from_mjcf``: ``robot`` was read from an MJCF file, whose actuators and equalities
    other than joint couplings (welds, connects, tendons) the writer writes back: the
    caller compares those with the source's compiled model (``tools/outside_robots.py``),
    not with the rule for robots of other formats (one position actuator per driver)."""
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    # bodies by the name of the link each is: its own, or the one report.renamed says it
    # was written for (an OpenRAVE <Body> without a name is written as link0)
    source = {new: old for old, new in report.renamed.get("links", {}).items() if isinstance(new, str)}
    bodies = {source.get(n, n): b for b in range(1, m.nbody)
              for n in [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)]}
    # every link has a body of its name, except the virtual links of a floating base and
    # the massless links folded into a multi-DOF joint
    virtual = {i for j in robot.joints if j.type in ("floating", "floatingplanar", "ballandsocket")
               for i in j.links[:-1]}
    # ... and massless links without geometry whose joint MuJoCo holds in the body of a
    # descendant (a run of one-DOF links written as one body with several joints)
    for j in range(m.njnt):
        i = link_of_joint(robot, mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j))
        l = robot.links[i] if i is not None else None
        owner = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, m.jnt_bodyid[j])
        if (l is not None and l.name not in bodies and l.mass == 0 and l.geometry is None
                and owner in robot.link_names and i in _ancestors(robot, robot.link_index(owner))):
            virtual.add(i)
    missing = [l.name for l in robot.links if l.name not in bodies]
    assert all(robot.link_index(n) in virtual for n in missing), missing
    tol_pos = TOL + 2 * report.fk_error[0]
    tol_rot = TOL + 2 * report.fk_error[1]
    Q = sample(robot, nsamples, seed)
    Q[0] = robot.config
    for q in Q:
        T = robot.fk(q)
        d.qpos[:] = qpos_of(m, robot, q, T)
        mujoco.mj_kinematics(m, d)
        for name, b in bodies.items():
            if name not in robot.link_names:
                continue
            i = robot.link_index(name)
            assert np.abs(d.xpos[b] - T[i][:3, 3]).max() <= tol_pos, (name, d.xpos[b], T[i][:3, 3])
            assert np.abs(d.xmat[b].reshape(3, 3) - T[i][:3, :3]).max() <= tol_rot, name
    # masses and inertias, body by body; bodies the report names may differ as it says
    added = 0.0
    for name, b in bodies.items():
        if name not in robot.link_names:
            continue
        l = robot.link(name)
        if reported(report, "moving bodies without the mass", name):
            assert m.body_mass[b] >= max(l.mass, 1e-15)
            added += m.body_mass[b] - l.mass
            continue
        assert m.body_mass[b] == pytest.approx(l.mass, rel=1e-12, abs=1e-300), name
        if reported(report, "mass properties changed", name) or l.mass == 0:
            continue
        R = Rotation.from_quat(np.roll(m.body_iquat[b], -1)).as_matrix()
        I = R @ np.diag(m.body_inertia[b]) @ R.T
        scale = max(np.abs(l.inertia).max(), 1e-300)
        assert np.abs(I - (l.inertia + l.inertia.T) / 2).max() <= 1e-9 * scale, name
        assert np.abs(m.body_ipos[b] - l.com).max() <= 1e-12 * max(1.0, np.abs(l.com).max()), name
    total = sum(l.mass for l in robot.links)
    assert m.body_mass.sum() == pytest.approx(total + added, rel=1e-12, abs=1e-12)
    check_couplings(m, d, robot, report, joint_only=from_mjcf)
    if not from_mjcf:
        check_actuators(m, robot)
    meshes = sum(1 for l in robot.links if isinstance(l.geometry, roboio.model.TriangleMesh)
                 and not l.geometry.missing and l.visual_geometry is None
                 and len(np.unique(l.geometry.faces)) >= 4)
    assert check_mesh_placement(m, d, robot, bodies) >= meshes
    return m


def _ancestors(robot, i):
    out = []
    while robot.links[i].parent >= 0:
        i = robot.links[i].parent
        out.append(i)
    return out


def check_mesh_placement(m, d, robot, bodies):
    """At the last sampled configuration, the vertices MuJoCo places for the mesh geoms of a
    link span the same box as roboio's link geometry (links whose geometry is all meshes;
    MuJoCo keeps float32 vertices). Returns how many links were compared."""
    checked = 0
    for name, b in bodies.items():
        if name not in robot.link_names:
            continue
        l = robot.link(name)
        g = l.geometry
        if g is None or l.visual_geometry is not None or g.missing:
            continue
        leaves = list(_leaves(g))
        if not leaves or not all(isinstance(x, roboio.model.TriangleMesh) and not x.missing for x in leaves):
            continue
        geoms = [k for k in range(m.ngeom) if m.geom_bodyid[k] == b and m.geom_type[k] == mujoco.mjtGeom.mjGEOM_MESH]
        if not geoms:
            continue
        pts = []
        for k in geoms:
            mid = m.geom_dataid[k]
            v = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]].astype(float)
            pts.append(v @ d.geom_xmat[k].reshape(3, 3).T + d.geom_xpos[k])
        pts = np.concatenate(pts)
        Rw, pw = d.xmat[b].reshape(3, 3), d.xpos[b]
        ours = []                       # corners of triangles only (unused vertices are not drawn)
        for x, M in _placed_leaves(g, np.eye(4)):
            v = x.vertices[np.unique(x.faces)]
            ours.append(v @ M[:3, :3].T + M[:3, 3])
        ours = np.concatenate(ours)
        lo, hi = ours.min(axis=0), ours.max(axis=0)
        # compare in the link frame: MuJoCo's vertices brought back by the body pose
        local = (pts - pw) @ Rw
        ext = max(np.abs(hi - lo).max(), 1e-3)
        assert np.abs(local.min(axis=0) - lo).max() <= 1e-6 * ext + 1e-6, (name, local.min(axis=0), lo)
        assert np.abs(local.max(axis=0) - hi).max() <= 1e-6 * ext + 1e-6, (name, local.max(axis=0), hi)
        checked += 1
    return checked


def _placed_leaves(g, T):
    M = T @ g.transform
    if isinstance(g, roboio.model.Group):
        for c in g.children:
            yield from _placed_leaves(c, M)
    else:
        yield g, M


def _leaves(g):
    if isinstance(g, roboio.model.Group):
        for c in g.children:
            yield from _leaves(c)
    else:
        yield g


def check_couplings(m, d, robot, report, joint_only=False):
    """Configurations moved through the drivers satisfy MuJoCo's joint equalities. Couplings
    that are not polynomials of degree <= 4 are written as their nearest affine coupling
    (reported): the written model is compared. ``joint_only``: equalities of other types
    (an MJCF source's, written back) are left out."""
    from roboio.model.coupling import ExpressionCoupling, linearized, polynomial_in_range
    robot, _ = linearized(robot, lambda dr, i: isinstance(dr.coupling, ExpressionCoupling)
                          and dr.coupling.inputs == (i,)
                          and all(polynomial_in_range(f, dr.qmin, dr.qmax) is not None
                                  for f in dr.coupling.functions))
    affine = [k for k, dr in enumerate(robot.drivers)
              if dr.type in ("affine", "nonlinear") and len(dr.dofs) > 1]
    joints = [e for e in range(m.neq) if m.eq_type[e] == mujoco.mjtEq.mjEQ_JOINT or not joint_only]
    if not affine:
        assert not joints
        return
    rng = np.random.default_rng(3)
    u = rng.uniform(-0.5, 0.5, size=len(robot.drivers))
    q = robot.config_from_drivers(u)
    qpos = qpos_of(m, robot, q, robot.fk(q))
    followers = {link_of_joint(robot, mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, m.eq_obj1id[e]))
                 for e in joints}
    for k in affine:
        dr = robot.drivers[k]
        # every DOF but one (the leader) follows through an equality, or the report says why not
        said = " ".join(x for x in report.lost if x.startswith("coupled DOFs without"))
        missing = [robot.links[i].name for i in dr.dofs
                   if i not in followers and f"{dr.name}: {robot.links[i].name}" not in said]
        assert len(missing) <= 1, (dr.name, missing)
        if len(missing) == 1 and dr.leader in dr.dofs:      # the one that leads: the actuated joint
            assert missing == [robot.links[dr.leader].name], (dr.name, missing)
    for e in joints:
        assert m.eq_type[e] == mujoco.mjtEq.mjEQ_JOINT
        j1, j2 = m.eq_obj1id[e], m.eq_obj2id[e]
        y = qpos[m.jnt_qposadr[j1]]
        x = qpos[m.jnt_qposadr[j2]] if j2 >= 0 else 0.0
        a = m.eq_data[e][:5]
        assert y == pytest.approx(sum(a[n] * x ** n for n in range(5)), abs=1e-12)


def _actuated(m, robot):
    """[(driver, link it actuates, a, b)] as docs/mjcf.md states the rule: the driver's
    leader when MuJoCo has a hinge or slide joint for it, else its first DOF with one
    (and a nonzero scale); ``qpos = a u + b``."""
    moving = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    joints = {link_of_joint(robot, mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)): j
              for j in range(m.njnt) if int(m.jnt_type[j]) in moving}

    def joint_of(i):
        return joints.get(i)
    out = []
    for dr in robot.drivers:
        if dr.type not in ("normal", "affine", "nonlinear") or not dr.dofs:
            continue
        scale = dr.scale if dr.type == "affine" else [1.0] * len(dr.dofs)
        offset = dr.offset if dr.type == "affine" else [0.0] * len(dr.dofs)
        cands = [k for k, i in enumerate(dr.dofs) if joint_of(i) is not None and scale[k] != 0]
        if dr.type == "nonlinear":          # the value of a polynomial coupling is its leader's
            cands = [k for k in cands if dr.dofs[k] == dr.leader]
        if not cands:
            continue
        k = dr.dofs.index(dr.leader) if dr.leader in dr.dofs and dr.dofs.index(dr.leader) in cands else cands[0]
        i = dr.dofs[k]
        n = np.linalg.norm(robot.links[i].axis)
        out.append((dr, i, joint_of(i), n * scale[k], n * offset[k]))
    return out


def check_actuators(m, robot):
    """One position actuator per driver that moves a joint: on its leader's joint, named
    after it, ranges and gains from the driver's limits and servo gains (docs/mjcf.md)."""
    act = _actuated(m, robot)
    assert m.nu == len(act), (m.nu, [a[0].name for a in act])
    names = [a[0].name for a in act]
    on_joint = {int(m.actuator_trnid[k][0]): k for k in range(m.nu)}   # (listed in joint order)
    assert sorted(on_joint) == [int(m.actuator_trnid[k][0]) for k in range(m.nu)]
    for dr, i, j, a, b in act:
        k = on_joint[j]
        if names.count(dr.name) == 1:
            assert mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, k) == dr.name
        assert int(m.actuator_trntype[k]) == int(mujoco.mjtTrn.mjTRN_JOINT) and m.actuator_trnid[k][0] == j
        lo, hi = sorted((a * dr.qmin + b, a * dr.qmax + b))
        if m.jnt_limited[j]:            # targets within the joint's own range
            lo, hi = max(lo, m.jnt_range[j][0]), min(hi, m.jnt_range[j][1])
        limited = bool(np.isfinite(lo) and np.isfinite(hi) and lo < hi)
        assert bool(m.actuator_ctrllimited[k]) == limited, dr.name
        if limited:
            assert np.allclose(m.actuator_ctrlrange[k], (lo, hi), rtol=1e-12, atol=1e-300), dr.name
        flo, fhi = sorted((dr.tmin / a, dr.tmax / a))
        if np.isfinite(flo) and np.isfinite(fhi) and flo < fhi:
            assert np.allclose(m.actuator_forcerange[k], (flo, fhi), rtol=1e-12), dr.name
        assert m.actuator_gainprm[k][0] == pytest.approx(dr.servo_p / a ** 2, rel=1e-12, abs=1e-300)
        assert m.actuator_biasprm[k][1] == pytest.approx(-dr.servo_p / a ** 2, rel=1e-12, abs=1e-300)
        assert m.actuator_biasprm[k][2] == pytest.approx(-dr.servo_d / a ** 2, rel=1e-12, abs=1e-300)


def check_collisions(m, robot):
    """MuJoCo collides exactly roboio's self-collision pairs (for links with collision
    geometry): its filters (same weld body; parent/child weld bodies), ``<exclude>`` and
    explicit ``<pair>``, evaluated from the compiled model."""
    names = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b): b for b in range(1, m.nbody)}
    colliding = {b for g in range(m.ngeom) if m.geom_contype[g] or m.geom_conaffinity[g]
                 for b in [m.geom_bodyid[g]]}
    excluded = {(int(s) >> 16, int(s) & 0xFFFF) for s in m.exclude_signature}
    forced = {tuple(sorted((m.geom_bodyid[a], m.geom_bodyid[b]))) for a, b in zip(m.pair_geom1, m.pair_geom2)}
    weld = m.body_weldid
    links = [l for l in robot.link_names if l in names and names[l] in colliding]
    for a_i, a in enumerate(links):
        for b in links[a_i + 1:]:
            ba, bb = sorted((names[a], names[b]))
            wa, wb = weld[ba], weld[bb]
            pa, pb = weld[m.body_parentid[wa]], weld[m.body_parentid[wb]]
            filt = wa == wb or (wa != 0 and wb != 0 and (wa == pb or wb == pa))
            filt = filt or (m.body_dofnum[wa] == 0 and m.body_dofnum[wb] == 0)
            sig = (min(ba, bb), max(ba, bb))
            checked = (not filt and sig not in excluded) or sig in forced
            ia, ib = sorted((robot.link_index(a), robot.link_index(b)))
            assert checked == ((ia, ib) in robot.self_collision_pairs), (a, b)


ROBOTS = corpus_robots()


@pytest.mark.parametrize("path", ROBOTS, ids=[os.path.relpath(p, CORPUS) for p in ROBOTS])
def test_corpus_robot_in_mujoco(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)          # MuJoCo writes MUJOCO_LOG.TXT into the working directory
    robot = load_robot(path)
    out = str(tmp_path / "model.xml")
    report = roboio.save(robot, out, format="mjcf", meshes="convert")
    m = check_model(robot, out, report)
    check_collisions(m, robot)


def test_unnamed_link_is_checked_under_the_name_the_report_gives(tmp_path, monkeypatch):
    """An OpenRAVE <Body> without a name (crazy-robot/youbot_OpenRAVE tibitsbox1) is written
    as body link0, reported renamed; MuJoCo's body link0 is that link (pose, mass)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "box.kinbody.xml").write_text(
        '<KinBody name="box"><RotationAxis>0 0 1 90</RotationAxis><Body type="dynamic">'
        '<Mass type="mimicgeom"><total>0.285</total></Mass><Geom type="box">'
        '<Extents>0.003 0.0735 0.066</Extents><Translation>0 0 0.066</Translation></Geom>'
        '</Body></KinBody>')
    robot = roboio.load(str(tmp_path / "box.kinbody.xml"))
    out = str(tmp_path / "model.xml")
    report = roboio.save(robot, out, format="mjcf")
    assert report.renamed["links"] == {"": "link0"}
    m = check_model(robot, out, report)
    b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "link0")
    assert m.body_mass[b] == pytest.approx(0.285, rel=1e-12)
    np.testing.assert_allclose(m.body_quat[b], [np.sqrt(0.5), 0, 0, np.sqrt(0.5)], atol=1e-12)


def test_tiny_inertia_is_written_not_zeroed(tmp_path, monkeypatch):
    """unitree b2_description.urdf's sensor frames (f_dc_link...): mass 4.19e-15 kg, moments
    1.68e-27 kg m^2 with off-diagonal terms of 1e-44; the principal moments were picked as 0
    (the absolute 1e-12 below which an angle is rounding), so MuJoCo read no inertia."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.urdf").write_text(
        '<robot name="r"><link name="base"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" '
        'izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>'
        '<link name="cam"><inertial><origin xyz="3.47E-18 0 5.55E-17"/><mass value="4.19E-15"/>'
        '<inertia ixx="1.68E-27" ixy="-9.81E-45" ixz="-2.54E-44" iyy="1.68E-27" iyz="0" izz="1.68E-27"/>'
        '</inertial></link><joint name="j" type="fixed"><origin xyz="0.4 0 0.05" rpy="-2.3562 0 -1.5708"/>'
        '<parent link="base"/><child link="cam"/></joint></robot>')
    robot = roboio.load(str(tmp_path / "r.urdf"))
    out = str(tmp_path / "model.xml")
    report = roboio.save(robot, out, format="mjcf")
    m = check_model(robot, out, report)
    b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "cam")
    np.testing.assert_allclose(m.body_inertia[b], [1.68e-27] * 3, rtol=1e-9)
    first = open(out, "rb").read()
    roboio.save(roboio.load(str(tmp_path / "r.urdf")), str(tmp_path / "again.xml"), format="mjcf")
    assert open(tmp_path / "again.xml", "rb").read() == first


@pytest.mark.parametrize("rel", ["klampt/robots/ur5.rob", "klampt/robots/robotiq_85.rob",
                                 "klampt/robots/robotiq_140.urdf"])
def test_position_actuators_hold_their_targets(rel, tmp_path, monkeypatch):
    """Each driver's position actuator, commanded to a target inside its range, holds its
    joint there in a short simulation (no gravity, no contacts: the servo alone), and the
    coupled DOFs follow through their equalities."""
    path = os.path.join(CORPUS, rel)
    if not os.path.isfile(path):
        pytest.skip("corpus absent")
    monkeypatch.chdir(tmp_path)
    robot = load_robot(path)
    out = str(tmp_path / "model.xml")
    roboio.save(robot, out, format="mjcf", meshes="convert")
    m = mujoco.MjModel.from_xml_path(out)
    act = _actuated(m, robot)
    assert m.nu == len(act) > 0
    m.opt.gravity[:] = 0
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    d = mujoco.MjData(m)
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    target = np.where(m.actuator_ctrllimited, lo + 0.3 * (hi - lo), 0.2)
    d.ctrl[:] = target
    for _ in range(int(3.0 / m.opt.timestep)):
        mujoco.mj_step(m, d)
    for k, (dr, i, j, a, b) in enumerate(act):
        got = d.qpos[m.jnt_qposadr[j]]
        span = max(hi[k] - lo[k], 1.0) if m.actuator_ctrllimited[k] else 1.0
        assert abs(got - target[k]) <= 2e-3 * span, (dr.name, got, target[k])
