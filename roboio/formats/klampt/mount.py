"""Klamp't's mount and self-collision rules, on the model (spec klampt.md §3.11, §3.12).

The one implementation used by both readers that mount: ``.rob`` ``mount`` lines and URDF
``<klampt><mount>`` / ``<(no)selfcollision>`` (the URDF package imports this module: the
``<klampt>`` extension is Klamp't's, and this package never imports the URDF one).

- :func:`link_index`: Klamp't's ``LinkIndex`` (integer-looking text is an index).
- :func:`is_robot_file`: whether a mount appends a robot or merges a geometry.
- :func:`has_geometry`, :func:`default_pairs`: the default self-collision pairs.
- :func:`mounted_geometry`: a geometry mounted on a link joins its geometry.
- :func:`mount_robot`: ``Robot::Mount`` -- append a sub-robot, renumbered and prefixed.
"""
from __future__ import annotations

import copy
import dataclasses
import itertools
import os
import re
from typing import Callable, Optional

import numpy as np

from ...model import Group, Joint, Link, Robot, TriangleMesh
from ..fileio import fmt_floats
from ...transforms import compose
from ..numeric_text import int64_or_none
from ._strings import file_extension, is_integer_text

__all__ = ["link_index", "is_robot_file", "has_geometry", "default_pairs", "mounted_geometry", "read_mounted_robot",
           "mount_robot"]

_LIMITS = ("qmin", "qmax", "vmin", "vmax", "amax", "tmax", "pmax", "config", "velocity")
# what TinyXML's QueryIntAttribute (sscanf "%d") and ``stream >> int`` accept: C blanks,
# a sign and digits at the start, whatever follows
_LEADING_INT = re.compile(r"[ \t\n\r\v\f]*([+-]?[0-9]+)")
_STREAM_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")


def link_index(names, key: str) -> int:
    """Klamp't's ``LinkIndex``: text that looks like an integer (``-1``, ``+3``) is an index,
    even out of range; otherwise the first link of that name; -1 when there is none."""
    if is_integer_text(key):
        return int(key)
    for i, n in enumerate(names):
        if n == key:
            return i
    return -1


def is_robot_file(reference: str) -> bool:
    """A mounted file is a robot when its extension (after the last ``.``) is exactly
    ``rob`` or ``urdf``; anything else is a geometry."""
    return file_extension(reference) in ("rob", "urdf")


def has_geometry(g, missing_counts: bool = False) -> bool:
    """Whether Klamp't counts link geometry ``g`` as present for self-collision.

    Meshes not loaded yet count (loading them only to test for emptiness would defeat lazy
    loading). A missing file counts only when ``missing_counts``: a ``.rob`` file whose
    geometry is missing fails to load in Klamp't, so roboio keeps the pairs the file implies;
    a URDF link whose mesh is missing has no geometry in Klamp't (§4.6)."""
    if g is None:
        return False
    if g.missing:
        return missing_counts
    if isinstance(g, Group):
        return any(has_geometry(c, missing_counts) for c in g.children)
    if isinstance(g, TriangleMesh) and not g.is_loaded:
        return True
    return not g.is_empty


def default_pairs(parents, geo) -> set:
    """Klamp't's default self-collision pairs: every (i, j), i < j, of links that both have
    geometry (``geo[i]`` true), except direct parent/child pairs."""
    idx = [i for i, g in enumerate(geo) if g]
    pairs = set(itertools.combinations(idx, 2))          # (i < j: idx is ascending)
    for i in idx:
        p = parents[i]
        if 0 <= p < len(geo) and geo[p]:
            pairs.discard((p, i) if p < i else (i, p))
    return pairs


def mounted_geometry(old, geom, T, missing_counts: bool = False):
    """The link geometry after mounting ``geom`` at ``T`` (4x4, link frame) on a link whose
    geometry is ``old``: ``geom`` itself when the link has none, else a Group of both tagged
    ``extras["klampt_merged"]`` (Klamp't merges two meshes into one; roboio keeps each part
    with its file). Further mounts join that Group. ``geom`` is tagged ``klampt_mount``."""
    geom.apply_transform(np.asarray(T, dtype=float))
    geom.extras["klampt_mount"] = True
    if not has_geometry(old, missing_counts):
        return geom
    if isinstance(old, Group) and old.extras.get("klampt_merged"):
        old.children.append(geom)
        return old
    merged = Group([old, geom])
    merged.extras["klampt_merged"] = True
    return merged


def read_mounted_robot(path: str, reference: str, ctx, line) -> Robot:
    """Read the robot file ``path`` (resolved from ``reference``) that a mount names, by
    its own format's rules; a file that mounts itself, directly or not, is an error."""
    from .. import loading
    key = os.path.realpath(path)
    if key in ctx.stack:
        chain = " -> ".join(os.path.basename(p) for p in ctx.stack[ctx.stack.index(key):])
        raise ctx.error(f"mount: {reference!r} mounts itself (cycle {chain} -> "
                        f"{os.path.basename(path)})", line)
    # read once per load: Klamp't reads the file again for every mount, with the same result
    # (and a file mounted 10 times that mounts another 10 times would be read 100 times)
    cache_key = ("mounted-robot", key)
    sub = ctx.cache.get(cache_key)
    if sub is None:
        sub = loading.read_file(path, ctx, kinds=("robot",))
        if not isinstance(sub, Robot):
            raise ctx.error(f"mount: {reference!r} holds a {type(sub).__name__}, not a robot", line)
        if path.lower().endswith(".urdf"):
            _klampt_driver_names(sub)
        ctx.cache[cache_key] = sub
    return sub          # mount_robot copies what it takes (new links, geometry copies)


def _klampt_driver_names(sub: Robot) -> None:
    """A mounted URDF's drivers named as Klamp't names them, after the link of the joint
    they actuate (roboio's standard URDF reading names them after the joint; Klamp't's
    mount reads the URDF by its own rules)."""
    for d in sub.drivers:
        if d.leader is not None and 0 <= d.leader < sub.num_links:
            d.name = sub.links[d.leader].name


def charge_mount(ctx, robot: Robot, sub: Robot, reference: str, line,
                 missing_counts: bool = False) -> None:
    """Charge mounting ``sub`` on ``robot`` to the load's budget before it is built: the
    links it copies (a few mounts of files that mount others multiply: 8 files of 142
    bytes, each mounting the next 10 times, would make 10^7 links), the links after it, and
    the self-collision pairs it adds (quadratic: 500 mounts of a 9-link gripper ask for 10^7)."""
    ctx.charge("copies", sub.num_links, line, what=f"links copied by mounting {reference}")
    ctx.check_claim("links", robot.num_links + sub.num_links, line,
                    what="robot links, mounted ones included")
    old = sum(has_geometry(l.geometry, missing_counts) for l in robot.links)
    new = sum(has_geometry(l.geometry, missing_counts) for l in sub.links)
    ctx.check_claim("pairs", len(robot.self_collision_pairs) + old * new
                    + len(sub.self_collision_pairs), line, what="self-collision pairs after the mount")


def _copied(geometry):
    """An independent copy of a link's geometry (a sub-robot may be mounted several times)."""
    return geometry.copy() if geometry is not None else None


def mount_robot(robot: Robot, sub: Robot, link: int, T, prefix: str = "",
                warn: Optional[Callable[[str], None]] = None, missing_counts: bool = False) -> None:
    """Append ``sub`` to ``robot`` as Klamp't's ``Robot::Mount`` does (§3.12).

    With ``N0`` links before the mount and ``L = link`` (-1: the world): sub-link k becomes
    link ``N0 + k``, named ``prefix:name`` when ``prefix`` (its joint name too); an index
    ``i`` of the sub-robot (parents, joint links and bases, driver links and leaders)
    becomes ``L`` when negative, else ``i + N0``; sub-roots get ``T`` (4x4) pre-multiplied
    to their parent transform; every per-link array comes along. Drivers keep their gains
    and get prefixed names.
    Self-collision: the sub-robot's pairs, renumbered, plus every new link against every
    earlier one, both with geometry (:func:`has_geometry`), except a sub-root with ``L``.
    Sensors: see :func:`_mount_sensors`. ``warn(msg, kind=...)`` reports what Klamp't drops."""
    n0 = robot.num_links
    T = np.asarray(T, dtype=float)

    def remap(i: int) -> int:
        return link if i < 0 else i + n0

    def named(s: str) -> str:
        return f"{prefix}:{s}" if prefix else s

    new = []
    for sl in sub.links:
        Tp = compose(T, sl.parent_transform) if sl.parent < 0 else sl.parent_transform
        nl = Link(named(sl.name), remap(sl.parent), sl.joint_type, sl.axis, Tp, sl.mass, sl.com,
                  sl.inertia, _copied(sl.geometry), copy.copy(sl.appearance),
                  joint_name=named(sl.joint_name) if sl.joint_name is not None else None)
        nl.extras = dict(sl.extras)
        if sl.visual_geometry is not None:
            nl.visual_geometry = _copied(sl.visual_geometry)
        new.append(nl)
    limits = {a: np.concatenate([getattr(robot, a), getattr(sub, a)]) for a in _LIMITS}
    robot.set_links(list(robot.links) + new, **limits)

    robot.joints = list(robot.joints) + [
        Joint(j.type, [remap(k) for k in j.links], remap(j.base)) for j in sub.joints]
    first = len(robot.drivers)
    driver_map = {i: first + i for i in range(len(sub.drivers))}
    robot.drivers = list(robot.drivers) + [
        dataclasses.replace(d, name=named(d.name), dofs=[remap(k) for k in d.dofs],
                            leader=remap(d.leader) if d.leader is not None else None,
                            scale=list(d.scale), offset=list(d.offset), extras=dict(d.extras),
                            force_link=remap(d.force_link) if d.type in ("translation", "rotation")
                            else d.force_link,
                            coupling=d.coupling.remap(driver_map) if d.coupling is not None else None)
        for d in sub.drivers]

    # updated in place: copying the set at every mount made many mounts quadratic in pairs
    pairs = robot.self_collision_pairs
    if not isinstance(pairs, set):
        pairs = set(pairs)
    pairs.update((i + n0, j + n0) for i, j in sub.self_collision_pairs)
    geo = [has_geometry(l.geometry, missing_counts) for l in robot.links]
    for k, sl in enumerate(sub.links):
        j = n0 + k
        if geo[j]:
            pairs.update((i, j) for i in range(n0) if geo[i] and not (sl.parent < 0 and i == link))
    robot.self_collision_pairs = pairs

    say = warn or (lambda msg, **kind: None)
    if "controller" in sub.properties:
        say(f"mount: the controller property of the mounted robot {sub.name!r} is dropped, "
            "as Klamp't does", kind="dropped")
    if "sensors" in sub.properties:
        _mount_sensors(robot, sub, n0, link, T, prefix, say)


def _mount_sensors(robot: Robot, sub: Robot, n0: int, L: int, T, prefix: str, say) -> None:
    """Append the mounted robot's ``sensors`` to the robot's, as Klamp't 0.10.1 does
    (measured): each sensor's ``name`` gets ``prefix:``; a ``link`` attribute that starts
    with an integer k becomes L when k is -1, else k + N0, and a link name gets ``prefix:``;
    a sensor on a sub-robot link below 0 (an integer, or a name the sub-robot lacks) sat in
    the sub-robot's world frame, so its ``Tsensor`` (row-major R, then t; identity when
    absent) becomes ``T . Tsensor``; without ``link``, ``indices`` is read as Klamp't reads
    it (integers up to the first non-integer) and shifted by N0."""
    from ..xmlutil import parse_bytes      # lxml only for robots whose mounts carry sensors
    try:
        mine = parse_bytes(sub.properties["sensors"].encode("utf-8"), sub.source or "")
    except ValueError as e:
        say(f"mount: the sensors of the mounted robot {sub.name!r} are not valid XML ({e}); "
            "dropped, as Klamp't does", kind="dropped")
        return
    for el in mine:
        if not isinstance(el.tag, str):
            continue
        text = el.get("link")
        if text is not None:
            m = _LEADING_INT.match(text)
            if m and int64_or_none(m.group(1)) is not None:     # (>> int fails beyond its range)
                k = int(m.group(1))
                el.set("link", str(L if k == -1 else k + n0))
            else:
                k = link_index(sub.link_names, text)
                if prefix:
                    el.set("link", f"{prefix}:{text}")
            if k < 0:
                _place_in_mount_frame(el, T, say)
        elif el.get("indices") is not None:
            el.set("indices", " ".join(str(k + n0) for k in _stream_ints(el.get("indices"))))
        if prefix and el.get("name") is not None:
            el.set("name", f"{prefix}:{el.get('name')}")
    own = robot.properties.get("sensors")
    if own is None:
        robot.properties["sensors"] = _xml_text(mine)
        return
    try:
        root = parse_bytes(own.encode("utf-8"), robot.source or "")
    except ValueError:
        say("mount: the robot's own sensors property is not valid XML; the mounted robot's "
            "sensors are dropped, as Klamp't does", kind="dropped")
        return
    for el in list(mine):
        root.append(el)
    robot.properties["sensors"] = _xml_text(root)


def _stream_ints(text: str) -> list:
    out, pos = [], 0
    while (m := _LEADING_INT.match(text, pos)) is not None and int64_or_none(m.group(1)) is not None:
        out.append(int(m.group(1)))
        pos = m.end()
    return out


def _place_in_mount_frame(el, T, say) -> None:
    Ts = np.eye(4)
    text = el.get("Tsensor")
    if text is not None:
        toks = text.split()[:12]
        if len(toks) < 12 or not all(_STREAM_NUMBER.match(t) for t in toks):
            say(f"mount: sensor {el.get('name') or el.tag!r}: Tsensor {text!r} is not 12 numbers; "
                "the mount transform is not applied to it", kind="dropped")
            return
        v = [float(t) for t in toks]
        Ts[:3, :3] = np.reshape(v[:9], (3, 3))
        Ts[:3, 3] = v[9:]
    M = compose(T, Ts) + 0.0          # no "-0" in the text
    el.set("Tsensor", fmt_floats(np.concatenate([M[:3, :3].ravel(), M[:3, 3]])))


def _xml_text(el) -> str:
    from lxml import etree
    return etree.tostring(el, encoding="unicode")
