"""roboio.batch without a cluster: what ``import roboio`` pulls in, the missing-extra hint,
refusals before any work, the report's resume rules."""
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, SAMPLES
from roboio.cli.main import main

ARM = os.path.join(SAMPLES, "planar_arm.rob")


def test_import_roboio_imports_no_dask_nor_pyarrow():
    code = ("import sys, roboio, roboio.batch; from roboio.cli.main import build_parser; build_parser(); "
            "bad = [m for m in ('dask', 'distributed', 'pyarrow', 'roboio.batch.runner', 'roboio.batch.parquet') "
            "if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stdout + r.stderr


def test_missing_extra_prints_the_install_hint(tmp_path):
    code = ("import sys; sys.modules['distributed'] = None; from roboio.cli.main import main; "
            f"sys.exit(main(['batch', 'validate', {ARM!r}]))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 2 and "pip install 'roboio[batch]'" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, message", [
    (["batch", "convert", SAMPLES, "OUT", "--to", "inventor"], "cannot write 'inventor'"),
    (["batch", "convert", SAMPLES, ARM, "--to", "urdf"], "is a file"),
    (["batch", "validate", SAMPLES, "--resume"], "--resume needs --report"),
    (["batch", "validate", SAMPLES, "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "give one of them"),
    (["batch", "fk", SAMPLES, "--model", ARM, "--out", "X", "--links", "nowhere"], "no link 'nowhere'"),
    (["batch", "fk", SAMPLES, "--model", os.path.join(SAMPLES, "crate.obj"), "--out", "X"], "not a robot"),
    (["batch", "validate", os.path.join(SAMPLES, "*.nothing")], "*.nothing: file not found"),
])
def test_refusals_come_before_any_work(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc in (1, 2) and message in err and len(err.strip().splitlines()) == 1, err
    assert os.listdir(tmp_path) == []              # nothing written


def test_resume_trusts_only_outputs_still_as_written(tmp_path):
    from roboio.batch import commands, tasks
    import shutil
    src, out = tmp_path / "a.rob", tmp_path / "a.rob.urdf"
    shutil.copy(ARM, src)
    shutil.copytree(os.path.join(SAMPLES, "meshes"), tmp_path / "meshes")
    o = tasks.convert_file(str(src), str(out), None, "urdf", tasks.Options.current(check_meshes=True))
    assert o.kind == "ok" and o.written[0]["path"] == str(out)
    assert str(tmp_path / "meshes" / "base.off") in [f["path"] for f in o.input_files]
    report = tmp_path / "r.json"
    book = commands._Book("convert", {"to": "urdf"}, str(report))
    book.add(o)
    book.save()
    prior = commands._prior(str(report), "convert", {"to": "urdf"}, True)
    assert commands._complete(prior[(str(src), str(out))], str(src))
    assert commands._prior(str(report), "convert", {"to": "mjcf"}, True) == {}   # other parameters
    data = out.read_bytes()
    out.write_bytes(data[:-10])                                     # cut short: redo it
    assert not commands._complete(prior[(str(src), str(out))], str(src))
    out.write_bytes(data)
    o.written[0] = tasks.stamp(str(out))
    assert commands._complete(o, str(src))
    mesh = tmp_path / "meshes" / "base.off"
    st = mesh.stat()
    os.utime(mesh, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))       # a mesh changed: redo it
    assert not commands._complete(o, str(src))
    os.utime(mesh, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert commands._complete(o, str(src))
    os.utime(src, ns=(1, 1))                                        # the input changed: redo it
    assert not commands._complete(o, str(src))
    assert json.loads(report.read_text())["files"][0]["kind"] == "ok"


def test_a_file_two_inputs_wrote_is_reported_on_the_later(tmp_path):
    from roboio.batch.tasks import Outcome, note_shared_writes, stamp
    side = tmp_path / "shared.rob"
    side.write_text("x")
    a = Outcome("a.xml", "ok", written=[stamp(str(tmp_path / "a.xml")) or {"path": str(tmp_path / "a.xml")}, stamp(str(side))])
    b = Outcome("b.xml", "ok", written=[{"path": str(tmp_path / "b.xml")}, stamp(str(side))])
    writers = {}
    note_shared_writes(a, writers)
    note_shared_writes(b, writers)
    assert a.shared == [] and b.shared == [f"{side} was also written for a.xml: the later write replaced the earlier"]


def test_a_file_two_inputs_wrote_with_the_same_bytes_is_no_conflict(tmp_path):
    """GraspIt! worlds that name one unchanged robot file write it with the same bytes: not
    reported; other bytes are (the later write replaced the earlier)."""
    from roboio.batch.tasks import Outcome, note_shared_writes, stamp
    side = tmp_path / "Barrett.xml"
    side.write_text("<robot/>")
    same = stamp(str(side), digest=True)
    assert same["crc32"] == 0x3527C3E4                  # zlib.crc32(b"<robot/>")
    writers = {}
    for name in ("a.xml", "b.xml"):
        o = Outcome(name, "ok", written=[same])
        note_shared_writes(o, writers)
        assert o.shared == []
    side.write_text("<robot type='Hand'/>")
    c = Outcome("c.xml", "ok", written=[stamp(str(side), digest=True)])
    note_shared_writes(c, writers)
    assert c.shared == [f"{side} was also written for a.xml: the later write replaced the earlier"]


def test_walks_skip_files_that_only_share_a_generic_extension(tmp_path, capsys):
    """A README.txt or a ROS package.xml is not a broken Klamp't path or world: validate DIR
    and convert DIR leave them out; a broken .rob or .urdf (specific extensions) still fails."""
    import shutil
    from roboio.batch.walk import convert_jobs, expand, readable
    from roboio.formats.registry import get
    shutil.copy(os.path.join(SAMPLES, "planar_arm.rob"), tmp_path / "arm.rob")
    shutil.copytree(os.path.join(SAMPLES, "meshes"), tmp_path / "meshes")
    (tmp_path / "LICENSE.txt").write_text("Permission is hereby granted\n")
    (tmp_path / "package.xml").write_text("<package><name>x</name></package>\n")
    # a file list naming Choreonoid's document types is none of them
    (tmp_path / "MANIFEST.tsv").write_text("path\tkind\nwalk.pseq\tPoseSeq\nwalk.seq\t"
                                           "CompositeSeq of a BodyMotion's components\n"
                                           "robot.body\tChoreonoidBody\n")
    (tmp_path / "broken.rob").write_text("links x\n")
    (tmp_path / "bad.urdf").write_text("<robot\n")
    found = sorted(os.path.basename(s.path) for s, _ in readable(expand(str(tmp_path)))
                   if "meshes" not in s.path)
    assert found == ["arm.rob", "bad.urdf", "broken.rob"]
    jobs = convert_jobs(str(tmp_path), str(tmp_path / "out"), get("klampt-rob"))
    assert sorted(os.path.basename(j.src) for j in jobs) == ["arm.rob", "bad.urdf", "broken.rob"]
    assert main(["validate", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "LICENSE.txt" not in out and "package.xml" not in out and "MANIFEST" not in out
    meshes = len(os.listdir(os.path.join(SAMPLES, "meshes")))     # each a mesh file roboio reads
    assert re.search(rf": {3 + meshes} files, 2 failed", out), out


def test_docs_give_the_settings_of_the_local_cluster():
    """docs/batch.md's YAML for one's own workers holds what the local cluster sets, and
    Dask knows every key (a renamed key would be ignored silently)."""
    import dask
    import yaml
    from roboio.batch.runner import QUIET_CLUSTER
    text = open(os.path.join(ROOT, "docs", "batch.md"), encoding="utf-8").read()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    assert len(blocks) == 1

    def flat(d, prefix=""):
        for k, v in d.items():
            if isinstance(v, dict):
                yield from flat(v, f"{prefix}{k}.")
            else:
                yield f"{prefix}{k}", v
    documented = dict(flat(yaml.safe_load(blocks[0])))
    assert documented == QUIET_CLUSTER
    import distributed  # noqa: F401 -- loads Dask's distributed settings
    for key in QUIET_CLUSTER:
        dask.config.get(key)                 # KeyError when Dask has no such setting


def test_partition_names_fit_a_file_name_and_never_collide():
    from urllib.parse import unquote
    from roboio.batch.parquet import MAX_NAME, partition_dir
    assert partition_dir("walks/SR1 walk%1.seq") == "source=walks%2FSR1%20walk%251.seq"
    deep = "/".join(["level"] * 60) + "/walk.seq"
    cjk = "歩行データ" * 6 + ".seq"                 # 30 characters, 90 bytes, 270 escaped
    names = {p: partition_dir(p) for p in (deep, deep + "x", cjk, cjk[1:], "a" * 300, "a" * 301)}
    assert len(set(names.values())) == len(names)
    for path, name in names.items():
        assert len(name.encode()) <= MAX_NAME and name.startswith("source=")
        head, digest = name[len("source="):].rsplit("~", 1)
        assert len(digest) == 16 and int(digest, 16) >= 0
        decoded = unquote(head, errors="strict")    # whole escapes only: a prefix of the path
        assert path.startswith(decoded) and len(decoded) > 20
        assert partition_dir(path) == name          # the same on every run (--resume)


def test_the_longest_motions_start_first(tmp_path):
    # largest file first (ties keep their order; a file gone since the walk goes last): on two
    # workers a long walk taken last would run alone at the end
    from roboio.batch.commands import _largest_first
    from roboio.batch.walk import Source
    sizes = {"a.seq": 10, "b.seq": 3000, "c.seq": 10, "d.seq": 200}
    for name, n in sizes.items():
        (tmp_path / name).write_bytes(b"x" * n)
    sources = [Source(str(tmp_path / n), n) for n in ["gone.seq", *sizes]]
    assert [s.rel for s in _largest_first(sources)] == ["b.seq", "d.seq", "a.seq", "c.seq", "gone.seq"]


def test_summary_and_report_list_outcomes_by_path_not_by_finish(tmp_path):
    from roboio.batch.commands import _Book
    from roboio.batch.tasks import Outcome
    book = _Book("fk", {}, str(tmp_path / "r.json"))
    for inp, out in [("b.seq", "p/b/part-00001"), ("a.seq", "p/a/part-00000"),
                     ("b.seq", "p/b/part-00000")]:
        book.add(Outcome(inp, "ok", output=out))
    book.save()
    files = json.loads((tmp_path / "r.json").read_text())["files"]
    assert [(f["input"], f["output"]) for f in files] == [
        ("a.seq", "p/a/part-00000"), ("b.seq", "p/b/part-00000"), ("b.seq", "p/b/part-00001")]
    assert book.summary().ok == ["a.seq", "b.seq"]
