"""Self-collision pairs of a written GraspIt! robot: ``<disableCollision>`` for every pair
GraspIt! would check that the model does not, and a loss for every pair the model checks that
GraspIt! never does.

GraspIt! checks every pair of bodies (palm and chain links) except the links of one chain,
each chain's first link with the palm, the links a ``collisionRule`` turns off or pairs with
a target, and the ``<disableCollision>`` pairs (``graspit.md`` section 5; at load time it
also drops the pairs it finds touching, which no file states). Pairs with a link without
geometry never collide and are left alone either way.
"""
from __future__ import annotations

__all__ = ["disable_collision_lines"]


def _bodies(spec) -> list:
    """``(chain, link, model index or None)`` of every body: the palm (chain -1) first."""
    out = [(-1, 0, spec.palm_body.get("index"))]
    for c, ch in enumerate(spec.chains):
        for l, lo in enumerate(ch.links):
            out.append((c, l, lo.body.get("index")))
    return out


def _rule_exclusions(spec, where) -> tuple:
    """(bodies a ``collisionRule="Off"`` removes, body pairs ``OverlappingPair`` removes)."""
    off, pairs = set(), set()
    for c, ch in enumerate(spec.chains):
        for l, lo in enumerate(ch.links):
            attrs = dict(lo.attrs)
            rule = attrs.get("collisionRule")
            if rule == "Off":
                off.add((c, l))
            elif rule == "OverlappingPair":
                tc = (attrs.get("targetChain") or "").strip()
                if tc == "base":
                    pairs.add(frozenset([(c, l), (-1, 0)]))
                elif attrs.get("targetLink") is not None:
                    try:
                        target = (c if not tc else int(tc), int(str(attrs["targetLink"]).strip()))
                    except ValueError:
                        continue
                    if target in where:
                        pairs.add(frozenset([(c, l), target]))
    return off, pairs


def disable_collision_lines(robot, spec, rec, report) -> list:
    """The ``<disableCollision>`` lines to add to ``spec`` (beyond the record's own) so that
    GraspIt! checks the model's pairs, and the report of the model's pairs it cannot check."""
    bodies = _bodies(spec)
    where = {(c, l): m for c, l, m in bodies}
    off, rule_pairs = _rule_exclusions(spec, where)
    disabled = set()
    for l1, c1, l2, c2, *_ in (rec.disable_collisions if rec is not None else []):
        disabled.add(frozenset([(c1, 0 if c1 < 0 else l1), (c2, 0 if c2 < 0 else l2)]))

    def geometric(m) -> bool:
        g = robot.links[m].geometry if m is not None else None
        return g is not None and not g.is_empty

    wanted = {(min(a, b), max(a, b)) for a, b in robot.self_collision_pairs}
    lines, checked = [], set()
    for k, (c1, l1, m1) in enumerate(bodies):
        for c2, l2, m2 in bodies[k + 1:]:
            if m1 is None or m2 is None or m1 == m2:
                continue
            key = frozenset([(c1, l1), (c2, l2)])
            never = (c1 == c2 or (c1 < 0 and l2 == 0) or (c2 < 0 and l1 == 0)
                     or (c1, l1) in off or (c2, l2) in off or key in rule_pairs)
            if never:
                continue
            pair = (min(m1, m2), max(m1, m2))
            if key in disabled:
                continue
            if pair in wanted or not (geometric(m1) and geometric(m2)):
                checked.add(pair)
                continue
            lines.append(f'    <disableCollision body1_link="{l1 if c1 >= 0 else 0}" body1_chain="{c1}" '
                         f'body2_link="{l2 if c2 >= 0 else 0}" body2_chain="{c2}"/>')
    present = {m for _, _, m in bodies if m is not None}
    for a, b in sorted(wanted):
        if a in present and b in present and (a, b) not in checked and geometric(a) and geometric(b):
            report.lose(f"{robot.name}: self-collision pairs GraspIt! never checks (links of one "
                        "chain, a chain's first link and the palm)",
                        f"({robot.links[a].name}, {robot.links[b].name})", kind="read differently", noun="pair")
    return lines
