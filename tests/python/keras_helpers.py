"""Shared checks for the ember.keras tests: gradients against central finite differences."""

import numpy as np

import ember


def loss_and_grads(layer, x, r, **kwargs):
    """sum(layer(x) * r) and its gradients for the input and each trainable weight (tape)."""
    xt = ember.constant(x)
    with ember.GradientTape() as tape:
        tape.watch(xt)
        loss = ember.reduce_sum(layer(xt, **kwargs) * ember.constant(r))
    grads = tape.gradient(loss, [xt] + list(layer.trainable_weights))
    return float(loss.numpy()), [None if g is None else g.numpy() for g in grads]


def numeric_grad(f, value, eps=1e-6):
    """Central differences of the scalar f() as each element of the array `value` moves (value is set in place)."""
    grad = np.zeros_like(value)
    flat, gflat = value.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        up = f()
        flat[i] = old - eps
        down = f()
        flat[i] = old
        gflat[i] = (up - down) / (2 * eps)
    return grad


def check_layer_gradients(layer, x, rtol=1e-5, atol=1e-7, check_input=True, **kwargs):
    """The tape's gradients of a float64 layer match finite differences for the input and every weight."""
    x = np.array(x, dtype=np.float64)
    layer(ember.constant(x), **kwargs)  # build
    rng = np.random.default_rng(0)
    r = rng.standard_normal(np.asarray(layer(ember.constant(x), **kwargs).numpy()).shape)
    _, grads = loss_and_grads(layer, x, r, **kwargs)

    def loss_at():
        return float(ember.reduce_sum(layer(ember.constant(x), **kwargs) * ember.constant(r)).numpy())

    if check_input:
        np.testing.assert_allclose(grads[0], numeric_grad(loss_at, x), rtol=rtol, atol=atol)
    for w, g in zip(layer.trainable_weights, grads[1:]):
        value = w.numpy().copy()

        def loss_w(w=w, value=value):
            w.assign(value)
            return loss_at()
        numeric = numeric_grad(loss_w, value)
        w.assign(value)
        np.testing.assert_allclose(g, numeric, rtol=rtol, atol=atol, err_msg=w.name)
    return grads
