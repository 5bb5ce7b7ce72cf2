"""MeshExport names a mesh without a file by its id(): meshes made on the fly (tessellated
primitives) must not be taken for one another when Python reuses a freed object's id (the
MJCF arm's elbow capsule was written as its shoulder's STL on the third save in a process)."""
import numpy as np

from roboio.formats.mesh_export import MeshExport
from roboio.model import TriangleMesh
from roboio.report import ConversionReport

FACES = np.array([[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]])


def _tetrahedron(size):
    return TriangleMesh(np.array([[0, 0, 0], [size, 0, 0], [0, size, 0], [0, 0, size]], float), FACES)


def test_meshes_made_on_the_fly_each_get_their_own_file(tmp_path):
    export = MeshExport(str(tmp_path / "robot.urdf"), ConversionReport(), mode="convert")
    sizes = [0.1 * (k + 1) for k in range(200)]
    written = []
    for k, size in enumerate(sizes):
        # nothing holds the mesh after export(): its id is free for the next one
        (piece,) = export.export(_tetrahedron(size), np.eye(4), f"link{k}")
        written.append((piece.path, piece.vertices[:, 0].max()))
    assert len({path for path, _ in written}) == len(sizes)
    assert np.allclose([x for _, x in written], sizes, rtol=0, atol=1e-15)
