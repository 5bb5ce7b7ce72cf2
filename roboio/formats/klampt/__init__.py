"""Klamp't formats."""
from ..loading import register_inline_geometry

# Klamp't references may hold a geometry inline: {TypeName data...}
register_inline_geometry("{", "}", "roboio.formats.klampt.geom:parse_stream")
