"""Inventor / VRML reading speed over every .iv/.wrl/.wrl.or file of the corpus.

    python benchmarks/bench_inventor.py [FILE_OR_DIR ...] [--repeat N] [--slowest K]

Default: every ``*.iv``, ``*.IV``, ``*.wrl``, ``*.wrl.or`` under ../shared/corpus/{graspit,
openrave, choreonoid}. Each file is parsed and triangulated from scratch (new LoadContext, so
no cache is shared between files; included files are read as part of their includer) and
each timing is the best of ``--repeat`` runs (the machine may be shared). Prints total MB,
seconds, MB/s, triangles/s, the throughput per dialect and the slowest files.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import time
import warnings
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from roboio.errors import FormatError  # noqa: E402
from roboio.context import LoadContext  # noqa: E402
from roboio.formats.meshes.inventor import file_header, mesh_data  # noqa: E402

CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
PATTERNS = ("*.iv", "*.IV", "*.wrl", "*.wrl.or", "*.vrml")


def find_files(args):
    roots = args or [os.path.join(CORPUS, d) for d in ("graspit", "openrave", "choreonoid")]
    files = []
    for r in roots:
        if os.path.isfile(r):
            files.append(r)
            continue
        for pat in PATTERNS:
            files += glob.glob(os.path.join(r, "**", pat), recursive=True)
    return sorted(set(files))


def time_one(path, repeat):
    best, tris, err = float("inf"), 0, None
    for _ in range(repeat):
        t = time.perf_counter()
        try:
            tris = len(mesh_data(path, LoadContext(path))["faces"])
        except FormatError as e:
            err = str(e)
        best = min(best, time.perf_counter() - t)
    return best, tris, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--slowest", type=int, default=8)
    a = ap.parse_args()
    files = find_files(a.paths)
    if not files:
        sys.exit("no Inventor/VRML files found")
    warnings.simplefilter("ignore")
    rows = []
    for p in files:
        secs, tris, err = time_one(p, a.repeat)
        try:
            h = file_header(p)
            dialect = h.text.split(" ", 1)[1] if h.text else "VRML V2.0 (no header)"
        except FormatError:
            dialect = "?"
        rows.append((secs, p, os.path.getsize(p), tris, dialect, err))
    total_s = sum(r[0] for r in rows)
    total_mb = sum(r[2] for r in rows) / 1e6
    total_tri = sum(r[3] for r in rows)
    print(f"files: {len(rows)}   total: {total_mb:.2f} MB   {total_tri} triangles")
    print(f"time:  {total_s:.3f} s   {total_mb / total_s:.1f} MB/s   "
          f"{total_tri / total_s / 1e6:.2f} M triangles/s   (best of {a.repeat} per file)")
    by = defaultdict(lambda: [0, 0.0, 0, 0])
    for secs, _, size, tris, dialect, _ in rows:
        b = by[dialect]
        b[0] += 1
        b[1] += secs
        b[2] += size
        b[3] += tris
    print("\nby dialect:")
    for d, (n, s, size, tris) in sorted(by.items(), key=lambda kv: -kv[1][2]):
        print(f"  {d:28s} {n:4d} files {size / 1e6:8.2f} MB {s:7.3f} s {size / 1e6 / s:6.1f} MB/s "
              f"{tris:8d} triangles")
    print(f"\nslowest {a.slowest}:")
    for secs, p, size, tris, dialect, _ in sorted(rows, reverse=True)[:a.slowest]:
        print(f"  {secs * 1000:8.1f} ms {size / 1e6:6.2f} MB {size / 1e6 / secs:6.1f} MB/s {tris:7d} tri  "
              f"{os.path.relpath(p, CORPUS)}")
    errors = [(p, e) for _, p, _, _, _, e in rows if e]
    if errors:
        print(f"\n{len(errors)} files failed:")
        for p, e in errors:
            print("  ", e)


if __name__ == "__main__":
    main()
