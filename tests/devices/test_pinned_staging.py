"""Pinned host staging on the simulated accelerator (Note [Pinned
staging] in core/device.h): uploads from ordinary host memory go through
a reused pool of pinned buffers, values read back from the device land in
pinned memory, and uploads of those need no staging."""

import gc

import numpy as np
import pytest

import ember
from sim_markers import needs_two_sims

pytestmark = needs_two_sims


def staged():
    return ember.config.runtime_stats("sim:0")["streams"]["host_to_device"]["copies_staged"]


def test_an_upload_of_pageable_memory_is_staged(mode):
    value = np.arange(1000, dtype=np.float32)
    before = staged()
    with ember.device("sim:0"):
        x = ember.identity(value)
        y = x * 2.0
    np.testing.assert_array_equal(y.numpy(), value * 2)
    assert staged() - before >= 1


def test_values_read_back_are_pinned_and_go_back_without_staging(mode):
    with ember.device("sim:0"):
        x = ember.identity(np.arange(4096, dtype=np.float32)) + 1.0
    with ember.device("cpu:0"):
        on_host = ember.identity(x)
    on_host.numpy()  # the copy has landed
    ember.sync()
    gc.collect()
    held = ember.config.memory_stats("sim:0", pinned=True)["bytes_in_use"]
    assert held >= 4096 * 4
    before = staged()
    with ember.device("sim:0"):
        back = ember.identity(on_host) * 1.0
    np.testing.assert_array_equal(back.numpy(), np.arange(4096, dtype=np.float32) + 1)
    assert staged() == before
    # on_host's buffer was the pinned memory: letting it go returns it.
    del on_host, back
    gc.collect()
    ember.sync()
    assert ember.config.memory_stats("sim:0", pinned=True)["bytes_in_use"] <= held - 4096 * 4


def test_staging_buffers_are_reused():
    # 32 uploads of 1 MiB, one after another: the pool holds a few
    # buffers, not 32.
    ember.config.empty_cache("sim:0")
    reserved_before = ember.config.memory_stats("sim:0", pinned=True)["bytes_reserved"]
    total = 0.0
    for i in range(32):
        with ember.device("sim:0"):
            total += float(ember.reduce_sum(ember.identity(np.full(1 << 18, i, np.float32))))
    assert total == sum(i * (1 << 18) for i in range(32))
    grown = ember.config.memory_stats("sim:0", pinned=True)["bytes_reserved"] - reserved_before
    assert grown <= 8 << 20


def test_staged_uploads_keep_their_values_when_the_source_changes(mode):
    # The host copy into staging happens at issue: later changes to the
    # NumPy array the value came from do not reach the device.
    source = np.ones(1 << 16, np.float32)
    with ember.device("sim:0"):
        x = ember.identity(source)
        source[:] = 7.0
        total = ember.reduce_sum(x)
    assert float(total) == float(1 << 16)


def test_the_cpu_has_no_pinned_memory():
    with pytest.raises(ValueError, match="no pinned host memory"):
        ember.config.memory_stats("cpu:0", pinned=True)
    with pytest.raises(TypeError, match="pinned must be a bool"):
        ember.config.memory_stats("sim:0", pinned="yes")
