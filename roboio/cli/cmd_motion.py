"""roboio motion: any motion (Klamp't .path/.configs/multipath, Choreonoid .seq/.pseq) --
resample, link poses per frame."""
from __future__ import annotations

from ..errors import LimitExceeded, RoboioError
import sys

from ._common import add_force_option, dump_json, format_option, link_indices, load, pick_robot, save
from ._help import add_command
from .main import UsageError


def register(sub):
    p = add_command(
        sub, "motion", help="motions: resample, link poses per frame",
        description="Work on motions (Klamp't .path, .configs, multipath .xml; Choreonoid .seq, "
        ".pseq): resample them to a fixed frame rate, or compute the world transforms of a "
        "robot's links along them.",
        examples=["roboio motion resample roboio/data/samples/choreonoid/arm_wave.seq /tmp/wave50.seq --rate 50",
                  "roboio motion fk roboio/data/samples/choreonoid/arm_wave.seq --model "
                  "roboio/data/samples/choreonoid/arm.body --frames ::10 --link HAND"])
    msub = p.add_subparsers(dest="motion_command", metavar="ACTION")
    r = add_command(
        msub, "resample", help="convert to a fixed frame rate (Choreonoid's import of "
        "frame-time data, or linear/slerp interpolation; Klamp't paths linearly)",
        description="Resample a motion to a fixed frame rate. Frames of the original that are "
        "no frame of the result are reported as lost, with the largest difference between the "
        "original frames and the result read back at their times.",
        examples=["roboio motion resample roboio/data/samples/choreonoid/arm_timed.seq /tmp/fixed.seq --rate 100",
                  "roboio motion resample roboio/data/samples/choreonoid/arm_wave.seq /tmp/wave_v4.seq "
                  "--to choreonoid-seq-v4 --method linear",
                  "roboio motion resample roboio/data/samples/klampt/arm_reach.path /tmp/reach_30.path "
                  "--rate 30"])
    r.add_argument("input", help="the motion to read (.seq, .path, .configs, multipath .xml)")
    r.add_argument("output", help="the file to write")
    r.add_argument("--rate", type=float, help="frames per second (default: a .seq's own rate; "
                   "required for Klamp't motions)")
    r.add_argument("--method", choices=("hold", "linear"), default="hold",
                   help=".seq: hold: Choreonoid's rule (frame int(t*rate), zero-order hold); "
                        "linear: interpolate values and positions, slerp rotations. Klamp't "
                        "motions are always linear, as Klamp't evaluates them")
    r.add_argument("--to", metavar="FORMAT", help="output format (e.g. choreonoid-seq-v4)")
    add_force_option(r)
    r.set_defaults(func=run_resample)
    f = add_command(
        msub, "fk", help="world transforms of a robot's links along a motion",
        description="World positions of a robot's links at frames of a motion. Klamp't "
        "milestones are link configurations; Choreonoid motions set joint displacements by "
        "joint id and the root pose from the motion's link positions when it has them; .pseq "
        "key poses are the keys (not Choreonoid's interpolation between them). Text: one line "
        "per link and frame; --json: 4x4 matrices.",
        examples=["roboio motion fk roboio/data/samples/choreonoid/arm_wave.seq --model "
                  "roboio/data/samples/choreonoid/arm.body --frames 0,10,20",
                  "roboio motion fk roboio/data/samples/klampt/arm_pick.xml "
                  "--model roboio/data/samples/planar_arm.rob --frames all --json > poses.json"])
    f.add_argument("motion", help="the motion (.path, .configs, multipath .xml, .seq, .pseq, "
                   "or an MJCF model's keyframes)")
    f.add_argument("--model", "--body", dest="model", required=True, metavar="ROBOT",
                   help="the robot the motion belongs to (a .body model for Choreonoid motions)")
    f.add_argument("--frames", default="0", help="frame indices, e.g. '0,100,200' or 'all' or "
                   "'::100' (Python slice; default 0)")
    f.add_argument("--link", action="append", metavar="LINK",
                   help="only this link (repeatable; default: every link in the model's order)")
    f.add_argument("--json", action="store_true",
                   help='machine-readable: {"links", "frames": [{"frame", "time", "transforms"}]}')
    f.set_defaults(func=run_fk)
    p.set_defaults(func=lambda args: (_ for _ in ()).throw(UsageError("choose an action: resample, fk")))


def _motion(path):
    from ..model.timeline import as_motion
    obj = load(path)
    m = as_motion(obj)
    if m is None:
        raise UsageError(f"{path} holds a {type(obj).__name__}, not a motion (.path, .configs, "
                         "multipath .xml, .seq, .pseq, or an MJCF model with keyframes)")
    return m


def run_resample(args):
    format_option(args.to, "--to", "write")
    if args.rate is not None and not (args.rate > 0 and args.rate != float("inf")):
        raise UsageError("--rate must be a positive number of frames per second")
    from ..model.motion_resample import resample
    m = _motion(args.input)
    try:
        out, loss = resample(m, args.rate, args.method)
    except LimitExceeded as e:
        raise LimitExceeded(f"{args.input}: {e}") from None
    except RoboioError:
        raise
    except ValueError as e:
        raise UsageError(f"{args.input}: {e}") from None
    out.input_files = list(getattr(m, "input_files", []))
    report = save(out, args.output, args.to, overwrite_input=args.force)
    if not loss.lossless:
        report.lose(f"frames of {args.input}: {loss.describe()}", kind="approximated")
    for w in m.warnings + out.warnings:
        report.warn(w, kind=getattr(w, "kind", None))
    from ..model import Trajectory
    rate = args.rate if isinstance(out, Trajectory) else out.frame_rate
    method = "linear" if isinstance(out, Trajectory) else args.method
    timed = " with frame times" if getattr(m, "times", None) is not None else ""
    print(f"{args.input}: {loss.frames_before} frames{timed} -> {loss.frames_after} frames at "
          f"{rate:g} fps ({method})")
    from ._common import cli_words
    print(cli_words(str(report)))
    return 0


def _frames(spec: str, n: int, path: str):
    import numpy as np
    if spec == "all":
        return np.arange(n)
    if ":" in spec:
        try:
            parts = [int(x) if x.strip() else None for x in spec.split(":")]
            if len(parts) > 3:
                raise ValueError
        except ValueError:
            raise UsageError(f"--frames: {spec!r} is not a slice like '::100' or '10:20'") from None
        if parts[2:] == [0]:
            raise UsageError("--frames: the slice step cannot be 0")
        return np.arange(n)[slice(*parts)]
    try:
        idx = np.array([int(x) for x in spec.replace(",", " ").split()])
    except ValueError:
        raise UsageError("--frames: frame indices, 'all' or a slice like '::100'") from None
    if len(idx) and (idx.min() < -n or idx.max() >= n):
        raise UsageError(f"--frames: {path} has {n} frames")
    return idx % n if n else idx


def run_fk(args):
    import numpy as np
    from . import _progress
    from ..model.timeline import fit_warnings, timeline
    m = _motion(args.motion)
    robot = pick_robot(load(args.model), path=args.model)
    try:
        tl = timeline(m, robot)
    except RoboioError:
        raise
    except ValueError as e:
        raise UsageError(f"{args.motion} on {args.model}: {e}") from None
    for w in fit_warnings(m, robot):
        print(f"roboio: warning: {args.motion}: {w}", file=sys.stderr)
    idx = _frames(args.frames, tl.num_frames, args.motion)
    order = robot.source_link_order if robot.source_link_order is not None else range(robot.num_links)
    names = args.link or [robot.links[i].name for i in order]
    links = link_indices(robot, names, args.model)
    try:
        with _progress.activity(f"forward kinematics of {len(idx)} frames"):
            T = tl.transforms_at(idx)     # only the frames printed
    except RoboioError:
        raise
    except ValueError as e:
        raise UsageError(f"{args.motion}: {e}") from None
    times = tl.times
    if args.json:
        frames = []
        with _progress.bar(len(idx), "frames", "frame") as bar:
            for f, i in enumerate(idx):
                frames.append({"frame": int(i), "time": float(times[i]), "transforms": T[f, links].tolist()})
                bar.update()
        print(dump_json({"links": names, "frames": frames}))
        return 0
    width = max(20, max((len(n) for n in names), default=0))
    with _progress.bar(len(idx), "frames", "frame", prints=True) as bar:
        for f, i in enumerate(idx):
            print(f"frame {int(i)} (t = {times[i]:g} s)")
            for n, k in zip(names, links):
                p = T[f, k, :3, 3]
                print(f"  {n:{width}s} {p[0]: .6f} {p[1]: .6f} {p[2]: .6f}")
            bar.update()
    return 0
