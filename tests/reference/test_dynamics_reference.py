"""roboio's dynamics against Klamp't, pinocchio and MuJoCo, on robots of every ecosystem.

* Klamp't (``klampt`` 0.10.1) reads the corpus ``.rob`` files and roboio's ``.rob`` export of
  OpenRAVE, GraspIt! and Choreonoid robots: the same links in the same order, so mass
  matrices, gravity, Coriolis and inverse-dynamics torques, COM and its Jacobian compare
  entry by entry (every link has a row, welded ones too), and so do the compatibility layer's
  calls. Klamp't uses a non-symmetric inertia as written (atlas.rob has some; its mass
  matrix is then not symmetric) and integrates ``automass`` over float32 meshes, so each
  klampt link is given roboio's inertial values (symmetrised) before comparing: this test is
  about the algorithms; the reader's values are compared separately, where Klamp't's are
  defined.
* pinocchio reads roboio's URDF export of the same robots and URDFs directly. Welded links
  are fixed joints there (merged into their parent body), a floating base is absent (fixed
  base at the root), a joint whose axis is not unit length moves at ``|axis| q``: pinocchio's
  coordinate of joint j is ``|axis| q_i`` of the roboio link whose body frame the joint
  carries, and the moving rows and columns compare after that scaling.
* MuJoCo reads roboio's MJCF export (hinge/slide joints named after links, ``qpos =
  |axis| q``): ``mj_fullM`` and ``mj_rne`` on the moving rows, with MuJoCo's own body
  inertias on roboio's links; where they differ from roboio's (the writer raises inertias
  MuJoCo refuses) the report must name the link.

The map between coordinates is written here from the documented rules, not taken from roboio.
"""
import os
import warnings

import numpy as np
import pytest

import roboio
from conftest import CORPUS, corpus_path

TOL = 1e-9
_KEEP = []           # klampt robots die with their WorldModel: keep the worlds alive

KLAMPT_ROBOTS = ["klampt/robots/ur5.rob", "klampt/robots/atlas.rob",
                 "klampt/robots/robotiq_3finger.rob", "klampt/robots/cartpole.rob",
                 "klampt/robots/baxter.rob"]
OTHER_ROBOTS = ["openrave/src/robots/barrettwam.robot.xml", "openrave/src/robots/pumaarm.zae",
                "graspit/models/robots/Barrett/Barrett.xml",
                "choreonoid/share/model/PA10/PA10.body", "choreonoid/share/model/SR1/SR1.body",
                "choreonoid/share/model/GR001/GR001.body"]
DIRECT_URDFS = ["klampt/robots/kinova_gen3_7dof.urdf", "klampt/robots/mirobot.urdf",
                "choreonoid/share/model/SR1/SR1.urdf", "klampt/robots/robotiq_140.urdf"]


def _load(rel):
    path = corpus_path(*rel.split("/"))
    if not os.path.exists(path):
        pytest.skip(f"{rel} not in the corpus")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = roboio.load(path)
    if isinstance(obj, roboio.World):
        obj = obj.robots[0]
    return obj, path


def _rel(a, b, scale=0.0):
    """Largest difference relative to b's largest entry (or ``scale`` when larger: torques
    near zero are compared to the size of the mass matrix, N m per rad/s^2)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), scale, 1e-300))


def _states(robot, seed, k=3):
    rng = np.random.default_rng(seed)
    n = robot.num_links
    welded = np.zeros(n, bool)
    for j in robot.joints:
        if j.type == "weld":
            welded[j.links] = True
    out = []
    for _ in range(k):
        q, dq, ddq = rng.uniform(-1.5, 1.5, (3, n))
        q[welded] = robot.config[welded]
        dq[welded] = ddq[welded] = 0.0
        out.append((q, dq, ddq))
    return out, welded


# -- Klamp't ----------------------------------------------------------------------------------

def _klampt_robot(path):
    klampt = pytest.importorskip("klampt")
    w = klampt.WorldModel()
    if not w.loadRobot(path) and w.numRobots() == 0:
        pytest.skip(f"klampt cannot load {path}")
    _KEEP.append(w)
    return w.robot(w.numRobots() - 1)


def _same_masses(kr, robot):
    import klampt
    for i, l in enumerate(robot.links):
        m = klampt.Mass()
        m.setMass(l.mass)
        m.setCom(l.com.tolist())
        I = 0.5 * (l.inertia + l.inertia.T)
        m.setInertia(I.reshape(-1).tolist())
        kr.link(i).setMass(m)


def _compare_klampt(robot, kr, seed):
    from roboio.compat.klampt import RobotModel
    n = robot.num_links
    assert kr.numLinks() == n
    _same_masses(kr, robot)
    cr = RobotModel._view(robot)
    states, welded = _states(robot, seed)
    g = [0.3, -0.2, -9.81]
    for q, dq, ddq in states:
        kr.setConfig(q.tolist())
        kr.setVelocity(dq.tolist())
        Mk = np.array(kr.getMassMatrix())
        assert _rel(robot.mass_matrix(q), Mk) < TOL
        assert _rel(robot.gravity_torques(q, gravity=g), kr.getGravityForces(g)) < TOL
        assert _rel(robot.coriolis_torques(q, dq), kr.getCoriolisForces()) < TOL
        assert _rel(robot.inverse_dynamics(q, dq, ddq, gravity=(0, 0, 0)),
                    kr.torquesFromAccel(ddq.tolist())) < TOL
        assert _rel(robot.com(q), kr.getCom()) < TOL
        assert _rel(robot.com_jacobian(q), kr.getComJacobian()) < TOL
        # the compatibility layer, call by call
        cr.setConfig(q.tolist())
        cr.setVelocity(dq.tolist())
        assert _rel(cr.getMassMatrix(), Mk) < TOL
        # Klamp't's Coriolis matrix is half the velocity derivative of its Coriolis forces,
        # except on some robots with prismatic links, where its C dq is not its own Coriolis
        # forces (PA10's gripper: off by 0.18 N); there roboio's C dq is checked instead
        Ck, Cr = np.array(kr.getCoriolisForceMatrix()), cr.getCoriolisForceMatrix()
        ck = np.array(kr.getCoriolisForces())
        if _rel(Ck @ dq, ck, np.abs(Mk).max()) < TOL:
            assert _rel(Cr, Ck, np.abs(Mk).max()) < TOL
        else:
            assert _rel(Cr @ dq, ck, np.abs(Mk).max()) < TOL
        assert _rel(cr.getGravityForces(g), kr.getGravityForces(g)) < TOL
        assert _rel(cr.getComVelocity(), kr.getComVelocity()) < TOL
        assert abs(cr.getKineticEnergy() - kr.getKineticEnergy()) <= TOL * max(
            abs(kr.getKineticEnergy()), 1e-300)
        assert _rel(cr.getTotalInertia(), kr.getTotalInertia()) < TOL
        assert _rel(cr.getLinearMomentum(), kr.getLinearMomentum()) < TOL
        # Klamp't sums the links' spins only (R I R^T w); roboio adds their orbits about
        # the centre of mass, m (c - com) x v, computed here from Klamp't's link states
        com = np.array(kr.getCom())
        orbit = sum(kr.link(i).getMass().getMass() * np.cross(
            np.array(kr.link(i).getWorldPosition(kr.link(i).getMass().getCom())) - com,
            kr.link(i).getPointVelocity(kr.link(i).getMass().getCom())) for i in range(n))
        assert _rel(cr.getAngularMomentum(), np.array(kr.getAngularMomentum()) + orbit) < TOL
        if not welded.any():
            tau = (np.random.default_rng(seed).uniform(-1, 1, n) * np.abs(Mk).max()).tolist()
            assert _rel(cr.accelFromTorques(tau), kr.accelFromTorques(tau)) < 1e-7


@pytest.mark.parametrize("rel", KLAMPT_ROBOTS)
def test_klampt_rob_files(rel):
    robot, path = _load(rel)
    _compare_klampt(robot, _klampt_robot(path), seed=len(rel))


@pytest.mark.parametrize("rel", OTHER_ROBOTS)
def test_klampt_reads_roboio_rob_export(rel, tmp_path):
    robot, _ = _load(rel)
    out = str(tmp_path / "robot.rob")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roboio.save(robot, out)
    _compare_klampt(robot, _klampt_robot(out), seed=len(rel))


def test_klampt_reads_the_same_masses():
    """Where Klamp't's values are defined (symmetric inertias, no automass), it reads the
    masses, COMs and inertias of a .rob as roboio does."""
    for rel in ("klampt/robots/ur5.rob", "klampt/robots/baxter.rob", "klampt/robots/pr2.rob"):
        robot, path = _load(rel)
        kr = _klampt_robot(path)
        for i, l in enumerate(robot.links):
            m = kr.link(i).getMass()
            assert m.getMass() == pytest.approx(l.mass, rel=1e-15, abs=0)
            assert np.allclose(m.getCom(), l.com, rtol=0, atol=1e-15)
            I = np.array(m.getInertia()).reshape(3, 3)
            assert np.allclose(0.5 * (I + I.T), 0.5 * (l.inertia + l.inertia.T), rtol=0,
                               atol=1e-15 * max(1.0, np.abs(I).max()))


# -- pinocchio ---------------------------------------------------------------------------------

def _pinocchio(urdf, robot):
    """pinocchio's model of ``urdf`` and, per pinocchio joint, the roboio link it moves and
    the scale |axis| (pinocchio's coordinate is |axis| q)."""
    pin = pytest.importorskip("pinocchio")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = pin.buildModelFromUrdf(urdf)
    link_of = {}
    for f in model.frames:
        if (f.type == pin.FrameType.BODY and f.parentJoint > 0 and f.name in robot.link_names
                and np.allclose(f.placement.homogeneous, np.eye(4), atol=0)
                and f.parentJoint not in link_of):
            link_of[f.parentJoint] = robot.link_index(f.name)
    joints = list(range(1, model.njoints))
    assert sorted(link_of) == joints, "every pinocchio joint carries a roboio link's frame"
    cols = [link_of[j] for j in joints]
    scale = np.array([np.linalg.norm(robot.links[i].axis) for i in cols])
    return pin, model, cols, scale


def _compare_pinocchio(robot, urdf, seed, base_at_rest=True):
    pin, model, cols, scale = _pinocchio(urdf, robot)
    data = model.createData()
    model.gravity.linear = np.array([0.0, 0.0, -9.81])
    states, welded = _states(robot, seed)
    moving = np.zeros(robot.num_links, bool)
    moving[cols] = True
    for q, dq, ddq in states:
        # links pinocchio does not move (a floating base roboio has, welds) at rest at q = 0
        q = np.where(moving | welded, q, 0.0)
        dq = np.where(moving, dq, 0.0)
        ddq = np.where(moving, ddq, 0.0)
        qp = np.zeros(model.nq)
        for k, j in enumerate(range(1, model.njoints)):
            jm, th = model.joints[j], q[cols[k]] * scale[k]
            qp[jm.idx_q:jm.idx_q + jm.nq] = [np.cos(th), np.sin(th)] if jm.nq == 2 else [th]
        vp, ap = dq[cols] * scale, ddq[cols] * scale
        Mp = pin.crba(model, data, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T          # pinocchio fills the upper triangle
        M = robot.mass_matrix(q)[np.ix_(cols, cols)] / np.outer(scale, scale)
        assert _rel(M, Mp) < TOL
        size = np.abs(Mp).max()
        tp = pin.rnea(model, data, qp, vp, ap)
        assert _rel(robot.inverse_dynamics(q, dq, ddq)[cols] / scale, tp, size) < TOL
        Gp = pin.computeGeneralizedGravity(model, data, qp)
        assert _rel(robot.gravity_torques(q)[cols] / scale, Gp, size) < TOL


def _massless_as_urdfdom(robot, urdf):
    """roboio gives a URDF link without ``<inertial>`` Klamp't's default mass (0.0001 kg,
    inertia 1e-8) where urdfdom and pinocchio give it none: make those links massless."""
    from lxml import etree
    bare = {e.get("name") for e in etree.parse(urdf).getroot().findall("link")
            if e.find("inertial") is None}
    for link in robot.links:
        if link.name in bare:
            link.mass, link.inertia = 0.0, np.zeros((3, 3))
    return robot


@pytest.mark.parametrize("rel", KLAMPT_ROBOTS[:3] + OTHER_ROBOTS)
def test_pinocchio_reads_roboio_urdf_export(rel, tmp_path):
    """pinocchio's dynamics of roboio's URDF export equal roboio's of the same file, and
    roboio's of the original (verify_dynamics; atlas.rob's link rotations are written with
    six digits and are not quite rotations: its URDF holds the nearest ones, which moves its
    mass matrix by 1e-7)."""
    from roboio.verify_dynamics import verify_dynamics
    robot, _ = _load(rel)
    out = str(tmp_path / "robot.urdf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roboio.save(robot, out)
        back = roboio.load(out)
    _compare_pinocchio(_massless_as_urdfdom(back.copy(), out), out, seed=len(rel))
    res = verify_dynamics(robot, back, samples=5, tol=1e-6 if "atlas" in rel else TOL)
    assert res.ok, (res.max_mass_matrix_error, res.max_gravity_error, res.links[:3])


@pytest.mark.parametrize("rel", DIRECT_URDFS)
def test_pinocchio_and_roboio_read_the_same_urdf(rel):
    """URDFs read by both: inertial origins with rotations, fixed joints, continuous
    joints."""
    robot, path = _load(rel)
    _compare_pinocchio(_massless_as_urdfdom(robot, path), path, seed=len(rel))


def test_rotated_inertial_origin_read_as_pinocchio_does(tmp_path):
    """An <inertial><origin rpy> (MuJoCo #3559, Klamp't's R^T I R quirk): roboio's standard
    reading rotates the inertia as R I R^T, as pinocchio does."""
    urdf = tmp_path / "rot.urdf"
    urdf.write_text("""<robot name="rot">
  <link name="base"/>
  <link name="arm"><inertial><origin xyz="0.1 0.2 0.3" rpy="0.4 -0.7 1.1"/><mass value="2.5"/>
    <inertia ixx="0.3" ixy="0.01" ixz="-0.02" iyy="0.2" iyz="0.03" izz="0.1"/></inertial></link>
  <link name="hand"><inertial><origin xyz="0 0.05 0" rpy="1.2 0.3 -0.4"/><mass value="0.5"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="arm"/><child link="hand"/>
    <origin xyz="0.5 0 0" rpy="0.2 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>""")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = roboio.load(str(urdf))
    _compare_pinocchio(_massless_as_urdfdom(robot, str(urdf)), str(urdf), seed=1)


def _link_of_joint(robot, name):
    """The link a written MuJoCo joint moves: named after the source's joint (its moving link
    with that joint name), else after the link."""
    named = [i for i, l in enumerate(robot.links) if l.joint_name == name
             and robot.joint_of_link(i).type != "weld"]
    return named[0] if len(named) == 1 else robot.link_index(name)


# -- MuJoCo ------------------------------------------------------------------------------------

@pytest.mark.parametrize("rel", ["klampt/robots/ur5.rob", "openrave/src/robots/barrettwam.robot.xml",
                                 "choreonoid/share/model/PA10/PA10.body"])
def test_mujoco_reads_roboio_mjcf_export(rel, tmp_path):
    mujoco = pytest.importorskip("mujoco")
    robot, _ = _load(rel)
    out = str(tmp_path / "robot.xml")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = roboio.save(robot, out, format="mjcf")
    m = mujoco.MjModel.from_xml_path(out)
    d = mujoco.MjData(m)
    said = " ".join(str(x) for x in report.lost + report.warnings)
    # where the writer raised an inertia MuJoCo would refuse, the report names the link; the
    # dynamics are then compared with MuJoCo's own body inertias put on roboio's links
    robot = robot.copy()
    for b in range(1, m.nbody):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
        if name not in robot.link_names:
            continue
        link = robot.link(name)
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, m.body_iquat[b])
        R = R.reshape(3, 3)
        inertia = R @ np.diag(m.body_inertia[b]) @ R.T
        I0 = 0.5 * (link.inertia + link.inertia.T)
        if (abs(m.body_mass[b] - link.mass) > 1e-9 * max(link.mass, 1e-9)
                or np.abs(inertia - I0).max() > 1e-9 * max(np.abs(I0).max(), 1e-12)):
            assert name in said, f"MuJoCo's inertia of {name} differs and the report does not say"
        link.mass, link.com, link.inertia = float(m.body_mass[b]), m.body_ipos[b].copy(), inertia
    cols, dofs, qadr, scale = [], [], [], []
    for j in range(m.njnt):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        assert int(m.jnt_type[j]) in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
        i = _link_of_joint(robot, name)
        cols.append(i)
        dofs.append(m.jnt_dofadr[j])
        qadr.append(m.jnt_qposadr[j])
        scale.append(np.linalg.norm(robot.links[i].axis))
    scale = np.array(scale)
    states, _ = _states(robot, seed=3)
    for q, dq, ddq in states:
        d.qpos[qadr] = q[cols] * scale
        d.qvel[dofs] = dq[cols] * scale
        mujoco.mj_forward(m, d)               # positions and velocities (qacc overwritten)
        M = np.zeros((m.nv, m.nv))
        if hasattr(d, "qM"):                 # MuJoCo < 4: mj_fullM(m, dst, qM)
            mujoco.mj_fullM(m, M, d.qM)
        else:                                # MuJoCo 4: mj_fullM(m, d, dst)
            mujoco.mj_fullM(m, d, M)
        Mr = robot.mass_matrix(q)[np.ix_(cols, cols)] / np.outer(scale, scale)
        assert _rel(Mr, M[np.ix_(dofs, dofs)]) < TOL
        res = np.zeros(m.nv)
        d.qacc[:] = 0.0
        d.qacc[dofs] = ddq[cols] * scale
        mujoco.mj_rne(m, d, 1, res)
        g = m.opt.gravity.copy()
        assert _rel(robot.inverse_dynamics(q, dq, ddq, gravity=g)[cols] / scale, res[dofs]) < TOL


# -- robots no one here wrote -------------------------------------------------------------------

def _example_robot_data():
    try:
        from importlib.metadata import PackageNotFoundError, distribution
        d = distribution("example-robot-data").locate_file(
            "cmeel.prefix/share/example-robot-data/robots")
    except (ImportError, PackageNotFoundError):
        return None
    return str(d) if os.path.isdir(str(d)) else None


ERD = _example_robot_data()
# mimic joints whose leader comes later and non-unit axes (romeo), continuous joints (tiago),
# floating-base robots read with a fixed root here (anymal, solo), many links (talos)
ERD_SAMPLE = ["romeo_description/urdf/romeo.urdf", "tiago_description/robots/tiago.urdf",
              "panda_description/urdf/panda.urdf", "talos_data/robots/talos_reduced.urdf",
              "anymal_c_simple_description/urdf/anymal.urdf", "solo_description/robots/solo12.urdf",
              "allegro_hand_description/urdf/allegro_right_hand.urdf"]


@pytest.mark.skipif(ERD is None, reason="example-robot-data is not installed")
@pytest.mark.parametrize("rel", ERD_SAMPLE)
def test_pinocchio_on_example_robot_data(rel):
    """URDFs of the example-robot-data package, read by roboio and by pinocchio (all 66 of
    its robots with joints agree; a sample runs here)."""
    path = os.path.join(ERD, rel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = roboio.load(path, package_dirs=[ERD])
    _compare_pinocchio(_massless_as_urdfdom(robot, path), path, seed=2)
