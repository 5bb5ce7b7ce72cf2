"""glTF 2.0 meshes (``.gltf`` with embedded or external buffers, binary ``.glb``).

Every triangle primitive (mode 4, and strips/fans converted) of every mesh instance in the
default scene is placed with its node's world transform (``matrix`` or TRS) and
concatenated in node traversal order; point and line primitives are dropped (as Assimp
does). Material ``baseColorFactor`` gives face colours, ``COLOR_0`` vertex colours.
Compressed meshes (Draco, meshopt) and sparse accessors are not supported.

glTF is Y-up: like Klamp't, roboio converts to Z-up with ``(x, y, z) -> (x, -z, y)``; the
file's coordinates are kept and the conversion is the mesh's ``transform``. Files with
several mesh parts record them in ``extras["parts"]`` (Klamp't loads them as a Group).
"""
from __future__ import annotations

import base64
import json
import os
import struct

import numpy as np

from ...errors import FormatError
from ...model import TriangleMesh
from ...transforms import quat_to_matrix
from ..registry import FormatInfo, register
from ._common import check_readable, lazy_mesh, read_bytes
from ._scene import Part, assemble, strip

__all__ = ["read_gltf", "parse_gltf_bytes", "Y_UP_TO_Z_UP"]

Y_UP_TO_Z_UP = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
_COMPONENT = {5120: "i1", 5121: "u1", 5122: "i2", 5123: "u2", 5125: "u4", 5126: "f4"}
_NCOMP = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_UNSUPPORTED = {"KHR_draco_mesh_compression", "EXT_meshopt_compression", "KHR_meshopt_compression"}


class _Doc:
    def __init__(self, data: bytes, path: str):
        self.path = path
        self.bin = None
        if data[:4] == b"glTF":
            self.gltf = self._glb(data)
        else:
            try:
                self.gltf = json.loads(data.decode("utf-8-sig"))
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                line = getattr(e, "lineno", None)
                raise FormatError(path, line, getattr(e, "colno", None), f"malformed glTF JSON: {e}") from None
        if not isinstance(self.gltf, dict):
            raise FormatError(path, 1, None, "glTF JSON must be an object")
        req = set(self.gltf.get("extensionsRequired", [])) & _UNSUPPORTED
        if req:
            raise FormatError(path, None, None, f"compressed glTF ({', '.join(sorted(req))}) is not supported")
        self._buffers = {}

    def _glb(self, data):
        if len(data) < 20:
            raise FormatError(self.path, None, None, f"byte {len(data)}: truncated GLB header")
        _, version, length = struct.unpack_from("<4sII", data, 0)
        if version != 2:
            raise FormatError(self.path, None, None, f"GLB version {version} (only glTF 2.0 is supported)")
        if length > len(data):
            raise FormatError(self.path, None, None, f"byte {len(data)}: truncated GLB: header says {length} bytes")
        pos, doc = 12, None
        while pos + 8 <= length:
            clen, ctype = struct.unpack_from("<II", data, pos)
            if pos + 8 + clen > length:
                raise FormatError(self.path, None, None, f"byte {pos}: GLB chunk runs past the end of the file")
            chunk = data[pos + 8:pos + 8 + clen]
            if ctype == 0x4E4F534A:
                try:
                    doc = json.loads(chunk.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError) as e:
                    raise FormatError(self.path, None, None, f"byte {pos + 8}: malformed GLB JSON chunk: {e}") from None
            elif ctype == 0x004E4942 and self.bin is None:
                self.bin = chunk
            pos += 8 + clen
        if doc is None:
            raise FormatError(self.path, None, None, "GLB without a JSON chunk")
        return doc

    def get(self, kind, i):
        items = self.gltf.get(kind, [])
        if not isinstance(i, int) or not 0 <= i < len(items):
            raise FormatError(self.path, None, None, f"{kind}[{i}] does not exist (the file has {len(items)})")
        return items[i]

    def buffer(self, i) -> bytes:
        if i not in self._buffers:
            b = self.get("buffers", i)
            uri = b.get("uri")
            if uri is None:
                if self.bin is None:
                    raise FormatError(self.path, None, None, f"buffers[{i}] has no uri and there is no GLB binary chunk")
                data = self.bin
            elif uri.startswith("data:"):
                data = base64.b64decode(uri.split(",", 1)[1])
            else:
                fn = os.path.join(os.path.dirname(self.path), uri)
                try:
                    data = read_bytes(fn)
                except OSError:
                    raise FormatError(self.path, None, None, f"buffer file {uri!r} not found") from None
            if len(data) < b.get("byteLength", 0):
                raise FormatError(self.path, None, None, f"buffers[{i}] holds {len(data)} bytes, "
                                                         f"byteLength says {b['byteLength']}")
            self._buffers[i] = data
        return self._buffers[i]

    def accessor(self, i) -> np.ndarray:
        a = self.get("accessors", i)
        if "sparse" in a or "bufferView" not in a:
            raise FormatError(self.path, None, None, f"accessors[{i}]: sparse accessors are not supported")
        view = self.get("bufferViews", a["bufferView"])
        data = self.buffer(view["buffer"])
        dt = np.dtype("<" + _COMPONENT[a["componentType"]])
        ncomp = _NCOMP[a["type"]]
        count = a["count"]
        offset = view.get("byteOffset", 0) + a.get("byteOffset", 0)
        stride = view.get("byteStride") or dt.itemsize * ncomp
        need = offset + stride * (count - 1) + dt.itemsize * ncomp if count else offset
        if need > len(data) or need > view.get("byteOffset", 0) + view["byteLength"]:
            raise FormatError(self.path, None, None, f"accessors[{i}] reads past the end of its buffer view")
        arr = np.ndarray((count, ncomp), dt, data, offset, (stride, dt.itemsize)).astype(
            np.float64 if dt.kind == "f" else np.int64)
        if a.get("normalized") and dt.kind in "iu":
            arr = arr / float(np.iinfo(dt).max)
        return arr


def _node_matrix(node) -> np.ndarray:
    if "matrix" in node:
        return np.asarray(node["matrix"], float).reshape(4, 4).T       # column-major
    T = np.eye(4)
    x, y, z, w = node.get("rotation", [0, 0, 0, 1])
    T[:3, :3] = quat_to_matrix(np.array([w, x, y, z], float)) * np.asarray(node.get("scale", [1, 1, 1]), float)
    T[:3, 3] = node.get("translation", [0, 0, 0])
    return T


def _primitive_part(doc: _Doc, prim, M) -> Part | None:
    mode = prim.get("mode", 4)
    if mode not in (4, 5, 6):
        return None                           # points and lines: dropped
    attrs = prim.get("attributes", {})
    if "POSITION" not in attrs:
        return None
    v = doc.accessor(attrs["POSITION"])[:, :3]
    idx = doc.accessor(prim["indices"]).ravel() if "indices" in prim else np.arange(len(v))
    if len(idx) and (idx.min() < 0 or idx.max() >= len(v)):
        raise FormatError(doc.path, None, None, f"primitive index {int(idx.max())} out of range ({len(v)} vertices)")
    if mode == 4:
        f = idx[:len(idx) // 3 * 3].reshape(-1, 3)
    elif mode == 5:
        f = strip(idx)
    else:
        f = np.stack([np.full(max(len(idx) - 2, 0), idx[0] if len(idx) else 0), idx[1:-1], idx[2:]], axis=1)
    color = None
    if "material" in prim:
        m = doc.get("materials", prim["material"])
        color = tuple(float(c) for c in m.get("pbrMetallicRoughness", {}).get("baseColorFactor", [1, 1, 1, 1]))
    vcol = None
    if "COLOR_0" in attrs:
        c = doc.accessor(attrs["COLOR_0"])
        vcol = np.ones((len(c), 4))
        vcol[:, :c.shape[1]] = c
    return Part(v @ M[:3, :3].T + M[:3, 3], [(f, color)], vcol)


def parse_gltf_bytes(data: bytes, path: str) -> dict:
    try:
        return _parse(data, path)
    except KeyError as e:
        raise FormatError(path, None, None, f"malformed glTF: required property {e.args[0]!r} missing") from None
    except (TypeError, ValueError, IndexError, AttributeError) as e:
        raise FormatError(path, None, None, f"malformed glTF: {type(e).__name__}: {e}") from None


def _parse(data: bytes, path: str) -> dict:
    doc = _Doc(data, path)
    g = doc.gltf
    nodes = g.get("nodes", [])
    if g.get("scenes"):
        roots = doc.get("scenes", g.get("scene", 0)).get("nodes", [])
    else:
        children = {c for n in nodes for c in n.get("children", [])}
        roots = [i for i in range(len(nodes)) if i not in children]
    parts = []
    stack = [(i, np.eye(4), 0) for i in reversed(roots)]
    while stack:
        i, parent, depth = stack.pop()
        if depth > 1000:
            raise FormatError(path, None, None, "glTF node hierarchy deeper than 1000 (a cycle?)")
        node = doc.get("nodes", i)
        M = parent @ _node_matrix(node)
        if "mesh" in node:
            for prim in doc.get("meshes", node["mesh"]).get("primitives", []):
                p = _primitive_part(doc, prim, M)
                if p is not None:
                    parts.append(p)
        stack.extend((c, M, depth + 1) for c in reversed(node.get("children", [])))
    return assemble(parts)


def read_gltf(path: str, ctx) -> TriangleMesh:
    check_readable(path)
    m = lazy_mesh(path, lambda p: parse_gltf_bytes(read_bytes(p), p), "gltf")
    m.transform = Y_UP_TO_Z_UP.copy()
    return m


register(FormatInfo(
    name="gltf", extensions=(".gltf", ".glb"), kinds=("geometry",),
    description="glTF 2.0 / GLB meshes (read; Y-up converted to Z-up as Klamp't does)",
    ecosystem="meshes", sniff=lambda head, path: head[:4] == b"glTF" or (b'"asset"' in head and b'"version"' in head),
    read=read_gltf))
