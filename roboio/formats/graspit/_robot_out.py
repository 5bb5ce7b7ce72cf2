"""Robots -> GraspIt! robot files.

:func:`robot_files` writes the robot XML (returned) and registers its side files with the
:class:`~._writer.GraspitWriter`: link bodies in ``<dir>/iv/`` (in ``<dir>/iv/<file name>/`` for a robot
written from the model), eigengrasp, virtual-contact
and CyberGlove files at the paths the robot names. A robot read from a GraspIt! file whose
structure still matches its records (:func:`matches_record`) is written from them
(:func:`spec_from_record`); any other robot goes through :mod:`._robot_generic`.

roboio adds a ``name`` attribute to ``<palm>``, ``<joint>`` and ``<link>`` where the model's
link name differs from the one roboio derives from the file name (GraspIt! ignores
unknown attributes), so that link names survive the round trip.
"""
from __future__ import annotations

import math
import os
from typing import Optional

import numpy as np

from ...errors import OutputError
from ...transforms import vector_norm
from ..naming import joint_names, say_unwritten
from ._build import MM, dh_structure, joint_infos
from ._collision_out import disable_collision_lines
from ._robot_generic import spec_from_model
from ._robot_spec import ChainOut, DofOut, JointOut, LinkOut, RobotOut, body_of, render, tail_from_extras
from ._text import esc, folder_name, num, same

__all__ = ["robot_files", "dof_values_text", "matches_record"]

# -- record path ---------------------------------------------------------------------------
def matches_record(robot, exclude=()) -> Optional[str]:
    """None when ``robot`` still has the structure its GraspIt! record describes, else why
    not."""
    gx = robot.extras.get("graspit") or {}
    rec = gx.get("record")
    if rec is None:
        return "not read from a GraspIt! file"
    joints = joint_infos(rec)
    nodes = dh_structure(rec, robot.name, joints)
    idx = [i for i in range(robot.num_links) if i not in exclude]
    if len(idx) != len(nodes) or idx != list(range(len(nodes))):
        return "its links differ from the file's joints and links"
    joint_of = robot.joints_of_links()
    for node, link in zip(nodes, robot.links):
        if link.parent != node.parent:
            return f"link {link.name!r} has another parent"
        if node.kind == "joint" and link.joint_type != ("prismatic" if node.prismatic else "revolute"):
            return f"link {link.name!r} changed its joint type"
        group = joint_of.get(link.index)
        welded = group is not None and group.type == "weld"
        if welded != (node.kind != "joint"):
            return f"link {link.name!r} changed between welded and moving"
        if node.kind == "palm":
            continue                      # the palm's pose is the robot's place in a world
        if not same(link.axis, node.axis) or not same(link.parent_transform, node.P):
            return f"link {link.name!r} moved"
    if len(robot.drivers) != len(rec.dofs):
        return "its drivers differ from the file's DOFs"
    units = gx.get("dof_units") or [1.0] * len(rec.dofs)
    for k, d in enumerate(robot.drivers):
        mine = [i for i in joints if i.dof == k]
        want = [gx["joint_links"][i.number] for i in mine]
        scale = [i.ratio * (MM if i.prismatic else 1.0) / units[k] for i in mine]
        if d.dofs != want:
            return f"driver {d.name!r} moves other links"
        if d.type == "affine":
            if not same(d.scale, scale) or any(o != 0 for o in d.offset):
                return f"driver {d.name!r} has other ratios"
        elif want and not same(scale, [1.0] * len(scale)):
            return f"driver {d.name!r} has other ratios"
    return None


def _expr(e, ratio_text=None, offset_text=None) -> str:
    s = f"d{e.dof}"
    r = ratio_text if ratio_text is not None else e.ratio_text
    o = offset_text if offset_text is not None else e.offset_text
    if r is not None:
        s += f"*{r}"
    if o is not None:
        s += f"+{o}"
    return s


def _opt(tag, n) -> list:
    return [] if n is None else [(tag, n.text)]


def _dof_value(robot, d) -> float:
    """A driver's value read from its first joint (as GraspIt! reads a DOF from a joint)."""
    if not d.dofs:
        return 0.0
    s = d.scale[0] if d.type == "affine" else 1.0
    o = d.offset[0] if d.type == "affine" else 0.0
    return (robot.config[d.dofs[0]] - o) / s if s else 0.0


def spec_from_record(writer, robot, world: bool, stem: str) -> RobotOut:
    """The robot as its GraspIt! record says, with the model's changes; ``stem``: the name
    the written file gives the robot (GraspIt! names a robot after its file), from which
    the reader derives the names of links that have no ``name`` attribute -- so a link
    whose model name is not that derived name gets the attribute (roboio's; GraspIt!
    ignores it) and keeps its name."""
    gx = robot.extras["graspit"]
    rec = gx["record"]
    report = writer.report
    joints = joint_infos(rec)
    nodes = dh_structure(rec, robot.name, joints)
    units = gx["dof_units"]
    defaults_si = gx.get("default_dofs") if world else None
    dofs = []
    for k, (dr, d) in enumerate(zip(rec.dofs, robot.drivers)):
        fields = [("defaultVelocity", dr.default_velocity.text), ("maxEffort", dr.max_effort.text),
                  ("Kp", dr.kp.text), ("Kd", dr.kd.text), ("draggerScale", dr.dragger_scale.text)]
        value = defaults_si[k] if defaults_si is not None else _dof_value(robot, d)
        if same(_read_default(dr, gx, k), value):
            if dr.default_value is not None:
                fields.append(("defaultValue", dr.default_value.text))
        else:
            fields.append(("defaultValue", num(math.degrees(value / units[k]))))
        if dr.type == "b":
            fields += _opt("breakAwayTorque", dr.breakaway_torque)
        mine = [i for i in joints if i.dof == k]
        dofs.append(DofOut(dr.type, fields, [(gx["joint_links"][i.number], i.ratio * (MM if i.prismatic else 1.0) / units[k],
                                              i.prismatic) for i in mine], units[k],
                            d.name if d.name != f"dof{k}" else None))
    chains = []
    number = {(i.chain, i.index): i.number for i in joints}
    for c, ch in enumerate(rec.chains):
        jouts = []
        for j, jr in enumerate(ch.joints):
            n = number[(c, j)]
            li = gx["joint_links"][n]
            node = nodes[li]
            lo, hi = robot.qmin[li], robot.qmax[li]
            conv = (lambda v: v * MM) if jr.type == "Prismatic" else math.radians
            back = (lambda v: v / MM) if jr.type == "Prismatic" else math.degrees
            rlo, rhi = conv(jr.min.value), conv(jr.max.value)
            if same(sorted((rlo, rhi)), (lo, hi)):
                tmin, tmax = jr.min.text, jr.max.text
            else:
                tmin, tmax = num(back(lo)), num(back(hi))
            e = jr.expr
            if e.ignored:
                report.warn(f"DOF expression {e.text!r} written as {_expr(e)!r} (what GraspIt! reads)", kind="changed")
            extra = []
            for tag, attr in (("viscousFriction", "viscous_friction"), ("CoulombFriction", "coulomb_friction"),
                              ("springStiffness", "spring_stiffness"), ("restValue", "rest_value")):
                extra += _opt(tag, getattr(jr, attr))
            if jr.type == "Revolute":
                jo = JointOut("Revolute", _expr(e), jr.d.text, jr.a.text, jr.alpha.text, tmin, tmax, extra)
            else:
                jo = JointOut("Prismatic", jr.theta.text, _expr(e), jr.a.text, jr.alpha.text, tmin, tmax, extra)
            if node.graspit_link is None and robot.links[li].name != f"{stem}_chain{c}_joint{j}":
                jo.name = robot.links[li].name
            jouts.append(jo)
        louts = []
        for l, lr in enumerate(ch.links):
            li = gx["links"][(c, l)]
            link = robot.links[li]
            attrs = []
            if lr.collision_rule is not None:
                attrs.append(("collisionRule", lr.collision_rule))
                for k_, v in (("targetChain", lr.target_chain), ("targetLink", lr.target_link)):
                    if v is not None:
                        attrs.append((k_, v))
            if lr.sensor_type is not None:
                attrs.append(("sensorType", lr.sensor_type))
            lo = LinkOut(lr.dynamic_joint_type, lr.file, body_of(link), attrs)
            if link.name != f"{stem}_chain{c}_link{l}":
                lo.name = link.name
            louts.append(lo)
        chains.append(ChainOut(ch.transform, jouts, louts, list(ch.filters)))
    palm = robot.links[0]
    palm_attrs = [("sensorType", rec.palm_sensor_type)] if rec.palm_sensor_type is not None else []
    if palm.name != f"{stem}Base":
        palm_attrs.append(("name", palm.name))
    out = RobotOut(gx.get("type") or rec.type, gx.get("dbname", rec.dbname), rec.palm, body_of(palm),
                   palm_attrs, dofs, chains)
    tail_from_extras(out, robot, rec, gx, report)
    return out


def _read_default(dr, gx, k) -> float:
    """The DOF's default value as the reader set it (SI)."""
    return gx["default_dofs"][k] if gx.get("default_dofs") is not None else 0.0


# -- files ---------------------------------------------------------------------------------
def robot_files(writer, robot, path: str, world: bool = False, info: Optional[dict] = None) -> str:
    """Plan the files of ``robot`` written at ``path``; returns the robot XML. ``world``:
    the robot is part of a world (its pose and configuration go to the world file, its
    mount piece to a body file the world writer places); ``info`` receives what the world
    writer needs."""
    report = writer.report
    if robot.num_links == 0:
        raise OutputError(None, f"robot {robot.name!r} has no links: a GraspIt! robot needs a palm")
    gx = robot.extras.get("graspit") or {}
    mount = gx.get("mount") if world else None
    exclude = {mount["link"]} if mount else set()
    if not world and mount:
        exclude = set()
    why = matches_record(robot, exclude)
    stem = os.path.basename(path).split(".", 1)[0]
    if why is None:
        spec = spec_from_record(writer, robot, world, stem)
    else:
        if gx.get("record") is not None:
            report.warn(f"robot {robot.name!r} no longer matches its GraspIt! file ({why}); written "
                        "from the model", kind="changed")
        spec = spec_from_model(writer, robot, exclude, world, stem)
    spec.tail += disable_collision_lines(robot, spec, gx.get("record"), report)
    if robot.name and stem != robot.name:
        # GraspIt! names a robot after its file; its links keep their names (see above)
        report.rename("robots", robot.name, stem)
    if not world and not np.array_equal(robot.links[0].parent_transform, np.eye(4)):
        T = np.asarray(robot.links[0].parent_transform, float)
        turn = math.acos(max(-1.0, min(1.0, (float(np.trace(T[:3, :3])) - 1) / 2)))
        report.lose(f"{robot.name}: base pose of {robot.links[0].name!r} (a GraspIt! robot file has "
                    f"none; worlds place robots): {float(vector_norm(T[:3, 3])):.3g} m, "
                    f"{turn:.3g} rad", kind="not written")
    rdir = os.path.dirname(path)
    iv = os.path.join(rdir, "iv")
    if why is not None and not world:
        _own_body_folder(spec, path)
    bodies = [(spec.palm_file, spec.palm_body, "palm")] + [
        (l.file, l.body, "link") for ch in spec.chains for l in ch.links]
    new_names = {}
    for file, body, _ in bodies:
        bpath = os.path.normpath(os.path.join(iv, file))
        text = writer.body_text(body["geometry"], body["mass"], body["com"], body["inertia"], body["gx"],
                                bpath, body["what"], True)
        used = writer.add_file(bpath, text, body["what"])
        new_names[id(body)] = os.path.relpath(used, iv).replace(os.sep, "/")
    spec.palm_file = new_names[id(spec.palm_body)]
    for ch in spec.chains:
        for l in ch.links:
            l.file = new_names[id(l.body)]
    for rel, text, tag, line in spec.side_files:
        used = writer.add_file(os.path.join(rdir, rel), text, f"{robot.name}: {rel}")
        used_rel = os.path.relpath(used, rdir).replace(os.sep, "/")
        if used_rel != rel:         # another file of this save holds that name: refer to the new one
            spec.tail[line] = f"    <{tag}>{esc(used_rel)}</{tag}>"
    if info is not None:
        info["dofs"] = spec.dofs
        info["chains"] = len(spec.chains)
        info["robot"] = robot
    _report_model_losses(robot, report, exclude)
    return render(spec)


def _own_body_folder(spec: RobotOut, path: str) -> None:
    """Put the link body files of a robot written from the model into a folder of its own,
    ``iv/<file name>/`` (``SR1.body.xml`` -> ``iv/SR1.body/``): robot files written side by
    side share ``iv/``, and two robots with a link of one name (``BODY``) would otherwise
    write one body file, the later replacing the other's. A robot written from its GraspIt!
    records keeps the file names it was read with (its rewrite is then a fixed point)."""
    folder = folder_name(path, "robot")
    spec.palm_file = f"{folder}/{spec.palm_file}"
    for ch in spec.chains:
        for link in ch.links:
            link.file = f"{folder}/{link.file}"


def _report_model_losses(robot, report, exclude):
    n = robot.num_links
    idx = [i for i in range(n) if i not in exclude]
    for name in ("vmax", "amax", "pmax"):
        arr = getattr(robot, name)
        if len(arr) == n and np.any(np.isfinite(arr[idx])):
            report.lose(f"{robot.name}: {name} limits (GraspIt! joints have none)", kind="not written")
    if len(robot.tmax) == n and np.any(np.isfinite(robot.tmax[idx])):
        report.lose(f"{robot.name}: per-joint torque limits (GraspIt! has one maxEffort per DOF)", kind="not written")
    if np.any(robot.velocity != 0):
        report.lose(f"{robot.name}: initial velocity", kind="not written")
    if robot.manipulators:
        report.lose(f"{robot.name}: manipulators ({len(robot.manipulators)})", kind="not written")
    if robot.sensors:
        report.lose(f"{robot.name}: sensors ({len(robot.sensors)})", kind="not written")
    if robot.properties:
        report.lose(f"{robot.name}: robot properties ({', '.join(sorted(robot.properties))})", kind="not written")
    for key in sorted(k for k in robot.extras if k != "graspit"):
        report.lose(f"{robot.name}: data of another format ({key})", kind="kept as data")
    # the source file's joint names (an MJCF <freejoint name>, URDF joints); the names of
    # drivers are the DOFs' (dof<k>: GraspIt! numbers them) and are not said
    source = [n if n is not None and n == l.joint_name else None
              for n, l in zip(joint_names(robot), robot.links)]
    say_unwritten(robot, set(exclude), report, "GraspIt! joints and DOFs have no names", names=source)
    for l in robot.links:
        if l.visual_geometry is not None:
            report.lose("separate visual geometry (GraspIt! bodies have one geometry)", l.name,
                        kind="not written", noun="link")
        for key in sorted(k for k in l.extras if k != "graspit"):
            report.lose("link data of another format", f"{l.name} ({key})", kind="kept as data", noun="link")


def dof_values_text(robot, info: dict) -> str:
    """``<dofValues>`` of ``robot`` in the world: each DOF's value (GraspIt! units) read from
    its first joint, breakaway DOFs followed by their joints' flags (kept from the world file
    when they still describe the configuration)."""
    gx = robot.extras.get("graspit") or {}
    dofs = info["dofs"]
    q = robot.config
    saved, flags = gx.get("dof_values"), gx.get("breakaway")
    if saved is not None and flags is not None and len(saved) == len(dofs) and _consistent(q, dofs, saved, flags):
        values = list(saved)
    else:
        values = [(q[d.joints[0][0]] / d.joints[0][1]) if d.joints and d.joints[0][1] else 0.0 for d in dofs]
        flags = [[(0, None)] * len(d.joints) if d.type == "b" else [] for d in dofs]
    words = []
    for d, v, f in zip(dofs, values, flags):
        words.append(num(v / d.unit))
        if d.type == "b":
            for flag in (f or [(0, None)] * len(d.joints)):
                words += ["1", num(flag[1])] if flag[0] == 1 else ["0"]
    return " ".join(words)


def _consistent(q, dofs, values, flags) -> bool:
    for d, v, f in zip(dofs, values, flags):
        for m, (link, scale, _) in enumerate(d.joints):
            x = v
            if f and m < len(f) and f[m][0] == 1 and v / d.unit > f[m][1]:
                x = f[m][1] * d.unit
            if not same(q[link], scale * x):
                return False
    return True
