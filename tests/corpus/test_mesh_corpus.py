"""Every mesh file of the Klamp't and Choreonoid corpus loads, and agrees with an
independent reading (a plain line-by-line OFF reader written here; trimesh for STL)."""
import glob
import os

import numpy as np
import pytest

import roboio
from roboio.errors import LoadContext
from roboio.formats import registry

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
    m = registry.read_file(path, LoadContext(path), kinds=("geometry",))
    assert not m.is_loaded
    assert len(m.faces) > 0 and m.is_loaded


def triangle_rows(v, f):
    """Triangles as sorted rows of corner coordinates (order-free comparison)."""
    rows = np.asarray(v)[np.asarray(f)].reshape(len(f), 9)
    return rows[np.lexsort(rows.T[::-1])]


@pytest.mark.filterwarnings("ignore::roboio.RoboioWarning")      # the .mtl files are not in the corpus
def test_every_wavefront_obj_matches_trimesh():
    trimesh = pytest.importorskip("trimesh")
    files = [p for p in corpus_files("*.obj") if "/choreonoid/" in p]
    assert len(files) >= 20
    for path in files:
        m = roboio.load(path)
        ref = trimesh.load(path, process=False, force="mesh")
        # trimesh splits vertices per texture/normal corner and groups faces by material,
        # so compare the triangles as corner positions
        assert np.array_equal(triangle_rows(m.vertices, m.faces), triangle_rows(ref.vertices, ref.faces)), path
        with open(path, "rb") as f:
            nv = sum(1 for line in f if line.startswith(b"v "))
        assert len(m.vertices) == nv, path                  # every vertex kept, none merged


def test_every_collada_file_matches_trimesh():
    trimesh = pytest.importorskip("trimesh")
    pytest.importorskip("collada")
    files = corpus_files("*.dae")
    assert len(files) >= 28
    for path in files:
        m = roboio.load(path)
        ref = trimesh.load(path, process=False)
        ref = ref.dump(concatenate=True) if hasattr(ref, "dump") else ref
        assert len(m.faces) == len(ref.faces), path
        # same triangles in the same order; pycollada (behind trimesh) keeps some arrays in
        # float32, so corners agree to 2e-6 m
        ours = np.asarray(m.vertices)[m.faces]
        theirs = np.asarray(ref.vertices)[np.asarray(ref.faces)]
        assert np.abs(ours - theirs).max() <= 2e-6, path


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
