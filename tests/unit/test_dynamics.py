"""Dynamics of the model (robot.mass_matrix & co.): hand-worked examples, an independent
computation from Jacobians and the Lagrangian, both backends, batches and threads, driver
space, forward dynamics with welded links held, cache invalidation and argument errors."""
import os

import numpy as np
import pytest

import roboio
from roboio import Joint, Link, Robot
from roboio.kinematics import available_backends, use_backend
from roboio.kinematics.dynamics import run_rows
from roboio.transforms import make_transform, rpy_to_matrix

from conftest import SAMPLES
from kinematics_helpers import random_robot

BACKENDS = available_backends()


def _with_inertias(r, seed):
    rng = np.random.default_rng(seed)
    for l in r.links:
        l.mass = float(rng.uniform(0.0, 3.0)) if rng.random() > 0.2 else 0.0
        l.com = rng.normal(size=3) * 0.2
        A = rng.normal(size=(3, 3))
        l.inertia = A @ A.T * 0.02 if l.mass else np.zeros((3, 3))
    return r


def _jacobian_mass_matrix(r, q):
    """Sum over links of m Jv^T Jv + Jw^T (R I R^T) Jw, with Jacobians of each COM (roboio's
    kinematics, tested against Klamp't elsewhere): not the composite-body recursion."""
    T = r.fk(q)
    M = np.zeros((r.num_links, r.num_links))
    for i, l in enumerate(r.links):
        J = r.jacobian(i, l.com, q)
        R = T[i, :3, :3]
        M += l.mass * J[3:].T @ J[3:] + J[:3].T @ (R @ l.inertia @ R.T) @ J[:3]
    return M


def _jacobian_gravity(r, q, g):
    return -sum(l.mass * r.jacobian(i, l.com, q)[3:].T @ g for i, l in enumerate(r.links))


def _lagrangian_coriolis(r, q, dq, h=1e-6):
    """C(q, dq) dq = dM/dt dq - 1/2 d(dq^T M dq)/dq, by central differences of M."""
    n = r.num_links
    dM = np.zeros((n, n, n))
    for k in range(n):
        e = np.zeros(n)
        e[k] = h
        dM[k] = (r.mass_matrix(q + e) - r.mass_matrix(q - e)) / (2 * h)
    Mdot = np.einsum("kij,k->ij", dM, dq)
    return Mdot @ dq - 0.5 * np.einsum("kij,i,j->k", dM, dq, dq)


def _rel(a, b):
    return float(np.abs(np.asarray(a) - np.asarray(b)).max() / max(np.abs(b).max(), 1e-300))


# -- hand-worked examples --------------------------------------------------------------------

def test_pendulum_by_hand():
    """A rod of mass m, COM at distance l along x, turning about y: M = Iyy + m l^2 and
    G = -m g l cos(q) (positive q lowers the COM, gravity helps); an axis of length 2
    doubles the joint rate (M x4, G x2)."""
    m, l, Iyy = 2.0, 0.5, 0.03
    r = Robot("pendulum")
    r.add_link(Link("rod", -1, "revolute", (0, 1, 0), mass=m, com=(l, 0, 0),
                    inertia=np.diag([0.01, Iyy, 0.02])))
    q = 0.3
    # about +y, x tilts towards -z: the COM is at (l cos q, 0, -l sin q)
    assert np.isclose(r.mass_matrix([q])[0, 0], Iyy + m * l * l, rtol=1e-15)
    assert np.isclose(r.gravity_torques([q])[0], -m * 9.81 * l * np.cos(q), rtol=1e-14)
    assert np.allclose(r.com([q]), [l * np.cos(q), 0, -l * np.sin(q)], atol=1e-15)
    # tau = M ddq + G (no Coriolis term for one joint)
    assert np.isclose(r.inverse_dynamics([q], [5.0], [2.0])[0],
                      (Iyy + m * l * l) * 2.0 - m * 9.81 * l * np.cos(q), rtol=1e-14)
    r.links[0].axis = (0, 2, 0)
    assert np.isclose(r.mass_matrix([q / 2])[0, 0], 4 * (Iyy + m * l * l), rtol=1e-15)
    assert np.isclose(r.gravity_torques([q / 2])[0], -2 * m * 9.81 * l * np.cos(q), rtol=1e-14)


def test_prismatic_cart_by_hand():
    """A cart sliding along x (axis length 0.5) carrying a pendulum about y."""
    r = Robot("cart")
    r.add_link(Link("cart", -1, "prismatic", (0.5, 0, 0), mass=3.0, inertia=np.zeros((3, 3))))
    r.add_link(Link("pole", 0, "revolute", (0, 1, 0), mass=1.0, com=(0, 0, 1.0),
                    inertia=np.zeros((3, 3))))
    q = np.array([0.2, 0.4])
    M = r.mass_matrix(q)
    # x_pole = 0.5 q0 + sin(q1), z = cos(q1): M = [[0.25 (3+1), 0.5 cos q1], [., 1]]
    assert np.allclose(M, [[0.25 * 4, 0.5 * np.cos(0.4)], [0.5 * np.cos(0.4), 1.0]],
                       rtol=0, atol=1e-15)
    assert np.allclose(r.gravity_torques(q), [0.0, -9.81 * np.sin(0.4)], atol=1e-14)
    dq = np.array([0.0, 2.0])
    # the pole's centripetal pull on the cart: -0.5 sin(q1) dq1^2
    assert np.allclose(r.coriolis_torques(q, dq), [-0.5 * np.sin(0.4) * 4.0, 0.0], atol=1e-14)


# -- an independent computation on random trees ------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", range(6))
def test_random_trees_against_jacobians_and_lagrangian(backend, seed):
    r = _with_inertias(random_robot(seed, n=8), seed)
    rng = np.random.default_rng(seed)
    q, dq, ddq = rng.uniform(-2, 2, (3, r.num_links))
    g = rng.normal(size=3) * 5
    with use_backend(backend):
        M = r.mass_matrix(q)
        assert _rel(M, _jacobian_mass_matrix(r, q)) < 1e-12
        assert np.array_equal(M, M.T)
        assert _rel(r.gravity_torques(q, gravity=g), _jacobian_gravity(r, q, g)) < 1e-12
        c = r.coriolis_torques(q, dq)
        assert _rel(c, _lagrangian_coriolis(r, q, dq)) < 1e-6
        tau = r.inverse_dynamics(q, dq, ddq, gravity=g)
        assert _rel(tau, M @ ddq + c + r.gravity_torques(q, gravity=g)) < 1e-12
        # centre of mass and its Jacobian (finite differences)
        m = np.array([l.mass for l in r.links])
        T = r.fk(q)
        x = np.einsum("nij,nj->ni", T[:, :3, :3], [l.com for l in r.links]) + T[:, :3, 3]
        assert np.allclose(r.com(q), m @ x / m.sum(), rtol=0, atol=1e-13)
        h = 1e-6
        Jfd = np.column_stack([(r.com(q + h * e) - r.com(q - h * e)) / (2 * h)
                               for e in np.eye(r.num_links)])
        assert np.allclose(r.com_jacobian(q), Jfd, atol=1e-7)
        assert r.total_mass == pytest.approx(m.sum(), rel=1e-15)


@pytest.mark.skipif("compiled" not in BACKENDS, reason="compiled kernel not built")
@pytest.mark.parametrize("seed", range(8))
def test_backends_agree(seed):
    r = _with_inertias(random_robot(seed, n=14), seed + 100)
    rng = np.random.default_rng(seed)
    Q, dQ, ddQ = rng.uniform(-3, 3, (3, 5, r.num_links))
    g = rng.normal(size=3)
    out = {}
    for b in ("numpy", "compiled"):
        with use_backend(b):
            out[b] = (r.mass_matrix(Q[0]), r.inverse_dynamics(Q[0], dQ[0], ddQ[0], g), r.com(Q[0]),
                      r.com_jacobian(Q[0]), r.mass_matrix_batch(Q, threads=1),
                      r.inverse_dynamics_batch(Q, dQ, ddQ, g, threads=2))
    for a, b in zip(out["numpy"], out["compiled"]):
        assert np.abs(a - b).max() <= 1e-12 * max(1.0, np.abs(a).max())


# -- batches -----------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_batches_equal_single_calls_with_any_threads_and_layout(backend):
    r = _with_inertias(random_robot(3, n=10), 3)
    rng = np.random.default_rng(0)
    N = 300
    Q = rng.uniform(-2, 2, (N, r.num_links))
    dQ, ddQ = rng.uniform(-2, 2, (2, N, r.num_links))
    # the compiled kernel computes a batch row exactly as a single call; numpy's vectorised
    # chunks may round differently in the last bits
    same = np.array_equal if backend == "compiled" else \
        (lambda a, b: np.allclose(a, b, rtol=0, atol=1e-12 * max(1.0, np.abs(b).max())))
    with use_backend(backend):
        single_M = np.array([r.mass_matrix(q) for q in Q])
        single_t = np.array([r.inverse_dynamics(q, v, a) for q, v, a in zip(Q, dQ, ddQ)])
        for threads in (1, 2, 3):
            assert same(r.mass_matrix_batch(Q, threads=threads), single_M)
            assert same(r.inverse_dynamics_batch(Q, dQ, ddQ, threads=threads), single_t)
        out = np.empty((N, r.num_links, r.num_links))
        assert r.mass_matrix_batch(np.asfortranarray(Q), out=out) is out
        assert same(out, single_M)
        assert same(r.mass_matrix_batch(Q.astype(np.float32)),
                    np.array([r.mass_matrix(q) for q in Q.astype(np.float32)]))
        assert same(r.inverse_dynamics_batch(Q[::2], dQ[::2], ddQ[::2]), single_t[::2])
        assert r.mass_matrix_batch(Q[:0]).shape == (0, r.num_links, r.num_links)


def test_batch_threads_run_at_once():
    """Large batches are split over the threads asked for (each part on its own thread)."""
    import threading
    seen = set()

    def work(s, e):
        seen.add(threading.get_ident())
    run_rows(work, 100_000, threads=2, cost_per_row=1000)
    assert len(seen) == 2
    seen.clear()
    run_rows(work, 10, threads=4, cost_per_row=1)          # too small to be worth threads
    assert len(seen) == 1
    with pytest.raises(ValueError, match="threads"):
        run_rows(work, 10, threads=0)


def test_limited_threads_bound_the_batches_that_name_none():
    """Within ``limited(1)`` (a batch task: each Dask worker thread keeps to one core) a batch
    without ``threads`` stays on the calling thread; one that names its threads still gets
    them; the bound ends with the block."""
    import threading
    from roboio.kinematics.threads import cores, limited
    seen = set()

    def work(s, e):
        seen.add(threading.get_ident())
    with limited(1):
        run_rows(work, 100_000, cost_per_row=1000)
        assert seen == {threading.get_ident()}
        seen.clear()
        run_rows(work, 100_000, threads=2, cost_per_row=1000)
        assert len(seen) == 2
    seen.clear()
    run_rows(work, 100_000, cost_per_row=1000)
    assert len(seen) == min(cores(), 256)


# -- conventions: welds, drivers, invalidation, errors -----------------------------------------

def _arm():
    return roboio.load(os.path.join(SAMPLES, "planar_arm.rob"))


def test_driver_space_is_the_jacobian_transform():
    r = _arm()
    js = r.joint_space
    D = js.jacobian()
    assert D.shape == (r.num_links, len(js))
    q = r.config_from_joints([0.3, -0.5, 0.7, 0.2, 0.01])
    M = r.mass_matrix(q)
    assert np.allclose(r.mass_matrix(q, space="drivers"), D.T @ M @ D, rtol=0, atol=1e-15)
    du, ddu = np.array([0.1, 0.2, -0.3, 0.4, 0.05]), np.array([1.0, -1, 0.5, 2, 0.1])
    tau_u = r.inverse_dynamics(q, du, ddu, space="drivers")
    assert np.allclose(tau_u, D.T @ r.inverse_dynamics(q, D @ du, D @ ddu), atol=1e-13)
    # the gripper's affine driver moves both fingers: its torque is the sum of theirs
    G = r.gravity_torques(q)
    assert np.isclose(r.gravity_torques(q, space="drivers")[-1], G[4] + G[5], atol=1e-15)
    # forward dynamics in driver space undoes inverse dynamics there
    assert np.allclose(r.forward_dynamics(q, du, tau_u, space="drivers"), ddu, atol=1e-9)
    assert r.com_jacobian(q, space="drivers").shape == (3, len(js))
    with pytest.raises(ValueError, match="space"):
        r.mass_matrix(q, space="joints")


def test_forward_dynamics_holds_welded_links():
    r = _with_inertias(random_robot(5, n=7, floating=False, mount=False), 5)
    for l in r.links:
        l.mass, l.inertia = max(l.mass, 0.5), np.eye(3) * 0.01     # every link moves mass
    r.joints = [Joint("normal", [i]) for i in range(r.num_links)]
    r.joints[3] = Joint("weld", [3])
    rng = np.random.default_rng(1)
    q, dq, ddq = rng.uniform(-1, 1, (3, r.num_links))
    ddq[3] = 0.0
    tau = r.inverse_dynamics(q, dq, ddq)
    tau_weld = tau.copy()
    tau_weld[3] = 123.0                      # a welded link's torque is ignored
    assert np.allclose(r.forward_dynamics(q, dq, tau_weld), ddq, atol=1e-10)
    r.joints[3] = Joint("normal", [3])       # not welded: it moves as M^-1 says
    out = r.forward_dynamics(q, dq, tau_weld)
    assert abs(out[3]) > 1.0


def test_forward_dynamics_names_a_massless_moving_link():
    r = Robot("r")
    r.add_link(Link("a", -1, "revolute", (0, 0, 1), mass=1.0, com=(1, 0, 0)))
    r.add_link(Link("ghost", 0, "revolute", (0, 0, 1), mass=0.0, inertia=np.zeros((3, 3))))
    with pytest.raises(ValueError, match="'ghost'"):
        r.forward_dynamics([0, 0], [0, 0], [1, 1])


def test_inertial_edits_invalidate_the_compiled_dynamics():
    r = _arm()
    q = r.config
    M0 = r.mass_matrix(q)
    r.links[2].mass = 2.0
    M1 = r.mass_matrix(q)
    assert not np.allclose(M0, M1)
    r.links[2].com = (0.3, 0, 0)
    assert not np.allclose(r.mass_matrix(q), M1)
    r.links[2].inertia = np.eye(3)
    M2 = r.mass_matrix(q)
    r.links[1].parent_transform = make_transform(rpy_to_matrix([0.1, 0, 0]), [0, 0, 0.2])
    assert not np.allclose(r.mass_matrix(q), M2)
    assert r.total_mass == pytest.approx(2 + 1.5 + 2.0 + 0.5 + 0.1)


def test_non_symmetric_inertia_uses_its_symmetric_part():
    r = Robot("r")
    I = np.array([[1.0, 0.2, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    r.add_link(Link("a", -1, "revolute", (1, 1, 0), inertia=I))
    s = Robot("s")
    s.add_link(Link("a", -1, "revolute", (1, 1, 0), inertia=(I + I.T) / 2))
    q, dq = [0.3], [1.5]
    assert np.array_equal(r.mass_matrix(q), s.mass_matrix(q))
    assert np.array_equal(r.inverse_dynamics(q, dq, [0.2]), s.inverse_dynamics(q, dq, [0.2]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_arguments_are_value_errors(backend):
    r = _arm()
    n = r.num_links
    with use_backend(backend):
        with pytest.raises(ValueError, match="configuration"):
            r.mass_matrix([0.0] * (n + 1))
        with pytest.raises(ValueError, match="velocity"):
            r.inverse_dynamics(np.zeros(n), np.zeros(n - 1), np.zeros(n))
        with pytest.raises(ValueError, match="acceleration"):
            r.inverse_dynamics(np.zeros(n), np.zeros(n), ["x"] * n)
        with pytest.raises(ValueError, match="gravity"):
            r.inverse_dynamics(np.zeros(n), np.zeros(n), np.zeros(n), gravity=(0, 0))
        with pytest.raises(ValueError, match="shape"):
            r.mass_matrix_batch(np.zeros((4, n)), out=np.zeros((4, n, n + 1)))
        with pytest.raises(ValueError, match="rows"):
            r.inverse_dynamics_batch(np.zeros((4, n)), np.zeros((3, n)), np.zeros((4, n)))
        with pytest.raises(ValueError, match="threads"):
            r.mass_matrix_batch(np.zeros((4, n)), threads=0)


def test_massless_robot_has_its_com_at_the_origin():
    r = Robot("r")
    r.add_link(Link("a", -1, "revolute", (0, 0, 1), mass=0.0, inertia=np.zeros((3, 3))))
    assert np.array_equal(r.com([0.5]), np.zeros(3))
    assert np.array_equal(r.com_jacobian([0.5]), np.zeros((3, 1)))
    assert np.array_equal(r.mass_matrix([0.5]), np.zeros((1, 1)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", range(4))
def test_articulated_bodies_undo_inverse_dynamics_with_held_links(backend, seed):
    """forward_dynamics (articulated bodies) against the mass-matrix solve over the moving
    links, with random links held."""
    r = _with_inertias(random_robot(seed, n=9), seed + 7)
    for l in r.links:
        l.mass, l.inertia = max(l.mass, 0.3), l.inertia + np.eye(3) * 0.01
    rng = np.random.default_rng(seed)
    held = rng.random(r.num_links) < 0.3
    held |= ~np.array([l.axis.any() for l in r.links])   # a zero axis cannot move
    q, dq, ddq = rng.uniform(-2, 2, (3, r.num_links))
    dq[held] = ddq[held] = 0.0
    g = rng.normal(size=3)
    with use_backend(backend):
        tau = r.inverse_dynamics(q, dq, ddq, gravity=g)
        tau[held] = 1e3                                    # a held link's torque is unused
        out = r.dynamics.forward_dynamics(q, dq, tau, g, held)
        assert np.allclose(out, ddq, rtol=0, atol=1e-9 * max(1.0, np.abs(ddq).max()))
        free = ~held
        M = r.mass_matrix(q)[np.ix_(free, free)]
        h = r.inverse_dynamics(q, dq, np.zeros(r.num_links), gravity=g)[free]
        assert np.allclose(out[free], np.linalg.solve(M, tau[free] - h), atol=1e-9)


def _child_batch(conn):
    r = _with_inertias(random_robot(2, n=10), 2)
    Q = np.random.default_rng(0).uniform(-1, 1, (20_000, r.num_links))
    conn.send(float(r.mass_matrix_batch(Q, threads=2).sum()))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_batch_threads_after_a_fork():
    """A forked child (multiprocessing, Dask workers) makes its own pool: the parent's has no
    threads there."""
    import multiprocessing as mp
    r = _with_inertias(random_robot(2, n=10), 2)
    Q = np.random.default_rng(0).uniform(-1, 1, (20_000, r.num_links))
    expect = float(r.mass_matrix_batch(Q, threads=2).sum())      # the parent's pool exists
    ctx = mp.get_context("fork")
    a, b = ctx.Pipe()
    p = ctx.Process(target=_child_batch, args=(b,))
    p.start()
    assert a.poll(60), "the child's batch did not finish"
    assert a.recv() == expect
    p.join(10)


@pytest.mark.skipif("compiled" not in BACKENDS, reason="compiled kernel not built")
@pytest.mark.parametrize("offset", [0, 1])
def test_large_batches_stream_their_output(offset):
    """Outputs over 16 MiB are assembled in cache and streamed out (rows of an odd-sized
    matrix start on either alignment): the same matrices as single calls."""
    r = _with_inertias(random_robot(4, n=7, floating=True, mount=False), 4)
    n = r.num_links
    assert (n * n) % 2 == 1
    N = 16 * 2**20 // (8 * n * n) + 50
    Q = np.random.default_rng(1).uniform(-2, 2, (N, n))
    buf = np.empty(N * n * n + offset)
    out = buf[offset:].reshape(N, n, n)                  # 8-byte aligned when offset is 1
    with use_backend("compiled"):
        r.mass_matrix_batch(Q, out=out, threads=1)
        for k in list(range(0, N, 997)) + [N - 1]:
            assert np.array_equal(out[k], r.mass_matrix(Q[k]))
