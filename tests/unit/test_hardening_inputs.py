"""Hostile inputs (issue 9): each is refused with one located line (or loads correctly) within
a time and memory bound, in a subprocess with an address-space limit and a timeout so that a
crash or a runaway cannot take the test run with it.

The bounds are loose multiples of what the fixed readers need (about 0.5 s of CPU and 60-120
MB including the interpreter); CPU time, not wall time, so that a busy machine does not fail
them. The broken readers of the issue took 10-60 s and 0.5-6 GB, or crashed."""
import os
import re
import textwrap

import pytest

from hostile import GENERATORS, run_guarded

BOUND_SECONDS = 5.0           # CPU seconds of the process (the machine may be busy)
BOUND_MB = 300.0              # peak resident memory
WALL_TIMEOUT = 60.0           # a hang
ADDRESS_SPACE_MB = 2500

CASES = [pytest.param(name, i, id=f"{name}-{i}")
         for name, (_, variants) in GENERATORS.items() for i in range(len(variants))]


def _check(outcome, expect, path, what, need_path=True):
    assert not outcome.timed_out, f"{what}: still running after {WALL_TIMEOUT} s"
    assert outcome.returncode >= 0, f"{what}: killed by signal {-outcome.returncode}"
    assert outcome.cpu_seconds < BOUND_SECONDS, f"{what}: {outcome.cpu_seconds:.1f} s of CPU"
    assert outcome.peak_mb < BOUND_MB, f"{what}: {outcome.peak_mb:.0f} MB"
    err = outcome.stderr.strip()
    if expect is None:
        assert outcome.returncode == 0, err
        return
    lines = err.splitlines()
    assert outcome.returncode == 1, err[-2000:]
    assert len(lines) == 1 and "Traceback" not in err, err[-2000:]
    if need_path:      # the file, or the file of the case it includes where the problem is
        assert path in lines[0] or os.path.dirname(path) + os.sep in lines[0], lines[0]
    # the message itself, without file names (temporary directories contain test names)
    message = re.sub(r"(/[^\s:]+)+", "FILE", lines[0])
    assert re.search(expect, message, re.I), lines[0]


@pytest.mark.parametrize("name, i", CASES)
def test_hostile_cli(tmp_path, name, i):
    gen, variants = GENERATORS[name]
    h = gen(str(tmp_path), **variants[i])
    out = run_guarded(["-m", "roboio", *h.argv], timeout=WALL_TIMEOUT, cpu_seconds=BOUND_SECONDS,
                      address_space_mb=ADDRESS_SPACE_MB)
    _check(out, h.expect, h.path, h.name)


_API = textwrap.dedent("""
    import sys, roboio
    path, kwargs, stmt = sys.argv[1], eval(sys.argv[2]), sys.argv[3]
    try:
        exec(stmt) if stmt else roboio.load(path, **kwargs)
    except roboio.RoboioError as e:
        print("roboio: error:", " ".join(str(e).split()), file=sys.stderr)
        sys.exit(1)
""")

API_CASES = ["deep_yaml", "yaml_alias_bomb", "seq_claim", "seq_frame_time", "resample_rate",
             "inventor_def_use", "rob_mount_fanout", "ply_claim", "dev_zero"]


@pytest.mark.parametrize("name, i", [c for c in CASES if c.values[0] in API_CASES])
def test_hostile_python_api(tmp_path, name, i):
    """The same inputs through ``roboio.load`` (and ``save``/``resampled``): a RoboioError,
    never a crash of the interpreter."""
    gen, variants = GENERATORS[name]
    h = gen(str(tmp_path), **variants[i])
    out = run_guarded(["-c", _API, h.path, repr(h.load_kwargs), h.python or ""],
                      timeout=WALL_TIMEOUT, cpu_seconds=BOUND_SECONDS, address_space_mb=ADDRESS_SPACE_MB)
    _check(out, h.expect, h.path, h.name, need_path=h.python is None)
