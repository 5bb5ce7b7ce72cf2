"""roboio collide: self-collision of a robot, collisions in a world (extra roboio[collision])."""
from ._common import dump_json, load, pick_robot
from ._configarg import HELP as CONFIG_HELP
from ._help import add_command
from .main import UsageError


def register(sub):
    p = add_command(
        sub, "collide", help="colliding link pairs at configurations, along a motion, in a world",
        description="Which of the robot's self-collision pairs collide (geometries within the sum "
        "of their margins, as Klamp't's selfCollides decides) at a configuration (default: the "
        "file's initial one), at random configurations or along a motion, and the closest pair "
        "and its distance (metres, margins subtracted). For a world file: every colliding pair "
        "of robot links, rigid objects and terrains (Klamp't's WorldCollider pairs). Exit status "
        "1 when anything collides, 0 when nothing does. Needs the optional extra: "
        "pip install \"roboio[collision]\".",
        examples=['roboio collide ur5.rob --config "0 -1.57 2.8 0 0 0"',
                  "roboio collide atlas.rob --random 1000 --seed 1 --workers 2",
                  "roboio collide arm.body --motion arm_wave.seq     # the first colliding frame",
                  "roboio collide tx90cups.xml --json"])
    p.add_argument("path", help="robot or world file")
    p.add_argument("--config", metavar="Q", help=CONFIG_HELP)
    p.add_argument("--random", type=int, metavar="N",
                   help="N random configurations (each joint uniform within its limits)")
    p.add_argument("--seed", type=int, default=0, help="random seed for --random (default 0)")
    p.add_argument("--motion", metavar="FILE",
                   help="check every frame of a motion (.path, .configs, multipath, .seq, .pseq); "
                        "reports the first colliding frame")
    p.add_argument("--distance", action="store_true",
                   help="with --random or --motion: the closest pair and distance of every "
                        "sample too (slower; a single configuration always has them)")
    p.add_argument("--workers", type=int, default=1, metavar="W",
                   help="worker processes for --random (default 1)")
    p.add_argument("--robot", metavar="NAME",
                   help="robot of a world file that --config, --random and --motion move "
                        "(name or index; default: the first)")
    p.add_argument("--json", action="store_true",
                   help='JSON: {"kind", "checked_pairs", "samples": [{"config" (or "frame", '
                        '"time"), "collides", "colliding", "closest"}], "colliding_samples", '
                        '"first_colliding"} (docs/cli.md)')
    p.set_defaults(func=run)


def run(args):
    from ..collision import CollisionEngineMissing
    from ..model import World
    obj = load(args.path)
    given = [x for x in ("config", "random", "motion") if getattr(args, x) is not None]
    if len(given) > 1:
        raise UsageError("give one of --config, --random and --motion")
    if args.random is not None and args.random < 1:
        raise UsageError("--random needs N >= 1")
    if args.workers < 1:
        raise UsageError("--workers needs W >= 1")
    try:
        if isinstance(obj, World) and (len(obj.robots) != 1 or obj.rigid_objects or obj.terrains):
            return _world(obj, args)
        return _robot(pick_robot(obj, args.robot), args)
    except CollisionEngineMissing as e:
        raise UsageError(str(e)) from None


def _configs(robot, args):
    """(configurations (N, n), frame times or None) the command checks."""
    import numpy as np
    from ._configarg import parse_config
    if args.config is not None:
        return parse_config(robot, args.config)[None], None
    if args.random is not None:
        return robot.joint_space.sample(args.random, args.seed), None
    if args.motion is not None:
        from ..view.motion import timeline
        try:
            tl = timeline(load(args.motion), robot)
        except ValueError as e:
            raise UsageError(f"--motion {args.motion}: {e}") from None
        return tl, tl.times
    return np.asarray(robot.config, float)[None], None


def _pair(robot, p):
    return [robot.link_names[p[0]], robot.link_names[p[1]]]


def _robot(robot, args):
    import numpy as np
    from ..collision import model_for
    from . import _progress
    model = model_for(robot)
    src, times = _configs(robot, args)
    single = args.config is not None or (args.random is None and args.motion is None)
    with_distance = single or args.distance
    samples = []
    if args.random is not None and not with_distance:
        with _progress.activity(f"checking {len(src)} configurations"):
            hits = model.collides_batch(src, workers=args.workers)
        for q, hit in zip(src, hits):
            samples.append({"config": q, "collides": bool(hit)})
        for s in samples:          # the pairs of the colliding ones (few, or wanted)
            if s["collides"]:
                s["colliding"] = [_pair(robot, p) for p in model.collisions(s["config"])]
    else:
        n = src.num_frames if times is not None else len(src)
        with _progress.bar(n, "collision checks", "config") as bar:
            for k in range(n):
                if times is not None:
                    F = np.ascontiguousarray(src.transforms(k))
                    s = {"frame": k, "time": float(times[k])}
                    if src.configs is not None:
                        s["config"] = src.configs[k]
                else:
                    F = robot.fk(src[k])
                    s = {"config": src[k]}
                hit = model.collisions_at(F)
                s["collides"] = bool(hit)
                s["colliding"] = [_pair(robot, p) for p in hit]
                if with_distance:
                    d, where = model.distance_at(F)
                    s["closest"] = None if where is None else {"pair": _pair(robot, where), "distance": d}
                samples.append(s)
                bar.update(1)
    first = next((k for k, s in enumerate(samples) if s["collides"]), None)
    count = sum(s["collides"] for s in samples)
    if args.json:
        print(dump_json({"kind": "robot", "robot": robot.name, "checked_pairs": len(model.pairs),
                         "samples": samples, "colliding_samples": count, "first_colliding": first}))
        return 1 if count else 0
    print(f"robot {robot.name!r}: {len(model.pairs)} checked pairs")
    what = "frame" if times is not None else "configuration"
    if single:
        _print_sample(samples[0])
    else:
        print(f"{count} of {len(samples)} {what}s collide")
        if first is not None:
            s = samples[first]
            where = f"frame {s['frame']} (t = {s['time']:.6g} s)" if times is not None else f"sample {first}"
            print(f"first colliding {what}: {where}")
            _print_sample(s)
        if with_distance:
            k = min(range(len(samples)), key=lambda k: (samples[k]["closest"] or {"distance": np.inf})["distance"])
            c = samples[k]["closest"]
            if c is not None:
                print(f"smallest distance: {c['distance']:.6g} m, {c['pair'][0]} - {c['pair'][1]} "
                      f"({what} {k})")
    return 1 if count else 0


def _print_sample(s):
    if "config" in s:
        print("config: " + " ".join(f"{x:.6g}" for x in s["config"]))
    pairs = s.get("colliding") or []
    print(f"colliding pairs: {len(pairs)}")
    for a, b in pairs:
        print(f"  {a} - {b}")
    c = s.get("closest")
    if c is not None:
        print(f"closest pair: {c['pair'][0]} - {c['pair'][1]}, distance {c['distance']:.6g} m")


def _world(world, args):
    from ..model import Link
    robot = None
    configs = {}
    if args.random is not None or args.motion is not None:
        raise UsageError("--random and --motion check one robot: give its file, or a world with "
                         "one robot and nothing else")
    if args.config is not None:
        from ._configarg import parse_config
        robot = pick_robot(world, args.robot)
        configs[world.robots.index(robot)] = parse_config(robot, args.config)
    pairs = world.collisions(configs)

    def label(e):
        if isinstance(e, Link):
            owner = next(r for r in world.robots if e in r.links)
            return f"{owner.name}/{e.name}"
        return e.name
    named = [[label(a), label(b)] for a, b in pairs]
    if args.json:
        print(dump_json({"kind": "world", "world": world.name, "collisions": named}))
    else:
        print(f"world {world.name!r}: {len(world.robots)} robots, {len(world.rigid_objects)} "
              f"rigid objects, {len(world.terrains)} terrains")
        print(f"colliding pairs: {len(named)}")
        for a, b in named:
            print(f"  {a} - {b}")
    return 1 if named else 0
