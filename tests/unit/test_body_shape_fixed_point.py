"""A .body shape whose rotation is a product of axis-angle rotations (HRP4C's capsules): the
matrix read is a rotation to rounding, not exactly orthonormal; the writer must write it as
it is (not divided by its columns' lengths), so that write -> read -> write gives the same
bytes. The expected matrix is computed here from Rodrigues' formula."""
import math
import warnings

import numpy as np

import roboio

TEXT = """format: ChoreonoidBody
formatVersion: 1.0
angleUnit: degree
name: hip
links:
  -
    name: a
    jointType: fixed
    elements:
      - type: Collision
        elements:
          -
            type: Shape
            translation: [ -0.009, -0.002, -0.095 ]
            rotation: [ [ 0, 1, 0, -3 ], [ 1, 0, 0, 85 ] ]
            geometry: { type: Capsule, height: 0.17, radius: 0.065 }
          -
            type: Shape
            rotation: [ [ 0, 1, 0, -5 ], [ 1, 0, 0, 85 ] ]
            geometry: { type: Capsule, height: 0.09, radius: 0.055 }
"""


def rodrigues(axis, deg):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    t = math.radians(deg)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(t) * K + (1 - math.cos(t)) * K @ K


def load(p):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", roboio.RoboioWarning)
        return roboio.load(p)


def leaves(g):
    kids = getattr(g, "children", None)
    return [x for c in kids for x in leaves(c)] if kids is not None else [g]


def test_composed_shape_rotation_is_a_fixed_point(tmp_path):
    src = tmp_path / "hip.body"
    src.write_text(TEXT)
    out = tmp_path / "out.body"
    roboio.save(load(src), out)
    texts = []
    for _ in range(3):
        roboio.save(load(out), out, overwrite_input=True)
        texts.append(out.read_bytes())
    assert texts[0] == texts[1] == texts[2]
    expected = [rodrigues([0, 1, 0], -3) @ rodrigues([1, 0, 0], 85),
                rodrigues([0, 1, 0], -5) @ rodrigues([1, 0, 0], 85)]
    shapes = leaves(load(out).links[0].geometry)
    assert len(shapes) == 2
    for g, R in zip(shapes, expected):
        np.testing.assert_allclose(np.asarray(g.transform)[:3, :3], R, atol=1e-15, rtol=0)


def test_floating_base_offset_is_reported_with_its_size(tmp_path):
    # a Klamp't floating base (x, y, z, yaw, pitch, roll) lifted 0.708 m by its first frame
    # (hrp2.rob): Choreonoid's free root has one pose, so the lift becomes the configured z
    from roboio.model import Joint, Link, Robot
    T0 = np.eye(4)
    T0[2, 3] = 0.708
    axes = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (0, 1, 0), (1, 0, 0)]
    links = [Link(f"v{k}", k - 1, "prismatic" if k < 3 else "revolute", a, T0 if k == 0 else np.eye(4),
                  mass=0.0 if k < 5 else 1.0, inertia=np.eye(3) * (0.0 if k < 5 else 1.0))
             for k, a in enumerate(axes)]
    r = Robot("f")
    r.set_links(links)
    r.joints = [Joint("floating", list(range(6)))]
    rep = roboio.save(r, tmp_path / "f.body")
    assert any("inside a floating base" in x and "v0 (largest offset 0.708 m, 0 rad)" in x
               for x in rep.lost), rep.lost
    back = load(tmp_path / "f.body")
    frames = back.fk(back.config)
    np.testing.assert_allclose(frames[-1][:3, 3], [0.0, 0.0, 0.708], atol=1e-15)


def test_scaled_mesh_rotated_near_a_half_turn_is_a_fixed_point(tmp_path):
    """r2c6.urdf's finger meshes: scale 0.9 at rpy (3.14, 0, 1.57). The rotation built from
    the written axis-angle has columns a unit in the last place off unit length, so the
    lengths of R diag(0.9) read back were 0.9000000000000001..., written as the new scale
    at every rewrite."""
    import struct
    tri = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    (tmp_path / "m.stl").write_bytes(b" " * 80 + struct.pack("<I", 1) + np.zeros(3, np.float32).tobytes()
                                     + tri.tobytes() + b"\0\0")
    (tmp_path / "r.urdf").write_text(
        '<robot name="r"><link name="world"/><joint name="j" type="fixed"><parent link="world"/>'
        '<child link="a"/></joint><link name="a"><collision><origin rpy="3.14 0 1.57"/><geometry>'
        '<mesh filename="m.stl" scale="0.9 0.9 0.9"/></geometry></collision></link></robot>')
    out = tmp_path / "out.body"
    roboio.save(load(tmp_path / "r.urdf"), out)
    first = out.read_bytes()
    roboio.save(load(out), tmp_path / "again.body")
    assert (tmp_path / "again.body").read_bytes() == first
    # and the mesh is where the URDF puts it: Rz(1.57) Ry(0) Rx(3.14) diag(0.9)
    expect = rodrigues([0, 0, 1], math.degrees(1.57)) @ rodrigues([1, 0, 0], math.degrees(3.14)) * 0.9
    (m,) = leaves(load(out).links[0].geometry)
    assert np.allclose(np.asarray(m.transform)[:3, :3], expect, atol=1e-14)
