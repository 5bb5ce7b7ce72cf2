"""roboio.compat.klampt on worlds built in code: views edit the roboio model, Klamp't's
conventions (column-major rotations, (R, t), IDs), kinematics against hand-worked values,
roboio's verified FK and finite differences, geometry and appearance bookkeeping."""
import math

import numpy as np
import pytest

from roboio import Driver, Joint, Link, RigidObject, Robot, Terrain, TriangleMesh, World
from roboio.compat.klampt import (Appearance, GeometricPrimitive, Geometry3D, Mass,
                                  NotSupportedError, OpenGLNotAvailable, WorldModel, so3)
from roboio.compat.klampt import TriangleMesh as KTriangleMesh
from roboio.model import Primitive
from roboio.transforms import make_transform, rot_z, rpy_to_matrix


def planar3r():
    r = Robot("planar3R")
    for i in range(3):
        r.add_link(Link(f"L{i}", parent=i - 1, axis=(0, 1, 0),
                        parent_transform=make_transform(None, [0 if i == 0 else 1, 0, 0])))
    r.joints = [Joint("spin", [i]) for i in range(3)]
    r.drivers = [Driver(f"L{i}", "normal", [i]) for i in range(3)]
    return r


def random_robot(rng, n=7):
    r = Robot("random")
    for i in range(n):
        parent = -1 if i == 0 else int(rng.integers(-1, i))
        T = make_transform(rpy_to_matrix(rng.uniform(-3, 3, 3)), rng.uniform(-1, 1, 3))
        r.add_link(Link(f"l{i}", parent, "prismatic" if rng.random() < 0.3 else "revolute",
                        rng.normal(size=3), T))
    return r


def unit_cube():
    v = [[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)]
    f = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
         [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return TriangleMesh(v, f)


def test_manual_planar3r_example_hand_worked():
    w = World()
    w.add(planar3r())
    robot = WorldModel(w).robot(0)
    robot.setConfig([0, math.pi / 4, math.pi / 4])
    link = robot.link(2)
    s = math.sqrt(0.5)
    np.testing.assert_allclose(link.getWorldPosition([1, 0, 0]), [1 + s, 0, -1 - s], atol=1e-15)
    # d/dq_i of the point: rotation about world y at the joint origins (0,0,0), (1,0,0),
    # (1+s, 0, -s): v = y x (p - o)
    p = np.array([1 + s, 0, -1 - s])
    expected = np.stack([np.cross([0, 1, 0], p - o) for o in
                         ([0, 0, 0], [1, 0, 0], [1 + s, 0, -s])], axis=1)
    np.testing.assert_allclose(link.getPositionJacobian([1, 0, 0]), expected, atol=1e-15)
    assert robot.getConfig() == [0.0, math.pi / 4, math.pi / 4]
    assert isinstance(robot.getConfig(), list)


def test_transforms_and_jacobians_match_roboio_kinematics():
    rng = np.random.default_rng(3)
    r = random_robot(rng)
    w = World()
    w.add(r)
    robot = WorldModel(w).robot(0)
    for _ in range(3):
        q = rng.uniform(-2, 2, r.num_links)
        robot.setConfig(q)
        T = r.fk(q)
        for i in range(r.num_links):
            R, t = robot.link(i).getTransform()
            np.testing.assert_allclose(np.array(R).reshape(3, 3).T, T[i, :3, :3], atol=1e-14)
            np.testing.assert_allclose(t, T[i, :3, 3], atol=1e-14)
            p = rng.normal(size=3)
            J = robot.link(i).getJacobian(p)
            np.testing.assert_allclose(J, r.jacobian(i, p, q), atol=1e-13)
            np.testing.assert_allclose(robot.link(i).getPositionJacobian(p), J[3:], atol=0)
            np.testing.assert_allclose(robot.link(i).getOrientationJacobian(),
                                       r.jacobian(i, (0, 0, 0), q)[:3], atol=1e-13)


def test_position_jacobian_finite_difference():
    rng = np.random.default_rng(5)
    r = random_robot(rng)
    w = World()
    w.add(r)
    robot = WorldModel(w).robot(0)
    q = rng.uniform(-1, 1, r.num_links)
    p = [0.3, -0.2, 0.1]
    link = robot.link(r.num_links - 1)
    robot.setConfig(q)
    J = link.getPositionJacobian(p)
    h = 1e-6
    for k in range(r.num_links):
        dq = np.zeros(r.num_links)
        dq[k] = h
        robot.setConfig(q + dq)
        a = np.array(link.getWorldPosition(p))
        robot.setConfig(q - dq)
        b = np.array(link.getWorldPosition(p))
        np.testing.assert_allclose((a - b) / (2 * h), J[:, k], atol=1e-8)


def test_world_local_conversions_are_inverse():
    w = World()
    w.add(planar3r())
    robot = WorldModel(w).robot(0)
    robot.setConfig([0.3, -1.2, 2.0])
    link = robot.link(1)
    p = [0.4, -0.5, 2.5]
    np.testing.assert_allclose(link.getLocalPosition(link.getWorldPosition(p)), p, atol=1e-14)
    np.testing.assert_allclose(link.getLocalDirection(link.getWorldDirection(p)), p, atol=1e-14)
    R, t = link.getTransform()
    np.testing.assert_allclose(link.getWorldDirection(p), so3.apply(R, p), atol=1e-15)


def test_ids_follow_klampt_numbering():
    w = World()
    r1, r2 = planar3r(), planar3r()
    r2.name = "second"
    for e in (r1, Terrain("t0"), RigidObject("o0"), Terrain("t1"), r2):
        w.add(e)
    W = WorldModel(w)
    assert W.numIDs() == 2 + 1 + 4 + 4
    assert [W.terrain(i).getID() for i in range(2)] == [0, 1]
    assert W.rigidObject(0).getID() == 2
    assert W.robot(0).getID() == 3
    assert [W.robot(0).link(i).getID() for i in range(3)] == [4, 5, 6]
    assert W.robot("second").getID() == 7 and W.robot(1).link(2).getID() == 10
    assert [W.getName(i) for i in (0, 2, 3, 5, 7)] == ["t0", "o0", "planar3R", "planar3R[L1]", "second"]
    # a new terrain shifts every later ID, as in Klamp't
    assert W.makeTerrain("t2").getID() == 2
    assert W.rigidObject(0).getID() == 3 and W.robot(0).getID() == 4


def test_editing_through_views_edits_the_model():
    r = planar3r()
    w = World()
    w.add(r)
    robot = WorldModel(w).robot(0)
    link = robot.link("L1")
    R = so3.rotation([0, 0, 1], 0.5)
    link.setParentTransform(R, [1, 2, 3])
    np.testing.assert_allclose(r.links[1].parent_transform[:3, :3], rot_z(0.5), atol=1e-15)
    np.testing.assert_allclose(r.links[1].parent_transform[:3, 3], [1, 2, 3])
    # as in Klamp't, link transforms change at the next setConfig
    assert link.getTransform()[1] == [1.0, 0.0, 0.0]
    robot.setConfig(robot.getConfig())
    np.testing.assert_allclose(link.getTransform()[1], [1, 2, 3])
    link.setAxis([0, 0, 2])
    assert list(r.links[1].axis) == [0, 0, 2]
    robot.setJointLimits([-1, -2, -3], [1, 2, 3])
    assert list(r.qmin) == [-1, -2, -3] and list(r.qmax) == [1, 2, 3]
    assert robot.driver(1).getLimits() == [-2.0, 2.0]      # Klamp't resyncs driver limits
    robot.setVelocityLimits([4, 5, 6])
    assert list(r.vmax) == [4, 5, 6] and list(r.vmin) == [-4, -5, -6]
    m = Mass()
    m.setMass(2.5)
    m.setCom([0.1, 0.2, 0.3])
    m.setInertia([1, 2, 3])
    link.setMass(m)
    assert r.links[1].mass == 2.5 and list(r.links[1].com) == [0.1, 0.2, 0.3]
    np.testing.assert_array_equal(r.links[1].inertia, np.diag([1, 2, 3]))
    assert link.getMass().getInertia() == [1, 0, 0, 0, 2, 0, 0, 0, 3]
    link.setName("elbow")
    assert r.link_names == ["L0", "elbow", "L2"] and robot.link("elbow").getIndex() == 1
    link.setPrismatic(True)
    assert r.links[1].joint_type == "prismatic" and link.isPrismatic() and not link.isRevolute()


def test_set_transform_overrides_until_set_config():
    w = World()
    w.add(planar3r())
    robot = WorldModel(w).robot(0)
    robot.setConfig([0, 1, 0])
    link = robot.link(1)
    link.setTransform(so3.identity(), [9, 9, 9])
    assert link.getWorldPosition([1, 0, 0]) == [10.0, 9.0, 9.0]
    # the Jacobian uses the current link transforms (Klamp't's behaviour)
    np.testing.assert_allclose(link.getPositionJacobian([0, 0, 0])[:, 0], [9, 0, -9])
    assert link.geometry().getCurrentTransform()[1] == [9.0, 9.0, 9.0]
    robot.setConfig([0, 1, 0])
    assert link.getTransform()[1] == [1.0, 0.0, 0.0]


def test_drivers_affine():
    r = planar3r()
    r.drivers = [Driver("a", "normal", [0]), Driver("grip", "affine", [1, 2], [2.0, -1.0], [0.5, 0.0])]
    w = World()
    w.add(r)
    robot = WorldModel(w).robot(0)
    robot.setConfig([0.1, 0.2, 0.3])
    assert robot.numDrivers() == 2
    d = robot.driver("grip")
    assert d.getType() == "affine" and d.getAffectedLinks() == [1, 2]
    assert d.getAffineCoeffs() == ([2.0, -1.0], [0.5, 0.0])
    # value = mean over dofs of (q - offset) / scale
    assert d.getValue() == pytest.approx(((0.2 - 0.5) / 2 + 0.3 / -1) / 2)
    assert robot.configFromDrivers([7, 1]) == [7.0, 2.5, -1.0]
    d.setValue(2.0)
    assert robot.getConfig() == [0.1, 4.5, -2.0]
    robot.setVelocity([0, 0, 0])
    assert robot.velocityFromDrivers([1, 3]) == [1.0, 6.0, -3.0]
    assert robot.velocityToDrivers([1.0, 6.0, -3.0]) == [1.0, 3.0]


def test_interpolate_and_distance_spin_and_weld():
    r = planar3r()
    r.joints = [Joint("spin", [0]), Joint("weld", [1]), Joint("normal", [2])]
    w = World()
    w.add(r)
    robot = WorldModel(w).robot(0)
    # spin joints go the short way round and land in [0, 2 pi)
    q = robot.interpolate([0.1, 0, 0], [2 * math.pi - 0.1, 1, 4], 0.75)
    assert q == pytest.approx([2 * math.pi - 0.05, 0.75, 3.0])
    # the welded link does not count
    assert robot.distance([0.1, 0, 0], [2 * math.pi - 0.1, 5, 4]) == pytest.approx(math.hypot(0.2, 4))


def test_self_collision_pairs():
    r = planar3r()
    for link in r.links[:2]:
        link.geometry = unit_cube()
    r.self_collision_pairs = {(0, 2)}
    w = World()
    w.add(r)
    robot = WorldModel(w).robot(0)
    assert robot.selfCollisionEnabled(2, 0) and not robot.selfCollisionEnabled(0, 1)
    robot.enableSelfCollision(1, 0, True)
    robot.enableSelfCollision(0, 2, False)
    robot.enableSelfCollision(1, 2, True)        # link 2 has no geometry: not enabled
    assert r.self_collision_pairs == {(0, 1)}


def test_geometry_modifiers_compose_onto_the_model_transform():
    g = Geometry3D()
    g.setTriangleMesh(_kmesh(unit_cube()))
    g.transform([0.5, 0, 0, 0, 2, 0, 0, 0, 3], [1, 2, 3])      # column-major scaling
    g.translate([1, 0, 0])
    assert g.type() == "TriangleMesh" and g.numElements() == 12
    assert g.getBB() == ([2.0, 2.0, 3.0], [2.5, 4.0, 6.0])
    mesh = g._geom
    np.testing.assert_array_equal(mesh.vertices, unit_cube().vertices)   # data kept as given
    np.testing.assert_allclose(mesh.transform, [[0.5, 0, 0, 2], [0, 2, 0, 2], [0, 0, 3, 3], [0, 0, 0, 1]])
    g.scale(2)
    assert g.getBB() == ([4.0, 4.0, 6.0], [5.0, 8.0, 12.0])
    g.setCurrentTransform(so3.rotation([0, 0, 1], math.pi / 2), [0, 0, 1])
    bmin, bmax = g.getBBTight()
    np.testing.assert_allclose(bmin, [-8, 4, 7], atol=1e-12)
    np.testing.assert_allclose(bmax, [-4, 5, 13], atol=1e-12)
    tm = g.getTriangleMesh()
    np.testing.assert_allclose(tm.vertices.max(axis=0), [5, 8, 12])
    assert tm.indices.dtype == np.int32


def _kmesh(m):
    k = KTriangleMesh()
    k.setVertices(m.vertices)
    k.setIndices(m.faces)
    return k


def test_group_elements_and_copies():
    a, b = Geometry3D(), Geometry3D()
    a.setTriangleMesh(_kmesh(unit_cube()))
    b.set(a)
    b.translate([5, 0, 0])
    grp = Geometry3D()
    grp.setGroup()
    grp.setElement(0, a)
    grp.setElement(1, b)
    with pytest.raises(RuntimeError):
        grp.setElement(3, a)
    assert grp.numElements() == 2 and grp.getBB() == ([0.0, 0.0, 0.0], [6.0, 1.0, 1.0])
    grp.translate([0, 0, 1])
    e = grp.getElement(1)
    assert e.isStandalone() and e.getBB() == ([5.0, 0.0, 1.0], [6.0, 1.0, 2.0])
    e.translate([100, 0, 0])                      # a copy: the group is unchanged
    assert grp.getBB() == ([0.0, 0.0, 1.0], [6.0, 1.0, 2.0])
    # adding after a group transform keeps the new element in local coordinates
    grp.setElement(2, a)
    assert grp.getBB() == ([0.0, 0.0, 0.0], [6.0, 1.0, 2.0])
    prim = a.getElement(3)
    assert prim.type() == "GeometricPrimitive"
    assert prim.getGeometricPrimitive().type == "triangle"


def test_primitive_bounds_are_exact_under_rotation():
    p = GeometricPrimitive()
    p.setSphere([1, 0, 0], 0.5)
    g = Geometry3D(p)
    g.setCurrentTransform(so3.rotation([0, 0, 1], 0.7), [0, 0, 0])
    c = [math.cos(0.7), math.sin(0.7), 0]
    np.testing.assert_allclose(g.getBBTight()[0], np.subtract(c, 0.5), atol=1e-15)
    np.testing.assert_allclose(g.getBBTight()[1], np.add(c, 0.5), atol=1e-15)
    # getBB: the box around the rotated corners of the data's box [0.5, 1.5] x [-.5, .5]
    corners = [[x, y, 0] for x in (0.5, 1.5) for y in (-0.5, 0.5)]
    rotated = np.array(corners) @ rot_z(0.7).T
    np.testing.assert_allclose(g.getBB()[0][:2], rotated.min(axis=0)[:2], atol=1e-15)
    np.testing.assert_allclose(g.getBB()[1][:2], rotated.max(axis=0)[:2], atol=1e-15)
    g.scale(2)
    assert g.getGeometricPrimitive().properties.tolist() == [2, 0, 0, 1]


def test_element_geometry_is_a_reference():
    w = World()
    obj = w.add(RigidObject("box", unit_cube(), make_transform(None, [0, 0, 5])))
    W = WorldModel(w)
    o = W.rigidObject("box")
    g = o.geometry()
    assert not g.isStandalone()
    assert g.getCurrentTransform()[1] == [0.0, 0.0, 5.0]
    assert g.getBB() == ([0.0, 0.0, 5.0], [1.0, 1.0, 6.0])
    g.scale(2)
    np.testing.assert_array_equal(obj.geometry.transform, np.diag([2, 2, 2, 1.0]))
    o.setTransform(so3.identity(), [1, 1, 1])
    assert W.geometry(0).getBB() == ([1.0, 1.0, 1.0], [3.0, 3.0, 3.0])


def test_make_terrain_and_set_geometry():
    W = WorldModel()
    t = W.makeTerrain("shelf")
    assert W.numTerrains() == 1 and t.getName() == "shelf" and t.geometry().type() == ""
    assert t.geometry().getBB() == ([math.inf] * 3, [-math.inf] * 3)
    src = Geometry3D()
    src.setTriangleMesh(_kmesh(unit_cube()))
    t.geometry().set(src)
    src.translate([3, 0, 0])                      # set() copied the data
    assert W.model.terrains[0].geometry is not src._geom
    assert t.geometry().getBB() == ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
    t.appearance().setColor(0.2, 0.6, 0.3, 1.0)
    assert W.model.terrains[0].appearance.color == (0.2, 0.6, 0.3, 1.0)
    assert t.appearance().getColor() == [float(np.float32(v)) for v in (0.2, 0.6, 0.3, 1.0)]
    o = W.makeRigidObject("thing")
    assert o.getID() == 1 and o.getMass().getMass() == 1.0
    assert o.getContactParameters().kRestitution == 0.0


def test_appearance_features():
    a = Appearance()
    assert a.getColor() == [0.5, 0.5, 0.5, 1.0] and a.isStandalone()
    a.setColor(1, 0, 0)
    assert a.getColor(Appearance.EDGES) == [1.0, 0.0, 0.0, 1.0]
    a.setColor(Appearance.EMISSIVE, 0, 1, 0, 0.5)
    assert a.getColor(Appearance.EMISSIVE) == [0.0, 1.0, 0.0, 0.5]
    assert a.getColor() == [1.0, 0.0, 0.0, 1.0]
    b = a.clone()
    b.setColor(0, 0, 1)
    assert a.getColor() == [1.0, 0.0, 0.0, 1.0]


def test_remove_add_copy():
    w = World()
    w.add(planar3r())
    W = WorldModel(w)
    t = W.makeTerrain("floor")
    r2 = W.add("copy", W.robot(0))
    assert W.numRobots() == 2 and r2.getName() == "copy" and r2.model is not w.robots[0]
    W.remove(t)
    assert W.numTerrains() == 0 and W.robot(0).getID() == 0
    C = W.copy()
    C.robot(0).setConfig([1, 1, 1])
    assert W.robot(0).getConfig() == [0.0, 0.0, 0.0]


def test_drawing_and_unsupported_calls_say_why():
    W = WorldModel()
    with pytest.raises(OpenGLNotAvailable, match="roboio convert"):
        W.drawGL()
    with pytest.raises(NotImplementedError):
        Appearance().drawGL()
    with pytest.raises(NotSupportedError, match="derivatives of the mass matrix"):
        W.makeRobot("r").getMassMatrixDeriv(0)
    with pytest.raises(NotSupportedError, match="proximity"):
        Geometry3D().contacts(Geometry3D(), 0.0, 0.0)


def test_empty_geometry_element_count_raises_like_klampt():
    with pytest.raises(RuntimeError, match="empty"):
        Geometry3D().numElements()


def test_so3_against_roboio_transforms():
    rng = np.random.default_rng(1)
    for _ in range(20):
        rpy = rng.uniform(-1.5, 1.5, 3)
        M = rpy_to_matrix(rpy)
        R = so3.from_rpy(rpy)
        np.testing.assert_allclose(so3.matrix(R), M, atol=1e-14)
        assert R == so3.from_ndarray(M) or np.allclose(R, so3.from_ndarray(M), atol=1e-14)
        np.testing.assert_allclose(so3.from_moment(so3.moment(R)), R, atol=1e-12)
        np.testing.assert_allclose(so3.from_quaternion(so3.quaternion(R)), R, atol=1e-12)
        r, p, y = so3.rpy(R)
        np.testing.assert_allclose(so3.from_rpy((r, p, y)), R, atol=1e-12)
        assert 0 <= r < 2 * math.pi and 0 <= y < 2 * math.pi


def test_mass_value():
    m = Mass()
    assert (m.getMass(), m.getCom(), m.getInertia()) == (1.0, [0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError):
        m.setInertia([1, 2])


def test_primitive_model_round_trip():
    p = GeometricPrimitive()
    p.setBox([1, 2, 3], so3.rotation([0, 0, 1], math.pi / 2), [4, 5, 6])
    prim = p._model()
    assert isinstance(prim, Primitive) and prim.primitive == "Box"
    np.testing.assert_allclose(prim.params["xaxis"], [0, 1, 0], atol=1e-15)
    back = GeometricPrimitive._from_model(prim)
    np.testing.assert_allclose(back.properties, p.properties, atol=1e-15)
    assert GeometricPrimitive().loadString("Sphere 1 2 3 0.5")


def test_files_load_save_and_reload(tmp_path):
    """Loading the shipped samples through the compat API, element loadFile, saving and
    reading back with roboio (the Klamp't read-back is in tests/reference)."""
    import os
    import warnings
    import roboio
    samples = os.path.join(os.path.dirname(roboio.__file__), "data", "samples")
    W = WorldModel(os.path.join(samples, "world.xml"))
    assert (W.numRobots(), W.numRigidObjects(), W.numTerrains()) == (1, 1, 1)
    arm = W.robot("arm")
    assert arm.getConfig() == [0, 0.3, -0.6, 0.3, 0.01, 0.01]
    # the world's rotateZ is on the root link; FK of the stored config gives the transforms
    T = W.model.robots[0].fk()
    np.testing.assert_allclose(arm.link(3).getTransform()[1], T[3, :3, 3], atol=1e-15)
    assert W.rigidObject("crate").getContactParameters().kFriction == 0.6
    assert W.loadElement(os.path.join(samples, "crate.obj")) == 2
    assert W.rigidObject(1).getName() == "crate" and W.robot(0).getID() == 3
    with pytest.warns(roboio.RoboioWarning, match="cannot load"):
        assert W.loadElement(str(tmp_path / "missing.rob")) == -1
    with pytest.warns(roboio.RoboioWarning):
        bad = W.loadRobot(str(tmp_path / "missing.rob"))
    assert bad.getID() == -1 and bad.numLinks() == 0 and W.numRobots() == 1
    # replacing an element's content keeps the views valid
    t = W.terrain("floor")
    assert t.loadFile(os.path.join(samples, "floor.env")) and t.getName() == "floor"
    assert t.geometry().type() == "TriangleMesh" and W.model.terrains[0].kFriction == 0.8
    r = WorldModel().makeRobot("blank")
    assert r.loadFile(os.path.join(samples, "planar_arm.rob"))
    assert r.numLinks() == 6 and r.link(5).getTransform() is not None
    # save and read back with roboio
    arm.link(1).setAxis([0, 0, 1])
    arm.setJointLimits([-1] * 6, [1] * 6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert W.saveFile(str(tmp_path / "out.xml"))
    back = roboio.load(str(tmp_path / "out.xml"))
    assert list(back.robots[0].links[1].axis) == [0, 0, 1]
    assert list(back.robots[0].qmax) == [1] * 6
    assert [o.name for o in back.rigid_objects] == ["crate", "crate"]
    with pytest.raises(NotSupportedError):
        W.saveFile(str(tmp_path / "out2.xml"), str(tmp_path / "elsewhere"))
