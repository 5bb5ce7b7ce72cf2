"""roboio batch convert / validate / fk on corpus trees, on a local Dask cluster of 2 worker
processes shared by the module (started once: a cluster costs seconds).

Expected values come from the single-file API (``roboio.load``/``roboio.save``,
``BodyMotion.link_transforms``, ``Robot.fk_batch``, ``roboio validate``'s checks): the batch
path must give the same bytes and the same poses. Quaternions are turned back into rotation
matrices here with the textbook formula, independently of roboio."""
import json
import logging
import os
import warnings

import numpy as np
import pytest

import roboio
from conftest import corpus_path, tree_bytes
from roboio.cli.main import main

distributed = pytest.importorskip("distributed")
pq = pytest.importorskip("pyarrow.parquet")

SR1 = ("choreonoid", "share", "model", "SR1")
WALKS = ("choreonoid", "sample", "SimpleController")
BROKEN_URDF = "<robot name='broken'>\n  <link name='a'>\n    <visual><geometry><box size='1 1'/>\n"


@pytest.fixture(scope="module")
def cluster():
    """A scheduler on loopback (a random free port) with 2 worker processes."""
    c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 host="127.0.0.1", scheduler_port=0, dashboard_address=None,
                                 silence_logs=logging.ERROR)
    client = distributed.Client(c)
    yield client
    client.close()
    c.close()


def _single_file_outputs(jobs, root_from, root_to, to):
    """``roboio.save(roboio.load(src))`` of every job into ``root_to`` (a sibling of the
    batch output, so that relative references are the same)."""
    out = {}
    for job in jobs:
        rel = os.path.relpath(job.dst, root_from)
        path = os.path.join(root_to, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        obj = roboio.load(job.src, check_meshes=True)
        roboio.save(obj, path, to)
        with open(path, "rb") as f:
            out[rel] = f.read()
    return out


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def test_batch_convert_writes_what_the_single_file_api_writes(cluster, tmp_path):
    from roboio.batch.walk import convert_jobs
    from roboio.formats.registry import get
    src = corpus_path(*SR1)
    broken = tmp_path / "extra" / "broken.urdf"
    broken.parent.mkdir()
    broken.write_text(BROKEN_URDF)
    dst = tmp_path / "batch"
    s = roboio.batch.convert([src, str(broken)], dst, "urdf", client=cluster)
    assert s.failed.keys() == {str(broken)} and "broken.urdf:4:" in s.failed[str(broken)], s.failed
    jobs = [j for j in convert_jobs([src], str(dst), get("urdf"))]
    assert sorted(s.ok) == sorted(j.src for j in jobs)
    # SR1.body and SR1.urdf: two outputs (issue 21: they were one)
    assert {"SR1.body.urdf", "SR1.urdf"} <= set(os.listdir(dst))
    expected = _single_file_outputs(jobs, str(dst), str(tmp_path / "single"), "urdf")
    for rel, data in expected.items():
        assert _read(dst / rel) == data, rel
    report = json.loads(_read(dst / ".roboio-batch-report.json"))
    kinds = {os.path.basename(f["input"]): f["kind"] for f in report["files"]}
    assert kinds["broken.urdf"] == "failed" and kinds["SR1.body"] == "ok"
    assert all(f["seconds"] >= 0 for f in report["files"])

    # --resume: complete outputs are skipped, a partial one is redone
    partial = dst / "SR1.body.urdf"
    partial.write_bytes(_read(partial)[:100])
    r = roboio.batch.convert([src, str(broken)], dst, "urdf", client=cluster, resume=True)
    redone = [o.input for o in r.outcomes if o.kind == "ok"]
    assert redone == [os.path.join(src, "SR1.body")]
    assert len(r.skipped) == len(jobs) - 1 and set(r.failed) == {str(broken)}
    assert _read(partial) == expected["SR1.body.urdf"]


def _problems(path):
    from roboio.validation import problems
    try:
        return problems(roboio.load(path, check_meshes=True))
    except roboio.FormatError as e:
        return [str(e)]


def test_batch_validate_reports_what_validate_reports(cluster, tmp_path):
    src = corpus_path(*SR1)
    broken = tmp_path / "broken.urdf"
    broken.write_text(BROKEN_URDF)
    s = roboio.batch.validate([src, str(broken)], client=cluster, kinds=["robot"])
    names = sorted(os.listdir(src))
    assert sorted(os.path.basename(p) for p in list(s.ok) + list(s.failed)) == sorted(names + ["broken.urdf"])
    for path in [os.path.join(src, n) for n in names] + [str(broken)]:
        found = _problems(path)
        assert (path in s.failed) == bool(found), path
    assert str(broken) in s.failed


def test_the_command_line_names_each_failed_file_once(cluster, tmp_path, capsys):
    """One line per failed file on stderr, the file named once: a message that names it
    (``FILE:LINE: what``, ``FILE: file not found``) is not prefixed with it again."""
    from roboio.cli.main import main
    broken = tmp_path / "broken.urdf"
    broken.write_text(BROKEN_URDF)
    os.symlink("nowhere.urdf", tmp_path / "dangling.urdf")
    rc = main(["batch", "validate", str(tmp_path), "--scheduler", cluster.scheduler.address])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1
    lines = {os.path.basename(l.split(": ")[1].split(":")[0]): l for l in err}
    assert set(lines) == {"broken.urdf", "dangling.urdf"}, err
    assert lines["dangling.urdf"] == f"roboio batch validate: {tmp_path / 'dangling.urdf'}: file not found"
    assert lines["broken.urdf"].startswith(f"roboio batch validate: {broken}:")
    assert all(l.count(str(tmp_path)) == 1 for l in err), err


def _rotation(qw, qx, qy, qz):
    """Rotation matrices of unit quaternions (the textbook formula)."""
    return np.stack([
        np.stack([1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw)], -1),
        np.stack([2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw)], -1),
        np.stack([2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy)], -1)], -2)


def _dataset(out, rel):
    from roboio.batch.parquet import partition_dir
    d = os.path.join(out, partition_dir(rel))
    parts = sorted(os.listdir(d))
    tables = [pq.read_table(os.path.join(d, p)) for p in parts]
    meta = [json.loads(t.schema.metadata[b"roboio"]) for t in tables]
    cols = {name: np.concatenate([t.column(name).to_numpy() for t in tables])
            for name in tables[0].column_names}
    return cols, meta


def _check_poses(cols, links, T, times):
    assert cols["frame"].tolist() == list(range(len(T)))
    assert np.allclose(cols["time"], times, rtol=0, atol=1e-12)
    for k, name in links:
        p = np.stack([cols[f"{name}.{a}"] for a in "xyz"], -1)
        q = np.stack([cols[f"{name}.{a}"] for a in ("qw", "qx", "qy", "qz")], -1)
        assert np.allclose(p, T[:, k, :3, 3], rtol=0, atol=1e-12), name
        assert np.allclose(np.linalg.norm(q, axis=1), 1, atol=1e-12) and (q[:, 0] >= 0).all()
        assert np.allclose(_rotation(*q.T), T[:, k, :3, :3], rtol=0, atol=1e-12), name


def test_batch_fk_of_choreonoid_walks_equals_link_transforms(cluster, tmp_path):
    walks, body = corpus_path(*WALKS), corpus_path(*SR1, "SR1.body")
    out = tmp_path / "poses.parquet"
    s = roboio.batch.fk(walks, body, out, client=cluster, chunk_frames=2500)
    seqs = sorted(f for f in os.listdir(walks) if f.endswith(".seq"))
    assert sorted(os.path.basename(p) for p in s.ok) == seqs and not s.failed
    # the model is read once per worker, not once per chunk
    loads = [p for o in s.outcomes for p in o.loaded if p == body]
    assert 1 <= len(loads) <= 2 and len(s.outcomes) > 2
    robot = roboio.load(body)
    for name in seqs:
        motion = roboio.load(os.path.join(walks, name))
        T = motion.link_transforms(robot)
        cols, meta = _dataset(out, name)
        times = np.arange(motion.num_frames) / motion.frame_rate
        _check_poses(cols, list(enumerate(robot.link_names)), T, times)
        assert meta[0]["model"] == robot.name and meta[0]["model_links"] == robot.link_names
        assert meta[0]["links"] == robot.link_names and len(meta) == -(-motion.num_frames // 2500)
    # the whole dataset reads back with the source as a column
    import pyarrow.dataset as ds
    table = ds.dataset(str(out), partitioning="hive").to_table(columns=["source", "frame"])
    assert sorted(set(table.column("source").to_pylist())) == seqs


def test_batch_fk_of_klampt_paths_skips_nothing_silently(cluster, tmp_path):
    """athlete motions (.path, .milestones, multipath .xml) on athlete.rob, chosen links; the
    Hubo motions in the same folder (63 values a frame) fail one line each, the rest complete."""
    motions, model = corpus_path("klampt", "motions"), corpus_path("klampt", "robots", "athlete.rob")
    out = tmp_path / "athlete.parquet"
    links = ["hex pitch", "11"]              # a name and an index
    rc = main(["-q", "batch", "fk", motions, "--model", model, "--out", str(out), "--links",
               ",".join(links), "--scheduler", cluster.scheduler.address, "--json"])
    assert rc == 1                        # some motions are not the athlete's
    report = json.loads(_read(out / "_roboio-batch-report.json"))
    failed = {os.path.basename(f["input"]): f["message"] for f in report["files"] if f["kind"] == "failed"}
    assert failed and all(n.startswith(("hubo", "tx90")) for n in failed), failed
    assert all("63 values" in m for n, m in failed.items() if n.startswith("hubo"))
    robot = roboio.load(model)
    picked = [(robot.link_index("hex pitch"), "hex pitch"), (11, robot.link_names[11])]
    done = sorted({os.path.basename(f["input"]) for f in report["files"] if f["kind"] == "ok"})
    assert {"athlete_flex.path", "athlete_flex.milestones", "athlete_flex.xml", "athlete_flex_opt.xml"} <= set(done)
    for name in done:
        motion = roboio.load(os.path.join(motions, name))
        traj = motion.to_trajectory() if isinstance(motion, roboio.model.MultiPath) else motion
        cols, meta = _dataset(out, name)
        times = traj.times if traj.times is not None else np.arange(traj.num_milestones)
        _check_poses(cols, [(0, picked[0][1]), (1, picked[1][1])],
                     robot.fk_batch(traj.milestones)[:, [i for i, _ in picked]], times)
        assert meta[0]["links"] == [n for _, n in picked]


def test_a_hung_task_times_out_and_the_rest_go_on(cluster):
    import time
    from roboio.batch.runner import Pool
    got = []
    pool = Pool(cluster, timeout=1.0)
    pool.submit(time.sleep, 60, then=got.append)
    pool.submit(sum, [1, 2], then=got.append)
    pool.run()
    assert 3 in got and any(isinstance(g, TimeoutError) and "timed out after 1 s" in str(g) for g in got)
    cluster.wait_for_workers(2, timeout=60)      # the stuck worker was restarted


def test_ctrl_c_leaves_no_half_written_output(tmp_path):
    """SIGINT to the command's process group (a terminal's Ctrl-C) in the middle of a run:
    exit status 130, every output on disk complete, no temporary file; --resume then
    completes the rest and skips what was done."""
    import signal
    import subprocess
    import sys
    import time
    walks = corpus_path(*WALKS)           # 3 walks of ~6,000 frames: 19 chunks of 1,000
    out = tmp_path / "p.parquet"
    cmd = [sys.executable, "-m", "roboio", "-q", "batch", "fk", walks, "--model",
           corpus_path(*SR1, "SR1.body"), "--out", str(out), "--workers", "1", "--chunk-frames", "1000"]
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        if sum(len(fs) for _, _, fs in os.walk(out) if fs and _ != str(out)) >= 3:
            break
        time.sleep(0.05)
    assert p.poll() is None, p.communicate()
    os.killpg(p.pid, signal.SIGINT)
    stdout, stderr = p.communicate(timeout=120)
    assert p.returncode == 130, stderr
    parts = [os.path.join(d, f) for d, _, fs in os.walk(out) for f in fs if d != str(out)]
    assert parts and all(f.endswith(".parquet") and not os.path.basename(f).startswith(".") for f in parts)
    for f in parts:
        pq.read_table(f)                  # complete: a cut file does not read
    report = json.loads(_read(out / "_roboio-batch-report.json"))
    assert report["interrupted"] is True
    r = subprocess.run(cmd + ["--resume", "--json"], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    counts = json.loads(r.stdout)["counts"]
    assert counts["failed"] == 0 and counts["ok"] + counts["skipped"] == 3
    resumed = json.loads(r.stdout)["files"]
    assert sum(f["kind"] == "skipped" for f in resumed) >= len([1 for f in report["files"] if f["kind"] == "ok"])


def test_batch_fk_of_mjcf_keyframes_equals_mujoco(cluster, tmp_path):
    """An MJCF model named as a motion: its keyframes, one frame each (the shipped scene:
    the arm and a free box, two keys, the second at 1.5 s). Expected poses: MuJoCo's own
    (mj_resetDataKeyframe + mj_kinematics), body by body."""
    mujoco = pytest.importorskip("mujoco")
    from conftest import SAMPLES
    scene = os.path.join(SAMPLES, "mjcf", "scene.xml")
    out = tmp_path / "keys.parquet"
    s = roboio.batch.fk([scene], scene, out, client=cluster)
    assert list(s.ok) == [scene] and not s.failed
    robot = roboio.load(scene).robots[0]
    cols, meta = _dataset(out, "scene.xml")
    assert list(cols["frame"]) == [0, 1] and np.allclose(cols["time"], [0.0, 1.5], rtol=0, atol=0)
    m = mujoco.MjModel.from_xml_path(scene)
    d = mujoco.MjData(m)
    for k in range(m.nkey):
        mujoco.mj_resetDataKeyframe(m, d, k)
        mujoco.mj_kinematics(m, d)
        for name in ("shoulder", "elbow", "hand", "left", "right"):
            b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, name)
            p = np.array([cols[f"{name}.{c}"][k] for c in "xyz"])
            q = np.array([cols[f"{name}.q{c}"][k] for c in "wxyz"])
            assert np.allclose(p, d.xpos[b], rtol=0, atol=1e-12), (k, name)
            qm = d.xquat[b] * (1 if d.xquat[b][0] >= 0 else -1)
            assert np.allclose(q, qm, rtol=0, atol=1e-12), (k, name)
    assert meta[0]["links"] == robot.link_names


def _urdf_arm(name, size, mass):
    """A two-link arm whose link names every arm of this helper shares."""
    box = f"<geometry><box size='{size} {size} {size}'/></geometry>"
    inertial = (f"<inertial><mass value='{mass}'/>"
                "<inertia ixx='0.01' iyy='0.01' izz='0.01' ixy='0' ixz='0' iyz='0'/></inertial>")
    return (f"<robot name='{name}'>\n"
            f"  <link name='BODY'>{inertial}<visual>{box}</visual><collision>{box}</collision></link>\n"
            f"  <link name='ARM'>{inertial}<collision>{box}</collision></link>\n"
            "  <joint name='J' type='revolute'><parent link='BODY'/><child link='ARM'/>"
            "<origin xyz='0 0 0.5'/><axis xyz='0 1 0'/>"
            "<limit lower='-1' upper='1' effort='10' velocity='1'/></joint>\n</robot>\n")


def test_batch_convert_of_robots_sharing_link_names_equals_single_file_saves(cluster, tmp_path):
    """GraspIt! robots written side by side (one folder, one iv/) with link names in common:
    every file batch convert writes is the one roboio.save writes, whatever order the
    workers finish in (the link bodies of each are its own)."""
    from roboio.batch.walk import convert_jobs
    from roboio.formats.registry import get
    src = tmp_path / "robots"
    src.mkdir()
    for k, (size, mass) in enumerate([(0.1, 1.0), (0.2, 2.0), (0.3, 3.0), (0.4, 4.0)]):
        (src / f"arm{k}.urdf").write_text(_urdf_arm(f"arm{k}", size, mass))
    dst = tmp_path / "batch"
    s = roboio.batch.convert(str(src), dst, "graspit", client=cluster)
    assert len(s.ok) == 4 and not s.failed
    jobs = convert_jobs([str(src)], str(dst), get("graspit"))
    _single_file_outputs(jobs, str(dst), str(tmp_path / "single"), "graspit")
    assert tree_bytes(dst, skip={".roboio-batch-report.json"}) == tree_bytes(tmp_path / "single")
    assert not any(o.shared for o in s.outcomes)         # no file written for two inputs
    for k in range(4):
        back = roboio.load(dst / f"arm{k}.urdf.xml")
        assert back.link("ARM").mass == pytest.approx(k + 1.0, rel=1e-14)


def test_batch_fk_of_a_motion_whose_partition_name_would_be_too_long(cluster, tmp_path):
    """30 Japanese characters escape to 270 bytes, past the 255 a file name may have: the
    partition name is cut and hashed, the part's metadata keeps the whole path, and the
    poses are those of the single-file API."""
    import shutil
    samples = os.path.join(os.path.dirname(roboio.__file__), "data", "samples", "choreonoid")
    name = "歩行データ" * 6 + ".seq"
    src = tmp_path / "motions"
    src.mkdir()
    shutil.copy(os.path.join(samples, "arm_wave.seq"), src / name)
    body = os.path.join(samples, "arm.body")
    s = roboio.batch.fk(str(src), body, str(tmp_path / "out.parquet"), client=cluster)
    assert not s.failed and s.ok == [str(src / name)], s.failed
    parts = [d for d in os.listdir(tmp_path / "out.parquet") if d.startswith("source=")]
    assert len(parts) == 1 and len(parts[0].encode()) <= 255
    table = pq.read_table(tmp_path / "out.parquet" / parts[0])
    assert json.loads(table.schema.metadata[b"roboio"])["source"] == name
    robot = roboio.load(body)
    T = roboio.load(str(src / name)).link_transforms(robot)
    cols = {c: table.column(c).to_numpy() for c in table.column_names}
    _check_poses(cols, list(enumerate(robot.link_names)), T, cols["time"])
    import pyarrow.dataset as ds                      # the hive name decodes
    assert ds.dataset(str(tmp_path / "out.parquet"), partitioning="hive").to_table().num_rows == T.shape[0]


def test_batch_convert_of_graspit_worlds_equals_single_file_saves(cluster, tmp_path):
    """Four worlds written as GraspIt! worlds into one folder: lab1 and wam_cabinet (OpenRAVE)
    each hold a different robot named BarrettWAM, barrettGlassDyn and plannerMug both name
    GraspIt!'s Barrett.xml. Every file batch convert writes is the one roboio.save of each
    world writes, whichever worker finishes first; only the unchanged Barrett files are
    written for two inputs, with the same bytes (no conflict reported)."""
    from roboio.batch.walk import convert_jobs
    from roboio.formats.registry import get
    graspit, openrave = corpus_path("graspit"), corpus_path("openrave", "src")
    srcs = [os.path.join(graspit, "worlds", "barrettGlassDyn.xml"), os.path.join(graspit, "worlds", "plannerMug.xml"),
            os.path.join(openrave, "data", "lab1.env.xml"), os.path.join(openrave, "data", "wam_cabinet.env.xml")]
    paths = [graspit, openrave]
    dst = tmp_path / "batch"
    s = roboio.batch.convert(srcs, dst, "graspit", client=cluster, search_paths=paths)
    assert len(s.ok) == 4 and not s.failed, s.failed
    assert not any(o.shared for o in s.outcomes)
    single = tmp_path / "single"
    for job in convert_jobs(srcs, str(dst), get("graspit")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")              # the readers' notes, reported by batch too
            obj = roboio.load(job.src, search_paths=paths)
        roboio.save(obj, single / os.path.relpath(job.dst, dst), "graspit")
    assert tree_bytes(dst, skip={".roboio-batch-report.json"}) == tree_bytes(single)
    shared = [p for o in s.outcomes for p in o.written if "models/robots/Barrett/" in p["path"]]
    assert shared and all("crc32" in p for p in shared)
