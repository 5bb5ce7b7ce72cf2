"""roboio view: a browser viewer with joint sliders and motion playback (extra roboio[view])."""
from __future__ import annotations

import os
import sys
import time

from ._common import load
from ._configarg import HELP as CONFIG_HELP
from ._help import HelpFormatter
from .main import UsageError


def register(sub):
    p = sub.add_parser(
        "view", help="show a model in the browser: joint sliders, motion playback, two models compared",
        description="Serve a local page (127.0.0.1 only) showing the model with one slider per "
        "driver, link frames and names, visual or collision geometry, a timeline for --motion, "
        "and a second model overlaid or side by side with the per-link verify error. "
        "Needs the optional extra: pip install \"roboio[view]\".",
        epilog="examples:\n  roboio view roboio/data/samples/planar_arm.rob\n"
               "  roboio view roboio/data/samples/choreonoid/arm.body "
               "--motion roboio/data/samples/choreonoid/arm_wave.seq\n"
               "  roboio view roboio/data/samples/planar_arm.rob /tmp/planar_arm.urdf   "
               "# a conversion checked by eye",
        formatter_class=HelpFormatter)
    p.add_argument("path", help="robot, world, object, mesh or point cloud file")
    p.add_argument("path2", nargs="?", help="a second model, shown overlaid or side by side")
    p.add_argument("--config", metavar="Q", help=CONFIG_HELP)
    p.add_argument("--motion", metavar="FILE", help="a motion to play on the first robot "
                   "(.path, .configs, multipath .xml, .seq, .pseq)")
    p.add_argument("--port", type=int, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.set_defaults(func=run)


def _has_display() -> bool:
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run(args):
    from ..view import MissingExtra
    try:
        from ..view.server import Viewer
    except MissingExtra as e:
        print(f"roboio view: {e}", file=sys.stderr)
        return 1
    models = [load(args.path)]
    labels = [os.path.basename(args.path)]
    if args.path2:
        models.append(load(args.path2))
        labels.append(os.path.basename(args.path2))
    from ..view.server import as_world
    first = as_world(models[0])
    configs = {}
    if args.config:
        if not first.robots:
            raise UsageError(f"--config needs a robot, and {args.path} has none")
        from ._configarg import parse_config
        configs[0] = parse_config(first.robots[0], args.config)
    motion = None
    if args.motion:
        if not first.robots:
            raise UsageError(f"--motion needs a robot to play it on, and {args.path} has none")
        motion = load(args.motion)
    try:
        viewer = Viewer([first] + models[1:], labels, configs=configs, motion=motion, port=args.port)
    except MissingExtra as e:
        print(f"roboio view: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        if type(e) is ValueError:
            raise UsageError(str(e)) from None
        raise
    print(f"roboio view: {viewer.url}  (Ctrl+C to stop)", flush=True)
    if not args.no_browser and _has_display():
        import webbrowser
        webbrowser.open(viewer.url)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        viewer.stop()
    return 0
