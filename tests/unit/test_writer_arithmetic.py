"""Writers' numbers do not depend on the machine's BLAS/LAPACK kernel (issue 27): no matrix
product (``@``, ``dot``, ``matmul``, ``einsum``, ...) and no ``numpy.linalg`` in the
modules that compute the numbers written to files, nor in the readers that compute the
model's numbers (frames composed from node stacks and chains, vertices placed by them,
inertias and centres of mass from geometry): a reader's last bits become the written file's. They use the element-wise helpers of
:mod:`roboio.transforms` (``compose``, ``transform_points``, ``vector_norm``, ``det3``,
``symmetric_eigen3``), whose results have the same bits on every machine, so that write ->
read -> write is a fixed point however numpy's BLAS rounds (OpenBLAS picks kernels by CPU:
``OPENBLAS_CORETYPE=Haswell`` gave other last digits than SkylakeX, and the fixed points
searched by the writers were not fixed points any more).

``tools/stable_outputs.py`` checks the outcome: every corpus robot through every writer
under several OpenBLAS kernels, byte for byte (run by hand: it sets OPENBLAS_CORETYPE for
its subprocesses, which the tests must not).
"""
import ast
import glob
import os

from conftest import ROOT

# the modules whose arithmetic becomes file numbers (every writer, its geometry helpers,
# and what they share)
WRITER_MODULES = sorted(
    {os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "roboio", "formats", "**", "*_writer.py"),
                                                recursive=True)}
    | {"roboio/formats/graspit/_iv_out.py", "roboio/formats/graspit/_robot_out.py",
       "roboio/formats/graspit/_robot_generic.py", "roboio/formats/klampt/_geometry_refs.py",
       "roboio/formats/klampt/geometry/stream.py", "roboio/formats/mjcf/_geoms.py",
       "roboio/formats/mjcf/_inertia.py", "roboio/formats/mjcf/_actuators_out.py",
       "roboio/formats/openrave/_math.py", "roboio/formats/mesh_export.py",
       "roboio/formats/meshfile.py", "roboio/formats/affine.py", "roboio/formats/fixed_point.py",
       "roboio/transforms.py", "roboio/model/geometry.py", "roboio/model/massprops.py",
       "roboio/formats/openrave/collada/robot.py", "roboio/formats/openrave/_multiaxis.py"})

# Exceptions, each with its reason: the inverse of a frame that is not a rotation, which is
# written as its nearest rotation and reported with the FK change (a rigid one is inverted
# element-wise just before).
ALLOWED = {("roboio/formats/choreonoid/body/_writer.py", "linalg"),
           ("roboio/formats/openrave/_writer.py", "linalg")}

# Every format module, readers included (model numbers the readers compute are the numbers
# the writers write: the MJCF reader's frames, mesh volumes and inertias, fused bodies' mass
# properties too), and the model code readers build geometry with.
FORMAT_MODULES = sorted(
    {os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "roboio", "formats", "**", "*.py"),
                                                recursive=True)}
    | {"roboio/model/tessellate.py", "roboio/model/massprops.py", "roboio/model/geometry.py",
       "roboio/model/posed.py"})

# Exceptions in format modules that are not writers, each with its reason: GraspIt!'s
# least-squares eigengrasp amplitudes (a query's answer, never a model or file number); the
# FK change a writer reports (a measure of an error, from the kinematics backend by design).
ALLOWED_FORMATS = ALLOWED | {("roboio/formats/graspit/robot_data.py", "linalg"),
                             ("roboio/formats/fk_change.py", "fk_batch"),
                             ("roboio/formats/fk_change.py", "linalg"),
                             # a robot written as a posed mesh: its links where the kinematics
                             # backend puts them (the compiled kernel: no BLAS either)
                             ("roboio/model/posed.py", "fk")}

_PRODUCTS = {"dot", "matmul", "einsum", "tensordot", "inner", "vdot", "multi_dot"}
# link poses from the kinematics backend (the C kernel, or numpy's matmul) differ in their
# last bits between backends and BLAS kernels: writers use formats.affine.link_poses
_BACKEND_FK = {"fk", "fk_batch", "fk_chunks"}


def blas_calls(path) -> list:
    """(line, what) of every matrix product and numpy.linalg use in the module."""
    with open(os.path.join(ROOT, path)) as f:
        tree = ast.parse(f.read(), path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.MatMult):
            out.append((node.lineno, "@"))
        elif isinstance(node, ast.Attribute) and (node.attr in _PRODUCTS | _BACKEND_FK
                                                  or node.attr == "linalg"):
            out.append((node.lineno, node.attr))
    return out


def test_the_module_list_is_real():
    assert len(WRITER_MODULES) >= 25
    for p in WRITER_MODULES:
        assert os.path.isfile(os.path.join(ROOT, p)), p


def test_writers_compute_without_blas():
    found = [f"{p}:{line}: {what}" for p in WRITER_MODULES for line, what in blas_calls(p)
             if (p, what) not in ALLOWED]
    assert not found, "BLAS/LAPACK arithmetic in writer modules:\n" + "\n".join(found)


def test_readers_compute_without_blas():
    assert len(FORMAT_MODULES) >= 100 and "roboio/formats/meshes/inventor/_scene.py" in FORMAT_MODULES
    assert {"roboio/formats/mjcf/_reader.py", "roboio/formats/mjcf/_massprops.py",
            "roboio/formats/mjcf/_fuse.py", "roboio/formats/mjcf/_bodies.py"} <= set(FORMAT_MODULES)
    found = [f"{p}:{line}: {what}" for p in FORMAT_MODULES for line, what in blas_calls(p)
             if (p, what) not in ALLOWED_FORMATS]
    assert not found, "BLAS/LAPACK arithmetic in format modules:\n" + "\n".join(found)


def test_the_lint_sees_products():
    tree_src = "import numpy as np\nA = B @ C\nD = np.dot(A, B)\nE = np.linalg.inv(A)\nF = x.einsum('i', y)\n"
    tree = ast.parse(tree_src)
    kinds = sorted({n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} & (_PRODUCTS | {"linalg"}))
    assert kinds == ["dot", "einsum", "linalg"]
    assert any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) for n in ast.walk(tree))


def test_compose_and_eigen_are_exact_where_they_can_be():
    """The helpers agree with numpy to rounding and are exact on exact inputs."""
    import numpy as np
    from roboio.transforms import compose, det3, symmetric_eigen3, transform_points, vector_norm
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    assert np.allclose(compose(A, B), A @ B, rtol=0, atol=1e-14)
    assert np.array_equal(compose(np.eye(4), B), B) and np.array_equal(compose(A, np.eye(4)), A)
    P = rng.normal(size=(5, 3))
    assert np.allclose(transform_points(A, P), P @ A[:3, :3].T + A[:3, 3], atol=1e-14)
    assert vector_norm(np.array([3.0, 4.0, 12.0])) == 13.0
    assert det3(np.diag([2.0, 3.0, 4.0])) == 24.0
    S = rng.normal(size=(3, 3))
    S = S + S.T
    w, V = symmetric_eigen3(S)
    assert np.allclose(w, np.linalg.eigvalsh(S), atol=1e-13)
    assert np.allclose(V @ np.diag(w) @ V.T, S, atol=1e-13) and det3(V) > 0
    w, V = symmetric_eigen3(np.diag([3.0, 1.0, 2.0]))
    assert w.tolist() == [1.0, 2.0, 3.0] and np.array_equal(np.abs(V), np.abs(V).round())


def test_link_poses_are_fk_element_wise():
    """formats.affine.link_poses: Robot.fk's poses (to rounding), whatever the link order,
    and exactly the chain of element-wise joint transforms."""
    import numpy as np
    from roboio.formats.affine import link_poses
    from roboio.model import Link, Robot
    from roboio.transforms import axis_angle_to_matrix, compose, make_transform
    rng = np.random.default_rng(1)

    def frame():
        return make_transform(axis_angle_to_matrix(rng.normal(size=3) / 2, rng.normal()), rng.normal(size=3))
    links = [Link("c", 2, "revolute", (0, 0, 2), frame()), Link("a", -1, "prismatic", (1, 0, 0), frame()),
             Link("b", 1, "revolute", (0, 1, 0), frame())]             # a child before its parent
    r = Robot("r")
    r.set_links(links)
    q = rng.normal(size=3)
    T = link_poses(r, q)
    assert np.allclose(T, r.fk(q), atol=1e-12)
    assert np.array_equal(T[1], links[1].joint_transform(q[1]))
    assert np.array_equal(T[0], compose(compose(T[1], links[2].joint_transform(q[2])), links[0].joint_transform(q[0])))


def test_reader_helpers_agree_with_numpy_and_are_exact_where_they_can_be():
    """vector_dot, matrix_vector, rotate_tensor and inverse_affine: numpy's products and
    inverse to rounding; exact on exact inputs (identity, diagonal and permutation parts)."""
    import numpy as np
    from roboio.transforms import (axis_angle_to_matrix, inverse_affine, make_transform, matrix_vector,
                                   rotate_tensor, vector_dot)
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(7, 3)), rng.normal(size=(7, 3))
    assert np.allclose(vector_dot(a, b), np.sum(a * b, axis=1), rtol=0, atol=1e-14)
    assert vector_dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]) == 32.0
    R = axis_angle_to_matrix(rng.normal(size=3), 0.7)
    assert np.allclose(matrix_vector(R, a), a @ R.T, rtol=0, atol=1e-14)          # many points
    assert np.allclose(matrix_vector(R, a[0]), R @ a[0], rtol=0, atol=1e-14)       # one vector
    Rs = np.stack([R, R.T])
    assert np.allclose(matrix_vector(Rs, a[:2]), np.einsum("nij,nj->ni", Rs, a[:2]), atol=1e-14)
    assert np.array_equal(matrix_vector(np.eye(3), a), a)
    S = rng.normal(size=(3, 3))
    S = S + S.T
    assert np.allclose(rotate_tensor(R, S), R @ S @ R.T, rtol=0, atol=1e-13)
    P = np.eye(3)[[2, 0, 1]]                     # row i picks axis (2, 0, 1)[i]: (P S P^T)_ii = S_jj
    assert np.array_equal(rotate_tensor(P, np.diag([1.0, 2.0, 3.0])), np.diag([3.0, 1.0, 2.0]))
    for _ in range(20):
        T = make_transform(rng.normal(size=(3, 3)), rng.normal(size=3))
        assert np.allclose(inverse_affine(T) @ T, np.eye(4), rtol=0, atol=1e-9)
        assert np.allclose(inverse_affine(T), np.linalg.inv(T), rtol=1e-9, atol=1e-12)
    T = make_transform(np.diag([2.0, 4.0, 0.5]), [1.0, -2.0, 3.0])
    assert inverse_affine(T).tolist() == [[0.5, 0, 0, -0.5], [0, 0.25, 0, 0.5], [0, 0, 2.0, -6.0], [0, 0, 0, 1.0]]
    rigid = make_transform(R, [0.3, -0.2, 0.1])
    assert np.allclose(inverse_affine(rigid), np.linalg.inv(rigid), rtol=0, atol=1e-15)


def test_transform_points_is_one_fixed_order():
    """transform_points: ((x T[i,0] + y T[i,1]) + z T[i,2]) + T[i,3] exactly (the order the
    writers' fixed points rely on), for one point, stacks and single-precision input."""
    import numpy as np
    from roboio.transforms import transform_points
    rng = np.random.default_rng(3)
    T = rng.normal(size=(4, 4))
    for p in (rng.normal(size=3), rng.normal(size=(50, 3)), rng.normal(size=(2, 4, 3)),
              rng.normal(size=(6, 3)).astype(np.float32), np.zeros((0, 3))):
        q = p.astype(float)
        expected = np.stack([((q[..., 0] * T[i, 0] + q[..., 1] * T[i, 1]) + q[..., 2] * T[i, 2]) + T[i, 3]
                             for i in range(3)], axis=-1)
        got = transform_points(T, p)
        assert got.shape == expected.shape and got.dtype == np.float64
        assert got.view(np.int64).tolist() == expected.view(np.int64).tolist()
