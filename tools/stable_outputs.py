"""Writer outputs that do not depend on the machine: the same robots written by every writer
under several OpenBLAS kernels (``OPENBLAS_CORETYPE``) and both kinematics backends
(``ROBOIO_KINEMATICS=numpy``) must give the same bytes, and write -> read -> write must give
the same bytes under each of them.

Each variant runs in a subprocess of its own (the BLAS kernel is chosen when numpy loads);
outputs (with their mesh files) go into ``OUT/<variant>/<robot>/<writer>/``, and the tool
compares every file of every variant with the first one. It prints one line per robot and
writer that differs (the variants and the first differing line) and one line per unstable
rewrite, then the counts.

Usage: ``python tools/stable_outputs.py [--variants default,Haswell,SandyBridge,Prescott,Zen,
SkylakeX,numpy] [--writers a,b] [--out DIR] [ROBOT ...]`` (default robots: the corpus robots
of :mod:`conversion_matrix` and its OpenRAVE environments). Environment variables are set
for the subprocesses only.
"""
from __future__ import annotations

import argparse
import difflib
import glob
import json
import os
import subprocess
import sys
import tempfile
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tools")]

WRITERS = {"klampt-rob": "r.rob", "urdf": "r.urdf", "choreonoid-body": "r.body",
           "openrave": "r.robot.xml", "collada-robot": "r.dae", "graspit": "r.xml",
           "mjcf": "r.xml", "klampt-world": "w.xml"}
WORLD_WRITERS = {"openrave": "w.env.xml", "klampt-world": "w.xml", "mjcf": "w.xml"}
VARIANTS = ("default", "Haswell", "SandyBridge", "Prescott", "Zen", "SkylakeX", "numpy")


def default_inputs() -> list:
    import conversion_matrix as cm
    worlds = sorted(glob.glob(os.path.join(cm.CORPUS, "openrave/src/data/*.env.xml")))
    return cm.corpus_robots() + worlds


def variant_env(variant: str) -> dict:
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("ROBOIO_KINEMATICS", None)
    if variant == "numpy":
        env["ROBOIO_KINEMATICS"] = "numpy"
    elif variant != "default":
        env["OPENBLAS_CORETYPE"] = variant
    return env


def _search_paths(path: str) -> list:
    """The OpenRAVE data directory for the corpus environments (robots/..., objects/...)."""
    i = path.find(os.sep + "openrave" + os.sep + "src" + os.sep)
    return [path[:i] + os.sep + os.path.join("openrave", "src")] if i >= 0 else []


def worker(out: str, inputs: list, writers: list) -> None:
    """Write every input with every writer into ``out``; print one JSON line per pair."""
    import roboio
    warnings.simplefilter("ignore")
    for k, src in enumerate(inputs):
        try:
            obj = roboio.load(src, search_paths=_search_paths(src))
        except Exception as e:  # noqa: BLE001  (a file roboio refuses is not this tool's matter)
            print(json.dumps({"src": src, "skip": str(e)[:100]}), flush=True)
            continue
        is_world = isinstance(obj, roboio.World) and src.endswith(".env.xml")
        if isinstance(obj, roboio.World) and not is_world:
            if not obj.robots:
                continue
            obj = obj.robots[0]
        table = WORLD_WRITERS if is_world else WRITERS
        for fmt in writers:
            if fmt not in table:
                continue
            d = os.path.join(out, f"{k:03d}", fmt)
            os.makedirs(d, exist_ok=True)
            p1 = os.path.join(d, table[fmt])
            res = {"src": src, "fmt": fmt, "dir": os.path.relpath(d, out)}
            try:
                roboio.save(obj, p1, format=fmt)
                first = open(p1, "rb").read()
                roboio.save(roboio.load(p1, format=fmt), p1, format=fmt, overwrite_input=True)
                again = open(p1, "rb").read()
                res["stable"] = again == first
                if again != first:
                    res["diff"] = _first_diff(first, again)
                    with open(p1 + ".first", "wb") as f:
                        f.write(first)
            except Exception as e:  # noqa: BLE001
                res["error"] = f"{type(e).__name__}: {str(e)[:160]}"
            print(json.dumps(res), flush=True)


def _first_diff(a: bytes, b: bytes) -> str:
    la, lb = a.decode("utf-8", "replace").splitlines(), b.decode("utf-8", "replace").splitlines()
    for x, y in zip(la, lb):
        if x != y:
            return f"{x.strip()[:150]} -> {y.strip()[:150]}"
    return f"{len(la)} lines -> {len(lb)} lines"


def _files(d: str) -> dict:
    out = {}
    for base, _, names in os.walk(d):
        for n in names:
            p = os.path.join(base, n)
            out[os.path.relpath(p, d)] = p
    return out


def compare(out: str, variants: list) -> int:
    """Compare every variant's files with the first variant's; print the differences."""
    ref = os.path.join(out, variants[0])
    differ = 0
    srcs = {}
    for line in open(os.path.join(out, variants[0] + ".jsonl")):
        r = json.loads(line)
        if "dir" in r:
            srcs[r["dir"]] = f"{os.path.relpath(r['src'], ROOT)} -> {r['fmt']}"
    for d in sorted(srcs):
        base = _files(os.path.join(ref, d))
        for v in variants[1:]:
            other = _files(os.path.join(out, v, d))
            for name in sorted(set(base) | set(other)):
                a = open(base[name], "rb").read() if name in base else None
                b = open(other[name], "rb").read() if name in other else None
                if a != b:
                    differ += 1
                    what = ("missing in one" if a is None or b is None else _first_diff(a, b))
                    print(f"DIFFER {srcs[d]} [{name}] {variants[0]} vs {v}: {what}")
    return differ


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="*")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--writers", default=",".join(WRITERS))
    ap.add_argument("--out", default=None)
    ap.add_argument("--worker", metavar="DIR", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    writers = args.writers.split(",")
    if args.worker:
        worker(args.worker, args.inputs, writers)
        return 0
    inputs = [os.path.abspath(p) for p in args.inputs] or default_inputs()
    out = args.out or tempfile.mkdtemp(prefix="roboio-stable-")
    os.makedirs(out, exist_ok=True)
    variants = args.variants.split(",")
    unstable = errors = 0
    for v in variants:
        with open(os.path.join(out, v + ".jsonl"), "w") as log:
            subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", os.path.join(out, v),
                            "--writers", ",".join(writers), *inputs], env=variant_env(v), stdout=log,
                           check=True)
        for line in open(os.path.join(out, v + ".jsonl")):
            r = json.loads(line)
            if r.get("stable") is False:
                unstable += 1
                print(f"UNSTABLE [{v}] {os.path.relpath(r['src'], ROOT)} -> {r['fmt']}: {r['diff']}")
            if "error" in r:
                errors += 1
                print(f"ERROR [{v}] {os.path.relpath(r['src'], ROOT)} -> {r['fmt']}: {r['error']}")
        print(f"variant {v} done", flush=True)
    differ = compare(out, variants)
    print(f"\n{differ} file(s) differ between variants, {unstable} unstable rewrite(s), "
          f"{errors} error(s); outputs in {out}")
    return 1 if differ or unstable or errors else 0


if __name__ == "__main__":
    sys.exit(main())
