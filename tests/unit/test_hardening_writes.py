"""Writes never damage files (issue 9): modes, symlinks, special files, OUT == IN, temporary
files on errors and signals, full disks and read-only directories."""
import errno
import glob
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap

import pytest

import roboio
from conftest import ROOT, SAMPLES
from roboio.cli.main import main
from roboio.errors import OutputError
from roboio.formats import fileio


@pytest.fixture
def samples(tmp_path):
    d = tmp_path / "in"
    shutil.copytree(SAMPLES, d)
    for p in d.rglob("*"):
        p.chmod(p.stat().st_mode | stat.S_IWUSR)
    return d


def temps(d):
    return [p for p in glob.glob(os.path.join(str(d), "**", ".*"), recursive=True)
            if fileio.is_temp_file(p)]


def one_line_error(capsys, code, rc, pattern):
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert rc == code, cap.err
    assert len(lines) == 1, cap.err
    assert "Traceback" not in cap.err
    import re
    assert re.search(pattern, lines[0]), lines[0]
    return lines[0]


@pytest.fixture
def umask():
    old = os.umask(0o022)
    yield lambda m: os.umask(m)
    os.umask(old)


# -- modes -------------------------------------------------------------------------------

@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_file_mode_follows_umask(tmp_path, umask, mask, expected):
    umask(mask)
    out = tmp_path / "a.txt"
    fileio.atomic_write(str(out), "x\n")
    assert stat.S_IMODE(out.stat().st_mode) == expected


def test_existing_file_mode_is_kept(tmp_path, umask, samples, capsys):
    umask(0o077)
    out = tmp_path / "arm.urdf"
    out.write_text("old")
    out.chmod(0o640)
    assert main(["convert", str(samples / "planar_arm.rob"), str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert out.read_text().startswith("<?xml")


def test_side_files_get_the_umask_mode(tmp_path, umask, samples, capsys):
    umask(0o027)
    assert main(["convert", str(samples / "world.xml"), str(tmp_path / "w.xml")]) == 0
    written = [tmp_path / "w.xml"] + sorted((tmp_path / "w").iterdir())
    assert len(written) == 4
    assert {stat.S_IMODE(p.stat().st_mode) for p in written} == {0o640}


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_read_only_file_is_not_replaced(tmp_path, samples, capsys):
    out = tmp_path / "ro.urdf"
    out.write_text("keep")
    out.chmod(0o444)
    rc = main(["convert", str(samples / "planar_arm.rob"), str(out)])
    one_line_error(capsys, 1, rc, r"ro\.urdf.*Permission denied")
    assert out.read_text() == "keep"


# -- symlinks, devices, FIFOs, directories -----------------------------------------------

def test_symlink_is_written_through(tmp_path, samples, capsys):
    real = tmp_path / "sub" / "real.urdf"
    real.parent.mkdir()
    real.write_text("old")
    real.chmod(0o600)
    link = tmp_path / "link.urdf"
    link.symlink_to(real)
    assert main(["convert", str(samples / "planar_arm.rob"), str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text().startswith("<?xml")
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert not temps(tmp_path)


def test_dangling_symlink_creates_its_target(tmp_path, samples, capsys):
    link = tmp_path / "link.urdf"
    link.symlink_to(tmp_path / "target.urdf")
    assert main(["convert", str(samples / "planar_arm.rob"), str(link)]) == 0
    assert link.is_symlink() and (tmp_path / "target.urdf").read_text().startswith("<?xml")


def test_device_output_is_refused_and_kept(samples, capsys):
    before = os.stat("/dev/null")
    rc = main(["convert", str(samples / "planar_arm.rob"), "/dev/null", "--to", "urdf"])
    one_line_error(capsys, 1, rc, r"^roboio: error: /dev/null: is a character device")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert not temps("/dev")


def test_fifo_output_is_refused(tmp_path, samples, capsys):
    fifo = tmp_path / "out.urdf"
    os.mkfifo(fifo)
    rc = main(["convert", str(samples / "planar_arm.rob"), str(fifo)])
    one_line_error(capsys, 1, rc, r"out\.urdf: is a FIFO")
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_directory_output_without_a_format_is_refused(tmp_path, samples, capsys):
    """(With --to, FILE DIR writes into DIR: tests/unit/test_convert_directory.py.)"""
    rc = main(["convert", str(samples / "planar_arm.rob"), str(tmp_path)])
    one_line_error(capsys, 2, rc, r"is a directory: name the output format with --to")


# -- OUT == IN ----------------------------------------------------------------------------

def _same_file_variants(samples):
    rob = samples / "planar_arm.rob"
    (samples / "sym.rob").symlink_to(rob)
    os.link(rob, samples / "hard.rob")
    return rob, [("same path", rob, rob), ("symlink out", rob, samples / "sym.rob"),
                 ("symlink in", samples / "sym.rob", rob), ("hard link", samples / "hard.rob", rob)]


def test_output_equal_to_input_is_refused(samples, capsys):
    rob, variants = _same_file_variants(samples)
    before = rob.read_bytes()
    for what, src, out in variants:
        rc = main(["convert", str(src), str(out)])
        one_line_error(capsys, 2, rc, r"is the input file.*--force")
        assert rob.read_bytes() == before, what
    assert not temps(samples)


def test_force_overwrites_the_input(samples, capsys):
    rob = samples / "planar_arm.rob"
    text = roboio.save(roboio.load(str(rob)), str(samples / "copy.rob"))
    assert text.path
    assert main(["convert", str(rob), str(rob), "--force"]) == 0
    assert rob.read_bytes() == (samples / "copy.rob").read_bytes()


def test_python_save_refuses_its_source_unless_told(samples):
    rob = samples / "planar_arm.rob"
    r = roboio.load(str(rob))
    with pytest.raises(OutputError, match="overwrite_input=True"):
        roboio.save(r, str(rob))
    roboio.save(r, str(rob), overwrite_input=True)
    assert roboio.load(str(rob)).num_links == r.num_links


def test_side_files_never_overwrite_an_input(samples, capsys):
    # a.xml references b/arm.rob; writing b.xml puts its robot at b/arm.rob: the input
    (samples / "b").mkdir()
    shutil.copy(samples / "planar_arm.rob", samples / "b" / "arm.rob")
    shutil.copytree(samples / "meshes", samples / "b" / "meshes")
    (samples / "a.xml").write_text((samples / "world.xml").read_text().replace(
        'file="planar_arm.rob"', 'file="b/arm.rob"'))
    w = roboio.load(str(samples / "a.xml"))
    inputs = set(map(os.path.realpath, roboio.api.input_paths(w)))
    assert {str(samples / "b" / "arm.rob"), str(samples / "b" / "meshes" / "base.off")} <= inputs
    before = (samples / "b" / "arm.rob").read_bytes()
    rc = main(["convert", str(samples / "a.xml"), str(samples / "b.xml")])
    one_line_error(capsys, 1, rc, r"b/arm\.rob: is an input of this conversion")
    assert (samples / "b" / "arm.rob").read_bytes() == before
    assert not temps(samples)


def test_motion_resample_refuses_its_input(samples, capsys):
    seq = samples / "choreonoid" / "arm_wave.seq"
    before = seq.read_bytes()
    rc = main(["motion", "resample", str(seq), str(seq), "--rate", "50"])
    one_line_error(capsys, 1, rc, r"input of this conversion")
    assert seq.read_bytes() == before


# -- temporary files ------------------------------------------------------------------------

def test_temp_file_removed_on_exception(tmp_path, monkeypatch):
    out = tmp_path / "a.txt"
    out.write_text("old")

    def boom(fd):
        raise RuntimeError("boom")
    monkeypatch.setattr(fileio.os, "fsync", boom)
    with pytest.raises(RuntimeError):
        fileio.atomic_write(str(out), "new")
    assert out.read_text() == "old" and not temps(tmp_path)



def test_a_writer_function_streams_into_the_temp_file(tmp_path):
    """``data`` may be a function writing to the open file (a Parquet writer streams its
    pages): the target appears only once it returned; when it raises, the old content stays
    and no temporary file is left."""
    out = tmp_path / "a.bin"
    out.write_bytes(b"old")
    seen = []

    def write(f):
        seen.append(out.read_bytes())           # the target is untouched while writing
        f.write(b"new ")
        f.write(b"content")
    fileio.atomic_write(str(out), write)
    assert seen == [b"old"] and out.read_bytes() == b"new content" and not temps(tmp_path)

    def half(f):
        f.write(b"partial")
        raise ValueError("the writer failed")
    with pytest.raises(ValueError, match="writer failed"):
        fileio.atomic_write(str(out), half)
    assert out.read_bytes() == b"new content" and not temps(tmp_path)

def test_disk_full_is_one_line_and_leaves_nothing(tmp_path, monkeypatch, samples, capsys):
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, k):
            return getattr(self.f, k)

    monkeypatch.setattr(fileio.os, "fdopen", lambda fd, *a, **k: Full(real_fdopen(fd, *a, **k)))
    out = tmp_path / "arm.urdf"
    rc = main(["convert", str(samples / "planar_arm.rob"), str(out)])
    # the URDF writer converts the sample's .off meshes beside the output first: the first
    # write to fail is one of those (arm_meshes/...) or the URDF itself
    one_line_error(capsys, 1, rc, r"arm(\.urdf|_meshes/\S+): cannot write: No space left on device")
    assert not out.exists() and not temps(tmp_path)


def _tmpfs(path, options):
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                       capture_output=True)
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    return path


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="needs root to mount")
def test_real_full_disk(tmp_path, samples, capsys):
    tiny = _tmpfs(tmp_path / "tiny", "size=16k")
    try:
        seq = samples / "choreonoid" / "arm_wave.seq"
        rc = main(["motion", "resample", str(seq), str(tiny / "o.seq"), "--rate", "20000"])
        one_line_error(capsys, 1, rc, r"o\.seq: cannot write: No space left on device")
        assert os.listdir(tiny) == []
    finally:
        subprocess.run(["umount", str(tiny)])


def test_read_only_directory(tmp_path, samples, capsys):
    ro = tmp_path / "ro"
    if os.geteuid() == 0:
        if not shutil.which("mount"):
            pytest.skip("no mount")
        _tmpfs(ro, "ro,size=16k")
    else:
        ro.mkdir()
        ro.chmod(0o555)
    try:
        rc = main(["convert", str(samples / "planar_arm.rob"), str(ro / "arm.urdf")])
        one_line_error(capsys, 1, rc, r"(arm\.urdf: cannot create a file in .*ro|arm_meshes/\S+: cannot create "
                                      r"the directory .*ro/arm_meshes): (Read-only file system|Permission denied)")
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(ro)])
        else:
            ro.chmod(0o755)


def test_stale_temp_of_a_killed_run_is_ignored_and_removed(tmp_path, samples, capsys):
    out = tmp_path / "arm.urdf"
    stale = tmp_path / ".arm.urdf.roboio-999999999-0123abcd.tmp"     # no such pid
    stale.write_text("<robot name='half-writ")
    assert fileio.is_temp_file(stale)
    rc = main(["info", str(stale), "--format", "urdf"])
    one_line_error(capsys, 1, rc, r"temporary file")
    assert main(["convert", str(samples / "planar_arm.rob"), str(out)]) == 0
    assert not stale.exists()
    live = tmp_path / f".arm.urdf.roboio-{os.getppid()}-0123abcd.tmp"     # a live process
    live.write_text("x")
    assert main(["convert", str(samples / "planar_arm.rob"), str(out)]) == 0
    assert live.exists()


_SIGNAL_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    from roboio.formats import fileio
    # as in a terminal session: a run under nohup or in a background job inherits SIGHUP or
    # SIGINT ignored, and roboio rightly leaves an ignored signal ignored
    s = getattr(signal, sys.argv[1])
    if signal.getsignal(s) is signal.SIG_IGN:
        signal.signal(s, signal.default_int_handler if s == signal.SIGINT else signal.SIG_DFL)
    def hit(fd, real=os.fsync):
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        real(fd)
    fileio.os.fsync = hit
    from roboio.cli.main import main
    sys.exit(main(["convert", sys.argv[2], sys.argv[3]]))
""")


@pytest.mark.parametrize("sig, code", [("SIGTERM", -signal.SIGTERM), ("SIGINT", 130),
                                       ("SIGHUP", -signal.SIGHUP)])
def test_signal_mid_write_removes_the_temp_file(tmp_path, samples, sig, code):
    out = tmp_path / "arm.urdf"
    out.write_text("old")
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", _SIGNAL_SCRIPT, sig, str(samples / "planar_arm.rob"),
                        str(out)], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == code, r.stderr
    assert out.read_text() == "old"
    assert not temps(tmp_path)
    if sig == "SIGINT":
        assert r.stderr.strip() == "roboio: interrupted"


def test_output_name_near_the_file_system_limit(tmp_path):
    # the temporary file's name adds ~25 characters to the output's: cut, so that any name
    # the file system takes can be written (a 250-character name gave ENAMETOOLONG)
    out = tmp_path / ("a" * 246 + ".urdf")
    rep = roboio.save(roboio.load(roboio.sample_path("planar_arm.rob")), out, meshes="keep")
    assert out.is_file() and str(out) in rep.files
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]
