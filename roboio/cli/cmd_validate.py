"""roboio validate: load a file and report every problem."""
from ._common import dump_json, load
from ._help import add_command


def register(sub):
    p = add_command(
        sub, "validate", help="load a file and report every problem (exit 1 if any)",
        description="Load a file, every mesh it references and every robot in it, and list "
        "every problem: warnings of the readers (what the original program ignores or stops "
        "at), missing or unreadable files, inconsistent limits, NaNs, negative masses, links "
        "in no joint. Exit status 0 when clean, 1 when there is a problem.",
        examples=["roboio validate ur5.urdf", "roboio validate tx90cuptable.xml --json",
                  "roboio validate robot.rob --strict   # stop at the first warning"])
    p.add_argument("path", help="file to check (any format roboio reads)")
    p.add_argument("--strict", action="store_true", help="warnings are errors (stop at the first)")
    p.add_argument("--json", action="store_true",
                   help="machine-readable result: path, ok, problems")
    p.set_defaults(func=run)


def _geoms(obj):
    from ..model import Robot, World
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
    from ..model import Group, TriangleMesh
    if isinstance(g, TriangleMesh):
        yield g
    elif isinstance(g, Group):
        for c in g.children:
            yield from _meshes(c)


def _robot_checks(r, where=""):
    import numpy as np
    from ..model import Robot
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
    from ..model import Robot, World
    from . import _progress
    problems = list(getattr(obj, "warnings", []))
    meshes = [(where, m) for where, g in _geoms(obj) for m in _meshes(g) if not m.missing]
    with _progress.bar(len(meshes), "loading meshes", "mesh") as bar:
        for where, m in meshes:
            try:
                m.load()
            except (ValueError, OSError) as e:
                problems.append(f"{where}: {e}")
            bar.update()
    robots = [obj] if isinstance(obj, Robot) else (obj.robots if isinstance(obj, World) else [])
    for r in robots:
        problems += _robot_checks(r, f"robot {r.name!r}: " if isinstance(obj, World) else "")
        for w in getattr(r, "warnings", []):
            if w not in problems:
                problems.append(w)
    if args.json:
        print(dump_json({"path": args.path, "ok": not problems, "problems": problems}))
    else:
        from ._common import cli_words
        for p in problems:
            print(cli_words(p))
        print(f"{args.path}: {'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 0 if not problems else 1
