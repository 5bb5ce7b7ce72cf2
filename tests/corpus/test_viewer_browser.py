"""End to end: ``roboio view`` on corpus models of each ecosystem, driven in real headless
Chromium (Debian's ``chromium``, through playwright; no browser is downloaded).

For each model: the page loads with nothing fetched beyond 127.0.0.1; every link pose the
page draws (three.js world matrices, relative to the model's root node) equals roboio's
forward kinematics; moving a driver slider (keyboard on the slider thumb, as a user does)
moves the links to ``robot.fk(robot.config_from_drivers(...))`` and changes pixels where
the moved links are on screen (projected through the page's own camera); a motion's
timeline jumps to the last frame (poses equal the motion's link transforms) and plays.

New ecosystems are added by listing a file in ``CASES``: a case whose format has no reader
on this branch yet is skipped with that reason.
"""
import os
import time

import numpy as np
import pytest

from browser import browser_page, chromium_path, viewer_process
from conftest import corpus_path

import roboio
from roboio.formats import registry

pytestmark = pytest.mark.skipif(chromium_path() is None,
                                reason="Debian's chromium is not installed (apt-get install chromium)")

SR1 = ("choreonoid", "share", "model", "SR1", "SR1.body")
CASES = {   # name: (model, motion or None); the name starts with the model's ecosystem
    "klampt-world": (("klampt", "tx90cups.xml"), None),
    "choreonoid-sr1-walk": (SR1, ("choreonoid", "sample", "SimpleController", "SR1WalkPattern1.seq")),
    "graspit-barrett": (("graspit", "models", "robots", "Barrett", "Barrett.xml"), None),
    "openrave-barrettwam": (("openrave", "src", "robots", "barrettwam.robot.xml"), None),
}
DATA_PATHS = {   # ecosystem: the corpus root its files' references resolve against (--data-path)
    "openrave": ("openrave", "src"),
}
POS_TOL = 2e-5     # m: three.js matrices are float32 on the page
ROT_TOL = 2e-5     # |R_page - R_fk| entries (float32)


def _load_or_skip(path, ecosystem, search_paths=None):
    try:
        info = registry.find_reader(path)
    except roboio.FormatError as e:
        pytest.skip(f"no reader for {os.path.basename(path)} on this branch yet ({e})")
    if info.ecosystem != ecosystem:
        pytest.skip(f"no {ecosystem} reader on this branch yet ({os.path.basename(path)} would be read as {info.name})")
    return roboio.load(path, search_paths=search_paths)


def _world(obj):
    if isinstance(obj, roboio.World):
        return obj
    w = roboio.World()
    w.add(obj)
    return w


def _subtree(robot, i):
    out = {i}
    for link in robot.links[i + 1:]:
        if link.parent in out:
            out.add(link.index)
    return sorted(out)


def _pick_driver(robot):
    """The driver whose first DOF carries the largest subtree of links with geometry and
    has a range to move in."""
    best, best_key = None, -1
    for k, d in enumerate(robot.drivers):
        if d.type not in ("normal", "affine") or not d.dofs:
            continue
        i = d.dofs[0]
        lo = d.qmin if np.isfinite(d.qmin) else robot.qmin[i]
        hi = d.qmax if np.isfinite(d.qmax) else robot.qmax[i]
        if np.isfinite(lo) and np.isfinite(hi) and hi - lo < 0.2:
            continue
        sub = [j for j in _subtree(robot, i) if robot.links[j].geometry is not None]
        if len(sub) > best_key:
            best, best_key = k, len(sub)
    assert best is not None, "no driver to move"
    return best


def _shown_per_unit(robot, driver):
    """What the slider shows per unit of the driver's value: degrees per radian for a
    revolute joint (the viewer speaks degrees, as the command line does), 1 for metres."""
    return 1.0 if robot.links[driver.dofs[0]].is_prismatic else 180.0 / np.pi


def _pose_errors(pg, robot, T):
    """Largest position and rotation-entry difference between the page and ``T``, and the
    link where it is."""
    worst = (0.0, 0.0, "")
    for i in range(robot.num_links):
        P = pg.pose(f"/m0/r0/L{i}")
        e = (np.abs(P[:3, 3] - T[i, :3, 3]).max(), np.abs(P[:3, :3] - T[i, :3, :3]).max())
        if max(e[0] / POS_TOL, e[1] / ROT_TOL) > max(worst[0] / POS_TOL, worst[1] / ROT_TOL):
            worst = (e[0], e[1], robot.link_names[i])
    return worst


def _check_poses(pg, robot, T, what, timeout=15.0):
    """Every link the page draws reaches its pose in ``T`` (updates arrive asynchronously)."""
    deadline = time.time() + timeout
    while True:
        pos, rot, link = _pose_errors(pg, robot, T)
        if pos < POS_TOL and rot < ROT_TOL:
            return
        if time.time() > deadline:
            raise AssertionError(f"{what}: link {link} drawn {pos:.3g} m / {rot:.3g} from roboio's FK")
        time.sleep(0.1)


def _wait_pose(pg, node, T, timeout=15.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if np.abs(pg.pose(node)[:3, 3] - T[:3, 3]).max() < POS_TOL:
            return
        time.sleep(0.05)
    raise AssertionError(f"{node} did not reach its FK pose within {timeout} s")


def _wait_still(pg, settle=0.4, timeout=10.0):
    """Screenshot once two consecutive ones agree (the page finished drawing)."""
    prev = pg.screenshot()
    deadline = time.time() + timeout
    while time.time() < deadline:
        time.sleep(settle)
        cur = pg.screenshot()
        if np.array_equal(cur, prev):
            return cur
        prev = cur
    return prev


def _link_points(robot, T, links):
    """World points of the links' geometry (sampled) and origins."""
    pts = [T[links, :3, 3]]
    for i in links:
        g = robot.links[i].geometry
        if g is not None and not g.is_empty:
            p = g.sample_points()
            if p is not None and len(p):
                p = p[:: max(1, len(p) // 200)]
                pts.append(p @ T[i, :3, :3].T + T[i, :3, 3])
    return np.concatenate(pts)


@pytest.mark.parametrize("case", sorted(CASES))
def test_view_in_chromium(case):
    model_parts, motion_parts = CASES[case]
    path = corpus_path(*model_parts)
    ecosystem = case.split("-")[0]
    data = [corpus_path(*DATA_PATHS[ecosystem])] if ecosystem in DATA_PATHS else None
    world = _world(_load_or_skip(path, ecosystem, data))
    robot = world.robots[0]
    args = [path] + [a for d in data or () for a in ("--data-path", d)]
    motion = None
    if motion_parts:
        mpath = corpus_path(*motion_parts)
        motion = roboio.load(mpath)
        args += ["--motion", mpath]
    with viewer_process(*args) as url, browser_page(url) as pg:
        pg.wait_nodes([f"/m0/r0/L{i}" for i in range(robot.num_links)] + ["/m0"])
        # the initial pose: the motion's first frame, else the robot's configuration
        if motion is not None:
            T0 = motion.link_transforms(robot)[0]
            q0 = motion.robot_configs(robot)[0]
        else:
            q0 = np.array(robot.config, float)
            T0 = robot.fk(q0)
        _wait_pose(pg, f"/m0/r0/L{robot.num_links - 1}", T0[-1])
        _check_poses(pg, robot, T0, "initial pose")
        before = _wait_still(pg)

        # move one driver slider to its upper end, as a user does with the keyboard
        k = _pick_driver(robot)
        d = robot.drivers[k]
        u0 = pg.slider_value(d.name)
        pg.press(d.name, "End")
        deadline = time.time() + 10
        while pg.slider_value(d.name) == u0 and time.time() < deadline:
            time.sleep(0.05)
        u = robot.drivers_from_config(q0)
        assert pg.slider_value(d.name) != u0
        u[k] = pg.slider_value(d.name) / _shown_per_unit(robot, d)
        q1 = robot.config_from_drivers(u, q0)
        T1 = robot.fk(q1)
        if motion is not None:      # the motion's root pose stays where the frame put it
            T1 = T0[0] @ np.linalg.inv(robot.fk(q0)[0]) @ T1
        moved = _subtree(robot, d.dofs[0])
        _wait_pose(pg, f"/m0/r0/L{moved[-1]}", T1[moved[-1]])
        _check_poses(pg, robot, T1, f"after moving {d.name}")
        after = _wait_still(pg)

        # pixels changed where the moved links are, as the page's camera projects them
        panel_left = pg.slider(d.name).bounding_box()["x"] - 150
        diff = np.abs(after - before).max(axis=2) > 40
        diff[:, int(panel_left):] = False
        ys, xs = np.nonzero(diff)
        assert len(xs) > 30, "moving a slider changed no pixels of the scene"
        pix = np.concatenate([pg.project(_link_points(robot, T0, moved)), pg.project(_link_points(robot, T1, moved))])
        lo, hi = pix.min(axis=0) - 25, pix.max(axis=0) + 25
        inside = (xs >= lo[0]) & (xs <= hi[0]) & (ys >= lo[1]) & (ys <= hi[1])
        assert inside.mean() > 0.95, f"only {inside.mean():.0%} of the changed pixels are where the moved links are"

        # geometry and frames toggles
        pg.page.get_by_text("Link frames").click()
        pg.page.wait_for_function("() => window.__viserMutable.nodeRefFromName['/m0/r0/L0/axes'].visible")

        if motion is not None:
            F = motion.num_frames
            Tend = motion.link_transforms(robot)[F - 1]
            pg.press("Time (s)", "End")
            _wait_pose(pg, f"/m0/r0/L{robot.num_links - 1}", Tend[-1])
            _check_poses(pg, robot, Tend, "last frame of the motion")
            pg.press("Time (s)", "Home")
            t_start = pg.slider_value("Time (s)")
            pg.page.get_by_role("button", name="Play / pause").click()
            time.sleep(1.5)
            pg.page.get_by_role("button", name="Play / pause").click()
            assert pg.slider_value("Time (s)") > t_start, "Play did not advance the timeline"

        assert pg.foreign_requests() == [], "the page fetched something beyond 127.0.0.1"
        assert any(u.startswith("ws://127.0.0.1") for u in pg.requests)


def test_view_two_models_overlaid():
    """SR1 as Choreonoid body and as URDF: the second model follows the first by link name;
    both draw every matched link at the same pose, and the page shows the verify table."""
    a = corpus_path(*SR1)
    b = corpus_path("choreonoid", "share", "model", "SR1", "SR1.urdf")
    ra, rb = roboio.load(a), roboio.load(b)
    idx_b = {n: j for j, n in reversed(list(enumerate(rb.link_names)))}
    pairs = [(i, idx_b[n]) for i, n in enumerate(ra.link_names) if n in idx_b]
    assert pairs
    with viewer_process(a, b) as url, browser_page(url) as pg:
        pg.wait_nodes([f"/m1/r0/L{j}" for _, j in pairs] + [f"/m0/r0/L{i}" for i, _ in pairs])
        k = next(k for k, d in enumerate(ra.drivers) if d.name == "RARM_ELBOW")
        pg.press("RARM_ELBOW", "Home")
        u = ra.drivers_from_config(ra.config)
        deg = _shown_per_unit(ra, ra.drivers[k])
        deadline = time.time() + 10
        while pg.slider_value("RARM_ELBOW") == pytest.approx(u[k] * deg, abs=1e-9) and time.time() < deadline:
            time.sleep(0.05)
        u[k] = pg.slider_value("RARM_ELBOW") / deg
        qa = ra.config_from_drivers(u)
        qb = np.array(rb.config, float)
        for i, j in pairs:
            qb[j] = qa[i]
        Ta, Tb = ra.fk(qa), rb.fk(qb)
        hand = ra.link_index("RARM_WRIST_R")
        deadline = time.time() + 15
        jb = idx_b["RARM_WRIST_R"]
        while time.time() < deadline and np.abs(pg.pose(f"/m1/r0/L{jb}", "/m1")[:3, 3] - Tb[jb, :3, 3]).max() > POS_TOL:
            time.sleep(0.05)
        for i, j in pairs:
            Pb = pg.pose(f"/m1/r0/L{j}", "/m1")
            assert np.abs(Pb - Tb[j]).max() < POS_TOL, rb.link_names[j]
            assert np.abs(pg.pose(f"/m0/r0/L{i}") - Ta[i]).max() < POS_TOL, ra.link_names[i]
        assert np.abs(Ta[hand] - Tb[idx_b["RARM_WRIST_R"]]).max() < 1e-9   # the conversion holds
        assert pg.page.get_by_text("random configurations").count() >= 1
        assert pg.foreign_requests() == []


def test_view_point_cloud_on_a_link(tmp_path):
    """A Klamp't robot whose forearm is a coloured .pcd: the page holds every point under
    the link, draws them red where the page's camera projects them, and moves them with the
    elbow slider."""
    from conftest import SAMPLES
    rng = np.random.default_rng(5)
    pts = rng.random((3000, 3)) * [0.4, 0.06, 0.06] + [0.05, -0.03, -0.03]
    lines = ["VERSION 0.7", "FIELDS x y z rgb", "SIZE 4 4 4 4", "TYPE F F F U", "COUNT 1 1 1 1",
             f"WIDTH {len(pts)}", "HEIGHT 1", f"POINTS {len(pts)}", "DATA ascii"]
    lines += [f"{x!r} {y!r} {z!r} {0xFF0000}" for x, y, z in pts.tolist()]
    (tmp_path / "forearm.pcd").write_text("\n".join(lines) + "\n")
    with open(os.path.join(SAMPLES, "planar_arm.rob"), encoding="utf-8") as f:
        rob = f.read()
    meshes = os.path.join(SAMPLES, "meshes")
    rob = rob.replace('"meshes/forearm.off"', '"forearm.pcd"').replace('"meshes/', f'"{meshes}/')
    path = tmp_path / "arm.rob"
    path.write_text(rob)
    robot = roboio.load(str(path))
    cloud = "/m0/r0/L2/visual/points0"
    with viewer_process(str(path)) as url, browser_page(url) as pg:
        pg.wait_nodes(["/m0", "/m0/r0/L2", cloud])
        count = pg.page.evaluate("""n => { let c = 0; window.__viserMutable.nodeRefFromName[n].traverse(
            o => { if (o.isPoints) c += o.geometry.attributes.position.count; }); return c; }""", cloud)
        assert count == len(pts)
        T0 = robot.fk(robot.config)
        _wait_pose(pg, cloud, T0[2])
        shot = _wait_still(pg)
        xy = np.round(pg.project(pts @ T0[2][:3, :3].T + T0[2][:3, 3])).astype(int)
        h, w = shot.shape[:2]
        xy = xy[(xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)]
        px = shot[xy[:, 1], xy[:, 0]]
        red = (px[:, 0] > 150) & (px[:, 1] < 90) & (px[:, 2] < 90)
        assert len(xy) > 100 and red.mean() > 0.8, f"only {red.mean():.0%} of the projected points are red"
        pg.press("elbow", "End")
        deadline = time.time() + 10
        while pg.slider_value("elbow") == 0 and time.time() < deadline:
            time.sleep(0.05)
        u = robot.drivers_from_config(robot.config)
        u[2] = pg.slider_value("elbow")
        assert u[2] != 0
        _wait_pose(pg, cloud, robot.fk(robot.config_from_drivers(u))[2])
        assert pg.foreign_requests() == []
