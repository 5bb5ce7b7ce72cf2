"""Mesh and point-cloud files shared by every ecosystem: OFF, STL, PLY, Wavefront OBJ, PCD,
Open Inventor / VRML, COLLADA and glTF geometry.

Each file type has an entry module (``off``, ``stl``, ``ply``, ``wavefront``, ``pcd``,
``inventor``, ``collada``, ``gltf``) with ``loads``/``read`` and, where roboio writes the
type, ``dumps``/``write``. Mesh readers are lazy: ``read`` checks the header and returns a
:class:`~roboio.model.TriangleMesh` that parses its file on first access; ``loads`` parses
at once. Content tests are in the light :mod:`._sniff`.
"""
from ..registry import FormatInfo, register
from ._sniff import (VRML_EXTENSIONS, sniff_collada, sniff_gltf, sniff_inventor, sniff_off,
                     sniff_pcd, sniff_ply, sniff_stl, sniff_wavefront)

DECLARES_FORMATS = True

_M = "roboio.formats.meshes."


def _declare(name, module, extensions, description, sniff, write=True, kinds=("geometry",),
             lazy=False):
    register(FormatInfo(
        name=name, extensions=extensions, kinds=kinds, description=description, lazy=lazy,
        ecosystem="meshes", sniff=sniff, read=f"{_M}{module}:read",
        write=f"{_M}{module}:write" if write else None, writes=("Geometry",) if write else ()))


_declare("off", "off", (".off",),
         "Object File Format triangle mesh (Klamp't's main mesh format), with face colours",
         sniff_off, lazy=True)
_declare("stl", "stl", (".stl",), "STL triangle mesh, binary or ASCII (written binary)", sniff_stl, lazy=True)
_declare("ply", "ply", (".ply",),
         "Stanford PLY triangle mesh, ascii or binary (written binary, double precision)", sniff_ply, lazy=True)
_declare("wavefront-obj", "wavefront", (".obj",),
         "Wavefront OBJ triangle mesh (v/f lines; told from Klamp't object files by content)",
         sniff_wavefront, lazy=True)
_declare("pcd", "pcd", (".pcd",),
         "Point Cloud Library PCD v0.7 point cloud (ascii and binary; written ascii)", sniff_pcd)
_declare("inventor", "inventor", (".iv",),
         "Open Inventor scene (ASCII V1.0/V2.0/V2.1, binary V2.x; VRML text by header), "
         "read as one triangle mesh", sniff_inventor, write=False)
_declare("vrml", "inventor", VRML_EXTENSIONS,
         "VRML 1.0 / VRML 2.0 (VRML97) scene, header line optional for 2.0, read as one "
         "triangle mesh", sniff_inventor, write=False)
_declare("collada", "collada", (".dae",),
         "COLLADA meshes (read through trimesh; node transforms applied, parts kept in order)",
         sniff_collada, write=False, lazy=True)
_declare("gltf", "gltf", (".gltf", ".glb"),
         "glTF 2.0 / GLB meshes (read through trimesh; in the file's own coordinates, as Klamp't and trimesh; "
         "written as one node per mesh, robots and worlds posed)", sniff_gltf)
