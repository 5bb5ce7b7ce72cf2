"""Link geometry of a Klamp't ``.rob`` file (spec klampt.md §3.7-3.8, §3.12, §8.9).

``geometry`` references (loaded lazily through the registry), ``geomscale``,
``geommargin`` and ``geomtransform`` (``geometry.transform`` is the affine data -> link map
``p' = M (s p)``); geometry ``mount``s merged into the link geometry; ``automass``. The
functions take the :class:`._build._Builder` whose robot is being assembled.
"""
from __future__ import annotations

import numpy as np

from ....model import Group, TriangleMesh
from ....transforms import transform_points
from ... import loading
from ..mount import is_robot_file, mounted_geometry

__all__ = ["load_link_geometry", "mount_geometry", "apply_automass"]


def load_link_geometry(b, n: int) -> None:
    """Load every link's ``geometry`` reference, then ``geomscale``, ``geommargin`` and the
    ``geomtransform`` lines in file order (each pre-multiplies the link geometry)."""
    rec, asm = b.rec, b.asm
    asm.geoms = [None] * n
    refs = rec.values("geometry")
    scales = rec.values("geomscale")
    margins = rec.values("geommargin")
    for i, ref in enumerate(refs):
        if not ref:
            continue
        line = rec.lists["geometry"].line_of(i)
        g = loading.load_geometry_ref(ref, b.path, b.ctx, line=line)
        if g is None:
            continue
        g.extras["referring_file"] = b.path
        s = scales[0 if len(scales) == 1 else i] if scales else 1.0
        if s != 1:
            g.apply_transform(np.diag([s, s, s, 1.0]))
        if margins:
            g.margin = float(margins[0 if len(margins) == 1 else i])
        asm.geoms[i] = g
    for gt in rec.geomtransforms:
        if not 0 <= gt.index < n:
            raise b.err(f"geomtransform: link index {gt.index} out of range (the robot "
                        f"has {n} links)", gt.line)
        M = np.array(gt.matrix, dtype=float)
        if M[3, 3] != 1:
            raise b.err(f"geomtransform: the matrix must end with 1 (bottom row 0 0 0 1), "
                        f"got {M[3, 3]!r}", gt.line)
        if np.any(M[3, :3] != 0):
            b.warn("geomtransform: bottom row entries other than 0 0 0 1 are ignored", gt.line, kind="ignored")
            M[3, :3] = 0
        g = asm.geoms[gt.index]
        if g is not None:
            g.apply_transform(M)


def mount_geometry(b, links: list) -> None:
    """Merge every geometry ``mount`` (file order) into its link's geometry, placed by the
    mount transform (:func:`..mount.mounted_geometry`)."""
    asm = b.asm
    for m, L in zip(b.rec.mounts, links):
        if is_robot_file(m.file):
            continue
        if L < 0:
            raise b.err(f"mount: geometry {m.file!r} must be mounted on a link, not the "
                        f"world", m.line)
        g = loading.load_geometry_ref(m.file, b.path, b.ctx, line=m.line)
        if g is None:
            raise b.err("mount: empty file name", m.line)
        g.extras["referring_file"] = b.path
        asm.geoms[L] = mounted_geometry(asm.geoms[L], g, m.transform, missing_counts=True)


def apply_automass(b) -> None:
    """``automass [sf]``: com from the geometry unless the file has a ``com`` keyword,
    inertia ``mass (trace(C) I - C)`` about the link's com unless it has ``inertia`` or
    ``inertiaDiag`` (zero without geometry or mass), as Klamp't decides per keyword."""
    from ....model.massprops import geometry_moments, inertia_from_moments
    sf = b.rec.scalars["automass"].value
    asm = b.asm
    own_com = b.rec.has("com")
    own_inertia = b.rec.has("inertia")
    for i, g in enumerate(asm.geoms):
        g = _mass_geometry(g)
        if g is None:
            c = C = None
        else:
            # Klamp't takes the second moment about the link's com: the file's when it
            # has a com keyword (not the parallel-axis shift, which differs for primitives
            # and for surface fractions below 1), else the geometry's own centre
            c, C = geometry_moments(g, sf, about=asm.com[i] if own_com else None)
            c = np.asarray(c, dtype=float)
        if not own_com:
            asm.com[i] = c.copy() if c is not None else np.zeros(3)
        if not own_inertia:
            m = asm.mass[i]
            if C is None or m == 0:
                asm.inertia[i] = np.zeros((3, 3))
            else:
                asm.inertia[i] = inertia_from_moments(m, np.asarray(C, dtype=float))


def _mass_geometry(g):
    """The geometry automass integrates: None when Klamp't would see an empty one; the
    triangle meshes a geometry mount merged, as the one mesh Klamp't makes of them."""
    if g is None or g.missing:
        return None
    if isinstance(g, Group) and g.extras.get("klampt_merged"):
        parts = [c for c in g.children if not c.missing]
        if parts and all(isinstance(c, TriangleMesh) for c in parts):
            verts, faces, off = [], [], 0
            for c in parts:
                b = c.baked()
                verts.append(transform_points(g.transform, b.vertices))
                faces.append(b.faces + off)
                off += len(b.vertices)
            g = TriangleMesh(np.concatenate(verts), np.concatenate(faces))
        elif not parts:
            return None
    if isinstance(g, TriangleMesh):
        g.load()
    return None if g.is_empty else g
