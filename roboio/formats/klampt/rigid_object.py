"""Klamp't rigid-object files (``.obj``, SimpleFile syntax; not Wavefront meshes).

Reading follows Klamp't: only the items of :data:`ITEMS` are allowed (anything
else fails the load, which is also how a Wavefront file is told apart); an item spelled with
other capitalisation (``Mass``, ``kfriction``) is accepted but ignored, with a warning. The
items are applied in a fixed order, whatever their order in the file:

``mesh`` (required; resolved relative to the file) -> ``geomscale`` (1 or 3 numbers) and
``geomtranslate`` (3), which become the geometry's affine ``transform`` ``p -> s*p + t`` ->
``T`` (12 numbers: rotation row by row, then translation; or 16: a 4x4 row by row, bottom
row ignored) -> ``position`` (replaces the translation of ``T``) -> ``velocity``,
``angularVelocity`` -> ``mass`` -> ``com`` -> ``inertia`` (3 = diagonal, 9 = row by row;
default identity) -> ``kFriction``, ``kRestitution``, ``kStiffness``, ``kDamping`` (``inf``
allowed) -> ``autoMass [surface_fraction]`` (com and inertia from the scaled geometry, or
only the inertia, about the given ``com``, when ``com`` is present).

Units: metres, kilograms, kg m^2; ``T`` is the object pose in the world frame.

Writing (with full precision): ``mesh`` (relative to the written file),
``geomscale``/``geomtranslate`` when the geometry transform is a per-axis scale plus a
translation, ``T`` (12 numbers), ``velocity``/``angularVelocity`` when non-zero, ``mass``,
``com``, ``inertia`` (9), ``kFriction``, ``kRestitution``, ``kStiffness``, ``kDamping``.
"""
from __future__ import annotations

import os

import numpy as np

from ...errors import FormatError
from ...model import RigidObject
from ..fileio import as_text, atomic_write, read_bytes
from ..loading import load_geometry_ref
from . import _simplefile
from ._element_files import apply_automass, element_file_text
from ._geometry_refs import GeometryWriter, split_scale_translate
from ._sniff import OBJECT_ITEMS
from ._sniff import sniff_object as sniff

__all__ = ["sniff", "loads", "read", "dumps", "write", "ITEMS", "object_items", "object_text",
           "write_object"]

ITEMS = OBJECT_ITEMS
_BY_LOWER = {n.lower(): n for n in ITEMS}


def _checked_items(entries: list, path: str, ctx) -> dict:
    """Entries with an exactly spelled item name (the last of each); warns about case
    variants (ignored by Klamp't) and fails on unknown items."""
    out = []
    for e in entries:
        name = e.name
        if name in ITEMS:
            out.append(e)
        elif name.lower() in _BY_LOWER:
            ctx.warn(f"item {name!r} is ignored (Klamp't accepts it but only reads the exact "
                     f"spelling {_BY_LOWER[name.lower()]!r})", e.line, kind="ignored")
        else:
            raise FormatError(path, e.line, None,
                              f"unknown item {name!r} in a Klamp't rigid object file (allowed: "
                              f"{' '.join(ITEMS)}); a Wavefront mesh must be referenced as geometry")
    return _simplefile.last_wins(out)


def loads(data, ctx) -> RigidObject:
    """The rigid object of a Klamp't ``.obj`` file's text (see the module docstring); the
    mesh is found relative to ``ctx.path``."""
    path = ctx.path or ""
    items = _checked_items(_simplefile.parse_lines(as_text(data), path), path, ctx)
    obj = RigidObject(os.path.splitext(os.path.basename(path))[0] or "object")
    obj.source = ctx.path

    def nums(name, counts):
        return items[name].numbers(path, counts) if name in items else None

    if "mesh" not in items:
        raise FormatError(path, None, None, "a rigid object file needs a 'mesh' item")
    mesh = items["mesh"]
    ref = mesh.string(path)
    if not ref.strip():
        raise FormatError(path, mesh.line, None, "mesh: empty file name")
    obj.geometry = load_geometry_ref(ref, path, ctx, line=mesh.line)

    scale = nums("geomscale", (1, 3))
    shift = nums("geomtranslate", (3,))
    if scale is not None or shift is not None:
        M = np.eye(4)
        if scale is not None:
            M[:3, :3] = np.diag(np.broadcast_to(np.asarray(scale, float), (3,)))
        if shift is not None:
            M[:3, 3] = shift
        obj.geometry.apply_transform(M)

    T = nums("T", (12, 16))
    if T is not None:
        obj.transform = np.eye(4)
        if len(T) == 12:
            obj.transform[:3, :3] = np.reshape(T[:9], (3, 3))
            obj.transform[:3, 3] = T[9:]
        else:
            obj.transform[:3, :] = np.reshape(T, (4, 4))[:3, :]
    pos = nums("position", (3,))
    if pos is not None:
        obj.transform[:3, 3] = pos
    for item, attr in (("velocity", "velocity"), ("angularVelocity", "angular_velocity")):
        v = nums(item, (3,))
        if v is not None:
            setattr(obj, attr, np.array(v))
    m = nums("mass", (1,))
    if m is not None:
        obj.mass = m[0]
    com = nums("com", (3,))
    if com is not None:
        obj.com = np.array(com)
    inertia = nums("inertia", (3, 9))
    if inertia is not None:
        obj.inertia = np.diag(inertia) if len(inertia) == 3 else np.reshape(inertia, (3, 3))
    for k in ("kFriction", "kRestitution", "kStiffness", "kDamping"):
        v = nums(k, (1,))
        if v is not None:
            setattr(obj, k, v[0])
    if "autoMass" in items:
        f = nums("autoMass", (0, 1))
        frac = f[0] if f else 1.0
        apply_automass(obj, frac, about=obj.com if com is not None else None,
                       ctx=ctx, line=items["autoMass"].line)
    return obj


def read(path: str, ctx) -> RigidObject:
    return loads(read_bytes(path, ctx), ctx)


def object_items(obj: RigidObject, path: str, report, geometry_writer: GeometryWriter,
                 what: str, geometry_transform=None) -> list:
    """``(item, values)`` pairs of the ``.obj`` file for ``obj`` written at ``path``.

    ``geometry_transform`` is the part of the geometry transform the file must express
    (default: the whole ``obj.geometry.transform``); it must be a per-axis scale plus a
    translation, or the geometry is re-written with the transform applied.
    """
    g = obj.geometry
    if g is None:
        raise FormatError(path, None, None, f"{what} has no geometry; Klamp't rigid objects need one")
    M = g.transform if geometry_transform is None else geometry_transform
    split = split_scale_translate(M)
    if split is None:
        ref = geometry_writer.baked_reference(g, M, path, what)
        split = (np.ones(3), np.zeros(3))
    else:
        ref = geometry_writer.data_reference(g, path, what)
    items = [("mesh", [ref])]
    s, t = split
    if np.any(s != 1):
        items.append(("geomscale", [s[0]] if s[0] == s[1] == s[2] else list(s)))
    if np.any(t != 0):
        items.append(("geomtranslate", list(t)))
    T = np.asarray(obj.transform, float)
    if np.any(T[3] != (0, 0, 0, 1)):
        report.lose(f"{what}: non-rigid bottom row of the pose {T[3].tolist()}", kind="not written")
    items.append(("T", list(T[:3, :3].reshape(9)) + list(T[:3, 3])))
    if np.any(obj.velocity != 0):
        items.append(("velocity", list(obj.velocity)))
    if np.any(obj.angular_velocity != 0):
        items.append(("angularVelocity", list(obj.angular_velocity)))
    items += [("mass", [obj.mass]), ("com", list(obj.com)),
              ("inertia", list(np.asarray(obj.inertia, float).reshape(9)))]
    items += [(k, [getattr(obj, k)]) for k in ("kFriction", "kRestitution", "kStiffness", "kDamping")]
    return items


def object_text(obj: RigidObject, path: str, report, geometry_writer=None,
                geometry_transform=None) -> str:
    """The ``.obj`` text of ``obj`` to be stored at ``path`` (see :func:`object_items`);
    geometry that must be written anew is written now, next to ``path``."""
    what = f"rigid object {obj.name!r}"
    return element_file_text(obj, path, report, geometry_writer, what, "<geometry margin>",
                             lambda gw: object_items(obj, path, report, gw, what, geometry_transform))


def write_object(obj: RigidObject, path: str, report, geometry_writer=None,
                 geometry_transform=None) -> None:
    """Write ``obj`` as a Klamp't ``.obj`` file (a world's writer passes its geometry
    writer and the part of the geometry transform the file holds)."""
    atomic_write(path, object_text(obj, path, report, geometry_writer, geometry_transform))


def dumps(obj: RigidObject, report, path=None) -> str:
    """The ``.obj`` text; the mesh is referenced relative to ``path`` (required when the
    geometry must be written anew, as a side file next to it)."""
    return object_text(obj, path or "object.obj", report)


def write(obj: RigidObject, path: str, report) -> None:
    write_object(obj, path, report)
