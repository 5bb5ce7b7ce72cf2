"""VRML97-style ``Extrusion`` geometry of Choreonoid ``.body`` shapes as a triangle mesh.

A 2-D ``cross_section`` (x, z pairs) is scaled (``scale``, per spine point or one for all),
rotated (``orientation``: axis-angle, the file's angle unit), placed in the spine-aligned
cross-section plane (SCP) of each ``spine`` point and joined into a tube; ``begin_cap`` /
``end_cap`` close it (fan triangulation: exact for convex cross sections). The geometry is
:func:`roboio.model.tessellate.extrusion`, shared with the VRML reader.
"""
from __future__ import annotations

import numpy as np

from ....errors import FormatError
from ....model import TriangleMesh
from ....model import tessellate as tess
from .. import _yaml as Y

__all__ = ["extrusion_mesh"]


def _floats(g, keys, path, width, default):
    """Groups of ``width`` numbers; an incomplete last group is ignored, as Choreonoid does."""
    node = Y.get(g, *keys)
    if node is None:
        return np.array(default, dtype=float).reshape(-1, width)
    v = np.array(Y.to_floats(node, path, keys[0]))
    n = len(v) // width
    return v[:n * width].reshape(n, width)


def extrusion_mesh(g, path, to_radian) -> TriangleMesh:
    cross = _floats(g, ("cross_section", "crossSection"), path, 2,
                    [1, 1, 1, -1, -1, -1, -1, 1, 1, 1])
    spine = _floats(g, ("spine",), path, 3, [0, 0, 0, 0, 1, 0])
    scale = _floats(g, ("scale",), path, 2, [1, 1])
    orient = _floats(g, ("orientation",), path, 4, [0, 0, 1, 0])
    n, m = len(spine), len(cross)
    if n < 2 or m < 2:
        raise FormatError(path, Y.line_of(g), None, "Extrusion needs 2+ spine and cross-section points")
    begin = Y.get(g, "begin_cap", "beginCap")
    end = Y.get(g, "end_cap", "endCap")
    orient = orient.copy()
    orient[:, 3] = [to_radian(x) for x in orient[:, 3]]
    v, f = tess.extrusion(cross, spine, scale, orient,
                          begin is None or Y.to_bool(begin, path, "begin_cap"),
                          end is None or Y.to_bool(end, path, "end_cap"))
    return TriangleMesh(v, f)
