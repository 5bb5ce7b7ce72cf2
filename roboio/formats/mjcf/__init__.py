"""MJCF (MuJoCo): models read as MuJoCo compiles them (robots, or worlds of robots, rigid
objects and terrains), and robots and worlds written as MJCF. Entry module :mod:`.mjcf`;
content test in :mod:`._sniff`."""
from ..registry import FormatInfo, register
from ._sniff import sniff_mjcf

DECLARES_FORMATS = True

register(FormatInfo(
    name="mjcf", extensions=(".xml", ".mjcf.xml", ".mjcf"), kinds=("robot", "world"), ecosystem="mjcf",
    description="MuJoCo MJCF model (read as MuJoCo compiles it; written with robots, rigid objects "
                "and terrains in one model)",
    sniff=sniff_mjcf, read="roboio.formats.mjcf.mjcf:read",
    write="roboio.formats.mjcf.mjcf:write", writes=("Robot", "World")))
