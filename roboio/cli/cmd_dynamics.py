"""roboio dynamics: mass, centre of mass and joint torques at a configuration or along a
motion."""
from ._common import dump_json, load, pick_robot
from ._configarg import HELP as CONFIG_HELP
from ._help import add_command
from .main import UsageError


def register(sub):
    p = add_command(
        sub, "dynamics", help="mass, centre of mass and joint torques (gravity, along a motion)",
        description="The robot's total mass, its centre of mass and the joint torques that hold "
        "it against gravity at a configuration (default: the file's initial one); with --motion, "
        "the torques along a motion (inverse dynamics with velocities and accelerations from "
        "the motion's timing) and where they exceed the robot's torque limits. Torques are per "
        "joint (the joints `roboio info` lists: N m, or N for prismatic joints). Exit status 1 "
        "when a torque exceeds its limit.",
        examples=['roboio dynamics ur5.urdf --config "shoulder_lift_joint=-90deg"',
                  "roboio dynamics SR1.body --motion SR1WalkPattern1.seq --json > torques.json",
                  "roboio dynamics robot.rob --motion move.path --gravity '0 0 0'"])
    p.add_argument("path", help="robot or world file")
    p.add_argument("--config", metavar="Q", help=CONFIG_HELP)
    p.add_argument("--motion", metavar="FILE",
                   help="a motion of the robot: a Klamp't trajectory (.path, .milestones, "
                        ".configs: one configuration per link, or per joint) or a Choreonoid "
                        "body motion (.seq); velocities and accelerations are its finite "
                        "differences in time (an untimed one is one milestone per second)")
    p.add_argument("--gravity", metavar="G", default="0 0 -9.81",
                   help="gravity vector in world coordinates, m/s^2 (default '0 0 -9.81')")
    p.add_argument("--robot", metavar="NAME",
                   help="robot of a world file (name or index; default: the first)")
    p.add_argument("--json", action="store_true",
                   help='JSON: {"robot", "total_mass", "com", "joints", "gravity_torques", '
                        '"torque_limits"}, with --motion also "times", "torques" (one row per '
                        'milestone), "peak" and "exceeded" (docs/cli.md)')
    p.set_defaults(func=run)


def _gravity(text):
    import numpy as np
    try:
        g = np.array([float(x) for x in text.replace(",", " ").split()])
    except ValueError:
        g = np.zeros(0)
    if g.shape != (3,) or not np.all(np.isfinite(g)):
        raise UsageError(f"--gravity {text!r}: expected three numbers (m/s^2)")
    return g


def torque_limits(robot):
    """``(low, high)`` torque limits per joint of ``robot.joint_space`` (N m or N): a
    driver's ``tmin``/``tmax``, else the link's ``tmax`` (symmetric); inf where none."""
    import numpy as np
    js = robot.joint_space
    low, high = np.full(len(js), -np.inf), np.full(len(js), np.inf)
    for k in range(len(js)):
        if robot.drivers:
            d = robot.drivers[k]
            low[k], high[k] = d.tmin, d.tmax
        else:
            t = robot.tmax[js.links[k]]
            low[k], high[k] = -t, t
    return low, high


def _motion_configs(robot, path):
    """``(times, Q)``: the motion's milestones as link configurations, and a note or None."""
    import numpy as np
    from ..model.body_motion import BodyMotion
    from ..model.trajectory import Trajectory
    obj = load(path)
    note = None
    if isinstance(obj, BodyMotion):
        from ..model.motion_convert import motion_to_trajectory
        try:
            obj = motion_to_trajectory(obj, robot)
        except ValueError as e:
            raise UsageError(f"{path}: {e}") from None
    if not isinstance(obj, Trajectory):
        raise UsageError(f"{path} holds a {type(obj).__name__}, not a motion (a Klamp't "
                         "trajectory or a Choreonoid body motion)")
    M = obj.milestones
    js = robot.joint_space
    if M.ndim != 2 or len(M) == 0:
        raise UsageError(f"{path}: the motion has no milestones")
    if M.shape[1] == robot.num_links:
        Q = M
    elif M.shape[1] == len(js):
        Q = np.array([js.to_config(u) for u in M])
    else:
        raise UsageError(f"{path}: milestones have {M.shape[1]} values; the robot has "
                         f"{robot.num_links} links and {len(js)} joints")
    if obj.times is None:
        note = "untimed motion: one milestone per second"
    times = obj._times()
    if len(times) > 1 and np.any(np.diff(times) <= 0):
        raise UsageError(f"{path}: milestone times must increase to differentiate the motion")
    return np.asarray(times, float), np.asarray(Q, float), note


def _derivatives(times, Q):
    """Velocities and accelerations of the sampled motion (second-order finite
    differences; zero for a single milestone)."""
    import numpy as np
    if len(Q) < 2:
        return np.zeros_like(Q), np.zeros_like(Q)
    dQ = np.gradient(Q, times, axis=0)
    ddQ = np.gradient(dQ, times, axis=0)
    return dQ, ddQ


def _exceeded(names, times, T, low, high):
    """Intervals where a joint's torque is outside its limits."""
    import numpy as np
    out = []
    for k, name in enumerate(names):
        bad = (T[:, k] > high[k]) | (T[:, k] < low[k])
        if not bad.any():
            continue
        idx = np.flatnonzero(bad)
        starts = [idx[0]] + [b for a, b in zip(idx[:-1], idx[1:]) if b != a + 1]
        ends = [a for a, b in zip(idx[:-1], idx[1:]) if b != a + 1] + [idx[-1]]
        for s, e in zip(starts, ends):
            seg = T[s:e + 1, k]
            j = int(np.argmax(np.abs(seg)))
            out.append({"joint": name, "start": float(times[s]), "end": float(times[e]),
                        "peak": float(seg[j]), "at": float(times[s + j]),
                        "limit": float(high[k] if seg[j] > 0 else low[k])})
    return out


def run(args):
    import numpy as np
    from ._configarg import parse_config
    robot = pick_robot(load(args.path), args.robot)
    g = _gravity(args.gravity)
    q = parse_config(robot, args.config) if args.config is not None else \
        np.asarray(robot.config, float)
    js = robot.joint_space
    names = list(js.names)
    D = js.jacobian()
    G = robot.gravity_torques(q, gravity=g) @ D
    low, high = torque_limits(robot)
    out = {"robot": robot.name, "total_mass": robot.total_mass, "com": robot.com(q),
           "joints": names, "config": q, "gravity": g, "gravity_torques": G,
           "torque_limits": [[float(a), float(b)] for a, b in zip(low, high)]}
    status = 0
    if args.motion is not None:
        times, Q, note = _motion_configs(robot, args.motion)
        dQ, ddQ = _derivatives(times, Q)
        T = robot.inverse_dynamics_batch(Q, dQ, ddQ, gravity=g) @ D
        peak = np.abs(T).max(axis=0) if len(T) else np.zeros(len(names))
        exceeded = _exceeded(names, times, T, low, high)
        out.update({"motion": args.motion, "times": times, "torques": T, "peak": peak,
                    "exceeded": exceeded, "notes": [note] if note else []})
        status = 1 if exceeded else 0
    if args.json:
        print(dump_json(out))
        return status
    _print_text(out, names, low, high)
    return status


def _limit_text(lo, hi):
    import math
    if math.isinf(lo) and math.isinf(hi):
        return "no limit"
    if lo == -hi:
        return f"limit {hi:.6g}"
    return f"limits [{lo:.6g}, {hi:.6g}]"


def _print_text(out, names, low, high):
    c = out["com"]
    print(f"robot: {out['robot']}")
    print(f"total mass: {out['total_mass']:.6g} kg")
    print(f"centre of mass: {c[0]:.6f} {c[1]:.6f} {c[2]:.6f} m (world)")
    g = out["gravity"]
    print(f"gravity torques (holding the robot still, gravity {g[0]:g} {g[1]:g} {g[2]:g} m/s^2):")
    width = max([len(n) for n in names] + [5])
    for n, t, lo, hi in zip(names, out["gravity_torques"], low, high):
        print(f"  {n:>{width}s}  {t: .6g}   ({_limit_text(lo, hi)})")
    if "motion" not in out:
        return
    T = out["torques"]
    times = out["times"]
    print(f"motion: {out['motion']}: {len(times)} milestones, {times[0]:g} .. {times[-1]:g} s")
    for n in out["notes"]:
        print(f"  note: {n}")
    print("peak torques along the motion:")
    for k, (n, lo, hi) in enumerate(zip(names, low, high)):
        j = int(abs(T[:, k]).argmax()) if len(T) else 0
        print(f"  {n:>{width}s}  {T[j, k]: .6g} at {times[j]:g} s   ({_limit_text(lo, hi)})")
    if out["exceeded"]:
        print("torque limits exceeded:")
        for e in out["exceeded"]:
            print(f"  {e['joint']}: {e['start']:g} .. {e['end']:g} s, peak {e['peak']:.6g} at "
                  f"{e['at']:g} s (limit {e['limit']:.6g})")
    else:
        print("within the torque limits")
