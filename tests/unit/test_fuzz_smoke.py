"""A short run of tools/fuzz_readers.py (seeds from roboio's samples, every reader): no
crash, hang, exception other than FormatError, slow or oversized input. The long run is by
hand (see docs/limits.md)."""
import json
import os
import subprocess
import sys

from conftest import ROOT


def test_fuzz_smoke(tmp_path):
    out = tmp_path / "fuzz.json"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "fuzz_readers.py"), "--smoke",
                        "--inputs", "250", "--seed", "3", "--hostile", "0", "--timeout", "20",
                        "--slow", "10", "--json", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.exists(), r.stderr[-3000:]
    stats = json.loads(out.read_text())
    totals = stats["totals"]
    assert totals["inputs"] >= 240, r.stdout
    problems = {k: totals[k] for k in ("other_exception", "crash", "hang", "slow", "big") if totals[k]}
    assert not problems, r.stdout + r.stderr[-3000:]
    from roboio.formats import registry
    readers = {f.name for f in registry.formats() if f.can_read}
    assert readers <= set(stats["readers"]), readers - set(stats["readers"])
    assert r.returncode == 0
