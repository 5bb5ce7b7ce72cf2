"""The MJCF reader against MuJoCo itself: for small models written here, one per feature
(default classes, compiler settings, every orientation form, frames, fromto, several joints
per body, joint pos and ref, ball and free joints, masses and inertias from geoms and
meshes, includes, replicate), roboio's link poses equal MuJoCo's body poses by name at
qpos0 and at random configurations, and its masses, centres and inertia tensors equal
MuJoCo's compiled ones. Expected values: MuJoCo's compiled model (``mujoco`` is a test
dependency). Also: MJCF -> MJCF -> MuJoCo and MJCF -> URDF -> pinocchio keep the poses."""
import os
import warnings

import numpy as np
import pytest

import roboio
from roboio.model import Robot
from roboio.transforms import quat_to_matrix

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
SAMPLES = os.path.join(os.path.dirname(roboio.__file__), "data", "samples", "mjcf")

CUBE_OBJ = """v 0 0 0\nv 1 0 0\nv 1 2 0\nv 0 2 0\nv 0 0 3\nv 1 0 3\nv 1 2 3\nv 0 2 3
f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8
"""
# a non-convex "L" prism (legacy, exact and convex inertia differ)
L_OBJ = """v 0 0 0\nv 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0
v 0 0 1\nv 2 0 1\nv 2 1 1\nv 1 1 1\nv 1 2 1\nv 0 2 1
f 1 3 2\nf 1 4 3\nf 1 6 4\nf 4 6 5
f 7 8 9\nf 7 9 10\nf 7 10 12\nf 10 11 12
f 1 2 8\nf 1 8 7\nf 2 3 9\nf 2 9 8\nf 3 4 10\nf 3 10 9\nf 4 5 11\nf 4 11 10\nf 5 6 12\nf 5 12 11\nf 6 1 7\nf 6 7 12
"""

MODELS = {
    "defaults_childclass": """
<mujoco>
  <default>
    <joint axis="1 0 0" range="-30 60"/>
    <geom type="box" size="0.1 0.2 0.3" density="700"/>
    <default class="a"><joint axis="0 1 1"/><geom type="capsule" size="0.05 0.2"/>
      <default class="b"><geom type="ellipsoid" size="0.1 0.2 0.15"/></default></default>
  </default>
  <worldbody>
    <body name="r" pos="0.1 0.2 0.3" childclass="a">
      <joint name="j0"/><geom/>
      <body name="c1" pos="0 0 0.5"><joint name="j1" class="main"/><geom class="b"/><geom class="main" pos="0.1 0 0"/>
        <body name="c2" pos="0.3 0 0" childclass="b"><joint name="j2"/><geom/></body>
      </body>
    </body>
  </worldbody>
</mujoco>""",
    "orientations_radian": """
<mujoco><compiler angle="radian" eulerseq="ZYX"/>
  <worldbody>
    <body name="a" quat="0.5 0.5 -0.5 0.1"><joint/><geom size="0.1"/>
      <body name="b" pos="1 0 0" axisangle="1 2 3 0.7"><joint axis="1 1 0"/><geom size="0.1"/>
        <body name="c" pos="0 1 0" euler="0.3 -0.2 1.1"><joint type="slide" axis="0 0 1"/><geom size="0.1"/>
          <body name="d" pos="0 0 1" xyaxes="0 1 0 -1 0.2 0"><joint/><geom size="0.1"/>
            <body name="e" pos="0.2 0 0" zaxis="0.3 -0.4 0.5"><joint/><geom size="0.1"/>
              <body name="f" zaxis="0 0 -1"><joint/><geom size="0.1"/></body>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>""",
    "euler_xyz_degrees": """
<mujoco><compiler eulerseq="xYz"/>
  <worldbody>
    <body name="a" euler="10 20 30"><joint axis="0 1 0" ref="15"/><geom size="0.1"/>
      <body name="b" pos="0 0 1" euler="-40 50 170"><joint type="slide" ref="0.2" axis="1 0 0"/><geom size="0.1"/></body>
    </body>
  </worldbody>
</mujoco>""",
    "frames_fromto": """
<mujoco>
  <default><default class="f"><geom type="capsule" size="0.02"/></default></default>
  <worldbody>
    <frame pos="0.5 0 0" euler="0 0 45">
      <body name="a" pos="0 0.1 0"><joint pos="0.1 0 0" axis="0 0 1"/>
        <frame pos="0 0 0.2" euler="30 0 0" childclass="f">
          <geom fromto="0 0 0 0.3 0.1 0.2"/>
          <joint type="slide" axis="1 0 0"/>
          <frame pos="0.1 0 0" zaxis="0 1 0">
            <body name="b" pos="0 0 0.1"><joint axis="1 0 0" pos="0 0.05 0"/>
              <geom type="cylinder" fromto="0 0 0 0 0 0.4"/>
              <geom type="box" size="0.05" fromto="0 0 0 0.2 0 0"/>
              <geom type="ellipsoid" size="0.05" fromto="0 0 0 0 -0.2 0.1"/>
            </body>
          </frame>
        </frame>
      </body>
    </frame>
  </worldbody>
</mujoco>""",
    "ball_free_multi": """
<mujoco>
  <worldbody>
    <body name="torso" pos="0 0 1" euler="10 0 20"><freejoint name="root"/><geom type="box" size="0.2 0.1 0.3"/>
      <body name="arm" pos="0.3 0 0.2"><joint name="sh" type="ball" pos="-0.05 0 0" range="0 80"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <body name="fore" pos="0.3 0 0"><joint name="e1" axis="0 1 0" pos="0 0 0.02"/>
          <joint name="e2" type="slide" axis="1 0 0" ref="0.05"/><joint name="e3" axis="1 0 0" ref="-20"/>
          <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03"/>
        </body>
      </body>
    </body>
    <body name="ball" pos="1 1 0.2"><freejoint/><geom size="0.1" mass="2"/></body>
  </worldbody>
</mujoco>""",
    "inertia_rules": """
<mujoco><compiler inertiafromgeom="true" boundmass="0.01" boundinertia="0.001" balanceinertia="true"/>
  <worldbody>
    <body name="a"><joint/><inertial pos="1 2 3" mass="5" diaginertia="1 1 1"/>
      <geom type="box" size="0.1 0.2 0.3" pos="0.1 0 0" euler="10 20 30"/>
      <geom type="sphere" size="0.1" pos="0 0.3 0" shellinertia="true"/>
      <geom type="capsule" size="0.05 0.2" shellinertia="true" mass="3"/>
      <geom type="cylinder" size="0.05 0.2" shellinertia="true" pos="0 0 1"/>
      <geom type="ellipsoid" size="0.05 0.1 0.2" shellinertia="true" pos="0 1 0"/>
      <geom type="box" size="0.05 0.1 0.2" shellinertia="true" pos="1 1 0"/>
      <geom type="sphere" size="0.2" group="4"/>
      <geom type="sphere" size="0.2" group="6"/>
      <body name="b" pos="0 0 1"><joint/><geom size="0.001" density="1"/>
        <body name="c" pos="0 0 1"><joint/><geom type="box" size="1 0.01 0.01" density="10"/></body>
      </body>
    </body>
  </worldbody>
</mujoco>""",
    "inertial_forms": """
<mujoco>
  <worldbody>
    <body name="a"><joint/><inertial pos="0.1 0 0" mass="2" quat="0.7 0.1 0.2 0.3" diaginertia="0.3 0.4 0.5"/>
      <body name="b" pos="0 0 1"><joint/><inertial pos="0 0.1 0" mass="1" fullinertia="0.3 0.4 0.5 0.01 -0.02 0.03"/>
        <body name="c" pos="0 0 1"><joint/><inertial pos="0 0 0.1" mass="1" euler="10 20 30" diaginertia="0.1 0.1 0.15"/>
          <geom size="0.5"/></body>
      </body>
    </body>
  </worldbody>
</mujoco>""",
    "settotalmass": """
<mujoco><compiler settotalmass="7"/>
  <worldbody>
    <body name="a"><joint/><geom size="0.1"/><body name="b" pos="0 0 1"><joint/><geom type="box" size="0.1 0.2 0.3"/></body></body>
  </worldbody>
</mujoco>""",
    "meshes": """
<mujoco><compiler meshdir="m"/>
  <asset>
    <mesh name="cube" file="cube.obj" scale="0.1 0.2 -0.05"/>
    <mesh name="L_legacy" file="l.obj" scale="0.1 0.1 0.1"/>
    <mesh name="L_exact" file="l.obj" scale="0.1 0.1 0.1" inertia="exact"/>
    <mesh name="L_shell" file="l.obj" scale="0.1 0.1 0.1" inertia="shell"/>
    <mesh name="L_convex" file="l.obj" scale="0.1 0.1 0.1" inertia="convex"/>
    <mesh name="tet" vertex="0 0 0  1 0 0  0 1 0  0 0 1" face="0 2 1  0 1 3  0 3 2  1 2 3" scale="0.3 0.3 0.3"/>
  </asset>
  <worldbody>
    <body name="a"><joint/><geom type="mesh" mesh="cube" pos="0.1 0 0" euler="0 30 0"/>
      <body name="b" pos="1 0 0"><joint/><geom type="mesh" mesh="L_legacy"/><geom type="mesh" mesh="tet" pos="0 0 1"/></body>
      <body name="c" pos="2 0 0"><joint/><geom type="mesh" mesh="L_exact" euler="10 0 0"/></body>
      <body name="d" pos="3 0 0"><joint/><geom type="mesh" mesh="L_shell" density="3"/></body>
      <body name="e" pos="4 0 0"><joint/><geom type="mesh" mesh="L_convex" mass="2"/></body>
    </body>
  </worldbody>
</mujoco>""",
    # tilted bricks (vertices rounded to mm): MuJoCo keeps a mesh's principal axes where its
    # Jacobi iteration stops, up to 1e-7 of the largest moment off the exact tensor's
    "mesh_principal_axes": """
<mujoco>
  <asset>
    <mesh name="brick9" face="0 1 3 0 3 2 4 6 7 4 7 5 0 4 5 0 5 1 2 3 7 2 7 6 0 2 6 0 6 4 1 5 7 1 7 3"
      vertex="0.314 0.004 -0.203 0.371 -0.048 -0.018 0.058 -0.303 -0.212 0.115 -0.355 -0.027
      -0.115 0.355 0.027 -0.058 0.303 0.212 -0.371 0.048 0.018 -0.314 -0.004 0.203"/>
    <mesh name="brick38" face="0 1 3 0 3 2 4 6 7 4 7 5 0 4 5 0 5 1 2 3 7 2 7 6 0 2 6 0 6 4 1 5 7 1 7 3"
      vertex="0.207 0.309 -0.04 0.335 0.166 0.012 0.088 0.09 -0.352 0.217 -0.054 -0.3
      -0.217 0.054 0.3 -0.088 -0.09 0.352 -0.335 -0.166 -0.012 -0.207 -0.309 0.04"/>
    <!-- no faces: MuJoCo's convex hull of its float32 vertices (a double-precision hull
         splits the corners, not quite coplanar, the other way: a volume 1.4e-8 off) -->
    <mesh name="hull9" vertex="0.314 0.004 -0.203 0.371 -0.048 -0.018 0.058 -0.303 -0.212 0.115 -0.355 -0.027
      -0.115 0.355 0.027 -0.058 0.303 0.212 -0.371 0.048 0.018 -0.314 -0.004 0.203"/>
  </asset>
  <worldbody>
    <body name="h" pos="0 0 1"><joint/><geom type="mesh" mesh="hull9"/></body>
    <body name="a"><joint/><geom type="mesh" mesh="brick9"/>
      <body name="b" pos="1 0 0"><joint axis="0 1 0"/><geom type="mesh" mesh="brick38" mass="2" euler="10 20 30"/></body>
      <body name="c" pos="0 1 0"><joint/><geom type="mesh" mesh="brick9" pos="0.1 0 0"/><geom type="mesh" mesh="brick38"/></body>
    </body>
  </worldbody>
</mujoco>""",
    "include_replicate": """
<mujoco>
  <include file="parts.xml"/>
  <worldbody>
    <body name="base"><joint/><geom size="0.1"/>
      <replicate count="3" offset="0.5 0 0" euler="0 0 30" sep="_">
        <body name="leg" pos="0.2 0 0"><joint name="knee" axis="0 1 0"/><geom class="leg" fromto="0 0 0 0 0 -0.3"/></body>
      </replicate>
    </body>
  </worldbody>
  <actuator><motor joint="knee"/></actuator>
</mujoco>""",
    # <include> inside <asset> and <worldbody>: every reader that walks the asset section
    # (meshes, materials, height fields) sees the included elements, the file counted once
    "include_in_sections": """
<mujoco>
  <compiler meshdir="m"/>
  <asset><include file="assets.xml"/><material name="blue" rgba="0 0 1 1"/></asset>
  <worldbody>
    <include file="bodies.xml"/>
    <body name="b" pos="0 1 0"><joint axis="1 0 0"/><geom type="mesh" mesh="cube" material="red"/></body>
  </worldbody>
</mujoco>""",
    # fusestatic: a static body with an explicit inertial, geoms and a site under a moving body
    "fusestatic_inertial": """
<mujoco><compiler fusestatic="true"/>
  <worldbody>
    <body name="arm" pos="0 0 1" euler="10 20 30"><joint name="j0" axis="0 1 0"/><geom type="capsule" size="0.05 0.2" pos="0.1 0 0"/>
      <body name="bracket" pos="0.3 0.1 0" euler="0 90 30">
        <inertial pos="0.01 0.02 0.03" euler="10 0 5" mass="0.7" diaginertia="0.01 0.02 0.025"/>
        <geom name="bg" type="box" size="0.05 0.04 0.03" pos="0.02 0 0" euler="0 0 45" rgba="1 0 0 1"/>
        <site name="tip" pos="0.1 0 0"/>
      </body>
      <body name="hand" pos="0.5 0 0"><joint name="j1" axis="0 0 1"/><geom size="0.04"/></body>
    </body>
  </worldbody>
</mujoco>""",
    # fusestatic: nested static bodies (one unnamed) between a free body and a hinged leg that has a static foot
    "fusestatic_nested_moving": """
<mujoco><compiler fusestatic="true"/>
  <worldbody>
    <body name="base" pos="0.2 0 0.5"><freejoint/><geom type="box" size="0.2 0.1 0.05"/>
      <body name="s1" pos="0 0 0.1" quat="0.9 0.1 0.3 0.2"><geom type="cylinder" size="0.03 0.1" mass="0.4"/>
        <body pos="0.1 0 0" euler="30 0 0"><geom type="ellipsoid" size="0.03 0.04 0.05"/>
          <body name="leg" pos="0 0.2 0" euler="0 0 20"><joint name="hip" axis="1 0 0" range="-30 30"/>
            <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02"/>
            <body name="foot" pos="0 0 -0.3"><geom type="box" size="0.05 0.03 0.01" pos="0.02 0 0"/></body>
          </body>
        </body>
        <body name="s2" pos="0 0 0.2"><geom size="0.05" density="500"/></body>
      </body>
    </body>
  </worldbody>
</mujoco>""",
    # fusestatic: static bodies named by <exclude>, <equality weld> and a body sensor stay bodies
    "fusestatic_referenced": """
<mujoco><compiler fusestatic="true"/>
  <worldbody>
    <body name="a"><joint name="ja"/><geom size="0.1"/>
      <body name="ex" pos="0.2 0 0"><geom size="0.05"/></body>
      <body name="eq" pos="0 0.2 0"><geom size="0.05"/></body>
      <body name="sens" pos="0 0 0.2"><geom size="0.05"/></body>
      <body name="free" pos="0.2 0.2 0"><geom size="0.05"/></body>
      <body name="b" pos="0.4 0 0"><joint name="jb"/><geom type="box" size="0.1 0.1 0.1"/></body>
    </body>
  </worldbody>
  <contact><exclude body1="ex" body2="b"/></contact>
  <equality><weld body1="eq"/></equality>
  <sensor><framepos objtype="body" objname="sens"/></sensor>
</mujoco>""",
    # fusestatic: static children of the world fuse into it (terrains); their moving children become robots
    "fusestatic_world": """
<mujoco><compiler fusestatic="true"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="table" pos="1 0 0.4" euler="0 0 30"><geom name="top" type="box" size="0.4 0.3 0.02"/>
      <body name="leg" pos="0.3 0.2 -0.2"><geom name="legg" type="cylinder" size="0.02 0.2"/></body>
      <body name="robot" pos="0 0 0.1"><joint name="r0" axis="0 0 1"/><geom type="capsule" size="0.03 0.1"/>
        <body name="r1" pos="0 0 0.2"><joint name="r1" axis="0 1 0"/><geom size="0.03"/>
          <body name="r1s" pos="0.1 0 0"><geom size="0.02"/></body></body>
      </body>
    </body>
    <body name="cube" pos="0 1 0.5"><freejoint/><geom type="box" size="0.05 0.05 0.05"/></body>
  </worldbody>
</mujoco>""",
    # fusestatic: mocap bodies stay (their static children fuse into them); camera targets and force-sensor sites keep their bodies; boundmass on a geomless body; settotalmass after fusing
    "fusestatic_mocap_cam_ft_total": """
<mujoco><compiler fusestatic="true" settotalmass="10" boundmass="0.01" boundinertia="1e-4"/>
  <worldbody>
    <body name="m" mocap="true" pos="0 0 1"><geom size="0.1"/><body name="mc" pos="0.1 0 0"><geom size="0.05"/></body></body>
    <body name="a"><joint name="ja" type="slide"/><geom size="0.1"/>
      <body name="tgt" pos="0.2 0 0"><geom size="0.05"/></body>
      <body name="ft" pos="0 0.2 0"><geom size="0.05"/><site name="fs"/></body>
      <body pos="0 0 0.3"><geom size="0.05"/></body>
      <body name="massless" pos="0 0 -0.3"/>
      <body pos="0.5 0 0"><joint/><geom type="box" size="0.1 0.1 0.1" contype="0" conaffinity="0"/><geom size="0.02" pos="0.1 0 0"/></body>
    </body>
    <body name="static_top" pos="0 0 2"><geom size="0.1" mass="3"/></body>
    <camera name="c" mode="targetbody" target="tgt"/>
  </worldbody>
  <sensor><force site="fs"/></sensor>
</mujoco>""",
    # fusestatic: discardvisual with fusestatic
    "fusestatic_discardvisual": """
<mujoco><compiler fusestatic="true" discardvisual="true"/>
  <worldbody>
    <body name="a"><joint name="ja"/><geom size="0.1"/>
      <body name="v" pos="0.2 0 0"><geom size="0.05" contype="0" conaffinity="0"/><geom size="0.03" pos="0 0.1 0"/></body>
      <body name="onlyvis" pos="0 0.2 0"><geom size="0.05" contype="0" conaffinity="0"/></body>
    </body>
  </worldbody>
</mujoco>""",
    # fusestatic: free bodies below a static top-level body become top-level (rigid object, robot)
    "fusestatic_free_under_static": """
<mujoco><compiler fusestatic="true"/>
  <worldbody>
    <body name="shelf" pos="0 0 1" euler="0 0 40"><geom type="box" size="0.3 0.3 0.01"/>
      <body name="obj" pos="0.1 0 0.05"><freejoint/><geom size="0.04"/></body>
      <body name="bot" pos="-0.1 0 0.05"><freejoint/><geom size="0.04"/><body name="lid" pos="0 0 0.05"><joint/><geom size="0.02"/>
         <body name="knob" pos="0 0 0.03"><geom size="0.01"/></body></body></body>
    </body>
  </worldbody>
</mujoco>""",
    # fusestatic: fused geoms change which bodies collide (torso gets a bit-1 geom; l2's
    # parent becomes l1); "kept" stays a body (named by <exclude>), welded to l3
    "fusestatic_pairs": """
<mujoco><compiler fusestatic="true"/>
  <worldbody>
    <body name="torso"><freejoint/><geom size="0.1" contype="2" conaffinity="2"/>
      <body name="plate" pos="0 0 -0.1"><geom name="plate" type="box" size="0.1 0.1 0.01"/></body>
      <body name="l1" pos="0 0 0.2"><joint/><geom size="0.05"/>
        <body name="l1s" pos="0 0 0.1" euler="0 30 0"><geom name="l1s" size="0.03"/>
          <body name="l2" pos="0 0 0.1"><joint axis="1 0 0"/><geom size="0.05"/>
            <body name="l3" pos="0 0 0.2"><joint/><geom size="0.05"/>
              <body name="kept" pos="0 0 0.1"><geom name="kept" size="0.02"/></body></body></body></body></body>
      <body name="l4" pos="0.3 0 0"><joint/><geom size="0.05" contype="2" conaffinity="0"/></body>
    </body>
  </worldbody>
  <contact><exclude body1="kept" body2="l1"/></contact>
</mujoco>""",
    # fusestatic: an adhesion actuator's body, a subtreecom sensor's body, a light's target,
    # a custom tuple's body and a sensor's xbody reference stay bodies; "plain" (a site
    # used by an actuator and a sensor) fuses
    "fusestatic_references": """
<mujoco><compiler fusestatic="true"/><worldbody><light target="lt" mode="targetbody"/>
<body name="a"><joint/><geom size="0.1"/>
 <body name="ad" pos="0.1 0 0"><geom size="0.05"/></body>
 <body name="sc" pos="0.2 0 0"><geom size="0.05"/></body>
 <body name="lt" pos="0.3 0 0"><geom size="0.05"/></body>
 <body name="tup" pos="0.4 0 0"><geom size="0.05"/></body>
 <body name="xb" pos="0.5 0 0"><geom size="0.05"/></body>
 <body name="plain" pos="0.6 0 0"><geom size="0.05"/><site name="st"/></body>
</body></worldbody>
<actuator><adhesion body="ad" ctrlrange="0 1"/><motor site="st"/></actuator>
<sensor><subtreecom body="sc"/><framepos objtype="site" objname="st" reftype="xbody" refname="xb"/></sensor>
<custom><tuple name="t"><element objtype="body" objname="tup"/></tuple></custom>
</mujoco>""",
}
PARTS = """<mujoco><default><default class="leg"><geom type="capsule" size="0.03"/></default></default></mujoco>"""
ASSETS = """<mujoco><mesh name="cube" file="cube.obj"/><material name="red" rgba="1 0 0 1"/></mujoco>"""
BODIES = """<mujoco><body name="a" pos="0.5 0 0"><joint axis="0 1 0"/><geom type="mesh" mesh="cube" material="blue"/></body></mujoco>"""


def write_model(tmp_path, name) -> str:
    d = tmp_path / name
    (d / "m").mkdir(parents=True)
    (d / "m" / "cube.obj").write_text(CUBE_OBJ)
    (d / "m" / "l.obj").write_text(L_OBJ)
    (d / "parts.xml").write_text(PARTS)
    (d / "assets.xml").write_text(ASSETS)
    (d / "bodies.xml").write_text(BODIES)
    p = d / "model.xml"
    p.write_text(MODELS[name])
    return str(p)


def load(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return roboio.load(path, **kw)


def parts(obj):
    """(robots, rigid objects) of a loaded model."""
    if isinstance(obj, Robot):
        return [obj], []
    return list(obj.robots), list(obj.rigid_objects)


def body_names(m) -> dict:
    return {(m.body(b).name or f"body{b}"): b for b in range(1, m.nbody)}


def robot_qpos(m, robot, qpos) -> np.ndarray:
    """The robot's share of MuJoCo's qpos: the joints of its bodies, in MuJoCo's order."""
    names = body_names(m)
    ids = sorted({names[l.name] for l in robot.links if l.name in names})
    out = []
    for b in ids:
        for j in range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b]):
            a = m.jnt_qposadr[j]
            out.extend(qpos[a:a + {0: 7, 1: 4}.get(int(m.jnt_type[j]), 1)])
    return np.array(out)


def random_qpos(m, rng) -> np.ndarray:
    q = m.qpos0.copy()
    for j in range(m.njnt):
        a, t = m.jnt_qposadr[j], m.jnt_type[j]
        if t == 0:
            q[a:a + 3] = rng.uniform(-1, 1, 3)
            v = rng.normal(size=4)
            q[a + 3:a + 7] = v / np.linalg.norm(v)
        elif t == 1:
            v = rng.normal(size=4)
            q[a:a + 4] = v / np.linalg.norm(v)
        else:
            lo, hi = m.jnt_range[j] if m.jnt_limited[j] else (-2.0, 2.0)
            q[a] = rng.uniform(lo, hi)
    return q


def check_poses(path, obj, samples=4, seed=0):
    """Every MuJoCo body's pose equals its roboio link's (or rigid object's at qpos0)."""
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    robots, objects = parts(obj)
    names = body_names(m)
    rng = np.random.default_rng(seed)
    seen = set()
    for k in range(samples + 1):
        qpos = m.qpos0.copy() if k == 0 else random_qpos(m, rng)
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        for r in robots:
            T = r.fk(r.config_from_qpos(robot_qpos(m, r, qpos)))
            for i, l in enumerate(r.links):
                b = names.get(l.name)
                if b is None:
                    continue
                seen.add(b)
                assert np.allclose(T[i][:3, 3], d.xpos[b], atol=TOL, rtol=0), (l.name, k)
                assert np.allclose(T[i][:3, :3], quat_to_matrix(d.xquat[b]), atol=TOL, rtol=0), (l.name, k)
        if k == 0:
            for o in objects:
                b = names[o.name]
                seen.add(b)
                assert np.allclose(o.transform[:3, 3], d.xpos[b], atol=TOL, rtol=0)
                assert np.allclose(o.transform[:3, :3], quat_to_matrix(d.xquat[b]), atol=TOL, rtol=0)
    moving = {b for b in range(1, m.nbody) if m.body_weldid[b] != 0}
    assert moving <= seen


def check_mass(path, obj):
    """Masses, centres and full inertia tensors equal MuJoCo's (relative 1e-9)."""
    m = mujoco.MjModel.from_xml_path(path)
    robots, objects = parts(obj)
    names = body_names(m)
    found = {}
    for r in robots:
        for l in r.links:
            if l.name in names and l.mass:
                found[names[l.name]] = (l.mass, l.com, l.inertia)
    for o in objects:
        found[names[o.name]] = (o.mass, o.com, o.inertia)
    for b in range(1, m.nbody):
        if m.body_mass[b] == 0:
            continue
        mass, com, I = found[b]
        R = quat_to_matrix(m.body_iquat[b])
        Im = R @ np.diag(m.body_inertia[b]) @ R.T
        scale = np.abs(Im).max()
        assert mass == pytest.approx(m.body_mass[b], rel=TOL), m.body(b).name
        assert np.allclose(com, m.body_ipos[b], atol=TOL, rtol=0), m.body(b).name
        assert np.allclose(I, Im, atol=TOL * scale, rtol=0), m.body(b).name


@pytest.mark.parametrize("name", sorted(MODELS))
def test_reader_matches_mujoco(name, tmp_path):
    path = write_model(tmp_path, name)
    obj = load(path)
    check_poses(path, obj)
    check_mass(path, obj)


def mujoco_pairs(m, bodies) -> set:
    """Body pairs (names) MuJoCo's collision filters let through, among ``bodies``: some geom
    pair passes the contype/conaffinity test, not the same weld body, not parent and child
    weld bodies (filterparent), not excluded."""
    excluded = set(int(v) for v in m.exclude_signature)
    weld, parent = m.body_weldid, m.body_parentid
    out = set()
    ids = sorted(bodies)
    for k, a in enumerate(ids):
        for b in ids[k + 1:]:
            wa, wb = weld[a], weld[b]
            if wa == wb or (wa and wb and (wa == weld[parent[wb]] or wb == weld[parent[wa]])):
                continue
            if (a << 16) + b in excluded:
                continue
            ga = [g for g in range(m.ngeom) if m.geom_bodyid[g] == a]
            gb = [g for g in range(m.ngeom) if m.geom_bodyid[g] == b]
            if any((m.geom_contype[i] & m.geom_conaffinity[j]) or (m.geom_contype[j] & m.geom_conaffinity[i])
                   for i in ga for j in gb):
                out.add((m.body(a).name or f"body{a}", m.body(b).name or f"body{b}"))
    return out


def geom_names(geo) -> list:
    if geo is None:
        return []
    kids = getattr(geo, "children", None)
    if kids is not None:
        return [n for c in kids for n in geom_names(c)]
    return [geo.extras.get("mjcf", {}).get("name")]


@pytest.mark.parametrize("name", sorted(n for n in MODELS if n.startswith("fusestatic")))
def test_fusestatic_bodies_geoms_and_pairs_are_mujocos(name, tmp_path):
    """With fusestatic, roboio's bodies are exactly MuJoCo's compiled bodies (by name), each
    geom is on the body MuJoCo put it on (world geoms: terrains), and the self-collision pairs
    are the body pairs MuJoCo's filters keep."""
    path = write_model(tmp_path, name)
    check_structure(path, load(path))


def with_fusestatic(text: str) -> str:
    if "<compiler" in text:
        return text.replace("<compiler", '<compiler fusestatic="true"', 1)
    at = text.index(">", text.index("<mujoco")) + 1
    return text[:at] + '<compiler fusestatic="true"/>' + text[at:]


@pytest.mark.parametrize("name", sorted(n for n in MODELS if not n.startswith("fusestatic")))
def test_every_model_with_fusestatic_matches_mujoco(name, tmp_path):
    """The other models with fusestatic on (their jointless bodies fuse)."""
    path = write_model(tmp_path, name)
    with open(path) as f:
        text = with_fusestatic(f.read())
    with open(path, "w") as f:
        f.write(text)
    obj = load(path)
    check_poses(path, obj)
    check_mass(path, obj)
    check_structure(path, obj)


def check_structure(path, obj):
    m = mujoco.MjModel.from_xml_path(path)
    names = body_names(m)
    robots, objects = parts(obj)
    has = {l.name for r in robots for l in r.links if l.name in names} | {o.name for o in objects}
    assert has == set(names)
    for r in robots:
        welds = {i for j in r.joints if j.type == "weld" for i in j.links}
        welded = {l.name for i, l in enumerate(r.links) if l.name not in names and i in welds}
        assert not welded, welded                # no welded link left for a fused body
        for l in r.links:
            if l.name in names:
                want = sorted(m.geom(g).name for g in range(m.ngeom)
                              if m.geom_bodyid[g] == names[l.name] and m.geom(g).name)
                got = sorted(n for n in set(geom_names(l.geometry) + geom_names(l.visual_geometry)) if n)
                assert got == want, l.name
        ids = {names[l.name] for l in r.links if l.name in names}
        pairs = {tuple(sorted((r.link_names[a], r.link_names[b]))) for a, b in r.self_collision_pairs}
        assert pairs == {tuple(sorted(p)) for p in mujoco_pairs(m, ids)}
    world_geoms = sorted(m.geom(g).name for g in range(m.ngeom) if m.geom_bodyid[g] == 0 and m.geom(g).name)
    terrains = sorted(t.name for t in getattr(obj, "terrains", []))
    assert [g for g in world_geoms if g not in terrains] == []


@pytest.mark.parametrize("name", ["arm.xml", "scene.xml"])
def test_shipped_samples_match_mujoco(name):
    path = os.path.join(SAMPLES, name)
    obj = load(path)
    check_poses(path, obj)
    check_mass(path, obj)


@pytest.mark.parametrize("name", ["arm.xml", "scene.xml"])
def test_shipped_samples_with_fusestatic_match_mujoco(name, tmp_path):
    """The samples with fusestatic on: the arm's static base fuses into the world (a
    terrain), the shoulder's subtree is the robot."""
    import shutil
    d = tmp_path / "mjcf"
    shutil.copytree(SAMPLES, d)
    for f in ("arm.xml", "scene.xml"):
        (d / f).write_text(with_fusestatic((d / f).read_text()))
    path = str(d / name)
    obj = load(path)
    check_poses(path, obj)
    check_mass(path, obj)
    check_structure(path, obj)
    assert "base" not in parts(obj)[0][0].link_names


def test_mjcf_written_again_keeps_mujoco_poses(tmp_path):
    """MJCF -> roboio -> MJCF: MuJoCo compiles the output with the same body poses (by name)
    at the same joint values, masses included."""
    src = write_model(tmp_path, "ball_free_multi")
    m0 = mujoco.MjModel.from_xml_path(src)
    robot = load(src).robots[0]
    out = str(tmp_path / "again.xml")
    roboio.save(robot, out, format="mjcf")
    m1 = mujoco.MjModel.from_xml_path(out)
    back = load(out)
    assert back.link_names == robot.link_names
    # the ball stays a ball (with its anchor and cone), not a z-y-x gimbal of hinges
    sh = m1.joint("sh")
    J = mujoco.mjtJoint
    assert list(m1.jnt_type) == [J.mjJNT_FREE, J.mjJNT_BALL, J.mjJNT_HINGE, J.mjJNT_SLIDE, J.mjJNT_HINGE]
    assert np.allclose(sh.range, np.radians([0, 80]), rtol=0, atol=1e-15)
    assert np.allclose(m1.jnt_pos[sh.id], m0.jnt_pos[m0.joint("sh").id], rtol=0, atol=1e-15)
    d1 = mujoco.MjData(m1)
    rng = np.random.default_rng(3)
    n0, n1 = body_names(m0), body_names(m1)
    moving = np.array([robot.joint_of_link(i).type != "weld" for i in range(robot.num_links)])
    for _ in range(5):
        q = robot.config + moving * rng.uniform(-0.5, 0.5, robot.num_links)
        d1.qpos[:] = back.qpos_from_config(q)
        mujoco.mj_kinematics(m1, d1)
        T = robot.fk(q)
        for i, l in enumerate(robot.links):
            if l.name in n1:
                b = n1[l.name]
                assert np.allclose(d1.xpos[b], T[i][:3, 3], atol=TOL)
                assert np.allclose(quat_to_matrix(d1.xquat[b]), T[i][:3, :3], atol=TOL)
    for name, b in n0.items():
        if name in n1 and m0.body_mass[b] > 0:
            assert m1.body_mass[n1[name]] == pytest.approx(m0.body_mass[b], rel=TOL)


def test_mjcf_to_urdf_in_pinocchio(tmp_path):
    """MJCF -> URDF: pinocchio's frames of the URDF equal MuJoCo's bodies of the source."""
    pin = pytest.importorskip("pinocchio")
    src = os.path.join(SAMPLES, "arm.xml")
    robot = load(src)
    out = str(tmp_path / "arm.urdf")
    roboio.save(robot, out)
    model = pin.buildModelFromUrdf(out)
    data = model.createData()
    m = mujoco.MjModel.from_xml_path(src)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(5)
    for _ in range(4):
        qpos = random_qpos(m, rng)
        qpos[m.jnt_qposadr[m.joint("right").id]] = qpos[m.jnt_qposadr[m.joint("left").id]]
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        q = robot.config_from_qpos(qpos)
        qp = pin.neutral(model)
        for f in model.frames:      # each joint's child link carries the joint's value
            if f.type == pin.FrameType.BODY and f.parentJoint > 0 and f.name in robot.link_names:
                if model.frames[f.previousFrame].type == pin.FrameType.JOINT:
                    qp[model.joints[f.parentJoint].idx_q] = q[robot.link_index(f.name)]
        pin.framesForwardKinematics(model, data, qp)
        for b in range(1, m.nbody):
            f = model.getFrameId(m.body(b).name, pin.FrameType.BODY)
            assert np.allclose(data.oMf[f].translation, d.xpos[b], atol=TOL)
            assert np.allclose(data.oMf[f].rotation, quat_to_matrix(d.xquat[b]), atol=TOL)


def test_polynomial_coupling_satisfies_mujocos_equality(tmp_path):
    """<equality joint polycoef> of degree 2 with refs: roboio's nonlinear driver puts the
    follower where MuJoCo's constraint is satisfied (its violation efc_pos is 0), in the
    file and in roboio's MJCF written from it."""
    p = tmp_path / "poly.xml"
    p.write_text("""<mujoco><compiler angle="radian"/><worldbody>
        <body name="a"><joint name="ja" ref="0.2" range="-1 1"/><geom size="0.1"/>
        <body name="b" pos="1 0 0"><joint name="jb" ref="-0.1"/><geom size="0.1"/></body></body></worldbody>
      <equality><joint joint1="jb" joint2="ja" polycoef="0.05 1 0.5 -0.2 0"/></equality></mujoco>""")
    r = load(str(p))
    m = mujoco.MjModel.from_xml_path(str(p))
    out = tmp_path / "again.xml"
    roboio.save(r, str(out))
    m2 = mujoco.MjModel.from_xml_path(str(out))
    assert m2.neq == 1
    for model in (m, m2):            # the written file may shift refs: the same constraint
        d = mujoco.MjData(model)
        for ja in (-0.9, 0.2, 0.8):
            q = r.config_from_drivers([ja])
            d.qpos[:] = r.qpos_from_config(q)
            mujoco.mj_forward(model, d)
            eq = [i for i in range(d.nefc) if d.efc_type[i] == mujoco.mjtConstraint.mjCNSTR_EQUALITY]
            assert len(eq) == 1 and abs(d.efc_pos[eq[0]]) < 1e-12, d.efc_pos[eq[0]]


def test_polynomial_followers_declared_before_their_leader(tmp_path):
    """Two joints that follow a polynomial of a joint declared after them (myo_sim's knee:
    translations and rotations of the tibia, then knee_angle), and another driver after
    it: roboio's drivers put the followers where MuJoCo's constraints are satisfied, and the
    MJCF written couples them to the same joint. (A follower's driver removed before its
    leader's left the coupling reading the next driver: the unrelated hip.)"""
    p = tmp_path / "knee.xml"
    p.write_text("""<mujoco><compiler angle="radian"/><worldbody>
        <body name="tibia"><joint name="t1" type="slide" axis="1 0 0"/><joint name="t2" type="slide" axis="0 1 0"/>
          <joint name="knee" range="0 2"/><geom size="0.1"/>
          <body name="foot" pos="1 0 0"><joint name="hip"/><geom size="0.1"/></body></body></worldbody>
      <equality><joint joint1="t1" joint2="knee" polycoef="0.01 0.02 -0.003 0.0004 0"/>
        <joint joint1="t2" joint2="knee" polycoef="0 0.3 0.1 0 -0.01"/></equality></mujoco>""")
    r = load(str(p))
    out = tmp_path / "o" / "knee.xml"
    roboio.save(r, str(out))
    m, m2 = mujoco.MjModel.from_xml_path(str(p)), mujoco.MjModel.from_xml_path(str(out))
    assert [(m2.eq(i).name.split(":")[-1], m2.joint(m2.eq_obj2id[i]).name) for i in range(m2.neq)] == \
        [("t1", "knee"), ("t2", "knee")]
    names = [d.name for d in r.drivers]
    for model in (m, m2):
        d = mujoco.MjData(model)
        for knee, hip in ((0.3, -0.5), (1.7, 0.9)):
            u = np.zeros(len(names))
            u[names.index("knee")], u[names.index("hip")] = knee, hip
            d.qpos[:] = r.qpos_from_config(r.config_from_drivers(u))
            mujoco.mj_forward(model, d)
            eq = [i for i in range(d.nefc) if d.efc_type[i] == mujoco.mjtConstraint.mjCNSTR_EQUALITY]
            assert len(eq) == 2 and np.abs(d.efc_pos[eq]).max() < 1e-12, d.efc_pos[eq]
