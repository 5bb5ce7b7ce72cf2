"""Forward kinematics and Jacobian speed: roboio (each backend) vs klampt vs pinocchio.

    python benchmarks/bench_kinematics.py [--robots ur5.rob atlas.rob] [--sizes 1 1000 100000]
                                          [--rounds 5] [--jac-size 20000]

Robots come from ../shared/corpus/klampt/robots. Contenders, all on the same random
configurations (the script first checks that they agree on every link's pose):

- roboio ``fk_batch`` with each backend, writing into a reused ``out=`` array and into a
  fresh one; ``robot.fk(q)`` and ``workspace.fk(q)`` for one configuration;
- the klampt loop: ``setConfig`` + ``getTransform`` of every link, per configuration;
- pinocchio: ``framesForwardKinematics`` + reading every link's placement (``oMf[...]``
  as a 4x4 array), per configuration; roboio writes a URDF of the robot for pinocchio (a
  Klamp't floating base becomes pinocchio's free-flyer root joint);
- the allocate-and-fill floor: ``np.full`` of an output of the same size;
- Jacobians (``--jac-size`` configurations): roboio ``jacobian_batch`` vs the klampt loop
  (``setConfig`` + ``getJacobian``) vs pinocchio's ``computeFrameJacobian`` loop.

Every round runs each contender once, interleaved, so that a machine shared with others
slows them alike; ratios are taken within a round and the median over rounds is printed
(times: the median too); the goals also show the ratio of the best times (least disturbed
runs). Memory: the peak resident memory a batched call adds beyond its
output (Linux VmHWM, reset before the call; it counts the C kernel's own buffers, which
tracemalloc does not see).
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
ROBOTS = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus", "klampt", "robots"))

import roboio                                    # noqa: E402
from roboio.convert import sample_configs        # noqa: E402
from roboio.kinematics import available_backends, use_backend   # noqa: E402


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def each_call(fn, calls):
    """Median time of ``calls`` separately timed calls (for calls of a millisecond or more;
    shorter ones: the mean of a loop)."""
    t0 = timed(fn)
    if t0 < 1e-3:
        return per_call(fn, calls)
    return statistics.median([t0] + [timed(fn) for _ in range(calls - 1)])


def per_call(fn, calls):
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls


def best_call(fn, calls, repeat=10):
    """timeit's rule for calls of a microsecond: the best of ``repeat`` loops of ``calls``
    (a loop that other processes interrupted says nothing about the call itself)."""
    return min(per_call(fn, calls) for _ in range(repeat))


# -- memory -----------------------------------------------------------------------------------
def extra_memory(fn, out_bytes):
    """Peak memory allocated while fn() runs beyond ``out_bytes`` (its result), by
    tracemalloc: it sees numpy's arrays and the C kernel's buffers (PyMem_RawMalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        keep = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del keep
    return peak - out_bytes


def extra_rss(fn):
    """Peak resident memory added by fn() (Linux VmHWM, reset first), or None elsewhere:
    a cross-check for calls that write into existing memory."""
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")                       # resets VmHWM to the current RSS
    except OSError:
        return None
    before = _status("VmRSS")
    fn()
    return _status("VmHWM") - before


def _status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return None


# -- contenders -------------------------------------------------------------------------------
class Klampt:
    def __init__(self, path, n):
        import klampt
        self.world = klampt.WorldModel()
        if not self.world.readFile(path):
            raise RuntimeError(f"klampt cannot read {path}")
        self.robot = self.world.robot(0)
        self.links = [self.robot.link(i) for i in range(n)]

    def frames(self, q):
        self.robot.setConfig(list(q))
        return [l.getTransform() for l in self.links]

    def fk_loop(self, Q):
        setc, links = self.robot.setConfig, self.links
        for q in Q:
            setc(q.tolist())
            for l in links:
                l.getTransform()

    def jac_loop(self, Q, link):
        setc, l = self.robot.setConfig, self.links[link]
        for q in Q:
            setc(q.tolist())
            l.getJacobian([0, 0, 0])


class Pinocchio:
    """pinocchio on a URDF roboio writes of the robot; a Klamp't floating base (six virtual
    links) becomes a free-flyer root joint."""

    def __init__(self, robot, Q):
        import pinocchio as pin
        self.pin = pin
        floating = [j for j in robot.joints if j.type == "floating"]
        with tempfile.TemporaryDirectory() as d, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            path = os.path.join(d, "r.urdf")
            roboio.save(robot, path)
            self.model = (pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating
                          else pin.buildModelFromUrdf(path))
        m = self.model
        self.data = m.createData()
        names = robot.link_names
        self.links = [i for i, nm in enumerate(names) if m.existFrame(nm)]
        self.fids = [m.getFrameId(names[i]) for i in self.links]
        # configurations: joint values by the joint's child link; the free flyer gets the
        # root link's world pose from roboio
        self.root = None
        cols = []
        for j in range(1, m.njoints):
            if m.joints[j].nq not in (1, 2):       # the free flyer
                continue
            child = [f.name for f in m.frames if f.parentJoint == j and f.type == pin.FrameType.BODY]
            cols.append((m.idx_qs[j], m.joints[j].nq, robot.link_index(child[0])))
        Qp = np.zeros((len(Q), m.nq))
        for qi, nq, li in cols:
            if nq == 1:
                Qp[:, qi] = Q[:, li]
            else:                                  # continuous joint: (cos, sin)
                Qp[:, qi], Qp[:, qi + 1] = np.cos(Q[:, li]), np.sin(Q[:, li])
        if floating:
            root_name = [f.name for f in m.frames if f.parentJoint == 1 and f.type == pin.FrameType.BODY][0]
            T = robot.fk_batch(Q, links=[root_name])[:, 0]
            Qp[:, :7] = [pin.SE3ToXYZQUAT(pin.SE3(t)) for t in T]
        self.Q = Qp

    def frames(self, q):
        pin, m, d = self.pin, self.model, self.data
        pin.framesForwardKinematics(m, d, q)
        return [d.oMf[f].homogeneous for f in self.fids]

    def fk_loop(self, Q):
        fk, m, d, oMf, fids = self.pin.framesForwardKinematics, self.model, self.data, self.data.oMf, self.fids
        for q in Q:
            fk(m, d, q)
            for f in fids:
                oMf[f].homogeneous

    def jac_loop(self, Q, fid):
        jac, m, d, frame = self.pin.computeFrameJacobian, self.model, self.data, self.pin.LOCAL_WORLD_ALIGNED
        for q in Q:
            jac(m, d, q, fid, frame)


# -- one robot --------------------------------------------------------------------------------
def check_agreement(robot, Q, klampt_c, pin_c):
    ref = robot.fk_batch(Q[:3])
    for k in range(3):
        if klampt_c:
            for i, (R, t) in enumerate(klampt_c.frames(Q[k])):
                err = (np.abs(np.array(R).reshape(3, 3).T - ref[k, i, :3, :3]).max()
                       + np.abs(np.array(t) - ref[k, i, :3, 3]).max())
                assert err < 1e-9, f"klampt disagrees on link {i}: {err}"
        if pin_c:
            for i, M in zip(pin_c.links, pin_c.frames(pin_c.Q[k])):
                err = np.abs(M - ref[k, i]).max()
                # 1e-6: URDF readers normalise joint axes, Klamp't does not (atlas's clavicle
                # axes have |axis| = 0.99999965)
                assert err < 1e-6, f"pinocchio disagrees on link {robot.link_names[i]}: {err}"


def median_ratio(rounds, num, den):
    return statistics.median(r[num] / r[den] for r in rounds)


def best_ratio(rounds, num, den):
    """Ratio of the best (smallest) times over the rounds: the least disturbed runs."""
    return min(r[num] for r in rounds) / min(r[den] for r in rounds)


def both(rounds, num, den, fmt="{:.1f}x"):
    return (fmt.format(median_ratio(rounds, num, den)) + " (best "
            + fmt.format(best_ratio(rounds, num, den)) + ")")


def bench_robot(name, sizes, n_rounds, jac_size):
    path = os.path.join(ROBOTS, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = roboio.load(path)
    n = robot.num_links
    Nmax = max(sizes + [jac_size])
    Q = sample_configs(robot, Nmax, seed=1)
    notes = []
    try:
        kl = Klampt(path, n)
    except ImportError:
        kl = None
        notes.append("klampt not installed")
    try:
        pc = Pinocchio(robot, Q)
    except ImportError:
        pc = None
        notes.append("pinocchio not installed")
    check_agreement(robot, Q, kl, pc)
    backends = [b for b in ("compiled", "numpy") if b in available_backends()]
    print(f"\n== {name}: {n} links; backends {', '.join(backends)}"
          + "".join(f"; {x}" for x in notes))
    results = {"name": name, "n": n}

    # single configuration --------------------------------------------------------------------
    calls = 2000
    q = Q[0]
    rounds = []
    for _ in range(n_rounds):
        r = {}
        for b in backends:
            with use_backend(b):
                ws = robot.kinematics.workspace()
                reps = calls if b == "compiled" else calls // 20
                r[f"fk {b}"] = best_call(lambda: robot.fk(q), reps)
                r[f"ws {b}"] = best_call(lambda: ws.fk(q), reps)
                r[f"jac {b}"] = best_call(lambda: robot.jacobian(n - 1, (0, 0, 0), q), reps)
        if kl:
            r["klampt"] = best_call(lambda: kl.frames(q), calls // 4)
        if pc:
            qp = pc.Q[0]
            r["pinocchio"] = best_call(lambda: pc.frames(qp), calls // 4)
        rounds.append(r)
    print("  one configuration (us per call, best of 10 loops, median of rounds): " + ", ".join(
        f"{k} {statistics.median(r[k] for r in rounds) * 1e6:.2f}" for k in rounds[0]))
    results["single"] = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    results["single_best"] = {k: min(r[k] for r in rounds) for k in rounds[0]}
    if kl or pc:
        b = backends[0]
        print("  ratios vs robot.fk(q) [" + b + "]: " + ", ".join(
            f"{k} {median_ratio(rounds, k, f'fk {b}'):.1f}x"
            for k in ("klampt", "pinocchio") if k in rounds[0]))

    # batches ---------------------------------------------------------------------------------
    results["batch"] = {}
    for N in sizes:
        QN = Q[:N]
        out = {b: np.empty((N, n, 4, 4)) for b in backends}
        for b in backends:
            with use_backend(b):
                robot.fk_batch(QN, out=out[b])      # touch the pages once
        reps = max(3, min(200, 20000 // N))
        rounds = []
        for _ in range(n_rounds):
            r = {}
            for b in backends:
                with use_backend(b):
                    r[f"{b} out="] = per_call(lambda: robot.fk_batch(QN, out=out[b]), reps) / N
                    # a fresh output, then the floor right after it: both pay the same page
                    # faults (steady state: the median of reps calls, each reusing the pages
                    # the previous one freed, as a program calling fk_batch in a loop does)
                    r[f"{b} fresh"] = each_call(lambda: robot.fk_batch(QN), reps) / N
                    floor = each_call(lambda: np.full((N, n, 4, 4), 1.0), reps) / N
                    r["floor"] = min(r.get("floor", floor), floor)
            if kl:
                r["klampt"] = timed(lambda: kl.fk_loop(QN)) / N
            if pc:
                r["pinocchio"] = timed(lambda: pc.fk_loop(pc.Q[:N])) / N
            rounds.append(r)
        med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
        results["batch"][N] = {"times": med, "rounds": rounds}
        print(f"  fk_batch N={N}: us per configuration (median of {n_rounds} rounds)")
        for k, v in med.items():
            line = f"    {k:18s} {v * 1e6:9.3f}"
            if k != "floor" and k not in ("klampt", "pinocchio"):
                extra = []
                if kl:
                    extra.append(f"klampt/this {median_ratio(rounds, 'klampt', k):6.1f}x")
                if pc:
                    extra.append(f"pinocchio/this {median_ratio(rounds, 'pinocchio', k):6.1f}x")
                extra.append(f"this/floor {median_ratio(rounds, k, 'floor'):5.2f}")
                line += "   " + "  ".join(extra)
            print(line)
        out = None

    # memory ----------------------------------------------------------------------------------
    N = max(sizes)
    QN = Q[:N]
    out_bytes = N * n * 16 * 8
    results["memory"] = {}
    print(f"  memory of fk_batch at N={N} (output {out_bytes / 2**20:.1f} MiB): peak allocated "
          "beyond the output (tracemalloc), and peak RSS added with out=")
    for b in backends:
        with use_backend(b):
            reused = np.ones((N, n, 4, 4))
            x_out = extra_memory(lambda: robot.fk_batch(QN, out=reused), 0)
            rss = extra_rss(lambda: robot.fk_batch(QN, out=reused))
            del reused
            x_new = extra_memory(lambda: robot.fk_batch(QN), out_bytes)
        results["memory"][b] = (x_out, x_new, out_bytes)
        rss_text = "" if rss is None else f"   RSS out=: {rss / 2**20:.2f} MiB"
        print(f"    {b:9s} out=: {x_out / 2**10:9.1f} KiB ({100 * x_out / out_bytes:6.3f}% of the "
              f"output)   fresh: {x_new / 2**10:9.1f} KiB ({100 * x_new / out_bytes:6.3f}%){rss_text}")
    gc.collect()

    # Jacobians -------------------------------------------------------------------------------
    QJ = Q[:jac_size]
    link = n - 1
    Js = {b: np.ones((jac_size, 6, n)) for b in backends}      # reused outputs, pages touched
    rounds = []
    for _ in range(n_rounds):
        r = {}
        for b in backends:
            with use_backend(b):
                J = Js[b]
                r[b] = timed(lambda: robot.jacobian_batch(QJ, link, out=J)) / jac_size
        if kl:
            r["klampt"] = timed(lambda: kl.jac_loop(QJ, link)) / jac_size
        if pc:
            fid = pc.model.getFrameId(robot.link_names[link])
            r["pinocchio"] = timed(lambda: pc.jac_loop(pc.Q[:jac_size], fid)) / jac_size
        rounds.append(r)
    results["jacobian"] = rounds
    print(f"  jacobian_batch N={jac_size} of {robot.link_names[link]} (out= reused): "
          "us per configuration")
    for k in rounds[0]:
        line = f"    {k:18s} {statistics.median(r[k] for r in rounds) * 1e6:9.3f}"
        if k in backends:
            line += "   " + "  ".join(f"{o}/this {median_ratio(rounds, o, k):6.1f}x"
                                      for o in ("klampt", "pinocchio") if o in rounds[0])
        print(line)
    return results


def goals(all_results, sizes, jac_size):
    """The issue's goals, as measured above (compiled backend)."""
    print("\n== goals (compiled backend; median ratios over rounds)")
    big = max(sizes)
    want = {"ur5": (25, 10, 8, 3), "atlas": (14, 8, 8, 3)}
    for res in all_results:
        key = next((k for k in want if res["name"].startswith(k)), None)
        if key is None or big not in res["batch"] or "klampt" not in res["batch"][big]["times"]:
            continue
        g_out, g_new, g_jk, g_jp = want[key]
        rounds = res["batch"][big]["rounds"]
        if "compiled out=" not in rounds[0]:
            print("  compiled backend not available")
            return
        print(f"  {res['name']}: fk_batch N={big} out= {both(rounds, 'klampt', 'compiled out=')} "
              f"klampt (goal >= {g_out}); fresh {both(rounds, 'klampt', 'compiled fresh')} "
              f"(goal >= {g_new}); fresh/floor {both(rounds, 'compiled fresh', 'floor', '{:.2f}')} "
              "(goal <= 3)")
        jr = res["jacobian"]
        line = f"  {res['name']}: jacobian_batch N={jac_size} "
        if "klampt" in jr[0]:
            line += f"{both(jr, 'klampt', 'compiled')} klampt (goal >= {g_jk})"
        if "pinocchio" in jr[0]:
            line += f", {both(jr, 'pinocchio', 'compiled')} pinocchio (goal >= {g_jp})"
        print(line)
        mem = res["memory"].get("compiled")
        if mem:
            print(f"  {res['name']}: extra memory of fk_batch N={big}: out= {100 * mem[0] / mem[2]:.2f}%, "
                  f"fresh {100 * mem[1] / mem[2]:.2f}% of the output (goal < 5%)")
        if key == "ur5":
            s = res["single"]
            b = res["single_best"]
            line = (f"  {res['name']}: robot.fk(q) {s['fk compiled'] * 1e6:.2f} us (best "
                    f"{b['fk compiled'] * 1e6:.2f}; goal <= 1 us)")
            if "klampt" in s:
                line += f", klampt loop {s['klampt'] * 1e6:.2f} ({b['klampt'] * 1e6:.2f}) us"
            if "pinocchio" in s:
                line += (f", pinocchio with readout {s['pinocchio'] * 1e6:.2f} "
                         f"({b['pinocchio'] * 1e6:.2f}) us")
            print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robots", nargs="+", default=["ur5.rob", "atlas.rob"])
    ap.add_argument("--sizes", nargs="+", type=int, default=[1, 1000, 100000])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jac-size", type=int, default=20000)
    args = ap.parse_args()
    if not os.path.isdir(ROBOTS):
        sys.exit(f"corpus not found at {ROBOTS}")
    res = [bench_robot(r, args.sizes, args.rounds, args.jac_size) for r in args.robots]
    goals(res, args.sizes, args.jac_size)


if __name__ == "__main__":
    main()
