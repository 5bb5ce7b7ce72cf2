"""The joint space of a robot: its configuration as users name it.

roboio's configuration vector has one value per *link* (Klamp't's layout: a fixed joint is a
welded link, a floating base six virtual links, a coupled finger several links moved by one
driver). Users think in *joints*: the actuated degrees of freedom, which are the robot's
drivers (URDF moving joints, with ``<mimic>`` followers folded into their leader; OpenRAVE
and GraspIt! DOFs; Choreonoid joints; Klamp't drivers), in ``robot.drivers`` order -- the
order ``roboio info`` lists them. A robot without drivers has one joint per link that is not
welded.

:class:`JointSpace` converts between the two: ``to_config(values)`` gives the link vector
(DOFs no joint moves keep their value from ``q``, by default ``robot.config``),
``from_config(q)`` the joint values. Values are radians for revolute joints and metres for
prismatic ones; a driver's value is what it sets (an affine driver moves each of its links to
``offset + scale * value``).

Names: a joint is named by its driver's name (the source's name of the actuated joint); a
link name or the source's joint name (``Link.joint_name``) of a link a joint drives directly
names that joint too. :meth:`JointSpace.resolve` says what a name sets.

Each joint's link (``links[k]``) is its driver's ``leader``: the actuated joint of a coupled
group (a URDF ``<mimic>`` leader, an OpenRAVE DOF's joint), whose value is the joint's value.
"""
from __future__ import annotations

from typing import Mapping, Optional, Sequence, Union

import numpy as np

__all__ = ["JointSpace"]


class JointSpace:
    """A view of ``robot``'s actuated joints (see the module docstring). Built from the robot
    as it is; make a new one after editing drivers or links."""

    def __init__(self, robot):
        self.robot = robot
        if robot.drivers:
            self._drivers = list(robot.drivers)
            self.names = [d.name for d in self._drivers]
            # the actuated link: its value is the driver's (Driver.leader)
            self.links = [_leader(d) for d in self._drivers]
        else:
            welded = {i for j in robot.joints if j.type == "weld" for i in j.links}
            self._drivers = None
            self.links = [i for i in range(robot.num_links) if i not in welded]
            self.names = [robot.links[i].name for i in self.links]
        self._aliases = self._alias_table()

    # -- shape and limits -----------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.names)

    @property
    def size(self) -> int:
        return len(self.names)

    @property
    def identity(self) -> bool:
        """True when the joint vector *is* the link vector (one joint per link, in order, each
        moving its own link directly): both readings of a vector then agree."""
        n = self.robot.num_links
        if len(self) != n:
            return False
        if self._drivers is None:
            return self.links == list(range(n))
        return all(len(d.dofs) == 1 and d.dofs[0] == k and _is_direct(d, 0)
                   for k, d in enumerate(self._drivers))

    @property
    def qmin(self) -> np.ndarray:
        """Lower limits of the joint values (driver limits; link limits without drivers)."""
        if self._drivers is None:
            return np.asarray(self.robot.qmin, float)[self.links]
        return np.array([d.qmin for d in self._drivers], float)

    @property
    def qmax(self) -> np.ndarray:
        if self._drivers is None:
            return np.asarray(self.robot.qmax, float)[self.links]
        return np.array([d.qmax for d in self._drivers], float)

    @property
    def prismatic(self) -> np.ndarray:
        """Per joint: True when its value is a length (m), False for an angle (rad)."""
        return np.array([i is not None and self.robot.links[i].is_prismatic for i in self.links], bool)

    def dofs(self, k: int) -> list:
        """The link indices joint ``k`` moves."""
        if self._drivers is None:
            return [self.links[k]]
        return list(self._drivers[k].dofs)

    # -- conversions --------------------------------------------------------------------
    def from_config(self, q=None) -> np.ndarray:
        """Joint values of the link configuration ``q`` (default ``robot.config``); an
        affine driver reads the mean of ``(q - offset) / scale`` over its links (Klamp't)."""
        q = np.asarray(self.robot.config if q is None else q, float)
        if self._drivers is None:
            return q[self.links].copy()
        return self.robot.drivers_from_config(q)

    def initial(self) -> np.ndarray:
        """Joint values of the robot's initial configuration ``robot.config``."""
        return self.from_config(None)

    def as_dict(self, q=None) -> dict:
        """``{joint name: value}`` for the link configuration ``q`` (default ``robot.config``)."""
        return dict(zip(self.names, self.from_config(q).tolist()))

    def to_config(self, values: Union[Sequence[float], Mapping[str, float]], q=None) -> np.ndarray:
        """The link configuration for ``values``: a sequence of ``len(self)`` joint values in
        order, or a mapping ``{name: value}`` (names as :meth:`resolve` reads them; joints
        not named keep their value). DOFs no named joint moves keep their value from ``q``
        (default ``robot.config``)."""
        out = np.array(self.robot.config if q is None else q, dtype=float, copy=True)
        if out.shape != (self.robot.num_links,):
            raise ValueError(f"q must have {self.robot.num_links} values (one per link), "
                             f"not shape {out.shape}")
        # a nonlinear coupling reads other joints' values: start from those of ``q``
        u = self.from_config(out) if self._nonlinear() else None
        if isinstance(values, Mapping):
            for name, v in values.items():
                kind, k = self.resolve(name)
                if kind == "joint":
                    self._set(out, k, float(v), u)
                else:
                    out[k] = float(v)
            return self._couple(out, u)
        vals = np.asarray(values, dtype=float).reshape(-1)
        if len(vals) != len(self):
            raise ValueError(f"expected {len(self)} joint values ({', '.join(self.names)}), "
                             f"got {len(vals)}")
        for k, v in enumerate(vals):
            self._set(out, k, float(v), u)
        return self._couple(out, u)

    def _nonlinear(self) -> bool:
        return self._drivers is not None and any(d.type == "nonlinear" for d in self._drivers)

    def _couple(self, out: np.ndarray, u) -> np.ndarray:
        """Set the links of the nonlinear drivers from the joint values ``u``."""
        if u is None:
            return out
        for d in self._drivers:
            if d.type == "nonlinear":
                for dof, v in zip(d.dofs, d.coupling.evaluate([u[i] for i in d.coupling.inputs])):
                    out[dof] = v
        return out

    def _set(self, out: np.ndarray, k: int, v: float, u=None) -> None:
        if self._drivers is None:
            out[self.links[k]] = v
            return
        d = self._drivers[k]
        if u is not None:
            u[k] = v
        if d.type == "affine":
            for dof, s, o in zip(d.dofs, d.scale, d.offset):
                out[dof] = o + s * v
        elif d.type != "nonlinear":
            out[d.dofs[0]] = v

    def jacobian(self) -> np.ndarray:
        """``(num_links, len(self))``: how the link configuration moves per unit of each joint
        (column k: ``scale`` on each link an affine driver moves, 1 on a normal driver's or
        a plain joint's link). Joint velocities ``du`` give link velocities ``D @ du``; link
        torques ``tau`` are ``D.T @ tau`` per joint (dynamics in driver space)."""
        D = np.zeros((self.robot.num_links, len(self)))
        for k in range(len(self)):
            if self._drivers is None:
                D[self.links[k], k] = 1.0
                continue
            d = self._drivers[k]
            if d.type == "affine":
                for dof, s in zip(d.dofs, d.scale):
                    D[dof, k] += float(s)
            elif d.dofs:
                D[d.dofs[0], k] = 1.0
        return D

    def sample(self, n: int, seed=0) -> np.ndarray:
        """``(n, num_links)`` link configurations with every joint uniform within its limits
        (+-pi rad, or +-1 m for a prismatic joint, where a limit is infinite); links no joint
        moves (fixed links, a floating base) keep their value from ``robot.config``."""
        rng = np.random.default_rng(seed)
        span = np.where(self.prismatic, 1.0, np.pi)
        lo = np.where(np.isfinite(self.qmin), self.qmin, -span)
        hi = np.where(np.isfinite(self.qmax), self.qmax, span)
        lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
        U = rng.uniform(lo, hi, size=(int(n), len(self)))
        base = np.asarray(self.robot.config, float)
        Q = np.repeat(base[None], int(n), axis=0)
        if self._drivers is None:
            Q[:, self.links] = U
            return Q
        for k, d in enumerate(self._drivers):
            if d.type == "affine":
                for dof, s, o in zip(d.dofs, d.scale, d.offset):
                    Q[:, dof] = o + s * U[:, k]
            elif d.type == "nonlinear":
                for dof, v in zip(d.dofs, d.coupling.evaluate([U[:, i] for i in d.coupling.inputs])):
                    Q[:, dof] = v
            elif d.dofs:
                Q[:, d.dofs[0]] = U[:, k]
        return Q

    # -- names --------------------------------------------------------------------------
    def resolve(self, name: str) -> tuple:
        """What ``name`` sets: ``("joint", k)`` for joint ``k`` (a joint name; or the name,
        or file joint name, of the link a joint drives directly), ``("link", i)`` for any
        other link ``i`` (its value alone, which can break a coupling). KeyError when the
        robot has no such name."""
        if name in self._aliases:
            return self._aliases[name]
        raise KeyError(name)

    def _alias_table(self) -> dict:
        table: dict = {}
        for k, n in enumerate(self.names):
            table.setdefault(n, ("joint", k))
        direct = {}
        for k in range(len(self)):
            dofs = self.dofs(k)
            for pos, i in enumerate(dofs):
                if self._drivers is None or _is_direct(self._drivers[k], pos):
                    direct.setdefault(i, k)
        for i, link in enumerate(self.robot.links):
            for alias in (link.name, link.joint_name):
                if alias and alias not in table:
                    table[alias] = ("joint", direct[i]) if i in direct else ("link", i)
        return table

    def __repr__(self):
        return f"<JointSpace of {self.robot.name!r}: {len(self)} joints {self.names}>"


def _is_direct(d, pos: int) -> bool:
    """Whether driver ``d`` sets its ``pos``-th link to exactly its own value."""
    if d.type == "nonlinear":      # an expression coupling's leader is the driver's value
        return getattr(d.coupling, "functions", None) is not None and d.dofs[pos] == d.leader
    if d.type != "affine":
        return pos == 0
    return float(d.scale[pos]) == 1.0 and float(d.offset[pos]) == 0.0


def _leader(d) -> Optional[int]:
    """The driver's ``leader`` when it is one of its DOFs (a reader's choice: the actuated
    joint), else the first DOF it sets to exactly its value, else its first DOF."""
    lead = getattr(d, "leader", None)
    if lead is not None and lead in d.dofs:
        return lead
    for pos, i in enumerate(d.dofs):
        if _is_direct(d, pos):
            return i
    return d.dofs[0] if d.dofs else None
