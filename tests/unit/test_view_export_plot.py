"""Posed mesh scenes (``roboio convert robot.rob out.glb --config ...``), joint plots
(``roboio plot``) and the optional extra: ``import roboio`` stays light, a missing viewer
package gives a one-line install hint."""
import contextlib
import io
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from conftest import ROOT, SAMPLES, corpus_path

import roboio
from roboio.cli.main import main

ARM = os.path.join(SAMPLES, "planar_arm.rob")
Q = [0.3, 0.6, -1.2, 0.5, 0.02, 0.02]


def _run(args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(args)
    return rc, out.getvalue()


def _posed(robot, q):
    """Triangle corners (3F, 3) of every link mesh posed at q, computed here."""
    T = robot.fk(q)
    vs = []
    for link in robot.links:
        g = link.geometry
        if g is not None and not g.is_empty:
            M = T[link.index] @ g.transform
            vs.append((g.vertices @ M[:3, :3].T + M[:3, 3])[g.faces].reshape(-1, 3))
    return np.concatenate(vs)


@pytest.mark.parametrize("ext", [".glb", ".gltf", ".obj", ".ply", ".stl"])
def test_posed_scene_reads_back_at_the_fk_pose(tmp_path, ext):
    out = str(tmp_path / ("arm" + ext))
    rc, text = _run(["convert", ARM, out, "--config", " ".join(map(str, Q))])
    assert rc == 0
    assert "kinematics" in text                               # reported lost
    robot = roboio.load(ARM)
    expected = _posed(robot, np.array(Q))
    back = roboio.load(out)
    v = back.world_vertices()[back.faces].reshape(-1, 3)
    tol = 1e-6 if ext in (".glb", ".gltf", ".stl") else 1e-12     # float32 formats
    assert np.abs(np.sort(v, axis=0) - np.sort(expected, axis=0)).max() < tol * 10
    assert len(back.faces) == sum(len(l.geometry.faces) for l in robot.links
                                  if l.geometry is not None and not l.geometry.is_empty)


def test_glb_nodes_are_named_after_links_and_coloured(tmp_path):
    import trimesh
    out = str(tmp_path / "arm.glb")
    rep = roboio.save(roboio.load(ARM), out)
    assert any("kinematics" in x for x in rep.lost)
    scene = trimesh.load(out)
    assert {"planar_arm/base", "planar_arm/shoulder", "planar_arm/elbow"} <= set(scene.graph.nodes_geometry)
    # no colours in the file: Klamp't's default grey, as a material
    mat = scene.geometry["planar_arm/base"].visual.material
    assert np.allclose(np.asarray(mat.baseColorFactor[:3]) / 255.0, 0.5, atol=1 / 255)


def test_world_posed_scene_holds_every_element(tmp_path):
    path = corpus_path("klampt", "tx90cups.xml")
    world = roboio.load(path)
    out = str(tmp_path / "w.ply")
    rep = roboio.save(world, out)
    lost = "\n".join(rep.lost)
    assert "kinematics" in lost and "rigid object 'srimug1'" in lost
    back = roboio.load(out)
    n_faces = sum(len(e.geometry.faces) for e in world.terrains + world.rigid_objects if e.geometry is not None)
    n_faces += sum(len(l.geometry.faces) for r in world.robots for l in r.links
                   if l.geometry is not None and not l.geometry.is_empty)
    assert len(back.faces) == n_faces
    assert back.vertex_colors is not None


def test_plot_every_motion_format(tmp_path):
    S = corpus_path("choreonoid")
    body = os.path.join(S, "share", "model", "SR1", "SR1.body")
    seq = os.path.join(S, "sample", "SimpleController", "SR1WalkPattern1.seq")
    cases = [
        ([seq, "--model", body], roboio.load(seq).joint_displacement),
        ([os.path.join(S, "sample", "PoseSeq", "motion", "SR1", "SR1WalkPattern2.pseq"), "--model", body], None),
        ([corpus_path("klampt", "motions", "athlete_flex.path"), "--model",
          corpus_path("klampt", "robots", "athlete.rob")], roboio.load(corpus_path("klampt", "motions", "athlete_flex.path")).milestones),
        ([corpus_path("klampt", "motions", "hubo_sway_path.xml")], None),
        ([os.path.join(SAMPLES, "choreonoid", "arm_wave.seq")], None),
    ]
    for k, (args, values) in enumerate(cases):
        out = str(tmp_path / f"p{k}.png")
        rc, text = _run(["plot", args[0], "-o", out] + args[1:])
        assert rc == 0, args
        img = np.asarray(Image.open(out).convert("L")).astype(int)
        assert (img < 200).mean() > 0.01, f"{args[0]}: the plot is blank"
        if values is not None:       # one panel per joint that moves
            moving = int(np.sum(np.ptp(values, axis=0) > 1e-6))     # plot.CONSTANT_TOL
            assert f"{moving} joints plotted" in text


def test_plot_names_joints_after_the_model(tmp_path):
    from roboio.view.plot import plot_motion
    S = corpus_path("choreonoid")
    body = roboio.load(os.path.join(S, "share", "model", "SR1", "SR1.body"))
    m = roboio.load(os.path.join(S, "sample", "SimpleController", "SR1WalkPattern1.seq"))
    out = plot_motion(m, str(tmp_path / "p.png"), body)
    assert "RLEG_KNEE (id 3)" in out["plotted"] and "RARM_ELBOW (id 9)" in out["constant"]


def test_plot_of_a_non_motion_is_a_usage_error(tmp_path, capsys):
    assert main(["plot", ARM, "-o", str(tmp_path / "x.png")]) == 2
    assert "not a motion" in capsys.readouterr().err


def test_import_roboio_loads_no_viewer_package():
    code = ("import sys, roboio; from roboio.cli.main import build_parser; build_parser(); "
            "bad = [m for m in ('viser', 'matplotlib', 'PIL', 'roboio.view.server') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("command", [["view", ARM, "--no-browser"], ["render", ARM, "-o", "/nonexistent/x.png"],
                                     ["plot", os.path.join(SAMPLES, "choreonoid", "arm_wave.seq"), "-o", "/dev/null"]])
def test_missing_extra_prints_the_install_hint(command):
    code = ("import sys; sys.modules['viser'] = None; sys.modules['matplotlib'] = None; "
            "sys.modules['PIL'] = None; sys.modules['PIL.Image'] = None; "
            f"from roboio.cli.main import main; sys.exit(main({command!r}))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and 'pip install "roboio[view]"' in lines[0], r.stderr


def test_plot_counts_rounding_noise_as_constant_and_shares_the_time_axis():
    from roboio.model import Trajectory
    from roboio.view.plot import motion_figure
    t = np.linspace(0, 2, 21)
    Q = np.zeros((21, 3))
    Q[:, 0] = np.sin(t)                         # moves
    Q[:, 1] = 1e-8 * np.cos(40 * t)             # rounding noise: constant
    Q[:, 2] = 0.25                              # constant
    fig, out = motion_figure(Trajectory(t, Q))
    assert out["plotted"] == ["dof 0"] and out["constant"] == ["dof 1", "dof 2"]
    title = fig._suptitle.get_text()
    assert "joint limits" not in title          # no model: no limits to shade
    fig, out = motion_figure(Trajectory(t, np.stack([np.sin(t), np.cos(t), t], axis=1)))
    drawn = [ax for ax in fig.axes if ax.axison]
    assert len(drawn) == 3
    assert all(ax.get_xlim() == pytest.approx((0.0, 2.0)) for ax in drawn)
    assert all(set(ax.get_shared_x_axes().get_siblings(ax)) >= set(drawn) for ax in drawn)


def test_plot_title_speaks_of_limits_only_with_a_model():
    from roboio.view.plot import motion_figure
    robot = roboio.load(os.path.join(SAMPLES, "planar_arm.rob"))
    t = np.linspace(0, 1, 5)
    Q = np.tile(np.array(robot.config, float), (5, 1))
    Q[:, 1] = np.linspace(-0.5, 0.5, 5)
    fig, _ = motion_figure(roboio.model.Trajectory(t, Q), robot)
    assert "outside the joint limits" in fig._suptitle.get_text()
