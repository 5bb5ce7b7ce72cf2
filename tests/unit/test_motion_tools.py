"""``roboio motion fk`` and ``resample`` on every motion format, with the checks a user
needs: a motion that does not fit the model is refused with both counts, resampling says
what it drops, unknown links get suggestions."""
import contextlib
import io
import json
import os

import numpy as np
import pytest

from conftest import SAMPLES, corpus_path

import roboio
from roboio.cli.main import main
from roboio.model import BodyMotion, Seq, Trajectory

ARM = os.path.join(SAMPLES, "planar_arm.rob")
BODY = os.path.join(SAMPLES, "choreonoid", "arm.body")
WAVE = os.path.join(SAMPLES, "choreonoid", "arm_wave.seq")


def _run(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in args])
    return rc, out.getvalue(), err.getvalue()


def _fk_json(args):
    rc, out, err = _run(["motion", "fk", *args, "--json"])
    assert rc == 0, err
    return json.loads(out)


def test_motion_fk_of_a_klampt_path_is_fk_of_its_milestones(tmp_path):
    robot = roboio.load(ARM)
    Q = np.array([robot.config, robot.config, robot.config], float)
    Q[1, 1], Q[2, 2] = 0.5, -0.7
    path = tmp_path / "arm.path"
    roboio.save(Trajectory([0.0, 1.0, 2.5], Q), str(path))
    got = _fk_json([path, "--model", ARM, "--frames", "all"])
    assert [f["time"] for f in got["frames"]] == pytest.approx([0.0, 1.0, 2.5])
    names = got["links"]
    for f, q in zip(got["frames"], Q):
        T = robot.fk(q)
        for n, M in zip(names, f["transforms"]):
            assert np.allclose(M, T[robot.link_index(n)], atol=1e-12)


def test_motion_fk_of_a_multipath_and_of_a_seq_and_a_pseq():
    m = roboio.load(WAVE)
    body = roboio.load(BODY)
    got = _fk_json([WAVE, "--model", BODY, "--frames", "0,10,20"])
    T = m.link_transforms(body)
    for f in got["frames"]:
        for n, M in zip(got["links"], f["transforms"]):
            assert np.allclose(M, T[f["frame"], body.link_index(n)], atol=1e-12)
    mp = corpus_path("klampt", "motions", "hubo_sway_path.xml")
    hubo = corpus_path("klampt", "robots", "hubo.rob") if os.path.exists(
        corpus_path("klampt", "robots", "hubo.rob")) else None
    if hubo:
        got = _fk_json([mp, "--model", hubo, "--frames", "0"])
        robot = roboio.load(hubo)
        q = roboio.load(mp).to_trajectory().milestones[0]
        T = robot.fk(q)
        assert np.allclose(got["frames"][0]["transforms"][0], T[robot.link_index(got["links"][0])], atol=1e-12)
    seq_dir = corpus_path("choreonoid")
    pseq = os.path.join(seq_dir, "sample", "PoseSeq", "motion", "SR1", "SR1WalkPattern2.pseq")
    sr1 = os.path.join(seq_dir, "share", "model", "SR1", "SR1.body")
    got = _fk_json([pseq, "--model", sr1, "--frames", "1"])
    ps, robot = roboio.load(pseq), roboio.load(sr1)
    T = ps.key_link_transforms(robot, 1)
    assert np.allclose(got["frames"][0]["transforms"][0], T[robot.link_index(got["links"][0])], atol=1e-12)


def test_a_motion_with_more_joint_columns_than_the_body_is_refused_with_both_counts(tmp_path):
    """Choreonoid drops extra columns silently; playing a 3-joint motion on the 2-joint arm
    is a mistake a user wants to hear about."""
    seq = tmp_path / "three.seq"
    m = BodyMotion([Seq("MultiValueSeq", "JointDisplacement", np.zeros((4, 3)), frame_rate=10.0,
                        role="joint_displacement")], frame_rate=10.0)
    roboio.save(m, str(seq))
    for cmd in (["motion", "fk", seq, "--model", BODY], ["plot", seq, "-o", tmp_path / "p.png", "--model", BODY]):
        rc, out, err = _run(cmd)
        assert rc == 2, (cmd, err)
        assert "3 joint columns" in err and "2 joint ids" in err, err
    path = tmp_path / "short.path"
    roboio.save(Trajectory([0.0], np.zeros((1, 4))), str(path))
    rc, out, err = _run(["motion", "fk", path, "--model", ARM])
    assert rc == 2 and "4 values per milestone" in err and "6 links" in err


def test_fewer_joint_columns_play_with_a_warning(tmp_path):
    seq = tmp_path / "one.seq"
    m = BodyMotion([Seq("MultiValueSeq", "JointDisplacement", np.full((2, 1), 0.3), frame_rate=10.0,
                        role="joint_displacement")], frame_rate=10.0)
    roboio.save(m, str(seq))
    rc, out, err = _run(["motion", "fk", seq, "--model", BODY])
    assert rc == 0 and "joint ids 1..1 keep the model's values" in err


def test_an_unknown_link_is_named_with_suggestions_and_no_stray_quotes():
    rc, out, err = _run(["motion", "fk", WAVE, "--model", BODY, "--link", "HNAD"])
    assert rc == 2
    assert "has no link 'HNAD' (did you mean 'HAND'?)" in err
    assert "links: 'base0'" in err and '"' not in err


def test_resampling_down_reports_the_dropped_frames_and_the_error(tmp_path):
    """20 fps -> 10 fps keeps every second frame: 10 of the 21 frames are dropped; the wave
    read back (held) at the dropped frames differs by the largest one-frame step."""
    m = roboio.load(WAVE)
    out = tmp_path / "w10.seq"
    rc, text, err = _run(["motion", "resample", WAVE, out, "--rate", "10"])
    assert rc == 0, err
    assert "lossless" not in text
    assert "10 of 21 frames (48%)" in text
    jd = m.joint_displacement
    step = np.abs(jd[1::2] - jd[0:-1:2]).max()        # a dropped odd frame vs the frame before
    got = float(text.split("differs by up to ")[1].split()[0])
    assert got == pytest.approx(step, rel=5e-3)       # printed with 3 digits
    rc, text, err = _run(["motion", "resample", WAVE, tmp_path / "same.seq", "--rate", "20"])
    assert rc == 0 and "lossless" in text
    rc, text, err = _run(["motion", "resample", WAVE, tmp_path / "up.seq", "--rate", "40"])
    assert rc == 0 and "lossless" in text
    assert roboio.load(str(tmp_path / "up.seq")).num_frames == 41


def test_resampling_a_klampt_path(tmp_path):
    src = tmp_path / "a.path"
    roboio.save(Trajectory([0.0, 1.0], np.array([[0.0, 0.0], [1.0, -2.0]])), str(src))
    out = tmp_path / "b.path"
    rc, text, err = _run(["motion", "resample", src, out, "--rate", "4"])
    assert rc == 0, err
    t = roboio.load(str(out))
    assert t.times == pytest.approx([0, 0.25, 0.5, 0.75, 1.0])
    assert np.allclose(t.milestones[:, 1], [0, -0.5, -1.0, -1.5, -2.0], atol=1e-15)
    assert "lossless" in text      # the two milestones are frames of the result
    rc, text, err = _run(["motion", "resample", src, tmp_path / "c.path", "--rate", "0.5"])
    assert rc == 0 and "1 of 2 frames" in text and "differs by up to 2" in text


def test_resampling_a_pose_sequence_is_refused_with_the_reason(tmp_path):
    pseq = corpus_path("choreonoid", "sample", "PoseSeq", "motion", "SR1", "SR1WalkPattern2.pseq")
    rc, out, err = _run(["motion", "resample", pseq, tmp_path / "x.seq", "--rate", "100"])
    assert rc == 2 and "key poses" in err


def test_a_fixed_rate_motion_resampled_at_its_own_rate_is_unchanged():
    """At 500 fps, 4051 / 500 * 500 = 4050.999...: truncating frame times dropped frame 4051
    and doubled 4050. Fixed-rate frames are resampled by index."""
    data = np.arange(6701 * 2, dtype=float).reshape(6701, 2)
    m = BodyMotion([Seq("MultiValueSeq", "JointDisplacement", data, frame_rate=500.0,
                        role="joint_displacement")], frame_rate=500.0)
    assert np.array_equal(m.resampled(500.0).joint_displacement, data)
    assert np.array_equal(m.resampled(250.0).joint_displacement, data[::2])
    up = m.resampled(1000.0).joint_displacement
    assert np.array_equal(up[::2], data) and np.array_equal(up[1::2], data[:-1])


def test_link_transforms_of_some_frames_are_those_of_the_whole_and_cost_only_theirs():
    """``frames`` picks rows of the whole computation (a component shorter than the motion
    repeating its last frame, Choreonoid's rule), and the memory budget counts only the frames
    asked for: batch fk's chunks of a motion too long to compute at once."""
    from roboio.errors import LimitExceeded
    from roboio.limits import using
    m, body = roboio.load(WAVE), roboio.load(BODY)
    jd = m.component("joint_displacement")
    jd.data = jd.data[:12]                              # 12 joint frames of 21 root poses
    assert m.num_frames == 21
    whole = m.link_transforms(body)
    Q = m.robot_configs(body)
    assert np.array_equal(Q[12:], np.repeat(Q[11:12], 9, axis=0))
    for frames in (slice(5, 15), slice(18, None), [20, 0, 7, 7], np.arange(0, 21, 4)):
        assert np.allclose(m.link_transforms(body, frames=frames), whole[frames], rtol=0, atol=1e-15)
        assert np.array_equal(m.robot_configs(body, frames=frames), Q[frames])
    per_frame = body.num_links * 128 * 3
    with using({"max_alloc_bytes": 10 * per_frame}):
        assert np.allclose(m.link_transforms(body, frames=slice(0, 10)), whole[:10], rtol=0, atol=1e-15)
        with pytest.raises(LimitExceeded, match="21 frames"):
            m.link_transforms(body)


def test_link_pose_columns_are_the_columns_of_link_transforms():
    """With root poses in the motion (LinkPosition) and without, for chosen links and frames:
    the bits of pose_columns(link_transforms(...)) (checked element by element, the
    transforms then the quaternion rows of matrix_to_quat)."""
    from roboio.transforms import matrix_to_quat
    m, body = roboio.load(WAVE), roboio.load(BODY)
    assert m.link_positions is not None
    without = roboio.load(WAVE)
    without.components = [c for c in without.components if c.role != "link_position"]
    assert without.link_positions is None
    for motion in (m, without):
        for links, frames in ((None, None), ([2, 0], slice(3, 11))):
            T = motion.link_transforms(body, frames=frames)
            T = T if links is None else T[:, links]
            P = motion.link_pose_columns(body, links, frames=frames)
            assert P.shape == (T.shape[1], 7, T.shape[0])
            assert np.array_equal(P[:, :3].transpose(2, 0, 1), T[..., :3, 3])
            assert np.array_equal(P[:, 3:].transpose(2, 0, 1), matrix_to_quat(T[..., :3, :3]))
