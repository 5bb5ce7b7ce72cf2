"""Klamp't's JSON forms of motions and contacts: what Python
``klampt.io.loader.to_json``/``from_json`` and the C++ ``Convert`` functions produce.

Read (``.json`` whose content is one of these; Klamp't heightmap JSON is left to the
geometry readers):

* ``[q1, ..., qN]`` (Config) -> one-milestone untimed Trajectory; ``[[...], ...]`` (Configs)
  -> untimed Trajectory.
* ``{"times", "milestones"}`` (Trajectory / LinearPath, or any ``"type": "...Trajectory"``)
  -> Trajectory; ``HermiteTrajectory`` milestones are ``q + dq`` and become milestones and
  velocities. SO3/SE3 trajectory milestones are kept as written (Klamp't's column-major
  rotation, then translation); the type name is kept in ``traj.extras["klampt_type"]``.
* IK objective ``{"type": "IKObjective", "link", ["destLink"], ["posConstraint",
  "localPosition", "endPosition", ["direction"]], ["rotConstraint", "endRotation",
  ["localAxis"]]}`` (the C++ form has no ``type``).
* ContactPoint ``{"x", "n", "kFriction"}``.
* Hold: Python ``{"type": "Hold", "data": hold text}`` or C++ ``{"ik": IK objective,
  "contacts": [...]}``; Stance: C++ ``{"holds": [...]}``; Grasp: C++ ``{"objectIndex",
  "robotIndex", "constraints", "fixedValues", "fixedDofs", "contacts", "contactLinks",
  "forces"}``.

Write: timed Trajectory -> ``{"times", "milestones"}`` (``HermiteTrajectory`` with velocities);
untimed -> Config / Configs arrays; IK objectives and contact points in the Python form (also
read by C++); holds in the Python form; stances and grasps in the C++ form (Klamp't's Python
has none). Numbers keep full precision.
"""
from __future__ import annotations

import json

import numpy as np

from ....errors import FormatError, OutputError
from ....model import Trajectory
from ....model.contact import ContactPoint, Grasp, Hold, IKObjective, Stance
from ...fileio import as_text, atomic_write, read_bytes
from .._sniff import sniff_json as sniff
from .._text import Where
from ..contact.hold import hold_text, parse_hold_text
from ..contact.hold import stance_holds

__all__ = ["sniff", "loads", "read", "dumps", "write", "to_json", "from_json"]

_IK_KEYS = {"type", "link", "destLink", "posConstraint", "localPosition", "endPosition",
            "direction", "rotConstraint", "endRotation", "localAxis"}
_GRASP_KEYS = {"objectIndex", "robotIndex", "constraints", "fixedValues", "fixedDofs",
               "contacts", "contactLinks", "forces"}


class _Bad(Exception):
    """A JSON value that is not what a Klamp't form expects (message says what)."""


def _num_list(v, what, n=None) -> np.ndarray:
    if not isinstance(v, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        raise _Bad(f"{what}: expected a list of numbers")
    if n is not None and len(v) != n:
        raise _Bad(f"{what}: expected {n} numbers, got {len(v)}")
    return np.array(v, dtype=float)


def _matrix(v, what) -> np.ndarray:
    if not isinstance(v, list):
        raise _Bad(f"{what}: expected a list of lists of numbers")
    rows = [_num_list(r, f"{what}[{i}]") for i, r in enumerate(v)]
    if not rows:
        return np.zeros((0, 0))
    d = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != d:
            raise _Bad(f"{what}[{i}] has {len(r)} values, {what}[0] has {d}")
    return np.vstack(rows) if d else np.zeros((len(rows), 0))


def _int(v, what) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise _Bad(f"{what}: expected an integer")
    return v


def _ik(d, what="IK objective") -> IKObjective:
    if not isinstance(d, dict) or "link" not in d:
        raise _Bad(f"{what}: expected an object with a 'link'")
    pos = d.get("posConstraint", "free")
    rot = d.get("rotConstraint", "free")
    if pos not in ("free", "fixed", "planar", "linear"):
        raise _Bad(f"{what}: unknown posConstraint {pos!r}")
    if rot not in ("free", "fixed", "axis", "twoaxis"):
        raise _Bad(f"{what}: unknown rotConstraint {rot!r}")
    kw = {}
    if pos != "free":
        kw["local_position"] = _num_list(d.get("localPosition"), f"{what} localPosition", 3)
        kw["end_position"] = _num_list(d.get("endPosition"), f"{what} endPosition", 3)
        if pos in ("planar", "linear"):
            kw["direction"] = _num_list(d.get("direction"), f"{what} direction", 3)
    if rot != "free":
        kw["end_rotation"] = _num_list(d.get("endRotation"), f"{what} endRotation", 3)
        if rot != "fixed":
            kw["local_axis"] = _num_list(d.get("localAxis"), f"{what} localAxis", 3)
    return IKObjective(_int(d["link"], f"{what} link"), _int(d.get("destLink", -1), f"{what} destLink"),
                       pos, rot_constraint=rot, **kw)


def _contacts(v, what) -> list:
    if not isinstance(v, list):
        raise _Bad(f"{what}: expected a list of contact points")
    return [_contact(c, f"{what}[{i}]") for i, c in enumerate(v)]


def _contact(d, what) -> ContactPoint:
    if not isinstance(d, dict) or not {"x", "n", "kFriction"} <= set(d):
        raise _Bad(f"{what}: expected an object with x, n and kFriction")
    f = d["kFriction"]
    if not isinstance(f, (int, float)) or isinstance(f, bool):
        raise _Bad(f"{what} kFriction: expected a number")
    return ContactPoint(_num_list(d["x"], f"{what} x", 3), _num_list(d["n"], f"{what} n", 3), f)


def _cpp_hold(d, what) -> Hold:
    ik = _ik(d.get("ik"), f"{what} ik")
    return Hold(ik.link, _contacts(d.get("contacts", []), f"{what} contacts"), ik)


def _trajectory(d, kind) -> Trajectory:
    times = _num_list(d.get("times"), "times")
    m = _matrix(d.get("milestones"), "milestones")
    if len(times) != len(m):
        raise _Bad(f"{len(times)} times for {len(m)} milestones")
    vel = None
    if kind == "HermiteTrajectory":
        if m.shape[1] % 2:
            raise _Bad(f"HermiteTrajectory milestones must hold q and dq (an even count), got {m.shape[1]}")
        half = m.shape[1] // 2
        m, vel = m[:, :half], m[:, half:]
    traj = Trajectory(times, m, vel)
    if kind not in (None, "Trajectory", "LinearPath", "HermiteTrajectory"):
        traj.extras["klampt_type"] = kind
    return traj


def _stance(obj, ctx) -> Stance:
    if not isinstance(obj["holds"], list):
        raise _Bad("holds: expected a list")
    stance = Stance()
    for i, h in enumerate(obj["holds"]):
        hold = _cpp_hold(h, f"holds[{i}]")
        if stance.add(hold) is not None and ctx is not None:
            ctx.warn(f"a second hold on link {hold.link} replaces the first", kind="dropped")
    return stance


def _grasp(obj) -> Grasp:
    contacts = _contacts(obj.get("contacts", []), "contacts")
    links = [_int(x, "contactLinks") for x in obj.get("contactLinks", [])]
    if len(links) != len(contacts):
        raise _Bad(f"{len(contacts)} contacts but {len(links)} contactLinks")
    forces = [_num_list(f, f"forces[{i}]", 3) for i, f in enumerate(obj.get("forces", []))]
    if forces and len(forces) != len(contacts):
        raise _Bad(f"{len(forces)} forces for {len(contacts)} contacts")
    dofs = [_int(x, "fixedDofs") for x in obj.get("fixedDofs", [])]
    values = _num_list(obj.get("fixedValues", []), "fixedValues").tolist()
    if len(dofs) != len(values):
        raise _Bad(f"{len(dofs)} fixedDofs but {len(values)} fixedValues")
    return Grasp(_int(obj["objectIndex"], "objectIndex"), _int(obj["robotIndex"], "robotIndex"),
                 [_ik(c, f"constraints[{i}]") for i, c in enumerate(obj.get("constraints", []))],
                 dofs, values, contacts, links, forces or [None] * len(contacts))


def from_json(obj, ctx=None, where: Where = None):
    """The roboio model object for a Klamp't JSON value (raises ``_Bad`` if it is none)."""
    if isinstance(obj, list):
        if obj and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in obj):
            return Trajectory(None, np.array(obj, dtype=float).reshape(1, -1))
        return Trajectory(None, _matrix(obj, "configurations"))
    if not isinstance(obj, dict):
        raise _Bad("expected a Klamp't JSON array or object")
    kind = obj.get("type")
    keys = set(obj)
    if (kind is None and {"times", "milestones"} <= keys) or kind == "LinearPath" \
            or (isinstance(kind, str) and kind.endswith("Trajectory")):
        return _trajectory(obj, kind)
    if kind in ("IKObjective", "IKGoal") or (kind is None and "link" in keys and keys <= _IK_KEYS):
        return _ik(obj)
    if kind == "ContactPoint" or (kind is None and keys == {"x", "n", "kFriction"}):
        return _contact(obj, "contact point")
    if kind == "Hold" and "data" in obj:
        if not isinstance(obj["data"], str):
            raise _Bad("Hold data: expected the hold text")
        return parse_hold_text(obj["data"], where or Where(None, None, "Hold data"), ctx)
    if kind == "Hold" or (kind is None and "ik" in keys and keys <= {"ik", "contacts"}):
        return _cpp_hold(obj, "hold")
    if kind in (None, "Stance") and "holds" in keys:
        return _stance(obj, ctx)
    if kind in (None, "Grasp") and {"objectIndex", "robotIndex"} <= keys and keys - {"type"} <= _GRASP_KEYS:
        return _grasp(obj)
    raise _Bad(f"not a Klamp't motion or contact JSON object (type {kind!r}, keys {sorted(keys)})")


def loads(data, ctx):
    """The motion or contact object of Klamp't JSON text (see the module docstring)."""
    path = ctx.path
    text = as_text(data)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(path, e.lineno, e.colno, f"malformed JSON: {e.msg}") from None
    try:
        out = from_json(obj, ctx, Where(path, 1, "Hold data"))
    except _Bad as e:
        raise FormatError(path, None, None, str(e)) from None
    if isinstance(out, (Trajectory, Hold, Stance, Grasp)):
        out.source = path
    return out


def read(path: str, ctx):
    return loads(read_bytes(path, ctx), ctx)


# ------------------------------------------------------------------------------ writing

def _ik_json(ik: IKObjective) -> dict:
    out = {"type": "IKObjective", "link": ik.link}
    if ik.dest_link >= 0:
        out["destLink"] = ik.dest_link
    if ik.pos_constraint != "free":
        out["posConstraint"] = ik.pos_constraint
        out["localPosition"] = ik.local_position.tolist()
        out["endPosition"] = ik.end_position.tolist()
        if ik.direction is not None and ik.pos_constraint in ("planar", "linear"):
            out["direction"] = ik.direction.tolist()
    if ik.rot_constraint != "free":
        out["rotConstraint"] = ik.rot_constraint
        out["endRotation"] = ik.end_rotation.tolist()
        if ik.rot_constraint != "fixed":
            out["localAxis"] = ik.local_axis.tolist()
    return out


def _contact_json(c: ContactPoint) -> dict:
    return {"x": c.x.tolist(), "n": c.n.tolist(), "kFriction": c.kFriction}


def _cpp_hold_json(h: Hold, report) -> dict:
    ik = h.ik_constraint if h.ik_constraint is not None else IKObjective(h.link)
    if ik.link != h.link:
        report.lose(f"IK constraint link {ik.link} of the hold on link {h.link}", kind="not written")
        ik = IKObjective(h.link, ik.dest_link, ik.pos_constraint, ik.local_position, ik.end_position,
                         ik.direction, ik.rot_constraint, ik.local_axis, ik.end_rotation)
    d = _ik_json(ik)
    del d["type"]
    return {"ik": d, "contacts": [_contact_json(c) for c in h.contacts]}


def _trajectory_json(obj: Trajectory, report):
    m = obj.milestones
    if obj.times is None and obj.velocities is None:
        return m[0].tolist() if len(m) == 1 else m.tolist()       # Config / Configs
    times = obj.times
    if times is None:
        times = np.arange(len(m), dtype=float)
        report.lose("untimed: written with times 0, 1, ..., N-1 (Klamp't's JSON form for "
                    "milestones with velocities is a timed HermiteTrajectory)", kind="target default")
    if obj.velocities is not None:
        return {"type": "HermiteTrajectory", "times": times.tolist(),
                "milestones": np.hstack([m, obj.velocities]).tolist()}
    kind = obj.extras.get("klampt_type")
    out = {"type": kind} if isinstance(kind, str) and kind.endswith("Trajectory") else {}
    out.update(times=times.tolist(), milestones=m.tolist())
    return out


def _grasp_json(g: Grasp, report) -> dict:
    forces = [f for f in g.forces if f is not None]
    if forces and len(forces) != len(g.contacts):
        report.lose("which contacts the forces belong to (only some contacts have a force)",
                    kind="not written")
    return {"objectIndex": int(g.object_index), "robotIndex": int(g.robot_index),
            "constraints": [{k: v for k, v in _ik_json(c).items() if k != "type"} for c in g.constraints],
            "fixedValues": [float(v) for v in g.fixed_values],
            "fixedDofs": [int(d) for d in g.fixed_dofs],
            "contacts": [_contact_json(c) for c in g.contacts],
            "contactLinks": [int(x) for x in g.contact_links],
            "forces": [np.asarray(f, dtype=float).tolist() for f in forces]}


def to_json(obj, report):
    """The Klamp't JSON value for a roboio model object."""
    if isinstance(obj, Trajectory):
        return _trajectory_json(obj, report)
    if isinstance(obj, IKObjective):
        if obj.pos_constraint in ("planar", "linear") or obj.rot_constraint == "twoaxis":
            report.warn("planar/linear position or two-axis rotation constraints are read by "
                        "Klamp't's C++ JSON reader only", kind="read differently")
        return _ik_json(obj)
    if isinstance(obj, ContactPoint):
        return _contact_json(obj)
    if isinstance(obj, Hold):
        return {"type": "Hold", "data": hold_text(obj, report)}
    if isinstance(obj, Stance):
        return {"holds": [_cpp_hold_json(h, report) for h in stance_holds(obj, report)]}
    if isinstance(obj, Grasp):
        return _grasp_json(obj, report)
    raise OutputError(None, f"no Klamp't JSON form for a {type(obj).__name__}")


def dumps(obj, report, path=None) -> str:
    value = to_json(obj, report)
    text = json.dumps(value)
    if "Infinity" in text or "NaN" in text:
        report.warn("non-finite values written as Infinity/NaN (Python's json reads them; strict "
                    "JSON parsers do not)", kind="read differently")
    return text + "\n"


def write(obj, path: str, report) -> None:
    atomic_write(path, dumps(obj, report, path))
