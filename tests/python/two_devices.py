"""The two-device setup the ember.distribute tests share: which two devices this process has (two
logical CPUs or two simulated accelerators; devices are fixed when ember is imported), and rerunning
a test file's two-device cases in a fresh process that has them."""

import os
import re
import subprocess
import sys

import pytest

import ember


def _two_devices():
    names = ember.list_devices()
    for kind in ("cpu", "sim"):
        found = [n for n in names if n.startswith(kind + ":")]
        if len(found) >= 2:
            return found[:2]
    return None


TWO_DEVICES = _two_devices()
needs_two_devices = pytest.mark.skipif(TWO_DEVICES is None, reason="needs two CPU or simulated devices")


def rerun_with_two_cpus(test_file):
    """Runs `test_file`'s tests but the rerun itself in a fresh process with two logical CPUs; returns
    the passed count (none may be skipped)."""
    env = dict(os.environ, EMBER_NUM_CPU_DEVICES="2")
    env.pop("EMBER_SIMULATED_DEVICES", None)
    env.pop("EMBER_TEST_DEVICE", None)
    return run_two_device_cases(test_file, env)


def run_two_device_cases(test_file, env):
    """Runs `test_file`'s tests, but not the ones named *subprocess*, in a fresh process with `env`;
    returns the passed count."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file, "-k", "not subprocess"],
        env=env, capture_output=True, text=True, timeout=600, cwd=os.path.dirname(test_file))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "skipped" not in result.stdout, result.stdout[-2000:]
    return int(re.search(r"(\d+) passed", result.stdout).group(1))
