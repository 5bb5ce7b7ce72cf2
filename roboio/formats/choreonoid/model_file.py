"""Choreonoid body descriptions that name their model: YAML with ``modelFile:`` (or
``model_file:``) and no ``format: ChoreonoidBody`` (the old ``SR1.yaml``, ``PA10.yaml``).

Read as Choreonoid's ``StdBodyLoader`` reads them (``loadAnotherFormatBodyFile``): the model
file is loaded by whatever reader its type calls for (an OpenHRP ``.wrl``, a ``.body``, a
URDF ...; a relative name is relative to the YAML file); ``linkInfo`` adds keys to the
named links' info; every other key of the file (``standardPose``, ``linkGroup``,
``footLinks``, ``collisionDetection`` ...) is the body's info. Nothing of it changes the
kinematics, so the robot is the model's; the additions are kept where the ``.body`` writer
writes them back: ``robot.extras["choreonoid"]["info"]`` (angles of such files are degrees,
as in old Choreonoid body files) and ``link.extras["choreonoid"]["info"]``, and all of it in
``robot.extras["choreonoid_model_file"]``. A file with ``format: ChoreonoidBody`` is a
``.body`` model and read as one.
"""
from __future__ import annotations

from ...context import LoadContext
from ...errors import FormatError
from ...model import Robot
from .. import loading
from ..fileio import as_text, read_bytes
from . import _yaml as Y
from ._sniff import sniff_model_file as sniff

__all__ = ["sniff", "loads", "read"]

_OWN_KEYS = ("modelFile", "model_file", "linkInfo", "format")


def loads(data, ctx: LoadContext) -> Robot:
    """The robot a model-file description names, with the description's keys kept."""
    text = as_text(data)
    top = Y.load(text, ctx.path, ctx=ctx)
    path = ctx.path
    if not isinstance(top, dict):
        raise FormatError(path, 1, None, "a Choreonoid body description must hold a YAML mapping")
    fmt = top.get("format")
    if fmt is not None:
        if str(fmt) != "ChoreonoidBody":
            raise FormatError(path, Y.line_of(fmt, 1), None,
                              f"format {str(fmt)!r} cannot be loaded as a Choreonoid body model")
        from .body import loads as body_loads
        return body_loads(text, ctx)
    node = Y.get(top, "model_file", "modelFile")
    if node is None:
        raise FormatError(path, 1, None, "neither format nor modelFile is specified")
    ref = Y.to_str(node, path, "modelFile").strip()
    line = Y.line_of(node)
    if not ref:
        raise FormatError(path, line, None, "modelFile is empty")
    res = loading.resolve_reference(ref, path, ctx)
    if not res:
        raise FormatError(path, line, None, f"model file {ref!r} not found (looked for: "
                                            f"{res.describe_tried()})")
    try:
        robot = loading.read_file(res.path, ctx, kinds=("robot",))
    except FileNotFoundError as ex:
        raise FormatError(path, line, None, f"model file {ref!r}: {ex}") from None
    if not isinstance(robot, Robot):
        raise FormatError(path, line, None, f"model file {ref!r} holds a {type(robot).__name__}, "
                                            "not a robot")
    _apply(robot, top, ref, path, ctx)
    robot.source = path
    return robot


def read(path: str, ctx: LoadContext) -> Robot:
    return loads(read_bytes(path, ctx), ctx)


def _apply(robot: Robot, top, ref: str, path, ctx: LoadContext) -> None:
    info = {k: v for k, v in top.items() if k not in _OWN_KEYS}
    link_info = {}
    node = top.get("linkInfo")
    if node is not None:
        for name, value in Y.to_map(node, path, "linkInfo").items():
            if not isinstance(value, dict):
                continue                        # Choreonoid reads mappings only
            try:
                link = robot.link(str(name))
            except KeyError:
                ctx.warn(f"linkInfo: the model has no link {str(name)!r}; ignored",
                         Y.line_of(value, Y.line_of(node)), kind="invalid value")
                continue
            ext = link.extras.setdefault("choreonoid", {})
            ext.setdefault("info", {}).update(value)
            link_info[str(name)] = value
    ch = robot.extras.setdefault("choreonoid", {})
    if info:
        ch.setdefault("info", {}).update(info)
        ch["degree"] = True             # old body descriptions give their angles in degrees
    robot.extras["choreonoid_model_file"] = {"model_file": ref, "info": info,
                                             "link_info": link_info}
