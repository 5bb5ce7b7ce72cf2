"""GraspIt! XML -> records (units as written), with GraspIt!'s lookup rules: element names
are case-sensitive, children are found by exact name among the direct children (first
match wins), unknown elements are ignored. Where GraspIt! fails a load, roboio raises a
located :class:`~roboio.errors.FormatError`; where GraspIt! silently reads garbage as 0,
roboio warns (an error in strict mode).
"""
from __future__ import annotations

import math
from typing import Optional

from lxml import etree

from ...context import LoadContext
from .. import xmlutil
from ._records import (ApproachRec, BodyRec, CameraRec, ChainRec, ConnectionRec, DofRec, FlockRec,
                       JointRec, LinkRec, Number, RobotRec, TransformPart, TransformRec, WorldItem,
                       WorldRec)
from ._scan import DofExprError, c_strtod_prefix, number, qt_double, scan_dof_expr
from ._transform import quat_wxyz_to_matrix, rotation_from_columns

__all__ = ["parse_xml", "parse_transform", "parse_body", "parse_robot", "parse_world",
           "first", "text_of", "WORLD_ELEMENTS", "MATERIALS", "ROBOT_TYPES"]

MATERIALS = ("frictionless", "glass", "metal", "plastic", "wood", "rubber", "stone")
ROBOT_TYPES = ("Robot", "Hand", "Barrett", "Puma560", "Robonaut", "HumanHand", "Shadow", "McGrip",
               "RobotIQ", "Pr2Gripper", "Pr2Gripper2010", "M7", "M7Tool")
WORLD_ELEMENTS = ("obstacle", "graspableBody", "robot", "connection", "camera")
_DOF_TYPES = ("r", "b", "c")
_DYN_TYPES = ("Revolute", "Prismatic", "Universal", "Ball", "Fixed")


def parse_xml(data: bytes, path: str, ctx: LoadContext):
    """Root element of a GraspIt! XML file. TinyXML accepts what lxml calls malformed in
    places (``--`` inside comments): recover with a warning, as the other XML readers do."""
    return xmlutil.parse_bytes(data, path, ctx, recover=True)     # elements charged there


def first(el, name: str):
    """First direct child named exactly ``name`` (None if absent)."""
    for c in el:
        if isinstance(c.tag, str) and c.tag == name:
            return c
    return None


def all_named(el, name: str) -> list:
    return [c for c in el if isinstance(c.tag, str) and c.tag == name]


def text_of(el) -> Optional[str]:
    """``TiXmlElement::GetText``: the element's leading text (None when it has none)."""
    return None if el is None else el.text


def _where(el):
    return xmlutil.where(el)


class _Reader:
    """Shared helpers bound to one file and context."""

    def __init__(self, path: str, ctx: LoadContext):
        self.path = path
        self.ctx = ctx

    def error(self, msg, el=None, line=None):
        return self.ctx.error(msg, line if line is not None else (_where(el) if el is not None else None),
                              path=self.path)

    def warn(self, msg, el=None, line=None, **kind):
        self.ctx.warn(msg, line if line is not None else (_where(el) if el is not None else None),
                      path=self.path, **kind)

    def scalar(self, el, what: str) -> Number:
        """A ``getDouble`` field: unparsable text reads as 0 (GraspIt!) with a warning."""
        n = number(text_of(el))
        if not n.ok:
            self.warn(f"<{what}> {n.text!r} is not a number; GraspIt! reads it as 0", el, kind="invalid value")
        return n

    def opt_scalar(self, parent, name: str) -> Optional[Number]:
        el = first(parent, name)
        return None if el is None else self.scalar(el, name)

    def req_scalar(self, parent, name: str, context: str) -> Number:
        el = first(parent, name)
        if el is None:
            raise self.error(f"{context}: missing <{name}> (GraspIt! refuses the file)", parent)
        return self.scalar(el, name)

    def vector(self, el, count: int, what: str, strict_numbers: bool) -> tuple:
        """Exactly ``count`` numbers, split on whitespace (GraspIt!'s count check fails the
        load). ``strict_numbers``: an unparsable number fails too (transforms); otherwise
        it reads as 0 with a warning (GraspIt! does not check)."""
        tokens = (text_of(el) or "").split()
        if len(tokens) != count:
            raise self.error(f"<{what}>: expected {count} numbers, got {len(tokens)}", el)
        out = []
        for t in tokens:
            v, ok = qt_double(t)
            if not ok:
                if strict_numbers:
                    raise self.error(f"<{what}>: {t!r} is not a number", el)
                self.warn(f"<{what}>: {t!r} is not a number; GraspIt! reads it as 0", el, kind="invalid value")
            out.append(Number(t, v, ok))
        return tuple(out)


# -- <transform> --------------------------------------------------------------------------
def _full_transform(r: _Reader, el) -> tuple:
    """``(w x y z)[x y z]`` read the way Qt's text stream reads it: a character, four
    numbers, a character, a character, three numbers (whitespace skipped before each)."""
    s = text_of(el) or ""
    pos = 0
    vals = []

    def skip_ws():
        nonlocal pos
        while pos < len(s) and s[pos].isspace():
            pos += 1

    def char():
        nonlocal pos
        skip_ws()
        if pos >= len(s):
            raise r.error("<fullTransform>: expected '(w x y z)[x y z]', the text ends early", el)
        pos += 1
        return s[pos - 1]

    def num():
        nonlocal pos
        skip_ws()
        v, n = c_strtod_prefix(s[pos:])
        if n == 0:
            raise r.error(f"<fullTransform>: expected a number at {s[pos:pos + 12]!r} "
                          "(format '(w x y z)[x y z]')", el)
        pos += n
        vals.append(v)

    c1 = char()
    for _ in range(4):
        num()
    c2 = char()
    c3 = char()
    for _ in range(3):
        num()
    c4 = char()
    if (c1, c2, c3, c4) != ("(", ")", "[", "]"):
        r.warn(f"<fullTransform>: unusual brackets {c1}{c2}{c3}{c4!r}; read as '(w x y z)[x y z]'", el, kind="guessed")
    if not any(vals[:4]):
        raise r.error("<fullTransform>: the quaternion is zero", el)
    if not all(math.isfinite(v) for v in vals) or not math.isfinite(math.hypot(*vals[:4])):
        raise r.error("<fullTransform>: a number out of range (its length overflows a double)", el)
    try:
        quat_wxyz_to_matrix(vals[:4])       # its squared length must be finite too
    except ValueError as e:
        raise r.error(f"<fullTransform>: {e} (the squares of its numbers overflow a double)", el) from None
    return tuple(vals)


def parse_transform(el, path: str, ctx: LoadContext, r: Optional[_Reader] = None) -> TransformRec:
    r = r or _Reader(path, ctx)
    rec = TransformRec([], _where(el))
    for c in el:
        if not isinstance(c.tag, str):
            continue
        name = c.tag.strip()
        line = _where(c)
        if name == "translation":
            v = r.vector(c, 3, "translation", True)
            rec.parts.append(TransformPart("translation", tuple(x.value for x in v), line=line))
        elif name == "rotation":
            tokens = (text_of(c) or "").split()
            if len(tokens) != 2:
                raise r.error(f"<rotation>: expected 'angle axis' (e.g. '90 x'), got {len(tokens)} "
                              "tokens", c)
            angle, ok = qt_double(tokens[0])
            if not ok:
                raise r.error(f"<rotation>: {tokens[0]!r} is not a number", c)
            if not math.isfinite(angle):
                raise r.error(f"<rotation>: angle {tokens[0]!r} is not a finite number of degrees", c)
            if tokens[1] not in ("x", "y", "z"):
                raise r.error(f"<rotation>: axis {tokens[1]!r} must be x, y or z (lower case)", c)
            rec.parts.append(TransformPart("rotation", (angle,), axis=tokens[1], line=line))
        elif name == "rotationMatrix":
            v = tuple(x.value for x in r.vector(c, 9, "rotationMatrix", True))
            try:
                _, change = rotation_from_columns(v)
            except ValueError as e:      # zero or non-finite numbers: GraspIt! would get NaNs
                raise r.error(f"<rotationMatrix>: {e}; these numbers give no rotation", c) from None
            if change > 1e-5:
                r.warn(f"<rotationMatrix> is not a rotation matrix; GraspIt! turns it into a "
                       f"normalised quaternion, which moves its entries by up to {change:.2g} "
                       "(roboio does the same)", c, kind="changed")
            rec.parts.append(TransformPart("rotationMatrix", v, line=line))
        elif name == "fullTransform":
            rec.parts.append(TransformPart("fullTransform", _full_transform(r, c), line=line))
        else:
            r.warn(f"<transform> child <{name}> is not a transform; GraspIt! ignores it", c, kind="ignored")
            rec.parts.append(TransformPart("other", (), name=name, line=line))
    return rec


# -- bodies --------------------------------------------------------------------------------
def parse_body(root, path: Optional[str], ctx: LoadContext, where_path: Optional[str] = None) -> BodyRec:
    """A body description: a body file's root, or a world's inline ``<body>``."""
    r = _Reader(where_path or path, ctx)
    rec = BodyRec(path=path, line=_where(root))
    el = first(root, "material")
    if el is not None:
        rec.material = text_of(el)
        rec.material_line = _where(el)
        if rec.material and rec.material not in MATERIALS:
            raise r.error(f"unknown <material> {rec.material!r} (GraspIt! knows: "
                          f"{', '.join(MATERIALS)})", el)
    for name, attr in (("youngs", "youngs"), ("normalCompliance", "normal_compliance"),
                       ("shearCompliance", "shear_compliance"), ("useFlockOfBirds", "flock_of_birds")):
        setattr(rec, attr, r.opt_scalar(root, name))
    if rec.youngs is not None and not rec.youngs.value > 0:
        raise r.error(f"<youngs> must be > 0 (MPa), got {rec.youngs.text!r}", first(root, "youngs"))
    if rec.normal_compliance is not None and not rec.normal_compliance.value > 0:
        raise r.error("<normalCompliance> must be > 0", first(root, "normalCompliance"))
    if rec.shear_compliance is not None and rec.normal_compliance is None:
        # GraspIt! tests the normal compliance here (a typo), which is then 0: the pair check fails
        raise r.error("<shearCompliance> without <normalCompliance>: set both or neither",
                      first(root, "shearCompliance"))
    if (rec.normal_compliance is None) != (rec.shear_compliance is None) or (
            rec.shear_compliance is not None and not rec.shear_compliance.value > 0):
        raise r.error("invalid compliance: set both <normalCompliance> and <shearCompliance> "
                      "(> 0), or neither", root)
    el = first(root, "geometryFile")
    if el is None:
        raise r.error("body without <geometryFile> (GraspIt! refuses it)", root)
    rec.geometry_file = (text_of(el) or "").strip()
    rec.geometry_type = el.get("type")
    rec.geometry_line = _where(el)
    gtype = rec.geometry_type or "Inventor"
    if gtype not in ("Inventor", "off", "ply"):
        raise r.error(f"<geometryFile type={rec.geometry_type!r}>: unknown type (GraspIt! reads "
                      "'Inventor', 'off' and 'ply', case-sensitive)", el)
    if not rec.geometry_file:
        raise r.error("<geometryFile> names no file", el)
    el = first(root, "geometryScaling")
    if el is not None:
        rec.scaling = r.scalar(el, "geometryScaling")
        scales = (rec.scaling,)
    else:
        rec.scaling_xyz = tuple(r.opt_scalar(root, f"geometryScaling{a}") for a in "XYZ")
        scales = tuple(s for s in rec.scaling_xyz if s is not None)
    for s in scales:
        if not s.value > 0:
            raise r.error(f"geometry scale {s.text!r} must be > 0", root)
    el = first(root, "geometryOffset")
    if el is not None:
        tr = first(el, "transform")
        if tr is None:
            raise r.error("<geometryOffset> without <transform>", el)
        rec.offset = parse_transform(tr, where_path or path, ctx, r)
    el = first(root, "mass")
    if el is not None:
        rec.mass = r.scalar(el, "mass")
        rec.mass_line = _where(el)
    el = first(root, "cog")
    if el is not None:
        rec.cog = r.vector(el, 3, "cog", False)
    el = first(root, "inertia_matrix")
    if el is not None:
        rec.inertia = r.vector(el, 9, "inertia_matrix", False)
    return rec


# -- robots --------------------------------------------------------------------------------
def _kind(r: _Reader, el, attr: str, allowed: tuple, strip: bool) -> str:
    """The attribute naming an element's kind; GraspIt! fails without it or for another name
    (case-sensitive; some attributes are whitespace-stripped first)."""
    t = el.get(attr)
    if t is None:
        raise r.error(f"<{el.tag}> without {attr} (expected {', '.join(allowed)})", el)
    t = t.strip() if strip else t
    if t not in allowed:
        raise r.error(f"<{el.tag} {attr}={t!r}>: unknown {attr} (GraspIt! knows {', '.join(allowed)}, "
                      "case-sensitive)", el)
    return t


def _dof(r: _Reader, el) -> DofRec:
    t = _kind(r, el, "type", _DOF_TYPES, True)
    ctx_name = f"<dof type=\"{t}\">"
    rec = DofRec(t, *(r.req_scalar(el, n, ctx_name) for n in
                      ("defaultVelocity", "maxEffort", "Kp", "Kd", "draggerScale")), line=_where(el))
    # GraspIt! reads defaultVelocity first, then defaultValue, then the rest: a missing field
    # fails the DOF either way
    rec.default_value = r.opt_scalar(el, "defaultValue")
    rec.name = el.get("name")
    if t == "b":
        rec.breakaway_torque = r.opt_scalar(el, "breakAwayTorque")
        if rec.breakaway_torque is None or rec.breakaway_torque.value < 0:
            r.warn("breakaway DOF without a valid <breakAwayTorque>: GraspIt! uses 0", el, kind="invalid value")
    return rec


def _joint(r: _Reader, el) -> JointRec:
    t = _kind(r, el, "type", ("Revolute", "Prismatic"), False)
    what = f"<joint type=\"{t}\">"
    slot = "theta" if t == "Revolute" else "d"
    sel = first(el, slot)
    if sel is None:
        raise r.error(f"{what}: missing <{slot}> (its DOF expression)", el)
    try:
        expr = scan_dof_expr(text_of(sel))
    except DofExprError as e:
        raise r.error(f"<{slot}>: {e}", sel) from None
    if expr.ignored:
        r.warn(f"<{slot}>{expr.text}</{slot}>: GraspIt! ignores {expr.ignored!r} and reads "
               f"d{expr.dof}" + (f"*{expr.ratio_text}" if expr.ratio_text else "")
               + (f"+{expr.offset_text}" if expr.offset_text else "")
               + (" (a negative offset must be written '+-x')" if expr.ignored.startswith("-") else ""),
               sel, kind="quirk")
    if expr.text[:1] != "d":
        r.warn(f"<{slot}>{expr.text}</{slot}>: GraspIt! skips the first character "
               f"{expr.text[:1]!r} whatever it is (normally 'd')", sel, kind="quirk")
    other = "d" if t == "Revolute" else "theta"
    fixed = r.req_scalar(el, other, what)
    a = r.req_scalar(el, "a", what)
    alpha = r.req_scalar(el, "alpha", what)
    for name, num in ((other, fixed), ("a", a), ("alpha", alpha)):
        if not math.isfinite(num.value):     # (the DH frame would be NaN)
            raise r.error(f"{what}: <{name}>{num.text}</{name}> is out of range", first(el, name))
    lo = r.req_scalar(el, "minValue", what)
    hi = r.req_scalar(el, "maxValue", what)
    rec = JointRec(t, expr if t == "Revolute" else fixed, fixed if t == "Revolute" else expr,
                   a, alpha, lo, hi, line=_where(el), name=el.get("name"))
    rec.viscous_friction = r.opt_scalar(el, "viscousFriction")
    rec.coulomb_friction = r.opt_scalar(el, "CoulombFriction")
    rec.spring_stiffness = r.opt_scalar(el, "springStiffness")
    rec.rest_value = r.opt_scalar(el, "restValue")
    if t == "Revolute" and rec.spring_stiffness is not None and rec.spring_stiffness.value < 0:
        raise r.error("negative <springStiffness> (GraspIt! refuses it)", el)
    return rec


def _link(r: _Reader, el) -> LinkRec:
    t = _kind(r, el, "dynamicJointType", _DYN_TYPES, True)
    rec = LinkRec((text_of(el) or "").strip(), t, _where(el))
    rule = el.get("collisionRule")
    if rule is not None:
        rule = rule.strip()
        if rule not in ("Off", "OverlappingPair"):
            raise r.error(f"<link collisionRule={rule!r}>: expected Off or OverlappingPair", el)
        rec.collision_rule = rule
        rec.target_chain = el.get("targetChain")
        rec.target_link = el.get("targetLink")
    rec.sensor_type = el.get("sensorType")
    rec.name = el.get("name")
    if not rec.file:
        raise r.error("<link> names no body file", el)
    return rec


def _chain(r: _Reader, el, path, ctx) -> ChainRec:
    joints = [_joint(r, j) for j in all_named(el, "joint")]
    links = [_link(r, l) for l in all_named(el, "link")]
    if not joints:
        raise r.error("<chain> without <joint> (GraspIt! needs at least one)", el)
    if not links:
        raise r.error("<chain> without <link> (GraspIt! needs at least one)", el)
    tr = first(el, "transform")
    rec = ChainRec(parse_transform(tr, path, ctx, r) if tr is not None else None, joints, links,
                   line=_where(el))
    rec.filters = [etree.tostring(f, encoding="unicode", with_tail=False) for f in all_named(el, "filter")]
    consumed = 0
    for link in links:
        if link.dynamic_joint_type == "Fixed":
            raise r.error("<link dynamicJointType=\"Fixed\">: GraspIt! refuses robots with Fixed "
                          "links (\"FIXED dynamic joints not yet fully supported\"), so does roboio",
                          line=link.line)
        consumed += link.joints_consumed
        if consumed > len(joints):
            raise r.error(f"<chain>: its links consume {consumed} joints but the chain has only "
                          f"{len(joints)} (<link dynamicJointType=\"{link.dynamic_joint_type}\"> "
                          "takes " + str(link.joints_consumed) + ")", line=link.line)
    if consumed < len(joints):
        r.warn(f"<chain>: the last {len(joints) - consumed} of its {len(joints)} joints carry no "
               "link (they still move with their DOFs)", el, kind="quirk")
    return rec


def _approach(r: _Reader, el) -> ApproachRec:
    out = []
    for name in ("referenceLocation", "direction"):
        c = first(el, name)
        if c is None:
            raise r.error(f"<approachDirection> without <{name}>", el)
        tokens = (text_of(c) or "").split()
        if len(tokens) != 3:
            raise r.error(f"<{name}>: expected 3 numbers, got {len(tokens)}", c)
        vals = []
        for t in tokens:
            v, ok = qt_double(t)
            if not ok:
                raise r.error(f"<{name}>: {t!r} is not a number", c)
            vals.append(v)
        out.append(tuple(vals))
    return ApproachRec(out[0], out[1], _where(el))


def parse_robot(root, path: str, ctx: LoadContext) -> RobotRec:
    r = _Reader(path, ctx)
    t = root.get("type")
    if t is None:
        raise r.error("<robot> without type (GraspIt!'s robot class, e.g. type=\"Hand\")", root)
    if t not in ROBOT_TYPES:
        raise r.error(f"<robot type={t!r}>: unknown robot class (GraspIt! knows "
                      f"{', '.join(ROBOT_TYPES)})", root)
    palm = first(root, "palm")
    if palm is None:
        raise r.error("robot without <palm>", root)
    dofs = [_dof(r, d) for d in all_named(root, "dof")]
    if not dofs:
        raise r.error("robot without <dof> (GraspIt! needs at least one)", root)
    chain_els = all_named(root, "chain")
    if not chain_els:
        raise r.error("robot without <chain> (GraspIt! needs at least one)", root)
    chains = [_chain(r, c, path, ctx) for c in chain_els]
    rec = RobotRec(path, t, root.get("DBName"), (text_of(palm) or "").strip(), _where(palm),
                   palm.get("sensorType"), dofs, chains)
    if not rec.palm:
        raise r.error("<palm> names no body file", palm)
    rec.palm_name = palm.get("name")
    n = len(dofs)
    for chain in chains:
        for j in chain.joints:
            if j.expr.dof >= n:
                raise r.error(f"DOF expression {j.expr.text!r} names DOF {j.expr.dof}, but the "
                              f"robot has {n} DOF{'s' if n != 1 else ''} (d0..d{n - 1})", line=j.line)
    el = first(root, "approachDirection")
    if el is not None:
        rec.approach = _approach(r, el)
    for name, attr in (("eigenGrasps", "eigengrasps"), ("virtualContacts", "virtual_contacts"),
                       ("cyberGlove", "cyberglove")):
        el = first(root, name)
        if el is not None:
            setattr(rec, attr, (text_of(el) or "").strip())
    el = first(root, "flockOfBirds")
    if el is not None:
        num = el.get("number")
        if num is None:
            raise r.error("<flockOfBirds> without number", el)
        tr = first(el, "transform")
        if tr is None:
            raise r.error("<flockOfBirds> without <transform>", el)
        rec.flock = FlockRec(num.strip(), parse_transform(tr, path, ctx, r), _where(el))
    for el in all_named(root, "disableCollision"):
        vals = []
        for a in ("body1_link", "body1_chain", "body2_link", "body2_chain"):
            v = el.get(a)
            try:
                vals.append(int(v.strip()))
            except (AttributeError, ValueError):
                vals = None
                break
        if vals is None:
            r.warn("<disableCollision> needs integer body1_link, body1_chain, body2_link, "
                   "body2_chain; GraspIt! skips it", el, kind="invalid value")
            continue
        rec.disable_collisions.append(tuple(vals) + (_where(el),))
    for name in ("filter", "tendon", "tendonWrapper"):
        for el in all_named(root, name):
            rec.extra_xml.append(etree.tostring(el, encoding="unicode", with_tail=False))
    return rec


# -- worlds --------------------------------------------------------------------------------
def _int(r: _Reader, parent, name: str) -> int:
    el = first(parent, name)
    if el is None:
        raise r.error(f"<connection> without <{name}>", parent)
    t = (text_of(el) or "").strip()
    try:
        return int(t)
    except ValueError:
        raise r.error(f"<{name}> {t!r} is not an integer", el) from None


def parse_world(root, path: str, ctx: LoadContext) -> WorldRec:
    r = _Reader(path, ctx)
    rec = WorldRec(path, [])
    last_transform = None
    for el in root:
        if not isinstance(el.tag, str):
            continue
        kind = el.tag
        line = _where(el)
        if kind in ("obstacle", "graspableBody", "robot"):
            item = WorldItem(kind, line=line)
            fn = first(el, "filename")
            if fn is not None:
                item.filename = (text_of(fn) or "").strip()
                if first(el, "body") is not None and kind != "robot":
                    r.warn(f"<{kind}> has both <filename> and <body>: GraspIt! loads the file", el, kind="ignored")
            elif kind == "robot":
                raise r.error("<robot> without <filename>", el)
            else:
                body = first(el, "body")
                if body is None:
                    raise r.error(f"<{kind}> with neither <filename> nor <body>", el)
                item.body = parse_body(body, None, ctx, where_path=path)
            if kind == "robot":
                dv = first(el, "dofValues")
                if dv is not None:
                    item.dof_values = text_of(dv) or ""
            tr = first(el, "transform")
            if tr is not None:
                item.transform = parse_transform(tr, path, ctx, r)
                last_transform = item.transform
            rec.items.append(item)
        elif kind == "connection":
            con = ConnectionRec(_int(r, el, "parentRobot"), _int(r, el, "parentChain"),
                                _int(r, el, "childRobot"), None, line=line)
            tr = first(el, "transform")
            if tr is not None:
                con.transform = parse_transform(tr, path, ctx, r)
                last_transform = con.transform
            else:
                con.transform = last_transform
                con.stale_transform = True
                r.warn("<connection> without <transform>: GraspIt! reuses the transform read "
                       "last in the file" + ("" if last_transform is not None else " (none: identity)"), el, kind="quirk")
            mf = first(el, "mountFilename")
            if mf is not None and (text_of(mf) or "").strip():
                con.mount_filename = text_of(mf).strip()
            rec.items.append(con)
        elif kind == "camera":
            vals = []
            for name, n in (("position", 3), ("orientation", 4)):
                c = first(el, name)
                if c is None:
                    raise r.error(f"<camera> without <{name}>", el)
                vals.append(tuple(x.value for x in r.vector(c, n, name, True)))
            fd = first(el, "focalDistance")
            if fd is None:
                raise r.error("<camera> without <focalDistance>", el)
            rec.items.append(CameraRec(vals[0], vals[1], r.scalar(fd, "focalDistance"), line))
        else:
            raise r.error(f"<{kind}> is not a GraspIt! world element (expected one of "
                          f"{', '.join(WORLD_ELEMENTS)}); GraspIt! refuses the world", el)
    return rec
