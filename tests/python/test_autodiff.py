"""ember.GradientTape's semantics, checked against TensorFlow's documented behaviour."""

import threading

import numpy as np
import pytest

import ember


def c(value, dtype="float64"):
    return ember.constant(np.asarray(value, dtype=dtype))


def test_watched_tensor_square():
    x = c([1.0, 2.0, 3.0])
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = ember.reduce_sum(x * x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0, 6.0])


def test_unwatched_tensor_gives_none():
    x = c(3.0)
    with ember.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_non_persistent_tape_second_gradient_raises():
    x = c(3.0)
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        tape.gradient(y, x)


def test_persistent_tape_many_gradients():
    x = c(3.0)
    with ember.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert float(tape.gradient(z, x)) == pytest.approx(108.0)  # 4 x^3
    assert float(tape.gradient(y, x)) == pytest.approx(6.0)


def test_trainable_variables_are_watched_automatically():
    v = ember.Variable(np.array([1.0, -2.0]))
    frozen = ember.Variable(np.array([5.0]), trainable=False)
    with ember.GradientTape() as tape:
        loss = ember.reduce_sum(v * v) + ember.reduce_sum(frozen * v)
    gv, gf = tape.gradient(loss, [v, frozen])
    np.testing.assert_allclose(gv.numpy(), [2.0 + 5.0, -4.0 + 5.0])
    assert gf is None
    assert tape.watched_variables() == (v,)


def test_watch_accessed_variables_false():
    v = ember.Variable(2.0)
    w = ember.Variable(3.0)
    with ember.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = v * w
    gv, gw = tape.gradient(y, [v, w])
    assert gv is None
    assert float(gw) == pytest.approx(2.0)


def test_unconnected_gradients():
    x, z = c(1.0), c([1.0, 2.0])
    with ember.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * 2.0
    assert tape.gradient(y, z) is None
    zeros = tape.gradient(y, z, unconnected_gradients="zero")
    np.testing.assert_array_equal(zeros.numpy(), [0.0, 0.0])
    zeros = tape.gradient(y, z, unconnected_gradients=ember.UnconnectedGradients.ZERO)
    assert zeros.shape == (2,)
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(y, z, unconnected_gradients="maybe")


def test_integer_target_and_source_give_none():
    i = ember.constant(np.array([1, 2], dtype=np.int32))
    x = c([1.0, 2.0])
    with ember.GradientTape(persistent=True) as tape:
        tape.watch([i, x])
        yi = i * 3
        y = ember.reduce_sum(x * ember.cast(i, "float64"))
    assert tape.gradient(yi, i) is None
    gi, gx = tape.gradient(y, [i, x])
    assert gi is None
    np.testing.assert_allclose(gx.numpy(), [1.0, 2.0])


def test_gradient_through_cast():
    x = c([1.5, 2.5], "float32")
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = ember.reduce_sum(ember.cast(x, "float64") ** 2)
    g = tape.gradient(y, x)
    assert g.dtype == ember.float32
    np.testing.assert_allclose(g.numpy(), [3.0, 5.0])


def test_mixed_dtypes_promote_through_the_recorded_cast():
    x = c([2.0], "float32")
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = x * c([3.0], "float64")  # x is cast to float64 by the op
    g = tape.gradient(y, x)
    assert g.dtype == ember.float32
    np.testing.assert_allclose(g.numpy(), [3.0])


def test_stop_gradient_and_stop_recording():
    x = c(2.0)
    with ember.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = ember.stop_gradient(x * x) * x
        with tape.stop_recording():
            z = x * x
        w = z * x
    assert float(tape.gradient(y, x)) == pytest.approx(4.0)
    assert float(tape.gradient(w, x)) == pytest.approx(4.0)  # z is a constant for the tape


def test_reset_forgets_records():
    x = c(2.0)
    with ember.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        z = x * x * x
    assert tape.gradient(y, x) is None
    assert float(tape.gradient(z, x)) == pytest.approx(12.0)


def test_nested_tapes_second_order():
    x = c(3.0)
    with ember.GradientTape() as outer:
        outer.watch(x)
        with ember.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)  # 3 x^2, recorded by the outer tape
    d2y = outer.gradient(dy, x)
    assert float(dy) == pytest.approx(27.0)
    assert float(d2y) == pytest.approx(18.0)  # 6 x


def test_second_order_of_matmul_and_tanh():
    a = np.array([[0.3, -0.2], [0.1, 0.4]])
    x = c(a)
    with ember.GradientTape() as outer:
        outer.watch(x)
        with ember.GradientTape() as inner:
            inner.watch(x)
            y = ember.reduce_sum(ember.tanh(ember.matmul(x, x)))
        g = inner.gradient(y, x)
        s = ember.reduce_sum(g)
    h = outer.gradient(s, x).numpy()

    def first(m):
        t = np.tanh(m @ m)
        d = 1 - t * t
        return d @ m.T + m.T @ d

    eps = 1e-6
    want = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        p, m = a.copy(), a.copy()
        p[idx] += eps
        m[idx] -= eps
        want[idx] = (first(p).sum() - first(m).sum()) / (2 * eps)
    np.testing.assert_allclose(h, want, rtol=1e-5, atol=1e-7)


def test_output_gradients_and_nested_structures():
    x = c([1.0, 2.0])
    y = c(3.0)
    with ember.GradientTape() as tape:
        tape.watch([x, y])
        out = {"a": x * y, "b": y * y}
    grads = tape.gradient(out, {"x": x, "y": y}, output_gradients={"a": c([1.0, 10.0]), "b": c(2.0)})
    assert set(grads) == {"x", "y"}
    np.testing.assert_allclose(grads["x"].numpy(), [3.0, 30.0])
    assert float(grads["y"]) == pytest.approx(1.0 + 20.0 + 2.0 * 6.0)


def test_custom_gradient():
    @ember.custom_gradient
    def clip_grad_identity(x):
        def grad(dy):
            return ember.clip_by_value(dy, -0.5, 0.5)
        return ember.identity(x), grad

    x = c([1.0, 2.0])
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = ember.reduce_sum(clip_grad_identity(x) * c([3.0, 0.1]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, 0.1])


def test_custom_gradient_stable_log1pexp():
    @ember.custom_gradient
    def log1pexp(x):
        e = ember.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return ember.math.log(1 + e), grad

    x = c(100.0)
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(tape.gradient(y, x)) == pytest.approx(1.0)


def test_jacobian_and_batch_jacobian():
    a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    x = c(a)
    w = c([[1.0, -1.0, 0.5], [2.0, 0.0, 1.0]])
    with ember.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = ember.matmul(x, w)  # [3, 3]
    jac = tape.jacobian(y, x).numpy()
    assert jac.shape == (3, 3, 3, 2)
    want = np.zeros((3, 3, 3, 2))
    for i in range(3):
        for j in range(3):
            want[i, j, i, :] = w.numpy()[:, j]
    np.testing.assert_allclose(jac, want)
    bj = tape.batch_jacobian(y, x).numpy()
    assert bj.shape == (3, 3, 2)
    np.testing.assert_allclose(bj, np.stack([want[i, :, i, :] for i in range(3)]))


def test_gather_gradient_adds_duplicates():
    params = c([1.0, 2.0, 3.0])
    with ember.GradientTape() as tape:
        tape.watch(params)
        g = ember.gather(params, ember.constant(np.array([2, 0, 2], dtype=np.int32)))
        y = ember.reduce_sum(g * c([1.0, 10.0, 100.0]))
    np.testing.assert_allclose(tape.gradient(y, params).numpy(), [10.0, 0.0, 101.0])


@pytest.mark.parametrize("async_mode", [True, False])
def test_donation_never_overwrites_a_saved_value(async_mode):
    # exp's output is a temporary the multiply could take over; the tape
    # saved it for exp's gradient, so it must survive.
    previous = ember.config.is_async()
    ember.config.set_async(async_mode)
    try:
        x = c(np.linspace(-1, 1, 1000))
        with ember.GradientTape() as tape:
            tape.watch(x)
            y = ember.reduce_sum(ember.exp(x) * 3.0)
        g = tape.gradient(y, x).numpy()
    finally:
        ember.config.set_async(previous)
    np.testing.assert_allclose(g, 3.0 * np.exp(np.linspace(-1, 1, 1000)), rtol=1e-12)


def test_tapes_in_several_threads_do_not_mix():
    errors = []

    def work(scale):
        try:
            v = ember.Variable(np.full(3, float(scale)))
            for _ in range(20):
                with ember.GradientTape() as tape:
                    loss = ember.reduce_sum(v * v * scale)
                g = tape.gradient(loss, v).numpy()
                np.testing.assert_allclose(g, 2.0 * scale * scale * np.ones(3))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in (1, 2, 3, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_missing_gradient_raises_lookup_error():
    # Every op declares a gradient but the graph ops, which ember.function,
    # cond and while_loop differentiate where they build them. A raw call
    # of one reaches the tape without that.
    x = c([1.0, 2.0])
    concrete = ember.function(lambda v: v * v).get_concrete_function(x)
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = ember.raw_ops.call_function([x], concrete._graph.function_id)[0]
    with pytest.raises(LookupError, match="call_function"):
        tape.gradient(y, x)


def test_tape_inside_a_function_traces_the_backward_pass():
    @ember.function
    def grad_of_cube(x):
        with ember.GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
        return tape.gradient(y, x)

    assert float(grad_of_cube(c(2.0))) == pytest.approx(12.0)
    assert float(grad_of_cube(c(3.0))) == pytest.approx(27.0)


def test_training_step_with_variables_lowers_the_loss():
    rng = np.random.default_rng(0)
    xs = c(rng.standard_normal((32, 3)))
    true_w = np.array([[1.0], [-2.0], [0.5]])
    ys = c(xs.numpy() @ true_w)
    w = ember.Variable(np.zeros((3, 1)))
    losses = []
    for _ in range(30):
        with ember.GradientTape() as tape:
            loss = ember.reduce_mean(ember.square(ember.matmul(xs, w) - ys))
        g = tape.gradient(loss, w)
        w.assign_sub(0.1 * g)
        losses.append(float(loss))
    assert losses[-1] < 0.05 * losses[0]


def _second_order(fn, x):
    with ember.GradientTape() as outer:
        outer.watch(x)
        with ember.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        s = ember.reduce_sum(inner.gradient(y, x))
    return outer.gradient(s, x).numpy()


def test_gradient_through_a_function_call_matches_eager():
    rng = np.random.default_rng(5)
    w = ember.Variable(rng.standard_normal((4, 2)))
    x = c(rng.standard_normal((3, 4)))

    def body(x):
        return ember.reduce_sum(ember.tanh(ember.matmul(x, w)) * x[:, :2])

    fn = ember.function(body)
    grads = []
    for f in (body, fn):
        with ember.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        grads.append([g.numpy() for g in tape.gradient(y, [x, w])])
    for got, want in zip(grads[1], grads[0]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_second_order(fn, x), _second_order(body, x), rtol=1e-10, atol=1e-12)


def test_function_gradient_backward_is_traced_once_and_never_writes_variables():
    counter = ember.Variable(np.array(0.0))
    w = ember.Variable(2.0)

    @ember.function
    def f(x):
        counter.assign_add(1.0)
        return x * w

    for _ in range(3):
        x = c(3.0)
        with ember.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        gx, gw = tape.gradient(y, [x, w])
        assert float(gx) == 2.0 and float(gw) == 3.0
    assert float(counter) == 3.0  # the forward calls only: the backward pass recomputes without writing back
    concrete = f.get_concrete_function(c(1.0))
    assert concrete._backward.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("p, want", [(1.0, lambda x: 3 * x ** 2), (-1.0, np.cos)])
def test_gradient_through_cond_with_a_symbolic_predicate(p, want):
    def branches(x, p):
        return ember.cond(p > 0, lambda: ember.reduce_sum(x * x * x), lambda: ember.reduce_sum(ember.sin(x)))

    @ember.function
    def inside(x, p):
        with ember.GradientTape() as tape:
            tape.watch(x)
            y = branches(x, p)
        return tape.gradient(y, x)

    outside = ember.function(branches)
    x = c([1.0, 2.0])
    np.testing.assert_allclose(inside(x, c(p)).numpy(), want(x.numpy()), rtol=1e-12)
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = outside(x, c(p))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want(x.numpy()), rtol=1e-12)


def test_second_order_through_cond():
    @ember.function
    def second(x):
        with ember.GradientTape() as outer:
            outer.watch(x)
            with ember.GradientTape() as inner:
                inner.watch(x)
                y = ember.cond(ember.reduce_sum(x) > 0, lambda: ember.reduce_sum(x * x * x), lambda: x[0])
            g = inner.gradient(y, x)
            s = ember.reduce_sum(g)
        return outer.gradient(s, x)

    np.testing.assert_allclose(second(c([1.0, 2.0])).numpy(), [6.0, 12.0], rtol=1e-12)
