"""keras.ops (the subset ember.keras has) against NumPy, with NumPy's argument conventions."""

import numpy as np
import pytest

from ember.keras import layers, ops

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0


@pytest.mark.parametrize("name, call, want", [
    ("sum", lambda: ops.sum(X, axis=1, keepdims=True), X.sum(1, keepdims=True)),
    ("mean", lambda: ops.mean(X), X.mean()),
    ("max", lambda: ops.max(X, axis=0), X.max(0)),
    ("min", lambda: ops.min(X, axis=(0, 1)), X.min()),
    ("var", lambda: ops.var(X, axis=0), X.var(0)),
    ("std", lambda: ops.std(X), X.std()),
    ("argmax", lambda: ops.argmax(X), X.argmax()),
    ("argmin_axis", lambda: ops.argmin(X, axis=1), X.argmin(1)),
    ("clip", lambda: ops.clip(X, -1.0, 2.0), np.clip(X, -1, 2)),
    ("concatenate", lambda: ops.concatenate([X, X], axis=1), np.concatenate([X, X], 1)),
    ("stack", lambda: ops.stack([X, X]), np.stack([X, X])),
    ("transpose", lambda: ops.transpose(X), X.T),
    ("take", lambda: ops.take(X, np.array([1, 7])), X.ravel()[[1, 7]]),
    ("take_axis", lambda: ops.take(X, np.array([2, 0]), axis=0), X[[2, 0]]),
    ("one_hot", lambda: ops.one_hot(np.array([1, 0]), 3), np.eye(3)[[1, 0]]),
    ("arange", lambda: ops.arange(1, 7, 2), np.arange(1, 7, 2)),
    ("dot", lambda: ops.dot(X, X.T), X @ X.T),
    ("logsumexp", lambda: ops.logsumexp(X, axis=1), np.log(np.exp(X).sum(1))),
    ("softmax", lambda: ops.softmax(X), np.exp(X) / np.exp(X).sum(-1, keepdims=True)),
    ("relu", lambda: ops.relu(X), np.maximum(X, 0)),
    ("tile", lambda: ops.tile(X, (2, 1)), np.tile(X, (2, 1))),
    ("squeeze", lambda: ops.squeeze(ops.expand_dims(X, 0), 0), X),
    ("where", lambda: ops.where(X > 0, X, 0.0), np.where(X > 0, X, 0)),
])
def test_op_matches_numpy(name, call, want):
    np.testing.assert_allclose(ops.convert_to_numpy(call()), want, rtol=1e-5, atol=1e-6)


def test_split_uses_numpy_split_points():
    parts = ops.split(X, [1, 3], axis=1)
    for got, want in zip(parts, np.split(X, [1, 3], axis=1)):
        np.testing.assert_array_equal(got.numpy(), want)
    assert len(ops.split(X, 2, axis=1)) == 2
    assert ops.shape(X) == (3, 4)


def test_ops_in_a_custom_layer():
    class Gate(layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

        def call(self, x):
            return ops.sigmoid(ops.multiply(x, self.w)) * x

    x = np.array([[1.0, -2.0]], np.float32)
    np.testing.assert_allclose(Gate()(x).numpy(), x / (1 + np.exp(-x)), rtol=1e-6)
