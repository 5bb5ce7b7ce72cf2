"""Fixed tendons of a model read from MJCF, kept as data and written back.

A ``<tendon><fixed>`` is a linear combination of joint coordinates, ``length = sum coef_k
qpos_k``, that MuJoCo limits, springs, damps and actuates. roboio's kinematics has no such
element; a reading keeps each one in ``robot.extras["mjcf"]["tendons"]`` of the robot whose
joints it combines: ``{"name", "attributes" (its own and its class's, as text; ``limited``
flags resolved to true/false), "joints": [(joint name, coef)]}``. The MJCF writer writes
them back with the joints' written names (:func:`tendon_element`), and the actuators on
them (kept on the robot) with them. Spatial tendons are not read (a warning says so).
"""
from __future__ import annotations

from lxml import etree

from ..fileio import fmt_float

__all__ = ["read_fixed_tendons", "tendon_element", "kept_tendons"]

# the attributes MuJoCo's <fixed> takes (besides name and class)
_FIXED_TAKES = ("group", "limited", "actuatorfrclimited", "range", "actuatorfrcrange", "solreflimit",
                "solimplimit", "solreffriction", "solimpfriction", "frictionloss", "springlength",
                "stiffness", "damping", "margin", "armature", "user")
_LIMITED = {"limited": "range", "actuatorfrclimited": "actuatorfrcrange"}


def read_fixed_tendons(reader) -> None:
    """Keep every ``<tendon><fixed>`` on the robot whose joints it combines."""
    doc = reader.doc
    for sec in doc.sections.get("tendon", []):
        for n in doc.kids(sec, 2):
            if n.tag != "fixed":
                continue          # (spatial tendons: warned about by _unread)
            a = doc.attrs(n, doc.class_of(n, "main"), "tendon")
            # (a class's tendon defaults may hold what only spatial tendons take: rgba, width)
            attrs = {k: v for k, v in a.values.items() if k in _FIXED_TAKES}
            for flag, rng in _LIMITED.items():
                if flag in attrs or rng in attrs:
                    attrs[flag] = "true" if a.limited(flag, a.floats(rng, None, 2) is not None) else "false"
            joints, robots = [], []
            for c in doc.kids(n, 3):
                if c.tag != "joint":
                    raise doc.error(c, f"unrecognized element '{c.tag}' in fixed tendon")
                name = c.get("joint")
                hit = reader.joint_links.get(name)
                if hit is None:
                    raise doc.error(c, f"unknown joint {name!r} in fixed tendon")
                if c.get("coef") is None:
                    raise doc.error(c, "fixed tendon joint needs a coef")
                coef = doc.floats(c, "coef", 1)[0]
                joints.append((name, coef))
                robots.append(hit[0])
            label = a.text("name") or f"tendon {len(joints)}"
            if not robots or any(r is not robots[0] for r in robots):
                doc.warn(n, f"fixed tendon {label!r} not read (its joints are not of one robot)",
                         kind="dropped")
                continue
            robots[0].extras.setdefault("mjcf", {}).setdefault("tendons", []).append(
                {"name": a.text("name"), "attributes": attrs, "joints": joints})


def kept_tendons(robot) -> list:
    mj = robot.extras.get("mjcf")
    return list(mj.get("tendons") or []) if isinstance(mj, dict) else []


def tendon_element(tendon: dict, joint_names: dict):
    """The ``<fixed>`` element of kept ``tendon`` with its joints as written
    (``joint_names``: source joint name -> written name), or the source joint names that
    have no written joint (then nothing is written)."""
    missing = [j for j, _ in tendon["joints"] if j not in joint_names]
    if missing:
        return missing
    el = etree.Element("fixed")
    if tendon.get("name"):
        el.set("name", tendon["name"])
    for k, v in tendon["attributes"].items():
        el.set(k, v)
    for j, coef in tendon["joints"]:
        etree.SubElement(el, "joint", joint=joint_names[j], coef=fmt_float(float(coef)))
    return el
