"""Conversion through the model, and proof that nothing moved (:func:`verify`)."""
from __future__ import annotations

from .errors import OutputError
from .model import BodyMotion, Geometry, MultiPath, RigidObject, Robot, Terrain, Trajectory, World
from .model.motion_convert import motion_to_trajectory, trajectory_to_motion
from .report import ConversionReport
from .verify import VerifyResult, sample_configs, verify  # noqa: F401  (re-exported here)

__all__ = ["adapt", "attach_body", "verify", "VerifyResult", "sample_configs", "NEEDS_BODY"]

NEEDS_BODY = ("needs the body model to map joint ids to links: pass --body MODEL.body "
              "(in Python: obj.body = roboio.load('MODEL.body'))")


# what the writers express of nonlinear couplings (the others write affine approximations)
_COUPLINGS = {"openrave": "formula", "collada-robot": "formula", "mjcf": "polynomial"}


def adapt(obj, info, report: ConversionReport):
    """:func:`_adapt`, then the couplings the target cannot express made affine (with the
    error reported): OpenRAVE XML and COLLADA write formulas, MJCF polynomials of degree
    <= 4 (``<equality joint polycoef>``), every other format affine couplings only."""
    return _couplings_for(_adapt(obj, info, report), info.name, report)


def _couplings_for(obj, fmt: str, report: ConversionReport):
    from .model.coupling import ExpressionCoupling, linearized, polynomial_in_range
    mode = _COUPLINGS.get(fmt)

    def keep(d, i):
        c = d.coupling
        if not isinstance(c, ExpressionCoupling):
            return False
        if mode == "formula":
            return True
        if mode == "polynomial":
            return i in c.inputs and len(c.inputs) == 1 and all(
                polynomial_in_range(f, d.qmin, d.qmax) is not None for f in c.functions)
        return False

    def fix(robot):
        out, notes = linearized(robot, keep)
        for what, err in notes:
            size = "" if err is None else f" (largest error {err[0]:.3g} {err[1]} over the joint's range)"
            report.lose(f"{robot.name}: non-affine coupling: {what}{size}", kind="approximated")
        return out
    if isinstance(obj, Robot):
        return fix(obj)
    if isinstance(obj, World) and any(d.type == "nonlinear" for r in obj.robots for d in r.drivers):
        import copy
        w = copy.copy(obj)
        w.robots = [fix(r) for r in obj.robots]
        return w
    return obj


def _adapt(obj, info, report: ConversionReport):
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
            report.lose(item, kind=getattr(item, "kind", None) or "not written")
        return obj.to_trajectory()
    if isinstance(obj, World) and Robot in accepts and obj.robots:
        if len(obj.robots) > 1:
            for r in obj.robots[1:]:
                report.lose(f"robot {r.name!r} (the target holds one robot)", kind="not written")
        for o in obj.rigid_objects:
            report.lose(f"rigid object {o.name!r} (the target holds one robot)", kind="not written")
        for t in obj.terrains:
            report.lose(f"terrain {t.name!r} (the target holds one robot)", kind="not written")
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
            report.lose("mass, inertia and contact parameters of the rigid object (target holds geometry only)",
                        kind="not written")
        return g
    if Geometry in accepts and isinstance(obj, (Robot, World)):
        from .model.posed import posed_geometry   # robots at their configuration
        return posed_geometry(obj, report)
    if World in accepts and isinstance(obj, (Robot, RigidObject, Terrain, Geometry)):
        w = World(getattr(obj, "name", "World"))
        w.add(Terrain("Terrain", obj) if isinstance(obj, Geometry) else obj)
        return w
    raise OutputError(None, f"format {info.name!r} cannot hold a {type(obj).__name__}")


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
