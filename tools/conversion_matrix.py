"""Conversion matrix over the corpus: every robot of every ecosystem x every robot writer.

For each pair: convert, read back, ``verify`` (within 1e-9, or within twice the FK error the
report states), and write -> read -> write to the same path must give the same bytes. Links
the report says were renamed are matched under their new names. A pair whose target welds
links the source moves (a GraspIt! palm does not move; OpenRAVE holds undriven joints at 0)
is checked again with those links welded in the source at the target's value: when that
passes and the report states losses, the pair counts as ``LOSS`` (stated), not as a
failure.

Usage: ``python tools/conversion_matrix.py [--writers a,b] [ROBOT ...]`` (default: the
corpus robots at ../shared/corpus). Prints one line per pair and the counts per writer.
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

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import roboio  # noqa: E402
from roboio.model import Driver, Joint  # noqa: E402
from roboio.verify import verify  # noqa: E402

CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
WRITERS = {"klampt-rob": "r.rob", "urdf": "r.urdf", "choreonoid-body": "r.body",
           "openrave": "r.robot.xml", "collada-robot": "r.dae", "graspit": "r.xml"}


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


def welded_like(a, b, renamed=None):
    """A copy of ``a`` whose links that ``b`` welds (by name; ``renamed`` maps a's names to
    b's) are welded, at ``b``'s value."""
    back = {v: k for k, v in (renamed or {}).items()}
    wb = {back.get(b.links[i].name, b.links[i].name): b.config[i]
          for j in b.joints if j.type == "weld" for i in j.links}
    out = a.copy()
    for i, l in enumerate(out.links):
        if l.name in wb:
            out.config[i] = wb[l.name]
    weld = [i for i, l in enumerate(out.links) if l.name in wb]
    if not weld:
        return None
    joints = []
    for j in out.joints:
        rest = [i for i in j.links if i not in weld]
        if rest and j.type in ("normal", "spin", "weld"):
            joints.append(j)
    out.joints = [j for j in joints if not set(j.links) & set(weld)] + [Joint("weld", [i]) for i in weld]
    out.drivers = [d for d in out.drivers if not set(d.dofs) & set(weld)]
    return out


def passes(v, tol, dropped=frozenset()) -> bool:
    """Within ``tol``, every link of A matched but those the report says were not written."""
    return (bool(v.matched) and set(v.only_a) <= set(dropped) and v.max_position_error <= tol
            and v.max_rotation_error <= tol)


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


def rebased(a, b, renamed=None, links=None):
    """A copy of ``a`` whose root links (or the links named in ``links``) are placed as
    ``b``'s links of the same name (a target without a base pose: GraspIt! robot files; a
    floating base whose offsets became its configuration: Choreonoid), or None when nothing
    changes."""
    names = {n: i for i, n in enumerate(b.link_names)}
    out = a.copy()
    changed = False
    for l in out.links:
        j = names.get((renamed or {}).get(l.name, l.name))
        if (l.parent < 0 if links is None else l.name in links) and j is not None:
            T = b.links[j].parent_transform
            if not np.array_equal(T, l.parent_transform):
                l.parent_transform = np.array(T, float)
                changed = True
    return out if changed else None


def driven(a):
    """A copy of ``a`` with a driver of its own (named after the link) for every moving link
    no driver moves, as the GraspIt! writer gives it a DOF: the same kinematics, compared
    DOF by DOF with the target."""
    moved = {i for d in a.drivers for i in d.dofs}
    welded = {i for j in a.joints if j.type == "weld" for i in j.links}
    names = {d.name for d in a.drivers}
    extra = [i for i in range(a.num_links) if i not in moved and i not in welded
             and a.links[i].name and a.links[i].name not in names]
    if not extra:
        return None
    out = a.copy()
    out.drivers = list(out.drivers) + [Driver(a.links[i].name, "normal", [i], qmin=a.qmin[i], qmax=a.qmax[i])
                                       for i in extra]
    return out


def stated_variants(robot, back, rep, renamed):
    """The source with the losses the report states applied: links the target welds welded
    at its value, and the base pose dropped where the report says so."""
    text = "\n".join(rep.lost)
    bases = [robot]
    if "base pose" in text:
        r = rebased(robot, back, renamed)
        if r is not None:
            bases.append(r)
    m = re.search(r"frame offsets inside a floating base \(.*?\): (.+?) \(largest offset", text)
    if m:
        r = rebased(robot, back, renamed, set(m.group(1).split(", ")))
        if r is not None:
            bases.append(r)
    out = []
    for a in bases:
        w = welded_like(a, back, renamed)
        for x in (a, w):
            if x is not None:
                out += [x] + [y for y in [driven(x)] if y is not None]
    return out[1:]


def check(src: str, fmt: str, tmp: str):
    robot = load(src)
    out = os.path.join(tmp, WRITERS[fmt])
    if fmt == "graspit":      # GraspIt! names a robot's links after its file
        out = os.path.join(tmp, re.sub(r"[^A-Za-z0-9_-]", "_", robot.name or "r") + ".xml")
    rep = roboio.save(robot, out, format=fmt)
    back = load(out, format=fmt)
    tol = 1e-9 + 2 * max(rep.fk_error)
    # names the report says were changed (OpenRAVE reads names up to the first space)
    renamed = dict(re.findall(r"link name '(.+?)' written as '(.+?)'", "\n".join(rep.lost)))
    v = verify(robot, back, 20, seed=1, link_map=renamed or None)
    status = "OK" if passes(v, tol) else "FAIL"
    if status == "FAIL" and rep.lost:
        dropped = stated_dropped(robot, rep.lost)
        # losses the report states: compare with those applied to the source
        for w in stated_variants(robot, back, rep, renamed):
            for space in ("links", "drivers"):
                try:
                    v2 = verify(w, back, 20, seed=1, link_map=renamed or None, space=space)
                except ValueError:        # drivers that do not correspond
                    continue
                if passes(v2, tol, dropped):
                    status, v = "LOSS", v2
                    break
            if status == "LOSS":
                break
    roboio.save(load(out, format=fmt), out, format=fmt, overwrite_input=True)
    s1 = open(out, "rb").read()
    roboio.save(load(out, format=fmt), out, format=fmt, overwrite_input=True)
    stable = open(out, "rb").read() == s1
    if not stable and status != "FAIL":
        status = "FAIL"
    return status, (f"pos={v.max_position_error:.1e} rot={v.max_rotation_error:.1e} space={v.space} "
                    f"only_a={len(v.only_a)} stable={stable} fk_error={max(rep.fk_error):.1e} "
                    f"worst={v.worst_link!r}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("robots", nargs="*")
    ap.add_argument("--writers", default=",".join(WRITERS))
    args = ap.parse_args(argv)
    writers = args.writers.split(",")
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
