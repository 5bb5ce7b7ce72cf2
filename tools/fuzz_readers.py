"""Mutation fuzzing of every reader, run by hand (not part of the test suite).

    python tools/fuzz_readers.py [--iterations 600] [--seed 0]

Copies ../shared/corpus to a temporary directory (so relative references still resolve,
and the corpus itself is never written), then repeatedly mutates a real file (deletions,
insertions of troublesome tokens, byte flips), loads it with ``roboio.load`` and counts the
outcomes. Anything but a clean load, a ``FormatError`` or ``FileNotFoundError`` — another
exception, a hang (20 s), or an error produced by ``roboio.load``'s last-resort net
("cannot read as ...") — is printed: each one is a reader bug.
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
import warnings

import roboio

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus"))
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


class Timeout(Exception):
    pass


def mutate(data: bytearray, rng: random.Random) -> bytearray:
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(data)) if data else 0
        op = rng.random()
        if op < 0.3 and data:
            del data[i:i + rng.randint(1, 50)]
        elif op < 0.6:
            data[i:i] = rng.choice(TOKENS)
        elif data:
            data[i] = rng.randrange(256)
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=600)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if not os.path.isdir(CORPUS):
        sys.exit(f"corpus not found at {CORPUS}")
    warnings.simplefilter("ignore")
    rng = random.Random(args.seed)
    stats = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "corpus")
        shutil.copytree(CORPUS, root)
        files = [f for p in PATTERNS for f in glob.glob(os.path.join(root, p))
                 if os.path.getsize(f) < 300_000]

        def alarm(*_):
            raise Timeout()
        signal.signal(signal.SIGALRM, alarm)
        for _ in range(args.iterations):
            src = rng.choice(files)
            with open(src, "rb") as f:
                data = mutate(bytearray(f.read()), rng)
            out = os.path.join(os.path.dirname(src), "_fuzz_" + os.path.basename(src))
            with open(out, "wb") as f:
                f.write(data)
            signal.alarm(20)
            try:
                roboio.load(out)
                stats["loaded"] += 1
            except roboio.FormatError as e:
                if "cannot read as" in str(e):
                    stats["BUG: last-resort net"] += 1
                    print(f"net: {e}")
                else:
                    stats["FormatError with line/byte" if re.search(r":\d+|byte \d+", str(e))
                          else "FormatError without position"] += 1
            except FileNotFoundError:
                stats["FileNotFoundError"] += 1
            except Timeout:
                stats["BUG: hang"] += 1
                print(f"hang: {src}")
            except Exception as e:  # noqa: BLE001 - this is what the fuzzer looks for
                stats["BUG: other exception"] += 1
                print(f"{type(e).__name__}: {src}: {e}")
            finally:
                signal.alarm(0)
                os.unlink(out)
    for k, v in sorted(stats.items()):
        print(f"{k:32s} {v}")


if __name__ == "__main__":
    main()
