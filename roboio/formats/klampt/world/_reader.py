"""Reading Klamp't world files (``.xml`` with root ``<world>``; spec §5).

Only direct children of ``<world>`` count, processed by type as Klamp't does: every
``<robot>`` (document order), then every ``<rigidObject>``, then every ``<terrain>``. A
failing element fails the world: a FormatError naming the world file, the element's line
and the underlying problem. Other children: the first ``<display>``/``<appearance>`` (its
``background``), ``<goal>`` (``world.extras["goals"]``), ``<simulation>``
(``world.extras["klampt_simulation"]``, a :class:`SimulationSettings`); anything else is
ignored by Klamp't -- roboio warns and keeps it (``extras["klampt_world_xml"]``) so that a
written world still has it. Unknown attributes likewise (``extras["klampt_world_attrs"]``).
"""
from __future__ import annotations

import copy
import os

import numpy as np
from lxml import etree

from ....errors import CompanionFile, FormatError
from ....model import Appearance, RigidObject, Terrain, World
from ....resolve import resolve
from ... import loading
from ...fileio import read_text
from ....transforms import compose
from ...xmlutil import LEXICAL_ERRORS, children, local_name, parse_bytes, where
from . import _attrs as A
from ._display import DISPLAY_ATTRS, Quiet, apply_display
from .._element_files import apply_automass
from ._simulation import SimulationSettings, XmlNode, check_simulation

__all__ = ["world_from_xml", "XML_KEY", "ATTRS_KEY", "SENSORS_KEY"]

XML_KEY = "klampt_world_xml"          # kept child elements Klamp't ignores (list of XmlNode)
ATTRS_KEY = "klampt_world_attrs"      # kept attributes Klamp't ignores (dict)
SENSORS_KEY = "klampt_world_sensors"  # the robot's <sensors> child (XmlNode)

_ROBOT_ATTRS = {"name", "file", "config", "configfile"} | set(A.TRANSFORM_ATTRS) | {"translate", "scale"}
_OBJECT_ATTRS = {"name", "file", "margin"} | set(A.TRANSFORM_ATTRS) | {"translate", "scale"}
_TERRAIN_ATTRS = {"name", "file", "kFriction", "margin"} | set(A.TRANSFORM_ATTRS) | {"translate", "scale"}
_GEOMETRY_ATTRS = {"file", "mesh", "margin", "scale", "translate"} | set(A.TRANSFORM_ATTRS)
_PHYSICS_ATTRS = {"mass", "com", "inertia", "automass", "automassSurfaceFraction",
                  "kRestitution", "kFriction", "kStiffness", "kDamping"}


def _keep_unknown(ctx, el, known_attrs, extras, known_children=()):
    """Warn about (and keep in ``extras``) attributes and children Klamp't ignores."""
    tag = local_name(el)
    attrs = {k: v for k, v in el.attrib.items() if k not in known_attrs}
    if attrs:
        ctx.warn(f"<{tag}>: attribute(s) {', '.join(attrs)} ignored by Klamp't", where(el), kind="ignored")
        extras.setdefault(ATTRS_KEY, {}).update(attrs)
    for c in children(el):
        if local_name(c) not in known_children:
            ctx.warn(f"<{tag}>: <{local_name(c)}> ignored by Klamp't", where(c), kind="ignored")
            extras.setdefault(XML_KEY, []).append(XmlNode.from_element(c))


def _first(el, *names):
    for n in names:
        found = children(el, n)
        if found:
            return found[0]
    return None


def _reference(ctx, el, attr):
    ref = el.get(attr)
    if ref is None or not ref.strip():
        raise ctx.error(f"<{local_name(el)}> needs a {attr} attribute", where(el))
    return ref


def _resolve_element_file(ctx, path, el, attr="file"):
    """Path of an element file (robot, .obj, .env, configfile); missing -> FormatError."""
    ref = _reference(ctx, el, attr)
    res = resolve(ref, path)
    if not res:
        raise ctx.error(f"<{local_name(el)} {attr}=\"{ref}\">: file not found (looked for: "
                        f"{res.describe_tried()})", where(el))
    if res.note:
        ctx.warn(res.note, where(el), kind="guessed")
    return res.path


def _geometry_file(ctx, path, el, attr="file"):
    """The geometry an element's attribute names; a missing file is a warning and an empty
    geometry (FormatError when strict), as for every geometry reference."""
    return loading.load_geometry_ref(_reference(ctx, el, attr), path, ctx, line=where(el))


def _extension(ref: str) -> str:
    """Text after the last '.' of the whole reference (Klamp't's rule, case kept)."""
    return ref.rsplit(".", 1)[1] if "." in ref else ""


# -- robots ----------------------------------------------------------------------------

def _config(ctx, el, text, n_links, what):
    vals = text.split()
    if not vals or not A.INT_TOKEN.match(vals[0]):
        raise ctx.error(f"<robot {what}>: expected 'N q1 ... qN', got {text[:40]!r}", where(el))
    n = int(vals[0])
    q = vals[1:n + 1]
    if len(q) < n or not all(A.STREAM_NUMBER.match(v) for v in q):
        raise ctx.error(f"<robot {what}>: expected {n} numbers after the count", where(el))
    if n != n_links:
        raise ctx.error(f"<robot {what}>: {n} values for a robot with {n_links} links", where(el))
    if len(vals) > n + 1:
        ctx.warn(f"<robot {what}>: {len(vals) - n - 1} extra value(s) ignored", where(el), kind="ignored")
    return np.array([float(v) for v in q])


def _link_index(robot, key):
    if key in robot.link_names:
        return robot.link_names.index(key)
    try:
        i = int(key)
    except ValueError:
        return None
    return i if 0 <= i < robot.num_links else None


def _robot_displays(ctx, el, robot, path):
    """Klamp't applies the first <display> child and every element after it, whatever its
    tag (spec §5.3 quirk); roboio does the same, warning where that matters."""
    kids = children(el)
    first = next((i for i, c in enumerate(kids) if local_name(c) == "display"), None)
    for c in kids[:first]:
        if local_name(c) == "appearance":
            ctx.warn("<appearance> ignored: Klamp't reads robot appearances only from the first "
                     "<display> child onwards", where(c), kind="ignored")
    if first is None:
        return
    for c in kids[first:]:
        tag = local_name(c)
        if tag not in ("display", "appearance"):
            given = [k for k in c.attrib if k in DISPLAY_ATTRS]
            if not given:
                continue
            ctx.warn(f"<{tag}> after a <display>: Klamp't applies its display attribute(s) "
                     f"{', '.join(given)} to the robot, and so does roboio", where(c), kind="quirk")
            c = _display_part(c)
        key = c.get("link")
        if key is None:
            targets = robot.links
        else:
            i = _link_index(robot, key)
            if i is None:
                ctx.warn(f"<{tag} link=\"{key}\">: no such link; element skipped", where(c), kind="invalid value")
                continue
            targets = [robot.links[i]]
        apply_display(ctx, c, Appearance(), path, skip=("link",))     # check and warn once
        for link in targets:
            apply_display(Quiet(path), c, link.appearance, path, skip=("link",))


def _display_part(el):
    """A <display> element with only the display attributes (and link) of ``el``."""
    keep = {k: v for k, v in el.attrib.items() if k in DISPLAY_ATTRS or k == "link"}
    out = etree.Element("display", keep)
    out.sourceline = el.sourceline
    return out


def _read_robot(ctx, path, el):
    fpath = _resolve_element_file(ctx, path, el)
    ref = el.get("file")
    ext = _extension(ref)
    if ext not in ("rob", "urdf"):
        if ext.lower() in ("rob", "urdf"):
            ctx.warn(f"<robot file=\"{ref}\">: Klamp't only recognises the lower-case "
                     f"extension .{ext.lower()}", where(el), kind="read differently")
        else:
            raise ctx.error(f"<robot file=\"{ref}\">: a robot file must be .rob or .urdf", where(el))
    robot = _robot_file(ctx, fpath, where(el))
    robot.name = el.get("name", "Robot")
    for attr in ("config", "configfile"):      # configfile, read second, wins
        text = el.get(attr)
        if text is None:
            continue
        if attr == "configfile":
            text = read_text(_resolve_element_file(ctx, path, el, "configfile"))
        robot.config = _config(ctx, el, text, robot.num_links, attr)
    T = A.transform(ctx, el)
    if T is not None:
        for link in robot.links:
            if link.parent < 0:
                link.parent_transform = compose(T, link.parent_transform)
    sensors = _first(el, "sensors")
    if sensors is not None:
        node = XmlNode.from_element(sensors)
        robot.properties["sensors"] = sensors.get("file") if sensors.get("file") is not None else node.to_xml()
        robot.extras[SENSORS_KEY] = node
    _robot_displays(ctx, el, robot, path)
    _keep_unknown(ctx, el, _ROBOT_ATTRS, robot.extras, ("sensors", "display", "appearance"))
    return robot


# -- rigid objects -----------------------------------------------------------------------

def _read_object(ctx, path, el):
    obj = RigidObject(el.get("name", "Object"))
    obj.inertia = np.zeros((3, 3))
    obj.source = path
    ref = el.get("file")
    if ref is not None:
        if _extension(ref) == "obj":
            loaded = _object_file(ctx, _resolve_element_file(ctx, path, el))
            loaded.name = obj.name
            obj = loaded
        else:
            obj.geometry = _geometry_file(ctx, path, el)
            apply_automass(obj, 1.0, ctx=ctx, line=where(el))
    geo = _first(el, "geometry")
    if geo is not None:
        ref = geo.get("file") if geo.get("file") is not None else geo.get("mesh")
        if geo.get("file") is not None and geo.get("mesh") is not None:
            ctx.warn("<geometry>: both file and mesh given; file is used", where(geo), kind="ignored")
        if ref is not None:
            obj.geometry = loading.load_geometry_ref(ref, path, ctx, line=where(geo))
        M = A.transform(ctx, geo, scale=True)
        if M is not None and obj.geometry is not None:
            obj.geometry.apply_transform(M)
        margin = A.double(ctx, geo, "margin")
        if margin is not None and obj.geometry is not None:
            obj.geometry.margin = margin
        _keep_unknown(ctx, geo, _GEOMETRY_ATTRS, obj.extras)
    if obj.geometry is None:
        raise ctx.error(f"<rigidObject name=\"{obj.name}\"> has no geometry (needs file or "
                        "<geometry mesh>)", where(el))
    T = A.transform(ctx, el)
    if T is not None:
        obj.transform = T
    if el.get("margin") is not None:
        ctx.warn("<rigidObject margin>: ignored by Klamp't (use <geometry margin>)", where(el), kind="ignored")
    phys = _first(el, "physics")
    if phys is not None:
        _read_physics(ctx, phys, obj)
    disp = _first(el, "display", "appearance")
    if disp is not None:
        apply_display(ctx, disp, obj.appearance, path)
    _keep_unknown(ctx, el, _OBJECT_ATTRS, obj.extras, {"geometry", "physics", "display", "appearance"})
    if el.get("margin") is not None:       # kept too, written back as it was
        obj.extras.setdefault(ATTRS_KEY, {})["margin"] = el.get("margin")
    return obj


def _robot_file(ctx, fpath, line):
    """A robot file, read once per load: a world placing one robot file many times gets
    independent copies (Klamp't rereads the file; the result is the same), their links and
    parsed meshes charged to the budget like the first one's."""
    key = ("klampt-robot", os.path.realpath(fpath))
    if key not in ctx.cache:
        ctx.cache[key] = loading.read_file(fpath, ctx, kinds=("robot",))
        return copy.deepcopy(ctx.cache[key])
    first = ctx.cache[key]
    ctx.charge("links", first.num_links, line, what="robot links (robot files placed again included)")
    # what a copy makes: links, joints, drivers and geometries (a robot copy is costlier
    # than its links alone: 477 copies of a 42-link robot took 2.5 s and 400 MB)
    size = first.num_links + len(first.joints) + len(first.drivers) + sum(
        (l.geometry is not None) + (l.visual_geometry is not None) for l in first.links)
    ctx.charge("copies", size, line, what=f"links, joints, drivers and geometries copied by placing "
               f"{os.path.basename(fpath)} again")
    robot = copy.deepcopy(ctx.cache[key])
    for link in robot.links:
        for g in (link.geometry, link.visual_geometry):
            if g is not None:
                loading.charge_geometry_copy(g, ctx, fpath)
    return robot


def _object_file(ctx, fpath):
    """A Klamp't ``.obj`` file, read once per load (worlds often place many copies of one
    object; each gets an independent copy)."""
    key = ("klampt-object", os.path.realpath(fpath))
    if key not in ctx.cache:
        ctx.cache[key] = loading.read_file(fpath, ctx, format="klampt-object")
        return copy.deepcopy(ctx.cache[key])
    obj = copy.deepcopy(ctx.cache[key])
    if obj.geometry is not None:   # a mesh parsed already (automass) is copied, not reread
        loading.charge_geometry_copy(obj.geometry, ctx, fpath)
    return obj


def _read_physics(ctx, phys, obj):
    m = A.double(ctx, phys, "mass")
    if m is not None:
        obj.mass = m
    com = A.vector(ctx, phys, "com", 3)
    if com is not None:
        obj.com = com
    inertia = A.vector(ctx, phys, "inertia", 9)
    if inertia is not None:
        obj.inertia = inertia.reshape(3, 3)
    auto = A.integer(ctx, phys, "automass")
    if auto:
        frac = A.double(ctx, phys, "automassSurfaceFraction")
        apply_automass(obj, 1.0 if frac is None else frac, ctx=ctx, line=where(phys))
    for k in ("kRestitution", "kFriction", "kStiffness", "kDamping"):
        v = A.kparam(ctx, phys, k)
        if v is not None:
            setattr(obj, k, v)
    _keep_unknown(ctx, phys, _PHYSICS_ATTRS, obj.extras)


# -- terrains ------------------------------------------------------------------------------

def _read_terrain(ctx, path, el, index):
    name = el.get("name", f"Terrain{index}")
    if _extension(el.get("file") or "") == "env":
        t = loading.read_file(_resolve_element_file(ctx, path, el), ctx, format="klampt-terrain")
        t.name = name
    else:
        t = Terrain(name, _geometry_file(ctx, path, el))
        t.source = path
    kf = A.double(ctx, el, "kFriction")
    if kf is not None:
        t.kFriction = kf
    M = A.transform(ctx, el, scale=True)
    if M is not None:
        t.geometry.apply_transform(M)
    margin = A.double(ctx, el, "margin")
    if margin is not None:
        t.geometry.margin = margin
    disp = _first(el, "display", "appearance")
    if disp is not None:
        apply_display(ctx, disp, t.appearance, path)
    _keep_unknown(ctx, el, _TERRAIN_ATTRS, t.extras, {"display", "appearance"})
    return t


# -- the world -----------------------------------------------------------------------------

def _element(ctx, path, el, fn, *args):
    """Run an element loader; failures become one FormatError at the element's line."""
    try:
        return fn(ctx, path, el, *args)
    except FormatError as e:
        if e.path == path:
            raise
        name = el.get("name")
        what = f"<{local_name(el)} name=\"{name}\">" if name else f"<{local_name(el)}>"
        raise ctx.error(f"cannot load {what}: {e}", where(el)) from e


def world_from_xml(data: bytes, ctx) -> World:
    """The world of Klamp't world XML (see the module docstring); element files are found
    relative to ``ctx.path``."""
    path = ctx.path or ""
    # Klamp't's TinyXML reads past a comment holding "--" or blanks before "<?xml" (errors
    # that change no element): recover from those; a broken structure stays an error
    root = parse_bytes(data, path, ctx, recover=True, recover_only=LEXICAL_ERRORS)
    if local_name(root) == "sensors":
        raise CompanionFile(path, where(root), None, "a Klamp't sensors file: it is read with the "
                            "robot whose 'property sensors' names it")
    if local_name(root) != "world":
        raise FormatError(path, where(root), None, f"root element is <{local_name(root)}>, not <world>")
    world = World(os.path.splitext(os.path.basename(path))[0] or "world")
    world.source = ctx.path
    kids = children(root)
    for el in kids:
        if local_name(el) == "robot":
            world.add(_element(ctx, path, el, _read_robot))
    for el in kids:
        if local_name(el) == "rigidObject":
            world.add(_element(ctx, path, el, _read_object))
    for el in kids:
        if local_name(el) == "terrain":
            world.add(_element(ctx, path, el, _read_terrain, len(world.terrains)))
    _read_world_children(ctx, path, root, world)
    return world


def _read_world_children(ctx, path, root, world):
    if root.attrib:
        ctx.warn(f"<world>: attribute(s) {', '.join(root.attrib)} ignored by Klamp't"
                 + (" (background is read from the first <display>)" if "background" in root.attrib else ""),
                 where(root), kind="ignored")
        world.extras[ATTRS_KEY] = dict(root.attrib)
    display_seen = False
    for el in children(root):
        tag = local_name(el)
        if tag in ("robot", "rigidObject", "terrain"):
            continue
        if tag in ("display", "appearance") and not display_seen:
            display_seen = True
            bg = A.numbers(ctx, el, "background")
            if bg is not None:
                if len(bg) != 4:
                    raise ctx.error(f"<{tag} background>: expected 4 numbers (r g b a), got {len(bg)}",
                                    where(el))
                world.extras["background"] = tuple(bg)
            rest = {k: v for k, v in el.attrib.items() if k != "background"}
            if rest:
                ctx.warn(f"<{tag}>: only background is read on the world's display", where(el), kind="ignored")
                world.extras["klampt_world_display"] = rest
            continue
        if tag == "goal":
            pos = A.vector(ctx, el, "position", 3)
            if pos is None:
                raise ctx.error("<goal> needs a position", where(el))
            world.extras.setdefault("goals", []).append(pos)
            if len(world.extras["goals"]) == 11:
                ctx.warn("more than 10 <goal> elements: Klamp't keeps the first 10", where(el), kind="dropped")
            continue
        if tag == "simulation" and "klampt_simulation" not in world.extras:
            sim = SimulationSettings(XmlNode.from_element(el))
            world.extras["klampt_simulation"] = sim
            check_simulation(ctx, sim, world)
            continue
        ctx.warn(f"<{tag}> ignored by Klamp't (kept for writing back)", where(el), kind="ignored")
        world.extras.setdefault(XML_KEY, []).append(XmlNode.from_element(el))
