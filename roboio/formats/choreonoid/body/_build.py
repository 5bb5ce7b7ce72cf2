"""Choreonoid body records -> roboio :class:`~roboio.model.Robot` (see the package docstring
for the mapping onto Klamp't's one-DOF-per-link model)."""
from __future__ import annotations

import math

import numpy as np

from ._collision_rules import checked_pairs
from .... import transforms as tf
from ....context import LoadContext
from ....model import Appearance, Driver, Group, Joint, Link, Robot
from ._parse import depth_first
from ._records import BodyRecords

__all__ = ["robot_from_records", "FLOATING_NAMES", "VIRTUAL_KEY"]

FLOATING_NAMES = ("base0", "base1", "base2", "base3", "base4")
VIRTUAL_KEY = "roboio_virtual_links"     # link key naming a free link's virtual links
_FLOATING_AXES = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (0, 1, 0), (1, 0, 0))


def _geometry(items):
    if not items:
        return None
    return items[0] if len(items) == 1 else Group(list(items))


def _shape_colour(g):
    """RGBA of a shape's ``appearance: material: diffuse`` (and transparency), or None."""
    app = g.extras.get("choreonoid_appearance")
    mat = app.get("material") if isinstance(app, dict) else None
    if not isinstance(mat, dict):
        return None
    d = mat.get("diffuse", mat.get("diffuseColor"))
    try:
        rgb = [float(str(x).strip()) for x in d][:3] if isinstance(d, list) else None
        alpha = 1.0 - float(str(mat.get("transparency", "0")))
    except ValueError:
        return None
    return (*rgb, alpha) if rgb and len(rgb) == 3 else None


def _appearance(shapes) -> Appearance:
    """The link's colour: its first coloured shape's. Shapes of different colours also get
    each its own ``appearance`` (a shape without one: colour None)."""
    colours = [_shape_colour(g) for g, _ in shapes]
    if len(set(colours)) > 1:
        for (g, _), c in zip(shapes, colours):
            g.appearance = Appearance(color=c)
    return Appearance(color=next((c for c in colours if c is not None), None))


def _virtual_names(r, names: set, ctx: LoadContext):
    """The five names a free link's ``roboio_virtual_links`` key gives its virtual links
    (written by roboio to keep a model's names), else None."""
    v = r.info.pop(VIRTUAL_KEY, None)
    if v is None:
        return None
    ok = isinstance(v, list) and len(v) == 5 and all(isinstance(x, str) and x for x in v)
    if not ok or len(set(v)) != 5 or set(v) & names:
        ctx.warn(f"link {r.name!r}: {VIRTUAL_KEY} ignored (five unique names that are not "
                 "links are needed)", r.line, kind="guessed")
        return None
    return list(v)


def robot_from_records(b: BodyRecords, ctx: LoadContext) -> Robot:
    order = depth_first(b.links, b.root, b.path)
    robot = Robot(b.name)
    links, lim = [], {k: [] for k in ("qmin", "qmax", "vmin", "vmax", "tmax", "config")}
    joints = []
    index_of: dict = {}            # link name -> robot index
    link_order = []
    names = {r.name for r in order}
    root = order[0]
    floating = root.joint_type == "free"
    root_pose = tf.make_transform(root.rotation, root.translation)

    def add(link, qmin=-math.inf, qmax=math.inf, vmin=-math.inf, vmax=math.inf, tmax=math.inf, q=0.0):
        links.append(link)
        for k, v in zip(("qmin", "qmax", "vmin", "vmax", "tmax", "config"), (qmin, qmax, vmin, vmax, tmax, q)):
            lim[k].append(v)
        return len(links) - 1

    def floating_chain(r, parent, base):
        """Five virtual links (x, y, z, rz, ry) before ``r``, grouped with it by a floating
        joint; ``base`` (4x4) places the chain in the parent frame."""
        first = len(links)
        given = _virtual_names(r, names, ctx)
        for k, base_name in enumerate(FLOATING_NAMES):
            if given:
                name = given[k]
            else:
                name = base_name if parent < 0 else f"{r.name}_{base_name}"
            while name in names:
                name += "_"
            names.add(name)
            add(Link(name, parent if k == 0 else first + k - 1, "prismatic" if k < 3 else "revolute",
                     _FLOATING_AXES[k], base if k == 0 else None, mass=0.0, inertia=np.zeros((3, 3))))
        joints.append(Joint("floating", list(range(first, first + 6)), parent))
        return first + 4

    for r in order:
        parent = -1 if r is root else index_of[r.parent]
        free = r.joint_type == "free"
        if free:
            base = np.eye(4) if r is root else tf.make_transform(r.rotation, r.translation)
            parent, T, jt, axis = floating_chain(r, parent, base), np.eye(4), "revolute", _FLOATING_AXES[5]
        elif r is root:
            T, jt, axis = root_pose, "revolute", r.axis
        else:
            T = tf.make_transform(r.rotation, r.translation)
            jt = "prismatic" if r.joint_type == "prismatic" else "revolute"
            axis = r.axis
        # Choreonoid's jointName(): the joint_name key, else the link's name (the root's
        # joint, to the world, is named only where the file names it)
        link = Link(r.name, parent, jt, axis, T, mass=r.mass, com=r.com, inertia=r.inertia,
                    joint_name=r.joint_name or (None if r is root else r.name))
        link.geometry = _geometry(r.shapes.collision())
        link.appearance = _appearance(r.shapes.shapes)
        movable = r is not root and r.joint_type in ("revolute", "prismatic")
        if free:
            i = add(link)
        elif movable:
            i = add(link, r.qlim[0], r.qlim[1], r.vlim[0], r.vlim[1], r.effort, r.q0)
            joints.append(Joint("normal", [i], parent))
        else:
            i = add(link, 0.0, 0.0, 0.0, 0.0)
            joints.append(Joint("weld", [i], parent))
            if r is root and r.joint_type in ("revolute", "prismatic"):
                ctx.warn(f"root link {r.name!r}: joint type {r.joint_type} does not move the root "
                         "in Choreonoid's kinematics; made a weld", r.line, kind="quirk")
        if free and r is root:
            rpy = tf.matrix_to_rpy(root.rotation)
            lim["config"][i - 5:i + 1] = [*root.translation, rpy[2], rpy[1], rpy[0]]
        index_of[r.name] = i
        link_order.append(i)
        if r.shapes.has_visual_or_collision:
            link.visual_geometry = _geometry(r.shapes.visual())
        link.extras["choreonoid"] = {
            "joint_type": r.joint_type, "joint_id": r.joint_id,
            "material": r.material, "devices": r.shapes.devices, "info": r.info,
            "mass_given": "mass" in r.given, "rotation_given": "rotation" in r.given,
            "translation_given": "translation" in r.given, "joint_range": r.qlim, "q0": r.q0,
            "velocity_range": r.vlim, "effort": r.effort}
    robot.set_links(links, qmin=lim["qmin"], qmax=lim["qmax"], vmin=lim["vmin"], vmax=lim["vmax"],
                    tmax=lim["tmax"], config=lim["config"])
    robot.joints = joints
    robot.drivers = [Driver(links[j.link].joint_name, "normal", [j.link], qmin=lim["qmin"][j.link],
                            qmax=lim["qmax"][j.link], vmin=lim["vmin"][j.link], vmax=lim["vmax"][j.link],
                            tmin=-lim["tmax"][j.link], tmax=lim["tmax"][j.link])
                     for j in joints if j.type == "normal"]      # every Choreonoid joint is actuated
    robot.source_link_order = link_order
    robot.joint_id_links = _joint_table(order, index_of, b, ctx)
    robot.extras["choreonoid"] = {
        "floating": floating, "root_pose": root_pose,
        "format_version": b.format_version, "degree": b.degree, "info": b.info,
        "extra_joints": b.extra_joints}
    robot.self_collision_pairs = _collision_pairs(order, index_of, b.info)
    return robot


def _joint_table(order, index_of, b: BodyRecords, ctx) -> list:
    """Robot link of every joint id 0..max (-1 for ids no link has); warns on gaps and
    duplicates (the first link with an id keeps it), as Choreonoid does."""
    ids: dict = {}
    for r in order:
        if r.joint_id < 0:
            continue
        if r.joint_id in ids:
            ctx.warn(f"joint id {r.joint_id} of {r.name!r} is duplicated (kept for "
                     f"{ids[r.joint_id].name!r})", r.line, kind="invalid value")
            continue
        ids[r.joint_id] = r
    n = max(ids, default=-1) + 1
    if ids:
        ctx.check_claim("links", n, ids[n - 1].line,
                        what=f"joint id {n - 1} (the id table has an entry per id)")
    missing = [j for j in range(n) if j not in ids]
    if missing:
        ctx.warn(f"joint ids {missing} are not specified by any link", kind="guessed")
    return [index_of[ids[j].name] if j in ids else -1 for j in range(n)]


def _collision_pairs(order, index_of, info) -> set:
    """Pairs of links checked for self-collision, as Choreonoid's collision rules give them
    (:mod:`._collision_rules`), among links with collision shapes."""
    pos = {r.name: k for k, r in enumerate(order)}
    parents = [-1 if r.parent is None else pos[r.parent] for r in order]
    pairs = checked_pairs([r.name for r in order], parents, [r.joint_type == "free" for r in order],
                          [any(not g.missing for g in r.shapes.collision()) for r in order], info)
    out = set()
    for a, b in pairs:
        i, j = index_of[order[a].name], index_of[order[b].name]
        out.add((min(i, j), max(i, j)))
    return out
