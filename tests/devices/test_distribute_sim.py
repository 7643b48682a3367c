"""ember.distribute on two simulated accelerators: reruns tests/python/test_distribute.py and
test_distribute_api.py in a process whose two-device tests find sim:0 and sim:1 (those files pick
their devices at import)."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

from sim_markers import needs_two_sims

_PYTHON_TESTS = pathlib.Path(__file__).resolve().parents[1] / "python"


@needs_two_sims
@pytest.mark.parametrize("name, least", [("test_distribute.py", 25), ("test_distribute_api.py", 17)])
def test_distribute_on_two_simulated_devices(name, least):
    tests = _PYTHON_TESTS / name
    env = dict(os.environ, EMBER_SIMULATED_DEVICES="2", EMBER_TEST_DEVICE="sim:0")
    env.pop("EMBER_NUM_CPU_DEVICES", None)  # with two CPUs the file would use those instead
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests), "-k", "not subprocess"],
        env=env, capture_output=True, text=True, timeout=600, cwd=str(_PYTHON_TESTS))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "skipped" not in result.stdout, result.stdout[-2000:]
    assert int(re.search(r"(\d+) passed", result.stdout).group(1)) >= least
