"""URDF robots: read as Klamp't reads them, written as standard URDF.

Reading follows ``klampt.md`` §4 (see :mod:`._build` for the conversion rules and
:mod:`._klampt_ext` for the ``<klampt>`` element); writing produces URDF that ROS tools,
pinocchio, yourdfpy and Klamp't read with the same kinematics (see :mod:`._writer`).
"""
from __future__ import annotations

from ...context import LoadContext
from ...model import Robot
from .. import xmlutil
from ..registry import FormatInfo, register
from ..xmlsniff import robot_flavour
from ._build import build_robot
from ._klampt_ext import parse_klampt
from ._records import parse_model
from ._writer import write_urdf

__all__ = ["read", "write", "sniff"]


def sniff(head: bytes, path: str) -> bool:
    """A ``<robot>`` root element that is neither a GraspIt! robot (``<palm>``) nor an
    OpenRAVE robot (``<KinBody>``, ``<Body>``, ``<Manipulator>``... children, ``file=``);
    the rule is shared with the other sniffers (:func:`roboio.formats.xmlsniff.robot_flavour`)."""
    return robot_flavour(head) == "urdf"


def read(path: str, ctx: LoadContext) -> Robot:
    """The Robot Klamp't makes of the URDF file ``path``."""
    root = xmlutil.parse(path, ctx, recover=True)
    model = parse_model(root, path, ctx)
    settings = parse_klampt(root, path, ctx)
    robot = build_robot(model, settings, path, ctx)
    robot.source = path
    return robot


def write(robot: Robot, path: str, report) -> None:
    """Standard URDF (plus a ``<klampt>`` element other readers ignore)."""
    write_urdf(robot, path, report)


register(FormatInfo(
    name="urdf", extensions=(".urdf",), kinds=("robot",),
    description="URDF robot (read as Klamp't does, incl. the <klampt> element; written as standard URDF)",
    ecosystem="urdf", sniff=sniff, read=read, write=write, writes=(Robot,)))
