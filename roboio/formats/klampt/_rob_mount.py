"""Robot mounts of a Klamp't ``.rob`` file (spec klampt.md §3.12).

``mount LINK FILE [T] [as NAME]`` with a ``.rob``/``.urdf`` FILE loads that robot completely
by its own rules and appends it: its links become links ``N0..``, its roots hang from LINK
(or stay roots when LINK is ``-1``) with ``T`` pre-multiplied, names get ``NAME:`` prefixes,
joints, drivers (with their servo gains), self-collision pairs and sensors follow with
their indices shifted by ``N0``.
"""
from __future__ import annotations

import dataclasses
import os
import re

import numpy as np

from ...model import Joint, Robot
from ...resolve import resolve
from .. import registry
from ..xmlutil import parse_bytes
from ._rob_build import MULTI_DOF, RobAssembly
from ._rob_geometry import has_geometry
from ._rob_lexer import file_extension

__all__ = ["mount_robots", "merge_robot"]

_LEADING_INT = re.compile(r"\s*([+-]?\d+)")


def mount_robots(builder, mount_links: list) -> None:
    """Load and append every robot mount of the file, in file order."""
    for m, L in zip(builder.rec.mounts, mount_links):
        if file_extension(m.file) not in ("rob", "urdf"):
            continue
        sub = _load_sub_robot(builder, m)
        merge_robot(builder.asm, sub, L, m.transform, m.name, builder.ctx, m.line)


def _load_sub_robot(builder, m) -> Robot:
    ctx = builder.ctx
    res = resolve(m.file, builder.path)
    if not res:
        raise ctx.error(f"mount: robot file {m.file!r} not found (looked for: "
                        f"{res.describe_tried()})", m.line)
    key = os.path.realpath(res.path)
    if key in ctx.stack:
        chain = " -> ".join(os.path.basename(p) for p in ctx.stack[ctx.stack.index(key):])
        raise ctx.error(f"mount: {m.file!r} mounts itself (cycle {chain} -> "
                        f"{os.path.basename(res.path)})", m.line)
    sub = registry.read_file(res.path, ctx, kinds=("robot",))
    if not isinstance(sub, Robot):
        raise ctx.error(f"mount: {m.file!r} holds a {type(sub).__name__}, not a robot", m.line)
    return sub


def merge_robot(asm: RobAssembly, sub: Robot, L: int, T, prefix: str, ctx, line) -> None:
    """Append ``sub`` to ``asm`` mounted on link ``L`` (-1: the world) at transform ``T``."""
    n0 = asm.n
    T = np.asarray(T, dtype=float)

    def remap(k: int) -> int:
        return L if k < 0 else k + n0

    def named(s: str) -> str:
        return f"{prefix}:{s}" if prefix else s

    for link in sub.links:
        asm.names.append(named(link.name))
        asm.parents.append(remap(link.parent))
        T0 = np.array(link.parent_transform)
        asm.T0.append(T @ T0 if link.parent < 0 else T0)
        asm.axes.append(np.array(link.axis))
        asm.prismatic.append(link.joint_type == "prismatic")
        asm.mass.append(link.mass)
        asm.com.append(np.array(link.com))
        asm.inertia.append(np.array(link.inertia))
        asm.geoms.append(link.geometry)
    for name, src in (("q", "config"), ("qmin", "qmin"), ("qmax", "qmax"), ("vmin", "vmin"),
                      ("vmax", "vmax"), ("amax", "amax"), ("tmax", "tmax"), ("pmax", "pmax")):
        getattr(asm, name).extend(float(x) for x in getattr(sub, src))

    # self-collision: the sub-robot's own pairs, then every new link against every old one,
    # except its roots against the mount link (both links must have geometry)
    asm.pairs |= {(i + n0, j + n0) for i, j in sub.self_collision_pairs}
    has = [has_geometry(g) for g in asm.geoms]
    for k, link in enumerate(sub.links):
        j = k + n0
        if not has[j]:
            continue
        for i in range(n0):
            if has[i] and not (link.parent < 0 and i == L):
                asm.pairs.add((i, j))

    for jt in sub.joints:   # a single-link joint keeps base -1 (Klamp't does not use it)
        base = remap(jt.base) if jt.type in MULTI_DOF else -1
        asm.joints.append(Joint(jt.type, [remap(k) for k in jt.links], base))
    for d in sub.drivers:
        force = remap(d.force_link) if d.type in ("translation", "rotation") else d.force_link
        asm.drivers.append(dataclasses.replace(
            d, name=named(d.name), dofs=[remap(k) for k in d.dofs], scale=list(d.scale),
            offset=list(d.offset), force_link=force, extras=dict(d.extras)))

    if "sensors" in sub.properties:
        _merge_sensors(asm, sub.properties["sensors"], n0, L, prefix, ctx, line)
    if "controller" in sub.properties:
        ctx.warn("mount: the mounted robot's controller property is dropped, as Klamp't does",
                 line)


def _merge_sensors(asm, text: str, n0: int, L: int, prefix: str, ctx, line) -> None:
    """Append the mounted robot's sensors, their ``link``/``indices`` renumbered."""
    try:
        sub = parse_bytes(text.encode("utf-8"), ctx.path)
    except ValueError:
        ctx.warn("mount: the mounted robot's sensors property is not valid XML; dropped", line)
        return
    for el in sub:
        if not isinstance(el.tag, str):
            continue
        link = el.get("link")
        if link is not None:
            m = _LEADING_INT.match(link)
            if m:
                k = int(m.group(1))
                el.set("link", str(L if k < 0 else k + n0))
            elif prefix:
                el.set("link", f"{prefix}:{link}")
        elif el.get("indices") is not None:
            idx = [int(x) for x in re.findall(r"[+-]?\d+", el.get("indices"))]
            el.set("indices", " ".join(str(k + n0) for k in idx))
    own = asm.properties.get("sensors")
    if own is None:
        asm.properties["sensors"] = _xml_text(sub)
        return
    try:
        root = parse_bytes(own.encode("utf-8"), ctx.path)
    except ValueError:
        ctx.warn("mount: the robot's own sensors property is not valid XML; mounted sensors "
                 "dropped", line)
        return
    for el in list(sub):
        root.append(el)
    asm.properties["sensors"] = _xml_text(root)


def _xml_text(el) -> str:
    from lxml import etree
    return etree.tostring(el, encoding="unicode")
