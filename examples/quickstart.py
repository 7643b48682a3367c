"""A short tour of Ember. Every result is checked against NumPy.

Run with:  python examples/quickstart.py
"""

import numpy as np

import ember


def check(name, tensor, expected, dtype=None):
    """Prints a result and asserts that it matches NumPy (values, shape, dtype)."""
    actual = tensor.numpy()
    expected = np.asarray(expected)
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if dtype is not None:
        assert tensor.dtype == dtype, (tensor.dtype, dtype)
    print(f"{name:<28} {tensor.dtype.name:<8} {np.array2string(actual, separator=', ').replace(chr(10), '')}")


print(f"ember {ember.__version__}, devices: {ember.list_devices()}\n")

# --- Constants ----------------------------------------------------------------
x = ember.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # Python floats -> float32
b = ember.constant([10.0, 20.0, 30.0])
n = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
check("constant", x, n, ember.float32)
check("zeros", ember.zeros([2, 2], dtype=ember.int32), np.zeros((2, 2), np.int32), ember.int32)

# --- Arithmetic with broadcasting ----------------------------------------------
check("x + b  (broadcast)", x + b, n + np.float32([10, 20, 30]))
check("x * 2 - 1", x * 2 - 1, n * 2 - 1)
check("divide", ember.divide(x, b), n / np.float32([10, 20, 30]))

# --- matmul + relu -------------------------------------------------------------
w = ember.constant([[1.0, -1.0], [0.5, -2.0], [-1.0, 0.25]])
wn = np.array([[1.0, -1.0], [0.5, -2.0], [-1.0, 0.25]], np.float32)
check("matmul", ember.matmul(x, w), n @ wn)
check("relu(x @ w)", ember.nn.relu(x @ w), np.maximum(n @ wn, 0))

# --- Reductions ------------------------------------------------------------------
check("reduce_sum", ember.reduce_sum(x), n.sum())
check("reduce_mean(axis=0)", ember.reduce_mean(x, axis=0), n.mean(axis=0))
check("reduce_max(axis=1, keep)", ember.reduce_max(x, axis=1, keepdims=True), n.max(axis=1, keepdims=True))

# --- Reshape / transpose -------------------------------------------------------
check("reshape([3, -1])", ember.reshape(x, [3, -1]), n.reshape(3, -1))
check("transpose", ember.transpose(x), n.T)

# --- Dtypes and weak Python scalars ----------------------------------------------
i = ember.constant([1, 2, 3])  # Python ints -> int32
check("int32 + 1      (weak int)", i + 1, np.int32([2, 3, 4]), ember.int32)
check("int32 + 0.5    (weak float)", i + 0.5, np.float32([1.5, 2.5, 3.5]), ember.float32)
check("float32 + 1.5  (stays f32)", b + 1.5, np.float32([11.5, 21.5, 31.5]), ember.float32)
check("int32 / int32  (-> float64)", i / i, np.ones(3), ember.float64)
check("cast to int64", ember.cast(b, ember.int64), np.int64([10, 20, 30]), ember.int64)
check("numpy float64 is strong", b + np.float64(1.0), np.float64([11, 21, 31]), ember.float64)

# --- Device scope --------------------------------------------------------------------
with ember.device("cpu:0"):
    y = ember.exp(ember.zeros([2]))
assert y.device == "cpu:0"
check("exp in ember.device('cpu:0')", y, np.ones(2, np.float32))

# --- Async and sync execution ----------------------------------------------------
# Async (the default): ops return at once with known shape and dtype; the
# value is computed on the device's executor and read on demand.
ember.config.set_async(True)
z = ember.matmul(ember.ones([64, 64]), ember.ones([64, 64]))
print(f"\nasync: shape {z.shape}, dtype {z.dtype.name} known before the value")
ember.sync()  # waits for all queued work
check("async matmul (after sync)", ember.reduce_sum(z), 64.0 * 64 * 64)

ember.config.set_async(False)  # sync: each op runs before the call returns
check("sync add", ember.add(x, 1.0), n + 1)
ember.config.set_async(True)

# --- Errors ------------------------------------------------------------------------
# Shape and dtype errors are raised at the call, in both modes.
try:
    ember.add(ember.ones([2, 3]), ember.ones([4]))
    raise AssertionError("expected a ValueError")
except ValueError as e:
    print(f"\ncaught ValueError: {e}")
    assert str(e).startswith("add:")

# Kernel errors in async mode poison the result; reading it raises.
bad = ember.debugging.check_numerics(ember.log(ember.constant([-1.0])), message="log of a negative")
try:
    bad.numpy()
    raise AssertionError("expected an error")
except ember.errors.InvalidArgumentError as e:  # also a ValueError
    print(f"caught InvalidArgumentError: {e}")
ember.sync()  # the read already reported it: each error is raised once

# An error nobody read is raised by ember.sync(), in the thread that issued the op.
ember.debugging.check_numerics(ember.sqrt(ember.constant([-1.0])), message="sqrt of a negative")
try:
    ember.sync()
    raise AssertionError("expected sync() to raise")
except ValueError as e:
    print(f"ember.sync() raised: {e}")
ember.sync()  # nothing left to report

# --- Kernel cache ------------------------------------------------------------------
stats = ember.config.kernel_cache_stats()
print(f"\nkernel cache: {stats['size']} kernels, {stats['hits']} hits, {stats['misses']} misses")
assert stats["hits"] > 0 and stats["size"] > 0

print("\nall checks passed")
