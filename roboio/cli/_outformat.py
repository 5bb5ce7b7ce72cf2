"""Which format ``roboio convert`` writes, said in the command line's words.

* ``--to FORMAT`` is obeyed; when the output's extension is not one of that format's, a
  warning says so (``convert ur5.rob x.rob --to urdf`` writes URDF into ``x.rob``).
* Without ``--to`` the extension decides. When formats of *different ecosystems* write that
  extension and can hold what was read (``.xml``: Klamp't worlds, OpenRAVE, GraspIt!, MJCF,
  Klamp't multipaths and grasps), the choice is ambiguous unless only one of them can hold
  it; then the input's own format wins if it is among them (a round trip), and otherwise
  the command is refused with the list to choose from. So, for ``.xml``: a trajectory or
  multipath is a Klamp't multipath and a grasp a Klamp't grasp (one format holds each);
  robots, worlds, rigid objects and terrains need ``--to`` unless the input was already one
  of those XML formats. Variants of one ecosystem (``choreonoid-seq``/``-v4``,
  ``klampt-geom``/``-legacy``) are not ambiguous: the registry's priority picks.

"Can hold": the writer takes the object as it is, or it can be turned into what the writer
takes (a robot into a one-robot world, a world with one robot into that robot, a multipath
into a trajectory; :func:`roboio.convert.adapt`). Posing a robot into one mesh (mesh
formats) is not counted, since every mesh format can do it and none is ambiguous with
another.
"""
from __future__ import annotations

import sys

from .main import UsageError

__all__ = ["output_format", "can_hold"]


def can_hold(obj, info) -> bool:
    """Whether ``info``'s writer takes ``obj``, as it is or adapted (see the module
    docstring)."""
    from ..model import Geometry
    writes = info.writes
    if not writes or isinstance(obj, writes):
        return True
    if Geometry in writes:
        return False
    from ..convert import adapt
    from ..report import ConversionReport
    try:
        adapt(obj, info, ConversionReport())
    except (ValueError, TypeError):
        return False
    return True


def output_format(obj, path: str, to, input_format=None):
    """The format name to pass to ``save`` (None: let the extension decide), after the
    checks of the module docstring; raises :class:`UsageError` for an ambiguous extension."""
    from ..formats.registry import formats
    fs = [f for f in formats() if f.can_write]
    if to is not None:
        info = next((f for f in fs if f.name == to), None)
        if info is not None and not info.matches_extension(path):
            exts = ", ".join(info.extensions)
            print(f"roboio convert: warning: {path}: the extension is not one of {to}'s "
                  f"({exts}); writing {to} as --to asks", file=sys.stderr)
        return to
    longest = max((f.matches_extension(path) for f in fs), default=0)
    if not longest:
        import os
        ext = os.path.splitext(path)[1]
        raise UsageError(f"{path}: no format roboio writes has the extension {ext or '(none)'}; "
                         "name one with --to FORMAT (`roboio formats` lists them)")
    cands = [f for f in fs if f.matches_extension(path) == longest]
    if len({f.ecosystem for f in cands}) < 2:
        return None
    holders = [f for f in cands if can_hold(obj, f)]
    if len({f.ecosystem for f in holders}) < 2:
        return holders[0].name if len(holders) == 1 else None
    if input_format is not None and input_format in {f.name for f in holders}:
        return input_format
    ext = path[len(path) - longest:]
    names = ", ".join(f.name for f in sorted(holders, key=lambda f: f.name))
    raise UsageError(f"{path}: several formats write {ext} files and can hold a "
                     f"{type(obj).__name__}: {names}; choose one with --to FORMAT")
