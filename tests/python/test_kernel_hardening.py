"""Kernel hardening regressions: integer overflow wraps without UB, print
stays in bounds, and a failed scratch allocation is an error, not an abort.
.ci/sanitize runs this file under ASan+UBSan, where the old bugs fail."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember

I32_MAX = np.iinfo(np.int32).max
I64_MAX = np.iinfo(np.int64).max
I32_MIN = np.iinfo(np.int32).min
I64_MIN = np.iinfo(np.int64).min


def _wrapping(fn, *args):
    """NumPy's result with its overflow warnings silenced."""
    with np.errstate(over="ignore"):
        return fn(*args)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.int32, np.int64])
def test_reduce_sum_and_prod_wrap(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.max, info.max, 3, info.min, info.max], dtype=dtype)
    np.testing.assert_array_equal(ember.reduce_sum(x).numpy(), x.sum(dtype=dtype))
    big = np.full(70, info.max // 2 + 1, dtype=dtype)  # long enough for Eigen's packet path
    np.testing.assert_array_equal(ember.reduce_sum(big).numpy(), big.sum(dtype=dtype))
    np.testing.assert_array_equal(ember.reduce_prod(big).numpy(), _wrapping(np.prod, big, None, dtype))
    rows = np.tile(big, (3, 1))
    np.testing.assert_array_equal(ember.reduce_sum(rows, axis=0).numpy(), rows.sum(axis=0, dtype=dtype))


def _wrapped_mean(values, bits):
    """The sum wrapped to `bits` (two's complement), divided toward zero."""
    s = sum(int(v) for v in values) % 2**bits
    s = s - 2**bits if s >= 2 ** (bits - 1) else s
    q = abs(s) // len(values)
    return q if s >= 0 else -q


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_reduce_mean_of_large_ints(dtype):
    info = np.iinfo(dtype)
    for values in ([info.max] * 3, [info.min, info.min + 1], [info.min] * 5 + [info.max]):
        x = np.array(values, dtype=dtype)
        # int32 sums in 64 bits (exact); int64 wraps, as in TensorFlow.
        want = _wrapped_mean(values, 64)
        assert ember.reduce_mean(x).numpy() == want, values


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64])
def test_cumsum_and_cumprod_wrap(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.max, 5, info.max, 7], dtype=dtype)
    np.testing.assert_array_equal(ember.cumsum(x).numpy(), np.cumsum(x, dtype=dtype))
    np.testing.assert_array_equal(ember.math.cumprod(x).numpy(), _wrapping(np.cumprod, x, None, dtype))
    np.testing.assert_array_equal(ember.cumsum(x, reverse=True).numpy(), np.cumsum(x[::-1], dtype=dtype)[::-1])


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_scatter_nd_duplicates_wrap(dtype):
    info = np.iinfo(dtype)
    indices = np.array([[1], [1], [1]], dtype=np.int32)
    updates = np.array([info.max, info.max, 2], dtype=dtype)
    want = np.zeros(3, dtype=dtype)
    with np.errstate(over="ignore"):
        np.add.at(want, indices[:, 0], updates)
    np.testing.assert_array_equal(ember.scatter_nd(indices, updates, shape=[3]).numpy(), want)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_elementwise_integer_overflow_wraps(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.max, info.min, info.min, 3] * 5, dtype=dtype)
    b = np.array([1, -1, info.min, info.max] * 5, dtype=dtype)
    for op, ref in [(ember.add, np.add), (ember.subtract, np.subtract), (ember.multiply, np.multiply),
                    (ember.squared_difference, lambda x, y: np.square(np.subtract(x, y)))]:
        np.testing.assert_array_equal(op(a, b).numpy(), _wrapping(ref, a, b), err_msg=op.__name__)
    for op, ref in [(ember.negative, np.negative), (ember.abs, np.abs), (ember.square, np.square)]:
        np.testing.assert_array_equal(op(a).numpy(), _wrapping(ref, a), err_msg=op.__name__)
    np.testing.assert_array_equal(ember.add_n([a, a, b]).numpy(), _wrapping(lambda: a + a + b))


def test_print_summarize_zero_stays_in_bounds(capfd):
    t = ember.constant(np.arange(5, dtype=np.float32))
    ember.print(t, summarize=0, output_stream=sys.stdout)
    m = ember.constant(np.arange(6, dtype=np.int32).reshape(2, 3))
    ember.print(m, summarize=0, output_stream=sys.stdout)
    out = capfd.readouterr().out
    assert out == "[...]\n[...]\n"


def test_print_summarize_one():
    # The neighbouring case still shows the first and last entries.
    t = ember.constant(np.arange(5, dtype=np.int32))
    ember.print(t, summarize=1, output_stream=sys.stdout)


_SCRATCH_OOM = textwrap.dedent("""
    import resource, sys
    import numpy as np, ml_dtypes, ember
    x = ember.constant(np.ones((1, 4096, 4096, 1), ml_dtypes.bfloat16))
    f = ember.constant(np.ones((1, 1, 1, 1), ml_dtypes.bfloat16))
    ember.nn.conv2d(x, f, strides=1, padding="VALID").numpy()  # warm up: threads, kernel cache
    with open("/proc/self/statm") as s:
        vm = int(s.read().split()[0]) * resource.getpagesize()
    # Room for the 32 MiB bfloat16 output, not for the 64 MiB float32
    # copy of the input that the kernel makes (a std::vector).
    resource.setrlimit(resource.RLIMIT_AS, (vm + 48 * 2**20, resource.RLIM_INFINITY))
    try:
        ember.nn.conv2d(x, f, strides=1, padding="VALID").numpy()
    except MemoryError as e:
        print("error:", e)
        sys.exit(0)
    print("no error")
""")


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""), reason="ASan needs an unlimited address space")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses RLIMIT_AS and /proc")
def test_failed_kernel_scratch_allocation_is_an_error():
    r = subprocess.run([sys.executable, "-c", _SCRATCH_OOM], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "out of memory in kernel scratch allocation" in r.stdout, r.stdout


def test_integer_matmul_wraps_like_twos_complement():
    a = np.array([[2**30, 2**30], [3, -2**31]], np.int32)
    b = np.array([[4, 1], [1, 2**31 - 1]], np.int32)
    expected = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)  # exact, then wrapped
    np.testing.assert_array_equal(ember.matmul(a, b).numpy(), expected)
    a64 = np.array([[2**62, 3]], np.int64)
    b64 = np.array([[4], [-(2**62)]], np.int64)
    exact = 2**62 * 4 + 3 * -(2**62)
    wrapped = (exact + 2**63) % 2**64 - 2**63
    assert ember.matmul(a64, b64).numpy()[0, 0] == wrapped
