"""Semantic difference of two models: does B hold the same robot (or world) as A, and if
not, what differs, and by how much?

:func:`diff` compares two robots (or two worlds, robot by robot, object by object) as models,
not as files:

* **links** are paired as ``roboio verify`` pairs them (:func:`roboio.link_match.match_links`:
  by name, through ``link_map``; then by joint name; by tree structure when names do not pair
  every link), so a renamed link is one rename, not a removal and an addition;
* **kinematics**: links only in A or B, their order, parents, joint types (revolute or
  prismatic, and the Klamp't joint group: normal, spin, weld, floating, ...), axes (the angle
  they turned, the length), the frames at q = 0 (translation in m, rotation angle in rad),
  position, velocity and acceleration limits, initial values; drivers (paired by name, else
  by the link they actuate): added, removed, order, type, DOFs by link name, scales,
  offsets, limits;
* **dynamics**: mass (kg and %), centre of mass (how far it moved, m, in the link frame),
  inertia (about the COM, link axes: principal moments, largest entry change, how far the
  principal axes turned), torque and power limits, driver torque limits, servo gains and
  friction;
* **geometry**: collision and visual geometry as shapes in the link frame, whatever files
  hold them (:mod:`roboio.diff._shapes`: same triangles, same primitive solids, within
  ``tol``; the size is how far a vertex or surface moved, m), the colours each triangle and
  primitive is drawn with (a link that sets none is drawn in Klamp't's and MuJoCo's grey),
  self-collision pairs;
* **names**: renamed links, joint names and driver names that differ (a driver named after
  its link on one side and after that link's joint on the other -- Klamp't's convention
  against URDF's -- is the same driver, not a rename).

``tol`` is absolute for positions (m), angles (rad), axes and colours, relative for masses,
inertias and limits. ``focus`` restricts the comparison to some kinds. Each
:class:`Difference` carries its kind, the two values and its size; :class:`DiffResult` prints
them by kind, folding a difference that concerns many links into one line.

What is not compared: nonlinear couplings' functions (their drivers' type and DOFs are),
sensors, manipulators, format-specific ``extras``, contact parameters.
"""
from __future__ import annotations

from typing import Iterable, Optional

from ..model import Geometry, RigidObject, Robot, Terrain, World
from ._record import KINDS, SHOWN, DiffResult, Difference
from ._robot import GEO as GEOMETRY, compare_element, compare_geometry, compare_robots

__all__ = ["diff", "Difference", "DiffResult", "KINDS", "SHOWN"]


def diff(a, b, tol: float = 1e-9, *, focus: Optional[Iterable[str]] = None,
         link_map: Optional[dict] = None) -> DiffResult:
    """Semantic differences between models ``a`` and ``b`` (Robot, World, RigidObject,
    Terrain or Geometry (a mesh, primitive or point cloud file); a World with one robot
    compares with a Robot). ``focus``: the kinds to compare
    (:data:`KINDS`: ``"kinematics"``, ``"dynamics"``, ``"geometry"``, ``"names"``; default
    all); ``link_map``: which link of A is which of B where names do not say (``{"a": "b"}``,
    prefix rules ``{"left_*": "l_*"}``), as ``roboio verify --map``."""
    kinds = tuple(k for k in KINDS if focus is None or k in set(focus))
    unknown = set(focus or ()) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown kind of difference {sorted(unknown)[0]!r} (kinds: {', '.join(KINDS)})")
    if isinstance(a, World) and len(a.robots) == 1 and isinstance(b, Robot):
        a = a.robots[0]
    if isinstance(b, World) and len(b.robots) == 1 and isinstance(a, Robot):
        b = b.robots[0]
    res = DiffResult(focus=kinds)
    out: list = []
    wanted = set(kinds)
    if isinstance(a, Robot) and isinstance(b, Robot):
        res.matched_links, res.matched_by = compare_robots(a, b, tol, out, wanted, link_map=link_map)
    elif isinstance(a, World) and isinstance(b, World):
        _worlds(a, b, tol, out, wanted, link_map, res)
    elif isinstance(a, (RigidObject, Terrain)) and type(a) is type(b):
        compare_element("rigid object" if isinstance(a, RigidObject) else "terrain", a, b, tol, out, wanted)
    elif isinstance(a, Geometry) and isinstance(b, Geometry):
        if GEOMETRY in wanted:
            compare_geometry(a, b, tol, out)
    else:
        raise ValueError(f"cannot compare a {type(a).__name__} with a {type(b).__name__} (diff "
                         "compares robots, worlds, rigid objects, terrains and geometry files)")
    res.differences = [d for d in out if d.kind in wanted]
    return res


def _worlds(a: World, b: World, tol: float, out: list, kinds: set, link_map, res: DiffResult) -> None:
    many = len(a.robots) > 1 or len(b.robots) > 1
    hows = []
    for x, y in _by_name("robot", a.robots, b.robots, out):
        n, how = compare_robots(x, y, tol, out, kinds, f"{x.name}/" if many else "", link_map)
        res.matched_links += n
        hows.append(how)
    res.matched_by = ", ".join(dict.fromkeys(hows)) or "names"
    for x, y in _by_name("rigid object", a.rigid_objects, b.rigid_objects, out):
        compare_element("rigid object", x, y, tol, out, kinds)
    for x, y in _by_name("terrain", a.terrains, b.terrains, out):
        compare_element("terrain", x, y, tol, out, kinds)


def _by_name(what: str, xs: list, ys: list, out: list) -> list:
    """Elements of two worlds paired by name (one left on each side: paired, a rename);
    the others are added or removed."""
    ny = {}
    for y in ys:
        ny.setdefault(y.name, y)
    pairs, left = [], []
    for x in xs:
        y = ny.pop(x.name, None)
        (pairs.append((x, y)) if y is not None else left.append(x))
    rest = [y for y in ys if any(y is v for v in ny.values())]
    if len(left) == 1 and len(rest) == 1:
        out.append(Difference("names", what, left[0].name, "renamed", left[0].name, rest[0].name))
        return pairs + [(left[0], rest[0])]
    out += [Difference("kinematics", what, x.name, "removed") for x in left]
    out += [Difference("kinematics", what, y.name, "added") for y in rest]
    return pairs
