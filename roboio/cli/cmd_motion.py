"""roboio motion: Choreonoid body motions (.seq) -- resample, link poses per frame."""
from __future__ import annotations

import numpy as np

from ..api import load, save
from ..errors import LimitExceeded, RoboioError
from ._common import add_force_option, check_format, dump_json
from .main import UsageError


def register(sub):
    p = sub.add_parser("motion", help="Choreonoid body motions: resample, link poses per frame")
    msub = p.add_subparsers(dest="motion_command", metavar="ACTION")
    r = msub.add_parser("resample", help="convert to a fixed frame rate (Choreonoid's import of "
                        "frame-time data, or linear/slerp interpolation)")
    r.add_argument("input")
    r.add_argument("output")
    r.add_argument("--rate", type=float, help="frames per second (default: the motion's own rate)")
    r.add_argument("--method", choices=("hold", "linear"), default="hold",
                   help="hold: Choreonoid's rule (frame int(t*rate), zero-order hold); "
                        "linear: interpolate values and positions, slerp rotations")
    r.add_argument("--to", metavar="FORMAT", help="output format (e.g. choreonoid-seq-v4)")
    add_force_option(r)
    r.set_defaults(func=run_resample)
    f = msub.add_parser("fk", help="world transforms of a body's links along a motion")
    f.add_argument("motion")
    f.add_argument("--body", required=True, metavar="MODEL", help="the body model (.body file)")
    f.add_argument("--frames", default="0", help="frame indices, e.g. '0,100,200' or 'all' or "
                   "'::100' (Python slice)")
    f.add_argument("--link", action="append", help="only these links (repeatable)")
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=run_fk)
    p.set_defaults(func=lambda args: (_ for _ in ()).throw(UsageError("choose an action: resample, fk")))


def _motion(path):
    from ..model.body_motion import BodyMotion
    m = load(path)
    if not isinstance(m, BodyMotion):
        raise UsageError(f"{path} holds a {type(m).__name__}, not a Choreonoid body motion")
    return m


def run_resample(args):
    check_format(args.to, "--to", write=True)
    if args.rate is not None and not (args.rate > 0 and np.isfinite(args.rate)):
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
    print(report)
    return 0


def _frames(spec: str, n: int) -> np.ndarray:
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
    m = _motion(args.motion)
    body = load(args.body)
    from ..model import Robot
    if not isinstance(body, Robot):
        raise UsageError(f"{args.body} holds a {type(body).__name__}, not a body model")
    idx = _frames(args.frames, m.num_frames)
    try:
        T = m.link_transforms(body)
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
        print(dump_json({"links": names, "frames": [
            {"frame": int(i), "time": float(times[i]), "transforms": T[i, links].tolist()} for i in idx]}))
        return 0
    for i in idx:
        print(f"frame {int(i)} (t = {times[i]:g} s)")
        for n, k in zip(names, links):
            p = T[i, k, :3, 3]
            print(f"  {n:20s} {p[0]: .6f} {p[1]: .6f} {p[2]: .6f}")
    return 0
