"""Reading a ``.dae``/``.zae`` file into the COLLADA body records."""
from __future__ import annotations

from ...xmlutil import parse_bytes
from ._body import CBody
from ._container import read_document_bytes
from ._dom import Document
from ._reader import ColladaReader, ReadOptions

__all__ = ["read_body"]


def read_body(data: bytes, ctx, body: CBody | None = None, attributes=None, as_robot: bool = True,
              fragment: str = "") -> CBody:
    """Read the COLLADA file ``ctx.path`` (content ``data``) into ``body`` (new when None)."""
    opts = ReadOptions(attributes)
    if opts.scale_geometry is None:
        raise ctx.error(f"scalegeometry={opts.raw.get('scalegeometry')!r}: not a number")
    doc_bytes, doc_path = read_document_bytes(data, ctx)
    root = parse_bytes(doc_bytes, doc_path, ctx, large_text=True)
    # its size, for a file included again (OpenRAVE XML charges the repeat as copies)
    ctx.cache[("collada-elements", ctx.path)] = sum(1 for _ in root.iter())
    doc = Document(root, doc_path, ctx, geom_scale=opts.scale_geometry)
    return ColladaReader(doc, opts).read(body, as_robot=as_robot, fragment=fragment)
