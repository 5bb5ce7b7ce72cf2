"""roboio render: a still image of a robot or world, without a display or GPU."""
from __future__ import annotations

import re
import sys
import time

from ._common import load
from ._configarg import HELP as CONFIG_HELP
from ._help import HelpFormatter
from .main import UsageError


def register(sub):
    p = sub.add_parser(
        "render", help="render a still image (PNG or JPEG) of a robot, world, object or mesh",
        description="Pose the model by roboio's forward kinematics and draw it with a small "
        "software z-buffer (no display, GPU or system library). Needs the optional extra: "
        "pip install \"roboio[view]\".",
        epilog="examples:\n  roboio render robot.rob -o robot.png\n"
               "  roboio render world.xml -o top.png --view top --size 800x600\n"
               "  roboio render arm.rob -o bent.png --config \"shoulder=0.5 elbow=-1\"",
        formatter_class=HelpFormatter)
    p.add_argument("path", help="robot, world, object, mesh or point cloud file")
    p.add_argument("-o", "--output", required=True,
                   help="image to write: .png or .jpg/.jpeg (the extension decides)")
    p.add_argument("--config", metavar="Q", help=CONFIG_HELP)
    p.add_argument("--view", default="iso", choices=("iso", "front", "side", "top"),
                   help="camera direction: iso (default), front (from +x), side (from -y), top (from +z)")
    p.add_argument("--size", default="640x480", help="image size WxH in pixels (default 640x480)")
    p.add_argument("--collision", action="store_true", help="draw collision geometry instead of visual")
    p.set_defaults(func=run)


def parse_size(text: str):
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text or "")
    if not m or not (8 <= int(m.group(1)) <= 8192 and 8 <= int(m.group(2)) <= 8192):
        raise UsageError(f"--size must be WxH with 8..8192 pixels each, not {text!r}")
    return int(m.group(1)), int(m.group(2))


def run(args):
    from ..view import MissingExtra
    size = parse_size(args.size)
    from ..view.render import image_format
    try:
        image_format(args.output)
    except ValueError as e:
        raise UsageError(str(e)) from None
    obj = load(args.path)
    from ..view.server import as_world
    try:
        world = as_world(obj)
    except (TypeError, ValueError):
        raise UsageError(f"the file holds a {type(obj).__name__}, nothing to draw") from None
    configs = {}
    if args.config:
        if not world.robots:
            raise UsageError("--config needs a robot, and the file has none")
        from ._configarg import parse_config
        configs[0] = parse_config(world.robots[0], args.config)
    try:
        from ..view.render import render
        t = time.perf_counter()
        render(world, args.output, configs=configs, view=args.view, size=size, visual=not args.collision)
    except MissingExtra as e:
        print(f"roboio render: {e}", file=sys.stderr)
        return 1
    print(f"wrote {args.output} ({size[0]}x{size[1]}, view {args.view}, {time.perf_counter() - t:.2f} s)")
    return 0
