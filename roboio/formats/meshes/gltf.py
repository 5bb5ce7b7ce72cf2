"""glTF 2.0 meshes (``.gltf`` with embedded or external buffers, binary ``.glb``), read
through trimesh.

trimesh's glTF loader (``trimesh.exchange.gltf.load_gltf`` / ``load_glb``; see
:mod:`._trimesh`) places every triangle primitive (mode 4, and triangle strips) of every
mesh instance in the default scene with its node's world transform (``matrix`` or TRS);
the parts follow trimesh's scene graph (depth first, starting from the last root node).
Point and line primitives are dropped (as Assimp does); so are triangle fans (mode 6),
which trimesh does not read; a warning names every primitive left out (roboio's own posed
scenes write point clouds as POINTS primitives: they do not come back as a mesh). Material ``baseColorFactor`` gives
face colours (to 1/255: trimesh keeps material colours as bytes), ``COLOR_0`` vertex
colours. Compressed meshes (Draco, meshopt) are a FormatError; so is malformed JSON, at
its line and column (roboio reads the JSON first: trimesh would instead look for a
``model.gltf`` next to the file).

Coordinates are the file's own (no Y-up to Z-up turn): Klamp't (Assimp), trimesh and the
ROS tools (rviz through Assimp, urdfdom/yourdfpy through trimesh) read glTF meshes that way,
and robot descriptions are made for them (a URDF's GLB visuals line up with its OBJ or STL
collision meshes). Files with
several mesh parts record them in ``extras["parts"]`` (Klamp't loads them as a Group).
"""
from __future__ import annotations

import json
import struct


from ...errors import FormatError
from ...model import TriangleMesh
from ..fileio import as_bytes, atomic_write
from ..meshfile import check_readable, lazy_mesh, parsed_mesh, read_bytes
from . import _trimesh
from ._sniff import sniff_gltf as sniff

__all__ = ["sniff", "loads", "read", "dumps", "write", "parse_gltf", "parse_gltf_bytes"]
_COMPRESSION = {"KHR_draco_mesh_compression", "EXT_meshopt_compression", "KHR_meshopt_compression"}
_NOT_READ = {0: "point", 1: "line", 2: "line-loop", 3: "line-strip", 6: "triangle-fan"}


def _json(data: bytes, path: str):
    """The glTF JSON of a ``.gltf`` file or of a GLB's first chunk."""
    if data[:4] == b"glTF":
        if len(data) < 20:
            raise FormatError(path, None, None, f"byte {len(data)}: truncated GLB header")
        length, kind = struct.unpack_from("<II", data, 12)
        if kind != 0x4E4F534A:
            raise FormatError(path, None, None, "byte 16: the first GLB chunk is not JSON")
        text, where = data[20:20 + length], "GLB JSON chunk"
    else:
        text, where = data, "glTF JSON"
    try:
        doc = json.loads(text.decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        raise FormatError(path, None, None, f"malformed {where}: {e}") from None
    except json.JSONDecodeError as e:
        line = e.lineno if where == "glTF JSON" else None
        raise FormatError(path, line, e.colno if line else None, f"malformed {where}: {e.msg}") from None
    if not isinstance(doc, dict):
        raise FormatError(path, 1, None, f"{where} must be an object")
    return doc


def _check(doc: dict, path: str, warn) -> None:
    required = doc.get("extensionsRequired")
    compressed = sorted(_COMPRESSION & set(required)) if isinstance(required, list) else []
    if compressed:
        raise FormatError(path, None, None, f"compressed glTF ({', '.join(compressed)}) is not supported")
    meshes = doc.get("meshes") if isinstance(doc.get("meshes"), list) else []
    skipped = {}
    for i, m in enumerate(meshes):
        for j, p in enumerate((m.get("primitives") or []) if isinstance(m, dict) else []):
            kind = _NOT_READ.get(p.get("mode")) if isinstance(p, dict) else None
            if kind:
                skipped.setdefault(kind, []).append(f"meshes[{i}].primitives[{j}]")
    for kind, where in skipped.items():
        more = f" and {len(where) - 5} more" if len(where) > 5 else ""
        warn(f"{kind} primitives not read (roboio reads triangles only): {', '.join(where[:5])}{more}", kind="unsupported")


def parse_gltf_bytes(data: bytes, path, warn=None) -> dict:
    """The mesh dict of glTF/GLB data, in the file's coordinates; ``path`` locates
    external buffers and images (None: none are read)."""
    warn = warn or (lambda msg, line=None, **kind: None)
    _check(_json(data, path), path, warn)
    from trimesh.exchange.gltf import load_glb, load_gltf
    from trimesh.resolvers import FilePathResolver
    loader = load_glb if data[:4] == b"glTF" else load_gltf
    resolver = FilePathResolver(path) if path else None
    scene = _trimesh.load(path, data, loader, "glTF", warn, resolver=resolver, process=False)
    return _trimesh.flatten(scene, path, "glTF", warn)


def parse_gltf(path: str, warn=None) -> dict:
    """The mesh dict of a glTF/GLB file, in the file's coordinates."""
    return parse_gltf_bytes(read_bytes(path), path, warn)


def loads(data, ctx) -> TriangleMesh:
    """The meshes of glTF/GLB data, parsed now, as one mesh in the file's coordinates."""
    return parsed_mesh(parse_gltf_bytes(as_bytes(data), ctx.path, ctx.warn), ctx.path, "gltf", ctx=ctx)


def read(path: str, ctx) -> TriangleMesh:
    """Lazy glTF/GLB mesh (parsed on first access), in the file's coordinates."""
    check_readable(path)
    return lazy_mesh(path, lambda p: parse_gltf_bytes(read_bytes(p, ctx, document=False), p, ctx.warn),
                     "gltf", ctx=ctx)


def dumps(geom, report, path=None) -> bytes:
    """GLB bytes, or ``.gltf`` JSON with the buffer embedded when ``path`` ends with
    ``.gltf``: one node per mesh, in the model's coordinates (see
    :mod:`._gltf_writer`)."""
    from ._gltf_writer import gltf_bytes
    return gltf_bytes(geom, report, path)


def write(geom, path: str, report) -> None:
    atomic_write(path, dumps(geom, report, path))
