"""Content test for GraspIt! XML (standard library only: sniffing imports no parser).

:func:`outline` returns the root element and its direct children (with their own direct
children's names) as far as the first bytes reach; comments, processing instructions, CDATA
and the DOCTYPE are skipped. The classifiers decide between the XML formats that share root
names (``<world>``: Klamp't or GraspIt!; ``<robot>``: URDF, GraspIt! or OpenRAVE) by the
children GraspIt! requires, so that other formats' sniffers can use them as complements.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["Element", "outline", "root_name", "is_graspit_robot", "is_graspit_world",
           "is_graspit_body", "graspit_kind", "sniff_graspit", "GRASPIT_WORLD_CHILDREN"]

_TAG = re.compile(r"<(/?)([A-Za-z_][\w:.-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*?)(/?)>", re.S)
_SKIP = (("<!--", "-->"), ("<?", "?>"), ("<![CDATA[", "]]>"), ("<!", ">"))


@dataclass
class Element:
    """One element seen in the head: ``name``, raw attribute text, direct ``children``."""

    name: str
    attrs: str = ""
    children: list = field(default_factory=list)

    def child_names(self) -> list:
        return [c.name for c in self.children]

    def has_attr(self, name: str) -> bool:
        return re.search(r"(?:^|\s)" + re.escape(name) + r"\s*=", self.attrs) is not None


def outline(head: bytes) -> Optional[Element]:
    """The root :class:`Element` with children and grandchildren found in ``head`` (None if
    ``head`` does not start like XML). Deeper elements are only counted for nesting."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    stack: list[Element] = []
    root = None
    pos, n = 0, len(text)
    while pos < n:
        lt = text.find("<", pos)
        if lt < 0:
            break
        if root is None and text[pos:lt].strip():
            return None                      # text before the root element: not XML
        for opening, closing in _SKIP:
            if text.startswith(opening, lt):
                end = text.find(closing, lt + len(opening))
                if end < 0:
                    return root
                pos = end + len(closing)
                break
        else:
            m = _TAG.match(text, lt)
            if not m:
                return root                  # a tag cut off by the end of the head
            pos = m.end()
            closing, name, attrs, empty = m.group(1), m.group(2), m.group(3), m.group(4)
            if closing:
                if stack:
                    stack.pop()
                if not stack and root is not None:
                    return root
                continue
            el = Element(name, attrs)
            if root is None:
                root = el
            elif len(stack) <= 2:
                stack[-1].children.append(el)
            if not empty:
                stack.append(el)
            elif root is el:
                return root
    return root


def root_name(head: bytes) -> Optional[str]:
    r = outline(head)
    return r.name if r is not None else None


# -- GraspIt! versus the other formats sharing root names --------------------------------
GRASPIT_WORLD_CHILDREN = ("obstacle", "graspableBody", "robot", "connection", "camera")
_GRASPIT_ROBOT_CHILDREN = ("palm", "dof", "chain")
_GRASPIT_BODY_CHILDREN = ("geometryFile", "material", "mass", "cog", "inertia_matrix", "youngs",
                          "geometryScaling", "geometryOffset")


def is_graspit_robot(root: Optional[Element]) -> bool:
    """``<robot>`` (case as written) whose children are GraspIt!'s ``<palm>``/``<dof>``/
    ``<chain>`` -- URDF robots have ``<link>``/``<joint>``, OpenRAVE ones ``<KinBody>``,
    ``<Manipulator>``, ... or a ``file=`` include."""
    return (root is not None and root.name == "robot"
            and any(c in _GRASPIT_ROBOT_CHILDREN for c in root.child_names()))


def is_graspit_world(root: Optional[Element]) -> bool:
    """``<world>`` holding GraspIt! elements: an ``<obstacle>``, ``<graspableBody>``,
    ``<connection>`` or ``<camera>``, or a ``<robot>`` naming its file in a ``<filename>``
    child (a Klamp't ``<robot>`` has a ``file=`` attribute). An empty ``<world/>`` is
    Klamp't's."""
    if root is None or root.name != "world":
        return False
    for c in root.children:
        if c.name in ("obstacle", "graspableBody", "connection", "camera"):
            return True
        if c.name == "robot" and "filename" in c.child_names():
            return True
    return False


def is_graspit_body(root: Optional[Element]) -> bool:
    """A GraspIt! body file: its root (``<root>`` in practice; GraspIt! does not check the
    name) holds ``<geometryFile>``, or it is ``<root>`` with other body tags (a body
    without geometry, which GraspIt! refuses with a clear message)."""
    if root is None:
        return False
    names = root.child_names()
    if "geometryFile" in names and root.name not in ("robot", "world"):
        return True
    return root.name == "root" and any(c in _GRASPIT_BODY_CHILDREN for c in names)


def graspit_kind(head: bytes) -> Optional[str]:
    """``robot``, ``world``, ``body``, ``eigengrasps``, ``virtual_contacts`` or None."""
    root = outline(head)
    if root is None:
        return None
    if is_graspit_robot(root):
        return "robot"
    if is_graspit_world(root):
        return "world"
    if is_graspit_body(root):
        return "body"
    if root.name == "EigenGrasps":
        return "eigengrasps"
    if root.name == "virtual_contacts":
        return "virtual_contacts"
    return None


def sniff_graspit(head: bytes, path: str) -> bool:
    """A GraspIt! robot (``<robot>`` with ``<palm>``/``<dof>``/``<chain>``), world
    (``<world>`` with GraspIt! elements), body (``<root>`` with ``<geometryFile>``), or one
    of the robot's data files (eigengrasps, virtual contacts), which the reader refuses
    with a message saying what they are."""
    return graspit_kind(head) is not None
