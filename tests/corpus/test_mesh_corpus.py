"""Every mesh file of the Klamp't and Choreonoid corpus loads, and agrees with an
independent reading (plain line-by-line OFF and OBJ readers written here; trimesh for STL;
the triangle counts COLLADA files declare). tests/reference compares with klampt."""
import glob
import os
import re

import numpy as np
import pytest

import roboio
from roboio.context import LoadContext
from roboio.formats import loading

from conftest import CORPUS, corpus_path


def corpus_files(*patterns):
    if not os.path.isdir(CORPUS):
        pytest.skip("corpus ../shared/corpus not present")
    out = []
    for pat in patterns:
        for eco in ("klampt", "choreonoid"):
            out += glob.glob(os.path.join(CORPUS, eco, "**", pat), recursive=True)
    return sorted(set(out))


def independent_off(path):
    """Straightforward OFF reading per spec §8.4, one Python line at a time."""
    with open(path) as f:
        lines = [l for l in f.read().split("\n") if l.strip() and not l.startswith("#")]
    head = lines[0].split()
    assert head[0] == "OFF"
    rest = lines[1:]
    counts = head[1:] or rest.pop(0).split()
    nv, nf = int(counts[0]), int(counts[1])
    v = np.array([[float(x) for x in l.split()[:3]] for l in rest[:nv]]).reshape(-1, 3)
    faces = []
    for l in rest[nv:nv + nf]:
        t = [int(x) for x in l.split()]
        k, idx = t[0], t[1:1 + t[0]]
        faces += [(idx[0], idx[i], idx[i + 1]) for i in range(1, k - 1)]
    return v, np.array(faces, dtype=np.int64).reshape(-1, 3)


def test_every_off_file_matches_an_independent_reading():
    files = corpus_files("*.off")
    assert len(files) >= 380
    for path in files:
        m = roboio.load(path)
        v, f = independent_off(path)
        assert np.array_equal(m.vertices, v), path
        assert np.array_equal(m.faces, f), path


def test_every_stl_file_matches_trimesh():
    trimesh = pytest.importorskip("trimesh")
    files = corpus_files("*.stl", "*.STL")
    assert len(files) >= 70 and any(p.endswith(".STL") for p in files)
    for path in files:
        m = roboio.load(path)
        ref = trimesh.load(path, process=False, force="mesh")
        assert np.array_equal(m.vertices[m.faces], np.asarray(ref.vertices)[np.asarray(ref.faces)]), path
        assert len(m.vertices) == 3 * len(m.faces)


def test_corpus_meshes_load_lazily():
    path = corpus_path("klampt", "robots", "pr2", "base_link.off")
    m = loading.read_file(path, LoadContext(path), kinds=("geometry",))
    assert not m.is_loaded
    assert len(m.faces) > 0 and m.is_loaded


def independent_obj(path):
    """A minimal Wavefront reading, one Python line at a time: the first three numbers of
    each ``v`` line; the vertex index (before any '/') of each corner of each ``f`` line,
    1-based, fan-triangulated (the corpus has no negative indices)."""
    v, f = [], []
    with open(path, "rb") as fh:
        for line in fh:
            w = line.split()
            if w and w[0] == b"v":
                v.append([float(x) for x in w[1:4]])
            elif w and w[0] == b"f":
                idx = [int(t.split(b"/")[0]) - 1 for t in w[1:]]
                f += [(idx[0], idx[i], idx[i + 1]) for i in range(1, len(idx) - 1)]
    return np.array(v).reshape(-1, 3), np.array(f, dtype=np.int64).reshape(-1, 3)


@pytest.mark.filterwarnings("ignore::roboio.RoboioWarning")      # the .mtl files are not in the corpus
def test_every_wavefront_obj_matches_an_independent_reading():
    files = [p for p in corpus_files("*.obj") if "/choreonoid/" in p]
    assert len(files) >= 20
    for path in files:
        m = roboio.load(path)
        v, f = independent_obj(path)
        assert np.array_equal(m.vertices, v), path          # every vertex, in order, none merged
        assert np.array_equal(m.faces, f), path             # every face, in order
        assert np.array_equal(m.bounds(), [v.min(0), v.max(0)]), path


def test_every_collada_file_loads_and_keeps_its_triangles():
    pytest.importorskip("collada")
    files = corpus_files("*.dae")
    assert len(files) >= 28
    for path in files:
        m = roboio.load(path)
        assert len(m.faces) > 0 and len(m.vertices) == 3 * len(m.faces), path   # a vertex per corner
        with open(path, "rb") as fh:
            text = fh.read()
        # the <triangles count="..."> of the file, every instance placed once in these files
        counts = [int(c) for c in re.findall(rb'<triangles[^>]*count="(\d+)"', text)]
        assert len(m.faces) == sum(counts), path
        assert m.extras.get("parts", [0]) == np.cumsum([0] + counts[:-1]).tolist(), path


def test_tri_and_geom_corpus_files():
    tris = corpus_files("*.tri")
    assert len(tris) == 3
    for path in tris:
        with open(path) as f:
            t = f.read().split()                 # one block: nv, coords, nt, indices
        nv = int(t[0])
        nt = int(t[1 + 3 * nv])
        m = roboio.load(path)
        assert np.array_equal(m.vertices, np.array(t[1:1 + 3 * nv], float).reshape(-1, 3)), path
        assert np.array_equal(m.faces, np.array(t[2 + 3 * nv:2 + 3 * nv + 3 * nt], int).reshape(-1, 3)), path
    cube = roboio.load(corpus_path("klampt", "objects", "cube.geom"))
    assert cube.primitive == "AABB" and cube.params["bmax"].tolist() == [1, 1, 1]
    sphere = roboio.load(corpus_path("klampt", "objects", "sphere.geom"))
    assert sphere.primitive == "Sphere" and sphere.params["radius"] == 1.0
