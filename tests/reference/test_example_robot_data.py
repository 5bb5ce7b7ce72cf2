"""Robots no one here wrote: URDFs of the ``example-robot-data`` package (a test-only
dependency, found through its installed distribution; the tests skip without it), exported
to MJCF and checked by MuJoCo exactly as the corpus robots are
(:mod:`test_mjcf_mujoco`)."""
import os
import warnings

import pytest

import roboio

pytest.importorskip("mujoco")
from test_mjcf_mujoco import check_collisions, check_model  # noqa: E402


def robots_dir():
    try:
        from importlib.metadata import PackageNotFoundError, distribution
        d = distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots")
    except (ImportError, PackageNotFoundError):
        return None
    return str(d) if os.path.isdir(str(d)) else None


ROOT = robots_dir()
needs_data = pytest.mark.skipif(ROOT is None, reason="example-robot-data is not installed")

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


@needs_data
@pytest.mark.parametrize("rel", SAMPLE)
def test_example_robot_data_in_mujoco(rel, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)          # MuJoCo writes MUJOCO_LOG.TXT into the working directory
    robot = load(rel)
    out = str(tmp_path / "model.xml")
    report = roboio.save(robot, out, format="mjcf", meshes="keep")
    m = check_model(robot, out, report)
    check_collisions(m, robot)
