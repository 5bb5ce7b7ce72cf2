"""Dynamics speed: roboio vs pinocchio vs klampt, side by side in one run.

    python benchmarks/bench_dynamics.py [--robots ur5.rob robotiq_3finger.rob atlas.rob]
                                        [--batch 10000] [--rounds 5]

Robots come from ../shared/corpus/klampt/robots; pinocchio reads roboio's URDF export of the
same robot (fixed base at the root, welded links merged into their parents: it has fewer
coordinates than roboio's one-per-link model, which is its advantage, not roboio's).

Single calls (Python overhead included, the best of several loops of 2,000 calls, timeit's
rule): ``robot.mass_matrix(q)`` vs ``pinocchio.crba(model, data, q)`` vs klampt's
``setConfig`` + ``getMassMatrix``; ``robot.inverse_dynamics(q, dq, ddq)`` vs
``pinocchio.rnea`` vs klampt's ``setConfig`` + ``setVelocity`` + ``torquesFromAccel``.

Batches of ``--batch`` configurations: ``mass_matrix_batch`` / ``inverse_dynamics_batch``
with 1 thread and with every core, vs a Python loop over pinocchio's ``crba`` / ``rnea`` and
over klampt's calls (klampt's loop is timed on a tenth of the batch and scaled).
``jacobian_batch`` of the last link vs the klampt loop (``setConfig`` + ``getJacobian``).

Each round runs every contender (each timing the best of 3 runs), interleaved, so that a
machine shared with others slows them alike; each ratio is taken within a round and the
median over rounds printed.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
ROBOTS = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus", "klampt", "robots"))

import roboio                                    # noqa: E402
from roboio.kinematics.threads import cores      # noqa: E402


def per_call(fn, calls):
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls


def best_call(fn, calls=2000, repeat=7):
    return min(per_call(fn, calls) for _ in range(repeat))


def timed(fn, repeat=3):
    """Best of ``repeat`` timings of fn() (a run that other processes interrupted says
    nothing about the code)."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(os.path.join(ROBOTS, name))


def pinocchio_model(robot, tmp):
    try:
        import pinocchio as pin
    except ImportError:
        return None
    path = os.path.join(tmp, robot.name + ".urdf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        roboio.save(robot, path)
    model = pin.buildModelFromUrdf(path)
    return pin, model, model.createData()


def klampt_robot(name):
    try:
        import klampt
    except ImportError:
        return None, None
    w = klampt.WorldModel()
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        w.loadRobot(os.path.join(ROBOTS, name))
    return w, w.robot(0)


def bench(name, N, rounds):
    robot = load(name)
    n = robot.num_links
    rng = np.random.default_rng(0)
    Q, dQ, ddQ = rng.uniform(-1, 1, (3, N, n))
    q, dq, ddq = Q[0], dQ[0], ddQ[0]
    tmp = tempfile.mkdtemp()
    pm = pinocchio_model(robot, tmp)
    world, kr = klampt_robot(name)
    rows = {}

    def add(key, value):
        rows.setdefault(key, []).append(value)

    if pm is not None:
        pin, model, data = pm
        qp = pin.neutral(model)
        vp = np.zeros(model.nv)
        ap = np.ones(model.nv) * 0.1
        Qp = np.tile(qp, (N, 1))
    klist = q.tolist()
    dklist = dq.tolist()
    ddklist = ddq.tolist()
    out_M = np.empty((N, n, n))
    out_t = np.empty((N, n))
    nk = max(1, N // 10)
    for _ in range(rounds):
        t_mm = best_call(lambda: robot.mass_matrix(q))
        t_id = best_call(lambda: robot.inverse_dynamics(q, dq, ddq))
        add("roboio mass_matrix (us)", t_mm * 1e6)
        add("roboio inverse_dynamics (us)", t_id * 1e6)
        if pm is not None:
            t_crba = best_call(lambda: pin.crba(model, data, qp))
            t_rnea = best_call(lambda: pin.rnea(model, data, qp, vp, ap))
            add("pinocchio crba (us)", t_crba * 1e6)
            add("pinocchio rnea (us)", t_rnea * 1e6)
            add("mass_matrix / crba (goal <= 1.5)", t_mm / t_crba)
            add("inverse_dynamics / rnea (goal <= 1.5)", t_id / t_rnea)
        if kr is not None:
            def k_mm():
                kr.setConfig(klist)
                kr.getMassMatrix()

            def k_id():
                kr.setConfig(klist)
                kr.setVelocity(dklist)
                kr.torquesFromAccel(ddklist)
            t_kmm = best_call(k_mm, 200, 3)
            t_kid = best_call(k_id, 200, 3)
            add("klampt getMassMatrix (us)", t_kmm * 1e6)
            add("klampt torquesFromAccel (us)", t_kid * 1e6)
            add("klampt getMassMatrix / roboio", t_kmm / t_mm)
        # batches
        b1 = timed(lambda: robot.mass_matrix_batch(Q, out=out_M, threads=1))
        bN = timed(lambda: robot.mass_matrix_batch(Q, out=out_M))
        i1 = timed(lambda: robot.inverse_dynamics_batch(Q, dQ, ddQ, out=out_t, threads=1))
        iN = timed(lambda: robot.inverse_dynamics_batch(Q, dQ, ddQ, out=out_t))
        add("mass_matrix_batch 1 thread (us/config)", b1 / N * 1e6)
        add(f"mass_matrix_batch {cores()} threads / 1 thread (goal >= 1.7)", b1 / bN)
        add(f"inverse_dynamics_batch {cores()} threads / 1 thread (goal >= 1.7)", i1 / iN)
        if pm is not None:
            pl = timed(lambda: [pin.crba(model, data, x) for x in Qp])
            pr = timed(lambda: [pin.rnea(model, data, x, vp, ap) for x in Qp])
            add("pinocchio crba loop / mass_matrix_batch (goal >= 3)", pl / bN)
            add("pinocchio rnea loop / inverse_dynamics_batch (goal >= 3)", pr / iN)
        if kr is not None:
            def kloop():
                for x in Q[:nk]:
                    kr.setConfig(x.tolist())
                    kr.getMassMatrix()

            def kiloop():
                for x, v, a in zip(Q[:nk], dQ[:nk], ddQ[:nk]):
                    kr.setConfig(x.tolist())
                    kr.setVelocity(v.tolist())
                    kr.torquesFromAccel(a.tolist())
            kl = timed(kloop) * N / nk
            ki = timed(kiloop) * N / nk
            add("klampt mass matrix loop / mass_matrix_batch (goal >= 10)", kl / bN)
            add("klampt torquesFromAccel loop / inverse_dynamics_batch (goal >= 10)", ki / iN)
            link = n - 1
            jb = timed(lambda: robot.jacobian_batch(Q, link))

            def kjac():
                lk = kr.link(link)
                for x in Q[:nk]:
                    kr.setConfig(x.tolist())
                    lk.getJacobian((0, 0, 0))
            kj = timed(kjac) * N / nk
            add("klampt getJacobian loop / jacobian_batch (goal >= 8 on atlas)", kj / jb)
    print(f"\n{name}: {n} links (pinocchio: nv = {pm[1].nv if pm else '-'}), batch {N}, "
          f"{rounds} rounds, {cores()} cores; medians")
    for key, vals in rows.items():
        print(f"  {key:68s} {statistics.median(vals):9.3f}")
    del world


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robots", nargs="+",
                    default=["ur5.rob", "robotiq_3finger.rob", "atlas.rob"])
    ap.add_argument("--batch", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    for name in args.robots:
        bench(name, args.batch, args.rounds)


if __name__ == "__main__":
    main()
