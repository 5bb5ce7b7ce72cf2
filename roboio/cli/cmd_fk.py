"""roboio fk: world transforms of every link."""
from ._common import dump_json, load, pick_robot, link_indices
from ._configarg import HELP as CONFIG_HELP
from ._help import add_command
from .main import UsageError

CHUNK = 4096          # configurations per batch (bounded memory, progress steps)


def register(sub):
    p = add_command(
        sub, "fk", help="forward kinematics: world transforms of the links",
        description="World transforms of the robot's links at a configuration (default: the "
        "file's initial one), given as joint values, link values or name=value pairs, or at "
        "random configurations within the joint limits. Prints position (m) and roll-pitch-yaw "
        "(rad, R = Rz(yaw) Ry(pitch) Rx(roll)) per link; --json gives 4x4 matrices.",
        examples=['roboio fk ur5.urdf --config "shoulder_pan_joint=0.5 elbow_joint=-90deg"',
                  'roboio fk ur5.rob --config "0 -1.57 1.57 0 0 0" --link ee_link   # joint vector',
                  "roboio fk ur5.rob --random 1000 --seed 1 --json > samples.json"])
    p.add_argument("path", help="robot or world file")
    p.add_argument("--config", metavar="Q", help=CONFIG_HELP)
    p.add_argument("--random", type=int, metavar="N",
                   help="N random configurations: each joint uniform within its limits (+-pi "
                        "rad or +-1 m where unbounded), coupled links through their joint, "
                        "fixed links and a floating base at their initial values")
    p.add_argument("--seed", type=int, default=0, help="random seed for --random (default 0)")
    p.add_argument("--link", metavar="LINK", help="only this link (name or index)")
    p.add_argument("--robot", metavar="NAME",
                   help="robot of a world file (name or index; default: the first)")
    p.add_argument("--json", action="store_true",
                   help='JSON: {"links", "config_names", "joints", "samples": [{"config", '
                        '"joints", "transforms"}]} (docs/cli.md)')
    p.set_defaults(func=run)


def run(args):
    import numpy as np
    from ._configarg import parse_config
    robot = pick_robot(load(args.path), args.robot)
    n = robot.num_links
    if args.config is not None and args.random is not None:
        raise UsageError("give --config or --random, not both")
    if args.config is not None:
        Q = parse_config(robot, args.config)[None]
    elif args.random is not None:
        if args.random < 1:
            raise UsageError("--random needs N >= 1")
        Q = robot.joint_space.sample(args.random, args.seed)
    else:
        Q = np.asarray(robot.config, float)[None]
    links = list(range(n))
    if args.link is not None:
        links = link_indices(robot, [args.link], args.path)
    js = robot.joint_space
    if args.json:
        samples = []
        from . import _progress
        with _progress.bar(len(Q), "forward kinematics", "config") as bar:
            for start in range(0, len(Q), CHUNK):
                T = robot.fk_batch(Q[start:start + CHUNK], links=links)   # the links printed
                for q, t in zip(Q[start:start + CHUNK], T):
                    samples.append({"config": q, "joints": js.as_dict(q), "transforms": t})
                bar.update(len(T))
        print(dump_json({"links": [robot.link_names[i] for i in links],
                         "config_names": robot.link_names, "joints": js.names,
                         "samples": samples}))
        return 0
    _print_text(robot, Q, links, js)
    return 0


def _print_text(robot, Q, links, js):
    from ..transforms import matrix_to_rpy
    from . import _progress
    names = js.names
    with _progress.bar(len(Q), "forward kinematics", "config", prints=True) as bar:
        for start in range(0, len(Q), CHUNK):
            T = robot.fk_batch(Q[start:start + CHUNK], links=links)   # the links printed
            RPY = matrix_to_rpy(T[..., :3, :3])
            for q, ts, angles in zip(Q[start:start + CHUNK], T, RPY):
                print("config: " + " ".join(f"{x:.6g}" for x in q))
                if names:
                    print("joints: " + " ".join(f"{k}={v:.6g}" for k, v in
                                                zip(names, js.from_config(q))))
                for i, t, rpy in zip(links, ts, angles):
                    print(f"  {robot.link_names[i]:>24s}  xyz {t[0, 3]: .6f} {t[1, 3]: .6f} "
                          f"{t[2, 3]: .6f}   rpy {rpy[0]: .6f} {rpy[1]: .6f} {rpy[2]: .6f}")
            bar.update(len(T))
