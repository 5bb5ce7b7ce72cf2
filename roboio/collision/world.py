"""Collisions among the elements of a world: robot links, rigid objects, terrains.

Which pairs are checked is what Klamp't's ``klampt.model.collide.WorldCollider`` checks
(elements without geometry take part in none):

* a robot's own links: its ``self_collision_pairs`` (:mod:`roboio.collision.robot`);
* links of two different robots: every pair;
* a rigid object with every link, every other object and every terrain;
* a terrain with every link that has a parent (a robot's root links rest on terrains);
* never two terrains.

Links are placed by each robot's forward kinematics at its configuration, objects and
terrains by their ``transform``. The world is read by duck typing (``robots``,
``rigid_objects``, ``terrains``, ``element.geometry``/``transform``).
"""
from __future__ import annotations

import numpy as np

from .cull import make_culler
from .engine import get_engine
from .queries import cached_parts
from .robot import model_for
from .shapes import bounding_box

__all__ = ["world_collisions", "world_configs"]


def world_configs(world, configs=None) -> list:
    """One configuration per robot: ``configs`` maps a robot (object, name or index) to its
    configuration; robots not named keep their ``config``."""
    out = [np.asarray(r.config, dtype=float) for r in world.robots]
    for key, q in (configs or {}).items():
        if isinstance(key, (int, np.integer)):
            k = int(key)
            if not -len(out) <= k < len(out):
                raise KeyError(f"the world has no robot {key}")
        elif isinstance(key, str):
            names = [r.name for r in world.robots]
            if key not in names:
                raise KeyError(f"the world has no robot named {key!r}")
            k = names.index(key)
        else:
            ids = [i for i, r in enumerate(world.robots) if r is key]
            if not ids:
                raise KeyError(f"{key!r} is not a robot of this world")
            k = ids[0]
        q = np.asarray(q, dtype=float).reshape(-1)
        n = world.robots[k].num_links
        if len(q) != n:
            raise ValueError(f"robot {world.robots[k].name!r} has {n} links, the configuration "
                             f"{len(q)} values")
        out[k] = q
    return out


def world_collisions(world, configs=None) -> list:
    """Colliding element pairs ``(a, b)`` of ``world`` (links, rigid objects, terrains), in
    Klamp't's ID order (terrains, then objects, then each robot's links; ``a`` before
    ``b``)."""
    qs = world_configs(world, configs)
    # bodies: (kind, element, robot index or -1, parts, world frame), in ID order
    bodies = []
    for t in world.terrains:
        bodies.append(("terrain", t, -1, cached_parts(t.geometry), _frame(t.transform)))
    for o in world.rigid_objects:
        bodies.append(("object", o, -1, cached_parts(o.geometry), _frame(o.transform)))
    frames = []
    for k, r in enumerate(world.robots):
        F = r.fk(qs[k])
        frames.append(F)
        for i, l in enumerate(r.links):
            bodies.append(("link", l, k, cached_parts(l.geometry), F[i]))
    live = [b for b in bodies if b[3]]
    pairs = []
    for a in range(len(live)):
        ka, ea, ra = live[a][:3]
        for b in range(a + 1, len(live)):
            kb, eb, rb = live[b][:3]
            if ka == "terrain" and kb == "terrain":
                continue
            if ka == "link" and kb == "link" and ra == rb:
                continue                        # a robot's own pairs: its self-collision model
            if ka == "terrain" and kb == "link" and eb.parent < 0:
                continue
            pairs.append((a, b))
    out = []
    if pairs:
        boxes = [bounding_box(b[3], with_margin=False) for b in live]
        centers = np.array([(lo + hi) / 2 for lo, hi in boxes])
        margins = np.array([max(p.margin for p in b[3]) for b in live])
        halves = np.array([(hi - lo) / 2 for lo, hi in boxes]) + margins[:, None]
        radii = np.linalg.norm(halves - margins[:, None], axis=1) + margins
        culler = make_culler(centers, halves, radii, pairs)
        W = np.ascontiguousarray(np.array([b[4] for b in live], dtype=float))
        eng = get_engine()
        for k in culler.overlapping(W):
            a, b = pairs[k]
            if _bodies_collide(eng, live[a], live[b]):
                out.append((live[a][1], live[b][1]))
    for k, r in enumerate(world.robots):
        for i, j in model_for(r).collisions_at(frames[k]):
            out.append((r.links[i], r.links[j]))
    order = {id(b[1]): n for n, b in enumerate(bodies)}
    out.sort(key=lambda ab: (order[id(ab[0])], order[id(ab[1])]))
    return out


def _frame(T) -> np.ndarray:
    return np.asarray(T, dtype=float).reshape(4, 4)


def _bodies_collide(eng, A, B) -> bool:
    Ta, Tb = A[4], B[4]
    for pa in A[3]:
        for pb in B[3]:
            if eng.collider(pa, pb)(eng.pose_of(Ta @ pa.pose), eng.pose_of(Tb @ pb.pose)):
                return True
    return False
