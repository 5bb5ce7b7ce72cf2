"""Klamp't rigid-object files (``.obj``, SimpleFile syntax; not Wavefront meshes).

Reading follows Klamp't (spec §6): only the items of :data:`ITEMS` are allowed (anything
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

Writing (spec §10.3, with full precision): ``mesh`` (relative to the written file),
``geomscale``/``geomtranslate`` when the geometry transform is a per-axis scale plus a
translation, ``T`` (12 numbers), ``velocity``/``angularVelocity`` when non-zero, ``mass``,
``com``, ``inertia`` (9), ``kFriction``, ``kRestitution``, ``kStiffness``, ``kDamping``.
"""
from __future__ import annotations

import os

import numpy as np

from ...errors import FormatError
from ...model import RigidObject
from ..fileio import read_text
from ..loading import load_geometry_ref
from ..registry import FormatInfo, register
from . import _simplefile
from ._geometry_out import GeometryWriter, split_scale_translate
from ._world_geometry import apply_automass, write_element_file

__all__ = ["ITEMS", "read_object", "object_items", "write_object", "sniff"]

ITEMS = ("mesh", "geomscale", "geomtranslate", "T", "position", "velocity", "angularVelocity",
         "mass", "inertia", "com", "kFriction", "kRestitution", "kStiffness", "kDamping",
         "autoMass")
_BY_LOWER = {n.lower(): n for n in ITEMS}


def sniff(head: bytes, path: str) -> bool:
    """True when every complete line of ``head`` starts with an item Klamp't allows
    (any capitalisation) or is blank/a comment -- never for Wavefront ``v``/``f`` files."""
    text = head.decode("latin-1")
    lines = text.splitlines()
    if len(head) >= 4096 and lines:
        lines = lines[:-1]          # possibly cut off
    seen = False
    for line in lines:
        tok = line.split("#", 1)[0].split(None, 1)
        if not tok:
            continue
        if tok[0].lower() not in _BY_LOWER:
            return False
        seen = True
    return seen


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
                     f"spelling {_BY_LOWER[name.lower()]!r})", e.line)
        else:
            raise FormatError(path, e.line, None,
                              f"unknown item {name!r} in a Klamp't rigid object file (allowed: "
                              f"{' '.join(ITEMS)}); a Wavefront mesh must be referenced as geometry")
    return _simplefile.last_wins(out)


def read_object(path: str, ctx) -> RigidObject:
    """Read a Klamp't ``.obj`` rigid-object file (see the module docstring)."""
    items = _checked_items(_simplefile.parse_lines(read_text(path), path), path, ctx)
    obj = RigidObject(os.path.splitext(os.path.basename(path))[0])
    obj.source = path

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
        report.lose(f"{what}: non-rigid bottom row of the pose {T[3].tolist()}")
    items.append(("T", list(T[:3, :3].reshape(9)) + list(T[:3, 3])))
    if np.any(obj.velocity != 0):
        items.append(("velocity", list(obj.velocity)))
    if np.any(obj.angular_velocity != 0):
        items.append(("angularVelocity", list(obj.angular_velocity)))
    items += [("mass", [obj.mass]), ("com", list(obj.com)),
              ("inertia", list(np.asarray(obj.inertia, float).reshape(9)))]
    items += [(k, [getattr(obj, k)]) for k in ("kFriction", "kRestitution", "kStiffness", "kDamping")]
    return items


def write_object(obj: RigidObject, path: str, report, geometry_writer=None,
                 geometry_transform=None) -> None:
    """Write ``obj`` as a Klamp't ``.obj`` file (see :func:`object_items`)."""
    what = f"rigid object {obj.name!r}"
    write_element_file(obj, path, report, geometry_writer, what, "<geometry margin>",
                       lambda gw: object_items(obj, path, report, gw, what, geometry_transform))


def _write(obj, path, report):
    write_object(obj, path, report)


register(FormatInfo(
    name="klampt-object", extensions=(".obj",), kinds=("rigid_object",),
    description="Klamp't rigid object (.obj SimpleFile: mesh, T, mass, inertia, contact parameters)",
    ecosystem="klampt", sniff=sniff, read=read_object, write=_write, writes=(RigidObject,),
    priority=1))   # Klamp't's own meaning of .obj: broken files get its located errors
