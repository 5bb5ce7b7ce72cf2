"""Writing Klamp't world files (spec §10.2, but lossless where Klamp't can hold it).

``write_world(world, "dir/name.xml")`` writes the element files into ``dir/name/`` (as
Klamp't's own writer does): each robot through the registry's ``.rob`` writer, each rigid
object as ``.obj``, each terrain as ``.env``, named after the element (``_1``, ``_2`` ... for
repeated names). Meshes stay where they are and are referenced relative to the file that
names them; only geometry Klamp't cannot read, geometry without a file, and geometry whose
transform Klamp't cannot express are written anew. The world file itself is written last.

Where things go: robot configuration -> ``config`` attribute; rigid-object pose and mass
data -> ``.obj`` (``T``, explicit ``mass``/``com``/``inertia``); a geometry scale + offset ->
``.obj`` ``geomscale``/``geomtranslate``, a rotated/scaled geometry -> ``<geometry scale
rotateMoment translation>``; collision margin -> ``<geometry margin>``; terrain placement ->
``<terrain scale rotateMoment translation>`` (Klamp't bakes it into the data); appearances ->
``<display>``; background, goals, ``<simulation>`` and everything kept from a read world.
"""
from __future__ import annotations

import os

import numpy as np
from lxml import etree

from ....errors import FormatError
from ....model import Appearance
from ....transforms import compose, matrix_to_moment, moment_to_matrix
from ... import registry
from ...fileio import fmt_float, fmt_floats, safe_file_stem
from ...fixed_point import stable_params
from .._geometry_refs import (GeometryWriter, relative_reference, split_affine, split_scale_translate,
                            walk_geometry)
from ._display import display_attrs, lost_fields, read_back
from ._reader import ATTRS_KEY, SENSORS_KEY, XML_KEY
from ..rigid_object import write_object
from ..terrain import write_terrain

__all__ = ["world_xml"]

_WORLD_KEYS = (ATTRS_KEY, XML_KEY, SENSORS_KEY)
_KNOWN_WORLD_EXTRAS = {"background", "goals", "klampt_simulation", "klampt_world_display",
                       ATTRS_KEY, XML_KEY}


def _source_files(world) -> set:
    geoms = [l.geometry for r in world.robots for l in r.links]
    geoms += [o.geometry for o in world.rigid_objects] + [t.geometry for t in world.terrains]
    return {g.source.path for top in geoms for g in walk_geometry(top) if g.source is not None and g.source.path}


def _placement_attrs(M) -> dict | None:
    """``scale``/``rotateMoment``/``translation`` attributes for the affine ``M`` (empty for
    the identity), or None when ``M`` is not a rotation times a per-axis scale."""
    split = split_affine(M)
    if split is None:
        return None
    s, R, t = split
    out = {}
    if np.any(s != 1):
        out["scale"] = fmt_floats(s)
    if not np.array_equal(R, np.eye(3)):
        # a moment whose matrix, read back, gives the same moment (write -> read -> write)
        out["rotateMoment"] = fmt_floats(stable_params(R, matrix_to_moment, moment_to_matrix, (2, 2, 2)))
    if np.any(t != 0):
        out["translation"] = fmt_floats(t)
    return out


def _add_display(parent, app: Appearance, path, report, what, extra=None):
    attrs = display_attrs(app, path)
    if not attrs:
        return
    el = etree.SubElement(parent, "display", extra or {})
    for k, v in attrs.items():
        el.set(k, v)
    lost = lost_fields(app, read_back(attrs, path))
    if lost:
        report.lose(f"{what}: appearance field(s) {', '.join(lost)} cannot be written exactly",
                    kind="approximated")


def _add_kept(el, extras):
    for k, v in extras.get(ATTRS_KEY, {}).items():
        if el.get(k) is None:
            el.set(k, v)
    for node in extras.get(XML_KEY, []):
        node.to_element(el)


def _write_robot(root, robot, path, elem_dir, gw, report):
    what = f"robot {robot.name!r}"
    rpath = gw.new_path(elem_dir, safe_file_stem(robot.name), ".rob")
    try:
        info = registry.find_writer(robot, rpath)
    except ValueError:
        raise FormatError(path, None, None, f"{what}: no .rob writer is available") from None
    # The robot file gets what the world file does not hold: no appearances (<display>
    # below), no world-level extras, no sensors that came from the world (<sensors> below).
    out = robot.copy()
    for link in out.links:
        link.appearance = Appearance()
    out.extras = {k: v for k, v in robot.extras.items() if k not in _WORLD_KEYS}
    sensors = robot.extras.get(SENSORS_KEY)
    sensors_from_world = sensors is not None and robot.properties.get("sensors") in (
        sensors.attrib.get("file"), sensors.to_xml())
    if sensors_from_world:
        out.properties = {k: v for k, v in robot.properties.items() if k != "sensors"}
    info.write(out, rpath, report)
    report.files.append(rpath)
    el = etree.SubElement(root, "robot", name=robot.name, file=relative_reference(rpath, path))
    el.set("config", f"{robot.num_links} " + fmt_floats(robot.config))
    if sensors_from_world:
        sensors.to_element(el)
    names = robot.link_names
    for link in robot.links:
        if link.appearance is None or link.appearance.is_default():
            continue
        key = link.name if names.count(link.name) == 1 and not link.name.isdigit() else str(link.index)
        _add_display(el, link.appearance, path, report, f"{what} link {link.name!r}", {"link": key})
    _add_kept(el, robot.extras)


def _write_object(root, obj, path, elem_dir, gw, report):
    what = f"rigid object {obj.name!r}"
    opath = gw.new_path(elem_dir, safe_file_stem(obj.name), ".obj")
    g = obj.geometry
    geo_attrs = {}
    in_obj = None
    if g is not None and split_scale_translate(g.transform) is None:
        placed = _placement_attrs(g.transform)
        if placed is not None:          # rotation: on <geometry>, the .obj keeps the raw data
            geo_attrs.update(placed)
            in_obj = np.eye(4)
    write_object(obj, opath, report, gw, geometry_transform=in_obj)
    report.files.append(opath)
    el = etree.SubElement(root, "rigidObject", name=obj.name, file=relative_reference(opath, path))
    if g is not None and g.margin:
        geo_attrs["margin"] = fmt_float(g.margin)
    if geo_attrs:
        etree.SubElement(el, "geometry", geo_attrs)
    _add_display(el, obj.appearance, path, report, what)
    _add_kept(el, obj.extras)
    _lose_other_extras(obj.extras, what, report)


def _write_terrain(root, t, path, elem_dir, gw, report):
    what = f"terrain {t.name!r}"
    tpath = gw.new_path(elem_dir, safe_file_stem(t.name), ".env")
    placed = None
    if t.geometry is not None:
        placed = _placement_attrs(compose(np.asarray(t.transform, float), t.geometry.transform))
    write_terrain(t, tpath, report, gw, placed=placed is not None)
    report.files.append(tpath)
    el = etree.SubElement(root, "terrain", name=t.name, file=relative_reference(tpath, path))
    for k, v in (placed or {}).items():
        el.set(k, v)
    if t.geometry is not None and t.geometry.margin:
        el.set("margin", fmt_float(t.geometry.margin))
    _add_display(el, t.appearance, path, report, what)
    _add_kept(el, t.extras)
    _lose_other_extras(t.extras, what, report)


def _lose_other_extras(extras, what, report):
    for k in sorted(extras):
        if k not in _WORLD_KEYS:
            report.lose(f"{what}: {k}", kind="kept as data")


def world_xml(world, path: str, report) -> bytes:
    """The world file's XML for ``world`` to be stored at ``path``; the element files are
    written now, into the directory named after ``path`` (see the module docstring)."""
    path = os.fspath(path)
    elem_dir = os.path.join(os.path.dirname(path), os.path.splitext(os.path.basename(path))[0])
    gw = GeometryWriter(report, protected=_source_files(world))
    gw.new_path(os.path.dirname(path), os.path.splitext(os.path.basename(path))[0], ".xml")  # reserve it
    root = etree.Element("world")
    for k, v in world.extras.get(ATTRS_KEY, {}).items():
        root.set(k, v)
    bg = world.extras.get("background")
    disp = dict(world.extras.get("klampt_world_display", {}))
    if bg is not None or disp:
        el = etree.SubElement(root, "display")
        if bg is not None:
            el.set("background", fmt_floats(bg))
        for k, v in disp.items():
            el.set(k, v)
    for r in world.robots:
        _write_robot(root, r, path, elem_dir, gw, report)
    for o in world.rigid_objects:
        _write_object(root, o, path, elem_dir, gw, report)
    for t in world.terrains:
        _write_terrain(root, t, path, elem_dir, gw, report)
    for goal in world.extras.get("goals", []):
        etree.SubElement(root, "goal", position=fmt_floats(goal))
    sim = world.extras.get("klampt_simulation")
    if sim is not None:
        sim.node.to_element(root)
    for node in world.extras.get(XML_KEY, []):
        node.to_element(root)
    for k in sorted(world.extras):
        if k not in _KNOWN_WORLD_EXTRAS:
            report.lose(f"world {world.name!r}: {k}", kind="kept as data")
    gw.finish()
    return etree.tostring(root, pretty_print=True, xml_declaration=True, encoding="UTF-8")
