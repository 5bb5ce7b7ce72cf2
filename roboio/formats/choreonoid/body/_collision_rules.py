"""Choreonoid's self-collision rules (``collision_detection_rules`` in a body's info; the
older ``collisionDetection`` mapping), both ways.

:func:`checked_pairs` is what Choreonoid's ``BodyCollisionLinkFilter`` makes of the rules:

* no rules at all: pairs within one step of the tree (parent and child) are ignored;
* ``collision_detection_rules`` (a list of one-key mappings, applied in order), starting from
  nothing ignored: ``disabled_link_chain_level: n`` ignores every pair at most n steps apart
  along the tree (never crossing a free joint); ``disabled_links: [names]`` (or ``all``)
  removes links from collision checking; ``enabled_links: [names]`` brings them back and
  clears every ignored pair they are in; ``disabled_link_group: [names]`` ignores every pair
  of the group; ``enabled_link_group: [names]`` clears the group's pairs;
* ``collisionDetection`` (old format): ``excludeTreeDepth`` (default 1), ``excludeLinks``,
  ``excludeLinkGroups`` (mappings with ``links``).

Only links with collision shapes take part (the others never collide). :func:`rules_for`
writes a rule list that gives exactly a wanted pair set: a chain level, then the pairs it
gets wrong as two-link groups, choosing the level that needs the fewest entries.
"""
from __future__ import annotations

__all__ = ["checked_pairs", "rules_for", "RULE_KEYS"]

RULE_KEYS = ("collision_detection_rules", "collisionDetection")


class _Tree:
    """Links by index: ``names``, ``parents`` (-1 for the root), ``free`` (a free joint:
    the chain level does not cross it), ``collidable`` (has collision shapes)."""

    def __init__(self, names, parents, free, collidable):
        self.names, self.parents = list(names), list(parents)
        self.free, self.collidable = list(free), list(collidable)
        self.n = len(self.names)
        self.index = {}
        for i, name in enumerate(self.names):
            self.index.setdefault(name, i)
        self.children = [[] for _ in range(self.n)]
        for i, p in enumerate(self.parents):
            if p >= 0:
                self.children[p].append(i)

    def within(self, level: int) -> set:
        """Pairs at most ``level`` steps apart along the tree (not across free joints)."""
        out = set()
        if level <= 0:
            return out
        for start in range(self.n):
            frontier, seen = [start], {start}
            for _ in range(level):
                nxt = []
                for cur in frontier:
                    steps = [c for c in self.children[cur] if not self.free[c]]
                    if not self.free[cur] and self.parents[cur] >= 0:
                        steps.append(self.parents[cur])
                    for x in steps:
                        if x not in seen:
                            seen.add(x)
                            nxt.append(x)
                            out.add((min(start, x), max(start, x)))
                frontier = nxt
        return out

    def links(self, value) -> list:
        """Link indices named by a rule value (a list of names; unknown names skipped)."""
        if not isinstance(value, (list, tuple)):
            return []
        return [self.index[v] for v in (str(x) for x in value if x is not None) if v in self.index]


def _level(value):
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def checked_pairs(names, parents, free, collidable, info) -> set:
    """Pairs ``(i, j)``, i < j, of collidable links that Choreonoid checks under ``info``."""
    t = _Tree(names, parents, free, collidable)
    excluded = [False] * t.n
    ignored: set = set()
    rules = info.get("collision_detection_rules") if isinstance(info, dict) else None
    old = info.get("collisionDetection") if isinstance(info, dict) else None
    if isinstance(rules, list):
        for node in rules:
            for key, value in (node.items() if isinstance(node, dict) else ()):
                if key == "disabled_link_chain_level":
                    level = _level(value)
                    if level is not None:
                        ignored |= t.within(level)
                elif key == "enabled_links":
                    for i in t.links(value):
                        excluded[i] = False
                        ignored = {p for p in ignored if i not in p}
                elif key == "enabled_link_group":
                    group = t.links(value)
                    for a in group:
                        excluded[a] = False
                    ignored -= {(min(a, b), max(a, b)) for a in group for b in group if a != b}
                elif key == "disabled_links":
                    chosen = range(t.n) if value == "all" else t.links(value)
                    for i in chosen:
                        excluded[i] = True
                elif key == "disabled_link_group":
                    group = t.links(value)
                    ignored |= {(min(a, b), max(a, b)) for a in group for b in group if a != b}
    elif isinstance(old, dict):
        level = _level(old.get("excludeTreeDepth", 1))
        ignored |= t.within(1 if level is None else level)
        for i in t.links(old.get("excludeLinks")):
            excluded[i] = True
        for g in old.get("excludeLinkGroups") or []:
            if isinstance(g, dict):
                group = t.links(g.get("links"))
                ignored |= {(min(a, b), max(a, b)) for a in group for b in group if a != b}
    else:
        ignored = t.within(1)
    live = [i for i in range(t.n) if t.collidable[i] and not excluded[i]]
    return {(a, b) for k, a in enumerate(live) for b in live[k + 1:] if (a, b) not in ignored}


def rules_for(names, parents, free, collidable, wanted) -> list:
    """A ``collision_detection_rules`` list under which Choreonoid checks exactly ``wanted``
    (pairs of collidable links, by index)."""
    t = _Tree(names, parents, free, collidable)
    live = [i for i in range(t.n) if t.collidable[i]]
    every = {(a, b) for k, a in enumerate(live) for b in live[k + 1:]}
    wanted = {(min(a, b), max(a, b)) for a, b in wanted} & every
    best = None
    depth = 0
    for i in range(t.n):                   # the deepest level that can change anything
        d, p = 0, t.parents[i]
        while p >= 0:
            d, p = d + 1, t.parents[p]
        depth = max(depth, d)
    for level in range(0, 2 * depth + 1):
        ign = t.within(level) & every
        disable = sorted((every - wanted) - ign)
        enable = sorted(wanted & ign)
        cost = len(disable) + len(enable) + (level > 0)
        if best is None or cost < best[0]:
            best = (cost, level, disable, enable)
    _, level, disable, enable = best
    rules = [{"disabled_link_chain_level": level}] if level > 0 else []
    rules += [{"disabled_link_group": [t.names[a], t.names[b]]} for a, b in disable]
    rules += [{"enabled_link_group": [t.names[a], t.names[b]]} for a, b in enable]
    return rules
