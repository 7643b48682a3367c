"""Skip markers for the cross-device tests: they need the simulated
devices that EMBER_SIMULATED_DEVICES=2 adds at import (tests/run_all.sh)."""

import pytest

import ember

SIM_DEVICES = [name for name in ember.list_devices() if name.startswith("sim:")]

needs_two_sims = pytest.mark.skipif(len(SIM_DEVICES) < 2, reason="needs EMBER_SIMULATED_DEVICES=2")
