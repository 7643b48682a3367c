"""ember.optimizers and ember.initializers against NumPy versions of Keras' rules."""

import numpy as np
import pytest

import ember


def _numpy_steps(kind, w, grads, lr=0.1, **kw):
    """Keras 3's update rules in float64, one gradient per step."""
    w = w.astype(np.float64).copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    vhat = np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        g = g.astype(np.float64)
        if kind == "sgd":
            mom = kw.get("momentum", 0.0)
            if mom:
                m = mom * m - lr * g
                w = w + (mom * m - lr * g if kw.get("nesterov") else m)
            else:
                w = w - lr * g
        else:
            b1, b2, eps = kw.get("beta_1", 0.9), kw.get("beta_2", 0.999), kw.get("epsilon", 1e-7)
            if kind == "adamw":
                w = w * (1 - lr * kw["weight_decay"])
            m = m + (g - m) * (1 - b1)
            v = v + (g * g - v) * (1 - b2)
            lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            if kw.get("amsgrad"):
                vhat = np.maximum(vhat, v)
                w = w - lr_t * m / (np.sqrt(vhat) + eps)
            else:
                w = w - lr_t * m / (np.sqrt(v) + eps)
    return w


CASES = [
    ("sgd", {}, lambda: ember.optimizers.SGD(0.1)),
    ("sgd", {"momentum": 0.9}, lambda: ember.optimizers.SGD(0.1, momentum=0.9)),
    ("sgd", {"momentum": 0.9, "nesterov": True}, lambda: ember.optimizers.SGD(0.1, momentum=0.9, nesterov=True)),
    ("adam", {}, lambda: ember.optimizers.Adam(0.1)),
    ("adam", {"amsgrad": True}, lambda: ember.optimizers.Adam(0.1, amsgrad=True)),
    ("adamw", {"weight_decay": 0.01}, lambda: ember.optimizers.AdamW(0.1, weight_decay=0.01)),
    ("adamw", {"weight_decay": 0.01}, lambda: ember.optimizers.Adam(0.1, weight_decay=0.01)),  # Keras: the same rule
]


@pytest.mark.parametrize("kind, kwargs, make", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_updates_match_keras_rules(kind, kwargs, make, dtype):
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((3, 4))
    grads = [rng.standard_normal((3, 4)) for _ in range(5)]
    var = ember.Variable(w0.astype(dtype))
    opt = make()
    for g in grads:
        opt.apply_gradients([(ember.constant(g.astype(dtype)), var)])
    want = _numpy_steps(kind, w0, grads, **kwargs)
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(var.numpy(), want, rtol=tol, atol=tol)
    assert int(opt.iterations) == 5


def test_tf_alias_spellings():
    assert ember.optimizers.SGD is ember.keras.optimizers.SGD
    assert ember.optimizers.Adam is ember.keras.optimizers.Adam
    assert ember.initializers.GlorotUniform is ember.keras.initializers.GlorotUniform


def test_none_gradient_skips_the_variable():
    a, b = ember.Variable([1.0]), ember.Variable([2.0])
    ember.optimizers.SGD(0.5).apply_gradients([(None, a), (ember.constant([1.0]), b)])
    assert a.numpy()[0] == 1.0 and b.numpy()[0] == 1.5


def test_schedule_learning_rate():
    sched = ember.optimizers.schedules.ExponentialDecay(1.0, decay_steps=1, decay_rate=0.5)
    var = ember.Variable([0.0])
    opt = ember.optimizers.SGD(sched)
    for _ in range(3):
        opt.apply_gradients([(ember.constant([1.0]), var)])
    np.testing.assert_allclose(var.numpy(), [-(1.0 + 0.5 + 0.25)], rtol=1e-6)
    assert sched(2) == pytest.approx(0.25)
    pw = ember.optimizers.schedules.PiecewiseConstantDecay([1, 3], [1.0, 0.5, 0.1])
    assert [pw(s) for s in (0, 1, 2, 3, 4)] == [1.0, 1.0, 0.5, 0.5, 0.1]
    assert float(pw(ember.constant(np.int64(2)))) == pytest.approx(0.5)


def test_clipping():
    var = ember.Variable([0.0, 0.0])
    ember.optimizers.SGD(1.0, clipnorm=1.0).apply_gradients([(ember.constant([3.0, 4.0]), var)])
    np.testing.assert_allclose(var.numpy(), [-0.6, -0.8], rtol=1e-6)
    var2 = ember.Variable([0.0, 0.0])
    ember.optimizers.SGD(1.0, clipvalue=0.5).apply_gradients([(ember.constant([3.0, -0.25]), var2)])
    np.testing.assert_allclose(var2.numpy(), [-0.5, 0.25])
    with pytest.raises(ValueError, match="at most one"):
        ember.optimizers.SGD(1.0, clipnorm=1.0, clipvalue=1.0)


def test_minimize_with_callable_loss():
    var = ember.Variable(3.0)
    opt = ember.optimizers.SGD(0.1)
    for _ in range(50):
        opt.minimize(lambda: (var - 1.0) ** 2, [var])
    assert float(var) == pytest.approx(1.0, abs=1e-3)


def test_training_step_as_a_function_matches_eager():
    rng = np.random.default_rng(3)
    x = ember.constant(rng.standard_normal((16, 3)))
    y = ember.constant(rng.standard_normal((16, 1)))
    w0 = rng.standard_normal((3, 1))

    def make():
        return ember.Variable(w0.copy()), ember.optimizers.Adam(0.05)

    def step(w, opt):
        with ember.GradientTape() as tape:
            loss = ember.reduce_mean(ember.square(ember.matmul(x, w) - y))
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        return loss

    w_eager, opt_eager = make()
    w_fn, opt_fn = make()
    traced = ember.function(lambda: step(w_fn, opt_fn))
    for _ in range(4):
        step(w_eager, opt_eager)
        traced()
    np.testing.assert_allclose(w_fn.numpy(), w_eager.numpy(), rtol=1e-12)
    assert int(opt_fn.iterations) == 4


# --- Initializers --------------------------------------------------------------


def test_initializer_statistics_and_fans():
    shape = (400, 300)
    limit = np.sqrt(6.0 / (400 + 300))
    g = ember.initializers.GlorotUniform(seed=1)(shape).numpy()
    assert g.shape == shape and g.dtype == np.float32
    assert np.abs(g).max() <= limit and np.abs(g).max() > 0.95 * limit
    h = ember.initializers.HeNormal(seed=2)(shape, dtype="float64").numpy()
    assert h.dtype == np.float64
    assert np.std(h) == pytest.approx(np.sqrt(2.0 / 400), rel=0.05)
    assert np.abs(h).max() <= 2 * np.sqrt(2.0 / 400) / 0.87962566103423978 + 1e-12
    conv = ember.initializers.GlorotNormal(seed=3)((3, 3, 16, 32)).numpy()
    assert np.std(conv) == pytest.approx(np.sqrt(2.0 / (9 * 16 + 9 * 32)), rel=0.05)
    u = ember.initializers.RandomUniform(-1.0, 2.0, seed=4)((1000,)).numpy()
    assert u.min() >= -1.0 and u.max() < 2.0
    n = ember.initializers.RandomNormal(1.0, 0.5, seed=5)((20000,)).numpy()
    assert np.mean(n) == pytest.approx(1.0, abs=0.02) and np.std(n) == pytest.approx(0.5, rel=0.03)
    np.testing.assert_array_equal(ember.initializers.Zeros()((2, 2)).numpy(), np.zeros((2, 2), np.float32))
    np.testing.assert_array_equal(ember.initializers.Ones()((2,), dtype="float64").numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(ember.initializers.Constant(7)((3,)).numpy(), [7.0, 7.0, 7.0])


def test_seeded_initializers_are_reproducible():
    a, b = ember.initializers.TruncatedNormal(seed=42), ember.initializers.TruncatedNormal(seed=42)
    first_a, first_b = a((5,)).numpy(), b((5,)).numpy()
    np.testing.assert_array_equal(first_a, first_b)
    assert not np.array_equal(a((5,)).numpy(), first_a)  # the next values of the sequence
    assert np.abs(first_a).max() <= 2 * 0.05


def test_initializer_get_and_errors():
    assert isinstance(ember.initializers.get("glorot_uniform"), ember.initializers.GlorotUniform)
    assert isinstance(ember.initializers.get("HeNormal"), ember.initializers.HeNormal)
    with pytest.raises(ValueError, match="unknown initializer"):
        ember.initializers.get("nope")
    with pytest.raises(ValueError, match="floating"):
        ember.initializers.GlorotUniform()((2, 2), dtype="int32")


def test_learning_rate_change_reaches_a_traced_step():
    # Note [Learning rate variable]: the rate is read at each call, not frozen at trace time.
    v = ember.Variable(np.array([1.0], np.float32))
    opt = ember.optimizers.SGD(0.5)

    @ember.function
    def step():
        opt.apply_gradients([(ember.constant([1.0]), v)])

    step()
    opt.learning_rate = 0.25
    step()
    np.testing.assert_allclose(v.numpy(), [1.0 - 0.5 - 0.25])
    assert opt.learning_rate == 0.25 and step.experimental_get_tracing_count() == 1
