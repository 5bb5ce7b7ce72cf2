"""roboio's mesh readers and writers against the real klampt package.

Klamp't loads OFF through Assimp, which merges identical vertices and drops triangles with
two equal corners, and stores coordinates as float32. So the comparison is: the same
bounds (to float32 precision) and the same number of triangles once roboio's triangles
with two float32-equal corners are discounted.
"""
import glob
import os

import numpy as np
import pytest

import roboio
from roboio.model import TriangleMesh

from conftest import CORPUS

klampt = pytest.importorskip("klampt")


def klampt_mesh(path):
    g = klampt.Geometry3D()
    assert g.loadFile(path), path
    m = g.getTriangleMesh()
    # copy while g is alive: klampt's arrays are views into its memory
    return np.array(m.vertices, dtype=float), np.array(m.indices)


def assimp_triangle_count(m: TriangleMesh) -> int:
    c = m.vertices[m.faces].astype(np.float32)
    degenerate = (np.all(c[:, 0] == c[:, 1], axis=1) | np.all(c[:, 1] == c[:, 2], axis=1)
                  | np.all(c[:, 0] == c[:, 2], axis=1))
    return int(len(m.faces) - degenerate.sum())


def close_bounds(a, b):
    scale = max(1.0, float(np.abs(b).max()))
    return np.abs(np.asarray(a) - np.asarray(b)).max() <= 2e-7 * scale


def test_every_klampt_off_file_agrees_with_klampt():
    if not os.path.isdir(CORPUS):
        pytest.skip("corpus absent")
    files = sorted(glob.glob(os.path.join(CORPUS, "klampt", "**", "*.off"), recursive=True))
    for path in files:
        m = roboio.load(path)
        kv, kf = klampt_mesh(path)
        assert len(kf) == assimp_triangle_count(m), path
        assert close_bounds(m.bounds(), [kv.min(0), kv.max(0)]), path


def test_off_written_by_roboio_reads_back_in_klampt(tmp_path):
    rng = np.random.default_rng(3)
    v = rng.normal(size=(40, 3))
    f = np.array([[i, (i + 1) % 40, (i + 7) % 40] for i in range(40)])
    out = str(tmp_path / "w.off")
    roboio.save(TriangleMesh(v, f), out)
    kv, kf = klampt_mesh(out)
    # Assimp merges vertices and parses numbers to float32 with its own (not correctly
    # rounded) atof: compare the triangles as corner positions, to float32 precision
    assert kf.shape == f.shape
    assert np.allclose(kv[kf], v[f], rtol=1e-6, atol=1e-7)
