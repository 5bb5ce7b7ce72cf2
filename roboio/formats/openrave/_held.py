"""Joints no driver moves, as the OpenRAVE writers (XML and COLLADA) write and report them.

OpenRAVE moves a joint only through a DOF; a joint with none (``enable="false"`` in XML, an
``axis_info`` that is not ``active`` in COLLADA) stays where the file puts it. Both writers
put such a joint where the robot's configuration holds it, so that every link is written
where the source places it at its configuration (XML: a passive joint whose body is posed at
that value; COLLADA: a weld whose frame includes the joint's motion at that value), and both
name the value in the report with :func:`held_at`.
"""
from __future__ import annotations

from ..fileio import fmt_float

__all__ = ["held_value", "held_at"]


def held_value(robot, k: int) -> float:
    """The value link ``k``'s joint is held at: the robot's configuration (radians or
    metres; 0 where the configuration is shorter than the robot)."""
    return float(robot.config[k]) if len(robot.config) > k else 0.0


def held_at(robot, links) -> str:
    """``held at 0.5 m`` (``held at 0 rad, 0.25 rad`` for a joint of several axes): the values
    of ``links`` (model link indices, the joint's axes in order) that a report item names,
    each in its unit (metres for a prismatic axis, radians for a revolute one)."""
    return "held at " + ", ".join(
        f"{fmt_float(held_value(robot, k))} {'m' if robot.links[k].is_prismatic else 'rad'}"
        for k in links)
