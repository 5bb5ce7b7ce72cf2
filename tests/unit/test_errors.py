"""Errors are classified: a problem of the input is a located FormatError (exit status 1),
bad arguments are usage errors (2), and an unexpected exception inside roboio is reported as
an internal error of roboio with a hint to report it (3), never as the user's fault."""
import contextlib
import io
import os

import pytest

import roboio
from conftest import SAMPLES
from roboio.cli.main import main
from roboio.formats import registry

ROB = os.path.join(SAMPLES, "planar_arm.rob")


def _run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def buggy_rob_reader(monkeypatch):
    """The .rob reader replaced by one with a bug (a TypeError inside roboio)."""
    def read(path, ctx):
        return len(None)
    monkeypatch.setitem(registry.get("klampt-rob")._resolved, "read", read)


def test_load_does_not_blame_the_file_for_a_bug(buggy_rob_reader):
    with pytest.raises(TypeError):
        roboio.load(ROB)


def test_cli_reports_a_bug_as_internal_error(buggy_rob_reader):
    rc, out, err = _run("info", ROB)
    assert rc == 3
    assert "internal error in roboio" in err and "please report it" in err and "TypeError" in err
    assert "Traceback" not in err and ROB not in err


def test_cli_debug_shows_the_traceback_of_a_bug(buggy_rob_reader):
    with pytest.raises(TypeError):
        _run("--debug", "info", ROB)


def test_input_error_is_one_located_line(tmp_path):
    bad = tmp_path / "bad.rob"
    bad.write_text("links a b\nparents -1\n")
    rc, out, err = _run("info", str(bad))
    assert rc == 1 and err.startswith("roboio: error: ") and f"{bad}:" in err
    assert err.count("\n") == 1


def test_usage_error_exit_status():
    assert _run("fk", ROB, "--config", "1 2 3 4 5 6 7 8 9")[0] == 2
    with pytest.raises(SystemExit) as e:
        _run("no-such-command")
    assert e.value.code == 2
