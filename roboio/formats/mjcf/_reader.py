"""MJCF document -> roboio model (Robot, or World).

What becomes what (documented for users in ``docs/mjcf.md``), after ``fusestatic`` has
fused the static bodies when the file asks (``_fuse``):

* a top-level body with a free joint and no child bodies is a rigid object;
* geoms of ``<worldbody>`` itself are terrains, one per geom;
* every other top-level body is the root of a robot when its subtree has joints or it is a
  mocap body; any other top-level body (fixed scenery) is a terrain of its subtree's geoms,
  posed as the body (its geometry in the body frame);
* a file that then holds exactly one robot and nothing else is that Robot; anything else
  is a World, which records the document order of its top-level bodies (MuJoCo's body and
  qpos order) as ``extras["mjcf"]["bodies"]`` for the writer. A file written by roboio's
  MJCF writer (its ``written by roboio`` comment) reads as it was written: all its
  top-level bodies but the rigid objects and the terrains form one robot.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...context import LoadContext
from ...model import Appearance, Driver, Group, Joint, Link, RigidObject, Robot, Terrain, World
from ...transforms import compose, matrix_vector, rotate_tensor, symmetric_eigen3
from .. import static_mass
from . import _massprops as MP
from ._actuators import attach_drivers
from ._bodies import DEFAULT_RGBA, VISIBLE_GROUPS, body_chain, body_geometry, body_massprops, body_pose, geom_pose
from ._collision import self_collision_pairs
from ._document import Document
from ._fuse import fuse_static
from ._hfield import read_hfields
from ._meshes import read_assets
from ._orient import MJ_MINVAL
from ._tree import Body, read_worldbody
from ._tendons import read_fixed_tendons
from ._unread import FRICTION

__all__ = ["Reader", "build", "read_option", "read_size", "KEPT_SIZES"]

_QPOS_SIZE = {"free": 7, "ball": 4, "hinge": 1, "slide": 1}     # qpos values of a joint type



def _keep_principal_form(owner, b, props) -> None:
    """Keep in ``owner.extras["mjcf"]`` the ``quat`` + ``diaginertia`` body ``b`` gave its
    inertia (with the tensor ``props`` made of them): a writer gives them back while the
    tensor is unchanged (a degenerate or near-degenerate tensor has no principal form that is
    a fixed point of its own: two equal moments leave the axes free)."""
    it = b.inertial
    if it is not None and it.diag is not None:
        owner.extras.setdefault("mjcf", {})["principal_inertia"] = (
            tuple(it.quat) + tuple(it.diag), np.array(props.inertia, dtype=float))

class _Names:
    def __init__(self):
        self.used: set = set()

    def take(self, name: str) -> str:
        nm, k = name, 2
        while nm in self.used:
            nm = f"{name}_{k}"
            k += 1
        self.used.add(nm)
        return nm


class Reader:
    """Builds the model of one :class:`Document`."""

    def __init__(self, doc: Document, roboio_written: bool = False):
        self.doc = doc
        self.ctx: LoadContext = doc.ctx
        self.meshes, self.materials = read_assets(doc)
        self.hfields = read_hfields(doc, lambda count: doc.ctx.charge("vertices", 2 * count))
        self.world, self.replicas = read_worldbody(doc)
        self.roboio_written = roboio_written
        self.massprops: dict = {}          # body id -> MassProps (final, MuJoCo's values)
        self.link_of: dict = {}            # body id -> (robot, link index) of its own link
        self.terrain_of: dict = {}         # body id -> Terrain of a top-level scenery body
        self.joint_links: dict = {}        # joint name -> (robot, [link indices])
        self.geom_body: dict = {}          # geom name -> body
        self.friction: dict = {}           # (id(robot), link) -> (frictionloss, damping)
        self._mass()

    def names(self, name: Optional[str]) -> list:
        """The names an element referred to as ``name`` has: its copies' names when it was
        written inside ``<replicate>`` (MuJoCo replicates the references too)."""
        if name is None:
            return []
        return self.replicas.get(name, [name])

    # -- helpers used by _bodies ------------------------------------------------------
    def color(self, g) -> tuple:
        if g.rgba is not None:
            return g.rgba
        if g.material is not None:
            m = self.materials.get(g.material)
            if m is None:
                raise self.doc.error(g.node, f"unknown material {g.material!r} in geom")
            return m.rgba
        return DEFAULT_RGBA

    def geom_mass(self, g) -> Optional[MP.MassProps]:
        mesh = None
        if g.type in ("mesh", "sdf") or g.mesh is not None:
            if g.type == "mesh" and g.shell:
                raise self.doc.error(g.node, "for mesh geoms, inertia should be specified in the mesh asset")
            asset = self.meshes.get(g.mesh)
            if asset is None:
                raise self.doc.error(g.node, f"unknown mesh {g.mesh!r} in geom")
            if asset.plugin:
                return None
            mesh = asset.props(self.doc)
            kind = "mesh"
        elif g.type == "hfield":
            return None
        else:
            kind = g.type
        try:
            return MP.geom_props(kind, g.size, g.pos, g.quat, g.mass, g.density, g.shell, mesh)
        except OverflowError:
            raise self.doc.error(g.node, f"geom of size {' '.join(map(repr, g.size))}: its "
                                         "mass properties overflow a double") from None

    # -- mass properties --------------------------------------------------------------
    def _mass(self) -> None:
        c = self.doc.compiler
        bodies = [b for b in self.world.walk() if b.id > 0]
        _unique_names(self.doc, bodies)
        for b in bodies:
            props = body_massprops(b, self)
            if props is None:
                # MuJoCo then copies the body's own pose (in its parent) into its inertial
                # frame: where a ``boundmass`` mass sits (and what fusestatic carries up)
                props = MP.MassProps(0.0, np.array(b.pos, float), np.zeros((3, 3)))
                bounded = self._bounded(b, props)
                if bounded.mass == 0:
                    bounded.com = np.zeros(3)
            else:
                bounded = self._bounded(b, props)
            self.massprops[b.id] = bounded
        if c.fusestatic:
            fuse_static(self)       # renumbers the bodies and merges their mass properties
            bodies = [b for b in self.world.walk() if b.id > 0]
        if c.settotalmass > 0:
            total = sum(p.mass for p in self.massprops.values())
            if total > 0:
                k = c.settotalmass / total
                for p in self.massprops.values():
                    p.mass *= k
                    p.inertia = p.inertia * k
        for b in bodies:
            if b.joints and not self._holds_mass(b):
                self.doc.warn(b.node, f"body {b.label!r}: mass and inertia of moving bodies must be "
                                      "larger than mjMINVAL (MuJoCo refuses this model)", kind="invalid value")

    def _bounded(self, b: Body, p: MP.MassProps) -> MP.MassProps:
        """``boundmass``, ``boundinertia``, ``balanceinertia`` and MuJoCo's checks, on the
        principal moments as MuJoCo applies them."""
        c = self.doc.compiler
        node = b.inertial.node if b.inertial is not None else b.node
        if not (np.isfinite(p.mass) and np.all(np.isfinite(p.inertia)) and np.all(np.isfinite(p.com))):
            raise self.doc.error(node, f"body {b.label!r}: mass properties overflow (numbers too large)")
        I = (p.inertia + p.inertia.T) / 2
        w, V = symmetric_eigen3(I)
        mass = max(p.mass, c.boundmass)
        new = np.maximum(w, c.boundinertia)
        scale = max(1.0, float(np.abs(w).max()))
        if mass < 0 or w[0] < -1e-14 * scale:
            raise self.doc.error(node, f"body {b.label!r}: mass and inertia cannot be negative")
        if new[0] + new[1] < new[2] * (1 - 1e-12):
            if not c.balanceinertia:
                raise self.doc.error(node, f"body {b.label!r}: inertia must satisfy A + B >= C; use "
                                           "'balanceinertia' to fix")
            new = np.full(3, new.sum() / 3)
        if np.any(new != w):
            return MP.MassProps(mass, p.com, compose(V * new, V.T))
        return MP.MassProps(mass, p.com, I)

    def _holds_mass(self, b: Body) -> bool:
        p = self.massprops[b.id]
        if p.mass >= MJ_MINVAL and p.diag[0] >= MJ_MINVAL:
            return True
        return any(not c.joints and self._holds_mass(c) for c in b.children)

    # -- model ------------------------------------------------------------------------
    def build(self):
        """The Robot or World of the file; the sites of ``<worldbody>`` itself, and those of
        static bodies without geoms, kept on it (:func:`kept_sites`, in the world frame)."""
        self.world_sites = [(x, None) for x in self.world.sites]
        model = self._build()
        if self.world_sites:
            model.extras.setdefault("mjcf", {}).update(kept_sites([x for x, _ in self.world_sites],
                                                                  [T for _, T in self.world_sites]))
        return model

    def _build(self):
        doc = self.doc
        tops = self.world.children
        objects = [b for b in tops if len(b.joints) == 1 and b.joints[0].type == "free" and not b.children]
        rest = [b for b in tops if not any(b is o for o in objects)]
        if self.roboio_written:        # its terrains of several geoms: bodies of class "terrain"
            scenery = [b for b in rest if b.node.get("childclass") == "terrain" and not b.has_joints()]
            rest = [b for b in rest if not any(b is s for s in scenery)]
            groups = [rest] if rest else []
        else:
            groups = [[b] for b in rest if b.has_joints() or b.mocap]
            scenery = [b for b in rest if not (b.has_joints() or b.mocap)]
        terrains = self._terrains(scenery)
        if len(groups) == 1 and not objects and not terrains:
            robot = self.robot(groups[0], doc.model)
            self._finish([robot])
            index = self._qpos_index(groups[0])
            self._read_keys(robot, index, [], len(index))
            return robot
        world = World(doc.model)
        for t in terrains:
            world.add(t)
        made = {b.id: world.add(self.rigid_object(b)) for b in objects}
        robots = [self.robot(g, g[0].label if len(groups) > 1 else doc.model) for g in groups]
        self._finish(robots)
        # each robot keeps its part of every key (the MJCF writer joins the parts again),
        # the first robot that moves the objects' parts too
        moving = [(r, self._qpos_index(g)) for r, g in zip(robots, groups)]
        moving = [(r, index) for r, index in moving if len(index)]
        if moving:
            size = max(int(index.max()) + 1 for _, index in moving)     # (keys left out alike)
            for k, (r, index) in enumerate(moving):
                self._read_keys(r, index, [] if k else
                                [(made[b.id], self._qpos_index([b])[0]) for b in objects],
                                size, warn=k == 0)
        else:
            self._keys_not_read("the model holds no robot that moves" if robots else
                                "the model holds no robot")
        for r in robots:
            world.add(r)
        world.extras.setdefault("mjcf", {})["bodies"] = self._body_order(tops, made)
        return world

    def _body_order(self, tops: list, objects: dict) -> list:
        """The document order of the top-level bodies (MuJoCo's body ids, and so its qpos
        order): ``["robot", robot name, name of the root body's link]``, ``["object", name]``
        or ``["terrain", name]`` each; the MJCF writer writes a world in this order."""
        out = []
        for b in tops:
            if b.id in objects:
                out.append(["object", objects[b.id].name])
            elif b.id in self.terrain_of:
                out.append(["terrain", self.terrain_of[b.id].name])
            elif b.id in self.link_of:
                robot, own = self.link_of[b.id]
                out.append(["robot", robot.name, robot.links[own].name])
        return out

    def _qpos_index(self, roots: list) -> np.ndarray:
        """The indices in MuJoCo's qpos of the joints of the top-level bodies ``roots``, in
        their order (qpos follows the bodies' document order)."""
        start, at = 0, {}
        for b in self.world.children:
            at[b.id] = start
            start += sum(_QPOS_SIZE[j.type] for d in b.walk() for j in d.joints)
        out = []
        for b in roots:
            n = sum(_QPOS_SIZE[j.type] for d in b.walk() for j in d.joints)
            out += range(at[b.id], at[b.id] + n)
        return np.asarray(out, dtype=int)

    def _keys(self):
        return [n for sec in self.doc.sections.get("keyframe", []) for n in self.doc.kids(sec, 2)
                if n.tag == "key"]

    def _read_keys(self, robot, index: np.ndarray, objects: list, size: int, warn: bool = True) -> None:
        """The model's keyframes, for the robot whose joints have the qpos indices ``index``
        and the free ``objects`` (``(RigidObject, qpos address)``): the ``initial`` key of a
        file roboio wrote is the robot's configuration (where its writer puts
        ``robot.config``; MuJoCo itself starts from qpos0, the joint refs, which is the
        configuration otherwise); every other key is kept as
        ``robot.extras["mjcf"]["keyframes"]``: ``{"name", "time" (s), "qpos"}`` with the
        robot's part of the key's qpos (MuJoCo coordinates; qpos0 where the key gives none,
        as MuJoCo fills it), and each object's part (its 7 free-joint values) as
        ``object.extras["mjcf"]["keyframes"]`` (``{"name", "qpos"}``, one per robot key,
        ``qpos`` None where the key gives none or is too short for it).
        :func:`roboio.model.qpos.keyframe_trajectory` makes the robot's a motion. A key of
        fewer than ``size`` values (what the robots need) is left out (``warn``: with a
        warning)."""
        qpos0 = robot.qpos_from_config(robot.config)
        kept, initial, parts = [], False, []
        for n in self._keys():
            name = n.get("name")
            qpos = None if n.get("qpos") is None else np.asarray(self.doc.floats(n, "qpos"), dtype=float)
            if qpos is not None and len(qpos) < size:
                if warn:
                    self.doc.warn(n, f"key {name or len(kept)!r} has {len(qpos)} qpos values, the "
                                  f"model {size}: the key is not read")
                continue
            part = qpos0 if qpos is None else qpos[index]
            if self.roboio_written and name == "initial" and not initial:
                initial = True
                if qpos is not None:
                    robot.config = robot.config_from_qpos(part)
                continue
            t = 0.0 if n.get("time") is None else float(self.doc.floats(n, "time", 1)[0])
            kept.append({"name": name, "time": t, "qpos": [float(v) for v in part]})
            parts.append(None if qpos is None else qpos)
        if kept:
            robot.extras.setdefault("mjcf", {})["keyframes"] = kept
            for o, a in objects:
                o.extras.setdefault("mjcf", {})["keyframes"] = [
                    {"name": k["name"], "qpos": None if q is None or len(q) < a + 7 else [float(v) for v in q[a:a + 7]]}
                    for k, q in zip(kept, parts)]

    def _keys_not_read(self, why: str) -> None:
        keys = self._keys()
        if keys:
            self.doc.warn(keys[0], f"{len(keys)} keyframes not read: {why}")

    def _finish(self, robots: list) -> None:
        attach_drivers(self, robots)
        read_fixed_tendons(self)
        for r in robots:
            r.self_collision_pairs = self_collision_pairs(self, r)

    def _terrains(self, scenery: list) -> list:
        out = []
        names = _Names()
        for k, g in enumerate(self.world.geoms):
            coll, vis, color = body_geometry([g], self)
            geo = coll if coll is not None else vis
            if geo is None:
                continue
            t = Terrain(names.take(g.name or f"geom{k}"), geo)
            t.kFriction = self._friction_of([g])
            if color is not None:
                t.appearance.color = tuple(color)
            out.append(t)
        for b in scenery:
            # the terrain's pose is the body's (MuJoCo's body_pos and body_quat), its geometry
            # in the body frame as the file gives it
            geoms, poses = [], []
            for d in b.walk():
                T = _pose_in(d, b)
                for g in d.geoms:
                    geoms.append(g)
                    poses.append(T)
            if not geoms:
                # its sites stay where MuJoCo puts them: sites of the world at their world pose
                sites = [(x, compose(body_pose(b), T) if T is not None else body_pose(b))
                         for d in b.walk() for T in [_pose_in(d, b)] for x in d.sites]
                if sites:
                    self.world_sites += sites
                    self.doc.warn(b.node, f"static body {b.label!r} has no geoms: not read; its sites "
                                          f"({', '.join(x.name or '?' for x, _ in sites)}) kept as sites of "
                                          "the world", kind="restructured")
                continue
            colliding, drawn_only, made = [], [], []
            for g, T in zip(geoms, poses):
                coll, vis, _ = body_geometry([g], self)
                geo = coll if coll is not None else vis
                if geo is not None:
                    if T is not None:
                        geo.apply_transform(T)
                    made.append((g, geo))
            # the terrain's colour is the first drawn geom's; a geom of another has its own
            first = next((tuple(float(c) for c in self.color(g)) for g, _ in made if g.group in VISIBLE_GROUPS), None)
            for g, geo in made:
                rgba = tuple(float(c) for c in self.color(g))
                if first is not None and rgba != first:
                    geo.appearance = Appearance(color=rgba)
                # a visual geom beside colliding ones is drawn only (kept for writing back)
                (drawn_only if g.visual else colliding).append(geo)
            if not colliding:
                colliding, drawn_only = drawn_only, []
            if colliding:
                t = Terrain(names.take(b.label), colliding[0] if len(colliding) == 1 else Group(colliding),
                            body_pose(b))
                t.kFriction = self._friction_of(geoms)
                if first is not None:
                    t.appearance.color = first
                t.extras["mjcf"] = {"body": True}          # (written back as a body)
                if drawn_only:
                    t.extras["mjcf"]["visual_geometry"] = (drawn_only[0] if len(drawn_only) == 1
                                                           else Group(drawn_only))
                self._scenery_parts(b, t)
                mass = self._scenery_mass(b)
                if mass is not None:
                    static_mass.keep(t, mass.mass, mass.com, mass.inertia)
                self.terrain_of[b.id] = t
                out.append(t)
        return out

    def _scenery_parts(self, b: Body, t: Terrain) -> None:
        """The sites of scenery body ``b`` and of the static bodies in it, kept (as on a
        link) as ``t.extras["mjcf"]["sites"]`` (name -> 4x4 pose in the terrain frame); a
        static body nested in ``b`` is named in a note (its geoms are part of ``t``)."""
        sites = []
        for d in b.walk():
            T = _pose_in(d, b)
            if d is not b:
                self.doc.warn(d.node, f"static body {d.label!r} read as part of terrain {t.name!r} "
                                      f"(its geoms and mass placed in the frame of body {b.label!r})", kind="restructured")
            sites += [(x, T) for x in d.sites]
        if sites:
            t.extras["mjcf"].update(kept_sites([x for x, _ in sites], [T for _, T in sites]))

    def _scenery_mass(self, b: Body) -> Optional[MP.MassProps]:
        """The mass MuJoCo compiles for scenery body ``b`` and the static bodies in it
        (``body_mass``, ``body_ipos``, ``body_inertia``: each body's as the reading computed
        it, boundmass included), summed in ``b``'s frame, or None when massless. (A nested
        static body's mass joins ``b``'s, as its geoms join the terrain.)"""
        parts = []
        for d in b.walk():
            p = self.massprops.get(d.id)
            if p is None or (p.mass == 0 and not np.any(p.inertia)):
                continue
            T = _pose_in(d, b)
            if T is not None:
                R = T[:3, :3]
                p = MP.MassProps(p.mass, matrix_vector(R, p.com) + T[:3, 3], rotate_tensor(R, p.inertia))
            parts.append(p)
        return MP.combine(parts) if parts else None

    def _friction_of(self, geoms: list) -> float:
        """The kFriction of a terrain or rigid object of ``geoms``: their sliding friction
        (MuJoCo's default 1 where none is set; what one value cannot hold is warned)."""
        kept = self.doc.unread.friction(geoms, whole=True)
        return FRICTION[0] if kept is None else kept

    def rigid_object(self, b: Body) -> RigidObject:
        coll, vis, color = body_geometry(b.geoms, self)
        o = RigidObject(b.label, coll if coll is not None else vis, body_pose(b))
        o.kFriction = self._friction_of(b.geoms)
        if coll is not None and vis is not None:      # drawn differently: kept for writing back
            o.extras["mjcf"] = {"visual_geometry": vis}
        p = self.massprops[b.id]
        o.mass, o.com, o.inertia = float(p.mass), np.array(p.com), np.array(p.inertia)
        _keep_principal_form(o, b, p)
        if color is not None:
            o.appearance.color = tuple(color)
        if b.joints[0].name and b.joints[0].name != b.label:
            o.extras.setdefault("mjcf", {})["joint"] = b.joints[0].name
        if b.sites:
            o.extras.setdefault("mjcf", {}).update(kept_sites(b.sites))
        return o

    def robot(self, roots: list, name: str) -> Robot:
        ctx = self.ctx
        robot = Robot(name)
        names = _Names()
        links, qmin, qmax, q0, tmax = [], [], [], [], []
        joints = []
        stack = [(b, -1) for b in reversed(roots)]
        while stack:
            b, parent_link = stack.pop()
            specs = body_chain(b, names)
            ctx.charge("links", len(specs), b.node.line if b.node else None)
            first = len(links)
            group_links: dict = {}
            for k, s in enumerate(specs):
                parent = -1 if s.world_parent else (parent_link if k == 0 else len(links) - 1)
                link = Link(s.name, parent, s.kind, s.axis, s.T, mass=0.0, inertia=np.zeros((3, 3)),
                            joint_name=s.joint.name if s.joint is not None else None)
                if s.extras:
                    link.extras["mjcf"] = dict(s.extras)
                links.append(link)
                qmin.append(s.qmin)
                qmax.append(s.qmax)
                tmax.append(_torque_limit(s.joint, self.doc) if k == 0 or specs[k - 1].joint is not s.joint
                            else tmax[-1])
                fr = _friction(s.joint, self.doc)
                if fr is not None and s.group in ("floating", "ballandsocket"):
                    if id(s.joint) not in group_links:        # (once per joint)
                        self.doc.warn(s.joint.node, f"frictionloss and damping of {s.joint.type} "
                                      f"joint {s.joint.name or ''!r} not read (roboio keeps them "
                                      "on the drivers of one-DOF joints)", kind="dropped")
                elif fr is not None:
                    self.friction[(id(robot), len(links) - 1)] = fr
                q0.append(s.q0)
                key = id(s.joint) if s.joint is not None else ("weld", len(links))
                group_links.setdefault(key, (s.group, []))[1].append(len(links) - 1)
                if s.joint is not None and s.joint.name:
                    self.joint_links[s.joint.name] = (robot, group_links[key][1])
            for gtype, idx in group_links.values():
                joints.append(Joint(gtype, idx, links[idx[0]].parent))
            own = first + next(k for k, s in enumerate(specs) if s.body_link)
            self.link_of[b.id] = (robot, own)
            lk = links[own]
            p = self.massprops[b.id]
            lk.mass, lk.com, lk.inertia = float(p.mass), p.com, p.inertia
            _keep_principal_form(lk, b, p)
            geoms = [g for g in b.geoms if not (self.doc.compiler.discardvisual and g.visual)]
            coll, vis, color = body_geometry(geoms, self)
            lk.geometry, lk.visual_geometry = coll, vis
            if color is not None:
                lk.appearance.color = tuple(color)
            info = {}
            if b.mocap:
                info["mocap"] = True
            if b.sites:
                info.update(kept_sites(b.sites))
            if info:
                lk.extras.setdefault("mjcf", {}).update(info)
            self.doc.unread.friction(b.geoms, whole=False)
            for g in b.geoms:
                if g.name:
                    self.geom_body[g.name] = b
            for c in reversed(b.children):
                stack.append((c, own))
        robot.set_links(links, qmin=qmin, qmax=qmax, config=q0, tmax=tmax)
        robot.joints = joints
        robot.source = self.doc.path
        return robot


def _friction(joint, doc: Document):
    """``(frictionloss, damping)`` of a joint that has either (its driver's dry and viscous
    friction, which the MJCF writer writes them from), else None."""
    if joint is None:
        return None
    out = []
    for key in ("frictionloss", "damping"):
        text = joint.attrs.get(key)
        try:
            out.append(float(text) if text else 0.0)
        except ValueError:
            raise doc.error(joint.node, f"{key} {text!r} is not a number in joint") from None
    return tuple(out) if any(out) else None


def _torque_limit(joint, doc: Document) -> float:
    """A joint's ``actuatorfrcrange`` when it is symmetric, ``-t t`` (Klamp't's torque limit
    ``tmax``, which the MJCF writer writes so), else inf (the attribute stays data)."""
    text = joint.attrs.get("actuatorfrcrange") if joint is not None else None
    if not text:
        return np.inf
    limited = joint.attrs.get("actuatorfrclimited", "auto")
    if limited == "false" or (limited == "auto" and not doc.compiler.autolimits):
        return np.inf
    try:
        lo, hi = (float(x) for x in text.split())
    except ValueError:
        raise doc.error(joint.node, f"actuatorfrcrange {text!r} is not two numbers in joint") from None
    if lo == -hi and hi > 0:
        return hi
    if (lo, hi) != (0.0, 0.0):
        doc.warn(joint.node, f"joint {joint.name or ''!r}: actuatorfrcrange \"{text}\" not read (roboio's "
                             "torque limit is symmetric, -tmax .. tmax)", kind="dropped")
    return np.inf


def _unique_names(doc: Document, bodies: list) -> None:
    """MuJoCo refuses a name used twice by elements of one kind."""
    for kind, items in (("body", [(b.name, b.node) for b in bodies]),
                        ("joint", [(j.name, j.node) for b in bodies for j in b.joints]),
                        ("geom", [(g.name, g.node) for b in bodies for g in b.geoms]),
                        ("site", [(s.name, s.node) for b in bodies for s in b.sites])):
        seen = set()
        for name, node in items:
            if name is None:
                continue
            if name in seen or (kind == "body" and name == "world"):
                raise doc.error(node, f"repeated name {name!r} in {kind}")
            seen.add(name)


def kept_sites(sites: list, frames: Optional[list] = None) -> dict:
    """``{"sites": name -> 4x4 pose, "site_shapes": name -> site_shape}`` of ``sites``
    (SiteRec) in the frame of the element that keeps them (``frames``: each site's body
    pose in that frame, None for the element's own body). An unnamed site is kept as
    ``site<k>`` (``k``: its place in the list), a repeated name as ``<name>_<k>``."""
    poses, shapes = {}, {}
    for k, x in enumerate(sites):
        T = frames[k] if frames is not None else None
        key = x.name or f"site{k}"
        key = key if key not in poses else f"{key}_{k}"
        poses[key] = make_pose(x) if T is None else compose(T, np.asarray(make_pose(x))).tolist()
        shapes[key] = site_shape(x)
    return {"sites": poses, "site_shapes": shapes}


def site_shape(s) -> dict:
    """What a site is besides its pose: ``{"type", "size"}`` (the three values MuJoCo
    compiles, m), ``"unnamed": True`` for a site without a name (kept under a made-up one)."""
    out = {"type": s.type, "size": [float(v) for v in s.size]}
    if not s.name:
        out["unnamed"] = True
    return out


def make_pose(s) -> list:
    from ._bodies import _mat
    T = np.eye(4)
    T[:3, :3] = _mat(s.quat)
    T[:3, 3] = s.pos
    return T.tolist()


def _pose_in(b: Body, top: Body) -> Optional[np.ndarray]:
    """Pose of body ``b`` in the frame of its ancestor ``top`` (None: ``b`` is ``top``)."""
    chain = []
    while b is not top:
        chain.append(b)
        b = b.parent
    if not chain:
        return None
    T = body_pose(chain[-1])
    for d in reversed(chain[:-1]):
        T = compose(T, body_pose(d))
    return T


def build(data: bytes, ctx: LoadContext):
    """The model of MJCF ``data`` (see the module docstring)."""
    doc = Document(data, ctx)
    head = data[:4096] if isinstance(data, bytes) else data[:4096].encode()
    reader = Reader(doc, b"<!-- written by roboio -->" in head)
    model = reader.build()
    model.extras.setdefault("mjcf", {})["option"] = read_option(doc)
    size = read_size(doc)
    if size:
        model.extras["mjcf"]["size"] = size
    doc.unread.warn(doc)
    return model


# <option> attributes a reading keeps (written back by the MJCF writer), and <flag>s it reads
_KEPT_OPTIONS = ("timestep", "integrator")
_INTEGRATORS = ("Euler", "RK4", "implicit", "implicitfast")
_READ_FLAGS = ("filterparent",)        # (the self-collision pairs follow it)


# <size> attributes a reading keeps (written back by the MJCF writer): the key count MuJoCo
# pads the keyframes to, and the memory the simulation is given
KEPT_SIZES = ("nkey", "memory", "njmax", "nconmax", "nstack")


def read_size(doc: Document) -> dict:
    """What a reading keeps of ``<size>``: ``nkey`` (int: MuJoCo appends keys at qpos0,
    unnamed, at time 0, until the model has that many) and the memory sizes (``memory``,
    ``njmax``, ``nconmax``, ``nstack``: their text); later ``<size>`` elements override
    earlier ones, as in MuJoCo. Every other attribute is named in a warning."""
    kept: dict = {}
    for sec in doc.sections.get("size", []):
        for k, v in sec.el.attrib.items():
            if k == "nkey":
                n = doc.ints(sec, k, 1)[0]
                if n < 0:
                    raise doc.error(sec, f"<size nkey=\"{v}\">: a count, at least 0")
                kept[k] = n
            elif k in KEPT_SIZES:
                kept[k] = v.strip()
        other = sorted(k for k in sec.el.attrib if k not in KEPT_SIZES)
        if other:
            doc.warn(sec, f"<size> {', '.join(other)} not read (roboio keeps nkey and the memory "
                          "sizes)", kind="dropped")
    return kept


def read_option(doc: Document) -> dict:
    """What a reading keeps of ``<option>``: ``integrator`` (MuJoCo's default ``Euler``
    when none is given) and ``timestep`` (s) where given; every other attribute, and every
    ``<flag>`` but ``filterparent``, is named in a warning."""
    kept = {"integrator": "Euler"}
    for sec in doc.sections.get("option", []):
        a = doc.attrs(sec, "main", "option")
        if a.text("integrator") is not None:
            kept["integrator"] = a.choice("integrator", _INTEGRATORS)
        if a.text("timestep") is not None:
            kept["timestep"] = a.float("timestep")
        other = sorted(k for k in a.own if k not in _KEPT_OPTIONS)
        for n in doc.kids(sec, 2):
            if n.tag == "flag":
                other += [f"flag {k}" for k in sorted(n.el.attrib) if k not in _READ_FLAGS]
            else:
                other.append(f"<{n.tag}>")
        if other:
            doc.warn(sec, f"<option> {', '.join(other)} not read (roboio keeps the integrator and "
                          "timestep)", kind="dropped")
    return kept
