"""Damaged files of every readable format load, or fail with a located FormatError -- never
another exception and never a hang (a small fixed budget of ``tools/fuzz_readers.py
--samples``; run the tool for longer campaigns)."""
import os
import random
import sys

import pytest

import roboio
from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import fuzz_readers  # noqa: E402

MUTATIONS = 12          # per format; deterministic (seeded by the format's name)
READABLE = [f.name for f in roboio.formats() if f.can_read]


@pytest.mark.parametrize("fmt", READABLE)
def test_damaged_files_fail_cleanly(fmt, tmp_path):
    src = fuzz_readers.sample(fmt, str(tmp_path))
    if src is None:
        pytest.skip(f"no sample file for {fmt} (tests/format_samples.py)")
    bugs = fuzz_readers.fuzz_file(src, fmt, MUTATIONS, random.Random(f"suite/{fmt}"))
    assert not bugs, bugs[0][1]
