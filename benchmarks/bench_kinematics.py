"""Forward kinematics and Jacobian speed: roboio vs klampt vs pinocchio, in one run.

    python benchmarks/bench_kinematics.py [--robots ur5.rob pr2.rob ...] [--batch 1000]

Robots are read from ../shared/corpus/klampt/robots. klampt loads the .rob itself; for
pinocchio, roboio writes a URDF of the robot and pinocchio builds its model from it (fixed
joints are kept as fixed frames). Every implementation evaluates the same random
configurations; the script first checks that all three agree on the last link's pose.
Times are best-of-N per call.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

import roboio
from roboio.convert import sample_configs

HERE = os.path.dirname(os.path.abspath(__file__))
ROBOTS = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus", "klampt", "robots"))


def best(fn, repeat=5, number=None):
    number = number or 1
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        out = min(out, (time.perf_counter() - t) / number)
    return out


def bench(name, batch):
    path = os.path.join(ROBOTS, name)
    robot = roboio.load(path)
    n = robot.num_links
    Q = sample_configs(robot, batch, seed=1)
    last = n - 1
    rows = {}
    notes = []
    km = robot.kinematics
    rows["roboio"] = (best(lambda: km.fk(Q[0]), number=200),
                      best(lambda: km.jacobian(Q[0], last), number=200),
                      best(lambda: km.fk_batch(Q)), best(lambda: km.jacobian_batch(Q, last)))
    ref = km.fk(Q[0])[last]
    try:
        import klampt
        w = klampt.WorldModel()
        w.readFile(path)
        kr = w.robot(0)
        kl = kr.link(last)
        q0 = list(Q[0])

        def k_fk():
            kr.setConfig(q0)

        def k_batch():
            for q in Q:
                kr.setConfig(q.tolist())

        def k_jac_batch():
            for q in Q:
                kr.setConfig(q.tolist())
                kl.getJacobian([0, 0, 0])
        kr.setConfig(q0)
        R, t = kl.getTransform()
        err = np.abs(np.array(R).reshape(3, 3).T - ref[:3, :3]).max() + np.abs(np.array(t) - ref[:3, 3]).max()
        assert err < 1e-9, f"klampt disagrees on {name}: {err}"
        rows["klampt"] = (best(k_fk, number=200), best(lambda: (kr.setConfig(q0), kl.getJacobian([0, 0, 0])), number=200),
                          best(k_batch, repeat=3), best(k_jac_batch, repeat=3))
    except ImportError:
        pass
    try:
        import pinocchio as pin
        if any(j.type == "floating" for j in robot.joints):
            raise ImportError("floating base: pinocchio comparison skipped")
        with tempfile.TemporaryDirectory() as d:
            roboio.save(robot, os.path.join(d, "r.urdf"))
            model = pin.buildModelFromUrdf(os.path.join(d, "r.urdf"))
        data = model.createData()
        # map roboio link configs onto pinocchio joints by child link name
        idx = []
        for j in range(1, model.njoints):
            child = [f.name for f in model.frames if f.parentJoint == j and f.type == pin.FrameType.BODY][0]
            idx.append(robot.link_index(child))
        idx = np.array(idx)
        fid = model.getFrameId(robot.link_names[last])
        Qp = np.zeros((batch, model.nq))
        Qp[:, :len(idx)] = Q[:, idx]

        def p_fk(q=Qp[0]):
            pin.framesForwardKinematics(model, data, q)

        def p_jac(q=Qp[0]):
            pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL_WORLD_ALIGNED)

        p_fk()
        err = np.abs(data.oMf[fid].homogeneous - ref).max()
        assert err < 1e-9, f"pinocchio disagrees on {name}: {err}"
        rows["pinocchio"] = (best(p_fk, number=200), best(p_jac, number=200),
                             best(lambda: [p_fk(q) for q in Qp], repeat=3),
                             best(lambda: [p_jac(q) for q in Qp], repeat=3))
    except ImportError as e:
        notes.append(str(e) if str(e).startswith("floating") else "pinocchio not installed")
    print(f"\n{name}: {n} links, batch {batch}" + "".join(f"  ({x})" for x in notes))
    print(f"  {'':10s} {'fk (us)':>10s} {'jac (us)':>10s} {'fk batch (ms)':>14s} {'jac batch (ms)':>15s}")
    for k, (a, b, c, d) in rows.items():
        print(f"  {k:10s} {a * 1e6:10.1f} {b * 1e6:10.1f} {c * 1e3:14.2f} {d * 1e3:15.2f}")
    for k in rows:
        if k != "roboio":
            r = [rows[k][i] / rows["roboio"][i] for i in range(4)]
            print(f"  {k}/roboio time ratio: fk {r[0]:.2f}  jac {r[1]:.2f}  fk batch {r[2]:.2f}  jac batch {r[3]:.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--robots", nargs="+", default=["ur5.rob", "atlas.rob", "pr2.rob"])
    ap.add_argument("--batch", type=int, default=1000)
    args = ap.parse_args()
    if not os.path.isdir(ROBOTS):
        sys.exit(f"corpus not found at {ROBOTS}")
    for r in args.robots:
        bench(r, args.batch)


if __name__ == "__main__":
    main()
