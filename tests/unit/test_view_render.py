"""Still images (``roboio render``): the z-buffer on hand-worked triangles, and rendered
robots whose silhouettes lie where forward kinematics puts them (projection computed here
from the documented camera rule: orthographic, the posed scene's bounding box centred and
filling the image less 5% on each side)."""
import contextlib
import io
import os

import numpy as np
import pytest
from PIL import Image

from conftest import SAMPLES, corpus_path

import roboio
from roboio.cli.main import main
from roboio.view.raster import rasterize

ARM = os.path.join(SAMPLES, "planar_arm.rob")


def test_one_triangle_covers_the_pixel_centres_inside_it():
    # triangle (0,0) (4,0) (0,4): pixel (i, j) has its centre inside when i + j + 1 <= 4
    ids, z = rasterize(np.array([[[0, 0], [4, 0], [0, 4]]], float), np.array([[1.0, 1.0, 1.0]]), 4, 4)
    expected = np.array([[i + j <= 3 for i in range(4)] for j in range(4)])
    np.testing.assert_array_equal(ids >= 0, expected)
    assert np.allclose(z[expected], 1.0) and np.all(np.isinf(z[~expected]))


def test_the_nearer_triangle_wins_whatever_the_order():
    far = [[0, 0], [8, 0], [0, 8]]
    near = [[8, 8], [0, 8], [8, 0]]
    for order in ([far, near], [near, far]):
        depth = [[5, 5, 5], [1, 1, 1]] if order[0] is far else [[1, 1, 1], [5, 5, 5]]
        ids, z = rasterize(np.array(order, float), np.array(depth, float), 8, 8)
        near_id = 1 if order[0] is far else 0
        # pixels right of the anti-diagonal belong to the near triangle
        assert ids[7, 7] == near_id and ids[0, 0] == 1 - near_id
        assert np.all(z[ids == near_id] == 1.0)


def test_depth_is_interpolated_across_a_triangle():
    # depth 0 at x=0, 8 at x=8 along the bottom edge: z = x at pixel centres
    ids, z = rasterize(np.array([[[0, 0], [8, 0], [0, 8]]], float), np.array([[0.0, 8.0, 0.0]]), 8, 8)
    assert z[0, 3] == pytest.approx(3.5)
    assert z[2, 1] == pytest.approx(1.5)


def _render(args):
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["render", *args]) == 0


def _posed_vertices(robot, q):
    """World vertices of every link mesh (independent of roboio.view)."""
    T = robot.fk(q)
    pts = []
    for link in robot.links:
        g = link.geometry
        if g is None or g.is_empty:
            continue
        M = T[link.index] @ g.transform
        pts.append(g.vertices @ M[:3, :3].T + M[:3, 3])
    return np.concatenate(pts)


def _project_side(points, width, height, margin=0.05):
    """The 'side' view: from -y, x to the right, z up; bounds fitted as documented."""
    u, v = points[:, 0], points[:, 2]
    s = min(width * (1 - 2 * margin) / (u.max() - u.min()), height * (1 - 2 * margin) / (v.max() - v.min()))
    return np.stack([width / 2 + (u - (u.min() + u.max()) / 2) * s,
                     height / 2 - (v - (v.min() + v.max()) / 2) * s], axis=1)


def _covered(path):
    img = np.asarray(Image.open(path).convert("RGB")).astype(int)
    return np.any(img < 250, axis=2)


@pytest.mark.parametrize("model,config", [
    (ARM, "0 0 0 0 0 0"),
    (ARM, "0.3 0.6 -1.2 0.5 0.02 0.02"),
    (("klampt", "robots", "puma760.rob"), None),
])
def test_silhouette_is_where_fk_puts_the_meshes(tmp_path, model, config):
    path = model if isinstance(model, str) else corpus_path(*model)
    robot = roboio.load(path)
    q = np.array([float(x) for x in config.split()]) if config else np.array(robot.config, float)
    out = str(tmp_path / "side.png")
    _render([path, "-o", out, "--view", "side", "--size", "320x240"] + (["--config", config] if config else []))
    cov = _covered(out)
    assert cov.shape == (240, 320)
    assert 0.02 < cov.mean() < 0.9, "image is blank or filled"
    px = _project_side(_posed_vertices(robot, q), 320, 240)
    ys, xs = np.nonzero(cov)
    # the drawn region spans the projected vertices (to a pixel)
    assert abs(xs.min() - px[:, 0].min()) <= 1.5 and abs(xs.max() + 1 - px[:, 0].max()) <= 1.5
    assert abs(ys.min() - px[:, 1].min()) <= 1.5 and abs(ys.max() + 1 - px[:, 1].max()) <= 1.5
    # and every vertex lands on a drawn pixel (or next to one, at the silhouette edge)
    dil = cov.copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            dil |= np.roll(np.roll(cov, dy, 0), dx, 1)
    ij = np.clip(np.floor(px).astype(int), 0, [319, 239])
    assert dil[ij[:, 1], ij[:, 0]].mean() > 0.99


def test_moving_a_joint_moves_the_pixels(tmp_path):
    a, b = str(tmp_path / "a.png"), str(tmp_path / "b.png")
    # fixed camera: the same bounds in both images needs the same extent; compare top views
    _render([ARM, "-o", a, "--view", "top", "--size", "200x200", "--config", "shoulder=0"])
    _render([ARM, "-o", b, "--view", "top", "--size", "200x200", "--config", "base=1.2"])
    assert (_covered(a) != _covered(b)).mean() > 0.05


def test_render_views_and_size(tmp_path):
    for view in ("iso", "front", "side", "top"):
        out = str(tmp_path / f"{view}.png")
        _render([ARM, "-o", out, "--view", view, "--size", "96x64"])
        assert Image.open(out).size == (96, 64)
        assert _covered(out).mean() > 0.02


def test_render_usage_errors(tmp_path, capsys):
    assert main(["render", ARM, "-o", str(tmp_path / "x.png"), "--size", "12"]) == 2
    assert main(["render", ARM, "-o", str(tmp_path / "x.png"), "--config", "1 2"]) == 2
    assert main(["render", ARM, "-o", str(tmp_path / "x.png"), "--config", "nosuch=1"]) == 2
    assert "no joint or link named 'nosuch'" in capsys.readouterr().err


def test_world_render_shows_objects_and_terrain(tmp_path):
    path = corpus_path("klampt", "tx90cups.xml")
    out = str(tmp_path / "w.png")
    _render([path, "-o", out, "--view", "top", "--size", "200x200"])
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert _covered(out).mean() > 0.3        # the terrain fills most of a top view
    assert len(np.unique(img.reshape(-1, 3) // 16, axis=0)) > 5   # several colours (terrain, robot, mugs)


def test_dark_materials_render_in_mid_tones(tmp_path):
    """The GraspIt! Barrett is diffuse black to 0.1 grey: its shape must read (mid-tone
    pixels, several shades), not a black silhouette."""
    out = str(tmp_path / "barrett.png")
    _render([corpus_path("graspit", "models", "robots", "Barrett", "Barrett.xml"), "-o", out,
             "--size", "240x180"])
    lum = np.asarray(Image.open(out).convert("L")).astype(int)
    drawn = lum[_covered(out)]
    assert drawn.size > 0.1 * lum.size
    mid = ((drawn >= 50) & (drawn <= 200)).mean()
    assert mid > 0.5, f"only {mid:.0%} of the hand's pixels are mid-tones"
    assert np.ptp(np.percentile(drawn, [10, 90])) > 15, "the hand is one flat shade"


def test_a_world_render_frames_its_robot_not_the_floor(tmp_path):
    """The sample world's floor is 4 m wide, its arm about 0.6 m: the camera frames the robot
    and the crate (the floor fills the background)."""
    path = os.path.join(SAMPLES, "world.xml")
    world = roboio.load(path)
    out = str(tmp_path / "w.png")
    _render([path, "-o", out, "--view", "side", "--size", "320x240"])
    robot = world.robots[0]
    pts = [_posed_vertices(robot, np.array(robot.config, float))]
    for o in world.rigid_objects:
        g = o.geometry
        M = np.asarray(o.transform) @ g.transform
        pts.append(g.vertices @ M[:3, :3].T + M[:3, 3])
    px = _project_side(np.concatenate(pts), 320, 240)
    # the documented fit: robot and objects fill the image less 5% on each side
    assert px[:, 0].min() == pytest.approx(16, abs=1.5) or px[:, 1].min() == pytest.approx(12, abs=1.5)
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    x, y = np.clip(np.floor(px[len(px) // 2]).astype(int), 0, [319, 239])
    assert img[y, x].tolist() != [255, 255, 255]


@pytest.mark.parametrize("ext,magic", [(".png", b"\x89PNG"), (".jpg", b"\xff\xd8\xff"),
                                        (".jpeg", b"\xff\xd8\xff")])
def test_render_writes_the_format_its_extension_names(tmp_path, ext, magic):
    out = str(tmp_path / f"arm{ext}")
    _render([ARM, "-o", out, "--size", "64x48"])
    with open(out, "rb") as f:
        assert f.read(len(magic)) == magic
    assert Image.open(out).size == (64, 48)


def test_render_refuses_an_extension_it_cannot_write(tmp_path, capsys):
    out = tmp_path / "arm.gif"
    assert main(["render", ARM, "-o", str(out)]) == 2
    assert "'.gif'" in capsys.readouterr().err and not out.exists()
