"""The per-load real-path shortcut of referenced files equals os.path.realpath, symbolic
links (of directories and of files) and ``..`` after a link included."""
import os

import pytest

from roboio.context import LoadContext
from roboio.formats.loading import realpath


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_realpath_shortcut_equals_os_realpath(tmp_path, monkeypatch):
    (tmp_path / "a" / "sub").mkdir(parents=True)
    (tmp_path / "other" / "deep").mkdir(parents=True)
    for f in ("a/m.stl", "a/sub/n.stl", "other/m.stl", "other/deep/k.stl", "m.stl"):
        (tmp_path / f).write_bytes(b"solid\n")
    try:
        os.symlink(tmp_path / "other" / "deep", tmp_path / "a" / "link")      # directory link
        os.symlink(tmp_path / "a" / "m.stl", tmp_path / "a" / "sub" / "l.stl")  # file link
    except OSError:
        pytest.skip("cannot create symbolic links here")
    monkeypatch.chdir(tmp_path)
    ctx = LoadContext(str(tmp_path / "robot.urdf"))
    paths = ["a/m.stl", "a/link/k.stl", "a/link/../m.stl", "a/sub/l.stl", "./a/m.stl",
             "a/sub/../m.stl", "m.stl", "a/link/missing.stl", "a/nodir/x.stl"]
    paths += [str(tmp_path / p) for p in paths]
    for p in paths * 2:                       # the second round hits the directory cache
        assert realpath(p, ctx) == os.path.realpath(p), p


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_realpath_memo_through_link_chains(tmp_path):
    """Links to links, a relative link, a link to a missing place and paths below it."""
    (tmp_path / "x" / "y").mkdir(parents=True)
    (tmp_path / "x" / "y" / "f.stl").write_bytes(b"solid\n")
    try:
        os.symlink(tmp_path / "x", tmp_path / "l1")
        os.symlink("l1", tmp_path / "l2")                       # relative, to a link
        os.symlink("y/f.stl", tmp_path / "x" / "lf")
        os.symlink(tmp_path / "gone", tmp_path / "dangling")
    except OSError:
        pytest.skip("cannot create symbolic links here")
    ctx = LoadContext(str(tmp_path / "r.urdf"))
    paths = [tmp_path / "l2" / "y" / "f.stl", tmp_path / "l2" / "lf", tmp_path / "l1" / "y",
             tmp_path / "dangling" / "a" / "b.stl", tmp_path / "x" / "y" / "f.stl",
             tmp_path / "l2" / "y" / ".." / "lf", tmp_path / "nothing" / "here.stl"]
    for p in [str(p) for p in paths] * 2:
        assert realpath(p, ctx) == os.path.realpath(p), p
