"""The Parquet dataset ``roboio batch fk`` writes: link poses along motions.

Layout (a hive-partitioned dataset directory)::

    OUT.parquet/
        source=<motion path relative to its root, URI-escaped>/
            part-00000.parquet      frames 0 .. chunk-1
            part-00001.parquet      frames chunk .. 2*chunk-1
        _roboio-batch-report.json   the report of the run (what --resume reads)

``pyarrow.dataset.dataset(OUT, partitioning="hive")`` reads it all, with the source as a
``source`` column (``pyarrow.parquet.read_table(OUT)`` does the same). Each part has the
columns ``frame`` (int64, index in the motion), ``time`` (float64, seconds) and, for every
link chosen (every link in the model's order by default), ``<link>.x``, ``<link>.y``,
``<link>.z`` (position of the link frame's origin in the world frame, metres) and
``<link>.qw``, ``<link>.qx``, ``<link>.qy``, ``<link>.qz`` (its orientation as a unit
quaternion, w >= 0), all float64. The file's key-value metadata ``roboio`` holds JSON: the
model's name (``model``) and file (``model_file``), its whole link order (``model_links``),
the links of the columns (``links``), the motion file (``motion_file``), the source
(``source``) and the frames of the part (``frames``: [start, stop)). Parts are compressed with LZ4.
"""
from __future__ import annotations

import json
from urllib.parse import quote

import numpy as np

__all__ = ["COLUMNS", "METADATA_KEY", "REPORT_NAME", "partition_dir", "part_name",
           "link_columns", "write_part"]

COLUMNS = ("x", "y", "z", "qw", "qx", "qy", "qz")
METADATA_KEY = b"roboio"
REPORT_NAME = "_roboio-batch-report.json"


def partition_dir(source_rel: str) -> str:
    """The partition directory of one source: ``source=`` and its URI-escaped relative
    path (what pyarrow's hive partitioning decodes)."""
    return "source=" + quote(source_rel, safe="")


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


def _table(start: int, times, T, names, metadata: dict):
    import pyarrow as pa
    from ..kinematics.pose_vectors import pose_vectors
    F = len(T)
    cols = {"frame": pa.array(np.arange(start, start + F, dtype=np.int64)),
            "time": pa.array(np.asarray(times, dtype=np.float64))}
    # (L, 7, F): each column one contiguous row, handed to pyarrow without another copy
    P = np.ascontiguousarray(pose_vectors(T).transpose(1, 2, 0)) if F else np.zeros((len(names), 7, 0))
    for k, name in enumerate(names):
        for a, column in enumerate(COLUMNS):
            cols[f"{name}.{column}"] = pa.array(P[k, a])
    meta = dict(metadata, links=list(names))
    return pa.table(cols).replace_schema_metadata({METADATA_KEY: json.dumps(meta).encode()})


def write_part(path: str, start: int, times, T, names, metadata: dict) -> None:
    """Write frames ``start .. start+len(T)-1`` (``T``: ``(F, L, 4, 4)`` world transforms of
    the links ``names``) as the Parquet file ``path``, atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from ..formats.fileio import atomic_write
    sink = pa.BufferOutputStream()
    # float columns gain nothing from dictionary encoding (pyarrow tries it by default: twice
    # the time); LZ4 writes ~8% less than the default snappy in half its time (zstd: 11% less
    # than LZ4, in 6x its time: the write would dominate batch fk)
    pq.write_table(_table(start, times, T, names, metadata), sink, use_dictionary=False,
                   compression="lz4")
    atomic_write(path, sink.getvalue().to_pybytes())
