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
        roboio.save(load(out), out)
        texts.append(out.read_bytes())
    assert texts[0] == texts[1] == texts[2]
    expected = [rodrigues([0, 1, 0], -3) @ rodrigues([1, 0, 0], 85),
                rodrigues([0, 1, 0], -5) @ rodrigues([1, 0, 0], 85)]
    shapes = leaves(load(out).links[0].geometry)
    assert len(shapes) == 2
    for g, R in zip(shapes, expected):
        np.testing.assert_allclose(np.asarray(g.transform)[:3, :3], R, atol=1e-15, rtol=0)
