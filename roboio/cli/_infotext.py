"""The text ``roboio info`` prints, made from the JSON summary
(:func:`roboio.describe.summary`), so that text and ``--json`` never disagree.

Robots: a header (name, format, counts, mass, geometry), then the link table or, with
``--tree``, the kinematic tree, then the joints in ``--config`` order. Worlds: the same per
robot, then the rigid objects and terrains. Other kinds: ``key: value`` lines.
"""
from __future__ import annotations

import math
import sys

from ._common import cli_words

__all__ = ["render", "limits_text", "tree_lines"]


def _unicode() -> bool:
    """Whether stdout takes the tree's box-drawing characters (a StringIO does)."""
    enc = getattr(sys.stdout, "encoding", None)
    if enc is None:
        return True
    try:
        "└─×°".encode(enc)
        return True
    except (UnicodeEncodeError, LookupError):
        return False


class _Glyphs:
    def __init__(self, uni: bool):
        self.tee, self.last, self.pipe, self.blank = ("├─ ", "└─ ", "│  ", "   ") if uni else \
            ("|- ", "`- ", "|  ", "   ")
        self.times = "×" if uni else "x"
        self.deg = "°" if uni else " deg"


def _num(x, digits: int = 6) -> str:
    if isinstance(x, str):          # "inf" / "-inf" / "nan" from the JSON form
        return x
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}"


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}{'es' if word.endswith(('sh', 'x')) else 's'}"


def limits_text(lower, upper, prismatic: bool, g: _Glyphs, rad: bool = True) -> str:
    """``±90° (±1.5708 rad)``, ``-10°..90° (-0.17453..1.5708 rad)``, ``0..0.04 m``; None or
    infinite bounds are unbounded. ``rad=False`` leaves the radians out."""
    lo = -math.inf if lower in (None, "-inf") else float(lower)
    hi = math.inf if upper in (None, "inf") else float(upper)
    if not (math.isfinite(lo) or math.isfinite(hi)):
        return "unbounded"
    if prismatic:
        if lo == -hi:
            return f"±{_num(hi)} m"
        return f"{_num(lo)}..{_num(hi)} m"

    def deg(x):
        return _num(math.degrees(x), 5) + g.deg if math.isfinite(x) else _num(x)
    if lo == -hi:
        return f"±{deg(hi)}" + (f" (±{_num(hi, 5)} rad)" if rad else "")
    return f"{deg(lo)}..{deg(hi)}" + (f" ({_num(lo, 5)}..{_num(hi, 5)} rad)" if rad else "")


def _axis(a) -> str:
    if a is None:
        return ""
    a = [0.0 if abs(float(c)) < 1e-12 else float(c) for c in a]
    names = {(1, 0, 0): "x", (0, 1, 0): "y", (0, 0, 1): "z"}
    for v, n in names.items():
        if list(a) == list(v):
            return n
        if list(a) == [-c for c in v]:
            return "-" + n
    return "(" + " ".join(_num(c, 4) for c in a) + ")"


_PRIMITIVE_WORDS = {"AABB": "box", "Box": "box"}


def geometry_text(parts, count_one: bool = False) -> str:
    if not parts:
        return "no geometry"
    out = []
    for kind, n in parts.items():
        if kind == "mesh":
            out.append(_plural(n, "mesh"))
        elif kind == "point cloud":
            out.append(_plural(n, "point cloud"))
        elif kind == "missing":
            out.append(f"{n} missing")
        else:
            w = _PRIMITIVE_WORDS.get(kind, kind.lower())
            out.append(w if n == 1 and not count_one else _plural(n, w))
    return ", ".join(out)


def _mass(m) -> str:
    return f"{_num(m, 4)} kg"


def _mimic_text(m, g: _Glyphs) -> str:
    if "function" in m:                # a nonlinear coupling
        return f"coupled to joint {m['driver']} by {m['function']}"
    ratio = f"{g.times}{_num(m['multiplier'], 6)}"
    off = f" {'+' if m['offset'] >= 0 else '-'} {_num(abs(m['offset']), 6)}" if m["offset"] else ""
    if m.get("leader"):
        return f"mimic {m['leader']} {ratio}{off}"
    return f"coupled to joint {m['driver']} {ratio}{off}"


def _joint_text(t: dict, g: _Glyphs) -> str:
    """``revolute shoulder_pan_joint, axis z, ±360° (±6.2832 rad), mimic ...`` for the tree."""
    bits = [t["type"] + (f" {t['name']}" if t.get("name") else "")]
    j = t.get("joint")
    if j is not None and j not in (t["child"], t.get("name")) and not t.get("mimic"):
        bits[0] += f" (joint {j})"
    if t.get("axis") is not None:
        bits.append("axis " + _axis(t["axis"]))
    if t["type"] in ("revolute", "prismatic"):
        bits.append(limits_text(t.get("lower"), t.get("upper"), t["type"] == "prismatic", g))
    if t.get("mimic"):
        bits.append(_mimic_text(t["mimic"], g))
    return ", ".join(bits)


def tree_lines(s: dict, g: _Glyphs = None) -> list:
    """The kinematic tree of a robot summary, ``check_urdf`` style: ``world`` at the top,
    each link under its parent with the joint that attaches it."""
    g = g or _Glyphs(_unicode())
    tree = s["tree"]
    children: dict = {}
    for t in tree:
        children.setdefault(t["parent"], []).append(t)
    out = ["world"]

    def walk(parent, prefix):
        kids = children.get(parent, [])
        for n, t in enumerate(kids):
            last = n == len(kids) - 1
            virtual = len(t["links"]) - 1
            hidden = f", {virtual} virtual links" if virtual > 0 else ""
            out.append(f"{prefix}{g.last if last else g.tee}{t['child']}  "
                       f"[{_joint_text(t, g)}{hidden}]  {_mass(t['mass'])}, "
                       f"{geometry_text(t['geometry'])}")
            walk(t["child"], prefix + (g.blank if last else g.pipe))
    walk(None, "")
    return out


def _table(rows, header, indent="  ") -> list:
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = []
    for r in [header] + rows:
        cells = [str(c).ljust(w) for c, w in zip(r, widths)]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def robot_lines(s: dict, tree: bool, g: _Glyphs, indent: str = "") -> list:
    virtual = sum(1 for l in s["links"] if l.get("joint") == "virtual")
    mimics = sum(1 for t in s["tree"] if t.get("mimic"))
    types = ", ".join(f"{n} {t}" for t, n in s["joint_types"].items())
    geom: dict = {}
    for t in s["tree"]:
        for k, n in t["geometry"].items():
            geom[k] = geom.get(k, 0) + n
    names = [j["name"] for j in s["joints"]]
    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    # summary lines under the file's header line; in a world, level with the sections
    sub = indent or "  "
    out = [f"{sub}{_plural(s['num_links'], 'link')}"
           + (f" ({virtual} virtual)" if virtual else "") + f", mass {_mass(s['mass'])}",
           f"{sub}joints: {types or 'none'}" + (f" ({mimics} mimic)" if mimics else ""),
           f"{sub}{_plural(s['num_joints'], 'actuated joint')} (the --config joint vector)"
           + (f": {shown}" if names else ""),
           f"{sub}geometry: {geometry_text(geom, count_one=True)}"
           + (f" ({s['meshes_not_loaded']} not loaded yet)" if s.get("meshes_not_loaded") else "")
           + f"; {_plural(s['self_collision_pairs'], 'self-collision pair')}"]
    if tree:
        out += [sub + line for line in tree_lines(s, g)]
    else:
        rows = []
        by_child = {t["child"]: t for t in s["tree"]}
        names = [l["name"] for l in s["links"]]
        for l in s["links"]:
            t = by_child.get(l["name"])
            parent = names[l["parent"]] if l["parent"] >= 0 else "-"
            if t is None:
                rows.append((l["index"], l["name"], parent, "(virtual)", "", "", "", "", ""))
                continue
            jt = t["type"] + (f" {t['name']}" if t.get("name") else "")
            if len(t["links"]) > 1:
                others = t["links"][:-1]
                jt += f" (with {others[0]}..{others[-1]})" if len(others) > 2 else \
                    f" (with {', '.join(others)})"
            lim = limits_text(t.get("lower"), t.get("upper"), t["type"] == "prismatic", g, rad=False) \
                if t["type"] in ("revolute", "prismatic") else ""
            rows.append((l["index"], l["name"], parent, jt, _axis(t.get("axis")), lim,
                         _mass(l["mass"]), geometry_text(t["geometry"]),
                         _mimic_text(t["mimic"], g) if t.get("mimic") else ""))
        out.append(f"{indent}links:")
        out += _table(rows, ("#", "name", "parent", "joint", "axis", "limits", "mass", "geometry",
                             ""), indent + "  ")
    out.append(f"{indent}joints (the order of --config joint values; radians and metres):")
    if not s["joints"]:
        out.append(f"{indent}  none")
    else:
        rows = []
        file_names = any(j.get("file_joint") and j["file_joint"] != j["name"] for j in s["joints"])
        for j in s["joints"]:
            lim = limits_text(j["lower"], j["upper"], j["unit"] == "m", g)
            row = (j["index"], j["name"]) + ((j.get("file_joint") or "",) if file_names else ()) \
                + (j["type"], lim, _num(j["initial"]), ", ".join(j["links"]))
            rows.append(row)
        header = ("#", "name") + (("file joint",) if file_names else ()) \
            + ("type", "limits", "initial", "moves links")
        out += _table(rows, header, indent + "  ")
    return out


def _tail(s: dict, indent: str = "") -> list:
    out = []
    files = s.get("files") or []
    if files:
        out.append(f"{indent}referenced files ({len(files)}):")
        out += [f"{indent}  {f}" for f in files]
    # every problem of the load with its severity, errors first (and the hint that fixes it)
    from ..diagnostics import as_diagnostics, by_severity, fold
    for line in fold(by_severity(as_diagnostics(s.get("warnings") or [])), verbose=True):
        out.append(f"{indent}{cli_words(line)}")
    return out


def render(path: str, s: dict, tree: bool = False) -> list:
    """The lines ``roboio info`` prints for the summary ``s`` of ``path``."""
    g = _Glyphs(_unicode())
    fmt = f" ({s['format']})" if s.get("format") else ""
    kind = s.get("kind")
    if kind == "robot":
        return [f"{path}: robot {s['name']!r}{fmt}"] + robot_lines(s, tree, g) + _tail(s)
    if kind == "world":
        out = [f"{path}: world {s['name']!r}{fmt}: {_plural(len(s['robots']), 'robot')}, "
               f"{_plural(len(s['rigid_objects']), 'rigid object')}, "
               f"{_plural(len(s['terrains']), 'terrain')}"]
        for r in s["robots"]:
            out.append(f"robot {r['name']!r}:")
            out += robot_lines(r, tree, g, "  ")
            out += _tail({"files": r.get("files")}, "  ")
        for o in s["rigid_objects"]:
            pos = " ".join(_num(x, 6) for x in o["position"])
            out.append(f"rigid object {o['name']!r}: {_mass(o['mass'])} at ({pos}), "
                       f"{o['geometry']}")
        for t in s["terrains"]:
            out.append(f"terrain {t['name']!r}: {t['geometry']}")
        return out + _tail({"warnings": s.get("warnings")})
    out = [f"{path}:"]
    _print_generic(s, 1, out)
    return out


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, list) and v and all(isinstance(x, (int, float)) for x in v) and len(v) <= 12:
        return " ".join(_fmt(x) for x in v)
    return str(v)


def _print_generic(s, depth, out):
    pad = "  " * depth
    for k, v in s.items():
        if isinstance(v, list) and not v:
            continue
        if isinstance(v, list) and v and isinstance(v[0], dict):
            out.append(f"{pad}{k}:")
            for item in v:
                out.append(f"{pad}  -")
                _print_generic(item, depth + 2, out)
        elif isinstance(v, list) and len(v) > 12:
            out.append(f"{pad}{k}: [{len(v)} values] " + " ".join(_fmt(x) for x in v[:6]) + " ...")
        elif isinstance(v, list) and v and isinstance(v[0], str):
            out.append(f"{pad}{k}:")
            out.extend(f"{pad}  {x}" for x in v)
        elif isinstance(v, dict):
            out.append(f"{pad}{k}: " + ", ".join(f"{a}={_fmt(b)}" for a, b in v.items()))
        else:
            out.append(f"{pad}{k}: {_fmt(v)}")
