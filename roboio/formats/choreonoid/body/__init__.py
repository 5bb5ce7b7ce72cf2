"""Choreonoid body models (``.body``, ``format: ChoreonoidBody``) as roboio robots.

Mapping onto Klamp't's one-DOF-per-link model:

* links are created in Choreonoid's **link index order** (depth-first from the root),
  each with ``parent_transform = [Rb | b]`` (``rotation`` / ``translation``) and the
  joint axis in its own frame — Choreonoid's forward kinematics exactly;
* a ``free`` root becomes Klamp't's floating base: five massless virtual links ``base0`` ..
  ``base4`` (x, y, z prismatic, then yaw, pitch revolute; the names Klamp't gives the floating
  base of a URDF robot, so both models of a robot match link by link) and the root link itself
  rotating about x, grouped by a ``floating`` joint; the root's initial ``translation`` /
  ``rotation`` is the initial configuration (x, y, z, yaw, pitch, roll);
* a non-root ``free`` link (a separate body in a scene file) gets the same six-DOF chain
  (virtual links ``<link>_base0`` ..), placed at its offset (at q = 0 it is where
  Choreonoid's kinematics puts it);
* a ``fixed`` root keeps its pose in ``parent_transform``; ``fixed`` and
  ``pseudo_continuous_track`` joints are ``weld`` links (Choreonoid's kinematics does not move
  them);
* names: every link's ``joint_name`` is Choreonoid's ``jointName()``, the ``joint_name`` key
  or else the link's own name (the root's only where the file gives one); drivers (one per
  revolute/prismatic joint) carry it too;
* geometry: collision shapes (or all shapes when the link has no Visual/Collision node) in
  ``link.geometry``; when the link separates them, the visual shapes in
  ``link.visual_geometry``.

The numbering motions use is typed on the robot: ``robot.source_link_order`` (robot link of
Choreonoid link index i; the root first) and ``robot.joint_id_links`` (robot link of joint
id j, -1 for gaps). ``robot.extras["choreonoid"]`` keeps what the writer gives back:
``floating``, ``root_pose`` (initial, 4x4), the format version and angle unit, and the
file's other keys (``standard_pose``, ``foot_links``, ...) verbatim in ``info``.

Files: records in :mod:`._records` (parsed by :mod:`._parse`, link elements by
:mod:`._elements`, extrusions by :mod:`._extrusion`), the robot built by :mod:`._build`,
written back by :mod:`._writer`.
"""
from __future__ import annotations

from ....context import LoadContext
from ....model import Robot
from ...fileio import as_text, atomic_write, cut_inside_block, read_bytes
from .._sniff import sniff_body as sniff
from ._build import FLOATING_NAMES, robot_from_records
from ._parse import parse_records

__all__ = ["sniff", "loads", "read", "dumps", "write", "FLOATING_NAMES"]


def loads(data, ctx: LoadContext) -> Robot:
    """The robot of ``.body`` text; meshes and sub-bodies are found relative to ``ctx.path``."""
    text = as_text(data)
    cut = cut_inside_block(text)
    if cut is not None:
        # A warning, not the error a cut file is: a complete file whose editor left out the
        # last newline ends the same way (MasutaniLab's box.body), and Choreonoid reads both.
        ctx.warn("the file ends without a newline inside an indented block (truncated?): if it "
                 "was cut short, links or elements after it are missing", cut,
                 kind="truncated", severity="warning")
    robot = robot_from_records(parse_records(text, ctx), ctx)
    robot.source = ctx.path
    return robot


def read(path: str, ctx: LoadContext) -> Robot:
    return loads(read_bytes(path, ctx), ctx)


def dumps(robot: Robot, report, path=None) -> str:
    """The ``.body`` text; mesh files are referenced relative to ``path``."""
    from ._writer import body_text
    return body_text(robot, path or "robot.body", report)


def write(robot: Robot, path: str, report) -> None:
    atomic_write(path, dumps(robot, report, path))
