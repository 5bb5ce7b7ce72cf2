"""Mutation fuzzing of every reader: a load of a damaged file must succeed or raise a
:class:`roboio.FormatError` (a ``FileNotFoundError`` for a reference that became a missing
top-level file) -- any other exception, or no answer within 20 s, is a reader bug.

    python tools/fuzz_readers.py [--iterations 600] [--seed 0]          # corpus files
    python tools/fuzz_readers.py --samples [--iterations 2000] [--format off] [--out DIR]

The default source copies ``../shared/corpus`` to a temporary directory (so relative
references still resolve and the corpus is never written) and mutates real files;
``--samples`` mutates one small valid file of every readable format instead (shipped
samples and files written by roboio's writers, from ``tests/format_samples.py``).
Mutations: byte flips, insertions of troublesome tokens, deleted, repeated or truncated
spans, dropped or repeated lines, numbers replaced by extreme or malformed ones.
``tests/unit/test_fuzz_readers.py`` runs a small fixed budget of ``--samples`` in the suite.
"""
import argparse
import collections
import glob
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)               # this checkout's roboio

import roboio  # noqa: E402
from roboio.model import Group, Robot, TriangleMesh, World  # noqa: E402

CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
PATTERNS = [
    "klampt/robots/*.rob", "klampt/robots/*.urdf", "klampt/*.xml", "klampt/motions/*",
    "klampt/objects/*.obj", "klampt/objects/*.geom", "klampt/terrains/*.env", "klampt/terrains/*.off",
    "klampt/resources/hubo_stair_climb/*", "klampt/objects/urdf_primitives/*.tri",
    "choreonoid/share/model/*/*.body", "choreonoid/sample/PoseSeq/*.pseq",
    "choreonoid/share/model/GR001/parts/*.stl", "choreonoid/share/model/HRP4C/*/*.obj",
    "choreonoid/share/model/PA10/*/*.wrl", "graspit/models/objects/*.iv",
]
TOKENS = [b"x", b"-1", b"1e999", b'"', b"<", b">", b"{", b"}", b"[", b"\\\n", b"nan",
          b"999999999", b"\x00", b" 0 ", b"&", b"- ", b": "]
NUMBERS = [b"0", b"-1", b"1e308", b"-1e308", b"1e-320", b"nan", b"inf", b"-inf", b"2147483648",
           b"99999999999", b"1.5.5", b"--3", b"0x1f", b"", b"abc", b"3e", b"1,5"]
_NUMBER = re.compile(rb"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to four random damages of ``data``."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not data:
            data[:] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
            continue
        i = rng.randrange(len(data))
        op = rng.randrange(8)
        if op == 0:
            del data[i:i + rng.randint(1, 50)]
        elif op == 1:
            data[i:i] = rng.choice(TOKENS)
        elif op == 2:
            data[i] = rng.randrange(256)
        elif op == 3:
            del data[i:]
        elif op == 4:
            j = min(len(data), i + rng.randint(1, 64))
            data[j:j] = data[i:j] * rng.randint(1, 3)
        elif op in (5, 6):
            nums = list(_NUMBER.finditer(data))
            if nums:
                m = rng.choice(nums)
                data[m.start():m.end()] = rng.choice(NUMBERS)
        else:
            lines = bytes(data).split(b"\n")
            k = rng.randrange(len(lines))
            if rng.random() < 0.5:
                del lines[k]
            else:
                lines.insert(k, lines[k])
            data[:] = b"\n".join(lines)
    return bytes(data)


def _touch(obj) -> None:
    """What a user does next: read lazily loaded meshes, compute the robots' kinematics."""
    def geoms(o):
        if isinstance(o, World):
            for r in o.robots:
                yield from geoms(r)
            for e in o.rigid_objects + o.terrains:
                yield e.geometry
        elif isinstance(o, Robot):
            for link in o.links:
                yield link.geometry
        else:
            yield getattr(o, "geometry", o)

    def meshes(g):
        if isinstance(g, TriangleMesh):
            yield g
        elif isinstance(g, Group):
            for c in g.children:
                yield from meshes(c)

    for g in geoms(obj):
        for m in meshes(g):
            if not m.missing:
                m.load()
    for r in ([obj] if isinstance(obj, Robot) else obj.robots if isinstance(obj, World) else []):
        r.fk()


class Timeout(Exception):
    pass


def check(path: str, fmt=None, seconds: int = 20):
    """Load ``path`` (as ``fmt``) and use it. Returns ``(outcome, detail)``: outcome
    ``"loaded"``, ``"FormatError"`` or ``"FileNotFoundError"`` when all is well, ``"BUG"``
    otherwise, with the traceback or the reason as detail."""
    def alarm(*_):
        raise Timeout(f"no answer after {seconds} s")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _touch(roboio.load(path, fmt))
        return "loaded", None
    except roboio.FormatError as e:
        return "FormatError", str(e)
    except FileNotFoundError as e:
        return "FileNotFoundError", str(e)
    except Exception:  # noqa: BLE001 - this is what the fuzzer looks for
        return "BUG", traceback.format_exc()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def fuzz_file(src: str, fmt, iterations: int, rng: random.Random, out_dir=None) -> list:
    """Mutate ``src`` ``iterations`` times (the damaged copy sits next to it, so relative
    references resolve); returns ``(kept file or None, detail)`` for every bug."""
    with open(src, "rb") as f:
        original = f.read()
    target = os.path.join(os.path.dirname(src), "_fuzz_" + os.path.basename(src))
    bugs = []
    try:
        for k in range(iterations):
            with open(target, "wb") as f:
                f.write(mutate(original, rng))
            outcome, detail = check(target, fmt)
            if outcome == "BUG":
                kept = None
                if out_dir:
                    os.makedirs(out_dir, exist_ok=True)
                    kept = os.path.join(out_dir, f"{fmt or 'auto'}-{k}-{os.path.basename(src)}")
                    shutil.copy(target, kept)
                bugs.append((kept, detail))
    finally:
        if os.path.exists(target):
            os.unlink(target)
    return bugs


def _corpus(args):
    if not os.path.isdir(CORPUS):
        sys.exit(f"corpus not found at {CORPUS}")
    rng = random.Random(args.seed)
    stats = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "corpus")
        shutil.copytree(CORPUS, root)
        files = [f for p in PATTERNS for f in glob.glob(os.path.join(root, p))
                 if os.path.getsize(f) < 300_000]
        for _ in range(args.iterations):
            src = rng.choice(files)
            for kept, detail in fuzz_file(src, None, 1, rng, args.out):
                stats["BUG"] += 1
                print(f"{os.path.relpath(src, root)}: {detail.strip().splitlines()[-1]}"
                      + (f" (kept as {kept})" if kept else ""))
            stats["files mutated"] += 1
    return stats


def sample(fmt: str, work: str):
    """A small valid file of format ``fmt`` inside the directory ``work`` (a shipped sample is
    copied there with its folder, so that the fuzzer never writes next to the original), or
    None when tests/format_samples.py has none."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from format_samples import sample_file
    src = sample_file(fmt, work)
    if src is not None and os.path.dirname(os.path.abspath(src)) != os.path.abspath(work):
        copy = os.path.join(work, "sample")
        shutil.copytree(os.path.dirname(src), copy)
        src = os.path.join(copy, os.path.basename(src))
    return src


def _samples(args):
    stats = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for info in roboio.formats():
            if not info.can_read or (args.format and info.name not in args.format):
                continue
            src = sample(info.name, os.path.join(tmp, info.name))
            if src is None:
                print(f"{info.name}: no sample file")
                continue
            bugs = fuzz_file(src, info.name, args.iterations, random.Random(f"{args.seed}/{info.name}"),
                             args.out)
            stats["BUG"] += len(bugs)
            stats["files mutated"] += args.iterations
            print(f"{info.name}: {args.iterations} mutations, {len(bugs)} bug(s)")
            for kept, detail in bugs[:3]:
                print(f"  {detail.strip().splitlines()[-1]}" + (f" (kept as {kept})" if kept else ""))
    return stats


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=600,
                    help="mutated files (with --samples: per format)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--samples", action="store_true",
                    help="mutate one small file per format instead of corpus files")
    ap.add_argument("--format", action="append", help="with --samples: only this format (repeatable)")
    ap.add_argument("--out", help="keep the files that showed a bug in this directory")
    args = ap.parse_args(argv)
    stats = _samples(args) if args.samples else _corpus(args)
    for k, v in sorted(stats.items()):
        print(f"{k:16s} {v}")
    return 1 if stats["BUG"] else 0


if __name__ == "__main__":
    sys.exit(main())
