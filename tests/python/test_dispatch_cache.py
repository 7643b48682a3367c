"""The dispatch cache (Note [Dispatch cache], csrc/runtime/dispatch_cache.h): a call whose inputs have
the metadata of the thread's last call of the same op skips type binding, the shape function,
placement and the kernel cache. Each test changes one thing the cached decisions depend on and checks
that the next call sees the change."""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import ember


def _warm(op, *args, **kwargs):
    for _ in range(3):
        op(*args, **kwargs)


def test_shape_change_between_calls(mode):
    a, b = ember.constant([1.0, 2.0]), ember.constant([10.0, 20.0])
    _warm(ember.add, a, b)
    c = ember.constant([[1.0], [2.0], [3.0]])
    out = ember.add(a, c)  # broadcast: a new output shape for the same op
    assert out.shape == (3, 2)
    np.testing.assert_array_equal(out.numpy(), np.array([1.0, 2.0]) + np.array([[1.0], [2.0], [3.0]]))
    np.testing.assert_array_equal(ember.add(a, b).numpy(), [11.0, 22.0])


def test_dtype_change_between_calls(mode):
    _warm(ember.add, ember.constant([1.5, 2.5]), ember.constant([1.0, 1.0]))
    out = ember.add(ember.constant([1, 2], dtype=ember.int32), ember.constant([3, 4], dtype=ember.int32))
    assert out.dtype == ember.int32
    np.testing.assert_array_equal(out.numpy(), [4, 6])


def test_attribute_change_between_calls(mode):
    x = ember.constant([1.7, -2.2])
    _warm(ember.cast, x, ember.float64)
    out = ember.cast(x, ember.int32)
    assert out.dtype == ember.int32
    np.testing.assert_array_equal(out.numpy(), [1, -2])
    a = ember.constant([[1.0, 2.0], [3.0, 4.0]])
    _warm(ember.matmul, a, a)
    np.testing.assert_array_equal(ember.matmul(a, a, transpose_b=True).numpy(), a.numpy() @ a.numpy().T)


def test_python_scalar_binds_to_the_cached_dtype(mode):
    x = ember.constant([1.0, 2.0])
    _warm(ember.add, x, x)
    out = ember.add(x, 1)  # a Python int: bound to float32, then the cached decisions apply
    assert out.dtype == ember.float32
    np.testing.assert_array_equal(out.numpy(), [2.0, 3.0])


def test_hits_count_in_kernel_cache_stats(mode):
    a = ember.constant([3.0])
    ember.negative(a)
    before = ember.config.kernel_cache_stats()
    for _ in range(4):
        ember.negative(a)
    after = ember.config.kernel_cache_stats()
    assert after["hits"] - before["hits"] == 4
    assert after["misses"] == before["misses"]


def test_hits_of_other_threads_count_after_they_end_and_clearing_resets_them(mode):
    # Hits made on other threads count too, also once those threads ended.
    a = ember.constant([3.0])

    def work():
        for _ in range(6):
            ember.negative(a)  # the first call misses (a new thread's cache is empty)

    before = ember.config.kernel_cache_stats()["hits"]
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ember.config.kernel_cache_stats()["hits"] - before >= 3 * 5
    ember.config.clear_kernel_cache()
    assert ember.config.kernel_cache_stats()["hits"] == 0
    ember.negative(a)  # looked up again after the clear: a miss
    ember.negative(a)
    assert ember.config.kernel_cache_stats()["hits"] == 1


def test_clearing_the_kernel_cache_invalidates_entries(mode):
    a = ember.constant([3.0])
    _warm(ember.negative, a)
    ember.config.clear_kernel_cache()
    np.testing.assert_array_equal(ember.negative(a).numpy(), [-3.0])
    assert ember.config.kernel_cache_stats()["misses"] == 1  # looked up again, not served from the entry


def test_gradient_tape_sees_calls_after_warm_up(mode):
    x = ember.Variable([2.0, 3.0])
    c = ember.constant([2.0, 3.0])
    _warm(ember.multiply, c, c)
    with ember.GradientTape() as tape:
        y = ember.reduce_sum(ember.multiply(x, x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [4.0, 6.0])
    with ember.GradientTape() as tape:
        tape.watch(c)
        y = ember.multiply(c, c)  # the cached op itself, recorded by the tape
    np.testing.assert_allclose(tape.gradient(y, c).numpy(), [4.0, 6.0])


def test_tracing_after_warm_up(mode):
    x = ember.constant([1.0, 2.0])
    _warm(ember.add, x, x)

    @ember.function
    def f(t):
        return ember.add(t, t)

    np.testing.assert_array_equal(f(x).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(f(ember.constant([5.0, 6.0])).numpy(), [10.0, 12.0])


def test_errors_are_not_cached(mode):
    a = ember.constant([1.0, 2.0])
    _warm(ember.add, a, a)
    with pytest.raises(Exception, match="add"):
        ember.add(a, ember.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(ember.add(a, a).numpy(), [2.0, 4.0])


def test_threads_with_different_shapes(mode):
    errors = []

    def work(n):
        try:
            x = ember.constant(np.arange(n, dtype=np.float32))
            for _ in range(300):
                out = ember.add(x, x)
                if out.shape != (n,):
                    raise AssertionError(f"shape {out.shape} for {n}")
            np.testing.assert_array_equal(out.numpy(), 2 * np.arange(n, dtype=np.float32))
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in (1, 2, 3, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


_SCOPES = textwrap.dedent("""
    import numpy as np, ember
    b = ember.constant([1.0, 2.0])  # on the CPU
    with ember.device("cpu:0"):
        for _ in range(3):  # no copies: these calls are cached, keyed with the cpu:0 scope
            assert ember.add(b, b).device.endswith("cpu:0")
    out = ember.add(b, b)  # no scope: the accelerator comes first (Note [Placement rules])
    assert out.device.endswith("sim:0"), out.device
    np.testing.assert_array_equal(out.numpy(), [2.0, 4.0])
    with ember.device("sim:0"):
        a = ember.identity(b)
    for _ in range(3):
        assert ember.add(a, a).device.endswith("sim:0")
    with ember.device("cpu:0"):
        assert ember.add(a, a).device.endswith("cpu:0")
    ember.config.set_log_device_placement(True)
    ember.add(a, a)
    ember.add(a, a)
    print("done")
""")


def test_device_scope_and_placement_log_subprocess():
    env = dict(os.environ, EMBER_SIMULATED_DEVICES="1")
    env.pop("EMBER_TEST_DEVICE", None)
    done = subprocess.run([sys.executable, "-c", _SCOPES], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    # Every call is logged while logging is on, cached or not.
    assert done.stderr.count("ember placement: add ->") == 2, done.stderr
