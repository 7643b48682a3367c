"""The cross-device tests run in a process started with
EMBER_SIMULATED_DEVICES=2 (tests/run_all.sh); without simulated devices
they skip."""

import pytest

import ember


@pytest.fixture(params=["sync", "async"])
def mode(request):
    previous = ember.config.is_async()
    ember.config.set_async(request.param == "async")
    try:
        yield request.param
    finally:
        ember.config.set_async(previous)


@pytest.fixture(autouse=True)
def _drain_pending_errors():
    yield
    try:
        ember.sync()
    except Exception:  # noqa: BLE001 - reported by the test that caused it
        pass
