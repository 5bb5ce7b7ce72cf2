"""roboio validate: load a file and report every problem."""
import numpy as np

from ..api import load
from ..model import Group, Robot, TriangleMesh, World
from ._common import dump_json


def register(sub):
    p = sub.add_parser("validate", help="load a file and report every problem (exit 1 if any)")
    p.add_argument("path")
    p.add_argument("--strict", action="store_true", help="warnings are errors (stop at the first)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def _geoms(obj):
    if isinstance(obj, Robot):
        return [(f"link {l.name!r}", l.geometry) for l in obj.links]
    if isinstance(obj, World):
        out = []
        for r in obj.robots:
            out += [(f"robot {r.name!r} {w}", g) for w, g in _geoms(r)]
        out += [(f"rigid object {o.name!r}", o.geometry) for o in obj.rigid_objects]
        out += [(f"terrain {t.name!r}", t.geometry) for t in obj.terrains]
        return out
    g = getattr(obj, "geometry", None)
    return [("geometry", g)] if g is not None else []


def _meshes(g):
    if isinstance(g, TriangleMesh):
        yield g
    elif isinstance(g, Group):
        for c in g.children:
            yield from _meshes(c)


def _robot_checks(r: Robot, where=""):
    out = []
    bad = np.nonzero(r.qmin > r.qmax)[0]
    for i in bad:
        out.append(f"{where}link {r.link_names[i]!r}: qmin {r.qmin[i]} > qmax {r.qmax[i]}")
    for name in Robot.LIMIT_NAMES:
        arr = getattr(r, name)
        for i in np.nonzero(np.isnan(arr))[0]:
            out.append(f"{where}link {r.link_names[i]!r}: {name} is NaN")
    for l in r.links:
        if l.mass < 0:
            out.append(f"{where}link {l.name!r}: negative mass {l.mass}")
    covered = {i for j in r.joints for i in j.links}
    if r.joints:
        for i in range(r.num_links):
            if i not in covered:
                out.append(f"{where}link {r.link_names[i]!r} belongs to no joint")
    return out


def run(args):
    obj = load(args.path, strict=args.strict)
    problems = list(getattr(obj, "warnings", []))
    for where, g in _geoms(obj):
        for m in _meshes(g):
            if m.missing:
                continue
            try:
                m.load()
            except (ValueError, OSError) as e:
                problems.append(f"{where}: {e}")
    robots = [obj] if isinstance(obj, Robot) else (obj.robots if isinstance(obj, World) else [])
    for r in robots:
        problems += _robot_checks(r, f"robot {r.name!r}: " if isinstance(obj, World) else "")
        for w in getattr(r, "warnings", []):
            if w not in problems:
                problems.append(w)
    if args.json:
        print(dump_json({"path": args.path, "ok": not problems, "problems": problems}))
    else:
        for p in problems:
            print(p)
        print(f"{args.path}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 0 if not problems else 1
