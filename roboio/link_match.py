"""Which link of robot B is which link of robot A: the correspondence ``roboio verify`` (and
any comparison of two models of one robot) works on.

:func:`match_links` tries, in order:

1. **names** -- A's link names, through the renames a conversion states
   (``ConversionReport.renamed``: a writer changed what the target forbids) and a user's
   ``link_map`` (exact pairs, ``*`` prefix rules), equal to B's. A name a robot uses several
   times (a gripper mounted twice without a prefix) pairs occurrence by occurrence, in link
   order;
2. **joint names** -- links still unpaired whose joint names (``Link.joint_name``, through
   the stated joint renames) are equal and unique on both sides;
3. **tree structure**, when names do not pair every link of both robots one to one (and no
   ``link_map`` says which link is which): both
   trees must have the same shape; roots, then the children of paired links, are paired by
   their poses at the zero configuration relative to their parents (nearest first; welded
   links at their configured value), subtree sizes and joint kinds agreeing. It is used
   when it pairs more links than the names do;
4. **place** (with ``place=True``: ``roboio diff``), when the trees differ in shape (a link
   added as well as one renamed): a link
   left unpaired whose parent is paired with a B link's parent (or that is a root, as the B
   link is), of the same joint kind, pairs with that B link when each is the only such link
   on its side; repeated down the tree.

Names that pair every link win over structure, so a conversion that swaps two names is
caught: the swapped links are compared with each other and differ.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

__all__ = ["LinkMatch", "match_links", "map_name", "expected_names"]


def map_name(name: str, link_map: Optional[dict]) -> str:
    """``name`` of a link of A as ``link_map`` calls it in B: an exact entry, else the first
    ``*`` prefix rule that fits (``{"left_*": "l_*"}``, ``{"*": "robot1/*"}``), else ``name``."""
    if not link_map:
        return name
    if name in link_map:
        return link_map[name]
    for pat, rep in link_map.items():
        if "*" in pat:
            pre, _, post = pat.partition("*")
            if name.startswith(pre) and name.endswith(post) and len(name) >= len(pre) + len(post):
                mid = name[len(pre):len(name) - len(post)]
                return rep.replace("*", mid, 1)
    return name


@dataclass
class LinkMatch:
    """The pairs ``(index in A, index in B)`` (in A's link order), how they were found
    (``by``: "names", "joint names", "structure"), and the links left alone."""

    pairs: list
    by: str
    only_a: list = field(default_factory=list)       # A's link indices no B link pairs with
    only_b: list = field(default_factory=list)

    def names(self, ra, rb) -> dict:
        """``{A name: B name}`` of every pair (a name A repeats maps to the list of its
        occurrences' B names, in link order: ``ConversionReport.renamed``'s convention)."""
        out: dict = {}
        count: dict = {}
        for i, _ in self.pairs:
            count[ra.links[i].name] = count.get(ra.links[i].name, 0) + 1
        for i, j in self.pairs:
            a, b = ra.links[i].name, rb.links[j].name
            if count[a] > 1:
                out.setdefault(a, []).append(b)
            else:
                out[a] = b
        return out

    def changed(self, ra, rb) -> dict:
        """:meth:`names` where B's name is not A's."""
        return {a: b for a, b in self.names(ra, rb).items()
                if (b != a if isinstance(b, str) else any(x != a for x in b))}


def expected_names(names: list, renamed: Optional[dict], link_map: Optional[dict] = None) -> list:
    """A's ``names`` as B should call them: through ``renamed`` (``{old: new}``, or
    ``{old: [new per occurrence]}``), then ``link_map``."""
    seen: dict = {}
    out = []
    for n in names:
        k = seen.get(n, 0)
        seen[n] = k + 1
        new = (renamed or {}).get(n, n)
        if isinstance(new, list):
            new = new[k] if k < len(new) else n
        out.append(map_name(new, link_map))
    return out


def _by_name(want: list, have: list, done_a=(), done_b=()) -> list:
    """Pairs ``(i, j)`` with ``want[i] == have[j]`` (occurrence by occurrence), skipping the
    indices already paired."""
    slots: dict = {}
    for j, n in enumerate(have):
        if j not in done_b and n is not None:
            slots.setdefault(n, []).append(j)
    pos: dict = {}
    out = []
    for i, n in enumerate(want):
        if i in done_a or n is None or n not in slots:
            continue
        k = pos.get(n, 0)
        if k < len(slots[n]):
            out.append((i, slots[n][k]))
            pos[n] = k + 1
    return out


def _by_unique_name(want: list, have: list, done_a, done_b) -> list:
    """Pairs of names that occur once among A's unpaired and once among B's unpaired."""
    ca: dict = {}
    cb: dict = {}
    for i, n in enumerate(want):
        if i not in done_a and n is not None:
            ca.setdefault(n, []).append(i)
    for j, n in enumerate(have):
        if j not in done_b and n is not None:
            cb.setdefault(n, []).append(j)
    return [(ca[n][0], cb[n][0]) for n in ca if len(ca[n]) == 1 and len(cb.get(n, ())) == 1]


def _welded(robot) -> set:
    return {i for j in robot.joints if j.type == "weld" for i in j.links}


def _local_poses(robot) -> np.ndarray:
    """Each link's frame in its parent's at the zero configuration (welded links at their
    configured value: a URDF fixed joint holds a weld's pose)."""
    welded = _welded(robot)
    return np.array([l.joint_transform(robot.config[i] if i in welded else 0.0)
                     for i, l in enumerate(robot.links)]).reshape(-1, 4, 4)


def _kind(robot, i: int, welded: set) -> str:
    return "weld" if i in welded else robot.links[i].joint_type


def _pose_distance(Ta, Tb) -> float:
    """Translation distance plus the rotation matrices' largest entry difference."""
    return float(np.linalg.norm(Ta[:3, 3] - Tb[:3, 3]) + np.abs(Ta[:3, :3] - Tb[:3, :3]).max())


def _by_structure(ra, rb) -> Optional[list]:
    """A one-to-one pairing of two trees of the same shape (see the module docstring), or
    None when their shapes differ."""
    n = ra.num_links
    if n != rb.num_links or n == 0:
        return None
    kids_a: dict = {}
    kids_b: dict = {}
    for i, l in enumerate(ra.links):
        kids_a.setdefault(l.parent, []).append(i)
    for j, l in enumerate(rb.links):
        kids_b.setdefault(l.parent, []).append(j)
    size_a, size_b = np.ones(n, int), np.ones(n, int)
    for i in range(n - 1, -1, -1):         # topological order: children after parents
        if ra.links[i].parent >= 0:
            size_a[ra.links[i].parent] += size_a[i]
        if rb.links[i].parent >= 0:
            size_b[rb.links[i].parent] += size_b[i]
    Ta, Tb = _local_poses(ra), _local_poses(rb)
    wa, wb = _welded(ra), _welded(rb)
    pairs = []
    stack = [(-1, -1)]
    while stack:
        pa, pb = stack.pop()
        ca, cb = kids_a.get(pa, []), kids_b.get(pb, [])
        if len(ca) != len(cb):
            return None
        cost = []
        for x, i in enumerate(ca):
            for y, j in enumerate(cb):
                if size_a[i] != size_b[j] or _kind(ra, i, wa) != _kind(rb, j, wb):
                    continue
                # roots: their world poses may differ (a format without a base pose), so
                # only their shapes count
                d = 0.0 if pa < 0 else _pose_distance(Ta[i], Tb[j])
                cost.append((d, x, y))
        cost.sort()
        used_a, used_b = set(), set()
        for d, x, y in cost:
            if x in used_a or y in used_b:
                continue
            used_a.add(x)
            used_b.add(y)
            pairs.append((ca[x], cb[y]))
            stack.append((ca[x], cb[y]))
        if len(used_a) != len(ca):
            return None
    return sorted(pairs)


def _by_place(ra, rb, pairs: list) -> list:
    """Pairs of links left unpaired: an A link whose parent is paired with a B link's
    parent (or both roots), of the same joint kind, when each is the only such link on its
    side; repeated until nothing more pairs (children of new pairs then pair too)."""
    of_a = dict(pairs)
    done_b = set(of_a.values())
    wa, wb = _welded(ra), _welded(rb)
    extra = []
    while True:
        slots: dict = {}
        for i, l in enumerate(ra.links):
            if i in of_a:
                continue
            parent = -1 if l.parent < 0 else of_a.get(l.parent)
            if parent is not None:
                slots.setdefault((parent, _kind(ra, i, wa)), ([], []))[0].append(i)
        for j, l in enumerate(rb.links):
            key = (l.parent, _kind(rb, j, wb))
            if j not in done_b and key in slots:
                slots[key][1].append(j)
        new = [(xs[0], ys[0]) for xs, ys in slots.values() if len(xs) == 1 and len(ys) == 1]
        if not new:
            return extra
        for i, j in new:
            of_a[i] = j
            done_b.add(j)
        extra += new


def match_links(ra, rb, link_map: Optional[dict] = None, renamed: Optional[dict] = None,
                structure: bool = True, place: bool = False) -> LinkMatch:
    """The correspondence of ``ra``'s links with ``rb``'s (see the module docstring).
    ``renamed``: ``ConversionReport.renamed`` of the conversion A -> B (its "links" and
    "joints" entries); ``link_map``: the user's map, applied after the renames (the user
    said which link is which: no structure matching then); ``structure=False``: names
    only; ``place``: also pair links by their place in trees of different shapes."""
    renamed = renamed or {}
    want = expected_names(ra.link_names, renamed.get("links"), link_map)
    pairs = _by_name(want, rb.link_names)
    by = "names"
    done_a, done_b = {i for i, _ in pairs}, {j for _, j in pairs}
    if len(pairs) < max(ra.num_links, rb.num_links):
        ja = expected_names([l.joint_name for l in ra.links], renamed.get("joints"))
        ja = [n if l.joint_name else None for n, l in zip(ja, ra.links)]
        jb = [l.joint_name for l in rb.links]
        extra = _by_unique_name(ja, jb, done_a, done_b)
        if extra:
            pairs = sorted(pairs + extra)
            done_a |= {i for i, _ in extra}
            done_b |= {j for _, j in extra}
            by = "names and joint names"
    if structure and not link_map and len(pairs) < max(ra.num_links, rb.num_links):
        tree = _by_structure(ra, rb)
        if tree is not None and len(tree) > len(pairs):
            pairs, by = tree, "structure"
            done_a, done_b = {i for i, _ in pairs}, {j for _, j in pairs}
        elif place:
            extra = _by_place(ra, rb, pairs)
            if extra:
                pairs = sorted(pairs + extra)
                done_a |= {i for i, _ in extra}
                done_b |= {j for _, j in extra}
                by += " and tree structure"
    return LinkMatch(pairs, by, [i for i in range(ra.num_links) if i not in done_a],
                     [j for j in range(rb.num_links) if j not in done_b])
