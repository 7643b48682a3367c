"""The runtime: async ordering and errors, kernel cache, threads, device scopes, placement log, execute."""

import os
import re
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import ember

NAN = float("nan")


# --- Async ordering and errors ---------------------------------------------


def test_long_dependent_chain_in_order(mode):
    x = ember.zeros([4], dtype=ember.int64)
    for i in range(1000):
        x = x + i
        if i % 100 == 0:
            x = x * 2 - x  # a diamond: two uses of the same pending value
    assert x.numpy().tolist() == [sum(range(1000))] * 4


def test_chain_over_large_tensors_in_order(mode):
    x = ember.ones([70_000], dtype=ember.float64)
    for _ in range(20):
        x = ember.sqrt(x * 4.0)  # the fixed point of sqrt(4x) is 4
    np.testing.assert_allclose(x.numpy(), np.full(70_000, 4.0 * (0.25 ** (0.5 ** 20))), rtol=1e-12)


def test_async_error_poisons_only_dependents(async_mode):
    good = ember.constant([1.0, 2.0]) * 3.0
    bad = ember.debugging.check_numerics(ember.constant([1.0, NAN]), "in chain A")
    dependent = ember.exp(bad + 1.0)
    # The call itself succeeded; metadata is there.
    assert dependent.shape == (2,) and dependent.dtype == ember.float32
    # An independent result and the next op are fine.
    assert good.numpy().tolist() == [3.0, 6.0]
    assert (good + 1.0).numpy().tolist() == [4.0, 7.0]
    # Reading the poisoned values raises the kernel's error, every time.
    for value in (bad, dependent, dependent):
        with pytest.raises(ValueError, match=r"check_numerics.*in chain A"):
            value.numpy()
    with pytest.raises(ValueError, match="check_numerics"):
        float(ember.reduce_sum(dependent))
    # repr shows the error rather than raising it (ember/_tensor_repr.py).
    assert "error=InvalidArgumentError('check_numerics" in repr(dependent)
    # The reads reported it, so sync() does not raise it again.
    ember.sync()
    assert good.numpy().tolist() == [3.0, 6.0]


def test_async_error_unread_is_raised_by_sync_once(async_mode):
    ember.debugging.check_numerics(ember.constant([np.inf]), "never read")
    with pytest.raises(ValueError, match=r"check_numerics.*never read"):
        ember.sync()
    ember.sync()
    assert (ember.constant(1.0) + 1.0).numpy() == 2.0


def test_sync_raises_the_first_error(async_mode):
    ember.debugging.check_numerics(ember.constant([NAN]), "first")
    ember.debugging.check_numerics(ember.constant([NAN]), "second")
    with pytest.raises(ValueError, match="first"):
        ember.sync()


def test_sync_mode_raises_kernel_error_at_call(sync_mode):
    x = ember.constant([1.0, NAN])
    with pytest.raises(ValueError, match=r"^check_numerics: .*sync mode"):
        ember.debugging.check_numerics(x, "sync mode")
    ember.sync()  # already raised: nothing pending
    ok = ember.debugging.check_numerics(ember.constant([1.0]), "fine")
    assert ok.numpy().tolist() == [1.0]


def test_check_numerics_passes_finite_values_through(mode):
    x = ember.constant([1.0, -2.0], dtype=ember.float64)
    y = ember.debugging.check_numerics(x, "ok")
    assert y.dtype == ember.float64
    assert y.numpy().tolist() == [1.0, -2.0]


def test_mode_switch():
    previous = ember.config.is_async()
    try:
        ember.config.set_async(False)
        assert ember.config.is_async() is False
        ember.config.set_async(True)
        assert ember.config.is_async() is True
    finally:
        ember.config.set_async(previous)


# --- Kernel cache ------------------------------------------------------------


def _stats():
    return ember.config.kernel_cache_stats()


def test_kernel_cache_hits_and_misses(mode):
    ember.config.clear_kernel_cache()
    assert _stats()["size"] == 0
    a = ember.constant([[1.0, 2.0], [3.0, 4.0]])
    ember.add(a, a)
    s0 = _stats()
    for _ in range(5):
        ember.add(a, a)
    s1 = _stats()
    assert s1["hits"] - s0["hits"] == 5
    assert s1["misses"] == s0["misses"]
    ember.add(ember.constant([1, 2]), ember.constant([3, 4]))  # new dtype
    s2 = _stats()
    assert s2["misses"] == s1["misses"] + 1
    ember.matmul(a, a)
    s3 = _stats()
    ember.matmul(a, a, transpose_b=True)  # new attr value
    s4 = _stats()
    assert s4["misses"] == s3["misses"] + 1
    ember.matmul(a, a, transpose_b=True)
    assert _stats()["hits"] == s4["hits"] + 1
    assert _stats()["size"] == s4["size"]
    assert set(_stats()) >= {"hits", "misses", "evictions", "size", "capacity"}


def test_kernel_cache_clear_resets(mode):
    a = ember.constant([1.0])
    ember.exp(a)
    ember.config.clear_kernel_cache()
    assert _stats()["size"] == 0
    ember.exp(a)
    assert _stats()["size"] == 1
    assert _stats()["misses"] >= 1


# --- Threads -----------------------------------------------------------------


def test_threads_run_op_chains_concurrently(mode):
    results, errors = {}, []
    barrier = threading.Barrier(8)

    def work(k):
        try:
            barrier.wait()
            scope = ember.device("cpu:0") if k % 2 else None
            if scope:
                scope.__enter__()
            try:
                x = ember.fill([1000], ember.constant(np.int64(k)))
                for i in range(200):
                    x = ember.maximum(x + i, ember.zeros([1000], dtype=ember.int64))
                big = ember.reduce_sum(ember.ones([70_000], dtype=ember.float64) * float(k))
                results[k] = (x.numpy().copy(), float(big), x.device)
            finally:
                if scope:
                    scope.__exit__(None, None, None)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append((k, repr(e)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert sorted(results) == list(range(8))
    for k, (x, big, device) in results.items():
        assert (x == k + sum(range(200))).all(), k
        assert big == 70_000.0 * k
        assert device == "cpu:0"


def test_device_scope_is_per_thread(capfd):
    ember.config.set_log_device_placement(True)
    try:
        seen = []

        def other_thread():
            ember.ones([1])
            ember.sync()
            seen.append(True)

        with ember.device("cpu:0"):
            t = threading.Thread(target=other_thread)
            t.start()
            t.join()
            ember.zeros([1])
        ember.sync()
    finally:
        ember.config.set_log_device_placement(False)
    err = capfd.readouterr().err
    assert seen == [True]
    ones_lines = [line for line in err.splitlines() if "placement: ones" in line]
    zeros_lines = [line for line in err.splitlines() if "placement: zeros" in line]
    assert len(ones_lines) == 1 and "device scope" not in ones_lines[0]
    assert len(zeros_lines) == 1 and "device scope" in zeros_lines[0]


# --- Devices and placement ---------------------------------------------------


def test_list_devices():
    devices = ember.list_devices()
    assert "cpu:0" in devices
    assert all(ember.device(d).name == d for d in devices)


@pytest.mark.parametrize("name", ["cpu", "cpu:0", "/device:CPU:0", "CPU:0"])
def test_device_names_canonicalize(name):
    assert ember.device(name).name == "cpu:0"


@pytest.mark.parametrize("name", ["tpu:7", "cpu:9", "", "banana"])
def test_unknown_device_raises_at_once(name):
    with pytest.raises(ValueError):
        ember.device(name)


def test_device_scopes_nest_and_unwind(capfd):
    ember.config.set_log_device_placement(True)
    try:
        with ember.device("cpu"):
            with ember.device("cpu:0") as inner:
                assert inner.name == "cpu:0"
                ember.ones([1])
            ember.zeros([1])
        ember.fill([1], ember.constant(1.0))
        with pytest.raises(RuntimeError):
            with ember.device("cpu:0"):
                raise RuntimeError("leave the scope by an exception")
        ember.ones([2])
        ember.sync()
    finally:
        ember.config.set_log_device_placement(False)
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("ember placement:")]
    assert len(lines) == 4, lines
    assert "ones -> cpu:0" in lines[0] and "device scope" in lines[0]
    assert "zeros -> cpu:0" in lines[1] and "device scope" in lines[1]
    assert "fill" in lines[2] and "device scope" not in lines[2]
    assert "ones" in lines[3] and "device scope" not in lines[3]


def test_set_log_device_placement_prints_op_and_device(capfd, mode):
    ember.config.set_log_device_placement(True)
    try:
        assert ember.config.get_log_device_placement() is True
        a = ember.constant([1.0, 2.0])
        ember.matmul(ember.reshape(a, [1, 2]), ember.reshape(a, [2, 1]))
        ember.sync()
    finally:
        ember.config.set_log_device_placement(False)
    err = capfd.readouterr().err
    assert any("matmul" in line and "cpu:0" in line for line in err.splitlines()), err
    ember.add(a, a)
    ember.sync()
    assert "add" not in capfd.readouterr().err


def _run_python(code, **env):
    full_env = dict(os.environ)
    full_env.update(env)
    return subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True, text=True,
                          timeout=60)


def test_environment_variables_set_mode_and_placement_log():
    code = ("import ember\n"
            "print(ember.config.is_async())\n"
            "x = ember.negative(ember.constant([1.0]))\n"
            "print(x.numpy().tolist())\n")
    proc = _run_python(code, EMBER_ASYNC="0", EMBER_LOG_PLACEMENT="1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "[-1.0]"]
    assert any("negative" in line and "cpu:0" in line for line in proc.stderr.splitlines()), proc.stderr
    proc = _run_python(code, EMBER_ASYNC="1", EMBER_LOG_PLACEMENT="0")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[0] == "True"
    assert "negative" not in proc.stderr


# --- The open-domain entry point --------------------------------------------


def test_execute_matmul_with_attr(mode):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = ember.execute("matmul", [ember.constant(a), ember.constant(b)], {"transpose_b": True})
    assert isinstance(out, ember.Tensor)
    assert out.shape == (2, 4)
    np.testing.assert_allclose(out.numpy(), a @ b.T)


def test_execute_defaults_and_python_values(mode):
    out = ember.execute("reduce_sum", [ember.constant([[1, 2], [3, 4]])], {"axis": [0]})
    assert out.numpy().tolist() == [4, 6]
    out = ember.execute("add", [ember.constant([1.0]), 2.0])
    assert out.dtype == ember.float32 and out.numpy().tolist() == [3.0]
    out = ember.execute("zeros", [], {"shape": [2], "dtype": ember.int64})
    assert out.dtype == ember.int64 and out.numpy().tolist() == [0, 0]


def test_execute_errors():
    a = ember.ones([2, 3])
    with pytest.raises(LookupError, match="no_such_op"):
        ember.execute("no_such_op", [a], {})
    with pytest.raises(ValueError, match=r"^matmul: .*bogus"):
        ember.execute("matmul", [a, a], {"bogus": True})
    with pytest.raises(ValueError, match=r"^matmul: .*inputs"):
        ember.execute("matmul", [a], {})
    with pytest.raises(TypeError, match=r"^matmul: .*transpose_b"):
        ember.execute("matmul", [a, a], {"transpose_b": "yes"})
    with pytest.raises(ValueError, match=r"^zeros: .*shape"):
        ember.execute("zeros", [], {})  # a required attr is missing


def _thp_mode():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return re.search(r"\[(\w+)\]", f.read()).group(1)
    except (OSError, AttributeError):
        return None


def _mapping_of(address):
    """The /proc/self/smaps fields of the mapping holding ``address``."""
    fields, inside = {}, False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                begin, end = (int(part, 16) for part in head.split("-"))
                if inside:
                    break
                inside = begin <= address < end
            elif inside and ":" in head:
                fields[head[:-1]] = line.split()[1]
    return fields


@pytest.mark.skipif(not sys.platform.startswith("linux") or _thp_mode() != "madvise",
                    reason="needs Linux with transparent huge pages in madvise mode")
def test_large_host_buffers_are_advised_for_huge_pages():
    # Note [Host allocator]: without the advice, a large buffer gets 4 KiB
    # pages where THP is "madvise", as here.
    ember.config.empty_cache()
    x = ember.ones([16 * 1024 * 1024])  # 64 MiB, fresh from the system
    # The middle of the buffer: the advice covers its whole pages only, so
    # the first page is a mapping of its own.
    fields = _mapping_of(np.from_dlpack(x).ctypes.data + 32 * 1024 * 1024)
    if "THPeligible" not in fields:
        pytest.skip("this kernel's smaps has no THPeligible field")
    assert fields["THPeligible"] == "1"
    # 3 MiB: below the advice's 4 MiB, mapped on its own (Note [Host
    # allocator]); a 4 KiB tensor from malloc could share the heap with
    # pages NumPy advised.
    smaller = ember.ones([768 * 1024])
    assert _mapping_of(np.from_dlpack(smaller).ctypes.data + 1024 * 1024).get("THPeligible") != "1"


def test_host_allocator_caches_large_blocks_until_empty_cache():
    # Note [Host allocator]: a freed large buffer stays reserved for the
    # next op of its size class; empty_cache gives it back.
    ember.config.empty_cache()
    x = ember.ones([4 * 1024 * 1024])  # 16 MiB
    assert float(x[0]) == 1.0
    del x
    # The executor drops a finished launch (and its reference to x's
    # buffer) just after the value it made is read: wait for that.
    deadline = time.monotonic() + 10
    while True:
        ember.sync()
        stats = ember.config.memory_stats()
        cached = stats["bytes_reserved"] - stats["bytes_in_use"]
        if cached >= 16 * 1024 * 1024 or time.monotonic() > deadline:
            break
        time.sleep(0.001)
    assert cached >= 16 * 1024 * 1024
    y = ember.ones([4 * 1024 * 1024])
    assert float(y[-1]) == 1.0
    stats = ember.config.memory_stats()
    assert stats["bytes_reserved"] - stats["bytes_in_use"] < 16 * 1024 * 1024  # the cached block was reused
    del y
    ember.config.empty_cache()
    stats = ember.config.memory_stats()
    assert stats["bytes_reserved"] == stats["bytes_in_use"]
