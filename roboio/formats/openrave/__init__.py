"""OpenRAVE formats: XML robots, kinbodies and environments (``openrave.md``).

The package follows OpenRAVE's own structure: every reader fills the in-memory body model of
:mod:`._records` (the XML reader in :mod:`._parse`, the COLLADA reader in
:mod:`.collada`), and :mod:`._build` alone turns it into roboio's model.
"""
from ..registry import FormatInfo, register
from ._sniff import sniff_openrave
from .collada._sniff import sniff_collada_robot

DECLARES_FORMATS = True

register(FormatInfo(
    name="openrave", extensions=(".robot.xml", ".kinbody.xml", ".env.xml", ".xml"),
    kinds=("robot", "world"), ecosystem="openrave",
    description="OpenRAVE XML robot, kinbody or environment (read as OpenRAVE reads it)",
    sniff=sniff_openrave, read="roboio.formats.openrave.xml:read",
    write="roboio.formats.openrave.xml:write", writes=("Robot", "World")))

# COLLADA 1.5 robots (OpenRAVE's extensions). A .dae with kinematics (an instantiated
# kinematics scene) is read here; a mesh-only .dae falls through to the meshes package's
# "collada" reader (lower priority, kind geometry).
register(FormatInfo(
    name="collada-robot", extensions=(".zae", ".dae"), kinds=("robot",), ecosystem="openrave",
    description="COLLADA 1.5 robot or body with OpenRAVE's extensions (.dae, .zae), read as OpenRAVE reads it",
    sniff=sniff_collada_robot, read="roboio.formats.openrave.collada.robot:read",
    write="roboio.formats.openrave.collada.robot:write", writes=("Robot",), priority=3))
