"""Collision and distance queries (the optional extra ``pip install "roboio[collision]"``).

roboio does forward kinematics, bounding boxes and pair culling; the narrow phase is an
external engine's (coal, or python-fcl where coal has no wheel; see
:mod:`roboio.collision.engine`). ``import roboio`` imports none of this; the first query
does, and raises :class:`CollisionEngineMissing` (an ImportError naming the extra) when no
engine is installed.

Robots and worlds (methods of the model)::

    robot.self_collisions(q)     # sorted colliding link pairs (i, j) among self_collision_pairs
    robot.self_collides(q)       # bool (Klamp't's RobotModel.selfCollides)
    robot.self_distance(q)       # (distance, (i, j)) of the closest checked pair
    robot.self_collides_batch(Q, workers=2)
    world.collisions({robot: q}) # colliding element pairs (links, rigid objects, terrains)

Two placed geometries (any roboio :class:`~roboio.model.Geometry`, ``pose`` a 4x4 rigid
transform of its owner frame in the world, default identity)::

    collides(a, b, pose_a, pose_b)           # within the sum of the margins
    distance(a, b, pose_a, pose_b)           # DistanceResult(distance, point_a, point_b)
    within_distance(a, b, tol, pose_a, pose_b)
    ray_cast(g, source, direction, pose)     # (hit, point)

Semantics are Klamp't's: triangle meshes are surfaces (a mesh inside another does not touch
it), primitives are solids, point clouds are points (spheres of the margin), a group is the
union of its children; two geometries collide when their distance is at most the sum of their
margins. Distances are the engine's exact distances minus both margins.
"""
from __future__ import annotations

from .engine import (CollisionEngineMissing, INSTALL_HINT, available_engines, get_engine,
                     set_engine, use_engine)
from .queries import DistanceResult, collides, distance, ray_cast, within_distance
from .robot import SelfCollisionModel, forget, model_for

__all__ = ["CollisionEngineMissing", "INSTALL_HINT", "available_engines", "engine_name",
           "set_engine", "use_engine", "collides", "distance", "within_distance", "ray_cast",
           "DistanceResult", "SelfCollisionModel", "model_for", "forget"]


def engine_name() -> str:
    """The engine in use and its version, e.g. ``"coal 3.0.3"``."""
    return get_engine().version()
