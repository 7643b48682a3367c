"""Shared fixtures for the Python tests: the execution mode switch, and
``EMBER_TEST_DEVICE`` (e.g. ``sim:0``), which runs every test under
``ember.device(...)`` so that the op database runs on that device."""

import os

import pytest

import ember

_TEST_DEVICE = os.environ.get("EMBER_TEST_DEVICE")
# The op database checks float32 to 1e-5: on a GPU, matmuls and
# convolutions then compute in full float32, as TensorFlow's own tests do.
if _TEST_DEVICE and _TEST_DEVICE.startswith("gpu"):
    ember.config.experimental.enable_tensor_float_32_execution(False)


@pytest.fixture(autouse=True)
def _test_device():
    if not _TEST_DEVICE:
        yield
        return
    with ember.device(_TEST_DEVICE):
        yield


@pytest.fixture(params=["sync", "async"])
def mode(request):
    """Runs the test in sync and in async mode, then restores the previous mode."""
    previous = ember.config.is_async()
    ember.config.set_async(request.param == "async")
    try:
        yield request.param
    finally:
        ember.config.set_async(previous)


@pytest.fixture
def async_mode():
    previous = ember.config.is_async()
    ember.config.set_async(True)
    try:
        yield
    finally:
        ember.config.set_async(previous)


@pytest.fixture
def sync_mode():
    previous = ember.config.is_async()
    ember.config.set_async(False)
    try:
        yield
    finally:
        ember.config.set_async(previous)


@pytest.fixture(autouse=True)
def _drain_pending_errors():
    """Keeps a test's unreported async kernel error from failing the next test's sync()."""
    yield
    try:
        ember.sync()
    except Exception:  # noqa: BLE001 - reported by the test that caused it, if it checks
        pass
