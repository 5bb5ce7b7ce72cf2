"""Meshes written beside an output file, for targets whose consumers cannot read every mesh
format roboio reads (ROS tools and MuJoCo do not read ``.off``, ``.iv``, ``.wrl``, ``.tri``;
MuJoCo reads binary STL only).

A writer asks :class:`MeshExport` for each triangle mesh of the model it writes
(:meth:`MeshExport.export`) and gets back :class:`MeshPiece` objects: the reference to write
(relative to the output file, ``/`` separators), the rigid pose and per-axis scale of the
file's data in the owner frame, and a colour when the source mesh had face colours split
into one file per colour. Nothing is written until :meth:`MeshExport.write_files` (or
:meth:`MeshExport.flush`), so that ``dumps`` can plan references without touching the disk.

Modes (``--meshes`` on the command line, ``meshes=`` of :func:`roboio.save`):

* ``keep``: reference the source file where it is when the consumer reads it (and the
  geometry transform is a rotation times a per-axis scale); convert the others. A source
  reference the consumer resolves itself (``uri_schemes``: ``package://`` for URDF) is
  written as the source wrote it (``package:///NAME`` as ``package://NAME``), so that a
  URDF -> URDF conversion stays portable; other references become paths relative to the
  output;
* ``copy``: like ``keep``, but readable source files are copied into the mesh folder, so
  that the output is self-contained;
* ``convert``: every mesh is written anew (collision meshes as binary STL, visual meshes in
  the writer's visual format).

Converted and copied files go into ``<output stem>_meshes/`` beside the output; every file
written is listed in ``report.files``. What a conversion changes (float32 rounding of STL
vertices, colours) is reported with its size; a mesh whose file was missing when read is
reported as lost and gets no reference.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ..model import Group, TriangleMesh
from ..transforms import det3, make_transform, transform_points
from .affine import relative_reference, split_affine
from .fileio import atomic_write, safe_file_stem
from .meshfile import rounding_kind

__all__ = ["MeshExport", "MeshPiece", "MODES"]

MODES = ("keep", "copy", "convert")
_MAX_COLORS = 64


@dataclass
class MeshPiece:
    """One mesh file as the output references it.

    ``reference``: text to write (relative to the output file); ``path``: the file itself;
    ``pose`` (4x4 rigid) and ``scale`` (3,): the owner-frame position of a file vertex ``v``
    is ``pose @ (scale * v)``; ``rgba``: colour of every face in the file (None: the source
    had no face colours); ``vertices``/``faces``: the file's data (file coordinates), for
    checks a consumer needs (areas, planarity)."""

    reference: str
    path: str
    pose: np.ndarray
    scale: np.ndarray
    rgba: Optional[tuple] = None
    vertices: np.ndarray = field(default=None, repr=False)
    faces: np.ndarray = field(default=None, repr=False)
    converted: bool = False
    f32_error: float = 0.0       # largest float32 rounding of a written vertex (file units)
    # the owner frame's 3x3 rotation x scale of the file as given (None: not split from
    # one): a writer may choose the rotation whose scaled matrix reads back to it exactly
    linear: Optional[np.ndarray] = field(default=None, repr=False)


class MeshExport:
    """Plans and writes the mesh files of one output (see the module docstring).

    ``readable(path) -> bool``: whether the target's consumer reads a source file as it is.
    ``extensions``: file extension per role (``collision``, ``visual``) for converted
    meshes: ``.stl`` (binary STL, 32-bit floats), ``.obj`` (Wavefront OBJ, full
    precision) or ``.off`` (OFF, full precision; Klamp't's writers). ``max_faces``: split converted
    meshes into files of at most this many triangles (MuJoCo's STL limit). ``split_colors``:
    write a mesh with face colours as one file per colour (for targets with one colour per
    geometry, such as MJCF), keeping no part with fewer than ``min_vertices`` corners.
    ``package``: ``(root directory, "package://NAME/")`` when the output is a ROS package's
    file: every reference is then the URI of a file inside the root, and readable sources
    outside it are copied into the mesh folder even with ``keep``.
    """

    def __init__(self, output_path: Optional[str], report, *, mode: str = "keep",
                 readable: Callable[[str], bool] = lambda p: False, consumer: str = "the target",
                 extensions: Optional[dict] = None, max_faces: Optional[int] = None,
                 split_colors: bool = False, min_vertices: int = 1, uri_schemes: tuple = (),
                 package: Optional[tuple] = None):
        if mode not in MODES:
            raise ValueError(f"meshes mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.report = report
        self.mode = mode
        self.readable = readable
        self.consumer = consumer
        self.extensions = {"collision": ".stl", "visual": ".stl", **(extensions or {})}
        self.max_faces = max_faces
        self.split_colors = split_colors
        self.min_vertices = min_vertices
        self.uri_schemes = tuple(uri_schemes)
        # (package root directory, URI prefix "package://NAME/"): every reference is a URI
        # of a file inside the root; readable sources outside it are copied in
        self.package = None if package is None else (os.path.abspath(package[0]), package[1])
        out = os.path.abspath(output_path if output_path else "output")
        self.output = out
        self.folder = os.path.splitext(out)[0] + "_meshes"
        self._names: set = set()          # lower-case file names taken in the folder
        self._copies: dict = {}           # source realpath -> (dest path)
        self._writes: dict = {}           # dest path -> (vertices, faces)
        self._copy_plan: dict = {}        # dest path -> source path
        self._cache: dict = {}            # key -> list of pieces
        self._keep_alive: list = []       # meshes without a file, cached by id
        self._f32_error = 0.0
        self._converted_from: dict = {}   # source extension -> source files (or meshes)
        self._done: set = set()           # files written by flush()

    # -- planning -----------------------------------------------------------------------
    def export(self, mesh: TriangleMesh, M, label: str, role: str = "collision",
               split_colors: Optional[bool] = None) -> list:
        """Pieces referencing ``mesh`` placed by the affine ``M`` (4x4, mesh data -> owner
        frame). New files are named after the source file, else after ``label`` (e.g. the
        link name), which also names the mesh in the report; ``role`` is ``collision`` or
        ``visual``. ``split_colors`` overrides the exporter's setting for this mesh (False:
        face colours are not kept, and not reported, as for collision shapes of a target
        that colours visuals only). Returns [] (and reports the loss) for a missing or
        empty mesh."""
        src = mesh.source
        if mesh.missing:
            ref = src.reference if src is not None else "?"
            self.report.lose("mesh files that were not found on reading (nothing is referenced)",
                             f"{label} ({ref})", kind="missing file")
            return []
        if len(mesh.faces) == 0:        # (programs refuse an empty mesh file: Klamp't, MuJoCo)
            self.report.lose("empty meshes (no triangles; nothing is written)", label)
            return []
        M = np.asarray(M, float)
        split = split_affine(M)
        path = src.path if src is not None and src.path and os.path.isfile(src.path) else None
        if split is not None and path is not None and self.mode != "convert" and self.readable(path):
            return [self._reference_source(mesh, path, split, M)]
        key = (os.path.realpath(path) if path else id(mesh), role,
               None if split is not None else M[:3, :3].tobytes())
        if not path:
            # an id names this mesh only while it lives: kept alive, so that a later mesh
            # (a temporary of merge_new, say) cannot take its id and its files
            self._keep_alive.append(mesh)
        if key in self._cache:
            return [self._placed(p, split, M) for p in self._cache[key]]
        return self._convert(mesh, M, split, path, key, label, role, split_colors)

    def references_source(self, mesh: TriangleMesh, M) -> bool:
        """Whether :meth:`export` would reference ``mesh``'s own file (placed by ``M``)
        rather than write a new one."""
        src = mesh.source
        path = src.path if src is not None and src.path and os.path.isfile(src.path) else None
        return (path is not None and self.mode != "convert" and self.readable(path)
                and split_affine(np.asarray(M, float)) is not None)

    def merge_new(self, leaves: list) -> list:
        """``leaves`` (``(geometry, 4x4 to the owner frame)`` pairs) with every triangle mesh
        that would become a new file baked into one mesh in the owner frame (faces in order,
        face colours kept), placed where the first of them was: one file per link, not one
        per triangle group (a COLLADA robot's link holds hundreds of primitive sets).
        Meshes that reference their own files, and everything else, stay as they are."""
        new = [k for k, (g, M) in enumerate(leaves) if isinstance(g, TriangleMesh) and not g.missing
               and not self.references_source(g, M)]
        if len(new) < 2:
            return leaves
        from .meshfile import flatten_for_writing
        group = Group([TriangleMesh(leaves[k][0].vertices, leaves[k][0].faces,
                                    face_colors=leaves[k][0].face_colors,
                                    vertex_colors=leaves[k][0].vertex_colors,
                                    transform=np.asarray(leaves[k][1], float)) for k in new])
        baked = flatten_for_writing(group, _Quiet(), "mesh")
        merged = TriangleMesh(baked.vertices, baked.faces, face_colors=baked.face_colors,
                              vertex_colors=baked.vertex_colors)
        out = [leaf for k, leaf in enumerate(leaves) if k not in set(new[1:])]
        out[new[0]] = (merged, np.eye(4))
        return out

    def _convert(self, mesh, M, split, path, key, label, role, split_colors=None) -> list:
        if len(mesh.faces) == 0:
            self.report.lose("empty meshes (no triangles; nothing is written)", label, kind="not written")
            return []
        # (element-wise: the written vertices have the same digits on any machine)
        V = mesh.vertices if split is not None else transform_points(make_transform(M[:3, :3]), mesh.vertices)
        F = mesh.faces if split is not None or det3(M[:3, :3]) > 0 else mesh.faces[:, ::-1]
        pieces = []
        stem = safe_file_stem(os.path.splitext(os.path.basename(path))[0] if path else label, "mesh", ".")
        for k, (Fi, rgba) in enumerate(self._color_parts(mesh, F, label, split_colors)):
            for j, Fc in enumerate(self._chunks(Fi)):
                used, inv = np.unique(Fc, return_inverse=True)
                Vc, Fc = V[used], inv.reshape(-1, 3)
                suffix = (f"_{k}" if k else "") + (f"_part{j}" if j else "")
                dest = self._new_name(f"{stem}{suffix}{self.extensions[role]}")
                self._writes[dest] = (Vc, Fc)
                piece = MeshPiece(self._reference(dest), dest, np.eye(4),
                                  np.ones(3), rgba, Vc, Fc, converted=True)
                if dest.lower().endswith(".stl"):      # binary STL holds 32-bit floats
                    piece.f32_error = float(np.abs(Vc - Vc.astype(np.float32)).max(initial=0.0))
                pieces.append(piece)
        ext = os.path.splitext(path)[1].lower() if path else "(no file)"
        self._converted_from.setdefault(ext, set()).add(key[0])   # a file once, whatever its roles
        self._cache[key] = pieces
        return [self._placed(p, split, M) for p in pieces]

    def _note_rounding(self, pieces, scale) -> None:
        """Largest float32 rounding of written vertices, in owner-frame units (metres)."""
        k = float(np.abs(scale).max())
        for p in pieces:
            self._f32_error = max(self._f32_error, getattr(p, "f32_error", 0.0) * k)

    def _placed(self, p: MeshPiece, split, M) -> MeshPiece:
        if split is None:
            pose, scale = make_transform(None, M[:3, 3]), np.ones(3)
        else:
            s, R, t = split
            pose, scale = make_transform(R, t), s
        self._note_rounding([p], scale)
        linear = None if split is None else np.array(M[:3, :3], float)
        return MeshPiece(p.reference, p.path, pose, scale, p.rgba, p.vertices, p.faces, p.converted,
                         linear=linear)

    def _reference_source(self, mesh: TriangleMesh, path: str, split, M) -> MeshPiece:
        s, R, t = split
        dest = self.source_file(path)
        return MeshPiece(self._kept_uri(mesh) or self._reference(dest), dest,
                         make_transform(R, t), s, None, mesh.vertices, mesh.faces,
                         linear=np.array(M[:3, :3], float))

    def _reference(self, dest: str) -> str:
        """What the output writes for the file ``dest``: its path relative to the output,
        or its ``package://`` URI."""
        if self.package is None:
            return relative_reference(dest, self.output)
        root, prefix = self.package
        return prefix + os.path.relpath(os.path.abspath(dest), root).replace(os.sep, "/")

    def _in_package(self, path: str) -> bool:
        root = self.package[0]
        try:
            return os.path.commonpath([root, os.path.abspath(path)]) == root
        except ValueError:          # another drive
            return False

    def source_file(self, path: str) -> str:
        """The file the output references for the readable source file ``path``: ``path``
        itself (``keep``), or its copy in the mesh folder (``copy``, or ``keep`` of a file
        outside the package being written; planned once per file)."""
        if self.mode != "copy" and (self.package is None or self._in_package(path)):
            return path
        real = os.path.realpath(path)
        if real not in self._copies:
            name = os.path.basename(path)
            target = os.path.join(self.folder, name)
            if os.path.realpath(target) == real:
                self._copies[real] = path
            else:
                self._copies[real] = self._new_name(name)
                self._copy_plan[self._copies[real]] = path
        return self._copies[real]

    def _kept_uri(self, mesh: TriangleMesh) -> Optional[str]:
        """The source's own reference when ``keep`` mode writes it unchanged, else None."""
        ref = mesh.source.reference if self.mode == "keep" and mesh.source is not None else None
        if not ref or not ref.startswith(self.uri_schemes) or not self.uri_schemes or self.package:
            return None
        if ref.startswith("package:///"):
            ref = "package://" + ref[len("package:///"):]
        return ref

    def _new_name(self, name: str) -> str:
        stem, ext = os.path.splitext(name)
        k = 0
        while True:
            cand = f"{stem}{'' if k == 0 else f'_{k}'}{ext}"
            if cand.lower() not in self._names:
                self._names.add(cand.lower())
                return os.path.join(self.folder, cand)
            k += 1

    def _color_parts(self, mesh: TriangleMesh, F, label: str, split=None):
        """(faces, rgba or None) per colour when splitting, else the whole mesh."""
        if split is False:
            return [(F, None)]
        fc = mesh.face_colors
        if mesh.vertex_colors is not None:
            self.report.lose(f"vertex colours of meshes ({self.consumer} meshes carry none)", label, kind="not written")
        if fc is None:
            return [(F, None)]
        fc = np.asarray(fc, float).reshape(-1, 4)
        if not (self.split_colors if split is None else split):
            self.report.lose("face colours of meshes (converted meshes carry none)", label, kind="not written")
            return [(F, None)]
        colors, inv, counts = np.unique(fc, axis=0, return_inverse=True, return_counts=True)
        inv = inv.reshape(-1)
        if len(colors) > _MAX_COLORS:
            top = int(np.argmax(counts))
            self.report.lose(f"face colours of meshes with more than {_MAX_COLORS} colours (one "
                             "colour kept, the most used)", label, kind="approximated")
            return [(F, tuple(float(c) for c in colors[top]))]
        order = np.argsort([np.min(np.nonzero(inv == c)[0]) for c in range(len(colors))])
        parts = [(F[inv == c], tuple(float(x) for x in colors[c])) for c in order]
        # a part too small to be a mesh of its own (fewer than min_vertices corners) joins
        # the largest part and takes its colour
        small = [k for k, (f, _) in enumerate(parts) if len(np.unique(f)) < self.min_vertices]
        if small and len(small) < len(parts):
            big = max((k for k in range(len(parts)) if k not in small), key=lambda k: len(parts[k][0]))
            merged = np.concatenate([parts[big][0]] + [parts[k][0] for k in small])
            self.report.lose("face colours of mesh parts too small to be meshes of their own "
                             "(drawn in the colour of the largest part)", label, kind="approximated")
            parts = [(merged if k == big else f, c) for k, (f, c) in enumerate(parts) if k not in small]
        elif small:
            self.report.lose("face colours of meshes (one colour kept, the most used)", label, kind="approximated")
            top = int(np.argmax(counts))
            return [(F, tuple(float(c) for c in colors[top]))]
        return parts

    def _chunks(self, F):
        if self.max_faces is None or len(F) <= self.max_faces:
            return [F]
        return [F[i:i + self.max_faces] for i in range(0, len(F), self.max_faces)]

    # -- writing ------------------------------------------------------------------------
    def write_files(self) -> None:
        """Write every planned file (atomically), list each in ``report.files`` and report
        what converting changed."""
        self.flush()
        self.summarise()

    def flush(self) -> None:
        """Write the planned files not written yet (for writers that write their side files
        as they go); each is listed in ``report.files``."""
        from . import registry
        from ..report import ConversionReport
        writers = {".stl": "stl", ".obj": "wavefront-obj", ".off": "off"}
        for dest, (V, F) in self._writes.items():
            if dest in self._done:
                continue
            info = registry.get(writers[os.path.splitext(dest)[1].lower()])
            info.write(TriangleMesh(V, F), dest, ConversionReport(dest, info.name))
            self._done.add(dest)
            self.report.files.append(dest)
        for dest, src in self._copy_plan.items():
            if dest in self._done:
                continue
            with open(src, "rb") as f:
                atomic_write(dest, f.read())
            self._done.add(dest)
            self.report.files.append(dest)

    def summarise(self) -> None:
        """Report conversions (also when only planned, as by ``dumps``)."""
        if self._writes:
            srcs = ", ".join(f"{len(n)} {e}" for e, n in sorted(self._converted_from.items()))
            kinds = sorted({os.path.splitext(d)[1].lower() for d in self._writes})
            names = " and ".join({".stl": "binary STL", ".obj": "Wavefront OBJ", ".off": "OFF"}[k]
                                 for k in kinds)
            self.report.warn(f"{len(self._writes)} mesh file(s) converted to {names} in "
                             f"{os.path.basename(self.folder)}/ (from {srcs})", kind="side files")
            if self._f32_error > 0:
                self.report.lose("mesh vertices rounded to 32-bit floats (binary STL)",
                                 kind=rounding_kind(self._f32_error), largest=self._f32_error,
                                 unit="m")
        if self._copy_plan:
            self.report.warn(f"{len(self._copy_plan)} mesh file(s) copied into "
                             f"{os.path.basename(self.folder)}/", kind="side files")


class _Quiet:
    """A report that keeps nothing: merging meshes into one loses nothing a mesh file holds."""

    def lose(self, *args, **kwargs):
        pass

    def warn(self, *args, **kwargs):
        pass
