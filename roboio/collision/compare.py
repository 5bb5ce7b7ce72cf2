"""Whether two models of one robot collide alike: :func:`compare_self_collision`, the
collision part of ``roboio verify A B --collision``.

Given configurations of A and the matching configurations of B (those :func:`roboio.verify`
compares frames with) and which link of B each link of A is, three things are compared:

* the checked pairs: A's self-collision pairs among links with collision geometry, named in
  B through the link map, against B's (a pair list dropped by a conversion, a link whose
  geometry was lost);
* the verdicts: at every sample, the colliding pairs of A against those of B;
* the distances: at every sample, the smallest distance over the pairs both check (margins
  subtracted), A's against B's, within ``tol`` metres (a collision mesh scaled, replaced by
  its convex hull or tessellated).

The first difference of each kind is named (sample index, link names of A).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .robot import SelfCollisionModel, model_for

__all__ = ["compare_self_collision", "CollisionComparison"]


@dataclass
class CollisionComparison:
    """Outcome of :func:`compare_self_collision` (names are A's link names)."""

    samples: int
    tol: float
    pairs_a: int                               # A's checked pairs (with geometry), matched in B
    only_a: list = field(default_factory=list)     # pairs A checks and B does not
    only_b: list = field(default_factory=list)     # pairs B checks and A does not (A's names)
    unmatched: list = field(default_factory=list)  # A's pairs with a link B does not have
    verdict_mismatches: int = 0                # samples whose colliding pairs differ
    first_mismatch: Optional[dict] = None      # {"sample", "pair", "a", "b"}
    colliding_a: int = 0                       # samples where A self-collides
    colliding_b: int = 0
    max_distance_error: float = 0.0
    worst_distance: Optional[dict] = None      # {"sample", "a", "b", "pair_a", "pair_b"}

    @property
    def ok(self) -> bool:
        return (not self.only_a and not self.only_b and not self.unmatched
                and self.verdict_mismatches == 0 and self.max_distance_error <= self.tol)

    def first_difference(self) -> Optional[str]:
        """One line naming the first pair that differs, or None."""
        if self.only_a:
            return f"pair {self.only_a[0]} is checked in A only"
        if self.only_b:
            return f"pair {self.only_b[0]} is checked in B only"
        if self.unmatched:
            return f"pair {self.unmatched[0]} has a link B does not have"
        if self.first_mismatch:
            m = self.first_mismatch
            who = "A" if m["a"] else "B"
            return f"sample {m['sample']}: pair {m['pair']} collides in {who} only"
        if self.max_distance_error > self.tol:
            w = self.worst_distance
            return (f"sample {w['sample']}: smallest distance {w['a']:.6g} m in A "
                    f"({w['pair_a']}), {w['b']:.6g} m in B ({w['pair_b']})")
        return None

    def to_dict(self) -> dict:
        return {"ok": self.ok, "samples": self.samples, "tol": self.tol, "pairs": self.pairs_a,
                "only_a": [list(p) for p in self.only_a], "only_b": [list(p) for p in self.only_b],
                "unmatched": [list(p) for p in self.unmatched],
                "verdict_mismatches": self.verdict_mismatches,
                "first_mismatch": self.first_mismatch, "colliding_a": self.colliding_a,
                "colliding_b": self.colliding_b, "max_distance_error": self.max_distance_error,
                "worst_distance": self.worst_distance, "first_difference": self.first_difference()}


def compare_self_collision(ra, rb, Qa, Qb, link_pairs, tol: float = 1e-6) -> CollisionComparison:
    """Compare the self-collision of robots ``ra`` and ``rb`` at configurations ``Qa``
    (N, A's links) and ``Qb`` (N, B's links); ``link_pairs``: ``(i, j)``, link i of A is link
    j of B. Distances agree within ``tol`` (m)."""
    Qa, Qb = np.asarray(Qa, dtype=float), np.asarray(Qb, dtype=float)
    ma, mb = model_for(ra), model_for(rb)
    to_b = {int(i): int(j) for i, j in link_pairs}
    to_a = {j: i for i, j in to_b.items()}
    name = ra.link_names

    def named(p):
        return (name[p[0]], name[p[1]])

    pa = {tuple(p) for p in ma.pairs.tolist()}
    pb = {tuple(p) for p in mb.pairs.tolist()}
    mapped, unmatched = {}, []
    for i, j in sorted(pa):
        if i in to_b and j in to_b:
            x, y = to_b[i], to_b[j]
            mapped[(min(x, y), max(x, y))] = (i, j)
        else:
            unmatched.append(named((i, j)))
    only_a = [named(mapped[p]) for p in sorted(mapped) if p not in pb]
    only_b = []
    for x, y in sorted(pb - set(mapped)):
        i, j = to_a.get(x), to_a.get(y)
        only_b.append(named((min(i, j), max(i, j))) if i is not None and j is not None
                      else (rb.link_names[x], rb.link_names[y]))
    common = [p for p in sorted(mapped) if p in pb]
    res = CollisionComparison(len(Qa), float(tol), len(mapped), only_a, only_b, unmatched)
    # models over the common pairs only: distances then compare the geometry alone
    ca = SelfCollisionModel(ra.kinematics, [l.geometry for l in ra.links], [mapped[p] for p in common])
    cb = SelfCollisionModel(rb.kinematics, [l.geometry for l in rb.links], common)
    for k, (qa, qb) in enumerate(zip(Qa, Qb)):
        Fa, Fb = ra.fk(qa), rb.fk(qb)
        hit_a = ma.collisions_at(Fa)
        hit_b = mb.collisions_at(Fb)
        res.colliding_a += bool(hit_a)
        res.colliding_b += bool(hit_b)
        sa = {(min(to_b[i], to_b[j]), max(to_b[i], to_b[j])) for i, j in hit_a if i in to_b and j in to_b}
        sb = set(hit_b)
        if sa != sb:
            res.verdict_mismatches += 1
            if res.first_mismatch is None:
                p = sorted(sa ^ sb)[0]
                pair = named(mapped[p]) if p in mapped else (rb.link_names[p[0]], rb.link_names[p[1]])
                res.first_mismatch = {"sample": k, "pair": list(pair), "a": p in sa, "b": p in sb}
        if common:
            da, wa = ca.distance_at(Fa)
            db, wb = cb.distance_at(Fb)
            err = abs(da - db)
            if err > res.max_distance_error or res.worst_distance is None:
                if err >= res.max_distance_error:
                    res.max_distance_error = float(err)
                    res.worst_distance = {"sample": k, "a": float(da), "b": float(db),
                                          "pair_a": list(named(wa)) if wa else None,
                                          "pair_b": list(named(mapped[wb])) if wb else None}
    return res
