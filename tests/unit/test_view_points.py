"""Point clouds in the three outputs: still images (``roboio render``), the browser scene
(``roboio view``, checked on the server's scene handles, no browser) and posed mesh scenes
(``roboio convert ... out.glb``). Expected pixels, poses and colours are computed here from
the documented rules (orthographic camera fitted to the scene bounds less 5 %, forward
kinematics, PCL packed colours), not taken from the code under test."""
import contextlib
import io
import os
import struct

import numpy as np
import pytest

from conftest import SAMPLES

import roboio
from roboio.cli.main import main
from roboio.view.raster import rasterize, rasterize_points

ARM = os.path.join(SAMPLES, "planar_arm.rob")


def _packed_rgb(r, g, b):
    return float((r << 16) | (g << 8) | b)


def _write_pcd(path, pts, rgb_ints, packed_float=False):
    """ASCII PCD with an ``rgb`` field: TYPE U integers, or PCL's packed float (the
    integer's bits read as a float32, printed with enough digits to keep them)."""
    if packed_float:
        vals = [repr(struct.unpack("<f", struct.pack("<I", c))[0]) for c in rgb_ints]
        typ = "F"
    else:
        vals = [str(c) for c in rgb_ints]
        typ = "U"
    lines = ["VERSION 0.7", "FIELDS x y z rgb", "SIZE 4 4 4 4", f"TYPE F F F {typ}", "COUNT 1 1 1 1",
             f"WIDTH {len(pts)}", "HEIGHT 1", f"POINTS {len(pts)}", "DATA ascii"]
    lines += [f"{float(p[0])!r} {float(p[1])!r} {float(p[2])!r} {v}" for p, v in zip(pts, vals)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# -- colours -------------------------------------------------------------------------------

@pytest.mark.parametrize("packed_float", [False, True])
def test_pcd_rgb_gives_per_point_colours(tmp_path, packed_float):
    path = str(tmp_path / "c.pcd")
    _write_pcd(path, [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [0xFF8000, 0x00FF00, 0x0000FF], packed_float)
    cols = roboio.load(path).colors()
    np.testing.assert_allclose(cols, [[1, 128 / 255, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]], atol=1e-12)


def test_rgba_alpha_and_channel_fields():
    pc = roboio.PointCloud([[0, 0, 0], [1, 1, 1]], {"rgba": [float(0x80FF0000), float(0xFF0000FF) - 2 ** 32]})
    np.testing.assert_allclose(pc.colors(), [[1, 0, 0, 128 / 255], [0, 0, 1, 1]], atol=1e-12)
    pc = roboio.PointCloud([[0, 0, 0]], {"r": [0.25], "g": [0.5], "b": [1.0], "opacity": [0.5]})
    np.testing.assert_allclose(pc.colors(), [[0.25, 0.5, 1.0, 0.5]])
    assert roboio.PointCloud([[0, 0, 0]], {"normal_x": [1.0]}).colors() is None


def test_point_size_rule():
    from roboio.model.posed import point_size
    grid = np.stack(np.meshgrid(np.linspace(0, 3, 20), np.linspace(0, 4, 20), [0.0]), -1).reshape(-1, 3)
    assert point_size(grid) == pytest.approx(5.0 / 20)          # diagonal 5 m / sqrt(400)
    corners = [[0, 0, 0], [3, 0, 0], [0, 4, 0], [3, 4, 0]]
    assert point_size(corners) == pytest.approx(5.0 / 20)       # 5 / sqrt(4) clamped at d / 20
    line = np.zeros((1_100_000, 3))
    line[:, 0] = np.linspace(0, 1, len(line))
    assert point_size(line) == pytest.approx(1 / 1000)          # 1 / sqrt(1.1e6) clamped at d / 1000
    assert point_size([[1, 2, 3]]) == pytest.approx(0.01)


# -- the point z-buffer --------------------------------------------------------------------

def test_a_point_covers_the_pixel_centres_within_its_radius():
    zbuf = np.full((10, 10), np.inf)
    ids = rasterize_points(np.array([[4.5, 4.5]]), np.array([1.0]), 1.5, 10, 10, zbuf)
    # pixel (i, j) centre (i + .5, j + .5): distance^2 = (i-4)^2 + (j-4)^2 <= 2.25: the 3x3 block
    expected = np.zeros((10, 10), bool)
    expected[3:6, 3:6] = True
    np.testing.assert_array_equal(ids >= 0, expected)
    assert np.all(zbuf[expected] == 1.0) and np.all(np.isinf(zbuf[~expected]))


def test_points_are_hidden_behind_a_triangle_and_drawn_in_front():
    # triangle over the left half of an 8x8 image at depth 2 (pixel centres with x < 4)
    _, zbuf = rasterize(np.array([[[0, -1], [4, -1], [4, 20]], [[0, -1], [4, 20], [0, 20]]], float),
                        np.full((2, 3), 2.0), 8, 8)
    xy = np.array([[1.5, 1.5], [1.5, 5.5], [5.5, 1.5], [5.5, 5.5]])
    depth = np.array([3.0, 1.0, 3.0, 1.0])       # behind, in front, nothing there, nothing there
    ids = rasterize_points(xy, depth, 0.7, 8, 8, zbuf)
    assert ids[1, 1] == -1 and ids[5, 1] == 1 and ids[1, 5] == 2 and ids[5, 5] == 3
    # two points on one pixel: the nearer wins whatever the order
    for order in ([0, 1], [1, 0]):
        zb = np.full((4, 4), np.inf)
        ids = rasterize_points(np.array([[2.5, 2.5], [2.5, 2.5]])[order], np.array([5.0, 4.0])[order], 0.5, 4, 4, zb)
        assert ids[2, 2] == order.index(1) and zb[2, 2] == 4.0


# -- roboio render ---------------------------------------------------------------------------

def _top_projection(points, width, height, margin=0.05):
    """The documented 'top' view (from +z, x right, y up), bounds fitted less 5 %."""
    u, v = points[:, 0], points[:, 1]
    s = min(width * (1 - 2 * margin) / (u.max() - u.min()), height * (1 - 2 * margin) / (v.max() - v.min()))
    return np.stack([width / 2 + (u - (u.min() + u.max()) / 2) * s,
                     height / 2 - (v - (v.min() + v.max()) / 2) * s], axis=1)


def test_render_draws_points_where_they_project_and_hides_them_behind_a_surface(tmp_path):
    # a 6x6 grid of red points at z = 0 over [0, 1]^2; a blue square plate at z = 0.5 over
    # x < 0.45 hides the left columns in the top view; one green point at z = 1 above the plate
    g = np.linspace(0, 1, 6)
    grid = np.stack(np.meshgrid(g, g, [0.0]), -1).reshape(-1, 3)
    pts = np.vstack([grid, [[0.2, 0.5, 1.0]]])
    rgb = [_packed_rgb(255, 0, 0)] * len(grid) + [_packed_rgb(0, 255, 0)]
    world = roboio.World("w")
    world.add(roboio.Terrain("cloud", roboio.PointCloud(pts, {"rgb": rgb})))
    plate = roboio.TriangleMesh([[-0.1, -0.1, 0.5], [0.45, -0.1, 0.5], [0.45, 1.1, 0.5], [-0.1, 1.1, 0.5]],
                                [[0, 1, 2], [0, 2, 3]])
    t = roboio.Terrain("plate", plate)
    t.appearance.color = (0.0, 0.0, 1.0, 1.0)
    world.add(t)
    out = str(tmp_path / "top.png")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["render", "--view", "top", "--size", "200x200", "-o", out, _save_world(world, tmp_path)]) == 0
    from PIL import Image
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    corners = np.vstack([pts, plate.vertices])
    xy = _top_projection(corners, 200, 200)[:len(pts)]
    px = np.floor(xy).astype(int)
    for (x, y), p in zip(px, pts):
        r, gg, b = img[y, x]
        if p[2] == 1.0:
            assert gg > 200 and r < 60 and b < 60, (p, img[y, x])          # above the plate
        elif p[0] < 0.45:
            assert b > r and gg < 60, (p, img[y, x])                       # hidden by the plate
        else:
            assert r > 200 and gg < 60 and b < 60, (p, img[y, x])          # red point
    assert np.all(img[2, 2] == 255)                                         # background corner


def _save_world(world, tmp_path):
    """The world as a Klamp't world file whose terrains are a .pcd and an .off file."""
    d = tmp_path / "w"
    d.mkdir()
    cloud, plate = world.terrains
    pc = cloud.geometry
    _write_pcd(str(d / "cloud.pcd"), pc.points, [int(c) for c in pc.fields["rgb"]])
    roboio.save(plate.geometry, str(d / "plate.off"))
    c = plate.appearance.color
    (d / "w.xml").write_text('<world>\n  <terrain file="cloud.pcd"/>\n'
                             f'  <terrain file="plate.off">\n    <display color="{c[0]} {c[1]} {c[2]}"/>\n'
                             '  </terrain>\n</world>\n')
    return str(d / "w.xml")


def test_render_fits_the_camera_to_a_point_cloud_alone(tmp_path):
    path = str(tmp_path / "c.pcd")
    pts = np.array([[0, 0, 0], [2, 0, 0], [0, 1, 0], [2, 1, 0.3]], float)
    _write_pcd(path, pts, [0x000000] * 4)
    out = str(tmp_path / "c.png")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["render", path, "-o", out, "--view", "top", "--size", "100x80"]) == 0
    from PIL import Image
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    xy = _top_projection(pts, 100, 80)
    for x, y in np.floor(xy).astype(int):
        assert np.all(img[y, x] < 40), (x, y, img[y, x])                 # black points
    # every dark pixel lies within a point's radius: diameter 0.113 m (d / 20, d = 2.256 m)
    # at 45 px/m = 5.1 px, so radius 2.55 px (+ 1 for the pixel's extent)
    dark = np.argwhere(np.all(img < 128, axis=2))[:, ::-1] + 0.5
    dist = np.linalg.norm(dark[:, None, :] - xy[None], axis=2).min(axis=1)
    assert dist.max() < 3.6 and len(dark) >= 4 * 9


# -- roboio view (server-side scene) ---------------------------------------------------------

def _arm_with_cloud():
    robot = roboio.load(ARM)
    rng = np.random.default_rng(3)
    pts = rng.random((40, 3)) * [0.2, 0.05, 0.05]
    cols = rng.integers(0, 256, (40, 3))
    pc = roboio.PointCloud(pts, {"rgb": [_packed_rgb(*c) for c in cols]})
    T = np.eye(4)
    T[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    T[:3, 3] = [0.05, 0.0, 0.02]
    pc.transform = T
    robot.links[2].geometry = pc
    return robot, pts, cols, T


def test_viewer_sends_the_cloud_under_its_link_with_colours_and_pose():
    pytest.importorskip("viser")
    from roboio.transforms import quat_to_matrix
    from roboio.view.server import Viewer
    robot, pts, cols, T = _arm_with_cloud()
    viewer = Viewer([robot])
    try:
        sc = viewer.server.scene
        h = sc.get_handle_by_name("/m0/r0/L2/visual/points0")
        assert h is not None and len(h.points) == len(pts)
        np.testing.assert_allclose(h.points, pts @ T[:3, :3].T + T[:3, 3], atol=1e-6)   # float32, link frame
        np.testing.assert_array_equal(h.colors, cols)
        d = np.linalg.norm(np.ptp(pts, axis=0))
        assert h.point_size == pytest.approx(min(max(d / np.sqrt(40), d / 1000), d / 20))
        q = robot.config_from_drivers([0.0, 0.7, -0.4, 0.2, 0.01])
        viewer.models[0].configs[0] = q
        viewer.update()
        link = sc.get_handle_by_name("/m0/r0/L2")
        Tl = robot.fk(q)[2]
        np.testing.assert_allclose(link.position, Tl[:3, 3], atol=1e-12)
        np.testing.assert_allclose(quat_to_matrix(link.wxyz), Tl[:3, :3], atol=1e-12)
        # the cloud's world position is the link's pose applied to it: bounds cover it
        world_pts = (pts @ T[:3, :3].T + T[:3, 3]) @ robot.fk()[2][:3, :3].T + robot.fk()[2][:3, 3]
        b = viewer.models[0].bounds
        assert np.all(world_pts >= b[0] - 1e-9) and np.all(world_pts <= b[1] + 1e-9)
    finally:
        viewer.stop()


def test_viewer_shows_a_point_cloud_file(tmp_path):
    pytest.importorskip("viser")
    from roboio.view.server import Viewer
    path = str(tmp_path / "c.pcd")
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.5]], float)
    _write_pcd(path, pts, [0xFF0000, 0x00FF00, 0x0000FF])
    viewer = Viewer([roboio.load(path)])
    try:
        h = viewer.server.scene.get_handle_by_name("/m0/t0/visual/points0")
        np.testing.assert_allclose(h.points, pts, atol=1e-7)
        np.testing.assert_array_equal(h.colors, [[255, 0, 0], [0, 255, 0], [0, 0, 255]])
    finally:
        viewer.stop()


# -- posed scenes ----------------------------------------------------------------------------

def test_glb_holds_the_cloud_posed_with_its_colours(tmp_path):
    import trimesh
    robot, pts, cols, T = _arm_with_cloud()
    robot.config = robot.config_from_drivers([0.0, 0.5, -1.0, 0.3, 0.02])
    out = str(tmp_path / "arm.glb")
    roboio.save(robot, out)
    scene = trimesh.load(out)
    clouds = [k for k, g in scene.geometry.items() if isinstance(g, trimesh.PointCloud)]
    assert clouds == ["planar_arm/elbow"]
    node = next(n for n in scene.graph.nodes_geometry if scene.graph[n][1] == clouds[0])
    M = scene.graph[node][0]
    g = scene.geometry[clouds[0]]
    v = g.vertices @ M[:3, :3].T + M[:3, 3]
    L = robot.fk()[2] @ T
    np.testing.assert_allclose(v, pts @ L[:3, :3].T + L[:3, 3], atol=1e-6)
    np.testing.assert_array_equal(np.asarray(g.colors)[:, :3], cols)


def test_mesh_targets_keep_or_report_the_points(tmp_path):
    robot, pts, cols, T = _arm_with_cloud()
    n_mesh_vertices = sum(len(l.geometry.vertices) for l in robot.links
                          if isinstance(l.geometry, roboio.TriangleMesh))
    rep = roboio.save(robot, str(tmp_path / "arm.ply"))
    back = roboio.load(str(tmp_path / "arm.ply"))
    assert len(back.vertices) == n_mesh_vertices + len(pts)
    L = robot.fk()[2] @ T
    expected = pts @ L[:3, :3].T + L[:3, 3]
    found = [np.min(np.linalg.norm(back.vertices - p, axis=1)) for p in expected]
    assert max(found) < 1e-12
    assert not any("point" in x for x in rep.lost)
    rep = roboio.save(robot, str(tmp_path / "arm.stl"))
    assert any(f"{len(pts)} vertices without triangles" in x for x in rep.lost)


def test_points_with_nan_coordinates_are_left_out_and_reported(tmp_path):
    # an organised scan marks missing returns with NaN: drawn without them, reported in a scene
    from roboio.model.posed import scene_elements
    from roboio.view.render import render_image
    pts = np.array([[0, 0, 0], [np.nan, np.nan, np.nan], [1, 1, 0], [1, 0, np.nan]])
    pc = roboio.PointCloud(pts, {"rgb": [_packed_rgb(255, 0, 0), 0.0, _packed_rgb(0, 0, 255), 0.0]})
    (em,) = scene_elements(pc)
    (part,) = em.visual_points
    np.testing.assert_array_equal(part.points, [[0, 0, 0], [1, 1, 0]])
    np.testing.assert_allclose(part.point_colors[:, :3], [[1, 0, 0], [0, 0, 1]])
    assert any("2 of 4 points with non-finite" in s for s in em.skipped)
    img, _ = render_image(pc, view="top", size=(40, 40))
    # the two finite points project to opposite corners of the fitted square (5 % margin)
    x0, y1 = 40 * 0.05, 40 * 0.95
    assert img[int(y1), int(x0)][0] > 200 and img[int(40 - y1), int(40 - x0)][2] > 200
    from roboio.model.posed import posed_geometry
    report = roboio.ConversionReport()
    scene = posed_geometry(pc, report)
    assert len(scene.children[0].points) == 2
    assert any("'geometry': 2 of 4 points with non-finite coordinates" in x for x in report.lost)


def test_a_klampt_group_file_with_a_cloud_and_a_sphere_renders_both(tmp_path):
    # Klamp't's .group stream: a point cloud (PCD text) and a sphere primitive
    pcd = tmp_path / "p.pcd"
    _write_pcd(str(pcd), [(1.0, 0.0, 0.0), (-1.0, 0.0, 0.0)], [0x00FF00, 0x00FF00])
    group = tmp_path / "g.group"
    group.write_text("2\nPointCloud\n" + pcd.read_text() + "Primitive\nSphere 0 0 0 0.3\n")
    g = roboio.load(str(group))
    from roboio.view.render import render_image
    img, _ = render_image(g, view="front", size=(100, 60))    # from +x: y to the right, z up
    # bounds: y from -0.3 to 0.3 (sphere), z -0.3..0.3; the points project onto the sphere's
    # centre from the front, the nearer (x = 1) is drawn over the sphere
    c = img[30, 50].astype(int)
    assert c[1] > 200 and c[0] < 60 and c[2] < 60, c
    img, _ = render_image(g, view="top", size=(100, 60))      # x from -1 to 1 spans the width
    for x in (int(100 * 0.05) + 1, int(100 * 0.95) - 1):
        c = img[30, x].astype(int)
        assert c[1] > 200 and c[0] < 60, (x, c)
