"""URDF: robots read as Klamp't reads them (including its ``<klampt>`` extension element),
written as standard URDF. Entry module :mod:`.urdf`; content test in :mod:`._sniff`."""
from ..registry import FormatInfo, register
from ._sniff import sniff_urdf

DECLARES_FORMATS = True

register(FormatInfo(
    name="urdf", extensions=(".urdf",), kinds=("robot",),
    description="URDF robot (read as Klamp't does, incl. the <klampt> element; written as standard URDF)",
    ecosystem="urdf", sniff=sniff_urdf, read="roboio.formats.urdf.urdf:read",
    write="roboio.formats.urdf.urdf:write", writes=("Robot",)))
