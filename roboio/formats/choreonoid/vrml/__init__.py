"""OpenHRP VRML97 robot models (``PROTO Humanoid`` / ``Joint`` / ``Segment``) as roboio
robots, read the way Choreonoid's ``VRMLBodyLoader`` reads them.

The file is parsed by the shared VRML reader (:mod:`roboio.formats.meshes.inventor`) with
prototype instances kept (``EXTERNPROTO`` interfaces are taken from the file they name);
:mod:`._walk` turns the ``Humanoid`` into Choreonoid body records, which become a robot
exactly as a Choreonoid ``.body`` model does (:mod:`..body`): links in Choreonoid's link
order, a ``free`` root as Klamp't's floating base, ``fixed`` joints as welds, joint ids in
``robot.joint_id_links`` (so ``.seq`` motions map to links), one driver per moving joint.

What only this format says: ``link.joint_name`` and the driver names are the Joint's
``DEF`` names; devices are ``robot.sensors`` (:class:`~roboio.model.AttachedSensor`, type =
the PROTO name, fields in ``params``) and device records in
``link.extras["choreonoid"]["devices"]``; ``robot.extras["openhrp"]`` keeps the
Humanoid's ``name``/``version``/``info`` and its ``joints``/``segments`` lists;
``ExtraJoint`` closed loops are ``robot.extras["choreonoid"]["extra_joints"]`` (reported
when read: the tree model does not close them).
"""
from __future__ import annotations

import os

import numpy as np

from ....context import LoadContext
from ....errors import FormatError
from ....model import AttachedSensor, Robot
from ....resolve import resolve
from ...fileio import as_bytes, read_bytes
from ...meshes.inventor import parse_scene
from .._sniff import sniff_openhrp_vrml as sniff
from ..body._build import robot_from_records
from ._walk import records_from_scene

__all__ = ["sniff", "loads", "read"]


def loads(data, ctx: LoadContext) -> Robot:
    """The robot of OpenHRP VRML data; Inline files and EXTERNPROTO declarations are found
    relative to ``ctx.path``."""
    data = as_bytes(data)
    scene = parse_scene(data, ctx.path, ctx, protos=True)
    if scene.header.dialect != "vrml2":
        raise FormatError(ctx.path, 1, 1, f"an OpenHRP robot model is a VRML 2.0 file, this is "
                                          f"{scene.header.text}")
    _external_protos(scene, ctx)
    records, extras = records_from_scene(scene, ctx)
    robot = robot_from_records(records, ctx)
    robot.source = ctx.path
    index = {l.name: l.index for l in robot.links}
    for rec in records.links:      # a Joint without a DEF name names no joint
        robot.links[index[rec.name]].joint_name = rec.joint_name or None
    robot.sensors = [AttachedSensor(d["name"], index[link], np.array(d["transform"]), typ,
                                    {k: v for k, v in d.items() if k not in ("type", "transform", "name")})
                     for link, typ, d in extras.pop("sensors", [])]
    robot.extras["openhrp"] = extras
    for j in records.extra_joints:
        ctx.warn(f"ExtraJoint {j['name'] or ''!r} ({j['jointType']}) closes a loop between links "
                 f"{j['link1Name']!r} and {j['link2Name']!r}: kept as data, the robot's tree "
                 "does not close it", kind="unsupported")
    return robot


def read(path: str, ctx: LoadContext) -> Robot:
    return loads(read_bytes(path, ctx), ctx)


def _external_protos(scene, ctx: LoadContext) -> None:
    """Give each EXTERNPROTO the field defaults of the PROTO its URL names
    (``file.wrl#Name``; the same name when the URL has no ``#``)."""
    for proto in scene.protos.values():
        if not proto.external:
            continue
        line, col = scene.source.where(proto.offset)
        tried = []
        for url in proto.urls:
            ref, _, name = str(url).partition("#")
            name = name or proto.name
            res = resolve(ref, scene.source.path) if ref and "://" not in ref else None
            if not res:
                tried.append(str(url))
                continue
            key = ("openhrp-protos", os.path.realpath(res.path))
            other = ctx.cache.get(key)
            if other is None:
                if os.path.realpath(res.path) in ctx.stack:
                    raise FormatError(scene.source.path, line, col,
                                      f"EXTERNPROTO {proto.name}: {url!r} refers back to a file "
                                      "being read")
                ctx.charge("files", 1, line, what=f"opening {res.path}")
                other = parse_scene(read_bytes(res.path, ctx), res.path, ctx, protos=True)
                ctx.cache[key] = other
            found = other.protos.get(name)
            if found is None or found.external:
                tried.append(f"{url} (no PROTO {name} there)")
                continue
            for fname, f in proto.fields.items():
                src = found.fields.get(fname)
                if src is not None and src.type == f.type:
                    f.default = src.default
            break
        else:
            raise FormatError(scene.source.path, line, col,
                              f"EXTERNPROTO {proto.name}: its prototype was not found "
                              f"(tried {', '.join(tried) or 'no URL'})")
