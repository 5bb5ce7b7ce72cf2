"""An OpenHRP VRML scene (PROTO instances parsed) -> Choreonoid body records, the way
Choreonoid's ``VRMLBodyLoader`` reads it.

* The one top-level ``Humanoid`` holds one ``Joint`` in ``humanoidBody``: the root link.
  Each ``Joint`` instance is a link named by its ``DEF`` name; its ``translation`` /
  ``rotation`` place it in its parent link's frame (``center``, ``scale`` and
  ``scaleOrientation`` of a Joint are not used by Choreonoid's kinematics: warned when set).
* Child Joints stand in a Joint's ``children``, directly or in Groups; a Joint inside a
  Transform that is not the identity is refused, as Choreonoid refuses it.
* ``Segment`` nodes (directly under the Joint or inside Transforms and Groups) give the
  link's mass properties -- masses summed, centres of mass averaged by mass through the
  Transforms above them, inertias rotated and moved to the link's centre of mass -- and its
  shapes (everything in a Segment, Inline files included, placed in the link frame).
  Shapes outside Segments are ignored, as Choreonoid ignores them (warned).
* ``Surface`` nodes in a Segment split visual from collision shapes; devices
  (``ForceSensor``, ``Gyro``, ``AccelerationSensor``, ``VisionSensor``, ``RangeSensor``,
  ``SpotLightDevice``, ``PressureSensor``) become device records (and sensors of the robot);
  top-level ``ExtraJoint`` nodes are closed loops, kept as data.

Units are the file's: metres, radians, kilograms.
"""
from __future__ import annotations

import math
import os

import numpy as np

from .... import transforms as tf
from ....errors import FormatError
from ...meshes.inventor import transform_matrix
from ..body._parse import combine_rigid_bodies
from ..body._records import BodyRecords, LinkRec
from ._shapes import GROUPS, has_shapes, segment_geometry

__all__ = ["records_from_scene", "JOINT_TYPES", "DEVICE_TYPES"]

# OpenHRP jointType -> Choreonoid body joint type ("crawler": OpenHRP's simple crawler, a
# link that does not move and drives along its axis: Choreonoid's pseudo continuous track)
JOINT_TYPES = {"rotate": "revolute", "slide": "prismatic", "free": "free", "fixed": "fixed",
               "pseudoContinuousTrack": "pseudo_continuous_track",
               "crawler": "pseudo_continuous_track"}
# device PROTO -> the Choreonoid .body device type it becomes
DEVICE_TYPES = {"ForceSensor": "ForceSensor", "Gyro": "RateGyroSensor",
                "AccelerationSensor": "AccelerationSensor", "VisionSensor": "Camera",
                "RangeSensor": "RangeSensor", "SpotLightDevice": "SpotLight",
                "PressureSensor": "PressureSensor"}
_AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
# fields Choreonoid requires of each prototype (name -> allowed field types)
_REQUIRED = {
    "Humanoid": {"humanoidBody": ("MFNode",)},
    "Joint": {"children": ("MFNode",), "rotation": ("SFRotation",), "translation": ("SFVec3f",),
              "jointType": ("SFString",), "jointId": ("SFInt32",),
              "jointAxis": ("SFString", "SFVec3f")},
    "Segment": {"centerOfMass": ("SFVec3f",), "mass": ("SFFloat",),
                "momentsOfInertia": ("MFFloat",)},
    "Surface": {"visual": ("MFNode",), "collision": ("MFNode",)},
    "ExtraJoint": {"link1Name": ("SFString",), "link2Name": ("SFString",),
                   "link1LocalPos": ("SFVec3f",), "link2LocalPos": ("SFVec3f",),
                   "jointType": ("SFString",), "jointAxis": ("SFVec3f",)},
}
_DEVICE_REQUIRED = {"translation": ("SFVec3f",), "rotation": ("SFRotation",)}
# optional fields Choreonoid reads: when declared, they must have these types
_OPTIONAL = {
    "Humanoid": {"info": ("MFString",), "name": ("SFString",), "version": ("SFString",)},
    "Joint": {**{k: ("MFFloat",) for k in ("llimit", "ulimit", "lvlimit", "uvlimit", "climit")},
              **{k: ("SFFloat",) for k in ("gearRatio", "rotorInertia", "rotorResistor",
                                           "torqueConst", "encoderPulse", "jointValue")},
              "center": ("SFVec3f",), "scale": ("SFVec3f",), "name": ("SFString",)},
    "Segment": {"children": ("MFNode",), "name": ("SFString",)},
    "device": {"sensorId": ("SFInt32",), "deviceId": ("SFInt32",), "children": ("MFNode",)},
}
# Joint fields kept as link info when the file sets them (Choreonoid's link info keys)
_JOINT_INFO = ("gearRatio", "rotorInertia", "rotorResistor", "torqueConst", "encoderPulse",
               "climit", "jointValue", "equivalentInertia", "stiffness")
_EXTRA_JOINT_TYPES = ("piston", "ball", "xy", "xyz", "z")   # Choreonoid's, then OpenHRP's


def _plain(v):
    """A parsed field value as plain Python data (numbers, strings, lists)."""
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (np.floating, np.integer)):
        return v.item()
    return v


class _Reader:
    def __init__(self, scene, ctx):
        self.scene, self.ctx = scene, ctx
        self.recs: list = []
        self.names: set = set()
        self.sensors: list = []         # (link name, device record)
        self.segments: list = []        # Segment DEF names in file order
        self.warned: set = set()
        self.checked: set = set()

    # -- messages ----------------------------------------------------------------------------
    def where(self, node, field=None):
        off = node.field_offsets.get(field, node.offset) if field else node.offset
        return node.source.where(off)

    def err(self, node, message, field=None) -> FormatError:
        line, col = self.where(node, field)
        return FormatError(node.source.path, line, col, message)

    def warn(self, node, message, field=None, once=None, **kind):
        if once is not None:
            if once in self.warned:
                return
            self.warned.add(once)
        line, col = self.where(node, field)
        self.ctx.warn(message, line, col, path=node.source.path, **kind)

    # -- fields --------------------------------------------------------------------------------
    def check_proto(self, node, role):
        """Choreonoid's prototype checks: the fields it reads must be declared, typed so."""
        proto = node.proto
        if id(proto) in self.checked:
            return
        need = _DEVICE_REQUIRED if role == "device" else _REQUIRED.get(role, {})
        optional = _OPTIONAL.get(role, {})
        for name, types in (*need.items(), *optional.items()):
            f = proto.fields.get(name)
            if (f is None and name in need) or (f is not None and f.type not in types):
                line, col = node.source.where(proto.offset)
                must = "must have" if name in need else "may only have"
                raise FormatError(node.source.path, line, col,
                                  f"PROTO {proto.name} {must} the field {name!r} of type "
                                  f"{' or '.join(types)}")
        self.checked.add(id(proto))

    def get(self, node, name, default=None):
        v = node.proto.value(node, name)
        return default if v is None else v

    def vec3(self, node, name, default=(0.0, 0.0, 0.0)) -> np.ndarray:
        v = np.asarray(self.get(node, name, default), float).reshape(-1)
        if len(v) != 3 or not np.all(np.isfinite(v)):
            raise self.err(node, f"{name} of {node.type} must be 3 finite numbers", name)
        return v

    def rotation(self, node, name="rotation") -> np.ndarray:
        """SFRotation -> 3x3; the axis is normalised, a zero axis refused (as Choreonoid's
        VRML parser does)."""
        r = np.asarray(self.get(node, name, (0.0, 0.0, 1.0, 0.0)), float).reshape(-1)
        if not np.all(np.isfinite(r)):
            raise self.err(node, f"{name} of {node.type} is not finite", name)
        n = math.sqrt(float(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]))
        if n < 1e-6:
            raise self.err(node, f"{name} of {node.type}: the rotation axis is the zero vector", name)
        return tf.axis_angle_to_matrix(r[:3] / n, float(r[3]))

    def pose(self, node) -> np.ndarray:
        return tf.make_transform(self.rotation(node), self.vec3(node, "translation"))

    def limit(self, node, name, default: float) -> float:
        v = self.get(node, name)
        if v is None or len(v) == 0:
            return default
        x = float(v[0])
        if math.isnan(x):
            raise self.err(node, f"{name} of {node.type} is not a number", name)
        return x

    # -- the humanoid --------------------------------------------------------------------------
    def humanoid(self, node):
        self.check_proto(node, "Humanoid")
        body = self.get(node, "humanoidBody", [])
        if not body:
            raise self.err(node, "the Humanoid node has no Joint node in its humanoidBody field")
        if len(body) > 1:
            raise self.err(node, "the Humanoid node must have exactly one Joint node in its "
                                 "humanoidBody field", "humanoidBody")
        root = body[0]
        if root.proto is None or root.proto.name != "Joint":
            raise self.err(root, f"the humanoidBody of the Humanoid node holds a {root.type} node, "
                                 "not a Joint")
        self.joint(root, None, 1)
        return root

    def joint(self, node, parent, depth):
        self.check_proto(node, "Joint")
        line, _ = self.where(node)
        self.ctx.check_depth(depth, line, what="Joint nodes nested in Joint nodes")
        self.ctx.charge("links", 1, line, what="Joint nodes (links)")
        name = node.name or f"JOINT{len(self.recs)}"
        if not node.name:
            self.warn(node, f"a Joint without a DEF name is named {name!r}", kind="guessed")
        if name in self.names:
            new = name
            while new in self.names:
                new += "_"
            self.warn(node, f"link name {name!r} is used by an earlier Joint (a second DEF or a "
                            f"USE); this one is named {new!r}", kind="changed")
            name = new
        self.names.add(name)
        jt_text = str(self.get(node, "jointType", ""))
        if jt_text not in JOINT_TYPES:
            raise self.err(node, f"JointType {jt_text!r} is not supported (rotate, slide, free, "
                                 "fixed, pseudoContinuousTrack or crawler)", "jointType")
        if jt_text == "crawler":
            self.warn(node, f"Joint {name!r}: jointType crawler (OpenHRP) is read as Choreonoid's "
                            "pseudoContinuousTrack: a weld whose track motion is not modelled",
                      "jointType", kind="quirk")
        rec = LinkRec(name, parent, line, joint_name=node.name, joint_type=JOINT_TYPES[jt_text])
        rec.given.update({"joint_type", "translation", "rotation"})
        T = self.pose(node)
        rec.translation, rec.rotation = T[:3, 3].copy(), T[:3, :3].copy()
        for field, default in (("center", (0, 0, 0)), ("scale", (1, 1, 1))):
            if field in node.fields and not np.allclose(self.vec3(node, field, default), default):
                self.warn(node, f"{field} of a Joint is not used by Choreonoid's kinematics "
                                "(ignored)", field, once="joint-" + field, kind="ignored")
        rec.joint_id = int(self.get(node, "jointId", -1))
        if rec.joint_type in ("revolute", "prismatic", "pseudo_continuous_track"):
            rec.axis = self.axis(node, name)
        inf = math.inf
        if rec.joint_type in ("revolute", "prismatic"):
            rec.qlim = (self.limit(node, "llimit", -inf), self.limit(node, "ulimit", inf))
            rec.vlim = (self.limit(node, "lvlimit", -inf), self.limit(node, "uvlimit", inf))
        for key in _JOINT_INFO:
            if key in node.fields:
                rec.info[key] = _plain(node.fields[key])
        self.recs.append(rec)
        bodies: list = []
        self.sub_nodes(rec, self.get(node, "children", []), {"Joint", "Segment", "device"},
                       np.eye(4), bodies, depth)
        self.mass(rec, bodies)
        if any(kind == "collision" for _, kind in rec.shapes.shapes):
            rec.shapes.shapes = [(g, "visual" if kind == "both" else kind)
                                 for g, kind in rec.shapes.shapes]
        return rec

    def axis(self, node, name) -> np.ndarray:
        ax = self.get(node, "jointAxis", (0.0, 0.0, 1.0))
        if isinstance(ax, str):
            if ax not in _AXES:
                raise self.err(node, f"Joint {name!r}: jointAxis {ax!r} is not X, Y, Z or a vector",
                               "jointAxis")
            return np.array(_AXES[ax])
        v = self.vec3(node, "jointAxis", (0.0, 0.0, 1.0))
        n = float(tf.vector_norm(v))
        if n == 0.0:
            raise self.err(node, f"Joint {name!r}: jointAxis is the zero vector", "jointAxis")
        if abs(n - 1.0) > 1e-9:
            self.warn(node, f"Joint {name!r}: jointAxis has length {n:g}, not 1 (kept as given)",
                      "jointAxis", kind="quirk")
        return v

    def mass(self, rec, bodies):
        """Choreonoid's sum over the link's Segments (VRMLBodyLoader::readSegmentNode)."""
        m = sum(b[0] for b in bodies)
        if m > 0:
            rec.mass, rec.com, rec.inertia = combine_rigid_bodies(bodies)
        else:
            rec.mass, rec.com = 0.0, np.zeros(3)
            rec.inertia = sum((b[2] for b in bodies), np.zeros((3, 3)))
        rec.given.add("mass")

    # -- what a Joint or Segment holds --------------------------------------------------------
    def sub_nodes(self, rec, nodes, accept, T, bodies, depth):
        for child in nodes:
            if child is None or child.skipped:
                continue
            if child.proto is None:
                if child.type == "Transform":
                    g = child.get
                    local = transform_matrix(g("translation"), g("rotation"), g("scale"),
                                       g("scaleOrientation"), g("center"))
                    self.nested(rec, child, accept, tf.compose(T, local), bodies, depth)
                elif child.type in GROUPS:
                    self.nested(rec, child, accept, T, bodies, depth)
                elif "Segment" not in accept:
                    pass                      # inside a Segment: its shapes are the Segment's
                else:
                    self.warn(child, f"{child.type} node outside any Segment: ignored, as "
                                     "Choreonoid ignores it", once="outside:" + child.type, kind="ignored")
                continue
            role = _role(child.proto.name)
            if role is None:
                self.warn(child, f"instance of PROTO {child.proto.name}: prototypes other than "
                                 "OpenHRP's are not expanded; its contents are ignored",
                          once="proto:" + child.proto.name, kind="unsupported")
                continue
            if role not in accept:
                raise self.err(child, f"{child.proto.name} node is not in a correct place")
            if role == "Joint":
                if not np.allclose(T, np.eye(4), rtol=0.0, atol=1e-12):
                    raise self.err(child, f"Joint node {child.name or ''!r} is not in a correct "
                                          "place (inside a Transform that is not the identity)")
                self.joint(child, rec.name, depth + 1)
            elif role == "Segment":
                self.segment(rec, child, T, bodies, depth)
            elif role == "Surface":
                self.surface(rec, child, T)
            else:
                self.device(rec, child, T)

    def nested(self, rec, node, accept, T, bodies, depth):
        line, _ = self.where(node)
        self.ctx.check_depth(depth + 1, line, what="grouping nodes in a Joint")
        self.ctx.charge("nodes", 1, line, what="VRML nodes")
        self.sub_nodes(rec, node.get("children", []), accept, T, bodies, depth + 1)

    def segment(self, rec, node, T, bodies, depth):
        self.check_proto(node, "Segment")
        m = float(self.get(node, "mass", 0.0))
        c = self.vec3(node, "centerOfMass")
        inertia = np.asarray(self.get(node, "momentsOfInertia", np.zeros(9)), float).reshape(-1)
        if len(inertia) < 9:
            inertia = np.zeros(9)       # Choreonoid keeps a zero matrix for fewer than 9 values
            self.warn(node, "momentsOfInertia has fewer than 9 numbers; a zero inertia is used",
                      "momentsOfInertia", kind="invalid value")
        if not (math.isfinite(m) and np.all(np.isfinite(inertia[:9]))):
            raise self.err(node, "mass or momentsOfInertia of a Segment is not finite")
        R = T[:3, :3]
        bodies.append((m, tf.matrix_vector(R, c) + T[:3, 3], tf.rotate_tensor(R, inertia[:9].reshape(3, 3))))
        if node.name:
            self.segments.append(node.name)
        children = self.get(node, "children", [])
        self.sub_nodes(rec, children, {"Surface", "device"}, T, [], depth)
        self.shapes(rec, children, T, "both", node)

    def surface(self, rec, node, T):
        self.check_proto(node, "Surface")
        self.shapes(rec, self.get(node, "visual", []), T, "visual", node)
        self.shapes(rec, self.get(node, "collision", []), T, "collision", node)
        rec.shapes.has_visual_or_collision = True

    def shapes(self, rec, nodes, T, kind, owner):
        """The shapes among ``nodes`` (Inline files included) as link geometry."""
        for g in segment_geometry(nodes, T, self.ctx, owner.name):
            rec.shapes.shapes.append((g, kind))

    def device(self, rec, node, T):
        self.check_proto(node, "device")
        typ = node.proto.name
        local = tf.compose(T, self.pose(node))
        ident = self.get(node, "deviceId", self.get(node, "sensorId", -1))
        d = {"type": DEVICE_TYPES[typ], "transform": local, "name": node.name or typ,
             "id": int(ident)}
        for key, f in node.proto.fields.items():
            value = self.get(node, key)
            if f.kind in ("field", "exposedField") and f.type not in ("MFNode", "SFNode") \
                    and value is not None and key not in ("translation", "rotation", "sensorId",
                                                          "deviceId"):
                d[key] = _plain(value)
        if typ == "PressureSensor":
            self.warn(node, "PressureSensor is not a device Choreonoid supports; kept as a "
                            "device record", once="pressure", kind="ignored")
        rec.shapes.devices.append(d)
        self.sensors.append((rec.name, typ, d))
        kids = [n for n in self.get(node, "children", []) or [] if n.proto is None]
        if kids:
            self.shapes(rec, kids, local, "both", node)

    # -- closed loops --------------------------------------------------------------------------
    def extra_joint(self, node) -> dict:
        self.check_proto(node, "ExtraJoint")
        jt = str(self.get(node, "jointType", ""))
        if jt not in _EXTRA_JOINT_TYPES:
            raise self.err(node, f"ExtraJoint jointType {jt!r} is not supported "
                                 f"({', '.join(_EXTRA_JOINT_TYPES)})", "jointType")
        out = {"name": node.name or "", "jointType": jt}
        for k in ("link1Name", "link2Name"):
            v = str(self.get(node, k, ""))
            if v not in self.names:
                raise self.err(node, f"field {k} of an ExtraJoint node does not name a link "
                                     f"({v!r})", k)
            out[k] = v
        for k in ("link1LocalPos", "link2LocalPos", "jointAxis"):
            out[k] = self.vec3(node, k).tolist()
        return out


def _role(proto_name: str):
    if proto_name in DEVICE_TYPES:
        return "device"
    if proto_name in ("Joint", "Segment", "Surface", "Humanoid", "ExtraJoint"):
        return proto_name
    return None


def records_from_scene(scene, ctx):
    """(BodyRecords, extras) of a parsed OpenHRP scene: the records Choreonoid's body
    builder takes, and what only this format says (``humanoid`` fields, ``joints`` /
    ``segments`` lists, ``sensors`` as (link name, PROTO name, device record))."""
    r = _Reader(scene, ctx)
    path = scene.source.path
    humanoid, extra_nodes, others = None, [], []
    for node in scene.roots:
        name = node.proto.name if node.proto is not None else None
        if name == "Humanoid":
            if humanoid is not None:
                raise r.err(node, "more than one Humanoid node is defined")
            humanoid = node
        elif name == "ExtraJoint":
            extra_nodes.append(node)
        else:
            others.append(node)
    stem = os.path.splitext(os.path.basename(path or "robot.wrl"))[0]
    if humanoid is None:
        return _root_only(r, others, stem, path), {"humanoid": None}
    r.humanoid(humanoid)
    for node in others:
        r.warn(node, f"top-level {node.type} node beside the Humanoid: ignored, as Choreonoid "
                     "ignores it", once="top:" + node.type, kind="ignored")
    extra = [r.extra_joint(n) for n in extra_nodes]
    name = humanoid.name or stem
    info_text = r.get(humanoid, "info", [])
    extras = {
        "humanoid": {"def": humanoid.name, "name": str(r.get(humanoid, "name", "")),
                     "version": str(r.get(humanoid, "version", "")),
                     "info": [str(s) for s in info_text] if isinstance(info_text, list) else [str(info_text)]},
        "joints": [n.name for n in r.get(humanoid, "joints", []) or [] if n.name],
        "segments": [n.name for n in r.get(humanoid, "segments", []) or [] if n.name],
        "sensors": r.sensors,
    }
    records = BodyRecords(name, r.recs, r.recs[0].name, 2.0, False, {}, extra, path)
    return records, extras


def _root_only(r, nodes, stem, path):
    """A file without a Humanoid: Choreonoid makes its other nodes the shapes of one link
    named ``Root``; none at all is an error."""
    if not has_shapes(nodes, r.ctx.limits.max_depth):
        raise FormatError(path, None, None, "no Humanoid node, and no other VRML node that can "
                                            "be loaded as a body")
    rec = LinkRec("Root", None, None, joint_type="fixed", mass=0.0, inertia=np.zeros((3, 3)))
    rec.given.update({"joint_type", "mass"})
    r.names.add("Root")
    r.recs.append(rec)
    r.shapes(rec, nodes, np.eye(4), "both", nodes[0])
    return BodyRecords(stem, [rec], "Root", 2.0, False, {}, [], path)
