"""Robots no one here wrote: the URDFs of the ``example-robot-data`` package (a test-only
dependency, found through its installed distribution; the tests skip without it).

* every robot, written as URDF, is read by pinocchio with roboio's FK (by link name, 1e-9)
  and total mass;
* every robot, written as MJCF, is compiled by MuJoCo and checked as the corpus robots are
  (:mod:`test_mjcf_mujoco`: FK by body name, masses, inertias, couplings, collisions);
* every robot x every writer that reads back: ``verify`` within 1e-9 (or what the report
  states, as :mod:`tools.conversion_matrix` judges it) and write -> read -> write gives the
  same bytes.

These run on the kinematic models (geometry removed: meshes cost seconds each); a sample
(:data:`SAMPLE`) is written with its meshes and checked by MuJoCo, mesh placement included.
``tools/outside_robots.py`` runs everything with meshes.
"""
import glob
import os
import re
import sys
import warnings

import numpy as np
import pytest

import roboio
from roboio.verify import verify

pytest.importorskip("mujoco")
from test_mjcf_mujoco import check_collisions, check_model  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "tools"))
import conversion_matrix as cm  # noqa: E402


def robots_dir():
    try:
        from importlib.metadata import PackageNotFoundError, distribution
        d = distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots")
    except (ImportError, PackageNotFoundError):
        return None
    return str(d) if os.path.isdir(str(d)) else None


ROOT = robots_dir()
needs_data = pytest.mark.skipif(ROOT is None, reason="example-robot-data is not installed")
ALL = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "**", "*.urdf"), recursive=True)) \
    if ROOT else []
# urdfdom (pinocchio, ROS) refuses these files as roboio does
REFUSED = {"ur_description/urdf/ur3.urdf": "<robot> without a 'name' attribute"}
ROBOTS = [r for r in ALL if r not in REFUSED]

# A sample that covers what these files exercise: mimic joints whose leader comes later
# (romeo), non-unit axes and massless moving links (romeo), continuous joints (tiago),
# separate visual and collision meshes (panda, talos), floating bases (anymal, solo, icub),
# mimics of fixed joints (talos_left_arm), many links (anymal_c).
SAMPLE = ["romeo_description/urdf/romeo.urdf", "tiago_description/robots/tiago.urdf",
          "panda_description/urdf/panda.urdf", "talos_data/robots/talos_reduced.urdf",
          "talos_data/robots/talos_left_arm.urdf", "anymal_c_simple_description/urdf/anymal.urdf",
          "solo_description/robots/solo12.urdf", "icub_description/robots/icub_reduced.urdf",
          "double_pendulum_description/urdf/double_pendulum_continuous.urdf",
          "allegro_hand_description/urdf/allegro_right_hand.urdf"]


def load(rel):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(os.path.join(ROOT, rel), package_dirs=[ROOT])


def bare(rel):
    """The robot of ``rel`` without geometry (kinematics, masses, couplings, collision pairs)."""
    robot = load(rel)
    for l in robot.links:
        l.geometry = l.visual_geometry = None
    return robot


def reload(path, fmt=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = roboio.load(path, format=fmt)
    return obj.robots[0] if isinstance(obj, roboio.World) else obj


@needs_data
@pytest.mark.parametrize("rel", SAMPLE)
def test_example_robot_data_in_mujoco(rel, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)          # MuJoCo writes MUJOCO_LOG.TXT into the working directory
    robot = load(rel)
    out = str(tmp_path / "model.xml")
    report = roboio.save(robot, out, format="mjcf", meshes="keep")
    m = check_model(robot, out, report)
    check_collisions(m, robot)


@needs_data
@pytest.mark.parametrize("rel", ROBOTS)
def test_every_robot_compiles_in_mujoco(rel, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    robot = bare(rel)
    out = str(tmp_path / "model.xml")
    report = roboio.save(robot, out, format="mjcf")
    m = check_model(robot, out, report, nsamples=2)
    check_collisions(m, robot)


@needs_data
@pytest.mark.parametrize("rel", ROBOTS)
def test_every_robot_as_urdf_in_pinocchio(rel, tmp_path):
    pin = pytest.importorskip("pinocchio")
    from test_urdf_reference import pinocchio_fk, urdf_structure
    from test_mjcf_mujoco import sample
    robot = bare(rel)
    out = str(tmp_path / "r.urdf")
    report = roboio.save(robot, out)
    back = reload(out)
    res = verify(robot, back, 10, seed=1)
    tol = 1e-9 + 2 * max(report.fk_error)
    assert not res.only_a and res.max_position_error <= tol and res.max_rotation_error <= tol, \
        (res.worst_link, report.lost)
    written = set(urdf_structure(out)[0])          # not the virtual links of a floating base
    links = [i for i, n in enumerate(back.link_names) if n in written]
    Q = sample(back, 3, seed=7)
    np.testing.assert_allclose(pinocchio_fk(out, back, Q, links), back.fk_batch(Q)[:, links], atol=1e-9, rtol=0)
    model = pin.buildModelFromUrdf(out)
    assert sum(model.inertias[j].mass for j in range(model.njoints)) == \
        pytest.approx(sum(l.mass for l in robot.links), rel=1e-12, abs=1e-12)


@needs_data
@pytest.mark.parametrize("rel", sorted(REFUSED))
def test_files_urdfdom_refuses_are_refused(rel):
    if rel not in ALL:
        pytest.skip("not in this example-robot-data")
    with pytest.raises(roboio.FormatError, match=re.escape(REFUSED[rel])):
        load(rel)
    pin = pytest.importorskip("pinocchio")
    with pytest.raises(ValueError):
        pin.buildModelFromUrdf(os.path.join(ROOT, rel))


WRITERS = {**cm.WRITERS, "klampt-world": "w.xml"}
# GraspIt! and COLLADA cost ~10x the others: every fourth robot
PAIRS = [(rel, fmt) for fmt in WRITERS for k, rel in enumerate(ROBOTS)
         if fmt not in ("graspit", "collada-robot") or k % 4 == 0]


@needs_data
@pytest.mark.parametrize("rel, fmt", PAIRS)
def test_every_writer_round_trip(rel, fmt, tmp_path):
    """Convert, read back, ``verify`` as ``roboio verify`` does (OK: exact; LOSS: within what
    the report states, as tools/conversion_matrix.py judges it), then write -> read -> write
    is a fixed point."""
    status, detail = cm.check_robot(bare(rel), fmt, str(tmp_path), samples=10, name=WRITERS[fmt])
    assert status in ("OK", "LOSS"), detail


@needs_data
@pytest.mark.parametrize("rel", ["romeo_description/urdf/romeo.urdf", "talos_data/robots/talos_left_arm.urdf",
                                 "so_arm_description/urdf/so101.urdf"])
@pytest.mark.parametrize("fmt, name", [("urdf", "r.urdf"), ("klampt-rob", "r.rob"), ("choreonoid-body", "r.body")])
def test_cli_convert_and_verify(rel, fmt, name, tmp_path, capsys):
    """``roboio convert IN OUT --to FMT --package-path ROOT`` then ``roboio verify IN OUT``."""
    from roboio.cli.main import main
    src, out = os.path.join(ROOT, rel), str(tmp_path / name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["convert", src, out, "--to", fmt, "--package-path", ROOT]) == 0
        text = capsys.readouterr().out
        assert "Traceback" not in text and f"wrote {out}" in text
        assert main(["verify", src, out, "--package-path", ROOT, "--samples", "5"]) == 0, capsys.readouterr().out
