"""roboio plot: joint trajectories of a motion over time."""
from __future__ import annotations

import sys

from ._common import load
from ._help import HelpFormatter
from .main import UsageError


def register(sub):
    p = sub.add_parser(
        "plot", help="plot the joint trajectories of a motion (PNG)",
        description="One panel per moving joint, named after the model's links when --model is "
        "given (with the joint limits shaded), for .path, .configs, multipath, .seq and .pseq "
        "motions. Needs the optional extra: pip install \"roboio[view]\".",
        epilog="examples:\n  roboio plot roboio/data/samples/choreonoid/arm_wave.seq -o /tmp/wave.png "
               "--model roboio/data/samples/choreonoid/arm.body\n"
               "  roboio plot roboio/data/samples/klampt/arm_pick.xml -o /tmp/pick.png "
               "--model roboio/data/samples/planar_arm.rob",
        formatter_class=HelpFormatter)
    p.add_argument("motion", help="the motion: .path, .configs, multipath .xml, .seq or .pseq")
    p.add_argument("-o", "--output", required=True, help="image file to write (PNG)")
    p.add_argument("--model", "--body", dest="model", metavar="ROBOT",
                   help="the robot the motion belongs to: joint names and limits")
    p.add_argument("--title", default="", help="title above the panels (default: none)")
    p.set_defaults(func=run)


def run(args):
    from ..view import MissingExtra
    from ._common import pick_robot
    motion = load(args.motion)
    robot = pick_robot(load(args.model), path=args.model) if args.model else None
    try:
        from ..view.plot import plot_motion
        out = plot_motion(motion, args.output, robot, title=args.title or args.motion)
    except MissingExtra as e:
        print(f"roboio plot: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        if type(e) is ValueError:
            from ._common import about
            raise UsageError(about(args.motion, str(e))) from None
        raise
    print(f"wrote {args.output}: {len(out['plotted'])} joints plotted, {len(out['constant'])} constant")
    return 0
