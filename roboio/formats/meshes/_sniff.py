"""Content tests of the mesh formats (cheap: standard library only, no parser imported).

Each ``sniff_<format>(head, path)`` gets the first bytes of a file (see
:data:`roboio.formats.registry.HEAD_BYTES`) and says whether they look like that format.
The Inventor/VRML header recognition lives here too, shared with the Inventor reader.
"""
from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass

__all__ = ["sniff_off", "sniff_stl", "sniff_ply", "sniff_wavefront", "sniff_pcd", "sniff_inventor",
           "sniff_collada", "sniff_gltf", "looks_like_wavefront", "stl_looks_ascii",
           "InventorHeader", "read_inventor_header", "inventor_header_of", "VRML_EXTENSIONS",
           "WAVEFRONT_IGNORED"]

VRML_EXTENSIONS = (".wrl", ".wrl.or", ".vrml")


def _strip_bom(data: bytes) -> bytes:
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def sniff_off(head: bytes, path: str) -> bool:
    head = _strip_bom(head).lstrip()
    return head.startswith(b"OFF") and (len(head) == 3 or head[3:4].isspace())


def stl_looks_ascii(head: bytes) -> bool:
    return head.lstrip()[:5].lower() == b"solid"


def sniff_stl(head: bytes, path: str) -> bool:
    if stl_looks_ascii(head):
        return b"facet" in head or b"endsolid" in head
    try:
        size = os.path.getsize(path)
    except OSError:
        return False
    return len(head) >= 84 and 84 + 50 * struct.unpack_from("<I", head, 80)[0] == size


def sniff_ply(head: bytes, path: str) -> bool:
    return head.startswith(b"ply") and b"format" in head[:200]


# statements of the OBJ grammar that carry no triangle data
WAVEFRONT_IGNORED = {b"vt", b"vn", b"vp", b"s", b"l", b"p", b"#", b"cstype", b"deg", b"bmat",
                     b"step", b"curv", b"curv2", b"surf", b"parm", b"trim", b"hole", b"scrv",
                     b"sp", b"end", b"con", b"mg", b"lod", b"shadow_obj", b"trace_obj", b"ctech",
                     b"stech", b"bevel", b"c_interp", b"d_interp"}
_WAVEFRONT_WORDS = WAVEFRONT_IGNORED | {b"v", b"f", b"o", b"g", b"mtllib", b"usemtl"}


def looks_like_wavefront(head: bytes) -> bool:
    """True when every complete line of ``head`` is a Wavefront statement or comment and at
    least one is a vertex or face (a Klamp't rigid-object file has ``mesh``, ``T``, ``mass``)."""
    lines = head.split(b"\n")
    if len(head) >= 4096:
        lines = lines[:-1]              # the last line may be cut
    data = False
    for line in lines:
        w = line.split(None, 1)
        if not w or w[0].startswith(b"#"):
            continue
        if w[0] not in _WAVEFRONT_WORDS:
            return False
        data = data or w[0] in (b"v", b"f", b"o", b"g", b"mtllib")
    return data


def sniff_wavefront(head: bytes, path: str) -> bool:
    return looks_like_wavefront(head)


def sniff_pcd(head: bytes, path: str) -> bool:
    text = head.decode("latin-1")
    lines = [l.split("#", 1)[0].split() for l in text.splitlines()]
    words = [l[0] for l in lines if l]
    return bool(words) and words[0] in ("VERSION", "FIELDS") and "FIELDS" in words


def sniff_collada(head: bytes, path: str) -> bool:
    return b"<COLLADA" in head


def sniff_gltf(head: bytes, path: str) -> bool:
    return head[:4] == b"glTF" or (b'"asset"' in head and b'"version"' in head)


# -- Open Inventor / VRML -----------------------------------------------------------------

_HEADER_RE = re.compile(r"#(Inventor|VRML) V(\d+\.\d+) +(\w+)")


@dataclass(frozen=True)
class InventorHeader:
    """What the first line says: ``dialect`` is ``inventor``, ``vrml1`` or ``vrml2``."""

    dialect: str
    version: float
    encoding: str        # ascii / binary / utf8
    text: str            # the header as written ("" when the file has none)


def read_inventor_header(head: str):
    """The :class:`InventorHeader` of a file starting with ``head``, or None without one."""
    m = _HEADER_RE.match(head.lstrip("\ufeff"))
    if not m:
        return None
    kind, version, enc = m.group(1), float(m.group(2)), m.group(3).lower()
    if kind == "Inventor":
        dialect = "inventor"
    else:
        dialect = "vrml1" if version < 2.0 else "vrml2"
    return InventorHeader(dialect, version, enc, m.group(0))


def inventor_header_of(data: bytes, path):
    """(InventorHeader, None) for a readable file starting with ``data``, else (None, what
    is wrong)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    first = data.split(b"\n", 1)[0].decode("latin-1").rstrip("\r")
    header = read_inventor_header(first)
    if header is not None:
        if header.dialect != "inventor" and header.version not in (1.0, 2.0):
            return None, f"unsupported VRML version in header {first!r}"
        if header.encoding not in ("ascii", "binary", "utf8"):
            return None, f"unsupported encoding in header {first!r}"
        if header.dialect != "inventor" and header.encoding == "binary":
            return None, f"binary VRML is not supported ({first!r})"
        return header, None
    if first.startswith("#Inventor") or first.startswith("#VRML") or first.startswith("#X3D"):
        return None, f"unsupported header {first!r} (expected '#Inventor V2.1 ascii', " \
                     "'#VRML V1.0 ascii' or '#VRML V2.0 utf8')"
    if path and path.lower().endswith(VRML_EXTENSIONS):
        return InventorHeader("vrml2", 2.0, "utf8", ""), None
    return None, ("not an Open Inventor file: the first line must be a header such as "
                  "'#Inventor V2.1 ascii' or '#VRML V2.0 utf8'")


def sniff_inventor(head: bytes, path: str) -> bool:
    header, _ = inventor_header_of(head, path)
    if header is None:
        return False
    if header.text:
        return True
    # headerless VRML 2.0: accept text whose first statement looks like a node
    text = head.decode("latin-1").lstrip("\ufeff\r\n\t ,")
    while text.startswith("#"):
        text = text.split("\n", 1)[1].lstrip("\r\n\t ,") if "\n" in text else ""
    word = text.split(None, 1)[0] if text.split() else ""
    return word in ("DEF", "Transform", "Group", "Shape", "Collision", "Switch", "Inline",
                    "Anchor", "Billboard", "LOD", "PROTO", "WorldInfo", "Viewpoint",
                    "NavigationInfo", "Background")
