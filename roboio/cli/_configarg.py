"""``--config``: a robot configuration as a user writes it, for every command that takes one
(``fk``, ``convert`` to a posed mesh scene, ``view``, ``render``).

Three forms:

* the **link vector**: one value per link, in link order (what ``roboio info`` lists under
  ``links``, and what ``fk --json`` prints as ``config``);
* the **joint vector**: one value per joint, in the order ``roboio info`` lists ``joints``
  (the robot's drivers: URDF moving joints with ``<mimic>`` followers folded into their
  leader, OpenRAVE/GraspIt! DOFs, Choreonoid joints, Klamp't drivers); links no joint moves
  (fixed links, a floating base) keep their initial values;
* **name=value pairs**: joint names, link names or the file's joint names (URDF joint names),
  see :meth:`roboio.model.joint_space.JointSpace.resolve`; everything not named keeps its
  initial value.

Values are radians and metres; ``30deg`` is 30 degrees (revolute joints only). Numbers are
separated by blanks or commas.

Which vector a list of numbers is: when its length is the number of links it is the link
vector, when it is the number of joints the joint vector. When the robot has as many links as
joints and the two readings differ (a robot with a fixed link and as many joints as links),
the link vector wins and a note on stderr says so; ``joints: ...`` or ``links: ...`` before
the numbers chooses explicitly. Any other length is a usage error that says what each
length means.
"""
from __future__ import annotations

import math
import sys

from .main import UsageError

__all__ = ["parse_config", "read_config", "HELP"]

HELP = ("configuration: the link vector \"q1 q2 ...\" (one value per link), the joint vector "
        "(one value per joint, in the order `roboio info` lists joints) or name=value pairs "
        "(joint or link names; the rest at the initial configuration); radians and metres, "
        "'30deg' for degrees; 'joints:' or 'links:' before the numbers chooses the vector")

_PREFIXES = ("links", "joints")


def parse_config(robot, text: str, option: str = "--config"):
    """The link configuration ``text`` describes (see the module docstring)."""
    return read_config(robot, text, option)[0]


def read_config(robot, text: str, option: str = "--config"):
    """``(q, form)``: the link configuration ``text`` describes and how it was read
    (``"links"``, ``"joints"`` or ``"names"``)."""
    import numpy as np
    js = robot.joint_space
    body = (text or "").strip()
    forced = None
    head, sep, rest = body.partition(":")
    if sep and head.strip().lower() in _PREFIXES and "=" not in head:
        forced, body = head.strip().lower(), rest
    words = body.replace(",", " ").split()
    if not words:
        raise UsageError(f"{option} is empty: give numbers or name=value pairs")
    named = ["=" in w for w in words]
    if any(named):
        if not all(named):
            raise UsageError(f"{option}: give either numbers or name=value pairs, not both")
        if forced:
            raise UsageError(f"{option}: '{forced}:' goes with numbers, not name=value pairs")
        values = {}
        for w in words:
            name, _, value = w.partition("=")
            try:
                kind, k = js.resolve(name)
            except KeyError:
                from ._words import did_you_mean
                raise UsageError(f"{option}: robot {robot.name!r} has no joint or link named "
                                 f"{name!r}{did_you_mean(name, list(js.names) + robot.link_names)} "
                                 f"(joints: {_names(js.names)})") from None
            prismatic = bool(js.prismatic[k]) if kind == "joint" else robot.links[k].is_prismatic
            values[name] = _number(value, option, name, prismatic)
        return js.to_config(values), "names"
    n, nl, nj = len(words), robot.num_links, len(js)
    if forced == "links" or (forced is None and n == nl):
        if n != nl:
            raise UsageError(f"{option}: 'links:' needs {nl} values (one per link), got {n}")
        q = np.array([_number(w, option, robot.link_names[i], robot.links[i].is_prismatic)
                      for i, w in enumerate(words)])
        if forced is None and n == nj and not js.identity:
            print(f"roboio: note: {option}: {n} values read as the link vector (robot "
                  f"{robot.name!r} has {nl} links and {nj} joints); write 'joints: ...' for "
                  f"joint values", file=sys.stderr)
        return q, "links"
    if forced == "joints" or n == nj:
        if n != nj:
            raise UsageError(f"{option}: 'joints:' needs {nj} values (one per joint: "
                             f"{_names(js.names)}), got {n}")
        prism = js.prismatic
        u = [_number(w, option, js.names[k], bool(prism[k])) for k, w in enumerate(words)]
        return js.to_config(u), "joints"
    raise UsageError(
        f"{option} has {n} value{'s' if n != 1 else ''}; robot {robot.name!r} has "
        f"{_count(nj, 'joint')} ({_names(js.names)}: the joint vector) and "
        f"{_count(nl, 'link')} (the link vector, as `roboio info` lists them): give {nj} or {nl} "
        f"numbers, or name=value pairs")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _names(names, limit: int = 8) -> str:
    if not names:
        return "none"
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def _number(word: str, option: str, name: str, prismatic: bool) -> float:
    w = word.strip()
    deg = w.lower().endswith("deg")
    if deg:
        w = w[:-3]
    try:
        v = float(w)
    except ValueError:
        raise UsageError(f"{option}: {word!r} (for {name}) is not a number") from None
    if deg:
        if prismatic:
            raise UsageError(f"{option}: {name} is prismatic (metres); 'deg' applies to "
                             f"revolute joints")
        v = math.radians(v)
    return v
