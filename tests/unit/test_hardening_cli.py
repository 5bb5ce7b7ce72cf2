"""Every user error of the command line is one line on stderr: exit 1, or 2 for usage errors
(issue 9); requests that would allocate too much are refused with the size they need."""
import errno
import os
import re
import shutil

import pytest

import roboio
from conftest import SAMPLES
from hostile import resample_rate, seq_frame_time, small_seq
from roboio.cli.main import main
from roboio.errors import LimitExceeded
from roboio.limits import Limits, as_limits, parse_limit, using

ROB = os.path.join(SAMPLES, "planar_arm.rob")
SEQ = os.path.join(SAMPLES, "choreonoid", "arm_wave.seq")
BODY = os.path.join(SAMPLES, "choreonoid", "arm.body")


def run(capsys, *argv):
    try:
        rc = main(list(argv))
    except SystemExit as e:        # argparse's own errors
        rc = e.code
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def one_line(capsys, code, pattern, *argv):
    rc, out, err = run(capsys, *argv)
    lines = err.strip().splitlines()
    assert rc == code, err
    assert len(lines) == 1 and "Traceback" not in err, err
    assert re.search(pattern, lines[0]), lines[0]
    return lines[0]


def writable_names():
    return sorted(f.name for f in roboio.formats() if f.can_write)


@pytest.mark.parametrize("argv, option, direction", [
    (["info", ROB, "--format", "nosuch"], "--format", "input"),
    (["convert", ROB, "x.urdf", "--from", "nosuch"], "--from", "input"),
    (["convert", ROB, "x.urdf", "--to", "nosuch"], "--to", "output"),
    (["motion", "resample", SEQ, "x.seq", "--to", "nosuch"], "--to", "output"),
    (["convert", ROB, "x.urdf", "--to", "vrml"], "--to", "output"),      # readable, not writable
])
def test_unknown_format_is_a_usage_error_naming_the_valid_ones(capsys, tmp_path, argv, option, direction):
    argv = [str(tmp_path / a) if a.startswith("x.") else a for a in argv]
    line = one_line(capsys, 2, rf"^roboio \w+: error: {option}: .*'(nosuch|vrml)'", *argv)
    names = writable_names() if direction == "output" else sorted(f.name for f in roboio.formats() if f.can_read)
    assert all(n in line for n in names)
    assert not list(tmp_path.iterdir())


def test_unknown_output_extension_is_a_usage_error(capsys, tmp_path):
    one_line(capsys, 2, r"no format roboio writes has the extension \.nosuch.*--to", "convert", ROB, str(tmp_path / "x.nosuch"))


@pytest.mark.parametrize("frames, pattern", [("::0", "step cannot be 0"), ("1:x", "not a slice"),
                                             ("1:2:3:4", "not a slice"), ("a,b", "frame indices"),
                                             ("99999", "has \\d+ frames")])
def test_bad_frame_selections_are_usage_errors(capsys, frames, pattern):
    one_line(capsys, 2, rf"^roboio motion: error: --frames: .*{pattern}",
             "motion", "fk", SEQ, "--body", BODY, "--frames", frames)


@pytest.mark.parametrize("argv", [["verify", ROB, ROB, "--samples", "0"],
                                  ["verify", ROB, ROB, "--samples", "-3"],
                                  ["verify", ROB, ROB, "--samples", "many"],
                                  ["fk", ROB, "--random", "0"]])
def test_bad_counts_are_usage_errors(capsys, argv):
    one_line(capsys, 2, r"^roboio \w+: error: (argument )?--(samples|random)\b", *argv)


def test_python_verify_rejects_zero_samples():
    r = roboio.load(ROB)
    with pytest.raises(ValueError, match="samples >= 1"):
        roboio.verify(r, r, samples=0)


@pytest.mark.parametrize("spec, pattern", [("depth", "NAME=VALUE"), ("nosuch=3", "unknown limit"),
                                           ("max_depth=x", "not a number"),
                                           ("max_depth=-1", "between 0")])
def test_bad_limit_options_are_usage_errors(capsys, spec, pattern):
    one_line(capsys, 2, rf"argument --limit: .*{pattern}", "info", ROB, "--limit", spec)


WORLD = os.path.join(SAMPLES, "world.xml")


def test_limit_option_reaches_the_load(capsys):
    one_line(capsys, 1, r"world\.xml:4: .*opening .*: files 3, over the limit max_files=2.*--limit max_files=N",
             "info", WORLD, "--limit", "files=2")
    rc, out, err = run(capsys, "info", WORLD, "--limit", "files=100", "--limit", "max_depth=10")
    assert rc == 0, err


def test_parse_limit_units():
    assert parse_limit("max_alloc_bytes=2Gi") == ("max_alloc_bytes", 2 << 30)
    assert parse_limit("alloc_bytes=500M") == ("max_alloc_bytes", 500_000_000)
    assert parse_limit("frames=1e6") == ("max_frames", 1_000_000)
    assert parse_limit("nodes=1_000") == ("max_nodes", 1000)
    assert parse_limit("file-bytes=1KiB") == ("max_file_bytes", 1024)


def test_using_sets_the_default_of_loads():
    assert as_limits(None) == Limits()
    with using({"max_files": 2}) as lim:
        assert lim.max_files == 2 and as_limits(None).max_files == 2
        with pytest.raises(roboio.FormatError, match="max_files=2"):
            roboio.load(WORLD)
        assert len(roboio.load(WORLD, limits={"max_files": 100}).robots) == 1
    assert len(roboio.load(WORLD).robots) == 1


def test_resample_rate_refused_with_its_size(capsys, tmp_path):
    h = resample_rate(str(tmp_path))
    line = one_line(capsys, 1, r"^roboio: error: .*small\.seq: resampling at 1e\+09 frames/s .* would need .* values "
                    r"\(about [\d.]+ GB\), over the limit max_frames", *h.argv)
    assert not os.path.exists(h.argv[3])
    # raising the limit lets a (smaller) request through
    rc, out, err = run(capsys, "motion", "resample", h.path, str(tmp_path / "ok.seq"), "--rate", "1e4",
                       "--limit", "frames=1e8")
    assert rc == 0, err
    assert roboio.load(str(tmp_path / "ok.seq")).num_frames == 7001


def test_huge_frame_time_refused_with_its_size(capsys, tmp_path):
    h = seq_frame_time(str(tmp_path))
    one_line(capsys, 1, r"resampling at 10 frames/s \(1e\+13 frames .* \(about 400 TB\)", *h.argv)
    with pytest.raises(LimitExceeded, match="max_frames"):
        roboio.load(h.path).resampled()


def test_alloc_limit_in_bytes(capsys, tmp_path):
    p = small_seq(str(tmp_path), frames=4, parts=2)
    one_line(capsys, 1, r"would allocate .* over the limit max_alloc_bytes=1,000",
             "motion", "resample", p, str(tmp_path / "o.seq"), "--rate", "1000",
             "--limit", "alloc_bytes=1000")


def test_ctrl_c_is_one_line_and_130(capsys, monkeypatch):
    import roboio.cli.cmd_info as cmd

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(cmd, "load", interrupted)
    one_line(capsys, 130, r"^roboio: interrupted$", "info", ROB)


def test_missing_and_directory_inputs(capsys, tmp_path):
    one_line(capsys, 1, r"nope\.rob: file not found", "info", str(tmp_path / "nope.rob"))
    # a directory is described file by file (issue 25); one that holds nothing readable says so
    rc, out, err = run(capsys, "info", str(tmp_path))
    assert rc == 0 and not err and out.strip() == f"{tmp_path}: no file roboio reads"
    one_line(capsys, 1, r"is a directory", "fk", str(tmp_path))


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_symlink_loop_is_named_as_one(capsys, tmp_path):
    # a link to itself exists (ls shows it): "file not found" would send the user looking
    # for a typo; the system's own words say what is wrong
    loop = tmp_path / "loop.rob"
    os.symlink("loop.rob", loop)
    one_line(capsys, 1, r"loop\.rob: Too many levels of symbolic links$", "info", str(loop))
    with pytest.raises(OSError) as e:
        roboio.load(loop)
    assert e.value.errno == errno.ELOOP and e.value.filename == str(loop)
    assert not isinstance(e.value, FileNotFoundError)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads unreadable files")
def test_unreadable_input(capsys, tmp_path):
    p = tmp_path / "a.rob"
    shutil.copy(ROB, p)
    p.chmod(0)
    one_line(capsys, 1, r"a\.rob: Permission denied", "info", str(p))
