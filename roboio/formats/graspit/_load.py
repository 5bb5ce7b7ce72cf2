"""Reading GraspIt! files and the files they reference, the way GraspIt! finds them:

* a robot's ``<palm>`` and ``<link>`` body files in ``<robot dir>/iv/``; its eigengrasp,
  virtual-contact and CyberGlove files relative to the robot dir;
* a body's ``<geometryFile>`` relative to the body file (an inline world ``<body>``:
  relative to the GraspIt! root); a referenced file that is not ``.xml`` is a bare geometry
  described by ``$GRASPIT/models/objects/default.xml`` (scaled x1000: metres);
* a world's ``<filename>``/``<mountFilename>`` relative to the GraspIt! root: the load's
  search paths, then ``$GRASPIT``, then (roboio's fallback for the usual layout
  ``$GRASPIT/worlds/``) the world's folder and its parent, and the folder holding the
  ``worlds`` folder of a world in a subfolder of it (``worlds/PSA/x.xml``).

Every file opened is charged to the load's budget; a file that references itself (directly
or through others) is a FormatError naming the chain.
"""
from __future__ import annotations

import os
from typing import Optional

import numpy as np
from lxml import etree

from ...context import LoadContext
from ...errors import HINT_DATA_PATH, CompanionFile, FormatError
from ...model import GeometrySource, TriangleMesh, World
from ...resolve import resolve
from .. import loading, xmlutil
from ..fileio import read_bytes, read_text
from ._build import BodyData, body_data, build_robot, mm_to_m, rigid_object, terrain
from ._parse import parse_body, parse_robot, parse_world, parse_xml
from ._records import CameraRec, ConnectionRec, WorldItem
from ._transform import matrix_mm
from .robot_data import (Approach, DataFileError, parse_eigengrasps, parse_virtual_contacts)

__all__ = ["load_root", "graspit_roots", "body_name"]


def body_name(path: str) -> str:
    """GraspIt!'s element name: the file name up to its first dot."""
    return os.path.basename(path).split(".", 1)[0]


def graspit_roots(ctx: LoadContext, near: Optional[str] = None) -> list:
    roots = list(ctx.search_paths)
    env = os.environ.get("GRASPIT")
    if env:
        roots.append(env)
    if near:
        d = os.path.dirname(os.path.abspath(near))
        roots += [d, os.path.dirname(d)]
        # a world in a subfolder of $GRASPIT/worlds (worlds/PSA/x.xml): the folder holding
        # that worlds folder
        up = os.path.dirname(d)
        while os.path.basename(up) and os.path.basename(up).lower() != "worlds":
            up = os.path.dirname(up)
        if os.path.basename(up):
            roots.append(os.path.dirname(up))
    out = []
    for r in roots:
        if r and r not in out:
            out.append(r)
    return out


def _find(ref: str, bases: list, ctx: LoadContext, line, path) -> Optional[str]:
    """``ref`` joined to the first of ``bases`` where it exists (exact case first, then
    ignoring case, with a warning)."""
    cands = [os.path.normpath(os.path.join(b, ref)) for b in bases] if not os.path.isabs(ref) else [ref]
    for c in cands:
        if os.path.isfile(c):
            return c
    for c in cands:
        res = resolve(c)
        if res:
            if res.note:
                ctx.warn(res.note, line, path=path, kind="guessed")
            return res.path
    return None


class _Opened:
    """Context manager: a referenced file on the load's stack (cycle check, file budget)."""

    def __init__(self, path: str, ctx: LoadContext, line, referrer: Optional[str]):
        self.path, self.ctx, self.line, self.referrer = path, ctx, line, referrer

    def __enter__(self):
        key = os.path.realpath(self.path)
        if key in self.ctx.stack:
            chain = self.ctx.stack[self.ctx.stack.index(key):] + [key]
            raise self.ctx.error("file includes itself: " + " -> ".join(chain), self.line,
                                 path=self.referrer)
        self.ctx.charge("files", 1, self.line, what=f"opening {self.path}")
        self.ctx.check_depth(len(self.ctx.stack) + 1, self.line, what="nested file references")
        self.ctx.stack.append(key)
        return self

    def __exit__(self, *exc):
        self.ctx.stack.pop()
        return False


# -- bodies --------------------------------------------------------------------------------
def _geometry(rec, base_dir: str, ctx: LoadContext, path: str):
    """The body's geometry file, loaded (lazily) through the shared mesh readers."""
    ref = rec.geometry_file
    gtype = rec.geometry_type or "Inventor"
    found = _find(ref, [base_dir], ctx, rec.geometry_line, path)
    if found is None:
        tried = ref if os.path.isabs(ref) else os.path.normpath(os.path.join(base_dir, ref))
        ctx.warn(f"geometry file {ref!r} not found (looked for {tried}); the body has no geometry",
                 rec.geometry_line, path=path, kind="missing file", hint=HINT_DATA_PATH)
        return TriangleMesh(source=GeometrySource(ref, None, None), missing=True)
    ext = found.lower().rsplit(".", 1)[-1] if "." in os.path.basename(found) else ""
    if gtype == "Inventor":
        fmt = None if ext in ("iv", "wrl", "vrml") else "inventor"
    else:
        fmt = gtype
    g = loading.load_geometry(found, ctx, fmt)
    g.source = GeometrySource(ref, found, g.source.format if g.source is not None else fmt)
    return g


def _boilerplate_root(ctx: LoadContext, near: Optional[str], line, path):
    """``models/objects/default.xml`` of the GraspIt! root (a built-in copy if absent)."""
    for r in graspit_roots(ctx, near):
        p = os.path.join(r, "models", "objects", "default.xml")
        if os.path.isfile(p):
            with _Opened(p, ctx, line, path):
                return parse_xml(read_bytes(p, ctx), p, ctx.child(p)), p
    ctx.warn("models/objects/default.xml not found in the GraspIt! root; bare geometry files are "
             "read with its usual content (<geometryScaling>1000</geometryScaling>)", line, path=path, kind="guessed")
    return etree.fromstring(b"<root><geometryScaling>1000</geometryScaling></root>"), None


def load_body(path: str, ctx: LoadContext, *, dynamic: bool, line=None, referrer=None,
              near: Optional[str] = None) -> BodyData:
    """A body file (or a bare geometry file wrapped in ``default.xml``)."""
    if os.path.basename(path).rsplit(".", 1)[-1] != "xml":
        root, default_path = _boilerplate_root(ctx, near or referrer, line, referrer)
        root = etree.fromstring(etree.tostring(root))
        el = etree.SubElement(root, "geometryFile")
        el.text = os.path.abspath(path)
        ext = path.rsplit(".", 1)[-1] if "." in os.path.basename(path) else ""
        if ext in ("iv", "wrl"):
            el.set("type", "Inventor")
        elif ext in ("off", "ply"):
            el.set("type", ext)
        rec = parse_body(root, default_path, ctx, where_path=default_path or referrer)
        if not os.path.isfile(path):
            ctx.warn(f"geometry file {path} not found; the body has no geometry", line, path=referrer, kind="missing file", hint=HINT_DATA_PATH)
            geom = TriangleMesh(source=GeometrySource(path, None, None), missing=True)
        else:
            geom = _geometry(rec, os.path.dirname(path), ctx, referrer)
        data = body_data(rec, geom, ctx, dynamic=dynamic, path=referrer)
        data.extras["bare_geometry"] = path
        return data
    with _Opened(path, ctx, line, referrer):
        key = ("graspit-body", os.path.realpath(path))
        root = ctx.cache.get(key)
        if root is None:
            root = parse_xml(read_bytes(path, ctx), path, ctx.child(path))
            ctx.cache[key] = root
        if root.tag in ("robot", "world"):
            raise ctx.error(f"{path} is a GraspIt! {root.tag} file, not a body", line, path=referrer)
        rec = parse_body(root, path, ctx)
        geom = _geometry(rec, os.path.dirname(path), ctx, path)
        return body_data(rec, geom, ctx, dynamic=dynamic, path=path, memo=key[1])


def _missing_body(ref_path: str, ctx, line, referrer, dynamic):
    ctx.warn(f"body file {ref_path} not found; the link has no geometry and default mass", line,
             path=referrer, kind="missing file", hint=HINT_DATA_PATH)
    from ._records import BodyRec
    rec = BodyRec(path=ref_path, geometry_file=None)
    data = body_data(rec, None, ctx, dynamic=False, path=referrer)
    data.extras["missing"] = ref_path
    return data


def _link_body(robot_dir: str, ref: str, ctx, line, referrer):
    iv = os.path.join(robot_dir, "iv")
    found = _find(ref, [iv], ctx, line, referrer)
    if found is None:
        if ctx.strict:
            raise ctx.error(f"link body file {ref!r} not found in {iv}", line, path=referrer)
        return _missing_body(os.path.join(iv, ref), ctx, line, referrer, True)
    return load_body(found, ctx, dynamic=True, line=line, referrer=referrer)


# -- robots --------------------------------------------------------------------------------
def _data_file(robot_dir, ref, what, ctx, line, referrer):
    """Root element of an eigengrasp / virtual-contact file, or None (warning) when
    GraspIt! would fall back (missing or unreadable file)."""
    p = _find(ref, [robot_dir], ctx, line, referrer)
    if p is None:
        ctx.warn(f"{what} file {ref!r} not found next to the robot; GraspIt! goes on without it",
                 line, path=referrer, kind="missing file", hint=HINT_DATA_PATH)
        return None, None
    with _Opened(p, ctx, line, referrer):
        data = read_bytes(p, ctx)
        if not data.lstrip()[:1] == b"<":
            # GraspIt! 0.9's text files (.vgr virtual contacts): the XML versions of GraspIt!
            # fail to parse them, log it and load the robot without them
            ctx.warn(f"{what} file {ref!r} is not XML (GraspIt! 0.9's text format?): GraspIt! "
                     f"logs 'Failed to load {what.replace('-', ' ')}s' and goes on without it",
                     line, path=referrer, kind="dropped")
            return None, None
        try:
            return parse_xml(data, p, ctx.child(p)), p
        except FormatError as e:
            if "malformed XML" not in str(e):
                raise
            ctx.warn(f"{what} file {ref!r} cannot be read ({e}); GraspIt! goes on without it",
                     line, path=referrer, kind="unreadable file")
            return None, None


def load_robot(root, path: str, ctx: LoadContext):
    rec = parse_robot(root, path, ctx)
    robot_dir = os.path.dirname(os.path.abspath(path))
    palm = _link_body(robot_dir, rec.palm, ctx, rec.palm_line, path)
    rec.palm_body = palm.record
    links = []
    for chain in rec.chains:
        row = []
        for lr in chain.links:
            b = _link_body(robot_dir, lr.file, ctx, lr.line, path)
            lr.body = b.record
            row.append(b)
        links.append(row)
    robot = build_robot(rec, body_name(path), palm, links, ctx)
    gx = robot.extras["graspit"]
    if rec.approach is not None:
        gx["approach"] = Approach(rec.approach.reference_location, rec.approach.direction)
    if rec.eigengrasps:
        gx["eigengrasps"] = None
        if not rec.eigengrasps.endswith(".xml"):
            ctx.warn(f"eigengrasp file {rec.eigengrasps!r} is not .xml: GraspIt! uses identity "
                     "eigengrasps", path=path, kind="dropped")
        else:
            eroot, epath = _data_file(robot_dir, rec.eigengrasps, "eigengrasp", ctx, None, path)
            if eroot is not None:
                try:
                    eg = parse_eigengrasps(eroot)
                    if eg.dimensions != len(rec.dofs):
                        ctx.warn(f"eigengrasp file has dimensions={eg.dimensions} but the robot has "
                                 f"{len(rec.dofs)} DOFs", path=epath, kind="invalid value")
                    gx["eigengrasps"] = eg
                except DataFileError as e:
                    ctx.warn(f"{e}; GraspIt! uses identity eigengrasps", e.line, path=epath, kind="unreadable file")
    if rec.virtual_contacts:
        vroot, vpath = _data_file(robot_dir, rec.virtual_contacts, "virtual-contact", ctx, None, path)
        gx["virtual_contacts"] = None
        if vroot is not None:
            try:
                vcs = parse_virtual_contacts(vroot)
            except DataFileError as e:
                raise ctx.error(str(e), e.line, path=vpath) from None
            for vc in vcs:
                if vc.finger >= len(rec.chains) or (vc.finger >= 0 and vc.link >= len(rec.chains[vc.finger].links)):
                    raise ctx.error(f"virtual contact on chain {vc.finger} link {vc.link}, which does not "
                                    "exist", path=vpath)
            gx["virtual_contacts"] = vcs
    if rec.cyberglove:
        p = _find(rec.cyberglove, [robot_dir], ctx, None, path)
        if p is None:
            ctx.warn(f"CyberGlove calibration file {rec.cyberglove!r} not found; GraspIt! goes on "
                     "without it", path=path, kind="missing file", hint=HINT_DATA_PATH)
            gx["cyberglove"] = None
        else:
            with _Opened(p, ctx, None, path):
                gx["cyberglove"] = read_text(p, ctx)
    return robot


# -- worlds --------------------------------------------------------------------------------
def _world_file(ref: str, roots: list, what: str, ctx, line, path) -> str:
    found = _find(ref, roots, ctx, line, path)
    if found is None:
        raise ctx.error(f"{what} {ref!r} not found relative to the GraspIt! root (tried "
                        f"{', '.join(roots) or 'no root: set $GRASPIT or pass search_paths'})",
                        line, path=path)
    return found


def _load_robot_file(p: str, ctx: LoadContext, line, referrer):
    with _Opened(p, ctx, line, referrer):
        root = parse_xml(read_bytes(p, ctx), p, ctx.child(p))
        if root.tag != "robot":
            raise ctx.error(f"{p} is not a GraspIt! robot file (root <{root.tag}>)", line, path=referrer)
        return load_robot(root, p, ctx.child(p))


def _dof_values(robot, text: str, ctx, line, path):
    """Apply a world's ``<dofValues>`` (spec §11.3) to ``robot``'s configuration."""
    gx = robot.extras["graspit"]
    rec = gx["record"]
    tokens = text.split()
    pos = 0
    values, breakaway = [], []
    ratios = gx["joint_ratios"]
    joint_dofs = [j.expr.dof for chain in rec.chains for j in chain.joints]

    def take():
        nonlocal pos
        t = tokens[pos]
        pos += 1
        try:
            return float(t)
        except ValueError:
            raise ctx.error(f"<dofValues>: {t!r} is not a number", line, path=path) from None

    complete = True
    for k, dof in enumerate(rec.dofs):
        if pos >= len(tokens):
            complete = False
            break
        values.append(take())
        flags = []
        if dof.type == "b":
            for _ in range(sum(1 for d in joint_dofs if d == k)):
                f = take() if pos < len(tokens) else 0.0
                if f == 1:
                    flags.append((1, take() if pos < len(tokens) else 0.0))
                elif f == 0:
                    flags.append((0, None))
                else:
                    complete = False
                    break
            if not complete:
                break
        breakaway.append(flags)
    if not complete:
        ctx.warn(f"<dofValues> {text.strip()!r} stops before DOF {len(values) - (0 if pos >= len(tokens) else 1)} "
                 f"of {len(rec.dofs)} is complete: GraspIt! then leaves every joint at its default "
                 "value", line, path=path, kind="invalid value")
        return
    if pos < len(tokens):
        ctx.warn(f"<dofValues>: {len(tokens) - pos} numbers after the last DOF are ignored", line, path=path, kind="ignored")
    units = gx["dof_units"]
    q = np.array(robot.config, float)
    seen = {}
    for n, (dof_k, link) in enumerate(zip(joint_dofs, gx["joint_links"])):
        m = seen.get(dof_k, 0)
        seen[dof_k] = m + 1
        v = values[dof_k]
        flags = breakaway[dof_k]
        if flags and flags[m][0] == 1 and v > flags[m][1]:
            v = flags[m][1]
        unit = 1e-3 if robot.links[link].is_prismatic else 1.0
        q[link] = ratios[n] * v * unit
    robot.config = q
    gx["dof_values"] = [v * u for v, u in zip(values, units)]
    gx["breakaway"] = breakaway


def _add_mount(robot, body: BodyData, filename: str, path: str):
    from ._build import _link
    name = f"{robot.name}_mount"
    link = _link(name, 0, False, (0, 0, 1), np.eye(4), body)
    robot.add_link(link, qmin=0.0, qmax=0.0, q=0.0)
    from ...model import Joint
    robot.joints.append(Joint("weld", [link.index]))
    robot.extras["graspit"]["mount"] = {"link": link.index, "filename": filename, "path": path}
    return link.index


def load_world(root, path: str, ctx: LoadContext) -> World:
    rec = parse_world(root, path, ctx)
    roots = graspit_roots(ctx, path)
    world = World(body_name(path))
    world.source = path
    robots = []
    connections = []
    camera = None
    for item in rec.items:
        if isinstance(item, WorldItem):
            T = mm_to_m(matrix_mm(item.transform))
            if item.kind == "robot":
                p = _world_file(item.filename, roots, "robot file", ctx, item.line, path)
                robot = _load_robot_file(p, ctx, item.line, path)
                gx = robot.extras["graspit"]
                gx["filename"] = item.filename
                gx["world_transform"] = item.transform
                if item.dof_values is not None:
                    gx["dof_values_text"] = item.dof_values
                    _dof_values(robot, item.dof_values, ctx, item.line, path)
                robot.links[0].parent_transform = T
                robots.append(robot)
                world.add(robot)
                continue
            dynamic = item.kind == "graspableBody"
            if item.filename is not None:
                p = _world_file(item.filename, roots, f"<{item.kind}> file", ctx, item.line, path)
                body = load_body(p, ctx, dynamic=dynamic, line=item.line, referrer=path, near=path)
                name = body_name(p)
            else:
                base = roots[0] if roots else os.path.dirname(os.path.abspath(path))
                geom = _geometry(item.body, base, ctx, path)
                body = body_data(item.body, geom, ctx, dynamic=dynamic, path=path)
                name = f"{item.kind}{sum(1 for _ in world.rigid_objects + world.terrains)}"
            el = rigid_object(name, body) if dynamic else terrain(name, body)
            el.transform = T
            el.extras["graspit"].update(kind=item.kind, filename=item.filename, transform=item.transform,
                                       inline=item.filename is None)
            if item.filename is not None:
                el.extras["graspit"]["path"] = p
            el.source = path
            world.add(el)
        elif isinstance(item, ConnectionRec):
            n = len(robots)
            bad = None
            if not (0 <= item.parent_robot < n and 0 <= item.child_robot < n):
                bad = f"robot index out of range (the world has {n} robots so far)"
            elif not 0 <= item.parent_chain < len(robots[item.parent_robot].extras["graspit"]["record"].chains):
                bad = f"parent robot has no chain {item.parent_chain}"
            if bad:
                ctx.warn(f"<connection>: {bad}; GraspIt! stops reading the world here (the rest "
                         "of the file is dropped)", item.line, path=path, kind="invalid value")
                break
            child = robots[item.child_robot]
            con = {"parent": item.parent_robot, "chain": item.parent_chain, "child": item.child_robot,
                   "offset": mm_to_m(matrix_mm(item.transform)), "transform": item.transform,
                   "mount": item.mount_filename, "stale_transform": item.stale_transform}
            if item.mount_filename:
                p = _world_file(item.mount_filename, roots, "mount body", ctx, item.line, path)
                body = load_body(p, ctx, dynamic=True, line=item.line, referrer=path, near=path)
                con["mount_link"] = _add_mount(child, body, item.mount_filename, p)
            connections.append(con)
        elif isinstance(item, CameraRec):
            camera = item
    world.extras["graspit"] = {"connections": connections, "camera": camera, "roots": roots}
    return world


def load_on_its_own(path: str, kind: str):
    """The robot (``kind`` "robot") or body ("obstacle", "graspableBody", "mount") file at
    ``path`` as it reads on its own, outside any world: a Robot, Terrain or RigidObject. The
    writer compares a world's element with it to tell a file the world left unchanged."""
    ctx = LoadContext(path)
    if kind == "robot":
        return _load_robot_file(path, ctx, None, None)
    body = load_body(path, ctx, dynamic=kind != "obstacle")
    make = terrain if kind == "obstacle" else rigid_object
    return make(body_name(path), body)


# -- entry ---------------------------------------------------------------------------------
def load_root(root, path: str, ctx: LoadContext):
    """The model of a GraspIt! file whose root element is ``root``: ``<robot>`` -> Robot,
    ``<world>`` -> World, anything else a body (GraspIt! does not check a body's root
    name) -> RigidObject."""
    if root.tag == "robot":
        return load_robot(root, path, ctx)
    if root.tag == "world":
        return load_world(root, path, ctx)
    if root.tag == "EigenGrasps":
        raise CompanionFile(path, xmlutil.where(root), None, "a GraspIt! eigengrasp file: it is "
                            "read with the robot that names it in <eigenGrasps>")
    if root.tag == "virtual_contacts":
        raise CompanionFile(path, xmlutil.where(root), None, "a GraspIt! virtual-contact file: it "
                            "is read with the robot that names it in <virtualContacts>")
    body = load_body_root(root, path, ctx)
    o = rigid_object(body_name(path), body)
    o.source = path
    return o


def load_body_root(root, path, ctx) -> BodyData:
    rec = parse_body(root, path, ctx)
    geom = _geometry(rec, os.path.dirname(os.path.abspath(path)), ctx, path)
    return body_data(rec, geom, ctx, dynamic=True, path=path)
