"""Klamp't's ``klampt.model.collide``: :class:`WorldCollider` and the collision iterators,
over :mod:`roboio.compat.klampt` worlds (queries by :mod:`roboio.collision`; needs
``pip install "roboio[collision]"``).

Which pairs a :class:`WorldCollider` checks is what Klamp't's checks: among the elements
that have geometry, a terrain with every rigid object and with every robot link that has a
parent; every pair of rigid objects; a rigid object with every link; links of different
robots; a robot's links where ``selfCollisionEnabled``; never two terrains. One deviation:
Klamp't 0.10.1 also lists a rigid object as colliding with itself (an indexing slip in its
mask); roboio never pairs an element with itself.

Results are the element views (``RobotModelLink``, ``RigidObjectModel``, ``TerrainModel``)
and ``Geometry3D`` references, as in Klamp't.
"""
from __future__ import annotations

from ..robot import RobotModel, RobotModelLink
from ..world import RigidObjectModel, TerrainModel

__all__ = ["WorldCollider", "self_collision_iter", "group_collision_iter", "ray_cast"]


def _overlap(a, b) -> bool:
    """Whether the boxes ``(bmin, bmax)`` overlap (touching counts)."""
    return all(lo1 <= hi2 and lo2 <= hi1 for lo1, hi1, lo2, hi2 in zip(a[0], a[1], b[0], b[1]))


def self_collision_iter(geomlist, pairs="all"):
    """``(i, j)`` for every colliding pair of ``geomlist`` (Geometry3D) among ``pairs``:
    ``"all"``, a predicate ``f(i, j)`` or a list of index pairs."""
    n = len(geomlist)
    if pairs == "all" or callable(pairs):
        todo = ((i, j) for i in range(n) for j in range(i + 1, n)
                if pairs == "all" or pairs(i, j))
    else:
        todo = iter(pairs)
    for i, j in todo:
        if geomlist[i].collides(geomlist[j]):
            yield i, j


def group_collision_iter(geomlist1, geomlist2, pairs="all"):
    """``(i, j)`` for every colliding pair of ``geomlist1[i]`` and ``geomlist2[j]`` among
    ``pairs`` (as in :func:`self_collision_iter`), with a bounding-box reject."""
    if not geomlist1 or not geomlist2:
        return
    if pairs != "all" and not callable(pairs):
        for i, j in pairs:
            if geomlist1[i].collides(geomlist2[j]):
                yield i, j
        return
    bb1 = [g.getBB() for g in geomlist1]
    bb2 = [g.getBB() for g in geomlist2]
    for i, g in enumerate(geomlist1):
        for j, g2 in enumerate(geomlist2):
            if (pairs == "all" or pairs(i, j)) and _overlap(bb1[i], bb2[j]) and g.collides(g2):
                yield i, j


def ray_cast(geomlist, s, d):
    """``(index, point)`` of the geometry of ``geomlist`` that the ray from ``s`` along ``d``
    meets first, or None."""
    best = None
    for i, g in enumerate(geomlist):
        hit, pt = g.rayCast(s, d)
        if hit:
            t = sum((p - a) * b for p, a, b in zip(pt, s, d))
            if best is None or t < best[0]:
                best = (t, i, pt)
    return None if best is None else (best[1], best[2])


def _model_of(view):
    """The roboio element behind a compat view (link, rigid object, terrain)."""
    if isinstance(view, RobotModelLink):
        return view._link
    if isinstance(view, (RigidObjectModel, TerrainModel)):
        return view.model
    raise TypeError(f"expected a RobotModelLink, RigidObjectModel or TerrainModel, not "
                    f"{type(view).__name__}")


class WorldCollider:
    """The collision pairs of a world, with elements or pairs that can be ignored (see the
    module docstring). Attributes as in Klamp't: ``geomList`` ((view, Geometry3D) of every
    element with geometry), ``mask`` (per geomList index, the indices it is checked with),
    ``terrains``, ``rigidObjects`` (geomList index per element, -1 without geometry),
    ``robots`` (per robot, the geomList index per link)."""

    def __init__(self, world, ignore=()):
        self.world = world
        self.geomList = []
        self.terrains, self.rigidObjects, self.robots = [], [], []
        self._index = {}

        def add(view, into):
            g = view.geometry()
            if g.type() == "":
                into.append(-1)
                return
            into.append(len(self.geomList))
            self._index[id(_model_of(view))] = len(self.geomList)
            self.geomList.append((view, g))

        for i in range(world.numTerrains()):
            add(world.terrain(i), self.terrains)
        for i in range(world.numRigidObjects()):
            add(world.rigidObject(i), self.rigidObjects)
        for i in range(world.numRobots()):
            r = world.robot(i)
            links = []
            for j in range(r.numLinks()):
                add(r.link(j), links)
            self.robots.append(links)
        self.mask = [set() for _ in self.geomList]
        objects = [o for o in self.rigidObjects if o >= 0]
        for t in (t for t in self.terrains if t >= 0):
            for o in objects:
                self._enable(t, o)
            for links in self.robots:
                for l in (l for l in links if l >= 0):
                    if self.geomList[l][0].getParent() >= 0:
                        self._enable(t, l)
        for k, o in enumerate(objects):
            for o2 in objects[:k]:
                self._enable(o, o2)
            for links in self.robots:
                for l in (l for l in links if l >= 0):
                    self._enable(o, l)
        for k, links in enumerate(self.robots):
            for other in self.robots[:k]:
                for a in (a for a in links if a >= 0):
                    for b in (b for b in other if b >= 0):
                        self._enable(a, b)
            robot = world.robot(k)
            for i, a in enumerate(links):
                for j in range(i):
                    b = links[j]
                    if a >= 0 and b >= 0 and robot.selfCollisionEnabled(i, j):
                        self._enable(a, b)
        for item in ignore:
            self.ignoreCollision(item)

    def _enable(self, a, b):
        self.mask[a].add(b)
        self.mask[b].add(a)

    def _getGeomIndex(self, obj):
        """The geomList index of an element view (None when it has no geometry here)."""
        return self._index.get(id(_model_of(obj)))

    def ignoreCollision(self, ign):
        """Stop checking an element (all its pairs), or a pair ``(a, b)`` of elements."""
        if isinstance(ign, (tuple, list)):
            a, b = (self._getGeomIndex(x) for x in ign)
            if a is None or b is None:
                raise ValueError("ignoreCollision: expected a pair of elements of the world with geometry")
            self.mask[a].discard(b)
            self.mask[b].discard(a)
            return
        k = self._getGeomIndex(ign)
        if k is None:
            raise ValueError("ignoreCollision: expected an element of the world with geometry")
        for other in self.mask[k]:
            self.mask[other].discard(k)
        self.mask[k] = set()

    def isCollisionEnabled(self, obj_or_pair) -> bool:
        """Whether a pair is checked, or an element is checked with anything."""
        if isinstance(obj_or_pair, (tuple, list)):
            a, b = (self._getGeomIndex(x) for x in obj_or_pair)
            return a is not None and b is not None and b in self.mask[a]
        k = self._getGeomIndex(obj_or_pair)
        return k is not None and bool(self.mask[k])

    def collisionTests(self, filter1=None, filter2=None, bb_reject=True):
        """``((view, geometry), (view, geometry))`` of every enabled pair to test: all of
        them, those both of whose elements pass ``filter1``, or those with one element
        passing ``filter1`` and the other ``filter2``; ``bb_reject`` drops pairs whose
        bounding boxes are apart (without filters)."""
        gl = self.geomList
        if filter1 is None:
            boxes = [g.getBB() for _, g in gl] if bb_reject else None
            for i, others in enumerate(self.mask):
                for j in sorted(others):
                    if j > i and (boxes is None or _overlap(boxes[i], boxes[j])):
                        yield gl[i], gl[j]
        elif filter2 is None:
            for i, others in enumerate(self.mask):
                if not filter1(gl[i][0]):
                    continue
                for j in sorted(others):
                    if j > i and filter1(gl[j][0]):
                        yield gl[i], gl[j]
        else:
            for i, others in enumerate(self.mask):
                f1, f2 = filter1(gl[i][0]), filter2(gl[i][0])
                for j in sorted(others):
                    if f1 and filter2(gl[j][0]):
                        yield gl[i], gl[j]
                    elif f2 and filter1(gl[j][0]):
                        yield gl[j], gl[i]

    def collisions(self, filter1=None, filter2=None):
        """``(view1, view2)`` of every colliding pair among :meth:`collisionTests`."""
        for a, b in self.collisionTests(filter1, filter2):
            if a[1].collides(b[1]):
                yield a[0], b[0]

    def _robot_index(self, robot) -> int:
        if isinstance(robot, RobotModel):
            return robot.index
        return int(robot)

    def robotSelfCollisions(self, robot=None):
        """``(link, link)`` pairs of a robot (index or RobotModel; None: every robot) that
        collide."""
        if robot is None:
            for k in range(len(self.robots)):
                yield from self.robotSelfCollisions(k)
            return
        links = [l for l in self.robots[self._robot_index(robot)] if l >= 0]
        gl = self.geomList
        for a in links:
            for b in links:
                if b < a and b in self.mask[a] and gl[a][1].collides(gl[b][1]):
                    yield gl[a][0], gl[b][0]

    def _against(self, robot, index):
        gl = self.geomList
        if index < 0:
            return
        for l in self.robots[self._robot_index(robot)]:
            if l >= 0 and index in self.mask[l] and gl[index][1].collides(gl[l][1]):
                yield gl[l][0], gl[index][0]

    def robotObjectCollisions(self, robot, object=None):
        """``(link, object)`` pairs of the robot colliding with a rigid object (index or
        RigidObjectModel; None: every object)."""
        objects = range(len(self.rigidObjects)) if object is None else \
            [object.index if isinstance(object, RigidObjectModel) else int(object)]
        for o in objects:
            yield from self._against(robot, self.rigidObjects[o])

    def robotTerrainCollisions(self, robot, terrain=None):
        """``(link, terrain)`` pairs of the robot colliding with a terrain (None: any)."""
        terrains = range(len(self.terrains)) if terrain is None else \
            [terrain.index if isinstance(terrain, TerrainModel) else int(terrain)]
        for t in terrains:
            yield from self._against(robot, self.terrains[t])

    def objectTerrainCollisions(self, object, terrain=None):
        """``(object, terrain)`` if the rigid object collides with the terrain (None: any)."""
        o = self.rigidObjects[object.index if isinstance(object, RigidObjectModel) else int(object)]
        terrains = range(len(self.terrains)) if terrain is None else \
            [terrain.index if isinstance(terrain, TerrainModel) else int(terrain)]
        gl = self.geomList
        for t in (self.terrains[k] for k in terrains):
            if o >= 0 and t >= 0 and t in self.mask[o] and gl[o][1].collides(gl[t][1]):
                yield gl[o][0], gl[t][0]

    def objectObjectCollisions(self, object, object2=None):
        """``(object, object2)`` if the two rigid objects collide (None: every other one)."""
        o = self.rigidObjects[object.index if isinstance(object, RigidObjectModel) else int(object)]
        others = range(len(self.rigidObjects)) if object2 is None else \
            [object2.index if isinstance(object2, RigidObjectModel) else int(object2)]
        gl = self.geomList
        for o2 in (self.rigidObjects[k] for k in others):
            if o >= 0 and o2 >= 0 and o2 in self.mask[o] and gl[o][1].collides(gl[o2][1]):
                yield gl[o][0], gl[o2][0]

    def rayCast(self, s, d, indices=None):
        """``(view, point)`` of the first element the ray meets, or None."""
        items = self.geomList if indices is None else [self.geomList[i] for i in indices if i >= 0]
        hit = ray_cast([g for _, g in items], s, d)
        return None if hit is None else (items[hit[0]][0], hit[1])

    def rayCastRobot(self, robot, s, d):
        """``(link, point)`` of the robot's first link the ray meets, or None."""
        return self.rayCast(s, d, self.robots[self._robot_index(robot)])
