"""Format ``collada-robot``: OpenRAVE COLLADA 1.5 robots and bodies (``.dae``, ``.zae``).

Reading follows OpenRAVE's COLLADA reader (:mod:`._reader`) into OpenRAVE's body records
(:mod:`.._records`), which :mod:`.._build` maps onto roboio's model exactly as it does for
OpenRAVE XML. Writing (:mod:`._writer`) produces files OpenRAVE reads back.
"""
from __future__ import annotations

from ...affine import link_poses
from ...fileio import atomic_write, read_bytes
from .._records import BodyRecord
from ._append import append_to_record, proxy_body
from ._load import read_body
from ._sniff import sniff_collada_robot as sniff

__all__ = ["sniff", "read", "loads", "dumps", "write", "append_collada", "read_record"]


def append_collada(body: BodyRecord, path: str, ctx, attributes=None, element: str = "robot") -> BodyRecord:
    """Append the COLLADA file ``path`` to ``body`` (see :func:`..collada.append_collada`)."""
    data = read_bytes(path, ctx, document=False)
    cb, maps = proxy_body(body)
    read_body(data, ctx, cb, attributes, as_robot=(element == "robot"))
    return append_to_record(cb, maps, body, path)


def read_record(data: bytes, ctx) -> BodyRecord:
    """The body records of a stand-alone COLLADA file (robot unless the file says kinbody)."""
    cb = read_body(data, ctx, None, as_robot=True)
    body = BodyRecord(kind="robot" if cb.is_robot else "kinbody")
    _, maps = proxy_body(body)
    append_to_record(cb, maps, body, ctx.path)
    body.files.append(ctx.path)
    return body


def loads(data: bytes, ctx):
    """The roboio model (a Robot) of a COLLADA robot/body file's content ``data``."""
    from .._build import build_robot
    record = read_record(data, ctx)
    robot = build_robot(record, ctx, ctx.path)
    robot.extras["collada"] = remember(robot, record)
    # what the file says beyond the model: interface, description, up axis, gravity, gripper
    # infos, extras kept verbatim, unsupported parts
    robot.extras["collada"]["files"] = list(record.extras.get("collada", {}).get("files", []))
    return robot


def remember(robot, record: BodyRecord) -> dict:
    """What the writer needs to write the file's numbers again where the model is unchanged
    (see :mod:`._writer`): per COLLADA joint (by child link name) the transforms, and per axis
    the axis, limits, speed, acceleration and stored value as written, per link the rigid body
    as written, and the forced adjacent pairs, each with a fingerprint of the model values
    they produced."""
    from ....report import ConversionReport
    from ._writer import RAD2DEG, _Writer, fingerprint, joint_fingerprint, mass_fingerprint
    import numpy as np
    w = _Writer(robot, ConversionReport(), None)
    w.analyse()
    by_child = {record.links[j.link1].name: j for j in record.joints}
    links = {l.name: l for l in record.links}
    joints = {}
    joint_of = robot.joints_of_links()
    for J in w.joints:
        name = robot.links[J.child].name
        rec, lrec = by_child.get(name), links.get(name)
        memo = (rec.extras.get("collada") or {}).get("memo") if rec is not None else None
        own = ((lrec.extras.get("collada") or {}).get("memo") or {}).get("own") if lrec is not None else None
        n = len(J.axes_links)
        if not memo or memo.get("att") is None or own is None or rec.dof != n or \
                len(J.segs) > n + 1 or any(len(memo.get(k) or ()) != n for k in
                                           ("axes", "limits", "speed", "acceleration")):
            continue
        joints[name] = {"fingerprint": joint_fingerprint(robot, J.segs, joint_of), "active": J.active,
                        "kinds": w.kinds(J), "att": memo["att"], "own": own, "axes": memo["axes"],
                        "limits": list(memo["limits"]), "speed": list(memo["speed"]),
                        "acceleration": list(memo["acceleration"])}
    stored = {}
    for J in w.joints:
        name = robot.links[J.child].name
        rec = by_child.get(name)
        if rec is None or rec.dof != len(J.axes_links):
            continue
        info = rec.extras.get("collada") or {}
        written = (info.get("memo") or {}).get("stored") or []
        values = info.get("stored_values") or []
        per_axis = []
        for k, x in enumerate(J.axes_links):
            q = float(robot.config[x])
            is_rev = not robot.links[x].is_prismatic
            w_k = written[k] if k < len(written) else None
            if is_rev and w_k is not None:      # the degrees as written: deg -> rad -> deg drifts
                per_axis.append((q, w_k))
                continue
            value = values[k] if k < len(values) else 0.0
            per_axis.append((q, value * RAD2DEG if is_rev else value))
        stored[name] = per_axis
    T0 = link_poses(robot, np.zeros(robot.num_links))     # (as the writer computes them)
    out_links = {}
    for i, l in enumerate(robot.links):
        lrec = links.get(l.name)
        info = (lrec.extras.get("collada") or {}) if lrec is not None else {}
        memo = info.get("memo") or {}
        entry = {}
        if l.parent < 0 and memo.get("own") is not None:
            entry.update(own=memo["own"], fingerprint=fingerprint(l.name, l.parent_transform))
        if info.get("has_rigid_body") and memo.get("mass_frame") is not None:
            entry.update(mass=lrec.mass.mass, mass_frame=memo["mass_frame"],
                         inertia=list(info["inertia_moments"]),
                         mass_fingerprint=mass_fingerprint(robot, i, T0[i]))
        if entry:
            out_links[l.name] = entry
    pairs = sorted((min(a, b), max(a, b)) for a, b in robot.self_collision_pairs)
    collision = {"fingerprint": fingerprint(*[f"{a},{b}" for a, b in pairs]),
                 "pairs": [(record.links[a].name, record.links[b].name) for a, b in record.forced_adjacent]}
    return {"joints": joints, "links": out_links, "collision": collision, "stored": stored}


def read(path: str, ctx):
    return loads(read_bytes(path, ctx, document=False), ctx)


def dumps(obj, report, path: str | None = None) -> bytes:
    from ._writer import dumps as _dumps
    return _dumps(obj, report, path)


def write(obj, path: str, report) -> None:
    atomic_write(path, dumps(obj, report, path), mode="wb")
