"""OpenRAVE's COLLADA reader, step by step (``colladareader.cpp``; spec ``collada.md`` §6-§12).

:class:`ColladaReader` reads one document into a :class:`~._body.CBody` — a new one, or one
that an OpenRAVE XML file is building (``<Robot file="x.zae">`` appends to it; links are
matched by name). The order of every step follows OpenRAVE, because it decides names, link
order, joint order, which binding wins and what a later element overrides:

1. bindings of the kinematics scene: ``bind_kinematics_model`` (visual node of a model's
   root link), ``bind_joint_axis`` (visual node of a joint's child link, stored value),
   then kinematics/motion ``axis_info``s attached to those axis bindings, and the physics
   scene's rigid bodies;
2. the first ``instance_articulated_system`` that extracts (recursing through ``<motion>``
   into ``<kinematics>``), else the first ``instance_kinematics_model``;
3. per kinematics model: links depth first from the first top-level ``<link>`` (placed by
   the node transforms above its bound visual node), one joint per ``attachment_full`` in
   document order, then the ``<formula>``s (mimic joints), collision and link/joint info;
4. per articulated system (inner first): manipulators, attached sensors, gripper infos,
   actuators (``attach_actuator`` order moves those joints to the front of the DOF order),
   collision and visibility extras, other extras kept verbatim.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ...xmlutil import where
from ....transforms import compose, inverse_affine, matrix_vector, vector_dot
from .._mimic import search_and_replace
from . import _mathml
from ._body import CBody, CJoint, CLink, CManipulator, CMimic, CSensor
from ._dom import child, kids, ln, text
from ._geometry import extract_geometry, is_identity, material_map, scale_primitive

__all__ = ["ColladaReader", "ReadOptions"]

DEG = math.pi / 180.0
_BACK_COMPAT_TOOLS = ("OpenRAVE Collada Writer", "URDF Collada Writer")
_AXIS_TYPES = ("revolute", "prismatic")


def _openrave_name(doc, name: str, counter: list, el=None) -> str:
    """OpenRAVE's ConvertToOpenRAVEName: characters below '!' become '_'; empty -> __dummyN."""
    if not name:
        n = f"__dummy{counter[0]}"
        counter[0] += 1
        return n
    new = "".join("_" if ord(ch) < 33 else ch for ch in name)
    if new != name:
        doc.warn(f"name {name!r} is not a valid OpenRAVE name, converted to {new!r}", el, kind="changed")
    return new


def _technique(el, profile: str = "OpenRAVE"):
    for t in kids(el, "technique"):
        if t.get("profile") == profile:
            return t
    return None


class ReadOptions:
    """Attributes of the including XML element that OpenRAVE passes to its COLLADA reader."""

    def __init__(self, attributes: Optional[dict] = None):
        a = {str(k).lower(): str(v) for k, v in (attributes or {}).items()}
        self.prefix = a.get("prefix", "")
        sg = a.get("skipgeometry", "")
        self.skip_geometry = sg.lower() == "true" or sg == "1"
        self.read_geometry_groups = "bind_instance_geometry" in a.get("readoptions", "").split()
        self.scale_geometry = 1.0
        toks = a.get("scalegeometry", "").split()
        if toks:
            try:
                self.scale_geometry = float(toks[0])
            except ValueError:
                self.scale_geometry = None     # reported by the caller
        self.raw = a


class _ModelBinding:
    def __init__(self, node, ikmodel, scope):
        self.node = node
        self.ikmodel = ikmodel
        self.scope = list(scope)
        self.kmodel = None
        self.ipmodel = None


class _AxisBinding:
    def __init__(self, target, axis, value, visual_node):
        self.target = target
        self.axis = axis
        self.value = value
        self.visual_node = visual_node
        self.kinematics_axis_info = None
        self.motion_axis_info = None
        self.joint: Optional[CJoint] = None
        self.iaxis = 0
        self.element = None             # the <bind_joint_axis>


class _LinkBinding:
    def __init__(self):
        self.node = None
        self.node_id = None
        self.link = None
        self.domlink = None
        self.rigidbody = None
        self.physics_offset = None
        self.ipmodel = None


class _Bindings:
    def __init__(self):
        self.models: list = []
        self.axes: list = []
        self.links: list = []


_MEMO_TAGS = ("translate", "rotate", "matrix")


class ColladaReader:
    """Reads one COLLADA document into a body (see the module docstring)."""

    def __init__(self, doc, options: Optional[ReadOptions] = None):
        self.doc = doc
        self.ctx = doc.ctx
        self.opts = options or ReadOptions()
        self.back_compat_radians = False
        self._names = [0]
        self._manip_counter = [0]
        self._sensor_counter = [0]
        self._gripper_counter = [0]
        self._joint_sids: dict = {}
        self._joint_units: dict = {}
        self._converted: dict = {}
        self._newparams: dict = {}
        root = doc.root
        asset = child(root, "asset")
        self.up_axis = "Z_UP"
        if asset is not None:
            for contrib in kids(asset, "contributor"):
                tool = child(contrib, "authoring_tool")
                if tool is not None and text(tool) in _BACK_COMPAT_TOOLS:
                    self.back_compat_radians = True
            ua = child(asset, "up_axis")
            if ua is not None and text(ua).strip():
                self.up_axis = text(ua).strip()
        self.scene = child(root, "scene")
        self.visual_scene = None
        if self.scene is not None:
            ivs = child(self.scene, "instance_visual_scene")
            if ivs is not None:
                self.visual_scene = doc.url(ivs, "url")
                doc.expand_instance_nodes(self.visual_scene)

    # ----------------------------------------------------------------------- entry
    def read(self, body: Optional[CBody] = None, as_robot: bool = True, fragment: str = "") -> CBody:
        """Extract the file's body into ``body`` (a new one when None). ``as_robot``: loading
        as a robot (``<Robot file>``) or a kinbody. Raises FormatError when the file yields
        no body."""
        doc = self.doc
        if self.scene is None:
            raise doc.error("no <scene>: not a COLLADA robot or body file", doc.root)
        initial_links = set(id(l) for l in body.links) if body is not None else set()
        initial_joints = set(id(j) for j in body.all_joints()) if body is not None else set()
        initial_manips = set(id(m) for m in body.manipulators) if body is not None else set()
        initial_sensors = set(id(s) for s in body.sensors) if body is not None else set()
        initial_grippers = set(id(g) for g in body.gripper_infos) if body is not None else set()
        self._initial_joints = initial_joints
        ikscenes = kids(self.scene, "instance_kinematics_scene")
        if not ikscenes:
            if not as_robot:
                return self._visual_body(body)
            raise doc.error("no <instance_kinematics_scene> in <scene>: the file holds no kinematics "
                            "(a mesh-only COLLADA file is read as a mesh, not as a robot)", self.scene)
        possible = []
        result = None
        read_bindings = []
        for kis in ikscenes:
            kscene = doc.url(kis, "url")
            bindings = self._kinematics_visual_bindings(kis, kscene)
            read_bindings.append(bindings)
            self._physics_bindings(bindings)
            for ias in kids(kscene, "instance_articulated_system"):
                if fragment and (ias.get("url") or "").strip() != "#" + fragment:
                    continue
                result = self._articulated_system(body, ias, bindings, [])
                if result is not None:
                    break
            if result is not None:
                break
            for ikm in kids(kscene, "instance_kinematics_model"):
                possible.append((ikm, bindings))
        if result is None:
            for ikm, bindings in possible:
                if fragment and (ikm.get("url") or "").strip() != "#" + fragment:
                    continue
                result = self._kinematics_model(body, ikm, bindings, [])
                if result is not None:
                    break
        if result is None:
            raise doc.error("the kinematics scene yields no articulated system or kinematics model",
                            ikscenes[0])
        body = result
        for bindings in read_bindings:
            self._unresolved_axis_targets(bindings)
        body.document = doc.path
        body.up_axis = self.up_axis
        if self.up_axis != "Z_UP":
            doc.warn(f"<up_axis>{self.up_axis}</up_axis>: kept as is (OpenRAVE does not rotate "
                     "anything for it either)", kind="ignored")
        self._scene_gravity(body)
        if self.opts.prefix:
            if as_robot:
                self._add_prefix(body, initial_links, initial_joints, initial_manips, initial_sensors,
                                 initial_grippers)
            else:
                doc.warn(f"prefix={self.opts.prefix!r} is not applied: OpenRAVE ignores it when a "
                         "COLLADA file is included as a KinBody", kind="ignored")
        return body

    def _unresolved_axis_targets(self, b: _Bindings) -> None:
        """Say which ``<bind_joint_axis>`` targets name no element of the visual scene (once
        the tree is built, so that it is known whether the axis's joint is part of it): the
        axis of a joint in the tree loses its child link's visual node (an error); the axis
        of a ``<joint>`` that no link's ``<attachment_full>`` uses is ignored by OpenRAVE
        too, which only warns (a note: OpenHRP3's export-collada declares the root link's
        joint, WAIST, and binds it although the root has no joint)."""
        for ab in b.axes:
            if ab.target is not None or ab.element is None:
                continue
            ref = ab.element.get("target") or ""
            jel = ab.axis.getparent()
            if ab.joint is None and jel is not None and ln(jel) == "joint":
                self.doc.warn(f"<bind_joint_axis target=\"{ref}\">: target not found in the visual scene; "
                              f"its axis belongs to joint {jel.get('name') or jel.get('sid')!r}, which no "
                              "link attaches: ignored (as OpenRAVE does)", ab.element, kind="ignored")
            else:
                self.doc.warn(f"<bind_joint_axis target=\"{ref}\">: target not found in the visual scene",
                              ab.element, kind="invalid value")

    def _visual_body(self, body):
        """OpenRAVE's KinBody read of a file without kinematics: the first top-level visual
        node with geometry becomes one link (named after the node) placed by its ancestors'
        and its own transforms."""
        doc = self.doc
        if self.visual_scene is not None:
            for node in kids(self.visual_scene, "node"):
                probe = CLink(name="", sid="")
                probe.transform = doc.node_world(node)
                self._node_geometries(node, probe, _Bindings(), 0)
                if not probe.geometries:
                    continue
                if body is None:
                    body = CBody(is_robot=False)
                name = self._name(node.get("name") or node.get("id") or "", node)
                self.ctx.charge("links", 1, where(node), what="COLLADA links")
                link = CLink(name=name, sid=name, transform=probe.transform, geometries=probe.geometries,
                             line=where(node))
                body.links.append(link)
                body.name = body.name or name
                body.document = doc.path
                return body
        raise doc.error("no kinematics and no visual node with geometry: nothing to read as a body",
                        self.scene)

    def _scene_gravity(self, body):
        for ips in kids(self.scene, "instance_physics_scene"):
            ps = self.doc.url_or_none(ips, "url")
            g = child(child(ps, "technique_common"), "gravity") if ps is not None else None
            if g is not None:
                v = self.doc.floats(g)
                if len(v) == 3:
                    body.gravity = tuple(v)

    # ----------------------------------------------------------------------- bindings
    def _search_binding(self, ref: str, parent, scope: list, depth: int = 0):
        """OpenRAVE's searchBinding: the element parameter ``ref`` stands for, searched from a
        kinematics scene / articulated system / instance element; appends to ``scope`` the
        instance elements whose newparams or binds were followed."""
        doc = self.doc
        if parent is None:
            return None
        self.ctx.check_depth(depth, where(parent), what="COLLADA parameter search")
        name = ln(parent)
        if name == "kinematics_scene":
            for ias in kids(parent, "instance_articulated_system"):
                found = self._search_binding(ref, ias, scope, depth + 1)
                if found is not None:
                    return found
            for ikm in kids(parent, "instance_kinematics_model"):
                found = self._search_binding(ref, ikm, scope, depth + 1)
                if found is not None:
                    return found
            return None
        if name == "articulated_system":
            kin = child(parent, "kinematics")
            if kin is not None:
                for ikm in kids(kin, "instance_kinematics_model"):
                    found = self._search_binding(ref, ikm, scope, depth + 1)
                    if found is not None:
                        return found
            mot = child(parent, "motion")
            if mot is not None:
                return self._search_binding(ref, child(mot, "instance_articulated_system"), scope, depth + 1)
            return None
        if name in ("instance_articulated_system", "instance_kinematics_model"):
            target = doc.url_or_none(parent, "url")
            if target is not None:
                for bind in kids(parent, "bind"):
                    if bind.get("symbol") == ref:
                        p = child(bind, "param")
                        if p is not None and p.get("ref") is not None:
                            scope.append(parent)
                            return doc.resolve_sid(p.get("ref"), target)
                        s = child(bind, "SIDREF")
                        if s is not None:
                            scope.append(parent)
                            return doc.resolve_sid(text(s), target)
                np_ = self._newparam(parent, ref)
                if np_ is not None:
                    s = child(np_, "SIDREF")
                    if s is not None:
                        scope.append(parent)
                        if text(s).strip():
                            return doc.resolve_sid(text(s), target)
                    if child(np_, "float") is not None or child(np_, "int") is not None:
                        return np_
                    doc.warn(f"newparam sid={ref!r} has no SIDREF", np_, kind="invalid value")
            if name == "instance_articulated_system" and target is not None:
                return self._search_binding(ref, target, scope, depth + 1)
        return None

    def _newparam(self, holder, sid):
        """The first ``<newparam sid=...>`` child of ``holder`` (indexed once per holder)."""
        index = self._newparams.get(holder)
        if index is None:
            index = {}
            for np_ in kids(holder, "newparam"):
                index.setdefault(np_.get("sid"), np_)
            self._newparams[holder] = index
        return index.get(sid)

    def _search_common(self, el, kscene, scope):
        """``common_sidref_or_param``: a ``<SIDREF>`` (resolved from the scene) or a ``<param>``."""
        s = child(el, "SIDREF")
        if s is not None:
            return self.doc.resolve_sid(text(s), kscene)
        p = child(el, "param")
        if p is not None:
            return self._search_binding(text(p).strip(), kscene, scope)
        return None

    def _kinematics_visual_bindings(self, kis, kscene) -> _Bindings:
        doc = self.doc
        b = _Bindings()
        vs = self.visual_scene
        for bkm in kids(kis, "bind_kinematics_model"):
            node_ref = bkm.get("node")
            if not node_ref:
                doc.warn("<bind_kinematics_model> without node= is not supported", bkm, kind="unsupported")
                continue
            node = doc.resolve_sid(node_ref, vs) if vs is not None else None
            if node is None or ln(node) != "node":
                raise doc.error(f"<bind_kinematics_model node=\"{node_ref}\">: no visual <node> has "
                                "that SID path", bkm)
            scope: list = []
            ikm = self._search_common(bkm, kscene, scope)
            if ikm is None or ln(ikm) != "instance_kinematics_model":
                what = "nothing" if ikm is None else f"a <{ln(ikm)}>"
                raise doc.error(f"<bind_kinematics_model node=\"{node_ref}\">: its parameter resolves to "
                                f"{what}, not an <instance_kinematics_model>", bkm)
            b.models.append(_ModelBinding(node, ikm, scope))
        for bja in kids(kis, "bind_joint_axis"):
            target_ref = bja.get("target") or ""
            target = doc.resolve_sid(target_ref, vs) if vs is not None else None
            axis_el = child(bja, "axis")
            scope = []
            axis = self._search_common(axis_el, kscene, scope) if axis_el is not None else None
            if axis is None or ln(axis) not in _AXIS_TYPES:
                what = "nothing" if axis is None else f"a <{ln(axis)}>"
                raise doc.error(f"<bind_joint_axis target=\"{target_ref}\">: its <axis> resolves to {what}, "
                                "not a joint axis (<revolute>/<prismatic>)", bja)
            value = 0.0
            v_el = child(bja, "value")
            if v_el is not None:
                holder = v_el
                p = child(v_el, "param")
                if p is not None:
                    holder = self._search_binding(text(p).strip(), kscene, [])
                value = self._common_float(holder, 0.0)
            visual = None
            if target is not None:
                e = target.getparent()
                while e is not None and ln(e) != "node":
                    e = e.getparent()
                visual = e
                if visual is None:
                    doc.warn(f"<bind_joint_axis target=\"{target_ref}\">: target is not inside a <node>", bja, kind="invalid value")
            ab = _AxisBinding(target, axis, value, visual)
            ab.element = bja
            b.axes.append(ab)
        return b

    def _common_float(self, el, default):
        """``common_float_or_param`` literal child (``<float>``/``<int>``), else ``default``."""
        if el is None:
            return default
        f = child(el, "float")
        if f is not None:
            return self.doc.float1(f)
        i = child(el, "int")
        if i is not None:
            try:
                return float(int(text(i).split()[0]))
            except (ValueError, IndexError):
                raise self.doc.error(f"<int>{text(i)}</int>: not an integer", i) from None
        return default

    def _physics_bindings(self, b: _Bindings) -> None:
        doc = self.doc
        for ips in kids(self.scene, "instance_physics_scene"):
            ps = doc.url_or_none(ips, "url")
            if ps is None:
                continue
            for ipm in kids(ps, "instance_physics_model"):
                pm = doc.url(ipm, "url")
                offset = doc.url_or_none(ipm, "parent") if (ipm.get("parent") or "").strip() else None
                mb = self._find_parent_model(offset, b) or self._find_child_model(offset, b)
                if mb is not None:
                    mb.ipmodel = ipm
                elif offset is not None:
                    doc.warn(f"<instance_physics_model parent=\"{ipm.get('parent')}\"> is bound to no "
                             "kinematics model", ipm, kind="invalid value")
                for irb in kids(ipm, "instance_rigid_body"):
                    lb = _LinkBinding()
                    lb.ipmodel = ipm
                    tgt = (irb.get("target") or "").strip()
                    if tgt and not tgt.startswith("#"):
                        raise doc.error(f"<instance_rigid_body target=\"{tgt}\">: external COLLADA reference "
                                        "not supported", irb)
                    lb.node_id = tgt[1:] if tgt else None
                    lb.rigidbody = doc.resolve_sid(irb.get("body"), pm)
                    lb.physics_offset = offset
                    if lb.rigidbody is not None and ln(lb.rigidbody) == "rigid_body":
                        b.links.append(lb)
                    else:
                        doc.warn(f"<instance_rigid_body body=\"{irb.get('body')}\">: no rigid body with that SID", irb, kind="invalid value")

    @staticmethod
    def _same_node(a, b) -> bool:
        if a is None or b is None:
            return False
        if a is b:
            return True
        ia, ib = a.get("id"), b.get("id")
        return ia is not None and ia == ib

    def _find_parent_model(self, node, b):
        while node is not None and ln(node) == "node":
            for mb in b.models:
                if self._same_node(node, mb.node):
                    return mb
            node = node.getparent()
        return None

    def _find_child_model(self, node, b):
        if node is None:
            return None
        for mb in b.models:
            e = mb.node
            while e is not None and ln(e) == "node":
                if self._same_node(node, e):
                    return mb
                e = e.getparent()
        return None

    def _add_axis_info(self, b: _Bindings, ikms, kai, mai) -> bool:
        doc = self.doc
        for ikm in ikms:
            target = doc.url_or_none(ikm, "url")
            axis = doc.resolve_sid(kai.get("axis"), target) if target is not None else None
            if axis is None:
                continue
            for ab in b.axes:
                if self._sid_to_id_equal(ab.axis, axis):
                    ab.kinematics_axis_info = kai
                    if mai is not None:
                        ab.motion_axis_info = mai
                    return True
            doc.warn(f"<axis_info axis=\"{kai.get('axis')}\">: the axis has no <bind_joint_axis>; "
                     "its limits and flags are ignored (as OpenRAVE does)", kai, kind="dropped")
            return False
        doc.warn(f"<axis_info axis=\"{kai.get('axis')}\">: no joint axis has that SID path", kai, kind="invalid value")
        return False

    @staticmethod
    def _sid_to_id_equal(a, b) -> bool:
        """OpenRAVE's CompareElementsSidToId: the same element, or the same chain of sids up
        to an element with an id."""
        while a is not None and b is not None:
            if a is b:
                return True
            if ln(a) != ln(b):
                return False
            if a.get("sid") is not None:
                if b.get("sid") is None or a.get("sid") != b.get("sid"):
                    return False
            elif a.get("id") is not None:
                return a.get("id") == b.get("id")
            a, b = a.getparent(), b.getparent()
        return False

    # ----------------------------------------------------------------------- systems
    def _interface_type(self, extras_of):
        for ex in kids(extras_of, "extra"):
            if ex.get("type") == "interface_type":
                tec = _technique(ex)
                if tec is not None:
                    itf = child(tec, "interface")
                    if itf is not None:
                        return (itf.get("type") or ""), text(itf).strip()
        return None

    def _articulated_system(self, body, ias, b, scope, parent_name: str = ""):
        doc = self.doc
        asys = doc.url(ias, "url")
        if ln(asys) != "articulated_system":
            raise doc.error(f"<instance_articulated_system url=\"{ias.get('url')}\"> names a <{ln(asys)}>", ias)
        if body is None:
            it = self._interface_type(asys)
            if it is not None:
                if it[0] == "kinbody":
                    body = CBody(is_robot=False, interface=it[1])
                elif it[0] in ("", "robot"):
                    body = CBody(is_robot=True, interface=it[1] or "GenericRobot")
                else:
                    doc.warn(f"unknown interface type {it[0]!r}", asys, kind="unsupported")
                    return None
        name = parent_name or ias.get("name") or ias.get("sid") or asys.get("name") or asys.get("id") or ""
        if body is not None:
            body.name = name
        motion = child(asys, "motion")
        if motion is not None:
            ias_new = child(motion, "instance_articulated_system")
            if ias_new is None:
                doc.warn("<motion> without <instance_articulated_system>", motion, kind="invalid value")
                return None
            inner = doc.url(ias_new, "url")
            tc = child(motion, "technique_common")
            for mai in (kids(tc, "axis_info") if tc is not None else []):
                kai = doc.resolve_sid(mai.get("axis"), inner)
                if kai is None or ln(kai) != "axis_info":
                    doc.warn(f"<axis_info axis=\"{mai.get('axis')}\">: no kinematics axis_info has that SID path", mai, kind="invalid value")
                    continue
                kin = kai.getparent()
                while kin is not None and ln(kin) != "kinematics":
                    kin = kin.getparent()
                if kin is None:
                    doc.warn("motion axis_info does not point into a <kinematics>", mai, kind="invalid value")
                    continue
                self._add_axis_info(b, kids(kin, "instance_kinematics_model"), kai, mai)
            if body is not None and not body.id:
                body.id = asys.get("id") or ias.get("sid") or ""
            self.ctx.check_depth(len(scope) + 1, where(ias_new), what="nested articulated systems")
            body = self._articulated_system(body, ias_new, b, scope + [ias], name)
            if body is None:
                return None
        else:
            kin = child(asys, "kinematics")
            if kin is None:
                doc.warn("<articulated_system> has neither <motion> nor <kinematics>", asys, kind="invalid value")
                return body
            tc = child(kin, "technique_common")
            ikms = kids(kin, "instance_kinematics_model")
            for kai in (kids(tc, "axis_info") if tc is not None else []):
                self._add_axis_info(b, ikms, kai, None)
            if body is None:
                body = CBody(is_robot=True, interface="GenericRobot")
            if not body.id:
                body.id = asys.get("id") or ""
            for ikm in ikms:
                got = self._kinematics_model(body, ikm, b, scope + [ias])
                if got is None:
                    doc.warn("failed to extract the kinematics model", ikm, kind="invalid value")
        if body.is_robot:
            self._manipulators(body, asys, asys, b)
            self._manipulators(body, ias, asys, b)
            self._sensors(body, asys, b)
            self._gripper_infos(body, asys)
            self._actuators(body, asys, b)
            self._connected_bodies(body, asys, ias)
        self._collision_data(body, asys, asys, b)
        self._visible_data(body, asys, asys, b)
        self._extra_data(body, asys)
        self._collision_data(body, ias, ias, b, and_previous=True)
        self._visible_data(body, ias, ias, b, and_previous=True)
        return body

    @staticmethod
    def _scope_matches(resolved, current) -> bool:
        if len(resolved) > len(current):
            return False
        for a, c in zip(resolved, current):
            if a is c:
                continue
            if ln(a) != ln(c) or a.get("sid") is None or a.get("sid") != c.get("sid"):
                return False
        return True

    def _kinematics_model(self, body, ikm, b, scope):
        doc = self.doc
        kmodel = doc.url(ikm, "url")
        if ln(kmodel) != "kinematics_model":
            raise doc.error(f"<instance_kinematics_model url=\"{ikm.get('url')}\"> names a <{ln(kmodel)}>", ikm)
        for mb in b.models:
            if mb.ikmodel is ikm and self._scope_matches(mb.scope, scope):
                mb.kmodel = kmodel
                break
        if body is None:
            it = self._interface_type(ikm) or self._interface_type(kmodel)
            if it is not None and it[0] == "robot":
                body = CBody(is_robot=True, interface=it[1])
            else:
                body = CBody(is_robot=False, interface=it[1] if it else "")
        asset = child(kmodel, "asset")
        subj = child(asset, "subject") if asset is not None else None
        if subj is not None and text(subj):
            body.description = text(subj)
        visual = None
        for mb in b.models:
            if mb.ikmodel is ikm and self._scope_matches(mb.scope, scope):
                visual = mb.node
                break
        if visual is None and not scope:
            for mb in b.models:
                if mb.ikmodel is ikm:
                    visual = mb.node
                    break
        if visual is None:
            doc.warn("no <bind_kinematics_model> binds this kinematics model to a visual node; "
                     "it is read without geometry", ikm, kind="dropped")
        if not body.name:
            body.name = ikm.get("name") or ikm.get("id") or ""
        self._extract_model(body, kmodel, visual, b)
        return body

    # ----------------------------------------------------------------------- model
    def _extract_model(self, body, kmodel, visual, b) -> None:
        doc = self.doc
        if not body.name:
            body.name = kmodel.get("name") or kmodel.get("id") or ""
        tc = child(kmodel, "technique_common")
        if tc is None:
            raise doc.error("<kinematics_model> has no <technique_common>", kmodel)
        links = kids(tc, "link")
        if not links:
            raise doc.error("<kinematics_model> has no <link>", kmodel)
        for i, dlink in enumerate(links):
            T = doc.parent_nodes_transform(visual) if (visual is not None and i == 0) else np.eye(4)
            self._extract_link(body, dlink, visual if i == 0 else None, T, b, 0)
        for formula in kids(tc, "formula"):
            self._formula(body, formula, b)
        self._collision_data(body, kmodel, kmodel, b)
        for ex in kids(kmodel, "extra"):
            if ex.get("type") == "link_info":
                self._link_info(body, kmodel, ex, b)
            elif ex.get("type") == "joint_info":
                self._joint_info(body, kmodel, ex, b)

    def _link_name(self, dlink) -> str:
        """OpenRAVE's _ExtractLinkName: name, else id (converted); none -> a new __dummyN."""
        return self._name(dlink.get("name") or dlink.get("id") or "", dlink)

    def _name(self, raw: str, el=None) -> str:
        if raw and raw in self._converted:
            return self._converted[raw]
        new = _openrave_name(self.doc, raw, self._names, el)
        if raw:
            self._converted[raw] = new
        return new

    def _extract_link(self, body, dlink, dnode, T_parent, b, depth) -> CLink:
        doc = self.doc
        self.ctx.check_depth(depth, where(dlink), what="COLLADA <link> nesting")
        if not (dlink.get("name") or dlink.get("id")):
            doc.warn("<link> has neither name nor id", dlink, kind="guessed")
        name = self._link_name(dlink)
        link = body.link(name)
        if link is None:
            self.ctx.charge("links", 1, where(dlink), what="COLLADA links")
            link = CLink(name=name, sid=dlink.get("sid") or name, line=where(dlink))
            body.links.append(link)
        else:
            link.created_here = False
        link.transform = compose(T_parent, doc.transform(dlink))
        link.memo = {"own": self._memo_transform(dlink)}
        rigid, offset_T = None, None
        if dnode is not None:
            found = False
            for lb in b.links:
                if lb.node is None:
                    lb.node = doc.by_id(lb.node_id) if lb.node_id else None
                    if lb.node is None:
                        continue
                if self._same_node(dnode, lb.node):
                    found = True
                    rigid = lb.rigidbody
                    lb.domlink, lb.link, lb.node = dlink, link, dnode
                    if lb.physics_offset is not None:
                        offset_T = doc.node_world(lb.physics_offset)
                    break
            if not found:
                lb = _LinkBinding()
                lb.node, lb.link, lb.domlink = dnode, link, dlink
                b.links.append(lb)
        self._rigid_body(body, link, rigid, offset_T, dnode)
        if dnode is not None:
            self._node_geometries(dnode, link, b, 0)
        for att in kids(dlink, "attachment_full"):
            self._attachment(body, link, att, b, depth)
        for el in kids(dlink):
            if ln(el) in ("attachment_start", "attachment_end"):
                # OpenRAVE loads the tree and ignores the loop with a warning: so does roboio,
                # keeping what the element says for the record
                body.closed_loops.append({
                    "element": ln(el), "link": link.name, "joint": el.get("joint"),
                    "transforms": [(ln(t), text(t).strip()) for t in kids(el)], "line": where(el)})
                doc.warn(f"closed kinematic loop: <{ln(el)} joint=\"{el.get('joint')}\"> of link "
                         f"{link.name!r} is not part of the tree; the tree is loaded and the loop "
                         "constraint is not enforced (OpenRAVE ignores it too, with a warning); it "
                         "is kept as data (extras['collada']['files'][...]['closed_loops'])", el,
                         kind="ignored")
        return link

    def _rigid_body(self, body, link, rigid, offset_T, dnode) -> None:
        doc = self.doc
        tc = child(rigid, "technique_common") if rigid is not None else None
        if tc is None:
            what = f" (node {dnode.get('id')!r})" if dnode is not None and dnode.get("id") else ""
            doc.warn(f"no rigid_body for link {link.name!r}{what}: mass 1e-10 kg, inertia 1e-7", kind="guessed")
            return
        trigid = offset_T if offset_T is not None else body.links[0].transform
        link.has_rigid_body = True
        mf_el = child(tc, "mass_frame")
        memo_frame = self._memo_transform(mf_el) if mf_el is not None else []
        if memo_frame is not None and np.array_equal(trigid, np.eye(4)):
            link.memo["mass_frame"] = memo_frame
        m = child(tc, "mass")
        if m is not None:
            link.mass = doc.float1(m)
        mf = child(tc, "mass_frame")
        tmass = compose(trigid, doc.transform(mf)) if mf is not None else trigid.copy()
        inertia = child(tc, "inertia")
        if inertia is not None:
            link.inertia_moments = tuple(doc.floats(inertia, count=3))
        link.mass_frame = compose(inverse_affine(link.transform), tmass)
        dyn = child(tc, "dynamic")
        if dyn is not None:
            link.static = not doc.boolean(dyn)

    def _node_geometries(self, node, link, b, depth) -> None:
        """Geometry of ``node`` and of its child nodes that are not joint-bound visual nodes
        of other links (standard COLLADA placement, see the geometry module)."""
        doc = self.doc
        if self.opts.skip_geometry:
            return
        self.ctx.check_depth(depth, where(node), what="COLLADA <node> nesting")
        for sub in kids(node, "node"):
            if any(ab.visual_node is sub for ab in b.axes):
                continue
            self._node_geometries(sub, link, b, depth + 1)
        geoms = []
        for ig in kids(node, "instance_geometry"):
            g_el = doc.url_or_none(ig, "url")
            if g_el is None or ln(g_el) != "geometry":
                raise doc.error(f"<instance_geometry url=\"{ig.get('url')}\">: no <geometry> with that id", ig)
            geoms.extend(extract_geometry(doc, g_el, material_map(doc, ig)))
        if not geoms:
            return
        rel = compose(inverse_affine(link.transform), doc.node_world(node))
        if is_identity(rel, 1e-9):
            rel = np.eye(4)      # rounding of the node chain against the link chain: no offset
        else:
            doc.warn(f"geometry of node {node.get('id') or node.get('name')!r} sits at a non-identity "
                     f"offset from link {link.name!r}'s frame; roboio applies it (standard COLLADA), "
                     "OpenRAVE would ignore it for meshes", node, kind="read differently")
        s = doc.unit(node)
        for g in geoms:
            g.transform = compose(rel, g.transform)
            if g.kind != "trimesh":
                scale_primitive(g, s)
            link.geometries.append(g)

    def _attachment(self, body, link, att, b, depth) -> None:
        doc = self.doc
        ref = att.get("joint")
        if not ref:
            doc.warn(f"<attachment_full> without joint= in link {link.name!r}: skipped", att, kind="invalid value")
            return
        tatt = doc.transform(att)
        jel = doc.resolve_sid(ref, att)
        if jel is None:
            raise doc.error(f"<attachment_full joint=\"{ref}\">: no joint has that SID path", att)
        if ln(jel) == "instance_joint":
            jel = doc.url(jel, "url")
        if ln(jel) != "joint":
            raise doc.error(f"<attachment_full joint=\"{ref}\"> names a <{ln(jel)}>, not a <joint>", att)
        if ref.startswith("./"):
            p = att
            while p is not None and p.get("id") is None:
                p = p.getparent()
            sidref = f"{p.get('id') if p is not None else ''}/{ref[2:]}"
        else:
            sidref = ref
        dchild = child(att, "link")
        if dchild is None:
            doc.warn(f"joint {sidref} needs to be attached to a valid link: attachment skipped", att, kind="invalid value")
            return
        axes_el = [c for c in kids(jel) if ln(c) in _AXIS_TYPES]
        others = [c for c in kids(jel) if ln(c) not in _AXIS_TYPES and ln(c) not in ("extra", "asset")]
        for o in others:
            doc.warn(f"unsupported joint type <{ln(o)}>", o, kind="unsupported")
        if not axes_el:
            raise doc.error(f"joint {jel.get('name') or jel.get('sid')!r} has no <revolute>/<prismatic> axis", jel)
        if len(axes_el) > 3:
            raise doc.error(f"joint {jel.get('name') or jel.get('sid')!r} has {len(axes_el)} axes "
                            "(OpenRAVE supports 1 to 3)", jel)
        child_node = None
        for ab in b.axes:
            if any(ab.axis is a for a in axes_el):
                child_node = ab.visual_node
                break
        types = [ln(a) for a in axes_el]
        active = True
        for a in axes_el:
            for ab in b.axes:
                if ab.axis is a:
                    kai = ab.kinematics_axis_info
                    if kai is not None and child(kai, "active") is not None:
                        active = self._resolve_bool(child(kai, "active"), kai)
                    break
        n = len(axes_el)
        if jel.get("name"):
            jname = self._name(jel.get("name"), jel)
        else:
            jname = f"dummy{len(body.joints) if active else -1}"
        memo = {"att": self._memo_transform(att), "axes": [], "limits": [], "speed": [],
                "acceleration": [], "stored": []}
        joint = CJoint(name=jname, sid=jel.get("sid") or jname, axis_types=types, parent=link,
                       child=link, anchor=tatt[:3, 3].copy(), axes=[], trel=np.eye(4), active=active,
                       lower=[0.0] * n, upper=[0.0] * n, circular=[False] * n,
                       max_velocity=[0.5 if t == "revolute" else 0.01 for t in types],
                       max_acceleration=[50.0] * n, max_jerk=[50.0 * 1000] * n,
                       hard_max_velocity=[0.0] * n, hard_max_acceleration=[0.0] * n,
                       hard_max_jerk=[0.0] * n, weights=[1.0] * n, resolutions=[0.02] * n,
                       initial=[0.0] * n, attachment=tatt, memo=memo, line=where(att))
        for i, a in enumerate(axes_el):
            for ab in b.axes:
                if ab.axis is a:
                    ab.joint, ab.iaxis = joint, i
        self._joint_units[id(joint)] = [doc.unit(a) if t == "prismatic" else 1.0 for a, t in zip(axes_el, types)]
        (body.joints if active else body.passive_joints).append(joint)
        self._joint_sids[sidref] = joint
        self._joint_sids[sidref.rsplit("/", 1)[-1]] = joint
        T_child_frame = compose(link.transform, tatt)
        child_link = self._extract_link(body, dchild, child_node, T_child_frame, b, depth + 1)
        joint.child = child_link
        for i, a in enumerate(axes_el):
            self._axis(joint, i, a, b)
        joint.trel = compose(inverse_affine(link.transform), child_link.transform)

    def _axis(self, joint: CJoint, i: int, a, b) -> None:
        doc = self.doc
        kai = mai = None
        stored = None                  # a revolute axis's bound value as written, in degrees
        for ab in b.axes:
            if self._sid_to_id_equal(a, ab.axis):
                kai, mai = ab.kinematics_axis_info, ab.motion_axis_info
                scale = DEG if (joint.is_revolute(i) and not self.back_compat_radians) else 1.0
                joint.initial[i] = ab.value * scale
                stored = float(ab.value) if scale == DEG else None
                break
        ax_el = child(a, "axis")
        if ax_el is None:
            raise doc.error(f"joint {joint.name!r}: <{ln(a)}> has no <axis>", a)
        v = np.array(doc.floats(ax_el, count=3))
        joint.axes_as_written.append(v.copy())
        memo = joint.memo
        memo["axes"].append([float(x) for x in v])
        memo["speed"].append(None)
        memo["acceleration"].append(None)
        memo["limits"].append(None)
        memo["stored"].append(stored)
        nv = math.sqrt(vector_dot(v, v))
        if nv > 0:
            v = v / nv
        else:
            doc.warn(f"joint {joint.name!r}: zero <axis>, using (0, 0, 1) as OpenRAVE does", ax_el, kind="invalid value")
            v = np.array([0.0, 0.0, 1.0])
        revolute = joint.is_revolute(i)
        if revolute:
            mult = DEG
        elif kai is not None:
            mult = doc.unit(kai)
        else:
            mult = 1.0
        if mai is not None:
            for np_ in kids(mai, "newparam"):
                sid = np_.get("sid")
                f = child(np_, "float")
                if sid in ("hardMaxVel", "hardMaxAccel", "hardMaxJerk") and f is not None:
                    val = mult * doc.float1(f)
                    {"hardMaxVel": joint.hard_max_velocity, "hardMaxAccel": joint.hard_max_acceleration,
                     "hardMaxJerk": joint.hard_max_jerk}[sid][i] = val
            for tag, soft, hard in (("speed", joint.max_velocity, joint.hard_max_velocity),
                                    ("acceleration", joint.max_acceleration, joint.hard_max_acceleration),
                                    ("jerk", joint.max_jerk, joint.hard_max_jerk)):
                e = child(mai, tag)
                if e is not None:
                    raw = val = self._resolve_float(e, mai)
                    if not self.back_compat_radians:
                        val *= mult
                    if hard[i] != 0.0 and hard[i] < val:
                        val = hard[i]
                    elif tag in memo and not self.back_compat_radians and (revolute or mult == 1.0):
                        memo[tag][i] = raw
                    soft[i] = val
        locked = False
        has_soft = has_hard = False
        circular = None
        if kai is not None:
            lk = child(kai, "locked")
            if lk is not None:
                locked = self._resolve_bool(lk, kai)
            lim = child(kai, "limits")
            if locked:
                joint.lower[i] = joint.upper[i] = 0.0
            elif lim is not None:
                has_soft = True
                lo, hi = self._resolve_float(child(lim, "min"), kai), self._resolve_float(child(lim, "max"), kai)
                joint.lower[i], joint.upper[i] = mult * lo, mult * hi
                if revolute or mult == 1.0:
                    memo["limits"][i] = (lo, hi)
            for np_ in kids(kai, "newparam"):
                sid = np_.get("sid")
                if sid == "circular":
                    bl, it = child(np_, "bool"), child(np_, "int")
                    if bl is not None:
                        circular = doc.boolean(bl)
                    elif it is not None:
                        circular = int(self._common_float(np_, 0.0)) != 0
                    else:
                        doc.warn("axis_info newparam 'circular' holds no bool/int", np_, kind="invalid value")
                elif sid in ("planning_weight", "discretization_resolution"):
                    f = child(np_, "float")
                    if f is None:
                        doc.warn(f"axis_info newparam {sid!r} holds no float", np_, kind="invalid value")
                        continue
                    val = doc.float1(f)
                    if val > 0:
                        (joint.weights if sid == "planning_weight" else joint.resolutions)[i] = val
                    else:
                        doc.warn(f"axis_info {sid} {val} is not positive: ignored", np_, kind="invalid value")
        lim = child(a, "limits")
        if not locked and lim is not None:
            has_hard = True
            if not has_soft:
                scale = DEG if revolute else doc.unit(a)
                mn, mx = child(lim, "min"), child(lim, "max")
                if mn is None or mx is None:
                    raise doc.error("<limits> needs <min> and <max>", lim)
                lo, hi = doc.float1(mn), doc.float1(mx)
                joint.lower[i], joint.upper[i] = lo * scale, hi * scale
                if revolute or scale == 1.0:
                    memo["limits"][i] = (lo, hi)
        if circular is not None:
            joint.circular[i] = circular
        if not has_soft and not has_hard and not locked:
            if revolute:
                if circular is None:
                    joint.circular[i] = True
                joint.lower[i], joint.upper[i] = -math.pi, math.pi
            else:
                joint.lower[i], joint.upper[i] = -1e6, 1e6
        joint.axes.append(matrix_vector(joint.attachment[:3, :3], v))

    def _resolve_float(self, el, holder) -> float:
        """OpenRAVE's resolveFloat: a literal ``<float>``, or ``<param>`` naming a newparam of
        ``holder`` (literal float, or a SIDREF to a float or to an element holding one).
        Missing -> 0."""
        if el is None:
            return 0.0
        return self._resolve_param(el, holder, "float", self.doc.float1, 0.0, "0", "a value",
                                   nested=True)

    def _resolve_bool(self, el, holder) -> bool:
        """OpenRAVE's resolveBool: a literal ``<bool>``, or ``<param>`` naming a newparam of
        ``holder`` (literal bool, or a SIDREF to a bool). Missing -> false."""
        return self._resolve_param(el, holder, "bool", self.doc.boolean, False, "false",
                                   "a boolean")

    def _resolve_param(self, el, holder, tag, convert, default, default_text, what, nested=False):
        """The literal ``<tag>`` of ``el``, or the ``newparam`` of ``holder`` its ``<param>``
        names (a literal ``<tag>`` or a SIDREF to one; ``nested``: also to an element holding
        one)."""
        doc = self.doc
        lit = child(el, tag)
        if lit is not None:
            return convert(lit)
        p = child(el, "param")
        if p is None:
            doc.warn(f"<{ln(el)}>: no value and no param; {default_text} used", el, kind="invalid value")
            return default
        ref = text(p).strip()
        for np_ in kids(holder, "newparam"):
            if np_.get("sid") == ref:
                lit = child(np_, tag)
                if lit is not None:
                    return convert(lit)
                s = child(np_, "SIDREF")
                if s is not None:
                    t = doc.resolve_sid(text(s), np_)
                    if t is not None and ln(t) == tag:
                        return convert(t)
                    if nested and t is not None and child(t, tag) is not None:
                        return convert(child(t, tag))
                    continue
        raise doc.error(f"<{ln(el)}><param>{ref}</param>: no newparam {ref!r} with {what} in "
                        f"<{ln(holder)}>", p)

    # ----------------------------------------------------------------------- memory for writing
    def _memo_transform(self, el) -> Optional[list]:
        """The transform children of ``el`` as ``(tag, numbers)`` when a metre-unit writer can
        write them back unchanged (no scale/lookat/skew, unit 1), else None."""
        doc = self.doc
        out = []
        for c in kids(el):
            tag = ln(c)
            if tag in ("scale", "lookat", "skew"):
                return None
            if tag in _MEMO_TAGS:
                if tag != "rotate" and doc.unit(c) != 1.0:
                    return None
                out.append((tag, doc.floats(c)))
        return out

    # ----------------------------------------------------------------------- joints by reference
    def _joint_from_ref(self, ref: str, context, body, b):
        """OpenRAVE's _getJointFromRef: ``(joint record or None, <joint> element or None)``."""
        doc = self.doc
        el = doc.resolve_sid(ref, context)
        dom = None
        if el is not None:
            if ln(el) == "joint":
                dom = el
            elif ln(el) == "instance_joint":
                t = doc.url_or_none(el, "url")
                dom = t if t is not None and ln(t) == "joint" else None
        else:
            for mb in b.models:
                tc = child(mb.kmodel, "technique_common") if mb.kmodel is not None else None
                if tc is None:
                    continue
                for j in kids(tc, "joint"):
                    if j.get("sid") == ref:
                        dom = j
                        break
                if dom is None:
                    for ij in kids(tc, "instance_joint"):
                        if ij.get("sid") == ref:
                            t = doc.url_or_none(ij, "url")
                            if t is not None and ln(t) == "joint":
                                dom = t
                                break
                if dom is not None:
                    break
        if dom is None:
            return None, None
        if not ref.startswith("./"):
            j = self._joint_sids.get(ref)
            if j is not None:
                return j, dom
        name = dom.get("name")
        return (body.joint(name) if name else None), dom

    def _formula(self, body, formula, b) -> None:
        doc = self.doc
        tgt = child(child(formula, "target"), "param")
        if tgt is None:
            doc.warn("<formula> has no <target><param>", formula, kind="invalid value")
            return
        joint, _ = self._joint_from_ref(text(tgt).strip(), formula, body, b)
        if joint is None:
            raise doc.error(f"<formula> target {text(tgt).strip()!r}: no joint of this body has that SID path", tgt)
        if joint.dof > 1:
            doc.warn(f"formula for joint {joint.name!r} with {joint.dof} axes: only axis 0 is driven", formula, kind="unsupported")
        target_unit = self._joint_units.get(id(joint), [1.0])[0]

        def joint_of(ref, el):
            j, _ = self._joint_from_ref(ref, formula, body, b)
            if j is None:
                raise doc.error(f"MathML csymbol {ref!r}: no joint of this body has that SID path", el)
            if j.dof > 1:
                doc.warn(f"formulas do not support joints with more than one axis ({j.name})", el, kind="unsupported")
            return _mathml.JointRef(j.name, self._joint_units.get(id(j), [1.0])[0])

        expr = None
        velocity = acceleration = ""
        tec = _technique(formula)
        if tec is not None:
            for eq in kids(tec, "equation"):
                etype = eq.get("type")
                inner = kids(eq)
                if etype is None:
                    doc.warn("<equation> without type=: ignored", eq, kind="invalid value")
                    continue
                if len(inner) != 1:
                    doc.warn("<equation> needs exactly one child: ignored", eq, kind="invalid value")
                    continue
                e = _mathml.parse(inner[0], doc, joint_of)
                if e is None:
                    continue
                if etype == "position":
                    expr = e
                elif etype in ("first_partial", "second_partial"):
                    t = eq.get("target")
                    pj = self._joint_from_ref(t, formula, body, b)[0] if t else None
                    if pj is None:
                        doc.warn(f"{etype} equation needs a valid target=: ignored", eq, kind="invalid value")
                        continue
                    s = _mathml.to_equation(e)
                    if target_unit != 1:
                        s = f"{target_unit!r}*({s})"
                    part = f"|{pj.name} {s} "
                    if etype == "first_partial":
                        velocity += part
                    else:
                        acceleration += part
                else:
                    doc.warn(f"unknown equation type {etype!r}", eq, kind="unsupported")
        else:
            tcf = child(formula, "technique_common")
            for c in (kids(tcf) if tcf is not None else []):
                e = _mathml.parse(c, doc, joint_of)
                if e is not None:
                    expr = e
                    break
        if expr is None:
            raise doc.error(f"<formula> for joint {joint.name!r} has no position equation", formula)
        eqtext = _mathml.to_equation(expr)
        if target_unit != 1:
            eqtext = f"{target_unit!r}*({eqtext})"
        aff = _mathml.affine(expr, target_unit)
        joint.mimic = CMimic(equation=eqtext, expr=expr,
                             affine=(aff[0].name, aff[1], aff[2]) if aff is not None else None,
                             velocity=velocity, acceleration=acceleration, line=where(formula))

    # ----------------------------------------------------------------------- link references
    def _link_from_ref(self, ref: str, context, body, b):
        doc = self.doc
        el = doc.resolve_sid(ref, context)
        if el is not None and ln(el) == "link":
            return body.link(self._link_name(el) or "")
        for lb in b.links:
            if lb.domlink is not None and lb.domlink.get("sid") == ref and lb.link is not None:
                return lb.link
        return None

    def _collision_data(self, body, ref_el, extras_of, b, and_previous: bool = False) -> None:
        doc = self.doc
        for ex in kids(extras_of, "extra"):
            if ex.get("type") != "collision":
                continue
            tec = _technique(ex)
            if tec is None:
                continue
            for el in kids(tec):
                name = ln(el)
                if name == "ignore_link_pair":
                    l0 = self._link_from_ref(el.get("link0") or "", ref_el, body, b)
                    l1 = self._link_from_ref(el.get("link1") or "", ref_el, body, b)
                    if l0 is None or l1 is None:
                        doc.warn(f"ignore_link_pair {el.get('link0')!r} {el.get('link1')!r}: link not found", el, kind="invalid value")
                        continue
                    body.adjacent.append((l0, l1))
                elif name == "link_collision_state":
                    l = self._link_from_ref(el.get("link") or "", ref_el, body, b)
                    if l is None:
                        doc.warn(f"link_collision_state: link {el.get('link')!r} not found", el, kind="invalid value")
                        continue
                    bl = child(el, "bool")
                    if bl is not None:
                        v = doc.boolean(bl)
                        l.enabled = (l.enabled and v) if and_previous else v
                elif name == "bind_instance_geometry":
                    l = self._link_from_ref(el.get("link") or "", ref_el, body, b)
                    if l is None:
                        doc.warn(f"bind_instance_geometry: link {el.get('link')!r} not found", el, kind="invalid value")
                        continue
                    group = el.get("type") or ""
                    if self.opts.read_geometry_groups:
                        g_el = doc.url_or_none(el, "url")
                        if g_el is None or ln(g_el) != "geometry":
                            doc.warn(f"bind_instance_geometry url {el.get('url')!r}: no geometry", el, kind="invalid value")
                            continue
                        mat = doc.url_or_none(el, "material")
                        geoms = extract_geometry(doc, g_el, {"mat0": mat} if mat is not None else {})
                        l.geometry_groups.setdefault(group, []).extend(geoms)
                    else:
                        body.readable.setdefault("bind_instance_geometry", []).append(
                            {"type": group, "link": l.name, "url": el.get("url"), "material": el.get("material")})

    def _visible_data(self, body, ref_el, extras_of, b, and_previous: bool = False) -> None:
        doc = self.doc
        for ex in kids(extras_of, "extra"):
            if ex.get("type") != "visible":
                continue
            tec = _technique(ex)
            if tec is None:
                continue
            for el in kids(tec, "link_visible_state"):
                l = self._link_from_ref(el.get("link") or "", ref_el, body, b)
                if l is None:
                    doc.warn(f"link_visible_state: link {el.get('link')!r} not found", el, kind="invalid value")
                    continue
                bl = child(el, "bool")
                if bl is not None:
                    v = doc.boolean(bl)
                    for g in l.geometries:
                        g.visible = (g.visible and v) if and_previous else v

    _HANDLED_EXTRAS = {"interface_type", "manipulator", "attach_sensor", "attach_actuator", "gripper_info",
                       "connect_body", "collision", "visible", "stringxmlreadable"}

    def _extra_data(self, body, asys) -> None:
        from lxml import etree
        for ex in kids(asys, "extra"):
            t = ex.get("type")
            if not t:
                continue
            if t == "stringxmlreadable" and ex.get("name"):
                tec = _technique(ex)
                d = child(tec, "data") if tec is not None else None
                if d is not None:
                    body.readable[ex.get("name")] = text(d)
            elif t not in self._HANDLED_EXTRAS:
                body.readable.setdefault("extras", []).append(etree.tostring(ex, encoding="unicode"))

    def _link_info(self, body, kmodel, ex, b) -> None:
        doc = self.doc
        ref = ex.get("name") or ""
        link = self._link_from_ref(ref, kmodel, body, b)
        if link is None:
            doc.warn(f"link_info {ref!r}: link not found", ex, kind="invalid value")
            return
        self._named_params(ex, link)

    def _named_params(self, ex, rec) -> None:
        doc = self.doc
        tec = _technique(ex)
        if tec is None:
            return
        for el in kids(tec):
            k, name = ln(el), el.get("name") or ""
            if k == "float_array":
                rec.float_parameters[name] = doc.floats(el)
            elif k == "int_array":
                try:
                    rec.int_parameters[name] = [int(t) for t in text(el).split()]
                except ValueError:
                    raise doc.error("<int_array>: not integers", el) from None
            elif k == "string_value":
                rec.string_parameters[name] = text(el)

    def _joint_info(self, body, kmodel, ex, b) -> None:
        doc = self.doc
        ref = ex.get("name") or ""
        joint, dom = self._joint_from_ref(ref, kmodel, body, b)
        if joint is None:
            doc.warn(f"joint_info {ref!r}: joint not found", ex, kind="invalid value")
            return
        self._named_params(ex, joint)
        tec = _technique(ex)
        for el in (kids(tec) if tec is not None else []):
            k = ln(el)
            if k == "controlMode":
                joint.control_info["controlMode"] = text(el).strip()
            elif k.startswith("jointcontrolinfo_"):
                joint.control_info[k] = [(ln(c), dict(c.attrib), text(c)) for c in kids(el)]

    # ----------------------------------------------------------------------- robot extras
    def _named_extras(self, holder, kind: str, counter: list, default: str):
        """``(extra, name, OpenRAVE technique)`` of every ``<extra type=kind>`` of ``holder``;
        an unnamed one is named ``<default>N`` (OpenRAVE's global counters)."""
        for ex in kids(holder, "extra"):
            if ex.get("type") != kind:
                continue
            name = ex.get("name") or ""
            if not name:
                name = f"{default}{counter[0]}"
                counter[0] += 1
            tec = _technique(ex)
            if tec is None:
                self.doc.warn(f"{kind} {name!r} has no OpenRAVE technique: ignored", ex, kind="ignored")
                continue
            yield ex, name, tec

    def _manipulators(self, body, extras_of, asys, b) -> None:
        doc = self.doc
        for ex, name, tec in self._named_extras(extras_of, "manipulator", self._manip_counter, "manipulator"):
            m = CManipulator(name=self._name(name, ex), base="", effector="", line=where(ex))
            fo = child(tec, "frame_origin")
            if fo is not None:
                l = self._link_from_ref(fo.get("link") or "", asys, body, b)
                if l is None:
                    doc.warn(f"manipulator {name!r}: frame_origin link {fo.get('link')!r} not found; dropped", fo, kind="invalid value")
                    continue
                m.base = l.name
            gn = child(tec, "grippername")
            if gn is None:
                gn = child(tec, "gripperid")
                if gn is not None:
                    doc.warn("manipulator uses the old <gripperid>", gn, kind="deprecated")
            m.gripper_name = text(gn) if gn is not None else ""
            m.tool_changer_connected_body_tool_name = text(child(tec, "toolChangerConnectedBodyToolName"))
            m.tool_changer_link_name = text(child(tec, "toolChangerLinkName"))
            fe = child(tec, "frame_endlink")
            if fe is not None:
                l = self._link_from_ref(fe.get("link") or "", asys, body, b)
                m.ik_chain_end = l.name if l is not None else ""
            ft = child(tec, "frame_tip")
            if ft is not None:
                l = self._link_from_ref(ft.get("link") or "", asys, body, b)
                if l is None:
                    doc.warn(f"manipulator {name!r}: frame_tip link {ft.get('link')!r} not found; dropped", ft, kind="invalid value")
                    continue
                m.effector = l.name
                m.tool_transform = doc.transform(ft)
                d = child(ft, "direction")
                if d is not None:
                    v = np.array(doc.floats(d, count=3))
                    n2 = vector_dot(v, v)
                    if n2 > 1e-12:
                        m.direction = v / math.sqrt(n2)
                    else:
                        doc.warn(f"manipulator {name!r}: zero direction, using (0, 0, 1)", d, kind="invalid value")
            for c in kids(tec):
                k = ln(c)
                if k == "gripper_joint":
                    j, dom = self._joint_from_ref(c.get("joint") or "", asys, body, b)
                    if j is None or dom is None:
                        doc.warn(f"manipulator {name!r}: gripper joint {c.get('joint')!r} not found", c, kind="invalid value")
                        continue
                    m.gripper_joints.append(j.name)
                    for cc in kids(c):
                        if ln(cc) in ("closing_direction", "chucking_direction"):
                            ax = doc.resolve_sid(cc.get("axis") or "", dom)
                            val = 0.0
                            if ax is None or ln(ax) not in _AXIS_TYPES:
                                doc.warn(f"gripper joint {c.get('joint')!r}: axis {cc.get('axis')!r} not found", cc, kind="invalid value")
                            else:
                                val = self._common_float(cc, 0.0)
                            m.chucking_direction.append(val)
                elif k == "iksolver":
                    it = None
                    for itel in kids(c, "interface_type"):
                        t2 = _technique(itel)
                        itf = child(t2, "interface") if t2 is not None else None
                        if itf is not None:
                            it = (itf.get("type") or "", text(itf).strip())
                            break
                    if it is not None:
                        if it[0] in ("", "iksolver"):
                            m.ik_solver = it[1]
                        else:
                            doc.warn(f"iksolver interface type {it[0]!r} is not 'iksolver'", c, kind="invalid value")
                elif k == "restrict_graspset_name":
                    m.restrict_graspset_names.append(text(c))
                elif k not in ("frame_origin", "frame_endlink", "frame_tip", "grippername", "gripperid",
                               "toolChangerConnectedBodyToolName", "toolChangerLinkName"):
                    doc.warn(f"unrecognized tag <{k}> in manipulator {name!r}", c, kind="ignored")
            for i, old in enumerate(body.manipulators):
                if old.name == m.name:
                    body.manipulators[i] = m
                    break
            else:
                body.manipulators.append(m)

    def _sensors(self, body, asys, b) -> None:
        doc = self.doc
        for ex, name, tec in self._named_extras(asys, "attach_sensor", self._sensor_counter, "sensor"):
            s = CSensor(name=self._name(name, ex), link="", line=where(ex))
            fo = child(tec, "frame_origin")
            if fo is not None:
                el = doc.resolve_sid(fo.get("link") or "", asys)
                l = body.link(self._link_name(el)) if el is not None and ln(el) == "link" else None
                if l is None:
                    doc.warn(f"attached sensor {name!r}: link {fo.get('link')!r} not found; dropped", fo, kind="invalid value")
                    continue
                s.link = l.name
                s.transform = doc.transform(fo)
            inst = child(tec, "instance_sensor")
            if inst is not None:
                sensor = doc.url_or_none(inst, "url")
                if sensor is None:
                    doc.warn(f"instance_sensor url {inst.get('url')!r}: no sensor with that id", inst, kind="invalid value")
                else:
                    s.type = sensor.get("type") or ""
                    for c in kids(sensor):
                        s.params[ln(c).lower()] = text(c)
            ras = child(tec, "reference_attach_sensor")
            if ras is not None:
                s.reference_attached_sensor = ras.get("name") or ""
            s.sensor_maker = text(child(tec, "sensor_maker"))
            s.sensor_model = text(child(tec, "sensor_model"))
            body.sensors.append(s)

    def _gripper_infos(self, body, asys) -> None:
        import json
        doc = self.doc
        for ex, name, tec in self._named_extras(asys, "gripper_info", self._gripper_counter, "gripper"):
            data = {}
            jd = child(tec, "json_data")
            if jd is not None:
                try:
                    data = json.loads(text(jd) or "{}")
                except ValueError as e:
                    raise doc.error(f"gripper_info json_data: {e}", jd) from None
            data["name"] = self._name(name, ex)
            body.gripper_infos.append(data)

    def _actuators(self, body, asys, b) -> None:
        doc = self.doc
        ordered = []
        for ex in kids(asys, "extra"):
            if ex.get("type") != "attach_actuator":
                continue
            tec = _technique(ex)
            if tec is None:
                doc.warn(f"attached actuator {ex.get('name')!r} has no OpenRAVE technique", ex, kind="ignored")
                continue
            joint = None
            for c in kids(tec, "bind_actuator"):
                j, dom = self._joint_from_ref(c.get("joint") or "", asys, body, b)
                if j is None and dom is not None:
                    doc.warn(f"actuator {ex.get('name')!r}: joint {dom.get('name') or c.get('joint')!r} is "
                             "attached to no link: ignored (as OpenRAVE does)", c, kind="ignored")
                    continue
                if j is None or dom is None:
                    doc.warn(f"actuator {ex.get('name')!r}: joint {c.get('joint')!r} not found", c, kind="invalid value")
                    continue
                joint = j
                if any(o is j for o in ordered):
                    doc.warn(f"joint {j.name!r} bound to several actuators: listed once", c, kind="dropped")
                elif not any(p is j for p in body.passive_joints):
                    ordered.append(j)
            if joint is not None:
                for c in kids(tec, "instance_actuator"):
                    act = doc.url_or_none(c, "url")
                    if act is not None:
                        joint.electric_motor = self._motor(act)
        initial = [j for j in body.joints if id(j) in self._initial_joints and not any(j is o for o in ordered)]
        rest = [j for j in body.joints if id(j) not in self._initial_joints and not any(j is o for o in ordered)]
        body.joints = initial + ordered + rest

    def _motor(self, act) -> dict:
        doc = self.doc
        info = {"type": act.get("type") or ""}
        for c in kids(act):
            k = ln(c)
            if k == "model_type":
                info[k] = text(c)
            elif k in ("nominal_speed_torque_point", "max_speed_torque_point"):
                v = doc.floats(c)
                info.setdefault(k + "s", []).extend(zip(v[0::2], v[1::2]))
            else:
                try:
                    info[k] = doc.float1(c)
                except Exception:
                    info[k] = text(c)
        return info

    def _connected_bodies(self, body, asys, ias) -> None:
        for ex in list(kids(asys, "extra")) + list(kids(ias, "extra")):
            if ex.get("type") == "connect_body":
                self.doc.warn(f"connected body {ex.get('name')!r} (extra connect_body) is not supported: ignored", ex, kind="unsupported")
                body.unsupported.append(f"connected body {ex.get('name')!r}")

    # ----------------------------------------------------------------------- prefix
    def _add_prefix(self, body, links0, joints0, manips0, sensors0, grippers0) -> None:
        p = self.opts.prefix
        pairs = []
        for l in body.links:
            if id(l) not in links0:
                l.name = p + l.name
        for j in body.all_joints():
            if id(j) not in joints0:
                pairs.append((j.name, p + j.name))
                j.name = p + j.name
        for j in body.all_joints():
            if id(j) not in joints0 and j.mimic is not None:
                j.mimic.equation = search_and_replace(j.mimic.equation, pairs)
                j.mimic.velocity = search_and_replace(j.mimic.velocity, pairs)
                j.mimic.acceleration = search_and_replace(j.mimic.acceleration, pairs)
                if j.mimic.affine is not None:
                    src, k, c = j.mimic.affine
                    j.mimic.affine = (p + src, k, c)
        for m in body.manipulators:
            if id(m) not in manips0:
                m.name = p + m.name
                m.base = p + m.base
                m.ik_chain_end = p + m.ik_chain_end
                m.effector = p + m.effector
                m.gripper_joints = [p + g for g in m.gripper_joints]
        for s in body.sensors:
            if id(s) not in sensors0:
                s.name = p + s.name
        for g in body.gripper_infos:
            if id(g) not in grippers0:
                g["name"] = p + g.get("name", "")
