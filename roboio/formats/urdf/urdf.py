"""URDF robots: read as Klamp't reads them, written as standard URDF.

Reading: XML -> records (:mod:`._parse`, :mod:`._records`; the ``<klampt>`` element in
:mod:`._klampt_ext`) -> robot (:mod:`._build`, with Klamp't's mount and self-collision
rules from :mod:`roboio.formats.klampt.mount`). Writing (:mod:`._writer`) produces URDF that
ROS tools, pinocchio, yourdfpy and Klamp't read with the same kinematics.
"""
from __future__ import annotations

from ...context import LoadContext
from ...model import Robot
from .. import xmlutil
from ..fileio import as_bytes, atomic_write, read_bytes
from ._build import build_robot
from ._klampt_ext import parse_klampt
from ._parse import parse_model
from ._sniff import sniff_urdf as sniff
from ._package import check_package_name, package_root, write_package_xml
from ._writer import urdf_xml

__all__ = ["sniff", "loads", "read", "dumps", "write", "DEFAULT_MESHES"]


def loads(data, ctx: LoadContext) -> Robot:
    """The Robot Klamp't makes of URDF text; meshes are found relative to ``ctx.path`` (and
    ``package://`` references through the context's package directories)."""
    path = ctx.path or ""
    root = xmlutil.parse_bytes(as_bytes(data), path, ctx, recover=True)
    model = parse_model(root, path, ctx)
    settings = parse_klampt(root, path, ctx)
    robot = build_robot(model, settings, path, ctx)
    robot.source = ctx.path
    return robot


def read(path: str, ctx: LoadContext) -> Robot:
    return loads(read_bytes(path, ctx), ctx)


DEFAULT_MESHES = "keep"     # meshes ROS tools read stay where they are; others are converted


def _options(report, path) -> tuple:
    """(meshes mode, package (root, "package://NAME/") or None) of ``report.options``."""
    opts = getattr(report, "options", None) or {}
    name = opts.get("package")
    package = None
    if name:
        check_package_name(name)
        package = (package_root(path, name), f"package://{name}/")
    return opts.get("meshes") or DEFAULT_MESHES, package


def dumps(robot: Robot, report, path=None) -> bytes:
    """Standard URDF (plus a ``<klampt>`` element other readers ignore); meshes are
    referenced relative to ``path`` (or as ``package://NAME/...`` with
    ``report.options["package"]``). Meshes ROS tools cannot read (``.off``, ``.iv``,
    ``.wrl``, ``.tri``, ...) are planned as converted files beside ``path`` but only
    :func:`write` writes them (and the package's ``package.xml``)."""
    mode, package = _options(report, path or "robot.urdf")
    data, meshes = urdf_xml(robot, path or "robot.urdf", report, mode, package)
    meshes.summarise()
    return data


def write(robot: Robot, path: str, report) -> None:
    """Write ``robot`` as URDF to ``path`` (atomically) and the converted or copied meshes
    into ``<stem>_meshes/`` beside it (``report.options["meshes"]``: keep, copy or
    convert; default keep). With ``report.options["package"]`` (a ROS package name), mesh
    references are ``package://NAME/...`` and the package root gets a minimal
    ``package.xml`` (:mod:`._package`)."""
    mode, package = _options(report, path)
    data, meshes = urdf_xml(robot, path, report, mode, package)
    if package is not None:
        write_package_xml(package[0], package[1][len("package://"):-1], report)
    meshes.write_files()
    atomic_write(path, data)
