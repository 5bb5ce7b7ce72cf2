"""Drivers of robots read from MJCF: one per hinge or slide joint (named after the joint;
Klamp't's convention that every DOF a joint names is driven), the ``<actuator>`` elements
that drive it attached as data (name, kind, gear, ranges, gains) in
``driver.extras["mjcf"]["actuators"]``, and ``<equality><joint>`` couplings turned into
affine drivers when their polynomial is linear.

That list is there, empty, for a driver whose joints no actuator drives: MuJoCo leaves such a
joint unactuated, and the MJCF writer writes it again without an actuator
(:func:`unactuated`), so that a model read from MJCF keeps its actuators and a first write
that gave a joint none is what the next write gives too.

``<equality>`` ``connect``/``weld``/``tendon``/``flex`` constraints are kept as data in
``robot.extras["mjcf"]["equality"]`` (roboio's kinematics does not enforce them) and named in
a warning.
"""
from __future__ import annotations

import numpy as np

from ...model import Driver
from ...model.coupling import without_driver
from ..fileio import fmt_float
from ._document import ACTUATOR_KINDS

__all__ = ["attach_drivers", "unactuated", "apply_actuator", "as_read", "kept_attributes", "KEPT_KINDS", "TRANSMISSIONS"]


def unactuated(d) -> bool:
    """Driver ``d`` was read from MJCF, where no actuator drives its joints."""
    mj = d.extras.get("mjcf")
    return isinstance(mj, dict) and "actuators" in mj and not mj["actuators"]


def attach_drivers(reader, robots: list) -> None:
    doc = reader.doc
    drivers_of = {}                  # link -> driver
    for r in robots:
        r.drivers = []
        for j in r.joints:
            if j.type not in ("normal", "spin"):
                continue
            i = j.links[0]
            l = r.links[i]
            d = Driver(l.joint_name or l.name, "normal", [i], qmin=r.qmin[i], qmax=r.qmax[i], leader=i)
            d.dry_friction, d.viscous_friction = reader.friction.get((id(r), i), (0.0, 0.0))
            d.extras["mjcf"] = {"actuators": []}     # (filled by _actuators)
            r.drivers.append(d)
            drivers_of[(id(r), i)] = (r, d)
    _actuators(reader, drivers_of)
    _equalities(reader, robots, drivers_of)


# attributes kept besides name, joint, gear and the ranges, by element kind (those MuJoCo
# accepts on that element: a default class may hold others, for other kinds)
_KEPT = {
    "general": ("gainprm", "biasprm", "dynprm", "dyntype", "gaintype", "biastype", "actdim", "actearly"),
    "position": ("kp", "kv", "dampratio", "timeconst", "inheritrange"),
    "velocity": ("kv",),
    "intvelocity": ("kp", "kv", "dampratio", "inheritrange"),
    "damper": ("kv",),
    "cylinder": ("timeconst", "area", "diameter", "bias"),
    "muscle": ("timeconst", "range", "force", "scale", "lmin", "lmax", "vmax", "fpmax", "fvmax", "tausmooth"),
    "adhesion": ("gain",),
}
_VECTORS = ("gainprm", "biasprm", "dynprm", "range", "lengthrange", "bias", "user")   # kept as lists
_WORDS = ("dyntype", "gaintype", "biastype", "actearly", "interp")     # kept as text, not numbers
TRANSMISSIONS = ("tendon", "site", "body", "cranksite")     # the targets that are not joints
# what only a site or slider-crank transmission takes (kept with such an actuator, as data)
_TRANSMISSION_ATTRS = ("refsite", "cranklength", "slidersite")

# taken by every actuator element, kept on every actuator (written back as read)
_COMMON = ("group", "lengthrange", "nsample", "interp", "delay", "user")
# taken by every actuator element and read as the driver's joint, gear and ranges
_HANDLED = ("name", "class", "joint", "jointinparent", "gear", "ctrlrange", "forcerange", "actrange",
            "ctrllimited", "forcelimited", "actlimited") + TRANSMISSIONS + _TRANSMISSION_ATTRS
KEPT_KINDS = ("motor",) + tuple(_KEPT)                     # whose own attributes a reading keeps


def kept_attributes(kind: str) -> tuple:
    """The attributes besides name, joint, gear and the ranges that a reading keeps of an
    actuator element ``kind`` (and the writer writes back), in the order written."""
    return _KEPT.get(kind, ()) + _COMMON


def _actuator_info(a, tag: str) -> dict:
    """What a reading keeps of one actuator element (resolved over its class's defaults):
    its kind, name, first gear component, limited control/force/activation ranges and the
    attributes of :func:`kept_attributes` (numbers as floats, lists of floats)."""
    info = {"kind": tag}
    if a.text("name"):
        info["name"] = a.text("name")
    gear = a.floats("gear", [1.0, 0, 0, 0, 0, 0], at_most=6)
    info["gear"] = gear[0] if gear else 1.0
    if any(gear[1:]):
        # (a hinge or slide takes the first; a site, body or ball joint the others too)
        info["gear_full"] = list(gear) + [0.0] * (6 - len(gear))
    for key in ("ctrlrange", "forcerange", "actrange"):
        rng = a.floats(key, None, 2)
        lim = a.limited(key.replace("range", "limited"), rng is not None and any(rng))
        if rng is not None and lim:
            info[key] = list(rng)
    for key in kept_attributes(tag):
        if key in _WORDS:
            if a.text(key) is not None:
                info[key] = a.text(key)
            continue
        v = a.floats(key, None, at_most=None if key == "user" else 10)
        if v:
            info[key] = v if key in _VECTORS else v[0]
    return info


def _unread_attributes(a, tag: str, kept: tuple) -> list:
    """The attributes of actuator element ``a`` (of kind ``tag``) that a reading neither
    keeps nor turns into the driver: its own, and those of its class that the kind takes."""
    takes = set(_HANDLED + _COMMON + _KEPT.get(tag, ()))
    out = [k for k in a.values if (k in a.own or k in takes) and k not in _HANDLED and k not in kept]
    return sorted(out)


def _actuators(reader, drivers_of: dict) -> None:
    doc = reader.doc
    index = 0                       # place among the model's actuators: MuJoCo's ctrl index
    for sec in doc.sections.get("actuator", []):
        for k, n in enumerate(doc.kids(sec, 2)):
            if n.tag not in ACTUATOR_KINDS:
                if n.tag != "plugin":
                    raise doc.error(n, f"unrecognized actuator element '{n.tag}'")
                index += 1          # (a plugin actuator takes a control too)
                continue
            a = doc.attrs(n, doc.class_of(n, "main"), n.tag)
            target = a.text("joint") or a.text("jointinparent")
            info = _actuator_info(a, n.tag)
            info["index"] = index
            index += 1
            label = info.get("name", k)
            unread = _unread_attributes(a, n.tag, kept_attributes(n.tag))
            if unread:
                doc.warn(n, f"actuator {label!r} (<{n.tag}>): {', '.join(unread)} not read (roboio keeps "
                            f"{', '.join(kept_attributes(n.tag))} of <{n.tag}> besides its target, gear "
                            "and ranges)", kind="dropped")
            if target is None:
                other = next((t for t in TRANSMISSIONS if a.text(t)), None)
                if other is not None:
                    info[other] = a.text(other)
                for key in _TRANSMISSION_ATTRS:
                    if a.text(key) is not None:
                        info[key] = a.text(key)
                _robot_actuator(reader, n, info, other)
                continue
            extra = [key for key in _TRANSMISSION_ATTRS if a.text(key) is not None]
            if extra:
                doc.warn(n, f"actuator {label!r}: {', '.join(extra)} not read (a joint transmission "
                            "takes none)", kind="dropped")
            for name in reader.names(target):
                hit = reader.joint_links.get(name)
                if hit is None:
                    raise doc.error(n, f"unknown joint {name!r} in actuator")
                _drive(reader, {**info, "joint": name}, hit, drivers_of)


def apply_actuator(d, info: dict) -> None:
    """Driver ``d``'s limits and gains as actuator ``info`` (on ``d``'s own joint) sets them,
    MuJoCo's joint-space meaning of it (one mapping, for the reader and for the writer's
    check that a driver is as read, :func:`as_read`): a force range times ``gear`` (or a
    motor's ``ctrlrange`` times ``gear``) narrows ``tmin``/``tmax``; a position servo's
    ``ctrlrange`` over ``gear`` narrows ``qmin``/``qmax``; ``kp`` (position, intvelocity)
    and ``kv`` (position, velocity) times ``gear^2`` are ``servo_p``/``servo_d``."""
    kind, g = info["kind"], info["gear"]
    if not g:
        return
    lo, hi = -np.inf, np.inf
    if "forcerange" in info:
        lo, hi = sorted((info["forcerange"][0] * g, info["forcerange"][1] * g))
    if kind == "motor" and "ctrlrange" in info:
        clo, chi = sorted((info["ctrlrange"][0] * g, info["ctrlrange"][1] * g))
        lo, hi = max(lo, clo), min(hi, chi)
    d.tmin, d.tmax = max(d.tmin, lo), min(d.tmax, hi)
    if kind == "position" and "ctrlrange" in info:
        # the targets it takes (ctrl = gear x qpos), within the joint's own range
        clo, chi = sorted((info["ctrlrange"][0] / g, info["ctrlrange"][1] / g))
        d.qmin, d.qmax = max(d.qmin, clo), min(d.qmax, chi)
    if kind in ("position", "intvelocity") and "kp" in info:
        d.servo_p = float(info["kp"]) * g * g
    if kind in ("position", "velocity") and "kv" in info:
        d.servo_d = float(info["kv"]) * g * g


_DERIVED = ("qmin", "qmax", "tmin", "tmax", "servo_p", "servo_i", "servo_d")


def as_read(robot, d) -> "str | None":
    """None when driver ``d`` of ``robot`` holds the limits and gains a reading derived from
    its kept actuators (``extras["mjcf"]["actuators"]``: those on its leader's joint, applied
    by :func:`apply_actuator` to the joint's range), else what differs (``"tmax 5 (read:
    50)"``): the actuators were read with values that the driver no longer has."""
    lead = d.leader if d.leader is not None else (d.dofs[0] if d.dofs else None)
    if lead is None:
        return "no joint"
    joint = robot.links[lead].joint_name or robot.links[lead].name
    fresh = Driver(d.name, "normal", [lead], qmin=robot.qmin[lead], qmax=robot.qmax[lead], leader=lead)
    for info in d.extras.get("mjcf", {}).get("actuators") or []:
        if info.get("joint") == joint:
            apply_actuator(fresh, info)
    diff = [f"{k} {fmt_float(float(getattr(d, k)))} (read: {fmt_float(float(getattr(fresh, k)))})"
            for k in _DERIVED if getattr(d, k) != getattr(fresh, k)]
    return ", ".join(diff) or None


def _drive(reader, info: dict, hit, drivers_of: dict) -> None:
    """Attach actuator ``info`` to the driver of its joint (``info["joint"]``)."""
    robot, idx = hit
    entry = drivers_of.get((id(robot), idx[0]))
    if entry is None:      # ball or free joint
        robot.extras.setdefault("mjcf", {}).setdefault("actuators", []).append(info)
        return
    _, d = entry
    d.extras.setdefault("mjcf", {}).setdefault("actuators", []).append(info)
    apply_actuator(d, info)


def _robot_actuator(reader, n, info: dict, target) -> None:
    """Keep actuator ``info`` (on a tendon, site, body or nothing: ``target``) as data of
    the robot that holds its body or site (else the first robot), or report it dropped when
    the model holds no robot."""
    label = info.get("name", info["index"])
    what = f"a {target} {info[target]!r}" if target else "nothing"
    robots = _robots(reader)
    owner = _owner(reader, info, target)
    if owner is None and robots:
        owner = robots[0]
    if owner is None:
        reader.doc.warn(n, f"actuator {label!r} drives {what}: not read (the model holds no robot "
                           "to keep it on; roboio drivers move joints)", kind="dropped")
        return
    reader.doc.warn(n, f"actuator {label!r} drives {what} (kept as data of robot {owner.name!r}: "
                       "roboio drivers move joints)", kind="unsupported")
    owner.extras.setdefault("mjcf", {}).setdefault("actuators", []).append(info)


def _owner(reader, info: dict, target):
    """The robot that holds the body or site actuator ``info`` acts on, or None."""
    if target not in ("body", "site", "cranksite"):
        return None
    for b in reader.world.walk():
        if b.id in reader.link_of and (
                (target == "body" and b.name == info[target]) or
                (target != "body" and any(s.name == info[target] for s in b.sites))):
            return reader.link_of[b.id][0]
    return None


def _robots(reader):
    seen = []
    for r, _ in reader.link_of.values():
        if not any(r is s for s in seen):
            seen.append(r)
    return seen


def _equalities(reader, robots: list, drivers_of: dict) -> None:
    doc = reader.doc
    kept = []
    for sec in doc.sections.get("equality", []):
        for n in doc.kids(sec, 2):
            a = doc.attrs(n, doc.class_of(n, "main"), "equality")
            if not a.bool("active", True):
                kept.append({"type": n.tag, "active": False, **_plain(a.own)})
                continue
            if n.tag == "joint":
                j1s, j2s = reader.names(a.text("joint1")), reader.names(a.text("joint2"))
                if j2s and len(j2s) != len(j1s):
                    j2s = j2s[:1] * len(j1s)
                for k, j1 in enumerate(j1s or [None]):
                    _joint_coupling(reader, n, a, drivers_of, kept, j1, j2s[k] if j2s else None)
            elif n.tag in ("connect", "weld", "tendon", "flex", "flexvert", "flexstrain"):
                kept.append({"type": n.tag, **_plain(a.own)})
                doc.warn(n, f"<equality><{n.tag}> {a.text('name') or ''!r} kept as data (closed loops are "
                            "not enforced by roboio's kinematics)", kind="unsupported")
            else:
                raise doc.error(n, f"unrecognized equality element '{n.tag}'")
    if kept:
        for r in robots[:1]:
            r.extras.setdefault("mjcf", {})["equality"] = kept


def _polynomial_coupling(robot, fd, ld, coef, ref1, ref2) -> None:
    """The follower driver ``fd``'s link joins the leader driver ``ld`` as MuJoCo couples it:
    ``q1 = ref1 + a0 + a1 (q2 - ref2) + ... + a4 (q2 - ref2)^4`` (a nonlinear driver,
    :func:`roboio.model.coupling.couple`; the link values are MuJoCo's qpos)."""
    from ...model.coupling import Arg, Const, Op, couple, polynomial
    x = Arg(0) if ref2 == 0.0 else Op("-", [Arg(0), Const(ref2)])
    expr = polynomial([coef[0] + ref1] + list(coef[1:]), x)
    k = robot.drivers.index(ld)
    couple(robot.drivers, fd.dofs[0], expr, [k])


def _plain(attrs: dict) -> dict:
    return {k: v for k, v in attrs.items() if k != "class"}


def _joint_coupling(reader, n, a, drivers_of: dict, kept: list, j1, j2) -> None:
    """``joint1 - ref1 = a0 + a1 (joint2 - ref2) + a2 (joint2 - ref2)^2 + ...``"""
    doc = reader.doc
    coef = list(a.floats("polycoef", [0.0, 1.0, 0.0, 0.0, 0.0], at_most=5))
    coef += [0.0] * (5 - len(coef))
    if j1 is None or j1 not in reader.joint_links:
        raise doc.error(n, f"unknown joint {j1!r} in equality")
    if j2 is not None and j2 not in reader.joint_links:
        raise doc.error(n, f"unknown joint {j2!r} in equality")
    r1, l1 = reader.joint_links[j1]
    follower = drivers_of.get((id(r1), l1[0]))
    leader = None
    if j2 is not None:
        r2, l2 = reader.joint_links[j2]
        leader = drivers_of.get((id(r2), l2[0]))
        if leader is not None and leader[0] is not r1:
            leader = None
    record = {"type": "joint", "joint1": j1, "polycoef": coef, **({"joint2": j2} if j2 else {})}
    if follower is None or (j2 is not None and leader is None):
        kept.append(record)
        doc.warn(n, f"<equality><joint> coupling {j1!r} to {j2!r} kept as data (not between hinge or "
                    "slide joints of one robot)", kind="unsupported")
        return
    robot, fd = follower
    if j2 is None:
        fd.extras.setdefault("mjcf", {})["polycoef"] = {"joint2": None, "coef": coef}
        kept.append(record)
        doc.warn(n, f"<equality><joint> {j1!r} held at a constant: kept as data on its driver "
                    "(roboio's drivers do not fix a joint)", kind="unsupported")
        return
    _, ld = leader
    if ld is fd:
        raise doc.error(n, f"joint {j1!r} coupled to itself")
    i1, i2 = fd.dofs[0], ld.leader
    ref1, ref2 = robot.config[i1], robot.config[i2]
    if any(coef[2:]) or fd.type == "nonlinear" or ld.type == "nonlinear":
        if fd.type != "normal" or len(fd.dofs) != 1:
            fd.extras.setdefault("mjcf", {})["polycoef"] = {"joint2": j2, "coef": coef}
            kept.append(record)
            doc.warn(n, f"<equality><joint> {j1!r} = a polynomial of {j2!r}, while other joints "
                        f"follow {j1!r}: kept as data on its driver (not composed)", kind="unsupported")
            return
        _polynomial_coupling(robot, fd, ld, coef, ref1, ref2)
    else:
        scale, offset = coef[1], ref1 + coef[0] - coef[1] * ref2
        # the leader's driver becomes affine: q_follower = offset + scale * q_leader
        if ld.type == "normal":
            ld.type = "affine"
            ld.scale, ld.offset = [1.0], [0.0]
        for k, dof in enumerate(list(fd.dofs)):
            s = fd.scale[k] if fd.type == "affine" else 1.0
            o = fd.offset[k] if fd.type == "affine" else 0.0
            ld.dofs.append(dof)
            ld.scale.append(s * scale)
            ld.offset.append(float(o + s * offset))
    robot.drivers = without_driver(robot.drivers, fd)
    # an actuator on the follower's joint drives the coupled joints all the same
    ld.extras["mjcf"]["actuators"].extend(fd.extras["mjcf"]["actuators"])
    for key, val in list(drivers_of.items()):
        if val[1] is fd:
            drivers_of[key] = (robot, ld)
    ld.extras.setdefault("mjcf", {}).setdefault("couplings", []).append(record)
