"""Geometry references written by every Klamp't writer (``.rob``, world ``.xml``,
``.obj``, ``.env``).

:class:`GeometryWriter` decides which file a written element references for its geometry
-- the original file (relative to the new file) when Klamp't can read it, else a new file
holding the data, or inline text -- and :func:`split_scale_translate` /
:func:`split_affine` tell whether a geometry transform can be expressed by Klamp't's
attributes.

Mesh files follow ``report.options["meshes"]`` (``--meshes`` on the command line) as the
URDF and MJCF writers do, through :class:`~roboio.formats.mesh_export.MeshExport`: ``keep``
(the default) references a source mesh where it is when :func:`klampt_reads` it, ``copy``
copies such files into ``<file stem>_meshes/`` beside the referring file, ``convert`` writes
every mesh anew there (OFF, full precision). A mesh Klamp't cannot read (VRML, Inventor,
...) is converted in every mode: Klamp't 0.10 refuses a whole robot, object or terrain
whose geometry file it cannot load.
"""
from __future__ import annotations

import os
import re

import numpy as np

from ...errors import FormatError
from ...model import Group, PointCloud, Primitive, TriangleMesh
from ..affine import relative_reference, split_affine  # noqa: F401  (shared, re-exported)
from ..mesh_export import MeshExport

__all__ = ["GeometryWriter", "split_scale_translate", "split_affine", "KLAMPT_GEOMETRY_EXTENSIONS",
           "relative_reference", "walk_geometry", "UNCOLLIDED_PRIMITIVES",
           "klampt_reads"]

# Primitives Klamp't cannot collide: 0.10.1 has no collider for its cylinder; it has no
# capsule or cone at all (GeometryWriter.collidable writes them as meshes)
UNCOLLIDED_PRIMITIVES = ("Cylinder", "Capsule", "Cone")

# What Klamp't 0.10.1 loads as a geometry file by extension (lower case): its native readers
# and the file types of the Assimp build of its PyPI wheels. Not ``wrl``: that Assimp has
# no VRML reader, and Klamp't refuses the robot ("Unknown file extension wrl"), tried with
# klampt 0.10.1.
KLAMPT_GEOMETRY_EXTENSIONS = frozenset(
    "off tri stl dae ply obj gltf glb fbx 3ds blend dxf pcd geom json vol sdf occ".split())

_MTLLIB = re.compile(rb"(?m)^[ \t]*mtllib[ \t]+([^\r\n#]*)")


def klampt_reads(path: str) -> bool:
    """Whether Klamp't 0.10.1 loads the geometry file at ``path`` as it is: its extension
    is one Klamp't knows (:data:`KLAMPT_GEOMETRY_EXTENSIONS`), a ``.geom`` starts with the
    ``Primitive`` line 0.10.1 requires, and a Wavefront ``.obj`` names no material library
    that is missing (Assimp then fails to read the file when its path goes up two or more
    directories, ``/a/b/../../m.obj``, as a robot file's relative reference often makes it:
    tried with klampt 0.10.1)."""
    ext = os.path.splitext(path)[1][1:].lower()
    if ext not in KLAMPT_GEOMETRY_EXTENSIONS:
        return False
    if ext == "geom":
        return _first_token(path) == b"Primitive"
    if ext == "obj":
        return not _missing_material_library(path)
    return True


def _first_token(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            head = f.read(64).split()
    except OSError:
        return b""
    return head[0] if head else b""


def _missing_material_library(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    base = os.path.dirname(path)
    for m in _MTLLIB.finditer(data):
        name = m.group(1).strip().decode("utf-8", "replace")
        if name and not os.path.isfile(os.path.join(base, name)):
            return True
    return False


def split_scale_translate(M):
    """``(scale(3), translation(3))`` when the affine ``M`` is ``p -> scale*p + t``, else None."""
    M = np.asarray(M, float)
    A = M[:3, :3]
    if np.any(M[3] != (0, 0, 0, 1)) or np.any(A - np.diag(np.diag(A))):
        return None
    return np.diag(A).copy(), M[:3, 3].copy()


class GeometryWriter:
    """Chooses (and when needed writes) the geometry files referenced by written elements.

    ``protected`` holds paths that must never be overwritten (source files of the model
    being written); new files get a ``_1``, ``_2``, ... suffix instead. Every file written is
    listed in ``report.files``; everything that cannot be kept goes to ``report.lose``.
    """

    def __init__(self, report, protected=()):
        self.report = report
        self.protected = {_key(p) for p in protected}
        self.written: set = set()
        self.mode = (getattr(report, "options", None) or {}).get("meshes") or "keep"
        self._exports: dict = {}          # referring file -> its MeshExport

    def _mesh_export(self, referring_file: str) -> MeshExport:
        """The mesh files of ``referring_file``: ``<its stem>_meshes/`` beside it."""
        key = _key(referring_file)
        if key not in self._exports:
            self._exports[key] = MeshExport(
                referring_file, self.report, mode=self.mode, readable=klampt_reads,
                consumer="Klamp't", extensions={"collision": ".off", "visual": ".off"})
        return self._exports[key]

    def finish(self) -> None:
        """Report what the mesh files of every referring file changed (once, at the end)."""
        for me in self._exports.values():
            me.summarise()

    def new_path(self, directory: str, stem: str, ext: str) -> str:
        """A fresh file name ``directory/stem[_k]ext`` not written before in this session
        and not a protected source file (compared ignoring case, so that the files also
        stay apart on case-insensitive file systems)."""
        k = 0
        while True:
            name = f"{stem}{'' if k == 0 else f'_{k}'}{ext}"
            p = _key(os.path.join(directory, name))
            if p not in self.written and p not in self.protected:
                self.written.add(p)
                return os.path.join(directory, name)
            k += 1

    def collidable(self, geom, what: str):
        """``geom`` with every cylinder, capsule and cone primitive made a triangle mesh (same
        transform and margin): Klamp't has no capsule or cone, and Klamp't 0.10.1 never
        collides a cylinder primitive, so a primitive written as such would change what
        collides. The surface change is reported."""
        if isinstance(geom, Primitive) and geom.primitive in UNCOLLIDED_PRIMITIVES:
            from ...model.tessellate import SEGMENTS, primitive_to_mesh
            mesh = primitive_to_mesh(geom)
            mesh.transform = np.array(geom.transform, float)
            mesh.margin = geom.margin
            chord = float(geom.params["radius"]) * (1 - np.cos(np.pi / SEGMENTS))
            self.report.lose(f"{geom.primitive} primitives written as {SEGMENTS}-sided triangle "
                             "meshes (Klamp't has no capsule or cone, and Klamp't 0.10.1 never "
                             "collides a cylinder)", f"{chord:.2g} m ({what})",
                             kind="approximated", largest=chord, unit="m")
            return mesh
        if isinstance(geom, Group) and any(isinstance(g, Primitive) and g.primitive in
                                           UNCOLLIDED_PRIMITIVES for g in walk_geometry(geom)):
            out = Group([self.collidable(c, what) for c in geom.children],
                        transform=geom.transform, margin=geom.margin)
            out.extras = dict(geom.extras)
            return out
        return geom

    def data_reference(self, geom, referring_file: str, what: str, allow_none: bool = False) -> str:
        """Reference, as written in ``referring_file``, to a file holding ``geom``'s data
        (its transform not applied): the original inline text, the original file when
        Klamp't reads it (copied beside ``referring_file`` with ``meshes="copy"``), else a
        new file. ``allow_none`` (robot links, which may have no geometry): "" for a mesh
        with no triangles (Klamp't refuses an empty mesh file: the loss is reported);
        otherwise (rigid objects, terrains, which need a mesh) an empty mesh is written."""
        geom = self.collidable(geom, what)
        src = geom.source
        if src is not None and src.format == "inline":
            return src.reference
        if geom.missing:
            ref = src.reference if src is not None else ""
            self.report.lose("geometry files missing when read (their references are written "
                             "unchanged)", f"{what} ({ref})", kind="missing file")
            return ref
        path = src.path if src is not None and src.path and os.path.isfile(src.path) else None
        if path is not None and isinstance(geom, TriangleMesh):
            if len(geom.faces) or allow_none:
                me = self._mesh_export(referring_file)
                pieces = me.export(geom, np.eye(4), what)
                me.flush()          # Klamp't writers write their side files as they go
                return pieces[0].reference if pieces else ""
        if path is not None and klampt_reads(path) and self.mode != "convert":
            me = self._mesh_export(referring_file)
            dest = me.source_file(path)
            me.flush()
            return relative_reference(dest, referring_file)
        data = geom.copy()
        data.transform = np.eye(4)
        data.margin = 0.0
        return self._write_new(data, referring_file, what, allow_none)

    def baked_reference(self, geom, M, referring_file: str, what: str) -> str:
        """Write ``geom`` with the affine ``M`` (instead of its own transform) applied to its
        data into a new file and return its reference."""
        if geom.missing:
            self.report.lose(f"{what}: transform {np.asarray(M).tolist()} of missing geometry",
                             kind="missing file")
            return self.data_reference(geom, referring_file, what)
        g = self.collidable(geom, what).copy()
        g.transform = np.asarray(M, float)
        g.margin = 0.0
        self.report.warn(f"{what}: geometry transform cannot be written as Klamp't attributes; "
                         "the transformed data are written instead", kind="restructured")
        if isinstance(g, (TriangleMesh, PointCloud)):
            baked = g.baked()
            baked.margin = 0.0
            return self._write_new(baked, referring_file, what)
        return self._write_new(g, referring_file, what)

    def _write_new(self, geom, referring_file: str, what: str, allow_none: bool = False) -> str:
        """A new file (``.off`` meshes, ``.pcd`` point clouds) or inline text (primitives and
        groups of them) holding ``geom`` with its transform applied. Not ``.geom`` files:
        Klamp't 0.10.1 requires a "Primitive" header line that later versions reject."""
        from .. import registry
        inside = list(walk_geometry(geom))
        if any(isinstance(g, PointCloud) for g in inside) and len(inside) > 1:
            raise FormatError(referring_file, None, None,
                              f"{what}: cannot write a group holding a point cloud for Klamp't")
        if isinstance(geom, Primitive) or (isinstance(geom, Group) and not any(
                isinstance(g, TriangleMesh) for g in inside)):
            return self._inline(geom)
        leaves = [g for g in inside if not isinstance(g, Group)]
        if allow_none and all(isinstance(g, TriangleMesh) and len(g.faces) == 0 for g in leaves):
            self.report.lose("empty meshes (no triangles; nothing is written)", what)
            return ""
        # a group with meshes goes into one mesh file (the writer reports the merge)
        ext = (".off" if isinstance(geom, (TriangleMesh, Group))
               else ".pcd" if isinstance(geom, PointCloud) else None)
        if ext is None:
            raise FormatError(referring_file, None, None,
                              f"{what}: cannot write {type(geom).__name__} geometry for Klamp't")
        stem = os.path.splitext(os.path.basename(referring_file))[0]
        path = self.new_path(os.path.dirname(referring_file), stem, ext)
        try:
            info = registry.find_writer(geom, path)
        except ValueError:
            raise FormatError(referring_file, None, None,
                              f"{what}: no writer for {ext} geometry files") from None
        info.write(geom, path, self.report)
        self.report.files.append(path)
        return relative_reference(path, referring_file)

    def _inline(self, geom) -> str:
        """``{TypeName data ...}`` inline geometry (Klamp't's stream form, transform baked;
        a primitive Klamp't cannot hold transformed becomes a mesh)."""
        from .geometry.stream import stream_text
        return "{" + " ".join(stream_text(geom, self.report).split()) + "}"


def _key(path: str) -> str:
    return os.path.abspath(path).lower()


def walk_geometry(g):
    """``g`` and, for groups, every geometry inside it (depth first); nothing for None."""
    if g is not None:
        yield g
        for c in getattr(g, "children", ()):
            yield from walk_geometry(c)
