"""Triangle meshes of primitives, for writers whose targets hold some primitives only (the
public face of the shared tessellation; see :mod:`roboio.formats.meshes._tessellate` for
the shapes and their accuracy)."""
from ._tessellate import SEGMENTS, primitive_to_mesh

__all__ = ["SEGMENTS", "primitive_to_mesh"]
