"""The Parquet dataset ``roboio batch fk`` writes: link poses along motions.

Layout (a hive-partitioned dataset directory)::

    OUT.parquet/
        source=<motion path relative to its root, URI-escaped (cut + ~hash past 255 bytes)>/
            part-00000.parquet      frames 0 .. chunk-1
            part-00001.parquet      frames chunk .. 2*chunk-1
        _roboio-batch-report.json   the report of the run (what --resume reads)

``pyarrow.dataset.dataset(OUT, partitioning="hive")`` reads it all, with the source as a
``source`` column (``pyarrow.parquet.read_table(OUT)`` does the same). Each part has the
columns ``frame`` (int64, index in the motion), ``time`` (float64, seconds) and, for every
link chosen (every link in the model's order by default), ``<link>.x``, ``<link>.y``,
``<link>.z`` (position of the link frame's origin in the world frame, metres) and
``<link>.qw``, ``<link>.qx``, ``<link>.qy``, ``<link>.qz`` (its orientation as a unit
quaternion, w >= 0), all float64; no column holds nulls (the schema says so:
``nullable=False``). The file's key-value metadata ``roboio`` holds JSON: the
model's name (``model``) and file (``model_file``), its whole link order (``model_links``),
the links of the columns (``links``), the motion file (``motion_file``), the source
(``source``) and the frames of the part (``frames``: [start, stop)). Parts are compressed with Snappy
(Parquet's default codec: every reader has it).
"""
from __future__ import annotations

import hashlib
import json
from urllib.parse import quote

import numpy as np

__all__ = ["COLUMNS", "METADATA_KEY", "REPORT_NAME", "partition_dir", "part_name",
           "link_columns", "write_part"]

COLUMNS = ("x", "y", "z", "qw", "qx", "qy", "qz")
METADATA_KEY = b"roboio"
REPORT_NAME = "_roboio-batch-report.json"


#: Snappy, Parquet's default: every reader has it (pyarrow's "lz4" is LZ4_RAW, which older
#: Parquet readers do not read). An SR1 walk: 1,265 B/frame (LZ4 1,160, none 1,983), written
#: at LZ4's speed (batch fk on 1 worker, 3 interleaved runs each: 1.50-1.58 s of worker CPU
#: against 1.54-1.63); zstd writes 9% less in twice the time.
COMPRESSION = "snappy"

#: the longest file name most file systems take (bytes)
MAX_NAME = 255


def partition_dir(source_rel: str) -> str:
    """The partition directory of one source: ``source=`` and its URI-escaped relative
    path (what pyarrow's hive partitioning decodes). A name longer than :data:`MAX_NAME`
    bytes (a deep path, or a few dozen non-ASCII characters: each byte escapes to three) is
    cut, between characters, and ends with ``~`` and 16 hex digits of the path's
    SHA-256, so that two sources never share a partition; the part files' metadata still
    hold the whole path (``source``)."""
    name = "source=" + quote(source_rel, safe="", errors="surrogateescape")
    if len(name) <= MAX_NAME:                  # quote() gives ASCII: characters are bytes
        return name
    digest = hashlib.sha256(source_rel.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    room, head = MAX_NAME - len("source=") - 17, []
    for ch in source_rel:                      # whole characters: the name must decode
        q = quote(ch, safe="", errors="surrogateescape")
        if len(q) > room:
            break
        head.append(q)
        room -= len(q)
    return f"source={''.join(head)}~{digest}"


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def link_columns(robot, links=None) -> list:
    """``[(link index, column prefix)]`` for ``links`` (names or indices; None: every link
    in the model's order). A name that two links share gets ``[index]`` appended."""
    if links is None:
        chosen = list(range(robot.num_links))
    else:
        chosen, names = [], robot.link_names
        for k in links:
            if isinstance(k, str) and k not in names and k.lstrip("-").isdigit():
                k = int(k)            # an index, unless a link has that name
            try:
                chosen.append(robot.link_index(k))
            except (KeyError, IndexError):
                raise ValueError(f"--links: the model {robot.name!r} has no link {k!r}") from None
    names = robot.link_names
    shared = {n for n in names if names.count(n) > 1} if len(set(names)) < len(names) else set()
    return [(i, f"{names[i]}[{i}]" if names[i] in shared else names[i]) for i in chosen]


def _table(start: int, times, P, names, metadata: dict):
    import pyarrow as pa
    F = P.shape[2]
    arrays = [np.arange(start, start + F, dtype=np.int64), np.asarray(times, dtype=np.float64)]
    fields = [("frame", pa.int64()), ("time", pa.float64())]
    for k, name in enumerate(names):
        for a, column in enumerate(COLUMNS):
            arrays.append(P[k, a])          # a contiguous row: handed to arrow without a copy
            fields.append((f"{name}.{column}", pa.float64()))
    # never null: a required column is written without definition levels (faster)
    schema = pa.schema([pa.field(n, t, nullable=False) for n, t in fields],
                       metadata={METADATA_KEY: json.dumps(dict(metadata, links=list(names))).encode()})
    return pa.Table.from_arrays([pa.array(a) for a in arrays], schema=schema)


def write_part(path: str, start: int, times, P, names, metadata: dict) -> None:
    """Write frames ``start .. start+F-1`` as the Parquet file ``path``, atomically: ``P``
    ``(L, 7, F)`` the pose columns of the links ``names``
    (:func:`~roboio.kinematics.pose_vectors.pose_columns`), ``times`` (F,) seconds."""
    import pyarrow.parquet as pq
    from ..formats.fileio import atomic_write
    P = np.ascontiguousarray(P, dtype=np.float64)
    table = _table(start, times, P, names, metadata)

    def write(f):
        # float columns gain nothing from dictionary encoding (pyarrow tries it by default:
        # twice the time); statistics (min/max) for frame and time only: what a reader
        # filters parts by. Written straight into the file: encoding the part into a memory
        # buffer first was faster in a test loop but slower in a worker (1 worker, 48
        # walks: 1.8-2.1 s of worker CPU against 1.5-1.6), where the buffer's pages are
        # fresh for every part.
        pq.write_table(table, f, use_dictionary=False, compression=COMPRESSION,
                       write_statistics=["frame", "time"])
    atomic_write(path, write)
