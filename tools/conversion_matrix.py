"""Conversion matrix over the corpus: every robot of every ecosystem x every robot writer.

For each pair: convert, read back, ``verify`` exactly as ``roboio verify SRC OUT --samples 20
--seed 1`` does (through what the conversion's report states: its renames and FK change), and
write -> read -> write to the same path must give the same bytes. Names: the source's joint
names must be in the output where the target holds them (URDF, OpenRAVE, COLLADA, Choreonoid
joint names; ``.rob`` driver names), changed only as ``report.renamed`` says, and the links
must pair by name through the renames (not by tree structure). ``verify`` itself chooses the comparison
(links or drivers, links the target welds held, a base pose the target does not store
placed) and lists what it accounted for; the tool does nothing more. A pair is ``OK`` when
verify is exact (1e-9, nothing accounted for), ``LOSS`` (stated) when verify passes within
1e-9 plus twice the FK error the report states and the report states everything verify
accounted for (held links by name, a base offset at least as large as measured, links not
written), ``FAIL`` otherwise.

Usage: ``python tools/conversion_matrix.py [--writers a,b] [ROBOT ...]`` (default: the
corpus robots at ../shared/corpus). Prints one line per pair and the counts per writer.
``--dirs`` runs ``roboio convert DIR OUT --to FORMAT`` over the corpus robot directories
instead (one line per file: converted, skipped, failed; counts per writer).
"""
from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import sys
import tempfile
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import roboio  # noqa: E402
from roboio.verify import verify  # noqa: E402

CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
WRITERS = {"klampt-rob": "r.rob", "urdf": "r.urdf", "choreonoid-body": "r.body",
           "openrave": "r.robot.xml", "collada-robot": "r.dae", "graspit": "r.xml"}
# writers checked on request only (--writers mjcf): roboio reads their outputs too
MORE_WRITERS = {"mjcf": "r.mjcf.xml"}


def corpus_robots() -> list:
    c = CORPUS
    return (sorted(glob.glob(c + "/klampt/robots/*.rob")) + sorted(glob.glob(c + "/klampt/robots/*.urdf"))
            + sorted(glob.glob(c + "/choreonoid/share/model/*/*.body"))
            + sorted(glob.glob(c + "/graspit/models/robots/*/*.xml"))
            + sorted(glob.glob(c + "/openrave/src/robots/*.robot.xml"))
            + sorted(glob.glob(c + "/openrave/src/robots/*.zae")))


def load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = roboio.load(path, **kw)
    return obj.robots[0] if isinstance(obj, roboio.World) else obj


def stated_dropped(robot, lost) -> set:
    """Links the report says were not written (a GraspIt! robot has one base: a second root
    and its subtree; links no chain holds)."""
    text = "\n".join(lost)
    tops = set(re.findall(r"link '(.+?)' is a second root", text))
    out = set(re.findall(r"link '(.+?)' is not written", text))
    for l in robot.links:            # parents come first: subtrees by one pass
        if l.name in tops or (l.parent >= 0 and robot.links[l.parent].name in out):
            out.add(l.name)
    return out


_SIZE = re.compile(r"([0-9.e+-]+) m(?:,| and) ([0-9.e+-]+) rad")


def unstated(v, lost, fk_error=(0.0, 0.0)) -> list:
    """What ``verify`` accounted for that the report does not state (with at least the
    size verify measured, for a base pose and for frames made rotations, whose FK change the
    report gives as ``fk_error``): empty when the report accounts for it all."""
    text = "\n".join(lost)
    out = []
    for item in v.accounted:
        if item.startswith("links B welds held"):
            names = item.split(": ", 1)[1].split(", ")
            out += [f"held link {n!r} not in the report" for n in names if repr(n) not in text and n not in text]
        elif item.startswith("base placed as in B"):
            m = _SIZE.search(item)
            stated = [tuple(map(float, x)) for line in lost if "base pose" in line
                      or "frame offsets inside a floating base" in line for x in _SIZE.findall(line)]
            move, turn = float(m.group(1)), float(m.group(2))
            if not any(move <= 1.01 * t + 1e-12 and turn <= 1.01 * r + 1e-12 for t, r in stated):
                out.append(f"base offset {move:.3g} m, {turn:.3g} rad not stated")
        elif item.startswith("the FK change the conversion states"):
            continue                  # the report's own fk_error: stated by definition
        elif item.startswith("A's link frames are not rotations"):
            move = float(_SIZE.search(item).group(1))
            if not any(w in text for w in ("not rotations", "not rigid", "nearest rotation")):
                out.append("frames made rotations, not stated")
            elif move > 1e-9 + 2 * fk_error[0]:    # the report measures over other samples
                out.append(f"frames made rotations move links by {move:.1e} m, the report "
                           f"states {fk_error[0]:.1e} m")
        else:
            out.append(item)
    return out


def check(src: str, fmt: str, tmp: str):
    """Convert, read back, ``verify`` exactly as ``roboio verify SRC OUT --samples 20 --seed 1
    [--map A=B for the names the report says were changed]`` does, and rewrite twice.

    ``OK``: verify is exact (within 1e-9, nothing accounted for, every link matched).
    ``LOSS``: verify passes within 1e-9 plus twice the FK error the report states, and what it
    accounted for (links held, base placed, links missing from the output) the report states.
    ``FAIL`` otherwise, or when write -> read -> write changes the bytes."""
    return check_robot(load(src), fmt, tmp)


def check_robot(robot, fmt: str, tmp: str, samples: int = 20, name: str = None):
    """:func:`check` of a robot already in memory, written into ``tmp`` (as ``name``; by
    default the file name :data:`WRITERS` gives the format)."""
    out = os.path.join(tmp, name or {**WRITERS, **MORE_WRITERS}[fmt])
    if fmt == "graspit":      # GraspIt! names a robot's links after its file
        out = os.path.join(tmp, re.sub(r"[^A-Za-z0-9_-]", "_", robot.name or "r") + ".xml")
    rep = roboio.save(robot, out, format=fmt)
    back = load(out, format=fmt)
    v = verify(robot, back, samples, seed=1, stated=rep)
    err = max(v.max_position_error, v.max_rotation_error)
    why = unstated(v, rep.lost, rep.fk_error) + names_unkept(robot, back, fmt, rep, v)
    extra = set(v.only_a) - stated_dropped(robot, rep.lost)
    if why and v.exact:
        status = "FAIL"
    elif v.exact:
        status = "OK"
    elif (err <= 1e-9 + 2 * max(rep.fk_error) and rep.lost and not why and not extra):
        status = "LOSS"
    else:
        status = "FAIL"
    roboio.save(load(out, format=fmt), out, format=fmt, overwrite_input=True)
    s1 = open(out, "rb").read()
    roboio.save(load(out, format=fmt), out, format=fmt, overwrite_input=True)
    stable = open(out, "rb").read() == s1
    if not stable and status != "FAIL":
        status = "FAIL"
    acc = "; ".join(a.split(":")[0] for a in v.accounted)
    return status, (f"pos={v.max_position_error:.1e} rot={v.max_rotation_error:.1e} space={v.space} "
                    f"only_a={len(v.only_a)} stable={stable} fk_error={max(rep.fk_error):.1e} "
                    f"worst={v.worst_link!r}" + (f" accounted=[{acc}]" if acc else "")
                    + (f" unstated={why + sorted(extra)}" if why or extra else ""))


JOINT_NAMES = ("urdf", "openrave", "collada-robot", "choreonoid-body")     # targets naming joints


def names_unkept(robot, back, fmt, rep, v) -> list:
    """Source names the output changed without ``report.renamed`` (or a warning) saying so:
    joint names (:func:`roboio.formats.naming.joint_names`) for targets that name joints,
    driver names for ``.rob``; and links that pair only by tree structure."""
    from roboio.formats.naming import joint_names

    def new(name, table):
        x = table.get(name, name)
        return x if isinstance(x, list) else [x]
    out = []
    if v.matched_by == "structure":
        out.append("links pair by tree structure only (renames not stated)")
    joints = rep.renamed.get("joints", {})
    if fmt in JOINT_NAMES:
        have = {l.joint_name for l in back.links} | {d.name for d in back.drivers}
        want = [n for n in joint_names(robot) if n is not None]
    elif fmt == "klampt-rob":
        have = {d.name for d in back.drivers}
        want = [d.name for d in robot.drivers]
    else:
        return out
    said = "\n".join(rep.warnings)
    lost = [n for n in dict.fromkeys(want) if not any(x in have for x in new(n, joints))
            and f"{n} (" not in said]
    if lost:
        out.append(f"joint names not kept nor renamed: {', '.join(lost[:8])}")
    return out


ROBOT_DIRS = ["klampt/robots", "choreonoid/share/model", "graspit/models/robots", "openrave/src/robots"]


def directories(writers, tmp_root) -> None:
    """``roboio convert DIR OUT --to FORMAT --json`` over the corpus robot directories: every
    file converted, skipped or failed, each on one line; the counts per writer."""
    import contextlib
    import io
    import json
    from roboio.cli.main import main as cli
    for fmt in writers:
        total = collections.Counter()
        for d in ROBOT_DIRS:
            out = tempfile.mkdtemp(dir=tmp_root)
            buf, err = io.StringIO(), io.StringIO()
            t0 = time.time()
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err), \
                    warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rc = cli(["--quiet", "convert", os.path.join(CORPUS, d), out, "--to", fmt, "--json"])
            res = json.loads(buf.getvalue())
            for f in res["files"]:
                what = ("skipped: " + f["skipped"]) if f.get("skipped") else (
                    f"{len(f['lost'])} lost" if f["ok"] else "FAILED: " + " ".join(f["error"].split())[:160])
                print(f"  {os.path.relpath(f['input'], CORPUS)} -> {fmt}: {what}")
            c = collections.Counter(converted=res["converted"], skipped=res["skipped"], failed=res["failed"])
            total += c
            print(f"DIR   {d} -> {fmt}: exit {rc}, {c['converted']} converted, {c['skipped']} skipped, "
                  f"{c['failed']} failed of {len(res['files'])} ({time.time() - t0:.0f}s)", flush=True)
        print(f"DIRS  {fmt:16} converted {total['converted']}  skipped {total['skipped']}  "
              f"failed {total['failed']}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("robots", nargs="*")
    ap.add_argument("--writers", default=",".join(WRITERS))
    ap.add_argument("--dirs", action="store_true", help="instead: roboio convert DIR OUT --to FORMAT "
                    "over the corpus robot directories, one line per file, counts per writer")
    args = ap.parse_args(argv)
    writers = args.writers.split(",")
    if args.dirs:
        directories(writers, tempfile.mkdtemp(prefix="roboio-matrix-dirs-"))
        return 0
    counts = collections.defaultdict(collections.Counter)
    tmp_root = tempfile.mkdtemp(prefix="roboio-matrix-")
    for src in args.robots or corpus_robots():
        try:
            load(src)
        except Exception as e:  # noqa: BLE001  (a robot roboio refuses, as its program does)
            print(f"SKIP {os.path.relpath(src, CORPUS)}: {str(e)[:120]}")
            continue
        for fmt in writers:
            t0 = time.time()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    status, msg = check(src, fmt, tempfile.mkdtemp(dir=tmp_root))
            except Exception as e:  # noqa: BLE001
                status, msg = "ERROR", f"{type(e).__name__}: {str(e)[:200]}"
            counts[fmt][status] += 1
            print(f"{status:5} {os.path.relpath(src, CORPUS)} -> {fmt}: {msg} ({time.time() - t0:.1f}s)",
                  flush=True)
    print()
    for fmt in writers:
        c = counts[fmt]
        print(f"{fmt:16} " + "  ".join(f"{k} {c[k]}" for k in ("OK", "LOSS", "FAIL", "ERROR")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
