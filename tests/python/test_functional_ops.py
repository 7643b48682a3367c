"""map_fn, vectorized_map, scan, foldl, foldr, switch_case, py_function and numpy_function
(ember/_functional_ops.py, ember/_py_function.py): eagerly, inside @ember.function, and
under a GradientTape, against NumPy references and TensorFlow's documented results."""

import numpy as np
import pytest

import ember as tf

X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_map_fn_rows(mode):
    def f(x):
        return tf.map_fn(lambda r: r * r + 1.0, x)

    f = f if mode == "eager" else tf.function(f)
    np.testing.assert_allclose(f(tf.constant(X)).numpy(), X * X + 1.0)


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_map_fn_nested_structures_and_output_signature(mode):
    def f(x, n):
        # TensorFlow's documented form: a tuple of elems, a different output structure.
        return tf.map_fn(lambda t: {"sum": tf.reduce_sum(t[0]), "n": (t[1] * 2,)}, (x, n),
                         fn_output_signature={"sum": tf.float32, "n": (tf.TensorSpec([], tf.int32),)})

    f = f if mode == "eager" else tf.function(f)
    out = f(tf.constant(X), tf.constant([1, 2, 3]))
    np.testing.assert_allclose(out["sum"].numpy(), X.sum(1))
    assert out["n"][0].dtype == tf.int32
    np.testing.assert_array_equal(out["n"][0].numpy(), [2, 4, 6])


def test_map_fn_dtype_is_checked_and_python_values_converted():
    out = tf.map_fn(lambda r: 1, tf.constant(X), fn_output_signature=tf.int64)
    assert out.dtype == tf.int64 and out.numpy().tolist() == [1, 1, 1]
    with pytest.raises(TypeError, match="fn_output_signature"):
        tf.map_fn(lambda r: r, tf.constant(X), fn_output_signature=tf.int32)
    out = tf.map_fn(lambda r: r, tf.zeros([0, 2]), fn_output_signature=tf.TensorSpec([2], tf.float32))
    assert tuple(out.shape) == (0, 2)


def test_map_fn_traces_a_loop_for_many_rows():
    # Note [map_fn chunks]: a few rows unroll; more run as a loop over chunks of rows.
    f = tf.function(lambda x: tf.map_fn(lambda r: tf.exp(r), x))
    assert "while_loop" not in f.get_concrete_function(tf.TensorSpec([5, 2])).graph.op_names()
    concrete = f.get_concrete_function(tf.TensorSpec([64, 2]))
    assert "while_loop" in concrete.graph.op_names()
    assert concrete.graph.op_names().count("exp") == 0  # inside the loop body's graph
    for n in (5, 64, 70):  # 70: two chunks and a tail of 6 rows
        x = np.linspace(-1, 1, 2 * n, dtype=np.float32).reshape(n, 2)
        np.testing.assert_allclose(f(tf.constant(x)).numpy(), np.exp(x), rtol=1e-6)


def test_map_fn_gradient_over_chunks():
    x = np.linspace(-1, 1, 140, dtype=np.float32).reshape(70, 2)
    f = tf.function(lambda x: tf.reduce_sum(tf.map_fn(lambda r: r * r * r, x)))
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = f(xt)
    np.testing.assert_allclose(tape.gradient(y, xt).numpy(), 3 * x * x, rtol=1e-5)


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_map_fn_gradient(mode):
    def loss(x):
        return tf.reduce_sum(tf.map_fn(lambda r: tf.sin(r) * r, x))

    loss = loss if mode == "eager" else tf.function(loss)
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = loss(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.cos(X) * X + np.sin(X), rtol=1e-5)


def test_vectorized_map_matches_map_fn():
    w = tf.constant([[1.0], [2.0]])
    out = tf.vectorized_map(lambda r: tf.matmul(tf.expand_dims(r, 0), w), tf.constant(X))
    np.testing.assert_allclose(out.numpy(), (X @ np.array([[1.0], [2.0]], np.float32))[:, None, :])


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_scan(mode):
    def f(x):
        return (tf.scan(lambda a, r: a + r, x), tf.scan(lambda a, r: a + r, x, reverse=True),
                tf.scan(lambda a, r: a * 2 + r, x, initializer=tf.zeros([2])))

    f = f if mode == "eager" else tf.function(f)
    plain, reverse, init = f(tf.constant(X))
    np.testing.assert_allclose(plain.numpy(), np.cumsum(X, 0))
    np.testing.assert_allclose(reverse.numpy(), np.cumsum(X[::-1], 0)[::-1])
    np.testing.assert_allclose(init.numpy(), [[1, 2], [5, 8], [15, 22]])


def test_scan_documented_examples_and_structures():
    # tf.scan's docstring: a running sum, and a Fibonacci with a tuple accumulator.
    np.testing.assert_array_equal(tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4, 5, 6])).numpy(),
                                  [1, 3, 6, 10, 15, 21])
    fibs = tf.scan(lambda a, _: (a[1], a[0] + a[1]), tf.constant([1, 2, 3, 4, 5, 6]),
                   initializer=(tf.constant(0), tf.constant(1)))
    np.testing.assert_array_equal(fibs[0].numpy(), [1, 1, 2, 3, 5, 8])
    np.testing.assert_array_equal(fibs[1].numpy(), [1, 2, 3, 5, 8, 13])


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_foldl_foldr(mode):
    def f(x):
        return (tf.foldl(lambda a, r: a * 10 + r, x), tf.foldr(lambda a, r: a * 10 + r, x),
                tf.foldl(lambda a, r: a - r, x, initializer=tf.constant(100)))

    f = f if mode == "eager" else tf.function(f)
    left, right, init = f(tf.constant([1, 2, 3]))
    assert (int(left), int(right), int(init)) == (123, 321, 94)


def test_scan_gradient_in_a_function():
    f = tf.function(lambda x: tf.reduce_sum(tf.scan(lambda a, r: a * r, x)))
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    expected = np.stack([1 + X[1] + X[1] * X[2], X[0] + X[0] * X[2], X[0] * X[1]])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected)


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_switch_case(mode):
    def f(i):
        return tf.switch_case(i, [lambda: tf.constant(10.0), lambda: tf.constant(20.0), lambda: tf.constant(30.0)])

    def g(i):
        return tf.switch_case(i, {1: lambda: tf.constant(1.0), 5: lambda: tf.constant(5.0)},
                              default=lambda: tf.constant(-1.0))

    f = f if mode == "eager" else tf.function(f)
    g = g if mode == "eager" else tf.function(g)
    # An index with no branch runs the last branch (no default) or the default.
    assert [float(f(tf.constant(i))) for i in (0, 1, 2, 7, -1)] == [10.0, 20.0, 30.0, 30.0, 30.0]
    assert [float(g(tf.constant(i))) for i in (1, 5, 3)] == [1.0, 5.0, -1.0]


def test_switch_case_gradient_in_a_function():
    f = tf.function(lambda i, x: tf.switch_case(i, [lambda: x * x, lambda: x * 3.0]))
    x = tf.constant(2.0)
    for i, expected in ((0, 4.0), (1, 3.0)):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(tf.constant(i), x)
        assert float(tape.gradient(y, x)) == expected


def test_py_function_runs_at_call_time_in_a_function():
    seen = []

    def record(x):
        seen.append(float(x))
        return x * 2.0

    @tf.function
    def f(x):
        return tf.py_function(record, [x], tf.float32) + 1.0

    assert float(f(tf.constant(1.0))) == 3.0
    assert float(f(tf.constant(5.0))) == 11.0
    assert seen == [1.0, 5.0]  # at each call, with the call's values
    with pytest.raises(ValueError, match="no concrete graph"):
        f.get_concrete_function(tf.constant(1.0))


def test_py_function_gradient_and_numpy_function():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.py_function(lambda a: a * a, [x], tf.float32)
        z = tf.numpy_function(lambda a: np.float32(a * a), [x], tf.float32)
    assert float(tape.gradient(y, x)) == 6.0
    assert tape.gradient(z, x) is None  # numpy_function has no gradient
    outs = tf.numpy_function(lambda a, b: (a + b, (a * b).astype(np.int64)), [np.int64(2), np.int64(5)],
                             [tf.int64, tf.int64])
    assert [int(o) for o in outs] == [7, 10]
    with pytest.raises(TypeError, match="Tout"):
        tf.numpy_function(lambda a: a.astype(np.float64), [x], tf.float32)


def test_rows_known_only_at_run_time():
    @tf.function(input_signature=[tf.TensorSpec([None, 2])])
    def totals(x):
        return (tf.reduce_sum(tf.map_fn(lambda r: r * 2.0, x)), tf.reduce_sum(tf.scan(lambda a, r: a + r, x)),
                tf.foldl(lambda a, r: a + r, x), tf.foldr(lambda a, r: a * r, x, initializer=tf.ones([2])))

    for rows in (X, X[:1]):
        got = totals(tf.constant(rows))
        np.testing.assert_allclose([float(got[0]), float(got[1])], [2 * rows.sum(), np.cumsum(rows, 0).sum()])
        np.testing.assert_allclose(got[2].numpy(), rows.sum(0))
        np.testing.assert_allclose(got[3].numpy(), rows.prod(0))


def test_py_function_in_a_dataset_map():
    ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0, 4.0])
    ds = ds.map(lambda x: tf.py_function(lambda a: a * 10.0, [x], tf.float32))
    assert [b.numpy().tolist() for b in ds.batch(2)] == [[10.0, 20.0], [30.0, 40.0]]
    assert ds.element_spec.dtype == tf.float32  # the shape of a py_function's result is not traced


@pytest.mark.parametrize("n", [33, 70])
def test_scan_and_folds_over_chunks_in_a_function(n):
    x = np.linspace(0.5, 1.5, 2 * n, dtype=np.float32).reshape(n, 2)

    @tf.function
    def f(x):
        return (tf.scan(lambda a, r: a * 0.5 + r, x), tf.scan(lambda a, r: a * 0.5 + r, x, reverse=True,
                                                               initializer=tf.ones([2])),
                tf.foldl(lambda a, r: a * 0.5 + r, x), tf.foldr(lambda a, r: a * 0.5 + r, x))

    def reference(rows, acc):
        out = []
        for r in rows:
            acc = r if acc is None else acc * 0.5 + r
            out.append(acc)
        return np.stack(out)

    forward, backward, left, right = f(tf.constant(x))
    np.testing.assert_allclose(forward.numpy(), reference(x, None), rtol=1e-5)
    np.testing.assert_allclose(backward.numpy(), reference(x[::-1], np.ones(2, np.float32))[::-1], rtol=1e-5)
    np.testing.assert_allclose(left.numpy(), reference(x, None)[-1], rtol=1e-5)
    np.testing.assert_allclose(right.numpy(), reference(x[::-1], None)[-1], rtol=1e-5)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = tf.reduce_sum(f(xt)[0])
    # d/dx_j of sum_i acc_i, acc_i = sum_{j<=i} 0.5^(i-j) x_j (the first row starts the accumulation)
    weights = np.array([sum(0.5 ** (i - j) for i in range(j, n)) for j in range(n)], np.float32)
    np.testing.assert_allclose(tape.gradient(y, xt).numpy(), np.repeat(weights[:, None], 2, 1), rtol=1e-5)
