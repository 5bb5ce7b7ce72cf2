"""Scripts written against Klamp't's Python API, run twice by the differential tests:
once with the real ``klampt`` package and once with ``roboio.compat.klampt``.

Every script takes ``K`` (a namespace with ``WorldModel``, ``Geometry3D``, ``Appearance``,
``Mass``, ``so3``, ``se3``, ``vectorops``) and a :class:`Recorder`, and records what it
observes. The test compares the two recordings value by value.
"""
import math
import random

import numpy as np

# Klamp't keeps mesh vertices in single precision (it loads meshes with Assimp): values
# derived from mesh data (bounding boxes, automass inertias) agree to float32 precision.
MESH_TOL = 2e-6


class Recorder:
    def __init__(self):
        self.records = []

    def __call__(self, label, value, tol=1e-9):
        self.records.append((label, _plain(value), tol))


def _plain(v):
    """Lists of floats / ints / strings / bools, whatever container the API returned."""
    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    return v


def _configs(robot, n, seed):
    """``n`` configurations inside the joint limits (+-pi where a limit is infinite)."""
    rng = random.Random(seed)
    qmin, qmax = robot.getJointLimits()
    out = []
    for _ in range(n):
        q = []
        for lo, hi in zip(qmin, qmax):
            lo = lo if math.isfinite(lo) else -math.pi
            hi = hi if math.isfinite(hi) else math.pi
            q.append(rng.uniform(min(lo, hi), max(lo, hi)))
        out.append(q)
    return out


# -- the Klamp't manual's examples ------------------------------------------------------------
def planar3r_example(K, rec, path):
    """Manual, "Kinematics Example": where the planar 3R end effector is at [0, pi/4, pi/4]."""
    world = K.WorldModel()
    rec("loadElement", world.loadElement(path))
    robot = world.robot(0)
    robot.setConfig([0, math.pi / 4, math.pi / 4])
    link = robot.link(2)
    rec("getWorldPosition", link.getWorldPosition([1, 0, 0]))
    rec("getPositionJacobian", link.getPositionJacobian([1, 0, 0]))


def make_shelf(K, world, cube, width, depth, height, wall_thickness=0.005):
    """The manual's world-creation example, verbatim except for the cube path."""
    left = K.Geometry3D()
    right = K.Geometry3D()
    back = K.Geometry3D()
    bottom = K.Geometry3D()
    top = K.Geometry3D()
    left.loadFile(cube)
    right.loadFile(cube)
    back.loadFile(cube)
    bottom.loadFile(cube)
    top.loadFile(cube)
    left.transform([wall_thickness, 0, 0, 0, depth, 0, 0, 0, height], [-width * 0.5, -depth * 0.5, 0])
    right.transform([wall_thickness, 0, 0, 0, depth, 0, 0, 0, height], [width * 0.5, -depth * 0.5, 0])
    back.transform([width, 0, 0, 0, wall_thickness, 0, 0, 0, height], [-width * 0.5, depth * 0.5, 0])
    bottom.transform([width, 0, 0, 0, depth, 0, 0, 0, wall_thickness], [-width * 0.5, -depth * 0.5, 0])
    top.transform([width, 0, 0, 0, depth, 0, 0, 0, wall_thickness], [-width * 0.5, -depth * 0.5, height - wall_thickness])
    shelfgeom = K.Geometry3D()
    shelfgeom.setGroup()
    for i, elem in enumerate([left, right, back, bottom, top]):
        g = K.Geometry3D(elem)
        shelfgeom.setElement(i, g)
    shelf = world.makeTerrain("shelf")
    shelf.geometry().set(shelfgeom)
    shelf.appearance().setColor(0.2, 0.6, 0.3, 1.0)
    return shelf


def make_shelf_example(K, rec, cube, robot_path):
    world = K.WorldModel()
    rec("robot id", world.loadElement(robot_path))
    shelf = make_shelf(K, world, cube, 0.4, 0.4, 0.3)
    shelf.geometry().translate((0.8, 0.1, 0.65))
    rec("counts", [world.numRobots(), world.numRigidObjects(), world.numTerrains(), world.numIDs()])
    rec("shelf id / name", [shelf.getID(), shelf.getName(), world.getName(shelf.getID())])
    rec("robot id after", world.robot(0).getID())
    g = shelf.geometry()
    rec("type / elements", [g.type(), g.numElements()])
    rec("bounding box", g.getBBTight())
    for i in range(g.numElements()):
        e = g.getElement(i)
        rec(f"element {i}", [e.type(), e.numElements()])
        rec(f"element {i} box", e.getBBTight())
    rec("colour", shelf.appearance().getColor())
    rec("colour by id", world.appearance(shelf.getID()).getColor())


# -- every listed method on robots --------------------------------------------------------------
def robot_api(K, rec, path, distance=True, colours=True):
    """Structure, limits, masses, drivers, kinematics at several configurations, and edits."""
    world = K.WorldModel()
    rec("id", world.loadElement(path))
    robot = world.robot(0)
    n = robot.numLinks()
    rec("counts", [n, robot.numDrivers(), world.numIDs(), world.numRobots(), robot.getID()])
    rec("config", robot.getConfig())
    rec("joint limits", robot.getJointLimits())
    rec("velocity limits", robot.getVelocityLimits())
    rec("acceleration limits", robot.getAccelerationLimits())
    rec("torque limits", robot.getTorqueLimits())
    for i in range(n):
        link = robot.link(i)
        assert robot.link(link.getName()).getIndex() == i or \
            [robot.link(j).getName() for j in range(n)].count(link.getName()) > 1
        rec(f"link {i}", [link.getName(), link.getIndex(), link.getID(), link.getParent(),
                          link.isPrismatic(), link.isRevolute(), robot.getJointType(i)])
        rec(f"link {i} axis", link.getAxis())
        rec(f"link {i} parent transform", link.getParentTransform())
        m = link.getMass()
        rec(f"link {i} mass", m.getMass())
        rec(f"link {i} com", m.getCom(), MESH_TOL)
        rec(f"link {i} inertia", m.getInertia(), MESH_TOL)
        g = link.geometry()
        rec(f"link {i} geometry", g.type())
        if colours:
            rec(f"link {i} colour", link.appearance().getColor())
    for k in range(robot.numDrivers()):
        d = robot.driver(k)
        rec(f"driver {k}", [d.getName(), d.getType(), d.getAffectedLinks(), robot.driver(d.getName()).getName()])
        rec(f"driver {k} coeffs", d.getAffineCoeffs() if d.getType() == "affine" else None)
        rec(f"driver {k} limits", [d.getLimits(), d.getVelocityLimits(), d.getTorqueLimits(),
                                   d.getAccelerationLimits()])
    rec("self collision", [[robot.selfCollisionEnabled(i, j) for j in range(n)] for i in range(n)])

    qs = _configs(robot, 3, seed=n)
    for c, q in enumerate(qs):
        robot.setConfig(q)
        rec(f"q{c}", robot.getConfig())
        p = [0.1 * c - 0.05, 0.02, 0.3 - 0.1 * c]
        for i in range(n):
            link = robot.link(i)
            rec(f"q{c} T {i}", link.getTransform())
            rec(f"q{c} world pos {i}", link.getWorldPosition(p))
            rec(f"q{c} local pos {i}", link.getLocalPosition(p))
            rec(f"q{c} world dir {i}", link.getWorldDirection(p))
            rec(f"q{c} local dir {i}", link.getLocalDirection(p))
            rec(f"q{c} J {i}", link.getJacobian(p))
            rec(f"q{c} Jp {i}", link.getPositionJacobian(p))
            rec(f"q{c} Jo {i}", link.getOrientationJacobian())
            if not link.geometry().empty():   # Klamp't leaves it uninitialised otherwise
                rec(f"q{c} geometry T {i}", link.geometry().getCurrentTransform())
                rec(f"q{c} box {i}", link.geometry().getBBTight(), MESH_TOL)
        u = robot.configToDrivers(q)
        rec(f"q{c} drivers", u)
        rec(f"q{c} driver values", [robot.driver(k).getValue() for k in range(robot.numDrivers())])
        rec(f"q{c} from drivers", robot.configFromDrivers([x + 0.01 for x in u]))
        rec(f"q{c} com", robot.getCom(), MESH_TOL)
    rec("interpolate", robot.interpolate(qs[0], qs[1], 0.3))
    if distance:
        rec("distance", robot.distance(qs[0], qs[2]))

    robot.setVelocity([0.1 * (i + 1) for i in range(n)])
    rec("velocity", robot.getVelocity())
    rec("velocity to drivers", robot.velocityToDrivers(robot.getVelocity()))
    rec("link velocity", [robot.link(i).getPointVelocity([0.1, 0, 0]) for i in range(n)])
    for k in range(robot.numDrivers()):
        d = robot.driver(k)
        d.setValue(d.getValue() + 0.02)
        rec(f"driver {k} setValue", robot.getConfig())
    robot.setDOFPosition(n - 1, 0.25)
    rec("setDOFPosition", [robot.getDOFPosition(n - 1), robot.link(n - 1).getTransform()])

    robot.setJointLimits([-1.0 - i for i in range(n)], [1.0 + i for i in range(n)])
    robot.setVelocityLimits([2.0 + i for i in range(n)])
    robot.setAccelerationLimits([3.0 + i for i in range(n)])
    robot.setTorqueLimits([4.0 + i for i in range(n)])
    rec("limits after set", [robot.getJointLimits(), robot.getVelocityLimits(),
                             robot.getAccelerationLimits(), robot.getTorqueLimits()])
    for k in range(robot.numDrivers()):
        d = robot.driver(k)
        rec(f"driver {k} limits after set", [d.getLimits(), d.getVelocityLimits(),
                                             d.getTorqueLimits(), d.getAccelerationLimits()])
    if n > 1:
        robot.enableSelfCollision(0, n - 1, False)
        robot.enableSelfCollision(n - 1, 0, True)
        rec("self collision after", robot.selfCollisionEnabled(0, n - 1))


def link_editing(K, rec, path):
    """setParentTransform / setAxis / setParent / setTransform / setMass through the API."""
    so3 = K.so3
    world = K.WorldModel()
    world.loadElement(path)
    robot = world.robot(0)
    n = robot.numLinks()
    link = robot.link(n - 1)
    before = link.getTransform()
    link.setParentTransform(so3.rotation([0, 0, 1], 0.3), [0.1, 0.2, 0.3])
    rec("transform before setConfig", link.getTransform() == before)
    robot.setConfig(robot.getConfig())
    rec("transform after setConfig", link.getTransform())
    link.setAxis([0, 1, 0])
    robot.setConfig([0.2] * n)
    rec("after setAxis", [link.getAxis(), link.getTransform()])
    if n > 2:
        link.setParent(0)
        robot.setConfig([0.3] * n)
        rec("after setParent", [link.getParent(), link.getTransform(), link.getJacobian([0, 0, 0.1])])
    link.setTransform(so3.rotation([1, 0, 0], 0.5), [1, 2, 3])
    rec("after setTransform", [link.getTransform(), link.getWorldPosition([0.1, 0.2, 0.3]),
                               link.getPositionJacobian([0.1, 0, 0]), link.geometry().getCurrentTransform()])
    m = link.getMass()
    m.setMass(3.0)
    m.setCom([0.01, 0.02, 0.03])
    m.setInertia([0.1, 0, 0, 0, 0.2, 0, 0, 0, 0.3])
    link.setMass(m)
    rec("after setMass", [link.getMass().getMass(), link.getMass().getCom(), link.getMass().getInertia()])
    link.setName("renamed")
    rec("after setName", [link.getName(), robot.link("renamed").getIndex()])


# -- worlds ---------------------------------------------------------------------------------------
def world_api(K, rec, path):
    world = K.WorldModel()
    rec("readFile", world.readFile(path))
    rec("counts", [world.numRobots(), world.numRigidObjects(), world.numTerrains(), world.numIDs()])
    rec("names", [world.getName(i) for i in range(world.numIDs())])
    for i in range(world.numTerrains()):
        t = world.terrain(i)
        rec(f"terrain {i}", [t.getName(), t.getID(), world.terrain(t.getName()).getID()])
        g = world.geometry(t.getID())
        rec(f"terrain {i} geometry", [g.type(), g.getCurrentTransform()])
        rec(f"terrain {i} box", g.getBBTight(), MESH_TOL)
        rec(f"terrain {i} colour", t.appearance().getColor())
    for i in range(world.numRigidObjects()):
        o = world.rigidObject(i)
        rec(f"object {i}", [o.getName(), o.getID()])
        rec(f"object {i} transform", o.getTransform())
        rec(f"object {i} velocity", o.getVelocity())
        m = o.getMass()
        rec(f"object {i} mass", [m.getMass(), m.getCom(), m.getInertia()], MESH_TOL)
        p = o.getContactParameters()
        rec(f"object {i} contact", [p.kFriction, p.kRestitution, p.kStiffness, p.kDamping])
        g = o.geometry()
        rec(f"object {i} geometry", [g.type(), g.getCurrentTransform()])
        rec(f"object {i} box", g.getBBTight(), MESH_TOL)
        rec(f"object {i} colour", world.appearance(o.getID()).getColor())
    for i in range(world.numRobots()):
        r = world.robot(i)
        rec(f"robot {i}", [r.getName(), r.getID(), r.numLinks(), r.numDrivers(), world.numRobotLinks(i)])
        rec(f"robot {i} config", r.getConfig())
        for j in range(r.numLinks()):
            link = world.robotLink(i, j)
            rec(f"robot {i} link {j}", [link.getName(), link.getID(), link.getTransform()])
    # editing: move an object, rename, remove a terrain (IDs shift)
    if world.numRigidObjects():
        o = world.rigidObject(0)
        o.setTransform(K.so3.rotation([0, 0, 1], 0.4), [0.5, -0.5, 1.0])
        o.setVelocity([0, 0, 1], [1, 0, 0])
        rec("moved object", [o.getTransform(), o.geometry().getCurrentTransform(), o.getVelocity()])
        rec("moved object box", o.geometry().getBBTight(), MESH_TOL)
    if world.numTerrains():
        world.remove(world.terrain(0))
        rec("after remove", [world.numTerrains(), world.numIDs()] +
            [world.robot(i).getID() for i in range(world.numRobots())])


# -- the math helpers ---------------------------------------------------------------------------
def math_helpers(K, rec, seed=7):
    so3, se3, vo = K.so3, K.se3, K.vectorops
    rng = random.Random(seed)
    rots = [so3.from_rpy([rng.uniform(-3, 3) for _ in range(3)]) for _ in range(6)]
    rots += [so3.rotation([0, 0, 1], math.pi), so3.rotation([1, 0, 0], math.pi - 1e-3),
             so3.identity(), so3.from_rpy([0.3, math.pi / 2, 0.2])]
    for i, R in enumerate(rots):
        rec(f"R{i} rpy", so3.rpy(R))
        rec(f"R{i} moment", so3.moment(R), 1e-8)
        rec(f"R{i} quaternion", so3.quaternion(R), 1e-8)
        rec(f"R{i} axis angle", so3.axis_angle(R), 1e-8)
        rec(f"R{i} angle", [so3.angle(R), so3.trace(R), so3.det(R), so3.is_rotation(R)])
        rec(f"R{i} matrix", [so3.matrix(R), so3.inv(R), so3.apply(R, [1, 2, 3]), so3.diag(R), so3.deskew(R)])
        R2 = rots[(i + 1) % len(rots)]
        rec(f"R{i} pair", [so3.mul(R, R2), so3.distance(R, R2), so3.error(R, R2),
                           so3.interpolate(R, R2, 0.3), so3.interpolator(R, R2)(0.6)], 1e-8)
        rec(f"R{i} from", [so3.from_quaternion(so3.quaternion(R)), so3.from_moment(so3.moment(R)),
                           so3.from_axis_angle(so3.axis_angle(R)), so3.from_rotation_vector([0.1, 0.2, 0.3]),
                           so3.from_matrix(so3.matrix(R)), so3.from_ndarray(so3.ndarray(R))], 1e-8)
        T1, T2 = (R, [i, 2.0, -1.0]), (R2, [0.5, -i, 3.0])
        rec(f"T{i}", [se3.mul(T1, T2), se3.inv(T1), se3.apply(T1, [1, 1, 1]),
                      se3.apply_rotation(T1, [1, 0, 0]), se3.distance(T1, T2), se3.error(T1, T2),
                      se3.interpolate(T1, T2, 0.25), se3.interpolator(T1, T2)(0.75),
                      se3.homogeneous(T1), se3.from_homogeneous(se3.homogeneous(T1)),
                      se3.ndarray(T1), se3.from_ndarray(se3.ndarray(T1)), se3.rotation(T1),
                      se3.translation(T1), se3.from_rotation(so3.matrix(R)),
                      se3.from_translation([1, 2, 3]), se3.identity()], 1e-8)
    for a, b in [([1, 0, 0], [0, 1, 0]), ([1, 2, 3], [-1, -2, -3]), ([0, 0, 2], [0, 0, 5]),
                 ([0.3, -0.2, 0.9], [0.1, 0.7, -0.4])]:
        rec(f"align {a} {b}", so3.align(a, b))
    for v in ([1, 0, 0], [-1, 0, 0], [0, 1, 0], [0.6, 0, 0.8]):
        rec(f"canonical {v}", so3.canonical(v))
    rec("cross_product", so3.cross_product([1, 2, 3]))
    a, b = [1.0, -2.0, 3.5], [0.5, 4.0, -1.0]
    rec("vectorops", [vo.add(a, b, a), vo.madd(a, b, 2.0), vo.sub(a, b), vo.sub(a, 1.0),
                      vo.mul(a, b), vo.mul(a, 3.0), vo.div(a, b), vo.div(a, 2.0), vo.maximum(a, b),
                      vo.minimum(a, 0.0), vo.dot(a, b), vo.normSquared(a), vo.norm(a), vo.norm_L1(a),
                      vo.norm_L2(a), vo.norm_Linf(a), vo.unit(a), vo.unit([1e-7, 0, 0]),
                      vo.distanceSquared(a, b), vo.distance(a, b), vo.cross(a, b),
                      vo.cross([1, 2], [3, 4]), vo.interpolate(a, b, 0.25)])
    random.seed(3)
    rec("sample", so3.sample(), 1e-12)


# -- editing, then saving -----------------------------------------------------------------------
def edit_world(K, robot_path, cube):
    """Edits through the API: robot structure and limits, a new terrain and a new rigid
    object made of transformed geometry."""
    so3 = K.so3
    w = K.WorldModel()
    w.loadElement(robot_path)
    r = w.robot(0)
    n = r.numLinks()
    r.link(1).setParentTransform(so3.rotation([0, 0, 1], 0.3), [1.0, 0.1, 0.2])
    r.link(n - 1).setAxis([0, 0, 1])
    r.setJointLimits([-1.0 - i for i in range(n)], [1.0 + i for i in range(n)])
    r.setVelocityLimits([4.0 + i for i in range(n)])
    r.setAccelerationLimits([5.0 + i for i in range(n)])
    r.setTorqueLimits([6.0 + i for i in range(n)])
    r.setConfig([0.1 * (i + 1) for i in range(n)])
    t = w.makeTerrain("floor")
    t.geometry().loadFile(cube)
    t.geometry().transform([2, 0, 0, 0, 3, 0, 0, 0, 0.1], [-1, -1.5, -0.1])
    t.geometry().translate([0.25, 0, 0])
    t.appearance().setColor(0.2, 0.6, 0.3, 1.0)
    o = w.makeRigidObject("box")
    o.geometry().loadFile(cube)
    o.geometry().scale(0.2, 0.3, 0.4)
    o.setTransform(so3.rotation([0, 0, 1], 0.7), [0.5, 0.5, 0.1])
    m = o.getMass()
    m.setMass(2.0)
    m.setCom([0.1, 0.15, 0.2])
    m.setInertia([0.01, 0.02, 0.03])
    o.setMass(m)
    o.appearance().setColor(1, 0, 0, 1)
    return w


def observe_world(w, rec):
    """What a Klamp't world holds (run on real klampt worlds). Poses are re-set first:
    Klamp't's loadElement leaves geometry current transforms at the identity until then."""
    for i in range(w.numRobots()):
        w.robot(i).setConfig(w.robot(i).getConfig())
    for i in range(w.numRigidObjects()):
        w.rigidObject(i).setTransform(*w.rigidObject(i).getTransform())
    rec("counts", [w.numRobots(), w.numRigidObjects(), w.numTerrains(), w.numIDs()])
    for i in range(w.numRobots()):
        r = w.robot(i)
        rec(f"robot {i}", [r.getName(), r.numLinks(), r.getConfig()])
        rec(f"robot {i} limits", [r.getJointLimits(), r.getVelocityLimits(),
                                  r.getAccelerationLimits(), r.getTorqueLimits()])
        for j in range(r.numLinks()):
            link = r.link(j)
            rec(f"robot {i} link {j}", [link.getName(), link.getParent(), link.getAxis(),
                                        link.isPrismatic(), link.getParentTransform(),
                                        link.getTransform()])
            m = link.getMass()
            rec(f"robot {i} link {j} mass", [m.getMass(), m.getCom(), m.getInertia()], MESH_TOL)
            if not link.geometry().empty():
                rec(f"robot {i} link {j} box", link.geometry().getBBTight(), MESH_TOL)
    for i in range(w.numTerrains()):
        t = w.terrain(i)
        rec(f"terrain {i}", [t.getName(), t.geometry().type(), t.appearance().getColor()])
        rec(f"terrain {i} box", t.geometry().getBBTight(), MESH_TOL)
    for i in range(w.numRigidObjects()):
        o = w.rigidObject(i)
        m = o.getMass()
        rec(f"object {i}", [o.getName(), o.getTransform(), m.getMass(), m.getCom(), m.getInertia(),
                            o.appearance().getColor()])
        p = o.getContactParameters()
        rec(f"object {i} contact", [p.kFriction, p.kRestitution, p.kStiffness, p.kDamping])
        rec(f"object {i} box", o.geometry().getBBTight(), MESH_TOL)


# -- building worlds element by element, standalone geometry ----------------------------------
def world_building(K, rec, corpus, tmpdir):
    """loadRobot / loadRigidObject / loadTerrain (element files and bare meshes), lookups by
    name, makeRobot, copy, standalone Geometry3D data access, Geometry3D.saveFile."""
    w = K.WorldModel()
    r = w.loadRobot(f"{corpus}/robots/cartpole.rob")
    o1 = w.loadRigidObject(f"{corpus}/objects/block.obj")
    o2 = w.loadRigidObject(f"{corpus}/objects/sphere.off")
    t1 = w.loadTerrain(f"{corpus}/terrains/plane.env")
    t2 = w.loadTerrain(f"{corpus}/objects/cube.off")
    rec("ids", [r.getID(), o1.getID(), o2.getID(), t1.getID(), t2.getID(), w.numIDs()])
    rec("names", [r.getName(), o1.getName(), o2.getName(), t1.getName(), t2.getName()])
    rec("by name", [w.robot(r.getName()).getID(), w.rigidObject(o2.getName()).getID(),
                    w.terrain(t1.getName()).getID()])
    for o in (o1, o2):
        m = o.getMass()
        rec(f"{o.getName()} mass", [m.getMass(), m.getCom(), m.getInertia()], MESH_TOL)
        rec(f"{o.getName()} transform", o.getTransform())
        p = o.getContactParameters()
        rec(f"{o.getName()} contact", [p.kFriction, p.kRestitution, p.kStiffness, p.kDamping])
        rec(f"{o.getName()} colour", o.appearance().getColor())
    for t in (t1, t2):
        rec(f"{t.getName()} terrain", [t.geometry().type(), t.appearance().getColor()])
        rec(f"{t.getName()} box", t.geometry().getBB(), MESH_TOL)
    t2.setFriction(0.9)
    link = r.link(1)
    rec("link robot", [link.robot().getName(), link.robot().numLinks()])
    made = w.makeRobot("empty")
    rec("made robot", [made.getName(), made.numLinks(), made.getID(), w.numIDs()])
    c = w.copy()
    c.robot(0).setConfig([0.5, 0.5])
    c.rigidObject(0).setTransform(K.so3.identity(), [9, 9, 9])
    rec("copy is independent", [w.robot(0).getConfig(), w.rigidObject(0).getTransform(),
                                c.robot(0).getConfig(), c.numIDs()])

    g = K.Geometry3D()
    rec("load", g.loadFile(f"{corpus}/objects/sphere.off"))
    rec("fresh box", g.getBB(), MESH_TOL)
    g.setCurrentTransform(K.so3.rotation([0, 0, 1], 0.4), [1, 2, 3])
    rec("current transform", g.getCurrentTransform())
    rec("posed box", g.getBB(), MESH_TOL)
    mesh = g.getTriangleMesh()
    rec("mesh sizes", [len(mesh.vertices), len(mesh.indices)])
    rec("mesh extent", [np.min(mesh.vertices, axis=0), np.max(mesh.vertices, axis=0)], MESH_TOL)
    g.scale(2.0, 1.0, 0.5)
    rec("element 7", g.getElement(7).getBB(), MESH_TOL)
    rec("save", g.saveFile(f"{tmpdir}/{K.__name__}_scaled.off"))
    h = K.Geometry3D()
    rec("reload", h.loadFile(f"{tmpdir}/{K.__name__}_scaled.off"))
    rec("reloaded box", h.getBB(), MESH_TOL)
    p = K.Geometry3D()
    rec("geom file", [p.loadFile(f"{corpus}/objects/sphere.geom"), p.type()])
    rec("geom box", p.getBB())


def mass_estimates(K, rec, corpus):
    """Mass.estimate on meshes (solid, surface, mixed) and a primitive file."""
    for name in ("cube.off", "sphere.off", "cylinder.off", "sphere.geom"):
        g = K.Geometry3D()
        g.loadFile(f"{corpus}/objects/{name}")
        g.transform([1, 0, 0, 0, 2, 0, 0, 0, 0.5], [0.1, 0.2, 0.3])
        for f in (0.0, 1.0, 0.3):
            m = K.Mass()
            m.estimate(g, 2.5, f)
            rec(f"{name} {f}", [m.getMass(), m.getCom(), m.getInertia()], MESH_TOL)
