"""Appending what the COLLADA reader built to OpenRAVE's body records (``.._records``).

The reader works on :mod:`._body` records; an include from OpenRAVE XML appends to the
:class:`~roboio.formats.openrave._records.BodyRecord` being built. :func:`append_to_record`
first shows the reader the body's existing links and joints (so that a COLLADA link whose
un-prefixed name equals an existing link merges into it, the root rigid-body frame is the
body's link 0, and ``attach_actuator`` ordering keeps earlier joints first), then writes back:

* merged links: transform reset to where the COLLADA file places them (as OpenRAVE does),
  geometries appended, rigid-body mass and collision state overwritten when the file has them;
* new links, joints (``hinge``/``slider``, or one ``R``/``P`` letter per axis for multi-axis
  joints), manipulators (one with an existing name replaces it), attached sensors, forced
  adjacent pairs;
* COLLADA-only data in ``extras["collada"]`` of the record it belongs to (element ids, sids,
  the written axes and attachment frames, stored joint values, rigid-body principal frames,
  electric motor data, ...), which the COLLADA writer uses to write the same file back.
"""
from __future__ import annotations

import numpy as np

from ....model import TriangleMesh
from ....transforms import compose, rotate_tensor
from .._records import (BodyRecord, GeomRecord, JointRecord, ManipulatorRecord,
                        MassRecord, MimicRecord, SensorRecord, Source, XmlData)
from ._body import CBody, CJoint, CLink, CManipulator, CSensor

__all__ = ["proxy_body", "append_to_record"]

#: XML frame of a cylinder from OpenRAVE's internal z-axis frame: T_xml = T_z @ _Z_TO_XML
#: (OpenRAVE adds Rx(90 deg) to an XML cylinder frame to store it along z).
_Z_TO_XML = np.array([[1.0, 0, 0, 0], [0, 0, 1.0, 0], [0, -1.0, 0, 0], [0, 0, 0, 1.0]])


class _Maps:
    def __init__(self):
        self.links: dict = {}        # id(CLink) -> LinkRecord (existing links)
        self.joints: set = set()     # id(CJoint) of existing joints
        self.manips: dict = {}       # id(CManipulator) -> index in body.manipulators
        self.sensors: set = set()


def proxy_body(body: BodyRecord):
    """A :class:`CBody` standing for ``body`` as the COLLADA reader sees it, and the map back."""
    maps = _Maps()
    cb = CBody(name=body.name, is_robot=(body.kind == "robot"))
    for rec in body.links:
        cl = CLink(name=rec.name, sid=rec.name, transform=np.array(rec.transform, dtype=float),
                   created_here=False, static=rec.static, enabled=rec.enabled)
        maps.links[id(cl)] = rec
        cb.links.append(cl)
    by_index = {id(r): cl for r, cl in zip(body.links, cb.links)}
    for rec in body.joints:
        p = by_index.get(id(body.links[rec.link0])) if 0 <= rec.link0 < len(body.links) else None
        c = by_index.get(id(body.links[rec.link1])) if 0 <= rec.link1 < len(body.links) else None
        kinds = ["prismatic" if ch == "P" else "revolute" for ch in rec.type] \
            if rec.type.isupper() else (["prismatic"] if rec.type == "slider" else ["revolute"] * rec.dof)
        cj = CJoint(name=rec.name, sid=rec.name, axis_types=kinds, parent=p, child=c,
                    anchor=np.asarray(rec.anchor, float), axes=[np.asarray(a, float) for a in rec.axes],
                    trel=np.asarray(rec.trel, float), active=rec.active)
        maps.joints.add(id(cj))
        (cb.joints if rec.active and not rec.is_mimic else cb.passive_joints).append(cj)
    for i, m in enumerate(body.manipulators):
        cm = CManipulator(name=m.name, base=m.base, effector=m.effector)
        maps.manips[id(cm)] = i
        cb.manipulators.append(cm)
    for s in body.sensors:
        cs = CSensor(name=s.name, link=s.link)
        maps.sensors.add(id(cs))
        cb.sensors.append(cs)
    return cb, maps


def _geom_record(g, path) -> GeomRecord:
    src = Source(path, g.line)
    common = dict(name=g.name, visible=g.visible, diffuse=g.diffuse, ambient=g.ambient,
                  transparency=g.transparency, source=src)
    T = np.array(g.transform, dtype=float)
    if g.kind == "trimesh":
        mesh = TriangleMesh(np.array(g.vertices, float), np.array(g.faces, np.int64), transform=T.copy())
        return GeomRecord(type="trimesh", transform=T, collision=mesh, **common)
    if g.kind == "box":
        return GeomRecord(type="box", transform=T, extents=np.array(g.params["half_extents"], float), **common)
    if g.kind == "sphere":
        return GeomRecord(type="sphere", transform=T, radius=float(g.params["radius"]), **common)
    if g.kind == "cylinder":
        return GeomRecord(type="cylinder", transform=compose(T, _Z_TO_XML), radius=float(g.params["radius"]),
                          height=float(g.params["height"]), **common)
    if g.kind == "calibration_board":
        board = {k: v for k, v in g.params.items() if k != "half_extents"}
        return GeomRecord(type="box", transform=T, extents=np.array(g.params["half_extents"], float),
                          params={"calibration_board": board}, **common)
    return GeomRecord(type=g.kind, transform=T, params=dict(g.params), **common)


def _mass_record(cl: CLink, path) -> MassRecord:
    F = np.asarray(cl.mass_frame, float)
    R = F[:3, :3]
    inertia = rotate_tensor(R, np.diag(np.asarray(cl.inertia_moments, float)))
    return MassRecord(mass=float(cl.mass), com=F[:3, 3].copy(), inertia=inertia, kind="collada",
                      source=Source(path, cl.line))


def _link_extras(cl: CLink) -> dict:
    return {"sid": cl.sid, "memo": dict(cl.memo), "inertia_moments": tuple(float(x) for x in cl.inertia_moments),
            "mass_frame": np.array(cl.mass_frame, float), "has_rigid_body": cl.has_rigid_body,
            "float_parameters": dict(cl.float_parameters), "int_parameters": dict(cl.int_parameters),
            "string_parameters": dict(cl.string_parameters)}


def _joint_type(cj: CJoint) -> str:
    if cj.dof == 1:
        return "hinge" if cj.is_revolute(0) else "slider"
    return "".join("R" if t == "revolute" else "P" for t in cj.axis_types)


def _offsets(cj: CJoint) -> list:
    out = []
    for i in range(cj.dof):
        lo, hi = cj.lower[i], cj.upper[i]
        if cj.is_revolute(i) and not cj.circular[i] and (lo < -np.pi or hi > np.pi):
            out.append(0.5 * (lo + hi))
        else:
            out.append(0.0)
    return out


def _joint_record(cj: CJoint, index_of, order: int, path) -> JointRecord:
    mimic = [None] * cj.dof
    if cj.mimic is not None:
        mimic[0] = MimicRecord(pos=cj.mimic.equation, vel=cj.mimic.velocity, accel=cj.mimic.acceleration,
                               source=Source(path, cj.mimic.line))
    extras = {"sid": cj.sid, "axis_types": list(cj.axis_types), "memo": dict(cj.memo),
              "axes_as_written": [np.array(a, float) for a in cj.axes_as_written],
              "attachment": np.array(cj.attachment, float), "stored_values": list(cj.initial),
              "maxjerk": list(cj.max_jerk), "hardmaxaccel": list(cj.hard_max_acceleration),
              "hardmaxjerk": list(cj.hard_max_jerk)}
    if cj.mimic is not None and cj.mimic.affine is not None:
        extras["mimic_affine"] = cj.mimic.affine
    for key in ("electric_motor", "float_parameters", "int_parameters", "string_parameters", "control_info"):
        v = getattr(cj, key)
        if v:
            extras[key] = v
    n = cj.dof
    return JointRecord(name=cj.name, type=_joint_type(cj), link0=index_of(cj.parent), link1=index_of(cj.child),
                       anchor=np.array(cj.anchor, float), axes=[np.array(a, float) for a in cj.axes],
                       trel=np.array(cj.trel, float), declared_name=cj.name, active=cj.active,
                       initial=[0.0] * n, lower=list(cj.lower), upper=list(cj.upper),
                       circular=list(cj.circular), offsets=_offsets(cj), maxvel=list(cj.max_velocity),
                       hardmaxvel=list(cj.hard_max_velocity), maxaccel=list(cj.max_acceleration),
                       maxtorque=[0.0] * n, maxinertia=[0.0] * n, weight=list(cj.weights),
                       resolution=list(cj.resolutions), mimic=mimic, order=order,
                       source=Source(path, cj.line), extras={"collada": extras})


def _sensor_attrib(cs: CSensor, link) -> dict:
    out = {k: v for k, v in (("reference_attached_sensor", cs.reference_attached_sensor),
                             ("sensor_maker", cs.sensor_maker), ("sensor_model", cs.sensor_model)) if v}
    if link is not None:
        out["link_index"] = link.index
    return out


def append_to_record(cb: CBody, maps: _Maps, body: BodyRecord, path: str) -> BodyRecord:
    """Write what the reader added to ``cb`` back into ``body`` (see the module docstring).
    ``path`` is the file read; sources name the document in it (``x.zae!/x.dae``)."""
    file_path = path
    path = cb.document or path
    records: dict = {}
    for cl in cb.links:
        rec = maps.links.get(id(cl))
        if rec is None:
            rec = body.new_link(cl.name, Source(path, cl.line))
            rec.declared_name = cl.name
            rec.mass = _mass_record(cl, path)
            rec.extras["collada"] = _link_extras(cl)
        else:
            rec.name = cl.name
            if cl.has_rigid_body:
                rec.mass = _mass_record(cl, path)
            rec.extras["collada"] = _link_extras(cl)
        rec.transform = np.array(cl.transform, dtype=float)
        rec.static = cl.static
        rec.enabled = cl.enabled
        rec.geoms.extend(_geom_record(g, path) for g in cl.geometries)
        for group, geoms in cl.geometry_groups.items():
            rec.extra_groups.setdefault(group, []).extend(_geom_record(g, path) for g in geoms)
        records[id(cl)] = rec

    def index_of(cl):
        return records[id(cl)].index

    new_joints = [j for j in cb.joints if id(j) not in maps.joints] + \
                 [j for j in cb.passive_joints if id(j) not in maps.joints]
    for cj in new_joints:
        body.joints.append(_joint_record(cj, index_of, len(body.joints), path))
    for cm in cb.manipulators:
        if id(cm) in maps.manips:
            continue
        rec = ManipulatorRecord(name=cm.name, base=cm.base, effector=cm.effector, ik_chain_end=cm.ik_chain_end,
                                gripper_joints=list(cm.gripper_joints),
                                closing_direction=list(cm.chucking_direction),
                                direction=np.array(cm.direction, float), tool=np.array(cm.tool_transform, float),
                                ik_solver=cm.ik_solver, source=Source(path, cm.line),
                                extras={"collada": {"gripper_name": cm.gripper_name,
                                                    "tool_changer_connected_body_tool_name":
                                                        cm.tool_changer_connected_body_tool_name,
                                                    "tool_changer_link_name": cm.tool_changer_link_name,
                                                    "restrict_graspset_names": list(cm.restrict_graspset_names)}})
        for i, old in enumerate(body.manipulators):
            if old.name == rec.name:
                body.manipulators[i] = rec
                break
        else:
            body.manipulators.append(rec)
    for cs in cb.sensors:
        if id(cs) in maps.sensors:
            continue
        params = [XmlData(tag=k, text=v.strip()) for k, v in cs.params.items()]
        link = body.link(cs.link) if cs.link else None
        body.sensors.append(SensorRecord(name=cs.name, link=cs.link, transform=np.array(cs.transform, float),
                                         type=cs.type, params=params, source=Source(path, cs.line),
                                         attrib=_sensor_attrib(cs, link)))
    for a, b in cb.adjacent:
        body.forced_adjacent.append((index_of(a), index_of(b)))
    if not body.name:
        body.name = cb.name
    info = body.extras.setdefault("collada", {})
    info.setdefault("files", []).append({
        "path": file_path, "document": path, "name": cb.name, "id": cb.id, "interface": cb.interface, "description": cb.description,
        "up_axis": cb.up_axis, "gravity": cb.gravity, "readable": dict(cb.readable),
        "gripper_infos": list(cb.gripper_infos), "unsupported": list(cb.unsupported),
        "closed_loops": list(cb.closed_loops)})
    return body
