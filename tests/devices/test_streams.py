"""The stream-ordered runtime on the simulated accelerator (Note [Streams
and events], Note [Stream order], Note [Pipelined graphs]): what
ember.config.runtime_stats counts for eager ops, functions, copies and
cross-device values, and that failures on a stream still reach the caller."""

import numpy as np
import pytest

import ember
from sim_markers import needs_two_sims

pytestmark = needs_two_sims


def delta(device, before):
    after = ember.config.runtime_stats(device)
    return {k: after[k] - before[k] for k in after if k != "streams"}


def test_cpu_reports_no_streams():
    stats = ember.config.runtime_stats("cpu:0")
    assert stats["streams"] == {}
    assert stats["kernels_enqueued"] == 0
    assert set(stats) >= {"kernels_enqueued", "copies_enqueued", "events_recorded", "device_waits",
                          "host_synchronizations", "host_callbacks", "busy_seconds"}


def test_sim_has_compute_and_copy_streams():
    stats = ember.config.runtime_stats("sim:0")
    assert set(stats["streams"]) == {"compute", "host_to_device", "device_to_host"}


def test_runtime_stats_rejects_unknown_devices():
    with pytest.raises(ValueError, match="no device"):
        ember.config.runtime_stats("sim:99")


def chain(n):
    # matmuls: element-wise chains would fuse into one kernel
    @ember.function
    def f(x, w):
        for _ in range(n):
            x = ember.matmul(x, w)
        return x

    return f


@pytest.mark.parametrize("length", [50, 200])
def test_function_chain_costs_no_host_round_trip_per_node(length):
    f = chain(length)
    with ember.device("sim:0"):
        x = ember.identity(np.arange(16, dtype=np.float32).reshape(1, 16))
        w = ember.identity(np.eye(16, dtype=np.float32) * 0.99)
        f(x, w).numpy()  # trace and warm up
        ember.sync()
        before = ember.config.runtime_stats("sim:0")
        y = f(x, w)
        result = y.numpy()
    d = delta("sim:0", before)
    expected = np.arange(16, dtype=np.float32).reshape(1, 16) * np.float32(0.99) ** length
    np.testing.assert_allclose(result, expected, rtol=1e-4)
    # Every node's kernel went to the compute stream...
    assert d["kernels_enqueued"] >= length
    # ...and the host waited a fixed number of times for the whole call
    # (once at the end of the graph, once for numpy()'s copy), not per node.
    assert d["host_synchronizations"] + d["host_callbacks"] <= 4


def test_eager_chain_has_no_callback_per_kernel(mode):
    with ember.device("sim:0"):
        x = ember.identity(np.ones(1000, np.float32))
        ember.sync()
        before = ember.config.runtime_stats("sim:0")
        for _ in range(100):
            x = x + 1.0
        ember.sync()
        d = delta("sim:0", before)
    assert d["kernels_enqueued"] >= 100
    assert d["host_callbacks"] == 0
    if mode == "async":
        # sync() waits once per stream; sync mode waits at each call.
        assert d["host_synchronizations"] <= 3
    np.testing.assert_array_equal(x.numpy(), np.full(1000, 101, np.float32))


def test_python_scalars_are_copied_to_the_device_once():
    # Note [Device scalar cache]: `x + 0.25` a hundred times is one upload.
    with ember.device("sim:0"):
        x = ember.identity(np.zeros(8, np.float32))
        ember.sync()
        before = ember.config.runtime_stats("sim:0")["streams"]["host_to_device"]["copies_enqueued"]
        for _ in range(100):
            x = x + 0.25
    np.testing.assert_array_equal(x.numpy(), np.full(8, 25.0, np.float32))
    after = ember.config.runtime_stats("sim:0")["streams"]["host_to_device"]["copies_enqueued"]
    assert after - before <= 1
    # A value changed by the program is a new value, not the cached one.
    with ember.device("sim:0"):
        y = ember.identity(np.zeros(8, np.float32)) + 0.5
    np.testing.assert_array_equal(y.numpy(), np.full(8, 0.5, np.float32))


def test_a_cached_scalar_is_never_donated():
    # The cached device scalar is shared: an op given it as a donated
    # temporary (`ember.constant(3) + 4` under a device scope) must not
    # write its result into it.
    with ember.device("sim:0"):
        for _ in range(3):
            out = ember.add(ember.constant(np.int32(3)), ember.constant(np.int32(4)))
            assert out.numpy() == 7
        assert (ember.constant(np.int32(3)) * 1).numpy() == 3


def test_copies_use_the_copy_streams():
    # 16 MiB: the upload takes milliseconds, so it is still running when the
    # multiply is posted (a 40-byte one, 20 us, could finish before that on
    # a busy machine, and the kernel then had nothing to wait for).
    data = np.arange(4 << 20, dtype=np.float32)
    before = ember.config.runtime_stats("sim:0")
    with ember.device("sim:0"):
        x = ember.identity(data)
        y = x * 2.0
    out = y.numpy()
    after = ember.config.runtime_stats("sim:0")["streams"]
    assert after["host_to_device"]["copies_enqueued"] > before["streams"]["host_to_device"]["copies_enqueued"]
    assert after["device_to_host"]["copies_enqueued"] > before["streams"]["device_to_host"]["copies_enqueued"]
    # The kernel on the compute stream waited for the upload on the device.
    assert after["compute"]["device_waits"] > before["streams"]["compute"]["device_waits"]
    np.testing.assert_array_equal(out, data * 2)


def test_value_moves_between_devices_with_a_device_side_wait(mode):
    # 16 MiB: the peer copy takes milliseconds, so the kernel on sim:1 is
    # posted before it finished (a tiny copy may be done first, and then
    # no wait is needed).
    n = 1 << 22
    with ember.device("sim:0"):
        x = ember.identity(np.arange(n, dtype=np.float32)) * 3.0
    before = ember.config.runtime_stats("sim:1")
    with ember.device("sim:1"):
        y = x + 1.0
    np.testing.assert_array_equal(y.numpy(), np.arange(n, dtype=np.float32) * 3 + 1)
    d = delta("sim:1", before)
    assert d["device_waits"] >= 1


def test_failure_inside_a_pipelined_function_names_the_op_and_keeps_the_runtime_usable():
    @ember.function
    def f(x, d):
        for _ in range(20):
            x = x + 1
        x = ember.math.floordiv(x, d)  # integer division by zero fails on the stream
        for _ in range(20):
            x = x + 1
        return x

    with ember.device("sim:0"):
        x = ember.identity(np.arange(8, dtype=np.int32))
        ok = f(x, ember.identity(np.full(8, 2, np.int32)))
        np.testing.assert_array_equal(ok.numpy(), (np.arange(8) + 20) // 2 + 20)
        with pytest.raises(ember.errors.InvalidArgumentError, match="floor"):
            f(x, ember.identity(np.zeros(8, np.int32))).numpy()
        again = f(x, ember.identity(np.full(8, 4, np.int32)))
        np.testing.assert_array_equal(again.numpy(), (np.arange(8) + 20) // 4 + 20)


def test_failed_kernel_poisons_its_stream_consumers_eagerly():
    with ember.device("sim:0"):
        x = ember.identity(np.arange(4, dtype=np.int32))
        bad = ember.math.floordiv(x, ember.identity(np.zeros(4, np.int32)))
        later = (bad + 1) * 2
        with pytest.raises(ember.errors.InvalidArgumentError, match="floor"):
            later.numpy()
        fine = (x + 1) * 2
        np.testing.assert_array_equal(fine.numpy(), (np.arange(4) + 1) * 2)
    try:
        ember.sync()
    except ember.errors.InvalidArgumentError:
        pass


def test_loop_body_runs_where_its_loop_runs(capfd):
    # A loop traced outside any device scope over a sim:0 value runs on
    # sim:0, body included; a host tensor it captures is moved there.
    scale = ember.constant(2.0)

    @ember.function
    def f(x):
        return ember.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * scale), [0, x])[1]

    with ember.device("sim:0"):
        x = ember.constant([1.0, 2.0])
    ember.config.set_log_device_placement(True)
    try:
        out = f(x)
    finally:
        ember.config.set_log_device_placement(False)
    np.testing.assert_allclose(out.numpy(), [8.0, 16.0])
    log = capfd.readouterr().err
    assert "multiply -> sim:0" in log and "multiply -> cpu:0" not in log
