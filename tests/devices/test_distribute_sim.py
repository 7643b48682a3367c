"""ember.distribute on two simulated accelerators: reruns tests/python/test_distribute.py in a
process whose two-device tests find sim:0 and sim:1 (that file picks its devices at import)."""

import os
import pathlib
import re
import subprocess
import sys

from sim_markers import needs_two_sims

_TESTS = pathlib.Path(__file__).resolve().parents[1] / "python" / "test_distribute.py"


@needs_two_sims
def test_distribute_on_two_simulated_devices():
    env = dict(os.environ, EMBER_SIMULATED_DEVICES="2", EMBER_TEST_DEVICE="sim:0")
    env.pop("EMBER_NUM_CPU_DEVICES", None)  # with two CPUs the file would use those instead
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(_TESTS), "-k", "not subprocess"],
        env=env, capture_output=True, text=True, timeout=600, cwd=str(_TESTS.parent))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "skipped" not in result.stdout, result.stdout[-2000:]
    assert int(re.search(r"(\d+) passed", result.stdout).group(1)) >= 25
