"""MuJoCo actuators for a robot's drivers (``--actuators position|motor|none``; the rules
are documented for users in ``docs/mjcf.md``).

One actuator per driver that moves a joint (``normal``, ``affine`` and polynomial
``nonlinear`` drivers), named after the driver (:func:`actuator_name`: a driver read from
MJCF keeps the name of the one actuator that drove it), on the joint of the driver's leader
(:attr:`roboio.model.Driver.leader`: the DOF whose value is the driver's value; for an
affine driver whose leader has no MuJoCo joint, the first DOF with one and a nonzero
scale). The other DOFs of a coupled driver follow the actuated one through
``<equality><joint>`` (written by the MJCF writer with the same leader).

The actuator works in the joint's MuJoCo coordinate ``qpos = a u + b`` of the driver value
``u`` (``a = |axis| scale``, ``b = |axis| offset`` of the leader; ``a = 1, b = 0`` for a
driver that sets a unit-axis joint to its own value, the usual case): limits, forces and
gains are converted to it (forces by ``1/a``, gains by ``1/a^2``), and the report says so
where ``a, b`` is not ``1, 0``.

* ``position``: ``<position kp kv>`` from the driver's servo gains (``servo_p``,
  ``servo_d``), ``ctrlrange`` from its position limits, ``forcerange`` from its torque
  limits (each only where finite); an integral gain has no place and is reported. With a
  velocity gain the model uses the ``implicitfast`` integrator (:attr:`Actuators.damped`):
  MuJoCo's default Euler integration of ``kv`` diverges on light links;
* ``motor``: ``<motor>`` whose control is the joint force, ``ctrlrange`` from the torque
  limits; the gains are reported;
* ``none``: no actuators (the drivers are reported as lost).

When no mode is given (``mode=None``: :attr:`Actuators.keep`), a driver read from MJCF
whose limits and gains are still those its actuators gave it
(:func:`._actuators.as_read`) gets those actuators back as read (:meth:`Actuators.add_kept`:
same element, name, joint, gear, ranges and kept attributes); every other driver gets a
``position`` actuator, and a changed one is reported.
"""
from __future__ import annotations

import math
from typing import Optional

from lxml import etree

from ..fileio import fmt_float
from ._actuators import kept_attributes

__all__ = ["MODES", "DEFAULT", "lead_index", "actuator_name", "Actuators"]

MODES = ("position", "motor", "none")
DEFAULT = "position"


def _fmt(values) -> str:
    return " ".join(fmt_float(float(v) + 0.0) for v in values)


def actuator_name(d) -> str:
    """The name of driver ``d``'s actuator (and the stem of its couplings' names): that of
    the one named actuator an MJCF reading found on it (``extras["mjcf"]["actuators"]``; the
    reader names the driver after its joint), else the driver's."""
    found = d.extras.get("mjcf", {}).get("actuators") or []
    if len(found) == 1 and found[0].get("name"):
        return found[0]["name"]
    return d.name


def lead_index(d, has_joint: list) -> Optional[int]:
    """Index in ``d.dofs`` of the DOF driver ``d`` actuates (see the module docstring), or
    None when none of its DOFs has a MuJoCo joint. ``has_joint[k]``: ``d.dofs[k]`` has one."""
    cands = [k for k, i in enumerate(d.dofs)
             if has_joint[k] and (d.type != "affine" or d.scale[k] != 0)]
    if not cands:
        return None
    if d.leader in d.dofs and d.dofs.index(d.leader) in cands:
        return d.dofs.index(d.leader)
    return cands[0]


class Actuators:
    """Collects the ``<actuator>`` children of one MJCF document."""

    def __init__(self, mode: Optional[str], report, names):
        if mode is not None and mode not in MODES:
            raise ValueError(f"actuators must be one of {', '.join(MODES)}, not {mode!r}")
        self.keep = mode is None        # actuators read from MJCF written back as read
        self.mode = mode or DEFAULT
        self.report = report
        self.names = names              # the writer's unique-name allocator for actuators
        self.elements: list = []
        self.damped = False             # a position actuator has a velocity gain
        self.places: list = []          # each element's place among the actuators read, or None

    def lose(self, kind: str, item: str) -> None:
        self.report.lose(kind, item)

    def add(self, d, joint: str, a: float, b: float, joint_range=(-math.inf, math.inf)):
        """An actuator for driver ``d`` on the MuJoCo joint ``joint``, whose coordinate is
        ``qpos = a u + b`` of the driver value ``u``; ``joint_range``: that joint's limits
        (a position actuator's targets are kept within them, as a reading takes them).
        Returns the name it is written with (None: no actuators are written)."""
        if self.mode == "none":
            return None
        name = self.names.take(actuator_name(d), "actuator", self.report, "actuator")
        if (a, b) != (1.0, 0.0):
            self.report.warn(f"actuator {name!r} works in joint {joint!r}'s coordinate, "
                             f"qpos = {fmt_float(a)} u + {fmt_float(b)} of the driver value u "
                             "(limits, forces and gains converted)")
        force = _range(d.tmin / a, d.tmax / a)
        if self.mode == "position":
            # targets within the joint's range (a driver that cannot move stays without one)
            lo, hi = sorted((a * d.qmin + b, a * d.qmax + b))
            ctrl = None if lo >= hi else _range(max(lo, joint_range[0]), min(hi, joint_range[1]))
            el = etree.Element("position", name=name, joint=joint, kp=fmt_float(d.servo_p / (a * a)),
                               kv=fmt_float(d.servo_d / (a * a)))
            self._limits(el, "ctrl", ctrl)
            self._limits(el, "force", force)
            self.damped |= d.servo_d > 0
            if d.servo_i:
                self.lose("integral gains of drivers (a MuJoCo position actuator has none)",
                          f"{d.name} ({fmt_float(d.servo_i)})")
            if d.servo_p <= 0:
                self.report.warn(f"driver {d.name!r} has no position gain: its position actuator "
                                 "(kp 0) exerts no force (give the driver servo gains, or write "
                                 "motor actuators)")
        else:
            el = etree.Element("motor", name=name, joint=joint)
            self._limits(el, "ctrl", force)
            if d.servo_p or d.servo_i or d.servo_d:
                self.lose("servo gains of drivers (motor actuators take forces)", d.name)
        self._append(el, d.extras.get("mjcf", {}).get("actuators") if isinstance(d.extras.get("mjcf"), dict) else None)
        return name

    def _append(self, el, read=None) -> None:
        """Add ``el``; ``read``: the actuators read from MJCF it stands for (their place
        among the source's actuators, MuJoCo's ctrl index, is its place, :meth:`element`)."""
        places = [a["index"] for a in read or () if isinstance(a.get("index"), int)]
        self.places.append(min(places) if places else None)
        self.elements.append(el)

    def add_kept(self, kept: list) -> None:
        """The actuators a reading kept on a driver (``extras["mjcf"]["actuators"]``), written
        back as they were read: ``kept`` holds ``(info, joint)`` pairs, ``joint`` the name
        the actuator's joint is written with (None: the actuator's tendon, ``info["tendon"]``)."""
        for info, joint in kept:
            if info["kind"] == "intvelocity" and "actrange" in info:
                info = self._intvelocity_as_general(info)
            kind = info["kind"]
            el = etree.Element(kind)
            if info.get("name"):
                el.set("name", self.names.take(info["name"], "actuator", self.report, "actuator"))
            if joint is not None:
                el.set("joint", joint)
            else:                           # (on a kept fixed tendon, written under its name)
                el.set("tendon", info["tendon"])
            if info.get("gear_full"):
                el.set("gear", _fmt(info["gear_full"]))
            elif info["gear"] != 1.0:
                el.set("gear", fmt_float(info["gear"]))
            for key in kept_attributes(kind):     # (before the ranges, as :meth:`add` orders them)
                v = info.get(key)
                if v is None:
                    continue
                el.set(key, v if isinstance(v, str) else _fmt(v if isinstance(v, list) else [v]))
            for key in ("ctrl", "force", "act"):
                rng = info.get(f"{key}range")
                if rng is not None or key != "act":
                    self._limits(el, key, rng)
            self.damped |= kind in ("position", "velocity", "intvelocity", "damper") and bool(info.get("kv"))
            self._append(el, [info])

    def _intvelocity_as_general(self, info: dict) -> dict:
        """An ``<intvelocity>`` with an activation range as the ``<general>`` MuJoCo makes of
        it (an integrator, gain ``kp``, bias ``0 -kp -kv``, ``dampratio`` kept positive in
        the bias): MuJoCo's ``<intvelocity>`` takes no ``actlimited``, without which its
        ``actrange`` is refused under the written ``autolimits="false"``."""
        kp = info.get("kp", 1.0)     # (MuJoCo's default kp)
        damp = info["dampratio"] if info.get("dampratio") else -info.get("kv", 0.0)
        self.report.lose("intvelocity actuators written as the equivalent <general> (MuJoCo's "
                         "<intvelocity> takes no actlimited; the compiled actuator is the same but "
                         "for its control-input tag, ctrlspec; read back, its driver has no servo gains)",
                         info.get("name") or info.get("joint", ""), kind="changed", noun="actuator")
        rest = {k: v for k, v in info.items() if k not in ("kp", "kv", "dampratio", "inheritrange")}
        return {**rest, "kind": "general", "dyntype": "integrator", "gainprm": [kp],
                "biastype": "affine", "biasprm": [0.0, -kp, damp]}

    def _limits(self, el, kind: str, rng) -> None:
        if rng is None:
            el.set(f"{kind}limited", "false")
            return
        el.set(f"{kind}limited", "true")
        el.set(f"{kind}range", _fmt(rng))

    def element(self, joint_order: Optional[dict] = None):
        """The ``<actuator>`` element, or None when there is nothing in it: the actuators
        read from MJCF first, in their source order (MuJoCo's ctrl order, which a controller
        of the model indexes), then the others in the order of their joints (``joint_order``:
        joint name -> place in the document), which a reading of the file keeps (the
        drivers' own order it does not)."""
        if not self.elements:
            return None
        out = etree.Element("actuator")
        els = self.elements
        if joint_order is not None:
            def place(k):
                read = self.places[k]
                return (0, read) if read is not None else (1, joint_order.get(els[k].get("joint"), len(joint_order)))
            els = [els[k] for k in sorted(range(len(els)), key=place)]
        for el in els:
            out.append(el)
        return out


def _range(lo: float, hi: float):
    """``(lo, hi)`` sorted when both are finite and differ, else None (unlimited)."""
    lo, hi = min(lo, hi), max(lo, hi)
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi:
        return None
    return lo, hi
