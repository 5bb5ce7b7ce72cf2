"""The kinematics backends: compiled kernel vs numpy reference vs single-configuration
calls on random robots, the out=/links=/dtype=/chunk paths, argument checking, the
workspace, the kernel's sin/cos, and the fallback when the extension is absent."""
import importlib.metadata
import json
import math
import os
import shutil
import subprocess
import sys
import sysconfig
import warnings

import numpy as np
import pytest

from conftest import ROOT
from kinematics_helpers import (assert_close, random_configs, random_robot, reference_fk)
from roboio import RoboioWarning
from roboio.kinematics.backends import KernelUnavailableWarning
from roboio.kinematics import (KinematicModel, available_backends, backends, get_backend,
                               set_backend, use_backend)

needs_compiled = pytest.mark.skipif("compiled" not in available_backends(),
                                    reason="the compiled kinematics kernel is not built here")


def _both(fn):
    """fn() evaluated with the numpy and with the compiled backend."""
    out = {}
    for name in ("numpy", "compiled"):
        with use_backend(name):
            out[name] = fn()
    return out["compiled"], out["numpy"]


# -- compiled == numpy == single configuration -------------------------------------------------
@needs_compiled
@pytest.mark.parametrize("seed", range(12))
def test_backends_agree_on_random_robots(seed):
    r = random_robot(seed)
    Q = random_configs(r, 70, seed)       # 70: two full blocks of the kernel and a partial one
    link = int(np.random.default_rng(seed).integers(r.num_links))
    point = (0.3, -0.2, 0.5)

    def run():
        return (r.fk_batch(Q), np.array([r.fk(q) for q in Q[:6]]),
                r.jacobian_batch(Q, link, point), np.array([r.jacobian(link, point, q) for q in Q[:6]]))
    compiled, numpy_ = _both(run)
    for c, n in zip(compiled, numpy_):
        assert_close(c, n)
    assert_close(compiled[1], compiled[0][:6])
    assert_close(compiled[3], compiled[2][:6])
    # and both equal an independent recursion
    for k in range(3):
        np.testing.assert_allclose(compiled[0][k], reference_fk(r, Q[k]), atol=1e-12)


@pytest.mark.usefixtures("kinematics_backend")
@pytest.mark.parametrize("floating, mount", [(True, False), (False, True), (True, True)])
def test_floating_bases_and_mounts_match_reference(floating, mount):
    r = random_robot(100 + 2 * floating + mount, n=8, floating=floating, mount=mount)
    Q = random_configs(r, 5, 3)
    T = r.fk_batch(Q)
    for k in range(len(Q)):
        np.testing.assert_allclose(T[k], reference_fk(r, Q[k]), atol=1e-12)
        np.testing.assert_allclose(r.fk(Q[k]), T[k], atol=1e-14, rtol=0)


@pytest.mark.usefixtures("kinematics_backend")
def test_axis_conventions_unnormalised():
    """Klamp't: rotation by q |axis| about the axis, translation q * axis (hand-worked)."""
    from roboio import Link, Robot
    r = Robot()
    r.add_link(Link("a", -1, "revolute", (0, 0, -2.0), np.eye(4)))
    r.add_link(Link("b", 0, "prismatic", (0, 3.0, 0), np.eye(4)))
    r.add_link(Link("c", 1, "revolute", (0, 0.6, 0.8), np.eye(4)))   # unit, general
    r.add_link(Link("d", 2, "revolute", (0, 1.2, 1.6), np.eye(4)))   # same axis, length 2
    q = np.array([0.25, 0.5, 0.3, 0.1])
    T = r.fk(q)
    # link a: rotation by -0.5 about z
    c, s = np.cos(-0.5), np.sin(-0.5)
    np.testing.assert_allclose(T[0][:3, :3], [[c, -s, 0], [s, c, 0], [0, 0, 1]], atol=1e-15)
    # link b: translated by 0.5 * (0, 3, 0) in a's frame
    np.testing.assert_allclose(T[1][:3, 3], T[0][:3, :3] @ [0, 1.5, 0], atol=1e-15)
    # links c and d rotate about the same unit axis: by 0.3 and by 0.1 * 2 = 0.2
    rel = T[1][:3, :3].T @ T[3][:3, :3]
    angle = np.arccos((np.trace(rel) - 1) / 2)
    assert abs(angle - 0.5) < 1e-12
    np.testing.assert_allclose(rel @ [0, 0.6, 0.8], [0, 0.6, 0.8], atol=1e-15)
    np.testing.assert_allclose(T, r.fk_batch(q[None])[0], atol=1e-15)


@pytest.mark.usefixtures("kinematics_backend")
def test_empty_robot_and_empty_batch():
    from roboio import Robot
    r = Robot()
    assert r.fk([]).shape == (0, 4, 4)
    assert r.fk_batch(np.zeros((3, 0))).shape == (3, 0, 4, 4)
    r = random_robot(1)
    assert r.fk_batch(np.zeros((0, r.num_links))).shape == (0, r.num_links, 4, 4)
    assert r.jacobian_batch(np.zeros((0, r.num_links)), 0).shape == (0, 6, r.num_links)


@pytest.mark.usefixtures("kinematics_backend")
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")     # numpy on inf
def test_non_finite_and_large_angles_follow_libm():
    from roboio import Link, Robot
    r = Robot()
    r.add_link(Link("a", -1, "revolute", (0, 0, 1), np.eye(4)))
    T = r.fk_batch(np.array([[1e6], [-3.5e7], [np.nan], [np.inf]]))
    for k, a in enumerate((1e6, -3.5e7)):
        np.testing.assert_allclose(T[k, 0, :2, :2], [[math.cos(a), -math.sin(a)],
                                                     [math.sin(a), math.cos(a)]], atol=1e-15)
    assert np.isnan(T[2, 0, :2, :2]).all() and np.isnan(T[3, 0, :2, :2]).all()


# -- out=, links=, dtype=, chunks -------------------------------------------------------------
@pytest.mark.usefixtures("kinematics_backend")
def test_out_is_reused_and_filled():
    r = random_robot(3)
    Q = random_configs(r, 40, 1)
    ref = r.fk_batch(Q)
    out = np.full(ref.shape, np.nan)
    assert r.fk_batch(Q, out=out) is out
    np.testing.assert_array_equal(out, ref)
    J = np.full((40, 6, r.num_links), np.nan)
    assert r.jacobian_batch(Q, 2, (0.1, 0, 0), out=J) is J
    np.testing.assert_array_equal(J, r.jacobian_batch(Q, 2, (0.1, 0, 0)))
    single = np.full((r.num_links, 4, 4), np.nan)
    assert r.fk(Q[0], out=single) is single
    np.testing.assert_array_equal(single, r.kinematics.fk(Q[0]))


@pytest.mark.usefixtures("kinematics_backend")
def test_links_subset_by_index_and_name():
    r = random_robot(4, floating=True)
    Q = random_configs(r, 37, 2)
    full = r.fk_batch(Q)
    names = [r.link_names[-1], r.link_names[2]]
    sub = r.fk_batch(Q, links=names)
    assert sub.shape == (37, 2, 4, 4)
    np.testing.assert_array_equal(sub, full[:, [-1, 2]])
    np.testing.assert_array_equal(r.fk_batch(Q, links=[-1, 0, 0]), full[:, [-1, 0, 0]])
    np.testing.assert_array_equal(r.fk_batch(Q, links=np.array([3])), full[:, [3]])
    assert r.fk_batch(Q, links=[]).shape == (37, 0, 4, 4)


@pytest.mark.usefixtures("kinematics_backend")
def test_float32_output():
    r = random_robot(5)
    Q = random_configs(r, 33, 3)
    full = r.fk_batch(Q)
    f = r.fk_batch(Q, dtype=np.float32)
    assert f.dtype == np.float32
    np.testing.assert_array_equal(f, full.astype(np.float32))
    out = np.empty((33, 1, 4, 4), dtype=np.float32)
    assert r.fk_batch(Q, out=out, links=[1]) is out          # dtype taken from out
    np.testing.assert_array_equal(out, full[:, [1]].astype(np.float32))


@pytest.mark.usefixtures("kinematics_backend")
def test_input_layouts_give_the_same_result():
    r = random_robot(6)
    Q = random_configs(r, 21, 4)
    ref = r.fk_batch(Q)
    wide = np.zeros((21, 2 * r.num_links))
    wide[:, ::2] = Q
    variants = [np.asfortranarray(Q), wide[:, ::2],
                Q[::-1][::-1], Q.tolist()]
    for V in variants:
        np.testing.assert_array_equal(r.fk_batch(V), ref)
    np.testing.assert_array_equal(r.fk_batch(Q.astype(np.float32)),
                                  r.fk_batch(Q.astype(np.float32).astype(np.float64)))
    ints = np.arange(2 * r.num_links).reshape(2, -1) % 3
    np.testing.assert_array_equal(r.fk_batch(ints), r.fk_batch(ints.astype(float)))
    buf = np.zeros(Q.size * 8 + 1, dtype=np.uint8)[1:].view(np.float64).reshape(Q.shape)
    buf[...] = Q            # misaligned storage
    assert not buf.flags.aligned
    np.testing.assert_array_equal(r.fk_batch(buf), ref)
    single = r.fk(Q[0])
    assert_close(single, ref[0])            # numpy: another algorithm for one configuration
    np.testing.assert_array_equal(r.fk(tuple(Q[0])), single)
    np.testing.assert_array_equal(r.fk(wide[0, ::2]), single)


@pytest.mark.usefixtures("kinematics_backend")
def test_chunks_cover_every_configuration():
    r = random_robot(7)
    Q = random_configs(r, 103, 5)
    ref = r.fk_batch(Q, links=[0, -1])
    got = np.empty_like(ref)
    buffers = set()
    for start, frames in r.fk_chunks(Q, chunk_size=25, links=[0, r.link_names[-1]]):
        got[start:start + len(frames)] = frames
        buffers.add(frames.__array_interface__["data"][0])
    np.testing.assert_array_equal(got, ref)
    assert len(buffers) == 1                 # one buffer, reused for every chunk
    # from a generator of uneven blocks, in float32
    blocks = (Q[a:b] for a, b in ((0, 10), (10, 70), (70, 103)))
    parts = [(s, f.copy()) for s, f in r.fk_chunks(blocks, chunk_size=32, dtype=np.float32)]
    assert [s for s, _ in parts] == [0, 10, 42, 70, 102]
    np.testing.assert_array_equal(np.concatenate([f for _, f in parts]),
                                  r.fk_batch(Q).astype(np.float32))


@needs_compiled
def test_large_outputs_equal_small_ones():
    """Outputs beyond 16 MiB are written with non-temporal stores: same values."""
    r = random_robot(11, n=2, floating=True, mount=False)       # 8 links
    assert r.num_links == 8
    Q = random_configs(r, 50000, 8)
    with use_backend("compiled"):
        for links, dtype in ((None, np.float64), (None, np.float32), ([7, 0, 3], np.float64)):
            big = r.fk_batch(Q, links=links, dtype=dtype)
            assert big.nbytes > 16 << 20 or links is not None
            small = np.concatenate([f.copy() for _, f in r.fk_chunks(Q, 1000, links, dtype)])
            np.testing.assert_array_equal(big, small)
        J = r.jacobian_batch(Q, 5, (0.1, 0.2, 0.3))
        assert J.nbytes > 16 << 20
        np.testing.assert_array_equal(J[::997], r.jacobian_batch(Q[::997], 5, (0.1, 0.2, 0.3)))


# -- argument checking ------------------------------------------------------------------------
@pytest.mark.usefixtures("kinematics_backend")
def test_bad_arguments_are_clear_value_errors():
    r = random_robot(8)
    n = r.num_links
    Q = random_configs(r, 4, 1)
    bad_calls = [
        (lambda: r.fk_batch(Q[0]), r"shape \(N, %d\)" % n),
        (lambda: r.fk_batch(Q[:, :-1]), r"shape \(N, %d\)" % n),
        (lambda: r.fk_batch(Q.astype(complex)), "real numbers"),
        (lambda: r.fk_batch([["a"] * n]), "array of numbers"),
        (lambda: r.fk_batch(Q, out=np.empty((4, n, 4, 3))), "shape"),
        (lambda: r.fk_batch(Q, out=np.empty((4, n, 4, 4), dtype=np.float32), dtype=np.float64),
         "dtype"),
        (lambda: r.fk_batch(Q, out=np.empty((4, n, 4, 4), dtype=np.int64)), "dtype"),
        (lambda: r.fk_batch(Q, out=np.empty((n, 4, 4, 4)).transpose(1, 0, 2, 3)), "shape|contiguous"),
        (lambda: r.fk_batch(Q, out=np.empty((8, n, 4, 4))[::2]), "C-contiguous"),
        (lambda: r.fk_batch(Q, out=np.empty((4, n, 4, 4)).tolist()), "numpy array"),
        (lambda: r.fk_batch(Q, dtype=np.int32), "dtype"),
        (lambda: r.fk_batch(Q, links=[[0]]), "link indices"),
        (lambda: r.fk_batch(Q, links=[0.5]), "link indices"),
        (lambda: r.fk(Q[0][:-1]), "%d values" % n),
        (lambda: r.fk(["x"] * n), "number"),
        (lambda: r.fk(Q[0], out=np.empty((n, 4, 4), dtype=np.float32)), "float64"),
        (lambda: r.jacobian_batch(Q, 0, (1, 2)), "3"),
        (lambda: r.jacobian_batch(Q, 0, out=np.empty((4, 6, n + 1))), "shape"),
        (lambda: r.kinematics.jacobian(Q[0], 1.5), "integer"),
        (lambda: list(r.fk_chunks(Q, chunk_size=0)), "chunk_size"),
    ]
    for call, match in bad_calls:
        with pytest.raises(ValueError, match=match):
            call()
    ro = np.empty((4, n, 4, 4))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only|writeable"):
        r.fk_batch(Q, out=ro)
    with pytest.raises(IndexError):
        r.fk_batch(Q, links=[n])
    with pytest.raises(IndexError):
        r.kinematics.jacobian_batch(Q, n)


# -- workspace --------------------------------------------------------------------------------
@pytest.mark.usefixtures("kinematics_backend")
def test_workspace_reuses_its_buffers():
    r = random_robot(9, floating=True)
    ws = r.kinematics.workspace()
    Q = random_configs(r, 3, 6)
    for q in Q:
        T = ws.fk(q)
        assert T is ws.frames
        np.testing.assert_allclose(T, reference_fk(r, q), atol=1e-12)
        link = r.num_links - 1
        J = ws.jacobian(link, (0.2, 0.1, 0))
        assert J is ws.J
        np.testing.assert_allclose(J, r.jacobian(link, (0.2, 0.1, 0), q), atol=1e-14, rtol=0)
    # frames edited by hand are what the Jacobian uses (Klamp't's setTransform)
    ws.frames[2, :3, 3] += 1.0
    with use_backend("numpy"):
        expected = r.kinematics.jacobian_from_frames(ws.frames, r.num_links - 1)
    np.testing.assert_allclose(ws.jacobian(r.num_links - 1), expected, atol=1e-14, rtol=0)


# -- the kernel's sin and cos -----------------------------------------------------------------
@needs_compiled
def test_kernel_sincos_within_one_ulp_of_libm():
    from roboio.kinematics import _kernel
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-7, 7, 40000), rng.uniform(-1e5, 1e5, 20000),
                        np.arange(-64, 65) * (np.pi / 4), [0.0, -0.0, 1e-300, 5e-324],
                        rng.uniform(-1e9, 1e9, 50), [np.inf, -np.inf, np.nan]])
    s, c = np.empty_like(x), np.empty_like(x)
    _kernel.sincos(x, s, c)
    finite = np.isfinite(x)
    rs = np.array([math.sin(v) for v in x[finite]])
    rc = np.array([math.cos(v) for v in x[finite]])
    ulp_s = np.abs(s[finite] - rs) / np.spacing(np.abs(rs))
    ulp_c = np.abs(c[finite] - rc) / np.spacing(np.abs(rc))
    # 1 ulp of the kernel plus libm's own rounding (< 1 ulp); near a zero of sin/cos the
    # value is tiny and the absolute error is what matters
    small_s, small_c = np.abs(rs) < 1e-8, np.abs(rc) < 1e-8
    assert ulp_s[~small_s].max() <= 2 and ulp_c[~small_c].max() <= 2
    assert np.abs(s[finite] - rs).max() < 2.3e-16 and np.abs(c[finite] - rc).max() < 2.3e-16
    assert np.isnan(s[~finite]).all() and np.isnan(c[~finite]).all()
    # odd and even exactly
    s2, c2 = np.empty_like(x), np.empty_like(x)
    _kernel.sincos(-x, s2, c2)
    np.testing.assert_array_equal(s2[finite], -s[finite])
    np.testing.assert_array_equal(c2[finite], c[finite])


# -- choosing the backend, and the fallback -----------------------------------------------------
def test_set_backend_and_context():
    before = get_backend()
    with use_backend("numpy"):
        assert get_backend() == "numpy"
    assert get_backend() == before
    with pytest.raises(ValueError, match="unknown kinematics backend"):
        set_backend("fortran")


def _run(code, **env):
    e = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    e.pop("ROBOIO_KINEMATICS", None)
    e.update(env)
    p = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True,
                       text=True, env=e, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    return p


PROBE = ("import numpy as np, roboio\n"
         "from roboio import Link, Robot\n"
         "from roboio.kinematics import get_backend\n"
         "r = Robot(); r.add_link(Link('a', -1, 'revolute', (0, 0, 1), np.eye(4)))\n"
         "T = r.fk([0.5]); r.fk_batch(np.zeros((2, 1)))\n"
         "assert abs(T[0, 1, 0] - np.sin(0.5)) < 1e-15\n"
         "print(get_backend())\n")


def test_environment_variable_forces_numpy():
    p = _run(PROBE, ROBOIO_KINEMATICS="numpy")
    assert p.stdout.strip() == "numpy"
    assert "RoboioWarning" not in p.stderr


@needs_compiled
def test_environment_variable_compiled_and_default():
    assert _run(PROBE, ROBOIO_KINEMATICS="compiled").stdout.strip() == "compiled"
    assert _run(PROBE).stdout.strip() == "compiled"


def test_bad_environment_value_warns_and_chooses_automatically():
    p = _run(PROBE, ROBOIO_KINEMATICS="gpu")
    assert p.stdout.strip() in available_backends()
    assert "ROBOIO_KINEMATICS='gpu'" in p.stderr
    assert "RoboioWarning" in p.stderr


HIDE_KERNEL = "import sys; sys.modules['roboio.kinematics._kernel'] = None\n"


@pytest.mark.parametrize("env", ["", "compiled"])
def test_missing_extension_falls_back_with_one_warning(env):
    p = _run(HIDE_KERNEL + PROBE + "r.fk([0.1]); r.jacobian(0)\n", ROBOIO_KINEMATICS=env)
    assert p.stdout.strip() == "numpy"
    assert p.stderr.count("KernelUnavailableWarning") == 1, p.stderr
    assert "compiled kinematics kernel is not available" in p.stderr


def test_cli_says_once_that_the_kernel_is_missing():
    code = HIDE_KERNEL + ("import sys; from roboio.cli.main import main\n"
                          "sys.exit(main(['fk', 'roboio/data/samples/planar_arm.rob', "
                          "'--random', '3']))\n")
    p = _run(code)
    assert p.stderr.count("compiled kinematics kernel is not available") == 1, p.stderr
    assert p.stdout.count("config:") == 3


def test_missing_extension_in_process(monkeypatch):
    """The same, in this process: an ImportError of the extension selects numpy, once."""
    import roboio.kinematics as package
    for name in ("_kernel", "_compiled"):       # as if never imported, and not importable
        monkeypatch.setitem(sys.modules, f"roboio.kinematics.{name}", None)
        monkeypatch.delattr(package, name, raising=False)
    monkeypatch.delenv("ROBOIO_KINEMATICS", raising=False)
    monkeypatch.setattr(backends, "_active", None)
    km = KinematicModel([-1], np.eye(4)[None], [[0, 0, 1]], [False])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        T = km.fk([0.5])
        km.fk_batch([[0.5]])
    assert [w.category for w in caught] == [KernelUnavailableWarning]
    assert issubclass(KernelUnavailableWarning, RoboioWarning)
    assert get_backend() == "numpy"
    np.testing.assert_allclose(T[0, :2, :2], [[np.cos(0.5), -np.sin(0.5)],
                                              [np.sin(0.5), np.cos(0.5)]], atol=1e-15)
    with pytest.raises(ImportError):
        set_backend("compiled")
    assert available_backends() == ["numpy"]
    monkeypatch.setattr(backends, "_active", None)   # let the next test choose afresh


def _installed_from_this_checkout() -> bool:
    try:
        dist = importlib.metadata.distribution("roboio")
        url = json.loads(dist.read_text("direct_url.json") or "{}").get("url", "")
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    return os.path.realpath(url.removeprefix("file://")) == os.path.realpath(ROOT)


def test_install_from_this_checkout_built_the_kernel():
    """``pip install -e .`` / ``pip install .`` must build the extension where a C compiler
    exists (CI), so that the compiled backend is tested at all."""
    if not _installed_from_this_checkout():
        pytest.skip("roboio was not pip-installed from this checkout")
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}) here: the numpy fallback is expected")
    assert "compiled" in available_backends(), (
        "pip installed roboio from this checkout with a C compiler present, but the "
        "compiled kinematics kernel is missing: see the build output of setup.py")


def test_ci_runs_kinematics_again_without_the_kernel():
    """.ci/run repeats the kinematics-related tests with ROBOIO_KINEMATICS=numpy, so the
    fallback a machine without a C compiler gets is exercised through every caller."""
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        lines = [ln.split() for ln in f if ln.startswith("ROBOIO_KINEMATICS=numpy ")]
    assert lines, ".ci/run has no pass with ROBOIO_KINEMATICS=numpy"
    files = [w for w in lines[0] if w.startswith("tests/")]
    assert "tests/unit/test_kinematics.py" in files and "tests/test_docs.py" in files
    for f in files:
        assert os.path.exists(os.path.join(ROOT, f)), f".ci/run names {f}, which does not exist"


# -- pose vectors (position + quaternion rows) ---------------------------------------------------
def _rotation_about(axis, angle):
    """Rodrigues' formula, written out: an independent rotation for the expected values."""
    x, y, z = np.asarray(axis, float) / np.linalg.norm(axis)
    c, s = math.cos(angle), math.sin(angle)
    C = 1 - c
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


@pytest.mark.usefixtures("kinematics_backend")
def test_pose_vectors_are_translation_and_half_angle_quaternion():
    """(x, y, z, qw, qx, qy, qz) = (t, cos(a/2), sin(a/2) u) with qw >= 0, for axis-angle
    rotations chosen to reach each of Shepperd's four branches (trace, then each diagonal
    entry largest), half turns and the identity; batch shape kept."""
    from roboio.kinematics.pose_vectors import pose_vectors
    rng = np.random.default_rng(4)
    cases = [((0, 0, 1), 0.0), ((1, 0, 0), math.pi), ((0, 1, 0), math.pi), ((0, 0, 1), math.pi),
             ((1, 0.1, 0.2), 2.9), ((0.1, 1, 0.2), 3.0), ((0.2, 0.1, 1), 3.1), ((1, 2, 3), 0.4),
             ((1, 1, 1), -2.0)]
    T = np.tile(np.eye(4), (len(cases), 1, 1))
    expected = np.empty((len(cases), 7))
    for k, (axis, angle) in enumerate(cases):
        T[k, :3, :3] = _rotation_about(axis, angle)
        T[k, :3, 3] = rng.normal(size=3)
        u = np.asarray(axis, float) / np.linalg.norm(axis)
        q = np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * u])
        expected[k] = np.concatenate([T[k, :3, 3], q if q[0] >= 0 else -q])
    got = pose_vectors(T.reshape(3, 3, 4, 4))
    assert got.shape == (3, 3, 7)
    assert_close(got.reshape(-1, 7)[:, :3], expected[:, :3], 0.0)
    assert_close(np.abs(got.reshape(-1, 7)[:, 3:]), np.abs(expected[:, 3:]), 2e-15)
    half_turn = np.isclose(expected[:, 3], 0.0)         # q and -q: the same rotation
    assert_close(got.reshape(-1, 7)[~half_turn, 3:], expected[~half_turn, 3:], 2e-15)
    with pytest.raises(ValueError, match="4, 4"):
        pose_vectors(np.eye(3))


@needs_compiled
def test_pose_vectors_same_bits_on_both_backends():
    """The kernel's loop does matrix_to_quat's operations in the same order: identical bits."""
    from roboio.kinematics.pose_vectors import pose_vectors
    rng = np.random.default_rng(7)
    T = np.tile(np.eye(4), (2000, 1, 1))
    for k in range(len(T)):
        T[k, :3, :3] = _rotation_about(rng.normal(size=3), rng.uniform(-math.pi, math.pi))
    T[:, :3, 3] = rng.normal(size=(len(T), 3))
    a, b = _both(lambda: pose_vectors(T))
    assert np.array_equal(a, b)


@pytest.mark.usefixtures("kinematics_backend")
def test_pose_columns_are_pose_vectors_by_column():
    """(F, L, 4, 4) -> (L, 7, F): out[l, :, f] is the pose_vectors row of T[f, l] (checked
    element by element against the row form, itself checked above against Rodrigues), for
    uneven F and L, one frame and zero frames; bad shapes refused."""
    from roboio.kinematics.pose_vectors import pose_columns, pose_vectors
    rng = np.random.default_rng(11)
    F, L = 37, 5
    T = np.tile(np.eye(4), (F, L, 1, 1))
    for f in range(F):
        for l in range(L):
            T[f, l, :3, :3] = _rotation_about(rng.normal(size=3), rng.uniform(-math.pi, math.pi))
    T[..., :3, 3] = rng.normal(size=(F, L, 3))
    got = pose_columns(T)
    assert got.shape == (L, 7, F) and got.flags.c_contiguous
    rows = pose_vectors(T)
    for f in (0, 1, 17, F - 1):
        for l in range(L):
            assert np.array_equal(got[l, :, f], rows[f, l])
    assert np.array_equal(pose_columns(T[:1]), rows[:1].transpose(1, 2, 0))
    assert pose_columns(T[:0]).shape == (L, 7, 0)
    with pytest.raises(ValueError, match="F, L, 4, 4"):
        pose_columns(T[0])


@pytest.mark.usefixtures("kinematics_backend")
def test_fk_pose_columns_are_the_pose_columns_of_fk_batch():
    """The fused FK -> columns gives the bits of fk_batch then pose_columns: every link or a
    subset (names, repeated, any order), split over threads or not, zero rows."""
    import roboio
    from conftest import SAMPLES
    from roboio.kinematics.pose_vectors import pose_columns
    robot = roboio.load(os.path.join(SAMPLES, "choreonoid", "arm.body"))
    rng = np.random.default_rng(3)
    Q = rng.uniform(-2, 2, (20001, robot.num_links))     # enough rows to be split over threads
    want = pose_columns(robot.fk_batch(Q, threads=1))
    for threads in (1, 3):
        assert np.array_equal(robot.fk_pose_columns(Q, threads=threads), want)
    names = robot.link_names
    pick = [names[-1], names[0], names[-1]]
    got = robot.fk_pose_columns(Q, links=pick, threads=2)
    assert np.array_equal(got, want[[len(names) - 1, 0, len(names) - 1]])
    assert robot.fk_pose_columns(Q[:0]).shape == (robot.num_links, 7, 0)


@needs_compiled
def test_pose_columns_same_bits_on_both_backends():
    from roboio.kinematics.pose_vectors import pose_columns
    rng = np.random.default_rng(8)
    T = np.tile(np.eye(4), (300, 7, 1, 1))
    for f in range(300):
        for l in range(7):
            T[f, l, :3, :3] = _rotation_about(rng.normal(size=3), rng.uniform(-math.pi, math.pi))
    T[..., :3, 3] = rng.normal(size=(300, 7, 3))
    a, b = _both(lambda: pose_columns(T))
    assert np.array_equal(a, b)
