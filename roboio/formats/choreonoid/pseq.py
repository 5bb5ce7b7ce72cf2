"""Choreonoid pose sequences (``.pseq``, ``type: PoseSeq``): key poses read as data.

Each key (``refs`` entry) keeps its time, joint ids and values (radians / metres, never
degrees), stationary-point joints, IK links (world pose, link index, contact data) and ZMP.
Choreonoid's interpolation of key poses into a motion is not reproduced.
Both camelCase (as Choreonoid writes) and snake_case keys are read; the writer uses camelCase.
"""
from __future__ import annotations

import json

import numpy as np

from ...errors import FormatError
from ...context import LoadContext
from ...model.body_motion import IkLink, PoseKey, PoseSeq
from ..fileio import as_text, atomic_write, fmt_float, read_bytes
from . import _yaml as Y
from ._sniff import sniff_pseq as sniff

__all__ = ["sniff", "loads", "read", "dumps", "write", "pseq_text"]

_KEY_KEYS = {"time", "maxTransitionTime", "max_transition_time", "refer"}
_POSE_KEYS = {"type", "name", "joints", "q", "spJoints", "sp_joints", "ikLinks", "ik_links", "zmp",
              "isZmpStationaryPoint", "is_zmp_stationary_point"}
_IK_KEYS = {"name", "index", "isBaseLink", "is_base_link", "isStationaryPoint",
            "is_stationary_point", "translation", "rotation", "isTouching", "is_touching",
            "partingDirection", "parting_direction", "contactPoints", "contact_points", "isSlave",
            "is_slave"}


class _Reader:
    def __init__(self, path, ctx):
        self.path, self.ctx = path, ctx

    def warn(self, msg, node=None, **kind):
        self.ctx.warn(msg, Y.line_of(node), **kind)

    def f(self, node, what):
        return Y.to_float(node, self.path, what, self.warn)

    def floats(self, node, what, n=None):
        return np.array(Y.to_floats(node, self.path, what, n, self.warn), dtype=float)

    def flag(self, m, *keys):
        node = Y.get(m, *keys)
        return False if node is None else Y.to_bool(node, self.path, keys[0])

    def seq(self, top) -> PoseSeq:
        top = Y.to_map(top, self.path, "pose sequence")
        ps = PoseSeq(str(top.get("name", "")), str(Y.get(top, "targetBody", "target_body", default="")))
        ps.extra = {k: v for k, v in top.items() if k not in ("name", "targetBody", "target_body", "refs")}
        refs = top.get("refs")
        if refs is None:
            raise FormatError(self.path, Y.line_of(top, 1), None, "no 'refs' list of key poses")
        for ref in Y.to_list(refs, self.path, "refs"):
            ps.keys.append(self.key(Y.to_map(ref, self.path, "refs entry")))
        return ps

    def key(self, ref) -> PoseKey:
        if "time" not in ref:
            raise FormatError(self.path, ref.line, None, "key pose has no time")
        k = PoseKey(self.f(ref["time"], "time"), line=ref.line)
        mt = Y.get(ref, "maxTransitionTime", "max_transition_time")
        if mt is not None:
            k.max_transition_time = self.f(mt, "maxTransitionTime")
        k.extra = {x: v for x, v in ref.items() if x not in _KEY_KEYS}
        pose = ref.get("refer")
        if pose is None:
            raise FormatError(self.path, ref.line, None, "key pose has no 'refer'")
        pose = Y.to_map(pose, self.path, "refer")
        k.type = str(pose.get("type", "Pose"))
        k.name = str(pose.get("name", ""))
        k.extra.update({f"refer.{x}": v for x, v in pose.items() if x not in _POSE_KEYS})
        if k.type != "Pose":
            return k
        jn, qn = pose.get("joints"), pose.get("q")
        if jn is not None:
            k.joints = np.array([Y.to_int(x, self.path, "joints") for x in Y.to_list(jn, self.path, "joints")],
                                dtype=np.int64)
            if np.any(k.joints < 0):
                raise FormatError(self.path, Y.line_of(jn), None, "joint ids must be >= 0")
            k.q = self.floats(qn, "q") if qn is not None else np.zeros(0)
            if len(k.q) != len(k.joints):
                raise FormatError(self.path, Y.line_of(qn, Y.line_of(jn)), None,
                                  f"{len(k.joints)} joint ids but {len(k.q)} values in q")
        sp = Y.get(pose, "spJoints", "sp_joints")
        if sp is not None:
            k.sp_joints = [Y.to_int(x, self.path, "spJoints") for x in Y.to_list(sp, self.path, "spJoints")]
        ik = Y.get(pose, "ikLinks", "ik_links")
        if ik is not None:
            for node in Y.to_list(ik, self.path, "ikLinks"):
                lk = self.ik_link(Y.to_map(node, self.path, "ikLinks entry"))
                if lk is not None:
                    k.ik_links.append(lk)
        if "zmp" in pose:
            k.zmp = self.floats(pose["zmp"], "zmp", 3)
        k.is_zmp_stationary_point = self.flag(pose, "isZmpStationaryPoint", "is_zmp_stationary_point")
        return k

    def ik_link(self, m):
        name = str(m.get("name", ""))
        if "translation" not in m or "rotation" not in m:
            self.warn(f"IK link {name!r} without translation and rotation dropped (as Choreonoid does)", m, kind="dropped")
            return None
        lk = IkLink(name, Y.to_int(m["index"], self.path, "index") if "index" in m else -1)
        lk.translation = self.floats(m["translation"], "translation", 3)
        lk.rotation = self.floats(m["rotation"], "rotation", 9).reshape(3, 3)     # row-major
        lk.is_base_link = self.flag(m, "isBaseLink", "is_base_link")
        lk.is_stationary_point = self.flag(m, "isStationaryPoint", "is_stationary_point")
        lk.is_touching = self.flag(m, "isTouching", "is_touching")
        lk.is_slave = self.flag(m, "isSlave", "is_slave")
        pd = Y.get(m, "partingDirection", "parting_direction")
        if pd is not None:
            lk.parting_direction = self.floats(pd, "partingDirection", 3)
        cp = Y.get(m, "contactPoints", "contact_points")
        if cp is not None:
            lk.contact_points = np.array([self.floats(p, "contactPoints", 3)
                                          for p in Y.to_list(cp, self.path, "contactPoints")]).reshape(-1, 3)
        lk.extra = {x: v for x, v in m.items() if x not in _IK_KEYS}
        return lk


def loads(data, ctx: LoadContext) -> PoseSeq:
    ps = _Reader(ctx.path, ctx).seq(Y.load(as_text(data), ctx.path, ctx=ctx))
    ps.source = ctx.path
    return ps


def read(path: str, ctx: LoadContext) -> PoseSeq:
    return loads(read_bytes(path, ctx), ctx)


# -- writing -----------------------------------------------------------------------------------

def _flow(values, per_line=9, indent=8) -> str:
    vals = [fmt_float(v) if not isinstance(v, (int, np.integer)) else str(int(v)) for v in values]
    if len(vals) <= per_line:
        return "[ " + ", ".join(vals) + " ]"
    rows = [", ".join(vals[i:i + per_line]) for i in range(0, len(vals), per_line)]
    pad = " " * indent
    return "[ \n" + ",\n".join(pad + r for r in rows) + " ]"


def pseq_text(ps: PoseSeq) -> str:
    out = ["# Body pose sequence format version 1.0 defined by cnoid-Robotics\n\n", "type: PoseSeq\n",
           f"name: {json.dumps(ps.name)}\n", f"targetBody: {json.dumps(ps.target_body)}\n"]
    extra = {k: v for k, v in ps.extra.items() if k != "type"}
    if extra:
        out.append(Y.emit(extra))
    out.append("refs:\n")
    for k in ps.keys:
        out.append("  -\n")
        out.append(f"    time: {fmt_float(k.time)}\n")
        if k.max_transition_time > 0:
            out.append(f"    maxTransitionTime: {fmt_float(k.max_transition_time)}\n")
        top_extra = {x: v for x, v in k.extra.items() if not x.startswith("refer.")}
        if top_extra:
            out.append(Y.emit(top_extra, indent=4))
        out.append("    refer:\n")
        out.append(f"      type: {k.type}\n")
        out.append(f"      name: {json.dumps(k.name)}\n")
        if k.type == "Pose":
            if len(k.joints):
                out.append(f"      joints: {_flow([int(j) for j in k.joints])}\n")
                out.append(f"      q: {_flow([float(x) for x in k.q])}\n")
            if k.sp_joints:
                out.append(f"      spJoints: {_flow(k.sp_joints)}\n")
            if k.ik_links:
                out.append("      ikLinks:\n")
                for lk in k.ik_links:
                    out.append(_ik_text(lk))
            if k.zmp is not None:
                out.append(f"      zmp: {_flow(k.zmp)}\n")
                if k.is_zmp_stationary_point:
                    out.append("      isZmpStationaryPoint: true\n")
        refer_extra = {x[len("refer."):]: v for x, v in k.extra.items() if x.startswith("refer.")}
        if refer_extra:
            out.append(Y.emit(refer_extra, indent=6))
    return "".join(out)


def _ik_text(lk: IkLink) -> str:
    p = "          "
    out = [f"        -\n{p}name: {Y.scalar_text(lk.name)}\n", f"{p}index: {lk.index}\n"]
    if lk.is_base_link:
        out.append(f"{p}isBaseLink: true\n")
    if lk.is_stationary_point:
        out.append(f"{p}isStationaryPoint: true\n")
    out.append(f"{p}translation: {_flow(lk.translation)}\n")
    out.append(f"{p}rotation: {_flow(np.asarray(lk.rotation).reshape(9), 3, 12)}\n")
    if lk.is_touching:
        out.append(f"{p}isTouching: true\n")
        pd = lk.parting_direction if lk.parting_direction is not None else (0.0, 0.0, 1.0)
        out.append(f"{p}partingDirection: {_flow(pd)}\n")
        if lk.contact_points is not None and len(lk.contact_points):
            out.append(f"{p}contactPoints: [ " + ", ".join(_flow(c) for c in lk.contact_points) + " ]\n")
    elif lk.parting_direction is not None:
        out.append(f"{p}partingDirection: {_flow(lk.parting_direction)}\n")
    if lk.is_slave:
        out.append(f"{p}isSlave: true\n")
    if lk.extra:
        out.append(Y.emit(lk.extra, indent=10))
    return "".join(out)


def dumps(ps: PoseSeq, report=None, path=None) -> str:
    return pseq_text(ps)


def write(ps: PoseSeq, path: str, report=None) -> None:
    atomic_write(path, dumps(ps, report, path))
