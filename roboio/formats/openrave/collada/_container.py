"""The COLLADA document inside a ``.dae`` or ``.zae`` file.

A ``.dae`` is the XML document itself. A ``.zae`` is a ZIP archive whose ``manifest.xml``
(root element ``<dae_root>``) names the root document, e.g. ``./pumaarm.dae``; collada-dom
needs the manifest, roboio also accepts an archive without one that holds exactly one
``.dae`` (with a warning). Members are never extracted to disk: the root document is read
into memory, after checks that keep a hostile archive from exhausting memory (a zip bomb):

* at most :data:`MAX_MEMBERS` entries in the archive;
* the declared uncompressed size of the member is a claim against the load's
  ``max_alloc_bytes`` (checked before reading), a member above 16 MiB may not inflate more
  than :data:`MAX_RATIO` times its compressed size (real documents: about 10 times), and
  reading stops as soon as more bytes than declared come out;
* member names that are absolute or climb out of the archive (``..``) are refused.
"""
from __future__ import annotations

import io
import lzma
import posixpath
import zipfile
import zlib

from ....errors import FormatError

__all__ = ["read_document_bytes", "is_zip", "MAX_MEMBERS", "MAX_RATIO", "member_path"]

MAX_MEMBERS = 1000
MAX_RATIO = 200                 # uncompressed : compressed, above RATIO_FROM_BYTES
RATIO_FROM_BYTES = 16 << 20
_CHUNK = 1 << 20


def is_zip(data: bytes) -> bool:
    return data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06"


def member_path(archive: str, member: str) -> str:
    """How messages name a document inside an archive: ``robots/x.zae!/x.dae``."""
    return f"{archive}!/{member}"


def _safe_name(name: str) -> bool:
    if not name or name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return False
    parts = name.replace("\\", "/").split("/")
    return ".." not in parts


def _normalise(name: str) -> str:
    n = posixpath.normpath(name.strip().replace("\\", "/"))
    return "" if n == "." else n


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, path: str, ctx) -> bytes:
    ctx.check_claim("alloc_bytes", info.file_size, what=f"{path}: uncompressed size of {info.filename} in the archive")
    if info.file_size > RATIO_FROM_BYTES and info.file_size > MAX_RATIO * max(1, info.compress_size):
        raise ctx.error(f"archive member {info.filename} would inflate {info.compress_size:,} bytes to "
                        f"{info.file_size:,} (more than {MAX_RATIO}:1): refused as a zip bomb "
                        "(COLLADA documents compress about 10:1)")
    out = bytearray()
    try:
        with zf.open(info) as f:
            while True:
                chunk = f.read(_CHUNK)
                if not chunk:
                    break
                out += chunk
                if len(out) > info.file_size:
                    raise ctx.error(f"archive member {info.filename} decompresses to more than the "
                                    f"{info.file_size:,} bytes its header declares (refused: zip bomb?)")
    except FormatError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError,
            RuntimeError, ValueError, zlib.error, lzma.LZMAError) as e:
        raise ctx.error(f"cannot read {info.filename} from the archive: {e}") from None
    return bytes(out)


def _manifest_root(zf: zipfile.ZipFile, info: zipfile.ZipInfo, ctx) -> str:
    from ...xmlutil import local_name, parse_bytes
    data = _read_member(zf, info, ctx.path, ctx)
    root = parse_bytes(data, member_path(ctx.path, info.filename), ctx)
    if local_name(root) != "dae_root":
        raise ctx.error(f"manifest.xml: root element is <{local_name(root)}>, expected <dae_root>",
                        path=member_path(ctx.path, info.filename))
    name = (root.text or "").strip()
    if not name:
        raise ctx.error("manifest.xml: <dae_root> is empty", path=member_path(ctx.path, info.filename))
    return name


def read_document_bytes(data: bytes, ctx) -> tuple[bytes, str]:
    """``(document bytes, path used in messages)`` for the file ``ctx.path`` whose content is
    ``data`` (a ``.dae`` document or a ``.zae`` archive)."""
    path = ctx.path or "<data>"
    if not is_zip(data):
        return data, path
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError, ValueError,
            EOFError) as e:
        raise ctx.error(f"not a readable ZIP archive (.zae): {e}") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ctx.error(f"the archive has {len(infos):,} members, more than the {MAX_MEMBERS:,} "
                            "roboio accepts in a .zae (refused)")
        files = [i for i in infos if not i.is_dir()]
        for i in files:
            if not _safe_name(i.filename):
                raise ctx.error(f"archive member {i.filename!r} has an absolute path or leaves the "
                                "archive ('..'): refused")
        by_name = {_normalise(i.filename): i for i in files}
        manifest = by_name.get("manifest.xml")
        if manifest is not None:
            wanted = _manifest_root(zf, manifest, ctx)
            if not _safe_name(wanted):
                raise ctx.error(f"manifest.xml names {wanted!r}, an absolute path or one outside the "
                                "archive: refused")
            info = by_name.get(_normalise(wanted))
            if info is None:
                raise ctx.error(f"manifest.xml names {wanted!r}, which is not in the archive "
                                f"(members: {', '.join(sorted(by_name)) or 'none'})")
        else:
            daes = [i for n, i in by_name.items() if n.lower().endswith(".dae")]
            if not daes:
                raise ctx.error("the archive holds no .dae document (and no manifest.xml naming one)")
            if len(daes) > 1:
                raise ctx.error("the archive has no manifest.xml and several .dae documents ("
                                + ", ".join(sorted(i.filename for i in daes)) + "): which one is the root is unknown")
            info = daes[0]
            ctx.warn(f"the archive has no manifest.xml; reading its only document {info.filename} "
                     "(OpenRAVE's collada-dom would refuse this archive)", kind="read differently")
        return _read_member(zf, info, path, ctx), member_path(path, info.filename)
