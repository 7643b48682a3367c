"""Host memory declared in op_defs/ (Note [Metadata inputs], Note
[Host-memory outputs]): shape, size and rank of a value on the simulated
accelerator are made on the host, without waiting for or copying the value,
and arithmetic on them stays on the host."""

import numpy as np
import pytest

import ember
from sim_markers import needs_two_sims

pytestmark = needs_two_sims


def host_round_trips(before):
    after = ember.config.runtime_stats("sim:0")
    return sum(after[k] - before[k] for k in ("host_synchronizations", "host_callbacks", "copies_enqueued"))


@pytest.fixture
def slow_device_value():
    # Enough queued work that the value is surely not computed yet when
    # shape() is called.
    with ember.device("sim:0"):
        x = ember.identity(np.ones((64, 64), np.float32))
        ember.sync()
        for _ in range(20):
            x = ember.matmul(x, x) * 0.01
    return x


@pytest.mark.parametrize("op, expected", [
    (ember.shape, np.array([64, 64], np.int32)),
    (ember.size, np.int32(4096)),
    (ember.rank, np.int32(2)),
])
def test_shape_ops_of_a_device_value_are_host_values(mode, slow_device_value, op, expected):
    before = ember.config.runtime_stats("sim:0")
    with ember.device("sim:0"):
        out = op(slow_device_value)
    assert out.device == "cpu:0"
    np.testing.assert_array_equal(out.numpy(), expected)
    # No copy of the value and no wait for it: its shape was known at issue.
    assert host_round_trips(before) == 0
    assert slow_device_value.numpy().shape == (64, 64)


def test_shape_arithmetic_stays_on_the_host(mode, slow_device_value):
    before = ember.config.runtime_stats("sim:0")
    with ember.device("sim:0"):
        n = ember.shape(slow_device_value)[0] * 2 + 1
        m = ember.maximum(ember.size(slow_device_value) // n, 3)
    assert n.device == "cpu:0" and m.device == "cpu:0"
    assert int(n) == 129 and int(m) == 31
    assert host_round_trips(before) == 0


def test_other_small_integer_values_still_follow_the_device_scope():
    # Only values derived from shapes stay on the host: an integer
    # constant under a device scope is the device's.
    with ember.device("sim:0"):
        k = ember.constant(np.array([3, 4], np.int32)) * 2
    assert k.device == "sim:0"
    np.testing.assert_array_equal(k.numpy(), [6, 8])


def test_shape_of_a_device_value_inside_a_function():
    @ember.function
    def f(x):
        return ember.shape(x, out_type=ember.int64), ember.size(x) + 0 * ember.rank(x), ember.reduce_sum(x)

    with ember.device("sim:0"):
        x = ember.identity(np.ones((3, 5), np.float32))
        s, n, total = f(x)
        s2, n2, _ = f(x)
        ember.sync()
        before = ember.config.runtime_stats("sim:0")["streams"]["device_to_host"]["copies_enqueued"]
        s, n, total = f(x)
        ember.sync()
        after = ember.config.runtime_stats("sim:0")["streams"]["device_to_host"]["copies_enqueued"]
    np.testing.assert_array_equal(s.numpy(), [3, 5])
    assert s.dtype == ember.int64 and int(n) == 15 and float(total) == 15.0
    # The graph moved nothing to the host for the shape ops' input. (A
    # function's results all go to the calling device, shape values too.)
    assert after == before


def test_a_failed_value_still_has_a_shape():
    # The metadata of a value is known even if the kernel that makes it
    # fails; reading the value itself raises the kernel's error.
    with ember.device("sim:0"):
        bad = ember.identity(np.array([1, 2], np.int32)) // ember.identity(np.array([0, 1], np.int32))
        s = ember.shape(bad)
    np.testing.assert_array_equal(s.numpy(), [2])
    with pytest.raises(ember.errors.InvalidArgumentError, match="floor"):
        bad.numpy()
