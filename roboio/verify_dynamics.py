"""Proof that a conversion kept the dynamics: :func:`verify_dynamics` compares two robot
models' mass matrices and gravity torques over sampled configurations, and names the links
whose mass, centre of mass or inertia differ.

What is compared is what a simulator or controller sees: the rows and columns of the
*moving* coordinates. A welded link has no coordinate of its own: its mass rides on the
link it is welded to, so a converter may merge it into its parent (URDF fixed joints in
pinocchio, MJCF bodies) or keep it as a link of its own (Klamp't) without changing the
dynamics. Coordinates are carried from A to B by link name (``space="links"``: every moving
link of A has a moving namesake in B; a joint whose axis length differs is scaled, as
:func:`roboio.verify.verify` does), else by joint (``space="drivers"``: both robots' joint
spaces, :attr:`Robot.joint_space`, have the same names or the same size), where the matrices
are ``D^T M D`` and the torques ``D^T G`` with ``D`` the joint space's Jacobian (affine
drivers move several links).

Per moving link, the *rigid group* (the link and the links welded to it, through any chain
of welds) is compared in the link's frame: total mass (kg), centre of mass (m) and inertia
about it (kg m^2, link axes), with the angle (degrees) between the two inertias' principal
axes. Links whose group differs beyond the tolerance are listed in
:attr:`DynamicsResult.links`, largest difference first.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .model import Robot
from .verify import _as_robot, _welded, map_name, sample_configs

__all__ = ["verify_dynamics", "DynamicsResult", "LinkInertialDifference", "rigid_groups"]

EARTH = (0.0, 0.0, -9.81)


@dataclass
class LinkInertialDifference:
    """How the rigid group of one moving link differs between A and B (link frame)."""

    link: str
    mass_a: float
    mass_b: float
    com_shift: float            # m
    inertia_difference: float   # kg m^2, largest entry of I_b - I_a
    axes_angle: float           # degrees between principal axes (0 where moments repeat)

    @property
    def mass_change(self) -> float:
        """Relative mass change (B - A) / A (inf when A is massless and B is not)."""
        if self.mass_a == 0.0:
            return 0.0 if self.mass_b == 0.0 else np.inf
        return (self.mass_b - self.mass_a) / self.mass_a

    def describe(self) -> str:
        parts = []
        if self.mass_a != self.mass_b:
            parts.append(f"mass {self.mass_a:.6g} -> {self.mass_b:.6g} kg "
                         f"({100 * self.mass_change:+.3g}%)")
        if self.com_shift:
            parts.append(f"COM moved {self.com_shift:.3g} m")
        if self.inertia_difference:
            turned = f", principal axes turned {self.axes_angle:.3g} deg" if self.axes_angle else ""
            parts.append(f"inertia differs by {self.inertia_difference:.3g} kg m^2{turned}")
        return f"{self.link}: " + "; ".join(parts)

    def to_dict(self) -> dict:
        return {"link": self.link, "mass_a": self.mass_a, "mass_b": self.mass_b,
                "mass_change": self.mass_change, "com_shift": self.com_shift,
                "inertia_difference": self.inertia_difference, "axes_angle": self.axes_angle}


@dataclass
class DynamicsResult:
    """Outcome of :func:`verify_dynamics`: largest relative differences over the samples of
    the mass matrix (to its largest entry in A) and of the gravity torques (to their largest
    magnitude in A)."""

    space: str
    coordinates: list                  # names of the compared coordinates
    max_mass_matrix_error: float
    max_gravity_error: float
    samples: int
    tol: float
    links: list = field(default_factory=list)      # LinkInertialDifference, largest first
    notes: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        # (two models with nothing that moves compare equal: no coordinates, no errors)
        return (self.max_mass_matrix_error <= self.tol and self.max_gravity_error <= self.tol
                and self.space != "none")

    def to_dict(self) -> dict:
        return {"ok": self.ok, "space": self.space, "coordinates": self.coordinates,
                "max_mass_matrix_error": self.max_mass_matrix_error,
                "max_gravity_error": self.max_gravity_error, "samples": self.samples,
                "tol": self.tol, "links": [d.to_dict() for d in self.links],
                "notes": self.notes}


def rigid_groups(robot: Robot, q=None, held=None) -> dict:
    """``{moving link index: (mass, com, inertia)}``: each moving link together with the links
    welded to it, in that link's frame at configuration ``q`` (default ``config``): mass
    (kg), centre of mass (m) and inertia about it (kg m^2, link axes). ``held``: links
    counted as welded too (bool per link)."""
    welded = _welded(robot)
    if held is not None:
        welded = welded | held
    T = robot.fk(q)
    owner = np.arange(robot.num_links)
    for i, link in enumerate(robot.links):          # parents come first
        if welded[i] and link.parent >= 0:
            owner[i] = owner[link.parent]
    out = {}
    for i in range(robot.num_links):
        if welded[i]:
            continue
        members = np.flatnonzero(owner == i)
        Ri, oi = T[i, :3, :3], T[i, :3, 3]
        m = c = None
        masses = np.array([robot.links[k].mass for k in members])
        world_c = np.array([T[k, :3, :3] @ robot.links[k].com + T[k, :3, 3] for k in members])
        m = float(masses.sum())
        c = masses @ world_c / m if m > 0 else world_c[0]
        I = np.zeros((3, 3))
        for k, mk, ck in zip(members, masses, world_c):
            Rk = T[k, :3, :3]
            Ik = np.asarray(robot.links[k].inertia, float)
            d = ck - c
            I += Rk @ (0.5 * (Ik + Ik.T)) @ Rk.T + mk * (d @ d * np.eye(3) - np.outer(d, d))
        out[i] = (m, Ri.T @ (c - oi), Ri.T @ I @ Ri)
    return out


def _axes_angle(Ia, Ib) -> float:
    """Degrees by which the principal axes of ``Ib`` are turned from those of ``Ia``: the
    largest angle between matching axes whose moment is distinct from the other two in both
    (an axis of a repeated moment is not defined); 0 when no axis is."""
    wa, Va = np.linalg.eigh(Ia)
    wb, Vb = np.linalg.eigh(Ib)
    scale = max(np.abs(wa).max(), np.abs(wb).max(), 1e-300)
    out = 0.0
    for k in range(3):
        others = [j for j in range(3) if j != k]
        if min(abs(wa[k] - wa[j]) for j in others) <= 1e-6 * scale or \
                min(abs(wb[k] - wb[j]) for j in others) <= 1e-6 * scale:
            continue
        a, b = Va[:, k], Vb[:, k]
        out = max(out, float(np.degrees(np.arctan2(np.linalg.norm(np.cross(a, b)), abs(a @ b)))))
    return out


def inertia_change(Ia, Ib) -> str:
    """Sizes of the change from inertia ``Ia`` to ``Ib`` (3x3, kg m^2, same axes): principal
    moments, largest entry change (and its share of the largest moment), principal axes
    turned (degrees, where the moments are distinct)."""
    Ia, Ib = np.asarray(Ia, float), np.asarray(Ib, float)
    Sa, Sb = 0.5 * (Ia + Ia.T), 0.5 * (Ib + Ib.T)
    wa, wb = np.linalg.eigvalsh(Sa), np.linalg.eigvalsh(Sb)
    d = float(np.abs(Ib - Ia).max())
    big = max(float(np.abs(wa).max()), 1e-300)
    text = (f"principal moments ({', '.join(f'{x:.6g}' for x in wa)}) -> "
            f"({', '.join(f'{x:.6g}' for x in wb)}) kg m^2; largest entry change {d:.3g} kg m^2 "
            f"({100 * d / big:.3g}% of the largest moment)")
    angle = _axes_angle(Sa, Sb)
    if angle:
        text += f"; principal axes turned {angle:.3g} deg"
    return text


def _compare_groups(ra, rb, pairs, qa, qb, held_a, held_b, tol) -> list:
    # links whose coordinate the comparison holds ride on their parents, as welded ones do
    ga, gb = rigid_groups(ra, qa, held_a), rigid_groups(rb, qb, held_b)
    out = []
    for i, j in pairs:
        if i not in ga or j not in gb:
            continue
        (ma, ca, Ia), (mb, cb, Ib) = ga[i], gb[j]
        dm = abs(mb - ma)
        dc = float(np.linalg.norm(cb - ca))
        dI = float(np.abs(Ib - Ia).max())
        big = max(abs(ma), abs(mb), 1e-300)
        bigI = max(np.abs(Ia).max(), np.abs(Ib).max(), 1e-300)
        if dm <= tol * big and dc <= tol * max(1.0, float(np.linalg.norm(ca))) and dI <= tol * bigI:
            continue
        d = LinkInertialDifference(ra.links[i].name, float(ma), float(mb),
                                   dc if dc > tol else 0.0,
                                   dI if dI > tol * bigI else 0.0,
                                   _axes_angle(Ia, Ib) if dI > tol * bigI else 0.0)
        out.append((max(dm / big, dc, dI / bigI), len(out), d))
    return [d for _, _, d in sorted(out, key=lambda t: (-t[0], t[1]))]


def _link_coordinates(ra: Robot, rb: Robot, link_map) -> Optional[tuple]:
    """Moving links of A with a moving namesake in B: (indices in A, in B, axis ratios), or
    None when some moving link of A has none."""
    wa, wb = _welded(ra), _welded(rb)
    idx_b = {}
    for j, name in enumerate(rb.link_names):
        idx_b.setdefault(name, j)
    ia, ib = [], []
    for i, name in enumerate(ra.link_names):
        if wa[i]:
            continue
        j = idx_b.get(map_name(name, link_map))
        if j is None or wb[j]:
            return None
        ia.append(i)
        ib.append(j)
    if not ia:
        return None
    ratio = []
    for i, j in zip(ia, ib):
        a, b = np.asarray(ra.links[i].axis, float), np.asarray(rb.links[j].axis, float)
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        ratio.append(na / nb if na > 0 and nb > 0 else 1.0)
    return np.array(ia), np.array(ib), np.array(ratio)


def _joint_coordinates(ra: Robot, rb: Robot, samples: int, seed: int, notes: list):
    """Samples carried over by joint: (Qa, Qb, Da, Db, names), or None when the two joint
    spaces do not correspond."""
    ja, jb = ra.joint_space, rb.joint_space
    if ja.names == jb.names:
        order = list(range(len(jb)))
    elif set(ja.names) == set(jb.names) and len(ja) == len(jb):
        order = [jb.names.index(n) for n in ja.names]
    elif set(ja.names) < set(jb.names) and len(set(jb.names)) == len(jb):
        # B adds joints (GraspIt!'s DOFs for a floating base, a chain's own coupling): A's
        # joints by name, B's others held at their values
        order = [jb.names.index(n) for n in ja.names]
        extra = [n for n in jb.names if n not in set(ja.names)]
        notes.append(f"joints only in B held at B's values: {', '.join(extra[:8])}"
                     + (f", +{len(extra) - 8} more" if len(extra) > 8 else ""))
    elif len(ja) == len(jb) and len(ja):
        order = list(range(len(jb)))
        notes.append("joints matched by position (their names differ)")
    else:
        return None
    Qa = ja.sample(samples, seed)
    ub = np.tile(jb.from_config(None), (samples, 1))
    ub[:, order] = np.array([ja.from_config(q) for q in Qa])
    Qb = np.array([jb.to_config(u) for u in ub])
    return Qa, Qb, ja.jacobian(), jb.jacobian()[:, order], list(ja.names)


def _base_turn(ra, rb, Qa, Qb, ia, ib):
    """Rotations (samples, 3, 3) taking A's world axes to B's, from the first matched moving
    link (identity when both place it alike): a target that does not store the base pose
    (GraspIt!) turns gravity relative to the robot."""
    Ta = ra.fk_batch(Qa, links=[int(ia)])[:, 0, :3, :3]
    Tb = rb.fk_batch(Qb, links=[int(ib)])[:, 0, :3, :3]
    return np.einsum("nij,nkj->nik", Tb, Ta)


def _compare(ra, rb, Qa, Qb, Da, Db, gravity, turn):
    Ma = ra.mass_matrix_batch(Qa)
    Mb = rb.mass_matrix_batch(Qb)
    Ma_r = np.einsum("ik,nij,jl->nkl", Da, Ma, Da)
    Mb_r = np.einsum("ik,nij,jl->nkl", Db, Mb, Db)
    g = np.asarray(gravity, float)
    Ga = np.array([ra.gravity_torques(q, gravity=g) for q in Qa]) @ Da
    Gb = np.array([rb.gravity_torques(q, gravity=R @ g) for q, R in zip(Qb, turn)]) @ Db
    m_err = float(np.abs(Ma_r - Mb_r).max(initial=0.0) / max(np.abs(Ma_r).max(initial=0.0), 1e-300))
    g_scale = np.abs(Ga).max(initial=0.0)
    g_err = float(np.abs(Ga - Gb).max(initial=0.0) / g_scale) if g_scale > 0 else \
        float(np.abs(Gb).max(initial=0.0))
    return m_err, g_err


def verify_dynamics(a, b, samples: int = 20, seed: int = 0, tol: float = 1e-9, link_map=None,
                    gravity=EARTH) -> DynamicsResult:
    """Compare the dynamics of robots ``a`` and ``b`` (see the module docstring): mass
    matrices and gravity torques over ``samples`` configurations drawn within A's limits,
    relative to A's largest entry; links whose rigid group differs by more than ``tol``
    (relative to its mass, to 1 m for the COM, to its largest inertia entry) are named.

    Both ways of carrying coordinates over are tried where both apply, and the closer
    counts. Where B places the base differently (a GraspIt! robot file stores no base pose),
    gravity is turned with it and a note says by how much."""
    if int(samples) != samples or samples < 1:
        raise ValueError(f"verify_dynamics needs samples >= 1, got {samples!r}")
    ra, rb = _as_robot(a), _as_robot(b)
    idx_b = {}
    for j, name in enumerate(rb.link_names):
        idx_b.setdefault(name, j)
    pairs = [(i, idx_b[map_name(n, link_map)]) for i, n in enumerate(ra.link_names)
             if map_name(n, link_map) in idx_b]
    wa, wb = _welded(ra), _welded(rb)
    moving_pairs = [(i, j) for i, j in pairs if not wa[i] and not wb[j]]
    del wa, wb
    candidates = []
    coords = _link_coordinates(ra, rb, link_map)
    if coords is not None:
        ia, ib, ratio = coords
        Qa = sample_configs(ra, samples, seed)
        Qb = np.tile(rb.config, (samples, 1))
        Qb[:, ib] = Qa[:, ia] * ratio
        Da = np.zeros((ra.num_links, len(ia)))
        Da[ia, np.arange(len(ia))] = 1.0
        Db = np.zeros((rb.num_links, len(ib)))
        Db[ib, np.arange(len(ib))] = 1.0 / ratio
        candidates.append(("links", Qa, Qb, Da, Db, [ra.link_names[i] for i in ia], []))
    joint_notes: list = []
    joints = _joint_coordinates(ra, rb, samples, seed, joint_notes)
    if joints is not None and (coords is None or ra.drivers or rb.drivers):
        candidates.append(("drivers", *joints, joint_notes))
    if not candidates:
        return DynamicsResult("none", [], np.inf, np.inf, samples, tol, [],
                              ["neither the moving links nor the joints of the two models "
                               "correspond"])
    best = None
    for space, Qa, Qb, Da, Db, names, notes in candidates:
        turn = np.tile(np.eye(3), (samples, 1, 1))
        notes = list(notes)
        if moving_pairs:
            R = _base_turn(ra, rb, Qa, Qb, *moving_pairs[0])
            # |R - E| = 2 sqrt(2) sin(angle / 2): exact for small angles, unlike arccos
            dev = np.linalg.norm(R - np.eye(3), axis=(1, 2)).max() / (2 * np.sqrt(2))
            angle = float(np.degrees(2 * np.arcsin(min(1.0, dev))))
            if angle > np.degrees(tol):
                turn = R
                notes.append(f"B places the robot turned by {angle:.3g} deg (a base pose it "
                             "does not store): gravity turned with it")
        m_err, g_err = _compare(ra, rb, Qa, Qb, Da, Db, gravity, turn)
        if best is None or max(m_err, g_err) < max(best[1], best[2]):
            best = (space, m_err, g_err, names, notes, Qa[0], Qb[0], Da, Db)
    space, m_err, g_err, names, notes, qa, qb, Da, Db = best
    links = _compare_groups(ra, rb, pairs, qa, qb, ~Da.any(axis=1), ~Db.any(axis=1), tol)
    return DynamicsResult(space, names, m_err, g_err, samples, tol, links, notes)
