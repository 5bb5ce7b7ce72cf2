"""Random robots for the kinematics tests: trees with several roots, prismatic joints,
axes that are not unit length (axis-aligned, negative, general, zero), constant rotations
that are exactly the identity, floating bases (three prismatic + three revolute links, the
Klamp't layout) and mounted sub-robots (a second tree under a link of the first)."""
import numpy as np

from roboio import Link, Robot
from roboio.transforms import make_transform, rpy_to_matrix

# relative tolerance of backend agreement: |a - b| <= TOL * max(1, |coordinates|)
TOL = 1e-14


def _axis(rng):
    kind = rng.integers(5)
    if kind == 0:     # axis-aligned, any length and sign
        a = np.zeros(3)
        a[rng.integers(3)] = rng.choice([-1.0, 1.0]) * rng.uniform(0.3, 2.5)
        return a
    if kind == 1:
        return np.eye(3)[rng.integers(3)]
    if kind == 2:
        return np.zeros(3) if rng.random() < 0.3 else rng.normal(size=3)
    return rng.normal(size=3) * rng.uniform(0.5, 2.0)


def _transform(rng):
    R = np.eye(3) if rng.random() < 0.4 else rpy_to_matrix(rng.uniform(-3, 3, 3))
    return make_transform(R, rng.uniform(-1, 1, 3))


def add_floating_base(r, parent=-1, T=None):
    """Six links: x, y, z translations then z, y, x rotations (Klamp't's floating base)."""
    first = r.num_links
    axes = np.eye(3)
    for k in range(3):
        r.add_link(Link(f"base{first + k}", parent if k == 0 else r.num_links - 1, "prismatic",
                        axes[k], T if (k == 0 and T is not None) else np.eye(4)))
    for k in (2, 1, 0):
        r.add_link(Link(f"base{r.num_links}", r.num_links - 1, "revolute", axes[k], np.eye(4)))
    return r.num_links - 1


def random_robot(seed, n=12, floating=None, mount=None):
    """A random tree; ``floating``/``mount`` default to a coin flip each."""
    rng = np.random.default_rng(seed)
    r = Robot(f"random{seed}")
    floating = rng.random() < 0.5 if floating is None else floating
    mount = rng.random() < 0.5 if mount is None else mount
    top = add_floating_base(r, T=_transform(rng)) if floating else -1
    first = r.num_links
    for i in range(n):
        parent = top if i == 0 else int(rng.integers(top if rng.random() < 0.2 else first,
                                                      r.num_links))
        kind = "prismatic" if rng.random() < 0.25 else "revolute"
        r.add_link(Link(f"l{r.num_links}", parent, kind, _axis(rng), _transform(rng)))
    if mount:    # a sub-robot (its own floating-free chain) under a random link
        at = int(rng.integers(r.num_links))
        base = _transform(rng)
        for i in range(4):
            r.add_link(Link(f"m{r.num_links}", at if i == 0 else r.num_links - 1, "revolute",
                            _axis(rng), base if i == 0 else _transform(rng)))
    return r


def random_configs(robot, N, seed, scale=3.0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-scale, scale, size=(N, robot.num_links))


def assert_close(a, b, tol=TOL):
    """Agreement within ``tol`` relative to the size of the coordinates (>= 1)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    err = float(np.abs(a - b).max(initial=0.0))
    assert err <= tol * scale, f"max difference {err:.3g} > {tol:.0e} * {scale:.3g}"


def reference_fk(r, q):
    """Straightforward per-link recursion with Rodrigues' formula, written independently of
    roboio.kinematics."""
    out = []
    for i, l in enumerate(r.links):
        w = np.asarray(l.axis, dtype=float)
        J = np.eye(4)
        if l.joint_type == "revolute":
            n = np.linalg.norm(w)
            if n > 0:
                u, a = w / n, q[i] * n
                K = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
                J[:3, :3] = np.cos(a) * np.eye(3) + np.sin(a) * K + (1 - np.cos(a)) * np.outer(u, u)
        else:
            J[:3, 3] = q[i] * w
        local = l.parent_transform @ J
        out.append(local if l.parent < 0 else out[l.parent] @ local)
    return np.array(out)
