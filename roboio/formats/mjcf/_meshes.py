"""``<asset>``: meshes (files in STL, OBJ or MuJoCo's MSH, or vertices written in the
XML), materials; and each mesh's mass properties as MuJoCo computes them.

A mesh geom's geometry keeps the file's vertices; its transform is the geom's pose times
the asset's ``scale``. (MuJoCo moves a mesh into its inertial frame when compiling and
moves the geom by the inverse: the surface ends up where the file and the geom put it,
which is where roboio puts it.)
"""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ...model import GeometrySource, TriangleMesh
from ...transforms import compose, vector_dot
from ..fileio import read_bytes
from ..loading import load_geometry, missing_file_hint
from ._document import Document, Node
from ._massprops import MeshProps, mesh_props

__all__ = ["MeshAsset", "Material", "read_assets"]

_INERTIA_MODES = ("convex", "exact", "legacy", "shell")


@dataclass
class Material:
    name: str
    rgba: tuple
    node: Node
    attrs: dict = field(default_factory=dict)


@dataclass
class MeshAsset:
    """One ``<mesh>`` asset. ``path``: the file MuJoCo reads (None: vertices in the XML)."""

    name: str
    path: Optional[str]
    reference: Optional[str]
    scale: tuple
    inertia: str
    node: Node
    vertex: Optional[list] = None
    face: Optional[list] = None
    plugin: bool = False
    _props: object = None
    _data: object = None

    def geometry(self, doc: Document) -> TriangleMesh:
        """The mesh as roboio geometry (lazy for files), transform = ``scale``."""
        if self.path is None:
            V, F = self._inline(doc)
            g = TriangleMesh(V, F, source=GeometrySource(f"<mesh name={self.name!r}>", None, "mjcf"))
        elif not os.path.isfile(self.path):
            doc.warn(self.node, f"mesh file {self.reference!r} not found (looked for {self.path})", kind="missing file", hint=missing_file_hint(self.reference))
            return TriangleMesh(source=GeometrySource(self.reference, None, None), missing=True)
        elif self.path.lower().endswith(".msh"):
            path = self.path
            g = TriangleMesh(loader=lambda: _read_msh(path, doc),
                             source=GeometrySource(self.reference, path, "msh"))
        else:
            g = load_geometry(self.path, doc.ctx)
            g.source = GeometrySource(self.reference, self.path, g.source.format if g.source else None)
        if self.scale != (1.0, 1.0, 1.0):
            g.transform = compose(np.diag([*self.scale, 1.0]), g.transform)
        return g

    def _inline(self, doc: Document):
        V = np.asarray(self.vertex, float).reshape(-1, 3)
        if self.face is None:
            # MuJoCo's hull is of its single-precision vertices: near-coplanar corners (vertices
            # rounded to mm) may be triangulated otherwise, a volume 1e-8 off, in double
            F = _hull(V.astype(np.float32).astype(np.float64))
            if F is None:
                raise doc.error(self.node, f"mesh {self.name!r}: vertices without faces need a convex "
                                           "hull (install scipy)")
        else:
            F = np.asarray(self.face, np.int64).reshape(-1, 3)
            if len(F) and (F.min() < 0 or F.max() >= len(V)):
                raise doc.error(self.node, f"mesh {self.name!r}: face index out of range")
        return V, F

    def data(self, doc: Document) -> tuple:
        """(vertices, faces) as MuJoCo holds them: single-precision vertices, scaled."""
        if self._data is None:
            g = self.geometry(doc)
            if g.missing:
                raise doc.error(self.node, f"mesh {self.name!r}: file {self.reference!r} not found "
                                           "(its mass properties are needed)")
            V = g.vertices.astype(np.float32).astype(np.float64) * np.asarray(self.scale)
            F = g.faces
            if len(F) == 0:          # MuJoCo takes the convex hull of a mesh without faces
                F = _hull(V) if len(V) >= 4 else None
                if F is None:
                    raise doc.error(self.node, f"mesh {self.name!r} has no faces; its convex hull "
                                               "needs scipy (and 4 vertices)")
            if self.scale[0] * self.scale[1] * self.scale[2] < 0:
                F = F[:, [0, 2, 1]]
            self._data = (V, F)
        return self._data

    def props(self, doc: Document) -> MeshProps:
        """Volume (area for ``shell``), centre and unit-density inertia (MuJoCo's)."""
        if self._props is None:
            V, F = self.data(doc)
            mode = self.inertia
            if mode == "convex":
                H = _hull(V)
                if H is None:
                    doc.warn(self.node, f"mesh {self.name!r}: inertia=\"convex\" needs scipy for the "
                                        "convex hull; computed as \"legacy\"", kind="guessed")
                    mode = "legacy"
                else:
                    F = H
            props, err = mesh_props(V, F, mode)
            if err:
                raise doc.error(self.node, f"{err}: mesh {self.name!r}")
            self._props = props
        return self._props


def _hull(V) -> Optional[np.ndarray]:
    """Outward-oriented faces of the convex hull (scipy's Qhull, which MuJoCo also uses), or
    None without scipy."""
    try:
        from scipy.spatial import ConvexHull
    except ImportError:
        return None
    h = ConvexHull(V)
    F = np.asarray(h.simplices, np.int64)
    c = V[h.vertices].mean(axis=0)
    a, b, d = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    flip = vector_dot(np.cross(b - a, d - a), a - c) < 0
    F[flip] = F[flip][:, [0, 2, 1]]
    return F


def _read_msh(path: str, doc: Document) -> dict:
    """MuJoCo's binary MSH: four int32 counts (vertices, normals, texture coordinates,
    faces), then float32 vertices, normals, texcoords and int32 faces."""
    ctx = doc.ctx
    data = read_bytes(path, ctx, document=False)
    if len(data) < 16:
        raise ctx.error("missing header in MSH file", path=path)
    nv, nn, nt, nf = struct.unpack("<4i", data[:16])
    if nv < 4 or nf < 0 or nn < 0 or nt < 0 or (nn and nn != nv) or (nt and nt != nv):
        raise ctx.error("invalid sizes in MSH file", path=path)
    if len(data) != 16 + 12 * nv + 12 * nn + 8 * nt + 12 * nf:
        raise ctx.error("unexpected file size in MSH file", path=path)
    ctx.charge("vertices", nv, path=path)
    ctx.charge("triangles", nf, path=path)
    V = np.frombuffer(data, "<f4", 3 * nv, 16).astype(np.float64).reshape(-1, 3)
    F = np.frombuffer(data, "<i4", 3 * nf, 16 + 12 * nv + 12 * nn + 8 * nt).astype(np.int64).reshape(-1, 3)
    if len(F) and (F.min() < 0 or F.max() >= nv):
        raise ctx.error("face index out of range in MSH file", path=path)
    if not np.all(np.isfinite(V)):
        raise ctx.error("vertex coordinate is not finite in MSH file", path=path)
    return {"vertices": V, "faces": F}


def read_assets(doc: Document) -> tuple:
    """``({mesh name: MeshAsset}, {material name: Material})`` of every ``<asset>``."""
    meshes, materials = {}, {}
    for sec in doc.sections.get("asset", []):
        for n in doc.kids(sec, 2):
            if n.tag == "mesh":
                m = _mesh(doc, n)
                if m.name in meshes:
                    raise doc.error(n, f"repeated name {m.name!r} in mesh")
                meshes[m.name] = m
            elif n.tag == "material":
                a = doc.attrs(n, doc.class_of(n, "main"), "material")
                name = a.text("name")
                if not name:
                    raise doc.error(n, "material needs a name")
                rgba = tuple(a.floats("rgba", (1.0, 1.0, 1.0, 1.0), 4))
                materials[name] = Material(name, rgba, n, dict(a.values))
    return meshes, materials


def _mesh(doc: Document, n: Node) -> MeshAsset:
    a = doc.attrs(n, doc.class_of(n, "main"), "mesh")
    file = a.text("file")
    name = a.text("name")
    if not name:
        if not file:
            raise doc.error(n, "mesh needs a name or a file")
        name = os.path.splitext(os.path.basename(file.replace("\\", "/")))[0]
    scale = tuple(a.floats("scale", (1.0, 1.0, 1.0), 3))
    inertia = a.choice("inertia", _INERTIA_MODES, "legacy")
    vertex = a.floats("vertex", None)
    face = _ints(doc, a, "face") if "face" in a else None
    if vertex is not None and file:
        raise doc.error(n, f"mesh {name!r}: both file and vertex given")
    if vertex is None and not file:
        made = "builtin" if "builtin" in a else ("plugin" if any(c.tag == "plugin" for c in doc.kids(n, 3))
                                                  else None)
        if made:
            doc.warn(n, f"mesh {name!r} is made by MuJoCo ({made}): not read by roboio (its geoms are "
                        "left out)", kind="unsupported")
            return MeshAsset(name, None, None, scale, inertia, n, plugin=True)
        raise doc.error(n, f"mesh {name!r}: needs a file or vertices")
    if vertex is not None and (len(vertex) % 3 or len(vertex) < 12):
        raise doc.error(n, f"mesh {name!r}: vertex data must be at least 4 vertices of 3 numbers")
    if face is not None and len(face) % 3:
        raise doc.error(n, f"mesh {name!r}: face data must be a multiple of 3")
    if any(k in a for k in ("refpos", "refquat")):
        doc.warn(n, f"mesh {name!r}: refpos/refquat are not applied by roboio", kind="unsupported")
    path = doc.asset_path(file) if file else None
    if file and not file.lower().endswith((".stl", ".obj", ".msh")):
        raise doc.error(n, f"mesh {name!r}: file {file!r} is not STL, OBJ or MSH (what MuJoCo reads)")
    return MeshAsset(name, path, file, scale, inertia, n, vertex, face)


def _ints(doc, a, name):
    return doc.ints(a.node, name, None, a.text(name))
