"""Deep chains compile in linear time and memory (issue 9: an 11,000-link flat .rob took
17 s and 814 MB for ``fk --link``: every link's ancestor list was built up front)."""
import numpy as np

from roboio.kinematics.model import KinematicModel, _levels


def chain(n, step=0.01):
    T0 = np.tile(np.eye(4), (n, 1, 1))
    T0[:, 2, 3] = step
    return KinematicModel(np.arange(n) - 1, T0, np.tile([0.0, 0.0, 1.0], (n, 1)), np.zeros(n, bool))


def test_deep_chain_fk_and_ancestors():
    n = 3000
    m = chain(n)
    W = m.fk(np.zeros(n))
    assert np.allclose(W[-1, :3, 3], [0, 0, n * 0.01], atol=1e-9)
    # a quarter turn at the root: the chain stays on the z axis, the end frame turns
    q = np.zeros(n)
    q[0] = np.pi / 2
    W = m.fk(q)
    assert np.allclose(W[-1, :3, 3], [0, 0, n * 0.01], atol=1e-9)
    assert np.allclose(W[-1, :3, 0], [0, 1, 0], atol=1e-12)
    assert m.ancestors[5].tolist() == [0, 1, 2, 3, 4, 5]
    assert m.ancestors[-1].tolist() == list(range(n))
    assert len(m.ancestors) == n and len(m.ancestors._chains) == 2      # only what was asked


def test_levels_same_for_any_link_order():
    # parents before children takes the linear path; a shuffled tree the general one
    parents = np.array([-1, 0, 0, 1, 1, 2, 5, 5])
    fast = _levels(parents)
    perm = np.array([7, 3, 0, 5, 1, 6, 2, 4])           # new index of each old link
    inv = np.argsort(perm)
    shuffled = np.array([perm[parents[inv[k]]] if parents[inv[k]] >= 0 else -1 for k in range(8)])
    slow = _levels(shuffled)
    assert [sorted(inv[idx].tolist()) for idx, _ in slow] == [sorted(idx.tolist()) for idx, _ in fast]
    assert [idx.tolist() for idx, _ in fast] == [[0], [1, 2], [3, 4, 5], [6, 7]]
