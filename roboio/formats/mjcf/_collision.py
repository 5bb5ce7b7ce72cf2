"""Self-collision pairs of a robot read from MJCF, as MuJoCo decides which bodies collide:
two bodies' geoms are tested when some pair of their geoms passes the ``contype`` /
``conaffinity`` bit test, unless the bodies are welded together (same weld body) or one's
weld body is the parent of the other's (``filterparent``, neither the world), or the pair is
named by ``<contact><exclude>``; ``<contact><pair>`` adds pairs whatever the filters say."""
from __future__ import annotations

__all__ = ["self_collision_pairs"]


def self_collision_pairs(reader, robot) -> set:
    doc = reader.doc
    links = {}                  # body id -> link index, for this robot's bodies
    bodies = {}
    for b in reader.world.walk():
        hit = reader.link_of.get(b.id)
        if hit is not None and hit[0] is robot:
            links[b.id] = hit[1]
            bodies[b.id] = b
    weld = {}
    for bid, b in bodies.items():        # parents come first in walk order
        p = b.parent
        weld[bid] = bid if (b.joints or b.mocap) else (weld.get(p.id, 0) if p is not None else 0)

    def weld_parent(w: int) -> int:
        if w == 0:
            return 0
        p = bodies[w].parent
        return weld.get(p.id, 0) if p is not None and p.id != 0 else 0

    filterparent = True
    for sec in doc.sections.get("option", []):
        for n in doc.kids(sec, 2):
            if n.tag == "flag" and n.get("filterparent") == "disable":
                filterparent = False

    def filtered(a: int, b: int) -> bool:
        wa, wb = weld[a], weld[b]
        if wa == wb:
            return True
        return filterparent and wa != 0 and wb != 0 and (wa == weld_parent(wb) or wb == weld_parent(wa))

    colliding = [bid for bid, b in bodies.items() if any(not g.visual for g in b.geoms)]
    budget = reader.ctx.limit("pairs")
    reader.ctx.check_claim("pairs", len(colliding) * (len(colliding) - 1) // 2, what="self-collision pairs")
    pairs = set()
    for k, a in enumerate(colliding):
        ga = [(g.contype, g.conaffinity) for g in bodies[a].geoms if not g.visual]
        for b in colliding[k + 1:]:
            if filtered(a, b):
                continue
            gb = [(g.contype, g.conaffinity) for g in bodies[b].geoms if not g.visual]
            if any((ta & cb) or (tb & ca) for ta, ca in ga for tb, cb in gb):
                i, j = links[a], links[b]
                pairs.add((min(i, j), max(i, j)))
    by_name = {b.name: bid for bid, b in bodies.items() if b.name}
    for sec in doc.sections.get("contact", []):
        for n in doc.kids(sec, 2):
            if n.tag == "exclude":
                a, b = by_name.get(n.get("body1")), by_name.get(n.get("body2"))
                if a is not None and b is not None:
                    i, j = links[a], links[b]
                    pairs.discard((min(i, j), max(i, j)))
            elif n.tag == "pair":
                ba, bb = reader.geom_body.get(n.get("geom1")), reader.geom_body.get(n.get("geom2"))
                if ba is not None and bb is not None and ba.id in links and bb.id in links and ba is not bb:
                    i, j = links[ba.id], links[bb.id]
                    pairs.add((min(i, j), max(i, j)))
    if len(pairs) > budget:
        raise reader.ctx.error(f"{len(pairs)} self-collision pairs exceed the limit {budget}")
    return pairs
