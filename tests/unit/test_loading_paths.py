"""The per-load real-path shortcut of referenced files equals os.path.realpath, symbolic
links (of directories and of files) and ``..`` after a link included."""
import os

import pytest

from roboio.context import LoadContext
from roboio.formats.loading import _realpath


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
        assert _realpath(p, ctx) == os.path.realpath(p), p
