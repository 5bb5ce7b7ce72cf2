"""What a Klamp't ``.rob`` file says, keyword by keyword, before any kinematics: the
records :mod:`._parse` fills and :mod:`._build` turns into a robot. Each record keeps the
line (and text) it came from, for messages."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

__all__ = ["VOTING_LISTS", "Occurrence", "ListRecord", "Scalar", "GeomTransformRec", "PairRec",
           "JointRec", "DriverRec", "MountRec", "PropertyRec", "RobRecords"]

# Items per group and unit of the list keywords that are not plain numbers one by one.
_GROUPS = {"tparent": (12, "number"), "axis": (3, "number"), "com": (3, "number"),
           "inertia": (9, "number"), "links": (1, "name"), "drivers": (1, "name"),
           "geometry": (1, "name"), "jointtype": (1, "letter"), "parents": (1, "integer"),
           "collision": (1, "name"), "nocollision": (1, "name")}

# Lists that vote for the link count N (spec §3.4), by record name.
VOTING_LISTS = ("parents", "jointtype", "links", "mass", "com", "inertia", "a", "d", "alpha",
                "theta", "tparent", "axis", "q", "qmin", "qmax", "velmin", "velmax",
                "torquemax", "powermax")


@dataclass
class Occurrence:
    """One line of a list keyword: how many items it gave, how many numbers were left
    over (an incomplete group Klamp't drops) and the text at which reading stopped."""

    line: int
    spelled: str
    items: int
    leftover: int = 0
    stopped_at: Optional[str] = None
    stop_line: Optional[int] = None


@dataclass
class ListRecord:
    """Accumulated values of a list keyword; ``group`` numbers make one item."""

    name: str
    group: int = 1
    unit: str = "number"
    items: list = field(default_factory=list)
    occurrences: list = field(default_factory=list)

    @property
    def line(self) -> Optional[int]:
        return self.occurrences[0].line if self.occurrences else None

    @property
    def spelled(self) -> str:
        return self.occurrences[0].spelled if self.occurrences else self.name

    def __len__(self):
        return len(self.items)

    def line_of(self, i: int) -> Optional[int]:
        """The line that gave item ``i``."""
        k = 0
        for o in self.occurrences:
            if i < k + o.items:
                return o.line
            k += o.items
        return self.line

    def raw_count(self) -> int:
        """Numbers (or names) read, including dropped incomplete groups."""
        return len(self.items) * self.group + sum(o.leftover for o in self.occurrences)


@dataclass
class Scalar:
    value: object
    line: int
    spelled: str


@dataclass
class GeomTransformRec:
    index: int
    matrix: np.ndarray
    line: int


@dataclass
class PairRec:
    a: str
    b: str
    line: int


@dataclass
class JointRec:
    type: str
    link: int
    base: int
    line: int


@dataclass
class DriverRec:
    type: str
    dofs: list
    line: int
    scale: list = field(default_factory=list)
    offset: list = field(default_factory=list)
    limits: tuple = ()            # affine: qmin qmax vmin vmax tmin tmax
    force_link: int = -1          # translation / rotation: the link receiving the force


@dataclass
class MountRec:
    link: str
    file: str
    transform: np.ndarray
    name: str
    line: int


@dataclass
class PropertyRec:
    name: str
    value: str                    # the rest of the logical line, as written
    line: int


@dataclass
class RobRecords:
    """Everything a ``.rob`` file says, keyword by keyword, before any interpretation."""

    lists: dict = field(default_factory=dict)
    scalars: dict = field(default_factory=dict)
    geomtransforms: list = field(default_factory=list)
    selfcollision: list = field(default_factory=list)
    noselfcollision: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    drivers: list = field(default_factory=list)
    mounts: list = field(default_factory=list)
    properties: list = field(default_factory=list)
    first_line: Optional[int] = None
    open_end_line: Optional[int] = None     # the last line, when the file ends without a newline

    def list(self, name: str) -> ListRecord:
        rec = self.lists.get(name)
        if rec is None:
            group, unit = _GROUPS.get(name, (1, "number"))
            rec = self.lists[name] = ListRecord(name, group, unit)
        return rec

    def has(self, name: str) -> bool:
        rec = self.lists.get(name)
        return rec is not None and len(rec) > 0

    def values(self, name: str) -> list:
        rec = self.lists.get(name)
        return rec.items if rec is not None else []
