"""A URDF written as a file of a ROS package (``--package NAME``, ``save(...,
package="NAME")``): mesh references become ``package://NAME/...`` URIs, which rviz,
robot_state_publisher, pinocchio and yourdfpy resolve through the package, and a minimal
``package.xml`` marks the package root.

The root is the nearest directory, from the output's own upwards, that is named NAME or
holds a ``package.xml`` naming NAME (the usual ``NAME/urdf/robot.urdf`` layout); failing
that, the output's directory. A ``package.xml`` is written there unless one naming NAME
already is; one naming another package is never overwritten (an error).
"""
from __future__ import annotations

import os
import re

from ...errors import OutputError
from ...resolve import package_xml_name

__all__ = ["check_package_name", "package_root", "package_xml", "write_package_xml"]

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")        # REP 144


def check_package_name(name: str) -> str:
    """``name`` if it is a valid ROS package name (REP 144: lower-case letters, digits and
    underscores, starting with a letter), else ValueError."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"package name {name!r} is not a ROS package name: pass --package "
                         "(package=) a name of lower-case letters, digits and '_', starting with "
                         "a letter")
    return name


def package_root(output: str, name: str) -> str:
    """The package root directory of the URDF to be written at ``output`` (see the module
    docstring)."""
    d = os.path.dirname(os.path.abspath(output))
    here = d
    while True:
        if os.path.basename(d) == name or package_xml_name(d) == name:
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return here
        d = parent


def package_xml(name: str) -> bytes:
    """A minimal ``package.xml`` (format 3: the fields every ROS tool requires)."""
    return (f'<?xml version="1.0"?>\n<package format="3">\n  <name>{name}</name>\n'
            '  <version>0.0.0</version>\n'
            f'  <description>Robot model {name} (URDF and meshes), written by roboio</description>\n'
            '  <maintainer email="maintainer@example.com">maintainer</maintainer>\n'
            '  <license>TODO</license>\n'
            '</package>\n').encode()


def write_package_xml(root: str, name: str, report) -> None:
    """Write ``root/package.xml`` for package ``name`` unless one naming it is there;
    say where the package root is (``report.warnings``)."""
    from ..fileio import atomic_write
    path = os.path.join(root, "package.xml")
    have = package_xml_name(root) if os.path.exists(path) else None
    if os.path.exists(path) and have != name:
        raise OutputError(path, f"holds another package ({have!r}), not {name!r}; refusing to "
                          "overwrite it (write the URDF elsewhere, or name that package)")
    if have is None:
        atomic_write(path, package_xml(name))
        report.files.append(path)
    note = f"package {name!r}: root {root}" + ("" if have else " (package.xml written)")
    if os.path.basename(root) != name:
        note += (f"; the directory is not named {name!r}: ROS finds the package by its "
                 "package.xml (on ROS_PACKAGE_PATH, or once installed), tools that look for a "
                 f"directory named {name!r} (pinocchio's package_dirs) do not")
    report.warn(note)
