"""GraspIt! formats: robot, world and body XML files (one format, told apart by content).

Reading follows GraspIt!'s own loaders (``../shared/specs/graspit.md``; the mapping into
the model and every deviation are in ``docs/graspit.md``): millimetres, grams and degrees are
converted to SI at the boundary, DH chains become one link per joint, GraspIt! DOFs become
the robot's drivers.
"""
from ..registry import FormatInfo, register
from ._sniff import sniff_graspit

DECLARES_FORMATS = True

register(FormatInfo(
    name="graspit", extensions=(".xml",), kinds=("robot", "world", "rigid_object"),
    ecosystem="graspit",
    description="GraspIt! robot (<robot> with <palm>, DH chains, coupled DOFs), world "
                "(<world> with obstacles, graspable bodies, robots) or body (<root> with "
                "<geometryFile>) XML",
    sniff=sniff_graspit, read="roboio.formats.graspit.xml:read",
    write="roboio.formats.graspit.xml:write", writes=("Robot", "World", "RigidObject", "Terrain"),
    priority=0))
