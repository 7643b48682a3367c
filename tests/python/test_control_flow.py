"""ember.cond and ember.while_loop, eagerly and inside @ember.function."""

import numpy as np
import pytest

import ember


def _np(t):
    return np.asarray(t.numpy())


def _sum_to(n):
    i, total = ember.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i + 1),
                                [ember.constant(0), ember.constant(0)])
    return total


def test_while_loop_sums_one_to_n_eagerly_and_in_a_function(mode):
    assert int(_sum_to(ember.constant(10))) == 55
    f = ember.function(_sum_to)
    for n in (0, 1, 10, 100):
        assert int(f(ember.constant(n))) == n * (n + 1) // 2
    assert f.experimental_get_tracing_count() == 1  # n is a tensor: one graph for every n
    assert "while_loop(" in f.get_concrete_function(ember.constant(3)).graph.pretty()


def test_while_loop_with_a_fixed_shape_tensor(mode):
    def double_until(x, limit):
        return ember.while_loop(lambda v: ember.reduce_sum(v) < limit, lambda v: v * 2.0, x)

    x = np.array([1.0, 2.0, 0.5], np.float32)
    eager = double_until(ember.constant(x), 100.0)
    graph = ember.function(double_until)(ember.constant(x), 100.0)
    np.testing.assert_allclose(_np(eager), x * 32)
    np.testing.assert_allclose(_np(graph), x * 32)
    assert graph.shape == (3,)


def test_while_loop_shape_change_is_a_clear_error(mode):
    def grow(x):
        return ember.while_loop(lambda v: ember.size(v) < 8, lambda v: ember.concat([v, v], axis=0), x)

    with pytest.raises(ValueError, match=r"while_loop: loop variable 0 has shape \(2,\) before the loop but "
                                         r"\(4,\) after iteration 1; pass shape_invariants"):
        grow(ember.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"while_loop: loop variable 0 has shape \(2,\) .*shape_invariants"):
        ember.function(grow)(ember.constant([1.0, 2.0]))


def test_while_loop_shape_invariants_allow_growth_eagerly_and_inside_a_function(mode):
    def grow(x):
        return ember.while_loop(lambda v: ember.size(v) < 8, lambda v: ember.concat([v, v], axis=0), x,
                                shape_invariants=[ember.TensorSpec([None])])

    np.testing.assert_allclose(_np(grow(ember.constant([1.0, 2.0]))), [1, 2] * 4)

    @ember.function
    def total(x):
        return ember.reduce_sum(grow(x))  # the grown tensor stays inside the graph

    np.testing.assert_allclose(_np(total(ember.constant([1.0, 2.0]))), 12.0)
    with pytest.raises(NotImplementedError, match="known only at run time"):
        ember.function(grow)(ember.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="shape invariant"):
        ember.while_loop(lambda v: ember.size(v) < 8, lambda v: v, ember.constant([1.0, 2.0]),
                         shape_invariants=[[3]])


def test_while_loop_maximum_iterations_and_captures(mode):
    step = ember.constant(3)

    @ember.function
    def f(x):
        return ember.while_loop(lambda v: v < 1000, lambda v: v + step, x, maximum_iterations=4)

    assert int(f(ember.constant(1))) == 13
    assert int(ember.while_loop(lambda v: v < 1000, lambda v: v + step, ember.constant(1),
                                maximum_iterations=4)) == 13


def test_cond_eagerly_runs_only_the_chosen_branch():
    ran = []
    out = ember.cond(ember.constant(False), lambda: ran.append("t") or ember.constant(1.0),
                     lambda: ran.append("f") or ember.constant(2.0))
    assert float(out) == 2.0 and ran == ["f"]


def test_cond_in_a_function_picks_at_run_time(mode):
    @ember.function
    def f(x):
        return ember.cond(ember.reduce_sum(x) > 0, lambda: (x * 2.0, x + 1.0), lambda: (x - 1.0, x * 0.0))

    a, b = f(ember.constant([1.0, 2.0]))
    np.testing.assert_allclose(_np(a), [2, 4])
    np.testing.assert_allclose(_np(b), [2, 3])
    a, b = f(ember.constant([-1.0, -2.0]))
    np.testing.assert_allclose(_np(a), [-2, -3])
    np.testing.assert_allclose(_np(b), [0, 0])
    assert f.experimental_get_tracing_count() == 1


def test_cond_with_a_python_pred_inside_a_function_is_static():
    @ember.function
    def f(x, flag):
        return ember.cond(flag, lambda: x + 1.0, lambda: x - 1.0)

    assert float(f(ember.constant(1.0), True)) == 2.0
    assert "cond(" not in f.get_concrete_function(ember.constant(1.0), True).graph.pretty()


def test_cond_branches_must_agree():
    @ember.function
    def f(x):
        return ember.cond(x > 0, lambda: ember.constant([1.0, 2.0]), lambda: ember.constant([1.0]))

    with pytest.raises(ValueError, match=r"^cond: output 0 is float32\[2\] in true_fn but float32\[1\] in false_fn"):
        f(ember.constant(1.0))


def test_cond_and_while_read_variables_by_reference(mode):
    v = ember.Variable(10.0)

    @ember.function
    def f(x):
        return ember.cond(x > 0, lambda: x + v, lambda: x - v)

    assert float(f(ember.constant(1.0))) == 11.0
    v.assign(20.0)
    assert float(f(ember.constant(-1.0))) == -21.0



def test_variable_assignments_inside_cond_and_while_loop(mode):
    v = ember.Variable(0.0)
    steps = ember.Variable(0)

    def step(x):
        ember.cond(x > 0, lambda: v.assign_add(x).read_value(), lambda: x)  # only the true branch assigns
        i = ember.while_loop(lambda i: i < 3, lambda i: (steps.assign_add(1), i + 1)[1], ember.constant(0))
        return v.read_value() * 1.0, i

    f = ember.function(step)
    total, i = f(ember.constant(2.0))
    assert float(total) == 2.0 and int(i) == 3 and int(steps) == 3
    total, _ = f(ember.constant(-5.0))  # false branch: v passes through unchanged
    assert float(total) == 2.0 and float(v) == 2.0 and int(steps) == 6
    step(ember.constant(1.0))  # the same code eagerly
    assert float(v) == 3.0 and int(steps) == 9
    assert f.experimental_get_tracing_count() == 1


def test_kernel_error_inside_a_loop_body_names_the_op(mode):
    @ember.function
    def f(x):
        return ember.while_loop(lambda v: ember.reduce_sum(v) < 10.0,
                                lambda v: ember.debugging.check_numerics(ember.log(v) + v + 1.0, "in body"), x)

    with pytest.raises(ValueError, match="check_numerics.*in body"):
        _np(f(ember.constant([-1.0])))
    ember.sync()  # the read reported it: sync() does not raise it again
    np.testing.assert_allclose(_np(f(ember.constant([1.0]))).shape, (1,))


# Note [Effects in control flow] (graph/graph_function.h): a cond or loop
# whose results nobody reads still runs when a branch prints, in program
# order with the other prints, and two equal printing conds both print.
def test_printing_control_flow_with_unused_results_runs_in_order(capfd):
    import sys

    @ember.function(autograph=False)
    def f(x):
        ember.print("a", output_stream=sys.stdout)
        ember.cond(x > 0, lambda: (ember.print("b", output_stream=sys.stdout), x)[1], lambda: x)
        ember.cond(x > 0, lambda: (ember.print("b", output_stream=sys.stdout), x)[1], lambda: x)
        ember.while_loop(lambda i: i < 2, lambda i: (ember.print("l", i, output_stream=sys.stdout), i + 1)[1],
                         [ember.constant(0)])
        ember.print("c", output_stream=sys.stdout)
        return x

    f(ember.constant(1))
    ember.sync()
    assert capfd.readouterr().out.split() == ["a", "b", "b", "l", "0", "l", "1", "c"]
