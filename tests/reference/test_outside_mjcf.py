"""tools/outside_robots.py on an MJCF source compares like with like: a named free base and
the source's own actuators (a muscle on a tendon, a motor) are no failures, and the check
still catches a wrong mass, a moved body and a changed actuator in the output."""
import os
import re
import sys

import pytest

from conftest import ROOT

mujoco = pytest.importorskip("mujoco")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import outside_robots  # noqa: E402

import roboio  # noqa: E402

SOURCE = """<mujoco model="walker">
  <worldbody>
    <body name="torso" pos="0 0 1">
      <freejoint name="root"/>
      <geom type="box" size=".2 .1 .05" mass="3"/>
      <site name="s0" pos=".1 0 0"/>
      <body name="thigh" pos="0 0 -.1">
        <joint name="hip" type="hinge" axis="0 1 0" range="-1 1"/>
        <geom type="capsule" fromto="0 0 0 0 0 -.4" size=".04" mass="1.5"/>
        <site name="s1" pos=".05 0 -.2"/>
        <body name="shin" pos="0 0 -.4">
          <joint name="knee" type="hinge" axis="0 1 0" range="-2 0"/>
          <geom type="capsule" fromto="0 0 0 0 0 -.4" size=".03" mass="1"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial name="quad"><site site="s0"/><site site="s1"/></spatial>
  </tendon>
  <actuator>
    <muscle name="quad_m" tendon="quad"/>
    <motor name="knee_m" joint="knee" gear="40" ctrlrange="-1 1" ctrllimited="true"/>
  </actuator>
</mujoco>
"""


def _check(tmp_path):
    src = tmp_path / "walker.xml"
    src.write_text(SOURCE)
    work = tmp_path / "out"
    work.mkdir()
    return src, outside_robots.check_mjcf(str(src), [], str(work))


def test_mjcf_source_compared_like_with_like(tmp_path):
    _, (status, msg) = _check(tmp_path)
    assert status in ("OK", "LOSS"), msg


@pytest.mark.parametrize("change,expected", [
    (lambda t: t.replace('mass="1.5"', 'mass="1.6"'), "mass"),
    (lambda t: t.replace('name="shin" pos="0 0 -0.4"', 'name="shin" pos="0 0.001 -0.4"'), "pose"),
    (lambda t: t.replace('gear="40"', 'gear="41"'), "actuator 'knee_m'"),
])
def test_mjcf_source_check_still_catches_errors(tmp_path, change, expected):
    src, _ = _check(tmp_path)
    robot = roboio.load(str(src))
    out = tmp_path / "w.xml"
    report = roboio.save(robot, str(out), format="mjcf")
    assert outside_robots.source_differences(str(src), str(out), report) == []
    text = out.read_text()
    broken = change(text)
    assert broken != text
    out.write_text(broken)
    found = outside_robots.source_differences(str(src), str(out), report)
    assert any(expected in m for m in found), found
