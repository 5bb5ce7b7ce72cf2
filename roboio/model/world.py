"""Worlds: robots, rigid objects and terrains, numbered with Klamp't's ID scheme."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .geometry import Appearance, Geometry
from .robot import Link, Robot

__all__ = ["World", "RigidObject", "Terrain"]


class RigidObject:
    """A free rigid body. ``transform`` (4x4, world pose), ``mass`` (kg), ``com`` (m, body
    frame), ``inertia`` (kg m^2 about the COM), contact parameters ``kFriction``,
    ``kRestitution``, ``kStiffness``, ``kDamping`` (Klamp't's defaults), initial
    ``velocity`` / ``angular_velocity`` (m/s, rad/s, world frame)."""

    def __init__(self, name: str = "Object", geometry: Optional[Geometry] = None, transform=None):
        self.name = name
        self.geometry = geometry
        self.transform = np.eye(4) if transform is None else np.array(transform, dtype=float)
        self.appearance = Appearance()
        self.mass = 1.0
        self.com = np.zeros(3)
        self.inertia = np.eye(3)
        self.kFriction = 0.5
        self.kRestitution = 0.5
        self.kStiffness = np.inf
        self.kDamping = np.inf
        self.velocity = np.zeros(3)
        self.angular_velocity = np.zeros(3)
        self.extras: dict = {}
        self.warnings: list = []
        self.source: Optional[str] = None

    def __repr__(self):
        return f"<RigidObject {self.name!r}>"


class Terrain:
    """A static environment element. ``kFriction`` is one value, or one per geometry
    element (e.g. per triangle). ``transform`` is its pose (identity unless a format gives
    terrains poses; Klamp't bakes placement into the geometry's own transform)."""

    def __init__(self, name: str = "Terrain", geometry: Optional[Geometry] = None, transform=None):
        self.name = name
        self.geometry = geometry
        self.transform = np.eye(4) if transform is None else np.array(transform, dtype=float)
        self.appearance = Appearance()
        self.kFriction = 0.5
        self.extras: dict = {}
        self.warnings: list = []
        self.source: Optional[str] = None

    def __repr__(self):
        return f"<Terrain {self.name!r}>"


class World:
    """Robots, rigid objects and terrains, each list in file order.

    IDs follow Klamp't: terrains ``0..T-1``, rigid objects ``T..T+O-1``, then for each robot
    one ID for the robot followed by one per link.
    """

    def __init__(self, name: str = "World"):
        self.name = name
        self.robots: list[Robot] = []
        self.rigid_objects: list[RigidObject] = []
        self.terrains: list[Terrain] = []
        self.extras: dict = {}       # e.g. Klamp't <simulation>, background, goals
        self.warnings: list = []
        self.source: Optional[str] = None

    def add(self, element):
        """Append a Robot, RigidObject or Terrain; returns it."""
        if isinstance(element, Robot):
            self.robots.append(element)
        elif isinstance(element, RigidObject):
            self.rigid_objects.append(element)
        elif isinstance(element, Terrain):
            self.terrains.append(element)
        else:
            raise TypeError(f"cannot add {type(element).__name__} to a World")
        return element

    @staticmethod
    def _pick(items, key, what):
        if isinstance(key, (int, np.integer)):
            return items[key]
        for it in items:
            if it.name == key:
                return it
        raise KeyError(f"no {what} named {key!r}")

    def robot(self, key) -> Robot:
        return self._pick(self.robots, key, "robot")

    def rigid_object(self, key) -> RigidObject:
        return self._pick(self.rigid_objects, key, "rigid object")

    def terrain(self, key) -> Terrain:
        return self._pick(self.terrains, key, "terrain")

    @property
    def num_ids(self) -> int:
        return len(self.terrains) + len(self.rigid_objects) + sum(1 + r.num_links for r in self.robots)

    def element(self, id: int):
        """The Terrain, RigidObject, Robot or Link with Klamp't ID ``id``."""
        i = int(id)
        if i < 0:
            raise IndexError(f"invalid ID {id}")
        if i < len(self.terrains):
            return self.terrains[i]
        i -= len(self.terrains)
        if i < len(self.rigid_objects):
            return self.rigid_objects[i]
        i -= len(self.rigid_objects)
        for r in self.robots:
            if i == 0:
                return r
            if i <= r.num_links:
                return r.links[i - 1]
            i -= 1 + r.num_links
        raise IndexError(f"invalid ID {id} (world has {self.num_ids} IDs)")

    def id_of(self, element) -> int:
        """Klamp't ID of a terrain, rigid object, robot or robot link."""
        base = 0
        for t in self.terrains:
            if t is element:
                return base
            base += 1
        for o in self.rigid_objects:
            if o is element:
                return base
            base += 1
        for r in self.robots:
            if r is element:
                return base
            if isinstance(element, Link) and element in r.links:
                return base + 1 + element.index
            base += 1 + r.num_links
        raise KeyError(f"{element!r} is not in this world")

    def collisions(self, configs=None) -> list:
        """Colliding element pairs ``(a, b)`` (robot :class:`Link`, :class:`RigidObject`,
        :class:`Terrain`), in Klamp't ID order, checked as Klamp't's ``WorldCollider`` checks
        them (each robot's ``self_collision_pairs``; links of different robots, objects with
        everything, terrains with objects and with non-root links; never two terrains).
        ``configs`` maps robots (object, name or index) to configurations; the others keep
        their ``config``. Needs ``pip install "roboio[collision]"``."""
        from ..collision.world import world_collisions
        return world_collisions(self, configs)

    def __repr__(self):
        return (f"<World {self.name!r}: {len(self.robots)} robots, {len(self.rigid_objects)} "
                f"rigid objects, {len(self.terrains)} terrains>")
