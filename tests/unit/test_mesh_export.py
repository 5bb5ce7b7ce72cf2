"""MeshExport: meshes without a file of their own are told apart by identity only while
they live; a mesh made and dropped (a temporary of merge_new) must not hand its files to a
later mesh that takes its id (HRP4C -> URDF referenced one link's converted mesh for
another's, depending on the allocator)."""
import gc

import numpy as np

from roboio.formats.mesh_export import MeshExport
from roboio.model import TriangleMesh
from roboio.report import ConversionReport


def test_meshes_without_files_are_not_confused_when_ids_are_reused(tmp_path):
    ex = MeshExport(str(tmp_path / "r.urdf"), ConversionReport(), mode="convert")
    F = np.array([[0, 1, 2]])
    for k in range(40):
        V = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]) + k     # a different mesh each time
        pieces = ex.export(TriangleMesh(V, F), np.eye(4), f"m{k}")   # (the mesh is dropped)
        gc.collect()
        assert len(pieces) == 1
        assert np.array_equal(pieces[0].vertices, V), k
        assert pieces[0].reference == f"r_meshes/m{k}.stl"
