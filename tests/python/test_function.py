"""@ember.function: tracing, the trace cache, captures, variables, errors and
the graph executor, checked against the same code run eagerly."""

import gc
import logging
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import ember


def _np(t):
    return np.asarray(t.numpy())


def test_function_matches_eager_and_returns_tensors(mode):
    def f(x, y):
        return ember.nn.relu(ember.matmul(x, y) + 1.0) * 2.0

    g = ember.function(f)
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    y = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    got = g(ember.constant(x), ember.constant(y))
    assert isinstance(got, ember.Tensor)
    assert got.shape == (4, 5) and got.dtype == ember.float32
    np.testing.assert_allclose(_np(got), _np(f(ember.constant(x), ember.constant(y))), rtol=1e-6)


def test_numpy_inputs_and_nested_outputs(mode):
    @ember.function
    def f(x, scale):
        return {"sum": ember.reduce_sum(x) * scale, "parts": (x + 1, [x * 2])}

    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    out = f(x, 3.0)
    assert set(out) == {"sum", "parts"}
    np.testing.assert_allclose(_np(out["sum"]), 45.0)
    np.testing.assert_allclose(_np(out["parts"][0]), x + 1)
    np.testing.assert_allclose(_np(out["parts"][1][0]), x * 2)


def test_trace_cache_key_dtypes_shapes_and_python_values():
    calls = []

    @ember.function
    def f(x, n):
        calls.append(n)  # plain Python runs only while tracing
        return x * n

    a = ember.constant(np.ones((2, 3), np.float32))
    f(a, 2)
    f(a, 2)
    assert f.experimental_get_tracing_count() == 1
    f(ember.constant(np.ones((2, 3), np.float32)), 2)  # same signature, new tensor: no retrace
    assert f.experimental_get_tracing_count() == 1
    f(a, 3)  # new Python value
    f(ember.constant(np.ones((4, 3), np.float32)), 2)  # new shape
    f(ember.constant(np.ones((2, 3), np.float64)), 2)  # new dtype
    assert f.experimental_get_tracing_count() == 4
    assert calls == [2, 3, 2, 2]
    np.testing.assert_allclose(_np(f(a, 3)), 3 * np.ones((2, 3)))


def test_defaults_and_keywords_share_the_positional_trace():
    # Note [Completing simple calls]: omitted defaults and keyword arguments
    # bind to the same positional tuple, so they hit the same trace.
    @ember.function
    def f(x, training=False, scale=2.0):
        return x * scale if training else x + 1.0

    a = ember.constant(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(_np(f(a)), [2.0, 3.0])
    np.testing.assert_allclose(_np(f(a, False)), [2.0, 3.0])
    np.testing.assert_allclose(_np(f(a, training=False, scale=2.0)), [2.0, 3.0])
    np.testing.assert_allclose(_np(f(x=a)), [2.0, 3.0])
    assert f.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(_np(f(a, scale=3.0, training=True)), [3.0, 6.0])
    np.testing.assert_allclose(_np(f(a, True, 3.0)), [3.0, 6.0])
    np.testing.assert_allclose(_np(f(a, True)), [2.0, 4.0])
    np.testing.assert_allclose(_np(f(a, 1)), [2.0, 4.0])  # 1 is not True: its own trace
    assert f.experimental_get_tracing_count() == 4
    for bad, words in [(lambda: f(), "missing a required argument: 'x'"),
                       (lambda: f(a, flag=1), "unexpected keyword argument 'flag'"),
                       (lambda: f(a, x=a), "multiple values for argument 'x'"),
                       (lambda: f(a, True, 1.0, 2), "too many positional arguments")]:
        with pytest.raises(TypeError, match=words):
            bad()


def test_retrace_warning_names_the_changed_argument(caplog):
    @ember.function
    def f(x):
        return x + 1

    with caplog.at_level(logging.WARNING, logger="ember.function"):
        for n in range(1, 8):
            f(ember.constant(np.ones((n, 784), np.float32)))
    assert f.experimental_get_tracing_count() == 7
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2  # traces 6 and 7
    assert "argument x: shape (5, 784) -> (6, 784)" in messages[0]


def test_input_signature_fixes_one_trace_with_unknown_dims(mode):
    @ember.function(input_signature=[ember.TensorSpec(shape=[None, 4], dtype=ember.float32)])
    def f(x):
        return ember.reduce_sum(x, axis=1) + ember.cast(ember.shape(x)[0], ember.float32)

    for rows in (1, 3, 8):
        x = np.ones((rows, 4), np.float32)
        got = f(ember.constant(x))
        assert got.shape == (rows,)
        np.testing.assert_allclose(_np(got), x.sum(axis=1) + rows)
    assert f.experimental_get_tracing_count() == 1
    concrete = f.get_concrete_function()
    assert "[?, 4]" in concrete.graph.pretty()
    with pytest.raises(TypeError, match="input_signature"):  # TensorFlow's exception class
        f(ember.constant(np.ones((2, 5), np.float32)))


def test_input_signature_converts_python_values_to_its_dtypes():
    @ember.function(input_signature=[ember.TensorSpec([2], ember.float32), ember.TensorSpec([], ember.int32)])
    def f(x, n):
        return x * 2.0, n + 1

    x, n = f([1.0, 2.0], 3)  # tensors, as in TensorFlow: not a list repeated, not a trace constant
    np.testing.assert_allclose(_np(x), [2.0, 4.0])
    assert n.dtype == ember.int32 and int(n.numpy()) == 4
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="input_signature"):
        f([1.0, 2.0, 3.0], 1)


def test_method_input_signature_describes_the_arguments_after_self():
    class Scale(ember.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = ember.Variable(factor)

        @ember.function(input_signature=[ember.TensorSpec([None], ember.float32)])
        def __call__(self, x):
            return x * self.factor

    a, b = Scale(2.0), Scale(3.0)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(_np(a(x)), x * 2.0)
    np.testing.assert_allclose(_np(b(ember.constant(x))), x * 3.0)  # its own trace, its own variable
    concrete = b.__call__.get_concrete_function()
    assert concrete is b.__call__.get_concrete_function(ember.TensorSpec([None], ember.float32))
    np.testing.assert_allclose(_np(concrete(ember.constant(x[:2]))), x[:2] * 3.0)
    assert Scale.__call__.experimental_get_tracing_count() == 2
    with pytest.raises(TypeError, match="input_signature"):
        a(ember.constant(np.ones((2, 2), np.float32)))


def test_reduce_retracing_relaxes_shapes():
    @ember.function(reduce_retracing=True)
    def f(x):
        return x * 2

    for n in (2, 3, 4, 5, 6):
        got = f(ember.constant(np.ones((n, 3), np.float32)))
        assert got.shape == (n, 3)
    # The first shape and the relaxed [None, 3] trace serve every call.
    assert f.experimental_get_tracing_count() == 2


def test_get_concrete_function_and_pretty_graph():
    @ember.function
    def f(x):
        return ember.nn.relu(x) + 1

    concrete = f.get_concrete_function(ember.TensorSpec([2, None], ember.float32))
    text = concrete.graph.pretty()
    # relu and the add are fused into one node (Note [Element-wise fusion]).
    assert "fused_elementwise(%0, %1) {program='relu(a0); add(v0, a1)'" in text
    assert "float32[2, ?]" in text and "@cpu:0" in text
    assert "test_function.py:" in text  # the traced location of each op
    np.testing.assert_allclose(_np(concrete(ember.constant([[-1.0, 2.0], [3.0, -4.0]]))), [[1, 3], [4, 1]])


def test_graph_text_round_trips():
    @ember.function
    def f(x, y):
        return ember.matmul(x, y, transpose_b=True), ember.reduce_mean(x, axis=[0], keepdims=True) * 0.1

    concrete = f.get_concrete_function(ember.TensorSpec([3, 4]), ember.TensorSpec([5, 4]))
    text = concrete.graph.to_text()
    again = ember.function_from_text(text)
    assert again.graph.to_text() == text
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    y = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    captured = [t for kind, t in concrete._args if kind == "capture"]  # the Python scalar 0.1
    a, b = again(ember.constant(x), ember.constant(y), *captured)
    np.testing.assert_allclose(_np(a), x @ y.T, rtol=1e-5)
    np.testing.assert_allclose(_np(b), x.mean(axis=0, keepdims=True) * 0.1, rtol=1e-5)


def test_captured_tensor_becomes_an_input(mode):
    w = ember.constant(np.full((3,), 2.0, np.float32))

    @ember.function
    def f(x):
        return x * w

    np.testing.assert_allclose(_np(f(ember.constant(np.ones(3, np.float32)))), [2, 2, 2])
    kinds = [kind for kind, _ in f.get_concrete_function(ember.TensorSpec([3]))._args]
    assert kinds == ["parameter", "capture"]


def test_captured_variable_is_read_by_reference(mode):
    v = ember.Variable(np.ones(3, np.float32))

    @ember.function
    def f(x):
        return x + v

    x = ember.constant(np.zeros(3, np.float32))
    np.testing.assert_allclose(_np(f(x)), [1, 1, 1])
    v.assign([5.0, 6.0, 7.0])
    np.testing.assert_allclose(_np(f(x)), [5, 6, 7])
    assert f.experimental_get_tracing_count() == 1


def test_variable_updates_inside_a_function_in_program_order(mode):
    v = ember.Variable(np.zeros(2, np.float32))

    @ember.function
    def step(x):
        before = v.read_value()
        v.assign_add(x)
        middle = v.read_value()
        v.assign(middle * 10.0)
        return before, middle

    before, middle = step(ember.constant([1.0, 2.0]))
    np.testing.assert_allclose(_np(before), [0, 0])
    np.testing.assert_allclose(_np(middle), [1, 2])
    np.testing.assert_allclose(v.numpy(), [10, 20])
    step(ember.constant([1.0, 1.0]))
    np.testing.assert_allclose(v.numpy(), [110, 210])
    assert step.experimental_get_tracing_count() == 1


def test_nested_function_is_traced_inline(mode):
    @ember.function
    def inner(x):
        return x * 3

    @ember.function
    def outer(x):
        return inner(x) + inner(x + 1)

    np.testing.assert_allclose(_np(outer(ember.constant([1.0]))), [9.0])
    assert inner.experimental_get_tracing_count() == 0  # inlined into outer's graph


def test_run_functions_eagerly():
    seen = []

    @ember.function
    def f(x):
        seen.append(type(x))
        return x + 1

    ember.config.run_functions_eagerly(True)
    try:
        np.testing.assert_allclose(_np(f(ember.constant([1.0]))), [2.0])
        assert f.experimental_get_tracing_count() == 0
    finally:
        ember.config.run_functions_eagerly(False)


def test_shape_errors_read_the_same_as_eager():
    @ember.function
    def f(x, y):
        return ember.matmul(x, y)

    a, b = ember.constant(np.ones((2, 3), np.float32)), ember.constant(np.ones((4, 5), np.float32))
    with pytest.raises(ValueError) as eager:
        ember.matmul(a, b)
    with pytest.raises(ValueError) as traced:
        f(a, b)
    assert str(traced.value) == str(eager.value)
    with pytest.raises(TypeError, match=r"^add: .*dtype bool"):
        ember.function(lambda x: x + x)(ember.constant([True]))


def test_symbolic_tensor_cannot_be_read_while_tracing():
    @ember.function
    def f(x):
        return x.numpy()

    with pytest.raises(ValueError, match="symbolic"):
        f(ember.constant([1.0]))


def test_kernel_error_names_op_and_traced_line_and_runtime_stays_usable(mode):
    @ember.function
    def f(x):
        y = x * 2
        return ember.debugging.check_numerics(ember.log(y), "bad log")  # the failing line

    message = r"check_numerics \(traced at .*test_function.py:\d+\): bad log"
    with pytest.raises(ValueError, match=message):
        _np(f(ember.constant([-1.0])))  # sync mode raises at the call, async mode at the read
    ember.sync()  # the read reported it, as for eager ops: sync() does not raise it again
    np.testing.assert_allclose(_np(f(ember.constant([0.5]))), [0.0], atol=1e-7)


def test_creating_a_variable_at_every_call_is_an_error():
    # TensorFlow allows variables created on the first call only (Note [Variables created in functions]).
    @ember.function
    def f(x):
        return ember.Variable(x)

    with pytest.raises(ValueError, match="singleton ember.Variables created on the first call"):
        f(ember.constant([1.0]))


def test_two_threads_call_the_same_function():
    @ember.function
    def f(x):
        for _ in range(5):
            x = ember.tanh(x) + 0.5
        return x

    rng = np.random.default_rng(4)
    inputs = [rng.standard_normal((16, 16)).astype(np.float32) for _ in range(8)]
    expected = []
    for x in inputs:
        for _ in range(5):
            x = np.tanh(x) + 0.5
        expected.append(x)
    results = [None] * len(inputs)

    def work(i):
        for _ in range(20):
            results[i] = _np(f(ember.constant(inputs[i])))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, expected):
        np.testing.assert_allclose(got, want, rtol=1e-5)
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("shape", [(1000,), (300, 300)])
def test_executor_long_chain_and_wide_graph(mode, shape):
    @ember.function
    def chain(x):
        for _ in range(2000):
            x = x + 1.0
        return x

    @ember.function
    def wide(x):
        branches = [ember.exp(x * (i / 100.0)) for i in range(200)]
        return ember.add_n(branches)

    x = np.zeros(shape, np.float32)
    np.testing.assert_allclose(_np(chain(ember.constant(x))), x + 2000.0)
    want = sum(np.exp(x * np.float32(i / 100.0)) for i in range(200))
    np.testing.assert_allclose(_np(wide(ember.constant(x))), want, rtol=1e-5)


def test_random_generator_advances_on_every_call_in_program_order(mode):
    eager_gen = ember.random.Generator.from_seed(7)
    graph_gen = ember.random.Generator.from_seed(7)

    def draw(gen):
        return gen.uniform([3]), gen.normal([2])

    f = ember.function(draw)
    f.get_concrete_function(graph_gen)  # tracing draws one pair of seeds per call site...
    eager_gen.uniform([3]), eager_gen.normal([2])  # ...so the eager generator skips the same two
    for _ in range(3):
        (eu, en), (gu, gn) = draw(eager_gen), f(graph_gen)
        np.testing.assert_array_equal(_np(gu), _np(eu))
        np.testing.assert_array_equal(_np(gn), _np(en))
    assert f.experimental_get_tracing_count() == 1
    first, second = f(graph_gen), f(graph_gen)
    assert not np.array_equal(_np(first[0]), _np(second[0]))


def test_dropout_without_seed_differs_between_calls():
    f = ember.function(lambda x: ember.nn.dropout(x, 0.5))
    x = ember.constant(np.ones(1000, np.float32))
    masks = [_np(f(x)) != 0 for _ in range(3)]
    assert not np.array_equal(masks[0], masks[1]) and not np.array_equal(masks[1], masks[2])


def test_print_runs_at_every_call_in_program_order(mode, capsys):
    v = ember.Variable(1.0)

    @ember.function
    def f(x):
        print("python print: trace time only")
        ember.print("first", x)
        y = x * 2.0
        ember.print("second", y, output_stream=__import__("sys").stdout)
        v.assign_add(1.0)
        ember.print("third", v)
        return y

    f(ember.constant([1.0, 2.0]))
    ember.sync()
    captured = capsys.readouterr()
    assert captured.out == "python print: trace time only\nsecond [2 4]\n"
    assert captured.err == "first [1 2]\nthird 2\n"
    f(ember.constant([3.0, 4.0]))
    ember.sync()
    captured = capsys.readouterr()
    assert captured.out == "second [6 8]\n"
    assert captured.err == "first [3 4]\nthird 3\n"
    text = f.get_concrete_function(ember.constant([3.0, 4.0])).graph.pretty()
    assert text.count("print(") == 3 and "after(" in text  # automatic control dependencies


def test_print_eagerly_summarizes_like_numpy(capsys):
    ember.print("t =", ember.constant(np.arange(10).reshape(2, 5)), "v", ember.constant([True, False]), summarize=2)
    assert capsys.readouterr().err == "t = [[0 1 ... 3 4]\n [5 6 ... 8 9]] v [True False]\n"
    ember.print("no tensors", 3)
    assert capsys.readouterr().err == "no tensors 3\n"
    with pytest.raises(ValueError, match="output_stream"):
        ember.print("x", output_stream="file.txt")


def test_long_chain_keeps_only_its_live_set_in_memory():
    @ember.function
    def chain(x):
        for _ in range(50):
            x = ember.exp(x * 0.5)
        return x

    x = ember.constant(np.zeros(1 << 20, np.float32))  # 4 MiB
    chain(x).numpy()  # trace and warm up
    ember.sync()
    ember.config.reset_peak_memory_stats()
    before = ember.config.memory_stats()["bytes_in_use"]
    result = chain(x)
    result.numpy()
    peak = ember.config.memory_stats()["peak_bytes_in_use"] - before
    # 100 intermediate 4 MiB values; each is freed once its consumer ran.
    assert peak <= 4 * (4 << 20), f"peak {peak / 2**20:.0f} MiB"


def test_function_defined_without_source_code():
    namespace = {"ember": ember}
    exec("def f(x):\n    return ember.square(x) + 1.0\n", namespace)  # like a REPL or notebook cell
    traced = ember.function(namespace["f"])
    np.testing.assert_allclose(_np(traced(ember.constant([2.0]))), [5.0])
    assert "<string>:2" in traced.get_concrete_function(ember.constant([2.0])).graph.pretty()


def test_graph_partitions_across_logical_cpu_devices(tmp_path):
    # Logical devices exist from start-up only, so this runs in a fresh interpreter.
    script = tmp_path / "two_devices.py"
    script.write_text(
        "import numpy as np, ember\n"
        "assert ember.list_devices() == ['cpu:0', 'cpu:1'], ember.list_devices()\n"
        "x = ember.constant([1.0, 2.0])\n"
        "with ember.device('cpu:1'):\n"
        "    y = ember.exp(x)  # eagerly: reads x on cpu:0 in place\n"
        "assert y.device == 'cpu:1'\n"
        "@ember.function\n"
        "def f(x):\n"
        "    with ember.device('cpu:1'):\n"
        "        a = ember.exp(x)\n"
        "    with ember.device('cpu:0'):\n"
        "        return a * x\n"
        "np.testing.assert_allclose(f(x).numpy(), np.exp([1.0, 2.0]) * [1.0, 2.0], rtol=1e-6)\n"
        "parts = f.get_concrete_function(x).graph.partitions()\n"
        "assert parts == [('cpu:1', ['transfer', 'exp']), ('cpu:0', ['transfer', 'multiply'])], parts\n"
        "print('partitions ok')\n")
    env = dict(os.environ, EMBER_NUM_CPU_DEVICES="2")
    result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "partitions ok" in result.stdout


def test_decorated_method_and_side_effect_only_function(mode):
    class Dense:
        def __init__(self, scale):
            self.w = ember.Variable(np.full((2, 2), scale, np.float32))

        @ember.function
        def __call__(self, x):
            return ember.matmul(x, self.w)

    eye = ember.constant(np.eye(2, dtype=np.float32))
    a, b = Dense(1.0), Dense(3.0)
    np.testing.assert_allclose(_np(a(eye)), np.ones((2, 2)))
    np.testing.assert_allclose(_np(b(eye)), np.full((2, 2), 3.0))  # its own trace: self is part of the key
    a.w.assign(np.full((2, 2), 2.0, np.float32))
    np.testing.assert_allclose(_np(a(eye)), np.full((2, 2), 2.0))

    total = ember.Variable(0.0)

    @ember.function
    def accumulate(x):
        total.assign_add(ember.reduce_sum(x))  # returns nothing

    assert accumulate(ember.constant([1.0, 2.0])) is None
    accumulate(ember.constant([3.0]))
    assert float(total) == 6.0


def test_concurrent_calls_never_lose_variable_updates(mode):
    counter = ember.Variable(0.0)

    @ember.function
    def bump(x):
        counter.assign_add(x)
        return counter.read_value()

    def work():
        for _ in range(100):
            bump(ember.constant(1.0))
            counter.assign_add(1.0)  # eager updates interleave with the calls

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert float(counter) == 800.0


def test_a_queued_call_outlives_the_function_objects_it_uses(async_mode):
    # The graph names its while_loop graphs by id; the queued call must keep
    # them alive after the Function (here a temporary) is gone
    # (Note [Function lifetime]).
    def grad(x):
        with ember.GradientTape() as tape:
            tape.watch(x)
            y = ember.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * x), [ember.constant(0), x])[1]
        return tape.gradient(y, x)

    y = ember.function(grad)(ember.constant([3.0]))
    gc.collect()
    np.testing.assert_allclose(y.numpy(), [27.0])


def test_trace_keys_stay_distinct_across_many_shapes_and_dtypes():
    # Note [Tensor key cache]: 64 cached key tuples serve any number of
    # shapes; a slot holding another shape's key must never be taken for this one.
    f = ember.function(lambda a: a * 2)
    # 100 keys: more than the cache's slots, fewer than the trace cache's bound (128).
    shapes = [[n] for n in range(1, 35)] + [[n, 2] for n in range(1, 16)] + [[]]
    assert 2 * len(shapes) <= ember.config.get_trace_cache_capacity()
    for _ in range(2):
        for shape in shapes:
            for dtype in ("float32", "int32"):
                out = f(ember.ones(shape, dtype=dtype))
                assert out.shape.as_list() == shape and out.dtype.name == dtype
                np.testing.assert_array_equal(out.numpy(), np.full(shape, 2, dtype))
    assert f.experimental_get_tracing_count() == 2 * len(shapes)  # the second round traced nothing
