"""Mistyped commands, options, choices, formats, robots and names get the closest
suggestions; abbreviated options are refused (a script relying on one would break when an
option is added)."""
import contextlib
import io
import os

import pytest

from conftest import SAMPLES

from roboio.cli.main import main

ARM = os.path.join(SAMPLES, "planar_arm.rob")
WORLD = os.path.join(SAMPLES, "world.xml")


def _err(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in args])
        except SystemExit as e:
            rc = e.code
    return rc, err.getvalue()


@pytest.mark.parametrize("args,hint", [
    (["infoo", ARM], "did you mean 'info'?"),
    (["info", ARM, "--tre"], "'--tree'"),
    (["render", ARM, "-o", "x.png", "--view", "isso"], "did you mean 'iso'?"),
    (["convert", ARM, "/tmp/x.urdf", "--to", "urfd"], "did you mean 'urdf'?"),
    (["fk", ARM, "--link", "wirst"], "did you mean 'wrist'?"),
    (["fk", ARM, "--config", "elbw=1"], "did you mean 'elbow'?"),
    (["fk", WORLD, "--robot", "amr"], "did you mean 'arm'?"),
])
def test_mistypes_get_suggestions(args, hint):
    rc, err = _err(args)
    assert rc == 2, err
    assert hint in err, err
    assert err.count("\n") == 1


def test_abbreviated_options_are_not_taken():
    rc, err = _err(["info", ARM, "--tre"])
    assert rc == 2 and "unrecognized arguments: --tre" in err
    rc, err = _err(["fk", ARM, "--rand", "2"])
    assert rc == 2 and "'--random'" in err
