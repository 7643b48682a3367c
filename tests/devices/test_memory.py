"""Stream-ordered memory on the simulated device: a freed buffer is not
reused under a queued reader, memory_stats, limits and empty_cache, and no
growth over a long loop."""

import gc

import numpy as np
import pytest

import ember
from sim_markers import needs_two_sims

pytestmark = needs_two_sims

N = 1 << 16


def test_freed_buffer_is_not_reused_under_a_queued_reader():
    # The slow readers of `victim` are still queued when it is dropped,
    # and the next allocations of the same size are written at once: the
    # readers must still see their values. Every write here goes through
    # the one stream of sim:0, so this checks the end-to-end result; the
    # allocator's cross-stream fence rule itself is checked, with tests
    # that fail without it, in tests/cpp/caching_allocator_test.cc.
    ember.config.set_async(True)
    results = []
    for round_ in range(10):
        with ember.device("sim:0"):
            victim = ember.fill([N], float(round_))
            readers = [victim * 1.0 for _ in range(5)]
            del victim
            gc.collect()
            fresh = [ember.fill([N], -1.0) for _ in range(5)]
        results.append((round_, readers, fresh))
    for round_, readers, fresh in results:
        for r in readers:
            np.testing.assert_array_equal(r.numpy(), np.full(N, float(round_), np.float32))
        for f in fresh:
            np.testing.assert_array_equal(f.numpy(), np.full(N, -1.0, np.float32))


def test_memory_stats_count_device_memory():
    ember.sync()
    before = ember.config.memory_stats("sim:1")
    with ember.device("sim:1"):
        t = ember.zeros([1024], ember.float32)
    t.numpy()
    after = ember.config.memory_stats("sim:1")
    assert after["bytes_in_use"] >= before["bytes_in_use"] + 4096
    assert after["num_allocs"] > before["num_allocs"]
    assert after["bytes_reserved"] >= after["bytes_in_use"]
    assert after["peak_bytes_in_use"] >= after["bytes_in_use"]
    del t
    gc.collect()
    ember.sync()
    assert ember.config.memory_stats("sim:1")["bytes_in_use"] == before["bytes_in_use"]


def test_long_loop_does_not_grow_memory():
    with ember.device("sim:0"):
        x = ember.constant(np.ones((64, 64), np.float32))
        for _ in range(50):
            x = ember.matmul(x, x) * 0.015625
    x.numpy()
    ember.sync()
    steady = ember.config.memory_stats("sim:0")
    with ember.device("sim:0"):
        for _ in range(500):
            x = ember.matmul(x, x) * 0.015625
    x.numpy()
    ember.sync()
    after = ember.config.memory_stats("sim:0")
    assert after["bytes_in_use"] <= steady["bytes_in_use"]
    assert after["bytes_reserved"] <= steady["bytes_reserved"]


def test_memory_limit_raises_and_the_device_stays_usable():
    ember.sync()
    ember.config.empty_cache("sim:1")
    ember.config.set_memory_limit("sim:1", 8 << 20)
    try:
        with ember.device("sim:1"):
            big = ember.zeros([64 << 20], ember.uint8)
            with pytest.raises(ember.errors.ResourceExhaustedError, match="zeros"):
                big.numpy()
            small = ember.ones([16], ember.float32)
        np.testing.assert_array_equal(small.numpy(), np.ones(16, np.float32))
    finally:
        ember.config.set_memory_limit("sim:1", None)
        try:
            ember.sync()
        except ember.errors.ResourceExhaustedError:
            pass


def test_empty_cache_returns_unused_memory():
    with ember.device("sim:1"):
        t = ember.zeros([4 << 20], ember.uint8)
    t.numpy()
    del t
    gc.collect()
    ember.sync()
    assert ember.config.memory_stats("sim:1")["bytes_reserved"] > 0
    ember.config.empty_cache("sim:1")
    stats = ember.config.memory_stats("sim:1")
    assert stats["bytes_reserved"] == stats["bytes_in_use"]


def test_donation_stays_correct_on_the_device():
    with ember.device("sim:0"):
        x = ember.constant(np.arange(N, dtype=np.float32))
        keep = x * 1.0
        y = ember.exp(ember.negative(keep * 0.0))  # temporaries may be donated
    np.testing.assert_array_equal(y.numpy(), np.ones(N, np.float32))
    np.testing.assert_array_equal(keep.numpy(), np.arange(N, dtype=np.float32))
