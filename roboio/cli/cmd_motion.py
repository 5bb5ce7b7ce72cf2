"""roboio motion: Choreonoid body motions (.seq) -- resample, link poses per frame."""
from __future__ import annotations

from ..errors import LimitExceeded, RoboioError
from ._common import add_force_option, dump_json, format_option, load, save
from ._help import add_command
from .main import UsageError


def register(sub):
    p = add_command(
        sub, "motion", help="Choreonoid body motions: resample, link poses per frame",
        description="Work on Choreonoid body motions (.seq): resample them to a fixed frame "
        "rate, or compute the world transforms of a body's links along them.",
        examples=["roboio motion resample walk.seq walk50.seq --rate 50",
                  "roboio motion fk walk.seq --body SR1.body --frames ::100 --link WAIST"])
    msub = p.add_subparsers(dest="motion_command", metavar="ACTION")
    r = add_command(
        msub, "resample", help="convert to a fixed frame rate (Choreonoid's import of "
        "frame-time data, or linear/slerp interpolation)",
        examples=["roboio motion resample timed.seq fixed.seq --rate 100",
                  "roboio motion resample walk.seq walk_v4.seq --to choreonoid-seq-v4 --method linear"])
    r.add_argument("input", help="the body motion to read (.seq)")
    r.add_argument("output", help="the file to write")
    r.add_argument("--rate", type=float, help="frames per second (default: the motion's own rate)")
    r.add_argument("--method", choices=("hold", "linear"), default="hold",
                   help="hold: Choreonoid's rule (frame int(t*rate), zero-order hold); "
                        "linear: interpolate values and positions, slerp rotations")
    r.add_argument("--to", metavar="FORMAT", help="output format (e.g. choreonoid-seq-v4)")
    add_force_option(r)
    r.set_defaults(func=run_resample)
    f = add_command(
        msub, "fk", help="world transforms of a body's links along a motion",
        description="World positions of a body's links at frames of a motion: joint "
        "displacements by joint id, the root pose from the motion's link positions when it has "
        "them. Text: one line per link and frame; --json: 4x4 matrices.",
        examples=["roboio motion fk walk.seq --body SR1.body --frames 0,100,200",
                  "roboio motion fk walk.seq --body SR1.body --frames all --json > poses.json"])
    f.add_argument("motion", help="the body motion (.seq)")
    f.add_argument("--body", required=True, metavar="MODEL", help="the body model (.body file)")
    f.add_argument("--frames", default="0", help="frame indices, e.g. '0,100,200' or 'all' or "
                   "'::100' (Python slice; default 0)")
    f.add_argument("--link", action="append", metavar="LINK",
                   help="only this link (repeatable; default: every link in the model's order)")
    f.add_argument("--json", action="store_true",
                   help='machine-readable: {"links", "frames": [{"frame", "time", "transforms"}]}')
    f.set_defaults(func=run_fk)
    p.set_defaults(func=lambda args: (_ for _ in ()).throw(UsageError("choose an action: resample, fk")))


def _motion(path):
    from ..model.body_motion import BodyMotion
    m = load(path)
    if not isinstance(m, BodyMotion):
        raise UsageError(f"{path} holds a {type(m).__name__}, not a Choreonoid body motion")
    return m


def run_resample(args):
    format_option(args.to, "--to", "write")
    if args.rate is not None and not (args.rate > 0 and args.rate != float("inf")):
        raise UsageError("--rate must be a positive number of frames per second")
    m = _motion(args.input)
    try:
        out = m.resampled(args.rate, args.method)
    except LimitExceeded as e:
        raise LimitExceeded(f"{args.input}: {e}") from None
    except RoboioError:
        raise
    except ValueError as e:
        raise UsageError(str(e)) from None
    out.input_files = list(m.input_files)
    report = save(out, args.output, args.to, overwrite_input=args.force)
    for w in m.warnings + out.warnings:
        report.warn(w)
    print(f"{args.input}: {m.num_frames} frames{' with frame times' if m.times is not None else ''} "
          f"-> {out.num_frames} frames at {out.frame_rate:g} fps ({args.method})")
    from ._common import cli_words
    print(cli_words(str(report)))
    return 0


def _frames(spec: str, n: int):
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
        raise UsageError(f"--frames: the motion has {n} frames")
    return idx % n if n else idx


def run_fk(args):
    import numpy as np
    from . import _progress
    m = _motion(args.motion)
    body = load(args.body)
    from ..model import Robot
    if not isinstance(body, Robot):
        raise UsageError(f"{args.body} holds a {type(body).__name__}, not a body model")
    idx = _frames(args.frames, m.num_frames)
    try:
        with _progress.activity(f"forward kinematics of {len(idx)} frames"):
            T = m.link_transforms(body, frames=idx)     # only the frames printed
    except RoboioError:
        raise
    except ValueError as e:
        raise UsageError(str(e)) from None
    order = body.source_link_order if body.source_link_order is not None else range(body.num_links)
    names = args.link or [body.links[i].name for i in order]
    try:
        links = [body.link_index(n) for n in names]
    except KeyError as e:
        raise UsageError(str(e)) from None
    times = m.times if m.times is not None else np.arange(m.num_frames) / (m.frame_rate or 1.0)
    if args.json:
        frames = []
        with _progress.bar(len(idx), "frames", "frame") as bar:
            for f, i in enumerate(idx):
                frames.append({"frame": int(i), "time": float(times[i]), "transforms": T[f, links].tolist()})
                bar.update()
        print(dump_json({"links": names, "frames": frames}))
        return 0
    with _progress.bar(len(idx), "frames", "frame", prints=True) as bar:
        for f, i in enumerate(idx):
            print(f"frame {int(i)} (t = {times[i]:g} s)")
            for n, k in zip(names, links):
                p = T[f, k, :3, 3]
                print(f"  {n:20s} {p[0]: .6f} {p[1]: .6f} {p[2]: .6f}")
            bar.update()
    return 0
