"""What a GraspIt! robot file says, as the writers assemble it (:class:`RobotOut`), and its
text (:func:`render`). :mod:`._robot_out` fills it from a robot's GraspIt! records,
:mod:`._robot_generic` from any model."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ._text import esc, num, transform_lines
from .robot_data import eigengrasps_xml, virtual_contacts_xml

__all__ = ["RobotOut", "ChainOut", "JointOut", "LinkOut", "DofOut", "DOF_DEFAULTS", "body_of",
           "tail_from_extras", "render"]

#: DOF parameters GraspIt! requires, for DOFs roboio makes up (spec §13)
DOF_DEFAULTS = (("defaultVelocity", "1.0"), ("maxEffort", "5.0e+9"), ("Kp", "1.0e+11"),
                ("Kd", "1.0e+7"), ("draggerScale", "20"))


@dataclass
class JointOut:
    type: str
    theta: str
    d: str
    a: str
    alpha: str
    min: str
    max: str
    extra: list = field(default_factory=list)      # (tag, text)
    name: Optional[str] = None


@dataclass
class LinkOut:
    dyn: str
    file: str                                       # relative to <dir>/iv/
    body: dict                                      # geometry, mass, com, inertia, gx, what
    attrs: list = field(default_factory=list)
    name: Optional[str] = None


@dataclass
class ChainOut:
    transform: object
    joints: list
    links: list
    filters: list = field(default_factory=list)


@dataclass
class DofOut:
    type: str
    fields: list                                    # (tag, text), in file order
    # for <dofValues>: [(model link, scale to the DOF's SI value, prismatic)] in joint order
    joints: list = field(default_factory=list)
    unit: float = 1.0                               # SI per GraspIt! DOF unit
    name: Optional[str] = None                      # roboio's name attribute (driver name)


@dataclass
class RobotOut:
    type: str
    dbname: Optional[str]
    palm_file: str
    palm_body: dict
    palm_attrs: list
    dofs: list
    chains: list
    tail: list = field(default_factory=list)        # lines after the chains
    side_files: list = field(default_factory=list)  # (relative path, text, tag, index in tail)
    mount_link: Optional[int] = None


def body_of(link) -> dict:
    return {"geometry": link.geometry, "mass": link.mass, "com": link.com, "inertia": link.inertia,
            "gx": link.extras.get("graspit", {}), "what": link.name, "index": link.index}


def tail_from_extras(out: RobotOut, robot, rec, gx, report):
    t = out.tail
    ap = gx.get("approach")
    if ap is not None:
        t += ["    <approachDirection>",
              f"        <referenceLocation>{' '.join(num(v) for v in ap.reference_location)}</referenceLocation>",
              f"        <direction>{' '.join(num(v) for v in ap.direction)}</direction>",
              "    </approachDirection>"]
    files = (("eigenGrasps", "eigengrasps", "eigen/eigen.xml", eigengrasps_xml),
             ("virtualContacts", "virtual_contacts", "virtual/contacts.xml",
              lambda vc: virtual_contacts_xml(vc, robot.name)),
             ("cyberGlove", "cyberglove", "cyberglove.txt", lambda text: text))
    for tag, key, default, text_of in files:
        ref = getattr(rec, key) if rec is not None else None
        data = gx.get(key)
        if data is not None:
            ref = ref or default
            out.side_files.append((ref, text_of(data), tag, len(t)))
        elif ref:
            report.warn(f"<{tag}>{ref}</{tag}> kept: the file could not be read when the robot was "
                        "loaded, so it is not written", kind="missing file")
        if ref:
            t.append(f"    <{tag}>{esc(ref)}</{tag}>")
    if rec is not None and rec.flock is not None:
        t.append(f'    <flockOfBirds number="{esc(rec.flock.number)}">')
        t += transform_lines(rec.flock.transform, "        ")
        t.append("    </flockOfBirds>")
    if rec is not None:
        for l1, c1, l2, c2, _ in rec.disable_collisions:
            t.append(f'    <disableCollision body1_link="{l1}" body1_chain="{c1}" body2_link="{l2}" '
                     f'body2_chain="{c2}"/>')
        t += ["    " + x for x in rec.extra_xml]


# -- rendering -----------------------------------------------------------------------------
def _attrs(attrs) -> str:
    return "".join(f' {k}="{esc(v)}"' for k, v in attrs)


def render(out: RobotOut) -> str:
    head = f'<robot type="{esc(out.type)}"' + (f' DBName="{esc(out.dbname)}"' if out.dbname else "") + ">"
    L = ['<?xml version="1.0" ?>', head, f"    <palm{_attrs(out.palm_attrs)}>{esc(out.palm_file)}</palm>"]
    for d in out.dofs:
        L.append(f'    <dof type="{d.type}"' + (f' name="{esc(d.name)}"' if d.name else "") + ">")
        L += [f"        <{t}>{esc(v)}</{t}>" for t, v in d.fields]
        L.append("    </dof>")
    for ch in out.chains:
        L.append("    <chain>")
        if ch.transform is not None and ch.transform.parts:
            L += transform_lines(ch.transform, "        ")
        for j in ch.joints:
            L.append(f'        <joint type="{j.type}"' + (f' name="{esc(j.name)}"' if j.name else "") + ">")
            L += [f"            <theta>{esc(j.theta)}</theta>", f"            <d>{esc(j.d)}</d>",
                  f"            <a>{esc(j.a)}</a>", f"            <alpha>{esc(j.alpha)}</alpha>",
                  f"            <minValue>{esc(j.min)}</minValue>", f"            <maxValue>{esc(j.max)}</maxValue>"]
            L += [f"            <{t}>{esc(v)}</{t}>" for t, v in j.extra]
            L.append("        </joint>")
        for l in ch.links:
            attrs = [("dynamicJointType", l.dyn)] + l.attrs + ([("name", l.name)] if l.name else [])
            L.append(f"        <link{_attrs(attrs)}>{esc(l.file)}</link>")
        L += ["        " + f for f in ch.filters]
        L.append("    </chain>")
    L += out.tail
    L.append("</robot>")
    return "\n".join(L) + "\n"


