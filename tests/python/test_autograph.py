"""@ember.function(autograph=True): Python if/for/while on traced tensors
become cond and while_loop ops (Note [AutoGraph] in ember/_autograph).

Each converted function is called with several values through one trace,
so the branch or trip count must be decided in the graph, not at trace time.
"""

import numpy as np
import pytest

import ember
from ember import errors


def _f32(*values):
    return ember.constant(np.array(values, np.float32))


def test_if_on_a_tensor_picks_the_branch_at_run_time():
    @ember.function(autograph=True)
    def signed_double(x):
        if ember.reduce_sum(x) > 0:
            y = x * 2.0
        else:
            y = -x
        return y

    np.testing.assert_array_equal(signed_double(_f32(1, 2)).numpy(), [2, 4])
    np.testing.assert_array_equal(signed_double(_f32(-1, -2)).numpy(), [1, 2])
    assert signed_double.experimental_get_tracing_count() == 1


def test_if_without_else_keeps_the_value_from_before():
    @ember.function(autograph=True)
    def clip_small(x, limit):
        y = x
        if limit < 0.0:
            y = ember.zeros_like(x)
        return y + 1.0

    np.testing.assert_array_equal(clip_small(_f32(3), ember.constant(1.0)).numpy(), [4])
    np.testing.assert_array_equal(clip_small(_f32(3), ember.constant(-1.0)).numpy(), [1])
    assert clip_small.experimental_get_tracing_count() == 1


def test_for_over_ember_range_of_a_tensor_is_one_loop():
    @ember.function(autograph=True)
    def triangle(n):
        total = ember.constant(0)
        for i in ember.range(n):
            total = total + i
        return total

    for n in (0, 1, 5, 10):
        assert int(triangle(ember.constant(n))) == n * (n - 1) // 2
    assert triangle.experimental_get_tracing_count() == 1


def test_for_over_ember_range_with_start_and_delta():
    @ember.function(autograph=True)
    def total(start, limit):
        acc = ember.constant(0)
        for i in ember.range(start, limit, 3):
            acc = acc + i
        return acc

    assert int(total(ember.constant(2), ember.constant(12))) == sum(range(2, 12, 3))
    assert int(total(ember.constant(5), ember.constant(5))) == 0


def test_for_over_a_tensor_visits_its_rows():
    @ember.function(autograph=True)
    def row_sum(m):
        acc = ember.zeros([3])
        for row in m:
            acc = acc + row
        return acc

    m = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(row_sum(ember.constant(m)).numpy(), m.sum(axis=0))


def test_while_on_a_tensor():
    @ember.function(autograph=True)
    def collatz_steps(n):
        steps = ember.constant(0)
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps = steps + 1
        return steps

    for n, expected in ((1, 0), (6, 8), (27, 111)):
        assert int(collatz_steps(ember.constant(n))) == expected
    assert collatz_steps.experimental_get_tracing_count() == 1


def test_a_break_inside_an_inner_python_loop_stays_there():
    @ember.function(autograph=True)
    def f(n):
        total = ember.constant(0)
        j = 0  # set in the body, so it needs a value before the loop (no liveness analysis)
        for i in ember.range(n):  # converted: the break below leaves only the inner loop
            for j in range(10):
                if j == 2:
                    break
                total = total + i
        return total

    assert int(f(ember.constant(4))) == 2 * (0 + 1 + 2 + 3)
    assert int(f(ember.constant(5))) == 2 * 10
    assert f.experimental_get_tracing_count() == 1


def test_python_values_keep_python_semantics():
    calls = []

    @ember.function(autograph=True)
    def unrolled(x):
        for _ in range(3):  # a Python range: unrolled at trace time, as in TensorFlow
            calls.append(1)
            x = x + 1.0
        if x.shape[0] == 2:  # a static shape: decided at trace time
            x = x * 10.0
        return x

    np.testing.assert_array_equal(unrolled(_f32(1, 2)).numpy(), [40, 50])
    assert len(calls) == 3


def test_closures_defaults_and_nested_statements():
    scale = 3.0

    @ember.function(autograph=True)
    def f(x, offset=1.0):
        acc = ember.zeros_like(x)
        for i in ember.range(ember.shape(x)[0]):
            if i % 2 == 0:
                acc = acc + x * scale
            else:
                acc = acc - offset
        return acc

    x = _f32(1, 2, 3)
    expected = np.zeros(3, np.float32)
    for i in range(3):
        expected = expected + np.float32([1, 2, 3]) * 3 if i % 2 == 0 else expected - 1
    np.testing.assert_allclose(f(x).numpy(), expected)


def test_gradient_through_a_converted_if():
    @ember.function(autograph=True)
    def f(x):
        if ember.reduce_sum(x) > 0:
            y = x * x
        else:
            y = x * 3.0
        return ember.reduce_sum(y)

    for values, expected in (([1.0, 2.0], [2.0, 4.0]), ([-1.0, -2.0], [3.0, 3.0])):
        x = _f32(*values)
        with ember.GradientTape() as tape:
            tape.watch(x)
            loss = f(x)
        np.testing.assert_allclose(tape.gradient(loss, x).numpy(), expected)


def test_on_by_default_as_in_tensorflow():
    @ember.function
    def f(x):
        if ember.reduce_sum(x) > 0:
            x = -x
        return x

    np.testing.assert_array_equal(f(_f32(1)).numpy(), [-1])
    np.testing.assert_array_equal(f(_f32(-2)).numpy(), [-2])
    assert f.experimental_get_tracing_count() == 1


def test_off_when_asked_with_a_hint():
    @ember.function(autograph=False)
    def f(x):
        if ember.reduce_sum(x) > 0:
            x = -x
        return x

    with pytest.raises(errors.OperatorNotAllowedInGraphError, match=r"autograph=True"):
        f(_f32(1))


def test_variable_set_in_one_branch_only():
    @ember.function(autograph=True)
    def f(x):
        if ember.reduce_sum(x) > 0:
            fresh = x
        return fresh

    with pytest.raises(ValueError, match=r"'fresh' is set in only one branch"):
        f(_f32(1))

    @ember.function
    def g(x):  # read nowhere after the if: the branch's own temporary, as in TensorFlow
        if ember.reduce_sum(x) > 0:
            fresh = x * 2.0
            x = fresh + 1.0
        return x

    np.testing.assert_array_equal(g(_f32(1)).numpy(), [3])
    np.testing.assert_array_equal(g(_f32(-1)).numpy(), [-1])


def test_loop_variable_needs_a_value_before_a_tensor_loop():
    @ember.function(autograph=True)
    def f(n):
        for i in ember.range(n):
            last = i
        return last

    with pytest.raises(ValueError, match=r"'last' must have a value before a for loop"):
        f(ember.constant(3))


# Note [Early returns]: one trace serves both signs, so the return is
# chosen in the graph.
def test_early_return_from_an_if_picks_the_value_at_run_time():
    @ember.function(autograph=True)
    def f(x):
        if ember.reduce_sum(x) > 0:
            return x * 2.0
        return -x

    np.testing.assert_array_equal(f(_f32(1, 2)).numpy(), [2, 4])
    np.testing.assert_array_equal(f(_f32(-3, 1)).numpy(), [3, -1])
    assert f.experimental_get_tracing_count() == 1


def test_nested_early_returns_and_code_after_them():
    @ember.function(autograph=True)
    def f(x, fast):
        y = x + 1.0
        if fast:  # a Python value: decided at trace time
            return y
        if ember.reduce_sum(x) > 10.0:
            z = y * 3.0
            if ember.reduce_sum(x) > 100.0:
                return z + 1.0
        else:
            z = y
        return z * 2.0

    for v in (1.0, 50.0, 500.0):
        y = v + 1
        z = y * 3 if v > 10 else y
        want = z + 1 if v > 100 else z * 2
        np.testing.assert_allclose(f(_f32(v), False).numpy(), [want])
        np.testing.assert_allclose(f(_f32(v), True).numpy(), [y])


def test_early_return_inside_a_loop_is_left_as_python():
    @ember.function(autograph=True)
    def f(x):
        for _ in range(3):
            if ember.reduce_sum(x) > 0:
                return x
        return -x

    with pytest.raises(errors.OperatorNotAllowedInGraphError, match=r"test_autograph.py:\d+"):
        f(_f32(1))


def test_source_less_function_warns_and_runs_unconverted():
    with pytest.warns(UserWarning, match="autograph could not convert"):
        f = ember.function(lambda x: x + 1.0, autograph=True)
    np.testing.assert_array_equal(f(_f32(1)).numpy(), [2])


def test_errors_in_a_converted_body_name_the_users_line():
    @ember.function(autograph=True)
    def f(x):
        if ember.reduce_sum(x) > 0:
            y = ember.reshape(x, [5])  # the failing line
        else:
            y = x
        return y

    with pytest.raises(errors.InvalidArgumentError) as info:
        f(_f32(1, 2))
    lines = [entry.lineno for entry in info.traceback if entry.path.name == "test_autograph.py"]
    source = open(__file__).read().splitlines()
    assert any("the failing line" in source[n] for n in lines), lines


def test_bound_methods_and_super_keep_working_when_converted_by_default():
    class Model(ember.Module):
        def __init__(self):
            super().__init__()
            self.k = ember.constant(2.0)

        def call(self, x):
            if ember.reduce_sum(x) > 0:
                x = x * self.k
            return x

        @ember.function
        def __call__(self, x):  # zero-argument super(): traced as written, unconverted
            return super().__call__(x) if False else x * self.k

    m = Model()
    f = ember.function(m.call)  # tf.function(model.call)
    np.testing.assert_array_equal(f(_f32(3)).numpy(), [6])
    np.testing.assert_array_equal(f(_f32(-3)).numpy(), [-3])
    np.testing.assert_array_equal(m(_f32(1)).numpy(), [2])


def test_loop_temporaries_need_no_value_before_the_loop():
    # As in TensorFlow's AutoGraph: `v` is set in the body and read nowhere outside the loop.
    @ember.function
    def f(x):
        ta = ember.TensorArray(ember.float32, size=4)
        for i in ember.range(4):
            if i % 2 == 0:
                v = x * 2.0
            else:
                v = -x
            ta = ta.write(i, v)
        total = ember.constant(0.0)
        for row in x:
            doubled = row * 2.0
            total = total + doubled
        return ta.stack(), total

    stacked, total = f(_f32(1, 2))
    np.testing.assert_array_equal(stacked.numpy(), [[2, 4], [-1, -2], [2, 4], [-1, -2]])
    assert float(total) == 6.0

    @ember.function
    def g(n):
        i = ember.constant(0)
        while i < n:
            step = ember.constant(1)
            i = i + step
        return i

    assert int(g(ember.constant(3))) == 3


def test_each_branch_is_traced_once():
    traced = []

    @ember.function
    def f(x):
        if ember.reduce_sum(x) > 0:
            traced.append("true")
            y, z = x, -x
        else:
            traced.append("false")
            y, z = -x, x
        return y + 2 * z

    np.testing.assert_array_equal(f(_f32(1)).numpy(), [-1])
    assert sorted(traced) == ["false", "true"]
