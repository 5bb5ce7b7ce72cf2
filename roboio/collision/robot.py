"""Self-collision of one robot: :class:`SelfCollisionModel`, compiled once, queried per
configuration.

What is checked is what Klamp't's ``RobotModel.selfCollides`` checks: the robot's
``self_collision_pairs`` among links that have geometry (a pair with a link without geometry
never collides), each link's geometry at its forward-kinematics frame, two links colliding
when some part of one is within the sum of the parts' margins of some part of the other
(meshes are surfaces, primitives solids: see :mod:`roboio.collision.shapes`).

Per configuration: forward kinematics (the kinematics backend), then the broad phase
(:mod:`roboio.collision.cull`: oriented boxes of every checked pair), then the engine's
narrow phase (:mod:`roboio.collision.engine`) on the pairs whose boxes overlap only.
Distances go through the pairs in order of a lower bound and stop when no remaining pair can
be closer.

The model reads the robot by duck typing (``kinematics``, ``links[i].geometry``,
``self_collision_pairs``): this layer imports no model class. :func:`model_for` keeps one
compiled model per robot and compiles again when the robot's link geometries (objects,
transforms, margins), its pair set or its kinematics change. Editing a mesh's arrays in place
is not noticed: assign new ones (``mesh.vertices = ...``) and call :func:`forget`.
"""
from __future__ import annotations

import operator
import weakref

import numpy as np

from . import engine as _engine
from .cull import make_culler
from .queries import cached_parts
from .shapes import bounding_box, merge_meshes

__all__ = ["SelfCollisionModel", "model_for", "forget"]

_CHUNK = 2048


class SelfCollisionModel:
    """Self-collision queries of a robot. ``kinematics``: a
    :class:`~roboio.kinematics.KinematicModel`; ``geometries``: per link a roboio geometry or
    None; ``pairs``: the link index pairs to check (any order; pairs involving a link without
    geometry are dropped, as Klamp't drops them). Configurations have one value per link."""

    def __init__(self, kinematics, geometries, pairs):
        self.kinematics = kinematics
        n = kinematics.n
        if len(geometries) != n:
            raise ValueError(f"{len(geometries)} geometries for {n} links")
        # parts (and their engine objects) are shared with every other user of a geometry and
        # survive recompiling (a pair set edited): made once per geometry
        self.parts = [merge_meshes(cached_parts(g)) for g in geometries]
        pairs = sorted({(min(int(a), int(b)), max(int(a), int(b))) for a, b in pairs
                        if a != b and self.parts[a] and self.parts[b]})
        self.pairs = np.array(pairs, dtype=np.int64).reshape(-1, 2)
        self._pair_list = [(int(a), int(b)) for a, b in pairs]
        centers, halves, radii = np.zeros((n, 3)), np.zeros((n, 3)), np.zeros(n)
        for i, ps in enumerate(self.parts):
            box = bounding_box(ps, with_margin=False)
            if box is None:
                continue
            lo, hi = box
            m = max(p.margin for p in ps)
            centers[i] = (lo + hi) / 2
            halves[i] = (hi - lo) / 2 + m
            radii[i] = float(np.linalg.norm((hi - lo) / 2)) + m
        self._boxes = (centers, halves, radii)
        self._culler = None
        self._engine = None
        self._frames = np.empty((n, 4, 4))

    # -- compiled state (engine objects; not pickled) -------------------------------------
    def __getstate__(self):
        state = self.__dict__.copy()
        state["_culler"] = None
        state["_engine"] = None
        for k in ("_poses", "_slots", "_narrow", "_far"):
            state.pop(k, None)
        return state

    def _prepare(self):
        """Engine objects, pose slots and per-pair narrow-phase functions for the engine in
        use (made again when the engine changes)."""
        eng = _engine.get_engine()
        if self._engine is eng and self._culler is not None:
            return eng
        if self._culler is None:
            c, h, r = self._boxes
            self._culler = make_culler(c, h, r, self.pairs)
        # pose slots: one per link (its frame, for parts placed in it as they are) and one
        # per part with a pose of its own
        poses, slots = [], []
        for i, ps in enumerate(self.parts):
            link_slot = len(poses)
            poses.append(eng.new_pose())
            own = []
            for p in ps:
                if p.identity_pose:
                    own.append(link_slot)
                else:
                    own.append(len(poses))
                    poses.append(eng.new_pose())
            slots.append(own)
        self._poses, self._slots = poses, slots
        self._placers = [[(s, None if p.identity_pose else p.pose) for s, p in zip(slots[i], ps)]
                         for i, ps in enumerate(self.parts)]
        self._narrow = [None] * len(self.pairs)      # made on first use per pair
        self._far = [None] * len(self.pairs)
        self._engine = eng
        return eng

    def _narrow_of(self, k):
        fns = self._narrow[k]
        if fns is None:
            eng = self._engine
            i, j = self.pairs[k]
            fns = [(sa, sb, eng.collider(pa, pb))
                   for pa, sa in zip(self.parts[i], self._slots[i])
                   for pb, sb in zip(self.parts[j], self._slots[j])]
            self._narrow[k] = fns
        return fns

    def _far_of(self, k):
        fns = self._far[k]
        if fns is None:
            eng = self._engine
            i, j = self.pairs[k]
            fns = [(sa, sb, pa.margin + pb.margin, eng.distancer(pa, pb))
                   for pa, sa in zip(self.parts[i], self._slots[i])
                   for pb, sb in zip(self.parts[j], self._slots[j])]
            self._far[k] = fns
        return fns

    def _place(self, F, links, placed):
        set_pose, poses = self._engine.set_pose, self._poses
        for i in links:
            if i in placed:
                continue
            placed.add(i)
            Fi = F[i]
            for slot, own in self._placers[i]:
                set_pose(poses[slot], Fi if own is None else Fi @ own)

    # -- queries ------------------------------------------------------------------------
    def frames(self, q) -> np.ndarray:
        return self.kinematics.fk(q, self._frames)

    def collisions_at(self, F, first: bool = False) -> list:
        """Colliding pairs ``(i, j)`` (sorted) at link frames ``F`` ((n, 4, 4) world);
        ``first``: stop at the first one."""
        self._prepare()
        out = []
        placed: set = set()
        poses = self._poses
        pairs = self._pair_list
        for k in self._culler.overlapping(F):
            ij = pairs[k]
            self._place(F, ij, placed)
            for sa, sb, fn in (self._narrow[k] or self._narrow_of(k)):
                if fn(poses[sa], poses[sb]):
                    out.append(ij)
                    if first:
                        return out
                    break
        return out

    def collisions(self, q) -> list:
        """Sorted colliding link pairs ``(i, j)``, i < j, at configuration ``q``."""
        return self.collisions_at(self.frames(q))

    def collides(self, q) -> bool:
        """Whether any checked pair collides at configuration ``q`` (stops at the first)."""
        return bool(self.collisions_at(self.frames(q), first=True))

    def distance_at(self, F) -> tuple:
        """``(distance, (i, j))``: the smallest distance between the geometries of a checked
        pair, margins subtracted (<= 0 when they collide), at link frames ``F``;
        ``(inf, None)`` without pairs."""
        self._prepare()
        if not len(self.pairs):
            return float("inf"), None
        lb = np.empty(len(self.pairs))
        self._culler.lower_bounds(F, lb)
        order = np.argsort(lb, kind="stable")
        best, where = float("inf"), None
        placed: set = set()
        poses = self._poses
        for k in order.tolist():
            if lb[k] >= best:
                break
            ij = self._pair_list[k]
            self._place(F, ij, placed)
            for sa, sb, margin, fn in self._far_of(k):
                d = fn(poses[sa], poses[sb])[0] - margin
                if d < best:
                    best, where = d, ij
        return best, where

    def distance(self, q) -> tuple:
        """:meth:`distance_at` for configuration ``q``."""
        return self.distance_at(self.frames(q))

    def pair_distance_at(self, F, i: int, j: int):
        """``(distance, point_i, point_j)`` between links i and j (margins subtracted; world
        closest points) at frames ``F``, whether or not the pair is checked."""
        eng = self._prepare()
        best = (float("inf"), None, None)
        for pa in self.parts[i]:
            for pb in self.parts[j]:
                Ta = F[i] @ pa.pose
                Tb = F[j] @ pb.pose
                d, p1, p2 = eng.distancer(pa, pb)(eng.pose_of(Ta), eng.pose_of(Tb))
                d -= pa.margin + pb.margin
                if d < best[0]:
                    best = (d, p1, p2)
        return best

    # -- batches ------------------------------------------------------------------------
    def collides_batch(self, Q, workers: int = 1) -> np.ndarray:
        """``(N,)`` bool: :meth:`collides` of every row of ``Q`` (N, n). ``workers`` > 1
        splits the rows over that many processes (see :mod:`roboio.collision.parallel`)."""
        return self._batch("collides", Q, workers)

    def distance_batch(self, Q, workers: int = 1) -> np.ndarray:
        """``(N,)`` float: the distance of :meth:`distance` for every row of ``Q``."""
        return self._batch("distance", Q, workers)

    def _batch(self, what, Q, workers):
        Q = np.asarray(Q, dtype=np.float64)
        if Q.ndim != 2 or Q.shape[1] != self.kinematics.n:
            raise ValueError(f"Q must have shape (N, {self.kinematics.n}), got {Q.shape}")
        workers = int(workers or 1)
        if workers > 1 and len(Q) > 1:
            from .parallel import run_batch
            return run_batch(self, what, Q, workers)
        return self.run_rows(what, Q)

    def run_rows(self, what, Q) -> np.ndarray:
        """The batch query ``what`` (``"collides"`` or ``"distance"``) over the rows of
        ``Q`` in this process."""
        out = np.empty(len(Q), dtype=bool if what == "collides" else np.float64)
        for s, F in self.kinematics.fk_chunks(Q, chunk_size=_CHUNK):
            for k in range(len(F)):
                if what == "collides":
                    out[s + k] = bool(self.collisions_at(F[k], first=True))
                else:
                    out[s + k] = self.distance_at(F[k])[0]
        return out


# -- one model per robot --------------------------------------------------------------------
_GEOMETRY = operator.attrgetter("geometry")
_TRANSFORM = operator.attrgetter("transform")
_MARGIN = operator.attrgetter("margin")
_models: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _state(robot):
    """What the compiled model depends on besides the kinematics, as objects compared by
    identity (held by the cache entry, so their ids cannot be reused) and values."""
    geoms = list(map(_GEOMETRY, robot.links))
    present = [g for g in geoms if g is not None]
    return (geoms, list(map(id, map(_TRANSFORM, present))), list(map(_MARGIN, present)),
            robot.self_collision_pairs)


def model_for(robot) -> SelfCollisionModel:
    """The compiled :class:`SelfCollisionModel` of ``robot`` (made on first use, made again
    when its geometry objects, their transforms or margins, its pair set or its kinematics
    have changed since)."""
    kin = robot.kinematics
    entry = _models.get(robot)
    if entry is not None:
        model, (geoms, tids, margins, pairs_obj, version, transforms) = entry
        pairs = robot.self_collision_pairs
        # (a pair set counts its own changes: Robot.self_collision_pairs is a PairSet)
        if model.kinematics is kin and pairs is pairs_obj and getattr(pairs, "version", None) == version:
            now = list(map(_GEOMETRY, robot.links))
            if now == geoms:
                present = [g for g in now if g is not None]
                if (list(map(id, map(_TRANSFORM, present))) == tids
                        and list(map(_MARGIN, present)) == margins):
                    return model
    geoms, tids, margins, pairs = _state(robot)
    model = SelfCollisionModel(kin, geoms, pairs)
    transforms = [g.transform for g in geoms if g is not None]      # keeps the ids valid
    _models[robot] = (model, (geoms, tids, margins, pairs, getattr(pairs, "version", None), transforms))
    return model


def forget(robot) -> None:
    """Drop the compiled model of ``robot`` (the next query compiles it again)."""
    _models.pop(robot, None)
