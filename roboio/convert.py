"""Conversion through the model, and proof that nothing moved (:func:`verify`)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .limits import check_alloc
from .model import BodyMotion, Geometry, MultiPath, RigidObject, Robot, Terrain, Trajectory, World
from .model.motion_convert import motion_to_trajectory, trajectory_to_motion
from .report import ConversionReport

__all__ = ["adapt", "attach_body", "verify", "VerifyResult", "sample_configs", "NEEDS_BODY"]

NEEDS_BODY = ("needs the body model to map joint ids to links: pass --body MODEL.body "
              "(in Python: obj.body = roboio.load('MODEL.body'))")


def adapt(obj, info, report: ConversionReport):
    """Shape ``obj`` into something ``info``'s writer accepts, reporting what is dropped:
    a World with one robot becomes that Robot (other elements listed as lost); a Robot,
    RigidObject, Terrain or Geometry becomes a one-element World; a MultiPath becomes its
    concatenated Trajectory (holds, IK goals, settings listed as lost); a Choreonoid body
    motion becomes a Klamp't trajectory and back through the body model attached as
    ``obj.body`` (see :mod:`roboio.model.motion_convert`); a Robot or World written to a
    mesh format becomes one posed mesh scene (robots at ``robot.config``, kinematics listed
    as lost; :mod:`roboio.model.posed`)."""
    accepts = info.writes
    if not accepts or isinstance(obj, accepts):
        return obj
    motion = _adapt_motion(obj, accepts, report)
    if motion is not None:
        return motion
    if isinstance(obj, MultiPath) and Trajectory in accepts:
        for item in obj.trajectory_losses():
            report.lose(item)
        return obj.to_trajectory()
    if isinstance(obj, World) and Robot in accepts and obj.robots:
        if len(obj.robots) > 1:
            for r in obj.robots[1:]:
                report.lose(f"robot {r.name!r} (the target holds one robot)")
        for o in obj.rigid_objects:
            report.lose(f"rigid object {o.name!r} (the target holds one robot)")
        for t in obj.terrains:
            report.lose(f"terrain {t.name!r} (the target holds one robot)")
        return obj.robots[0]
    if isinstance(obj, World) and not obj.robots:
        for cls, items in ((RigidObject, obj.rigid_objects), (Terrain, obj.terrains)):
            others = obj.terrains if cls is RigidObject else obj.rigid_objects
            if cls in accepts and len(items) == 1 and not others:
                return items[0]
    if isinstance(obj, World) and Geometry in accepts:
        elems = obj.terrains + obj.rigid_objects
        if len(elems) == 1 and not obj.robots and elems[0].geometry is not None:
            g = elems[0].geometry.copy()
            g.apply_transform(elems[0].transform)
            return g
    if isinstance(obj, (RigidObject, Terrain)) and Geometry in accepts and obj.geometry is not None:
        g = obj.geometry.copy()
        g.apply_transform(obj.transform)
        if isinstance(obj, RigidObject):
            report.lose("mass, inertia and contact parameters of the rigid object (target holds geometry only)")
        return g
    if Geometry in accepts and isinstance(obj, (Robot, World)):
        from .model.posed import posed_geometry   # robots at their configuration
        return posed_geometry(obj, report)
    if World in accepts and isinstance(obj, (Robot, RigidObject, Terrain, Geometry)):
        w = World(getattr(obj, "name", "World"))
        w.add(Terrain("Terrain", obj) if isinstance(obj, Geometry) else obj)
        return w
    raise ValueError(f"format {info.name!r} cannot hold a {type(obj).__name__}")


def _adapt_motion(obj, accepts: tuple, report):
    """Body motion <-> Klamp't trajectory (None when neither applies). Raises ValueError when
    the body model is missing."""
    if isinstance(obj, BodyMotion) and Trajectory in accepts:
        body = getattr(obj, "body", None)
        if body is None:
            raise ValueError("converting a Choreonoid motion to a Klamp't trajectory " + NEEDS_BODY)
        return motion_to_trajectory(obj, body, report)
    if isinstance(obj, (Trajectory, MultiPath)) and BodyMotion in accepts:
        body = getattr(obj, "body", None)
        if body is None:
            raise ValueError("converting a Klamp't trajectory to a Choreonoid motion " + NEEDS_BODY)
        return trajectory_to_motion(obj, body, report)
    return None


def attach_body(obj, body) -> None:
    """Give a motion (BodyMotion, Trajectory, MultiPath) the body model its conversion uses."""
    if isinstance(body, World) and len(body.robots) == 1:
        body = body.robots[0]
    if not isinstance(body, Robot):
        raise ValueError(f"the body model must be a robot, got a {type(body).__name__}")
    if not isinstance(obj, (BodyMotion, Trajectory, MultiPath)):
        raise ValueError(f"a body model applies to motions, not to a {type(obj).__name__}")
    obj.body = body


def sample_configs(robot: Robot, n: int, seed: int = 0) -> np.ndarray:
    """``(n, num_links)`` configurations uniform within the joint limits (±pi where a limit
    is infinite; fixed links stay at their only value)."""
    check_alloc(n * robot.num_links * 8.0, f"{n:,} random configurations")
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(robot.qmin), robot.qmin, -np.pi)
    hi = np.where(np.isfinite(robot.qmax), robot.qmax, np.pi)
    lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    return rng.uniform(lo, hi, size=(n, robot.num_links))


@dataclass
class VerifyResult:
    """Outcome of :func:`verify`. Errors are maxima over samples and matched links."""

    matched: list
    only_a: list
    only_b: list
    max_position_error: float
    max_rotation_error: float     # radians
    worst_link: str
    samples: int
    tol: float
    notes: list = field(default_factory=list)
    per_link: dict = field(default_factory=dict)   # link name -> (max position, max rotation error)

    @property
    def ok(self) -> bool:
        return (bool(self.matched) and self.max_position_error <= self.tol
                and self.max_rotation_error <= self.tol)


def _as_robot(obj) -> Robot:
    if isinstance(obj, Robot):
        return obj
    if isinstance(obj, World) and len(obj.robots) == 1:
        return obj.robots[0]
    raise ValueError(f"expected one robot, got {obj!r}")


def verify(a, b, samples: int = 100, seed: int = 0, tol: float = 1e-9) -> VerifyResult:
    """Compare two robot models link by link (matched by name) over random configurations
    drawn within ``a``'s limits; ``b`` gets the same value on every DOF whose link name
    matches (other DOFs stay at 0)."""
    ra, rb = _as_robot(a), _as_robot(b)
    if int(samples) != samples or samples < 1:
        raise ValueError(f"verify needs samples >= 1, got {samples!r}")
    check_alloc(samples * (ra.num_links + rb.num_links) * 3 * 128.0, f"verify with {samples:,} samples")
    idx_b = {}
    for i, name in enumerate(rb.link_names):
        idx_b.setdefault(name, i)
    matched = [(i, idx_b[n]) for i, n in enumerate(ra.link_names) if n in idx_b]
    names_a = set(ra.link_names)
    only_a = [n for n in ra.link_names if n not in idx_b]
    only_b = [n for n in rb.link_names if n not in names_a]
    if not matched:
        return VerifyResult([], only_a, only_b, np.inf, np.inf, "", samples, tol,
                            ["no link names in common"])
    Qa = sample_configs(ra, samples, seed)
    Qb = np.zeros((samples, rb.num_links))
    ia = np.array([m[0] for m in matched])
    ib = np.array([m[1] for m in matched])
    Qb[:, ib] = Qa[:, ia]
    Ta = ra.fk_batch(Qa)[:, ia]
    Tb = rb.fk_batch(Qb)[:, ib]
    pos = np.linalg.norm(Ta[..., :3, 3] - Tb[..., :3, 3], axis=-1)
    Rrel = np.swapaxes(Ta[..., :3, :3], -1, -2) @ Tb[..., :3, :3]
    cos = np.clip((np.trace(Rrel, axis1=-2, axis2=-1) - 1) / 2, -1, 1)
    # arccos loses precision near 0; use the skew part's norm for small angles
    skew = np.stack([Rrel[..., 2, 1] - Rrel[..., 1, 2], Rrel[..., 0, 2] - Rrel[..., 2, 0],
                     Rrel[..., 1, 0] - Rrel[..., 0, 1]], axis=-1)
    rot = np.arctan2(np.linalg.norm(skew, axis=-1) / 2, cos)
    worst = np.unravel_index(np.argmax(np.maximum(pos, rot)), pos.shape)
    per_link = {}
    for k, i in enumerate(ia):
        per_link.setdefault(ra.link_names[i], (float(pos[:, k].max()), float(rot[:, k].max())))
    return VerifyResult([ra.link_names[i] for i in ia], only_a, only_b, float(pos.max()),
                        float(rot.max()), ra.link_names[ia[worst[1]]], samples, tol, per_link=per_link)
