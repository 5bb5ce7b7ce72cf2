"""``<hfield>`` assets: height fields as MuJoCo compiles them, read as closed triangle meshes.

Elevation comes from the ``elevation`` attribute (``nrow`` x ``ncol`` numbers, first row at
+y), a PNG image (grey as MuJoCo's PNG decoder makes it: the red channel, 16-bit samples by
their high byte; first image row at +y) or MuJoCo's binary file (int32 ``nrow``, ``ncol``,
then float32 data, first row at -y); ``nrow``/``ncol`` alone give a flat field. MuJoCo
stores the rows from -y up and scales the data to [0, 1] in float32 (``data - min``, divided
by ``max - min`` when that exceeds mjEPS); so does this module.

The geometry, in the geom's frame (metres): grid point (row r, column c) at
``x = c dx - size[0]``, ``y = r dy - size[1]`` (``dx = 2 size[0] / (ncol - 1)``, likewise
``dy``), ``z = size[2] data[r, c]``; each cell split along the diagonal MuJoCo's collision
prisms use ((r, c) to (r + 1, c + 1)); walls down to ``z = -size[3]`` and a bottom close it.
"""
from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...model import TriangleMesh
from ...model.geometry import GeometrySource
from ._document import Document, Node

__all__ = ["HFieldAsset", "read_hfields"]

_MJ_EPS = 1e-14


@dataclass
class HFieldAsset:
    """One ``<hfield>``: ``size`` (radius x, radius y, elevation z, base z), elevation
    ``data`` (nrow, ncol) float32 in [0, 1], first row at -y."""

    name: str
    size: tuple
    data: np.ndarray
    reference: Optional[str]
    node: Node

    def geometry(self) -> TriangleMesh:
        V, F = surface_mesh(self.data, self.size)
        return TriangleMesh(V, F, source=GeometrySource(self.reference or f"<hfield name={self.name!r}>",
                                                        None, "mjcf"))


def read_hfields(doc: Document, budget) -> dict:
    """``{name: HFieldAsset}`` of every ``<asset><hfield>``; ``budget(count)`` charges grid
    points against the load's vertex budget."""
    out = {}
    for sec in doc.sections.get("asset", []):
        for n in doc.kids(sec, 2):
            if n.tag == "hfield":
                h = _hfield(doc, n, budget)
                if h.name in out:
                    raise doc.error(n, f"repeated name {h.name!r} in hfield")
                out[h.name] = h
    return out


def _hfield(doc: Document, n: Node, budget) -> HFieldAsset:
    """The asset of ``<hfield>`` node ``n``; ``budget(count)`` charges its grid points."""
    a = doc.attrs(n, "main", "hfield")
    file = a.text("file")
    name = a.text("name") or (os.path.splitext(os.path.basename(file.replace("\\", "/")))[0] if file else "")
    size = tuple(a.floats("size", None, 4) or ())
    if len(size) != 4 or not all(s > 0 for s in size):
        raise doc.error(n, f"hfield {name!r}: size parameter is not positive in hfield")
    nrow, ncol = a.int("nrow", 0), a.int("ncol", 0)
    elevation = a.floats("elevation", None)
    if file:
        if nrow or ncol or elevation:
            raise doc.error(n, f"hfield {name!r} specified from file and manually")
        path = doc.asset_path(file)
        if not os.path.isfile(path):
            raise doc.error(n, f"hfield {name!r}: file {file!r} not found (looked for {path})")
        with open(path, "rb") as f:
            raw = f.read()
        if raw[:8] == b"\x89PNG\r\n\x1a\n" or file.lower().endswith(".png"):
            grey = _png_grey(raw, doc, n, budget)
            data = grey[::-1].astype(np.float32)
        else:
            data = _custom(raw, doc, n, budget)
    else:
        if nrow < 1 or ncol < 1:
            raise doc.error(n, f"hfield {name!r} not specified (give a file, or nrow and ncol)")
        budget(nrow * ncol)
        if elevation:
            if len(elevation) != nrow * ncol:
                raise doc.error(n, f"hfield {name!r}: elevation data length must match nrow*ncol")
            data = np.asarray(elevation, dtype=np.float32).reshape(nrow, ncol)[::-1]
        else:
            data = np.zeros((nrow, ncol), dtype=np.float32)
    if not np.all(np.isfinite(data)):
        raise doc.error(n, f"hfield {name!r}: elevation data that is not finite")
    lo, hi = np.float32(data.min()), np.float32(data.max())
    data = data - lo
    if hi - lo > _MJ_EPS:
        data = data / np.float32(hi - lo)
    return HFieldAsset(name, size, np.ascontiguousarray(data, dtype=np.float32), file, n)


def surface_mesh(data: np.ndarray, size) -> tuple:
    """``(vertices, faces)`` of the closed height-field solid (see the module docstring)."""
    nrow, ncol = data.shape
    sx, sy, sz, base = (float(s) for s in size)
    xs = np.linspace(-sx, sx, ncol) if ncol > 1 else np.zeros(1)
    ys = np.linspace(-sy, sy, nrow) if nrow > 1 else np.zeros(1)
    X, Y = np.meshgrid(xs, ys)
    top = np.stack([X.ravel(), Y.ravel(), sz * data.astype(np.float64).ravel()], axis=1)
    bottom = top.copy()
    bottom[:, 2] = -base
    V = np.concatenate([top, bottom])
    idx = np.arange(nrow * ncol).reshape(nrow, ncol)
    faces = []
    if nrow > 1 and ncol > 1:
        a, b = idx[:-1, :-1].ravel(), idx[:-1, 1:].ravel()       # (r, c), (r, c + 1)
        c, d = idx[1:, :-1].ravel(), idx[1:, 1:].ravel()         # (r + 1, c), (r + 1, c + 1)
        faces += [np.stack([a, d, c], 1), np.stack([a, b, d], 1)]   # upward, diagonal a-d
        off = nrow * ncol
        faces += [np.stack([a + off, c + off, d + off], 1), np.stack([a + off, d + off, b + off], 1)]
        ring = np.concatenate([idx[0, :], idx[1:, -1], idx[-1, -2::-1], idx[-2:0:-1, 0]])
        p, q = ring, np.roll(ring, -1)
        faces += [np.stack([p, q + off, q], 1), np.stack([p, p + off, q + off], 1)]
    F = np.concatenate(faces).astype(np.int64) if faces else np.zeros((0, 3), dtype=np.int64)
    return V, F


def _custom(raw: bytes, doc, n, budget) -> np.ndarray:
    """MuJoCo's binary height field: int32 nrow, ncol, float32 data (first row at -y)."""
    if len(raw) < 8:
        raise doc.error(n, "hfield missing header")
    nrow, ncol = struct.unpack("<ii", raw[:8])
    if nrow < 1 or ncol < 1:
        raise doc.error(n, "non-positive hfield dimensions in file")
    budget(nrow * ncol)
    if len(raw) != 8 + 4 * nrow * ncol:
        raise doc.error(n, "unexpected file size in hfield file")
    return np.frombuffer(raw, dtype="<f4", offset=8).reshape(nrow, ncol).astype(np.float32)


def _png_grey(raw: bytes, doc, n, budget) -> np.ndarray:
    """8-bit grey of a PNG as MuJoCo's decoder (lodepng, LCT_GREY) converts it: a grey
    sample as it is (16-bit: its high byte; 1, 2, 4-bit: scaled to 0..255), else the red
    channel (of RGB(A) pixels or of the palette entry); rows top first."""
    def bad(what):
        return doc.error(n, f"hfield PNG: {what}")
    if raw[:8] != b"\x89PNG\r\n\x1a\n":
        raise bad("not a PNG file")
    pos, chunks, palette, header = 8, [], None, None
    while pos + 8 <= len(raw):
        length, kind = struct.unpack(">I4s", raw[pos:pos + 8])
        body = raw[pos + 8:pos + 8 + length]
        if len(body) != length:
            raise bad("file cut short")
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body[:13])
        elif kind == b"PLTE":
            palette = np.frombuffer(body, dtype=np.uint8).reshape(-1, 3)
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None or not chunks:
        raise bad("no image header or data")
    width, height, depth, ctype, _, _, interlace = header
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(ctype)
    if channels is None or depth not in (1, 2, 4, 8, 16) or (ctype in (2, 4, 6) and depth < 8):
        raise bad(f"colour type {ctype} with {depth}-bit samples")
    if interlace:
        raise bad("interlaced images are not read by roboio")
    if width < 1 or height < 1:
        raise bad("empty image")
    budget(width * height)
    bits = channels * depth
    stride = (width * bits + 7) // 8
    bpp = max(1, bits // 8)
    expected = height * (stride + 1)
    z = zlib.decompressobj()
    data = z.decompress(b"".join(chunks), expected)
    if len(data) != expected:
        raise bad("image data of the wrong size")
    rows = np.frombuffer(data, dtype=np.uint8).reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int64)
    for r in range(height):
        f, line = rows[r, 0], rows[r, 1:].astype(np.int64)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        elif f in (1, 3, 4):
            cur = np.zeros(stride, dtype=np.int64)
            for i in range(stride):
                left = int(cur[i - bpp]) if i >= bpp else 0
                up = int(prev[i])
                if f == 1:
                    pred = left
                elif f == 3:
                    pred = (left + up) >> 1
                else:
                    ul = int(prev[i - bpp]) if i >= bpp else 0
                    p = left + up - ul
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                    pred = left if pa <= pb and pa <= pc else (up if pb <= pc else ul)
                cur[i] = (int(line[i]) + pred) & 255
        else:
            raise bad(f"unknown row filter {f}")
        out[r] = cur
        prev = cur
    if depth < 8:
        bitsplit = np.unpackbits(out, axis=1).reshape(height, -1, depth)
        weights = 1 << np.arange(depth - 1, -1, -1)
        samples = (bitsplit * weights).sum(axis=2)[:, :width]
        if ctype == 3:
            return _palette(palette, samples, bad)[:, :, 0]
        return (samples * 255 // ((1 << depth) - 1)).astype(np.uint8)
    samples = out.reshape(height, width, channels, depth // 8)[..., 0]     # high byte first
    if ctype == 3:
        return _palette(palette, samples[:, :, 0], bad)[:, :, 0]
    return samples[:, :, 0]


def _palette(palette, index, bad):
    if palette is None or index.max(initial=0) >= len(palette):
        raise bad("palette index out of range")
    return palette[index]
