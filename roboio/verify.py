"""Proof that a conversion moved nothing: :func:`verify` compares two robot models by forward
kinematics, link by link, over sampled configurations.

How configurations are drawn (from model A, then carried over to B):

* only what moves is sampled: a welded link (joint group ``weld``) stays at its configured
  value in each model, whatever its limits say;
* links driven together follow their drivers: the sample is drawn in A's *driver* space
  (each driver uniformly within its limits, +-pi or +-1 m where infinite) and turned into a
  configuration by ``config_from_drivers``; links no driver moves are drawn within their own
  limits;
* B gets a configuration for each of A's samples in two ways, and the closer match counts
  (any configuration of B that places every matched link as A does is a proof): the values
  of the A links its links are matched with (``space="links"``), scaled where the two axes
  differ in length only (a joint moves by ``q |axis|``; URDF readers normalise axes, and
  roboio's URDF writer scales those joints' coordinates to match); or, when both models have
  drivers that correspond (same names, or the same number), the same driver values
  (``space="drivers"``): this compares an OpenRAVE or GraspIt! robot with a conversion that
  has other links (GraspIt! chains repeat links, DOFs couple joints), DOF by DOF. Every
  moving link no driver moves counts as a driver of its own, named after the link (as
  Klamp't, OpenRAVE and GraspIt! give it a DOF). On a tie, drivers win where the two
  models' moving links differ.

What B cannot hold is accounted for, and listed in ``VerifyResult.accounted`` (empty: the
comparison is exact, ``VerifyResult.exact``):

* a link B welds that A moves (a GraspIt! palm; an OpenRAVE passive joint) is held at B's
  value in A's samples, or at A's configured value when that matches B more closely (B's
  weld frame includes the joint's motion there: roboio's COLLADA writer welds a joint no
  driver moves where the robot's configuration holds it);
* where the comparison fails as it is, A's base frames that B does not store (identity in
  B: a GraspIt! robot file has no base pose; a Choreonoid free link folds a floating base's
  frame offsets into its configuration) are placed as B's, and the change is measured
  (metres, radians). A base that B places elsewhere is a mismatch, never accounted for.

Where A's link frames are not rotations (matrices written with few digits), a rigid-body
target can only hold their nearest rotations: B is then also compared with A's frames made
rotations, and the closer comparison counts (``accounted`` says how far that moves A's
links).

Links are matched by :func:`roboio.link_match.match_links`: by name (through the renames a
conversion states and ``link_map``: exact pairs ``{"a": "b"}`` and prefix rules written with
``*``, ``{"left_*": "l_*"}``, ``{"*": "robot1/*"}``; a name used several times pairs
occurrence by occurrence), then by joint name, and by tree structure when names do not pair
every link one to one. ``VerifyResult.map`` is the correspondence used.

What a conversion states: ``stated`` (the :class:`~roboio.report.ConversionReport` of writing
A into B's format) gives the renames to match through and the FK change the writer measured
for what it approximated (``fk_error``: frames that are not rotations written as rotations);
a comparison that fails by no more than twice that (the writer measured it over other
configurations) is OK, with the stated error listed in ``accounted``.

B's forward kinematics: roboio's, or ``fk_b(Q, links)`` -- the real program's, read by
:mod:`roboio.reference_readers` (``roboio verify --reader``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .limits import check_alloc
from .link_match import LinkMatch, map_name, match_links
from .model import Driver, Robot, World

__all__ = ["verify", "VerifyResult", "pair_robots", "sample_configs", "map_name", "match_links",
           "LinkMatch", "STATED_MARGIN"]

STATED_MARGIN = 2.0     # a stated FK error is allowed this many times over (see verify)


def _spans(robot: Robot) -> np.ndarray:
    return np.where([l.is_prismatic for l in robot.links], 1.0, np.pi)


def _welded(robot: Robot) -> np.ndarray:
    w = np.zeros(robot.num_links, dtype=bool)
    for j in robot.joints:
        if j.type == "weld":
            w[j.links] = True
    return w


def sample_configs(robot: Robot, n: int, seed: int = 0) -> np.ndarray:
    """``(n, num_links)`` configurations uniform within the joint limits (+-pi, or +-1 m for
    prismatic links, where a limit is infinite); welded links stay at their configured
    value."""
    check_alloc(n * robot.num_links * 8.0, f"{n:,} random configurations")
    rng = np.random.default_rng(seed)
    span = _spans(robot)
    lo = np.where(np.isfinite(robot.qmin), robot.qmin, -span)
    hi = np.where(np.isfinite(robot.qmax), robot.qmax, span)
    lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    Q = rng.uniform(lo, hi, size=(n, robot.num_links))
    w = _welded(robot)
    Q[:, w] = robot.config[w]
    return Q


def _driver_samples(robot: Robot, n: int, rng) -> np.ndarray:
    """``(n, len(drivers))`` driver values uniform within the driver limits."""
    out = np.empty((n, len(robot.drivers)))
    for k, d in enumerate(robot.drivers):
        span = 1.0 if d.dofs and robot.links[d.dofs[0]].is_prismatic else np.pi
        lo = d.qmin if np.isfinite(d.qmin) else -span
        hi = d.qmax if np.isfinite(d.qmax) else span
        out[:, k] = rng.uniform(min(lo, hi), max(lo, hi), size=n)
    return out


@dataclass
class VerifyResult:
    """Outcome of :func:`verify`. Errors are maxima over samples and matched links
    (positions in metres, rotations in radians)."""

    matched: list
    only_a: list
    only_b: list
    max_position_error: float
    max_rotation_error: float
    worst_link: str
    samples: int
    tol: float
    notes: list = field(default_factory=list)
    per_link: dict = field(default_factory=dict)   # link name -> (max position, max rotation error)
    space: str = "links"                           # "links" or "drivers"
    accounted: list = field(default_factory=list)  # what B cannot hold, allowed for (empty: exact)
    matched_by: str = "names"                      # how links were paired (see link_match)
    map: dict = field(default_factory=dict)        # A name -> B name of every matched link
    allowed: tuple = (0.0, 0.0)                    # stated errors accepted (m, rad) beyond tol
    reader: str = "roboio"                         # who read B (roboio, klampt, pinocchio, mujoco)
    collision: Optional[object] = None             # CollisionComparison (verify(collision=True))

    @property
    def exact(self) -> bool:
        """Within ``tol`` with nothing accounted for and every link of A matched."""
        return self.ok and not self.accounted and not self.only_a and \
            self.max_position_error <= self.tol and self.max_rotation_error <= self.tol

    @property
    def ok(self) -> bool:
        return (bool(self.matched) and self.max_position_error <= max(self.tol, self.allowed[0])
                and self.max_rotation_error <= max(self.tol, self.allowed[1])
                and (self.collision is None or self.collision.ok))

    def to_dict(self) -> dict:
        return {"ok": self.ok, "exact": self.exact, "space": self.space, "accounted": self.accounted,
                "matched_by": self.matched_by, "map": self.map, "reader": self.reader,
                "allowed": {"position": self.allowed[0], "rotation": self.allowed[1]},
                "matched_links": len(self.matched),
                "only_a": self.only_a, "only_b": self.only_b,
                "max_position_error": self.max_position_error,
                "max_rotation_error": self.max_rotation_error, "worst_link": self.worst_link,
                "samples": self.samples, "tol": self.tol, "notes": self.notes,
                "per_link": {k: {"position": p, "rotation": r} for k, (p, r) in self.per_link.items()},
                **({"collision": self.collision.to_dict()} if self.collision is not None else {})}


def pair_robots(a_robots: list, b_robots: list) -> list:
    """``[(robot of A, robot of B or None)]``: B's robot of the same name, else the one
    sharing the most link names (a world writer may join an attached hand to its arm),
    else, when both hold as many robots, the one at the same place."""
    pairs = []
    for k, ra in enumerate(a_robots):
        rb = next((r for r in b_robots if r.name == ra.name), None)
        if rb is None:
            names = set(ra.link_names)
            shared = [(len(names & set(r.link_names)), -i) for i, r in enumerate(b_robots)]
            best = max(shared, default=(0, 0))
            if best[0]:
                rb = b_robots[-best[1]]
            elif len(a_robots) == len(b_robots):
                rb = b_robots[k]
        pairs.append((ra, rb))
    return pairs


def _as_robot(obj) -> Robot:
    if isinstance(obj, Robot):
        return obj
    if isinstance(obj, World) and len(obj.robots) == 1:
        return obj.robots[0]
    raise ValueError(f"expected one robot, got {obj!r}")


def _driver_match(ra: Robot, rb: Robot, optional=frozenset(), renamed=None,
                  by_count: bool = True) -> Optional[list]:
    """Index in B of each driver of A (-1: none), or None when the drivers do not
    correspond (same names; or, with ``by_count``, the same number). Drivers of A in
    ``optional`` (they move only links B welds) need no match; ``renamed``: the joint
    renames a conversion states (a driver is named after its joint)."""
    if not ra.drivers or not rb.drivers:
        return None
    names_b = {d.name: k for k, d in enumerate(rb.drivers)}
    want = [(renamed or {}).get(d.name, d.name) for d in ra.drivers]
    want = [w if isinstance(w, str) else d.name for w, d in zip(want, ra.drivers)]
    if len(names_b) == len(rb.drivers) and all(w in names_b for k, w in enumerate(want)
                                               if k not in optional):
        return [names_b.get(w, -1) for w in want]
    if by_count and len(ra.drivers) == len(rb.drivers):
        return list(range(len(ra.drivers)))
    return None


def _errors(Ta, Tb):
    """Position (m) and rotation (rad) differences of corresponding 4x4 frames."""
    pos = np.linalg.norm(Ta[..., :3, 3] - Tb[..., :3, 3], axis=-1)
    Rrel = np.swapaxes(Ta[..., :3, :3], -1, -2) @ Tb[..., :3, :3]
    cos = np.clip((np.trace(Rrel, axis1=-2, axis2=-1) - 1) / 2, -1, 1)
    # arccos loses precision near 0; use the skew part's norm for small angles
    skew = np.stack([Rrel[..., 2, 1] - Rrel[..., 1, 2], Rrel[..., 0, 2] - Rrel[..., 2, 0],
                     Rrel[..., 1, 0] - Rrel[..., 0, 1]], axis=-1)
    return pos, np.arctan2(np.linalg.norm(skew, axis=-1) / 2, cos)


def _rigid(robot: Robot):
    """``(copy of robot with every link frame's rotation part made the nearest rotation,
    largest entry change, link name)``, or None when every frame is a rotation."""
    from .formats.affine import nearest_rotation     # not at import: roboio starts light
    worst, where, out = 0.0, "", None
    for i, l in enumerate(robot.links):
        R, err = nearest_rotation(l.parent_transform[:3, :3])
        if err > 0:
            out = out if out is not None else robot.copy()
            T = np.array(out.links[i].parent_transform, float)
            T[:3, :3] = R
            out.links[i].parent_transform = T
            if err > worst:
                worst, where = err, l.name
    return None if out is None else (out, worst, where)


def _axis_ratio(ra: Robot, rb: Robot, ia, ib, notes: list) -> np.ndarray:
    """Per matched pair, ``|axis_A| / |axis_B|`` where the two axes point the same way but
    differ in length (else 1): a joint turns (or slides) by ``q |axis|``, and URDF, MuJoCo
    and pinocchio normalise axes, so a conversion scales that joint's coordinate by
    ``|axis|``. B's link is then given the value that moves it as far as A's."""
    out = np.ones(len(ia))
    scaled = []
    for k, (i, j) in enumerate(zip(ia, ib)):
        a, b = np.asarray(ra.links[i].axis, float), np.asarray(rb.links[j].axis, float)
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        if na == nb or na == 0 or nb == 0:
            continue
        if np.abs(a / na - b / nb).max() <= 1e-12:
            out[k] = na / nb
            scaled.append(ra.links[i].name)
    if scaled:
        notes.append("axes of different lengths, compared at equal angles (B's value = A's x "
                     "|axis A| / |axis B|): " + ", ".join(scaled))
    return out


def _implicit_drivers(robot: Robot, held=()) -> Robot:
    """``robot`` with a one-DOF driver (named after its link) for every moving link no driver
    moves, as Klamp't, OpenRAVE and GraspIt! give such a link a DOF of its own: then every
    moving link has a driver, and two models compare DOF by DOF (the same robot when nothing
    is added)."""
    moved = {i for d in robot.drivers for i in d.dofs}
    welded = _welded(robot)
    names = {d.name for d in robot.drivers}
    extra = [i for i, l in enumerate(robot.links) if i not in moved and not welded[i]
             and i not in held and l.name and l.name not in names]
    if not extra:
        return robot
    out = robot.copy()
    out.drivers = list(out.drivers) + [Driver(robot.links[i].name, "normal", [i], qmin=robot.qmin[i],
                                              qmax=robot.qmax[i]) for i in extra]
    return out


def _base_links(robot: Robot) -> list:
    """Links that place the robot in the world: its roots, and the six links of a floating
    base that starts at a root (their frames are one free pose, however it is split)."""
    out = [i for i, l in enumerate(robot.links) if l.parent < 0]
    for j in robot.joints:
        if j.type == "floating" and j.links and robot.links[j.links[0]].parent < 0:
            out += [i for i in j.links if i not in out]
    return out


def _pose_change(Ta, Tb) -> tuple:
    """Translation (m) and rotation angle (rad) of ``inv(Ta) @ Tb``."""
    rel = np.linalg.solve(Ta, Tb)
    cos = np.clip((np.trace(rel[:3, :3]) - 1) / 2, -1, 1)
    return float(np.linalg.norm(rel[:3, 3])), float(np.arccos(cos))


def _placed_as(ra: Robot, rb: Robot, pairs: list):
    """``(copy of A whose base links have B's frames, moved names, largest translation (m),
    largest rotation (rad))``, or None when A's base is already placed as B's. Only base
    frames that B does not store (identity in B) are moved: a GraspIt! robot file has no
    base pose; a Choreonoid free link folds the frames of a floating base into its
    configuration. A base B places elsewhere is a mismatch, never accounted for."""
    base_b = set(_base_links(rb))
    j_of = dict(pairs)
    out, names, move, turn = None, [], 0.0, 0.0
    for i in _base_links(ra):
        j = j_of.get(i)
        if j is None or j not in base_b:
            continue
        Ta = np.asarray(ra.links[i].parent_transform, float)
        Tb = np.asarray(rb.links[j].parent_transform, float)
        if np.array_equal(Ta, Tb) or not np.array_equal(Tb, np.eye(4)):
            continue        # only a pose B does not store (identity) is accounted for
        out = out if out is not None else ra.copy()
        out.links[i].parent_transform = Tb.copy()
        t, r = _pose_change(Ta, Tb)
        move, turn = max(move, t), max(turn, r)
        names.append(ra.links[i].name)
    return None if out is None else (out, names, move, turn)


def verify(a, b, samples: int = 100, seed: int = 0, tol: float = 1e-9, link_map=None,
           space: str = "auto", stated=None, fk_b=None, match: Optional[LinkMatch] = None,
           reader: str = "roboio", collision: bool = False,
           collision_tol: float = 1e-6) -> VerifyResult:
    """Compare two robot models link by link over sampled configurations (see the module
    docstring). ``space``: ``"auto"`` (whichever of links and drivers matches B more closely;
    drivers where the two models' link spaces differ and the errors tie), ``"links"`` or
    ``"drivers"``.

    What B cannot hold is accounted for, and listed in ``accounted`` (empty: the comparison
    is exact): links B welds that A moves are held at B's value in A's samples (or at A's
    configured value, when that matches B more closely); where the
    comparison fails as it is, A's frames are made rotations, and then A's base frames that B
    does not store (identity in B) are placed as B's, their change measured.

    ``stated``: the conversion report of writing A into B's format (its ``renamed`` and
    ``fk_error``); ``fk_b(Q, links)``: B's world frames ``(N, len(links), 4, 4)`` at B's
    configurations ``Q``, computed by another program (default: roboio's ``fk_batch``);
    ``match``: a link correspondence to use instead of :func:`match_links`'s; ``reader``:
    the name of who read B, for the result.
    ``collision``: also compare self-collision over the same samples
    (:func:`roboio.collision.compare.compare_self_collision`: checked pairs, verdicts, smallest
    distances within ``collision_tol`` metres), in ``VerifyResult.collision``; needs
    ``pip install "roboio[collision]"``."""
    if int(samples) != samples or samples < 1:
        raise ValueError(f"verify needs samples >= 1, got {samples!r}")
    if space not in ("auto", "links", "drivers"):
        raise ValueError(f"space must be auto, links or drivers, not {space!r}")
    ra, rb = _as_robot(a), _as_robot(b)
    check_alloc(samples * (ra.num_links + rb.num_links) * 3 * 128.0, f"verify with {samples:,} samples")
    renamed = getattr(stated, "renamed", None) or {}
    if match is None:
        match = match_links(ra, rb, link_map, renamed)
    pairs = list(match.pairs)
    only_a = [ra.link_names[i] for i in match.only_a]
    only_b = [rb.link_names[j] for j in match.only_b]
    notes, accounted = [], []
    if not pairs:
        return VerifyResult([], only_a, only_b, np.inf, np.inf, "", samples, tol,
                            ["no link names in common, and the two trees differ"],
                            matched_by=match.by, reader=reader)
    if match.by != "names":
        notes.append(f"links matched by {match.by}")
    wa, wb = _welded(ra), _welded(rb)
    ia = np.array([p[0] for p in pairs])
    ib = np.array([p[1] for p in pairs])
    matched_a, matched_b = set(ia.tolist()), set(ib.tolist())
    differ = (any(i not in matched_a and not wa[i] for i in range(ra.num_links))
              or any(j not in matched_b and not wb[j] for j in range(rb.num_links)))
    held = [k for k, (i, j) in enumerate(pairs) if wb[j] and not wa[i]]      # B welds, A moves
    if held:
        # a link B welds to a moving link of its own (an OpenRAVE joint whose axis is off the
        # child's origin) still moves in B, by the driver of the same name: not held
        ea0, eb0 = _implicit_drivers(ra), _implicit_drivers(rb)
        by_name = _driver_match(ea0, eb0, renamed=renamed.get("joints"), by_count=False) or []
        moves = [any(not wb[i] for i in d.dofs) for d in eb0.drivers]
        carried = {i for k, d in enumerate(ea0.drivers) if k < len(by_name) and by_name[k] >= 0
                   and moves[by_name[k]] for i in d.dofs}
        held = [k for k in held if int(ia[k]) not in carried]
    held_a = {int(ia[k]) for k in held}
    ea, eb = _implicit_drivers(ra, held_a), _implicit_drivers(rb)
    optional = {k for k, d in enumerate(ea.drivers) if d.dofs and set(d.dofs) <= held_a}
    dmatch = _driver_match(ea, eb, optional, renamed.get("joints")) if space != "links" else None
    if space == "drivers" and dmatch is None:
        raise ValueError("the two models' drivers do not correspond (different names and counts)")
    # A's samples: drawn in its driver space (couplings kept), welds at their value, and
    # links B welds held at B's value
    rng = np.random.default_rng(seed)
    Qa = sample_configs(ra, samples, seed)
    U = _driver_samples(ea, samples, rng) if ea.drivers else None
    if U is not None:
        Qa = np.array([ea.config_from_drivers(u, q) for u, q in zip(U, Qa)])
        Qa[:, wa] = ra.config[wa]
    ratio = _axis_ratio(ra, rb, ia, ib, notes)
    Qa_own = None              # A's samples with the held links at A's configured values
    if held:
        hk = np.array(held)
        value = rb.config[ib[hk]] / ratio[hk]
        own = ra.config[ia[hk]]
        # only links A's samples move away from the value are accounted for (a link whose
        # range is that one value, or that a driver moves by 0, loses nothing)
        moved_b = (Qa[:, ia[hk]] != value).any(axis=0)
        moved_a = (Qa[:, ia[hk]] != own).any(axis=0)
        if np.any(own != value):
            Qa_own = Qa.copy()
            Qa_own[:, ia[hk]] = own
        Qa[:, ia[hk]] = value
    if (wa[ia] & ~wb[ib]).any():
        notes.append("welded in A only: " + ", ".join(
            ra.link_names[i] for i, j in pairs if wa[i] and not wb[j]))
    # B's configurations: the same link values, or the same driver values
    candidates = []
    if space != "drivers":
        Qb = np.tile(rb.config, (samples, 1))
        carry = ~wb[ib]
        Qb[:, ib[carry]] = Qa[:, ia[carry]] * ratio[carry]
        candidates.append(("links", Qb))
    if dmatch is not None:
        Ub = np.tile(eb.drivers_from_config(rb.config), (samples, 1))
        have = np.array([k for k, m in enumerate(dmatch) if m >= 0], dtype=int)
        Ub[:, np.asarray(dmatch, dtype=int)[have]] = U[:, have]
        Qb = np.array([eb.config_from_drivers(u, q) for u, q in zip(Ub, np.tile(rb.config, (samples, 1)))])
        Qb[:, wb] = rb.config[wb]
        candidates.append(("drivers", Qb))
    if space == "auto" and differ:
        candidates.reverse()          # on a tie, compare DOF by DOF where the links differ
    fk_b = fk_b if fk_b is not None else rb.fk_batch
    # A as it is; with its frames made rotations (what a rigid-body target holds); with its
    # base placed as B's: the first within tol counts, else the closest
    plain = _best(ra, fk_b, Qa, candidates, ia, ib)
    if held:
        # B's weld holds a joint at B's value, or where A's configuration puts it when B's
        # frame includes that motion (a COLLADA weld of a joint no driver moves): the
        # closer counts (B's value on a tie)
        where = "B's value"
        if Qa_own is not None:
            plain_own = _best(ra, fk_b, Qa_own, candidates, ia, ib)
            if _err(plain_own) < _err(plain):
                Qa, plain, moved_b, where = Qa_own, plain_own, moved_a, "A's configured value"
        held = [k for k, moved in zip(held, moved_b) if moved]
        if held:
            accounted.append(f"links B welds held at {where} in A's samples: "
                             + ", ".join(ra.link_names[ia[k]] for k in held))
    tried = [(plain, ra, None, None)]
    rigid = _rigid(ra)
    placed = _placed_as(ra, rb, pairs)
    if rigid is not None:
        tried.append((_best(rigid[0], fk_b, Qa, candidates, ia, ib), rigid[0], None, rigid))
    if placed is not None and _err(tried[-1][0]) > tol:
        tried.append((_best(placed[0], fk_b, Qa, candidates, ia, ib), placed[0], placed, None))
        r2 = _rigid(placed[0])
        if r2 is not None:
            tried.append((_best(r2[0], fk_b, Qa, candidates, ia, ib), r2[0], placed, r2))
    best, _, base, rig = next((t for t in tried if _err(t[0]) <= tol),
                              min(tried, key=lambda t: _err(t[0])))
    if rig is not None:
        # how far making the frames rotations moves A's links, over A's samples
        before = base[0] if base is not None else ra
        every = np.arange(ra.num_links)
        move, turn = _max_errors(before, rig[0].fk_batch, Qa, Qa, every, every)
        accounted.append(f"A's link frames are not rotations (largest matrix entry change to the "
                         f"nearest rotation {rig[1]:.1e}, in {rig[2]}); B is compared with A's "
                         f"frames made rotations, which moves A's links by up to "
                         f"{move.max():.1e} m and {turn.max():.1e} rad")
    if base is not None:
        accounted.append(f"base placed as in B ({', '.join(base[1])}): B stores the base pose "
                         f"differently, {base[2]:.3g} m and {base[3]:.3g} rad from A's")
    used, pos_l, rot_l, _ = best
    allowed = (0.0, 0.0)
    stated_err = tuple(float(x) for x in (getattr(stated, "fk_error", None) or (0.0, 0.0)))
    if _err(best) > tol and max(stated_err) > 0:
        # what the conversion states: its writer measured the FK change of what it
        # approximated (position in m; rotation as matrix entries, and an angle is at most
        # sqrt(3) times its rotation matrix's largest entry change)
        allowed = (STATED_MARGIN * stated_err[0], STATED_MARGIN * 3 ** 0.5 * stated_err[1])
        if pos_l.max() <= max(tol, allowed[0]) and rot_l.max() <= max(tol, allowed[1]):
            accounted.append(f"the FK change the conversion states ({stated_err[0]:.1e} m, rotation "
                             f"matrix entries {stated_err[1]:.1e}; accepted up to "
                             f"{STATED_MARGIN:g} times, for configurations its writer did not "
                             "sample)")
        else:
            allowed = (0.0, 0.0)
    worst = int(np.argmax(np.maximum(pos_l, rot_l)))
    per_link = {}
    for k, i in enumerate(ia):
        per_link.setdefault(ra.link_names[i], (float(pos_l[k]), float(rot_l[k])))
    result = VerifyResult([ra.link_names[i] for i in ia], only_a, only_b, float(pos_l.max()),
                          float(rot_l.max()), ra.link_names[ia[worst]], samples, tol, notes,
                          per_link, used, accounted, match.by, match.names(ra, rb), allowed, reader)
    if collision:
        from .collision.compare import compare_self_collision
        result.collision = compare_self_collision(ra, rb, Qa, best[3], zip(ia, ib), collision_tol)
    return result


def _err(best) -> float:
    return float(max(best[1].max(), best[2].max()))


def _best(ra: Robot, fk_b, Qa, candidates: list, ia, ib):
    """``(space, position errors, rotation errors, B's samples)`` of the candidate B
    configurations that match A's samples ``Qa`` most closely (the first on a tie). Each
    candidate is a configuration of B for each sample of A: any of them that places every
    matched link as A does is a proof. ``fk_b(Q, links)``: B's forward kinematics."""
    best, err = None, np.inf
    for name, Qb in candidates:
        pos, rot = _max_errors(ra, fk_b, Qa, Qb, ia, ib)
        e = max(pos.max(), rot.max())
        if best is None or e < err:
            best, err = (name, pos, rot, Qb), e
    return best


_CHUNK = 8192


def _max_errors(ra: Robot, fk_b, Qa, Qb, ia, ib):
    """Per matched link, the largest position (m) and rotation (rad) difference over the
    samples, evaluated in chunks (bounded memory for any number of samples); ``fk_b(Q,
    links)``: B's forward kinematics."""
    pos_l = np.zeros(len(ia))
    rot_l = np.zeros(len(ia))
    for s in range(0, len(Qa), _CHUNK):
        pos, rot = _errors(ra.fk_batch(Qa[s:s + _CHUNK], links=ia),
                           fk_b(Qb[s:s + _CHUNK], links=ib))
        pos_l = np.maximum(pos_l, pos.max(axis=0))          # (nan propagates: never ok)
        rot_l = np.maximum(rot_l, rot.max(axis=0))
    return pos_l, rot_l
