"""Shared test helpers: where the corpus is, and oracle conversions."""
import json
import os

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
KLAMPT = os.path.join(CORPUS, "klampt")
ORACLE = os.path.join(KLAMPT, "oracle")
SAMPLES = os.path.join(ROOT, "roboio", "data", "samples")


def corpus_path(*parts) -> str:
    """Path inside ../shared/corpus; skips the test when the corpus is absent."""
    if not os.path.isdir(CORPUS):
        pytest.skip("corpus ../shared/corpus not present")
    return os.path.join(CORPUS, *parts)


def oracle_index():
    p = os.path.join(ORACLE, "INDEX.json")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)


def oracle_entries(kind=None, status=None):
    """(source, entry) pairs of the Klamp't oracle index ([] without the corpus)."""
    idx = oracle_index()
    if idx is None:
        return []
    return [e for e in idx["entries"]
            if (kind is None or e["kind"] == kind) and (status is None or e["status"] == status)]


def load_oracle(source: str) -> dict:
    with open(os.path.join(ORACLE, source + ".json")) as f:
        return json.load(f)


def oracle_transform(d) -> np.ndarray:
    """Oracle {"R": rows, "t": [...]} -> 4x4."""
    T = np.eye(4)
    T[:3, :3] = d["R"]
    T[:3, 3] = d["t"]
    return T


def corpus_ids(entries):
    return [e["source"] for e in entries]


@pytest.fixture(scope="session", autouse=True)
def corpus_stays_untouched():
    """Fail the run if any test wrote into the shared corpus (tests must use tmp_path)."""
    import time
    start = time.time() - 1.0
    yield
    if not os.path.isdir(CORPUS):
        return
    touched = []
    for dirpath, _dirs, files in os.walk(CORPUS):
        for f in files:
            p = os.path.join(dirpath, f)
            try:
                if os.lstat(p).st_mtime > start:
                    touched.append(p)
            except OSError:
                pass
    assert not touched, f"tests wrote into the corpus: {touched[:10]}"


# Elementary rotations written out by hand, independent of roboio.transforms, for tests
# that compute expected values themselves.
def Rx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def Ry(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def Rz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@pytest.fixture(params=["compiled", "numpy"])
def seq_parser(request):
    """Runs a test once per implementation of the .seq frame parser (the C extension, the
    numpy path); the compiled one is skipped only where its extension is not built."""
    from roboio.formats.choreonoid import _seq_fast
    if request.param not in _seq_fast.available_parsers():
        pytest.skip("the compiled .seq parser is not built in this tree")
    previous = _seq_fast.set_parser(request.param)
    yield request.param
    _seq_fast.set_parser(previous)


@pytest.fixture(params=["compiled", "numpy"])
def kinematics_backend(request):
    """Runs a test once per kinematics backend. The compiled one is skipped (with the reason)
    only where its extension is not built; test_kinematics_backends checks that an install
    from this checkout built it."""
    from roboio.kinematics import available_backends, use_backend
    if request.param not in available_backends():
        pytest.skip("the compiled kinematics kernel is not built in this tree")
    with use_backend(request.param):
        yield request.param


def rewrite_is_fixed_point(obj, out: str, fmt: str) -> bytes:
    """Write ``obj`` to ``out`` as ``fmt``, read that file and write it again over itself;
    assert the second write gives the first's bytes (writers are stable) and return them."""
    import roboio
    roboio.save(obj, out, format=fmt)
    with open(out, "rb") as f:
        first = f.read()
    roboio.save(roboio.load(out, format=fmt), out, format=fmt, overwrite_input=True)
    with open(out, "rb") as f:
        assert f.read() == first, f"{out}: write -> read -> write changed the bytes"
    return first


def tree_bytes(folder, skip=()) -> dict:
    """``{path relative to folder: bytes}`` of every file below ``folder`` (file names in
    ``skip`` left out): two trees compare with ``==``."""
    out = {}
    for d, _, files in os.walk(folder):
        for f in files:
            if f not in skip:
                with open(os.path.join(d, f), "rb") as fh:
                    out[os.path.relpath(os.path.join(d, f), folder)] = fh.read()
    return out
