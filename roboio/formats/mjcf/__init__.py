"""MJCF (MuJoCo) formats: export of robots and worlds."""
from ..registry import FormatInfo, register

DECLARES_FORMATS = True

register(FormatInfo(
    name="mjcf", extensions=(".xml", ".mjcf.xml", ".mjcf"), kinds=("robot", "world"), ecosystem="mjcf",
    description="MuJoCo MJCF model (export: robots, rigid objects and terrains in one model)",
    write="roboio.formats.mjcf.mjcf:write", writes=("Robot", "World")))
