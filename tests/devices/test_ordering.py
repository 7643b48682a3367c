"""Cross-device ordering under injected latency (EMBER_SIMULATED_LATENCY_US):
chains cpu -> sim:0 -> sim:1 -> cpu, writes on one device read on another,
errors that stay on their device, and several Python threads at once."""

import threading

import numpy as np
import pytest

import ember
from sim_markers import needs_two_sims

pytestmark = needs_two_sims


def test_chain_across_devices_sees_every_write(mode):
    x = ember.constant(np.arange(1000, dtype=np.float32))
    expected = np.arange(1000, dtype=np.float32)
    for step in range(20):
        device = ["sim:0", "sim:1", "cpu:0"][step % 3]
        with ember.device(device):
            x = x + 1.0
            x = x * 2.0
        expected = (expected + 1.0) * 2.0
        assert x.device == device
    np.testing.assert_allclose(x.numpy(), expected, rtol=1e-6)


def test_variable_updates_on_a_device_are_read_in_order():
    with ember.device("sim:0"):
        v = ember.Variable(np.zeros(64, np.float32))
    assert v.device == "sim:0"
    reads = []
    for i in range(30):
        v.assign_add(np.ones(64, np.float32))
        with ember.device("sim:1"):
            reads.append(ember.identity(v.read_value()))
    for i, r in enumerate(reads):
        np.testing.assert_array_equal(r.numpy(), np.full(64, i + 1, np.float32))


def test_error_on_one_device_does_not_poison_another():
    with ember.device("sim:0"):
        params = ember.constant(np.arange(4, dtype=np.float32))
        bad = ember.gather(params, ember.constant([7]))  # out of range: fails on the device
    with ember.device("sim:1"):
        good = ember.constant(np.ones(3, np.float32)) * 3.0
    np.testing.assert_array_equal(good.numpy(), np.full(3, 3.0, np.float32))
    with pytest.raises(ember.errors.InvalidArgumentError, match="gather"):
        bad.numpy()
    with ember.device("sim:0"):
        after = bad + 1.0  # the poison passes on, unchanged
        ok = params + 1.0  # and the device stays usable
    with pytest.raises(ember.errors.InvalidArgumentError, match="gather"):
        after.numpy()
    np.testing.assert_array_equal(ok.numpy(), np.arange(1, 5, dtype=np.float32))
    ember.sync()  # the error was reported when it was read


def test_threads_issue_to_several_devices_at_once():
    errors = []

    def work(seed, device):
        try:
            rng = np.random.default_rng(seed)
            a = rng.standard_normal((16, 16)).astype(np.float32)
            want = a
            with ember.device(device):
                t = ember.constant(a)
            for i in range(40):
                other = ["sim:0", "sim:1", "cpu:0"][(seed + i) % 3]
                with ember.device(other):
                    t = ember.matmul(t, ember.constant(np.eye(16, dtype=np.float32))) + 1.0
                want = want + 1.0
            np.testing.assert_allclose(t.numpy(), want, rtol=1e-5)
        except Exception as e:  # noqa: BLE001 - collected and re-raised below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s, ["sim:0", "sim:1", "cpu:0"][s % 3])) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_functions_with_nodes_on_two_devices(mode):
    @ember.function
    def f(x):
        with ember.device("sim:0"):
            y = x * 2.0
        with ember.device("sim:1"):
            z = y + 1.0
        with ember.device("cpu:0"):
            w = z - x
        return w, z

    x = ember.constant(np.arange(5, dtype=np.float32))
    w, z = f(x)
    np.testing.assert_allclose(w.numpy(), np.arange(5) * 2.0 + 1.0 - np.arange(5))
    np.testing.assert_allclose(z.numpy(), np.arange(5) * 2.0 + 1.0)
    devices = {d for d, _ops in f.get_concrete_function(x).graph.partitions()}
    assert {"sim:0", "sim:1", "cpu:0"} <= devices


def test_function_placed_on_a_device(mode):
    @ember.function
    def step(x, y):
        return ember.nn.relu(ember.matmul(x, y)) + 1.0

    with ember.device("sim:0"):
        x = ember.constant(np.eye(3, dtype=np.float32))
        y = ember.constant(-np.arange(9, dtype=np.float32).reshape(3, 3) + 4.0)
    out = step(x, y)
    assert out.device == "sim:0"
    np.testing.assert_allclose(out.numpy(), np.maximum(-np.arange(9).reshape(3, 3) + 4.0, 0) + 1.0)


def test_constants_fold_on_a_device_through_a_transfer():
    # A host constant feeding a device node folds into a device constant:
    # the folding run moves it there first (on a GPU, reading it in place
    # was an illegal address), and Note [Kernel inputs on their device]
    # refuses a kernel input in another device's memory.
    table = ember.constant(np.arange(4, dtype=np.float32))  # captured, on the CPU

    @ember.function
    def shift(x):
        with ember.device("sim:0"):
            return x + table * 2.0

    with ember.device("sim:0"):
        x = ember.constant(np.ones(4, np.float32))
    np.testing.assert_allclose(shift(x).numpy(), 1.0 + 2.0 * np.arange(4))
    # table * 2.0 folded into a constant on sim:0: no multiply, no transfer left.
    assert shift.get_concrete_function(x).graph.op_names() == ["add"]


def test_while_loop_results_come_back_to_the_loop_device():
    # The loop op runs on the CPU (as on a GPU, which has no while_loop
    # kernel) and its body on sim:0: the last values come back to the
    # loop's device; before, they were sim:0 memory labelled as the CPU's.
    def body(i, v):
        with ember.device("sim:0"):
            return i + 1, v * 2.0

    @ember.function
    def count(x):
        with ember.device("cpu:0"):
            return ember.while_loop(lambda i, v: i < 3, body, [0, x])

    i, v = count(ember.constant([1.0, 3.0]))
    np.testing.assert_allclose(v.numpy(), [8.0, 24.0])
    assert int(i.numpy()) == 3


def test_control_flow_on_a_device():
    @ember.function
    def count(x):
        return ember.while_loop(lambda i, v: i < 10, lambda i, v: (i + 1, v * 2.0), [0, x])[1]

    with ember.device("sim:0"):
        x = ember.constant([1.0, 3.0])
    np.testing.assert_allclose(count(x).numpy(), [1024.0, 3072.0])
