"""Gradients through ember.while_loop and ember.cond, eagerly and inside
@ember.function (Note [while_loop gradients], Note [cond gradients])."""

import numpy as np
import pytest

import ember


def _f64(values):
    return ember.constant(np.asarray(values, np.float64))


def _loop(x, b, steps, maximum_iterations=None):
    """A loop with two float loop variables that feed each other, a
    captured tensor (x) and an integer counter."""
    def body(i, a, c):
        return i + 1, a * x + ember.sin(c), c * 1.5 + a * 0.1

    _, a, c = ember.while_loop(lambda i, a, c: i < steps, body, [ember.constant(0), ember.ones_like(x), b],
                               maximum_iterations=maximum_iterations)
    return ember.reduce_sum(a * a) + ember.reduce_sum(ember.tanh(c))


def _grads(x, b, steps, maximum_iterations=None):
    with ember.GradientTape() as tape:
        tape.watch([x, b])
        y = _loop(x, b, steps, maximum_iterations)
    return tape.gradient(y, [x, b], unconnected_gradients="zero")


def _finite_differences(x, b, steps, maximum_iterations=None, eps=1e-6):
    def value(xv, bv):
        return float(_loop(_f64(xv), _f64(bv), steps, maximum_iterations))

    out = []
    for which in range(2):
        base = [x.numpy().copy(), b.numpy().copy()]
        grad = np.zeros_like(base[which])
        for k in range(grad.size):
            up = [v.copy() for v in base]
            down = [v.copy() for v in base]
            up[which].flat[k] += eps
            down[which].flat[k] -= eps
            grad.flat[k] = (value(*up) - value(*down)) / (2 * eps)
        out.append(grad)
    return out


@pytest.mark.parametrize("steps, maximum_iterations", [(4, None), (4, 10), (4, 2), (0, None), (0, 3)])
def test_while_loop_gradient_matches_finite_differences_eagerly_and_in_a_function(steps, maximum_iterations):
    x, b = _f64([0.5, -0.3]), _f64([0.2, 0.7])
    want = _finite_differences(x, b, steps, maximum_iterations)
    eager = _grads(x, b, steps, maximum_iterations)
    graph = ember.function(lambda x, b: _grads(x, b, steps, maximum_iterations))(x, b)
    for e, g, w in zip(eager, graph, want):
        np.testing.assert_allclose(e.numpy(), w, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-12)


def test_while_loop_gradient_with_a_symbolic_trip_count():
    @ember.function
    def grads(x, steps):
        with ember.GradientTape() as tape:
            tape.watch(x)
            y = ember.while_loop(lambda i, a: i < steps, lambda i, a: (i + 1, a * x),
                                 [ember.constant(0), ember.ones_like(x)])[1]
        return tape.gradient(y, x)

    x = ember.constant([2.0, 3.0])
    for n in (0, 1, 3, 5):
        want = n * x.numpy() ** (n - 1) if n else np.zeros(2)
        np.testing.assert_allclose(grads(x, ember.constant(n)).numpy(), want, rtol=1e-6)
    assert grads.experimental_get_tracing_count() == 1


def _cube_loop(x):
    return ember.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x),
                            [ember.constant(0), ember.ones_like(x)])[1]


def test_function_with_a_loop_called_under_an_eager_tape():
    f = ember.function(_cube_loop)
    x = ember.constant([2.0, 3.0])
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 3 * x.numpy() ** 2, rtol=1e-6)


@pytest.mark.parametrize("in_function", [False, True])
def test_second_order_through_while_loop(in_function):
    def second(x):
        with ember.GradientTape() as outer:
            outer.watch(x)
            with ember.GradientTape() as inner:
                inner.watch(x)
                y = _cube_loop(x)
            g = inner.gradient(y, x)
        return g, outer.gradient(g, x)

    x = ember.constant([2.0, 3.0])
    g, h = (ember.function(second) if in_function else second)(x)
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2, rtol=1e-6)
    np.testing.assert_allclose(h.numpy(), 6 * x.numpy(), rtol=1e-6)


def test_variable_read_in_a_loop_body_gets_its_gradient():
    v = ember.Variable([1.0, 2.0])

    def grad(x):
        with ember.GradientTape() as tape:
            y = ember.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * v), [ember.constant(0), x])[1]
        return tape.gradient(y, v)

    x = ember.constant([3.0, 4.0])
    want = 2 * x.numpy() * v.numpy()
    np.testing.assert_allclose(grad(x).numpy(), want)
    np.testing.assert_allclose(ember.function(grad)(x).numpy(), want)


@pytest.mark.parametrize("p, want", [(1.0, [2.0, 4.0]), (-1.0, [1.0, 1.0])])
def test_variable_read_in_a_cond_branch_gets_its_gradient(p, want):
    v = ember.Variable([1.0, 2.0])

    @ember.function
    def grad(p):
        with ember.GradientTape() as tape:
            y = ember.cond(p > 0, lambda: ember.reduce_sum(v * v), lambda: ember.reduce_sum(v))
        return tape.gradient(y, v)

    np.testing.assert_allclose(grad(ember.constant(p)).numpy(), want)


def test_back_prop_false_stops_the_gradient():
    def grad(x):
        with ember.GradientTape() as tape:
            tape.watch(x)
            y = ember.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * x), [ember.constant(0), x],
                                 back_prop=False)[1]
        return tape.gradient(y, x, unconnected_gradients="zero")

    x = ember.constant([3.0])
    assert float(grad(x)[0]) == 0.0
    assert float(ember.function(grad)(x)[0]) == 0.0


def test_loop_that_assigns_a_variable_raises_when_differentiated():
    v = ember.Variable(0.0)

    @ember.function
    def grad(x):
        with ember.GradientTape() as tape:
            tape.watch(x)
            def body(i, a):
                v.assign_add(1.0)
                return i + 1, a * x
            y = ember.while_loop(lambda i, a: i < 2, body, [ember.constant(0), x])[1]
        return tape.gradient(y, x)

    with pytest.raises(ValueError, match="while_loop: .*assigns variables"):
        grad(ember.constant(2.0))


def test_loop_with_a_changing_shape_raises_when_differentiated():
    @ember.function
    def grad(x):
        with ember.GradientTape() as tape:
            tape.watch(x)
            y = ember.while_loop(lambda a: ember.size(a) < 8, lambda a: ember.concat([a, a], 0), x,
                                 shape_invariants=[None])
        return tape.gradient(y, x)

    with pytest.raises(ValueError, match="while_loop: .*fixed shape"):
        grad(ember.constant([1.0, 2.0]))
    # Eagerly the same loop is Python, and differentiates.
    with ember.GradientTape() as tape:
        x = ember.constant([1.0, 2.0])
        tape.watch(x)
        y = ember.while_loop(lambda a: ember.size(a) < 8, lambda a: ember.concat([a, a], 0), x,
                             shape_invariants=[None])
        s = ember.reduce_sum(y)
    np.testing.assert_allclose(tape.gradient(s, x).numpy(), [4.0, 4.0])


def test_loop_training_step_as_one_function_lowers_the_loss():
    # A tiny recurrent model: h <- tanh(h @ w + x_t), unrolled by a while_loop.
    rng = np.random.default_rng(0)
    xs = ember.constant(rng.normal(size=(5, 3, 4)).astype(np.float32))
    target = ember.constant(rng.normal(size=(3, 4)).astype(np.float32) * 0.5)
    w = ember.Variable(rng.normal(size=(4, 4)).astype(np.float32) * 0.3)
    opt = ember.optimizers.SGD(0.2)

    @ember.function
    def step():
        with ember.GradientTape() as tape:
            def body(t, h):
                return t + 1, ember.tanh(ember.matmul(h, w) + ember.gather(xs, t))
            _, h = ember.while_loop(lambda t, h: t < 5, body, [ember.constant(0), ember.zeros([3, 4])])
            loss = ember.reduce_mean(ember.square(h - target))
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        return loss

    losses = [float(step()) for _ in range(20)]
    assert losses[-1] < losses[0] * 0.9, losses
