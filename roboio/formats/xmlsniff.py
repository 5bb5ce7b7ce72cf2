"""Cheap content tests for XML files, shared by the sniffers of every ecosystem.

Several ecosystems use a ``<robot>`` root (URDF, OpenRAVE, GraspIt!) or ``.xml`` files, so
their sniffers must agree on who owns which file. This module holds the common pieces: the
root element after the prolog (BOM, ``<?xml ...?>``, comments, processing instructions,
DOCTYPE), tag searches that ignore commented-out text, and the one rule that tells an
OpenRAVE ``<robot>`` from a URDF or GraspIt! ``<robot>`` (see :func:`robot_flavour`).
Everything works on the first bytes of a file only (no parsing).
"""
from __future__ import annotations

import re
from typing import Optional

__all__ = ["root_element", "strip_comments", "has_element", "robot_flavour"]

_PROLOG = re.compile(rb"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>)", re.S)
_TAG = re.compile(rb"<([A-Za-z_][\w.:-]*)([^>]*)")
_COMMENT = re.compile(rb"<!--.*?(?:-->|\Z)", re.S)


def root_element(head: bytes) -> Optional[tuple]:
    """``(tag, attribute_text)`` of the first element of ``head`` (bytes, tag as written), or
    None if ``head`` does not start like XML."""
    data = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    pos = 0
    while True:
        m = _PROLOG.match(data, pos)
        if not m:
            break
        pos = m.end()
    while pos < len(data) and data[pos:pos + 1].isspace():
        pos += 1
    m = _TAG.match(data, pos)
    if not m:
        return None
    return m.group(1), m.group(2)


def strip_comments(head: bytes) -> bytes:
    """``head`` without XML comments (an unterminated comment runs to the end)."""
    return _COMMENT.sub(b" ", head)


def has_element(head: bytes, *names: str, ignore_case: bool = True) -> bool:
    """Whether an element whose name is one of ``names`` starts anywhere in ``head``
    (comments ignored)."""
    pattern = b"<(?:" + b"|".join(re.escape(n.encode()) for n in names) + rb")(?=[\s/>])"
    return re.search(pattern, strip_comments(head), re.I if ignore_case else 0) is not None


_OPENRAVE_CHILDREN = ("kinbody", "body", "manipulator", "attachedsensor", "robot")
_URDF_LINK = re.compile(rb"<link\s[^>]*\bname\s*=", re.S)


# MoveIt's semantic description (SRDF): a <robot> of groups, collision rules and poses
# naming the links of a URDF (example-robot-data ships one beside each robot)
_SRDF_CHILDREN = (b"group", b"group_state", b"disable_collisions", b"virtual_joint",
                  b"end_effector", b"passive_joint", b"disable_default_collisions")


def robot_flavour(head: bytes) -> Optional[str]:
    """For a file whose root element is ``<robot>`` in any case: ``"graspit"`` (a ``<palm>``
    element), ``"openrave"`` (root spelled other than ``robot``, a ``file=`` attribute on the
    root, or OpenRAVE children ``<KinBody>``, ``<Body>``, ``<Manipulator>``,
    ``<AttachedSensor>``, a nested ``<Robot>``), ``"srdf"`` (MoveIt's ``<group>``,
    ``<disable_collisions>``, ``<virtual_joint>``... elements: no format roboio reads),
    ``"urdf"`` (root exactly ``robot`` and ``<link name=...>`` elements, or no OpenRAVE child
    at all); None if the root is not a robot."""
    root = root_element(head)
    if root is None or root[0].lower() != b"robot":
        return None
    body = strip_comments(head)
    if re.search(rb"<palm(?=[\s/>])", body):
        return "graspit"
    tag, attrs = root
    if tag != b"robot" or re.search(rb"\bfile\s*=", attrs, re.I):
        return "openrave"
    rest = body[body.lower().find(b"<robot") + 6:]
    if re.search(b"<(?:" + b"|".join(n.encode() for n in _OPENRAVE_CHILDREN) + rb")(?=[\s/>])",
                 rest, re.I):
        return "openrave"
    if re.search(b"<(?:" + b"|".join(_SRDF_CHILDREN) + rb")(?=[\s/>])", rest):
        return "srdf"
    return "urdf"
