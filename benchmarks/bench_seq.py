"""Choreonoid .seq speed: roboio vs PyYAML's libyaml loader/dumper, in one run.

    python benchmarks/bench_seq.py [FILE.seq ...] [--repeat N]

Default files: ../shared/corpus/choreonoid/sample/SimpleController/SR1WalkPattern{1,2,3}.seq.

Reading: ``roboio.load(path)`` (header, frames, model) against
``yaml.load(text, Loader=yaml.CSafeLoader)`` followed by ``np.array(frames, float)`` for every
component (file reading included in both). The arrays must be bit-identical.
Writing: ``roboio.save(motion, tmp)`` against ``yaml.dump(data, file, Dumper=yaml.CSafeDumper,
default_flow_style=None)`` (one flow list per frame, like Choreonoid) of the same data.
Frame parsers: ``roboio.load(path)`` with the compiled frame parser (the ``_seq_c``
extension) against the numpy path (``ROBOIO_SEQ_PARSER=numpy``), per frame; the motions must
be bit-identical.
Each timing is the best of ``--repeat`` runs (the machine may be shared); ratios use the sums
over all files.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import roboio  # noqa: E402
from roboio.formats.choreonoid import _seq_fast  # noqa: E402

DEFAULT = [os.path.join(ROOT, "..", "shared", "corpus", "choreonoid", "sample", "SimpleController",
                        f"SR1WalkPattern{i}.seq") for i in (1, 2, 3)]


def best(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def pyyaml_read(path):
    with open(path, encoding="utf-8") as f:
        d = yaml.load(f.read(), Loader=yaml.CSafeLoader)
    return d, [np.array(c["frames"], dtype=float) for c in d["components"]]


def pyyaml_write(d, path):
    with open(path, "w", encoding="utf-8") as f:
        yaml.dump(d, f, Dumper=yaml.CSafeDumper, default_flow_style=None)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", default=DEFAULT)
    ap.add_argument("--repeat", type=int, default=5, help="runs per measurement (best is kept)")
    args = ap.parse_args(argv)
    if not hasattr(yaml, "CSafeLoader"):
        sys.exit("PyYAML was built without libyaml: the baseline would not be CSafeLoader")
    roboio.load(args.files[0])                        # import every format module once
    tmp = tempfile.mkdtemp()
    rows = []
    tot = np.zeros(4)
    for path in args.files:
        name = os.path.basename(path)
        size = os.path.getsize(path)
        t_base, (data, ref) = best(lambda: pyyaml_read(path), max(1, args.repeat // 2))
        t_ours, motion = best(lambda: roboio.load(path), args.repeat)
        same = len(ref) == len(motion.components) and all(
            r.shape == c.data.reshape(len(r), -1).shape
            and np.array_equal(r.view(np.int64), c.data.reshape(len(r), -1).view(np.int64))
            for r, c in zip(ref, motion.components))
        out_y = os.path.join(tmp, "pyyaml.seq")
        out_r = os.path.join(tmp, "roboio.seq")
        w_base, _ = best(lambda: pyyaml_write(data, out_y), max(1, args.repeat // 2))
        w_ours, _ = best(lambda: roboio.save(motion, out_r), args.repeat)
        back = roboio.load(out_r)
        round_trip = all(np.array_equal(a.data.view(np.int64), b.data.view(np.int64))
                         for a, b in zip(motion.components, back.components))
        rows.append((name, size, t_base, t_ours, w_base, w_ours, same, round_trip))
        tot += (t_base, t_ours, w_base, w_ours)
    print(f"{'file':22s} {'MB':>5s} {'read yaml':>10s} {'roboio':>8s} {'ratio':>6s}  "
          f"{'write yaml':>10s} {'roboio':>8s} {'ratio':>6s}  identical round-trip")
    for name, size, tb, to, wb, wo, same, rt in rows:
        print(f"{name:22s} {size / 1e6:5.2f} {tb * 1e3:9.1f}ms {to * 1e3:7.1f}ms {tb / to:5.1f}x  "
              f"{wb * 1e3:9.1f}ms {wo * 1e3:7.1f}ms {wb / wo:5.1f}x  {str(same):9s} {rt}")
    print(f"{'total':28s} {tot[0] * 1e3:9.1f}ms {tot[1] * 1e3:7.1f}ms {tot[0] / tot[1]:5.1f}x  "
          f"{tot[2] * 1e3:9.1f}ms {tot[3] * 1e3:7.1f}ms {tot[2] / tot[3]:5.1f}x")
    ok = all(r[6] and r[7] for r in rows)
    print("bit-identical to PyYAML and through write -> read:", "yes" if ok else "NO")
    if "compiled" in _seq_fast.available_parsers():
        ok &= compare_parsers(args.files, args.repeat)
    else:
        print("\nthe compiled frame parser is not built: no comparison of the parsers")
    return 0 if ok else 1


def load_with(parser, path):
    previous = _seq_fast.set_parser(parser)
    try:
        return roboio.load(path)
    finally:
        _seq_fast.set_parser(previous)


def same_bits(a, b):
    return len(a.components) == len(b.components) and all(
        (x.data is None and y.data is None) or np.array_equal(
            np.asarray(x.data).view(np.int64), np.asarray(y.data).view(np.int64))
        for x, y in zip(a.components, b.components))


def compare_parsers(files, repeat):
    """roboio.load with the compiled frame parser against the numpy path, per frame."""
    print(f"\n{'load, per frame':22s} {'frames':>7s} {'numpy':>10s} {'compiled':>10s} {'ratio':>6s}  "
          "identical")
    tot = np.zeros(3)
    ok = True
    for path in files:
        t_np, m_np = best(lambda: load_with("numpy", path), repeat)
        t_c, m_c = best(lambda: load_with("compiled", path), repeat)
        frames = m_c.num_frames
        same = same_bits(m_np, m_c)
        ok &= same
        tot += (frames, t_np, t_c)
        print(f"{os.path.basename(path):22s} {frames:7d} {t_np / frames * 1e6:7.2f} us {t_c / frames * 1e6:7.2f} us "
              f"{t_np / t_c:5.1f}x  {same}")
    print(f"{'total':22s} {int(tot[0]):7d} {tot[1] / tot[0] * 1e6:7.2f} us {tot[2] / tot[0] * 1e6:7.2f} us "
          f"{tot[1] / tot[2]:5.1f}x")
    return ok


if __name__ == "__main__":
    sys.exit(main())
