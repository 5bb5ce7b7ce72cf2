"""roboio fk: world transforms of every link."""
import numpy as np

from ..api import load
from ..convert import sample_configs
from ..transforms import matrix_to_rpy
from ._common import dump_json, parse_numbers, pick_robot
from ._options import positive_int
from .main import UsageError


def register(sub):
    p = sub.add_parser("fk", help="forward kinematics: world transforms of the links")
    p.add_argument("path")
    p.add_argument("--config", help='configuration "q1 q2 ..." (one value per link; default: the file\'s)')
    p.add_argument("--random", type=positive_int, metavar="N", help="N random configurations within the limits")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--link", help="only this link (name or index)")
    p.add_argument("--robot", help="robot of a world file (name or index; default: the first)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args):
    robot = pick_robot(load(args.path), args.robot)
    n = robot.num_links
    if args.config is not None and args.random is not None:
        raise UsageError("give --config or --random, not both")
    if args.config is not None:
        q = parse_numbers(args.config, "--config")
        if len(q) != n:
            raise UsageError(f"--config has {len(q)} values, the robot has {n} links")
        Q = q[None]
    elif args.random is not None:
        if args.random < 1:
            raise UsageError("--random needs N >= 1")
        Q = sample_configs(robot, args.random, args.seed)
    else:
        Q = robot.config[None]
    links = list(range(n))
    if args.link is not None:
        key = int(args.link) if args.link.lstrip("-").isdigit() else args.link
        try:
            links = [robot.link_index(key)]
        except (KeyError, IndexError):
            raise UsageError(f"no link {args.link!r} (links: {', '.join(robot.link_names)})") from None
    T = robot.fk_batch(Q)[:, links]
    if args.json:
        print(dump_json({"links": [robot.link_names[i] for i in links],
                         "samples": [{"config": q, "transforms": t} for q, t in zip(Q, T)]}))
        return 0
    for q, ts in zip(Q, T):
        print("config: " + " ".join(f"{x:.6g}" for x in q))
        for i, t in zip(links, ts):
            rpy = matrix_to_rpy(t[:3, :3])
            print(f"  {robot.link_names[i]:>24s}  xyz {t[0, 3]: .6f} {t[1, 3]: .6f} {t[2, 3]: .6f}"
                  f"   rpy {rpy[0]: .6f} {rpy[1]: .6f} {rpy[2]: .6f}")
    return 0
