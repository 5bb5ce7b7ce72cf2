"""The viewer's pieces that need no browser: an explicit --port, joint labels, link-name
label groups, slider units."""
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, SAMPLES

import roboio
from roboio.model import Joint, Link, Robot

pytest.importorskip("viser")
from roboio.view.server import display_scale, label_groups, short_label, slider_specs  # noqa: E402

ARM = os.path.join(SAMPLES, "planar_arm.rob")


def test_an_explicit_port_in_use_is_an_error_not_another_port():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "roboio", "view", ARM, "--port", str(port),
                            "--no-browser"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"port {port}" in r.stderr and "in use" in r.stderr
    assert "http://" not in r.stdout


@pytest.mark.parametrize("name,shown", [
    ("WAIST_P", "WAIST_P"), ("LARM_ELBOW", "LARM_ELBOW"),
    ("LARM_SHOULDER_P", "LARM…DER_P"), ("LARM_SHOULDER_R", "LARM…DER_R"),
])
def test_long_joint_names_keep_their_start_and_end(name, shown):
    assert short_label(name) == shown


def test_short_labels_tell_the_sides_and_axes_of_a_humanoid_apart():
    names = [f"{s}{limb}_{j}_{a}" for s in "LR" for limb in ("ARM", "LEG") for j in ("SHOULDER", "HIP", "WRIST")
             for a in "PRY"]
    assert len({short_label(n) for n in names}) == len(names)
    assert all(len(short_label(n)) <= len(n) for n in names)


def test_links_on_one_origin_share_one_label():
    """A floating base's x, y, z, yaw, pitch, roll links: the translations move apart, the
    rotations sit on the z link's origin; a link 0.1 m along x of its parent is its own."""
    r = Robot("float")
    for k, (jt, axis) in enumerate([("prismatic", (1, 0, 0)), ("prismatic", (0, 1, 0)), ("prismatic", (0, 0, 1)),
                                    ("revolute", (0, 0, 1)), ("revolute", (0, 1, 0)), ("revolute", (1, 0, 0))]):
        r.add_link(Link(f"base{k}", k - 1, jt, axis), qmin=-1, qmax=1)
    T = np.eye(4)
    T[0, 3] = 0.1
    r.add_link(Link("arm", 5, "revolute", (0, 0, 1), parent_transform=T), qmin=-1, qmax=1)
    r.joints = [Joint("floating", [0, 1, 2, 3, 4, 5]), Joint("normal", [6])]
    groups = dict(label_groups(r))
    assert groups[2] == [2, 3, 4, 5] and groups[6] == [6]
    assert groups[0] == [0] and groups[1] == [1]


def test_sliders_are_degrees_for_revolute_and_metres_for_prismatic():
    robot = roboio.load(ARM)
    units = {s.label: s.unit for s in slider_specs(robot)}
    prism = {d.name for d in robot.drivers if robot.links[d.dofs[0]].is_prismatic}
    assert prism and all(units[n] == "m" for n in prism)
    assert all(u == "rad" for n, u in units.items() if n not in prism)
    assert display_scale("rad")[0] == pytest.approx(57.29577951308232, rel=1e-15)
    assert display_scale("m")[0] == 1.0
