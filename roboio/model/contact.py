"""Contacts and IK constraints as Klamp't files hold them (``.ikgoal``, ``.hold``,
``.stance``, grasp XML): plain data classes, no kinematics.

Frames: contact points ``x`` and normals ``n`` are in world coordinates (or in the frame of
``dest_link`` when a constraint has one); ``local_*`` vectors are in the constrained link's
frame. Rotations are moments (exponential map, axis * angle in radians), as in the files.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

__all__ = ["IKObjective", "ContactPoint", "Hold", "Stance", "Grasp",
           "POS_CONSTRAINTS", "ROT_CONSTRAINTS"]

#: position constraint kinds (Klamp't IK text letters N, F, P, L)
POS_CONSTRAINTS = ("free", "fixed", "planar", "linear")
#: rotation constraint kinds (Klamp't IK text letters N, F, A, T)
ROT_CONSTRAINTS = ("free", "fixed", "axis", "twoaxis")


def _vec3(v) -> Optional[np.ndarray]:
    if v is None:
        return None
    a = np.array(v, dtype=float).reshape(-1)
    if a.shape != (3,):
        raise ValueError(f"expected 3 numbers, got {a.size}")
    return a


def _eq3(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return bool(np.array_equal(a, b, equal_nan=True))


@dataclass(eq=False)
class IKObjective:
    """Klamp't ``IKGoal``: constrains a point/orientation of robot link ``link`` relative to
    ``dest_link`` (-1 = world).

    * ``pos_constraint`` ``"free"``; ``"fixed"``: ``local_position`` (link frame) coincides
      with ``end_position``; ``"planar"``: it lies on the plane through ``end_position`` with
      normal ``direction``; ``"linear"``: on the line through ``end_position`` along
      ``direction``.
    * ``rot_constraint`` ``"free"``; ``"fixed"``: the link orientation is the moment
      ``end_rotation``; ``"axis"`` / ``"twoaxis"``: ``local_axis`` is aligned with the
      world (dest) axis ``end_rotation``.
    """

    link: int
    dest_link: int = -1
    pos_constraint: str = "free"
    local_position: Optional[np.ndarray] = None
    end_position: Optional[np.ndarray] = None
    direction: Optional[np.ndarray] = None
    rot_constraint: str = "free"
    local_axis: Optional[np.ndarray] = None
    end_rotation: Optional[np.ndarray] = None

    def __post_init__(self):
        if self.pos_constraint not in POS_CONSTRAINTS:
            raise ValueError(f"pos_constraint must be one of {POS_CONSTRAINTS}, got {self.pos_constraint!r}")
        if self.rot_constraint not in ROT_CONSTRAINTS:
            raise ValueError(f"rot_constraint must be one of {ROT_CONSTRAINTS}, got {self.rot_constraint!r}")
        self.link = int(self.link)
        self.dest_link = int(self.dest_link)
        for name in ("local_position", "end_position", "direction", "local_axis", "end_rotation"):
            setattr(self, name, _vec3(getattr(self, name)))
        need = {"fixed": ("local_position", "end_position"),
                "planar": ("local_position", "end_position", "direction"),
                "linear": ("local_position", "end_position", "direction")}.get(self.pos_constraint, ())
        need += {"fixed": ("end_rotation",), "axis": ("local_axis", "end_rotation"),
                 "twoaxis": ("local_axis", "end_rotation")}.get(self.rot_constraint, ())
        missing = [n for n in need if getattr(self, n) is None]
        if missing:
            raise ValueError(f"{self.pos_constraint}/{self.rot_constraint} IK objective needs {', '.join(missing)}")

    def __eq__(self, other):
        if not isinstance(other, IKObjective):
            return NotImplemented
        return (self.link == other.link and self.dest_link == other.dest_link
                and self.pos_constraint == other.pos_constraint
                and self.rot_constraint == other.rot_constraint
                and all(_eq3(getattr(self, n), getattr(other, n))
                        for n in ("local_position", "end_position", "direction", "local_axis", "end_rotation")))

    def summary(self) -> dict:
        return {"kind": "ik_objective", "link": self.link, "dest_link": self.dest_link,
                "pos_constraint": self.pos_constraint, "rot_constraint": self.rot_constraint}


@dataclass(eq=False)
class ContactPoint:
    """A frictional point contact: point ``x``, normal ``n`` (3,) and friction coefficient."""

    x: np.ndarray
    n: np.ndarray
    kFriction: float = 0.0

    def __post_init__(self):
        self.x = _vec3(self.x)
        self.n = _vec3(self.n)
        self.kFriction = float(self.kFriction)

    def __eq__(self, other):
        if not isinstance(other, ContactPoint):
            return NotImplemented
        return (_eq3(self.x, other.x) and _eq3(self.n, other.n)
                and (self.kFriction == other.kFriction
                     or (np.isnan(self.kFriction) and np.isnan(other.kFriction))))

    def summary(self) -> dict:
        return {"kind": "contact_point", "x": self.x.tolist(), "n": self.n.tolist(),
                "kFriction": self.kFriction}


@dataclass
class Hold:
    """Klamp't ``Hold``: contact points of robot link ``link`` with the IK constraint that
    keeps them in place (``.hold`` files, multipath ``<hold>``). ``name`` is the name of a
    global hold in a multipath (None elsewhere)."""

    link: int
    contacts: list = field(default_factory=list)
    ik_constraint: Optional[IKObjective] = None
    name: Optional[str] = None
    warnings: list = field(default_factory=list, compare=False, repr=False)
    source: Optional[str] = field(default=None, compare=False, repr=False)

    @property
    def dest_link(self) -> int:
        return self.ik_constraint.dest_link if self.ik_constraint is not None else -1

    def summary(self) -> dict:
        ik = self.ik_constraint
        return {"kind": "hold", "link": self.link, "dest_link": self.dest_link,
                "contacts": len(self.contacts),
                "pos_constraint": ik.pos_constraint if ik else "free",
                "rot_constraint": ik.rot_constraint if ik else "free"}


@dataclass
class Stance:
    """Klamp't ``Stance``: at most one hold per link, kept sorted by link index (a later hold
    on the same link replaces the earlier one, as Klamp't's map does)."""

    holds: list = field(default_factory=list)
    warnings: list = field(default_factory=list, compare=False, repr=False)
    source: Optional[str] = field(default=None, compare=False, repr=False)

    def add(self, hold: Hold) -> Optional[Hold]:
        """Insert ``hold``; returns the hold it replaced (same link), if any."""
        for i, h in enumerate(self.holds):
            if h.link == hold.link:
                self.holds[i] = hold
                return h
        self.holds.append(hold)
        self.holds.sort(key=lambda h: h.link)
        return None

    def hold(self, link: int) -> Optional[Hold]:
        return next((h for h in self.holds if h.link == link), None)

    def summary(self) -> dict:
        return {"kind": "stance", "holds": len(self.holds),
                "hold_links": [h.link for h in self.holds],
                "contacts": [len(h.contacts) for h in self.holds]}


@dataclass
class Grasp:
    """Klamp't ``Grasp`` (XML root ``<Grasp>``): IK ``constraints``, fixed DOF values, and
    contacts with the robot link each belongs to and an optional force (``forces[i]`` is
    None where contact ``i`` has none)."""

    object_index: int = -1
    robot_index: int = 0
    constraints: list = field(default_factory=list)
    fixed_dofs: list = field(default_factory=list)
    fixed_values: list = field(default_factory=list)
    contacts: list = field(default_factory=list)
    contact_links: list = field(default_factory=list)
    forces: list = field(default_factory=list)
    warnings: list = field(default_factory=list, compare=False, repr=False)
    source: Optional[str] = field(default=None, compare=False, repr=False)

    def __eq__(self, other):
        if not isinstance(other, Grasp):
            return NotImplemented
        return (self.object_index == other.object_index and self.robot_index == other.robot_index
                and self.constraints == other.constraints
                and list(map(int, self.fixed_dofs)) == list(map(int, other.fixed_dofs))
                and np.array_equal(np.asarray(self.fixed_values, float), np.asarray(other.fixed_values, float))
                and self.contacts == other.contacts
                and list(map(int, self.contact_links)) == list(map(int, other.contact_links))
                and len(self.forces) == len(other.forces)
                and all(_eq3(None if a is None else np.asarray(a, float), None if b is None else np.asarray(b, float))
                        for a, b in zip(self.forces, other.forces)))

    def summary(self) -> dict:
        return {"kind": "grasp", "object_index": self.object_index, "robot_index": self.robot_index,
                "constraints": len(self.constraints), "fixed_dofs": list(map(int, self.fixed_dofs)),
                "contacts": len(self.contacts),
                "contact_links": sorted(set(map(int, self.contact_links)))}
